// Point-to-point messaging: envelopes, matching, protocols and requests.
//
// Matching follows MPI: a receive matches on (communicator, source, tag) with ANY_SOURCE and
// ANY_TAG wildcards on the receive side only; messages from one sender match in the order they
// were sent (non-overtaking, kept because envelopes of one sender arrive in send order); a
// wildcard receive takes the first envelope to arrive in model time.
//
// Timing, delay networks (Hockney, measured table; T(n) from the Machine):
//  * eager (size <= eager limit, and every Bsend/Rsend): the data leaves at once; the sender is
//    busy injecting for T(n) - T(0); the data is complete at the receiver T(n) after the send
//    started; a receive completes at max(its post, that arrival).
//  * rendezvous (larger, and every Ssend): notes 000 §3.9 "neighbour read": the transfer starts
//    when both sides are there, max(t_send, t_post), and both complete T(n) later.
//  * with endpoint contention, each process's injection and ejection link carries one message
//    at a time.
// Timing, LogGP: LogGOPSim's rules exactly (anchors/loggopsim-semantics.md §4): the sender's CPU
// pays o + (s-1)O and its NIC g + (s-1)G, the envelope arrives o + L later, the receiver's CPU
// is charged o + (s-1)max(O,G) when the message is processed (at arrival if it is free, or as
// soon as it is), rendezvous releases the sender at the match and raises its CPU and NIC free
// times to that moment. Deviation: (s-1) is taken as 0 for empty messages (LogGOPSim's unsigned
// wrap-around is its quirk 1, meaningless for MPI).
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine.hpp"
#include "parjava/error.hpp"

