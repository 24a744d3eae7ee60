// The LogGP engine: LogGOPSim's event semantics (anchor §4) on compact data structures.
// Every rule below cites the anchor; the cost formulas are in loggp_rules.hpp.
#include "parjava/loggp/simulator.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <ctime>
#include <span>
#include <string>

#include "blocked_groups.hpp"
#include "dependency_counters.hpp"
#include "event_queue.hpp"
#include "match_queue.hpp"
#include "parjava/error.hpp"

namespace parjava::loggp {

namespace {

// Resource sets a blocked entry can wait for (see blocked_groups.hpp).
enum class Waits : std::uint32_t { Cpu = 1, CpuAndSendNic = 2, CpuAndReceiveNic = 3 };

std::uint32_t signature(Waits waits, std::uint8_t cpu, std::uint8_t nic) noexcept {
  return (static_cast<std::uint32_t>(waits) << 16U) | (static_cast<std::uint32_t>(cpu) << 8U) | nic;
}

struct Released {
  std::uint32_t host;
  OpId op;
};

// Counters: the per-op counts of unsatisfied dependencies (dependency_counters.hpp).
template <class Counters> class Engine {
public:
  Engine(const GoalSchedule &schedule, const SimulationOptions &options)
      : schedule_(schedule), ops_(schedule.ops().data()), shapes_(schedule.shapes().data()),
        deps_(schedule.dependents().data()), p_(options.parameters), order_(options.order),
        progress_(options.progress), hosts_(schedule.num_ranks()), cpus_(schedule.num_cpus()),
        nics_(schedule.num_nics()), stride_(cpus_ + 2U * nics_), remaining_(schedule.num_ops()),
        queues_(hosts_, stride_ * sizeof(SimTime), ops_, shapes_), groups_(hosts_) {
    for (OpId i = 0; i < schedule.num_ops(); ++i) {
      const std::uint32_t d = ops_[i].dependencies();
      remaining_.set(i, d == OpRecord::kManyDependencies ? schedule.dependency_count(i) : d);
      ready_at_start_ += d == 0 ? 1U : 0U;
    }
  }

  SimulationResult run() {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = thread_cpu_seconds();
    start_up();
    while (!queue_.empty()) {
      prefetch_upcoming();
      step(queue_.pop());
    }
    const auto stop = std::chrono::steady_clock::now();
    const double cpu_stop = thread_cpu_seconds();
    SimulationResult result = collect();
    result.seconds = std::chrono::duration<double>(stop - start).count();
    result.cpu_seconds = cpu_stop - cpu_start;
    return result;
  }

private:
  static constexpr std::uint64_t kReportEvery = std::uint64_t{1} << 20U;

  // One queue entry (anchor §4, "Processing"). The per-event path (step, try_execute, deliver,
  // started, done, release, admit, and the queues' common cases) is forced inline: as calls,
  // their register saves and restores were about 27 % of a ring's instructions (callgrind,
  // issue 18); the rare paths stay out of line so the loop stays small.
  [[gnu::always_inline]] void step(const Event &e) {
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
    if (pops_ >= next_report_) [[unlikely]] {
      next_report_ += kReportEvery;
      if (progress_ && !progress_(pops_)) {
        throw Error(ErrorKind::Usage,
                    "simulation interrupted after " + std::to_string(pops_) + " queue entries");
      }
    }
  }

  // CPU time of this thread: on a shared machine the wall-clock time of a run says more
  // about the other processes than about the engine.
  static double thread_cpu_seconds() noexcept {
    timespec ts{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
      return 0.0;
    }
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
  static constexpr std::size_t kPrefetchFar = 12;
  static constexpr std::size_t kPrefetchNear = 5;
  static constexpr std::size_t kPrefetchNext = 2;

  // Lockstep patterns keep thousands of events at the same time, sorted: start loading the
  // memory of the events a few places ahead (op record, then the host's clocks and queue), so
  // their cache misses overlap with the work on the current one.
  [[gnu::always_inline]] void prefetch_upcoming() noexcept {
    if (!queue_.lists_active()) {
      return; // a single event queued, or earlier ones: nothing known ahead
    }
    if (const EventQueue::Entry *far = queue_.peek_ahead(kPrefetchFar); far != nullptr) {
      if (far->kind() != EntryKind::Group) {
        __builtin_prefetch(ops_ + far->op);
      } else {
        __builtin_prefetch(&groups_[far->op]);
      }
    }
    const EventQueue::Entry *near = queue_.peek_ahead(kPrefetchNear);
    if (near != nullptr) {
      if (near->kind() == EntryKind::Group) {
        prefetch_group_members(near->op);
      } else {
        const OpRecord &op = ops_[near->op];
        if (near->kind() == EntryKind::Message) {
          queues_.prefetch(op.peer);
        } else {
          queues_.prefetch(near->info & Event::kHostMask);
          __builtin_prefetch(&shapes_[op.shape]);
        }
      }
    }
    // Blocked groups: the group record, then its member heap and host record, then the op record
    // of its first member, each loaded by the stage before (a tree's second and later sends of
    // a host run long after the host was last touched; perf on the binomial broadcast at 2^20
    // ranks put ~20 % of the samples on the heap's and the op record's misses in run_group).
    // Those re-queued with an older seq wait in the late list, merged with the one above when
    // served.
    if (const EventQueue::Entry *late = queue_.peek_late(kPrefetchFar);
        late != nullptr && late->kind() == EntryKind::Group) {
      __builtin_prefetch(&groups_[late->op]);
    }
    if (const EventQueue::Entry *late = queue_.peek_late(kPrefetchNear);
        late != nullptr && late->kind() == EntryKind::Group) {
      prefetch_group_members(late->op);
    }
    if (const EventQueue::Entry *late = queue_.peek_late(kPrefetchNext);
        late != nullptr && late->kind() == EntryKind::Group) {
      prefetch_first_member(late->op);
    }
    // A message that will match a posted recv completes that recv, whose op id is known only
    // from the receiver's record: by now (loaded by the stage above) it can be read, and the
    // recv's record fetched before the message is processed.
    const EventQueue::Entry *next = queue_.peek_ahead(kPrefetchNext);
    if (next != nullptr && next->kind() == EntryKind::Group) {
      prefetch_first_member(next->op);
    } else if (next != nullptr && next->kind() == EntryKind::Message) {
      const std::uint32_t host = ops_[next->op].peer;
      const std::uint32_t recv = queues_.single_op(MatchQueue::Receive, host);
      if (recv != MatchQueues::kNone) {
        __builtin_prefetch(ops_ + recv);
      } else if (const void *scan = queues_.scan_start(MatchQueue::Receive, host);
                 scan != nullptr) {
        __builtin_prefetch(scan); // several posted recvs: the scan starts there
      }
    }
  }

  [[gnu::always_inline]] void prefetch_group_members(std::uint32_t id) const noexcept {
    const BlockedGroup &g = groups_[id];
    __builtin_prefetch(g.members.data());
    queues_.prefetch(g.host);
    groups_.prefetch_host(g.host); // release() and move_blocked() search the host's groups
  }
  [[gnu::always_inline]] void prefetch_first_member(std::uint32_t id) const noexcept {
    const BlockedGroup &g = groups_[id];
    if (!g.members.empty()) {
      __builtin_prefetch(ops_ + g.first().op);
    }
  }

  // ---- releasing dependents (anchor §4, "Releasing dependents") -------------------------
  // A dependent with a single incoming edge is released by the first decrement of its counter
  // (from 1 to 0): its counter is written, not read, and the dependent's own record, which
  // admitting it reads next, is the only load. Every op starts once and every op but an eager
  // send matched by a rendezvous recv (done_again) completes once, so that first decrement is
  // the only one; the counters hold exactly the values LogGOPSim's would.
  [[gnu::always_inline]] void release(OpId d, std::uint32_t host) {
    if (ops_[d].dependencies() == 1) {
      remaining_.set(d, 0);
      push_released(host, d);
    } else if (remaining_.decrement(d)) {
      push_released(host, d);
    }
  }

  // How many of op's explicit dependents are requires ones (goal_schedule.hpp).
  [[nodiscard]] std::uint32_t split(const OpRecord &o, OpId op) const noexcept {
    const std::uint32_t s = o.split();
    return s == OpRecord::kManySplit ? schedule_.split(op) : s;
  }

  // Implied dependents first, then the listed ones: the schedule's release order.
  [[gnu::always_inline]] void started(OpId op, std::uint32_t host) {
    const OpRecord &o = ops_[op];
    if (const std::uint32_t at = o.irequires_at(); at != 0) {
      release(op + at, host);
    }
    const std::uint32_t end = ops_[op + 1].edges;
    if (o.edges != end) {
      for (std::uint32_t i = o.edges + split(o, op); i < end; ++i) {
        release(deps_[i], host);
      }
    }
  }

  [[gnu::always_inline]] void done(OpId op, std::uint32_t host) {
    const OpRecord &o = ops_[op];
    if (const std::uint32_t at = o.requires_at(); at != 0) {
      const OpId first = op + at;
      const std::uint32_t run = o.requires_run();
      for (std::uint32_t k = 0; k < run; ++k) {
        release(first + k, host);
      }
    }
    if (o.split() != 0) {
      const std::uint32_t end = o.edges + split(o, op);
      for (std::uint32_t i = o.edges; i < end; ++i) {
        release(deps_[i], host);
      }
    }
  }

  // A second done() of the same op (an eager send whose message a rendezvous-sized recv took
  // from the unexpected queue, anchor §4 quirk 3) decrements the dependents again, as LogGOPSim
  // does; their counters, already 0, wrap and never reach 0 again.
  void done_again(OpId op, std::uint32_t host) {
    schedule_.for_each_requires(op, [this, host](OpId d) {
      if (remaining_.decrement(d)) {
        push_released(host, d);
      }
    });
  }

  // ---- admitting ready ops (anchor §4, "Admitting ready ops") ---------------------------
  void order_ready(std::vector<OpId> &ready) {
    const std::size_t n = ready.size();
    if (n < 2) {
      return;
    }
    const OpRecord *ops = ops_;
    const OpShape *shapes = shapes_;
    const auto kind = [ops, shapes](OpId id) { return shapes[ops[id].shape].kind; };
    const auto by_kind = [kind](OpId a, OpId b) { return kind(a) < kind(b); };
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
      ++start[static_cast<std::size_t>(kind(id))];
    }
    std::size_t sum = 0;
    for (std::size_t &s : start) {
      const std::size_t c = s;
      s = sum;
      sum += c;
    }
    sorted_.resize(n);
    for (const OpId id : ready) {
      sorted_[start[static_cast<std::size_t>(kind(id))]++] = id;
    }
    ready.swap(sorted_);
  }

  void admit(std::uint32_t host, std::vector<OpId> &ready) {
    order_ready(ready);
    for (const OpId id : ready) {
      admit_one(host, id);
    }
  }

  [[gnu::always_inline]] void admit_one(std::uint32_t host, OpId id) {
    const OpShape &op = shapes_[ops_[id].shape];
    SimTime time = cpu_free(host, op.cpu);
    if (op.kind == OpKind::Send) {
      time = std::max(time, send_gap_free(host, op.nic));
    }
    queue_.push(Event{time, seq_++, id, Event::pack(EntryKind::Operation, host)});
  }

  // After each event, the hosts that released ops admit them in ascending host order, each in
  // release order before the kind sort. An event touches at most two hosts.
  [[gnu::always_inline]] void admit_released() {
    if (n_released_ == 0) {
      return;
    }
    if (n_released_ == 1) { // the common case: nothing to sort or split by host
      n_released_ = 0;
      admit_one(released_[0].host, released_[0].op);
      return;
    }
    admit_several();
  }

  [[gnu::noinline]] void admit_several() {
    const std::span<const Released> released(released_.data(), n_released_);
    std::uint32_t low = released.front().host;
    std::uint32_t high = low;
    for (const Released &r : released) {
      low = std::min(low, r.host);
      high = std::max(high, r.host);
    }
    for (std::uint32_t host : {low, high}) {
      ready_.clear();
      for (const Released &r : released) {
        if (r.host == host) {
          ready_.push_back(r.op);
        }
      }
      admit(host, ready_);
      if (low == high) {
        break;
      }
    }
    n_released_ = 0;
  }

  // released_ is a buffer that only grows, so the common push is a store and an increment.
  [[gnu::always_inline]] void push_released(std::uint32_t host, OpId d) {
    if (n_released_ == released_.size()) [[unlikely]] {
      released_.resize(2U * released_.size() + 16U);
    }
    released_[n_released_++] = Released{host, d};
  }

  // Every op without dependencies is ready at time 0 and LogGOPSim queues them all, host by
  // host, before its loop starts: they get seqs 0..n-1, and every later entry a larger seq at a
  // time >= 0, so they are the first n entries served, in that order. They are therefore run
  // straight from the schedule, host by host, instead of through the queue -- a dissemination
  // at 2^20 ranks would otherwise queue 21 million of them at once (issue 18).
  void start_up() {
    seq_ = ready_at_start_; // the seqs the queue would have given them
    std::uint64_t seq = 0;
    for (std::uint32_t h = 0; h < hosts_; ++h) {
      const OpId begin = schedule_.rank_begin(h);
      const OpId end = schedule_.rank_begin(h + 1);
      // Most ranks of a tree, ring or lockstep pattern start with one ready op: run it without
      // the ready list and its sort.
      OpId only = begin;
      while (only < end && ops_[only].dependencies() != 0) {
        ++only;
      }
      OpId second = only + 1;
      while (second < end && ops_[second].dependencies() != 0) {
        ++second;
      }
      if (second >= end) {
        if (only < end) {
          step(Event{0, seq++, only, Event::pack(EntryKind::Operation, h)});
        }
        continue;
      }
      startup_.clear();
      for (OpId id = only; id < end; ++id) {
        if (ops_[id].dependencies() == 0) {
          startup_.push_back(id);
        }
      }
      order_ready(startup_);
      for (const OpId id : startup_) {
        step(Event{0, seq++, id, Event::pack(EntryKind::Operation, h)});
      }
    }
  }

  // ---- processing one queue entry (anchor §4, "Processing") ----------------------------
  // Returns false, with the time the needed resources are free, when the entry is blocked.
  [[gnu::always_inline]] bool try_execute(const Event &e, SimTime &free_at) {
    const SimTime t = e.time;
    if (e.kind() == EntryKind::Message) {
      return deliver(e, free_at);
    }
    const OpId id = e.op;
    const OpShape &op = shapes_[ops_[id].shape];
    const std::uint32_t h = e.host();
    SimTime &cpu = cpu_free(h, op.cpu);
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
      SimTime &nic = send_gap_free(h, op.nic);
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
      const std::uint32_t peer = ops_[id].peer;
      if (queues_.take_first_match(MatchQueue::Unexpected, h, peer, op.tag, message)) {
        // Rendezvous decided by the recv's own size when the message came first (quirk 3);
        // the sender's CPU/NIC indices are the recv's.
        if (is_rendezvous(p_, op.size)) {
          const std::uint32_t sender = message.src;
          if (is_rendezvous(p_, shapes_[ops_[message.op].shape].size)) {
            done(message.op, sender);
          } else {
            done_again(message.op, sender); // its eager send completed it already
          }
          raise(cpu_free(sender, op.cpu), t);
          raise(send_gap_free(sender, op.nic), t);
        }
        done(id, h);
      } else {
        queues_.append(MatchQueue::Receive, h, QueueEntry{peer, op.tag, id, 0});
      }
      return true;
    }
    }
    return true;
  }

