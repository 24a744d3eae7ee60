#include "size_costs.hpp"

#include "text_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace parjava::frontend {

namespace {

std::string number(double value) { return model_number(value); }

std::string seconds(double s) { return seconds_text(s); }

// Linear interpolation through (x, y) points sorted by x; the end segments extend.
double interpolate(const CostCurve &c, double x) {
  if (c.size() == 1) {
    return c.front().second;
  }
  std::size_t i = 1;
  while (i + 1 < c.size() && c[i].first < x) {
    ++i;
  }
  const auto &[x0, y0] = c[i - 1];
  const auto &[x1, y1] = c[i];
  if (x1 <= x0) {
    return y1;
  }
  return std::max(0.0, y0 + (y1 - y0) * (x - x0) / (x1 - x0));
}

// The model text of interpolate(knots, x) for an expression x: constant below the first knot,
// linear between knots, and above the last one either the last segment extended (a call's
// seconds keep growing with its bytes) or constant (a cost per byte saturates: past the last
// cache level every byte comes from memory).
std::string piecewise(const CostCurve &knots, const std::string &x, bool extend_above = true) {
  CostCurve k;
  for (const auto &pt : knots) {
    if (k.empty() || pt.first > k.back().first * 1.0001) {
      k.push_back(pt);
    }
  }
  if (k.size() == 1) {
    return number(k.front().second);
  }
  const auto segment = [&](std::size_t i) { // between k[i-1] and k[i]
    const double slope = (k[i].second - k[i - 1].second) / (k[i].first - k[i - 1].first);
    return "max(0, " + number(k[i - 1].second) + " + " + number(slope) + " * (" + x + " - " +
           number(k[i - 1].first) + "))";
  };
  std::string out = segment(k.size() - 1);
  if (!extend_above) {
    out = "((" + x + " <= " + number(k.back().first) + ") ? " + out + " : " +
          number(k.back().second) + ")";
  }
  for (std::size_t i = k.size() - 1; i-- > 1;) {
    std::string nested = "((" + x;
    nested += " <= " + number(k[i].first) + ") ? " + segment(i) + " : ";
    nested += out;
    nested += ")";
    out = std::move(nested);
  }
  return "((" + x + " <= " + number(k.front().first) + ") ? " + number(k.front().second) + " : " +
         out + ")";
}

} // namespace

std::string bytes_text(double b) {
  const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024.0 && u < 4) {
    b /= 1024.0;
    ++u;
  }
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.3g %s", b, units[u]);
  return buf;
}

