// Threads (notes 000 §2.7, §3.6) and PGAS operations (seed 001), and the dispatch of
// communication leaves.
//
// Task groups: the main thread hands out tasks, paying time_tStart each (pr_SetTask); a pool
// thread takes a task at max(its clock, the moment the task was handed out) with a copy of the
// main thread's variables; the main thread resumes at the maximum of the task end times
// (the fork/join clock rule).
// Locks and semaphores: sem_ts is the moment a semaphore was released; a thread that finds it
// taken waits until the holder's unlock and takes it then (time_lock = sem_ts - time); waiters
// are served in the model-time order of their requests.
#include <algorithm>
#include <array>
#include <cmath>

#include "engine.hpp"
#include "parjava/error.hpp"

namespace parjava::interp {

using model::Operation;

std::uint64_t Engine::lock_key(std::int64_t process, std::uint32_t lock, std::int64_t index) {
  return (static_cast<std::uint64_t>(process + 1) << 40U) ^
         (static_cast<std::uint64_t>(lock) << 28U) ^ static_cast<std::uint64_t>(index);
}

namespace {

// Which execute_* runs an operation. Asked once per communication leaf, so it is a table made
// once rather than operation_info() and is_collective() (calls into the model library) each
// time.
enum class LeafKind : std::uint8_t {
  Thread,
  Pgas,
  Completion,
  Split,
  CommAssign,
  CommQuery,
  GroupIncl,
  Collective,
  P2p
};

LeafKind leaf_kind(Operation op) {
  switch (model::operation_info(op).family) {
  case model::OperationFamily::Thread:
    return LeafKind::Thread;
  case model::OperationFamily::Pgas:
    return LeafKind::Pgas;
  case model::OperationFamily::Mpi:
    break;
  }
  switch (op) {
  case Operation::Wait:
  case Operation::Waitall:
  case Operation::Waitany:
  case Operation::Test:
  case Operation::Testall:
    return LeafKind::Completion;
  case Operation::CommSplit:
  case Operation::CommDup:
  case Operation::CommCreate:
    return LeafKind::Split;
  case Operation::CommAssign:
    return LeafKind::CommAssign;
  case Operation::CommRank:
  case Operation::CommSize:
    return LeafKind::CommQuery;
  case Operation::GroupIncl:
    return LeafKind::GroupIncl;
  default:
    break;
  }
  return model::is_collective(op) ? LeafKind::Collective : LeafKind::P2p;
}

using LeafKinds = std::array<LeafKind, static_cast<std::size_t>(Operation::Count_)>;

LeafKinds make_leaf_kinds() {
  LeafKinds out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = leaf_kind(static_cast<Operation>(i));
  }
  return out;
}

} // namespace

bool Engine::execute(std::uint32_t ctx, const CommOp &op) {
  if (op.approximate) {
    const auto i = static_cast<std::size_t>(&op - program_.comms.data());
    if (approximate_warned_.size() <= i) {
      approximate_warned_.resize(program_.comms.size(), false);
    }
    if (!approximate_warned_[i]) {
      approximate_warned_[i] = true;
      warnings_.push_back("model '" + model_.name + "', " + model_.describe(op.node) +
                          ": approximate: " + model_.nodes[op.node].approximate);
    }
  }
  static const LeafKinds kinds = make_leaf_kinds();
  switch (kinds[static_cast<std::size_t>(op.op)]) {
  case LeafKind::Thread:
    return execute_thread_op(ctx, op);
  case LeafKind::Pgas:
    return execute_pgas(ctx, op);
  case LeafKind::Completion:
    return execute_completion(ctx, op);
  case LeafKind::Split:
    return execute_split(ctx, op);
  case LeafKind::CommAssign:
    return execute_comm_assign(ctx, op);
  case LeafKind::CommQuery:
    return execute_comm_query(ctx, op);
  case LeafKind::GroupIncl:
    return execute_group_incl(ctx, op);
  case LeafKind::Collective:
    return execute_collective(ctx, op);
  case LeafKind::P2p:
    break;
  }
  return execute_p2p(ctx, op);
}

// ---- task groups ----------------------------------------------------------------------------

