// The interpretation engine: a discrete-event simulation of N logical processes x M logical
// threads running a compiled Program (notes 000 §2.6-§2.7, §3; notes 003 §4.2).
//
// Design for scale (a million processes on one machine): every logical thread is a row of
// struct-of-arrays state (clock, program counter, status, a fixed frame of variable slots, a
// fixed return stack), not an object or an OS thread; pending work is one event queue ordered
// by model time; messages and requests live in pools with free lists, so nothing is allocated
// per event once the pools have grown.
//
// Time order: a logical thread runs ahead without touching the queue only while its clock is
// strictly before every queued event; otherwise it re-enters the queue with a fresh sequence
// number. Every communication step therefore happens in model-time order (ties broken by
// creation order as in LogGOPSim), which is what makes ANY_SOURCE matching, lock contention and
// the LogGP resource rules exact.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "count_table.hpp"
#include "event_queue.hpp"
#include "flow_network.hpp"
#include "network_timing.hpp"
#include "program.hpp"
#include "trace_recorder.hpp"

#include "parjava/interp/collective_algorithm.hpp"
#include "parjava/interp/prediction.hpp"
#include "parjava/machine/machine.hpp"

namespace parjava::interp {

inline constexpr std::uint32_t kNone = 0xffffffffU;

enum class Status : std::uint8_t { Runnable, Blocked, Done, Idle };

// Why a blocked thread is blocked (for resumption and for the deadlock report).
// Collective: a direct collective round's messages (Engine::run_direct_collective).
enum class WaitKind : std::uint8_t {
  None,
  Requests,
  AnyRequest,
  Probe,
  Join,
  Lock,
  Notify,
  Collective
};

enum class Protocol : std::uint8_t { Eager, Rendezvous };

// A message between two processes (user or collective traffic).
struct Message {
  std::uint32_t next = kNone;    // unexpected-queue link
  std::int32_t source = 0;       // world rank of the sender
  std::int32_t source_local = 0; // sender's rank in the communicator (MPI_SOURCE)
  std::int32_t dest = 0;         // world rank of the receiver
  std::int32_t tag = 0;
  std::uint32_t context = 0; // communicator id * 2 (+1 for collective traffic)
  std::uint64_t bytes = 0;
  double send_time = 0.0;             // ns: the send started (t_ready of notes 000 §3.9)
  double data_time = 0.0;             // ns: eager data complete at the receiver
  double error = 0.0;                 // sender's error bound at the send
  std::uint32_t send_request = kNone; // completed at the match (rendezvous) or at delivery
  std::uint32_t comm_op = kNone;      // the sending call (names it if never received)
  Protocol protocol = Protocol::Eager;
  bool loggp = false;
  bool intra = true;
  bool ready_mode = false; // MPI_Rsend: the receive must be waiting
  bool live = false;
  // Flow-level sharing (engine_network.cpp): the flow carrying the data while it is in the
  // network, the receive waiting for it, and the latency still to come after its last byte left.
  std::uint32_t flow = kNone;
  std::uint32_t waiting_recv = kNone;
  double tail = 0.0;
  bool matched = false;
};

enum class RequestKind : std::uint8_t { Send, Recv, Probe };

struct Request {
  std::uint32_t next_owned = kNone; // the owner's list of live requests (newest first)
  std::uint32_t prev_owned = kNone;
  std::uint32_t next_posted = kNone; // the process's posted-receive queue
  std::uint32_t ctx = 0;
  std::uint32_t name = 0; // request array name id; 0: internal
  std::int64_t index = 0;
  RequestKind kind = RequestKind::Send;
  bool complete = false;
  bool awaited = false;
  bool collective = false; // part of the current collective of its thread
  bool live = false;
  bool completes_at_delivery = false; // PGAS OUT_MYSYNC: a send ends when its data arrived
  std::int32_t source = 0;            // recv/probe: world rank or kAnySource
  std::int32_t tag = 0;
  std::uint32_t context = 0;
  std::uint64_t max_bytes = 0; // recv: buffer size (0: unlimited)
  double post_time = 0.0;
  double complete_time = 0.0;
  double error = 0.0;
  std::int32_t st_source = 0; // status: source in the communicator
  std::int32_t st_world = 0;  // status: source world rank
  std::int32_t st_tag = 0;
  std::uint64_t st_bytes = 0;
  std::uint32_t comm_op = kNone; // the leaf that created it (status outputs, trace)
  std::uint32_t trace_id = 0;
  std::int32_t peer_world = -1; // send: destination world rank
  std::uint32_t comm_id = 0;    // send: communicator id (trace)
};

struct Communicator {
  std::vector<std::int32_t> members; // local rank -> world rank (empty for world)
  std::uint32_t trace_id = 0;
  std::string name;
};

// Per-thread state of the collective being executed.
struct CollectiveState {
  Collective kind = Collective::Barrier;
  Algorithm algorithm = Algorithm::Linear;
  Algorithm first = Algorithm::Linear;
  Algorithm second = Algorithm::Linear;
  std::uint32_t comm = 0; // communicator id
  std::int32_t root = 0;  // local root
  std::uint64_t bytes = 0;
  std::uint32_t rounds = 0;
  std::uint32_t pre_rounds = 0;  // PGAS IN_ALLSYNC barrier
  std::uint32_t post_rounds = 0; // PGAS OUT_ALLSYNC barrier
  Protocol forced = Protocol::Eager;
  bool force_protocol = false;
  bool deliver_sync = false; // PGAS OUT_MYSYNC
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  Round current;         // the round in progress (computed once per round)
  std::uint32_t seq = 0; // this collective's number on its communicator (message tags)
  // Its messages are all eager on a delay network: they go without request and message
  // records (Engine::run_direct_collective).
  bool direct = false;
  std::uint32_t round_base = 0xffffffffU; // direct: its rounds in Engine::round_table_, if there
  bool outstanding = false;               // direct: something was posted since the last wait
  double posted_done = 0.0; // direct: the latest completion of what was posted since then
};

// A direct collective message: in flight until its envelope event, then in its receiver's
// mailbox until a receive takes it (engine_direct_collectives.cpp).
struct DirectMessage {
  std::uint32_t next = 0xffffffffU; // mailbox link
  std::uint32_t comm = 0;
  std::uint32_t seq = 0;
  std::int32_t source = 0; // world ranks
  std::int32_t dest = 0;
  double data = 0.0; // ns: its data complete at the receiver
};

// A receive of a direct collective's round, from `source`: complete at `done` once matched.
struct DirectRecv {
  std::int32_t source = 0;
  bool matched = false;
  double done = 0.0;
};

// Event::aux of the envelope of a direct collective message (other envelopes have 0).
inline constexpr std::uint32_t kDirectEnvelope = 1;

struct ReturnEntry {
  std::uint32_t pc;
  std::uint32_t rec; // Program::recursive_calls index of a recursive call, kNone otherwise
  double start;
};

// Thrown by the engine when an OpenMP region asks for a larger team than the process's pool of
// logical threads: interpret() runs again with a pool that holds it (the contexts of a process
// are laid out before the run).
struct LargerTeam {
  std::int64_t threads = 0;
  std::string where; // the region, as model::Model::describe names it
};

class Engine {
public:
  // `pool`: logical threads per process for task groups (0: options.threads), larger when the
  // program's OpenMP regions ask for larger teams (LargerTeam).
  Engine(const model::Model &model, const Program &program, const machine::Machine &machine,
         const InterpretOptions &options, std::vector<std::string> &warnings,
         std::int64_t pool = 0);
  // Values given to variables before the run (partial interpretation inputs).
  void set_initial_values(std::vector<std::pair<std::uint32_t, model::Value>> values) {
    initial_values_ = std::move(values);
  }
  Prediction run();

private:
  friend class TraceRecorder;
  // ---- identities
  [[nodiscard]] std::uint32_t ctx_of(std::int64_t rank, std::int64_t thread) const {
    return static_cast<std::uint32_t>(rank * contexts_per_process_ + thread);
  }
  // One thread per process (every MPI model and every replay) needs no division: these are
  // asked several times per message, and a 64-bit division costs tens of cycles.
  [[nodiscard]] std::int64_t rank_of(std::uint32_t ctx) const {
    return contexts_per_process_ == 1 ? static_cast<std::int64_t>(ctx)
                                      : ctx / contexts_per_process_;
  }
  [[nodiscard]] std::int64_t thread_of(std::uint32_t ctx) const {
    return contexts_per_process_ == 1 ? 0 : ctx % contexts_per_process_;
  }
  [[nodiscard]] std::uint64_t *frame(std::uint32_t ctx) {
    return frames_.data() + static_cast<std::size_t>(ctx) * program_.frame_slots;
  }
  [[nodiscard]] model::EvalScope scope(std::uint32_t ctx, std::int64_t peer = 0);
  [[nodiscard]] std::int64_t eval_int(std::uint32_t ctx, std::int32_t expr, std::int64_t peer = 0);
  [[nodiscard]] std::int64_t arg_int(std::uint32_t ctx, const CommOp &op, Arg a,
                                     std::int64_t fallback = 0);
  [[nodiscard]] const std::int64_t *next_measured(std::uint32_t ctx, const MeasuredSequence &t);
  [[nodiscard]] std::optional<std::int64_t> measured_value(std::uint32_t ctx, const CommOp &op,
                                                           Arg a);
  [[nodiscard]] std::uint64_t arg_bytes(std::uint32_t ctx, const CommOp &op, Arg a,
                                        std::int64_t peer = 0);
  [[nodiscard]] double time_ns(std::uint32_t ctx, const TimeSource &t, model::NodeIndex node);
  void share_cores(const machine::Machine &machine);

