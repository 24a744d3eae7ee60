// What netbench measured to build a machine description: the raw tables with their confidence
// intervals, the fits and their errors, and where the eager limit came from. Kept with the
// machine (JSON "measurement") so every number in it can be traced back to the run.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "parjava/machine/fit.hpp"
#include "parjava/machine/network.hpp"

namespace parjava::machine {

// One measured size: the mean over accepted samples, its 95 % confidence half-width, how many
// samples were accepted and discarded (far outliers, e.g. preemption by the OS), and how many
// operations each sample averaged.
struct MeasuredPoint {
  std::uint64_t bytes = 0;
  double seconds = 0.0;
  double ci95 = 0.0;
  int samples = 0;
  int discarded = 0;
  int operations_per_sample = 0;
  bool operator==(const MeasuredPoint &) const = default;
};

// One test of the protocol for a size: an MPI_Isend tested until it completes or the receiver,
// which has not posted its receive, reports that the message reached it. `blocked` when the
// send was still incomplete then (it needs the receive: rendezvous). send_seconds is the time
// to completion, or to the report when blocked.
struct EagerProbe {
  std::uint64_t bytes = 0;
  double send_seconds = 0.0;
  bool blocked = false;
  bool operator==(const EagerProbe &) const = default;
};

// Ping-pong between two ranks: one-way times (half the round trip) and the models fitted.
struct PingPongSeries {
  std::string pair; // "intra_node" or "inter_node"
  int rank_a = 0;
  int rank_b = 0;
  std::vector<MeasuredPoint> points;
  std::vector<MeasuredPoint> send_overhead; // blocking eager MPI_Send time on the sender
  double gap = 0.0;                         // seconds per message when streaming 1-byte messages
  HockneyFit hockney;
  std::optional<LogGPFit> loggp; // absent when the overhead table was too short
  // The jump of the curve (a protocol or buffer switch), and extra sizes measured around it.
  EagerLimitDetection eager_detection;
  std::vector<MeasuredPoint> eager_bisection;
  // The eager limit proper: the largest size whose send completes before the receiver posts
  // its receive, found by bisection with one probe per size.
  std::vector<EagerProbe> eager_probes;
  std::uint64_t eager_limit = 0;  // the value written into the network
  std::string eager_limit_source; // how it was found, in words
  bool operator==(const PingPongSeries &) const = default;
};

struct CollectiveTiming {
  std::string operation; // "barrier", "bcast", "allreduce", "alltoall"
  int ranks = 0;
  MeasuredPoint timing; // seconds per operation, slowest rank
  bool operator==(const CollectiveTiming &) const = default;
};

struct Measurement {
  std::string tool;        // "netbench <version>"
  std::string mode;        // "quick" or "thorough"
  std::string host;        // hostname of rank 0
  std::string mpi_library; // MPI_Get_library_version, first line
  std::string date;        // ISO 8601, UTC
  int ranks = 0;
  double duration_seconds = 0.0;
  double target_relative_ci = 0.0; // the stopping rule: 95 % CI half-width / mean
  std::vector<PingPongSeries> ping_pong;
  std::vector<MeasuredPoint> sendrecv; // simultaneous exchange between ranks 0 and 1
  std::vector<CollectiveTiming> collectives;
  std::map<std::string, std::int64_t> configured; // MPI_T control variables about eager limits
  std::vector<std::string> notes;
  bool operator==(const Measurement &) const = default;
};

} // namespace parjava::machine
