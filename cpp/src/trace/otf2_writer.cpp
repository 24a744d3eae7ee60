// write(): a Trace -> an OTF2 archive with proper global definitions
// (docs/otf2-conventions.md) so that otf2-print, Vampir and Scalasca read it and open() gives
// back the same columns. Events are written first (otf2_events_writer.cpp), then empty local
// definitions for every location, then the global definitions.
#include <algorithm>
#include <array>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>

#include "otf2_status.hpp"
#include "otf2_writer_plan.hpp"
#include "parjava/trace/otf2.hpp"

namespace parjava::trace {
namespace detail {
namespace {

namespace fs = std::filesystem;

bool is_rma(EventKind k) {
  return k == EventKind::LockRequest || k == EventKind::LockAcquire ||
         k == EventKind::LockRelease || k == EventKind::RmaPut || k == EventKind::RmaGet;
}

OTF2_FlushType pre_flush(void *, OTF2_FileType, OTF2_LocationRef, void *, bool) {
  return OTF2_FLUSH;
}
OTF2_TimeStamp post_flush(void *, OTF2_FileType, OTF2_LocationRef) { return 0; }
OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

OTF2_RegionRole otf2_role(const Region &r) {
  switch (r.role) {
  case RegionRole::Function:
    return OTF2_REGION_ROLE_FUNCTION;
  case RegionRole::Wrapper:
    return OTF2_REGION_ROLE_WRAPPER;
  case RegionRole::Loop:
    return OTF2_REGION_ROLE_LOOP;
  case RegionRole::Code:
  case RegionRole::Interval:
    return OTF2_REGION_ROLE_CODE;
  case RegionRole::Barrier:
    return OTF2_REGION_ROLE_BARRIER;
  case RegionRole::Collective:
    switch (function_info(r.function).shape) {
    case CollectiveShape::OneToAll:
      return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case CollectiveShape::AllToOne:
      return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case CollectiveShape::AllToAll:
      return OTF2_REGION_ROLE_COLL_ALL2ALL;
    default:
      return OTF2_REGION_ROLE_COLL_OTHER;
    }
  case RegionRole::PointToPoint:
    return OTF2_REGION_ROLE_POINT2POINT;
  case RegionRole::FileIo:
    return OTF2_REGION_ROLE_FILE_IO;
  case RegionRole::Lock:
    // OTF2 has no lock role for library calls; the reader gives known lock calls (e.g.
    // shmem_set_lock) their role back from the function, other regions read as CRITICAL.
    return r.function != Function::None ? OTF2_REGION_ROLE_FUNCTION : OTF2_REGION_ROLE_CRITICAL;
  case RegionRole::Artificial:
    return OTF2_REGION_ROLE_ARTIFICIAL;
  case RegionRole::Unknown:
    break;
  }
  return OTF2_REGION_ROLE_UNKNOWN;
}

OTF2_Paradigm otf2_paradigm(Paradigm p) {
  switch (p) {
  case Paradigm::User:
    return OTF2_PARADIGM_USER;
  case Paradigm::Mpi:
    return OTF2_PARADIGM_MPI;
  case Paradigm::Shmem:
    return OTF2_PARADIGM_SHMEM;
  case Paradigm::Pthread:
    return OTF2_PARADIGM_PTHREAD;
  case Paradigm::OpenMP:
    return OTF2_PARADIGM_OPENMP;
  case Paradigm::Measurement:
    return OTF2_PARADIGM_MEASUREMENT_SYSTEM;
  case Paradigm::Unknown:
    break;
  }
  return OTF2_PARADIGM_UNKNOWN;
}

OTF2_LocationType otf2_location_type(LocationType t) {
  switch (t) {
  case LocationType::CpuThread:
    return OTF2_LOCATION_TYPE_CPU_THREAD;
  case LocationType::Gpu:
    return OTF2_LOCATION_TYPE_ACCELERATOR_STREAM;
  case LocationType::Metric:
    return OTF2_LOCATION_TYPE_METRIC;
  case LocationType::Other:
    break;
  }
  return OTF2_LOCATION_TYPE_UNKNOWN;
}

OTF2_Type otf2_value_type(MetricValueType t) {
  switch (t) {
  case MetricValueType::Int64:
    return OTF2_TYPE_INT64;
  case MetricValueType::Double:
    return OTF2_TYPE_DOUBLE;
  case MetricValueType::Uint64:
    break;
  }
  return OTF2_TYPE_UINT64;
}

// Strings are written before every other definition, so every reference is to a known one.
class StringTable {
public:
  OTF2_StringRef operator()(const std::string &s) {
    const auto [it, added] = refs_.emplace(s, static_cast<OTF2_StringRef>(order_.size()));
    if (added) {
      order_.push_back(&it->first);
    }
    return it->second;
  }
  void write(OTF2_GlobalDefWriter *defs, Otf2ErrorScope &errors, const std::string &path) const {
    for (std::size_t i = 0; i < order_.size(); ++i) {
      check_otf2(OTF2_GlobalDefWriter_WriteString(defs, static_cast<OTF2_StringRef>(i),
                                                  order_[i]->c_str()),
                 errors, path, "writing string definitions");
    }
  }

private:
  std::unordered_map<std::string, OTF2_StringRef> refs_;
  std::vector<const std::string *> order_;
};

struct ArchiveDeleter {
  void operator()(OTF2_Archive *archive) const { OTF2_Archive_Close(archive); }
};

} // namespace

WriterPlan plan_archive(const Trace &trace) {
  WriterPlan plan;
  for (const auto t : trace.events.time) {
    plan.time_shift = std::min(plan.time_shift, t);
  }
  for (const auto &loc : trace.locations) {
    plan.ranks = std::max(plan.ranks, loc.rank + 1);
  }
  plan.communicators = trace.communicators;
  // The communicator of all ranks, for RMA windows and locks (SHMEM's world).
  for (std::uint32_t c = 0; c < plan.communicators.size(); ++c) {
    const auto &comm = plan.communicators[c];
    bool all = !comm.self && comm.members.size() == static_cast<std::size_t>(plan.ranks);
    for (std::size_t r = 0; all && r < comm.members.size(); ++r) {
      all = comm.members[r] == static_cast<std::int32_t>(r);
    }
    if (all && (plan.world == kNoRef || comm.name == "MPI_COMM_WORLD")) {
      plan.world = c;
    }
  }
  bool rma = false;
  for (const auto k : trace.events.kind) {
    rma = rma || is_rma(k);
  }
  if (rma && plan.world == kNoRef) {
    Communicator world{"parjava world", {}, kNoRef, false};
    for (std::int32_t r = 0; r < plan.ranks; ++r) {
      world.members.push_back(r);
    }
    plan.world = static_cast<std::uint32_t>(plan.communicators.size());
    plan.communicators.push_back(std::move(world));
  }
  for (const auto &comm : plan.communicators) {
    plan.comm_ranks.emplace_back(comm);
  }

  // Interval regions get the canonical name parjava_interval:<id> (their id is in the events).
  const auto &e = trace.events;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const auto k = e.kind[i];
    if ((k == EventKind::IntervalBegin || k == EventKind::IntervalEnd) &&
        e.region[i] < trace.regions.size()) {
      plan.interval_of_region.emplace(e.region[i], e.aux[i]);
    }
    if (e.callsite[i] != kNoRef &&
        (k == EventKind::Enter || k == EventKind::IntervalBegin || k == EventKind::IntervalEnd)) {
      plan.uses_callsites = true;
    }
  }