  // ---- opaque decisions (per-rank classes, shared draws)
  [[nodiscard]] const OpaqueStats &stats_of(const OpaqueInfo &o, std::uint32_t ctx);
  void unmeasured_opaque(const OpaqueInfo &o, std::uint32_t ctx);
  [[nodiscard]] double draw(std::uint32_t ctx, const OpaqueInfo &o);
  bool decide_probability(std::uint32_t ctx, const OpaqueInfo &o);
  std::int64_t draw_trips(std::uint32_t ctx, const OpaqueInfo &o);
  std::size_t pick_case(std::uint32_t ctx, const OpaqueInfo &o);

  // ---- calls (a frame per activation for recursive ones)
  void call(std::uint32_t ctx, const Instruction &ins, std::uint32_t pc);
  // A CountedLoop instruction: false when the thread yields first (it runs on resuming).
  bool counted_loop(std::uint32_t ctx, const Instruction &ins, std::uint32_t pc);
  void call_recursive(std::uint32_t ctx, const Instruction &ins, std::uint32_t pc);
  // Returns false when the thread finished (a return from the entry function).
  bool return_from(std::uint32_t ctx);
  [[noreturn]] void depth_exceeded(std::uint32_t ctx, model::NodeIndex site);
  std::string call_chain(std::uint32_t ctx, model::NodeIndex next) const;
  void report_progress();