namespace parjava::interp {

using model::Operation;

// ---- requests and messages -----------------------------------------------------------------

std::uint32_t Engine::new_request(std::uint32_t ctx, RequestKind kind, std::uint32_t name,
                                  std::int64_t index, std::uint32_t comm_op) {
  std::uint32_t r = 0;
  if (!free_requests_.empty()) {
    r = free_requests_.back();
    free_requests_.pop_back();
  } else {
    r = static_cast<std::uint32_t>(requests_.size());
    requests_.emplace_back();
  }
  // One aggregate store of the record, not a zeroing followed by eight stores over it (a
  // request is made per message and per collective round).
  // Newest first; Wait and Test look for the oldest of a name by walking to the end.
  requests_[r] = Request{.next_owned = owned_[ctx],
                         .ctx = ctx,
                         .name = name,
                         .index = index,
                         .kind = kind,
                         .live = true,
                         .post_time = clock_[ctx],
                         .comm_op = comm_op};
  if (owned_[ctx] != kNone) {
    requests_[owned_[ctx]].prev_owned = r;
  } else {
    owned_tail_[ctx] = r;
  }
  owned_[ctx] = r;
  return r;
}

void Engine::release_request(std::uint32_t r) {
  Request &q = requests_[r];
  if (q.prev_owned == kNone) {
    owned_[q.ctx] = q.next_owned;
  } else {
    requests_[q.prev_owned].next_owned = q.next_owned;
  }
  if (q.next_owned != kNone) {
    requests_[q.next_owned].prev_owned = q.prev_owned;
  } else {
    owned_tail_[q.ctx] = q.prev_owned;
  }
  q.live = false;
  free_requests_.push_back(r);
}

namespace {
std::uint32_t take_message(std::vector<Message> &messages, std::vector<std::uint32_t> &free) {
  if (!free.empty()) {
    const std::uint32_t m = free.back();
    free.pop_back();
    return m;
  }
  messages.emplace_back();
  return static_cast<std::uint32_t>(messages.size() - 1);
}

double s1(std::uint64_t bytes) { return bytes > 0 ? static_cast<double>(bytes - 1) : 0.0; }
} // namespace

// ---- communicators ---------------------------------------------------------------------------

std::int64_t Engine::comm_size(std::uint32_t comm) const {
  if (comm == 0) {
    return processes_;
  }
  if (comm == 1) {
    return 1;
  }
  return static_cast<std::int64_t>(comms_[comm].members.size());
}

std::int64_t Engine::world_rank(std::uint32_t comm, std::int64_t local, std::int64_t self) const {
  if (comm == 0) {
    return local;
  }
  if (comm == 1) {
    return self;
  }
  return comms_[comm].members[static_cast<std::size_t>(local)];
}

std::uint32_t Engine::comm_id(std::uint32_t ctx, std::uint32_t slot, model::NodeIndex node) {
  if (slot < 2) {
    return slot;
  }
  const std::size_t i =
      (slot - 2) * static_cast<std::size_t>(processes_) + static_cast<std::size_t>(rank_of(ctx));
  if (comm_slot_[i] == kNone && slot < program_.world_until_assigned.size() &&
      program_.world_until_assigned[slot]) {
    // A field of many records, read before the model filled one (its draws need not follow
    // the order in which the program filled them): world, said once per field.
    comm_slot_[i] = 0;
    comm_local_[i] = static_cast<std::int32_t>(rank_of(ctx));
    if (world_fallback_warned_.insert(slot).second) {
      warnings_.push_back("model '" + model_.name + "', " + model_.describe(node) +
                          ": communicator field '" + slot_names_[slot] +
                          "' is read before the model assigned it (one name for the field of "
                          "every record, filled where the model's draws did not reach yet): "
                          "the model uses world for it until it is assigned");
    }
    return 0;
  }
  if (comm_slot_[i] == kNone) {
    throw Error(ErrorKind::Model,
                "model '" + model_.name + "', " + model_.describe(node) + ": communicator '" +
                    slot_names_[slot] + "' is used on rank " + std::to_string(rank_of(ctx)) +
                    " before it was created there (or its Comm_split gave this rank "
                    "MPI_UNDEFINED, i.e. MPI_COMM_NULL)");
  }
  return comm_slot_[i];
}

std::int64_t Engine::local_rank(std::uint32_t ctx, std::uint32_t slot) const {
  if (slot == 0) {
    return rank_of(ctx);
  }
  if (slot == 1) {
    return 0;
  }
  return comm_local_[(slot - 2) * static_cast<std::size_t>(processes_) +
                     static_cast<std::size_t>(rank_of(ctx))];
}

std::uint32_t Engine::comm_slot(std::uint32_t ctx, const CommOp &op, bool newcomm) {
  return comm_slot(ctx, op, newcomm ? Arg::NewcommIndex : Arg::CommIndex);
}

std::uint32_t Engine::comm_slot(std::uint32_t ctx, const CommOp &op, Arg which) {
  const std::uint32_t name = which == Arg::NewcommIndex ? op.newcomm
                             : which == Arg::GroupIndex ? op.group
                                                        : op.comm;
  if (op.expr[static_cast<std::size_t>(which)] < 0) {
    return name;
  }
  // A bound on the elements, so that a wrong index is an error and not a huge table.
  constexpr std::int64_t kMaxElements = std::int64_t{1} << 16U;
  const std::int64_t k = arg_int(ctx, op, which);
  if (k < 0 || k >= kMaxElements) {
    throw Error(ErrorKind::Model, "model '" + model_.name + "', " + model_.describe(op.node) +
                                      ": element " + std::to_string(k) +
                                      " of the communicator array '" + program_.comm_names[name] +
                                      "' on rank " + std::to_string(rank_of(ctx)) +
                                      " is outside 0.." + std::to_string(kMaxElements - 1));
  }
  std::vector<std::uint32_t> &elements = element_slot_[name];
  const auto index = static_cast<std::size_t>(k);
  if (index >= elements.size()) {
    elements.resize(index + 1, kNone);
  }
  if (elements[index] == kNone) {
    elements[index] = static_cast<std::uint32_t>(slot_names_.size());
    slot_names_.push_back(program_.comm_names[name] + "[" + std::to_string(k) + "]");
    const auto np = static_cast<std::size_t>(processes_);
    comm_slot_.resize(comm_slot_.size() + np, kNone);
    comm_local_.resize(comm_local_.size() + np, -1);
  }
  return elements[index];
}

// `comms[k] = comm`: the element names comm's communicator with this rank's rank in it.
bool Engine::execute_comm_assign(std::uint32_t ctx, const CommOp &op) {
  const std::uint32_t source = comm_slot(ctx, op, false);
  const std::uint32_t target = comm_slot(ctx, op, true);
  const std::uint32_t id = comm_id(ctx, source, op.node);
  const std::size_t i =
      (target - 2) * static_cast<std::size_t>(processes_) + static_cast<std::size_t>(rank_of(ctx));
  comm_slot_[i] = id;
  comm_local_[i] = static_cast<std::int32_t>(local_rank(ctx, source));
  return true;
}

// MPI_Comm_rank / MPI_Comm_size of a communicator other than world: this rank's rank in it, or
// its processes, into the operation's variable.
bool Engine::execute_comm_query(std::uint32_t ctx, const CommOp &op) {
  const std::uint32_t slot = comm_slot(ctx, op, false);
  const std::uint32_t id = comm_id(ctx, slot, op.node);
  const std::int64_t v = op.op == Operation::CommRank ? local_rank(ctx, slot) : comm_size(id);
  if (op.out_index >= 0) {
    const auto s = static_cast<std::uint32_t>(op.out_index);
    frame(ctx)[s] = program_.slot_types[s] == model::ValueType::Float
                        ? std::bit_cast<std::uint64_t>(static_cast<double>(v))
                        : static_cast<std::uint64_t>(v);
  }
  return true;
}

// MPI_Group_incl: the group lists `count` processes of comm (member k is comm's rank `rank` at
// peer = k). A group is kept as a communicator that nothing communicates on, one per distinct
// member list, so that ranks that build the same group name the same one, and this rank's rank
// in it (-1 when it is not a member, MPI_UNDEFINED) is the one MPI_Group_rank gives.
bool Engine::execute_group_incl(std::uint32_t ctx, const CommOp &op) {
  const std::int64_t p = rank_of(ctx);
  const std::uint32_t base_slot = comm_slot(ctx, op, false);
  const std::uint32_t base = comm_id(ctx, base_slot, op.node);
  const std::int64_t size = comm_size(base);
  const std::int64_t count = arg_int(ctx, op, Arg::Count);
  const auto fail = [&](const std::string &why) {
    throw Error(ErrorKind::Model, "model '" + model_.name + "', " + model_.describe(op.node) +
                                      ", rank " + std::to_string(p) + ": " + why);
  };
  if (count < 0 || count > size) {
    fail("a group of " + std::to_string(count) + " members of a communicator of " +
         std::to_string(size) + " processes");
  }
  std::vector<std::int32_t> members;
  members.reserve(static_cast<std::size_t>(count));
  std::int32_t position = -1;
  const std::int32_t member_expr = op.expr[static_cast<std::size_t>(Arg::Member)];
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t r = eval_int(ctx, member_expr, k);
    if (r < 0 || r >= size) {
      fail("member " + std::to_string(k) + " of the group is rank " + std::to_string(r) +
           ", outside the " + std::to_string(size) + " processes of '" + slot_names_[base_slot] +
           "'");
    }
    const auto w = static_cast<std::int32_t>(world_rank(base, r, p));
    if (std::find(members.begin(), members.end(), w) != members.end()) {
      fail("rank " + std::to_string(r) + " is listed twice in the group");
    }
    if (w == p) {
      position = static_cast<std::int32_t>(members.size());
    }
    members.push_back(w);
  }
  auto [it, fresh] = groups_.try_emplace(members, static_cast<std::uint32_t>(comms_.size()));
  if (fresh) {
    Communicator group;
    group.name = slot_names_[comm_slot(ctx, op, true)] + " (group)";
    group.members = std::move(members);
    comms_.push_back(std::move(group));
  }
  const std::size_t i = (comm_slot(ctx, op, true) - 2) * static_cast<std::size_t>(processes_) +
                        static_cast<std::size_t>(p);
  comm_slot_[i] = it->second;
  comm_local_[i] = position;
  return true;
}

