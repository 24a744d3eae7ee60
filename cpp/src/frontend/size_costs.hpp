// Prices that follow sizes (issue 13 item 4): an external call's time as a function of the
// bytes it touches, through the estimation machine's cost curves (python/parjava/
// _library_costs.py) and what the call site measured; and the factor by which a loop nest's
// time changes when its working set moves to another cache level.
#pragma once

#include <string>

#include "parjava/frontend/estimates.hpp"

namespace parjava::frontend {

struct SizedPrice {
  std::string expression; // model text of the seconds per call ("" : keep the measured time)
  std::string message;    // what was done, for the diagnostic
};

// The price of a sized call site (its Sized probe and slot).
SizedPrice price_by_size(const Probe &probe, const SlotMeasurement &slot, const Measurements &m,
                         const ApplyOptions &options);

// Model text of the factor c(W) / c(w0) by which a nest's time scales, for the working set W =
// w0 / t0 * trips (t0: the nest's iterations per execution at the estimation input, where its
// working set was w0 bytes); "" when the curve gives no change. Only the part of the nest's
// time a sweep of its working set would take (c(w0) * w0 of `seconds` per execution) scales:
// a nest that computes far longer than it moves memory keeps its time per iteration.
std::string cache_factor(const CostCurve &sweep_per_byte, double w0, double t0,
                         const std::string &trips, double seconds);

// The largest working set from w0 up whose sweep cost per byte stays within 10 % of c(w0):
// how far a nest's measured cost per iteration holds as its data grows (the largest size the
// curve measured when it never rises that much; 0 without a curve or a working set).
double cost_holds_to(const CostCurve &sweep_per_byte, double w0);

// "4.02 MiB".
std::string bytes_text(double bytes);

} // namespace parjava::frontend
