// Global definitions of an OTF2 archive -> the Trace's definition tables and the translation
// tables the event reader uses. Records are collected first and resolved afterwards, because
// OTF2 does not promise that a referenced definition (a string, a group) comes first.
//
// Ranks: the COMM_LOCATIONS group of the MPI paradigm (SHMEM when there is no MPI) lists the
// locations of MPI_COMM_WORLD in rank order; every location of the same location group
// (process) gets that rank. COMM_GROUP members are indices into the COMM_LOCATIONS group of
// their paradigm, so communicator members become world ranks (docs/otf2-conventions.md).
#include "otf2_definitions_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "otf2_status.hpp"
#include "parjava/utf8.hpp"

namespace parjava::trace::detail {
namespace {

struct RawSystemNode {
  OTF2_SystemTreeNodeRef self;
  OTF2_StringRef name;
  OTF2_StringRef class_name;
  OTF2_SystemTreeNodeRef parent;
};
struct RawLocationGroup {
  OTF2_LocationGroupRef self;
  OTF2_StringRef name;
  OTF2_SystemTreeNodeRef parent;
};
struct RawLocation {
  OTF2_LocationRef self;
  OTF2_StringRef name;
  OTF2_LocationType type;
  std::uint64_t events;
  OTF2_LocationGroupRef group;
};
struct RawRegion {
  OTF2_RegionRef self;
  OTF2_StringRef name;
  OTF2_StringRef canonical;
  OTF2_RegionRole role;
  OTF2_Paradigm paradigm;
  OTF2_StringRef file;
  std::uint32_t begin;
  std::uint32_t end;
};
struct RawGroup {
  OTF2_GroupRef self;
  OTF2_GroupType type;
  OTF2_Paradigm paradigm;
  std::vector<std::uint64_t> members;
};
struct RawComm {
  OTF2_CommRef self;
  OTF2_StringRef name;
  OTF2_GroupRef group; // OTF2_UNDEFINED_GROUP for an inter-communicator
  OTF2_CommRef parent;
};
struct RawSourceLocation {
  OTF2_SourceCodeLocationRef self;
  OTF2_StringRef file;
  std::uint32_t line;
};
struct RawCallingContext {
  OTF2_RegionRef region;
  OTF2_SourceCodeLocationRef source;
};
struct RawMetricMember {
  OTF2_StringRef name;
  OTF2_StringRef unit;
  OTF2_Type type;
};

struct RawDefinitions {
  bool have_clock = false;
  std::uint64_t resolution = 1'000'000'000;
  std::uint64_t offset = 0;
  std::unordered_map<OTF2_StringRef, std::string> strings;
  std::uint64_t invalid_strings = 0; // strings that were not UTF-8
  std::vector<RawSystemNode> system_nodes;
  std::vector<RawLocationGroup> location_groups;
  std::vector<RawLocation> locations;
  std::vector<RawRegion> regions;
  std::vector<RawGroup> groups;
  std::vector<RawComm> comms;
  std::vector<std::pair<OTF2_RmaWinRef, OTF2_CommRef>> windows;
  std::vector<RawSourceLocation> source_locations;
  std::vector<RawCallingContext> calling_contexts;
  std::vector<std::pair<OTF2_AttributeRef, OTF2_StringRef>> source_location_attributes;
  std::unordered_map<OTF2_MetricMemberRef, RawMetricMember> metric_members;
  std::vector<std::pair<OTF2_MetricRef, OTF2_MetricMemberRef>> metric_classes;
  std::vector<std::pair<OTF2_MetricRef, OTF2_MetricRef>> metric_instances;