  // Call sites name their enclosing function through a calling context of that region; a
  // function that is not a region yet becomes one (appended, so indices do not move).
  plan.regions = trace.regions;
  std::unordered_map<std::string, std::uint32_t> region_by_name;
  for (std::uint32_t r = 0; r < plan.regions.size(); ++r) {
    region_by_name.emplace(plan.regions[r].name, r);
  }
  for (const auto &site : trace.callsites) {
    if (site.function.empty()) {
      plan.callsite_region.push_back(kNoRef);
      continue;
    }
    const auto [it, added] =
        region_by_name.emplace(site.function, static_cast<std::uint32_t>(plan.regions.size()));
    if (added) {
      Region r;
      r.name = site.function;
      r.role = RegionRole::Function;
      r.paradigm = Paradigm::User;
      plan.regions.push_back(std::move(r));
    }
    plan.callsite_region.push_back(it->second);
  }
  return plan;
}

namespace {

void write_definitions(OTF2_Archive *archive, const Trace &trace, const WriterPlan &plan,
                       const std::vector<std::uint64_t> &events_per_location,
                       const std::string &path) {
  Otf2ErrorScope errors;
  OTF2_GlobalDefWriter *defs = OTF2_Archive_GetGlobalDefWriter(archive);
  if (defs == nullptr) {
    check_otf2(OTF2_ERROR_FILE_INTERACTION, errors, path, "creating the definitions");
  }
  StringTable strings;
  const auto empty = strings("");
  auto check = [&](OTF2_ErrorCode code, const char *what) {
    check_otf2(code, errors, path, std::string("writing ") + what);
  };

  // Names first, then the records that refer to them.
  std::vector<std::array<OTF2_StringRef, 2>> node_names;
  auto nodes = trace.system_nodes;
  if (nodes.empty()) {
    nodes.push_back({"machine", "machine", kNoRef});
    nodes.push_back({"localhost", "node", 0});
  }
  node_names.reserve(nodes.size());
  for (const auto &n : nodes) {
    node_names.push_back({strings(n.name), strings(n.class_name)});
  }
  auto groups = trace.location_groups;
  std::vector<std::uint32_t> group_of_location;
  std::unordered_map<std::int32_t, std::uint32_t> extra_group_of_rank;
  for (const auto &loc : trace.locations) {
    if (loc.group < groups.size()) {
      group_of_location.push_back(loc.group);
      continue;
    }
    const auto [it, added] =
        extra_group_of_rank.emplace(loc.rank, static_cast<std::uint32_t>(groups.size()));
    if (added) {
      groups.push_back({loc.rank == kNoRank ? "process" : "MPI Rank " + std::to_string(loc.rank),
                        loc.rank, kNoRef});
    }
    group_of_location.push_back(it->second);
  }
  std::vector<OTF2_StringRef> group_names;
  group_names.reserve(groups.size());
  for (const auto &g : groups) {
    group_names.push_back(strings(g.name));
  }
  std::vector<OTF2_StringRef> location_names;
  location_names.reserve(trace.locations.size());
  for (const auto &loc : trace.locations) {
    location_names.push_back(strings(loc.name));
  }
  std::vector<std::array<OTF2_StringRef, 3>> region_names; // name, canonical, file
  for (std::uint32_t r = 0; r < plan.regions.size(); ++r) {
    const auto &region = plan.regions[r];
    const auto interval = plan.interval_of_region.find(r);
    const auto canonical = interval != plan.interval_of_region.end()
                               ? "parjava_interval:" + std::to_string(interval->second)
                               : region.name;
    region_names.push_back({strings(region.name), strings(canonical), strings(region.file)});
  }
  std::vector<OTF2_StringRef> comm_names;
  comm_names.reserve(plan.communicators.size());
  for (const auto &c : plan.communicators) {
    comm_names.push_back(strings(c.name));
  }
  std::vector<OTF2_StringRef> window_names;
  window_names.reserve(plan.window_of_comm.size());
  for (const auto &[comm, window] : plan.window_of_comm) {
    window_names.push_back(strings("window on " + plan.communicators[comm].name));
  }
  std::vector<OTF2_StringRef> site_files;
  site_files.reserve(trace.callsites.size());
  for (const auto &site : trace.callsites) {
    site_files.push_back(strings(site.file));
  }
  std::vector<std::array<OTF2_StringRef, 2>> metric_names;
  metric_names.reserve(trace.metrics.size());
  for (const auto &m : trace.metrics) {
    metric_names.push_back({strings(m.name), strings(m.unit)});
  }
  const auto callsite_name = strings("parjava::callsite");
  const auto callsite_description = strings("call site of the runtime call (file:line)");
  strings.write(defs, errors, path);

  // Clock: ns ticks; time_shift moves events before the origin into unsigned range.
  Timestamp first = 0;
  Timestamp last = 0;
  if (trace.size() != 0) {
    first = *std::min_element(trace.events.time.begin(), trace.events.time.end());
    last = *std::max_element(trace.events.time.begin(), trace.events.time.end());
  }
  check(OTF2_GlobalDefWriter_WriteClockProperties(
            defs, 1'000'000'000, static_cast<std::uint64_t>(-plan.time_shift),
            static_cast<std::uint64_t>(last - first) + 1, OTF2_UNDEFINED_TIMESTAMP),
        "clock properties");

  // System tree, processes, threads.
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(
              defs, n, node_names[n][0], node_names[n][1],
              nodes[n].parent < nodes.size() ? nodes[n].parent : OTF2_UNDEFINED_SYSTEM_TREE_NODE),
          "system tree");
  }
  const auto default_node = static_cast<OTF2_SystemTreeNodeRef>(nodes.size() - 1);
  for (std::uint32_t g = 0; g < groups.size(); ++g) {
    check(OTF2_GlobalDefWriter_WriteLocationGroup(
              defs, g, group_names[g], OTF2_LOCATION_GROUP_TYPE_PROCESS,
              groups[g].system_node < nodes.size() ? groups[g].system_node : default_node,
              OTF2_UNDEFINED_LOCATION_GROUP),
          "location groups");
  }
  for (std::uint32_t l = 0; l < trace.location_count(); ++l) {
    const auto &loc = trace.locations[l];
    check(OTF2_GlobalDefWriter_WriteLocation(defs, loc.id, location_names[l],
                                             otf2_location_type(loc.type), events_per_location[l],
                                             group_of_location[l]),
          "locations");
  }