// The site's points (mean bytes, corrected seconds per call) per power of two; its time becomes
// a piecewise-linear function of its size expression through knots of the machine's curve for
// the callee, scaled to what the site measured near its sizes and fading to the machine's curve
// far from them; a call without a machine curve that ran at several sizes is priced through its
// own points.
SizedPrice price_by_size(const Probe &p, const SlotMeasurement &s, const Measurements &m,
                         const ApplyOptions &options) {
  SizedPrice out;
  CostCurve site;
  double calls = 0.0;
  double log_bytes = 0.0;
  double total = 0.0;
  double most_per_size = 0.0;
  for (const auto &[bin, v] : s.sizes) {
    const double per = std::max(0.0, v[2] / v[0] - m.self_ticks) / m.ticks_per_second;
    site.emplace_back(v[1] / v[0], per);
    calls += v[0];
    log_bytes += v[0] * std::log(std::max(1.0, v[1] / v[0]));
    total += v[0] * per;
    most_per_size = std::max(most_per_size, v[0]);
  }
  const double b0 = std::exp(log_bytes / calls);
  const double t0 = total / calls;
  const std::string callee = "'" + p.callee + "'";
  if (p.bytes.empty()) {
    out.message = callee + " is priced at the estimation's " + bytes_text(b0) +
                  " only: its size is data the model does not keep";
    return out;
  }
  CostCurve knots;
  std::string how;
  // A block freed once (arrays set up at the start) costs what a first free of that size
  // costs (an munmap); one freed over and over at a size, the allocator's steady state.
  const std::string once = p.callee + "_once";
  const auto curve = options.library_curves.find(
      most_per_size <= 2.0 && options.library_curves.contains(once) ? once : p.callee);
  if (curve != options.library_curves.end() && curve->second.size() >= 2) {
    double expected = 0.0;
    double measured = 0.0;
    for (const auto &[b, t] : site) {
      expected += interpolate(curve->second, b);
      measured += t;
    }
    double r0 = expected > 0.0 && measured > 0.0 ? measured / expected : 1.0;
    // A site far off the machine's curve (a first call paying for the allocator's page
    // mapping, a cold buffer) measured something that does not carry to other sizes: the
    // machine's curve prices them. Otherwise the site's factor near its sizes, fading to the
    // curve four knots (256x) away.
    if (r0 > 3.0 || r0 < 1.0 / 3.0) {
      r0 = 1.0;
    }
    for (const auto &[b, t] : curve->second) {
      bool measured_here = false;
      for (const auto &pt : site) {
        measured_here = measured_here || std::fabs(std::log(pt.first / b)) < std::log(1.5);
      }
      if (measured_here) {
        continue; // the site's own point stands for this size
      }
      const double distance = std::fabs(std::log(b / b0) / std::log(4.0));
      const double w = std::max(0.0, 1.0 - distance / 4.0);
      knots.emplace_back(b, t * std::pow(r0, w));
    }
    how = "the machine's " + curve->first + " curve (1 KiB ... 256 MiB) scaled by this site's " +
          number(r0) + "x near its sizes";
  } else if (site.size() >= 2) {
    how = "its own " + std::to_string(site.size()) + " measured sizes";
  } else {
    out.message = callee + " ran at one size only (" + bytes_text(b0) +
                  ") and the machine has no curve for it: priced at that size";
    return out;
  }
  knots.insert(knots.end(), site.begin(), site.end()); // the site's measurements are knots
  std::sort(knots.begin(), knots.end());
  out.expression = piecewise(knots, "(" + p.bytes + ")");
  out.message = callee + " priced by its bytes " + p.bytes + " through " + how + ": " +
                seconds(t0) + " per call at the estimation's " + bytes_text(b0);
  return out;
}

double cost_holds_to(const CostCurve &sweep_per_byte, double w0) {
  if (sweep_per_byte.size() < 2 || !(w0 > 0.0)) {
    return 0.0;
  }
  const double limit = 1.1 * interpolate(sweep_per_byte, w0);
  // Walk up the knots above w0; the crossing lies in the first segment that rises past it.
  double below = w0;
  for (const auto &[size, cost] : sweep_per_byte) {
    if (size <= w0) {
      continue;
    }
    if (cost > limit) {
      return below;
    }
    below = size;
  }
  return below;
}

std::string cache_factor(const CostCurve &sweep_per_byte, double w0, double t0,
                         const std::string &trips, double seconds) {
  // The cost per byte cannot fall as the working set grows: the measured curve's noise is
  // taken out by its running maximum.
  CostCurve curve = sweep_per_byte;
  for (std::size_t i = 1; i < curve.size(); ++i) {
    curve[i].second = std::max(curve[i].second, curve[i - 1].second);
  }
  // Working sets beyond the sweep's largest size cost what its largest size costs per byte.
  const double c0 = interpolate(curve, std::min(w0, curve.empty() ? w0 : curve.back().first));
  if (curve.size() < 2 || !(c0 > 0.0) || curve.back().second <= curve.front().second * 1.02) {
    return {};
  }
  const std::string w = "(" + number(w0 / t0) + " * " + trips + ")";
  std::string scaled = "(" + piecewise(curve, w, false) + ") / " + number(c0);
  // The memory part of the time (a roofline's view: the time is what moving the working set
  // takes plus what the arithmetic takes): SimpleMOC-like nests of 64 operations per element
  // were scaled as if bound by memory (x1.4 for twice the elements; the program: x1.0).
  const double share = seconds > 0.0 ? std::min(1.0, c0 * w0 / seconds) : 1.0;
  if (share >= 0.99) {
    return scaled;
  }
  if (share < 0.01) {
    return {};
  }
  return "(" + number(1.0 - share) + " + " + number(share) + " * " + scaled + ")";
}

} // namespace parjava::frontend
