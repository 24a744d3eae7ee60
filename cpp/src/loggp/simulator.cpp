// The LogGP engine: LogGOPSim's event semantics (anchor §4) on compact data structures.
// Every rule below cites the anchor; the cost formulas are in loggp_rules.hpp.
#include "parjava/loggp/simulator.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <string>

#include "blocked_groups.hpp"
#include "event_queue.hpp"
#include "match_queue.hpp"
#include "parjava/error.hpp"

namespace parjava::loggp {

namespace {

// Runtime state of an op (one byte per op, for reports).
enum OpState : std::uint8_t { kWaiting = 0, kQueued = 1, kStarted = 2, kDone = 3 };

// Resource sets a blocked entry can wait for (see blocked_groups.hpp).
enum class Waits : std::uint32_t { Cpu = 1, CpuAndSendNic = 2, CpuAndReceiveNic = 3 };

std::uint32_t signature(Waits waits, std::uint8_t cpu, std::uint8_t nic) noexcept {
  return (static_cast<std::uint32_t>(waits) << 16U) | (static_cast<std::uint32_t>(cpu) << 8U) | nic;
}

struct Released {
  std::uint32_t host;
  OpId op;
};

class Engine {
public:
  Engine(const GoalSchedule &schedule, const SimulationOptions &options)
      : schedule_(schedule), ops_(schedule.ops().data()), deps_(schedule.dependents().data()),
        p_(options.parameters), order_(options.order), progress_(options.progress),
        hosts_(schedule.num_ranks()), cpus_(schedule.num_cpus()), nics_(schedule.num_nics()),
        remaining_(schedule.num_ops()), state_(schedule.num_ops(), kWaiting),
        nexto_(static_cast<std::size_t>(hosts_) * cpus_, 0),
        nextgs_(static_cast<std::size_t>(hosts_) * nics_, 0),
        nextgr_(static_cast<std::size_t>(hosts_) * nics_, 0), receive_queue_(hosts_),
        unexpected_queue_(hosts_), groups_(hosts_) {
    for (OpId i = 0; i < schedule.num_ops(); ++i) {
      remaining_[i] = ops_[i].dependency_count;
    }
  }

  SimulationResult run() {
    const auto start = std::chrono::steady_clock::now();
    start_up();
    std::uint64_t next_report = kReportEvery;
    while (!queue_.empty()) {
      const Event e = queue_.pop();
      ++pops_;
      if (e.kind() == EntryKind::Group) {
        run_group(e);
      } else {
        SimTime free_at = 0;
        if (try_execute(e, free_at)) {
          admit_released();
        } else {
          block(e, free_at);
        }
      }
      if (pops_ >= next_report) {
        next_report += kReportEvery;
        if (progress_ && !progress_(pops_)) {
          throw Error(ErrorKind::Usage,
                      "simulation interrupted after " + std::to_string(pops_) + " queue entries");
        }
      }
    }
    const auto stop = std::chrono::steady_clock::now();
    SimulationResult result = collect();
    result.seconds = std::chrono::duration<double>(stop - start).count();
    return result;
  }

private:
  static constexpr std::uint64_t kReportEvery = std::uint64_t{1} << 20U;

  // ---- releasing dependents (anchor §4, "Releasing dependents") -------------------------
  void started(OpId op, std::uint32_t host) {
    const GoalOp &o = ops_[op];
    for (std::uint32_t i = o.irequires_begin; i < ops_[op + 1].requires_begin; ++i) {
      const OpId d = deps_[i];
      if (--remaining_[d] == 0) {
        released_.push_back({host, d});
      }
    }
    if (state_[op] < kStarted) {
      state_[op] = kStarted;
    }
  }

  // A second done() of the same op (mismatched sizes, anchor §4 quirk 3) decrements the
  // dependents again, as LogGOPSim does; counters wrap and never reach 0 again.
  void done(OpId op, std::uint32_t host) {
    const GoalOp &o = ops_[op];
    for (std::uint32_t i = o.requires_begin; i < o.irequires_begin; ++i) {
      const OpId d = deps_[i];
      if (--remaining_[d] == 0) {
        released_.push_back({host, d});
      }
    }
    if (state_[op] != kDone) {
      state_[op] = kDone;
      ++completed_;
    }
  }

