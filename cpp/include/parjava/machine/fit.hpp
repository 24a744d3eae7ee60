// Fitting network models to measured ping-pong tables, and finding the eager limit in them.
// Pure computation (no MPI), so netbench, Python and the tests share one implementation.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "parjava/machine/network.hpp"

namespace parjava::machine {

// How well a model reproduces a table: relative errors |model - measured| / measured over the
// points used.
struct FitError {
  double rms_relative = 0.0;
  double max_relative = 0.0;
  std::uint64_t worst_bytes = 0; // the size where max_relative occurs
  std::size_t points = 0;
  bool operator==(const FitError &) const = default;
};

// The error of `network` on `points` (points with a zero measured time are skipped).
FitError fit_error(const Network &network, std::span<const TablePoint> points);

// Hockney fit: minimises sum(((latency + n/bandwidth) - T_i) / T_i)^2, i.e. least squares on
// the relative error (weights 1/T_i^2). Unweighted least squares would let the microsecond
// points of small messages count for nothing against the millisecond points of large ones, and
// the latency would come out as noise or negative; relative weighting gives every size the same
// say, which is what a model used across all sizes needs. If the unconstrained latency is
// negative the fit is redone with latency = 0 (`constrained` says so).
// Throws parjava::Error(ErrorKind::Analysis) with fewer than two usable points or when the
// slope is not positive (no bandwidth can be derived).
struct HockneyFit {
  HockneyParameters parameters;
  FitError error;
  bool constrained = false;
  bool operator==(const HockneyFit &) const = default;
};
HockneyFit fit_hockney(std::span<const TablePoint> points, std::uint64_t eager_limit);

// What netbench measures for LogGP (Kielmann et al.'s approach, adapted to LogGOPSim's meaning
// of the parameters, anchors/loggopsim-semantics.md §3):
//  * one_way: ping-pong one-way times T(n) = 2o + L + (n-1)*max(G,O);
//  * send_overhead: the time a blocking eager MPI_Send of n bytes keeps the sender's CPU,
//    o(n) = o + (n-1)*O, measured with the receive pre-posted and the sender idle before;
//  * gap: the time per message when a sender streams small messages back to back, which in
//    LogGOPSim is max(o, g) (the next send waits for both the CPU and the NIC).
struct LogGPObservations {
  std::span<const TablePoint> one_way;
  std::span<const TablePoint> send_overhead; // one or more sizes in the eager range
  double gap = 0.0;
  std::uint64_t eager_limit = 0;
};

// LogGP fit: o and O from a relative-weighted linear fit of send_overhead; (2o + L) and G from a
// relative-weighted linear fit of one_way in (n - 1); L = (2o + L) - 2o; g = gap. If L would be
// negative (the sender overhead measured larger than half the one-way time), L is set to 0 and
// o to half the fitted intercept (`constrained`). The error is the one-way model's error on
// one_way.
struct LogGPFit {
  LogGPParameters parameters;
  FitError error;
  bool constrained = false;
  bool operator==(const LogGPFit &) const = default;
};
LogGPFit fit_loggp(const LogGPObservations &observations);

// Eager-limit detection on a ping-pong curve. Switching from eager to rendezvous adds a
// handshake, which shows as an upward jump between two neighbouring sizes that the local trend
// on either side does not explain. For every boundary between measured sizes the detector fits
// a line to the `window` points on each side (relative weights, as above); the jump is the
// smaller gap between the right-hand and the left-hand line at the two sizes around the
// boundary, so a change of slope alone (the lines cross between the sizes) is no jump. The
// boundary with the largest relative jump is reported if that jump exceeds `min_relative_jump`
// and `noise_factor` times the points' relative noise (`relative_noise`, e.g. the 95 %
// confidence half-width over the mean; 0 when unknown).
struct EagerLimitDetection {
  bool detected = false;
  std::uint64_t last_eager_bytes = 0;       // the largest measured size on the eager side
  std::uint64_t first_rendezvous_bytes = 0; // the smallest measured size on the rendezvous side
  double jump_seconds = 0.0;
  double jump_relative = 0.0;
  bool operator==(const EagerLimitDetection &) const = default;
};
struct EagerLimitOptions {
  std::size_t window = 3;
  double min_relative_jump = 0.15;
  double noise_factor = 3.0;
  std::uint64_t min_bytes = 64; // candidates below this are ignored (cache noise)
  std::uint64_t max_bytes = std::uint64_t{1}
                            << 20; // and above this (protocol switches for huge sizes)
};
EagerLimitDetection detect_eager_limit(std::span<const TablePoint> points, double relative_noise,
                                       const EagerLimitOptions &options = {});

// Which side of a detected switch a measured point lies on: the Hockney lines fitted on both
// sides are compared with `seconds` at `bytes`; true when the eager (left) line is the closer.
// netbench uses it to bisect between last_eager_bytes and first_rendezvous_bytes.
bool closer_to_eager_side(std::span<const TablePoint> points, const EagerLimitDetection &detection,
                          std::uint64_t bytes, double seconds,
                          const EagerLimitOptions &options = {});

} // namespace parjava::machine
