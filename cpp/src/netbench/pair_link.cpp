#include "pair_link.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace parjava::netbench {

namespace {

constexpr int command_tag = 7001;
constexpr int ready_tag = 7002;
constexpr int data_tag = 7003;
constexpr int window_tag = 7004; // ends an eager probe's window
constexpr int gap_batch = 64;    // messages per Gap sample (osu_bw's window)

struct Command {
  std::int64_t operation = 0;
  std::int64_t bytes = 0;
  std::int64_t count = 0;
};

int as_count(std::uint64_t bytes) { return static_cast<int>(bytes); }

// The cost of one MPI_Wtime call, subtracted from single-operation samples.
double measure_timer_overhead() {
  constexpr int calls = 2000;
  const double start = MPI_Wtime();
  double last = start;
  for (int i = 0; i < calls; ++i) {
    last = MPI_Wtime();
  }
  return (last - start) / calls;
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
    // The send may complete only inside the window, before the responder is told to post its
    // receive; a rendezvous send cannot, whatever the load on the node.
    const double window = count * 1e-6;
    MPI_Request request = MPI_REQUEST_NULL;
    const double start = MPI_Wtime();
    MPI_Isend(send_.data(), n, MPI_BYTE, peer_, data_tag, comm_, &request);
    int completed = 0;
    double elapsed = 0.0;
    while (completed == 0 && elapsed <= window) {
      MPI_Test(&request, &completed, MPI_STATUS_IGNORE);
      elapsed = MPI_Wtime() - start;
    }
    MPI_Send(nullptr, 0, MPI_BYTE, peer_, window_tag, comm_);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Recv(nullptr, 0, MPI_BYTE, peer_, ready_tag, comm_, MPI_STATUS_IGNORE);
    return completed != 0 ? elapsed : -1.0;
  }
  case PairOperation::Finish:
    break;
  }
  return 0.0;
}

double PairLink::probe_send(std::uint64_t bytes, double window_seconds) {
  // The window travels in the count field, in microseconds.
  return run_batch(PairOperation::EagerProbe, bytes,
                   static_cast<int>(std::ceil(window_seconds * 1e6)));
}

machine::MeasuredPoint PairLink::measure(PairOperation operation, std::uint64_t bytes,
                                         const SamplerOptions &options,
                                         double target_sample_seconds) {
  int count = 1;
  if (operation == PairOperation::Gap) {
    count = gap_batch;
  } else if (operation != PairOperation::SendOverhead) {
    // Warm-up (discarded), then size the batch so one sample takes about the target time.
    (void)run_batch(operation, bytes, 1);
    const double single = run_batch(operation, bytes, 1);
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
    // Stay inside MPI, so the library makes progress and can take an eager message as
    // unexpected, without posting the matching receive until the initiator's window is over.
    // (Sleeping instead would also stall Open MPI's shared-memory eager sends, which complete
    // only when the receiving library hands their buffer back.)
    MPI_Send(nullptr, 0, MPI_BYTE, peer_, ready_tag, comm_);
    int flag = 0;
    while (flag == 0) {
      MPI_Iprobe(peer_, window_tag, comm_, &flag, MPI_STATUS_IGNORE);
    }
    MPI_Recv(nullptr, 0, MPI_BYTE, peer_, window_tag, comm_, MPI_STATUS_IGNORE);
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
