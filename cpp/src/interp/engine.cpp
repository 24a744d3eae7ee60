// The engine's core: state layout, the event loop, the instruction interpreter (control flow,
// block times, calls with a frame per recursive activation, opaque decisions) and the result.
#include "engine.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>

#include "parjava/error.hpp"

namespace parjava::interp {

using model::NodeIndex;
using model::ValueType;

namespace {

std::uint64_t splitmix64(std::uint64_t &state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31U);
}

double uniform(std::uint64_t &state) {
  return static_cast<double>(splitmix64(state) >> 11U) * 0x1.0p-53;
}

double slot_float(const std::uint64_t *f, std::uint32_t s) { return std::bit_cast<double>(f[s]); }
void set_float(std::uint64_t *f, std::uint32_t s, double v) {
  f[s] = std::bit_cast<std::uint64_t>(v);
}

} // namespace

Engine::Engine(const model::Model &model, const Program &program, const machine::Machine &machine,
               const InterpretOptions &options, std::vector<std::string> &warnings,
               std::int64_t pool)
    : model_(model), program_(program), machine_(machine), options_(options), warnings_(warnings),
      processes_(options.processes),
      contexts_per_process_(program.uses_task_groups ? 1 + std::max(pool, options.threads) : 1) {
  const std::int64_t total = processes_ * contexts_per_process_;
  if (total >= static_cast<std::int64_t>(kNone)) {
    throw Error(ErrorKind::Usage, "too many logical threads (" + std::to_string(total) +
                                      "): at most 2^32 - 2 processes x threads");
  }
  contexts_ = static_cast<std::uint32_t>(total);
  const std::size_t n = contexts_;
  clock_.assign(n, 0.0);
  error_.assign(n, 0.0);
  wake_.assign(n, 0.0);
  wake_error_.assign(n, 0.0);
  op_start_.assign(n, 0.0);
  pc_.assign(n, program.entry_pc);
  for (std::size_t p = 0; p < program.process_entry.size(); ++p) {
    pc_[ctx_of(static_cast<std::int64_t>(p), 0)] = program.process_entry[p];
  }
  status_.assign(n, Status::Idle);
  wait_.assign(n, WaitKind::None);
  pending_.assign(n, 0);
  generation_.assign(n, 0);
  phase_.assign(n, 0);
  owned_.assign(n, kNone);
  owned_tail_.assign(n, kNone);
  depth_.assign(n, 0);
  if (program.recursive) {
    call_stack_.resize(n);
    spill_.resize(n);
    recursive_sites_ = static_cast<std::uint32_t>(program.recursive_calls.size());
    open_calls_.assign(n * recursive_sites_, 0);
  } else {
    returns_.assign(n * program.max_call_depth, ReturnEntry{0, kNone, 0.0});
  }
  frames_.assign(n * program.frame_slots, 0);
  for (std::size_t c = 0; c < n && program.ntasks_slot < program.frame_slots; ++c) {
    frames_[c * program.frame_slots + program.ntasks_slot] = 1; // one thread outside a group
  }
  collective_.assign(n, CollectiveState{});
  decisions_.assign(program.comms.size(), Decision{});
  if (program.lock_names.size() > 1) {
    lock_next_.assign(n, kNone);
    lock_arrival_.assign(n, 0.0);
  }
  const auto np = static_cast<std::size_t>(processes_);
  posted_head_.assign(np, kNone);
  posted_tail_.assign(np, kNone);
  unexpected_head_.assign(np, kNone);
  unexpected_tail_.assign(np, kNone);
  cpu_free_.assign(np, 0.0);
  send_free_.assign(np, 0.0);
  recv_free_.assign(np, 0.0);
  comm_slot_.assign(np * (program.comm_names.size() - 2), kNone);
  comm_local_.assign(np * (program.comm_names.size() - 2), -1);
  slot_names_ = program.comm_names;
  element_slot_.assign(program.comm_names.size(), {});
  if (program.uses_task_groups) {
    task_state_.assign(np, TaskGroupState{});
    team_size_.assign(np, options.threads);
  }
  if (program.uses_pgas) {
    notify_seq_.assign(np, 0);
  }
  comms_.push_back({{}, 0, "world"});
  comms_.push_back({{}, 0, "self"});
  node_time_.assign(model.nodes.size(), 0.0);
  node_freq_.assign(model.nodes.size(), 0);
  node_error_.assign(model.nodes.size(), 0.0);
  warned_.assign(model.nodes.size(), false);
  measured_warned_.assign(program.measured.size(), false);
  opaque_warned_.assign(program.opaques.size(), false);

  // Placement: block placement, ranks_per_node ranks per node (Machine::node_of). A sweep may
  // ask for more ranks than the machine holds; the interpreter then adds nodes of the same kind.
  ranks_per_node_ = std::max(1, machine.ranks_per_node());
  intra_ = timing_of(machine.intra_node());
  if (machine.has_inter_node()) {
    inter_ = timing_of(machine.inter_node());
  } else {
    inter_ = intra_;
    if (processes_ > ranks_per_node_) {
      warnings_.push_back("machine '" + machine.name() +
                          "' has no inter-node network: every message uses the intra-node one");
    }
  }
  self_ = intra_;
  self_.loggp = false;
  self_.self_copy = true;
  self_.copy_ns_per_byte = machine.threads().copy_per_byte * 1e9;
  self_.eager_limit = std::numeric_limits<std::uint64_t>::max();
  // LogGP charges message overheads to the receiver's CPU after the clock of a runnable thread
  // (on_envelope); task-group threads share their rank's variables, which a time may read.
  private_compute_ = !intra_.loggp && !inter_.loggp && contexts_per_process_ == 1;
  if (processes_ > machine.max_ranks()) {
    warnings_.push_back("machine '" + machine.name() + "' holds " +
                        std::to_string(machine.max_ranks()) + " ranks; " +
                        std::to_string(processes_) + " ranks were placed on " +
                        std::to_string((processes_ + ranks_per_node_ - 1) / ranks_per_node_) +
                        " nodes of " + std::to_string(ranks_per_node_) + " ranks each");
  }
  setup_network(machine);
  share_cores(machine);
  // A replay gives every member of a collective instance the same payload (a model's members
  // evaluate their own), which direct_eligible() needs to decide the same on every member.
  direct_collectives_ = options.direct_collectives && program.steps.used && !intra_.loggp &&
                        !inter_.loggp && !flow_mode_ && contexts_per_process_ == 1 &&
                        !program.uses_pgas;
  if (direct_collectives_) {
    direct_eager_limit_ = std::min(intra_.eager_limit, inter_.eager_limit);
    mailbox_head_.assign(np, kNone);
    mailbox_tail_.assign(np, kNone);
    direct_recvs_.resize(n);
    shape_hint_.assign(program.comms.size(), kNone);
  }
  if (options.record_trace) {
    recorder_.start(model, processes_, contexts_per_process_, ranks_per_node_);
    trace_ = &recorder_;
    comms_[0].trace_id = recorder_.world();
  }
  // Communicators that exist from the start (replayed sequences): slot 2 + i on each member.
  for (std::size_t i = 0; i < program.initial_comms.size(); ++i) {
    const auto id = static_cast<std::uint32_t>(comms_.size());
    Communicator c{program.initial_comms[i], 0, program.comm_names[2 + i]};
    for (std::size_t local = 0; local < c.members.size(); ++local) {
      const auto slot = i * np + static_cast<std::size_t>(c.members[local]);
      comm_slot_[slot] = id;
      comm_local_[slot] = static_cast<std::int32_t>(local);
    }
    if (trace_ != nullptr) {
      c.trace_id = recorder_.add_communicator(c.name, c.members);
    }
    comms_.push_back(std::move(c));
  }
  queue_.reserve(std::min<std::size_t>(np * 2 + 16, std::size_t{1} << 26U));
}