// ---- sending and receiving -------------------------------------------------------------------

std::uint32_t Engine::post_send(std::uint32_t ctx, std::uint32_t comm, std::int64_t dest_local,
                                std::int32_t tag, std::uint64_t bytes, Operation mode,
                                std::uint32_t name, std::int64_t index, std::uint32_t comm_op,
                                bool collective) {
  const std::int64_t p = rank_of(ctx);
  const std::uint32_t req = new_request(ctx, RequestKind::Send, name, index, comm_op);
  requests_[req].collective = collective;
  requests_[req].comm_id = comm;
  const double t = clock_[ctx];
  if (dest_local == model::kProcNull) {
    complete(req, t, error_[ctx]);
    return req;
  }
  const std::int64_t size = comm_size(comm);
  if (dest_local < 0 || dest_local >= size) {
    const model::NodeIndex node = program_.comms[comm_op].node;
    throw Error(ErrorKind::Model, "model '" + model_.name + "', " + model_.describe(node) +
                                      ": destination rank " + std::to_string(dest_local) +
                                      " on rank " + std::to_string(p) + " is outside " +
                                      comms_[comm].name + " (size " + std::to_string(size) + ")" +
                                      guessed_peers_note("address a rank outside"));
  }
  const std::int64_t dest = world_rank(comm, dest_local, p);
  const NetworkTiming &nt = net(p, dest);
  const std::uint32_t m = take_message(messages_, free_messages_);
  Message &msg = messages_[m];
  msg = Message{};
  msg.live = true;
  msg.source = static_cast<std::int32_t>(p);
  msg.source_local = static_cast<std::int32_t>(comm == 0 ? p : local_rank(ctx, 0));
  if (comm >= 2) {
    const auto &members = comms_[comm].members;
    msg.source_local = static_cast<std::int32_t>(
        std::find(members.begin(), members.end(), static_cast<std::int32_t>(p)) - members.begin());
  } else if (comm == 1) {
    msg.source_local = 0;
  }
  msg.dest = static_cast<std::int32_t>(dest);
  msg.tag = tag;
  msg.context = comm * 2 + (collective ? 1 : 0);
  msg.bytes = bytes;
  msg.send_time = t;
  msg.error = error_[ctx];
  msg.send_request = req;
  msg.comm_op = comm_op;
  msg.loggp = nt.loggp;
  msg.intra = &nt != &inter_;
  msg.ready_mode = mode == Operation::Rsend || mode == Operation::Irsend;
  switch (mode) {
  case Operation::Bsend:
  case Operation::Ibsend:
  case Operation::Rsend:
  case Operation::Irsend:
    msg.protocol = Protocol::Eager;
    break;
  case Operation::Ssend:
  case Operation::Issend:
    msg.protocol = Protocol::Rendezvous;
    break;
  default:
    msg.protocol = bytes <= nt.eager_limit ? Protocol::Eager : Protocol::Rendezvous;
    break;
  }
  if (collective && collective_[ctx].force_protocol) {
    msg.protocol = collective_[ctx].forced;
  }
  const bool deliver_sync = collective && collective_[ctx].deliver_sync;
  requests_[req].peer_world = static_cast<std::int32_t>(dest);
  requests_[req].completes_at_delivery = deliver_sync;
  ++message_count_;
  double envelope = 0.0;
  if (nt.loggp) {
    // anchors §4 SEND: CPU o + (s-1)O, NIC g + (s-1)G, MSG at t + o + L.
    clock_[ctx] = t + nt.o + s1(bytes) * nt.O;
    send_free(p, msg.intra) = t + nt.g + s1(bytes) * nt.G;
    envelope = t + nt.o + nt.L;
    if (msg.protocol == Protocol::Eager && !deliver_sync) {
      complete(req, t, error_[ctx]);
    }
  } else if (uses_flows(msg)) {
    // Flow-level sharing (engine_network.cpp): the envelope after the route's latency; eager
    // data leaves now as a flow, rendezvous data once matched.
    envelope = t + flow_latency(msg, nt);
    if (msg.protocol == Protocol::Eager) {
      msg.data_time = std::numeric_limits<double>::infinity();
      start_flow(m, t, 0.0, true);
    }
  } else {
    if (msg.protocol == Protocol::Eager) {
      const EagerTimes e = eager_times(p, dest, nt, msg.intra, bytes, t);
      envelope = e.envelope;
      msg.data_time = e.data;
      if (deliver_sync) {
        // PGAS OUT_MYSYNC: the writer leaves when its data is in place.
      } else {
        complete(req, e.start + e.occupancy, error_[ctx]);
      }
    } else {
      const double total = nt.transfer_ns(bytes);
      envelope = t + std::min(nt.transfer_ns(0), total);
    }
  }
  queue_.push(envelope, EventKind::Envelope, m);
  return req;
}

bool Engine::matches(const Request &r, const Message &m) const {
  return r.context == m.context && (r.source == model::kAnySource || r.source == m.source) &&
         (r.tag == model::kAnyTag || r.tag == m.tag);
}

