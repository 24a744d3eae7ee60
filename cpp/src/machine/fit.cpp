#include "parjava/machine/fit.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "parjava/error.hpp"
#include "parjava/machine/units.hpp"

namespace parjava::machine {

namespace {

struct Sample {
  double x = 0.0;
  double y = 0.0;
};

struct Line {
  double intercept = 0.0;
  double slope = 0.0;
  [[nodiscard]] double at(double x) const { return intercept + slope * x; }
};

// Least squares on the relative error: weights 1/y^2 (see fit.hpp for why). Centred sums keep
// the normal equations well conditioned when x spans 0..4e6 and y spans 1e-7..1e-3.
Line relative_weighted_line(const std::vector<Sample> &samples) {
  double weight_sum = 0.0;
  double x_mean = 0.0;
  double y_mean = 0.0;
  for (const Sample &s : samples) {
    const double w = 1.0 / (s.y * s.y);
    weight_sum += w;
    x_mean += w * s.x;
    y_mean += w * s.y;
  }
  x_mean /= weight_sum;
  y_mean /= weight_sum;
  double sxx = 0.0;
  double sxy = 0.0;
  for (const Sample &s : samples) {
    const double w = 1.0 / (s.y * s.y);
    sxx += w * (s.x - x_mean) * (s.x - x_mean);
    sxy += w * (s.x - x_mean) * (s.y - y_mean);
  }
  Line line;
  line.slope = sxx > 0.0 ? sxy / sxx : 0.0;
  line.intercept = y_mean - line.slope * x_mean;
  return line;
}

// The best slope with the intercept fixed at 0 (same weights).
double relative_weighted_slope_through_origin(const std::vector<Sample> &samples) {
  double sxx = 0.0;
  double sxy = 0.0;
  for (const Sample &s : samples) {
    const double w = 1.0 / (s.y * s.y);
    sxx += w * s.x * s.x;
    sxy += w * s.x * s.y;
  }
  return sxx > 0.0 ? sxy / sxx : 0.0;
}

// Points with a positive time, as (x, y) with x = transform(bytes).
template <typename Transform>
std::vector<Sample> usable(std::span<const TablePoint> points, Transform transform) {
  std::vector<Sample> samples;
  samples.reserve(points.size());
  for (const TablePoint &p : points) {
    if (p.seconds > 0.0 && std::isfinite(p.seconds)) {
      samples.push_back({transform(p.bytes), p.seconds});
    }
  }
  return samples;
}

double as_double(std::uint64_t bytes) { return static_cast<double>(bytes); }

// LogGP charges (n - 1) bytes; LogGOPSim's n = 0 quirk is not modelled (network.hpp).
double bytes_after_first(std::uint64_t bytes) {
  return bytes == 0 ? 0.0 : static_cast<double>(bytes - 1);
}

bool distinct_x(const std::vector<Sample> &samples) {
  return std::any_of(samples.begin(), samples.end(),
                     [&](const Sample &s) { return s.x != samples.front().x; });
}

} // namespace

FitError fit_error(const Network &network, std::span<const TablePoint> points) {
  FitError error;
  double sum_squares = 0.0;
  for (const TablePoint &p : points) {
    if (!(p.seconds > 0.0)) {
      continue;
    }
    const double relative = std::fabs(network.p2p_time(p.bytes) - p.seconds) / p.seconds;
    sum_squares += relative * relative;
    ++error.points;
    if (relative > error.max_relative) {
      error.max_relative = relative;
      error.worst_bytes = p.bytes;
    }
  }
  if (error.points > 0) {
    error.rms_relative = std::sqrt(sum_squares / static_cast<double>(error.points));
  }
  return error;
}

HockneyFit fit_hockney(std::span<const TablePoint> points, std::uint64_t eager_limit) {
  const std::vector<Sample> samples = usable(points, as_double);
  if (samples.size() < 2 || !distinct_x(samples)) {
    throw Error(ErrorKind::Analysis,
                "a Hockney fit needs at least two sizes with positive times (got " +
                    std::to_string(samples.size()) + ")");
  }
  const Line line = relative_weighted_line(samples);
  HockneyFit fit;
  double slope = line.slope;
  fit.parameters.latency = line.intercept;
  if (line.intercept < 0.0) {
    fit.constrained = true;
    fit.parameters.latency = 0.0;
    slope = relative_weighted_slope_through_origin(samples);
  }
  if (!(slope > 0.0)) {
    throw Error(ErrorKind::Analysis,
                "the measured times do not grow with the message size (fitted slope " +
                    format_time(slope) +
                    " per byte), so no bandwidth can be fitted; measure larger sizes");
  }
  fit.parameters.bandwidth = 1.0 / slope;
  fit.parameters.eager_limit = eager_limit;
  fit.error = fit_error(Network::hockney(fit.parameters), points);
  return fit;
}

LogGPFit fit_loggp(const LogGPObservations &observations) {
  const std::vector<Sample> overhead = usable(observations.send_overhead, bytes_after_first);
  if (overhead.empty()) {
    throw Error(ErrorKind::Analysis,
                "a LogGP fit needs the send overhead of at least one eager message size");
  }
  const std::vector<Sample> one_way = usable(observations.one_way, bytes_after_first);
  if (one_way.size() < 2 || !distinct_x(one_way)) {
    throw Error(ErrorKind::Analysis,
                "a LogGP fit needs one-way times for at least two sizes (got " +
                    std::to_string(one_way.size()) + ")");
  }
  if (!(observations.gap >= 0.0) || !std::isfinite(observations.gap)) {
    throw Error(ErrorKind::Analysis, "a LogGP fit needs a measured gap >= 0");
  }

  LogGPFit fit;
  LogGPParameters &p = fit.parameters;
  // o(n) = o + (n-1) O. A single size, or a falling line (noise), gives O = 0.
  if (distinct_x(overhead)) {
    const Line line = relative_weighted_line(overhead);
    p.o = line.intercept;
    p.O = line.slope;
  }
  if (!distinct_x(overhead) || p.O < 0.0 || p.o < 0.0) {
    double weighted = 0.0;
    double weights = 0.0;
    for (const Sample &s : overhead) {
      weighted += 1.0 / s.y;
      weights += 1.0 / (s.y * s.y);
    }
    p.o = weighted / weights; // the relative-least-squares constant
    p.O = 0.0;
  }

  // T(n) = (2o + L) + (n-1) max(G, O).
  const Line line = relative_weighted_line(one_way);
  double intercept = line.intercept;
  double slope = line.slope;
  if (intercept < 0.0) {
    fit.constrained = true;
    intercept = 0.0;
    slope = relative_weighted_slope_through_origin(one_way);
  }
  if (!(slope > 0.0)) {
    throw Error(ErrorKind::Analysis,
                "the one-way times do not grow with the message size, so G cannot be fitted; "
                "measure larger sizes");
  }
  p.G = slope;
  if (p.O > p.G) {
    // The receiver is charged max(G, O) per byte, so a per-byte CPU overhead above the one-way
    // slope contradicts the one-way table; the table wins.
    fit.constrained = true;
    p.O = p.G;
  }
  p.L = intercept - 2.0 * p.o;
  if (p.L < 0.0) {
    fit.constrained = true;
    p.L = 0.0;
    p.o = intercept / 2.0;
  }
  p.g = observations.gap;
  p.S = observations.eager_limit;
  fit.error = fit_error(Network::loggp(p), observations.one_way);
  return fit;
}

namespace {

// The Hockney lines left and right of the boundary after points[index] (window points each).
struct Sides {
  Line left;
  Line right;
};

Sides fit_sides(std::span<const TablePoint> points, std::size_t index, std::size_t window) {
  std::vector<Sample> left;
  std::vector<Sample> right;
  for (std::size_t k = index + 1 - window; k <= index; ++k) {
    left.push_back({as_double(points[k].bytes), points[k].seconds});
  }
  for (std::size_t k = index + 1; k <= index + window; ++k) {
    right.push_back({as_double(points[k].bytes), points[k].seconds});
  }
  return {relative_weighted_line(left), relative_weighted_line(right)};
}

std::vector<TablePoint> positive_points(std::span<const TablePoint> points) {
  std::vector<TablePoint> kept;
  for (const TablePoint &p : points) {
    if (p.bytes > 0 && p.seconds > 0.0 && std::isfinite(p.seconds)) {
      kept.push_back(p);
    }
  }
  return kept;
}

} // namespace

EagerLimitDetection detect_eager_limit(std::span<const TablePoint> points, double relative_noise,
                                       const EagerLimitOptions &options) {
  EagerLimitDetection best;
  const std::size_t window = std::max<std::size_t>(options.window, 2);
  const std::vector<TablePoint> kept = positive_points(points);
  if (kept.size() < 2 * window) {
    return best;
  }
  const double threshold =
      std::max(options.min_relative_jump, options.noise_factor * relative_noise);
  for (std::size_t i = window - 1; i + window < kept.size(); ++i) {
    if (kept[i].bytes < options.min_bytes || kept[i].bytes > options.max_bytes) {
      continue;
    }
    const Sides sides = fit_sides(kept, i, window);
    // A protocol switch puts the right-hand line above the left-hand one over the whole gap
    // between the two sizes; a mere change of slope (a cache boundary) makes them cross inside
    // it. So the jump is the smaller of the gaps at both ends.
    const double x_left = as_double(kept[i].bytes);
    const double x_right = as_double(kept[i + 1].bytes);
    const double expected = sides.left.at(x_right);
    if (!(expected > 0.0)) {
      continue;
    }
    const double jump = std::min(sides.right.at(x_left) - sides.left.at(x_left),
                                 sides.right.at(x_right) - expected);
    const double relative = jump / expected;
    if (relative > threshold && relative > best.jump_relative) {
      best.detected = true;
      best.last_eager_bytes = kept[i].bytes;
      best.first_rendezvous_bytes = kept[i + 1].bytes;
      best.jump_seconds = jump;
      best.jump_relative = relative;
    }
  }
  return best;
}

bool closer_to_eager_side(std::span<const TablePoint> points, const EagerLimitDetection &detection,
                          std::uint64_t bytes, double seconds, const EagerLimitOptions &options) {
  if (!detection.detected) {
    throw Error(ErrorKind::Usage, "closer_to_eager_side needs a detected eager limit");
  }
  const std::size_t window = std::max<std::size_t>(options.window, 2);
  const std::vector<TablePoint> kept = positive_points(points);
  std::size_t index = kept.size();
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (kept[i].bytes == detection.last_eager_bytes) {
      index = i;
    }
  }
  if (index == kept.size() || index + 1 < window || index + window >= kept.size()) {
    throw Error(ErrorKind::Usage, "the detection does not belong to these points");
  }
  const Sides sides = fit_sides(kept, index, window);
  const double x = as_double(bytes);
  return std::fabs(seconds - sides.left.at(x)) <= std::fabs(seconds - sides.right.at(x));
}

} // namespace parjava::machine
