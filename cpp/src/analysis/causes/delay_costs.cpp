// Delay costs (causes.hpp; Böhme et al. ICPP 2010, anchors §6). For a wait state of R caused
// by S, with the synchronisation interval of each side running from its previous
// synchronisation point with the other up to the current one:
//   t_X(c)  exclusive time of activity c in X's interval, waiting in it removed;
//   d(c)    = [t_S(c) - t_R(c)]+, D = sum d(c); Wp = the waiting of S inside its interval;
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
    inside.clear();
    timelines.accumulate(w.cause, s0, s1, on_s);
    timelines.accumulate(w.waiting, r0, r1, on_r);
    const double wp = remove_waiting(waits, w.cause, s0, s1, on_s,
                                     [&](std::uint32_t v, double o) { inside.emplace_back(v, o); });
    remove_waiting(waits, w.waiting, r0, r1, on_r, [](std::uint32_t, double) {});
    double d_total = 0.0;
    for (const auto a : on_s.touched()) {
      d_total += std::max(0.0, on_s.get(a) - on_r.get(a));
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
      const double d = std::max(0.0, on_s.get(a) - on_r.get(a));
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
