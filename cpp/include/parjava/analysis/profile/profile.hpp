// The flat profile of a trace: per location and region, exclusive time, inclusive time and
// visits, plus the time outside every region. Replay's side-by-side table, run comparison and
// the POP metrics read it; one pass over the Enter/Leave events.
#pragma once

#include <cstdint>
#include <vector>

#include "parjava/trace/trace.hpp"

namespace parjava::analysis {

struct Profile {
  std::uint32_t regions = 0;   // trace.regions.size(); column `regions` is "outside any region"
  std::uint32_t locations = 0; // trace.locations.size()
  // Dense [location * (regions + 1) + region], nanoseconds.
  std::vector<std::int64_t> exclusive;
  std::vector<std::int64_t> inclusive; // an instance inside another of its region counts once
  std::vector<std::uint64_t> visits;
  // Per location: first and last event (0, 0 for an empty location).
  std::vector<trace::Timestamp> begin, end;

  [[nodiscard]] std::size_t at(std::uint32_t location, std::uint32_t region) const {
    return static_cast<std::size_t>(location) * (regions + 1) + region;
  }
};

// Regions still open at a location's last event end there (a process that died in a call).
Profile profile(const trace::Trace &trace);

// Per location, within [begin, end): nanoseconds inside MPI/SHMEM calls (outermost ones) and
// outside them, counted from the location's first to its last event (POP's useful
// computation is the time outside).
struct WindowTimes {
  std::vector<std::int64_t> computation;
  std::vector<std::int64_t> communication;
};
WindowTimes window_times(const trace::Trace &trace, trace::Timestamp begin, trace::Timestamp end);

} // namespace parjava::analysis