  // ---- admitting ready ops (anchor §4, "Admitting ready ops") ---------------------------
  void order_ready(std::vector<OpId> &ready) {
    const std::size_t n = ready.size();
    if (n < 2) {
      return;
    }
    const GoalOp *ops = ops_;
    const auto by_kind = [ops](OpId a, OpId b) { return ops[a].kind < ops[b].kind; };
    if (n > static_cast<std::size_t>(libstdcxx::kThreshold) && order_ == ReadyOrder::LogGOPSim) {
      libstdcxx_sort(ready.data(), ready.data() + n, by_kind);
      return;
    }
    if (n <= static_cast<std::size_t>(libstdcxx::kThreshold)) {
      libstdcxx::insertion_sort(ready.data(), ready.data() + n, by_kind); // stable
      return;
    }
    // Stable counting sort by kind for long lists.
    std::array<std::size_t, 4> start{};
    for (const OpId id : ready) {
      ++start[static_cast<std::size_t>(ops[id].kind)];
    }
    std::size_t sum = 0;
    for (std::size_t &s : start) {
      const std::size_t c = s;
      s = sum;
      sum += c;
    }
    sorted_.resize(n);
    for (const OpId id : ready) {
      sorted_[start[static_cast<std::size_t>(ops[id].kind)]++] = id;
    }
    ready.swap(sorted_);
  }

  void admit(std::uint32_t host, std::vector<OpId> &ready, bool at_start) {
    order_ready(ready);
    for (const OpId id : ready) {
      const GoalOp &op = ops_[id];
      SimTime time = 0;
      if (!at_start) { // at start-up every op gets time 0
        const std::size_t cpu = static_cast<std::size_t>(host) * cpus_ + op.cpu;
        time = nexto_[cpu];
        if (op.kind == OpKind::Send) {
          time = std::max(time, nextgs_[static_cast<std::size_t>(host) * nics_ + op.nic]);
        }
      }
      queue_.push(Event{time, seq_++, id, Event::pack(EntryKind::Operation, host)});
      state_[id] = kQueued;
    }
  }

  // After each event, the hosts that released ops admit them in ascending host order, each in
  // release order before the kind sort. An event touches at most two hosts.
  void admit_released() {
    if (released_.empty()) {
      return;
    }
    std::uint32_t low = released_.front().host;
    std::uint32_t high = low;
    for (const Released &r : released_) {
      low = std::min(low, r.host);
      high = std::max(high, r.host);
    }
    for (std::uint32_t host : {low, high}) {
      ready_.clear();
      for (const Released &r : released_) {
        if (r.host == host) {
          ready_.push_back(r.op);
        }
      }
      admit(host, ready_, false);
      if (low == high) {
        break;
      }
    }
    released_.clear();
  }

  void start_up() {
    queue_.reserve(static_cast<std::size_t>(hosts_) * 4U);
    for (std::uint32_t h = 0; h < hosts_; ++h) {
      ready_.clear();
      for (OpId id = schedule_.rank_begin(h); id < schedule_.rank_begin(h + 1); ++id) {
        if (ops_[id].dependency_count == 0) {
          ready_.push_back(id);
        }
      }
      admit(h, ready_, true);
    }
  }

  // ---- processing one queue entry (anchor §4, "Processing") ----------------------------
  // Returns false, with the time the needed resources are free, when the entry is blocked.
  bool try_execute(const Event &e, SimTime &free_at) {
    const SimTime t = e.time;
    if (e.kind() == EntryKind::Message) {
      return deliver(e, free_at);
    }
    const OpId id = e.op;
    const GoalOp &op = ops_[id];
    const std::uint32_t h = e.host();
    SimTime &cpu = nexto_[static_cast<std::size_t>(h) * cpus_ + op.cpu];
    switch (op.kind) {
    case OpKind::Calc:
      if (cpu > t) {
        free_at = cpu;
        return false;
      }
      cpu = t + op.size;
      started(id, h);
      done(id, h);
      return true;
    case OpKind::Send: {
      SimTime &nic = nextgs_[static_cast<std::size_t>(h) * nics_ + op.nic];
      const SimTime ready = std::max(cpu, nic);
      if (ready > t) {
        free_at = ready;
        return false;
      }
      started(id, h);
      cpu = send_cpu_free(p_, t, op.size);
      nic = send_nic_free(p_, t, op.size);
      queue_.push(Event{message_arrival(p_, t), seq_++, id, Event::pack(EntryKind::Message, h)});
      if (!is_rendezvous(p_, op.size)) {
        done(id, h);
      }
      return true;
    }
    case OpKind::Recv: {
      // A recv never waits for its CPU and charges nothing (anchor §4 quirk 4).
      started(id, h);
      QueueEntry message{};
      if (unexpected_queue_.take_first_match(h, op.peer, op.tag, message)) {
        // Rendezvous decided by the recv's own size when the message came first (quirk 3);
        // the sender's CPU/NIC indices are the recv's.
        if (is_rendezvous(p_, op.size)) {
          const std::uint32_t sender = message.aux;
          done(message.op, sender);
          raise(nexto_[static_cast<std::size_t>(sender) * cpus_ + op.cpu], t);
          raise(nextgs_[static_cast<std::size_t>(sender) * nics_ + op.nic], t);
        }
        done(id, h);
      } else {
        receive_queue_.append(h, QueueEntry{op.peer, op.tag, id, 0});
      }
      return true;
    }
    }
    return true;
  }