void Engine::task_group(std::uint32_t ctx, const Instruction &ins) {
  const TaskGroupInfo &g = program_.task_groups[ins.a];
  const std::int64_t p = rank_of(ctx);
  if (thread_of(ctx) != 0) {
    throw Error(ErrorKind::Model, model_.describe(ins.node) +
                                      ": a task group was reached inside a task (nested task "
                                      "groups are not supported)");
  }
  const std::int64_t tasks = g.tasks_expr >= 0 ? eval_int(ctx, g.tasks_expr)
                             : g.team          ? team_size_[static_cast<std::size_t>(p)]
                                               : options_.threads;
  if (g.team && tasks > contexts_per_process_ - 1) {
    // An OpenMP region creates its team's threads (OpenMP 5.2 §10.1): they are not queued on a
    // smaller pool, as the tasks of a thread pool are (notes 000 §2.2).
    throw LargerTeam{tasks, model_.describe(ins.node)};
  }
  // An OpenMP team's threads spin for work; a task pool's wait on a condition variable.
  const double start =
      (g.team ? (g.fork_timed ? 0.0 : machine_.threads().team_start) : machine_.threads().start) *
      1e9;
  TaskGroupState &s = task_state_[static_cast<std::size_t>(p)];
  s = TaskGroupState{};
  s.tasks = std::max<std::int64_t>(tasks, 0);
  s.remaining = s.tasks;
  s.base = clock_[ctx];
  s.join = clock_[ctx] + static_cast<double>(s.tasks) * start;
  s.join_error = error_[ctx];
  s.group = ins.a;
  frame(ctx)[g.ntasks_slot] = static_cast<std::uint64_t>(s.tasks);
  // The main thread hands out every task (pr_SetTask: time_tStart each), then waits.
  clock_[ctx] = s.join;
  pc_[ctx] = ins.b;
  if (s.tasks == 0) {
    frame(ctx)[g.ntasks_slot] = 1;
    return;
  }
  const std::int64_t pool = contexts_per_process_ - 1;
  for (std::int64_t t = 0; t < pool && s.next < s.tasks; ++t) {
    const std::uint32_t worker = ctx_of(p, 1 + t);
    const std::int64_t task = s.next++;
    std::copy(frame(ctx), frame(ctx) + program_.frame_slots, frame(worker));
    frame(worker)[g.task_slot] = static_cast<std::uint64_t>(task);
    clock_[worker] = s.base + static_cast<double>(task + 1) * start;
    error_[worker] = error_[ctx];
    pc_[worker] = g.body_pc;
    depth_[worker] = 0;
    phase_[worker] = 0;
    resume(worker, clock_[worker]);
  }
  block(ctx, WaitKind::Join);
}

void Engine::task_end(std::uint32_t ctx) {
  const std::int64_t p = rank_of(ctx);
  TaskGroupState &s = task_state_[static_cast<std::size_t>(p)];
  const TaskGroupInfo &g = program_.task_groups[s.group];
  if (clock_[ctx] > s.join) {
    s.join = clock_[ctx];
    s.join_error = error_[ctx];
  }
  const std::uint32_t main = ctx_of(p, 0);
  if (s.next < s.tasks) {
    // This thread takes the next task, handed out at base + (k+1)·time_tStart.
    const std::int64_t task = s.next++;
    std::copy(frame(main), frame(main) + program_.frame_slots, frame(ctx));
    frame(ctx)[g.task_slot] = static_cast<std::uint64_t>(task);
    const double each =
        g.team ? (g.fork_timed ? 0.0 : machine_.threads().team_start) : machine_.threads().start;
    const double issued = s.base + static_cast<double>(task + 1) * each * 1e9;
    clock_[ctx] = std::max(clock_[ctx], issued);
    pc_[ctx] = g.body_pc;
  } else {
    status_[ctx] = Status::Idle;
  }
  if (--s.remaining == 0) {
    // Back to one thread: a worksharing loop the main thread calls after the group runs whole.
    frame(main)[g.task_slot] = 0;
    frame(main)[g.ntasks_slot] = 1;
    error_[main] = std::max(error_[main], s.join_error);
    resume(main, std::max(s.join, clock_[main]));
  }
}

// ---- thread primitives ------------------------------------------------------------------------