// ---- small helpers ------------------------------------------------------------------------

model::EvalScope Engine::scope(std::uint32_t ctx, std::int64_t peer) {
  model::EvalScope s;
  s.slots = frame(ctx);
  s.rank = rank_of(ctx);
  s.thread = thread_of(ctx) == 0 ? 0 : thread_of(ctx) - 1;
  s.peer = peer;
  return s;
}

std::int64_t Engine::eval_int(std::uint32_t ctx, std::int32_t expr, std::int64_t peer) {
  const model::CompiledExpression &e = program_.exprs[static_cast<std::size_t>(expr)];
  if (e.is_constant()) {
    // No scope to build (a replay's arguments are all constants, one per message).
    const model::Value v = e.constant();
    return v.type == ValueType::Int ? v.as_int() : static_cast<std::int64_t>(v.as_float());
  }
  return e.evaluate_int(scope(ctx, peer));
}

// An argument measured per rank (interfaces §2): rank r's k-th execution of the leaf uses the
// k-th value rank r passed in the estimation run, cyclically; nullopt when not measured or the
// rank has no values.
std::optional<std::int64_t> Engine::measured_value(std::uint32_t ctx, const CommOp &op, Arg a) {
  const std::int32_t m = op.measured[static_cast<std::size_t>(a)];
  if (m < 0) {
    return std::nullopt;
  }
  const MeasuredArg &arg = program_.measured[static_cast<std::size_t>(m)];
  const auto &values = arg.values[static_cast<std::size_t>(rank_of(ctx))];
  if (values.empty()) {
    if (!measured_warned_[static_cast<std::size_t>(m)]) {
      measured_warned_[static_cast<std::size_t>(m)] = true;
      warnings_.push_back(
          "model '" + model_.name + "', " + model_.describe(op.node) + ": argument '" + arg.name +
          "' was measured per rank at np " + std::to_string(arg.values.size()) + ", but rank " +
          std::to_string(rank_of(ctx)) +
          " passed no value there; it uses the fallback expression '" + arg.fallback + "'");
    }
    return std::nullopt;
  }
  const std::uint64_t k = frame(ctx)[op.count_slot] - 1;
  return values[k % values.size()];
}

// Rank r's k-th execution of a node with measured decisions takes the k-th value rank r had in
// the estimation run, cyclically (docs/model-schema.md "Measured decisions"); nullptr when the
// rank has none (the node's own test decides).
const std::int64_t *Engine::next_measured(std::uint32_t ctx, const MeasuredSequence &t) {
  const auto &values = t.values[static_cast<std::size_t>(rank_of(ctx))];
  const std::uint64_t k = frame(ctx)[t.count_slot]++;
  return values.empty() ? nullptr : &values[k % values.size()];
}

std::int64_t Engine::arg_int(std::uint32_t ctx, const CommOp &op, Arg a, std::int64_t fallback) {
  const std::int32_t e = op.expr[static_cast<std::size_t>(a)];
  if (e < 0) {
    return fallback;
  }
  if (op.counted) {
    if (const auto v = measured_value(ctx, op, a)) {
      return *v;
    }
  }
  return eval_int(ctx, e);
}

std::uint64_t Engine::arg_bytes(std::uint32_t ctx, const CommOp &op, Arg a, std::int64_t peer) {
  const std::int32_t e = op.expr[static_cast<std::size_t>(a)];
  if (e < 0) {
    return 0;
  }
  std::optional<std::int64_t> measured;
  if (op.counted) {
    measured = measured_value(ctx, op, a);
  }
  const std::int64_t v = measured ? *measured : eval_int(ctx, e, peer);
  if (v < 0) {
    throw Error(ErrorKind::Model, "model '" + model_.name + "', " + model_.describe(op.node) +
                                      ": a message size evaluates to " + std::to_string(v) +
                                      " bytes on rank " + std::to_string(rank_of(ctx)));
  }
  return static_cast<std::uint64_t>(v);
}

// Processor sharing: a node running more logical threads than it has cores (ranks_per_node >
// cores_per_node, as under mpirun --oversubscribe) gives each a share of them, so a block takes
// (threads on the node / cores) times longer. Open MPI's waiting ranks keep polling (or yield
// and come back), so every rank competes for the cores all the time, not only while computing.
void Engine::share_cores(const machine::Machine &machine) {
  if (program_.measured_times) {
    return; // a replayed run's times were measured with its own sharing of the cores
  }
  const std::int64_t cores = std::max(1, machine.cores_per_node());
  // Task groups: the pool's threads (a team's, when an OpenMP region asked for more).
  const std::int64_t per_process = std::max<std::int64_t>(1, contexts_per_process_ - 1);
  // Ranks per node as placed (block, round robin or from a file).
  std::vector<std::int64_t> per_node;
  std::int64_t most = 0;
  for (std::int64_t p = 0; p < processes_; ++p) {
    const auto node = static_cast<std::size_t>(node_of(p));
    if (node >= per_node.size()) {
      per_node.resize(node + 1, 0);
    }
    most = std::max(most, ++per_node[node]);
  }
  if (most * per_process <= cores) {
    return;
  }
  share_.assign(static_cast<std::size_t>(processes_), 1.0);
  double worst = 1.0;
  for (std::int64_t p = 0; p < processes_; ++p) {
    const std::int64_t on_node = per_node[static_cast<std::size_t>(node_of(p))] * per_process;
    const double factor = std::max(1.0, static_cast<double>(on_node) / static_cast<double>(cores));
    share_[static_cast<std::size_t>(p)] = factor;
    worst = std::max(worst, factor);
  }
  if (worst > 1.0) {
    warnings_.push_back("machine '" + machine.name() + "' has " + std::to_string(cores) +
                        " cores per node for " + std::to_string(most * per_process) +
                        " logical threads per node: they share the cores, and block times are "
                        "up to " +
                        std::to_string(worst).substr(0, 4) + "x longer (processor sharing)");
  } else {
    share_.clear();
  }
}

