#include "flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace parjava::interp {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Finish times are rounded up to 1/1024 ns (about a picosecond): flows that share a bottleneck
// symmetrically then end at the same instant even when their remaining bytes were computed
// along different paths, so they are settled together.
constexpr double kGrid = 1024.0;
// The restart level is lowered by this fraction: levels that are equal in exact arithmetic (flows
// fixed by one bottleneck in different re-solvings, or a link's saturation computed from other
// partial sums) differ in their last bits, and a flow just below the cut that ties with one that
// left must be solved again. A cut slightly too low only re-solves a few more flows.
constexpr double kCutMargin = 1e-9;
} // namespace

void FlowNetwork::build(const machine::Fabric &fabric, bool share_host_links) {
  const std::size_t n = fabric.link_count();
  capacity_.resize(n);
  shared_.resize(n);
  for (std::size_t l = 0; l < n; ++l) {
    const auto link = static_cast<std::uint32_t>(l);
    capacity_[l] = fabric.bandwidth(link) * 1e-9;
    shared_[l] = static_cast<std::uint8_t>(!fabric.fatpipe(link) &&
                                           (share_host_links || !fabric.host_link(link)));
  }
  head_.assign(n, kNone);
  count_.assign(n, 0);
  dirty_mark_.assign(n, 0);
  visit_.assign(n, 0);
  remaining_.assign(n, 0.0);
  weight_.assign(n, 0.0);
  version_.assign(n, 0);
  touch_mark_.assign(n, 0);
  cut_.assign(n, kNone);
  unsorted_.assign(n, 0);
}

std::size_t FlowNetwork::state_bytes() const noexcept {
  return capacity_.size() * (3 * sizeof(double) + 6 * sizeof(std::uint32_t) + 3) +
         bytes_left_.capacity() * (7 * sizeof(double) + 5 * sizeof(std::uint32_t) + 1) +
         members_.capacity() * sizeof(Member) + below_.capacity() * sizeof(double);
}

void FlowNetwork::mark(std::uint32_t link) {
  if (dirty_mark_[link] == 0) {
    dirty_mark_[link] = 1;
    dirty_.push_back(link);
  }
}

std::uint32_t FlowNetwork::allocate_members(std::uint32_t count) {
  if (count < free_members_.size() && !free_members_[count].empty()) {
    const std::uint32_t offset = free_members_[count].back();
    free_members_[count].pop_back();
    return offset;
  }
  const auto offset = static_cast<std::uint32_t>(members_.size());
  members_.resize(members_.size() + count);
  below_.resize(members_.size());
  return offset;
}

void FlowNetwork::release_members(std::uint32_t offset, std::uint32_t count) {
  if (count >= free_members_.size()) {
    free_members_.resize(count + 1);
  }
  free_members_[count].push_back(offset);
}