  // A host's clocks are the prefix of its record in the match queues (match_queue.hpp), so
  // the clocks and the posted recv of the host a message arrives at share a cache line.
  SimTime *clocks(std::uint32_t host) noexcept {
    return reinterpret_cast<SimTime *>( // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
        queues_.prefix(host));
  }
  [[nodiscard]] const SimTime *clocks(std::uint32_t host) const noexcept {
    return reinterpret_cast<const SimTime *>( // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
        queues_.prefix(host));
  }
  SimTime &cpu_free(std::uint32_t host, std::uint8_t cpu) noexcept { return clocks(host)[cpu]; }
  SimTime &send_gap_free(std::uint32_t host, std::uint8_t nic) noexcept {
    return clocks(host)[cpus_ + nic];
  }
  SimTime &receive_gap_free(std::uint32_t host, std::uint8_t nic) noexcept {
    return clocks(host)[cpus_ + nics_ + nic];
  }
  [[nodiscard]] SimTime cpu_free(std::uint32_t host, std::uint8_t cpu) const noexcept {
    return clocks(host)[cpu];
  }
  [[nodiscard]] SimTime send_gap_free(std::uint32_t host, std::uint8_t nic) const noexcept {
    return clocks(host)[cpus_ + nic];
  }
  [[nodiscard]] SimTime receive_gap_free(std::uint32_t host, std::uint8_t nic) const noexcept {
    return clocks(host)[cpus_ + nics_ + nic];
  }