bool Engine::execute_thread_op(std::uint32_t ctx, const CommOp &op) {
  const machine::ThreadCosts &costs = machine_.threads();
  const std::int64_t p = rank_of(ctx);
  switch (op.op) {
  case Operation::ThreadPoolCreate:
    clock_[ctx] +=
        static_cast<double>(arg_int(ctx, op, Arg::Threads, options_.threads)) * costs.create * 1e9;
    return true;
  case Operation::AtomicCreate:
    clock_[ctx] += static_cast<double>(arg_int(ctx, op, Arg::Count, 1)) * costs.atomic_create * 1e9;
    return true;
  case Operation::AtomicCas:
    clock_[ctx] += static_cast<double>(arg_int(ctx, op, Arg::Count, 1)) * costs.atomic_cas * 1e9;
    return true;
  case Operation::Copy:
    clock_[ctx] += static_cast<double>(arg_bytes(ctx, op, Arg::Bytes)) * costs.copy_per_byte * 1e9;
    return true;
  case Operation::SetTeam: {
    const std::int64_t threads = arg_int(ctx, op, Arg::Threads);
    if (threads < 1) {
      throw Error(ErrorKind::Model, model_.describe(op.node) + ": a team of " +
                                        std::to_string(threads) +
                                        " threads (omp_set_num_threads needs at least 1)");
    }
    if (!team_size_.empty()) {
      team_size_[static_cast<std::size_t>(p)] = threads;
    }
    return true;
  }
  case Operation::SemaphoreCreate: {
    LockState &l = locks_[lock_key(p, op.lock, arg_int(ctx, op, Arg::Index))];
    l = LockState{};
    l.permits = arg_int(ctx, op, Arg::Permits, 1);
    clock_[ctx] += costs.semaphore_create * 1e9;
    l.free_at = clock_[ctx];
    return true;
  }
  case Operation::Lock:
  case Operation::TryLock: {
    const std::uint64_t key = lock_key(p, op.lock, arg_int(ctx, op, Arg::Index));
    if (phase_[ctx] == 2) {
      // Handed the lock by its releaser (resume at the unlock time).
      clock_[ctx] += costs.lock * 1e9;
      if (trace_ != nullptr) {
        trace_->builder().lock_acquire(ctx, TraceRecorder::ns(clock_[ctx]),
                                       static_cast<std::int32_t>(p), key);
      }
      return true;
    }
    LockState &l = locks_.try_emplace(key).first->second;
    if (trace_ != nullptr) {
      trace_->builder().lock_request(ctx, TraceRecorder::ns(clock_[ctx]),
                                     static_cast<std::int32_t>(p), key);
    }
    if (l.permits > 0) {
      --l.permits;
      clock_[ctx] += (op.op == Operation::TryLock ? costs.try_lock : costs.lock) * 1e9;
      if (op.out_flag >= 0) {
        frame(ctx)[op.out_flag] = 1;
      }
      if (trace_ != nullptr) {
        trace_->builder().lock_acquire(ctx, TraceRecorder::ns(clock_[ctx]),
                                       static_cast<std::int32_t>(p), key);
      }
      return true;
    }
    if (op.op == Operation::TryLock) {
      clock_[ctx] += costs.try_lock * 1e9;
      if (op.out_flag >= 0) {
        frame(ctx)[op.out_flag] = 0;
      }
      return true;
    }
    // Queue behind the holder (FIFO in model time).
    lock_next_[ctx] = kNone;
    if (l.tail == kNone) {
      l.head = ctx;
    } else {
      lock_next_[l.tail] = ctx;
    }
    l.tail = ctx;
    phase_[ctx] = 2;
    block(ctx, WaitKind::Lock);
    return false;
  }
  case Operation::Unlock: {
    const std::uint64_t key = lock_key(p, op.lock, arg_int(ctx, op, Arg::Index));
    LockState &l = locks_.try_emplace(key).first->second;
    clock_[ctx] += costs.release * 1e9;
    if (trace_ != nullptr) {
      trace_->builder().lock_release(ctx, TraceRecorder::ns(clock_[ctx]),
                                     static_cast<std::int32_t>(p), key);
    }
    l.free_at = clock_[ctx]; // sem_ts (notes 000 §2.7)
    l.free_error = error_[ctx];
    if (l.head != kNone) {
      const std::uint32_t next = l.head;
      l.head = lock_next_[next];
      if (l.head == kNone) {
        l.tail = kNone;
      }
      // time_lock = sem_ts - time: the waiter's clock moves to the release.
      if (l.free_at > clock_[next]) {
        error_[next] = std::max(error_[next], l.free_error);
      }
      resume(next, std::max(l.free_at, clock_[next]));
    } else {
      ++l.permits;
    }
    return true;
  }
  default:
    break;
  }
  throw Error(ErrorKind::Model, "internal: unhandled thread operation");
}

