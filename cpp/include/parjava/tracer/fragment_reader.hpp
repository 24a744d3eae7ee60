// Reading what one traced process left behind (fragment.hpp): its definitions log, its memory
// map and the list of its per-thread event files, which are then streamed in chunks so an
// archive of any size is assembled in bounded memory.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "parjava/tracer/fragment.hpp"

namespace parjava::tracer {

struct ClockSample {
  std::uint64_t local = 0; // this process's CLOCK_MONOTONIC (ns) at the measurement
  std::int64_t offset = 0; // local - rank 0
  std::uint64_t round_trip = 0;
};

struct CommunicatorDefinition {
  std::uint32_t local_id = 0;
  std::int64_t parent = -1;          // local id of the parent, -1 if none
  std::string created_by;            // routine name, "-" for predefined ones
  std::string key;                   // identical in every member process
  std::vector<std::int32_t> members; // world ranks in communicator-rank order
};

struct MarkerSite {
  std::string file;
  std::uint32_t line = 0;
};

struct ProcessEnd {
  std::string reason; // "exit", "abort", "signal"; empty if the log has no end line
  std::int64_t status = 0;
  std::uint64_t time = 0;
};

struct ProcessFragment {
  std::filesystem::path defs_path;
  std::int64_t pid = 0;
  std::string host;
  std::int32_t rank = -1; // MPI world rank or OpenSHMEM PE; -1 if never initialised
  std::int32_t size = 0;
  std::string paradigm;            // "mpi" or "shmem"
  std::uint64_t begin_time = 0;    // library load, in timer ticks like every event time
  std::string timer = "monotonic"; // "tsc" or "monotonic"
  // (tick, CLOCK_MONOTONIC ns) pairs that map ticks to ns, in the order logged
  std::vector<std::pair<std::uint64_t, std::uint64_t>> tick_anchors;
  std::uint64_t realtime_local = 0; // a (local clock, realtime ns) pair
  std::uint64_t realtime_ns = 0;
  std::string groups;
  std::vector<std::string> arguments;
  std::optional<ClockSample> clock_init;
  std::optional<ClockSample> clock_final;
  std::optional<std::uint64_t> overhead_ns;
  std::vector<CommunicatorDefinition> communicators; // by local id order of appearance
  std::map<std::int32_t, std::string> interval_names;
  std::map<std::uint64_t, MarkerSite> sites;  // marker site token -> file:line
  std::optional<std::uint64_t> finalize_time; // reached MPI_Finalize / shmem_finalize
  ProcessEnd end;
  std::string memory_map;                         // text of /proc/<pid>/maps, empty if missing
  std::vector<std::filesystem::path> event_files; // by thread index
  std::vector<std::uint32_t> incomplete_threads;  // threads whose events could not all be written
  std::vector<std::string> warnings;
};

// Every process fragment in `dir` (files p<pid>.defs), sorted by rank then pid. Throws
// parjava::Error(Trace) when the directory does not exist or a log is not a fragment.
std::vector<ProcessFragment> read_fragments(const std::filesystem::path &dir);
// One process's definitions log and the names of its other files.
ProcessFragment read_process_fragment(const std::filesystem::path &defs_path);

// Streams the records of one event file.
class EventFileReader {
public:
  // Throws parjava::Error(Trace) if the file is missing or its header is not ours.
  explicit EventFileReader(const std::filesystem::path &path);
  ~EventFileReader();
  EventFileReader(const EventFileReader &) = delete;
  EventFileReader &operator=(const EventFileReader &) = delete;

  // Up to `max` records appended to `out` (cleared first); false at the end.
  bool next(std::vector<Record> &out, std::size_t max = 65536);
  [[nodiscard]] std::uint32_t thread() const { return thread_; }
  // Bytes at the end that do not form a whole record (the process died while writing).
  [[nodiscard]] std::uint64_t trailing_bytes() const { return trailing_; }

private:
  std::FILE *file_ = nullptr;
  std::filesystem::path path_;
  std::uint32_t thread_ = 0;
  std::uint64_t trailing_ = 0;
};

} // namespace parjava::tracer
