// Unification of per-process definitions (definitions.hpp).
#include "parjava/tracer/definitions.hpp"

#include "parjava/tracer/routines.hpp"

namespace parjava::tracer {

std::string DefinitionUnifier::name_for(const CommunicatorDefinition &c,
                                        std::uint32_t global_id) const {
  const bool shmem = paradigm_ == "shmem";
  if (c.key == "world") {
    return shmem ? "SHMEM all PEs" : "MPI_COMM_WORLD";
  }
  if (c.key.rfind("shmem:", 0) == 0) {
    return "SHMEM active set " + c.key.substr(6) + " (start:log2 stride:size)";
  }
  if (c.key.rfind("members:", 0) == 0) {
    return "communicator " + std::to_string(global_id) + " (created outside the traced calls)";
  }
  return "communicator " + std::to_string(global_id) + " (" + c.created_by + ")";
}

std::vector<std::uint32_t> DefinitionUnifier::add_communicators(const ProcessFragment &process) {
  std::vector<std::uint32_t> local_to_global;
  for (const auto &c : process.communicators) {
    if (local_to_global.size() <= c.local_id) {
      local_to_global.resize(c.local_id + 1, kUndefined);
    }
    std::uint32_t id = kUndefined;
    if (c.key.rfind("self:", 0) == 0) {
      if (self_ == kUndefined) {
        self_ = static_cast<std::uint32_t>(comms_.size());
        GlobalCommunicator g;
        g.name = paradigm_ == "shmem" ? "SHMEM self" : "MPI_COMM_SELF";
        g.key = "self";
        g.is_self = true;
        comms_.push_back(std::move(g));
      }
      id = self_;
    } else if (const auto it = comm_by_key_.find(c.key); it != comm_by_key_.end()) {
      id = it->second;
      if (comms_[id].members != c.members) {
        warnings_.push_back("communicator " + comms_[id].name + ": rank " +
                            std::to_string(process.rank) +
                            " recorded different members than an earlier rank; the first "
                            "definition is kept");
      }
    } else {
      id = static_cast<std::uint32_t>(comms_.size());
      GlobalCommunicator g;
      g.name = name_for(c, id);
      g.key = c.key;
      g.members = c.members;
      if (c.parent >= 0 && static_cast<std::size_t>(c.parent) < local_to_global.size()) {
        g.parent = local_to_global[static_cast<std::size_t>(c.parent)];
      }
      comm_by_key_.emplace(c.key, id);
      comms_.push_back(std::move(g));
    }
    local_to_global[c.local_id] = id;
  }
  return local_to_global;
}

std::uint32_t DefinitionUnifier::routine_region(std::uint16_t routine) {
  if (const auto it = routine_regions_.find(routine); it != routine_regions_.end()) {
    return it->second;
  }
  const auto id = static_cast<std::uint32_t>(regions_.size());
  GlobalRegion r;
  r.kind = RegionKind::Routine;
  r.routine = routine;
  r.name = std::string(routine_name(routine));
  r.canonical_name = r.name;
  r.function = routine_function(static_cast<Routine>(routine));
  if (r.name.empty()) {
    r.name = "unknown routine " + std::to_string(routine);
    r.canonical_name = r.name;
    warnings_.push_back("events name routine number " + std::to_string(routine) +
                        ", which this parjava does not know");
  }
  regions_.push_back(std::move(r));
  routine_regions_.emplace(routine, id);
  return id;
}

std::uint32_t DefinitionUnifier::interval_region(std::int32_t id, const std::string &name,
                                                 const MarkerSite &site) {
  if (const auto it = interval_regions_.find(id); it != interval_regions_.end()) {
    return it->second;
  }
  const auto region = static_cast<std::uint32_t>(regions_.size());
  GlobalRegion r;
  r.kind = RegionKind::Interval;
  r.interval = id;
  r.name = name.empty() ? "interval " + std::to_string(id) : name;
  r.canonical_name = "parjava_interval:" + std::to_string(id);
  r.file = site.file;
  r.line = site.line;
  regions_.push_back(std::move(r));
  interval_regions_.emplace(id, region);
  return region;
}

std::uint32_t DefinitionUnifier::source_location(const std::string &file, std::uint32_t line) {
  const auto key = std::make_pair(file, line);
  if (const auto it = source_by_line_.find(key); it != source_by_line_.end()) {
    return it->second;
  }
  const auto id = static_cast<std::uint32_t>(sources_.size());
  sources_.push_back({file, line});
  source_by_line_.emplace(key, id);
  return id;
}

std::uint32_t DefinitionUnifier::lock(const std::string &key) {
  return locks_.try_emplace(key, static_cast<std::uint32_t>(locks_.size())).first->second;
}

std::uint32_t DefinitionUnifier::window(std::uint32_t comm) {
  if (const auto it = window_by_comm_.find(comm); it != window_by_comm_.end()) {
    return it->second;
  }
  const auto id = static_cast<std::uint32_t>(windows_.size());
  windows_.push_back(comm);
  window_by_comm_.emplace(comm, id);
  return id;
}

} // namespace parjava::tracer
