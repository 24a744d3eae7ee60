#include "pair_link.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace parjava::netbench {

namespace {

constexpr int command_tag = 7001;
constexpr int ready_tag = 7002;
constexpr int data_tag = 7003;
constexpr int looked_tag = 7004; // an eager probe's initiator has looked at its send
constexpr int seen_tag = 7005;   // an eager probe's responder has the envelope
constexpr int gap_batch = 64;    // messages per Gap sample (osu_bw's window)

struct Command {
  std::int64_t operation = 0;
  std::int64_t bytes = 0;
  std::int64_t count = 0;
};

int as_count(std::uint64_t bytes) { return static_cast<int>(bytes); }

// The cost of one MPI_Wtime call, subtracted from single-operation samples. The smallest of
// several batch means: a batch during which the process lost its core would inflate the cost
// and turn every short sample into zero.
double measure_timer_overhead() {
  constexpr int batches = 20;
  constexpr int calls = 100;
  double best = 1.0;
  for (int batch = 0; batch < batches; ++batch) {
    const double start = MPI_Wtime();
    double last = start;
    for (int i = 0; i < calls; ++i) {
      last = MPI_Wtime();
    }
    best = std::min(best, (last - start) / calls);
  }
  return best;
}

} // namespace

PairLink::PairLink(MPI_Comm comm, int peer, std::uint64_t buffer_bytes)
    : comm_(comm), peer_(peer), send_(std::max<std::uint64_t>(buffer_bytes, 1), 1),
      receive_(std::max<std::uint64_t>(buffer_bytes, 1), 0), tiny_(gap_batch, 0),
      requests_(gap_batch, MPI_REQUEST_NULL), timer_overhead_(measure_timer_overhead()) {}

double PairLink::run_batch(PairOperation operation, std::uint64_t bytes, int count) {
  const Command command{static_cast<std::int64_t>(operation), static_cast<std::int64_t>(bytes),
                        count};
  MPI_Send(&command, 3, MPI_INT64_T, peer_, command_tag, comm_);
  MPI_Recv(nullptr, 0, MPI_BYTE, peer_, ready_tag, comm_, MPI_STATUS_IGNORE);
  const int n = as_count(bytes);
  switch (operation) {
  case PairOperation::PingPong: {
    const double start = MPI_Wtime();
    for (int i = 0; i < count; ++i) {
      MPI_Send(send_.data(), n, MPI_BYTE, peer_, data_tag, comm_);
      MPI_Recv(receive_.data(), n, MPI_BYTE, peer_, data_tag, comm_, MPI_STATUS_IGNORE);
    }
    return (MPI_Wtime() - start) / (2.0 * count);
  }
  case PairOperation::SendOverhead: {
    const double start = MPI_Wtime();
    MPI_Send(send_.data(), n, MPI_BYTE, peer_, data_tag, comm_);
    const double elapsed = MPI_Wtime() - start - timer_overhead_;
    // The responder confirms it has the data before the next command, so a still-running
    // transfer cannot slow the next sample.
    MPI_Recv(nullptr, 0, MPI_BYTE, peer_, ready_tag, comm_, MPI_STATUS_IGNORE);
    return std::max(elapsed, 0.0);
  }
  case PairOperation::Gap: {
    const double start = MPI_Wtime();
    for (int i = 0; i < count; ++i) {
      MPI_Send(send_.data(), 1, MPI_BYTE, peer_, data_tag, comm_);
    }
    const double elapsed = MPI_Wtime() - start;
    MPI_Recv(nullptr, 0, MPI_BYTE, peer_, ready_tag, comm_, MPI_STATUS_IGNORE);
    return elapsed / count;
  }
  case PairOperation::Sendrecv: {
    const double start = MPI_Wtime();
    for (int i = 0; i < count; ++i) {
      MPI_Sendrecv(send_.data(), n, MPI_BYTE, peer_, data_tag, receive_.data(), n, MPI_BYTE, peer_,
                   data_tag, comm_, MPI_STATUS_IGNORE);
    }
    return (MPI_Wtime() - start) / count;
  }
  case PairOperation::EagerProbe: {
    // Test the send until it completes or the responder reports that the message's envelope
    // reached it and its library has processed what came in. The report travels behind
    // everything the responder's library sent back, so an eager send is complete by the time
    // the report is seen; a rendezvous send cannot be, as no receive is posted yet. The outcome
    // does not depend on timing, and so not on the load of the node.
    MPI_Request request = MPI_REQUEST_NULL;
    const double start = MPI_Wtime();
    MPI_Isend(send_.data(), n, MPI_BYTE, peer_, data_tag, comm_, &request);
    int completed = 0;
    int seen = 0;
    while (completed == 0 && seen == 0) {
      MPI_Test(&request, &completed, MPI_STATUS_IGNORE);
      if (completed == 0) {
        MPI_Iprobe(peer_, seen_tag, comm_, &seen, MPI_STATUS_IGNORE);
      }
    }
    if (completed == 0) {
      MPI_Test(&request, &completed, MPI_STATUS_IGNORE);
    }
    const double elapsed = MPI_Wtime() - start;
    MPI_Recv(nullptr, 0, MPI_BYTE, peer_, seen_tag, comm_, MPI_STATUS_IGNORE);
    MPI_Send(nullptr, 0, MPI_BYTE, peer_, looked_tag, comm_);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Recv(nullptr, 0, MPI_BYTE, peer_, ready_tag, comm_, MPI_STATUS_IGNORE);
    return completed != 0 ? elapsed : -elapsed;
  }
  case PairOperation::Finish:
    break;
  }
  return 0.0;
}