  // Regions.
  for (std::uint32_t r = 0; r < plan.regions.size(); ++r) {
    const auto &region = plan.regions[r];
    const bool interval = plan.interval_of_region.count(r) != 0;
    check(OTF2_GlobalDefWriter_WriteRegion(
              defs, r, region_names[r][0], region_names[r][1], empty,
              interval ? OTF2_RegionRole{OTF2_REGION_ROLE_CODE} : otf2_role(region),
              interval ? OTF2_Paradigm{OTF2_PARADIGM_USER} : otf2_paradigm(region.paradigm),
              OTF2_REGION_FLAG_NONE, region_names[r][2], region.line_begin, region.line_end),
          "regions");
  }

  // Ranks and communicators: the COMM_LOCATIONS group lists each rank's main thread, so
  // COMM_GROUP members are world ranks (docs/otf2-conventions.md).
  bool mpi = false;
  bool shmem = false;
  for (const auto &region : plan.regions) {
    mpi = mpi || region.paradigm == Paradigm::Mpi;
    shmem = shmem || region.paradigm == Paradigm::Shmem;
  }
  const auto paradigm = shmem && !mpi ? OTF2_PARADIGM_SHMEM : OTF2_PARADIGM_MPI;
  OTF2_GroupRef next_group = 0;
  // Also without ranks when communicators exist: their groups refer to it (otf2-print warns).
  if (plan.ranks > 0 || !plan.communicators.empty()) {
    std::vector<std::uint64_t> main_thread(static_cast<std::size_t>(plan.ranks));
    for (std::int32_t r = 0; r < plan.ranks; ++r) {
      main_thread[static_cast<std::size_t>(r)] = static_cast<std::uint64_t>(r);
    }
    std::set<std::int32_t> seen;
    for (const auto &loc : trace.locations) {
      if (loc.rank >= 0 && loc.type == LocationType::CpuThread && seen.insert(loc.rank).second) {
        main_thread[static_cast<std::size_t>(loc.rank)] = loc.id;
      }
    }
    check(OTF2_GlobalDefWriter_WriteGroup(defs, next_group++, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                          paradigm, OTF2_GROUP_FLAG_NONE,
                                          static_cast<std::uint32_t>(main_thread.size()),
                                          main_thread.data()),
          "the group of all ranks");
  }
  OTF2_GroupRef self_group = OTF2_UNDEFINED_GROUP;
  std::vector<OTF2_GroupRef> comm_group;
  for (const auto &c : plan.communicators) {
    if (c.self) {
      if (self_group == OTF2_UNDEFINED_GROUP) {
        self_group = next_group++;
        check(OTF2_GlobalDefWriter_WriteGroup(defs, self_group, empty, OTF2_GROUP_TYPE_COMM_SELF,
                                              paradigm, OTF2_GROUP_FLAG_NONE, 0, nullptr),
              "the MPI_COMM_SELF group");
      }
      comm_group.push_back(self_group);
      continue;
    }
    std::vector<std::uint64_t> members;
    members.reserve(c.members.size());
    for (const auto m : c.members) {
      members.push_back(m < 0 ? UINT64_MAX : static_cast<std::uint64_t>(m));
    }
    comm_group.push_back(next_group);
    check(OTF2_GlobalDefWriter_WriteGroup(
              defs, next_group++, empty, OTF2_GROUP_TYPE_COMM_GROUP, paradigm, OTF2_GROUP_FLAG_NONE,
              static_cast<std::uint32_t>(members.size()), members.data()),
          "communicator groups");
  }
  for (std::uint32_t c = 0; c < plan.communicators.size(); ++c) {
    const auto parent = plan.communicators[c].parent;
    check(OTF2_GlobalDefWriter_WriteComm(defs, c, comm_names[c], comm_group[c],
                                         parent < plan.communicators.size() ? parent
                                                                            : OTF2_UNDEFINED_COMM,
                                         OTF2_COMM_FLAG_NONE),
          "communicators");
  }
  std::size_t w = 0;
  for (const auto &[comm, window] : plan.window_of_comm) {
    check(OTF2_GlobalDefWriter_WriteRmaWin(defs, window, window_names[w++], comm,
                                           OTF2_RMA_WIN_FLAG_NONE),
          "RMA windows");
  }

