// OTF2 event records -> parjava event columns (docs/otf2-conventions.md, "Events"). One
// callback per record type; records parjava does not interpret become EventKind::Generic with
// the OTF2 record id, so nothing is dropped and event counts equal otf2-print's.
#include "otf2_events_reader.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "parallel.hpp"
#include "parjava/trace/otf2_records.hpp"

namespace parjava::trace::detail {
namespace {

// What the callbacks of one location share. Events go to the location's slice of presized
// columns (parallel reading) or are appended through the builder.
struct LocationContext {
  TraceBuilder *builder;
  LocationSlice *slice;
  const EventTranslation *x;
  std::uint32_t location;
  std::int32_t rank;
  std::uint64_t unknown_ranks = 0; // message peers outside their communicator
  std::uint64_t events = 0;        // events read so far
  bool overflow = false;           // more events than the archive announced
  // Noted while writing a slice, so that slice_filled() needs no pass of its own for them.
  Timestamp last_time = std::numeric_limits<Timestamp>::min();
  bool in_time_order = true;
  std::uint64_t generic = 0; // Generic events
};

LocationContext &context(void *data) { return *static_cast<LocationContext *>(data); }

void put(LocationContext &c, const EventRecord &r) {
  ++c.events;
  if (c.slice == nullptr) {
    c.builder->append(c.location, r);
  } else if (!c.slice->append(r)) {
    c.overflow = true;
  } else {
    c.in_time_order = c.in_time_order && r.time >= c.last_time;
    c.last_time = r.time;
    c.generic += r.kind == EventKind::Generic ? 1U : 0U;
  }
}
// Reading stops at the first event that does not fit the announced count.
OTF2_CallbackCode go_on(void *data) {
  return context(data).overflow ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

EventRecord record(LocationContext &c, OTF2_TimeStamp time, EventKind kind) {
  EventRecord r;
  r.time = c.x->clock(time);
  r.kind = kind;
  return r;
}

std::int32_t peer_rank(LocationContext &c, std::uint32_t comm, std::uint32_t rank) {
  const auto world = c.x->world_rank(comm, rank, c.rank);
  if (world == kNoRank && rank != OTF2_UNDEFINED_UINT32) {
    ++c.unknown_ranks;
  }
  return world;
}

void append_message(LocationContext &c, OTF2_TimeStamp time, EventKind kind, uint32_t rank,
                    OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t request) {
  auto r = record(c, time, kind);
  r.comm = c.x->comm(comm);
  r.peer = peer_rank(c, r.comm, rank);
  r.tag = static_cast<std::int32_t>(tag);
  r.bytes = bytes;
  r.aux = request;
  put(c, r);
}

void append_request(LocationContext &c, OTF2_TimeStamp time, EventKind kind, uint64_t request) {
  auto r = record(c, time, kind);
  r.aux = request;
  put(c, r);
}

OTF2_CallbackCode on_enter(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                           OTF2_AttributeList *attributes, OTF2_RegionRef region) {
  auto &c = context(d);
  auto r = record(c, time, EventKind::Enter);
  r.region = c.x->region(region);
  if (r.region < c.x->interval_of_region.size() && c.x->interval_of_region[r.region] != 0) {
    r.kind = EventKind::IntervalBegin;
    r.aux = c.x->interval_of_region[r.region] - 1;
  }
  if (attributes != nullptr && c.x->callsite_attribute != OTF2_UNDEFINED_ATTRIBUTE) {
    OTF2_SourceCodeLocationRef site = OTF2_UNDEFINED_SOURCE_CODE_LOCATION;
    if (OTF2_AttributeList_GetSourceCodeLocationRef(attributes, c.x->callsite_attribute, &site) ==
        OTF2_SUCCESS) {
      r.callsite = c.x->source_location(site);
    }
  }
  put(c, r);
  return go_on(d);
}

OTF2_CallbackCode on_leave(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                           OTF2_AttributeList *attributes, OTF2_RegionRef region) {
  auto &c = context(d);
  auto r = record(c, time, EventKind::Leave);
  r.region = c.x->region(region);
  if (r.region < c.x->interval_of_region.size() && c.x->interval_of_region[r.region] != 0) {
    r.kind = EventKind::IntervalEnd;
    r.aux = c.x->interval_of_region[r.region] - 1;
    if (attributes != nullptr && c.x->callsite_attribute != OTF2_UNDEFINED_ATTRIBUTE) {
      OTF2_SourceCodeLocationRef site = OTF2_UNDEFINED_SOURCE_CODE_LOCATION;
      if (OTF2_AttributeList_GetSourceCodeLocationRef(attributes, c.x->callsite_attribute, &site) ==
          OTF2_SUCCESS) {
        r.callsite = c.x->source_location(site);
      }
    }
  }
  put(c, r);
  return go_on(d);
}

OTF2_CallbackCode on_send(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                          OTF2_AttributeList *, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                          uint64_t bytes) {
  append_message(context(d), time, EventKind::Send, receiver, comm, tag, bytes, 0);
  return go_on(d);
}
OTF2_CallbackCode on_isend(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                           OTF2_AttributeList *, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                           uint64_t bytes, uint64_t request) {
  append_message(context(d), time, EventKind::IsendPost, receiver, comm, tag, bytes, request);
  return go_on(d);
}
OTF2_CallbackCode on_isend_complete(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                    OTF2_AttributeList *, uint64_t request) {
  append_request(context(d), time, EventKind::IsendComplete, request);
  return go_on(d);
}
OTF2_CallbackCode on_irecv_request(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                   OTF2_AttributeList *, uint64_t request) {
  append_request(context(d), time, EventKind::IrecvPost, request);
  return go_on(d);
}
OTF2_CallbackCode on_recv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                          OTF2_AttributeList *, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                          uint64_t bytes) {
  append_message(context(d), time, EventKind::Recv, sender, comm, tag, bytes, 0);
  return go_on(d);
}
OTF2_CallbackCode on_irecv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                           OTF2_AttributeList *, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                           uint64_t bytes, uint64_t request) {
  append_message(context(d), time, EventKind::IrecvComplete, sender, comm, tag, bytes, request);
  return go_on(d);
}
OTF2_CallbackCode on_request_test(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                  OTF2_AttributeList *, uint64_t request) {
  append_request(context(d), time, EventKind::RequestTest, request);
  return go_on(d);
}
OTF2_CallbackCode on_request_cancelled(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                       OTF2_AttributeList *, uint64_t request) {
  append_request(context(d), time, EventKind::RequestCancelled, request);
  return go_on(d);
}
OTF2_CallbackCode on_collective_begin(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                      OTF2_AttributeList *) {
  auto &c = context(d);
  put(c, record(c, time, EventKind::CollectiveBegin));
  return go_on(d);
}

void append_collective_end(LocationContext &c, OTF2_TimeStamp time, OTF2_CollectiveOp op,
                           std::uint32_t comm, uint32_t root, uint64_t sent, uint64_t received) {
  auto r = record(c, time, EventKind::CollectiveEnd);
  r.comm = comm;
  r.peer = peer_rank(c, comm, root);
  r.tag = op;
  r.bytes = sent;
  r.aux = received;
  put(c, r);
}
OTF2_CallbackCode on_collective_end(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                    OTF2_AttributeList *, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                    uint32_t root, uint64_t sent, uint64_t received) {
  auto &c = context(d);
  append_collective_end(c, time, op, c.x->comm(comm), root, sent, received);
  return go_on(d);
}
OTF2_CallbackCode on_rma_collective_end(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                        OTF2_AttributeList *, OTF2_CollectiveOp op,
                                        OTF2_RmaSyncLevel, OTF2_RmaWinRef window, uint32_t root,
                                        uint64_t sent, uint64_t received) {
  auto &c = context(d);
  append_collective_end(c, time, op, c.x->window_comm(window), root, sent, received);
  return go_on(d);
}

void append_lock(LocationContext &c, OTF2_TimeStamp time, EventKind kind, OTF2_RmaWinRef window,
                 uint32_t remote, uint64_t lock, std::int32_t lock_type) {
  auto r = record(c, time, kind);
  r.peer = peer_rank(c, c.x->window_comm(window), remote);
  r.aux = lock;
  r.tag = lock_type;
  put(c, r);
}
OTF2_CallbackCode on_request_lock(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                  OTF2_AttributeList *, OTF2_RmaWinRef window, uint32_t remote,
                                  uint64_t lock, OTF2_LockType type) {
  append_lock(context(d), time, EventKind::LockRequest, window, remote, lock, type);
  return go_on(d);
}
OTF2_CallbackCode on_acquire_lock(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                  OTF2_AttributeList *, OTF2_RmaWinRef window, uint32_t remote,
                                  uint64_t lock, OTF2_LockType type) {
  append_lock(context(d), time, EventKind::LockAcquire, window, remote, lock, type);
  return go_on(d);
}
OTF2_CallbackCode on_release_lock(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                  OTF2_AttributeList *, OTF2_RmaWinRef window, uint32_t remote,
                                  uint64_t lock) {
  append_lock(context(d), time, EventKind::LockRelease, window, remote, lock, 0);
  return go_on(d);
}

void append_rma(LocationContext &c, OTF2_TimeStamp time, EventKind kind, OTF2_RmaWinRef window,
                uint32_t remote, uint64_t bytes, uint64_t matching) {
  auto r = record(c, time, kind);
  r.peer = peer_rank(c, c.x->window_comm(window), remote);
  r.bytes = bytes;
  r.aux = matching;
  put(c, r);
}
OTF2_CallbackCode on_put(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                         OTF2_AttributeList *, OTF2_RmaWinRef window, uint32_t remote,
                         uint64_t bytes, uint64_t matching) {
  append_rma(context(d), time, EventKind::RmaPut, window, remote, bytes, matching);
  return go_on(d);
}
OTF2_CallbackCode on_get(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                         OTF2_AttributeList *, OTF2_RmaWinRef window, uint32_t remote,
                         uint64_t bytes, uint64_t matching) {
  append_rma(context(d), time, EventKind::RmaGet, window, remote, bytes, matching);
  return go_on(d);
}

OTF2_CallbackCode on_program_begin(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                   OTF2_AttributeList *, OTF2_StringRef, uint32_t,
                                   const OTF2_StringRef *) {
  auto &c = context(d);
  put(c, record(c, time, EventKind::ProgramBegin));
  return go_on(d);
}
OTF2_CallbackCode on_program_end(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                 OTF2_AttributeList *, int64_t status) {
  append_request(context(d), time, EventKind::ProgramEnd, static_cast<std::uint64_t>(status));
  return go_on(d);
}
OTF2_CallbackCode on_measurement(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                 OTF2_AttributeList *, OTF2_MeasurementMode mode) {
  append_request(context(d), time, EventKind::MeasurementOnOff,
                 mode == OTF2_MEASUREMENT_ON ? 1U : 0U);
  return go_on(d);
}
OTF2_CallbackCode on_metric(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                            OTF2_AttributeList *, OTF2_MetricRef metric, uint8_t count,
                            const OTF2_Type *, const OTF2_MetricValue *values) {
  auto &c = context(d);
  auto r = record(c, time, EventKind::Metric);
  r.region = c.x->metric(metric);
  if (count > 0) {
    std::memcpy(&r.aux, &values[0], sizeof r.aux);
  }
  put(c, r);
  return go_on(d);
}

void append_generic(LocationContext &c, OTF2_TimeStamp time, std::uint32_t record_id,
                    std::uint32_t comm) {
  auto r = record(c, time, EventKind::Generic);
  r.aux = record_id;
  r.comm = comm;
  put(c, r);
}
OTF2_CallbackCode on_comm_create(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                 OTF2_AttributeList *, OTF2_CommRef comm) {
  auto &c = context(d);
  append_generic(c, time, 87, c.x->comm(comm));
  return go_on(d);
}
OTF2_CallbackCode on_comm_destroy(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                  OTF2_AttributeList *, OTF2_CommRef comm) {
  auto &c = context(d);
  append_generic(c, time, 88, c.x->comm(comm));
  return go_on(d);
}

// A callback for record `Id` that keeps it as a Generic event, whatever its payload.
template <typename Setter, std::uint32_t Id> struct KeepAsGeneric;
template <typename Callbacks, typename... Payload, std::uint32_t Id>
struct KeepAsGeneric<OTF2_ErrorCode (*)(Callbacks *, OTF2_CallbackCode (*)(
                                                         OTF2_LocationRef, OTF2_TimeStamp, uint64_t,
                                                         void *, OTF2_AttributeList *, Payload...)),
                     Id> {
  static OTF2_CallbackCode call(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                OTF2_AttributeList *, Payload...) {
    append_generic(context(d), time, Id, kNoRef);
    return go_on(d);
  }
};

OTF2_CallbackCode on_unknown(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                             OTF2_AttributeList *) {
  append_generic(context(d), time, 0, kNoRef);
  return go_on(d);
}

OTF2_EvtReaderCallbacks *make_callbacks() {
  auto *cb = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetUnknownCallback(cb, on_unknown);
#define PARJAVA_KEEP(Name, NAME, ID)                                                               \
  OTF2_EvtReaderCallbacks_Set##Name##Callback(                                                     \
      cb, &KeepAsGeneric<decltype(&OTF2_EvtReaderCallbacks_Set##Name##Callback), ID>::call);
  PARJAVA_OTF2_EVENT_RECORDS(PARJAVA_KEEP)
#undef PARJAVA_KEEP
  OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, on_send);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, on_isend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, on_isend_complete);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, on_irecv_request);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, on_recv);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, on_irecv);
  OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(cb, on_request_test);
  OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, on_request_cancelled);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, on_collective_begin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_collective_end);
  OTF2_EvtReaderCallbacks_SetRmaCollectiveBeginCallback(cb, on_collective_begin);
  OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback(cb, on_rma_collective_end);
  OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback(cb, on_request_lock);
  OTF2_EvtReaderCallbacks_SetRmaAcquireLockCallback(cb, on_acquire_lock);
  OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback(cb, on_release_lock);
  OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, on_put);
  OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, on_get);
  OTF2_EvtReaderCallbacks_SetProgramBeginCallback(cb, on_program_begin);
  OTF2_EvtReaderCallbacks_SetProgramEndCallback(cb, on_program_end);
  OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(cb, on_measurement);
  OTF2_EvtReaderCallbacks_SetMetricCallback(cb, on_metric);
  OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, on_comm_create);
  OTF2_EvtReaderCallbacks_SetCommDestroyCallback(cb, on_comm_destroy);
  return cb;
}

