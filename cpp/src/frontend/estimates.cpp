#include "parjava/frontend/estimates.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "estimates_applier.hpp"
#include "estimates_bounds.hpp"
#include "estimates_inputs.hpp"
#include "estimates_triangles.hpp"
#include "estimates_trips.hpp"
#include "parjava/error.hpp"
#include "parjava/model/reduction.hpp"
#include "size_costs.hpp"
#include "text_format.hpp"

namespace parjava::frontend::estimates_detail {

std::vector<Diagnostic> Applier::run() {
  m_.validate();
  pool_ranks();
  // The inputs first: the times below are divided by trip counts that depend on them.
  for (Diagnostic &d : apply_inputs(m_, plan_, ms_)) {
    diagnostics_.push_back(std::move(d));
  }
  for (const Probe &p : plan_.probes) {
    if (p.kind == ProbeKind::Input || !m_.has_node(p.node)) {
      continue;
    }
    const SlotMeasurement &s = slot(p);
    switch (p.kind) {
    case ProbeKind::Block:
    case ProbeKind::Function:
      block(p, s);
      break;
    case ProbeKind::Branch:
      branch(p, s);
      break;
    case ProbeKind::Switch:
      selector(p, s);
      break;
    case ProbeKind::Trips:
      trips(p, s);
      break;
    case ProbeKind::Value:
      value(p, s);
      break;
    case ProbeKind::Prologue:
      prologue(p, s);
      break;
    case ProbeKind::Sized:
      sized(p, s);
      break;
    case ProbeKind::Fragment:
    case ProbeKind::Iterations:
    case ProbeKind::Input:
      break;
    }
  }
  for (const model::NodeId id : keep_decided_trips(m_)) {
    Node &n = m_.nodes[m_.index_of(id)];
    const bool branch = !n.taken_by_rank.empty();
    // Where the model draws the decisions, a loop whose exit follows them is capped at the
    // most iterations an execution made in the run, as a loop its data test ended is
    // (_data_exits.py): miniMD's `while (resize > 0)`, left once no bin overflowed (3 % of the
    // tests, all in the first pass), drawn afresh in each of 47000 iterations never ended.
    // (The model caps for and while loops only: a do-while's exit test follows its body.)
    std::string cap;
    const bool cappable = n.kind == model::NodeKind::For || n.kind == model::NodeKind::While;
    if (!branch && cappable && n.trips_cap < 0 && !n.trips_by_rank.empty()) {
      std::int64_t most = 0;
      for (const auto &seq : n.trips_by_rank) {
        for (std::int64_t v : seq) {
          most = std::max(most, v);
        }
      }
      n.trips_cap = most;
      cap = ", at most " + std::to_string(most) + " iterations an execution";
    }
    note(id, Severity::Note,
         label(id) +
             (branch ? ": guards communication and decides on data; each rank replays "
                       "the outcomes it had"
                     : ": its trip count follows data decisions; each rank replays "
                       "the counts it ran") +
             " in the estimation run at np " + std::to_string(np_) +
             " (at another np the model draws them" + cap + ")");
  }
  m_.validate();
  m_.unscaled_nests.clear(); // an estimation again replaces what the last one found
  m_.scaled_nests.clear();
  if (options_.reduce_loops) {
    reduce_loops();
  }
  // A nest inside one reduced later is part of that one's time (and no node of the model).
  for (auto *nests : {&m_.unscaled_nests, &m_.scaled_nests}) {
    std::erase_if(*nests, [&](const model::NestWorkingSet &n) { return !m_.has_node(n.node); });
  }
  m_.validate();
  return std::move(diagnostics_);
}

void Applier::pool_ranks() {
  if (ms_.runs.empty()) {
    return;
  }
  const std::size_t np = ms_.runs.front().size();
  for (const auto &run : ms_.runs) {
    if (run.size() != np) {
      return;
    }
    for (std::size_t r = 0; r < run.size(); ++r) {
      if (run[r].rank != static_cast<int>(r)) {
        note(0, Severity::Warning,
             "the estimation run has no estimates file of rank " + std::to_string(r) +
                 "; statistics are pooled over the ranks that wrote one, not kept per rank");
        return;
      }
    }
  }
  np_ = np;
  if (np < 2) {
    return;
  }
  per_rank_.assign(np, std::vector<SlotMeasurement>(ms_.slots.size()));
  for (const auto &run : ms_.runs) {
    for (std::size_t r = 0; r < np; ++r) {
      for (std::size_t k = 0; k < ms_.slots.size() && k < run[r].slots.size(); ++k) {
        accumulate(per_rank_[r][k], run[r].slots[k]);
      }
    }
  }
}

const SlotMeasurement &Applier::slot(const Probe &p) const {
  static const SlotMeasurement none;
  return p.slot < ms_.slots.size() ? ms_.slots[p.slot] : none;
}

double Applier::total_seconds(const SlotMeasurement &s) const {
  return frontend::total_seconds(s, ms_);
}

double Applier::sigma_seconds(const SlotMeasurement &s) const {
  if (s.count < 2) {
    return 0.0;
  }
  const double n = static_cast<double>(s.count);
  const double mean = static_cast<double>(s.sum) / n;
  const double var = std::max(0.0, s.sumsq / n - mean * mean);
  return std::sqrt(var) / ms_.ticks_per_second;
}

void Applier::note(NodeId id, Severity severity, const std::string &message) {
  Diagnostic d;
  d.kind = DiagnosticKind::Estimation;
  d.severity = severity;
  d.node = id;
  if (m_.has_node(id)) {
    const Node &n = m_.node(id);
    if (n.source.file >= 0 && static_cast<std::size_t>(n.source.file) < m_.files.size()) {
      d.file = m_.files[static_cast<std::size_t>(n.source.file)];
      d.line = n.source.line;
      d.column = n.source.column;
    }
    d.function = m_.functions[m_.function_of(m_.index_of(id))].name;
  }
  d.message = message;
  diagnostics_.push_back(std::move(d));
}

std::string Applier::label(NodeId id) const {
  const Node &n = m_.node(id);
  return n.label.empty() ? std::string(model::node_kind_name(n.kind)) : "'" + n.label + "'";
}

void Applier::block(const Probe &p, const SlotMeasurement &s) {
  Node &n = m_.nodes[m_.index_of(p.node)];
  if (s.count == 0) {
    note(p.node, Severity::Note,
         label(p.node) + " never ran during the estimation run; its time is 0");
    return;
  }
  const double mean = total_seconds(s) / static_cast<double>(executions_of(s));
  const double sigma = sigma_seconds(s);
  n.time = model::TimeSpec::measured(mean, sigma, s.count);
  measured_[p.node] = total_seconds(s);
  executions_[p.node] = static_cast<double>(executions_of(s));
}

void Applier::sized(const Probe &p, const SlotMeasurement &s) {
  if (s.sizes.empty() || !m_.has_node(p.node)) {
    return;
  }
  const SizedPrice price = price_by_size(p, s, ms_, options_);
  if (!price.expression.empty()) {
    try {
      m_.nodes[m_.index_of(p.node)].time =
          model::TimeSpec::expression(model::Expression::parse(price.expression));
    } catch (const Error &e) {
      note(p.node, Severity::Warning,
           "'" + p.callee + "' could not be priced by its size: " + e.what());
      return;
    }
  }
  note(p.node, Severity::Note, price.message);
}

void Applier::prologue(const Probe &p, const SlotMeasurement &s) {
  const NodeIndex body = m_.index_of(p.node);
  if (s.count == 0 || m_.nodes[body].kind != NodeKind::Sequence) {
    return;
  }
  Node cb;
  cb.kind = NodeKind::Compute;
  cb.id = m_.max_id() + 1;
  cb.source = m_.nodes[body].source;
  cb.label = m_.functions[m_.function_of(body)].name + " member initialisers";
  cb.time = model::TimeSpec::measured(total_seconds(s) / static_cast<double>(executions_of(s)),
                                      sigma_seconds(s), s.count);
  const NodeIndex added = m_.add(std::move(cb));
  auto &children = m_.nodes[body].children;
  children.insert(children.begin(), added);
  m_.validate();
}

void Applier::branch(const Probe &p, const SlotMeasurement &s) {
  Node &n = m_.nodes[m_.index_of(p.node)];
  if (n.opaque.kind != model::Opaque::Kind::Probability) {
    return;
  }
  if (s.count == 0) {
    // A branch only some ranks take (or none at this np) keeps the builder's default: say
    // which, where, and what the model uses, so nobody mistakes it for a measurement.
    char used[32];
    std::snprintf(used, sizeof(used), "%.2g", n.opaque.probability);
    note(p.node, Severity::Warning,
         "opaque branch " + label(p.node) + " was never evaluated in the estimation run (np " +
             std::to_string(np_) + "): unmeasured, the model uses probability " + used +
             (np_ < 2 ? "; if only some ranks reach it, estimate at np >= 2 to measure it"
                      : "; no rank of this input reaches it"));
    return;
  }
  // Every true outcome is counted, the evaluations are the executions (probe_runtime.cpp).
  n.opaque.probability = static_cast<double>(s.sum) / static_cast<double>(executions_of(s));
  n.opaque.samples = executions_of(s);
  n.taken_by_rank = sequences_by_rank(p);
  n.taken_cycle = common_cycle(p);
  n.opaque.by_rank.clear();
  for (const auto &rank : per_rank_) {
    const SlotMeasurement &r = rank[p.slot];
    model::OpaqueRankStats stats;
    stats.samples = executions_of(r);
    if (r.count > 0) {
      stats.probability = static_cast<double>(r.sum) / static_cast<double>(executions_of(r));
    }
    n.opaque.by_rank.push_back(std::move(stats));
  }
}

std::vector<double> Applier::case_weights(const Node &n, const SlotMeasurement &s) {
  std::vector<double> weights(n.cases.size(), 0.0);
  std::uint64_t matched = 0;
  std::size_t default_case = n.cases.size();
  for (std::size_t c = 0; c < n.cases.size(); ++c) {
    const auto &sc = n.cases[c];
    if (sc.is_default) {
      default_case = c;
    }
    for (const auto &[v, count] : s.histogram) {
      if (std::find(sc.labels.begin(), sc.labels.end(), v) != sc.labels.end()) {
        weights[c] += static_cast<double>(count);
        matched += count;
      }
    }
  }
  if (default_case < n.cases.size()) {
    weights[default_case] += static_cast<double>(s.count - matched);
  }
  double total = 0.0;
  for (double w : weights) {
    total += w;
  }
  if (!(total > 0.0)) {
    std::fill(weights.begin(), weights.end(), 1.0);
  }
  return weights;
}

void Applier::selector(const Probe &p, const SlotMeasurement &s) {
  Node &n = m_.nodes[m_.index_of(p.node)];
  if (s.count == 0 || n.opaque.kind != model::Opaque::Kind::Weights) {
    return;
  }
  const std::vector<double> weights = case_weights(n, s);
  for (std::size_t c = 0; c < n.cases.size(); ++c) {
    n.cases[c].weight = weights[c];
  }
  n.opaque.samples = s.count;
  n.opaque.by_rank.clear();
  for (const auto &rank : per_rank_) {
    const SlotMeasurement &r = rank[p.slot];
    model::OpaqueRankStats stats;
    stats.samples = r.count;
    if (r.count > 0) {
      stats.weights = case_weights(n, r);
    }
    n.opaque.by_rank.push_back(std::move(stats));
  }
}

std::vector<std::pair<std::int64_t, double>> Applier::distribution(const SlotMeasurement &s) {
  std::vector<std::pair<std::int64_t, double>> out;
  if (s.overflow == 0 && s.count > 0) {
    for (const auto &[v, c] : s.histogram) {
      out.emplace_back(v, static_cast<double>(c) / static_cast<double>(s.count));
    }
  }
  return out;
}

void Applier::trips(const Probe &p, const SlotMeasurement &s) {
  trips_[p.node] = s;
  Node &n = m_.nodes[m_.index_of(p.node)];
  // A loop the model counts by its condition keeps its counts at np 1 too: when they follow
  // decisions the model draws, it replays them there and is capped elsewhere (below).
  n.trips_by_rank = sequences_by_rank(p, n.opaque.kind != model::Opaque::Kind::Trips);
  if (n.opaque.kind != model::Opaque::Kind::Trips) {
    return;
  }
  if (s.count == 0) {
    note(p.node, Severity::Note,
         label(p.node) + " never ran; its trip count stays at the placeholder 1");
    return;
  }
  n.opaque.trips_mean = static_cast<double>(s.sum) / static_cast<double>(s.count);
  n.trips_cycle = n.kind == NodeKind::DoWhile ? std::vector<std::int64_t>{} : common_cycle(p);
  n.opaque.samples = s.count;
  n.opaque.distribution = distribution(s);
  n.opaque.by_rank.clear();
  for (const auto &rank : per_rank_) {
    const SlotMeasurement &r = rank[p.slot];
    model::OpaqueRankStats stats;
    stats.samples = r.count;
    if (r.count > 0) {
      stats.trips_mean = static_cast<double>(r.sum) / static_cast<double>(r.count);
      stats.distribution = distribution(r);
    }
    n.opaque.by_rank.push_back(std::move(stats));
  }
  note(p.node, Severity::Note,
       label(p.node) + ": " + number(n.opaque.trips_mean) + " iterations per execution on " +
           "average (opaque, measured over " + std::to_string(executions_of(s)) + " executions" +
           (executions_of(s) > s.count ? ", " + std::to_string(s.count) + " of them counted" : "") +
           ")");
  for (model::RewrittenBound &b : m_.rewritten_bounds) {
    if (b.node == p.node) {
      measure_rewritten_bound(b, ms_, p.slot, s);
    }
  }
}

std::vector<std::vector<std::int64_t>> Applier::sequences_by_rank(const Probe &p,
                                                                  bool single) const {
  std::vector<std::vector<std::int64_t>> by_rank;
  if ((np_ < 2 && !(single && np_ == 1)) || ms_.runs.empty()) {
    return by_rank;
  }
  bool any = false;
  for (const RankRun &rank : ms_.runs.front()) {
    std::vector<std::int64_t> seq;
    if (const auto it = rank.values.find(p.slot); it != rank.values.end()) {
      seq.reserve(it->second.size());
      for (double x : it->second) {
        seq.push_back(static_cast<std::int64_t>(std::llround(x)));
      }
      any = true;
    }
    by_rank.push_back(std::move(seq));
  }
  if (!any) {
    by_rank.clear();
  }
  return by_rank;
}

[[nodiscard]] std::vector<std::int64_t> Applier::common_cycle(const Probe &p) const {
  constexpr std::size_t kLongest = 64;
  if (ms_.runs.empty() || ms_.runs.front().empty()) {
    return {};
  }
  const std::vector<double> *first = nullptr;
  for (const RankRun &rank : ms_.runs.front()) {
    const auto it = rank.values.find(p.slot);
    if (it == rank.values.end() || it->second.empty()) {
      return {};
    }
    if (first == nullptr) {
      first = &it->second;
    } else if (it->second != *first) {
      return {};
    }
  }
  const std::vector<double> &seq = *first;
  // A sequence of at most 64 values is the whole run's (the runtime keeps 4096): its own
  // period when no shorter one repeats.
  const std::size_t longest =
      seq.size() <= kLongest ? seq.size() : std::min(kLongest, seq.size() / 2);
  for (std::size_t period = 2; period <= longest; ++period) {
    bool repeats = true;
    for (std::size_t i = period; i < seq.size() && repeats; ++i) {
      repeats = seq[i] == seq[i - period];
    }
    if (!repeats) {
      continue;
    }
    if (std::all_of(seq.begin() + 1, seq.begin() + static_cast<std::ptrdiff_t>(period),
                    [&](double x) { return x == seq.front(); })) {
      return {}; // constant: the frequency says the same
    }
    std::vector<std::int64_t> cycle;
    for (std::size_t i = 0; i < period; ++i) {
      cycle.push_back(static_cast<std::int64_t>(std::llround(seq[i])));
    }
    return cycle;
  }
  return {};
}

void Applier::value(const Probe &p, const SlotMeasurement &s) {
  Node &n = m_.nodes[m_.index_of(p.node)];
  const bool peer = p.argument == "dest" || p.argument == "source" || p.argument == "root";
  if (s.count == 0) {
    // A peer the estimation never saw (HPCG's halo exchange loops over no neighbours at np
    // 1): an empty sequence per rank, so a prediction at another np says that its fallback
    // peer is a guess instead of sending to rank 0 without a word.
    if (peer && np_ > 0 && !ms_.runs.empty()) {
      for (auto &arg : n.op_args) {
        if (arg.name == p.argument) {
          arg.by_rank.assign(ms_.runs.front().size(), {});
        }
      }
    }
    return;
  }
  const double mean = s.dsum / static_cast<double>(s.count);
  double unit = 1.0;
  try {
    unit = std::stod(p.unit.empty() ? "1" : p.unit);
  } catch (const std::exception &) {
    unit = 1.0;
  }
  const auto v = static_cast<long long>(std::llround(mean * unit));
  // Per rank (interfaces §2): the values of the first run, in call order, in the model's
  // units; peers as the model's constants (ANY_SOURCE -1, PROC_NULL -2).
  std::vector<std::vector<std::int64_t>> by_rank;
  if (np_ > 0 && !ms_.runs.empty()) {
    for (const RankRun &rank : ms_.runs.front()) {
      std::vector<std::int64_t> seq;
      if (const auto it = rank.values.find(p.slot); it != rank.values.end()) {
        seq.reserve(it->second.size());
        for (double x : it->second) {
          auto value = static_cast<std::int64_t>(std::llround(x * unit));
          if (peer && static_cast<std::int64_t>(std::llround(x)) == rank.any_source) {
            value = -1;
          } else if (peer && static_cast<std::int64_t>(std::llround(x)) == rank.proc_null) {
            value = -2;
          }
          seq.push_back(value);
        }
      }
      by_rank.push_back(std::move(seq));
    }
  }
  for (auto &arg : n.op_args) {
    if (arg.name == p.argument) {
      arg.expr = model::Expression::constant(static_cast<std::int64_t>(v));
      arg.by_rank = by_rank;
    }
  }
  note(p.node, Severity::Note,
       "argument '" + p.argument + "' of " + label(p.node) + " is " + std::to_string(v) +
           " on average (measured over " + std::to_string(executions_of(s)) + " calls)");
}

} // namespace parjava::frontend::estimates_detail

namespace parjava::frontend {

std::vector<Diagnostic> apply_estimates(model::Model &model, const EstimationPlan &plan,
                                        const Measurements &measurements,
                                        const ApplyOptions &options) {
  return estimates_detail::Applier(model, plan, measurements, options).run();
}

} // namespace parjava::frontend
