// Assembly of the OTF2 archive from process fragments (archive_assembler.hpp). Record-to-OTF2
// mapping per docs/otf2-conventions.md: a Call record becomes Enter (with the call site as the
// attribute parjava::callsite), the events recorded inside the call, and Leave; message peers
// stay ranks in their communicator, whose global definition lists the members as world ranks.
#include "parjava/tracer/archive_assembler.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "otf2_output.hpp"
#include "parjava/error.hpp"
#include "parjava/tracer/callsite_resolver.hpp"
#include "parjava/tracer/clock_correction.hpp"
#include "parjava/tracer/definitions.hpp"
#include "parjava/tracer/fragment_reader.hpp"
#include "parjava/tracer/memory_map.hpp"
#include "parjava/tracer/routines.hpp"

namespace parjava::tracer {
namespace {

constexpr OTF2_AttributeRef kCallsiteAttribute = 0;
constexpr std::uint64_t kThreadStride = std::uint64_t{1} << 32; // Score-P's location ids

OTF2_LocationRef location_id(std::int32_t rank, std::uint32_t thread) {
  return static_cast<OTF2_LocationRef>(rank) + thread * kThreadStride;
}

std::uint32_t otf2_rank(std::int32_t rank) {
  return rank < 0 ? OTF2_UNDEFINED_UINT32 : static_cast<std::uint32_t>(rank);
}

bool is_shmem(std::uint16_t routine) {
  return trace::function_info(routine_function(static_cast<Routine>(routine))).paradigm ==
         trace::Paradigm::Shmem;
}

OTF2_RegionRole region_role(const GlobalRegion &region) {
  if (region.kind == RegionKind::Interval) {
    return OTF2_REGION_ROLE_CODE;
  }
  const auto &info = trace::function_info(region.function);
  switch (info.shape) {
  case trace::CollectiveShape::Barrier:
    return OTF2_REGION_ROLE_BARRIER;
  case trace::CollectiveShape::OneToAll:
    return OTF2_REGION_ROLE_COLL_ONE2ALL;
  case trace::CollectiveShape::AllToOne:
    return OTF2_REGION_ROLE_COLL_ALL2ONE;
  case trace::CollectiveShape::AllToAll:
    return OTF2_REGION_ROLE_COLL_ALL2ALL;
  case trace::CollectiveShape::Prefix:
    return OTF2_REGION_ROLE_COLL_OTHER;
  case trace::CollectiveShape::Allocation:
    return region.function == trace::Function::ShmemFree ? OTF2_REGION_ROLE_DEALLOCATE
                                                         : OTF2_REGION_ROLE_ALLOCATE;
  case trace::CollectiveShape::None:
    break;
  }
  if (region.function == trace::Function::ShmemPut ||
      region.function == trace::Function::ShmemGet) {
    return OTF2_REGION_ROLE_DATA_TRANSFER;
  }
  switch (info.category) {
  case trace::Category::BlockingSend:
  case trace::Category::NonblockingSend:
  case trace::Category::BlockingReceiveWait:
  case trace::Category::NonblockingReceiveTest:
    return OTF2_REGION_ROLE_POINT2POINT;
  default:
    return OTF2_REGION_ROLE_FUNCTION;
  }
}

OTF2_Paradigm region_paradigm(const GlobalRegion &region) {
  if (region.kind == RegionKind::Interval) {
    return OTF2_PARADIGM_USER;
  }
  return trace::function_info(region.function).paradigm == trace::Paradigm::Shmem
             ? OTF2_PARADIGM_SHMEM
             : OTF2_PARADIGM_MPI;
}

std::string hex(std::uint64_t v) {
  std::ostringstream s;
  s << std::hex << v;
  return s.str();
}

struct ProcessContext {
  const ProcessFragment *fragment = nullptr;
  TickConverter ticks;   // timer ticks -> the process's CLOCK_MONOTONIC ns
  ClockCorrection clock; // -> rank 0's clock
  MemoryMap memory;
  std::vector<std::uint32_t> comms; // local id -> global id
  std::unordered_map<std::uint64_t, std::uint32_t> callsites;
  ProcessSummary summary;
};

struct LocationState {
  OTF2_EvtWriter *writer = nullptr;
  OTF2_AttributeList *attributes = nullptr;
  std::uint64_t last = 0;
  std::uint64_t reordered = 0; // timestamps raised to keep the location's order
};

class Assembler {
public:
  explicit Assembler(const AssembleOptions &options) : options_(options) {}
  AssemblyReport run();

private:
  void prepare(const std::vector<ProcessFragment> &fragments);
  void write_process(ProcessContext &process);
  void write_thread(ProcessContext &process, std::uint32_t thread,
                    const std::filesystem::path &file);
  void write_call(ProcessContext &process, LocationState &s, const Record &call,
                  const std::vector<Record> &inner);
  void write_inner(ProcessContext &process, LocationState &s, std::uint16_t routine,
                   const Record &r);
  void write_definitions();