  static void raise(SimTime &slot, SimTime t) noexcept { slot = std::max(slot, t); }

  // A message arriving at the receiver (MSG). It uses the *sender's* cpu/nic numbers on the
  // receiving host (quirk 2) and charges the receiver's CPU whether or not a recv is posted.
  [[gnu::always_inline]] bool deliver(const Event &e, SimTime &free_at) {
    const SimTime t = e.time;
    const OpId send_id = e.op;
    const OpShape &send = shapes_[ops_[send_id].shape];
    const std::uint32_t sender = e.host();
    const std::uint32_t h = ops_[send_id].peer;
    SimTime &cpu = cpu_free(h, send.cpu);
    SimTime &nic = receive_gap_free(h, send.nic);
    const SimTime ready = std::max(cpu, nic);
    if (ready > t) {
      free_at = ready;
      return false;
    }
    cpu = receive_cpu_free(p_, t, send.size);
    nic = receive_nic_free(p_, t, send.size);
    QueueEntry recv{};
    if (queues_.take_first_match(MatchQueue::Receive, h, sender, send.tag, recv)) {
      // Recv posted first: rendezvous decided by the message size (quirk 3).
      if (is_rendezvous(p_, send.size)) {
        done(send_id, sender);
        raise(cpu_free(sender, send.cpu), t);
        raise(send_gap_free(sender, send.nic), t);
      }
      done(recv.op, h);
    } else {
      queues_.append(MatchQueue::Unexpected, h, QueueEntry{sender, send.tag, send_id, sender});
    }
    return true;
  }

