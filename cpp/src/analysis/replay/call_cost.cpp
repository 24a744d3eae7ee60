// uncontended_call_seconds(): each distinct call run alone by the interpreter's engine.
#include "call_cost.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "parjava/error.hpp"

namespace parjava::analysis {

namespace {

using interp::kNoSequenceRef;
using interp::SequenceCall;
using interp::SequenceProgram;
using interp::StepKind;
using model::Operation;

bool blocking_send(Operation op) {
  return op == Operation::Send || op == Operation::Bsend || op == Operation::Ssend ||
         op == Operation::Rsend;
}

// A program of its own for one call: the same processes, communicators and function names as
// the replay, no steps yet. Calls carry no call site (the small program has none).
class CostProgram {
public:
  // Long enough for any partner's part to be done, short enough to keep nanoseconds exact in
  // a double (1e12 ns against 53 bits).
  static constexpr double kLate = 1000.0;

  explicit CostProgram(const SequenceProgram &sp) : sp_(sp) {
    p_.name = sp.name + " (one call alone)";
    p_.processes = sp.processes;
    p_.communicators = sp.communicators;
    p_.functions = sp.functions;
  }

  // World rank of communicator rank `k` of slot `comm` as seen from world rank `self`; -1
  // when there is none.
  [[nodiscard]] std::int32_t world(std::uint32_t comm, std::int32_t k, std::int32_t self) const {
    if (comm == 0) {
      return k >= 0 && k < sp_.processes ? k : -1;
    }
    if (comm == 1) {
      return k == 0 ? self : -1;
    }
    const auto &m = sp_.communicators[comm - 2].members;
    return k >= 0 && static_cast<std::size_t>(k) < m.size() ? m[static_cast<std::size_t>(k)] : -1;
  }
  // Communicator rank of world rank `w` in slot `comm`; -1 when not a member.
  [[nodiscard]] std::int32_t local(std::uint32_t comm, std::int32_t w) const {
    if (comm <= 1) {
      return comm == 0 ? w : 0;
    }
    const auto &m = sp_.communicators[comm - 2].members;
    const auto it = std::find(m.begin(), m.end(), w);
    return it == m.end() ? -1 : static_cast<std::int32_t>(it - m.begin());
  }

  // Steps: per world rank at most one call.
  void clear() {
    p_.calls.clear();
    per_rank_.assign(static_cast<std::size_t>(sp_.processes), kNoSequenceRef);
  }
  void give(std::int32_t rank, SequenceCall c) {
    c.callsite = kNoSequenceRef;
    c.group = 0;
    per_rank_[static_cast<std::size_t>(rank)] = static_cast<std::uint32_t>(p_.calls.size());
    p_.calls.push_back(c);
  }
  // Seconds rank `late`'s call takes in the program built so far when it starts kLate after
  // every other rank's: what the engine charges it at the least, its partners long there.
  double run(std::int32_t late, const machine::Machine &machine,
             const interp::InterpretOptions &o) {
    p_.offsets.assign(1, 0);
    p_.kind.clear();
    p_.ref.clear();
    p_.seconds.clear();
    for (std::size_t r = 0; r < per_rank_.size(); ++r) {
      if (per_rank_[r] != kNoSequenceRef) {
        if (static_cast<std::int32_t>(r) == late) {
          p_.add(StepKind::Compute, kNoSequenceRef, kLate);
        }
        p_.add(StepKind::Call, per_rank_[r], 0.0);
      }
      p_.end_rank();
    }
    return interp::interpret_sequences(p_, machine, o).end_times[static_cast<std::size_t>(late)] -
           kLate;
  }

private:
  const SequenceProgram &sp_;
  SequenceProgram p_;
  std::vector<std::uint32_t> per_rank_;
};

// Sets up `cp` for `c` made by world rank `r`; false when the call has no network time of its
// own here (non-blocking, local, a message to itself, a partner outside the run).
bool set_up(CostProgram &cp, const SequenceCall &c, std::int32_t r) {
  cp.clear();
  if (c.local) {
    return false;
  }
  if (c.op == Operation::Barrier || model::is_collective(c.op)) {
    if (c.comm == 1) {
      cp.give(r, c);
      return true;
    }
    for (std::int32_t w = 0;; ++w) {
      const std::int32_t member = cp.world(c.comm, w, r);
      if (member < 0) {
        break;
      }
      cp.give(member, c);
    }
    return true;
  }
  const std::int32_t me = cp.local(c.comm, r);
  const std::int32_t dest = cp.world(c.comm, c.peer, r);
  if (me < 0 || dest < 0 || dest == r) {
    return false;
  }
  SequenceCall partner = c;
  if (blocking_send(c.op)) {
    partner.op = Operation::Recv;
    partner.peer = me;
    cp.give(r, c);
    cp.give(dest, partner);
    return true;
  }
  if (c.op == Operation::Recv) {
    partner.op = Operation::Send;
    partner.peer = me;
    cp.give(r, c);
    cp.give(dest, partner);
    return true;
  }
  if (c.op != Operation::Sendrecv) {
    return false; // Isend, Irecv, Waitall...: no transfer of their own while they run
  }
  const std::int32_t source = cp.world(c.comm, c.source, r);
  if (source < 0 || source == r) {
    return false;
  }
  cp.give(r, c);
  if (source == dest) {
    // The partner's Sendrecv mirrors this one.
    partner.peer = me;
    partner.source = me;
    partner.tag = c.recv_tag;
    partner.recv_tag = c.tag;
    partner.bytes = c.recv_bytes;
    partner.recv_bytes = c.bytes;
    cp.give(dest, partner);
    return true;
  }
  partner.op = Operation::Recv;
  partner.peer = me;
  cp.give(dest, partner);
  SequenceCall sender = c;
  sender.op = Operation::Send;
  sender.peer = me;
  sender.tag = c.recv_tag;
  sender.bytes = c.recv_bytes;
  cp.give(source, sender);
  return true;
}

} // namespace

CallCosts uncontended_call_seconds(const SequenceProgram &program,
                                   const std::vector<CallOnRank> &calls,
                                   const machine::Machine &machine,
                                   const interp::InterpretOptions &options) {
  CallCosts out;
  out.seconds.assign(calls.size(), 0.0);
  if (calls.empty()) {
    return out;
  }
  interp::InterpretOptions o = options;
  o.record_trace = false;
  o.max_events = 0;
  o.progress = nullptr;
  CostProgram cp(program);
  // One run per distinct (call, rank). Calls that differ only in tag, call site, request group
  // or function name cost the same.
  using Key = std::tuple<Operation, std::uint32_t, std::int32_t, std::int32_t, std::uint64_t,
                         std::uint64_t, std::int32_t>;
  std::map<std::pair<Key, std::int32_t>, double> runs;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const SequenceCall &c = program.calls[calls[i].call];
    const std::int32_t r = calls[i].rank;
    const bool collective = !c.local && (c.op == Operation::Barrier || model::is_collective(c.op));
    const auto key =
        std::make_pair(Key{c.op, c.comm, collective ? 0 : c.peer, collective ? 0 : c.source,
                           c.bytes, c.recv_bytes, collective ? c.root : 0},
                       r);
    auto it = runs.find(key);
    if (it == runs.end()) {
      double s = 0.0;
      try {
        s = set_up(cp, c, r) ? std::max(0.0, cp.run(r, machine, o)) : 0.0;
      } catch (const Error &) {
        ++out.failed; // deadlocks or is inconsistent alone: its recorded minimum stays whole
      }
      it = runs.emplace(key, s).first;
    }
    out.seconds[i] = it->second;
  }
  return out;
}

} // namespace parjava::analysis