  std::uint64_t time(const ProcessContext &process, LocationState &s, std::uint64_t local);
  void enter(LocationState &s, std::uint64_t t, std::uint32_t region, std::uint32_t callsite);
  std::uint32_t callsite(ProcessContext &process, std::uint64_t raw);
  std::uint32_t comm(ProcessContext &process, std::uint32_t local);
  std::uint64_t lock_id(const ProcessContext &process, std::uint64_t address);
  void check(OTF2_ErrorCode code, const char *what) { output_->check(code, what); }
  void warn(std::string message) { report_.warnings.push_back(std::move(message)); }

  AssembleOptions options_;
  AssemblyReport report_;
  DefinitionUnifier definitions_;
  CallSiteResolver resolver_;
  std::unique_ptr<Otf2Output> output_;
  std::vector<ProcessFragment> fragments_;
  std::vector<ProcessContext> processes_; // point into fragments_
  std::int32_t world_size_ = 0;
  std::vector<std::string> hosts_;
  std::map<std::int32_t, std::uint32_t> host_of_rank_;
  std::vector<std::pair<OTF2_LocationRef, std::uint64_t>> locations_; // id, events
  std::map<OTF2_LocationRef, std::pair<std::int32_t, std::uint32_t>> location_owner_;
  std::uint64_t min_time_ = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t max_time_ = 0;
  std::uint64_t dropped_events_ = 0;
};

void Assembler::prepare(const std::vector<ProcessFragment> &fragments) {
  std::map<std::int32_t, const ProcessFragment *> by_rank;
  for (const auto &f : fragments) {
    for (const auto &w : f.warnings) {
      warn(w);
    }
    if (f.rank < 0) {
      warn("process " + std::to_string(f.pid) + " (" + f.defs_path.string() +
           ") never initialised MPI or OpenSHMEM under the tracer; its events are left out");
      continue;
    }
    if (const auto it = by_rank.find(f.rank); it != by_rank.end()) {
      throw Error(ErrorKind::Trace, options_.fragments.string() + ": rank " +
                                        std::to_string(f.rank) + " was written by two processes (" +
                                        it->second->defs_path.filename().string() + " and " +
                                        f.defs_path.filename().string() +
                                        "): fragments of several runs are mixed; trace into an "
                                        "empty directory");
    }
    by_rank.emplace(f.rank, &f);
    world_size_ = std::max({world_size_, f.size, f.rank + 1});
  }
  if (by_rank.empty()) {
    throw Error(ErrorKind::Trace,
                options_.fragments.string() +
                    ": no process initialised MPI or OpenSHMEM under the tracer, so there is "
                    "nothing to assemble (was the program started with the tracer preloaded, "
                    "and does it call MPI_Init or shmem_init?)");
  }
  report_.paradigm = by_rank.begin()->second->paradigm;
  definitions_.set_paradigm(report_.paradigm);
  for (const auto &[rank, f] : by_rank) {
    ProcessContext p;
    p.fragment = f;
    p.ticks = TickConverter::for_process(*f);
    if (!p.ticks.usable()) {
      warn("rank " + std::to_string(rank) +
           " timed events with the TSC but logged fewer than two tick anchors: its times are "
           "not converted to ns");
    }
    p.clock = ClockCorrection::for_process(*f);
    p.memory = MemoryMap::parse(f->memory_map);
    p.comms = definitions_.add_communicators(*f);
    p.summary.rank = rank;
    p.summary.pid = f->pid;
    p.summary.host = f->host;
    p.summary.end_reason = f->end.reason;
    p.summary.end_status = f->end.status;
    p.summary.reached_finalize = f->finalize_time.has_value();
    for (const auto thread : f->incomplete_threads) {
      warn("rank " + std::to_string(rank) + " thread " + std::to_string(thread) +
           ": the tracer could not write all its events (disk full or quota?); its trace is "
           "incomplete");
    }
    if (f->memory_map.empty()) {
      warn("rank " + std::to_string(rank) +
           " left no memory map: its call sites and lock ids cannot be resolved");
    }
    auto host = std::find(hosts_.begin(), hosts_.end(), f->host);
    if (host == hosts_.end()) {
      hosts_.push_back(f->host);
      host = hosts_.end() - 1;
    }
    host_of_rank_[rank] = static_cast<std::uint32_t>(host - hosts_.begin());
    processes_.push_back(std::move(p));
  }
  for (const auto &w : definitions_.warnings()) {
    warn(w);
  }
  for (std::int32_t r = 0; r < world_size_; ++r) {
    if (by_rank.count(r) == 0) {
      warn("rank " + std::to_string(r) + " of " + std::to_string(world_size_) +
           " left no trace data (it died before its first write); its location is empty");
    }
  }
}

std::uint64_t Assembler::time(const ProcessContext &process, LocationState &s,
                              std::uint64_t local) {
  const auto corrected = process.clock.to_reference(process.ticks.to_ns(local));
  auto t = corrected < 0 ? std::uint64_t{0} : static_cast<std::uint64_t>(corrected);
  if (t < s.last) {
    ++s.reordered;
    t = s.last;
  }
  s.last = t;
  min_time_ = std::min(min_time_, t);
  max_time_ = std::max(max_time_, t);
  return t;
}

std::uint32_t Assembler::callsite(ProcessContext &process, std::uint64_t raw) {
  if (raw == 0) {
    return kUndefined;
  }
  if (const auto it = process.callsites.find(raw); it != process.callsites.end()) {
    return it->second;
  }
  std::uint32_t ref = kUndefined;
  if ((raw & kSiteTokenBit) != 0) {
    if (const auto site = process.fragment->sites.find(raw);
        site != process.fragment->sites.end()) {
      ref = definitions_.source_location(site->second.file, site->second.line);
    }
  } else if (const auto where = process.memory.locate(raw); where && where->file_backed()) {
    if (const auto line = resolver_.resolve_return_address(where->path, where->file_offset)) {
      ref = definitions_.source_location(line->file, line->line);
    }
  }
  if (ref == kUndefined) {
    ++report_.unresolved_callsites;
  }
  process.callsites.emplace(raw, ref);
  return ref;
}

std::uint32_t Assembler::comm(ProcessContext &process, std::uint32_t local) {
  return local < process.comms.size() ? process.comms[local] : kUndefined;
}

std::uint64_t Assembler::lock_id(const ProcessContext &process, std::uint64_t address) {
  // Locks are symmetric variables: the same variable has the same place in every PE's memory
  // map (file offset, or offset in an anonymous mapping of the same size), not the same address.
  std::string key;
  if (const auto where = process.memory.locate(address)) {
    key = where->file_backed()
              ? where->path + "+" + hex(where->file_offset)
              : "anonymous/" + hex(where->mapping_size) + "+" + hex(where->offset_in_mapping);
  } else {
    key = "rank" + std::to_string(process.summary.rank) + "@" + hex(address);
  }
  return definitions_.lock(key);
}

void Assembler::enter(LocationState &s, std::uint64_t t, std::uint32_t region, std::uint32_t site) {
  OTF2_AttributeList *attributes = nullptr;
  if (site != kUndefined) {
    attributes = s.attributes;
    check(OTF2_AttributeList_AddSourceCodeLocationRef(attributes, kCallsiteAttribute, site),
          "OTF2_AttributeList_AddSourceCodeLocationRef");
  }
  check(OTF2_EvtWriter_Enter(s.writer, attributes, t, region), "OTF2_EvtWriter_Enter");
  ++report_.calls[definitions_.regions()[region].name];
}

void Assembler::write_inner(ProcessContext &process, LocationState &s, std::uint16_t routine,
                            const Record &r) {
  const auto t = time(process, s, r.time);
  const auto c = comm(process, r.comm);
  const bool needs_comm = r.kind != RecordKind::IrecvPost && r.kind != RecordKind::IsendComplete &&
                          r.kind != RecordKind::RequestTest &&
                          r.kind != RecordKind::RequestCancelled;
  if (needs_comm && c == kUndefined) {
    ++dropped_events_;
    return;
  }
  auto *w = s.writer;
  const auto peer = otf2_rank(r.peer);
  const auto tag = static_cast<std::uint32_t>(r.tag);
  switch (r.kind) {
  case RecordKind::Send:
    check(OTF2_EvtWriter_MpiSend(w, nullptr, t, peer, c, tag, r.a), "OTF2_EvtWriter_MpiSend");
    break;
  case RecordKind::Recv:
    check(OTF2_EvtWriter_MpiRecv(w, nullptr, t, peer, c, tag, r.a), "OTF2_EvtWriter_MpiRecv");
    break;
  case RecordKind::IsendPost:
    check(OTF2_EvtWriter_MpiIsend(w, nullptr, t, peer, c, tag, r.a, r.b),
          "OTF2_EvtWriter_MpiIsend");
    break;
  case RecordKind::IrecvPost:
    check(OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t, r.b), "OTF2_EvtWriter_MpiIrecvRequest");
    break;
  case RecordKind::IsendComplete:
    check(OTF2_EvtWriter_MpiIsendComplete(w, nullptr, t, r.b), "OTF2_EvtWriter_MpiIsendComplete");
    break;
  case RecordKind::IrecvComplete:
    check(OTF2_EvtWriter_MpiIrecv(w, nullptr, t, peer, c, tag, r.a, r.b),
          "OTF2_EvtWriter_MpiIrecv");
    break;
  case RecordKind::RequestTest:
    check(OTF2_EvtWriter_MpiRequestTest(w, nullptr, t, r.b), "OTF2_EvtWriter_MpiRequestTest");
    break;
  case RecordKind::RequestCancelled:
    check(OTF2_EvtWriter_MpiRequestCancelled(w, nullptr, t, r.b),
          "OTF2_EvtWriter_MpiRequestCancelled");
    break;
  case RecordKind::CollectiveEnd: {
    const auto op = static_cast<OTF2_CollectiveOp>(r.tag);
    const std::uint32_t root = r.peer < 0 ? OTF2_COLLECTIVE_ROOT_NONE : peer;
    if (is_shmem(routine)) {
      check(OTF2_EvtWriter_RmaCollectiveEnd(w, nullptr, t, op, r.flags, definitions_.window(c),
                                            root, r.a, r.b),
            "OTF2_EvtWriter_RmaCollectiveEnd");
    } else {
      check(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, t, op, c, root, r.a, r.b),
            "OTF2_EvtWriter_MpiCollectiveEnd");
    }
    break;
  }
  case RecordKind::LockRequest:
    check(OTF2_EvtWriter_RmaRequestLock(w, nullptr, t, definitions_.window(c), peer,
                                        lock_id(process, r.a), OTF2_LOCK_EXCLUSIVE),
          "OTF2_EvtWriter_RmaRequestLock");
    break;
  case RecordKind::LockAcquire:
    check(OTF2_EvtWriter_RmaAcquireLock(w, nullptr, t, definitions_.window(c), peer,
                                        lock_id(process, r.a), OTF2_LOCK_EXCLUSIVE),
          "OTF2_EvtWriter_RmaAcquireLock");
    break;
  case RecordKind::LockTryFailed:
    check(OTF2_EvtWriter_RmaTryLock(w, nullptr, t, definitions_.window(c), peer,
                                    lock_id(process, r.a), OTF2_LOCK_EXCLUSIVE),
          "OTF2_EvtWriter_RmaTryLock");
    break;
  case RecordKind::LockRelease:
    check(OTF2_EvtWriter_RmaReleaseLock(w, nullptr, t, definitions_.window(c), peer,
                                        lock_id(process, r.a)),
          "OTF2_EvtWriter_RmaReleaseLock");
    break;
  case RecordKind::RmaPut:
    check(OTF2_EvtWriter_RmaPut(w, nullptr, t, definitions_.window(c), peer, r.a, r.b),
          "OTF2_EvtWriter_RmaPut");
    break;
  case RecordKind::RmaGet:
    check(OTF2_EvtWriter_RmaGet(w, nullptr, t, definitions_.window(c), peer, r.a, r.b),
          "OTF2_EvtWriter_RmaGet");
    break;
  case RecordKind::RmaComplete:
    check(OTF2_EvtWriter_RmaOpCompleteBlocking(w, nullptr, t, definitions_.window(c), r.b),
          "OTF2_EvtWriter_RmaOpCompleteBlocking");
    break;
  default:
    ++dropped_events_;
    break;
  }
}