  [[nodiscard]] std::string string(OTF2_StringRef ref) const {
    const auto found = strings.find(ref);
    return found == strings.end() ? std::string() : found->second;
  }
};

RawDefinitions &raw(void *data) { return *static_cast<RawDefinitions *>(data); }
constexpr OTF2_CallbackCode kGoOn = OTF2_CALLBACK_SUCCESS;

OTF2_CallbackCode on_clock(void *d, uint64_t resolution, uint64_t offset, uint64_t /*length*/,
                           uint64_t /*realtime*/) {
  raw(d).have_clock = true;
  raw(d).resolution = resolution;
  raw(d).offset = offset;
  return kGoOn;
}
OTF2_CallbackCode on_string(void *d, OTF2_StringRef self, const char *text) {
  const std::string_view value = text != nullptr ? text : "";
  if (is_valid_utf8(value)) {
    raw(d).strings[self] = std::string(value);
  } else {
    ++raw(d).invalid_strings; // a damaged file or a non-UTF-8 name: keep what is readable
    raw(d).strings[self] = valid_utf8(value);
  }
  return kGoOn;
}
OTF2_CallbackCode on_system_node(void *d, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                 OTF2_StringRef class_name, OTF2_SystemTreeNodeRef parent) {
  raw(d).system_nodes.push_back({self, name, class_name, parent});
  return kGoOn;
}
OTF2_CallbackCode on_location_group(void *d, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                    OTF2_LocationGroupType /*type*/, OTF2_SystemTreeNodeRef parent,
                                    OTF2_LocationGroupRef /*creator*/) {
  raw(d).location_groups.push_back({self, name, parent});
  return kGoOn;
}
OTF2_CallbackCode on_location(void *d, OTF2_LocationRef self, OTF2_StringRef name,
                              OTF2_LocationType type, uint64_t events,
                              OTF2_LocationGroupRef group) {
  raw(d).locations.push_back({self, name, type, events, group});
  return kGoOn;
}
OTF2_CallbackCode on_region(void *d, OTF2_RegionRef self, OTF2_StringRef name,
                            OTF2_StringRef canonical, OTF2_StringRef /*description*/,
                            OTF2_RegionRole role, OTF2_Paradigm paradigm, OTF2_RegionFlag /*flags*/,
                            OTF2_StringRef file, uint32_t begin, uint32_t end) {
  raw(d).regions.push_back({self, name, canonical, role, paradigm, file, begin, end});
  return kGoOn;
}
OTF2_CallbackCode on_group(void *d, OTF2_GroupRef self, OTF2_StringRef /*name*/,
                           OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag /*flags*/,
                           uint32_t count, const uint64_t *members) {
  raw(d).groups.push_back(
      {self, type, paradigm, std::vector<std::uint64_t>(members, members + count)});
  return kGoOn;
}
OTF2_CallbackCode on_comm(void *d, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                          OTF2_CommRef parent, OTF2_CommFlag /*flags*/) {
  raw(d).comms.push_back({self, name, group, parent});
  return kGoOn;
}
OTF2_CallbackCode on_inter_comm(void *d, OTF2_CommRef self, OTF2_StringRef name,
                                OTF2_GroupRef /*a*/, OTF2_GroupRef /*b*/, OTF2_CommRef common,
                                OTF2_CommFlag /*flags*/) {
  raw(d).comms.push_back({self, name, OTF2_UNDEFINED_GROUP, common});
  return kGoOn;
}
OTF2_CallbackCode on_window(void *d, OTF2_RmaWinRef self, OTF2_StringRef /*name*/,
                            OTF2_CommRef comm, OTF2_RmaWinFlag /*flags*/) {
  raw(d).windows.emplace_back(self, comm);
  return kGoOn;
}
OTF2_CallbackCode on_source_location(void *d, OTF2_SourceCodeLocationRef self, OTF2_StringRef file,
                                     uint32_t line) {
  raw(d).source_locations.push_back({self, file, line});
  return kGoOn;
}
OTF2_CallbackCode on_calling_context(void *d, OTF2_CallingContextRef /*self*/,
                                     OTF2_RegionRef region, OTF2_SourceCodeLocationRef source,
                                     OTF2_CallingContextRef /*parent*/) {
  raw(d).calling_contexts.push_back({region, source});
  return kGoOn;
}
OTF2_CallbackCode on_attribute(void *d, OTF2_AttributeRef self, OTF2_StringRef name,
                               OTF2_StringRef /*description*/, OTF2_Type type) {
  if (type == OTF2_TYPE_SOURCE_CODE_LOCATION) {
    raw(d).source_location_attributes.emplace_back(self, name);
  }
  return kGoOn;
}
OTF2_CallbackCode on_metric_member(void *d, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                   OTF2_StringRef /*description*/, OTF2_MetricType /*type*/,
                                   OTF2_MetricMode /*mode*/, OTF2_Type value_type,
                                   OTF2_Base /*base*/, int64_t /*exponent*/, OTF2_StringRef unit) {
  raw(d).metric_members[self] = {name, unit, value_type};
  return kGoOn;
}
OTF2_CallbackCode on_metric_class(void *d, OTF2_MetricRef self, uint8_t count,
                                  const OTF2_MetricMemberRef *members,
                                  OTF2_MetricOccurrence /*occurrence*/,
                                  OTF2_RecorderKind /*recorder*/) {
  raw(d).metric_classes.emplace_back(self, count > 0 ? members[0] : OTF2_UNDEFINED_METRIC_MEMBER);
  return kGoOn;
}
OTF2_CallbackCode on_metric_instance(void *d, OTF2_MetricRef self, OTF2_MetricRef metric_class,
                                     OTF2_LocationRef /*recorder*/, OTF2_MetricScope /*scope*/,
                                     uint64_t /*scope_ref*/) {
  raw(d).metric_instances.emplace_back(self, metric_class);
  return kGoOn;
}

RegionRole role_of(OTF2_RegionRole role) {
  switch (role) {
  case OTF2_REGION_ROLE_FUNCTION:
    return RegionRole::Function;
  case OTF2_REGION_ROLE_WRAPPER:
    return RegionRole::Wrapper;
  case OTF2_REGION_ROLE_LOOP:
    return RegionRole::Loop;
  case OTF2_REGION_ROLE_CODE:
    return RegionRole::Code;
  case OTF2_REGION_ROLE_BARRIER:
  case OTF2_REGION_ROLE_IMPLICIT_BARRIER:
    return RegionRole::Barrier;
  case OTF2_REGION_ROLE_COLL_ONE2ALL:
  case OTF2_REGION_ROLE_COLL_ALL2ONE:
  case OTF2_REGION_ROLE_COLL_ALL2ALL:
  case OTF2_REGION_ROLE_COLL_OTHER:
    return RegionRole::Collective;
  case OTF2_REGION_ROLE_POINT2POINT:
    return RegionRole::PointToPoint;
  case OTF2_REGION_ROLE_FILE_IO:
  case OTF2_REGION_ROLE_FILE_IO_METADATA:
    return RegionRole::FileIo;
  case OTF2_REGION_ROLE_CRITICAL:
  case OTF2_REGION_ROLE_CRITICAL_SBLOCK:
  case OTF2_REGION_ROLE_ATOMIC:
    return RegionRole::Lock;
  case OTF2_REGION_ROLE_ARTIFICIAL:
    return RegionRole::Artificial;
  default:
    return RegionRole::Unknown;
  }
}

Paradigm paradigm_of(OTF2_Paradigm paradigm) {
  switch (paradigm) {
  case OTF2_PARADIGM_USER:
  case OTF2_PARADIGM_COMPILER:
  case OTF2_PARADIGM_SAMPLING:
    return Paradigm::User;
  case OTF2_PARADIGM_MPI:
    return Paradigm::Mpi;
  case OTF2_PARADIGM_SHMEM:
    return Paradigm::Shmem;
  case OTF2_PARADIGM_PTHREAD:
    return Paradigm::Pthread;
  case OTF2_PARADIGM_OPENMP:
    return Paradigm::OpenMP;
  case OTF2_PARADIGM_MEASUREMENT_SYSTEM:
    return Paradigm::Measurement;
  default:
    return Paradigm::Unknown;
  }
}

LocationType location_type_of(OTF2_LocationType type) {
  switch (type) {
  case OTF2_LOCATION_TYPE_CPU_THREAD:
    return LocationType::CpuThread;
  case OTF2_LOCATION_TYPE_ACCELERATOR_STREAM:
    return LocationType::Gpu;
  case OTF2_LOCATION_TYPE_METRIC:
    return LocationType::Metric;
  default:
    return LocationType::Other;
  }
}

MetricValueType metric_type_of(OTF2_Type type) {
  switch (type) {
  case OTF2_TYPE_INT8:
  case OTF2_TYPE_INT16:
  case OTF2_TYPE_INT32:
  case OTF2_TYPE_INT64:
    return MetricValueType::Int64;
  case OTF2_TYPE_FLOAT:
  case OTF2_TYPE_DOUBLE:
    return MetricValueType::Double;
  default:
    return MetricValueType::Uint64;
  }
}

// "parjava_interval:<id>" (docs/otf2-conventions.md) -> id + 1; 0 for other regions.
std::uint64_t interval_of(std::string_view canonical) {
  constexpr std::string_view prefix = "parjava_interval:";
  if (canonical.substr(0, prefix.size()) != prefix) {
    return 0;
  }
  std::uint64_t id = 0;
  const auto digits = canonical.substr(prefix.size());
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  return ec == std::errc() && end == digits.data() + digits.size() ? id + 1 : 0;
}

OTF2_GlobalDefReaderCallbacks *make_callbacks() {
  auto *cb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_system_node);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_location_group);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
  OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(cb, on_inter_comm);
  OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, on_window);
  OTF2_GlobalDefReaderCallbacks_SetSourceCodeLocationCallback(cb, on_source_location);
  OTF2_GlobalDefReaderCallbacks_SetCallingContextCallback(cb, on_calling_context);
  OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, on_attribute);
  OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, on_metric_member);
  OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, on_metric_class);
  OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback(cb, on_metric_instance);
  return cb;
}

