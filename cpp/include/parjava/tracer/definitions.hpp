// Global definitions of an assembled archive, unified from the per-process fragments:
// communicators (one per key, whatever process defined it), regions (one per wrapped routine
// and per interval id), source-code locations (one per file:line), SHMEM lock ids and RMA
// windows. Ids are assigned on first use, so the archive defines only what its events use.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "parjava/trace/functions.hpp"
#include "parjava/tracer/fragment_reader.hpp"

namespace parjava::tracer {

inline constexpr std::uint32_t kUndefined = 0xffffffffU;

struct GlobalCommunicator {
  std::string name;
  std::string key;
  std::vector<std::int32_t> members; // world ranks in communicator-rank order
  std::uint32_t parent = kUndefined;
  bool is_self = false; // MPI_COMM_SELF of every process: one definition
};

enum class RegionKind : std::uint8_t { Routine, Interval };

struct GlobalRegion {
  RegionKind kind = RegionKind::Routine;
  std::string name;
  std::string canonical_name;
  trace::Function function = trace::Function::None;
  std::uint16_t routine = 0; // Routine, for RegionKind::Routine
  std::int32_t interval = 0; // user id, for RegionKind::Interval
  std::string file;          // intervals: the file of the first begin marker
  std::uint32_t line = 0;
};

struct GlobalSourceLocation {
  std::string file;
  std::uint32_t line = 0;
};

class DefinitionUnifier {
public:
  // Register a process's communicators; returns its local id -> global id table. Members of a
  // key must agree between processes (a mismatch is reported in warnings()).
  std::vector<std::uint32_t> add_communicators(const ProcessFragment &process);

  std::uint32_t routine_region(std::uint16_t routine);
  // The interval region of user id `id`; the first call fixes its name and source location.
  std::uint32_t interval_region(std::int32_t id, const std::string &name, const MarkerSite &site);
  std::uint32_t source_location(const std::string &file, std::uint32_t line);
  // A SHMEM lock, identified by where its variable lives (see MemoryMap).
  std::uint32_t lock(const std::string &key);
  // The RMA window over a global communicator (SHMEM operations).
  std::uint32_t window(std::uint32_t comm);

  [[nodiscard]] const std::vector<GlobalCommunicator> &communicators() const { return comms_; }
  [[nodiscard]] const std::vector<GlobalRegion> &regions() const { return regions_; }
  [[nodiscard]] const std::vector<GlobalSourceLocation> &source_locations() const {
    return sources_;
  }
  // window id -> communicator
  [[nodiscard]] const std::vector<std::uint32_t> &windows() const { return windows_; }
  [[nodiscard]] std::size_t lock_count() const { return locks_.size(); }
  [[nodiscard]] const std::vector<std::string> &warnings() const { return warnings_; }

  // "MPI_COMM_WORLD"-style names: world and self by paradigm, others by how they were made.
  void set_paradigm(const std::string &paradigm) { paradigm_ = paradigm; }

private:
  std::string name_for(const CommunicatorDefinition &c, std::uint32_t global_id) const;

  std::vector<GlobalCommunicator> comms_;
  std::map<std::string, std::uint32_t> comm_by_key_;
  std::uint32_t self_ = kUndefined;
  std::vector<GlobalRegion> regions_;
  std::map<std::uint16_t, std::uint32_t> routine_regions_;
  std::map<std::int32_t, std::uint32_t> interval_regions_;
  std::vector<GlobalSourceLocation> sources_;
  std::map<std::pair<std::string, std::uint32_t>, std::uint32_t> source_by_line_;
  std::map<std::string, std::uint32_t> locks_;
  std::vector<std::uint32_t> windows_;
  std::map<std::uint32_t, std::uint32_t> window_by_comm_;
  std::vector<std::string> warnings_;
  std::string paradigm_ = "mpi";
};

} // namespace parjava::tracer