  // ---- scheduling
  // A replayed trace is one straight-line block per rank, each instruction executed once, so
  // the instruction a queued thread resumes at is never in the cache; the hint is given when the
  // thread is queued, dozens of events before it runs.
  void prefetch_code(std::uint32_t ctx) const {
    if (program_.steps.used) {
      __builtin_prefetch(program_.steps.kind + pc_[ctx]);
      __builtin_prefetch(program_.steps.ref + pc_[ctx]);
      return;
    }
    const Instruction *at = program_.code.data() + pc_[ctx];
    __builtin_prefetch(at);
    __builtin_prefetch(at + 4);
  }
  // Its block times too, once the instruction is there: when the thread is next in the queue.
  void prefetch_delay(std::uint32_t ctx) const;
  void run_thread(std::uint32_t ctx, std::uint64_t popped_seq);
  // The same for a replay's steps (Program::steps), without Instructions in between.
  void run_steps(std::uint32_t ctx, std::uint64_t popped_seq);
  // Instructions both loops run. run_comm: true when the operation completed, false when the
  // thread blocked or yielded (it resumes at the same instruction); local_ns is a replayed
  // call's measured local time. run_elapse (Elapse, LocalCall): false when the thread yielded
  // before the time passed.
  bool run_comm(std::uint32_t ctx, model::NodeIndex node, const CommOp &op, double local_ns);
  bool run_elapse(std::uint32_t ctx, Code code, model::NodeIndex node, std::uint32_t function,
                  double duration);
  void run_region(std::uint32_t ctx, Code code, std::uint32_t function, std::uint32_t site);
  // The instruction at a thread's pc (a replay's step decoded), for reports.
  [[nodiscard]] Instruction instruction_at(std::uint32_t ctx) const;
  void resume(std::uint32_t ctx, double time);
  void block(std::uint32_t ctx, WaitKind why);
  bool must_yield(std::uint32_t ctx) const;
  [[nodiscard]] double cpu_ready(std::uint32_t ctx) const;
  // Before a computation of positive length: yields to the other ready threads or waits for
  // the CPU (LogGP, anchors §4 CALC); true when the thread was suspended and resumes later.
  // With private_compute_ it never yields (docs/interpreter.md, "Event order").
  bool suspend_for_cpu(std::uint32_t ctx);
  void finish_thread(std::uint32_t ctx);
  void account(std::uint32_t ctx, model::NodeIndex node, double start);
  [[noreturn]] void raise_deadlock();
  // The guessed peers at this np, as a paragraph for an error message ("" when none).
  [[nodiscard]] std::string guessed_peers_note(std::string_view what) const;
  std::string describe_wait(std::uint32_t ctx);

