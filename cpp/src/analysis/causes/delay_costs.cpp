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
#include <unordered_map>

#include "critical_path.hpp"

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

DelayCosts delay_costs(const Timelines &timelines, const WaitStates &waits) {
  DelayCosts out;
  const auto &all = waits.all();
  out.wait_states = all.size();
  std::vector<double> rc(all.size(), 0.0); // downstream waiting each wait state caused
  ActivitySums on_s, on_r;
  on_s.resize(timelines.activities().size());
  on_r.resize(timelines.activities().size());
  // Per call path: S's and R's time, and the sum of the excess of S's activities in it.
  ActivitySums path_s, path_r, path_excess;
  path_s.resize(timelines.paths());
  path_r.resize(timelines.paths());
  path_excess.resize(timelines.paths());
  const auto excess = [&](std::uint32_t a) { return std::max(0.0, on_s.get(a) - on_r.get(a)); };
  // d of activity a: its share of its call path's d.
  const auto delay = [&](std::uint32_t a) {
    const std::uint32_t p = timelines.path_of(a);
    const double d = std::max(0.0, path_s.get(p) - path_r.get(p));
    if (d <= 0.0) {
      return 0.0;
    }
    const double e = path_excess.get(p);
    return e > 0.0 ? d * excess(a) / e : d * std::max(0.0, on_s.get(a)) / path_s.get(p);
  };
  std::unordered_map<std::uint64_t, std::size_t> row; // (location, activity) -> costs index
  const auto cost = [&](std::uint32_t l, std::uint32_t a) -> DelayCost & {
    const std::uint64_t key = (static_cast<std::uint64_t>(l) << 32U) | a;
    const auto [it, fresh] = row.emplace(key, out.costs.size());
    if (fresh) {
      out.costs.push_back({l, a, 0.0, 0.0});
    }
    return out.costs[it->second];
  };
  std::vector<std::pair<std::uint32_t, double>> inside; // S's wait states in its interval
  for (std::size_t k = all.size(); k-- > 0;) {
    const WaitState &w = all[k];
    const double wait = static_cast<double>(w.wait());
    out.total_wait += wait;
    const Timestamp s1 = w.end;
    const Timestamp s0 = waits.previous_sync(w.cause, s1, w.waiting);
    const Timestamp r1 = w.start;
    const Timestamp r0 = waits.previous_sync(w.waiting, r1, w.cause);
    on_s.clear();
    on_r.clear();
    path_s.clear();
    path_r.clear();
    path_excess.clear();
    inside.clear();
    timelines.accumulate(w.cause, s0, s1, on_s);
    timelines.accumulate(w.waiting, r0, r1, on_r);
    const double wp = remove_waiting(waits, w.cause, s0, s1, on_s,
                                     [&](std::uint32_t v, double o) { inside.emplace_back(v, o); });
    remove_waiting(waits, w.waiting, r0, r1, on_r, [](std::uint32_t, double) {});
    for (const auto a : on_s.touched()) {
      path_s.add(timelines.path_of(a), on_s.get(a));
      path_excess.add(timelines.path_of(a), excess(a));
    }
    for (const auto a : on_r.touched()) {
      path_r.add(timelines.path_of(a), on_r.get(a));
    }
    double d_total = 0.0;
    for (const auto p : path_s.touched()) {
      d_total += std::max(0.0, path_s.get(p) - path_r.get(p));
    }
    const double denominator = d_total + wp;
    if (denominator <= 0.0) {
      out.unattributed += wait;
      continue;
    }
    const double direct =
        w.comm == trace::kNoRef ? std::min(1.0, wait / denominator) : wait / denominator;
    const double propagated = rc[k] / denominator;
    for (const auto a : on_s.touched()) {
      const double d = delay(a);
      if (d > 0.0) {
        DelayCost &c = cost(w.cause, a);
        c.short_term += d * direct;
        c.long_term += d * propagated;
      }
    }
    for (const auto &[v, overlap] : inside) {
      rc[v] += (direct + propagated) * overlap;
    }
    // What neither the excess activities nor S's own waiting explains stays unattributed.
    if (direct < wait / denominator) {
      out.unattributed += wait - direct * denominator;
    }
  }
  return out;
}

} // namespace parjava::analysis::causes
