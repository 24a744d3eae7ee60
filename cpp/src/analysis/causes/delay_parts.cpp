// The delay costs of a trace in parts (delay_parts.hpp).
#include "delay_parts.hpp"

#include <algorithm>

#include "../part_bytes.hpp"
#include "parjava/error.hpp"

namespace parjava::analysis::causes {

namespace {

constexpr std::uint8_t kBoth = 0;
constexpr std::uint8_t kWaiting = 1;
constexpr std::uint8_t kCause = 2;
constexpr std::uint32_t kCausedMagic = 0x31574450U; // "PDW1"
constexpr std::uint32_t kSideMagic = 0x31534450U;   // "PDS1"

// A wait state sent to its cause's part, with its place among its waiting location's.
struct CausedWire {
  WaitState wait;
  std::uint32_t position = 0;
  std::uint32_t unused = 0;
};

// One activity's time on the waiting side, named by what the activity is (parts number their
// activities each their own way).
struct TimeWire {
  std::uint32_t region = 0, callsite = 0, next_call = 0, previous_callsite = 0;
  std::uint32_t computation = 0, unused = 0;
  double ns = 0.0;
};

// The waiting side of one wait state: its key, the waiting it caused later, its times.
struct SideHeader {
  WaitKey key;
  double caused_later = 0.0;
  std::uint64_t times = 0;
};

std::vector<WaitKey> own_keys(const WaitStates &waits) {
  std::vector<WaitKey> keys(waits.all().size());
  for (std::uint32_t l = 0; l < waits.locations(); ++l) {
    const auto &mine = waits.of(l);
    for (std::uint32_t p = 0; p < mine.size(); ++p) {
      keys[mine[p]] = {waits.all()[mine[p]].end, l, p};
    }
  }
  return keys;
}

[[noreturn]] void damaged() {
  throw Error(ErrorKind::Analysis, "delay costs: the bytes received from another analysis rank "
                                   "are damaged");
}

} // namespace

std::vector<std::string> DelayPart::caused_elsewhere(const WaitStates &waits,
                                                     const std::vector<std::uint32_t> &owners,
                                                     std::size_t parts) {
  const auto keys = own_keys(waits);
  std::vector<std::vector<CausedWire>> out(parts);
  for (std::uint32_t i = 0; i < waits.all().size(); ++i) {
    const WaitState &w = waits.all()[i];
    const auto to = owners.at(w.cause);
    if (to != owners.at(w.waiting)) {
      out.at(to).push_back({w, keys[i].position, 0});
    }
  }
  std::vector<std::string> bytes(parts);
  for (std::size_t p = 0; p < parts; ++p) {
    detail::Writer writer;
    writer.put(kCausedMagic);
    writer.put(out[p]);
    bytes[p] = std::move(writer.out);
  }
  return bytes;
}

DelayPart::DelayPart(const trace::Trace &trace, const std::vector<std::uint32_t> &locations,
                     const PartScope &scope, const Timelines &timelines, WaitStates &waits,
                     const std::vector<std::uint32_t> &owners, trace::Timestamp init, bool init_all,
                     const std::vector<std::string> &caused)
    : timelines_(timelines), waits_(waits), owners_(owners), engine_(timelines, waits) {
  if (owners.size() != locations.size()) {
    throw Error(ErrorKind::Usage, "delay costs: `owners` has " + std::to_string(owners.size()) +
                                      " parts for " + std::to_string(locations.size()) +
                                      " analysed locations");
  }
  std::vector<std::pair<WaitKey, WaitState>> received;
  for (const auto &bytes : caused) {
    detail::Reader r(bytes, "delay costs (wait states)");
    if (r.get<std::uint32_t>() != kCausedMagic) {
      damaged();
    }
    for (const auto &c : r.get_vector<CausedWire>()) {
      if (c.wait.cause >= locations.size() || c.wait.waiting >= locations.size() ||
          scope.owned[c.wait.cause] == 0 || scope.owned[c.wait.waiting] != 0) {
        damaged();
      }
      received.emplace_back(WaitKey{c.wait.end, c.wait.waiting, c.position}, c.wait);
    }
    if (!r.done()) {
      damaged();
    }
  }
  std::sort(received.begin(), received.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
  for (const auto &[key, w] : received) {
    caused_keys_.push_back(key);
    caused_.push_back(w);
  }
  waits.add_part_syncs(trace, locations, scope, init, init_all, caused_);
  arrived_.assign(caused_.size(), 0);
  arrived_rc_.assign(caused_.size(), 0.0);
  arrived_times_.resize(caused_.size());
  const auto keys = own_keys(waits);
  rc_.assign(keys.size(), 0.0);
  items_.reserve(keys.size() + caused_.size());
  for (std::uint32_t i = 0; i < keys.size(); ++i) {
    const WaitState &w = waits.all()[i];
    items_.push_back({keys[i], i, owners[w.cause] == owners[w.waiting] ? kBoth : kWaiting});
    out_.total_wait += static_cast<double>(w.wait());
  }
  for (std::uint32_t i = 0; i < caused_.size(); ++i) {
    items_.push_back({caused_keys_[i], i, kCause});
  }
  std::sort(items_.begin(), items_.end(),
            [](const Item &a, const Item &b) { return a.key > b.key; });
  out_.wait_states = keys.size();
}

void DelayPart::receive(const std::string &bytes) {
  detail::Reader r(bytes, "delay costs (waiting sides)");
  if (r.get<std::uint32_t>() != kSideMagic) {
    damaged();
  }
  const auto count = r.get<std::uint64_t>();
  for (std::uint64_t k = 0; k < count; ++k) {
    const auto head = r.get<SideHeader>();
    const auto it = std::lower_bound(caused_keys_.begin(), caused_keys_.end(), head.key);
    if (it == caused_keys_.end() || *it != head.key) {
      damaged();
    }
    const auto i = static_cast<std::size_t>(it - caused_keys_.begin());
    auto &times = arrived_times_[i];
    times.clear();
    for (std::uint64_t t = 0; t < head.times; ++t) {
      const auto x = r.get<TimeWire>();
      const Activity a{x.region, x.callsite, x.computation != 0, x.next_call, x.previous_callsite};
      times.push_back({timelines_.find_activity(a), timelines_.find_path(a), x.ns});
    }
    arrived_[i] = 1;
    arrived_rc_[i] = head.caused_later;
  }
  if (!r.done()) {
    damaged();
  }
}

DelayStatus DelayPart::step(const std::vector<std::string> &incoming,
                            std::vector<std::string> &outgoing, std::size_t budget) {
  for (const auto &bytes : incoming) {
    receive(bytes);
  }
  const auto parts = outgoing.size();
  std::vector<detail::Writer> writers(parts);
  std::vector<std::uint64_t> sides(parts, 0);
  const auto &all = waits_.all();
  const auto &activities = timelines_.activities();
  DelayStatus status = DelayStatus::Done;
  for (std::size_t done = 0; cursor_ < items_.size(); ++cursor_, ++done) {
    if (done == budget) {
      status = DelayStatus::More;
      break;
    }
    const Item &item = items_[cursor_];
    const auto tag = static_cast<std::int64_t>(cursor_);
    double unattributed = 0.0;
    if (item.kind == kBoth) {
      const WaitState &w = all[item.index];
      engine_.waiting_side(w, times_);
      unattributed = engine_.cause_side(w, rc_[item.index], times_, rc_, out_, tag);
    } else if (item.kind == kWaiting) {
      const WaitState &w = all[item.index];
      engine_.waiting_side(w, times_);
      const auto to = owners_[w.cause];
      auto &writer = writers.at(to);
      writer.put(SideHeader{item.key, rc_[item.index], times_.size()});
      for (const auto &t : times_) {
        const Activity &a = activities[t.activity];
        writer.put(TimeWire{a.region, a.callsite, a.next_call, a.previous_callsite,
                            a.computation ? 1U : 0U, 0, t.ns});
      }
      ++sides[to];
    } else {
      if (arrived_[item.index] == 0) {
        status = DelayStatus::Blocked;
        break;
      }
      unattributed = engine_.cause_side(caused_[item.index], arrived_rc_[item.index],
                                        arrived_times_[item.index], rc_, out_, tag);
      std::vector<WaitingTime>().swap(arrived_times_[item.index]);
    }
    if (unattributed != 0.0) {
      unattributed_.push_back({item.key, unattributed});
    }
  }
  for (std::size_t p = 0; p < parts; ++p) {
    outgoing[p].clear();
    if (sides[p] != 0) {
      detail::Writer head;
      head.put(kSideMagic);
      head.put(sides[p]);
      outgoing[p] = std::move(head.out) + writers[p].out;
    }
  }
  return status;
}

void DelayPart::write(detail::Writer &w, const std::vector<std::uint32_t> &locations) const {
  if (cursor_ != items_.size()) {
    throw Error(ErrorKind::Usage, "delay costs: the part's propagation is not finished");
  }
  auto costs = out_.costs;
  std::vector<WaitKey> created;
  created.reserve(costs.size());
  for (std::size_t i = 0; i < costs.size(); ++i) {
    costs[i].location = locations[costs[i].location];
    created.push_back(items_[static_cast<std::size_t>(engine_.created_by()[i])].key);
  }
  w.put(costs);
  w.put(created);
  w.put(unattributed_);
  w.put(out_.wait_states);
  w.put(out_.total_wait);
}

} // namespace parjava::analysis::causes
