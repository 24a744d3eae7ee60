// Delay costs (causes.hpp; Böhme et al. ICPP 2010, anchors §6). For a wait state of R caused
// by S, with the synchronisation interval of each side running from its previous
// synchronisation point with the other up to the current one:
//   t_X(c)  exclusive time of call path c in X's interval, waiting in it removed;
//   d(c)    = [t_S(c) - t_R(c)]+, D = sum d(c); Wp = the waiting of S inside its interval;
// A call path here is an MPI call at its site or the computation in one region (Timelines::
// path_of); d(c) is then shared among S's activities of c (computation between particular
// calls) in proportion to their own excess over R's, or to their time when none has any, so
// a cost names the source lines around the computation without changing the definition.
//   short-term cost of c on S:  d(c) * min(1, w / (D + Wp))   (collectives: not capped);
//   long-term cost of c on S:   d(c) * rc / (D + Wp), rc the waiting this wait state caused
//                               later (accumulated before it is processed);
//   each wait state v of S in the interval gets rc_v += (min(1, w/(D+Wp)) + rc/(D+Wp)) * w_v.
#include <algorithm>

#include "critical_path.hpp"
#include "delay_engine.hpp"

namespace parjava::analysis::causes {

using trace::Timestamp;

namespace {

// The waiting of location `l` (its wait states, by increasing end) overlapping [a, b): removed
// from `sums` (charged to the waiting calls) and returned; `visit(i, overlap)` sees each one.
template <typename Visit>
double remove_waiting(const WaitStates &waits, std::uint32_t l, Timestamp a, Timestamp b,
                      ActivitySums &sums, Visit visit) {
  const auto &mine = waits.of(l);
  const auto &all = waits.all();
  auto it = std::upper_bound(mine.begin(), mine.end(), a,
                             [&](Timestamp v, std::uint32_t i) { return v < all[i].end; });
  double total = 0.0;
  for (; it != mine.end(); ++it) {
    const WaitState &v = all[*it];
    if (v.start >= b) {
      break;
    }
    const double overlap = static_cast<double>(std::min(v.end, b) - std::max(v.start, a));
    if (overlap > 0.0) {
      sums.add(v.activity, -overlap);
      total += overlap;
      visit(*it, overlap);
    }
  }
  return total;
}

} // namespace

DelayEngine::DelayEngine(const Timelines &timelines, const WaitStates &waits)
    : timelines_(timelines), waits_(waits) {
  on_s_.resize(timelines.activities().size());
  on_r_.resize(timelines.activities().size());
  path_s_.resize(timelines.paths());
  path_r_.resize(timelines.paths());
  path_excess_.resize(timelines.paths());
}

void DelayEngine::waiting_side(const WaitState &w, std::vector<WaitingTime> &out) {
  const Timestamp r1 = w.start;
  const Timestamp r0 = waits_.previous_sync(w.waiting, r1, w.cause);
  on_r_.clear();
  timelines_.accumulate(w.waiting, r0, r1, on_r_);
  remove_waiting(waits_, w.waiting, r0, r1, on_r_, [](std::uint32_t, double) {});
  out.clear();
  for (const auto a : on_r_.touched()) {
    out.push_back({a, timelines_.path_of(a), on_r_.get(a)});
  }
}

double DelayEngine::cause_side(const WaitState &w, double caused_later,
                               const std::vector<WaitingTime> &r, std::vector<double> &rc,
                               DelayCosts &out, std::int64_t tag) {
  const double wait = static_cast<double>(w.wait());
  const Timestamp s1 = w.end;
  const Timestamp s0 = waits_.previous_sync(w.cause, s1, w.waiting);
  on_s_.clear();
  on_r_.clear();
  path_s_.clear();
  path_r_.clear();
  path_excess_.clear();
  inside_.clear();
  timelines_.accumulate(w.cause, s0, s1, on_s_);
  const double wp = remove_waiting(waits_, w.cause, s0, s1, on_s_,
                                   [&](std::uint32_t v, double o) { inside_.emplace_back(v, o); });
  // R's time per activity and per call path, summed in the order R's interval met them.
  for (const auto &t : r) {
    if (t.activity != trace::kNoRef) {
      on_r_.add(t.activity, t.ns);
    }
    if (t.path != trace::kNoRef) {
      path_r_.add(t.path, t.ns);
    }
  }
  const auto excess = [&](std::uint32_t a) { return std::max(0.0, on_s_.get(a) - on_r_.get(a)); };
  // d of activity a: its share of its call path's d.
  const auto delay = [&](std::uint32_t a) {
    const std::uint32_t p = timelines_.path_of(a);
    const double d = std::max(0.0, path_s_.get(p) - path_r_.get(p));
    if (d <= 0.0) {
      return 0.0;
    }
    const double e = path_excess_.get(p);
    return e > 0.0 ? d * excess(a) / e : d * std::max(0.0, on_s_.get(a)) / path_s_.get(p);
  };
  for (const auto a : on_s_.touched()) {
    path_s_.add(timelines_.path_of(a), on_s_.get(a));
    path_excess_.add(timelines_.path_of(a), excess(a));
  }
  double d_total = 0.0;
  for (const auto p : path_s_.touched()) {
    d_total += std::max(0.0, path_s_.get(p) - path_r_.get(p));
  }
  const double denominator = d_total + wp;
  if (denominator <= 0.0) {
    return wait;
  }
  const double direct =
      w.comm == trace::kNoRef ? std::min(1.0, wait / denominator) : wait / denominator;
  const double propagated = caused_later / denominator;
  for (const auto a : on_s_.touched()) {
    const double d = delay(a);
    if (d > 0.0) {
      const std::uint64_t key = (static_cast<std::uint64_t>(w.cause) << 32U) | a;
      const auto [it, fresh] = row_.emplace(key, out.costs.size());
      if (fresh) {
        out.costs.push_back({w.cause, a, 0.0, 0.0});
        created_by_.push_back(tag);
      }
      DelayCost &c = out.costs[it->second];
      c.short_term += d * direct;
      c.long_term += d * propagated;
    }
  }
  for (const auto &[v, overlap] : inside_) {
    rc[v] += (direct + propagated) * overlap;
  }
  // What neither the excess activities nor S's own waiting explains stays unattributed.
  return direct < wait / denominator ? wait - direct * denominator : 0.0;
}

DelayCosts delay_costs(const Timelines &timelines, const WaitStates &waits) {
  DelayCosts out;
  const auto &all = waits.all();
  out.wait_states = all.size();
  std::vector<double> rc(all.size(), 0.0); // downstream waiting each wait state caused
  DelayEngine engine(timelines, waits);
  std::vector<WaitingTime> r;
  for (std::size_t k = all.size(); k-- > 0;) {
    const WaitState &w = all[k];
    out.total_wait += static_cast<double>(w.wait());
    engine.waiting_side(w, r);
    const double unattributed = engine.cause_side(w, rc[k], r, rc, out);
    if (unattributed != 0.0) {
      out.unattributed += unattributed;
    }
  }
  return out;
}

} // namespace parjava::analysis::causes