  static void raise(SimTime &slot, SimTime t) noexcept { slot = std::max(slot, t); }

  // A message arriving at the receiver (MSG). It uses the *sender's* cpu/nic numbers on the
  // receiving host (quirk 2) and charges the receiver's CPU whether or not a recv is posted.
  bool deliver(const Event &e, SimTime &free_at) {
    const SimTime t = e.time;
    const OpId send_id = e.op;
    const GoalOp &send = ops_[send_id];
    const std::uint32_t sender = e.host();
    const std::uint32_t h = send.peer;
    SimTime &cpu = nexto_[static_cast<std::size_t>(h) * cpus_ + send.cpu];
    SimTime &nic = nextgr_[static_cast<std::size_t>(h) * nics_ + send.nic];
    const SimTime ready = std::max(cpu, nic);
    if (ready > t) {
      free_at = ready;
      return false;
    }
    cpu = receive_cpu_free(p_, t, send.size);
    nic = receive_nic_free(p_, t, send.size);
    QueueEntry recv{};
    if (receive_queue_.take_first_match(h, sender, send.tag, recv)) {
      // Recv posted first: rendezvous decided by the message size (quirk 3).
      if (is_rendezvous(p_, send.size)) {
        done(send_id, sender);
        raise(nexto_[static_cast<std::size_t>(sender) * cpus_ + send.cpu], t);
        raise(nextgs_[static_cast<std::size_t>(sender) * nics_ + send.nic], t);
      }
      done(recv.op, h);
    } else {
      unexpected_queue_.append(h, QueueEntry{sender, send.tag, send_id, sender});
    }
    return true;
  }

  // ---- blocked entries (blocked_groups.hpp) ---------------------------------------------
  void blocked_key(const Event &e, std::uint32_t &host, std::uint32_t &sig) const {
    const GoalOp &op = ops_[e.op];
    if (e.kind() == EntryKind::Message) {
      host = op.peer;
      sig = signature(Waits::CpuAndReceiveNic, op.cpu, op.nic);
    } else {
      host = e.host();
      sig = op.kind == OpKind::Calc ? signature(Waits::Cpu, op.cpu, 0)
                                    : signature(Waits::CpuAndSendNic, op.cpu, op.nic);
    }
  }

  void join(std::uint32_t id, const BlockedMember &m) {
    BlockedGroup &g = groups_[id];
    const bool new_first = g.members.empty() || m.seq < g.first().seq;
    g.push(m);
    if (new_first) { // the group's queue entry must carry its smallest seq
      g.proxy_seq = m.seq;
      queue_.push(Event{g.time, m.seq, id, Event::pack(EntryKind::Group, 0)});
    }
  }

  void block(const Event &e, SimTime free_at) {
    std::uint32_t host = 0;
    std::uint32_t sig = 0;
    blocked_key(e, host, sig);
    std::uint32_t id = groups_.find(host, sig, free_at);
    if (id == BlockedGroups::kNone) {
      id = groups_.create(host, sig, free_at);
    }
    ++blocked_checks_;
    join(id, BlockedMember{e.seq, e.op, e.info});
  }

