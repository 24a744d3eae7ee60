// The loader's application of measured estimates to a model (seed 000 notes §3.7, seed 003 notes
// §6.5), shared by estimates.cpp (blocks, branches, trip counts, values) and estimates_loops.cpp
// (loops without communication reduced to blocks). Private to the frontend.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "estimates_triangles.hpp"
#include "parjava/frontend/estimates.hpp"
#include "text_format.hpp"

namespace parjava::frontend::estimates_detail {

using model::Node;
using model::NodeId;
using model::NodeIndex;
using model::NodeKind;

inline std::string number(double value) { return model_number(value); }

inline std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%%", 100.0 * fraction);
  return buf;
}

inline std::string seconds(double s) { return seconds_text(s); }

class Applier {
public:
  Applier(model::Model &m, const EstimationPlan &plan, const Measurements &ms,
          const ApplyOptions &options)
      : m_(m), plan_(plan), ms_(ms), options_(options) {}

  std::vector<Diagnostic> run();

private:
  // Per-rank statistics (interfaces §1): the ranks of every run pooled rank by rank, when the
  // estimation ran at np >= 2 (all runs at the same np).
  void pool_ranks();

  const SlotMeasurement &slot(const Probe &p) const;

  // Overhead-corrected total seconds of a timed slot over all its executions (seed 003 notes
  // §6.5, correction): the timed samples' time, scaled by executions / samples.
  double total_seconds(const SlotMeasurement &s) const;
  double sigma_seconds(const SlotMeasurement &s) const;

  void note(NodeId id, Severity severity, const std::string &message);

  std::string label(NodeId id) const;

  void block(const Probe &p, const SlotMeasurement &s);

  // An external call priced by its bytes (issue 13 item 4; size_costs.cpp).
  void sized(const Probe &p, const SlotMeasurement &s);

  // A constructor's member initialisers (allocating and filling member arrays before its body
  // runs): a block of their measured time at the front of the constructor's body.
  void prologue(const Probe &p, const SlotMeasurement &s);

  void branch(const Probe &p, const SlotMeasurement &s);

  // Case weights of a switch from its selector histogram: each case's values, the rest to the
  // default case; uniform when only values without a case were seen.
  static std::vector<double> case_weights(const Node &n, const SlotMeasurement &s);

  void selector(const Probe &p, const SlotMeasurement &s);

  static std::vector<std::pair<std::int64_t, double>> distribution(const SlotMeasurement &s);

  void trips(const Probe &p, const SlotMeasurement &s);

  // A loop that communicates keeps its counts in order (pj_trips_seq), an opaque if that guards
  // communication its outcomes (pj_branch_seq): at np >= 2 each rank's sequence goes into the
  // model (docs/model-schema.md "Measured decisions"), so that the ranks of the model exchange
  // the messages the program's did; keep_decided_trips then keeps those that follow decisions.
  // `single`: also at np 1 (loops the model counts by their condition).
  std::vector<std::vector<std::int64_t>> sequences_by_rank(const Probe &p,
                                                           bool single = false) const;

  // The period of at least two values that every rank's sequence repeats from its start, if the
  // sequences show it at least twice (the probe runtime keeps the first 4096 values): HPCG's
  // V-cycle recurses while `A.mgData != 0`, taken 3 times and then not, in every cycle and on
  // every rank. Drawn by its frequency instead (0.75: taken, taken, not, taken, ...), the
  // recursion went one level too deep or too shallow in turn, and the self-check missed by 27 %.
  // A short sequence without a period is kept whole: HPCG's CG runs 50, 11, 50, 11, 1, 1
  // iterations, the 11s with the V-cycle as preconditioner, and draws of the mean gave the
  // V-cycle 19 iterations fewer than the run.
  [[nodiscard]] std::vector<std::int64_t> common_cycle(const Probe &p) const;

  void value(const Probe &p, const SlotMeasurement &s);

  // --- loops without communication (notes 000 §3.7.2-§3.7.4) -----------------------------

  const Probe *probe(NodeId node, ProbeKind kind) const;

  // Names assigned anywhere in the subtree (loop variables, assignments, operation outputs).
  void assigned(NodeIndex n, std::set<std::string> &out) const;

  static bool reads_any(const std::string &expr, const std::set<std::string> &names);

  struct LoopResult {
    std::string expr;   // time per execution, model syntax
    double total = 0.0; // measured seconds, corrected
    std::uint64_t executions = 0;
  };

