// Quantities with units in hand-written machine descriptions. Everything parjava stores is SI
// (seconds, bytes, bytes per second; ARCHITECTURE §3 "Machine"), but people write "1.27 us",
// "12.4 GB/s" or "4 KiB"; this reads those and rejects anything it does not know.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace parjava::machine {

// What a quantity measures; decides which unit suffixes are accepted.
enum class Dimension {
  Time,        // s, ms, us (also µs), ns, ps
  Size,        // B, KB, MB, GB (powers of 1000), KiB, MiB, GiB (powers of 1024)
  Bandwidth,   // B/s with the Size prefixes; bit rates b/s, kb/s, Mb/s, Gb/s, Gbit/s
  TimePerByte, // s/B with the Time prefixes ("0.2 us/B"), or a plain time unit ("6 ns")
  Ratio,       // a plain number
};

// The name of a dimension for messages ("time", "size", ...).
std::string_view dimension_name(Dimension dimension);

// Parses "<number> [unit]" (spaces optional) into SI. A bare number is taken as already SI.
// Throws parjava::Error(ErrorKind::Usage) naming `field` for an unknown unit, a unit of the
// wrong dimension, or text that is not a number.
double parse_quantity(std::string_view text, Dimension dimension, std::string_view field);

// Human-readable forms used in reprs and tables: 1.27e-6 -> "1.27 us", 12.4e9 -> "12.4 GB/s",
// 4096 -> "4 KiB". Three significant digits.
std::string format_time(double seconds);
std::string format_bandwidth(double bytes_per_second);
std::string format_size(std::uint64_t bytes);

} // namespace parjava::machine