std::uint32_t FlowNetwork::start(double now, double bytes, const std::uint32_t *links,
                                 std::size_t count, const std::uint32_t *back,
                                 std::size_t back_count, double back_usage, double bound,
                                 double penalty, std::uint32_t owner) {
  std::uint32_t f = 0;
  if (!free_flows_.empty()) {
    f = free_flows_.back();
    free_flows_.pop_back();
  } else {
    f = static_cast<std::uint32_t>(bytes_left_.size());
    bytes_left_.push_back(0.0);
    rate_.push_back(0.0);
    last_.push_back(0.0);
    finish_.push_back(0.0);
    bound_.push_back(0.0);
    penalty_.push_back(1.0);
    level_.push_back(kInfinity);
    order_position_.push_back(kNone);
    owner_.push_back(0);
    member_offset_.push_back(0);
    member_count_.push_back(0);
    flow_visit_.push_back(0);
    fixed_.push_back(0);
  }
  // Unshared links (fatpipes, NICs without endpoint contention) only bound the flow.
  std::uint32_t members = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (shared_[links[i]] != 0) {
      ++members;
    } else {
      bound = std::min(bound, capacity_[links[i]]);
    }
  }
  for (std::size_t i = 0; i < back_count; ++i) {
    members += shared_[back[i]] != 0 ? 1U : 0U;
  }
  bytes_left_[f] = bytes;
  rate_[f] = 0.0;
  last_[f] = now;
  finish_[f] = -1.0;
  bound_[f] = bound;
  penalty_[f] = penalty;
  level_[f] = kInfinity; // ahead of every solved flow on its links until it is solved
  owner_[f] = owner;
  member_count_[f] = members;
  member_offset_[f] = members == 0 ? 0 : allocate_members(members);
  std::uint32_t m = member_offset_[f];
  const auto attach = [&](std::uint32_t link, double usage) {
    Member &member = members_[m];
    member.link = link;
    member.flow = f;
    member.usage = usage;
    below_[m] = 0.0;
    member.prev = kNone;
    member.next = head_[link];
    if (head_[link] != kNone) {
      members_[head_[link]].prev = m;
    }
    head_[link] = m;
    ++count_[link];
    mark(link);
    ++m;
  };
  for (std::size_t i = 0; i < count; ++i) {
    if (shared_[links[i]] != 0) {
      attach(links[i], 1.0);
    }
  }
  for (std::size_t i = 0; i < back_count; ++i) {
    if (shared_[back[i]] != 0) {
      attach(back[i], back_usage);
    }
  }
  if (members == 0) {
    // Alone by construction: its rate is its bound. A pseudo-dirty entry makes settle() see it.
    isolated_.push_back(f);
  }
  fresh_.push_back(f);
  ++started_;
  ++live_flows_;
  peak_flows_ = std::max(peak_flows_, live_flows_);
  return f;
}

bool FlowNetwork::pop_finished(double now, std::uint32_t &owner) {
  if (order_.empty() || finish_[order_.front()] > now) {
    return false;
  }
  const std::uint32_t flow = order_.front();
  order_remove(flow);
  owner = owner_[flow];
  const std::uint32_t offset = member_offset_[flow];
  const std::uint32_t count = member_count_[flow];
  for (std::uint32_t m = offset; m < offset + count; ++m) {
    const Member &member = members_[m];
    if (member.prev != kNone) {
      members_[member.prev].next = member.next;
    } else {
      head_[member.link] = member.next;
    }
    if (member.next != kNone) {
      members_[member.next].prev = member.prev;
    }
    --count_[member.link];
    mark(member.link);
  }
  if (count != 0) {
    release_members(offset, count);
    removed_level_ = std::min(removed_level_, level_[flow]);
  }
  finish_[flow] = -1.0;
  free_flows_.push_back(flow);
  --live_flows_;
  return true;
}

void FlowNetwork::settle(double now) {
  if (!dirty()) {
    return;
  }
  const double cut = incremental_ ? restart_level() : -kInfinity;
  collect_component(cut);
  solve(now, cut);
  if (incremental_) {
    restore_order(cut);
  }
  fresh_.clear();
  removed_level_ = kInfinity;
  for (const std::uint32_t f : component_flows_) {
    const double finish = finish_time(f, now);
    if (finish != finish_[f]) {
      finish_[f] = finish;
      order_update(f);
    }
  }
}

void FlowNetwork::order_sift_up(std::size_t i) {
  const std::uint32_t f = order_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    const std::uint32_t p = order_[parent];
    if (finish_[p] < finish_[f] || (finish_[p] == finish_[f] && p < f)) {
      break;
    }
    order_[i] = p;
    order_position_[p] = static_cast<std::uint32_t>(i);
    i = parent;
  }
  order_[i] = f;
  order_position_[f] = static_cast<std::uint32_t>(i);
}

void FlowNetwork::order_sift_down(std::size_t i) {
  const std::uint32_t f = order_[i];
  const std::size_t n = order_.size();
  while (true) {
    std::size_t child = 2 * i + 1;
    if (child >= n) {
      break;
    }
    const auto earlier = [&](std::uint32_t a, std::uint32_t b) {
      return finish_[a] < finish_[b] || (finish_[a] == finish_[b] && a < b);
    };
    if (child + 1 < n && earlier(order_[child + 1], order_[child])) {
      ++child;
    }
    if (!earlier(order_[child], f)) {
      break;
    }
    order_[i] = order_[child];
    order_position_[order_[i]] = static_cast<std::uint32_t>(i);
    i = child;
  }
  order_[i] = f;
  order_position_[f] = static_cast<std::uint32_t>(i);
}