  // ---- communication leaves (engine_*.cpp). Return true when the leaf completed and the
  // thread moves on; false when it blocked (the same leaf continues on resumption).
  bool execute(std::uint32_t ctx, const CommOp &op);
  bool execute_p2p(std::uint32_t ctx, const CommOp &op);
  bool execute_completion(std::uint32_t ctx, const CommOp &op);
  bool execute_collective(std::uint32_t ctx, const CommOp &op);
  bool execute_split(std::uint32_t ctx, const CommOp &op);
  bool execute_thread_op(std::uint32_t ctx, const CommOp &op);
  bool execute_pgas(std::uint32_t ctx, const CommOp &op);
  void task_group(std::uint32_t ctx, const Instruction &ins);
  void task_end(std::uint32_t ctx);

  // ---- point to point
  std::uint32_t new_request(std::uint32_t ctx, RequestKind kind, std::uint32_t name,
                            std::int64_t index, std::uint32_t comm_op);
  void release_request(std::uint32_t req);
  std::uint32_t post_send(std::uint32_t ctx, std::uint32_t comm, std::int64_t dest_local,
                          std::int32_t tag, std::uint64_t bytes, model::Operation mode,
                          std::uint32_t name, std::int64_t index, std::uint32_t comm_op,
                          bool collective);
  std::uint32_t post_recv(std::uint32_t ctx, std::uint32_t comm, std::int64_t source_local,
                          std::int32_t tag, std::uint64_t max_bytes, std::uint32_t name,
                          std::int64_t index, std::uint32_t comm_op, bool collective,
                          RequestKind kind = RequestKind::Recv);
  void on_envelope(std::uint32_t msg, std::uint64_t seq, double now);
  void match(std::uint32_t msg, std::uint32_t req, double now);
  void complete(std::uint32_t req, double time, double error);
  bool wait_requests(std::uint32_t ctx, bool collective_only, std::uint32_t name,
                     std::int64_t index, bool by_index);
  bool finish_wait(std::uint32_t ctx);
  void write_status(std::uint32_t ctx, std::uint32_t req);
  [[nodiscard]] bool matches(const Request &r, const Message &m) const;
  // Asked for every message (here, not in engine.cpp, so that the files sending messages inline
  // it).
  [[nodiscard]] const NetworkTiming &net(std::int64_t a, std::int64_t b) const {
    if (a == b) {
      return self_;
    }
    return node_of(a) == node_of(b) ? intra_ : inter_;
  }