std::uint32_t Engine::post_recv(std::uint32_t ctx, std::uint32_t comm, std::int64_t source_local,
                                std::int32_t tag, std::uint64_t max_bytes, std::uint32_t name,
                                std::int64_t index, std::uint32_t comm_op, bool collective,
                                RequestKind kind) {
  const std::int64_t p = rank_of(ctx);
  const std::uint32_t req = new_request(ctx, kind, name, index, comm_op);
  Request &q = requests_[req];
  q.collective = collective;
  q.comm_id = comm;
  q.context = comm * 2 + (collective ? 1 : 0);
  q.tag = tag;
  q.max_bytes = max_bytes;
  if (source_local == model::kProcNull) {
    q.st_source = static_cast<std::int32_t>(model::kProcNull);
    q.st_world = -1;
    q.st_tag = static_cast<std::int32_t>(model::kAnyTag);
    complete(req, clock_[ctx], error_[ctx]);
    return req;
  }
  if (source_local == model::kAnySource) {
    q.source = static_cast<std::int32_t>(model::kAnySource);
  } else {
    const std::int64_t size = comm_size(comm);
    if (source_local < 0 || source_local >= size) {
      const model::NodeIndex node = program_.comms[comm_op].node;
      throw Error(ErrorKind::Model, "model '" + model_.name + "', " + model_.describe(node) +
                                        ": source rank " + std::to_string(source_local) +
                                        " on rank " + std::to_string(p) + " is outside " +
                                        comms_[comm].name + " (size " + std::to_string(size) + ")" +
                                        guessed_peers_note("address a rank outside"));
    }
    q.source = static_cast<std::int32_t>(world_rank(comm, source_local, p));
  }
  // Unexpected messages first, oldest first.
  const auto pi = static_cast<std::size_t>(p);
  std::uint32_t prev = kNone;
  std::uint32_t first = unexpected_head_[pi];
  if (first != kNone && tag != model::kAnyTag &&
      unexpected_count_.get(unexpected_key(p, q.context, tag)) == 0) {
    first = kNone;
  }
  for (std::uint32_t m = first; m != kNone; prev = m, m = messages_[m].next) {
    if (!matches(requests_[req], messages_[m])) {
      continue;
    }
    if (kind == RequestKind::Probe) {
      Request &pq = requests_[req];
      pq.st_source = messages_[m].source_local;
      pq.st_world = messages_[m].source;
      pq.st_tag = messages_[m].tag;
      pq.st_bytes = messages_[m].bytes;
      complete(req, clock_[ctx], error_[ctx]);
      return req;
    }
    const std::uint32_t next = messages_[m].next;
    --unexpected_count_.at(unexpected_key(p, messages_[m].context, messages_[m].tag));
    if (prev == kNone) {
      unexpected_head_[pi] = next;
    } else {
      messages_[prev].next = next;
    }
    if (unexpected_tail_[pi] == m) {
      unexpected_tail_[pi] = prev;
    }
    match(m, req, clock_[ctx]);
    return req;
  }
  requests_[req].next_posted = kNone;
  if (posted_tail_[pi] == kNone) {
    posted_head_[pi] = req;
  } else {
    requests_[posted_tail_[pi]].next_posted = req;
  }
  posted_tail_[pi] = req;
  return req;
}

void Engine::on_envelope(std::uint32_t m, std::uint64_t seq, double now) {
  Message &msg = messages_[m];
  const auto q = static_cast<std::size_t>(msg.dest);
  if (msg.loggp) {
    // anchors §4 MSG: wait for the receiver's CPU (thread 0) and receive NIC, then charge them.
    const std::uint32_t rctx = ctx_of(msg.dest, 0);
    const double busy = status_[rctx] == Status::Runnable ? clock_[rctx] : 0.0;
    double &nic = recv_free(msg.dest, msg.intra);
    const double ready = std::max({busy, cpu_free_[q], nic});
    if (ready > now) {
      queue_.push_with_seq(ready, seq, EventKind::Envelope, m, 0);
      return;
    }
    const NetworkTiming &nt = net(msg.source, msg.dest);
    cpu_free_[q] = now + nt.o + s1(msg.bytes) * std::max(nt.O, nt.G);
    nic = now + nt.g + s1(msg.bytes) * nt.G;
    msg.data_time = now;
  }
  std::uint32_t prev = kNone;
  for (std::uint32_t r = posted_head_[q]; r != kNone;) {
    Request &req = requests_[r];
    const std::uint32_t next = req.next_posted;
    if (!matches(req, msg)) {
      prev = r;
      r = next;
      continue;
    }
    // Unlink from the posted queue.
    if (prev == kNone) {
      posted_head_[q] = next;
    } else {
      requests_[prev].next_posted = next;
    }
    if (posted_tail_[q] == r) {
      posted_tail_[q] = prev;
    }
    if (req.kind == RequestKind::Probe) {
      // A probe sees the message without taking it; keep looking for a receive.
      req.st_source = msg.source_local;
      req.st_world = msg.source;
      req.st_tag = msg.tag;
      req.st_bytes = msg.bytes;
      complete(r, now, msg.error);
      r = next;
      continue;
    }
    match(m, r, now);
    return;
  }
  if (msg.ready_mode) {
    const Request &s = requests_[msg.send_request];
    const model::NodeIndex node = program_.comms[s.comm_op].node;
    if (!warned_[node]) {
      warned_[node] = true;
      warnings_.push_back(model_.describe(node) + ": MPI_Rsend's message from rank " +
                          std::to_string(msg.source) + " reached rank " + std::to_string(msg.dest) +
                          " before the matching receive was posted (erroneous in MPI); timed as "
                          "an eager send");
    }
  }
  msg.next = kNone;
  ++unexpected_count_.at(unexpected_key(static_cast<std::int64_t>(q), msg.context, msg.tag));
  if (unexpected_tail_[q] == kNone) {
    unexpected_head_[q] = m;
  } else {
    messages_[unexpected_tail_[q]].next = m;
  }
  unexpected_tail_[q] = m;
}

