// Loops without communication reduced to blocks whose time scales with their trip counts (seed
// 000 notes §3.7.2-§3.7.4): the loop half of the estimates' application (estimates_applier.hpp).
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
#include "loop_shape.hpp"
#include "parjava/error.hpp"
#include "parjava/model/reduction.hpp"
#include "size_costs.hpp"
#include "text_format.hpp"

namespace parjava::frontend::estimates_detail {

// The least heap a nest's working set is read from (the program's heap is counted at the
// allocator, probe_runtime_heap.cpp): below it the curve cannot place the nest.
constexpr double kSmallestWorkingSet = 64.0 * 1024.0;
// Fewer iterations per execution than this make an outer loop a repetition of sweeps.
constexpr double kRepeatedSweeps = 16.0;

const Probe *Applier::probe(NodeId node, ProbeKind kind) const { return plan_.find(node, kind); }

void Applier::assigned(NodeIndex n, std::set<std::string> &out) const {
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

bool Applier::reads_any(const std::string &expr, const std::set<std::string> &names) {
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

NodeIndex Applier::perfect_child(NodeIndex loop) const {
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

void Applier::components(NodeIndex n, std::vector<NodeId> &blocks,
                         std::vector<NodeId> &loops) const {
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

std::string Applier::trips_text(NodeId loop, const std::set<std::string> &assigned_outside,
                                const std::vector<EnclosingCounter> &counters) const {
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
  const double pooled = static_cast<double>(it->second.sum) / static_cast<double>(it->second.count);
  return per_rank_trips(loop, pooled);
}

std::string Applier::per_rank_trips(NodeId loop, double pooled) const {
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

std::uint64_t Applier::iterations(NodeId loop) const {
  const auto it = trips_.find(loop);
  return it == trips_.end() ? 0 : static_cast<std::uint64_t>(std::llround(total_of(it->second)));
}

std::string Applier::balance_verdict(const SlotMeasurement &s) const {
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

void Applier::reduce_loops() {
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

void Applier::reduce_by_iterations(NodeId id) {
  const Probe *it = probe(id, ProbeKind::Iterations);
  static const SlotMeasurement none;
  const SlotMeasurement &s = it != nullptr ? slot(*it) : none;
  if (s.count == 0 && s.executions == 0) {
    // A halo's pack loop at np 1 (UoB-HPC/flow): the prediction that runs it says so, with
    // the loop named (the unmeasured fragments of _unmeasured_check.py).
    note(id, Severity::Note,
         "loop " + label(id) +
             ": the estimation run never ran it, so its iterations have no "
             "measured time");
    return;
  }
  if (s.count == 0) {
    note(id, Severity::Warning,
         "loop " + label(id) + ": no iteration was timed (each thread needs two iterations)");
    return;
  }
  // Each sample is one iteration between two back-to-back probes, which carries the probe the
  // runtime measured in such a loop (probe_runtime.cpp, the iteration calibration); timed
  // whole, an execution's time per iteration, with no probe inside.
  const bool whole = plan_.loop(id) != nullptr && plan_.loop(id)->by_construct;
  const double ticks = static_cast<double>(s.sum) -
                       (whole ? 0.0 : static_cast<double>(s.count) * ms_.iteration_sample_ticks());
  const double per = std::max(0.0, ticks) / static_cast<double>(s.count) / ms_.ticks_per_second;
  std::string trips = shared_trips(id);
  if (trips.empty()) {
    trips = trips_text(id, {});
  }
  if (trips.empty()) {
    note(id, Severity::Warning, "loop " + label(id) + " has no trip count; not reduced");
    return;
  }
  std::string message = "loop " + label(id) + ": " + seconds(per) + " per iteration over " +
                        std::to_string(s.count) +
                        (whole ? " executions timed whole" : " timed iterations");
  // A counted inner loop (probe_planner.cpp, counted_inner_loop): the time per iteration is
  // its count times the time per inner iteration at the estimation's mean count.
  std::string expr = trips + " * (" + number(per) + ")";
  if (const auto inner = inner_count(id)) {
    expr = trips + " * (" + inner->first + ") * (" + number(per / inner->second) + ")";
    message += " (" + number(inner->second) + " iterations of its inner loop each)";
  }
  // The balanced-loop test (§3.7.3) is over iteration times; an execution's mean over all of
  // its iterations says nothing of their spread.
  const std::string balance = whole ? std::string() : balance_verdict(s);
  if (!balance.empty()) {
    message += ", " + balance;
  }
  if (whole) {
    fork_timed(id);
  }
  try {
    model::reduce(m_, id, model::TimeSpec::expression(model::Expression::parse(expr)));
    note(id, Severity::Note, message + "; reduced to a block of time " + expr);
  } catch (const Error &e) {
    keep_timed_iterations(id, per, message, e.what());
  }
}

// A loop timed per iteration that stays a loop (it sets a variable read after it: miniMD's
// neighbour loop sets `resize`, which its enclosing `while (resize)` reads) keeps no time in its
// body, whose blocks carry no timing probe: its measured time per iteration, less what its
// measured parts account for, is charged to each evaluation of its condition (B_CE, notes 000
// §3.2), as reduce_loop's keep_loop does for a fragment. Before, the time was dropped: miniMD's
// neighbour builds (0.07 s of a 0.27 s run) were outside the model, -26 % at its self-check.
// Calls inside keep their callees' measured time, which the loop's time includes too.
void Applier::keep_timed_iterations(NodeId id, double per, const std::string &message,
                                    const std::string &why) {
  const NodeIndex loop = m_.index_of(id);
  const std::uint64_t total = iterations(id);
  double known = 0.0;
  if (!m_.nodes[loop].children.empty()) {
    std::vector<NodeId> blocks;
    std::vector<NodeId> loops;
    components(m_.nodes[loop].children.front(), blocks, loops);
    for (NodeId b : blocks) {
      known += measured_.contains(b) ? measured_[b] : 0.0;
    }
    for (NodeId l : loops) {
      known += results_.contains(l) ? results_[l].total : 0.0;
    }
  }
  const double own = total > 0 ? std::max(0.0, per - known / static_cast<double>(total)) : per;
  Node &n = m_.nodes[loop];
  // Added to what its condition already costs (a call in it, measured on its own).
  const bool timed = n.cond_time.kind == model::TimeSpec::Kind::Constant ||
                     n.cond_time.kind == model::TimeSpec::Kind::Measured;
  n.cond_time = model::TimeSpec::constant(own + (timed ? n.cond_time.seconds : 0.0));
  note(id, Severity::Warning,
       message + "; not reduced (" + why +
           "), its time per iteration goes to its condition: " + seconds(own) + " per evaluation");
}

std::optional<std::pair<std::string, double>> Applier::inner_count(NodeId id) const {
  const NodeIndex inner = perfect_child(m_.index_of(id));
  if (inner == model::kNoNode) {
    return std::nullopt;
  }
  const NodeId inner_id = m_.nodes[inner].id;
  const PlannedLoop *planned = plan_.loop(inner_id);
  const auto counted = trips_.find(inner_id);
  if (planned == nullptr || planned->trips.empty() || counted == trips_.end() ||
      counted->second.count == 0 || counted->second.sum == 0) {
    return std::nullopt;
  }
  // Not a count read from the outer loop's variables (a triangle), which the block lacks.
  std::set<std::string> outer;
  for (const auto &a : m_.nodes[m_.index_of(id)].init) {
    outer.insert(a.variable);
  }
  for (const auto &a : m_.nodes[m_.index_of(id)].update) {
    outer.insert(a.variable);
  }
  const std::string text = trips_text(inner_id, outer);
  if (text != planned->trips) {
    return std::nullopt;
  }
  return std::make_pair(text, static_cast<double>(counted->second.sum) /
                                  static_cast<double>(counted->second.count));
}

std::string Applier::shared_trips(NodeId id) const {
  const PlannedLoop *planned = plan_.loop(id);
  const auto it = trips_.find(id);
  if (planned == nullptr || !planned->trips.empty() || it == trips_.end() ||
      it->second.count == 0 || !(it->second.team > 0.0)) {
    return {};
  }
  const auto records = static_cast<double>(it->second.count);
  const double per_team =
      static_cast<double>(it->second.sum) / records * (it->second.team / records);
  return static_chunk_trips("0", std::to_string(static_cast<long long>(std::llround(per_team))));
}

void Applier::reduce_loop(NodeId id) {
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
          {op->variable, o.init.front().value.text(), o.update.front().value.text(), trip_texts[j],
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
  const std::string cache_note = scale_across_caches(
      frag, chain, trip_texts, total / static_cast<double>(executions), per_execution);
  if (executions > std::max<std::uint64_t>(np_, 1)) {
    // Priced at this input's cost per iteration whatever its data grows to, or scaled by the
    // machine's sweep cost: a prediction with much more work per execution says so
    // (model::NestWorkingSet). Only nests run several times per process: one run once (a
    // time-step loop reduced whole) does more per execution with more steps over the same
    // data, which no cache notices. A heap under kSmallestWorkingSet is the process's odds and
    // ends (stdio buffers), not the nest's data, which then lives in static arrays: unknown.
    double w0 = frag.count > 0 ? frag.live / static_cast<double>(frag.count) : 0.0;
    w0 = w0 >= kSmallestWorkingSet ? w0 : 0.0;
    (cache_note.empty() ? m_.unscaled_nests : m_.scaled_nests)
        .push_back({id, total / static_cast<double>(executions), w0,
                    cost_holds_to(options_.sweep_per_byte, w0)});
  }
  // Balanced-loop test (§3.7.3): D = max |T_i - T_mean| <= alpha * T_mean.
  std::string balance;
  if (const Probe *it = probe(id, ProbeKind::Iterations)) {
    balance = balance_verdict(slot(*it));
  }
  const double error =
      frag.count > 1 ? 3.0 * sigma_seconds(frag) / std::sqrt(static_cast<double>(frag.count)) : 0.0;
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
  std::string message = "loop " + where + ": " + seconds(total / static_cast<double>(executions)) +
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
        model::reduce(m_, id, model::TimeSpec::expression(model::Expression::parse(per_execution)),
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
    note(id, Severity::Note, message + "; its body is reduced to a block of time " + per_iteration);
  } catch (const Error &e) {
    keep_loop(e.what());
  }
}

std::string Applier::scale_across_caches(const SlotMeasurement &frag,
                                         const std::vector<NodeIndex> &chain,
                                         const std::vector<std::string> &trip_texts, double seconds,
                                         std::string &per_execution) const {
  if (options_.sweep_per_byte.size() < 2 || frag.count == 0 || chain.empty()) {
    return {};
  }
  const double w0 = frag.live / static_cast<double>(frag.count);
  if (w0 < kSmallestWorkingSet) {
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
    // An outer loop of a few iterations per execution repeats sweeps over the same data
    // (a smoother's sweeps, a scheme's stages) rather than walking more of it: with it in the
    // sweep, more sweeps would read as a larger working set (tests/programs/callbacks/krylov.c:
    // 16 sweeps cost more per sweep than 4 once its `(double *)malloc` arrays were seen).
    if (s == 0 && chain.size() >= 2 &&
        static_cast<double>(iterations(m_.nodes[chain[0]].id)) < kRepeatedSweeps * outer) {
      continue;
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
  const std::string factor = cache_factor(options_.sweep_per_byte, w0, t0, trips, seconds);
  if (factor.empty()) {
    return {};
  }
  per_execution = "(" + per_execution + ") * " + factor;
  return ", scaled across cache levels from its working set of " + bytes_text(w0) +
         " at this input (the machine's sweep cost per byte)";
}

std::uint64_t Applier::iterations_executions(NodeIndex loop) const {
  const auto it = trips_.find(m_.nodes[loop].id);
  return it == trips_.end() ? 0 : executions_of(it->second);
}

// A loop timed whole (pj_omp_construct) was timed from before its directive: the fork and join
// of the `omp parallel for` around it are in its time, at the estimation's team. Charged again
// per region (Node::fork_timed), hot's 6,000 kernel regions of a 0.3-s run came out +2 %, and
// edges.c's short ones +30 %.
void Applier::fork_timed(NodeId id) {
  NodeIndex n = m_.index_of(id);
  for (int up = 0; up < 2 && n != model::kNoNode; ++up) {
    n = m_.parent(n);
    if (n != model::kNoNode && m_.nodes[n].kind == NodeKind::TaskGroup) {
      m_.nodes[n].fork_timed = m_.nodes[n].team;
      return;
    }
  }
}

} // namespace parjava::frontend::estimates_detail
