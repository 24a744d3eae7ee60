// Maps a process's clock to rank 0's clock from the offsets the tracer measured (ping-pong with
// the minimum round trip) after MPI_Init and before MPI_Finalize: linear interpolation between
// the two corrects constant drift; with one measurement only the offset is removed.
#pragma once

#include <cstdint>
#include <string_view>

#include "parjava/tracer/fragment_reader.hpp"

namespace parjava::tracer {

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