double Engine::time_ns(std::uint32_t ctx, const TimeSource &t, NodeIndex node) {
  double seconds = t.seconds;
  if (t.expr >= 0) {
    seconds =
        program_.exprs[static_cast<std::size_t>(t.expr)].evaluate_number(scope(ctx)) * t.seconds;
    if (!(seconds >= 0.0) || !std::isfinite(seconds)) {
      throw Error(ErrorKind::Model, "model '" + model_.name + "', " + model_.describe(node) +
                                        ": the time evaluates to " + std::to_string(seconds) +
                                        " s on rank " + std::to_string(rank_of(ctx)) +
                                        "; a time must be finite and >= 0");
    }
  }
  if (!share_.empty()) {
    seconds *= share_[static_cast<std::size_t>(rank_of(ctx))];
  }
  return seconds * 1e9;
}

bool Engine::suspend_for_cpu(std::uint32_t ctx) {
  if (private_compute_) {
    // The computation changes only this thread's clock, so running it before the earlier
    // events changes no time; only the thread's next yield (at its next operation) gets an
    // earlier sequence number, which orders it first among events at exactly its time that
    // those earlier events queue. That saves a queue round trip per computation.
    fresh_ = false;
    return false;
  }
  if (must_yield(ctx)) {
    queue_.push(clock_[ctx], EventKind::Resume, ctx, generation_[ctx]);
    prefetch_code(ctx);
    return true;
  }
  // LogGP: a computation waits for the CPU (anchors §4 CALC).
  const double ready = cpu_ready(ctx);
  if (ready > clock_[ctx]) {
    queue_.push_with_seq(ready, fresh_ ? popped_seq_ : queue_.next_seq(), EventKind::Resume, ctx,
                         generation_[ctx]);
    clock_[ctx] = ready;
    return true;
  }
  fresh_ = false;
  return false;
}

double Engine::cpu_ready(std::uint32_t ctx) const {
  return thread_of(ctx) == 0 ? cpu_free_[static_cast<std::size_t>(rank_of(ctx))] : 0.0;
}

bool Engine::must_yield(std::uint32_t ctx) const { return !fresh_ && queue_.due_by(clock_[ctx]); }

void Engine::resume(std::uint32_t ctx, double time) {
  time = std::max(time, cpu_ready(ctx));
  status_[ctx] = Status::Runnable;
  wait_[ctx] = WaitKind::None;
  ++generation_[ctx];
  queue_.push(time, EventKind::Resume, ctx, generation_[ctx]);
  prefetch_code(ctx);
}

void Engine::prefetch_delay(std::uint32_t ctx) const {
  if (program_.steps.used) {
    __builtin_prefetch(program_.steps.seconds + pc_[ctx]);
    return;
  }
  const Instruction &ins = program_.code[pc_[ctx]];
  std::uint32_t d = kNone;
  if (ins.code == Code::Elapse) {
    d = ins.a;
  } else if (ins.code == Code::LocalCall) {
    d = ins.b;
  } else if (ins.code == Code::Comm && ins.b != 0) {
    d = ins.b - 1;
  }
  if (d != kNone) {
    __builtin_prefetch(program_.delays.data() + d);
  }
}

void Engine::block(std::uint32_t ctx, WaitKind why) {
  status_[ctx] = Status::Blocked;
  wait_[ctx] = why;
  ++generation_[ctx];
}

void Engine::account(std::uint32_t ctx, NodeIndex node, double start) {
  node_time_[node] += clock_[ctx] - start;
}

// ---- opaque decisions (docs/model-schema.md "Opaque conditions") ---------------------------

const OpaqueStats &Engine::stats_of(const OpaqueInfo &o, std::uint32_t ctx) {
  if (o.classes.empty()) {
    return o.base;
  }
  const std::int64_t r = rank_of(ctx);
  const std::size_t c = o.per_rank            ? static_cast<std::size_t>(r)
                        : r == 0              ? 0
                        : r == processes_ - 1 ? 2
                                              : 1;
  if (o.unmeasured[c] != 0 && !opaque_warned_[o.index]) {
    unmeasured_opaque(o, ctx);
  }
  return o.classes[c];
}

// A rank evaluates an opaque condition that its rank(s) of the estimation run never evaluated:
// say so once, with the pooled statistics it uses instead (issue 13 item 2).
void Engine::unmeasured_opaque(const OpaqueInfo &o, std::uint32_t ctx) {
  opaque_warned_[o.index] = true;
  const model::NodeIndex n = model_.index_of(static_cast<model::NodeId>(o.key));
  const model::Opaque &stats = model_.nodes[n].opaque;
  std::string used;
  if (o.kind == model::Opaque::Kind::Probability) {
    used = "probability " + std::to_string(o.base.probability);
  } else if (o.kind == model::Opaque::Kind::Trips) {
    used = "mean trips " + std::to_string(o.base.trips_mean);
  } else {
    used = "the pooled case weights";
  }
  warnings_.push_back("model '" + model_.name + "', " + model_.describe(n) + ": rank " +
                      std::to_string(rank_of(ctx)) +
                      " evaluates an opaque condition that its rank class never evaluated in "
                      "the estimation run at np " +
                      std::to_string(stats.by_rank.size()) +
                      " (unmeasured); it uses the statistics pooled over the ranks that did (" +
                      used + ")");
}

// A uniform number in [0, 1) for a sampled decision. Decisions with communication below are
// keyed by (seed, node, this thread's count of evaluations of the node), so every rank draws the
// same number at the same dynamic instance; the others come from the thread's own generator.
double Engine::draw(std::uint32_t ctx, const OpaqueInfo &o) {
  std::uint64_t *f = frame(ctx);
  if (!o.shared) {
    return uniform(f[program_.rng_slot]);
  }
  const std::uint64_t k = f[o.count_slot]++;
  std::uint64_t state = options_.seed ^ (o.key * 0xd6e8feb86659fd93ULL);
  state = splitmix64(state) ^ (k * 0x9e3779b97f4a7c15ULL);
  (void)splitmix64(state);
  return uniform(state);
}

bool Engine::decide_probability(std::uint32_t ctx, const OpaqueInfo &o) {
  double p = stats_of(o, ctx).probability;
  if (o.last_trip_of >= 0) {
    const OpaqueInfo &loop = program_.opaques[static_cast<std::size_t>(o.last_trip_of)];
    if (frame(ctx)[loop.counter_slot] != 0) {
      return false; // not the loop's last planned trip
    }
    p = o.last_trip_share;
  }
  if (options_.opaque == OpaqueMode::Sampled) {
    return draw(ctx, o) < p;
  }
  std::uint64_t *f = frame(ctx);
  double acc = slot_float(f, o.state_slot) + p;
  const bool taken = acc >= 1.0 - 1e-12;
  if (taken) {
    acc -= 1.0;
  }
  set_float(f, o.state_slot, acc);
  return taken;
}