  // The single loop a loop's body consists of, if any.
  NodeIndex perfect_child(NodeIndex loop) const;

  // Collect, under `n` (not entering loops with their own fragment probe), the measured blocks
  // and the timed loops.
  void components(NodeIndex n, std::vector<NodeId> &blocks, std::vector<NodeId> &loops) const;

  // The trip count per execution of `loop` as model text: its computed count when that reads
  // nothing the nest assigns, its average over the enclosing counted loops' iterations when it
  // reads one of their counters (a triangle, estimates_triangles.hpp), else the measured mean.
  std::string trips_text(NodeId loop, const std::set<std::string> &assigned_outside,
                         const std::vector<EnclosingCounter> &counters = {}) const;

  // A measured trip count that differs between the ranks of an np >= 2 estimation, as an
  // expression of `rank` and `size` with the rank classes of interfaces §1: rank 0, the last
  // rank, and the samples-weighted pool of the ranks between (the pooled mean when there are
  // none). A reduced loop then keeps each rank's own count; otherwise the pooled mean.
  std::string per_rank_trips(NodeId loop, double pooled) const;

  std::uint64_t iterations(NodeId loop) const;

  // A loop timed per iteration whose reduction failed (`why`): its time per iteration `per`
  // goes to its condition (estimates_loops.cpp).
  void keep_timed_iterations(NodeId id, double per, const std::string &message,
                             const std::string &why);

  // D over the iteration times. With the runtime's quarter-octave histogram, the 1% slowest
  // and fastest iterations (page faults, interrupts, the cold first iteration) are left out, so
  // D describes the loop rather than the machine's noise; without it, D is max |T_i - T_mean|.
  std::string balance_verdict(const SlotMeasurement &s) const;

  void reduce_loops();

  // A loop timed by its iterations alone (OpenMP): trips × the mean iteration time, each
  // sample less the cost of the clock reads that took it.
  void reduce_by_iterations(NodeId id);

  // A work-sharing loop over a count the model cannot compute (miniMD's `nlocal` atoms): each
  // thread counted its chunk, with its team's size (pj_omp_trips), so the count per team is
  // the per-thread mean times the mean team. Shared out again among the predicted tasks as
  // OpenMP's static schedule does (OpenMP 5.2 §11.5.3: chunks of ceil(n / T)); with a count
  // per thread instead, two threads each ran all the iterations the estimation's one did.
  std::string shared_trips(NodeId id) const;
  // The count of a loop timed per iteration whose body is one counted loop (its trips text and
  // its mean count in the estimation run), or none.
  std::optional<std::pair<std::string, double>> inner_count(NodeId id) const;
  // The OpenMP region around a loop timed whole holds its fork and join in that time.
  void fork_timed(NodeId id);

  void reduce_loop(NodeId id);

  // A loop nest whose working set moves to another cache level between the estimation input
  // and the predicted one (issue 13 item 4; jacobi 512^2 -> 1024^2 leaves 4 MB for 16 MB): its
  // time is scaled by the machine's cost per byte of a sweep at each working-set size. The
  // working set at the estimation input is the heap the program held while the nest ran
  // (counted at the allocator, probe_runtime_heap.cpp); it grows with the nest's iterations per
  // execution when they sweep it about once (the whole chain, or the chain without its outer loop
  // when that one repeats sweeps); `seconds` per execution bound the part that scales
  // (cache_factor). Returns a note for the diagnostic ("" when not scaled).
  std::string scale_across_caches(const SlotMeasurement &frag, const std::vector<NodeIndex> &chain,
                                  const std::vector<std::string> &trip_texts, double seconds,
                                  std::string &per_execution) const;

  std::uint64_t iterations_executions(NodeIndex loop) const;

  model::Model &m_;
  const EstimationPlan &plan_;
  const Measurements &ms_;
  const ApplyOptions &options_;
  std::vector<Diagnostic> diagnostics_;
  std::map<NodeId, double> measured_;
  std::map<NodeId, double> executions_;                // blocks: executions in the run
  std::size_t np_ = 0;                                 // ranks of the estimation run
  std::vector<std::vector<SlotMeasurement>> per_rank_; // [rank][slot], when np >= 2
  std::map<NodeId, SlotMeasurement> trips_;
  std::map<NodeId, LoopResult> results_;
};

} // namespace parjava::frontend::estimates_detail
