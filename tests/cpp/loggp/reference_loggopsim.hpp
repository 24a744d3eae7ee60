// A deliberately naive transcription of LogGOPSim's event loop as the anchor describes it
// (shared/anchors/loggopsim-semantics.md §4): one std::priority_queue, blocked operations
// re-queued one by one, linear first-match scans of std::list queues, std::sort on each ready
// list. Slow and obviously faithful; the tests compare the real engine against it on random
// schedules, so the engine's per-resource groups, radix queue and indexed match queues are
// checked without LogGOPSim installed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <list>
#include <queue>
#include <vector>

#include "parjava/loggp/goal_schedule.hpp"
#include "parjava/loggp/loggp_rules.hpp"
#include "parjava/loggp/ready_order.hpp"

namespace parjava::loggp::reference {

struct Result {
  std::vector<SimTime> end_times;
  std::uint64_t events = 0;
  bool queues_empty = true;
};

inline Result simulate(const GoalSchedule &s, const LogGPParameters &p, ReadyOrder order) {
  enum Kind { kSend = 1, kRecv = 2, kCalc = 3, kMsg = 4 };
  struct Entry {
    SimTime time;
    std::uint64_t ts;
    int kind;
    std::uint32_t host;
    OpId op;            // the op; for kMsg the send
    std::uint32_t from; // kMsg: sender host
  };
  struct Later {
    bool operator()(const Entry &a, const Entry &b) const {
      return a.time > b.time || (a.time == b.time && a.ts > b.ts);
    }
  };
  struct Queued {
    std::uint32_t src;
    std::uint32_t tag;
    OpId op;
    std::uint32_t from;
  };
  const std::uint32_t P = s.num_ranks();
  const unsigned C = s.num_cpus();
  const unsigned N = s.num_nics();
  std::vector<std::vector<SimTime>> nexto(P, std::vector<SimTime>(C, 0));
  std::vector<std::vector<SimTime>> nextgs(P, std::vector<SimTime>(N, 0));
  std::vector<std::vector<SimTime>> nextgr(P, std::vector<SimTime>(N, 0));
  std::vector<std::list<Queued>> rq(P);
  std::vector<std::list<Queued>> uq(P);
  std::vector<std::vector<OpId>> ready(P);
  std::vector<std::uint32_t> count(s.num_ops());
  for (OpId i = 0; i < s.num_ops(); ++i) {
    count[i] = s.op(i).dependency_count;
  }
  std::priority_queue<Entry, std::vector<Entry>, Later> aq;
  std::uint64_t aqtime = 0;

  auto release = [&](std::uint32_t host, std::span<const OpId> list) {
    for (const OpId d : list) {
      if (--count[d] == 0) {
        ready[host].push_back(d);
      }
    }
  };
  auto sort_ready = [&](std::vector<OpId> &list) {
    const auto by_kind = [&](OpId a, OpId b) { return s.op(a).kind < s.op(b).kind; };
    if (order == ReadyOrder::Stable) {
      std::stable_sort(list.begin(), list.end(), by_kind);
    } else {
#ifdef __GLIBCXX__
      std::sort(list.begin(), list.end(), by_kind); // the real thing
#else
      libstdcxx_sort(list.data(), list.data() + list.size(), by_kind);
#endif
    }
  };
  auto admit = [&](std::uint32_t h, bool at_start) {
    std::vector<OpId> list;
    list.swap(ready[h]);
    sort_ready(list);
    for (const OpId id : list) {
      const GoalOp &op = s.op(id);
      SimTime t = 0;
      if (!at_start) {
        t = nexto[h][op.cpu];
        if (op.kind == OpKind::Send) {
          t = std::max(t, nextgs[h][op.nic]);
        }
      }
      aq.push(Entry{t, aqtime++, static_cast<int>(op.kind), h, id, 0});
    }
  };
  auto matches = [](std::uint32_t ws, std::uint32_t wt, const Queued &e) {
    return (ws == kAnySource || e.src == kAnySource || e.src == ws) &&
           (wt == kAnyTag || e.tag == kAnyTag || e.tag == wt);
  };
  auto take = [&](std::list<Queued> &q, std::uint32_t ws, std::uint32_t wt, Queued &out) {
    for (auto it = q.begin(); it != q.end(); ++it) {
      if (matches(ws, wt, *it)) {
        out = *it;
        q.erase(it);
        return true;
      }
    }
    return false;
  };

  for (std::uint32_t h = 0; h < P; ++h) {
    for (OpId id = s.rank_begin(h); id < s.rank_begin(h + 1); ++id) {
      if (s.op(id).dependency_count == 0) {
        ready[h].push_back(id);
      }
    }
    admit(h, true);
  }
  while (!aq.empty()) {
    Entry e = aq.top();
    aq.pop();
    std::vector<std::uint32_t> touched;
    const GoalOp &op = s.op(e.op);
    const SimTime t = e.time;
    const std::uint64_t s1 = op.size - 1U;
    switch (e.kind) {
    case kCalc:
      if (nexto[e.host][op.cpu] <= t) {
        nexto[e.host][op.cpu] = t + op.size;
        release(e.host, s.irequires_dependents(e.op));
        release(e.host, s.requires_dependents(e.op));
        touched.push_back(e.host);
      } else {
        e.time = nexto[e.host][op.cpu];
        aq.push(e);
      }
      break;
    case kSend:
      if (std::max(nexto[e.host][op.cpu], nextgs[e.host][op.nic]) <= t) {
        release(e.host, s.irequires_dependents(e.op));
        touched.push_back(e.host);
        nexto[e.host][op.cpu] = t + p.o + s1 * p.O;
        nextgs[e.host][op.nic] = t + p.g + s1 * p.G;
        aq.push(Entry{t + p.o + p.L, aqtime++, kMsg, op.peer, e.op, e.host});
        if (op.size <= p.S) {
          release(e.host, s.requires_dependents(e.op));
        }
      } else {
        e.time = std::max(nexto[e.host][op.cpu], nextgs[e.host][op.nic]);
        aq.push(e);
      }
      break;
    case kRecv: {
      release(e.host, s.irequires_dependents(e.op));
      touched.push_back(e.host);
      Queued m{};
      if (take(uq[e.host], op.peer, op.tag, m)) {
        if (op.size > p.S) {
          release(m.from, s.requires_dependents(m.op));
          touched.push_back(m.from);
          nexto[m.from][op.cpu] = std::max(nexto[m.from][op.cpu], t);
          nextgs[m.from][op.nic] = std::max(nextgs[m.from][op.nic], t);
        }
        release(e.host, s.requires_dependents(e.op));
      } else {
        rq[e.host].push_back(Queued{op.peer, op.tag, e.op, 0});
      }
      break;
    }
    case kMsg:
      if (std::max(nexto[e.host][op.cpu], nextgr[e.host][op.nic]) <= t) {
        nexto[e.host][op.cpu] = t + p.o + std::max(s1 * p.O, s1 * p.G);
        nextgr[e.host][op.nic] = t + p.g + s1 * p.G;
        Queued r{};
        if (take(rq[e.host], e.from, op.tag, r)) {
          if (op.size > p.S) {
            release(e.from, s.requires_dependents(e.op));
            touched.push_back(e.from);
            nexto[e.from][op.cpu] = std::max(nexto[e.from][op.cpu], t);
            nextgs[e.from][op.nic] = std::max(nextgs[e.from][op.nic], t);
          }
          release(e.host, s.requires_dependents(r.op));
          touched.push_back(e.host);
        } else {
          uq[e.host].push_back(Queued{e.from, op.tag, e.op, e.from});
        }
      } else {
        e.time = std::max(nexto[e.host][op.cpu], nextgr[e.host][op.nic]);
        aq.push(e);
      }
      break;
    default:
      break;
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (const std::uint32_t h : touched) {
      admit(h, false);
    }
  }
  Result r;
  r.events = aqtime;
  for (std::uint32_t h = 0; h < P; ++h) {
    r.end_times.push_back(*std::max_element(nexto[h].begin(), nexto[h].end()));
    r.queues_empty = r.queues_empty && rq[h].empty() && uq[h].empty();
  }
  return r;
}

} // namespace parjava::loggp::reference