  void run_group(const Event &proxy) {
    const std::uint32_t id = proxy.op;
    {
      const BlockedGroup &g = groups_[id];
      if (!g.live || g.time != proxy.time || g.proxy_seq != proxy.seq) {
        return; // superseded by a newer entry for the same group
      }
    }
    const SimTime t = proxy.time;
    for (;;) {
      BlockedGroup &g = groups_[id];
      const BlockedMember m = g.first();
      const Event e{t, m.seq, m.op, m.info};
      SimTime free_at = 0;
      if (try_execute(e, free_at)) {
        g.pop();
        admit_released();
        BlockedGroup &after = groups_[id];
        if (after.members.empty()) {
          groups_.release(id);
          return;
        }
        const std::uint64_t next = after.first().seq;
        if (queue_.empty() || earlier(t, next, queue_.top())) {
          ++pops_; // LogGOPSim would pop this member now
          continue;
        }
        after.proxy_seq = next;
        queue_.push(Event{t, next, id, Event::pack(EntryKind::Group, 0)});
        return;
      }
      move_blocked(id, free_at);
      return;
    }
  }

  // The first member of group `id` (queue time t) is blocked until free_at. It and every member
  // that would be popped before any other queue entry move to free_at.
  void move_blocked(std::uint32_t id, SimTime free_at) {
    BlockedGroup &g = groups_[id];
    const SimTime t = g.time;
    std::uint64_t limit = 0; // members with seq < limit move (besides the first)
    if (queue_.empty() || queue_.top().time > t) {
      limit = ~std::uint64_t{0};
    } else if (queue_.top().time == t) {
      limit = queue_.top().seq;
    }
    const std::uint32_t dest = groups_.find(g.host, g.signature, free_at);
    if (dest == BlockedGroups::kNone && g.max_seq < limit) {
      // Everyone moves and nobody waits at free_at yet: relabel the group.
      blocked_checks_ += g.members.size();
      g.time = free_at;
      g.proxy_seq = g.first().seq;
      queue_.push(Event{free_at, g.proxy_seq, id, Event::pack(EntryKind::Group, 0)});
      return;
    }
    std::uint32_t target = dest;
    if (target == BlockedGroups::kNone) {
      target = groups_.create(g.host, g.signature, free_at); // may reallocate the groups
    }
    BlockedGroup &source = groups_[id];
    bool first = true;
    while (!source.members.empty() && (first || source.first().seq < limit)) {
      first = false;
      ++blocked_checks_;
      join(target, source.pop());
    }
    if (source.members.empty()) {
      groups_.release(id);
      return;
    }
    source.proxy_seq = source.first().seq;
    queue_.push(Event{t, source.proxy_seq, id, Event::pack(EntryKind::Group, 0)});
  }

  // ---- the result ------------------------------------------------------------------------
  SimulationResult collect() {
    SimulationResult r;
    r.end_times.assign(hosts_, 0);
    for (std::uint32_t h = 0; h < hosts_; ++h) {
      const auto *cpu = nexto_.data() + static_cast<std::size_t>(h) * cpus_;
      r.end_times[h] = *std::max_element(cpu, cpu + cpus_);
      if (r.end_times[h] > r.max_end_time) {
        r.max_end_time = r.end_times[h];
        r.max_host = h;
      }
    }
    r.events = seq_;
    r.queue_pops = pops_;
    r.blocked_checks = blocked_checks_;
    r.ops_completed = completed_;
    r.receive_queue_left = receive_queue_.total();
    r.unexpected_queue_left = unexpected_queue_.total();

    // Eager sends whose message nobody received are "done" for LogGOPSim but still unfinished.
    std::vector<OpId> lost_messages;
    unexpected_queue_.for_each(
        [&lost_messages](std::uint32_t, const QueueEntry &e) { lost_messages.push_back(e.op); });
    std::sort(lost_messages.begin(), lost_messages.end());
    std::size_t lost = 0;
    for (OpId id = 0; id < schedule_.num_ops(); ++id) {
      UnfinishedOp u;
      u.op = id;
      bool stuck = true;
      while (lost < lost_messages.size() && lost_messages[lost] < id) {
        ++lost;
      }
      const bool message_left = lost < lost_messages.size() && lost_messages[lost] == id;
      if (message_left) {
        u.reason = UnfinishedReason::MessageNotReceived;
      } else if (state_[id] == kDone) {
        stuck = false;
      } else if (state_[id] == kWaiting) {
        u.reason = UnfinishedReason::NeverReady;
        u.waiting_for = remaining_[id];
      } else if (ops_[id].kind == OpKind::Recv) {
        u.reason = UnfinishedReason::ReceiveNotMatched;
      } else {
        u.reason = UnfinishedReason::RendezvousNotMatched;
      }
      if (!stuck) {
        continue;
      }
      ++r.unfinished_count;
      if (r.unfinished.size() < SimulationResult::kMaxReported) {
        u.rank = schedule_.rank_of(id);
        r.unfinished.push_back(u);
      }
    }
    r.complete =
        r.unfinished_count == 0 && r.receive_queue_left == 0 && r.unexpected_queue_left == 0;
    return r;
  }