std::int64_t Engine::draw_trips(std::uint32_t ctx, const OpaqueInfo &o) {
  const OpaqueStats &s = stats_of(o, ctx);
  if (options_.opaque == OpaqueMode::Sampled) {
    const double u = draw(ctx, o);
    if (!s.distribution.empty()) {
      for (const auto &[count, cumulative] : s.distribution) {
        if (u < cumulative) {
          return count;
        }
      }
      return s.distribution.back().first;
    }
    const double base = std::floor(s.trips_mean);
    return static_cast<std::int64_t>(base) + (u < s.trips_mean - base ? 1 : 0);
  }
  std::uint64_t *f = frame(ctx);
  const double acc = slot_float(f, o.state_slot) + s.trips_mean;
  const double n = std::floor(acc + 1e-12);
  set_float(f, o.state_slot, acc - n);
  return static_cast<std::int64_t>(n);
}

std::size_t Engine::pick_case(std::uint32_t ctx, const OpaqueInfo &o) {
  const std::vector<double> &weights = stats_of(o, ctx).weights;
  if (options_.opaque == OpaqueMode::Sampled) {
    double u = draw(ctx, o);
    for (std::size_t i = 0; i < weights.size(); ++i) {
      if (u < weights[i]) {
        return i;
      }
      u -= weights[i];
    }
    return weights.size() - 1;
  }
  // Smooth weighted round robin: every case gains its weight, the richest is chosen and pays 1.
  std::uint64_t *f = frame(ctx);
  std::size_t best = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double v = slot_float(f, o.state_slot + static_cast<std::uint32_t>(i)) + weights[i];
    set_float(f, o.state_slot + static_cast<std::uint32_t>(i), v);
    if (v > slot_float(f, o.state_slot + static_cast<std::uint32_t>(best))) {
      best = i;
    }
  }
  set_float(f, o.state_slot + static_cast<std::uint32_t>(best),
            slot_float(f, o.state_slot + static_cast<std::uint32_t>(best)) - 1.0);
  return best;
}

// ---- calls -----------------------------------------------------------------------------------

void Engine::call(std::uint32_t ctx, const Instruction &ins, std::uint32_t pc) {
  if (program_.recursive) {
    if (depth_[ctx] >= options_.max_depth) {
      depth_exceeded(ctx, ins.node);
    }
    call_stack_[ctx].push_back({pc + 1, kNone, clock_[ctx]});
  } else {
    if (depth_[ctx] >= program_.max_call_depth) {
      throw Error(ErrorKind::Model, "call stack overflow at " + model_.describe(ins.node));
    }
    returns_[static_cast<std::size_t>(ctx) * program_.max_call_depth + depth_[ctx]] = {
        pc + 1, kNone, clock_[ctx]};
  }
  ++depth_[ctx];
  ++node_freq_[ins.node];
  if (trace_ != nullptr) {
    trace_->builder().enter(ctx, TraceRecorder::ns(clock_[ctx]), trace_->function_region(ins.a),
                            trace_->callsite(ins.node));
  }
  pc_[ctx] = program_.function_entry[ins.a];
}

// A new activation of a function of a recursive cycle: the callee's current activation (if
// any) is saved on the spill stack, the arguments evaluated by the caller become the
// parameters.
void Engine::call_recursive(std::uint32_t ctx, const Instruction &ins, std::uint32_t pc) {
  if (depth_[ctx] >= options_.max_depth) {
    depth_exceeded(ctx, ins.node);
  }
  const RecursiveCall &rc = program_.recursive_calls[ins.b];
  std::uint64_t *f = frame(ctx);
  auto &spill = spill_[ctx];
  for (const std::uint32_t slot : program_.save_slots[rc.callee]) {
    spill.push_back(f[slot]);
  }
  for (const auto &[param, temp] : rc.params) {
    f[param] = f[temp];
  }
  call_stack_[ctx].push_back({pc + 1, ins.b, clock_[ctx]});
  ++open_calls_[static_cast<std::size_t>(ctx) * recursive_sites_ + rc.site];
  ++depth_[ctx];
  ++node_freq_[ins.node];
  if (trace_ != nullptr) {
    trace_->builder().enter(ctx, TraceRecorder::ns(clock_[ctx]), trace_->function_region(ins.a),
                            trace_->callsite(ins.node));
  }
  pc_[ctx] = program_.function_entry[ins.a];
}

bool Engine::return_from(std::uint32_t ctx) {
  if (depth_[ctx] == 0) {
    finish_thread(ctx);
    return false;
  }
  --depth_[ctx];
  ReturnEntry r{};
  if (program_.recursive) {
    r = call_stack_[ctx].back();
    call_stack_[ctx].pop_back();
  } else {
    r = returns_[static_cast<std::size_t>(ctx) * program_.max_call_depth + depth_[ctx]];
  }
  const NodeIndex site = program_.code[r.pc - 1].node;
  if (r.rec == kNone) {
    node_time_[site] += clock_[ctx] - r.start;
  } else {
    const RecursiveCall &rc = program_.recursive_calls[r.rec];
    std::uint64_t *f = frame(ctx);
    auto &spill = spill_[ctx];
    const auto &slots = program_.save_slots[rc.callee];
    for (auto it = slots.rbegin(); it != slots.rend(); ++it) {
      f[*it] = spill.back();
      spill.pop_back();
    }
    // Only the outermost execution of a recursive call counts its time: the nested ones are
    // inside it (docs/interpreter.md "Calls and recursion").
    if (--open_calls_[static_cast<std::size_t>(ctx) * recursive_sites_ + rc.site] == 0) {
      node_time_[site] += clock_[ctx] - r.start;
    }
  }
  if (trace_ != nullptr) {
    trace_->builder().leave(ctx, TraceRecorder::ns(clock_[ctx]));
  }
  pc_[ctx] = r.pc;
  return true;
}

// ---- the instruction interpreter -----------------------------------------------------------

namespace {

// Iterations of `for (v = from; v <test> bound; v += step)` (CountedLoop), or -1 when the
// count has no closed form here (`v != bound` never reached).
std::int64_t counted_trips(std::int64_t from, std::int64_t bound, std::int64_t step,
                           model::ExprOp test) {
  using model::ExprOp;
  std::int64_t diff = 0;
  if (__builtin_sub_overflow(bound, from, &diff) ||
      step == std::numeric_limits<std::int64_t>::min()) {
    return -1; // a bound near the ends of int64: the loop's own code decides
  }
  const std::int64_t s = step > 0 ? step : -step;
  const std::int64_t toward = step > 0 ? diff : -diff; // distance in the step's direction
  switch (test) {
  case ExprOp::Less:
  case ExprOp::Greater:
    return toward > 0 ? toward / s + (toward % s != 0 ? 1 : 0) : 0;
  case ExprOp::LessEqual:
  case ExprOp::GreaterEqual:
    return toward >= 0 ? toward / s + 1 : 0;
  case ExprOp::NotEqual:
    return toward >= 0 && toward % s == 0 ? toward / s : -1;
  default:
    return -1;
  }
}

} // namespace

