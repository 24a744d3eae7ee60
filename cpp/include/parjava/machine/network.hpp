// One network (intra-node or inter-node) of a machine: how long a point-to-point message of n
// bytes takes, as one of three models. Units are SI: seconds, bytes, bytes per second.
//
// Eager limit, in every model: a message of `bytes <= eager_limit` is sent eagerly, a larger one
// by rendezvous (the same convention as LogGOPSim's S, anchors/loggopsim-semantics.md §3).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace parjava::machine {

enum class NetworkKind { Hockney, LogGP, Table };

// An eager limit meaning "every size is sent eagerly" (shown as "unlimited").
inline constexpr std::uint64_t unlimited_eager = std::numeric_limits<std::uint64_t>::max();

// "hockney", "loggp", "table": the `kind` field of the JSON form.
std::string_view network_kind_name(NetworkKind kind);

// Hockney's model: T(n) = latency + n / bandwidth (seed 002 §1.3.2 writes the same line as
// start_time + n * send_byte_time; ARCHITECTURE §2 "α + nβ").
struct HockneyParameters {
  double latency = 0.0;   // α [s]
  double bandwidth = 0.0; // B [bytes/s], > 0
  std::uint64_t eager_limit = 0;
  bool operator==(const HockneyParameters &) const = default;
};

// LogGP with the LogGOPSim extensions O and S, with exactly LogGOPSim's meaning
// (anchors/loggopsim-semantics.md §3): L latency, o CPU overhead per message (sender and
// receiver), g gap per message on the NIC, G gap per byte, O CPU overhead per byte, all in
// seconds; S the eager threshold in bytes (size <= S is eager).
struct LogGPParameters {
  double L = 0.0;
  double o = 0.0;
  double g = 0.0;
  double G = 0.0;
  double O = 0.0;
  std::uint64_t S = 0;
  bool operator==(const LogGPParameters &) const = default;
};

// One measured point of a ping-pong curve: one-way time for a message of `bytes`.
struct TablePoint {
  std::uint64_t bytes = 0;
  double seconds = 0.0;
  bool operator==(const TablePoint &) const = default;
};

// A measured size -> one-way time table (ParJava's "bandwidth table", notes 000 §2.6, §6).
struct MeasuredTable {
  std::vector<TablePoint> points; // strictly increasing sizes, at least two
  std::uint64_t eager_limit = 0;
  bool operator==(const MeasuredTable &) const = default;
};

class Network {
public:
  // Each factory validates its arguments and throws parjava::Error(ErrorKind::Machine) naming
  // the parameter (`field` prefixes the name, e.g. "inter_node").
  static Network hockney(const HockneyParameters &parameters, std::string_view field = "network");
  static Network loggp(const LogGPParameters &parameters, std::string_view field = "network");
  static Network table(MeasuredTable table, std::string_view field = "network");

  [[nodiscard]] NetworkKind kind() const noexcept;

  // One-way time of a point-to-point message of `bytes`, from the start of the send to the
  // moment the receiver can use the data:
  //  * Hockney: latency + bytes / bandwidth.
  //  * LogGP:   o + L + o + (bytes - 1) * max(G, O), with (bytes - 1) taken as 0 for bytes = 0.
  //    This is LogGOPSim's time for one message between idle hosts (anchors §4 "In words":
  //    the first byte is at the receiver o + L after the send starts, whose CPU is then busy
  //    o + (s-1)*max(O,G); worked example ex1: 1500 + 2500 + 1500 + 7*6 = 5542). Rendezvous
  //    (bytes > S) changes only the sender's completion in LogGOPSim, never the receiver's, so
  //    the formula holds for every size. For bytes = 0 LogGOPSim computes (0-1) in unsigned
  //    arithmetic and charges -G (its quirk 1); an analytic model has no reason to copy that,
  //    the bit-exact engine (part loggp) does.
  //  * Table:   linear interpolation between the two measured points around `bytes`, linear
  //    extrapolation with the slope of the first or last segment outside them (clamped at 0).
  //    Linear, not log-log: between neighbouring measured sizes a protocol's time is affine in
  //    n (a startup cost plus a per-byte cost), which linear interpolation reproduces exactly
  //    and log-log interpolation bends; linear also handles the 0-byte point that log-log
  //    cannot.
  [[nodiscard]] double p2p_time(std::uint64_t bytes) const noexcept;

  // The largest size sent eagerly (S for LogGP).
  [[nodiscard]] std::uint64_t eager_limit() const noexcept;

  // The model's parameters; nullptr when the network is of another kind.
  [[nodiscard]] const HockneyParameters *as_hockney() const noexcept;
  [[nodiscard]] const LogGPParameters *as_loggp() const noexcept;
  [[nodiscard]] const MeasuredTable *as_table() const noexcept;

  // One line for reprs and tables, e.g. "Hockney: latency 1.27 us, bandwidth 12.4 GB/s,
  // eager <= 12 KiB".
  [[nodiscard]] std::string describe() const;

  bool operator==(const Network &) const = default;

private:
  explicit Network(std::variant<HockneyParameters, LogGPParameters, MeasuredTable> model)
      : model_(std::move(model)) {}
  std::variant<HockneyParameters, LogGPParameters, MeasuredTable> model_;
};

} // namespace parjava::machine
