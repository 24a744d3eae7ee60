// Direct collectives: the rounds of a collective whose messages are all eager on a delay
// network, run without request records, message records or the posted and unexpected queues.
//
// On a delay network (Hockney, measured table; no LogGP, no flows) an eager message is timed
// completely when it is sent (post_send: both links, the data's arrival), and a collective's
// messages match only receives of the same instance of the same collective, by source, in
// sending order. So such a message needs far less than a user's message: a small record, a
// per-thread list of the receives its rounds posted, and a mailbox per process for the
// messages that arrive before their receive. Everything that decides a time or the order of
// events is kept: the sends are made at the same moments, the envelope events are queued at the
// same times with the same sequence numbers, a receive completes at max(the moment it is
// matched, the data's arrival) and a wait resumes its thread from the same event with the same
// time as before. Replays therefore give bit-identical results (benchmarks/explain_speed.md,
// 2026-11-28).
#include <algorithm>

#include "engine.hpp"
#include "parjava/error.hpp"

namespace parjava::interp {

namespace {

bool variable_blocks(Collective kind) {
  return kind == Collective::Gatherv || kind == Collective::Scatterv ||
         kind == Collective::Allgatherv || kind == Collective::Alltoallv ||
         kind == Collective::ReduceScatter;
}

} // namespace

// (Asked only when direct_collectives_.) Every member of an instance must decide the same, so the
// decision reads only what the members share: the collective, the communicator's size and the
// payload (a replay gives every member of an instance the same payload; a model's members evaluate
// their own, which is why models do not use this path). No message of a collective algorithm
// carries more than the payload times the communicator's size (the whole result of an allgather),
// so a payload of at most the eager limit over the size makes every message eager.
bool Engine::direct_eligible(const CommOp &op, const CollectiveState &c, std::int64_t size) const {
  if (c.pre_rounds != 0 || c.post_rounds != 0 || c.force_protocol || c.deliver_sync ||
      variable_blocks(c.kind) ||
      model::operation_info(op.op).family == model::OperationFamily::Pgas) {
    return false;
  }
  const auto members = static_cast<std::uint64_t>(std::max<std::int64_t>(size, 1));
  return c.bytes <= direct_eager_limit_ / members;
}

void Engine::direct_rounds(std::uint32_t ctx, const CommOp &op) {
  // Bounds on what is kept: beyond them, rounds are computed as they are needed.
  constexpr std::size_t kMaxShapes = 256;
  constexpr std::size_t kMaxRounds = std::size_t{1} << 20U;
  CollectiveState &c = collective_[ctx];
  c.round_base = kNone;
  const std::int64_t size = comm_size(c.comm);
  const auto same = [&](const RoundShape &s) {
    return s.kind == c.kind && s.algorithm == c.algorithm && s.first == c.first &&
           s.second == c.second && s.size == size && s.root == c.root && s.bytes == c.bytes;
  };
  std::uint32_t &hint = shape_hint_[static_cast<std::size_t>(&op - program_.comms.data())];
  RoundShape *shape = nullptr;
  if (hint != kNone && same(round_shapes_[hint])) {
    shape = &round_shapes_[hint];
  } else {
    for (std::size_t i = 0; i < round_shapes_.size() && shape == nullptr; ++i) {
      if (same(round_shapes_[i])) {
        shape = &round_shapes_[i];
        hint = static_cast<std::uint32_t>(i);
      }
    }
  }
  if (shape == nullptr && round_shapes_.size() < kMaxShapes) {
    hint = static_cast<std::uint32_t>(round_shapes_.size());
    const auto n = static_cast<std::size_t>(size);
    round_shapes_.push_back({c.kind, c.algorithm, c.first, c.second, size, c.root, c.bytes,
                             std::vector<std::uint32_t>(n, kNone), std::vector<std::uint32_t>(n)});
    shape = &round_shapes_.back();
  }
  const std::int64_t p = rank_of(ctx);
  const std::int64_t me =
      c.comm == 0 ? p
      : c.comm == 1
          ? 0
          : [&] {
              const auto &m = comms_[c.comm].members;
              return static_cast<std::int64_t>(
                  std::find(m.begin(), m.end(), static_cast<std::int32_t>(p)) - m.begin());
            }();
  const auto mine = static_cast<std::size_t>(me);
  if (shape != nullptr && shape->base[mine] != kNone) {
    c.rounds = shape->count[mine];
    c.round_base = shape->base[mine];
    return;
  }
  Round unused;
  const CollectiveCall call = call_of(ctx, op, kNone, unused);
  c.rounds = round_count(call);
  if (shape == nullptr || round_table_.size() + c.rounds > kMaxRounds) {
    return;
  }
  shape->base[mine] = static_cast<std::uint32_t>(round_table_.size());
  shape->count[mine] = c.rounds;
  for (std::uint32_t k = 0; k < c.rounds; ++k) {
    round_table_.push_back(round_at(call, k));
  }
  c.round_base = shape->base[mine];
}

// post_send's eager branch: the same link times (eager_times), the send complete at the end of
// its injection, the envelope queued at the same time.
void Engine::direct_send(std::uint32_t ctx, std::int64_t dest, std::uint64_t bytes) {
  CollectiveState &c = collective_[ctx];
  const std::int64_t p = rank_of(ctx);
  const NetworkTiming &nt = net(p, dest);
  if (bytes > nt.eager_limit) {
    throw Error(ErrorKind::Usage, "internal: a direct collective message of " +
                                      std::to_string(bytes) + " bytes is not eager");
  }
  ++message_count_;
  ++direct_message_count_;
  const EagerTimes e = eager_times(p, dest, nt, &nt != &inter_, bytes, clock_[ctx]);
  c.posted_done = std::max(c.posted_done, e.start + e.occupancy);
  c.outstanding = true;
  std::uint32_t m = 0;
  if (!direct_free_.empty()) {
    m = direct_free_.back();
    direct_free_.pop_back();
  } else {
    m = static_cast<std::uint32_t>(direct_messages_.size());
    direct_messages_.emplace_back();
  }
  direct_messages_[m] = DirectMessage{
      kNone, c.comm, c.seq, static_cast<std::int32_t>(p), static_cast<std::int32_t>(dest), e.data};
  queue_.push(e.envelope, EventKind::Envelope, m, kDirectEnvelope);
}

// on_envelope and match for a direct message: it completes the oldest receive of its receiver
// waiting for it (resuming the receiver when that was the last one its wait needed), or else
// waits in the mailbox.
void Engine::on_direct_envelope(std::uint32_t m, double now) {
  const DirectMessage &d = direct_messages_[m];
  const std::uint32_t rctx = ctx_of(d.dest, 0);
  const CollectiveState &rc = collective_[rctx];
  if (rc.direct && rc.comm == d.comm && rc.seq == d.seq) {
    for (DirectRecv &r : direct_recvs_[rctx]) {
      if (r.matched || r.source != d.source) {
        continue;
      }
      r.matched = true;
      r.done = std::max(now, d.data);
      direct_free_.push_back(m);
      if (status_[rctx] == Status::Blocked && wait_[rctx] == WaitKind::Collective) {
        wake_[rctx] = std::max(wake_[rctx], r.done);
        if (--pending_[rctx] == 0) {
          resume(rctx, std::max(wake_[rctx], clock_[rctx]));
        }
      }
      return;
    }
  }
  const auto q = static_cast<std::size_t>(d.dest);
  direct_messages_[m].next = kNone;
  if (mailbox_tail_[q] == kNone) {
    mailbox_head_[q] = m;
  } else {
    direct_messages_[mailbox_tail_[q]].next = m;
  }
  mailbox_tail_[q] = m;
}

// post_recv for a direct round: matched now by the oldest message from `source` (world rank)
// in the mailbox, or left for its envelope to match.
void Engine::direct_post_recv(std::uint32_t ctx, std::int64_t source) {
  CollectiveState &c = collective_[ctx];
  c.outstanding = true;
  const auto q = static_cast<std::size_t>(rank_of(ctx));
  std::uint32_t prev = kNone;
  for (std::uint32_t m = mailbox_head_[q]; m != kNone; prev = m, m = direct_messages_[m].next) {
    const DirectMessage &d = direct_messages_[m];
    if (d.source != source || d.seq != c.seq || d.comm != c.comm) {
      continue;
    }
    c.posted_done = std::max(c.posted_done, std::max(clock_[ctx], d.data));
    if (prev == kNone) {
      mailbox_head_[q] = d.next;
    } else {
      direct_messages_[prev].next = d.next;
    }
    if (mailbox_tail_[q] == m) {
      mailbox_tail_[q] = prev;
    }
    direct_free_.push_back(m);
    return;
  }
  direct_recvs_[ctx].push_back({static_cast<std::int32_t>(source), false, 0.0});
}

// wait_requests for a direct round: everything posted since the last wait. True when all of it
// is complete (the clock then moves to the latest completion), false when the thread blocked
// (the envelope that completes its last receive resumes it).
bool Engine::direct_wait(std::uint32_t ctx) {
  CollectiveState &c = collective_[ctx];
  std::vector<DirectRecv> &recvs = direct_recvs_[ctx];
  double done = c.posted_done;
  std::uint32_t open = 0;
  for (const DirectRecv &r : recvs) {
    if (r.matched) {
      done = std::max(done, r.done);
    } else {
      ++open;
    }
  }
  if (open != 0) {
    pending_[ctx] = open;
    wake_[ctx] = done;
    wake_error_[ctx] = 0.0;
    block(ctx, WaitKind::Collective);
    return false;
  }
  recvs.clear();
  c.posted_done = 0.0;
  c.outstanding = false;
  clock_[ctx] = std::max(clock_[ctx], done);
  return true;
}

// run_collective's rounds for a direct collective: the same phases (2 + 3 k + step), yields
// and waits.
bool Engine::run_direct_collective(std::uint32_t ctx, const CommOp &op) {
  CollectiveState &c = collective_[ctx];
  const std::uint32_t total = c.rounds;
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
      if (c.round_base != kNone) {
        c.current = round_table_[c.round_base + k];
      } else {
        (void)call_of(ctx, op, k, c.current);
      }
      if (c.current.recv_peer != -1) {
        direct_post_recv(ctx, world_rank(c.comm, c.current.recv_peer, p));
        c.received += c.current.recv_bytes;
      }
      ++phase;
    }
    const Round &rd = c.current;
    if (step <= 1) {
      if (rd.send_peer >= 0) {
        if (must_yield(ctx)) {
          queue_.push(clock_[ctx], EventKind::Resume, ctx, generation_[ctx]);
          return false;
        }
        fresh_ = false;
        direct_send(ctx, world_rank(c.comm, rd.send_peer, p), rd.send_bytes);
        c.sent += rd.send_bytes;
      }
      ++phase;
      if (!rd.wait) {
        ++phase; // next round, no wait
        continue;
      }
    }
    if (!direct_wait(ctx)) {
      return false; // resumed with every receive matched, the wait then succeeds
    }
    if (rd.reduce && reduce_ns > 0.0) {
      clock_[ctx] += static_cast<double>(rd.recv_bytes) * reduce_ns;
    }
    phase = 2 + 3 * (k + 1);
  }
  // Anything posted without a wait (a linear root's last sends) is waited for now.
  return !c.outstanding || direct_wait(ctx);
}

} // namespace parjava::interp