  // ---- the network's wiring (engine_network.cpp): placement, NICs, flow-level link sharing
  void setup_network(const machine::Machine &machine);
  [[nodiscard]] std::int64_t node_of(std::int64_t p) const {
    return node_of_.empty() ? p / ranks_per_node_ : node_of_[static_cast<std::size_t>(p)];
  }
  // The injection / ejection resource of a process: its node's NIC for inter-node messages
  // (the ranks of a node share it), its own for intra-node ones.
  [[nodiscard]] double &send_free(std::int64_t p, bool intra) {
    return intra ? send_free_[static_cast<std::size_t>(p)]
                 : nic_send_free_[static_cast<std::size_t>(node_of(p))];
  }
  [[nodiscard]] double &recv_free(std::int64_t p, bool intra) {
    return intra ? recv_free_[static_cast<std::size_t>(p)]
                 : nic_recv_free_[static_cast<std::size_t>(node_of(p))];
  }
  [[nodiscard]] bool uses_flows(const Message &msg) const { return flow_mode_ && !msg.intra; }
  // An eager message of `bytes` from p to dest sent at t on a delay network: its injection
  // starts at `start` and ends `occupancy` later, its data is complete at the receiver at
  // `data` and its envelope arrives at `envelope`. With endpoint contention each process's
  // injection and ejection link carries one message at a time, in the order they are sent.
  struct EagerTimes {
    double start, occupancy, data, envelope;
  };
  // Inlined where it is used (GCC's -O2 heuristics kept it a call): once per eager message.
  [[gnu::always_inline]] EagerTimes eager_times(std::int64_t p, std::int64_t dest,
                                                const NetworkTiming &nt, bool intra,
                                                std::uint64_t bytes, double t) {
    const double total = nt.transfer_ns(bytes);
    const double latency = std::min(nt.transfer_ns(0), total);
    const double occupancy = total - latency;
    if ((intra ? options_.endpoint_contention : endpoint_) && !nt.self_copy) {
      double &out = send_free(p, intra);
      double &in = recv_free(dest, intra);
      const double start = std::max(t, out);
      out = start + occupancy;
      const double data = std::max(start + latency, in) + occupancy;
      in = data;
      return {start, occupancy, data, start + latency};
    }
    return {t, occupancy, t + total, t + latency};
  }
  // Flow timing of a message (route, latency, bound): sets msg.tail and returns the latency.
  double flow_latency(Message &msg, const NetworkTiming &nt);
  // Puts the message's data on the network as a flow at `start`; `credit` ns of its latency
  // have already passed (a rendezvous whose start was decided late).
  void start_flow(std::uint32_t msg, double start, double credit, bool routed = false);
  void deliver(std::uint32_t msg, double sender_done, double data);
  void on_flow_wake(double now);
  void request_settle(double time);
  void schedule_wake();
  void on_settle(double now);
  [[nodiscard]] std::string describe_network(const machine::Machine &machine) const;

  // ---- communicators
  [[nodiscard]] std::int64_t comm_size(std::uint32_t comm) const;
  [[nodiscard]] std::int64_t world_rank(std::uint32_t comm, std::int64_t local,
                                        std::int64_t self) const;
  [[nodiscard]] std::uint32_t comm_id(std::uint32_t ctx, std::uint32_t slot, model::NodeIndex node);
  // The slot of an operation's communicator (newcomm: of its target): the name's slot, or for an
  // element of a communicator array the element's own slot, made on first use.
  [[nodiscard]] std::uint32_t comm_slot(std::uint32_t ctx, const CommOp &op, bool newcomm);
  // The slot of the communicator argument `which` names (CommIndex, NewcommIndex, GroupIndex).
  [[nodiscard]] std::uint32_t comm_slot(std::uint32_t ctx, const CommOp &op, Arg which);
  [[nodiscard]] std::uint32_t comm_of(std::uint32_t ctx, const CommOp &op) {
    return comm_id(ctx, comm_slot(ctx, op, false), op.node);
  }
  [[nodiscard]] std::int64_t local_rank(std::uint32_t ctx, std::uint32_t slot) const;