bool Engine::counted_loop(std::uint32_t ctx, const Instruction &ins, std::uint32_t pc) {
  const CountedLoop &loop = program_.counted_loops[ins.a];
  std::uint64_t *f = frame(ctx);
  const model::Value bound = program_.exprs[loop.bound].evaluate(scope(ctx));
  const auto from = static_cast<std::int64_t>(f[loop.slot]);
  const std::int64_t trips = bound.type == model::ValueType::Int
                                 ? counted_trips(from, bound.as_int(), loop.step, loop.test)
                                 : -1;
  if (trips < 0) {
    pc_[ctx] = pc + 1; // the loop's own code decides, iteration by iteration
    return true;
  }
  // One iteration's blocks, each as the interpreter would time it (block times do not read the
  // loop variable, and nothing in the body changes what they read).
  const auto n = static_cast<double>(trips);
  double total = 0.0;
  for (const auto &[node, time] : loop.computes) {
    total += time_ns(ctx, program_.times[time], node);
  }
  const double test =
      loop.cond_time >= 0
          ? time_ns(ctx, program_.times[static_cast<std::size_t>(loop.cond_time)], ins.node)
          : 0.0;
  if ((trips > 0 && total > 0.0) || test > 0.0) {
    if (suspend_for_cpu(ctx)) {
      return false;
    }
  }
  for (const auto &[node, time] : loop.computes) {
    const TimeSource &t = program_.times[time];
    const double each = time_ns(ctx, t, node);
    node_freq_[node] += static_cast<std::uint64_t>(trips);
    clock_[ctx] += n * each;
    node_time_[node] += n * each;
    if (t.error > 0.0) {
      error_[ctx] += n * t.error * 1e9;
      node_error_[node] += n * t.error;
    }
  }
  for (const model::NodeIndex node : loop.entered) {
    node_freq_[node] += static_cast<std::uint64_t>(trips);
  }
  if (test > 0.0) {
    const TimeSource &t = program_.times[static_cast<std::size_t>(loop.cond_time)];
    clock_[ctx] += (n + 1.0) * test;
    node_time_[ins.node] += (n + 1.0) * test;
    if (t.error > 0.0) {
      error_[ctx] += (n + 1.0) * t.error * 1e9;
      node_error_[ins.node] += (n + 1.0) * t.error;
    }
  }
  f[loop.slot] = static_cast<std::uint64_t>(from + trips * loop.step);
  pc_[ctx] = ins.b;
  return true;
}

void Engine::run_thread(std::uint32_t ctx, std::uint64_t popped_seq) {
  fresh_ = true;
  popped_seq_ = popped_seq;
  const Instruction *code = program_.code.data();
  std::uint64_t *f = frame(ctx);
  while (true) {
    const std::uint32_t pc = pc_[ctx];
    const Instruction &ins = code[pc];
    // A rank that only computes never returns to the event loop: progress (and Ctrl-C) is
    // checked here too, once per 4 Mi instructions, so a loop the model cannot end (HPCG's
    // factorisation loop before effects.cpp knew div()'s record) can be seen and stopped.
    if ((++instructions_ & 0x3fffffU) == 0 && options_.progress) {
      report_progress();
    }
    switch (ins.code) {
    case Code::Enter:
      ++node_freq_[ins.node];
      pc_[ctx] = pc + 1;
      break;
    case Code::Assign: {
      const auto &e = program_.exprs[ins.b];
      model::Value v = e.evaluate(scope(ctx));
      if (program_.slot_types[ins.a] == ValueType::Float && v.type == ValueType::Int) {
        v = model::Value::of_float(static_cast<double>(v.as_int()));
      } else if (program_.slot_types[ins.a] == ValueType::Int && v.type == ValueType::Float) {
        v = model::Value::of_int(static_cast<std::int64_t>(v.as_float()));
      }
      f[ins.a] = v.bits;
      pc_[ctx] = pc + 1;
      break;
    }
    case Code::JumpIfFalse:
      pc_[ctx] = program_.exprs[ins.a].evaluate_truth(scope(ctx)) ? pc + 1 : ins.b;
      break;
    case Code::Jump:
      pc_[ctx] = ins.b;
      break;
    case Code::OpaqueBranch:
      pc_[ctx] = decide_probability(ctx, program_.opaques[ins.a]) ? pc + 1 : ins.b;
      break;
    case Code::TripsStart: {
      const OpaqueInfo &o = program_.opaques[ins.a];
      f[o.counter_slot] = static_cast<std::uint64_t>(draw_trips(ctx, o));
      pc_[ctx] = pc + 1;
      break;
    }
    case Code::TripsTest: {
      const OpaqueInfo &o = program_.opaques[ins.a];
      if (f[o.counter_slot] == 0) {
        pc_[ctx] = ins.b;
      } else {
        --f[o.counter_slot];
        pc_[ctx] = pc + 1;
      }
      break;
    }
    case Code::MeasuredTripsStart: {
      const MeasuredSequence &t = program_.measured_sequences[ins.a];
      const std::int64_t *count = next_measured(ctx, t);
      f[t.counter_slot] = count == nullptr ? kFromCondition : static_cast<std::uint64_t>(*count);
      pc_[ctx] = count == nullptr ? pc + 1 : pc + 2;
      break;
    }
    case Code::MeasuredBranch: {
      const std::int64_t *taken = next_measured(ctx, program_.measured_sequences[ins.a]);
      pc_[ctx] = taken == nullptr ? pc + 1 : *taken != 0 ? pc + 2 : ins.b;
      break;
    }
    case Code::MeasuredTripsTest: {
      const MeasuredSequence &t = program_.measured_sequences[ins.a];
      if (f[t.counter_slot] == kFromCondition) {
        pc_[ctx] = pc + 1;
      } else if (f[t.counter_slot] == 0) {
        pc_[ctx] = ins.b;
      } else {
        --f[t.counter_slot];
        pc_[ctx] = t.cap ? pc + 1 : pc + 2; // a cap leaves the condition to decide as well
      }
      break;
    }
    case Code::Switch: {
      const SwitchTable &t = program_.switches[ins.a];
      if (t.value_expr < 0) {
        pc_[ctx] = t.case_pcs[pick_case(ctx, program_.opaques[t.opaque])];
      } else {
        const std::int64_t v = eval_int(ctx, t.value_expr);
        const auto it = std::lower_bound(
            t.labels.begin(), t.labels.end(), std::pair<std::int64_t, std::uint32_t>{v, 0},
            [](const auto &a, const auto &b) { return a.first < b.first; });
        pc_[ctx] = it != t.labels.end() && it->first == v ? it->second : t.default_pc;
      }
      break;
    }
    case Code::CondTime:
    case Code::Compute: {
      const TimeSource &t = program_.times[ins.a];
      const double duration = time_ns(ctx, t, ins.node);
      if (duration > 0.0 && suspend_for_cpu(ctx)) {
        return;
      }
      if (ins.code == Code::Compute) {
        ++node_freq_[ins.node];
      }
      clock_[ctx] += duration;
      node_time_[ins.node] += duration;
      if (t.error > 0.0) {
        error_[ctx] += t.error * 1e9;
        node_error_[ins.node] += t.error;
      }
      pc_[ctx] = pc + 1;
      break;
    }
    case Code::CountedLoop:
      if (!counted_loop(ctx, ins, pc)) {
        return; // yields for the CPU first; the loop runs when the thread resumes
      }
      break;
    case Code::Call:
      call(ctx, ins, pc);
      break;
    case Code::CallRec:
      call_recursive(ctx, ins, pc);
      break;
    case Code::Return:
      if (!return_from(ctx)) {
        return;
      }
      break;
    case Code::Comm:
      if (!run_comm(ctx, ins.node, program_.comms[ins.a],
                    ins.b != 0 ? program_.delays[ins.b - 1] : 0.0)) {
        return; // blocked, or re-queued behind an earlier event
      }
      pc_[ctx] = pc + 1;
      break;
    case Code::TaskGroup:
      task_group(ctx, ins);
      if (status_[ctx] != Status::Runnable) {
        return;
      }
      break;
    case Code::TaskEnd:
      task_end(ctx);
      if (status_[ctx] != Status::Runnable) {
        return;
      }
      break;
    case Code::End:
      finish_thread(ctx);
      return;
    case Code::Elapse:
    case Code::LocalCall:
      if (!run_elapse(ctx, ins.code, ins.node, ins.a,
                      program_.delays[ins.code == Code::Elapse ? ins.a : ins.b])) {
        return;
      }
      pc_[ctx] = pc + 1;
      break;
    case Code::RegionEnter:
    case Code::RegionLeave:
      if (ins.code == Code::RegionEnter) {
        ++node_freq_[ins.node];
      }
      run_region(ctx, ins.code, ins.a, ins.b);
      pc_[ctx] = pc + 1;
      break;
    }
  }
}

