// Loading the estimation run's results into the model (seed 000 notes §1.5 step 5 "Load
// Estimations", §3.7, §4; seed 003 notes §6.3 step 4): block times with their mean, σ and
// sample count, branch probabilities and trip counts of opaque conditions, the values of MPI
// arguments the model cannot compute, and the reduction of loops without communication to
// blocks whose time is an expression of their trip counts, so that times measured on a small
// input predict a large one.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "parjava/frontend/diagnostic.hpp"
#include "parjava/frontend/estimation_plan.hpp"
#include "parjava/model/model.hpp"

namespace parjava::frontend {

// One slot of the estimates files, summed over threads and ranks.
struct SlotMeasurement {
  std::uint64_t count = 0;
  std::uint64_t sum = 0;
  double sumsq = 0.0;
  std::uint64_t min = 0;
  std::uint64_t max = 0;
  std::uint64_t nested = 0;   // timed probe events inside the samples
  std::uint64_t counters = 0; // counter events (opaque trip counts, selectors) inside them
  // Timed probes are sampled (estimates v3): `count` intervals were timed out of `executions`
  // (0: all of them, files before v3), and `skips` untimed probe executions ran inside them.
  std::uint64_t executions = 0;
  std::uint64_t skips = 0;
  // Counters are sampled too (v4): `count` executions counted out of `executions`; a timed
  // slot's uncounted counter executions inside its samples (estimated from the strides granted).
  std::uint64_t counter_skips = 0;
  double dsum = 0.0;
  std::uint64_t overflow = 0;
  double live = 0.0;  // timed probes: the probed heap's live bytes summed over the samples
  double trend = 0.0; // trip probes: sum over executions of (execution index x iterations)
  // OpenMP work-sharing trip probes: the sum over records of the team size of the thread that
  // recorded it (team / count: the mean team, so sum * team / count^2 is the count per team).
  double team = 0.0;
  // Sized probes: per power of two of the bytes, {calls, bytes, ticks} of the timed calls.
  std::map<int, std::array<double, 3>> sizes;
  // Timed probes: the samples whose run-queue wait the runtime read and took out, their ticks
  // (already without it, included in sum) and the ticks taken out (estimates_waiting.cpp).
  std::uint64_t watched = 0;
  std::uint64_t watched_ticks = 0;
  std::uint64_t removed_ticks = 0;
  std::vector<std::pair<std::int64_t, std::uint64_t>> histogram; // value, occurrences
};

// One rank of one estimation run (one estimates file): its own slots, the values its value
// probes saw, the program's own time and the machine's state around it.
struct RankRun {
  int rank = 0;
  int size = 1;                       // the run's np
  std::vector<SlotMeasurement> slots; // this rank alone
  int omp_team = 0; // the largest team a work-sharing loop timed whole forked (0: none)
  std::map<std::uint32_t, std::vector<double>> values; // value probes: the first 4096 values
  bool has_program = false;                            // MPI_Init and MPI_Finalize were seen
  double program_seconds = 0.0;     // wall time from MPI_Init's end to MPI_Finalize's start
  double program_cpu_seconds = 0.0; // CPU time (user + system) of the process meanwhile
  double load_begin = -1.0;         // 1-minute load average at MPI_Init (-1: unknown)
  double load_end = -1.0;           // ... at MPI_Finalize
  double steal_seconds = -1.0;      // machine-wide steal time meanwhile (-1: unknown)
  double busy_seconds = -1.0;       // machine-wide busy CPU time meanwhile (-1: unknown)
  // The main thread's time on a CPU and runnable but waiting for one meanwhile (-1: unknown).
  double run_seconds = -1.0;
  double wait_seconds = -1.0;
  // The share of this rank's timed ticks taken out as waiting (estimates_waiting.cpp).
  double corrected_share = 0.0;
  std::int64_t any_source = -1; // the MPI library's MPI_ANY_SOURCE, MPI_PROC_NULL
  std::int64_t proc_null = -2;
};

struct Measurements {
  double ticks_per_second = 0.0;
  double self_ticks = 0.0;    // what an empty probe pair reports
  double pair_ticks = 0.0;    // what one probe event costs an enclosing measurement
  double counter_ticks = 0.0; // what one counter event costs an enclosing measurement
  double skip_ticks = 0.0;    // what one untimed probe execution costs it
  // What a counted branch outcome or value costs, and an uncounted execution of any counter
  // (v4; measured in a loop with work of its own, as in a program).
  double branch_ticks = 0.0;
  double uncounted_ticks = 0.0;
  // What an OpenMP loop's iteration sample carries besides the body (back-to-back probes with
  // an empty body; 0 in files written before it was measured: pair_ticks is used then).
  double iteration_ticks = 0.0;
  // Iterations per OpenMP iteration sample (PJ_ITERATION_SPAN in the probe runtime): each
  // sample is the mean iteration of a stretch of this many.
  static constexpr double kIterationSpan = 16.0;
  [[nodiscard]] double iteration_sample_ticks() const {
    return iteration_ticks > 0.0 ? iteration_ticks : pair_ticks;
  }
  std::size_t files = 0; // one per rank
  std::vector<SlotMeasurement> slots;
  int cpus = 0; // online CPUs of the estimation machine (0: unknown)
  // Per estimation run, its ranks in rank order (several runs when combined).
  std::vector<std::vector<RankRun>> runs;
};

// The seconds the probes themselves cost one rank of a run (to compare the program's own time
// with the model, which is overhead-corrected).
double probe_seconds(const RankRun &rank, const Measurements &m, const EstimationPlan &plan);

// Overhead-corrected total seconds of a timed slot over all its executions.
double total_seconds(const SlotMeasurement &s, const Measurements &m);

// What one timed node took in an estimation run: seconds summed over the ranks, executions
// over the ranks, averaged over the runs (for the self-check's per-fragment comparison).
// Per node, summed over ranks and averaged over runs: a timed probe's seconds and executions,
// a loop's entries and iterations (Trips), a branch's evaluations and true outcomes (Branch).
// The self-check compares the counts with the model's (python/parjava/_count_divergence.py).
struct NodeTotal {
  model::NodeId node = 0;
  ProbeKind kind = ProbeKind::Block;
  double seconds = 0.0;
  double executions = 0.0;
  double outcomes = 0.0; // Trips: iterations; Branch: true outcomes
};
std::vector<NodeTotal> node_totals(const EstimationPlan &plan, const Measurements &m);

// Read and merge estimates files (parjava-estimates.<rank>.<pid>.txt); throws Error(Run) when
// none is given, one is malformed, or they disagree on the number of slots.
Measurements load_estimates(const std::vector<std::string> &files, std::uint32_t slots);

// The share of each rank's timed ticks that the runtime took out of its samples as time the
// rank waited for a CPU while its neighbours ran (estimates_waiting.cpp), into
// RankRun::corrected_share.
void waiting_shares(Measurements &m, const EstimationPlan &plan);

// Add the samples of `from` to `into` (ranks of one run, or runs of one estimation).
void accumulate(SlotMeasurement &into, const SlotMeasurement &from);

// Executions of a probe (sampled or not).
inline std::uint64_t executions_of(const SlotMeasurement &s) {
  return s.executions > s.count ? s.executions : s.count;
}

// A counter's sum over all its executions (a loop's iterations in the run), scaled from the
// counted ones when the counter was sampled.
inline double total_of(const SlotMeasurement &s) {
  return s.count == 0 ? 0.0
                      : static_cast<double>(s.sum) * static_cast<double>(executions_of(s)) /
                            static_cast<double>(s.count);
}

// How several estimation runs become one set of measurements.
enum class RunStatistic : std::uint8_t {
  Mean,    // all samples of all runs: a long run averages a machine's fast and slow phases, and
           // so does the mean of short runs, while any one of them sits in a single phase
  Median,  // per slot, the median run: robust to one disturbed run
  Minimum, // per slot, the fastest run: the machine without neighbours (a dedicated node)
};

// Several estimation runs of the same program and input reduced to one. Mean pools the samples
// (calibration averaged); Median and Minimum keep, per slot, the run whose value
// (overhead-corrected time per sample for timed probes, mean for counters) is the median or the
// minimum, re-expressed in the median calibration. A single short run on a shared machine can
// be off by tens of percent (this VM has 1.4x slower phases lasting 50-500 ms). Throws
// Error(Run) on no runs or a slot mismatch.
Measurements combine_runs(const std::vector<Measurements> &runs, const EstimationPlan &plan,
                          RunStatistic statistic = RunStatistic::Mean);

// Scale what the probes cost an enclosing measurement (pair, counter, skip, branch, uncounted and
// iteration costs; not what an empty pair reports, which is in every sample as read) by
// `scale` in [0, 1]: the estimation runs against the unmodified program showed the calibrated
// costs larger than the probes' real cost (python/parjava/_estimation_report.py, probe_scale).
// Throws Error(Usage) outside [0, 1].
void scale_probe_costs(Measurements &m, double scale);

// A cost as a function of bytes: (bytes, value) points, increasing bytes.
using CostCurve = std::vector<std::pair<double, double>>;

struct ApplyOptions {
  double balance_alpha = 0.1; // balanced loop: D <= alpha * T_mean (notes 000 §3.7.3, α = 0.1)
  bool reduce_loops = true;   // replace measured loops without communication by blocks
  // The estimation machine's memory costs (python/parjava/_library_costs.py): seconds per call
  // of malloc, free, memcpy, ... by bytes, and the seconds per byte of a sweep over a working
  // set of the given bytes (cache levels). Empty: calls keep their measured time and loops
  // are not scaled across cache levels.
  std::map<std::string, CostCurve> library_curves;
  CostCurve sweep_per_byte;
};

// Put the measurements into the model (validated afterwards) and say what was done, per node:
// measured blocks, balanced / unbalanced loops, reductions, opaque statistics, the error bound
// 3σ/√N of every measured time (notes 000 §4, Theorem 1), and what was never executed.
std::vector<Diagnostic> apply_estimates(model::Model &model, const EstimationPlan &plan,
                                        const Measurements &measurements,
                                        const ApplyOptions &options = {});

} // namespace parjava::frontend