void FlowNetwork::order_update(std::uint32_t f) {
  if (order_position_[f] == kNone) {
    order_.push_back(f);
    order_sift_up(order_.size() - 1);
    return;
  }
  const std::size_t i = order_position_[f];
  order_sift_up(i);
  order_sift_down(order_position_[f]);
}

void FlowNetwork::order_remove(std::uint32_t f) {
  const std::size_t i = order_position_[f];
  order_position_[f] = kNone;
  const std::uint32_t last = order_.back();
  order_.pop_back();
  if (last != f) {
    order_[i] = last;
    order_position_[last] = static_cast<std::uint32_t>(i);
    order_sift_up(i);
    order_sift_down(order_position_[last]);
  }
}

// The level at which progressive filling over the new set of flows first differs from the last
// solution: the lowest level a departed flow was fixed at, and for every changed link with
// arrivals the level at which it now saturates while the solved flows on it keep the rates they
// had up to their own levels. On a link sorted by decreasing level with loads summed from the
// tail (below_), between the levels of members m and its predecessor the load at level x
// is below(m) + x * (usage / penalty of the flows ahead of m, arrivals included). A departure
// behind m leaves below(m) too high until the next sort, which only lowers the result (safe).
double FlowNetwork::restart_level() {
  if (fresh_.size() == live_flows_) {
    return -kInfinity; // nothing solved is left (a collective's stage starting at once)
  }
  double cut = removed_level_;
  // An arrival's bound fixes it below the level its links saturate at: it has to be solved there
  // (its level must not fall below the cut, which orders the links).
  for (const std::uint32_t f : fresh_) {
    if (member_count_[f] != 0) {
      cut = std::min(cut, bound_[f] * penalty_[f]);
    }
  }
  for (const std::uint32_t l : dirty_) {
    if (head_[l] == kNone || level_[members_[head_[l]].flow] != kInfinity) {
      continue; // no arrival on this link (arrivals are at the head)
    }
    ensure_sorted(l);
    const std::uint32_t first = head_[l];
    double ahead = 0.0;
    double saturation = kInfinity;
    std::uint32_t m = first;
    for (; m != kNone; m = members_[m].next) {
      const Member &member = members_[m];
      const double level = level_[member.flow];
      if (level != kInfinity) {
        const double x = (capacity_[l] - below_[m]) / ahead;
        if (x >= level) {
          saturation = x;
          break;
        }
      }
      ahead += member.usage / penalty_[member.flow];
    }
    if (m == kNone) {
      saturation = capacity_[l] / ahead;
    }
    cut = std::min(cut, saturation);
  }
  return std::isfinite(cut) ? cut - std::abs(cut) * kCutMargin : cut;
}

// The flows to solve again: those at or above `cut` (the head of each link's list) connected to a
// changed link through such flows, and their links; each link's capacity left by the flows below
// the cut (constants now) is its remaining capacity.
void FlowNetwork::collect_component(double cut) {
  ++epoch_;
  component_links_.clear();
  component_flows_.clear();
  for (const std::uint32_t f : isolated_) {
    flow_visit_[f] = epoch_;
    component_flows_.push_back(f);
  }
  isolated_.clear();
  for (const std::uint32_t start : dirty_) {
    dirty_mark_[start] = 0;
    if (visit_[start] == epoch_) {
      continue;
    }
    visit_[start] = epoch_;
    component_links_.push_back(start);
    stack_.push_back(start);
    while (!stack_.empty()) {
      const std::uint32_t item = stack_.back();
      stack_.pop_back();
      if ((item & kFlowBit) == 0) {
        const auto visit = [&](std::uint32_t m) {
          const std::uint32_t f = members_[m].flow;
          if (flow_visit_[f] != epoch_) {
            flow_visit_[f] = epoch_;
            component_flows_.push_back(f);
            stack_.push_back(f | kFlowBit);
          }
        };
        std::uint32_t m = head_[item];
        if (cut == -kInfinity) {
          for (; m != kNone; m = members_[m].next) {
            visit(m);
          }
        } else {
          ensure_sorted(item);
          for (m = head_[item]; m != kNone && level_[members_[m].flow] >= cut;
               m = members_[m].next) {
            visit(m);
          }
        }
        cut_[item] = m;
        remaining_[item] = m == kNone ? capacity_[item] : capacity_[item] - below_[m];
      } else {
        const std::uint32_t f = item & ~kFlowBit;
        const std::uint32_t offset = member_offset_[f];
        for (std::uint32_t m = offset; m < offset + member_count_[f]; ++m) {
          const std::uint32_t link = members_[m].link;
          if (visit_[link] != epoch_) {
            visit_[link] = epoch_;
            component_links_.push_back(link);
            stack_.push_back(link);
          }
        }
      }
    }
  }
  dirty_.clear();
}