bool Engine::run_comm(std::uint32_t ctx, NodeIndex node, const CommOp &op, double local_ns) {
  if (phase_[ctx] == 0) {
    if (must_yield(ctx)) {
      queue_.push(clock_[ctx], EventKind::Resume, ctx, generation_[ctx]);
      prefetch_code(ctx);
      return false;
    }
    ++node_freq_[node];
    if (op.counted) {
      ++frame(ctx)[op.count_slot]; // the execution number for arguments measured per rank
    }
    op_start_[ctx] = clock_[ctx];
    phase_[ctx] = 1;
    if (trace_ != nullptr) {
      const std::uint32_t region = op.trace_name != 0
                                       ? trace_->named_region(program_, op.trace_name - 1)
                                       : trace_->op_region(op.op);
      trace_->builder().enter(ctx, TraceRecorder::ns(clock_[ctx]), region, trace_->callsite(node));
    }
    if (local_ns != 0.0) {
      clock_[ctx] += local_ns; // a replayed call's measured local time
    }
    if (op.has_local_time) {
      const double extra = time_ns(ctx, op.local_time, node);
      clock_[ctx] += extra;
      error_[ctx] += op.local_time.error * 1e9;
      node_error_[node] += op.local_time.error;
    }
  }
  if (!execute(ctx, op)) {
    return false;
  }
  fresh_ = false;
  phase_[ctx] = 0;
  account(ctx, node, op_start_[ctx]);
  if (trace_ != nullptr) {
    trace_->builder().leave(ctx, TraceRecorder::ns(clock_[ctx]));
  }
  return true;
}

bool Engine::run_elapse(std::uint32_t ctx, Code code, NodeIndex node, std::uint32_t function,
                        double duration) {
  if (duration > 0.0 && suspend_for_cpu(ctx)) {
    return false;
  }
  ++node_freq_[node];
  if (trace_ != nullptr && code == Code::LocalCall) {
    trace_->builder().enter(ctx, TraceRecorder::ns(clock_[ctx]),
                            trace_->named_region(program_, function), trace_->callsite(node));
    trace_->builder().leave(ctx, TraceRecorder::ns(clock_[ctx] + duration));
  }
  clock_[ctx] += duration;
  node_time_[node] += duration;
  return true;
}

void Engine::run_region(std::uint32_t ctx, Code code, std::uint32_t function, std::uint32_t site) {
  if (trace_ == nullptr) {
    return;
  }
  const auto t = TraceRecorder::ns(clock_[ctx]);
  const std::int64_t interval =
      function < program_.interval_ids.size() ? program_.interval_ids[function] : -1;
  const std::uint32_t callsite = site != 0 ? trace_->callsite(site - 1) : trace::kNoRef;
  auto &b = trace_->builder();
  if (interval >= 0) {
    const std::uint32_t region = trace_->interval_region(function);
    const auto id = static_cast<std::uint64_t>(interval);
    if (code == Code::RegionEnter) {
      b.interval_begin(ctx, t, region, id, callsite);
    } else {
      b.interval_end(ctx, t, region, id, callsite);
    }
  } else if (code == Code::RegionEnter) {
    b.enter(ctx, t, trace_->function_region(function), callsite);
  } else {
    b.leave(ctx, t);
  }
}