struct CallbacksDeleter {
  void operator()(OTF2_EvtReaderCallbacks *cb) const { OTF2_EvtReaderCallbacks_Delete(cb); }
};

} // namespace

namespace {

struct ReaderCloser {
  void operator()(OTF2_Reader *reader) const { OTF2_Reader_Close(reader); }
};

// One reader of the archive's events: the main one, or a worker's own (OTF2 readers are not
// shared between threads).
class EventFileReader {
public:
  EventFileReader(OTF2_Reader *reader, const ArchiveFiles &files,
                  const std::vector<std::uint64_t> &selected, Otf2ErrorScope &errors)
      : reader_(reader), files_(files), errors_(errors) {
    for (const auto id : selected) {
      check_otf2(OTF2_Reader_SelectLocation(reader_, id), errors_, files_.anchor,
                 "selecting location " + std::to_string(id));
    }
    have_local_definitions_ = OTF2_Reader_OpenDefFiles(reader_) == OTF2_SUCCESS;
    errors_.take_messages();
    check_otf2(OTF2_Reader_OpenEvtFiles(reader_), errors_, files_.anchor,
               "opening the event files");
    callbacks_.reset(make_callbacks());
  }
  EventFileReader(const EventFileReader &) = delete;
  EventFileReader &operator=(const EventFileReader &) = delete;
  ~EventFileReader() {
    OTF2_Reader_CloseEvtFiles(reader_);
    if (have_local_definitions_) {
      OTF2_Reader_CloseDefFiles(reader_);
    }
  }

