// Assembles the OTF2 archive of a traced run from the fragments its processes left
// (fragment.hpp), following docs/otf2-conventions.md: unified global definitions, events per
// location in rank-0 time (clock_correction.hpp), call sites resolved to file:line
// (callsite_resolver.hpp). Runs after the program ended, in the launcher, so it works the same
// whether the program finished, aborted or was killed. Streams events: memory is bounded by
// the definitions, not the trace size.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace parjava::tracer {

struct AssembleOptions {
  std::filesystem::path fragments; // directory the processes wrote into
  std::filesystem::path output;    // archive directory: <output>/<name>.otf2
  std::string archive_name = "traces";
};

struct LocationSummary {
  std::int32_t rank = -1;
  std::uint32_t thread = 0;
  std::uint64_t events = 0;
};

struct ProcessSummary {
  std::int32_t rank = -1;
  std::int64_t pid = 0;
  std::string host;
  std::string end_reason; // "exit", "abort", "signal", or "" if it was killed outright
  std::int64_t end_status = 0;
  bool reached_finalize = false;
  std::uint64_t unfinished_calls = 0; // calls it was inside when it died
};

struct AssemblyReport {
  std::filesystem::path archive; // <output>/<name>.otf2
  std::int32_t ranks = 0;
  std::string paradigm; // "mpi" or "shmem"
  std::uint64_t events = 0;
  std::vector<LocationSummary> locations;
  std::vector<ProcessSummary> processes;
  std::map<std::string, std::uint64_t> calls; // region name -> Enter events
  std::string clock_correction;               // "linear", "offset" or "none"
  std::int64_t overhead_ns = -1;              // median over processes, -1 if not measured
  std::uint64_t callsites = 0;                // distinct source-code locations
  std::uint64_t unresolved_callsites = 0;     // calls whose return address had no line info
  std::vector<std::string> warnings;

  [[nodiscard]] std::string to_json() const;
};

// Throws parjava::Error(Trace) when there is nothing to assemble or the fragments are not ours,
// and when the OTF2 library fails to write.
AssemblyReport assemble_archive(const AssembleOptions &options);

} // namespace parjava::tracer