void Assembler::write_call(ProcessContext &process, LocationState &s, const Record &call,
                           const std::vector<Record> &inner) {
  const auto region = definitions_.routine_region(call.routine);
  const auto site = callsite(process, call.b);
  const auto t_enter = time(process, s, call.time);
  enter(s, t_enter, region, site);
  const bool collective = std::any_of(inner.begin(), inner.end(), [](const Record &r) {
    return r.kind == RecordKind::CollectiveEnd;
  });
  if (collective) {
    check(is_shmem(call.routine) ? OTF2_EvtWriter_RmaCollectiveBegin(s.writer, nullptr, t_enter)
                                 : OTF2_EvtWriter_MpiCollectiveBegin(s.writer, nullptr, t_enter),
          "OTF2_EvtWriter_CollectiveBegin");
  }
  for (const auto &r : inner) {
    write_inner(process, s, call.routine, r);
  }
  if (call.kind == RecordKind::Call) {
    check(OTF2_EvtWriter_Leave(s.writer, nullptr, time(process, s, call.a), region),
          "OTF2_EvtWriter_Leave");
  } else {
    ++process.summary.unfinished_calls;
  }
}

void Assembler::write_thread(ProcessContext &process, std::uint32_t thread,
                             const std::filesystem::path &file) {
  const ProcessFragment &f = *process.fragment;
  const auto id = location_id(process.summary.rank, thread);
  LocationState s;
  s.writer = output_->event_writer(id);
  s.attributes = OTF2_AttributeList_New();
  if (thread == 0 && f.begin_time != 0) {
    std::vector<OTF2_StringRef> args;
    for (std::size_t i = 1; i < f.arguments.size(); ++i) {
      args.push_back(output_->string(f.arguments[i]));
    }
    const auto program = output_->string(f.arguments.empty() ? "" : f.arguments.front());
    check(OTF2_EvtWriter_ProgramBegin(s.writer, nullptr, time(process, s, f.begin_time), program,
                                      static_cast<std::uint32_t>(args.size()), args.data()),
          "OTF2_EvtWriter_ProgramBegin");
  }
  EventFileReader reader(file);
  std::vector<Record> chunk;
  std::vector<Record> inner;
  std::uint64_t orphans = 0;
  while (reader.next(chunk)) {
    for (const auto &r : chunk) {
      switch (r.kind) {
      case RecordKind::Call:
      case RecordKind::CallUnfinished:
        write_call(process, s, r, inner);
        inner.clear();
        break;
      case RecordKind::IntervalBegin:
      case RecordKind::IntervalEnd: {
        orphans += inner.size();
        inner.clear();
        const auto site = f.sites.find(r.b);
        const auto name = f.interval_names.find(r.tag);
        const auto region = definitions_.interval_region(
            r.tag, name == f.interval_names.end() ? std::string() : name->second,
            site == f.sites.end() ? MarkerSite{} : site->second);
        const auto t = time(process, s, r.time);
        if (r.kind == RecordKind::IntervalBegin) {
          enter(s, t, region, callsite(process, r.b));
        } else {
          check(OTF2_EvtWriter_Leave(s.writer, nullptr, t, region), "OTF2_EvtWriter_Leave");
        }
        break;
      }
      case RecordKind::MeasurementOnOff:
        orphans += inner.size();
        inner.clear();
        check(
            OTF2_EvtWriter_MeasurementOnOff(s.writer, nullptr, time(process, s, r.time),
                                            r.a != 0 ? OTF2_MEASUREMENT_ON : OTF2_MEASUREMENT_OFF),
            "OTF2_EvtWriter_MeasurementOnOff");
        break;
      default:
        inner.push_back(r);
        break;
      }
    }
  }
  orphans += inner.size();
  if (orphans > 0) {
    warn("rank " + std::to_string(process.summary.rank) + " thread " + std::to_string(thread) +
         ": " + std::to_string(orphans) +
         " event(s) of a call that never completed its record were left out");
  }
  if (reader.trailing_bytes() > 0) {
    warn(file.string() + ": " + std::to_string(reader.trailing_bytes()) +
         " byte(s) of a record cut short at the end (the process was killed while writing)");
  }
  if (thread == 0 && !f.end.reason.empty()) {
    // A fatal signal N ends with 128 + N, as shells report it (docs/otf2-conventions.md).
    const std::int64_t status = f.end.reason == "signal" ? 128 + f.end.status : f.end.status;
    check(OTF2_EvtWriter_ProgramEnd(s.writer, nullptr, time(process, s, f.end.time), status),
          "OTF2_EvtWriter_ProgramEnd");
  }
  if (s.reordered > 0) {
    warn("rank " + std::to_string(process.summary.rank) + " thread " + std::to_string(thread) +
         ": " + std::to_string(s.reordered) +
         " timestamp(s) moved forward to keep events in order after clock correction");
  }
  std::uint64_t events = 0;
  check(OTF2_EvtWriter_GetNumberOfEvents(s.writer, &events), "OTF2_EvtWriter_GetNumberOfEvents");
  OTF2_AttributeList_Delete(s.attributes);
  output_->close_event_writer(s.writer);
  locations_.emplace_back(id, events);
  location_owner_[id] = {process.summary.rank, thread};
  report_.locations.push_back({process.summary.rank, thread, events});
  report_.events += events;
}