void Engine::match(std::uint32_t m, std::uint32_t r, double now) {
  Message &msg = messages_[m];
  Request &req = requests_[r];
  req.st_source = msg.source_local;
  req.st_world = msg.source;
  req.st_tag = msg.tag;
  req.st_bytes = msg.bytes;
  if (req.max_bytes != 0 && msg.bytes > req.max_bytes && req.comm_op != kNone) {
    const model::NodeIndex node = program_.comms[req.comm_op].node;
    if (!warned_[node]) {
      warned_[node] = true;
      warnings_.push_back(model_.describe(node) + ": a " + std::to_string(msg.bytes) +
                          "-byte message arrived in a " + std::to_string(req.max_bytes) +
                          "-byte receive buffer (MPI_ERR_TRUNCATE)");
    }
  }
  const std::uint32_t send = msg.send_request;
  if (msg.loggp) {
    if (msg.protocol == Protocol::Rendezvous) {
      // anchors §4: done(send) at the match; the sender's CPU and NIC free times rise to it.
      const auto s = static_cast<std::size_t>(msg.source);
      cpu_free_[s] = std::max(cpu_free_[s], now);
      double &nic = send_free(msg.source, msg.intra);
      nic = std::max(nic, now);
      complete(send, now, std::max(msg.error, requests_[r].error));
    } else if (requests_[send].completes_at_delivery) {
      complete(send, now, msg.error);
    }
    complete(r, now, msg.error);
  } else if (uses_flows(msg)) {
    msg.matched = true;
    if (msg.protocol == Protocol::Eager) {
      if (msg.flow != kNone) {
        msg.waiting_recv = r; // completed when the flow ends (engine_network.cpp)
        return;
      }
      complete(r, std::max(now, msg.data_time),
               msg.data_time >= now ? msg.error : error_[requests_[r].ctx]);
    } else {
      // notes 000 §3.9: the transfer starts when both sides are there; it cannot start before
      // this moment, and the latency already spent since then is credited.
      const double start = std::max(msg.send_time, requests_[r].post_time);
      msg.error = msg.send_time >= requests_[r].post_time ? msg.error : error_[requests_[r].ctx];
      msg.waiting_recv = r;
      const double begin = std::max(start, now);
      start_flow(m, begin, begin - start);
      return;
    }
  } else if (msg.protocol == Protocol::Eager) {
    const double done = std::max(now, msg.data_time);
    if (requests_[send].completes_at_delivery) {
      complete(send, msg.data_time, msg.error);
    }
    complete(r, done, msg.data_time >= now ? msg.error : error_[requests_[r].ctx]);
  } else {
    // notes 000 §3.9: the transfer starts when both the data and the receive are there.
    const NetworkTiming &nt = net(msg.source, msg.dest);
    const double total = nt.transfer_ns(msg.bytes);
    const double latency = std::min(nt.transfer_ns(0), total);
    const double occupancy = total - latency;
    const double start = std::max(msg.send_time, requests_[r].post_time);
    const double start_error =
        msg.send_time >= requests_[r].post_time ? msg.error : error_[requests_[r].ctx];
    double arrival = start + total;
    if ((msg.intra ? options_.endpoint_contention : endpoint_) && !nt.self_copy) {
      auto &out = send_free(msg.source, msg.intra);
      auto &in = recv_free(msg.dest, msg.intra);
      const double s = std::max(start, out);
      arrival = std::max(s + latency, in) + occupancy;
      out = s + occupancy;
      in = arrival;
    }
    complete(send, arrival, start_error);
    complete(r, arrival, start_error);
  }
  msg.live = false;
  free_messages_.push_back(m);
}

void Engine::complete(std::uint32_t r, double time, double error) {
  Request &q = requests_[r];
  q.complete = true;
  q.complete_time = time;
  q.error = error;
  if (!q.awaited) {
    return;
  }
  const std::uint32_t ctx = q.ctx;
  if (status_[ctx] != Status::Blocked) {
    return;
  }
  if (wait_[ctx] == WaitKind::Requests) {
    if (time > wake_[ctx]) {
      wake_[ctx] = time;
      wake_error_[ctx] = error;
    }
    if (--pending_[ctx] == 0) {
      resume(ctx, std::max(wake_[ctx], clock_[ctx]));
    }
  } else if (wait_[ctx] == WaitKind::AnyRequest) {
    queue_.push(std::max(time, clock_[ctx]), EventKind::Resume, ctx, generation_[ctx]);
  }
}

// Wait for the requests marked `awaited` of this thread. True when they are all complete (the
// clock then moves to the last completion), false when the thread blocked.
bool Engine::wait_requests(std::uint32_t ctx, bool collective_only, std::uint32_t name,
                           std::int64_t index, bool by_index) {
  std::uint32_t pending = 0;
  double wake = 0.0;
  double wake_error = 0.0;
  const auto selected = [&](const Request &q) {
    return collective_only ? q.collective
                           : !q.collective && q.name != 0 &&
                                 (name == 0 ? q.name < kNone - 1 : q.name == name) &&
                                 (!by_index || q.index == index);
  };
  const auto take = [&](Request &q) {
    q.awaited = true;
    if (!q.complete) {
      ++pending;
    } else if (q.complete_time > wake) {
      wake = q.complete_time;
      wake_error = q.error;
    }
  };
  if (by_index) {
    // The oldest of the name and index: the first from the tail.
    for (std::uint32_t r = owned_tail_[ctx]; r != kNone; r = requests_[r].prev_owned) {
      if (selected(requests_[r])) {
        take(requests_[r]);
        break;
      }
    }
  } else {
    for (std::uint32_t r = owned_[ctx]; r != kNone; r = requests_[r].next_owned) {
      if (selected(requests_[r])) {
        take(requests_[r]);
      } else if (name == kNone - 1 && !collective_only) {
        break; // a blocking call's own requests are the newest ones
      }
    }
  }
  if (pending == 0) {
    if (wake > clock_[ctx]) {
      clock_[ctx] = wake;
      error_[ctx] = std::max(error_[ctx], wake_error);
    }
    return true;
  }
  pending_[ctx] = pending;
  wake_[ctx] = wake;
  wake_error_[ctx] = wake_error;
  block(ctx, WaitKind::Requests);
  return false;
}