double PairLink::probe_send(std::uint64_t bytes) {
  return run_batch(PairOperation::EagerProbe, bytes, 1);
}

machine::MeasuredPoint PairLink::measure(PairOperation operation, std::uint64_t bytes,
                                         const SamplerOptions &options,
                                         double target_sample_seconds) {
  int count = 1;
  if (operation == PairOperation::Gap) {
    count = gap_batch;
  } else if (operation != PairOperation::SendOverhead) {
    // Warm-up (discarded), then size the batch so one sample takes about the target time,
    // from the fastest of three single operations: one that lost the core would give batches
    // so short that the handshake before each dominates them.
    (void)run_batch(operation, bytes, 1);
    double single = run_batch(operation, bytes, 1);
    single = std::min(single, run_batch(operation, bytes, 1));
    single = std::min(single, run_batch(operation, bytes, 1));
    const double per_operation = operation == PairOperation::PingPong ? 2.0 * single : single;
    count = static_cast<int>(
        std::clamp(std::ceil(target_sample_seconds / std::max(per_operation, 1e-9)), 1.0, 1000.0));
  } else {
    (void)run_batch(operation, bytes, 1);
  }
  Sampler sampler(options);
  const double start = MPI_Wtime();
  do {
    sampler.add(run_batch(operation, bytes, count));
  } while (!sampler.done(MPI_Wtime() - start));
  return sampler.result(bytes, count);
}

void PairLink::finish() {
  const Command command{static_cast<std::int64_t>(PairOperation::Finish), 0, 0};
  MPI_Send(&command, 3, MPI_INT64_T, peer_, command_tag, comm_);
}

void PairLink::respond(PairOperation operation, std::uint64_t bytes, int count) {
  const int n = as_count(bytes);
  switch (operation) {
  case PairOperation::PingPong:
    MPI_Send(nullptr, 0, MPI_BYTE, peer_, ready_tag, comm_);
    for (int i = 0; i < count; ++i) {
      MPI_Recv(receive_.data(), n, MPI_BYTE, peer_, data_tag, comm_, MPI_STATUS_IGNORE);
      MPI_Send(send_.data(), n, MPI_BYTE, peer_, data_tag, comm_);
    }
    return;
  case PairOperation::SendOverhead: {
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Irecv(receive_.data(), n, MPI_BYTE, peer_, data_tag, comm_, &request);
    MPI_Send(nullptr, 0, MPI_BYTE, peer_, ready_tag, comm_);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Send(nullptr, 0, MPI_BYTE, peer_, ready_tag, comm_);
    return;
  }
  case PairOperation::Gap: {
    for (int i = 0; i < count; ++i) {
      MPI_Irecv(&tiny_[static_cast<std::size_t>(i)], 1, MPI_BYTE, peer_, data_tag, comm_,
                &requests_[static_cast<std::size_t>(i)]);
    }
    MPI_Send(nullptr, 0, MPI_BYTE, peer_, ready_tag, comm_);
    MPI_Waitall(count, requests_.data(), MPI_STATUSES_IGNORE);
    MPI_Send(nullptr, 0, MPI_BYTE, peer_, ready_tag, comm_);
    return;
  }
  case PairOperation::Sendrecv:
    MPI_Send(nullptr, 0, MPI_BYTE, peer_, ready_tag, comm_);
    for (int i = 0; i < count; ++i) {
      MPI_Sendrecv(send_.data(), n, MPI_BYTE, peer_, data_tag, receive_.data(), n, MPI_BYTE, peer_,
                   data_tag, comm_, MPI_STATUS_IGNORE);
    }
    return;
  case PairOperation::EagerProbe: {
    // Stay inside MPI without posting the matching receive: wait until the envelope has
    // arrived, let the library process its input once more, report, and post the receive only
    // when the initiator has looked at its send. (Sleeping instead would also stall Open MPI's
    // shared-memory eager sends, which complete only when the receiving library hands their
    // buffer back.)
    MPI_Send(nullptr, 0, MPI_BYTE, peer_, ready_tag, comm_);
    int flag = 0;
    while (flag == 0) {
      MPI_Iprobe(peer_, data_tag, comm_, &flag, MPI_STATUS_IGNORE);
    }
    MPI_Iprobe(peer_, looked_tag, comm_, &flag, MPI_STATUS_IGNORE);
    MPI_Send(nullptr, 0, MPI_BYTE, peer_, seen_tag, comm_);
    MPI_Recv(nullptr, 0, MPI_BYTE, peer_, looked_tag, comm_, MPI_STATUS_IGNORE);
    MPI_Recv(receive_.data(), n, MPI_BYTE, peer_, data_tag, comm_, MPI_STATUS_IGNORE);
    MPI_Send(nullptr, 0, MPI_BYTE, peer_, ready_tag, comm_);
    return;
  }
  case PairOperation::Finish:
    return;
  }
}

void PairLink::serve() {
  while (true) {
    Command command;
    MPI_Recv(&command, 3, MPI_INT64_T, peer_, command_tag, comm_, MPI_STATUS_IGNORE);
    const auto operation = static_cast<PairOperation>(command.operation);
    if (operation == PairOperation::Finish) {
      return;
    }
    respond(operation, static_cast<std::uint64_t>(command.bytes), static_cast<int>(command.count));
  }
}

} // namespace parjava::netbench
