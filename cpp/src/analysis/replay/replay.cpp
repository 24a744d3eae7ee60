// replay(): the sequences of a trace run by the interpreter's engine, and the ideal network.
#include "parjava/analysis/replay/replay.hpp"

#include <chrono>
#include <cmath>

#include "parjava/error.hpp"
#include "sequence_builder.hpp"

namespace parjava::analysis {

namespace {

void check(const ReplayOptions &o, const trace::Trace &trace) {
  const auto positive = [](double v) { return v >= 0.0 && std::isfinite(v); };
  if (!positive(o.compute_scale)) {
    throw Error(ErrorKind::Usage, "replay: the compute scale must be a finite number >= 0");
  }
  const auto check_all = [&](const std::vector<double> &v, std::size_t size, const char *what) {
    if (!v.empty() && v.size() != size) {
      throw Error(ErrorKind::Usage, std::string("replay: ") + what + " scale has " +
                                        std::to_string(v.size()) + " factors for " +
                                        std::to_string(size));
    }
    for (const double f : v) {
      if (!positive(f)) {
        throw Error(ErrorKind::Usage,
                    std::string("replay: a ") + what + " scale factor is negative or not finite");
      }
    }
  };
  check_all(o.region_scale, trace.regions.size(), "region");
  check_all(o.callsite_scale, trace.callsites.size(), "call-site");
  for (const double f : o.rank_scale) {
    if (!positive(f)) {
      throw Error(ErrorKind::Usage, "replay: a rank scale factor is negative or not finite");
    }
  }
}

} // namespace

ReplayResult replay(const trace::Trace &trace, const machine::Machine &machine,
                    const ReplayOptions &options) {
  check(options, trace);
  ReplayResult out;
  const auto t0 = std::chrono::steady_clock::now();
  BuiltSequences built = build_sequences(
      trace, options, options.overhead_machine != nullptr ? options.overhead_machine : &machine,
      out.notes);
  const auto t1 = std::chrono::steady_clock::now();
  out.events = built.events;
  out.steps = built.program.steps();
  out.calls = built.program.calls.size();
  out.original_end_times.resize(built.main_locations.size(), 0.0);
  for (std::size_t r = 0; r < built.main_locations.size(); ++r) {
    const auto l = built.main_locations[r];
    if (trace.location_end(l) > trace.location_begin(l)) {
      const auto last = static_cast<std::size_t>(trace.location_end(l) - 1);
      out.original_end_times[r] =
          static_cast<double>(trace.events.time[last] - built.origin) * 1e-9;
      out.original_time = std::max(out.original_time, out.original_end_times[r]);
    }
  }
  out.prediction = interp::interpret_sequences(built.program, machine, options.interpret);
  const auto t2 = std::chrono::steady_clock::now();
  out.build_seconds = std::chrono::duration<double>(t1 - t0).count();
  out.run_seconds = std::chrono::duration<double>(t2 - t1).count();
  if (out.prediction.trace) {
    out.prediction.trace->metadata.creator = "parjava trace replay";
    out.prediction.trace->metadata.path = "replay:" + built.program.name;
  }
  return out;
}

machine::Machine ideal_network(const machine::Machine &machine) {
  // Zero latency and a bandwidth no message notices (the engine needs a finite one): with it
  // every transfer takes below a picosecond.
  const auto ideal = [](const machine::Network &n, std::string_view field) {
    return machine::Network::hockney({0.0, 1e300, n.eager_limit()}, field);
  };
  std::optional<machine::Network> inter;
  if (machine.has_inter_node()) {
    inter = ideal(machine.inter_node(), "inter_node");
  }
  machine::ThreadCosts threads = machine.threads();
  threads.copy_per_byte = 0.0;
  // No links either: a topology's link latencies and per-flow bounds (SimGrid's TCP window)
  // would put back the delays the ideal network removes, and sharing links of unlimited
  // bandwidth only costs the flow solver time. NICs of unlimited bandwidth are never busy.
  machine::Machine out = machine.with_networks(ideal(machine.intra_node(), "intra_node"), inter)
                             .with_threads(threads)
                             .with_topology(machine::Topology::crossbar())
                             .with_endpoint_contention(false);
  out.set_name(machine.name() + " (ideal network)");
  out.set_description("An ideal network (zero latency, unlimited bandwidth, no shared links or "
                      "NICs) in place of the network of: " +
                      machine.description());
  return out;
}

} // namespace parjava::analysis