  // ---- blocked entries (blocked_groups.hpp) ---------------------------------------------
  void blocked_key(const Event &e, std::uint32_t &host, std::uint32_t &sig) const {
    const OpShape &op = shapes_[ops_[e.op].shape];
    if (e.kind() == EntryKind::Message) {
      host = ops_[e.op].peer;
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

  // Whether no other queue entry at time t can change when the group's resources free up:
  // every resource of its signature is busy beyond t (an op needs all of its resources free to
  // run, and a rendezvous only raises a free time to t), or the only free one is a NIC that is
  // always used together with the busy CPU (hosts with one CPU).
  [[nodiscard]] bool frozen_at(const BlockedGroup &g, SimTime t) const noexcept {
    const auto waits = static_cast<Waits>(g.signature >> 16U);
    const auto cpu = static_cast<std::uint8_t>(g.signature >> 8U);
    const auto nic = static_cast<std::uint8_t>(g.signature);
    if (waits == Waits::Cpu) {
      return true;
    }
    const SimTime nic_free =
        waits == Waits::CpuAndSendNic ? send_gap_free(g.host, nic) : receive_gap_free(g.host, nic);
    if (cpu_free(g.host, cpu) <= t) {
      return false;
    }
    return nic_free > t || cpus_ == 1;
  }

  // The first member of group `id` (queue time t) is blocked until free_at. It and every member
  // that would be popped before anything that can change its resources move to free_at.
  void move_blocked(std::uint32_t id, SimTime free_at) {
    BlockedGroup &g = groups_[id];
    const SimTime t = g.time;
    std::uint64_t limit = 0; // members with seq < limit move (besides the first)
    if (frozen_at(g, t) || queue_.empty() || queue_.top().time > t) {
      limit = ~std::uint64_t{0};
    } else if (queue_.top().time == t) {
      limit = queue_.top().seq;
    }
    const std::uint32_t dest = groups_.find(g.host, g.signature, free_at);
    if (g.max_seq < limit) {
      blocked_checks_ += g.members.size();
      if (dest == BlockedGroups::kNone) { // nobody waits at free_at yet: relabel the group
        g.time = free_at;
        g.proxy_seq = g.first().seq;
        queue_.push(Event{free_at, g.proxy_seq, id, Event::pack(EntryKind::Group, 0)});
        return;
      }
      merge_into(dest, id);
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

  // All members of group `from` join group `into` (same host and signature), moving the
  // smaller member heap into the larger one.
  void merge_into(std::uint32_t into, std::uint32_t from) {
    BlockedGroup &d = groups_[into];
    BlockedGroup &s = groups_[from];
    if (d.members.size() < s.members.size()) {
      d.members.swap(s.members);
      std::swap(d.max_seq, s.max_seq);
    }
    for (const BlockedMember &m : s.members) {
      d.push(m);
    }
    if (d.first().seq != d.proxy_seq) {
      d.proxy_seq = d.first().seq;
      queue_.push(Event{d.time, d.proxy_seq, into, Event::pack(EntryKind::Group, 0)});
    }
    groups_.release(from);
  }

  // ---- the result ------------------------------------------------------------------------
  // The engine's own state at its peak (every part only grows, except the match queues, which
  // report their pool's peak).
  [[nodiscard]] std::uint64_t engine_bytes() const noexcept {
    return remaining_.bytes() + queue_.capacity_bytes() + queues_.memory_bytes() +
           groups_.memory_bytes() + released_.capacity() * sizeof(Released) +
           (ready_.capacity() + sorted_.capacity() + startup_.capacity()) * sizeof(OpId);
  }

  SimulationResult collect() {
    SimulationResult r;
    r.end_times.assign(hosts_, 0);
    for (std::uint32_t h = 0; h < hosts_; ++h) {
      const SimTime *cpu = clocks(h);
      r.end_times[h] = *std::max_element(cpu, cpu + cpus_);
      if (r.end_times[h] > r.max_end_time) {
        r.max_end_time = r.end_times[h];
        r.max_host = h;
      }
    }
    r.events = seq_;
    r.queue_pops = pops_;
    r.blocked_checks = blocked_checks_;
    r.engine_bytes = engine_bytes();
    r.receive_queue_left = queues_.total(MatchQueue::Receive);
    r.unexpected_queue_left = queues_.total(MatchQueue::Unexpected);

    // Without per-op state: an op that never became ready still counts dependencies (a double
    // done, quirk 3, wraps a counter below zero: that op did run); a started op that did not
    // complete is a recv left in a receive queue or a rendezvous send whose message is left in
    // an unexpected queue (every message is delivered before the queue drains). Eager sends
    // whose message is left unreceived are reported too.
    std::vector<std::pair<OpId, UnfinishedReason>> left;
    queues_.for_each(MatchQueue::Receive, [&left](std::uint32_t, const QueueEntry &e) {
      left.emplace_back(e.op, UnfinishedReason::ReceiveNotMatched);
    });
    queues_.for_each(MatchQueue::Unexpected, [&left](std::uint32_t, const QueueEntry &e) {
      left.emplace_back(e.op, UnfinishedReason::MessageNotReceived);
    });
    std::sort(left.begin(), left.end());
    std::size_t next_left = 0;
    for (OpId id = 0; id < schedule_.num_ops(); ++id) {
      UnfinishedOp u;
      u.op = id;
      if (next_left < left.size() && left[next_left].first == id) {
        u.reason = left[next_left].second;
        ++next_left;
      } else if (const std::uint32_t waiting = remaining_.get(id);
                 waiting != 0 && waiting <= schedule_.dependency_count(id)) {
        u.reason = UnfinishedReason::NeverReady;
        u.waiting_for = waiting;
      } else {
        continue;
      }
      ++r.unfinished_count;
      if (r.unfinished.size() < SimulationResult::kMaxReported) {
        u.rank = schedule_.rank_of(id);
        r.unfinished.push_back(u);
      }
    }
    r.ops_completed = schedule_.num_ops() - r.unfinished_count;
    r.complete =
        r.unfinished_count == 0 && r.receive_queue_left == 0 && r.unexpected_queue_left == 0;
    return r;
  }

  const GoalSchedule &schedule_;
  const OpRecord *ops_;
  const OpShape *shapes_;
  const OpId *deps_;
  LogGPParameters p_;
  ReadyOrder order_;
  std::function<bool(std::uint64_t)> progress_;
  std::uint32_t hosts_;
  std::size_t cpus_;
  std::size_t nics_;
  std::size_t stride_; // clocks per host

  Counters remaining_; // unsatisfied dependencies per op
  EventQueue queue_;
  // Host-major records: per host, the CPU free times (nexto), the send-gap free times (nextgs)
  // and the receive-gap free times (nextgr) of its NICs, then its receive and unexpected queues.
  MatchQueues queues_;
  BlockedGroups groups_;

  std::vector<Released> released_;   // ops released by the current event, in release order:
  std::size_t n_released_ = 0;       //   the first n_released_ entries
  std::vector<OpId> ready_;          // one host's ready list
  std::vector<OpId> sorted_;         // scratch of the counting sort
  std::vector<OpId> startup_;        // one host's ops ready at time 0
  std::uint64_t ready_at_start_ = 0; // ops without dependencies (LogGOPSim queues them before
                                     // its loop)
  std::uint64_t seq_ = 0;            // LogGOPSim's aqtime: the next queue sequence number
  std::uint64_t pops_ = 0;
  std::uint64_t next_report_ = kReportEvery;
  std::uint64_t blocked_checks_ = 0;
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

// Half-byte counters from this many ops per rank on (see simulate()).
constexpr std::uint32_t kNibblesFromOpsPerRank = 16;

} // namespace

SimulationResult simulate(const GoalSchedule &schedule, const SimulationOptions &options) {
  if (schedule.num_ranks() == 0) {
    throw Error(ErrorKind::Usage, "cannot simulate an empty schedule (no ranks)");
  }
  if (schedule.num_ranks() > Event::kHostMask) {
    throw Error(ErrorKind::Usage,
                "the simulator supports at most " + std::to_string(Event::kHostMask) + " ranks");
  }
  // The narrowest counters that hold every count (dependency_counters.hpp).
  // Half-byte counters cost a read-modify-write per release; they are worth it where the ops
  // per rank dominate the memory (dissemination and recursive doubling: 40 and 80 per rank).
  const std::uint32_t most = schedule.max_dependency_count();
  const bool many_ops_per_rank =
      schedule.num_ops() >= std::uint64_t{kNibblesFromOpsPerRank} * schedule.num_ranks();
  if (most < NibbleCounters::kLimit && many_ops_per_rank) {
    Engine<NibbleCounters> engine(schedule, options);
    return engine.run();
  }
  if (most < WideCounters<std::uint8_t>::kLimit) {
    Engine<WideCounters<std::uint8_t>> engine(schedule, options);
    return engine.run();
  }
  if (most < WideCounters<std::uint16_t>::kLimit) {
    Engine<WideCounters<std::uint16_t>> engine(schedule, options);
    return engine.run();
  }
  Engine<WideCounters<std::uint32_t>> engine(schedule, options);
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
