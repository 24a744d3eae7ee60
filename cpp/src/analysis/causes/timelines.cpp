#include "timelines.hpp"

#include <algorithm>

namespace parjava::analysis::causes {

using trace::EventIndex;
using trace::EventKind;
using trace::kNoRef;
using trace::Timestamp;

bool is_runtime_region(const trace::Trace &trace, std::uint32_t region) {
  if (region >= trace.regions.size()) {
    return false;
  }
  const auto &r = trace.regions[region];
  return r.function != trace::Function::None || r.paradigm == trace::Paradigm::Mpi ||
         r.paradigm == trace::Paradigm::Shmem;
}

std::pair<std::uint64_t, std::uint64_t> Timelines::key_of(const Activity &a) {
  const std::uint64_t site = (static_cast<std::uint64_t>(a.region) << 32U) | a.callsite;
  if (!a.computation) {
    return {site, ~std::uint64_t{0}};
  }
  return {site, (static_cast<std::uint64_t>(a.previous_callsite) << 32U) | a.next_call};
}

std::uint32_t Timelines::find_activity(const Activity &a) const {
  const auto it = index_.find(key_of(a));
  return it == index_.end() ? kNoRef : it->second;
}

std::uint32_t Timelines::find_path(const Activity &a) const {
  if (!a.computation) {
    const auto own = find_activity(a);
    return own == kNoRef ? kNoRef : path_[own];
  }
  const auto it = computation_path_.find(a.region);
  return it == computation_path_.end() ? kNoRef : it->second;
}

std::uint32_t Timelines::call_activity(std::uint32_t region, std::uint32_t callsite) {
  const auto key = key_of({region, callsite, false, region, kNoRef});
  const auto [it, fresh] = index_.emplace(key, static_cast<std::uint32_t>(activities_.size()));
  if (fresh) {
    activities_.push_back({region, callsite, false, region, kNoRef});
    keys_.push_back(key_);
    path_.push_back(static_cast<std::uint32_t>(paths_++));
  }
  return it->second;
}

std::uint32_t Timelines::computation_activity(std::uint32_t region, std::uint32_t previous,
                                              std::uint32_t callsite, std::uint32_t next_call) {
  const auto key = key_of({region, callsite, true, next_call, previous});
  const auto [it, fresh] = index_.emplace(key, static_cast<std::uint32_t>(activities_.size()));
  if (fresh) {
    activities_.push_back({region, callsite, true, next_call, previous});
    keys_.push_back(key_);
    const auto [p, new_path] =
        computation_path_.emplace(region, static_cast<std::uint32_t>(paths_));
    if (new_path) {
      ++paths_;
    }
    path_.push_back(p->second);
  }
  return it->second;
}

Timelines::Timelines(const trace::Trace &t, const std::vector<std::uint32_t> &locations,
                     const std::vector<std::uint8_t> &owned) {
  const auto &ev = t.events;
  std::vector<std::uint32_t> regions;  // open user regions and intervals
  std::vector<std::size_t> unresolved; // computation segments waiting for the next call's site
  std::vector<std::uint32_t> unresolved_region;
  for (std::uint32_t index = 0; index < locations.size(); ++index) {
    const std::uint32_t l = locations[index];
    if (!owned.empty() && owned[index] == 0) {
      begin_.push_back(0);
      end_.push_back(0);
      offset_.push_back(start_.size());
      continue;
    }
    std::int64_t requests = 0; // this location's activity requests so far (ActivityKey)
    const auto next_key = [&] { key_ = {0, index, requests++, 0}; };
    const EventIndex first = t.location_begin(l);
    const EventIndex last = t.location_end(l);
    regions.clear();
    unresolved.clear();
    unresolved_region.clear();
    const Timestamp b = first < last ? ev.time[static_cast<std::size_t>(first)] : 0;
    const Timestamp e = first < last ? ev.time[static_cast<std::size_t>(last - 1)] : 0;
    begin_.push_back(b);
    end_.push_back(e);
    const auto computation = [&](Timestamp at) {
      unresolved.push_back(start_.size());
      unresolved_region.push_back(regions.empty() ? kNoRef : regions.back());
      start_.push_back(at);
      activity_.push_back(0);
    };
    std::uint32_t previous = kNoRef; // the site of the last MPI call
    const auto resolve = [&](std::uint32_t site, std::uint32_t call) {
      for (std::size_t i = 0; i < unresolved.size(); ++i) {
        next_key();
        activity_[unresolved[i]] = computation_activity(unresolved_region[i], previous, site, call);
      }
      unresolved.clear();
      unresolved_region.clear();
      previous = site;
    };
    computation(b);
    std::uint32_t depth = 0; // nesting of runtime calls
    for (EventIndex x = first; x < last; ++x) {
      const auto i = static_cast<std::size_t>(x);
      const EventKind k = ev.kind[i];
      const std::uint32_t region = ev.region[i];
      const bool runtime =
          (k == EventKind::Enter || k == EventKind::Leave) && is_runtime_region(t, region);
      if (runtime) {
        if (k == EventKind::Enter) {
          if (depth++ == 0) {
            resolve(ev.callsite[i], region);
            start_.push_back(ev.time[i]);
            next_key();
            activity_.push_back(call_activity(region, ev.callsite[i]));
          }
        } else if (depth > 0 && --depth == 0) {
          computation(ev.time[i]);
        }
        continue;
      }
      if (depth > 0) {
        continue;
      }
      if (k == EventKind::Enter || k == EventKind::IntervalBegin) {
        if (region != kNoRef) {
          regions.push_back(region);
          computation(ev.time[i]);
        }
      } else if (k == EventKind::Leave || k == EventKind::IntervalEnd) {
        if (!regions.empty()) {
          regions.pop_back();
          computation(ev.time[i]);
        }
      }
    }
    resolve(kNoRef, kNoRef);
    offset_.push_back(start_.size());
  }
}

void Timelines::accumulate(std::uint32_t l, Timestamp a, Timestamp b, ActivitySums &sums) const {
  if (b <= a) {
    return;
  }
  const auto first = static_cast<std::ptrdiff_t>(offset_[l]);
  const auto last = static_cast<std::ptrdiff_t>(offset_[l + 1]);
  // The segment holding `a`: the last one starting at or before it.
  auto it = std::upper_bound(start_.begin() + first, start_.begin() + last, a);
  std::ptrdiff_t s = std::max(first, (it - start_.begin()) - 1);
  for (; s < last; ++s) {
    const Timestamp seg_begin = start_[static_cast<std::size_t>(s)];
    if (seg_begin >= b) {
      break;
    }
    const Timestamp seg_end = s + 1 < last ? start_[static_cast<std::size_t>(s + 1)] : end_[l];
    const Timestamp lo = std::max(seg_begin, a);
    const Timestamp hi = std::min(seg_end, b);
    if (hi > lo) {
      sums.add(activity_[static_cast<std::size_t>(s)], static_cast<double>(hi - lo));
    }
  }
}

} // namespace parjava::analysis::causes