// After a Requests wait resumed: adopt the error of the completion that decided the wake-up.
bool Engine::finish_wait(std::uint32_t ctx) {
  if (wake_[ctx] >= clock_[ctx] - 1e-9) {
    error_[ctx] = std::max(error_[ctx], wake_error_[ctx]);
  }
  return true;
}

void Engine::write_status(std::uint32_t ctx, std::uint32_t r) {
  const Request &q = requests_[r];
  if (q.comm_op == kNone) {
    return;
  }
  const CommOp &op = program_.comms[q.comm_op];
  std::uint64_t *f = frame(ctx);
  const auto put = [&](std::int32_t slot, std::int64_t v) {
    if (slot < 0) {
      return;
    }
    const auto s = static_cast<std::uint32_t>(slot);
    f[s] = program_.slot_types[s] == model::ValueType::Float
               ? std::bit_cast<std::uint64_t>(static_cast<double>(v))
               : static_cast<std::uint64_t>(v);
  };
  put(op.out_source, q.st_source);
  put(op.out_tag, q.st_tag);
  put(op.out_bytes, static_cast<std::int64_t>(q.st_bytes));
}

// ---- the MPI point-to-point leaves -----------------------------------------------------------

namespace {
bool is_send(Operation op) { return op >= Operation::Send && op <= Operation::Irsend; }
bool is_blocking_send(Operation op) { return op >= Operation::Send && op <= Operation::Rsend; }
} // namespace

