// netbench: measures the machine description on the machine it runs on, like ParJava's
// NetworkTester (notes 000 §6): ping-pong one-way times over message sizes, the LogGP overheads,
// Sendrecv, a few collectives and the thread primitive costs; it fits Hockney and LogGP to the
// ping-pong tables and finds the eager limit where the curve shows it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <mpi.h>

#include "parjava/machine/machine.hpp"
#include "parjava/netbench/sampler.hpp"
#include "parjava/netbench/thread_benchmarks.hpp"

namespace parjava::netbench {

struct NetbenchOptions {
  std::string mode = "quick";           // recorded in the measurement
  std::string name;                     // machine name; empty: "measured-<host>"
  std::uint64_t max_bytes = 4u << 20;   // the largest ping-pong size
  SamplerOptions point;                 // the stopping rule of every measured point
  double target_sample_seconds = 50e-6; // operations per sample chosen to take about this
  int eager_bisection_steps = 12;       // extra sizes measured to pin a jump in the curve
  ThreadBenchmarkOptions threads;

  // quick: at least 6 samples per point, 5 % CI target, 0.1 s per point at most (about a
  // second at np 2 on an idle 2-core node). thorough: at least 20 samples, 2 % CI target, up to
  // 2 s per point, larger batches and more thread-benchmark repetitions (about a minute).
  static NetbenchOptions quick();
  static NetbenchOptions thorough();
};

// Called on rank 0 after each measured point: (points done, points planned, what was measured).
using ProgressCallback = std::function<void(int, int, const std::string &)>;

// Runs every measurement; collective over `comm`, which needs at least two ranks and at least
// two ranks on one node (the intra-node network is measured between them). Returns the machine
// on rank 0 and std::nullopt on the others. Throws parjava::Error(ErrorKind::Run) for an
// unusable layout (on every rank).
std::optional<machine::Machine> run_netbench(MPI_Comm comm, const NetbenchOptions &options,
                                             const ProgressCallback &progress = {});

} // namespace parjava::netbench