void Assembler::write_process(ProcessContext &process) {
  const auto &files = process.fragment->event_files;
  if (files.empty()) {
    // Initialised but never recorded an event (all groups off): an empty main location.
    auto *w = output_->event_writer(location_id(process.summary.rank, 0));
    output_->close_event_writer(w);
    locations_.emplace_back(location_id(process.summary.rank, 0), 0);
    location_owner_[location_id(process.summary.rank, 0)] = {process.summary.rank, 0};
    report_.locations.push_back({process.summary.rank, 0, 0});
    return;
  }
  for (std::uint32_t thread = 0; thread < files.size(); ++thread) {
    write_thread(process, thread, files[thread]);
  }
}

void Assembler::write_definitions() {
  auto *g = output_->global_definitions();
  if (min_time_ > max_time_) {
    min_time_ = max_time_ = 0;
  }
  // Realtime of the trace start, from rank 0's (monotonic, realtime) pair.
  std::uint64_t realtime = OTF2_UNDEFINED_TIMESTAMP;
  if (const auto *f0 = processes_.front().fragment; f0->realtime_ns != 0) {
    const auto origin = processes_.front().clock.to_reference(f0->realtime_local);
    realtime = static_cast<std::uint64_t>(static_cast<std::int64_t>(f0->realtime_ns) +
                                          (static_cast<std::int64_t>(min_time_) - origin));
  }
  check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1'000'000'000, min_time_,
                                                  max_time_ - min_time_, realtime),
        "OTF2_GlobalDefWriter_WriteClockProperties");
  const bool shmem = report_.paradigm == "shmem";
  const OTF2_Paradigm paradigm = shmem ? OTF2_PARADIGM_SHMEM : OTF2_PARADIGM_MPI;
  check(OTF2_GlobalDefWriter_WriteParadigm(g, paradigm, output_->string(shmem ? "SHMEM" : "MPI"),
                                           OTF2_PARADIGM_CLASS_PROCESS),
        "OTF2_GlobalDefWriter_WriteParadigm");

  // System tree: machine -> one node per host.
  check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, output_->string("machine"),
                                                 output_->string("machine"),
                                                 OTF2_UNDEFINED_SYSTEM_TREE_NODE),
        "OTF2_GlobalDefWriter_WriteSystemTreeNode");
  for (std::size_t h = 0; h < hosts_.size(); ++h) {
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, static_cast<OTF2_SystemTreeNodeRef>(h + 1),
                                                   output_->string(hosts_[h]),
                                                   output_->string("node"), 0),
          "OTF2_GlobalDefWriter_WriteSystemTreeNode");
  }
  const std::string group_prefix = shmem ? "PE " : "MPI Rank ";
  for (std::int32_t r = 0; r < world_size_; ++r) {
    const auto host = host_of_rank_.count(r) != 0 ? host_of_rank_[r] + 1 : 0U;
    check(OTF2_GlobalDefWriter_WriteLocationGroup(g, static_cast<OTF2_LocationGroupRef>(r),
                                                  output_->string(group_prefix + std::to_string(r)),
                                                  OTF2_LOCATION_GROUP_TYPE_PROCESS, host,
                                                  OTF2_UNDEFINED_LOCATION_GROUP),
          "OTF2_GlobalDefWriter_WriteLocationGroup");
  }
  std::sort(locations_.begin(), locations_.end());
  for (const auto &[id, events] : locations_) {
    const auto [rank, thread] = location_owner_[id];
    const std::string name =
        thread == 0 ? "rank " + std::to_string(rank)
                    : "rank " + std::to_string(rank) + " thread " + std::to_string(thread);
    check(OTF2_GlobalDefWriter_WriteLocation(g, id, output_->string(name),
                                             OTF2_LOCATION_TYPE_CPU_THREAD, events,
                                             static_cast<OTF2_LocationGroupRef>(rank)),
          "OTF2_GlobalDefWriter_WriteLocation");
  }

  const auto &regions = definitions_.regions();
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const auto &r = regions[i];
    const auto file = r.file.empty() ? OTF2_UNDEFINED_STRING : output_->string(r.file);
    check(OTF2_GlobalDefWriter_WriteRegion(
              g, static_cast<OTF2_RegionRef>(i), output_->string(r.name),
              output_->string(r.canonical_name), output_->string(""), region_role(r),
              region_paradigm(r), OTF2_REGION_FLAG_NONE, file, r.line, r.line),
          "OTF2_GlobalDefWriter_WriteRegion");
  }

  const auto &sources = definitions_.source_locations();
  if (!sources.empty()) {
    check(OTF2_GlobalDefWriter_WriteAttribute(
              g, kCallsiteAttribute, output_->string("parjava::callsite"),
              output_->string("source line of the call (return address resolved with DWARF)"),
              OTF2_TYPE_SOURCE_CODE_LOCATION),
          "OTF2_GlobalDefWriter_WriteAttribute");
  }
  for (std::size_t i = 0; i < sources.size(); ++i) {
    check(OTF2_GlobalDefWriter_WriteSourceCodeLocation(
              g, static_cast<OTF2_SourceCodeLocationRef>(i), output_->string(sources[i].file),
              sources[i].line),
          "OTF2_GlobalDefWriter_WriteSourceCodeLocation");
  }

  // Group 0: the processes (their main locations, by rank); then one group per communicator.
  std::vector<std::uint64_t> members;
  members.reserve(static_cast<std::size_t>(world_size_));
  for (std::int32_t r = 0; r < world_size_; ++r) {
    members.push_back(location_id(r, 0));
  }
  check(OTF2_GlobalDefWriter_WriteGroup(g, 0, output_->string(shmem ? "all PEs" : "MPI_COMM_WORLD"),
                                        OTF2_GROUP_TYPE_COMM_LOCATIONS, paradigm,
                                        OTF2_GROUP_FLAG_NONE,
                                        static_cast<std::uint32_t>(members.size()), members.data()),
        "OTF2_GlobalDefWriter_WriteGroup");
  const auto &comms = definitions_.communicators();
  for (std::size_t i = 0; i < comms.size(); ++i) {
    const auto &c = comms[i];
    const auto group = static_cast<OTF2_GroupRef>(i + 1);
    members.assign(c.members.begin(), c.members.end());
    check(OTF2_GlobalDefWriter_WriteGroup(
              g, group, output_->string(c.name),
              c.is_self ? OTF2_GROUP_TYPE_COMM_SELF : OTF2_GROUP_TYPE_COMM_GROUP, paradigm,
              OTF2_GROUP_FLAG_NONE, c.is_self ? 0U : static_cast<std::uint32_t>(members.size()),
              members.data()),
          "OTF2_GlobalDefWriter_WriteGroup");
    check(OTF2_GlobalDefWriter_WriteComm(
              g, static_cast<OTF2_CommRef>(i), output_->string(c.name), group,
              c.parent == kUndefined ? OTF2_UNDEFINED_COMM : c.parent, OTF2_COMM_FLAG_NONE),
          "OTF2_GlobalDefWriter_WriteComm");
  }
  const auto &windows = definitions_.windows();
  for (std::size_t i = 0; i < windows.size(); ++i) {
    check(OTF2_GlobalDefWriter_WriteRmaWin(g, static_cast<OTF2_RmaWinRef>(i),
                                           output_->string("shmem " + comms[windows[i]].name),
                                           windows[i], OTF2_RMA_WIN_FLAG_NONE),
          "OTF2_GlobalDefWriter_WriteRmaWin");
  }
}

