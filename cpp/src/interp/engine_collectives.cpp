// Collectives: MPI collectives and communicator creation run as rounds of point-to-point
// messages on the communicator's collective context (collective_algorithm.hpp); PGAS
// collectives add the entry/exit synchronisation their IN/OUT modes ask for (seed 001 §2.9).
#include <algorithm>
#include <otf2/OTF2_Events.h>
#include <otf2/OTF2_GeneralDefinitions.h>

#include "engine.hpp"
#include "parjava/error.hpp"

namespace parjava::interp {

using model::Operation;

namespace {

constexpr std::int64_t kAnyPeer = -3; // Round::recv_peer: a receive from any rank (permute)

OTF2_CollectiveOp otf2_op(Operation op) {
  switch (op) {
  case Operation::Barrier:
  case Operation::PgasBarrier:
  case Operation::PgasFree:
    return OTF2_COLLECTIVE_OP_BARRIER;
  case Operation::Bcast:
  case Operation::PgasBroadcast:
    return OTF2_COLLECTIVE_OP_BCAST;
  case Operation::Reduce:
  case Operation::PgasReduce:
    return OTF2_COLLECTIVE_OP_REDUCE;
  case Operation::Allreduce:
    return OTF2_COLLECTIVE_OP_ALLREDUCE;
  case Operation::Gather:
  case Operation::PgasGather:
    return OTF2_COLLECTIVE_OP_GATHER;
  case Operation::Gatherv:
    return OTF2_COLLECTIVE_OP_GATHERV;
  case Operation::Scatter:
  case Operation::PgasScatter:
    return OTF2_COLLECTIVE_OP_SCATTER;
  case Operation::Scatterv:
    return OTF2_COLLECTIVE_OP_SCATTERV;
  case Operation::Allgather:
  case Operation::PgasGatherAll:
    return OTF2_COLLECTIVE_OP_ALLGATHER;
  case Operation::Allgatherv:
    return OTF2_COLLECTIVE_OP_ALLGATHERV;
  case Operation::Alltoall:
  case Operation::PgasExchange:
  case Operation::PgasPermute:
    return OTF2_COLLECTIVE_OP_ALLTOALL;
  case Operation::Alltoallv:
    return OTF2_COLLECTIVE_OP_ALLTOALLV;
  case Operation::Scan:
  case Operation::PgasPrefixReduce:
    return OTF2_COLLECTIVE_OP_SCAN;
  case Operation::Exscan:
    return OTF2_COLLECTIVE_OP_EXSCAN;
  case Operation::ReduceScatter:
    return OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
  case Operation::CommSplit:
  case Operation::CommDup:
  case Operation::CommCreate:
    return OTF2_COLLECTIVE_OP_CREATE_HANDLE;
  case Operation::PgasAlloc:
    return OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE;
  default:
    return OTF2_COLLECTIVE_OP_BARRIER;
  }
}

bool rooted(Collective c) {
  return c == Collective::Bcast || c == Collective::Reduce || c == Collective::Gather ||
         c == Collective::Gatherv || c == Collective::Scatter || c == Collective::Scatterv;
}

} // namespace

void Engine::start_collective(std::uint32_t ctx, const CommOp &op, Collective kind,
                              std::uint32_t comm, std::int32_t root, std::uint64_t bytes) {
  CollectiveState &c = collective_[ctx];
  const CollectiveState fresh_state{};
  const bool pgas = model::operation_info(op.op).family == model::OperationFamily::Pgas;
  c = fresh_state;
  c.kind = kind;
  c.comm = comm;
  c.root = root;
  c.bytes = bytes;
  // Collectives on one communicator are numbered in call order (the same on every member),
  // and the number tags their messages: rounds of different ranks need not line up.
  c.seq = coll_seq(comm, rank_of(ctx))++;
  const std::int64_t size = comm_size(comm);
  // Algorithm: the leaf's own choice, then the run's overrides, then Open MPI's decision.
  std::uint64_t decision_bytes = bytes;
  if (kind == Collective::ReduceScatter || kind == Collective::Allgatherv) {
    block_ctx_ = ctx;
    block_op_ = &op;
    std::uint64_t total = 0;
    for (std::int64_t r = 0; r < size; ++r) {
      total += arg_bytes(ctx, op, Arg::Bytes, r);
    }
    decision_bytes =
        kind == Collective::Allgatherv ? total / static_cast<std::uint64_t>(size) : total;
  }
  // The decision is a function of the leaf, the size and the payload: a leaf called again
  // with the same ones (every instance of a replayed call) reuses it.
  Decision &d = decisions_[static_cast<std::size_t>(&op - program_.comms.data())];
  if (d.size == size && d.bytes == bytes && d.decision_bytes == decision_bytes) {
    c.algorithm = d.algorithm;
    c.first = d.first;
    c.second = d.second;
  } else {
    Algorithm alg = static_cast<Algorithm>(op.algorithm);
    if (alg == Algorithm::Auto) {
      const auto it = options_.algorithms.find(std::string(collective_name(kind)));
      if (it != options_.algorithms.end()) {
        alg = algorithm_by_name(it->second).value_or(Algorithm::Auto);
        if (!supports(kind, alg)) {
          alg = Algorithm::Auto; // an override for another collective family; keep the decision
        }
      }
    }
    if (alg == Algorithm::Auto) {
      alg = decide(kind, size, decision_bytes);
    }
    if (pgas) {
      switch (op.op) {
      case Operation::PgasBroadcast:
      case Operation::PgasScatter:
      case Operation::PgasGather:
      case Operation::PgasReduce:
      case Operation::PgasAlloc:
        alg = Algorithm::Binomial;
        break;
      case Operation::PgasExchange:
        alg = Algorithm::Pairwise;
        break;
      case Operation::PgasPrefixReduce:
        alg = Algorithm::Linear;
        break;
      default:
        break;
      }
    }
    c.algorithm = alg;
    c.first = decide(Collective::Reduce, size,
                     kind == Collective::ReduceScatter ? decision_bytes : bytes);
    c.second =
        decide(Collective::Bcast, size,
               kind == Collective::Allgather ? bytes * static_cast<std::uint64_t>(size) : bytes);
    if (c.first == Algorithm::Linear && c.algorithm == Algorithm::NonOverlapping &&
        kind == Collective::Allreduce) {
      c.first = Algorithm::Linear;
    }
    d = {size, bytes, decision_bytes, c.algorithm, c.first, c.second};
  }
  Round unused;
  c.direct = direct_collectives_ && direct_eligible(op, c, size);
  if (c.direct) {
    direct_rounds(ctx, op);
  } else if (op.op == Operation::PgasPermute) {
    c.rounds = size > 1 ? 1 : 0;
  } else {
    c.rounds = round_count(call_of(ctx, op, kNone, unused));
  }
  if (pgas && size > 1) {
    const std::uint32_t barrier =
        round_count({Collective::Barrier, Algorithm::Dissemination, Algorithm::Linear,
                     Algorithm::Linear, size, local_rank(ctx, 0), 0, 0, nullptr});
    const bool is_sync_collective = op.op != Operation::PgasBarrier &&
                                    op.op != Operation::PgasFree && op.op != Operation::PgasAlloc;
    if (is_sync_collective) {
      c.pre_rounds = op.sync_in == 2 ? barrier : 0;
      c.post_rounds = op.sync_out == 2 ? barrier : 0;
      c.force_protocol = true;
      c.forced = op.sync_in == 1 ? Protocol::Rendezvous : Protocol::Eager;
      c.deliver_sync = op.sync_out == 1;
    } else if (op.op == Operation::PgasAlloc) {
      c.post_rounds = barrier; // shmem_malloc ends with a barrier
    }
  }
  if (trace_ != nullptr) {
    trace_->builder().collective_begin(ctx, TraceRecorder::ns(clock_[ctx]));
  }
}

CollectiveCall Engine::call_of(std::uint32_t ctx, const CommOp &op, std::uint32_t round,
                               Round &out) {
  const CollectiveState &c = collective_[ctx];
  const std::int64_t size = comm_size(c.comm);
  const std::int64_t me =
      c.comm == 0   ? rank_of(ctx)
      : c.comm == 1 ? 0
                    : [&] {
                        const auto &m = comms_[c.comm].members;
                        return static_cast<std::int64_t>(
                            std::find(m.begin(), m.end(), static_cast<std::int32_t>(rank_of(ctx))) -
                            m.begin());
                      }();
  CollectiveCall call{c.kind, c.algorithm, c.first, c.second, size, me, c.root, c.bytes, nullptr};
  const bool v = c.kind == Collective::Gatherv || c.kind == Collective::Scatterv ||
                 c.kind == Collective::Allgatherv || c.kind == Collective::Alltoallv ||
                 c.kind == Collective::ReduceScatter;
  if (v) {
    block_ctx_ = ctx;
    block_op_ = &op;
    block_bytes_ = [this](std::int64_t peer) {
      return arg_bytes(block_ctx_, *block_op_, Arg::Bytes, peer);
    };
    call.block_bytes = &block_bytes_;
  }
  if (round == kNone) {
    return call;
  }
  if (round < c.pre_rounds || round >= c.pre_rounds + c.rounds) {
    const CollectiveCall barrier{Collective::Barrier,
                                 Algorithm::Dissemination,
                                 Algorithm::Linear,
                                 Algorithm::Linear,
                                 size,
                                 me,
                                 0,
                                 0,
                                 nullptr};
    out = round_at(barrier, round < c.pre_rounds ? round : round - c.pre_rounds - c.rounds);
    return call;
  }
  const std::uint32_t k = round - c.pre_rounds;
  if (op.op == Operation::PgasPermute) {
    // upc_all_permute: each thread's block goes to perm[rank]; the sender of ours is unknown
    // to us, so the receive takes any source.
    out = Round{};
    out.send_peer = arg_int(ctx, op, Arg::Dest);
    out.send_bytes = c.bytes;
    out.recv_peer = kAnyPeer;
    out.recv_bytes = c.bytes;
    if (out.send_peer < 0 || out.send_peer >= size) {
      throw Error(ErrorKind::Model, "model '" + model_.name + "', " + model_.describe(op.node) +
                                        ": permute destination " + std::to_string(out.send_peer) +
                                        " outside 0.." + std::to_string(size - 1) +
                                        guessed_peers_note("address a rank outside"));
    }
    return call;
  }
  out = round_at(call, k);
  return call;
}

bool Engine::run_collective(std::uint32_t ctx, const CommOp &op) {
  CollectiveState &c = collective_[ctx];
  if (c.direct) {
    if (!run_direct_collective(ctx, op)) {
      return false;
    }
    end_collective_trace(ctx, op);
    return true;
  }
  const std::uint32_t total = c.pre_rounds + c.rounds + c.post_rounds;
  const std::uint32_t op_index = static_cast<std::uint32_t>(&op - program_.comms.data());
  const double reduce_ns = options_.reduction_seconds_per_byte * 1e9;
  std::uint32_t &phase = phase_[ctx];
  const std::int64_t p = rank_of(ctx);
  while (true) {
    const std::uint32_t k = (phase - 2) / 3;
    const std::uint32_t step = (phase - 2) % 3;
    if (k >= total) {
      break;
    }
    if (step == 0) {
      (void)call_of(ctx, op, k, c.current);
    }
    const Round &rd = c.current;
    const auto tag = static_cast<std::int32_t>(
        ((static_cast<std::uint32_t>(c.kind) & 0x1fU) << 24U) | (c.seq & 0xffffffU));
    if (step == 0) {
      if (rd.recv_peer != -1) {
        post_recv(ctx, c.comm, rd.recv_peer == kAnyPeer ? model::kAnySource : rd.recv_peer, tag, 0,
                  0, 0, op_index, true);
        c.received += rd.recv_bytes;
      }
      ++phase;
      continue;
    }
    if (step == 1) {
      if (rd.send_peer >= 0) {
        const std::int64_t dest = world_rank(c.comm, rd.send_peer, p);
        if (must_yield(ctx)) {
          queue_.push(clock_[ctx], EventKind::Resume, ctx, generation_[ctx]);
          return false;
        }
        if (const NetworkTiming &nt = net(p, dest); nt.loggp) {
          const double ready = std::max(cpu_ready(ctx), send_free(p, &nt != &inter_));
          if (ready > clock_[ctx]) {
            queue_.push_with_seq(ready, fresh_ ? popped_seq_ : queue_.next_seq(), EventKind::Resume,
                                 ctx, generation_[ctx]);
            return false;
          }
        }
        fresh_ = false;
        post_send(ctx, c.comm, rd.send_peer, tag, rd.send_bytes, Operation::Send, 0, 0, op_index,
                  true);
        c.sent += rd.send_bytes;
      }
      ++phase;
      if (!rd.wait) {
        ++phase; // next round, no wait
        continue;
      }
      if (!wait_requests(ctx, true, 0, 0, false)) {
        return false;
      }
    } else {
      finish_wait(ctx);
    }
    // Round complete: drop its requests, apply the operator to what arrived.
    for (std::uint32_t r = owned_[ctx]; r != kNone;) {
      const std::uint32_t next = requests_[r].next_owned;
      if (requests_[r].collective && requests_[r].complete && requests_[r].awaited) {
        release_request(r);
      }
      r = next;
    }
    if (rd.reduce && reduce_ns > 0.0) {
      clock_[ctx] += static_cast<double>(rd.recv_bytes) * reduce_ns;
    }
    phase = 2 + 3 * (k + 1);
  }
  // Anything posted without a wait (a linear root's last sends) is waited for now.
  bool outstanding = false;
  for (std::uint32_t r = owned_[ctx]; r != kNone; r = requests_[r].next_owned) {
    outstanding = outstanding || requests_[r].collective;
  }
  if (outstanding) {
    if (phase != 2 + 3 * total + 1) {
      phase = 2 + 3 * total + 1;
      if (!wait_requests(ctx, true, 0, 0, false)) {
        return false;
      }
    } else {
      finish_wait(ctx);
    }
    for (std::uint32_t r = owned_[ctx]; r != kNone;) {
      const std::uint32_t next = requests_[r].next_owned;
      if (requests_[r].collective) {
        release_request(r);
      }
      r = next;
    }
  }
  end_collective_trace(ctx, op);
  return true;
}

void Engine::end_collective_trace(std::uint32_t ctx, const CommOp &op) {
  if (trace_ == nullptr) {
    return;
  }
  const CollectiveState &c = collective_[ctx];
  const std::int64_t p = rank_of(ctx);
  const std::int32_t root =
      rooted(c.kind) ? static_cast<std::int32_t>(world_rank(c.comm, c.root, p)) : trace::kNoRank;
  const std::uint32_t comm = c.comm == 1 ? trace_->self(p) : comms_[c.comm].trace_id;
  trace_->builder().collective_end(ctx, TraceRecorder::ns(clock_[ctx]), otf2_op(op.op), comm, root,
                                   c.sent, c.received);
}

bool Engine::execute_collective(std::uint32_t ctx, const CommOp &op) {
  if (phase_[ctx] == 1) {
    const std::uint32_t comm = comm_of(ctx, op);
    const Collective kind = collective_of(op.op).value_or(Collective::Barrier);
    const std::int64_t size = comm_size(comm);
    std::int64_t root = 0;
    if (rooted(kind)) {
      root = arg_int(ctx, op, Arg::Root);
      if (root < 0 || root >= size) {
        throw Error(ErrorKind::Model, "model '" + model_.name + "', " + model_.describe(op.node) +
                                          ": root " + std::to_string(root) + " on rank " +
                                          std::to_string(rank_of(ctx)) + " is outside " +
                                          comms_[comm].name + " (size " + std::to_string(size) +
                                          ")" + guessed_peers_note("address a rank outside"));
      }
    }
    const std::uint64_t bytes = kind == Collective::Barrier ? 0 : arg_bytes(ctx, op, Arg::Bytes);
    start_collective(ctx, op, kind, comm, static_cast<std::int32_t>(root), bytes);
    phase_[ctx] = 2;
  }
  return run_collective(ctx, op);
}

// MPI_Comm_split / MPI_Comm_dup: every member records (colour, key), an allgather of them is
// timed as Open MPI does it, then the groups are formed by (colour, key, old rank).
bool Engine::execute_split(std::uint32_t ctx, const CommOp &op) {
  const std::int64_t p = rank_of(ctx);
  const std::uint32_t parent = comm_of(ctx, op);
  if (phase_[ctx] == 1) {
    const std::uint64_t key = (static_cast<std::uint64_t>(parent) << 32U) | coll_seq(parent, p);
    const std::int64_t size = comm_size(parent);
    SplitInstance &s = splits_[key];
    if (s.color.empty()) {
      s.color.assign(static_cast<std::size_t>(size), 0);
      s.key.assign(static_cast<std::size_t>(size), 0);
    }
    const std::int64_t me = world_rank(0, p, p) == p && parent == 0 ? p : [&] {
      if (parent == 1) {
        return std::int64_t{0};
      }
      const auto &m = comms_[parent].members;
      return static_cast<std::int64_t>(std::find(m.begin(), m.end(), static_cast<std::int32_t>(p)) -
                                       m.begin());
    }();
    const bool dup = op.op == Operation::CommDup;
    if (op.op == Operation::CommCreate) {
      // A split whose colour is the group (its id; MPI_UNDEFINED outside it) and whose key is
      // the rank in the group, so the new communicator lists the members in the group's order.
      const std::uint32_t group = comm_slot(ctx, op, Arg::GroupIndex);
      const std::int64_t position = local_rank(ctx, group);
      s.color[static_cast<std::size_t>(me)] =
          position >= 0 ? static_cast<std::int64_t>(comm_id(ctx, group, op.node)) : -1;
      s.key[static_cast<std::size_t>(me)] = position;
    } else {
      s.color[static_cast<std::size_t>(me)] = dup ? 0 : arg_int(ctx, op, Arg::Color);
      s.key[static_cast<std::size_t>(me)] = dup ? me : arg_int(ctx, op, Arg::Key, me);
    }
    ++s.arrived;
    start_collective(ctx, op, Collective::Allgather, parent, 0, 8);
    phase_[ctx] = 2;
  }
  if (!run_collective(ctx, op)) {
    return false;
  }
  const std::uint64_t key = (static_cast<std::uint64_t>(parent) << 32U) | collective_[ctx].seq;
  SplitInstance &s = splits_[key];
  const std::int64_t size = comm_size(parent);
  if (!s.built) {
    s.built = true;
    s.result_comm.assign(static_cast<std::size_t>(size), kNone);
    s.result_rank.assign(static_cast<std::size_t>(size), -1);
    std::vector<std::int64_t> order;
    for (std::int64_t r = 0; r < size; ++r) {
      if (s.color[static_cast<std::size_t>(r)] >= 0) {
        order.push_back(r);
      }
    }
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      const auto ia = static_cast<std::size_t>(a);
      const auto ib = static_cast<std::size_t>(b);
      if (s.color[ia] != s.color[ib]) {
        return s.color[ia] < s.color[ib];
      }
      return s.key[ia] != s.key[ib] ? s.key[ia] < s.key[ib] : a < b;
    });
    for (std::size_t i = 0; i < order.size();) {
      const std::int64_t color = s.color[static_cast<std::size_t>(order[i])];
      Communicator comm;
      comm.name = slot_names_[comm_slot(ctx, op, true)] +
                  (op.op == Operation::CommSplit ? " (colour " + std::to_string(color) + ")" : "");
      const auto id = static_cast<std::uint32_t>(comms_.size());
      for (; i < order.size() && s.color[static_cast<std::size_t>(order[i])] == color; ++i) {
        const auto local = static_cast<std::size_t>(order[i]);
        s.result_comm[local] = id;
        s.result_rank[local] = static_cast<std::int32_t>(comm.members.size());
        comm.members.push_back(static_cast<std::int32_t>(world_rank(parent, order[i], p)));
      }
      if (op.op == Operation::CommCreate && static_cast<std::int64_t>(comm.members.size()) !=
                                                comm_size(static_cast<std::uint32_t>(color))) {
        throw Error(ErrorKind::Model,
                    "model '" + model_.name + "', " + model_.describe(op.node) +
                        ": MPI_Comm_create of '" + slot_names_[comm_slot(ctx, op, true)] +
                        "': " + std::to_string(comm.members.size()) + " processes of '" +
                        slot_names_[comm_slot(ctx, op, false)] + "' pass a group of " +
                        std::to_string(comm_size(static_cast<std::uint32_t>(color))) +
                        " (the group has processes outside the communicator, or its members "
                        "disagree about it)");
      }
      if (trace_ != nullptr) {
        comm.trace_id = trace_->add_communicator(comm.name, comm.members);
      }
      comms_.push_back(std::move(comm));
    }
  }
  const std::int64_t me =
      parent == 0 ? p
      : parent == 1
          ? 0
          : [&] {
              const auto &m = comms_[parent].members;
              return static_cast<std::int64_t>(
                  std::find(m.begin(), m.end(), static_cast<std::int32_t>(p)) - m.begin());
            }();
  const std::size_t slot = (comm_slot(ctx, op, true) - 2) * static_cast<std::size_t>(processes_) +
                           static_cast<std::size_t>(p);
  comm_slot_[slot] = s.result_comm[static_cast<std::size_t>(me)];
  comm_local_[slot] = s.result_rank[static_cast<std::size_t>(me)];
  if (++s.finished == size) {
    splits_.erase(key);
  }
  return true;
}

} // namespace parjava::interp
