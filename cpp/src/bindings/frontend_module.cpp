// parjava._frontend: the Clang model builder seen from Python. Thin by design: models, plans and
// diagnostics cross as JSON text (the model part's own schema), and python/parjava/frontend.py
// wraps them into parjava.Model objects; compiling and running the estimation code happens there.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "parjava/frontend/estimates.hpp"
#include "parjava/frontend/instrument.hpp"
#include "parjava/frontend/model_builder.hpp"
#include "parjava/model/model_json.hpp"

namespace py = pybind11;
using namespace parjava::frontend;

void register_module_local_errors(py::module_ &m);

namespace {

BuildOptions options_from(const std::vector<std::string> &sources,
                          const std::vector<std::string> &args, const std::string &compile_commands,
                          const std::string &entry, const std::string &name,
                          const std::vector<std::string> &argv, bool find_mpi) {
  BuildOptions o;
  o.sources = sources;
  o.args = args;
  o.compile_commands = compile_commands;
  o.entry = entry;
  o.name = name;
  o.argv = argv;
  o.find_mpi = find_mpi;
  return o;
}

// What the estimation runs measured besides the model (JSON): per run and rank the program's own
// time, its CPU time, the machine's load and steal, what the probes cost; and the time of every
// timed node, for the self-check and the noise report (python/parjava/frontend.py).
std::string run_summary(const EstimationPlan &plan, const Measurements &ms) {
  nlohmann::json doc;
  doc["cpus"] = ms.cpus;
  nlohmann::json runs = nlohmann::json::array();
  for (const auto &run : ms.runs) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const RankRun &r : run) {
      nlohmann::json j = {
          {"rank", r.rank}, {"size", r.size}, {"probe_seconds", probe_seconds(r, ms, plan)}};
      // The largest OpenMP team the rank's work-sharing loops ran with (their trip probes
      // record it, and the loops timed whole the `omp_team` line): the self-check predicts the
      // run with that many threads.
      double threads = static_cast<double>(r.omp_team);
      for (const SlotMeasurement &s : r.slots) {
        if (s.count > 0 && s.team > 0.0) {
          threads = std::max(threads, s.team / static_cast<double>(s.count));
        }
      }
      if (threads > 0.0) {
        j["threads"] = static_cast<int>(std::lround(threads));
      }
      if (r.has_program) {
        j["program_seconds"] = r.program_seconds;
        j["cpu_seconds"] = r.program_cpu_seconds;
        j["load_begin"] = r.load_begin;
        j["load_end"] = r.load_end;
        j["steal_seconds"] = r.steal_seconds;
        j["busy_seconds"] = r.busy_seconds;
        j["run_seconds"] = r.run_seconds;
        j["wait_seconds"] = r.wait_seconds;
        j["corrected_share"] = r.corrected_share;
      }
      ranks.push_back(std::move(j));
    }
    runs.push_back(std::move(ranks));
  }
  doc["runs"] = std::move(runs);
  nlohmann::json nodes = nlohmann::json::array();
  nlohmann::json counters = nlohmann::json::array();
  for (const NodeTotal &t : node_totals(plan, ms)) {
    if (t.kind == ProbeKind::Trips || t.kind == ProbeKind::Branch) {
      counters.push_back({{"node", t.node},
                          {"kind", std::string(probe_kind_name(t.kind))},
                          {"executions", t.executions},
                          {"outcomes", t.outcomes}});
      continue;
    }
    nodes.push_back({{"node", t.node},
                     {"kind", std::string(probe_kind_name(t.kind))},
                     {"seconds", t.seconds},
                     {"executions", t.executions}});
  }
  doc["nodes"] = std::move(nodes);
  // Loops' entries and iterations, branches' evaluations and true outcomes: where a self-check
  // looks for the place the model's counts part from the run's.
  doc["counters"] = std::move(counters);
  return doc.dump();
}

// The machine's memory costs (python/parjava/_library_costs.py) into the loader's options.
void read_library_costs(const std::string &text, ApplyOptions &options) {
  if (text.empty()) {
    return;
  }
  const nlohmann::json doc = nlohmann::json::parse(text);
  for (const auto &[name, points] : doc.at("curves").items()) {
    CostCurve curve;
    for (const auto &pt : points) {
      curve.emplace_back(pt.at(0).get<double>(), pt.at(1).get<double>());
    }
    if (name == "sweep_per_byte") {
      options.sweep_per_byte = std::move(curve);
    } else {
      options.library_curves[name] = std::move(curve);
    }
  }
}

} // namespace

