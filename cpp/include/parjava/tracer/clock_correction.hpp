// Maps a process's clock to rank 0's clock from the offsets the tracer measured (ping-pong with
// the minimum round trip) after MPI_Init and before MPI_Finalize: linear interpolation between
// the two corrects constant drift; with one measurement only the offset is removed.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "parjava/tracer/fragment_reader.hpp"

namespace parjava::tracer {

// A process's timer ticks as its CLOCK_MONOTONIC ns: the identity for the monotonic timer; for
// the TSC, piecewise linear through the (tick, ns) anchors the process logged, extended beyond
// them with the first and last segments.
class TickConverter {
public:
  TickConverter() = default; // the identity
  explicit TickConverter(std::vector<std::pair<std::uint64_t, std::uint64_t>> anchors);
  // Throws nothing: a process without two usable anchors keeps the identity (see usable()).
  static TickConverter for_process(const ProcessFragment &process);

  [[nodiscard]] std::uint64_t to_ns(std::uint64_t ticks) const;
  [[nodiscard]] bool usable() const { return identity_ || anchors_.size() >= 2; }

private:
  bool identity_ = true;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> anchors_; // sorted by tick
};

enum class ClockMode : std::uint8_t { None, Offset, Linear };

std::string_view clock_mode_name(ClockMode mode);

class ClockCorrection {
public:
  ClockCorrection() = default;
  ClockCorrection(std::optional<ClockSample> first, std::optional<ClockSample> second);
  static ClockCorrection for_process(const ProcessFragment &process) {
    return {process.clock_init, process.clock_final};
  }

  // Rank-0 time of a local timestamp.
  [[nodiscard]] std::int64_t to_reference(std::uint64_t local) const;
  [[nodiscard]] ClockMode mode() const { return mode_; }

private:
  ClockMode mode_ = ClockMode::None;
  double t1_ = 0; // local times of the two measurements
  double o1_ = 0; // offsets there (local - reference)
  double slope_ = 0;
};

} // namespace parjava::tracer