bool Engine::execute_p2p(std::uint32_t ctx, const CommOp &op) {
  const std::int64_t p = rank_of(ctx);
  const std::uint32_t op_index = static_cast<std::uint32_t>(&op - program_.comms.data());
  const auto trace_comm = [&](std::uint32_t comm) {
    return comm == 1 ? trace_->self(p) : comms_[comm].trace_id;
  };
  // A send waits for the CPU and, under LogGP, the NIC (anchors §4 SEND); a receive never does.
  const auto send_ready = [&](std::int64_t dest_world) {
    const NetworkTiming &nt = net(p, dest_world);
    if (!nt.loggp) {
      return true;
    }
    const double ready = std::max(cpu_ready(ctx), send_free(p, &nt != &inter_));
    if (ready <= clock_[ctx]) {
      return true;
    }
    queue_.push_with_seq(ready, fresh_ ? popped_seq_ : queue_.next_seq(), EventKind::Resume, ctx,
                         generation_[ctx]);
    return false;
  };
  std::uint32_t &phase = phase_[ctx];

  if (is_send(op.op)) {
    const bool blocking = is_blocking_send(op.op);
    if (phase == 1) {
      const std::uint32_t comm = comm_of(ctx, op);
      const std::int64_t dest = arg_int(ctx, op, Arg::Dest);
      if (dest != model::kProcNull) {
        if (dest < 0 || dest >= comm_size(comm)) {
          throw Error(ErrorKind::Model, "model '" + model_.name + "', " + model_.describe(op.node) +
                                            ": destination rank " + std::to_string(dest) +
                                            " on rank " + std::to_string(p) + " is outside " +
                                            comms_[comm].name +
                                            guessed_peers_note("address a rank outside"));
        }
        if (!send_ready(world_rank(comm, dest, p))) {
          return false;
        }
      }
      const std::uint64_t bytes = arg_bytes(ctx, op, Arg::Bytes);
      if (op.op == Operation::Bsend || op.op == Operation::Ibsend) {
        clock_[ctx] += static_cast<double>(bytes) * machine_.threads().copy_per_byte * 1e9;
      }
      const auto tag = static_cast<std::int32_t>(arg_int(ctx, op, Arg::Tag));
      const double t = clock_[ctx];
      const std::uint32_t name = blocking ? kNone - 1 : op.request;
      const std::int64_t index = blocking ? 0 : arg_int(ctx, op, Arg::Index);
      const std::uint32_t req =
          post_send(ctx, comm, dest, tag, bytes, op.op, name, index, op_index, false);
      if (trace_ != nullptr && dest != model::kProcNull) {
        const auto dw = static_cast<std::int32_t>(world_rank(comm, dest, p));
        if (blocking) {
          trace_->builder().send(ctx, TraceRecorder::ns(t), dw, tag, trace_comm(comm), bytes);
        } else {
          requests_[req].trace_id = static_cast<std::uint32_t>(req + 1);
          trace_->builder().isend(ctx, TraceRecorder::ns(t), dw, tag, trace_comm(comm), bytes,
                                  requests_[req].trace_id);
        }
      }
      if (!blocking) {
        return true;
      }
      phase = 2;
      if (!wait_requests(ctx, false, kNone - 1, 0, false)) {
        return false;
      }
    } else {
      finish_wait(ctx);
    }
    // A blocking call's own requests are the newest ones: stop at the first other.
    for (std::uint32_t r = owned_[ctx]; r != kNone && requests_[r].name == kNone - 1;) {
      const std::uint32_t next = requests_[r].next_owned;
      release_request(r);
      r = next;
    }
    return true;
  }

  switch (op.op) {
  case Operation::Recv:
  case Operation::Irecv:
  case Operation::Probe: {
    const bool blocking = op.op != Operation::Irecv;
    if (phase == 1) {
      const std::uint32_t comm = comm_of(ctx, op);
      const std::int64_t source = arg_int(ctx, op, Arg::Source);
      const auto tag = static_cast<std::int32_t>(arg_int(ctx, op, Arg::Tag, model::kAnyTag));
      const std::uint64_t max_bytes = arg_bytes(ctx, op, Arg::Bytes);
      const std::uint32_t name = blocking ? kNone - 1 : op.request;
      const std::int64_t index = blocking ? 0 : arg_int(ctx, op, Arg::Index);
      const std::uint32_t req =
          post_recv(ctx, comm, source, tag, max_bytes, name, index, op_index, false,
                    op.op == Operation::Probe ? RequestKind::Probe : RequestKind::Recv);
      if (!blocking) {
        if (trace_ != nullptr) {
          requests_[req].trace_id = req + 1;
          trace_->builder().irecv_post(ctx, TraceRecorder::ns(clock_[ctx]), req + 1);
        }
        return true;
      }
      phase = 2;
      if (!wait_requests(ctx, false, kNone - 1, 0, false)) {
        return false;
      }
    } else {
      finish_wait(ctx);
    }
    // A blocking call's own requests are the newest ones: stop at the first other.
    for (std::uint32_t r = owned_[ctx]; r != kNone && requests_[r].name == kNone - 1;) {
      const std::uint32_t next = requests_[r].next_owned;
      write_status(ctx, r);
      if (trace_ != nullptr && op.op == Operation::Recv && requests_[r].st_world >= 0) {
        trace_->builder().recv(ctx, TraceRecorder::ns(clock_[ctx]), requests_[r].st_world,
                               requests_[r].st_tag, trace_comm(requests_[r].comm_id),
                               requests_[r].st_bytes);
      }
      release_request(r);
      r = next;
    }
    return true;
  }
  case Operation::Iprobe: {
    const std::uint32_t comm = comm_of(ctx, op);
    const std::int64_t source = arg_int(ctx, op, Arg::Source);
    const auto tag = static_cast<std::int32_t>(arg_int(ctx, op, Arg::Tag, model::kAnyTag));
    const std::int32_t source_world = source == model::kAnySource
                                          ? static_cast<std::int32_t>(model::kAnySource)
                                          : static_cast<std::int32_t>(world_rank(comm, source, p));
    Request probe;
    probe.context = comm * 2;
    probe.source = source_world;
    probe.tag = tag;
    std::int64_t flag = 0;
    for (std::uint32_t m = unexpected_head_[static_cast<std::size_t>(p)]; m != kNone;
         m = messages_[m].next) {
      if (matches(probe, messages_[m])) {
        flag = 1;
        std::uint64_t *f = frame(ctx);
        const auto put = [&](std::int32_t slot, std::int64_t v) {
          if (slot >= 0) {
            f[slot] = static_cast<std::uint64_t>(v);
          }
        };
        put(op.out_source, messages_[m].source_local);
        put(op.out_tag, messages_[m].tag);
        put(op.out_bytes, static_cast<std::int64_t>(messages_[m].bytes));
        break;
      }
    }
    if (op.out_flag >= 0) {
      frame(ctx)[op.out_flag] = static_cast<std::uint64_t>(flag);
    }
    return true;
  }
  case Operation::Sendrecv: {
    const std::uint32_t comm = comm_of(ctx, op);
    if (phase == 1) {
      // MPI_Sendrecv posts the receive first (a receive costs no CPU under LogGP).
      const std::int64_t source = arg_int(ctx, op, Arg::Source);
      const auto tag = static_cast<std::int32_t>(arg_int(ctx, op, Arg::RecvTag, model::kAnyTag));
      post_recv(ctx, comm, source, tag, arg_bytes(ctx, op, Arg::RecvBytes), kNone - 1, 0, op_index,
                false);
      phase = 2;
    }
    if (phase == 2) {
      const std::int64_t dest = arg_int(ctx, op, Arg::Dest);
      if (dest != model::kProcNull && dest >= 0 && dest < comm_size(comm) &&
          !send_ready(world_rank(comm, dest, p))) {
        return false;
      }
      const std::uint64_t bytes = arg_bytes(ctx, op, Arg::SendBytes);
      const auto tag = static_cast<std::int32_t>(arg_int(ctx, op, Arg::SendTag));
      const double t = clock_[ctx];
      const std::uint32_t req =
          post_send(ctx, comm, dest, tag, bytes, Operation::Send, kNone - 1, 0, op_index, false);
      (void)req;
      if (trace_ != nullptr && dest != model::kProcNull) {
        trace_->builder().send(ctx, TraceRecorder::ns(t),
                               static_cast<std::int32_t>(world_rank(comm, dest, p)), tag,
                               trace_comm(comm), bytes);
      }
      phase = 3;
      if (!wait_requests(ctx, false, kNone - 1, 0, false)) {
        return false;
      }
    } else {
      finish_wait(ctx);
    }
    for (std::uint32_t r = owned_[ctx]; r != kNone && requests_[r].name == kNone - 1;) {
      const std::uint32_t next = requests_[r].next_owned;
      if (requests_[r].kind == RequestKind::Recv) {
        write_status(ctx, r);
        if (trace_ != nullptr && requests_[r].st_world >= 0) {
          trace_->builder().recv(ctx, TraceRecorder::ns(clock_[ctx]), requests_[r].st_world,
                                 requests_[r].st_tag, trace_comm(comm), requests_[r].st_bytes);
        }
      }
      release_request(r);
      r = next;
    }
    return true;
  }
  default:
    break;
  }
  throw Error(ErrorKind::Model, "internal: unhandled point-to-point operation");
}

// ---- Wait / Test ---------------------------------------------------------------------------