  // Call sites.
  for (std::uint32_t s = 0; s < trace.callsites.size(); ++s) {
    check(OTF2_GlobalDefWriter_WriteSourceCodeLocation(defs, s, site_files[s],
                                                       trace.callsites[s].line),
          "source code locations");
  }
  OTF2_CallingContextRef next_context = 0;
  for (std::uint32_t s = 0; s < trace.callsites.size(); ++s) {
    if (plan.callsite_region[s] != kNoRef) {
      check(OTF2_GlobalDefWriter_WriteCallingContext(defs, next_context++, plan.callsite_region[s],
                                                     s, OTF2_UNDEFINED_CALLING_CONTEXT),
            "calling contexts");
    }
  }
  if (plan.uses_callsites) {
    check(OTF2_GlobalDefWriter_WriteAttribute(defs, 0, callsite_name, callsite_description,
                                              OTF2_TYPE_SOURCE_CODE_LOCATION),
          "the parjava::callsite attribute");
  }

  // Metrics: one class of one member each.
  for (std::uint32_t m = 0; m < trace.metrics.size(); ++m) {
    check(OTF2_GlobalDefWriter_WriteMetricMember(defs, m, metric_names[m][0], empty,
                                                 OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
                                                 otf2_value_type(trace.metrics[m].type),
                                                 OTF2_BASE_DECIMAL, 0, metric_names[m][1]),
          "metric members");
  }
  for (std::uint32_t m = 0; m < trace.metrics.size(); ++m) {
    const OTF2_MetricMemberRef member = m;
    check(OTF2_GlobalDefWriter_WriteMetricClass(defs, m, 1, &member, OTF2_METRIC_ASYNCHRONOUS,
                                                OTF2_RECORDER_KIND_ABSTRACT),
          "metric classes");
  }
  check_otf2(OTF2_Archive_CloseGlobalDefWriter(archive, defs), errors, path,
             "writing the global definitions");
}

} // namespace
} // namespace detail