// ---- PGAS -------------------------------------------------------------------------------------

bool Engine::execute_pgas(std::uint32_t ctx, const CommOp &op) {
  const std::int64_t p = rank_of(ctx);
  const auto one_way = [&](std::int64_t a, std::int64_t b, std::uint64_t bytes) {
    return a == b ? 0.0 : net(a, b).transfer_ns(bytes);
  };
  switch (op.op) {
  case Operation::PgasPut:
  case Operation::PgasGet: {
    const std::int64_t target = arg_int(ctx, op, Arg::Target);
    if (target < 0 || target >= processes_) {
      throw Error(ErrorKind::Model, "model '" + model_.name + "', " + model_.describe(op.node) +
                                        ": target " + std::to_string(target) + " outside 0.." +
                                        std::to_string(processes_ - 1));
    }
    const std::uint64_t bytes = arg_bytes(ctx, op, Arg::Bytes);
    const double t = clock_[ctx];
    // A blocking put completes when the data is remote; a get asks (T(0)) and receives (T(n)).
    clock_[ctx] += op.op == Operation::PgasPut ? one_way(p, target, bytes)
                                               : one_way(p, target, 0) + one_way(target, p, bytes);
    if (trace_ != nullptr) {
      if (op.op == Operation::PgasPut) {
        trace_->builder().rma_put(ctx, TraceRecorder::ns(t), static_cast<std::int32_t>(target),
                                  bytes);
      } else {
        trace_->builder().rma_get(ctx, TraceRecorder::ns(t), static_cast<std::int32_t>(target),
                                  bytes);
      }
    }
    return true;
  }
  case Operation::PgasLock: {
    // The lock lives on `home`: the request travels there, is granted when the lock is free,
    // and the grant travels back.
    const std::int64_t home = arg_int(ctx, op, Arg::Home);
    const std::uint64_t key = lock_key(-1, op.lock, arg_int(ctx, op, Arg::Index));
    const double lock_cost = machine_.threads().lock * 1e9;
    if (phase_[ctx] == 2) {
      clock_[ctx] += lock_cost;
      if (trace_ != nullptr) {
        trace_->builder().lock_acquire(ctx, TraceRecorder::ns(clock_[ctx]),
                                       static_cast<std::int32_t>(home), key);
      }
      return true;
    }
    LockState &l = locks_.try_emplace(key).first->second;
    if (trace_ != nullptr) {
      trace_->builder().lock_request(ctx, TraceRecorder::ns(clock_[ctx]),
                                     static_cast<std::int32_t>(home), key);
    }
    const double arrival = clock_[ctx] + one_way(p, home, 8);
    if (l.permits > 0) {
      --l.permits;
      const double grant = std::max(arrival, l.free_at);
      if (l.free_at > arrival) {
        error_[ctx] = std::max(error_[ctx], l.free_error);
      }
      clock_[ctx] = grant + one_way(home, p, 8) + lock_cost;
      if (trace_ != nullptr) {
        trace_->builder().lock_acquire(ctx, TraceRecorder::ns(clock_[ctx]),
                                       static_cast<std::int32_t>(home), key);
      }
      return true;
    }
    lock_arrival_[ctx] = arrival;
    lock_next_[ctx] = kNone;
    if (l.tail == kNone) {
      l.head = ctx;
    } else {
      lock_next_[l.tail] = ctx;
    }
    l.tail = ctx;
    l.home = home;
    phase_[ctx] = 2;
    block(ctx, WaitKind::Lock);
    return false;
  }
  case Operation::PgasUnlock: {
    const std::int64_t home = arg_int(ctx, op, Arg::Home);
    const std::uint64_t key = lock_key(-1, op.lock, arg_int(ctx, op, Arg::Index));
    LockState &l = locks_.try_emplace(key).first->second;
    if (trace_ != nullptr) {
      trace_->builder().lock_release(ctx, TraceRecorder::ns(clock_[ctx]),
                                     static_cast<std::int32_t>(home), key);
    }
    const double released = clock_[ctx] + one_way(p, home, 8);
    l.free_at = released;
    l.free_error = error_[ctx];
    if (l.head != kNone) {
      const std::uint32_t next = l.head;
      l.head = lock_next_[next];
      if (l.head == kNone) {
        l.tail = kNone;
      }
      const double grant = std::max(released, lock_arrival_[next]);
      error_[next] = std::max(error_[next], l.free_error);
      resume(next, grant + one_way(home, rank_of(next), 8));
    } else {
      ++l.permits;
    }
    return true;
  }
  case Operation::PgasNotify: {
    // Split-phase barrier: the release is known when the last thread notifies; a wait ends
    // at max(its start, last notify + ceil(log2 P) message latencies) (a dissemination
    // barrier's rounds after the last arrival).
    const std::uint32_t seq = notify_seq_[static_cast<std::size_t>(p)]++;
    NotifyInstance &n = notifies_[seq];
    ++n.count;
    if (clock_[ctx] > n.last) {
      n.last = clock_[ctx];
      n.error = error_[ctx];
    }
    if (n.count == processes_) {
      const double rounds = std::ceil(std::log2(static_cast<double>(processes_)));
      const NetworkTiming &nt = processes_ > ranks_per_node_ ? inter_ : intra_;
      n.released = true;
      n.release = n.last + rounds * nt.transfer_ns(0);
      for (const std::uint32_t w : n.waiters) {
        error_[w] = std::max(error_[w], n.error);
        resume(w, std::max(n.release, clock_[w]));
      }
      n.waiters.clear();
    }
    return true;
  }
  case Operation::PgasWait: {
    const std::uint32_t seq = notify_seq_[static_cast<std::size_t>(p)] - 1;
    if (phase_[ctx] == 2) {
      NotifyInstance &n = notifies_[seq];
      if (++n.count == 2 * processes_) {
        notifies_.erase(seq);
      }
      return true;
    }
    const auto it = notifies_.find(seq);
    if (notify_seq_[static_cast<std::size_t>(p)] == 0 || it == notifies_.end()) {
      throw Error(ErrorKind::Model, model_.describe(op.node) +
                                        ": upc_wait without a preceding upc_notify on rank " +
                                        std::to_string(p));
    }
    NotifyInstance &n = it->second;
    phase_[ctx] = 2;
    if (n.released) {
      if (n.release > clock_[ctx]) {
        clock_[ctx] = n.release;
        error_[ctx] = std::max(error_[ctx], n.error);
      }
      if (++n.count == 2 * processes_) {
        notifies_.erase(seq);
      }
      return true;
    }
    n.waiters.push_back(ctx);
    block(ctx, WaitKind::Notify);
    return false;
  }
  default:
    break;
  }
  // PGAS collectives (and shmem_malloc / shmem_free), over all threads / PEs.
  if (phase_[ctx] == 1) {
    Collective kind = Collective::Barrier;
    switch (op.op) {
    case Operation::PgasBroadcast:
    case Operation::PgasAlloc:
      kind = Collective::Bcast;
      break;
    case Operation::PgasScatter:
      kind = Collective::Scatter;
      break;
    case Operation::PgasGather:
      kind = Collective::Gather;
      break;
    case Operation::PgasGatherAll:
      kind = Collective::Allgather;
      break;
    case Operation::PgasExchange:
    case Operation::PgasPermute:
      kind = Collective::Alltoall;
      break;
    case Operation::PgasReduce:
      kind = Collective::Reduce;
      break;
    case Operation::PgasPrefixReduce:
      kind = Collective::Scan;
      break;
    default:
      break;
    }
    const std::int64_t root = arg_int(ctx, op, Arg::Root, 0);
    if (root < 0 || root >= processes_) {
      throw Error(ErrorKind::Model, "model '" + model_.name + "', " + model_.describe(op.node) +
                                        ": root " + std::to_string(root) + " outside 0.." +
                                        std::to_string(processes_ - 1));
    }
    const std::uint64_t bytes = op.op == Operation::PgasAlloc ? 8
                                : kind == Collective::Barrier ? 0
                                                              : arg_bytes(ctx, op, Arg::Bytes);
    start_collective(ctx, op, kind, 0, static_cast<std::int32_t>(root), bytes);
    phase_[ctx] = 2;
  }
  return run_collective(ctx, op);
}

} // namespace parjava::interp