  // ---- collectives
  void start_collective(std::uint32_t ctx, const CommOp &op, Collective kind, std::uint32_t comm,
                        std::int32_t root, std::uint64_t bytes);
  bool run_collective(std::uint32_t ctx, const CommOp &op);
  // The same for a direct collective (CollectiveState::direct), engine_direct_collectives.cpp.
  bool run_direct_collective(std::uint32_t ctx, const CommOp &op);
  void end_collective_trace(std::uint32_t ctx, const CommOp &op);
  [[nodiscard]] bool direct_eligible(const CommOp &op, const CollectiveState &c,
                                     std::int64_t size) const;
  // Sets the direct collective's round count and, when they are kept, its rounds.
  void direct_rounds(std::uint32_t ctx, const CommOp &op);
  void direct_send(std::uint32_t ctx, std::int64_t dest, std::uint64_t bytes);
  void on_direct_envelope(std::uint32_t msg, double now);
  void direct_post_recv(std::uint32_t ctx, std::int64_t source);
  bool direct_wait(std::uint32_t ctx);
  [[nodiscard]] CollectiveCall call_of(std::uint32_t ctx, const CommOp &op,
                                       std::uint32_t segment_round, Round &out_round);

  // ---- data
  const model::Model &model_;
  const Program &program_;
  const machine::Machine &machine_;
  const InterpretOptions &options_;
  std::vector<std::string> &warnings_;
  std::int64_t processes_;
  std::int64_t contexts_per_process_;
  std::uint32_t contexts_;

  // per logical thread
  std::vector<double> clock_;
  std::vector<double> error_;
  std::vector<double> wake_;
  std::vector<double> wake_error_;
  std::vector<double> op_start_;
  std::vector<std::uint32_t> pc_;
  std::vector<Status> status_;
  std::vector<WaitKind> wait_;
  std::vector<std::uint32_t> pending_;
  std::vector<std::uint32_t> generation_;
  std::vector<std::uint32_t> phase_; // progress inside a multi-step leaf
  std::vector<std::uint32_t> owned_; // head of the live request list
  // Its tail, the oldest: Wait finds the oldest request of a name from there, so waiting for
  // n requests in the order they were posted costs O(n), not O(n^2) (HPCCG's neighbour loops).
  std::vector<std::uint32_t> owned_tail_;
  std::vector<std::uint32_t> depth_;
  std::vector<ReturnEntry> returns_; // non-recursive programs: max_call_depth per thread
  // Recursive programs: per thread a growing return stack and the spill stack of saved
  // activations, and per (thread, recursive call site) how many executions are open.
  std::vector<std::vector<ReturnEntry>> call_stack_;
  std::vector<std::vector<std::uint64_t>> spill_;
  std::vector<std::uint32_t> open_calls_;
  std::uint32_t recursive_sites_ = 0;
  std::vector<std::uint64_t> frames_;
  std::vector<CollectiveState> collective_;
  // Per CommOp, its last collective algorithm decision and what it was made for.
  struct Decision {
    std::int64_t size = -1;
    std::uint64_t bytes = 0, decision_bytes = 0;
    Algorithm algorithm = Algorithm::Auto, first = Algorithm::Auto, second = Algorithm::Auto;
  };
  std::vector<Decision> decisions_;
  // Direct collectives: possible when an eager message is timed completely when it is sent (a
  // replay on a delay network without flows, one thread per process). Per process, the
  // messages whose envelope arrived before their receive was posted (oldest first); per
  // thread, the receives posted since its last wait.
  bool direct_collectives_ = false;
  std::uint64_t direct_eager_limit_ = 0;
  std::vector<DirectMessage> direct_messages_;
  std::vector<std::uint32_t> direct_free_;
  std::vector<std::uint32_t> mailbox_head_, mailbox_tail_;
  std::vector<std::vector<DirectRecv>> direct_recvs_;
  // The rounds of each member of each distinct direct collective (a replay repeats a few
  // shapes thousands of times; computing a round costs a few hundred instructions).
  struct RoundShape {
    Collective kind;
    Algorithm algorithm, first, second;
    std::int64_t size, root;
    std::uint64_t bytes;
    std::vector<std::uint32_t> base, count; // per member: its rounds in round_table_
  };
  std::vector<RoundShape> round_shapes_;
  std::vector<std::uint32_t> shape_hint_; // per CommOp: the shape of its last direct instance
  std::vector<Round> round_table_;
  std::vector<std::uint32_t> lock_next_; // lock waiter queue links
  std::vector<double> lock_arrival_;     // PGAS lock: when the request reached the home