// Restores the order of link l's members from its head up to `stop` (decreasing level; ties by
// decreasing member, the order flows are put at the head in, so a link whose flows tie — the usual
// case in a collective — is found sorted) and their running loads. The members from `stop` on
// are in order already.
void FlowNetwork::resort(std::uint32_t l, std::uint32_t stop) {
  sort_scratch_.clear();
  for (std::uint32_t m = head_[l]; m != stop; m = members_[m].next) {
    sort_scratch_.push_back(m);
  }
  if (sort_scratch_.empty()) {
    return;
  }
  const auto ahead = [&](std::uint32_t a, std::uint32_t b) {
    const double la = level_[members_[a].flow];
    const double lb = level_[members_[b].flow];
    return la > lb || (la == lb && a > b);
  };
  if (!std::is_sorted(sort_scratch_.begin(), sort_scratch_.end(), ahead)) {
    std::sort(sort_scratch_.begin(), sort_scratch_.end(), ahead);
  }
  double below = stop == kNone ? 0.0 : below_[stop];
  std::uint32_t next = stop;
  for (auto it = sort_scratch_.rbegin(); it != sort_scratch_.rend(); ++it) {
    Member &member = members_[*it];
    below += member.usage * rate_[member.flow];
    below_[*it] = below;
    member.next = next;
    if (next != kNone) {
      members_[next].prev = *it;
    }
    next = *it;
  }
  head_[l] = next;
  members_[next].prev = kNone;
}

// After a partial solve only the members ahead of each solved link's cut moved (their new levels
// are at or above the cut, those behind it are unchanged): sort those now. After a solve of whole
// components every member moved: sort each link when it is next needed, which a collective whose
// stages start and end all at once never does.
void FlowNetwork::restore_order(double cut) {
  for (const std::uint32_t l : component_links_) {
    if (cut == -kInfinity) {
      unsorted_[l] = 1;
    } else {
      resort(l, cut_[l]);
    }
  }
}

void FlowNetwork::ensure_sorted(std::uint32_t l) {
  if (unsorted_[l] != 0) {
    unsorted_[l] = 0;
    resort(l, kNone);
  }
}

void FlowNetwork::heap_push(HeapEntry e) {
  heap_.push_back(e);
  std::push_heap(heap_.begin(), heap_.end(),
                 [](const HeapEntry &a, const HeapEntry &b) { return a.level > b.level; });
}

FlowNetwork::HeapEntry FlowNetwork::heap_pop() {
  std::pop_heap(heap_.begin(), heap_.end(),
                [](const HeapEntry &a, const HeapEntry &b) { return a.level > b.level; });
  const HeapEntry e = heap_.back();
  heap_.pop_back();
  return e;
}