// A replay's steps run as the Instructions interpret_sequences() used to write for them
// (sequence_program.cpp): the same order, times and counts, without the copy.
void Engine::run_steps(std::uint32_t ctx, std::uint64_t popped_seq) {
  fresh_ = true;
  popped_seq_ = popped_seq;
  const ReplaySteps &st = program_.steps;
  const std::uint32_t end = st.end[static_cast<std::size_t>(rank_of(ctx))];
  while (true) {
    const std::uint32_t pc = pc_[ctx];
    // The 64 ranks' steps are 192 interleaved streams read once each, too many for the
    // hardware prefetcher: the next lines of this rank's three columns are asked for here, a
    // few dozen events before the rank reaches them (a line holds 64 kinds, 16 refs and 8
    // seconds).
    __builtin_prefetch(st.kind + pc + 64);
    __builtin_prefetch(st.ref + pc + 16);
    __builtin_prefetch(st.seconds + pc + 16);
    if (pc != end && st.kind[pc] == StepKind::Compute && !(st.seconds[pc] > 0.0)) {
      pc_[ctx] = pc + 1; // no instruction
      continue;
    }
    if ((++instructions_ & 0x3fffffU) == 0 && options_.progress) {
      report_progress();
    }
    if (pc == end) {
      finish_thread(ctx);
      return;
    }
    const std::uint32_t ref = st.ref[pc];
    switch (st.kind[pc]) {
    case StepKind::Compute:
      // The delay the instruction held was seconds * 1e9 too: the same double.
      if (!run_elapse(ctx, Code::Elapse, st.node_of_region(ref), 0, st.seconds[pc] * 1e9)) {
        return;
      }
      break;
    case StepKind::Enter:
      ++node_freq_[st.node_of_region(ref)];
      run_region(ctx, Code::RegionEnter, 1 + ref, 0);
      break;
    case StepKind::Leave:
      run_region(ctx, Code::RegionLeave, ref == kNoSequenceRef ? 0 : 1 + ref, 0);
      break;
    case StepKind::Call: {
      const Instruction &ins = st.call[ref];
      const double seconds = st.seconds[pc];
      if (ins.code == Code::LocalCall) {
        if (!run_elapse(ctx, Code::LocalCall, ins.node, ins.a, seconds * 1e9)) {
          return;
        }
      } else if (!run_comm(ctx, ins.node, program_.comms[ins.a],
                           seconds > 0.0 ? seconds * 1e9 : 0.0)) {
        return;
      }
      break;
    }
    }
    pc_[ctx] = pc + 1;
  }
}

Instruction Engine::instruction_at(std::uint32_t ctx) const {
  const std::uint32_t pc = pc_[ctx];
  if (!program_.steps.used) {
    return program_.code[pc];
  }
  const ReplaySteps &st = program_.steps;
  if (pc == st.end[static_cast<std::size_t>(rank_of(ctx))]) {
    return {Code::End, st.region_node[0], 0, 0};
  }
  const std::uint32_t ref = st.ref[pc];
  switch (st.kind[pc]) {
  case StepKind::Compute:
    return {Code::Elapse, st.node_of_region(ref), 0, 0};
  case StepKind::Enter:
    return {Code::RegionEnter, st.node_of_region(ref), 1 + ref, 0};
  case StepKind::Leave:
    return {Code::RegionLeave, st.region_node[0], ref == kNoSequenceRef ? 0 : 1 + ref, 0};
  case StepKind::Call:
    break;
  }
  return st.call[ref];
}

void Engine::finish_thread(std::uint32_t ctx) {
  status_[ctx] = Status::Done;
  if (trace_ != nullptr && thread_of(ctx) == 0 && program_.trace_entry) {
    trace_->builder().leave(ctx, TraceRecorder::ns(clock_[ctx]));
  }
}

// ---- the event loop --------------------------------------------------------------------------

void Engine::report_progress() {
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_progress_).count() < options_.progress_interval) {
    return;
  }
  last_progress_ = now;
  ProgressInfo info;
  info.events = events_;
  info.model_time = now_ * 1e-9;
  info.wall_seconds = std::chrono::duration<double>(now - started_).count();
  options_.progress(info);
}