  // per process
  std::vector<std::uint32_t> posted_head_, posted_tail_;
  std::vector<std::uint32_t> unexpected_head_, unexpected_tail_;
  // Unexpected messages per (receiver, context, tag): a receive with a tag none of them has
  // skips the walk, so n messages nothing receives do not make every later receive O(n).
  // Entries stay at zero rather than being erased (no allocation once a key was seen).
  CountTable unexpected_count_;
  [[nodiscard]] static std::uint64_t unexpected_key(std::int64_t process, std::uint32_t context,
                                                    std::int32_t tag) {
    return (static_cast<std::uint64_t>(process) << 40U) ^
           (static_cast<std::uint64_t>(context) << 32U) ^ static_cast<std::uint32_t>(tag);
  }
  std::vector<double> cpu_free_;  // LogGP: CPU busy with message overheads until
  std::vector<double> send_free_; // LogGP nextgs / delay models: injection link free
  std::vector<double> recv_free_; // LogGP nextgr / delay models: ejection link free
  // Communicator slots, slot-major so that elements of communicator arrays can be appended:
  // index (slot - 2) * np + process.
  std::vector<std::uint32_t> comm_slot_; // communicator id
  std::vector<std::int32_t> comm_local_; // local rank
  std::vector<std::string> slot_names_;  // slot -> name ("world", "sub", "comms[1]", ...)
  std::vector<std::vector<std::uint32_t>> element_slot_; // name slot -> element -> slot
  // Collectives issued per communicator id and process (id * np + process), numbering them in
  // call order: two names of one communicator (`comms[0] = MPI_COMM_WORLD`) share the count.
  std::vector<std::uint32_t> coll_seq_;
  [[nodiscard]] std::uint32_t &coll_seq(std::uint32_t comm, std::int64_t process) {
    const std::size_t np = static_cast<std::size_t>(processes_);
    if (coll_seq_.size() < comms_.size() * np) {
      coll_seq_.resize(comms_.size() * np, 0);
    }
    return coll_seq_[static_cast<std::size_t>(comm) * np + static_cast<std::size_t>(process)];
  }
  bool execute_comm_assign(std::uint32_t ctx, const CommOp &op);
  bool execute_comm_query(std::uint32_t ctx, const CommOp &op);
  bool execute_group_incl(std::uint32_t ctx, const CommOp &op);
  // Groups (MPI_Group_incl) by member list (world ranks) -> their communicator id.
  std::map<std::vector<std::int32_t>, std::uint32_t> groups_;

  // task groups (per process)
  struct TaskGroupState {
    std::int64_t tasks = 0;
    std::int64_t next = 0;
    std::int64_t remaining = 0;
    double base = 0.0;
    double join = 0.0;
    double join_error = 0.0;
    std::uint32_t group = 0;
  };
  std::vector<TaskGroupState> task_state_;
  // Per process: the team size of OpenMP regions that name none (set_team; nthreads before).
  std::vector<std::int64_t> team_size_;