void write(const Trace &trace, const std::string &path) {
  namespace fs = std::filesystem;
  // OTF2's default chunk sizes (1 MiB of events, 4 MiB of definitions per chunk).
  constexpr std::uint64_t kEventChunk = std::uint64_t{1} << 20U;
  constexpr std::uint64_t kDefinitionChunk = std::uint64_t{4} << 20U;
  detail::Otf2ErrorScope errors;
  const fs::path target(path);
  const bool anchor_given = target.extension() == ".otf2";
  const auto directory =
      anchor_given ? (target.has_parent_path() ? target.parent_path() : fs::path(".")) : target;
  const auto name = anchor_given ? target.stem().string() : std::string("traces");
  const auto anchor = (directory / (name + ".otf2")).string();
  std::error_code ec;
  if (fs::exists(directory / (name + ".otf2"), ec) || fs::exists(directory / (name + ".def"), ec) ||
      fs::exists(directory / name, ec)) {
    detail::throw_trace_error(anchor + ": an OTF2 archive named '" + name + "' already exists in " +
                              directory.string() + "; remove it or write to another path");
  }
  std::set<std::uint64_t> ids;
  for (const auto &loc : trace.locations) {
    if (!ids.insert(loc.id).second) {
      detail::throw_trace_error(anchor +
                                ": cannot write the trace: two locations have the OTF2 "
                                "id " +
                                std::to_string(loc.id));
    }
  }
  auto plan = detail::plan_archive(trace);

  std::unique_ptr<OTF2_Archive, detail::ArchiveDeleter> archive(
      OTF2_Archive_Open(directory.string().c_str(), name.c_str(), OTF2_FILEMODE_WRITE, kEventChunk,
                        kDefinitionChunk, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE));
  if (!archive) {
    auto details = errors.take_messages();
    detail::throw_trace_error(anchor + ": cannot create the OTF2 archive in " + directory.string() +
                              (details.empty() ? "" : ": " + details));
  }
  auto *a = archive.get();
  detail::check_otf2(OTF2_Archive_SetFlushCallbacks(a, &detail::flush_callbacks, nullptr), errors,
                     anchor, "setting up the archive");
  detail::check_otf2(OTF2_Archive_SetSerialCollectiveCallbacks(a), errors, anchor,
                     "setting up the archive");
  OTF2_Archive_SetCreator(a, trace.metadata.creator.empty() ? "parjava"
                                                            : trace.metadata.creator.c_str());
  for (const auto &[key, value] : trace.metadata.properties) {
    // OTF2 refuses some names (e.g. its own namespace on some versions): those are not ours.
    OTF2_Archive_SetProperty(a, key.c_str(), value.c_str(), true);
  }
  if (trace.metadata.tracer_overhead_ns >= 0) {
    OTF2_Archive_SetProperty(a, "PARJAVA::TRACER_OVERHEAD_NS",
                             std::to_string(trace.metadata.tracer_overhead_ns).c_str(), true);
  }
  if (trace.metadata.is_model) {
    OTF2_Archive_SetProperty(a, "PARJAVA::MODEL_TRACE", "true", true);
  }
  errors.take_messages();

  detail::check_otf2(OTF2_Archive_OpenEvtFiles(a), errors, anchor, "creating the event files");
  detail::write_events(a, trace, plan, 0, anchor);
  detail::check_otf2(OTF2_Archive_CloseEvtFiles(a), errors, anchor, "closing the event files");

  // Empty local definitions, one file per location, as Score-P writes them.
  detail::check_otf2(OTF2_Archive_OpenDefFiles(a), errors, anchor, "creating definition files");
  for (const auto &loc : trace.locations) {
    OTF2_DefWriter *local = OTF2_Archive_GetDefWriter(a, loc.id);
    detail::check_otf2(OTF2_Archive_CloseDefWriter(a, local), errors, anchor,
                       "writing the local definitions of location " + std::to_string(loc.id));
  }
  detail::check_otf2(OTF2_Archive_CloseDefFiles(a), errors, anchor, "closing definition files");

  detail::write_definitions(a, trace, plan, plan.events_written, anchor);
  detail::check_otf2(OTF2_Archive_Close(archive.release()), errors, anchor, "closing the archive");
}

} // namespace parjava::trace