Prediction Engine::run() {
  const auto started = std::chrono::steady_clock::now();
  started_ = last_progress_ = started;
  const std::size_t entry_function =
      model_.function_index(options_.entry.empty() ? model_.entry : options_.entry);
  for (std::int64_t p = 0; p < processes_; ++p) {
    const std::uint32_t ctx = ctx_of(p, 0);
    std::uint64_t *f = frame(ctx);
    for (std::size_t g = 0; g < program_.global_slots.size(); ++g) {
      const auto &e = program_.exprs[static_cast<std::size_t>(program_.global_init[g])];
      model::Value v = e.evaluate(scope(ctx));
      if (program_.slot_types[program_.global_slots[g]] == ValueType::Float &&
          v.type == ValueType::Int) {
        v = model::Value::of_float(static_cast<double>(v.as_int()));
      }
      f[program_.global_slots[g]] = v.bits;
    }
    for (const auto &o : program_.opaques) {
      if (o.kind == model::Opaque::Kind::Weights) {
        for (std::size_t i = 0; i < o.base.weights.size(); ++i) {
          set_float(f, o.state_slot + static_cast<std::uint32_t>(i), 0.0);
        }
      } else {
        // Error diffusion starts half-way, round(k·p) over k evaluations; a test that leaves
        // its loop starts at 0, so every entry runs 1/p iterations (OpaqueInfo::leaves_loop).
        set_float(f, o.state_slot, o.leaves_loop ? 0.0 : 0.5);
      }
    }
    for (const auto &[slot, value] : initial_values_) {
      model::Value v = value;
      if (program_.slot_types[slot] == ValueType::Float && v.type == ValueType::Int) {
        v = model::Value::of_float(static_cast<double>(v.as_int()));
      } else if (program_.slot_types[slot] == ValueType::Int && v.type == ValueType::Float) {
        v = model::Value::of_int(static_cast<std::int64_t>(v.as_float()));
      }
      f[slot] = v.bits;
    }
    std::uint64_t seed = options_.seed ^ (static_cast<std::uint64_t>(p) * 0x9e3779b97f4a7c15ULL);
    f[program_.rng_slot] = splitmix64(seed);
    status_[ctx] = Status::Runnable;
    if (trace_ != nullptr && program_.trace_entry) {
      trace_->builder().enter(ctx, 0, trace_->function_region(entry_function));
    }
    queue_.push(0.0, EventKind::Resume, ctx, generation_[ctx]);
  }
  while (!queue_.empty()) {
    const Event e = queue_.pop();
    ++events_;
    now_ = e.time;
    if (!queue_.empty() && queue_.top().kind == EventKind::Resume) {
      prefetch_delay(queue_.top().target);
    }
    // Progress at coarse granularity: the clock is read once per 65,536 events.
    if ((events_ & 0xffffU) == 0 && options_.progress) {
      report_progress();
    }
    if (options_.max_events != 0 && events_ > options_.max_events) {
      throw Error(ErrorKind::Usage, "interpretation stopped after " +
                                        std::to_string(options_.max_events) +
                                        " events (max_events); at model time " +
                                        std::to_string(e.time * 1e-9) + " s");
    }
    if (e.kind == EventKind::Envelope) {
      if (e.aux == kDirectEnvelope) {
        on_direct_envelope(e.target, e.time);
      } else {
        on_envelope(e.target, e.seq, e.time);
      }
      continue;
    }
    if (e.kind == EventKind::FlowDone) {
      on_flow_wake(e.time);
      continue;
    }
    if (e.kind == EventKind::Settle) {
      // Shares are recomputed once the instant is quiet: ranks resumed at this time may still
      // start or end flows (a rank yields between its operations, so the flows of an all-to-all
      // started at one instant would otherwise be settled once per rank, each time the whole
      // component).
      if (queue_.due_by(e.time)) {
        // Two Settles at one instant would defer to each other forever (each re-queued behind
        // the other, the bucket growing until std::bad_alloc): one is enough, the later one
        // settles every dirty link. There can be two because request_settle() remembers only
        // the last time asked for: flows started ahead of the clock at t, then t', then t again.
        const Event &next = queue_.top();
        if (next.kind == EventKind::Settle && next.time == e.time) {
          continue;
        }
        queue_.push(e.time, EventKind::Settle, 0);
        continue;
      }
      on_settle(e.time);
      continue;
    }
    const std::uint32_t ctx = e.target;
    if (e.aux != generation_[ctx]) {
      continue; // superseded
    }
    if (status_[ctx] == Status::Blocked && wait_[ctx] != WaitKind::AnyRequest) {
      continue;
    }
    if (status_[ctx] == Status::Done || status_[ctx] == Status::Idle) {
      continue;
    }
    status_[ctx] = Status::Runnable;
    clock_[ctx] = std::max(clock_[ctx], e.time);
    if (program_.steps.used) {
      run_steps(ctx, e.seq);
    } else {
      run_thread(ctx, e.seq);
    }
  }
  for (std::uint32_t ctx = 0; ctx < contexts_; ++ctx) {
    if (status_[ctx] == Status::Blocked) {
      raise_deadlock();
    }
  }

  Prediction out;
  out.processes = processes_;
  out.threads = contexts_per_process_ > 1 ? contexts_per_process_ - 1 : options_.threads;
  out.end_times.resize(static_cast<std::size_t>(processes_));
  std::int64_t last = 0;
  for (std::int64_t p = 0; p < processes_; ++p) {
    // LogGP: a process ends when its CPU has processed its last message too (LogGOPSim's host
    // time is the maximum over its CPUs of nexto, anchors §4 Output).
    double end = cpu_free_[static_cast<std::size_t>(p)];
    for (std::int64_t t = 0; t < contexts_per_process_; ++t) {
      end = std::max(end, clock_[ctx_of(p, t)]);
    }
    out.end_times[static_cast<std::size_t>(p)] = end * 1e-9;
    if (end * 1e-9 > out.program_time) {
      out.program_time = end * 1e-9;
      last = p;
    }
  }
  out.error_bound = error_[ctx_of(last, 0)] * 1e-9;
  double max_block = 0.0;
  for (const auto &t : program_.times) {
    max_block = std::max(max_block, t.error);
  }
  if (max_block > 0.0) {
    // C_P = number of measured block executions on the deciding path (notes 000 §4 (7)):
    // bounded here by error_bound / min Δ; the thesis form uses max Δ.
    double min_block = max_block;
    for (const auto &t : program_.times) {
      if (t.error > 0.0) {
        min_block = std::min(min_block, t.error);
      }
    }
    out.error_bound_thesis = std::ceil(out.error_bound / min_block - 1e-9) * max_block;
  }
  // Rollup: a statement's Time and error are its own plus its children's.
  out.nodes.resize(model_.nodes.size());
  for (NodeIndex n = 0; n < model_.nodes.size(); ++n) {
    out.nodes[n] = {model_.nodes[n].id, node_time_[n] * 1e-9, node_freq_[n], node_error_[n]};
  }
  std::vector<NodeIndex> order;
  order.reserve(model_.nodes.size());
  for (const auto &fn : model_.functions) {
    std::vector<NodeIndex> stack{fn.body};
    while (!stack.empty()) {
      const NodeIndex n = stack.back();
      stack.pop_back();
      order.push_back(n);
      for (NodeIndex c : model_.nodes[n].children) {
        stack.push_back(c);
      }
    }
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const NodeIndex p = model_.parent(*it);
    // A call inside a recursive cycle is not added to its statements: the callee's leaves, in
    // the same function bodies, already hold that time.
    const bool recursive = program_.recursive && program_.recursive_site[*it] != 0;
    if (p != model::kNoNode && !recursive) {
      out.nodes[p].time += out.nodes[*it].time;
      out.nodes[p].error_bound += out.nodes[*it].error_bound;
    }
  }
  // Never silently wrong: a model whose sends nothing receives (a loop count or branch the
  // estimation got wrong) says which calls sent them.
  std::uint64_t stray = 0;
  std::map<std::uint32_t, std::uint64_t> stray_by_call;
  for (const auto &m : messages_) {
    if (m.live) {
      ++stray;
      ++stray_by_call[m.comm_op];
    }
  }
  if (stray != 0) {
    std::string calls;
    int shown = 0;
    for (const auto &[op, count] : stray_by_call) {
      if (op == kNone || shown == 3) {
        continue;
      }
      calls += (shown++ == 0 ? "; sent by " : ", ") + model_.describe(program_.comms[op].node) +
               " (" + std::to_string(count) + ")";
    }
    warnings_.push_back(std::to_string(stray) +
                        " message(s) were sent but never received (the program ends with them "
                        "pending; MPI calls this erroneous)" +
                        calls);
  }
  out.engine.events = events_;
  out.engine.messages = message_count_;
  out.engine.direct_messages = direct_message_count_;
  out.engine.instructions = instructions_;
  out.engine.peak_queue = queue_.peak();
  out.engine.flows = flows_.flows_started();
  out.engine.flow_recomputations = flows_.recomputations();
  out.engine.flows_recomputed = flows_.flows_recomputed();
  out.network = network_description_;
  out.engine.state_bytes =
      flows_.state_bytes() + node_of_.size() * sizeof(std::int32_t) +
      (nic_send_free_.size() + nic_recv_free_.size()) * sizeof(double) +
      contexts_ * (sizeof(double) * 5 + sizeof(std::uint32_t) * 7 + 2 + sizeof(CollectiveState)) +
      returns_.size() * sizeof(ReturnEntry) + frames_.size() * sizeof(std::uint64_t) +
      messages_.capacity() * sizeof(Message) + requests_.capacity() * sizeof(Request) +
      direct_messages_.capacity() * sizeof(DirectMessage) +
      (mailbox_head_.size() + mailbox_tail_.size()) * sizeof(std::uint32_t) +
      round_table_.capacity() * sizeof(Round) +
      static_cast<std::size_t>(processes_) * (4 * sizeof(std::uint32_t) + 3 * sizeof(double));
  for (std::size_t c = 0; c < call_stack_.size(); ++c) {
    out.engine.state_bytes += call_stack_[c].capacity() * sizeof(ReturnEntry) +
                              spill_[c].capacity() * sizeof(std::uint64_t);
  }
  out.engine.state_bytes += open_calls_.size() * sizeof(std::uint32_t);
  out.engine.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  out.warnings = warnings_;
  if (trace_ != nullptr) {
    out.trace = recorder_.finish();
  }
  return out;
}

} // namespace parjava::interp
