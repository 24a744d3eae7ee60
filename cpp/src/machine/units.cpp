#include "parjava/machine/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <span>
#include <string>

#include "parjava/error.hpp"
#include "parjava/machine/network.hpp"

namespace parjava::machine {

namespace {

struct Unit {
  std::string_view suffix;
  double factor; // multiply to get SI
};

// Accepted suffixes per dimension. Size prefixes: K/M/G are decimal, Ki/Mi/Gi binary (IEC).
constexpr std::array time_units{Unit{"s", 1.0},   Unit{"ms", 1e-3}, Unit{"us", 1e-6},
                                Unit{"µs", 1e-6}, Unit{"ns", 1e-9}, Unit{"ps", 1e-12}};
constexpr std::array size_units{Unit{"B", 1.0},
                                Unit{"KB", 1e3},
                                Unit{"MB", 1e6},
                                Unit{"GB", 1e9},
                                Unit{"KiB", 1024.0},
                                Unit{"MiB", 1024.0 * 1024.0},
                                Unit{"GiB", 1024.0 * 1024.0 * 1024.0}};
constexpr std::array bandwidth_units{Unit{"B/s", 1.0},
                                     Unit{"KB/s", 1e3},
                                     Unit{"MB/s", 1e6},
                                     Unit{"GB/s", 1e9},
                                     Unit{"KiB/s", 1024.0},
                                     Unit{"MiB/s", 1048576.0},
                                     Unit{"GiB/s", 1073741824.0},
                                     Unit{"b/s", 0.125},
                                     Unit{"kb/s", 125.0},
                                     Unit{"Kb/s", 125.0},
                                     Unit{"Mb/s", 125e3},
                                     Unit{"Gb/s", 125e6},
                                     Unit{"kbit/s", 125.0},
                                     Unit{"Mbit/s", 125e3},
                                     Unit{"Gbit/s", 125e6},
                                     Unit{"bit/s", 0.125}};
// LogGOPSim users write G and O as plain times ("6 ns" per byte), so those are accepted too.
constexpr std::array time_per_byte_units{
    Unit{"s/B", 1.0},   Unit{"ms/B", 1e-3},  Unit{"us/B", 1e-6}, Unit{"µs/B", 1e-6},
    Unit{"ns/B", 1e-9}, Unit{"ps/B", 1e-12}, Unit{"s", 1.0},     Unit{"ms", 1e-3},
    Unit{"us", 1e-6},   Unit{"µs", 1e-6},    Unit{"ns", 1e-9},   Unit{"ps", 1e-12}};

std::span<const Unit> units_of(Dimension dimension) {
  switch (dimension) {
  case Dimension::Time:
    return time_units;
  case Dimension::Size:
    return size_units;
  case Dimension::Bandwidth:
    return bandwidth_units;
  case Dimension::TimePerByte:
    return time_per_byte_units;
  case Dimension::Ratio:
    return {};
  }
  return {};
}

std::string accepted_list(Dimension dimension) {
  std::string list;
  for (const Unit &unit : units_of(dimension)) {
    if (!list.empty()) {
      list += ", ";
    }
    list += unit.suffix;
  }
  return list.empty() ? "no unit (a plain number)" : list;
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

std::string three_digits(double value) {
  std::array<char, 32> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.3g", value);
  return buffer.data();
}

} // namespace

std::string_view dimension_name(Dimension dimension) {
  switch (dimension) {
  case Dimension::Time:
    return "time";
  case Dimension::Size:
    return "size";
  case Dimension::Bandwidth:
    return "bandwidth";
  case Dimension::TimePerByte:
    return "time per byte";
  case Dimension::Ratio:
    return "ratio";
  }
  return "quantity";
}

double parse_quantity(std::string_view text, Dimension dimension, std::string_view field) {
  const std::string_view body = trim(text);
  double value = 0.0;
  const char *begin = body.data();
  const char *end = body.data() + body.size();
  const auto [number_end, status] = std::from_chars(begin, end, value);
  if (status != std::errc() || number_end == begin) {
    throw Error(ErrorKind::Usage,
                std::string(field) + ": expected a " + std::string(dimension_name(dimension)) +
                    " such as a number or \"1.5 us\", got \"" + std::string(text) + "\"");
  }
  const std::string_view suffix = trim(std::string_view(number_end, end - number_end));
  if (suffix.empty()) {
    return value;
  }
  for (const Unit &unit : units_of(dimension)) {
    if (unit.suffix == suffix) {
      return value * unit.factor;
    }
  }
  throw Error(ErrorKind::Usage, std::string(field) + ": unknown unit \"" + std::string(suffix) +
                                    "\" for a " + std::string(dimension_name(dimension)) +
                                    " (accepted: " + accepted_list(dimension) +
                                    "; a plain number is taken as SI)");
}

std::string format_time(double seconds) {
  const double magnitude = std::fabs(seconds);
  if (magnitude == 0.0) {
    return "0 s";
  }
  if (magnitude >= 1.0) {
    return three_digits(seconds) + " s";
  }
  if (magnitude >= 1e-3) {
    return three_digits(seconds * 1e3) + " ms";
  }
  if (magnitude >= 1e-6) {
    return three_digits(seconds * 1e6) + " us";
  }
  if (magnitude >= 1e-9) {
    return three_digits(seconds * 1e9) + " ns";
  }
  return three_digits(seconds * 1e12) + " ps";
}

std::string format_bandwidth(double bytes_per_second) {
  const double magnitude = std::fabs(bytes_per_second);
  if (magnitude >= 1e9) {
    return three_digits(bytes_per_second / 1e9) + " GB/s";
  }
  if (magnitude >= 1e6) {
    return three_digits(bytes_per_second / 1e6) + " MB/s";
  }
  if (magnitude >= 1e3) {
    return three_digits(bytes_per_second / 1e3) + " KB/s";
  }
  return three_digits(bytes_per_second) + " B/s";
}

std::string format_size(std::uint64_t bytes) {
  if (bytes == unlimited_eager) {
    return "unlimited";
  }
  constexpr std::uint64_t kib = 1024;
  if (bytes >= kib * kib * kib && bytes % (kib * kib * kib) == 0) {
    return std::to_string(bytes / (kib * kib * kib)) + " GiB";
  }
  if (bytes >= kib * kib && bytes % (kib * kib) == 0) {
    return std::to_string(bytes / (kib * kib)) + " MiB";
  }
  if (bytes >= kib && bytes % kib == 0) {
    return std::to_string(bytes / kib) + " KiB";
  }
  return std::to_string(bytes) + " B";
}

} // namespace parjava::machine