AssemblyReport Assembler::run() {
  fragments_ = read_fragments(options_.fragments);
  prepare(fragments_);
  output_ = std::make_unique<Otf2Output>(options_.output, options_.archive_name);
  report_.archive = options_.output / (options_.archive_name + ".otf2");
  report_.ranks = world_size_;
  for (auto &p : processes_) {
    write_process(p);
  }
  // Ranks that left nothing still get their (empty) main location, so groups stay complete.
  std::map<std::int32_t, bool> present;
  for (const auto &p : processes_) {
    present[p.summary.rank] = true;
  }
  for (std::int32_t r = 0; r < world_size_; ++r) {
    if (!present[r]) {
      auto *w = output_->event_writer(location_id(r, 0));
      output_->close_event_writer(w);
      locations_.emplace_back(location_id(r, 0), 0);
      location_owner_[location_id(r, 0)] = {r, 0};
      report_.locations.push_back({r, 0, 0});
    }
  }
  std::vector<OTF2_LocationRef> ids;
  ids.reserve(locations_.size());
  for (const auto &[id, events] : locations_) {
    ids.push_back(id);
  }
  output_->finish_events(ids);
  write_definitions();

  // Archive properties (docs/otf2-conventions.md).
  std::vector<std::uint64_t> overheads;
  ClockMode weakest = ClockMode::Linear;
  for (const auto &p : processes_) {
    if (p.fragment->overhead_ns) {
      overheads.push_back(*p.fragment->overhead_ns);
    }
    weakest = std::min(weakest, p.clock.mode());
    report_.processes.push_back(p.summary);
  }
  if (!overheads.empty()) {
    std::sort(overheads.begin(), overheads.end());
    report_.overhead_ns = static_cast<std::int64_t>(overheads[overheads.size() / 2]);
    output_->set_property("PARJAVA::TRACER_OVERHEAD_NS", std::to_string(report_.overhead_ns));
  }
  report_.clock_correction = std::string(clock_mode_name(weakest));
  output_->set_property("PARJAVA::CLOCK_CORRECTION", report_.clock_correction);
  if (!processes_.front().fragment->groups.empty()) {
    output_->set_property("PARJAVA::TRACE_GROUPS", processes_.front().fragment->groups);
  }
  std::string command;
  for (const auto &a : processes_.front().fragment->arguments) {
    command += (command.empty() ? "" : " ") + a;
  }
  check(OTF2_Archive_SetCreator(output_->archive(), "parjava tracer 0.1.0"),
        "OTF2_Archive_SetCreator");
  check(OTF2_Archive_SetDescription(output_->archive(), command.c_str()),
        "OTF2_Archive_SetDescription");
  check(OTF2_Archive_SetMachineName(output_->archive(), hosts_.front().c_str()),
        "OTF2_Archive_SetMachineName");
  output_->close();

  report_.callsites = definitions_.source_locations().size();
  for (const auto &[binary, reason] : resolver_.failures()) {
    std::string message = "call sites in ";
    message += binary;
    message += ": ";
    message += reason;
    warn(std::move(message));
  }
  if (dropped_events_ > 0) {
    warn(std::to_string(dropped_events_) +
         " event(s) named a communicator that was never defined and were left out");
  }
  return report_;
}