  const GoalSchedule &schedule_;
  const GoalOp *ops_;
  const OpId *deps_;
  LogGPParameters p_;
  ReadyOrder order_;
  std::function<bool(std::uint64_t)> progress_;
  std::uint32_t hosts_;
  std::size_t cpus_;
  std::size_t nics_;

  std::vector<std::uint32_t> remaining_; // unsatisfied dependencies per op
  std::vector<std::uint8_t> state_;      // OpState per op
  std::vector<SimTime> nexto_;           // [host][cpu] CPU free time
  std::vector<SimTime> nextgs_;          // [host][nic] send gap free time
  std::vector<SimTime> nextgr_;          // [host][nic] receive gap free time
  EventQueue queue_;
  MatchQueues receive_queue_;
  MatchQueues unexpected_queue_;
  BlockedGroups groups_;

  std::vector<Released> released_; // ops released by the current event, in release order
  std::vector<OpId> ready_;        // one host's ready list
  std::vector<OpId> sorted_;       // scratch of the counting sort
  std::uint64_t seq_ = 0;          // LogGOPSim's aqtime: the next queue sequence number
  std::uint64_t pops_ = 0;
  std::uint64_t blocked_checks_ = 0;
  std::uint64_t completed_ = 0;
};

const char *reason_text(UnfinishedReason reason) {
  switch (reason) {
  case UnfinishedReason::NeverReady:
    return "never became ready";
  case UnfinishedReason::ReceiveNotMatched:
    return "posted, but no message matched it";
  case UnfinishedReason::MessageNotReceived:
    return "its message arrived but no recv matched it";
  case UnfinishedReason::RendezvousNotMatched:
    return "rendezvous send never matched by a recv";
  }
  return "unfinished";
}

std::string describe_op(const GoalOp &op) {
  const auto peer = [](std::uint32_t p) {
    return p == kAnySource ? std::string("-1") : std::to_string(p);
  };
  const std::string tag = op.tag == kAnyTag ? "-1" : std::to_string(op.tag);
  switch (op.kind) {
  case OpKind::Send:
    return "send " + std::to_string(op.size) + "b to " + peer(op.peer) + " tag " + tag;
  case OpKind::Recv:
    return "recv " + std::to_string(op.size) + "b from " + peer(op.peer) + " tag " + tag;
  case OpKind::Calc:
    return "calc " + std::to_string(op.size);
  }
  return "op";
}

} // namespace

SimulationResult simulate(const GoalSchedule &schedule, const SimulationOptions &options) {
  if (schedule.num_ranks() == 0) {
    throw Error(ErrorKind::Usage, "cannot simulate an empty schedule (no ranks)");
  }
  if (schedule.num_ranks() > Event::kHostMask) {
    throw Error(ErrorKind::Usage,
                "the simulator supports at most " + std::to_string(Event::kHostMask) + " ranks");
  }
  Engine engine(schedule, options);
  return engine.run();
}

std::string describe_unfinished(const GoalSchedule &schedule, const SimulationResult &result) {
  if (result.complete) {
    return "all operations completed";
  }
  std::string text = std::to_string(result.unfinished_count) + " of " +
                     std::to_string(schedule.num_ops()) + " operations did not complete (" +
                     std::to_string(result.receive_queue_left) + " recvs left posted, " +
                     std::to_string(result.unexpected_queue_left) + " messages left unreceived)";
  const std::size_t shown = std::min<std::size_t>(result.unfinished.size(), 8);
  for (std::size_t i = 0; i < shown; ++i) {
    const UnfinishedOp &u = result.unfinished[i];
    const OpId offset = u.op - schedule.rank_begin(u.rank);
    text += "; rank " + std::to_string(u.rank) + " op #" + std::to_string(offset) + " (" +
            describe_op(schedule.op(u.op)) + "): " + reason_text(u.reason);
    if (u.reason == UnfinishedReason::NeverReady) {
      text += " (" + std::to_string(u.waiting_for) + " dependencies unsatisfied)";
    }
  }
  if (result.unfinished_count > shown) {
    text += "; ...";
  }
  return text;
}

} // namespace parjava::loggp