  // locks: key (process or -1 for PGAS, lock id, index)
  struct LockState {
    std::int64_t permits = 1;
    double free_at = 0.0;
    double free_error = 0.0;
    std::uint32_t head = kNone, tail = kNone;
    std::int64_t home = 0;
  };
  std::unordered_map<std::uint64_t, LockState> locks_;
  static std::uint64_t lock_key(std::int64_t process, std::uint32_t lock, std::int64_t index);

  // communicator split instances: key (parent comm, sequence)
  struct SplitInstance {
    std::vector<std::int64_t> color, key;
    std::int64_t arrived = 0;
    std::int64_t finished = 0;
    bool built = false;
    std::vector<std::uint32_t> result_comm;
    std::vector<std::int32_t> result_rank;
  };
  std::unordered_map<std::uint64_t, SplitInstance> splits_;

  // split-phase barrier instances (PGAS notify / wait)
  struct NotifyInstance {
    std::int64_t count = 0;
    double last = 0.0;
    double error = 0.0;
    bool released = false;
    double release = 0.0;
    std::vector<std::uint32_t> waiters;
  };
  std::unordered_map<std::uint32_t, NotifyInstance> notifies_;
  std::vector<std::uint32_t> notify_seq_; // per process

  std::vector<Communicator> comms_;
  std::vector<Message> messages_;
  std::vector<std::uint32_t> free_messages_;
  std::vector<Request> requests_;
  std::vector<std::uint32_t> free_requests_;

  NetworkTiming intra_, inter_, self_;
  std::int64_t ranks_per_node_ = 1;
  std::vector<std::int32_t> node_of_; // per process; empty: block placement
  std::vector<double> nic_send_free_; // per node: the NIC's injection free time
  std::vector<double> nic_recv_free_; // per node: the NIC's ejection free time
  bool endpoint_ = true;              // NIC sharing (machine and options agree)
  bool flow_mode_ = false;            // inter-node messages are flows on fabric_'s links
  bool zero_wire_ = false;            // every link of fabric_ has latency 0
  std::unique_ptr<machine::Fabric> fabric_;
  machine::FlowParameters flow_parameters_;
  FlowNetwork flows_;
  std::vector<std::uint32_t> route_, back_route_;
  double settle_at_ = -1.0; // a Settle event is queued at this time
  double wake_at_ = -1.0;   // the earliest queued FlowDone event
  std::string network_description_;
  std::vector<double> share_; // per process: block time factor of an oversubscribed node
  EventQueue queue_;
  std::uint64_t popped_seq_ = 0;
  bool fresh_ = false; // the running thread was just popped and has not executed a leaf yet
  // A computation touches nothing another thread reads (one thread per rank, no LogGP CPU):
  // a thread runs it without yielding first and yields, if it must, at its next operation.
  bool private_compute_ = false;
  double now_ = 0.0; // time of the event being processed

  // statistics per node
  std::vector<double> node_time_;
  std::vector<std::uint64_t> node_freq_;
  std::vector<double> node_error_;
  std::uint64_t instructions_ = 0;
  std::uint64_t events_ = 0;
  std::uint64_t message_count_ = 0;
  std::uint64_t direct_message_count_ = 0;
  std::vector<bool> warned_;
  std::vector<bool> measured_warned_; // per measured argument: a rank without values was told
  std::vector<bool> opaque_warned_;   // per opaque: an unmeasured rank class was told
  std::set<std::uint32_t> world_fallback_warned_; // communicator fields read before assigned
  std::vector<bool> approximate_warned_;          // per communication leaf with `approximate`: told
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_progress_;

  TraceRecorder *trace_ = nullptr;
  TraceRecorder recorder_;

  std::vector<std::pair<std::uint32_t, model::Value>> initial_values_;
  std::function<std::uint64_t(std::int64_t)> block_bytes_; // v-collective sizes
  std::uint32_t block_ctx_ = 0;
  const CommOp *block_op_ = nullptr;
};

} // namespace parjava::interp