  // Read location `id`'s local definitions and events through `context`. Returns a warning
  // when its local definitions are missing (empty string otherwise). `announced`: the event
  // count of its definition (0: unknown).
  std::string read(std::uint64_t id, std::uint64_t announced, LocationContext &context) {
    std::string warning;
    const auto def = files_.definitions_of(id);
    const auto definitions = local_definitions(def);
    if (definitions == LocalDefinitions::Empty) {
      // Nothing to apply (otf2_files.hpp).
    } else if (have_local_definitions_ && definitions == LocalDefinitions::Present) {
      // Local definitions carry the mapping tables and clock offsets the library applies to
      // this location's events.
      OTF2_DefReader *local = OTF2_Reader_GetDefReader(reader_, id);
      if (local != nullptr) {
        std::uint64_t count = 0;
        check_otf2(OTF2_Reader_ReadAllLocalDefinitions(reader_, local, &count), errors_, def,
                   "reading the local definitions");
        OTF2_Reader_CloseDefReader(reader_, local);
      }
    } else {
      warning = def + ": no local definitions for location " + std::to_string(id) +
                "; its events are read without mapping tables or clock offsets";
    }
    const auto evt = files_.events_of(id);
    OTF2_EvtReader *events = OTF2_Reader_GetEvtReader(reader_, id);
    if (events == nullptr) {
      check_otf2(OTF2_ERROR_FILE_INTERACTION, errors_, evt, "opening the events");
    }
    check_otf2(OTF2_Reader_RegisterEvtCallbacks(reader_, events, callbacks_.get(), &context),
               errors_, evt, "registering event callbacks");
    std::uint64_t read = 0;
    const auto status = OTF2_Reader_ReadAllLocalEvents(reader_, events, &read);
    OTF2_Reader_CloseEvtReader(reader_, events);
    if (!context.overflow) {
      check_otf2(status, errors_, evt,
                 "reading the events (after " + std::to_string(read) + " events)");
      // OTF2 does not always notice a file cut short; its definition's count does (writers
      // record the exact number: the library counts them).
      if (announced != 0 && context.events < announced) {
        throw_trace_error(evt + ": reading the events failed: the file holds " +
                          std::to_string(context.events) +
                          " events where its definition "
                          "announces " +
                          std::to_string(announced) +
                          ": it is truncated or damaged (copy the whole archive again)");
      }
    }
    errors_.take_messages();
    return warning;
  }

private:
  OTF2_Reader *reader_;
  const ArchiveFiles &files_;
  Otf2ErrorScope &errors_;
  bool have_local_definitions_ = false;
  std::unique_ptr<OTF2_EvtReaderCallbacks, CallbacksDeleter> callbacks_;
};

} // namespace