bool Engine::execute_completion(std::uint32_t ctx, const CommOp &op) {
  const std::int64_t p = rank_of(ctx);
  std::uint32_t &phase = phase_[ctx];
  const auto trace_done = [&](std::uint32_t r) {
    const Request &q = requests_[r];
    write_status(ctx, r);
    if (trace_ == nullptr || q.trace_id == 0) {
      return;
    }
    const auto t = TraceRecorder::ns(clock_[ctx]);
    if (q.kind == RequestKind::Send) {
      trace_->builder().isend_complete(ctx, t, q.trace_id);
    } else if (q.st_world >= 0) {
      trace_->builder().irecv_complete(
          ctx, t, q.st_world, q.st_tag,
          q.comm_id == 1 ? trace_->self(p) : comms_[q.comm_id].trace_id, q.st_bytes, q.trace_id);
    }
  };
  // The oldest live user request with this name (and index); the list is newest first.
  const auto find = [&](std::uint32_t name, bool by_index, std::int64_t index) {
    for (std::uint32_t r = owned_tail_[ctx]; r != kNone; r = requests_[r].prev_owned) {
      const Request &q = requests_[r];
      if (!q.collective && q.name != 0 && q.name < kNone - 1 && (name == 0 || q.name == name) &&
          (!by_index || q.index == index)) {
        return r;
      }
    }
    return kNone;
  };
  const auto set_var = [&](std::int32_t slot, std::int64_t v) {
    if (slot >= 0) {
      const auto s = static_cast<std::uint32_t>(slot);
      frame(ctx)[s] = program_.slot_types[s] == model::ValueType::Float
                          ? std::bit_cast<std::uint64_t>(static_cast<double>(v))
                          : static_cast<std::uint64_t>(v);
    }
  };
  switch (op.op) {
  case Operation::Wait:
  case Operation::Waitall: {
    const bool one = op.op == Operation::Wait;
    const std::int64_t index = one ? arg_int(ctx, op, Arg::Index) : 0;
    if (phase == 1) {
      if (one) {
        const std::uint32_t r = find(op.request, true, index);
        if (r == kNone) {
          return true; // MPI_REQUEST_NULL
        }
        requests_[r].awaited = true;
        phase = 2;
        if (!requests_[r].complete) {
          pending_[ctx] = 1;
          wake_[ctx] = 0.0;
          wake_error_[ctx] = 0.0;
          block(ctx, WaitKind::Requests);
          return false;
        }
        if (requests_[r].complete_time > clock_[ctx]) {
          clock_[ctx] = requests_[r].complete_time;
          error_[ctx] = std::max(error_[ctx], requests_[r].error);
        }
      } else {
        phase = 2;
        if (!wait_requests(ctx, false, op.request, 0, false)) {
          return false;
        }
      }
    } else {
      finish_wait(ctx);
    }
    if (one) {
      // The request waited for is still the oldest of its name and index (the thread posted
      // nothing since): release it alone rather than walk every live request.
      const std::uint32_t r = find(op.request, true, index);
      trace_done(r);
      release_request(r);
      return true;
    }
    for (std::uint32_t r = owned_[ctx]; r != kNone;) {
      const std::uint32_t next = requests_[r].next_owned;
      if (requests_[r].awaited && !requests_[r].collective) {
        trace_done(r);
        release_request(r);
      }
      r = next;
    }
    return true;
  }
  case Operation::Waitany: {
    // The earliest request complete by now wins; otherwise wait for the first completion
    // (every candidate completion is a check event at its time).
    std::uint32_t best = kNone;
    bool any = false;
    for (std::uint32_t r = owned_[ctx]; r != kNone; r = requests_[r].next_owned) {
      const Request &q = requests_[r];
      if (q.collective || q.name != op.request) {
        continue;
      }
      any = true;
      if (q.complete && q.complete_time <= clock_[ctx] &&
          (best == kNone || q.complete_time < requests_[best].complete_time)) {
        best = r;
      }
    }
    if (!any) {
      set_var(op.out_index, -32766); // MPI_UNDEFINED
      return true;
    }
    if (best == kNone) {
      block(ctx, WaitKind::AnyRequest);
      phase = 2;
      for (std::uint32_t r = owned_[ctx]; r != kNone; r = requests_[r].next_owned) {
        Request &q = requests_[r];
        if (!q.collective && q.name == op.request) {
          q.awaited = true;
          if (q.complete) {
            queue_.push(q.complete_time, EventKind::Resume, ctx, generation_[ctx]);
          }
        }
      }
      return false;
    }
    for (std::uint32_t r = owned_[ctx]; r != kNone; r = requests_[r].next_owned) {
      requests_[r].awaited = false;
    }
    error_[ctx] = std::max(error_[ctx], requests_[best].error);
    set_var(op.out_index, requests_[best].index);
    trace_done(best);
    release_request(best);
    return true;
  }
  case Operation::Test: {
    const std::uint32_t r = find(op.request, true, arg_int(ctx, op, Arg::Index));
    std::int64_t flag = 1;
    if (r != kNone) {
      if (requests_[r].complete && requests_[r].complete_time <= clock_[ctx]) {
        trace_done(r);
        release_request(r);
      } else {
        flag = 0;
        if (trace_ != nullptr && requests_[r].trace_id != 0) {
          trace_->builder().request_test(ctx, TraceRecorder::ns(clock_[ctx]),
                                         requests_[r].trace_id);
        }
      }
    }
    set_var(op.out_flag, flag);
    return true;
  }
  case Operation::Testall: {
    bool all = true;
    for (std::uint32_t r = owned_[ctx]; r != kNone; r = requests_[r].next_owned) {
      const Request &q = requests_[r];
      if (!q.collective && q.name == op.request &&
          !(q.complete && q.complete_time <= clock_[ctx])) {
        all = false;
      }
    }
    if (all) {
      for (std::uint32_t r = owned_[ctx]; r != kNone;) {
        const std::uint32_t next = requests_[r].next_owned;
        if (!requests_[r].collective && requests_[r].name == op.request) {
          trace_done(r);
          release_request(r);
        }
        r = next;
      }
    }
    set_var(op.out_flag, all ? 1 : 0);
    return true;
  }
  default:
    break;
  }
  throw Error(ErrorKind::Model, "internal: unhandled completion operation");
}

} // namespace parjava::interp