std::string json_string(const std::string &s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        out += "\\u00" + std::string(1, "0123456789abcdef"[(c >> 4) & 0xf]) +
               std::string(1, "0123456789abcdef"[c & 0xf]);
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

} // namespace

std::string AssemblyReport::to_json() const {
  std::ostringstream o;
  o << "{\"archive\": " << json_string(archive.string()) << ", \"ranks\": " << ranks
    << ", \"paradigm\": " << json_string(paradigm) << ", \"events\": " << events
    << ", \"clock_correction\": " << json_string(clock_correction)
    << ", \"overhead_ns\": " << overhead_ns << ", \"callsites\": " << callsites
    << ", \"unresolved_callsites\": " << unresolved_callsites << ", \"locations\": [";
  for (std::size_t i = 0; i < locations.size(); ++i) {
    o << (i ? ", " : "") << "{\"rank\": " << locations[i].rank
      << ", \"thread\": " << locations[i].thread << ", \"events\": " << locations[i].events << "}";
  }
  o << "], \"processes\": [";
  for (std::size_t i = 0; i < processes.size(); ++i) {
    const auto &p = processes[i];
    o << (i ? ", " : "") << "{\"rank\": " << p.rank << ", \"pid\": " << p.pid
      << ", \"host\": " << json_string(p.host) << ", \"end_reason\": " << json_string(p.end_reason)
      << ", \"end_status\": " << p.end_status
      << ", \"reached_finalize\": " << (p.reached_finalize ? "true" : "false")
      << ", \"unfinished_calls\": " << p.unfinished_calls << "}";
  }
  o << "], \"calls\": {";
  bool first = true;
  for (const auto &[name, n] : calls) {
    o << (first ? "" : ", ") << json_string(name) << ": " << n;
    first = false;
  }
  o << "}, \"warnings\": [";
  for (std::size_t i = 0; i < warnings.size(); ++i) {
    o << (i ? ", " : "") << json_string(warnings[i]);
  }
  o << "]}";
  return o.str();
}

AssemblyReport assemble_archive(const AssembleOptions &options) { return Assembler(options).run(); }

} // namespace parjava::tracer
