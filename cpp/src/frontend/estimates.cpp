#include "parjava/frontend/estimates.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "estimates_bounds.hpp"
#include "estimates_inputs.hpp"
#include "estimates_triangles.hpp"
#include "estimates_trips.hpp"
#include "parjava/error.hpp"
#include "parjava/model/reduction.hpp"
#include "size_costs.hpp"
#include "text_format.hpp"

namespace parjava::frontend {

namespace {

using model::Node;
using model::NodeId;
using model::NodeIndex;
using model::NodeKind;

std::string number(double value) { return model_number(value); }

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%%", 100.0 * fraction);
  return buf;
}

std::string seconds(double s) { return seconds_text(s); }

} // namespace

namespace {

class Applier {
public:
  Applier(model::Model &m, const EstimationPlan &plan, const Measurements &ms,
          const ApplyOptions &options)
      : m_(m), plan_(plan), ms_(ms), options_(options) {}

  std::vector<Diagnostic> run() {
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
      const bool branch = !m_.node(id).taken_by_rank.empty();
      note(id, Severity::Note,
           label(id) +
               (branch ? ": guards communication and decides on data; each rank replays "
                         "the outcomes it had"
                       : ": its trip count follows data decisions; each rank replays "
                         "the counts it ran") +
               " in the estimation run at np " + std::to_string(np_) +
               " (at another np the model draws them)");
    }
    m_.validate();
    if (options_.reduce_loops) {
      reduce_loops();
    }
    m_.validate();
    return std::move(diagnostics_);
  }

private:
  // Per-rank statistics (interfaces §1): the ranks of every run pooled rank by rank, when the
  // estimation ran at np >= 2 (all runs at the same np).
  void pool_ranks() {
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

  const SlotMeasurement &slot(const Probe &p) const {
    static const SlotMeasurement none;
    return p.slot < ms_.slots.size() ? ms_.slots[p.slot] : none;
  }

  // Overhead-corrected total seconds of a timed slot over all its executions (seed 003 notes
  // §6.5, correction): the timed samples' time, scaled by executions / samples.
  double total_seconds(const SlotMeasurement &s) const { return frontend::total_seconds(s, ms_); }
  double sigma_seconds(const SlotMeasurement &s) const {
    if (s.count < 2) {
      return 0.0;
    }
    const double n = static_cast<double>(s.count);
    const double mean = static_cast<double>(s.sum) / n;
    const double var = std::max(0.0, s.sumsq / n - mean * mean);
    return std::sqrt(var) / ms_.ticks_per_second;
  }

  void note(NodeId id, Severity severity, const std::string &message) {
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

  std::string label(NodeId id) const {
    const Node &n = m_.node(id);
    return n.label.empty() ? std::string(model::node_kind_name(n.kind)) : "'" + n.label + "'";
  }

  void block(const Probe &p, const SlotMeasurement &s) {
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

  // An external call priced by its bytes (issue 13 item 4; size_costs.cpp).
  void sized(const Probe &p, const SlotMeasurement &s) {
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

  // A constructor's member initialisers (allocating and filling member arrays before its body
  // runs): a block of their measured time at the front of the constructor's body.
  void prologue(const Probe &p, const SlotMeasurement &s) {
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

  void branch(const Probe &p, const SlotMeasurement &s) {
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

  // Case weights of a switch from its selector histogram: each case's values, the rest to the
  // default case; uniform when only values without a case were seen.
  static std::vector<double> case_weights(const Node &n, const SlotMeasurement &s) {
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

  void selector(const Probe &p, const SlotMeasurement &s) {
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

  static std::vector<std::pair<std::int64_t, double>> distribution(const SlotMeasurement &s) {
    std::vector<std::pair<std::int64_t, double>> out;
    if (s.overflow == 0 && s.count > 0) {
      for (const auto &[v, c] : s.histogram) {
        out.emplace_back(v, static_cast<double>(c) / static_cast<double>(s.count));
      }
    }
    return out;
  }

  void trips(const Probe &p, const SlotMeasurement &s) {
    trips_[p.node] = s;
    Node &n = m_.nodes[m_.index_of(p.node)];
    n.trips_by_rank = sequences_by_rank(p);
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
             (executions_of(s) > s.count ? ", " + std::to_string(s.count) + " of them counted"
                                         : "") +
             ")");
    for (model::RewrittenBound &b : m_.rewritten_bounds) {
      if (b.node == p.node) {
        measure_rewritten_bound(b, ms_, p.slot, s);
      }
    }
  }

  // A loop that communicates keeps its counts in order (pj_trips_seq), an opaque if that guards
  // communication its outcomes (pj_branch_seq): at np >= 2 each rank's sequence goes into the
  // model (docs/model-schema.md "Measured decisions"), so that the ranks of the model exchange
  // the messages the program's did; keep_decided_trips then keeps those that follow decisions.
  std::vector<std::vector<std::int64_t>> sequences_by_rank(const Probe &p) const {
    std::vector<std::vector<std::int64_t>> by_rank;
    if (np_ < 2 || ms_.runs.empty()) {
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

  // The period of at least two values that every rank's sequence repeats from its start, if the
  // sequences show it at least twice (the probe runtime keeps the first 4096 values): HPCG's
  // V-cycle recurses while `A.mgData != 0`, taken 3 times and then not, in every cycle and on
  // every rank. Drawn by its frequency instead (0.75: taken, taken, not, taken, ...), the
  // recursion went one level too deep or too shallow in turn, and the self-check missed by 27 %.
  // A short sequence without a period is kept whole: HPCG's CG runs 50, 11, 50, 11, 1, 1
  // iterations, the 11s with the V-cycle as preconditioner, and draws of the mean gave the
  // V-cycle 19 iterations fewer than the run.
  [[nodiscard]] std::vector<std::int64_t> common_cycle(const Probe &p) const {
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

  void value(const Probe &p, const SlotMeasurement &s) {
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

  // --- loops without communication (notes 000 §3.7.2-§3.7.4) -----------------------------

  const Probe *probe(NodeId node, ProbeKind kind) const { return plan_.find(node, kind); }

  // Names assigned anywhere in the subtree (loop variables, assignments, operation outputs).
  void assigned(NodeIndex n, std::set<std::string> &out) const {
    const Node &node = m_.nodes[n];
    for (const auto *list : {&node.init, &node.update, &node.assign}) {
      for (const auto &a : *list) {
        out.insert(a.variable);
      }
    }
    for (const auto &a : node.op_args) {
      if (a.kind == model::ArgKind::Variable) {
        out.insert(a.text);
      }
    }
    for (NodeIndex c : node.children) {
      assigned(c, out);
    }
  }

  static bool reads_any(const std::string &expr, const std::set<std::string> &names) {
    if (expr.empty()) {
      return false;
    }
    for (const auto &n : model::Expression::parse(expr).names()) {
      if (names.contains(n)) {
        return true;
      }
    }
    return false;
  }

  struct LoopResult {
    std::string expr;   // time per execution, model syntax
    double total = 0.0; // measured seconds, corrected
    std::uint64_t executions = 0;
  };

  // The single loop a loop's body consists of, if any.
  NodeIndex perfect_child(NodeIndex loop) const {
    const Node &l = m_.nodes[loop];
    if (l.children.empty()) {
      return model::kNoNode;
    }
    const Node &body = m_.nodes[l.children.front()];
    if (body.kind == NodeKind::Sequence && body.children.size() == 1 &&
        model::is_loop(m_.nodes[body.children.front()].kind)) {
      return body.children.front();
    }
    return model::kNoNode;
  }

  // Collect, under `n` (not entering loops with their own fragment probe), the measured blocks
  // and the timed loops.
  void components(NodeIndex n, std::vector<NodeId> &blocks, std::vector<NodeId> &loops) const {
    for (NodeIndex c : m_.nodes[n].children) {
      const Node &child = m_.nodes[c];
      if (results_.contains(child.id) ||
          (model::is_loop(child.kind) && probe(child.id, ProbeKind::Fragment) != nullptr)) {
        loops.push_back(child.id);
        continue;
      }
      if (probe(child.id, ProbeKind::Block) != nullptr) {
        blocks.push_back(child.id);
      }
      components(c, blocks, loops);
    }
  }

  // The trip count per execution of `loop` as model text: its computed count when that reads
  // nothing the nest assigns, its average over the enclosing counted loops' iterations when it
  // reads one of their counters (a triangle, estimates_triangles.hpp), else the measured mean.
  std::string trips_text(NodeId loop, const std::set<std::string> &assigned_outside,
                         const std::vector<EnclosingCounter> &counters = {}) const {
    const PlannedLoop *planned = plan_.loop(loop);
    const NodeIndex idx = m_.index_of(loop);
    std::set<std::string> inside;
    assigned(idx, inside);
    const Node &l = m_.nodes[idx];
    for (const auto &a : l.init) {
      inside.insert(a.variable);
    }
    const auto it = trips_.find(loop);
    if (planned != nullptr && !planned->trips.empty() && !reads_any(planned->trips, inside)) {
      if (!reads_any(planned->trips, assigned_outside)) {
        return planned->trips;
      }
      if (it != trips_.end()) {
        std::string averaged = mean_over_enclosing(planned->trips, counters, it->second);
        if (!averaged.empty()) {
          return averaged;
        }
      }
    }
    if (it == trips_.end() || it->second.count == 0) {
      return "";
    }
    const double pooled =
        static_cast<double>(it->second.sum) / static_cast<double>(it->second.count);
    return per_rank_trips(loop, pooled);
  }

  // A measured trip count that differs between the ranks of an np >= 2 estimation, as an
  // expression of `rank` and `size` with the rank classes of interfaces §1: rank 0, the last
  // rank, and the samples-weighted pool of the ranks between (the pooled mean when there are
  // none). A reduced loop then keeps each rank's own count; otherwise the pooled mean.
  std::string per_rank_trips(NodeId loop, double pooled) const {
    const Probe *probe_of = probe(loop, ProbeKind::Trips);
    if (probe_of == nullptr || per_rank_.size() < 2) {
      return number(pooled);
    }
    const auto mean = [&](std::size_t first, std::size_t last) {
      std::uint64_t count = 0;
      std::uint64_t sum = 0;
      for (std::size_t r = first; r < last; ++r) {
        count += per_rank_[r][probe_of->slot].count;
        sum += per_rank_[r][probe_of->slot].sum;
      }
      return count > 0 ? static_cast<double>(sum) / static_cast<double>(count) : pooled;
    };
    const std::size_t np = per_rank_.size();
    const double first = mean(0, 1);
    const double last = mean(np - 1, np);
    const double middle = np > 2 ? mean(1, np - 1) : pooled;
    const double lo = std::min({first, last, middle});
    const double hi = std::max({first, last, middle});
    if (!(hi > 0.0) || (hi - lo) <= 0.05 * hi) {
      return number(pooled);
    }
    return "((rank == 0) ? " + number(first) + " : ((rank == size - 1) ? " + number(last) + " : " +
           number(middle) + "))";
  }

  std::uint64_t iterations(NodeId loop) const {
    const auto it = trips_.find(loop);
    return it == trips_.end() ? 0 : static_cast<std::uint64_t>(std::llround(total_of(it->second)));
  }

  // D over the iteration times. With the runtime's quarter-octave histogram, the 1% slowest
  // and fastest iterations (page faults, interrupts, the cold first iteration) are left out, so
  // D describes the loop rather than the machine's noise; without it, D is max |T_i - T_mean|.
  std::string balance_verdict(const SlotMeasurement &s) const {
    if (s.count < 2) {
      return {};
    }
    const double mean = static_cast<double>(s.sum) / static_cast<double>(s.count);
    double lo = static_cast<double>(s.min);
    double hi = static_cast<double>(s.max);
    bool trimmed = false;
    if (!s.histogram.empty() && s.overflow * 50 < s.count) {
      auto buckets = s.histogram;
      std::sort(buckets.begin(), buckets.end());
      const auto value = [](std::int64_t b) {
        if (b < 4) {
          return static_cast<double>(b);
        }
        const int msb = static_cast<int>(b / 4);
        return static_cast<double>(4 + (b % 4)) * std::ldexp(1.0, msb - 2) +
               std::ldexp(0.5, msb - 2); // middle of the bucket
      };
      const double cut = 0.01 * static_cast<double>(s.count);
      double seen = 0.0;
      lo = -1.0;
      for (const auto &[b, c] : buckets) {
        seen += static_cast<double>(c);
        if (lo < 0.0 && seen > cut) {
          lo = value(b);
        }
        if (seen >= static_cast<double>(s.count) - cut) {
          hi = value(b);
          break;
        }
      }
      trimmed = true;
    }
    const double d = std::max(hi - mean, mean - lo);
    const bool balanced = d <= options_.balance_alpha * mean;
    return std::string(balanced ? "balanced" : "unbalanced") + " (D = " + percent(d / mean) +
           " of the mean iteration time" + (trimmed ? " over the central 98% of iterations" : "") +
           (balanced ? ")" : "; the body time is the frequency-weighted mean, §3.7.4)");
  }

  void reduce_loops() {
    // Innermost first: post-order over every timed loop without communication.
    std::vector<NodeId> order;
    std::function<void(NodeIndex)> post = [&](NodeIndex n) {
      for (NodeIndex c : m_.nodes[n].children) {
        post(c);
      }
      const Node &node = m_.nodes[n];
      const PlannedLoop *planned = plan_.loop(node.id);
      if (model::is_loop(node.kind) && planned != nullptr && planned->timed &&
          !planned->communicates &&
          (probe(node.id, ProbeKind::Fragment) != nullptr || planned->by_iterations)) {
        order.push_back(node.id);
      }
    };
    for (const auto &f : m_.functions) {
      if (f.body != model::kNoNode) {
        post(f.body);
      }
    }
    for (NodeId id : order) {
      if (m_.has_node(id)) {
        reduce_loop(id);
      }
    }
  }

  // A loop timed by its iterations alone (OpenMP): trips × the mean iteration time, each
  // sample less the cost of the probe that took it.
  void reduce_by_iterations(NodeId id) {
    const Probe *it = probe(id, ProbeKind::Iterations);
    static const SlotMeasurement none;
    const SlotMeasurement &s = it != nullptr ? slot(*it) : none;
    if (s.count == 0) {
      note(id, Severity::Warning,
           "loop " + label(id) + ": no iteration was timed (each thread needs two iterations)");
      return;
    }
    const double ticks = static_cast<double>(s.sum) - static_cast<double>(s.count) * ms_.pair_ticks;
    const double per = std::max(0.0, ticks) / static_cast<double>(s.count) / ms_.ticks_per_second;
    const std::string trips = trips_text(id, {});
    if (trips.empty()) {
      note(id, Severity::Warning, "loop " + label(id) + " has no trip count; not reduced");
      return;
    }
    const std::string expr = trips + " * (" + number(per) + ")";
    std::string message = "loop " + label(id) + ": " + seconds(per) + " per iteration over " +
                          std::to_string(s.count) + " timed iterations";
    const std::string balance = balance_verdict(s);
    if (!balance.empty()) {
      message += ", " + balance;
    }
    try {
      model::reduce(m_, id, model::TimeSpec::expression(model::Expression::parse(expr)));
      note(id, Severity::Note, message + "; reduced to a block of time " + expr);
    } catch (const Error &e) {
      note(id, Severity::Warning, message + "; not reduced (" + e.what() + ")");
    }
  }

  void reduce_loop(NodeId id) {
    const PlannedLoop *planned = plan_.loop(id);
    if (planned != nullptr && planned->by_iterations) {
      reduce_by_iterations(id);
      return;
    }
    const SlotMeasurement &frag = slot(*probe(id, ProbeKind::Fragment));
    if (frag.count == 0) {
      note(id, Severity::Note, "loop " + label(id) + " never ran during the estimation run");
      return;
    }
    // The perfect chain L1 ⊃ L2 ⊃ ... ⊃ Lk of loops measured by L1's probe.
    std::vector<NodeIndex> chain{m_.index_of(id)};
    for (NodeIndex c = perfect_child(chain.back());
         c != model::kNoNode && probe(m_.nodes[c].id, ProbeKind::Fragment) == nullptr;
         c = perfect_child(chain.back())) {
      chain.push_back(c);
    }
    const NodeIndex deepest = chain.back();
    const std::uint64_t deep_iterations = iterations(m_.nodes[deepest].id);
    std::vector<NodeId> blocks;
    std::vector<NodeId> loops;
    components(m_.nodes[deepest].children.front(), blocks, loops);
    double known = 0.0;
    for (NodeId b : blocks) {
      known += measured_.contains(b) ? measured_[b] : 0.0;
    }
    for (NodeId l : loops) {
      known += results_.contains(l) ? results_[l].total : 0.0;
    }
    const double total = total_seconds(frag);
    const double own = std::max(0.0, total - known);
    const std::uint64_t executions = executions_of(frag);
    const double per = static_cast<double>(deep_iterations > 0 ? deep_iterations : executions);
    // Body time per iteration of the deepest loop (§3.7.4: frequency-weighted parts).
    std::string body = number(own / per);
    for (NodeId b : blocks) {
      const Node &bn = m_.node(b);
      if (bn.time.kind == model::TimeSpec::Kind::Expression && executions_.contains(b)) {
        // A call priced by its size: its cost per call times its calls per iteration.
        const double freq = executions_[b] / per;
        body += " + " + number(freq) + " * (" + bn.time.expr.text() + ")";
      } else if (measured_.contains(b) && measured_[b] > 0.0) {
        body += " + " + number(measured_[b] / per);
      }
    }
    for (NodeId l : loops) {
      if (!results_.contains(l)) {
        continue;
      }
      const LoopResult &r = results_[l];
      const double freq = static_cast<double>(r.executions) / per;
      body += " + " + (std::fabs(freq - 1.0) < 1e-9 ? std::string() : number(freq) + " * ") + "(" +
              r.expr + ")";
    }
    // Multiply by the trip counts of the chain, innermost first.
    std::set<std::string> assigned_outside;
    std::string per_execution = "(" + body + ")";
    std::vector<std::string> trip_texts;
    for (std::size_t i = 0; i < chain.size(); ++i) {
      std::set<std::string> enclosing;
      for (std::size_t j = 0; j < i; ++j) {
        for (const auto &a : m_.nodes[chain[j]].init) {
          enclosing.insert(a.variable);
        }
        for (const auto &a : m_.nodes[chain[j]].update) {
          enclosing.insert(a.variable);
        }
      }
      std::vector<EnclosingCounter> counters;
      for (std::size_t j = 0; j < i; ++j) {
        const Node &o = m_.nodes[chain[j]];
        const PlannedLoop *op = plan_.loop(o.id);
        const auto ot = trips_.find(o.id);
        if (op == nullptr || op->variable.empty() || o.init.size() != 1 || o.update.size() != 1 ||
            o.init.front().variable != op->variable || o.update.front().variable != op->variable) {
          continue;
        }
        counters.push_back(
            {op->variable, o.init.front().value.text(), o.update.front().value.text(),
             trip_texts[j],
             ot != trips_.end() && ot->second.count > 0
                 ? static_cast<double>(ot->second.sum) / static_cast<double>(ot->second.count)
                 : 0.0});
      }
      trip_texts.push_back(trips_text(m_.nodes[chain[i]].id, enclosing, counters));
    }
    for (std::size_t i = chain.size(); i-- > 0;) {
      if (trip_texts[i].empty()) {
        note(id, Severity::Warning,
             "loop " + label(m_.nodes[chain[i]].id) + " has no trip count; not reduced");
        return;
      }
      per_execution.insert(0, trip_texts[i] + " * ");
    }
    const std::string cache_note = scale_across_caches(frag, chain, trip_texts, per_execution);
    // Balanced-loop test (§3.7.3): D = max |T_i - T_mean| <= alpha * T_mean.
    std::string balance;
    if (const Probe *it = probe(id, ProbeKind::Iterations)) {
      balance = balance_verdict(slot(*it));
    }
    const double error =
        frag.count > 1 ? 3.0 * sigma_seconds(frag) / std::sqrt(static_cast<double>(frag.count))
                       : 0.0;
    LoopResult result;
    result.expr = per_execution;
    result.total = total;
    result.executions = executions;
    results_[id] = result;
    // Reduce the loop to a block when its time does not read what it changes.
    const NodeIndex loop = m_.index_of(id);
    std::set<std::string> inside;
    assigned(loop, inside);
    const std::string where = label(id);
    std::string message = "loop " + where + ": " +
                          seconds(total / static_cast<double>(executions)) +
                          " per execution over " + std::to_string(executions) + " executions (±" +
                          seconds(error) + ", 3σ/√N)";
    if (!balance.empty()) {
      message += ", " + balance;
    }
    message += cache_note;
    if (!reads_any(per_execution, inside)) {
      // The loop variables of the chain keep their final values for code after the loop.
      std::vector<model::Assignment> finals;
      for (NodeIndex c : chain) {
        const PlannedLoop *level = plan_.loop(m_.nodes[c].id);
        if (level != nullptr && !level->variable.empty() && !level->final_value.empty() &&
            !reads_any(level->final_value, inside)) {
          finals.push_back({level->variable, model::Expression::parse(level->final_value)});
        }
      }
      for (bool with_finals : {false, true}) {
        if (with_finals && finals.empty()) {
          break;
        }
        try {
          model::reduce(m_, id,
                        model::TimeSpec::expression(model::Expression::parse(per_execution)),
                        with_finals ? finals : std::vector<model::Assignment>{});
          m_.nodes[m_.index_of(id)].simple = true;
          message.append("; reduced to a block of time ").append(per_execution);
          note(id, Severity::Note, message);
          return;
        } catch (const Error &e) {
          if (with_finals || finals.empty()) {
            message += "; not reduced (" + std::string(e.what()) + ")";
          }
        }
      }
    }
    // The time depends on the enclosing iteration (e.g. a triangular nest): keep the loop and
    // reduce its body to one block per iteration.
    std::string per_iteration = "(" + body + ")";
    for (std::size_t i = chain.size(); i-- > 1;) {
      per_iteration.insert(0, trip_texts[i] + " * ");
    }
    // The body sets control variables the loop reads, or its time reads what the body sets
    // (an FFT stage's width): keep it, and charge the loop's own time (what its measured parts
    // do not account for) to each evaluation of the deepest loop's condition (B_CE, notes 000
    // §3.2); the nested loops keep their own reduced times.
    const auto keep_loop = [&](const std::string &why) {
      const std::uint64_t evaluations = deep_iterations + iterations_executions(deepest);
      Node &d = m_.nodes[m_.index_of(m_.nodes[deepest].id)];
      d.cond_time =
          model::TimeSpec::constant(own / static_cast<double>(evaluations > 0 ? evaluations : 1));
      note(id, Severity::Warning,
           message + "; not reducible (" + why + "), its own time goes to its condition: " +
               seconds(d.cond_time.seconds) + " per evaluation");
    };
    // A loop whose body an earlier reduction left empty in the model (HPCCG estimated at np
    // 2): nothing to reduce per iteration; its time goes to its condition. Reading the first
    // child of none crashed the process.
    if (m_.nodes[chain.front()].children.empty()) {
      keep_loop("its body has no node left in the model");
      return;
    }
    const NodeIndex body_index = m_.nodes[chain.front()].children.front();
    std::set<std::string> set_in_body;
    assigned(body_index, set_in_body);
    if (reads_any(per_iteration, set_in_body)) {
      keep_loop("its time per iteration reads variables its body sets");
      return;
    }
    try {
      model::reduce(m_, m_.nodes[body_index].id,
                    model::TimeSpec::expression(model::Expression::parse(per_iteration)));
      note(id, Severity::Note,
           message + "; its body is reduced to a block of time " + per_iteration);
    } catch (const Error &e) {
      keep_loop(e.what());
    }
  }

  // A loop nest whose working set moves to another cache level between the estimation input
  // and the predicted one (issue 13 item 4; jacobi 512^2 -> 1024^2 leaves 4 MB for 16 MB): its
  // time is scaled by the machine's cost per byte of a sweep at each working-set size. The
  // working set at the estimation input is the heap the program's probed allocations held
  // while the nest ran; it grows with the nest's iterations per execution when they sweep it
  // about once (the whole chain, or the chain without its outer loop when that one repeats
  // sweeps). Returns a note for the diagnostic ("" when not scaled).
  std::string scale_across_caches(const SlotMeasurement &frag, const std::vector<NodeIndex> &chain,
                                  const std::vector<std::string> &trip_texts,
                                  std::string &per_execution) const {
    if (options_.sweep_per_byte.size() < 2 || frag.count == 0 || chain.empty()) {
      return {};
    }
    const double w0 = frag.live / static_cast<double>(frag.count);
    if (w0 < 64.0 * 1024.0) {
      return {};
    }
    const double executions = static_cast<double>(executions_of(frag));
    const double deep = static_cast<double>(iterations(m_.nodes[chain.back()].id));
    if (!(deep > 0.0)) {
      return {};
    }
    // Candidate suffixes of the chain and their iterations per execution of their outer level.
    std::size_t from = chain.size();
    double t0 = 0.0;
    for (std::size_t s = 0; s < chain.size() && s < 2; ++s) {
      const double outer =
          s == 0 ? executions : static_cast<double>(iterations(m_.nodes[chain[s - 1]].id));
      if (!(outer > 0.0)) {
        break;
      }
      const double per = deep / outer;
      const double ratio = w0 / (8.0 * per);
      if (ratio >= 1.0 / 8.0 && ratio <= 64.0) {
        from = s;
        t0 = per;
        break;
      }
    }
    if (from == chain.size()) {
      return {};
    }
    std::string trips;
    for (std::size_t i = from; i < chain.size(); ++i) {
      trips += (trips.empty() ? "(" : " * (") + trip_texts[i] + ")";
    }
    const std::string factor = cache_factor(options_.sweep_per_byte, w0, t0, trips);
    if (factor.empty()) {
      return {};
    }
    per_execution = "(" + per_execution + ") * " + factor;
    return ", scaled across cache levels from its working set of " + bytes_text(w0) +
           " at this input (the machine's sweep cost per byte)";
  }

  std::uint64_t iterations_executions(NodeIndex loop) const {
    const auto it = trips_.find(m_.nodes[loop].id);
    return it == trips_.end() ? 0 : executions_of(it->second);
  }

  model::Model &m_;
  const EstimationPlan &plan_;
  const Measurements &ms_;
  const ApplyOptions &options_;
  std::vector<Diagnostic> diagnostics_;
  std::map<NodeId, double> measured_;
  std::map<NodeId, double> executions_;                // blocks: executions in the run
  std::size_t np_ = 0;                                 // ranks of the estimation run
  std::vector<std::vector<SlotMeasurement>> per_rank_; // [rank][slot], when np >= 2
  std::map<NodeId, SlotMeasurement> trips_;
  std::map<NodeId, LoopResult> results_;
};

} // namespace

std::vector<Diagnostic> apply_estimates(model::Model &model, const EstimationPlan &plan,
                                        const Measurements &measurements,
                                        const ApplyOptions &options) {
  return Applier(model, plan, measurements, options).run();
}

} // namespace parjava::frontend
