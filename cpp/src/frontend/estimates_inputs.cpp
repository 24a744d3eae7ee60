#include "estimates_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>

namespace parjava::frontend {

namespace {

std::string number(double v) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.10g", v);
  return buf;
}

struct Reads {
  std::optional<double> value;      // what the parameter takes: rank 0's last read, else the
  int rank = -1;                    // lowest rank that read it
  std::map<double, int> last_reads; // last value read on each rank -> ranks
  std::size_t reads = 0;
  bool changed = false; // a rank read different values one after another
};

// Parameter source "file:line" as a diagnostic's place.
void place(Diagnostic &d, const model::Parameter &p) {
  const std::size_t colon = p.source.rfind(':');
  if (colon == std::string::npos) {
    return;
  }
  d.file = p.source.substr(0, colon);
  try {
    d.line = static_cast<std::uint32_t>(std::stoul(p.source.substr(colon + 1)));
  } catch (const std::exception &) {
    d.line = 0;
  }
}

} // namespace

std::vector<Diagnostic> apply_inputs(model::Model &m, const EstimationPlan &plan,
                                     const Measurements &ms) {
  // One parameter may be read at several places (an option and its broadcast): its reads are
  // pooled. The value of a run is what the input holds after its last read on each rank: the
  // last assignment wins, as in the program.
  std::map<std::string, Reads> reads;
  std::vector<std::string> order;
  for (const Probe &p : plan.probes) {
    if (p.kind != ProbeKind::Input) {
      continue;
    }
    if (!reads.contains(p.argument)) {
      order.push_back(p.argument);
    }
    Reads &r = reads[p.argument];
    if (ms.runs.empty()) {
      continue;
    }
    for (const RankRun &rank : ms.runs.front()) {
      const auto it = rank.values.find(p.slot);
      if (it == rank.values.end() || it->second.empty()) {
        continue;
      }
      const std::vector<double> &seq = it->second;
      r.reads += seq.size();
      r.changed = r.changed ||
                  std::any_of(seq.begin(), seq.end(), [&](double x) { return x != seq.front(); });
      ++r.last_reads[seq.back()];
      if (r.rank < 0 || rank.rank <= r.rank) {
        r.rank = rank.rank;
        r.value = seq.back();
      }
    }
  }
  std::vector<Diagnostic> out;
  for (const std::string &name : order) {
    const Reads &r = reads[name];
    auto it = std::find_if(m.parameters.begin(), m.parameters.end(),
                           [&](const model::Parameter &p) { return p.name == name; });
    if (it == m.parameters.end()) {
      continue;
    }
    model::Parameter &param = *it;
    Diagnostic d;
    d.kind = DiagnosticKind::Parameter;
    place(d, param);
    const std::string old = param.value.type == model::ValueType::Int
                                ? std::to_string(param.value.as_int())
                                : number(param.value.as_float());
    if (!r.value && param.origin == "file" && param.program_default) {
      // A keyword the input file did not have: the program kept its own value.
      param.value = *param.program_default;
      const std::string now = param.value.type == model::ValueType::Int
                                  ? std::to_string(param.value.as_int())
                                  : number(param.value.as_float());
      d.severity = Severity::Note;
      d.message = "parameter '" + name + "' = " + now +
                  ", the program's own value: the estimation run's input file does not set it";
      out.push_back(std::move(d));
      continue;
    }
    if (!r.value) {
      d.severity = Severity::Warning;
      d.message = "parameter '" + name +
                  "': the estimation run never reached the place where the program reads it; "
                  "the model keeps " +
                  old + ", which the measured run may not have used";
      out.push_back(std::move(d));
      continue;
    }
    const double v = *r.value;
    if (param.value.type == model::ValueType::Int) {
      param.value = model::Value::of_int(static_cast<std::int64_t>(std::llround(v)));
    } else {
      param.value = model::Value::of_float(v);
    }
    const std::string now = param.value.type == model::ValueType::Int
                                ? std::to_string(param.value.as_int())
                                : number(param.value.as_float());
    d.severity = Severity::Note;
    d.message = "parameter '" + name + "' = " + now + " as the estimation run read it (" +
                std::to_string(r.reads) + (r.reads == 1 ? " read" : " reads") +
                (old != now ? "; the model had " + old : std::string()) + ")";
    out.push_back(d);
    if (r.last_reads.size() > 1) {
      Diagnostic w = d;
      w.severity = Severity::Warning;
      std::string values;
      for (const auto &[value, ranks] : r.last_reads) {
        values += (values.empty() ? "" : ", ") + number(value) + " on " + std::to_string(ranks) +
                  (ranks == 1 ? " rank" : " ranks");
      }
      w.message = "parameter '" + name + "' differs between the ranks of the estimation run (" +
                  values + "); the model gives every rank rank " + std::to_string(r.rank) +
                  "'s value " + now;
      out.push_back(std::move(w));
    } else if (r.changed) {
      Diagnostic w = d;
      w.severity = Severity::Note;
      w.message = "parameter '" + name +
                  "' was read more than once with different values; the model takes the "
                  "last, " +
                  now;
      out.push_back(std::move(w));
    }
  }
  return out;
}

} // namespace parjava::frontend