PYBIND11_MODULE(_frontend, m) {
  m.doc() = "parjava Clang model builder (private: use parjava.build_model)";
  register_module_local_errors(m);

  m.def(
      "build_model",
      [](const std::vector<std::string> &sources, const std::vector<std::string> &args,
         const std::string &compile_commands, const std::string &entry, const std::string &name,
         const std::vector<std::string> &argv, bool find_mpi) {
        BuildResult r;
        {
          py::gil_scoped_release release;
          r = build_model(
              options_from(sources, args, compile_commands, entry, name, argv, find_mpi));
        }
        py::dict out;
        out["model"] = parjava::model::model_to_json(r.model, -1);
        out["diagnostics"] = diagnostics_to_json(r.diagnostics, -1);
        out["plan"] = r.plan.to_json();
        return out;
      },
      py::arg("sources"), py::arg("args"), py::arg("compile_commands"), py::arg("entry"),
      py::arg("name"), py::arg("argv"), py::arg("find_mpi") = true);

  m.def(
      "describe_structure",
      [](const std::vector<std::string> &sources, const std::vector<std::string> &args,
         const std::string &compile_commands, const std::string &entry, bool find_mpi) {
        py::gil_scoped_release release;
        return describe_structure_of(
            options_from(sources, args, compile_commands, entry, "", {}, find_mpi));
      },
      py::arg("sources"), py::arg("args"), py::arg("compile_commands"), py::arg("entry"),
      py::arg("find_mpi") = true);

  m.def(
      "instrument",
      [](const std::vector<std::string> &sources, const std::vector<std::string> &args,
         const std::string &compile_commands, const std::string &entry, const std::string &name,
         const std::vector<std::string> &argv, bool find_mpi, const std::string &directory,
         const std::vector<std::string> &without) {
        Instrumentation inst;
        {
          py::gil_scoped_release release;
          inst =
              instrument(options_from(sources, args, compile_commands, entry, name, argv, find_mpi),
                         directory, std::set<std::string>(without.begin(), without.end()));
        }
        py::dict out;
        out["model"] = parjava::model::model_to_json(inst.model, -1);
        out["plan"] = inst.plan.to_json();
        out["slots"] = inst.plan.slots;
        out["diagnostics"] = diagnostics_to_json(inst.diagnostics, -1);
        py::list files;
        for (const auto &s : inst.sources) {
          py::dict f;
          f["original"] = s.original;
          f["instrumented"] = s.instrumented;
          f["directory"] = s.directory;
          f["command"] = s.command;
          f["original_command"] = s.original_command;
          files.append(f);
        }
        out["sources"] = files;
        py::list headers;
        for (const auto &h : inst.headers) {
          py::dict d;
          d["original"] = h.original;
          d["instrumented"] = h.instrumented;
          d["probed"] = h.probed;
          headers.append(d);
        }
        out["headers"] = headers;
        py::list locations;
        for (const auto &l : inst.locations) {
          py::dict d;
          d["slot"] = l.slot;
          d["function"] = l.function;
          d["file"] = l.file;
          d["line"] = l.line;
          d["instrumented"] = l.instrumented;
          d["instrumented_line"] = l.instrumented_line;
          locations.append(d);
        }
        out["locations"] = locations;
        py::list functions;
        for (const auto &f : inst.functions) {
          py::dict d;
          d["name"] = f.name;
          d["file"] = f.file;
          d["first_line"] = f.first_line;
          d["last_line"] = f.last_line;
          functions.append(d);
        }
        out["functions"] = functions;
        out["runtime_source"] = inst.runtime_source;
        out["directory"] = inst.directory;
        return out;
      },
      py::arg("sources"), py::arg("args"), py::arg("compile_commands"), py::arg("entry"),
      py::arg("name"), py::arg("argv"), py::arg("find_mpi"), py::arg("directory"),
      py::arg("without") = std::vector<std::string>{});

  m.def(
      "summarize",
      [](const std::string &plan_json, const std::vector<std::string> &files) {
        py::gil_scoped_release release;
        const EstimationPlan plan = EstimationPlan::from_json(plan_json);
        Measurements ms = load_estimates(files, plan.slots);
        waiting_shares(ms, plan);
        return run_summary(plan, ms);
      },
      py::arg("plan"), py::arg("files"));

  m.def(
      "apply_estimates",
      [](const std::string &model_json, const std::string &plan_json,
         const std::vector<std::vector<std::string>> &runs, double alpha, bool reduce_loops,
         const std::string &combine, const std::string &library_costs, double probe_scale) {
        std::string model_out;
        std::string diagnostics;
        std::string summary;
        {
          py::gil_scoped_release release;
          parjava::model::Model model = parjava::model::model_from_json(model_json, "<model>");
          const EstimationPlan plan = EstimationPlan::from_json(plan_json);
          std::vector<Measurements> loaded;
          loaded.reserve(runs.size());
          for (const auto &files : runs) {
            loaded.push_back(load_estimates(files, plan.slots));
            waiting_shares(loaded.back(), plan);
          }
          RunStatistic statistic = RunStatistic::Mean;
          if (combine == "median") {
            statistic = RunStatistic::Median;
          } else if (combine == "min") {
            statistic = RunStatistic::Minimum;
          }
          Measurements ms = combine_runs(loaded, plan, statistic);
          scale_probe_costs(ms, probe_scale);
          ApplyOptions options;
          options.balance_alpha = alpha;
          options.reduce_loops = reduce_loops;
          read_library_costs(library_costs, options);
          diagnostics = diagnostics_to_json(apply_estimates(model, plan, ms, options), -1);
          model_out = parjava::model::model_to_json(model, -1);
          summary = run_summary(plan, ms);
        }
        py::dict out;
        out["model"] = model_out;
        out["diagnostics"] = diagnostics;
        out["summary"] = summary;
        return out;
      },
      py::arg("model"), py::arg("plan"), py::arg("runs"), py::arg("alpha") = 0.1,
      py::arg("reduce_loops") = true, py::arg("combine") = "mean",
      py::arg("library_costs") = std::string(), py::arg("probe_scale") = 1.0);
}