// Progressive filling (max-min fairness with penalties): raise a common level; a link saturates
// at level remaining / sum(usage / penalty) over its unfixed flows, a flow at its bound times its
// penalty; whatever saturates first fixes its flows at level / penalty, which leaves the other
// links less capacity and fewer flows. Levels only rise, so stale heap entries are skipped by
// version instead of being updated in place.
void FlowNetwork::solve(double now, double cut) {
  ++recomputations_;
  flows_recomputed_ += component_flows_.size();
  for (const std::uint32_t f : component_flows_) {
    if (now > last_[f]) {
      bytes_left_[f] = std::max(0.0, bytes_left_[f] - rate_[f] * (now - last_[f]));
      last_[f] = now;
    }
    fixed_[f] = 0;
  }
  for (const std::uint32_t l : component_links_) {
    weight_[l] = 0.0;
    ++version_[l];
  }
  for (const std::uint32_t f : component_flows_) {
    const std::uint32_t offset = member_offset_[f];
    for (std::uint32_t m = offset; m < offset + member_count_[f]; ++m) {
      weight_[members_[m].link] += members_[m].usage / penalty_[f];
    }
  }
  heap_.clear();
  for (const std::uint32_t l : component_links_) {
    if (weight_[l] > 0.0) {
      heap_push({remaining_[l] / weight_[l], l, version_[l]});
    }
  }
  for (const std::uint32_t f : component_flows_) {
    if (bound_[f] < kInfinity) {
      heap_push({bound_[f] * penalty_[f], f | kFlowBit, 0});
    }
  }
  std::size_t unfixed = component_flows_.size();
  std::uint32_t saturated = kNone;
  // The links whose level changed while a saturated link fixed its flows: each gets one heap
  // entry afterwards instead of one per fixed flow (only the last would be current anyway), so
  // an incast or all-to-all of k flows per link pushes O(links) entries per saturation, not
  // O(k * hops).
  ++touch_epoch_;
  // Levels below the cut can only come from rounding; keeping each link's order needs them at it.
  const auto fix = [&](std::uint32_t f, double rate, double level) {
    fixed_[f] = 1;
    rate_[f] = rate;
    level_[f] = std::max(level, cut);
    --unfixed;
    const std::uint32_t offset = member_offset_[f];
    for (std::uint32_t m = offset; m < offset + member_count_[f]; ++m) {
      const std::uint32_t l = members_[m].link;
      remaining_[l] -= members_[m].usage * rate;
      weight_[l] -= members_[m].usage / penalty_[f];
      ++version_[l];
      if (l != saturated && touch_mark_[l] != touch_epoch_) {
        touch_mark_[l] = touch_epoch_;
        touched_.push_back(l);
      }
    }
  };
  const auto push_touched = [&] {
    for (const std::uint32_t l : touched_) {
      if (weight_[l] > 1e-12) {
        heap_push({std::max(0.0, remaining_[l]) / weight_[l], l, version_[l]});
      }
    }
    touched_.clear();
    ++touch_epoch_;
  };
  while (unfixed > 0 && !heap_.empty()) {
    const HeapEntry e = heap_pop();
    if ((e.id & kFlowBit) != 0) {
      const std::uint32_t f = e.id & ~kFlowBit;
      if (fixed_[f] == 0) {
        fix(f, bound_[f], e.level);
        push_touched();
      }
      continue;
    }
    if (e.version != version_[e.id]) {
      continue;
    }
    saturated = e.id;
    for (std::uint32_t m = head_[e.id]; m != cut_[e.id]; m = members_[m].next) {
      const std::uint32_t f = members_[m].flow;
      if (fixed_[f] == 0) {
        fix(f, e.level / penalty_[f], e.level);
      }
    }
    saturated = kNone;
    push_touched();
  }
  if (unfixed > 0) {
    // Flows with no shared link and no bound: nothing limits them.
    for (const std::uint32_t f : component_flows_) {
      if (fixed_[f] == 0) {
        rate_[f] = kInfinity;
        level_[f] = kInfinity;
      }
    }
  }
}

double FlowNetwork::finish_time(std::uint32_t f, double now) const {
  const double start = std::max(now, last_[f]);
  if (bytes_left_[f] <= 0.0 || rate_[f] == kInfinity) {
    return start;
  }
  if (!(rate_[f] > 0.0)) {
    return kInfinity;
  }
  return std::max(start, std::ceil((start + bytes_left_[f] / rate_[f]) * kGrid) / kGrid);
}

} // namespace parjava::interp