// Everything about ranks: which locations are world ranks, and the COMM_LOCATIONS group of
// each paradigm (communicator members index into it).
struct RankTable {
  std::unordered_map<std::uint64_t, std::int32_t> rank_of_location;
  std::unordered_map<int, const RawGroup *> comm_locations_of_paradigm;
};

RankTable rank_table(const RawDefinitions &raw_defs) {
  RankTable table;
  const RawGroup *world = nullptr;
  for (const auto &g : raw_defs.groups) {
    if (g.type != OTF2_GROUP_TYPE_COMM_LOCATIONS) {
      continue;
    }
    table.comm_locations_of_paradigm.emplace(g.paradigm, &g);
    if (g.paradigm == OTF2_PARADIGM_MPI ||
        (g.paradigm == OTF2_PARADIGM_SHMEM &&
         (world == nullptr || world->paradigm != OTF2_PARADIGM_MPI))) {
      world = &g;
    }
  }
  if (world != nullptr) {
    for (std::size_t r = 0; r < world->members.size(); ++r) {
      table.rank_of_location.emplace(world->members[r], static_cast<std::int32_t>(r));
    }
  }
  return table;
}

} // namespace

EventTranslation read_definitions(OTF2_Reader *reader, const ArchiveFiles &files,
                                  Otf2ErrorScope &errors, TraceBuilder &builder) {
  RawDefinitions raw_defs;
  const auto definitions_file = files.global_definitions();
  OTF2_GlobalDefReader *global = OTF2_Reader_GetGlobalDefReader(reader);
  if (global == nullptr) {
    check_otf2(OTF2_ERROR_FILE_INTERACTION, errors, definitions_file, "opening the definitions");
  }
  auto *callbacks = make_callbacks();
  const auto registered =
      OTF2_Reader_RegisterGlobalDefCallbacks(reader, global, callbacks, &raw_defs);
  OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
  check_otf2(registered, errors, definitions_file, "registering definition callbacks");
  std::uint64_t count = 0;
  check_otf2(OTF2_Reader_ReadAllGlobalDefinitions(reader, global, &count), errors, definitions_file,
             "reading the global definitions");
  OTF2_Reader_CloseGlobalDefReader(reader, global);

  EventTranslation x;
  auto &metadata = builder.metadata();
  if (raw_defs.invalid_strings > 0) {
    metadata.warnings.push_back(definitions_file + ": " + std::to_string(raw_defs.invalid_strings) +
                                " strings are not valid UTF-8; their undecodable bytes read as "
                                "U+FFFD");
  }
  if (!raw_defs.have_clock) {
    metadata.warnings.push_back(definitions_file + ": no ClockProperties definition; timestamps "
                                                   "are taken as nanoseconds");
  }
  if (raw_defs.resolution == 0) {
    throw_trace_error(definitions_file + ": ClockProperties gives a timer resolution of 0 ticks "
                                         "per second");
  }
  x.clock.set(raw_defs.resolution, raw_defs.offset);
  metadata.timer_resolution = raw_defs.resolution;
  metadata.time_origin = static_cast<Timestamp>(raw_defs.offset);

  // System tree.
  RefIndex system_node;
  for (std::uint32_t i = 0; i < raw_defs.system_nodes.size(); ++i) {
    system_node.set(raw_defs.system_nodes[i].self, i);
  }
  for (const auto &n : raw_defs.system_nodes) {
    builder.add_system_node(raw_defs.string(n.name), raw_defs.string(n.class_name),
                            n.parent == OTF2_UNDEFINED_SYSTEM_TREE_NODE ? kNoRef
                                                                        : system_node(n.parent));
  }

  // Processes and threads.
  const auto ranks = rank_table(raw_defs);
  std::unordered_map<OTF2_LocationGroupRef, std::int32_t> rank_of_group;
  for (const auto &l : raw_defs.locations) {
    const auto r = ranks.rank_of_location.find(l.self);
    if (r != ranks.rank_of_location.end()) {
      rank_of_group.emplace(l.group, r->second);
    }
  }
  RefIndex location_group;
  for (std::uint32_t i = 0; i < raw_defs.location_groups.size(); ++i) {
    const auto &g = raw_defs.location_groups[i];
    const auto r = rank_of_group.find(g.self);
    location_group.set(g.self,
                       builder.add_location_group(raw_defs.string(g.name),
                                                  r == rank_of_group.end() ? kNoRank : r->second,
                                                  system_node(g.parent)));
  }
  std::unordered_map<std::uint64_t, std::int32_t> threads_in_group; // (group, type) -> count
  for (const auto &l : raw_defs.locations) {
    const auto group = location_group(l.group);
    const auto r = rank_of_group.find(l.group);
    const auto key = (static_cast<std::uint64_t>(l.group) << 8U) | l.type;
    const auto thread = threads_in_group[key]++;
    builder.add_location(r == rank_of_group.end() ? kNoRank : r->second, thread,
                         raw_defs.string(l.name), location_type_of(l.type), group, l.self);
    x.location_ids.push_back(l.self);
    x.declared_events.push_back(l.events);
  }

  // Regions.
  for (const auto &r : raw_defs.regions) {
    Region region;
    region.name = raw_defs.string(r.name);
    const auto canonical = raw_defs.string(r.canonical);
    if (region.name.empty()) {
      region.name = canonical;
    }
    region.function = function_by_name(region.name);
    if (region.function == Function::None) {
      region.function = function_by_name(canonical);
    }
    region.paradigm = paradigm_of(r.paradigm);
    region.role = role_of(r.role);
    if (region.function != Function::None &&
        (region.role == RegionRole::Function || region.role == RegionRole::Unknown)) {
      // Score-P marks e.g. shmem_set_lock as a plain FUNCTION; use parjava's role for it.
      region.role = default_role(region.function);
    }
    region.file = raw_defs.string(r.file);
    region.line_begin = r.begin;
    region.line_end = r.end;
    const auto interval = interval_of(canonical);
    if (interval != 0) {
      region.role = RegionRole::Interval;
    }
    const auto index = builder.add_region(std::move(region));
    x.region.set(r.self, index);
    x.interval_of_region.resize(index + 1, 0);
    x.interval_of_region[index] = interval;
  }

  // Communicators, with members as world ranks.
  RefIndex group_index;
  for (std::uint32_t i = 0; i < raw_defs.groups.size(); ++i) {
    group_index.set(raw_defs.groups[i].self, i);
  }
  RefIndex comm_index;
  for (std::uint32_t i = 0; i < raw_defs.comms.size(); ++i) {
    comm_index.set(raw_defs.comms[i].self, i);
  }
  auto world_rank_of_location = [&](std::uint64_t location) {
    const auto r = ranks.rank_of_location.find(location);
    return r == ranks.rank_of_location.end() ? kNoRank : r->second;
  };
  for (const auto &c : raw_defs.comms) {
    std::vector<std::int32_t> members;
    bool self = false;
    const auto gi = c.group == OTF2_UNDEFINED_GROUP ? kNoRef : group_index(c.group);
    if (gi != kNoRef) {
      const auto &g = raw_defs.groups[gi];
      if (g.type == OTF2_GROUP_TYPE_COMM_SELF) {
        self = true;
      } else if (g.type == OTF2_GROUP_TYPE_COMM_LOCATIONS) {
        for (const auto loc : g.members) {
          members.push_back(world_rank_of_location(loc));
        }
      } else if (g.type == OTF2_GROUP_TYPE_COMM_GROUP) {
        const auto found = ranks.comm_locations_of_paradigm.find(g.paradigm);
        for (const auto m : g.members) {
          if (found != ranks.comm_locations_of_paradigm.end() &&
              m < found->second->members.size()) {
            members.push_back(world_rank_of_location(found->second->members[m]));
          } else {
            members.push_back(kNoRank);
          }
        }
      }
    }
    auto name = raw_defs.string(c.name);
    if (name.empty()) {
      name = self ? "MPI_COMM_SELF" : "comm " + std::to_string(c.self);
    }
    x.comm_members.push_back(members);
    x.comm_is_self.push_back(self ? 1U : 0U);
    // Groups of other paradigms (Score-P's "Process x Threads" of the measurement system) may
    // list locations that are no MPI rank: the Trace lists only members with a world rank,
    // while the translation above keeps their positions.
    members.erase(std::remove(members.begin(), members.end(), kNoRank), members.end());
    const auto index = self ? builder.add_self_communicator(std::move(name))
                            : builder.add_communicator(
                                  std::move(name), std::move(members),
                                  c.parent == OTF2_UNDEFINED_COMM ? kNoRef : comm_index(c.parent));
    x.comm.set(c.self, index);
  }
  for (const auto &[window, comm] : raw_defs.windows) {
    x.window_comm.set(window, x.comm(comm));
  }

  // Call sites: source code locations, named after the region of a calling context that
  // points at them (our tracer's convention for the enclosing function).
  std::vector<CallSite> callsites;
  RefIndex source_index;
  for (std::uint32_t i = 0; i < raw_defs.source_locations.size(); ++i) {
    const auto &s = raw_defs.source_locations[i];
    source_index.set(s.self, i);
    callsites.push_back({raw_defs.string(s.file), s.line, {}});
  }
  for (const auto &cc : raw_defs.calling_contexts) {
    const auto s = source_index(cc.source);
    const auto r = x.region(cc.region);
    if (s != kNoRef && r != kNoRef && callsites[s].function.empty()) {
      callsites[s].function = builder.regions()[r].name;
    }
  }
  for (std::uint32_t i = 0; i < callsites.size(); ++i) {
    x.source_location.set(raw_defs.source_locations[i].self,
                          builder.add_callsite(std::move(callsites[i].file), callsites[i].line,
                                               std::move(callsites[i].function)));
  }
  for (const auto &[attribute, name] : raw_defs.source_location_attributes) {
    if (raw_defs.string(name) == "parjava::callsite") {
      x.callsite_attribute = attribute;
    }
  }

  // Metrics: classes and instances, each described by its first member.
  std::unordered_map<OTF2_MetricRef, MetricDefinition> metric_of_class;
  for (const auto &[metric, member] : raw_defs.metric_classes) {
    MetricDefinition m;
    const auto found = raw_defs.metric_members.find(member);
    if (found != raw_defs.metric_members.end()) {
      m.name = raw_defs.string(found->second.name);
      m.unit = raw_defs.string(found->second.unit);
      m.type = metric_type_of(found->second.type);
    }
    metric_of_class[metric] = m;
    x.metric.set(metric, builder.add_metric(m));
  }
  for (const auto &[instance, metric_class] : raw_defs.metric_instances) {
    const auto found = metric_of_class.find(metric_class);
    x.metric.set(instance, builder.add_metric(found == metric_of_class.end() ? MetricDefinition{}
                                                                             : found->second));
  }

  // Archive facts.
  char *creator = nullptr;
  if (OTF2_Reader_GetCreator(reader, &creator) == OTF2_SUCCESS && creator != nullptr) {
    metadata.creator = valid_utf8(creator);
    std::free(creator); // OTF2 hands over malloc'ed strings
  }
  std::uint8_t major = 0;
  std::uint8_t minor = 0;
  std::uint8_t bugfix = 0;
  if (OTF2_Reader_GetVersion(reader, &major, &minor, &bugfix) == OTF2_SUCCESS) {
    metadata.format_version =
        std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(bugfix);
  }
  uint32_t property_count = 0;
  char **names = nullptr;
  if (OTF2_Reader_GetPropertyNames(reader, &property_count, &names) == OTF2_SUCCESS) {
    for (uint32_t i = 0; i < property_count; ++i) {
      char *value = nullptr;
      if (OTF2_Reader_GetProperty(reader, names[i], &value) == OTF2_SUCCESS && value != nullptr) {
        metadata.properties.emplace_back(valid_utf8(names[i]), valid_utf8(value));
        std::free(value);
      }
    }
    std::free(names); // one block holds the array and the strings
  }
  for (const auto &[key, value] : metadata.properties) {
    if (key == "PARJAVA::TRACER_OVERHEAD_NS") {
      std::from_chars(value.data(), value.data() + value.size(), metadata.tracer_overhead_ns);
    }
    if (key == "PARJAVA::MODEL_TRACE") {
      metadata.is_model = value == "true";
    }
  }
  errors.take_messages();
  return x;
}

} // namespace parjava::trace::detail
