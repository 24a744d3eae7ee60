// Point-to-point measurements between two ranks. The initiator drives: for every sample it
// sends a command, waits until the responder is ready (receives posted where the measurement
// needs them), and times the operations; the responder serves commands until told to finish.
// Only the initiator's clock is used, so the two ranks' clocks never need to agree.
#pragma once

#include <cstdint>
#include <vector>

#include <mpi.h>

#include "parjava/machine/measurement.hpp"
#include "parjava/netbench/sampler.hpp"

namespace parjava::netbench {

enum class PairOperation : std::int64_t {
  Finish = 0,
  PingPong = 1,     // k round trips of n bytes; sample = one-way time (half a round trip)
  SendOverhead = 2, // one blocking eager MPI_Send of n bytes into a pre-posted receive
  Gap = 3,          // k back-to-back 1-byte MPI_Sends into pre-posted receives
  Sendrecv = 4,     // k simultaneous MPI_Sendrecv exchanges of n bytes each way
  EagerProbe = 5,   // one MPI_Isend of n bytes, tested before the responder receives it
};

class PairLink {
public:
  // `buffer_bytes`: the largest message; both ranks allocate and touch their buffers now.
  PairLink(MPI_Comm comm, int peer, std::uint64_t buffer_bytes);

  // Initiator side. `target_sample_seconds` decides how many operations one sample averages.
  machine::MeasuredPoint measure(PairOperation operation, std::uint64_t bytes,
                                 const SamplerOptions &options, double target_sample_seconds);
  void finish();

  // Whether an MPI_Isend of `bytes` completes before the responder, inside MPI all along, posts
  // the matching receive: the responder reports once the envelope has reached it and its
  // library has processed its input, and posts the receive only after the initiator has seen
  // the report. Returns the seconds to completion when the send completed first (eager), or
  // minus the seconds to the report when it did not (it needs the receive: rendezvous).
  double probe_send(std::uint64_t bytes);

  // Responder side: serves commands until the initiator calls finish().
  void serve();

private:
  double run_batch(PairOperation operation, std::uint64_t bytes, int count);
  void respond(PairOperation operation, std::uint64_t bytes, int count);

  MPI_Comm comm_;
  int peer_;
  std::vector<unsigned char> send_;
  std::vector<unsigned char> receive_;
  std::vector<unsigned char> tiny_; // targets of the Gap operation's 1-byte messages
  std::vector<MPI_Request> requests_;
  double timer_overhead_ = 0.0;
};

} // namespace parjava::netbench
