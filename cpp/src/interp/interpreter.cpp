// Entry points: validate the options, compile the model for them, run the engine.
#include "parjava/interp/interpreter.hpp"

#include <algorithm>

#include "engine.hpp"
#include "parjava/error.hpp"
#include "parjava/interp/collective_algorithm.hpp"
#include "program.hpp"

namespace parjava::interp {

namespace {

void check_options(const InterpretOptions &options) {
  for (const auto &[collective, algorithm] : options.algorithms) {
    const auto c = collective_by_name(collective);
    if (!c) {
      throw Error(ErrorKind::Usage,
                  "unknown collective '" + collective +
                      "' in the algorithm overrides (barrier, bcast, reduce, allreduce, gather, "
                      "gatherv, scatter, scatterv, allgather, allgatherv, alltoall, alltoallv, "
                      "scan, exscan, reduce_scatter)");
    }
    const auto a = algorithm_by_name(algorithm);
    if (!a || !supports(*c, *a)) {
      std::string known;
      for (auto k : algorithms_for(*c)) {
        known += (known.empty() ? "" : ", ") + std::string(algorithm_name(k));
      }
      std::string message = "'" + algorithm + "' is not an algorithm of ";
      message.append(collective).append(" (known: ").append(known).append(")");
      throw Error(ErrorKind::Usage, message);
    }
  }
  if (options.reduction_seconds_per_byte < 0.0) {
    throw Error(ErrorKind::Usage, "reduction_seconds_per_byte must be >= 0");
  }
  if (options.max_depth < 1) {
    throw Error(ErrorKind::Usage, "max_depth must be >= 1");
  }
}

// The engine lays out a process's logical threads before the run, so an OpenMP region that
// asks for a larger team than `threads` (omp_set_num_threads(t), num_threads(t): XSBench's and
// RSBench's `-t`) stops it, and the run starts over with a pool that holds the team: the
// program creates those threads whatever the prediction's default (OpenMP 5.2 §10.1).
Prediction run_growing_pool(const model::Model &model, const Program &program,
                            const machine::Machine &machine, const InterpretOptions &options,
                            const std::vector<std::pair<std::uint32_t, model::Value>> &values) {
  constexpr std::int64_t kLargestTeam = 1 << 16;
  std::int64_t pool = options.threads;
  std::string asked_by;
  for (;;) {
    std::vector<std::string> warnings = program.warnings;
    Engine engine(model, program, machine, options, warnings, pool);
    engine.set_initial_values(values);
    try {
      Prediction out = engine.run();
      if (pool > options.threads) {
        // First: it changes what every other figure means.
        out.warnings.push_back(asked_by + " asks for a team of " + std::to_string(pool) +
                               " threads: each process was given " + std::to_string(pool) +
                               " logical threads, not threads=" + std::to_string(options.threads) +
                               " (the program creates its team's threads)");
        std::rotate(out.warnings.begin(), out.warnings.end() - 1, out.warnings.end());
      }
      return out;
    } catch (const LargerTeam &larger) {
      if (larger.threads > kLargestTeam) {
        throw Error(ErrorKind::Model, larger.where + ": a team of " +
                                          std::to_string(larger.threads) +
                                          " threads (the interpreter models at most " +
                                          std::to_string(kLargestTeam) + " per process)");
      }
      pool = larger.threads;
      asked_by = larger.where;
    }
  }
}

} // namespace

Prediction interpret(const model::Model &model, const machine::Machine &machine,
                     const InterpretOptions &options) {
  check_options(options);
  const Program program = compile_program(model, options, machine.power());
  return run_growing_pool(model, program, machine, options, {});
}

Prediction interpret_node(const model::Model &model, model::NodeId node,
                          const machine::Machine &machine, const InterpretOptions &options,
                          const std::map<std::string, model::Value> &inputs) {
  check_options(options);
  const model::NodeIndex index = model.index_of(node);
  const Program program = compile_program(model, options, machine.power(), index);
  const std::size_t function = model.function_of(index);
  std::vector<std::pair<std::uint32_t, model::Value>> values;
  for (const auto &[name, value] : inputs) {
    const auto &locals = program.local_slots[function];
    if (const auto it = locals.find(name); it != locals.end()) {
      values.emplace_back(it->second, value);
    } else if (const auto g = program.global_slots_by_name.find(name);
               g != program.global_slots_by_name.end()) {
      values.emplace_back(g->second, value);
    } else {
      throw Error(ErrorKind::Usage, "input '" + name + "' is not a variable of function '" +
                                        model.functions[function].name + "' or a global");
    }
  }
  InterpretOptions o = options;
  o.entry = model.functions[function].name;
  return run_growing_pool(model, program, machine, o, values);
}

} // namespace parjava::interp