bool read_events(OTF2_Reader *reader, const ArchiveFiles &files, const EventTranslation &x,
                 Otf2ErrorScope &errors, TraceBuilder &builder, unsigned threads,
                 const std::vector<char> *keep) {
  const auto locations = static_cast<std::uint32_t>(x.location_ids.size());
  std::vector<std::uint32_t> to_read;
  std::vector<std::uint64_t> announced(locations, 0);
  for (std::uint32_t l = 0; l < locations; ++l) {
    if (keep != nullptr && (l >= keep->size() || (*keep)[l] == 0)) {
      continue;
    }
    const auto evt = files.events_of(x.location_ids[l]);
    if (file_size(evt) < 0) {
      // A location without events may have no event file; one that declares events must.
      if (x.declared_events[l] != 0) {
        throw_trace_error(evt + ": the event file of location " +
                          std::to_string(x.location_ids[l]) + " ('" + builder.locations()[l].name +
                          "', " + std::to_string(x.declared_events[l]) +
                          " events declared) is missing; copy the whole archive directory");
      }
      continue;
    }
    to_read.push_back(l);
    // Every event record takes at least a byte of its file: a larger count is damage, and
    // trusting it would presize (and fault in) gigabytes for a few bytes of input.
    const auto bytes = static_cast<std::uint64_t>(file_size(evt));
    announced[l] = std::min(x.declared_events[l], bytes);
    if (x.declared_events[l] > bytes) {
      builder.metadata().warnings.push_back(
          evt + ": location " + std::to_string(x.location_ids[l]) + " declares " +
          std::to_string(x.declared_events[l]) + " events, more than its " + std::to_string(bytes) +
          "-byte event file can hold; the declaration is ignored");
    }
  }
  std::vector<std::uint64_t> selected;
  selected.reserve(to_read.size());
  for (const auto l : to_read) {
    selected.push_back(x.location_ids[l]);
  }
  std::uint64_t total = 0;
  for (const auto n : announced) {
    total += n;
  }
  auto &metadata = builder.metadata();
  std::vector<std::string> warnings(locations);
  std::vector<std::uint64_t> unknown_ranks(locations, 0);

  if (threads == 0 || total == 0) {
    // The writer did not announce event counts: read location by location, appending.
    EventFileReader main_reader(reader, files, selected, errors);
    for (const auto l : to_read) {
      LocationContext context{&builder, nullptr, &x, l, builder.locations()[l].rank};
      warnings[l] = main_reader.read(x.location_ids[l], announced[l], context);
      unknown_ranks[l] = context.unknown_ranks;
    }
  } else {
    // Announced counts (Score-P, parjava): exact columns, each location filled in place by
    // one of `threads` readers, the largest locations first (equal ones in column order, the
    // order in which the builder's helper faults the pages in).
    // One reader: a helper faults the pages in meanwhile; several: each its own slices.
    builder.presize(announced, threads == 1);
    std::stable_sort(to_read.begin(), to_read.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return announced[a] > announced[b]; });
    std::vector<std::unique_ptr<OTF2_Reader, ReaderCloser>> own_readers(threads);
    std::vector<std::unique_ptr<EventFileReader>> readers(threads);
    std::atomic<bool> overflow{false};
    parallel_for(to_read.size(), threads, [&](std::size_t k, unsigned worker) {
      if (overflow) {
        return;
      }
      if (!readers[worker]) {
        OTF2_Reader *r = reader;
        if (worker != 0) {
          own_readers[worker].reset(OTF2_Reader_Open(files.anchor.c_str()));
          r = own_readers[worker].get();
          if (r == nullptr) {
            check_otf2(OTF2_ERROR_FILE_INTERACTION, errors, files.anchor, "opening the archive");
          }
          check_otf2(OTF2_Reader_SetSerialCollectiveCallbacks(r), errors, files.anchor,
                     "setting up a reader");
          bool global_reader = false;
          OTF2_Reader_SetHint(r, OTF2_HINT_GLOBAL_READER, &global_reader);
          errors.take_messages();
        }
        readers[worker] = std::make_unique<EventFileReader>(r, files, selected, errors);
      }
      const auto l = to_read[k];
      auto slice = builder.slice(l);
      if (threads > 1) {
        slice.populate();
      }
      LocationContext context{&builder, &slice, &x, l, builder.locations()[l].rank};
      warnings[l] = readers[worker]->read(x.location_ids[l], announced[l], context);
      unknown_ranks[l] = context.unknown_ranks;
      builder.slice_filled(slice, context.in_time_order, context.generic);
      if (context.overflow) {
        overflow = true;
      }
    });
    readers.clear();
    own_readers.clear();
    if (overflow) {
      return false; // a location has more events than announced
    }
  }
  std::uint64_t unknown = 0;
  for (std::uint32_t l = 0; l < locations; ++l) {
    if (!warnings[l].empty()) {
      metadata.warnings.push_back(warnings[l]);
    }
    unknown += unknown_ranks[l];
  }
  if (unknown != 0) {
    metadata.warnings.push_back(std::to_string(unknown) +
                                " message, collective or RMA events name a rank outside their "
                                "communicator; their peer is kNoRank");
  }
  errors.take_messages();
  return true;
}

} // namespace parjava::trace::detail
