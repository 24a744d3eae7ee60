#include "parjava/machine/network.hpp"

#include <algorithm>
#include <cmath>

#include "parjava/machine/units.hpp"
#include "validation.hpp"

namespace parjava::machine {

using detail::field_path;
using detail::require_non_negative;
using detail::require_positive;

std::string_view network_kind_name(NetworkKind kind) {
  switch (kind) {
  case NetworkKind::Hockney:
    return "hockney";
  case NetworkKind::LogGP:
    return "loggp";
  case NetworkKind::Table:
    return "table";
  }
  return "unknown";
}

Network Network::hockney(const HockneyParameters &parameters, std::string_view field) {
  require_non_negative(parameters.latency, field_path(field, "latency"));
  require_positive(parameters.bandwidth, field_path(field, "bandwidth"));
  return Network(parameters);
}

Network Network::loggp(const LogGPParameters &parameters, std::string_view field) {
  require_non_negative(parameters.L, field_path(field, "L"));
  require_non_negative(parameters.o, field_path(field, "o"));
  require_non_negative(parameters.g, field_path(field, "g"));
  require_non_negative(parameters.G, field_path(field, "G"));
  require_non_negative(parameters.O, field_path(field, "O"));
  return Network(parameters);
}

Network Network::table(MeasuredTable table, std::string_view field) {
  const std::string points_field = field_path(field, "points");
  const auto &points = table.points;
  if (points.size() < 2) {
    detail::fail(points_field, "a measured table needs at least two points to interpolate (got " +
                                   std::to_string(points.size()) + ")");
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string point_field = points_field + "[" + std::to_string(i) + "]";
    require_non_negative(points[i].seconds, point_field + ".seconds");
    if (i > 0 && points[i].bytes <= points[i - 1].bytes) {
      detail::fail(point_field + ".bytes", "sizes must be strictly increasing (" +
                                               std::to_string(points[i].bytes) + " follows " +
                                               std::to_string(points[i - 1].bytes) + ")");
    }
  }
  // Beyond the largest size the time is extrapolated with the last segment's slope; a flat or
  // falling last segment would predict that ever larger messages cost no more or even less.
  const TablePoint &last = points.back();
  const TablePoint &before = points[points.size() - 2];
  if (last.seconds <= before.seconds) {
    detail::fail(points_field, "the last two points (" + format_size(before.bytes) + ": " +
                                   format_time(before.seconds) + ", " + format_size(last.bytes) +
                                   ": " + format_time(last.seconds) +
                                   ") do not increase, so times beyond the largest size cannot be "
                                   "extrapolated; add a larger size to the table");
  }
  return Network(std::move(table));
}

NetworkKind Network::kind() const noexcept {
  switch (model_.index()) {
  case 0:
    return NetworkKind::Hockney;
  case 1:
    return NetworkKind::LogGP;
  default:
    return NetworkKind::Table;
  }
}

namespace {

double table_time(const std::vector<TablePoint> &points, std::uint64_t bytes) noexcept {
  // First point with a size above `bytes`; the segment used is the one ending there, or the
  // first/last segment when `bytes` lies outside the table.
  auto upper = std::upper_bound(points.begin(), points.end(), bytes,
                                [](std::uint64_t n, const TablePoint &p) { return n < p.bytes; });
  if (upper == points.begin()) {
    upper = std::next(points.begin());
  } else if (upper == points.end()) {
    upper = std::prev(points.end());
  } else if (std::prev(upper)->bytes == bytes) {
    return std::prev(upper)->seconds;
  }
  const TablePoint &right = *upper;
  const TablePoint &left = *std::prev(upper);
  const double span = static_cast<double>(right.bytes - left.bytes);
  const double offset = static_cast<double>(bytes) - static_cast<double>(left.bytes);
  const double time = left.seconds + (right.seconds - left.seconds) * (offset / span);
  return std::max(time, 0.0);
}

} // namespace

double Network::p2p_time(std::uint64_t bytes) const noexcept {
  if (const auto *h = std::get_if<HockneyParameters>(&model_)) {
    return h->latency + static_cast<double>(bytes) / h->bandwidth;
  }
  if (const auto *p = std::get_if<LogGPParameters>(&model_)) {
    const double extra_bytes = bytes == 0 ? 0.0 : static_cast<double>(bytes - 1);
    return p->o + p->L + p->o + extra_bytes * std::max(p->G, p->O);
  }
  if (const auto *t = std::get_if<MeasuredTable>(&model_)) {
    return table_time(t->points, bytes);
  }
  return 0.0; // unreachable: the variant holds one of the three models
}

std::uint64_t Network::eager_limit() const noexcept {
  if (const auto *h = std::get_if<HockneyParameters>(&model_)) {
    return h->eager_limit;
  }
  if (const auto *p = std::get_if<LogGPParameters>(&model_)) {
    return p->S;
  }
  if (const auto *t = std::get_if<MeasuredTable>(&model_)) {
    return t->eager_limit;
  }
  return 0; // unreachable: the variant holds one of the three models
}

const HockneyParameters *Network::as_hockney() const noexcept {
  return std::get_if<HockneyParameters>(&model_);
}
const LogGPParameters *Network::as_loggp() const noexcept {
  return std::get_if<LogGPParameters>(&model_);
}
const MeasuredTable *Network::as_table() const noexcept {
  return std::get_if<MeasuredTable>(&model_);
}

std::string Network::describe() const {
  const std::string eager = "eager <= " + format_size(eager_limit());
  if (const auto *h = as_hockney()) {
    return "Hockney: latency " + format_time(h->latency) + ", bandwidth " +
           format_bandwidth(h->bandwidth) + ", " + eager;
  }
  if (const auto *p = as_loggp()) {
    return "LogGP: L " + format_time(p->L) + ", o " + format_time(p->o) + ", g " +
           format_time(p->g) + ", G " + format_time(p->G) + "/B, O " + format_time(p->O) + "/B, " +
           eager;
  }
  const auto &points = as_table()->points;
  return "measured table: " + std::to_string(points.size()) + " sizes " +
         format_size(points.front().bytes) + ".." + format_size(points.back().bytes) + ", " +
         format_time(points.front().seconds) + ".." + format_time(points.back().seconds) + ", " +
         eager;
}

} // namespace parjava::machine
