// OTF2 event records -> parjava event columns (docs/otf2-conventions.md, "Events"). One
// callback per record type; records parjava does not interpret become EventKind::Generic with
// the OTF2 record id, so nothing is dropped and event counts equal otf2-print's.
#include "otf2_events_reader.hpp"

#include <cstring>
#include <memory>
#include <string>

#include "parjava/trace/otf2_records.hpp"

namespace parjava::trace::detail {
namespace {

// What the callbacks of one location share.
struct LocationContext {
  TraceBuilder *builder;
  const EventTranslation *x;
  std::uint32_t location;
  std::int32_t rank;
  std::uint64_t unknown_ranks = 0; // message peers outside their communicator
};

LocationContext &context(void *data) { return *static_cast<LocationContext *>(data); }
constexpr OTF2_CallbackCode kGoOn = OTF2_CALLBACK_SUCCESS;

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
  c.builder->append(c.location, r);
}

void append_request(LocationContext &c, OTF2_TimeStamp time, EventKind kind, uint64_t request) {
  auto r = record(c, time, kind);
  r.aux = request;
  c.builder->append(c.location, r);
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
  c.builder->append(c.location, r);
  return kGoOn;
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
  c.builder->append(c.location, r);
  return kGoOn;
}

OTF2_CallbackCode on_send(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                          OTF2_AttributeList *, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                          uint64_t bytes) {
  append_message(context(d), time, EventKind::Send, receiver, comm, tag, bytes, 0);
  return kGoOn;
}
OTF2_CallbackCode on_isend(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                           OTF2_AttributeList *, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                           uint64_t bytes, uint64_t request) {
  append_message(context(d), time, EventKind::IsendPost, receiver, comm, tag, bytes, request);
  return kGoOn;
}
OTF2_CallbackCode on_isend_complete(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                    OTF2_AttributeList *, uint64_t request) {
  append_request(context(d), time, EventKind::IsendComplete, request);
  return kGoOn;
}
OTF2_CallbackCode on_irecv_request(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                   OTF2_AttributeList *, uint64_t request) {
  append_request(context(d), time, EventKind::IrecvPost, request);
  return kGoOn;
}
OTF2_CallbackCode on_recv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                          OTF2_AttributeList *, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                          uint64_t bytes) {
  append_message(context(d), time, EventKind::Recv, sender, comm, tag, bytes, 0);
  return kGoOn;
}
OTF2_CallbackCode on_irecv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                           OTF2_AttributeList *, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                           uint64_t bytes, uint64_t request) {
  append_message(context(d), time, EventKind::IrecvComplete, sender, comm, tag, bytes, request);
  return kGoOn;
}
OTF2_CallbackCode on_request_test(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                  OTF2_AttributeList *, uint64_t request) {
  append_request(context(d), time, EventKind::RequestTest, request);
  return kGoOn;
}
OTF2_CallbackCode on_request_cancelled(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                       OTF2_AttributeList *, uint64_t request) {
  append_request(context(d), time, EventKind::RequestCancelled, request);
  return kGoOn;
}
OTF2_CallbackCode on_collective_begin(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                      OTF2_AttributeList *) {
  auto &c = context(d);
  c.builder->append(c.location, record(c, time, EventKind::CollectiveBegin));
  return kGoOn;
}

void append_collective_end(LocationContext &c, OTF2_TimeStamp time, OTF2_CollectiveOp op,
                           std::uint32_t comm, uint32_t root, uint64_t sent, uint64_t received) {
  auto r = record(c, time, EventKind::CollectiveEnd);
  r.comm = comm;
  r.peer = peer_rank(c, comm, root);
  r.tag = op;
  r.bytes = sent;
  r.aux = received;
  c.builder->append(c.location, r);
}
OTF2_CallbackCode on_collective_end(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                    OTF2_AttributeList *, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                    uint32_t root, uint64_t sent, uint64_t received) {
  auto &c = context(d);
  append_collective_end(c, time, op, c.x->comm(comm), root, sent, received);
  return kGoOn;
}
OTF2_CallbackCode on_rma_collective_end(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                        OTF2_AttributeList *, OTF2_CollectiveOp op,
                                        OTF2_RmaSyncLevel, OTF2_RmaWinRef window, uint32_t root,
                                        uint64_t sent, uint64_t received) {
  auto &c = context(d);
  append_collective_end(c, time, op, c.x->window_comm(window), root, sent, received);
  return kGoOn;
}

void append_lock(LocationContext &c, OTF2_TimeStamp time, EventKind kind, OTF2_RmaWinRef window,
                 uint32_t remote, uint64_t lock, std::int32_t lock_type) {
  auto r = record(c, time, kind);
  r.peer = peer_rank(c, c.x->window_comm(window), remote);
  r.aux = lock;
  r.tag = lock_type;
  c.builder->append(c.location, r);
}
OTF2_CallbackCode on_request_lock(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                  OTF2_AttributeList *, OTF2_RmaWinRef window, uint32_t remote,
                                  uint64_t lock, OTF2_LockType type) {
  append_lock(context(d), time, EventKind::LockRequest, window, remote, lock, type);
  return kGoOn;
}
OTF2_CallbackCode on_acquire_lock(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                  OTF2_AttributeList *, OTF2_RmaWinRef window, uint32_t remote,
                                  uint64_t lock, OTF2_LockType type) {
  append_lock(context(d), time, EventKind::LockAcquire, window, remote, lock, type);
  return kGoOn;
}
OTF2_CallbackCode on_release_lock(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                  OTF2_AttributeList *, OTF2_RmaWinRef window, uint32_t remote,
                                  uint64_t lock) {
  append_lock(context(d), time, EventKind::LockRelease, window, remote, lock, 0);
  return kGoOn;
}

void append_rma(LocationContext &c, OTF2_TimeStamp time, EventKind kind, OTF2_RmaWinRef window,
                uint32_t remote, uint64_t bytes, uint64_t matching) {
  auto r = record(c, time, kind);
  r.peer = peer_rank(c, c.x->window_comm(window), remote);
  r.bytes = bytes;
  r.aux = matching;
  c.builder->append(c.location, r);
}
OTF2_CallbackCode on_put(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                         OTF2_AttributeList *, OTF2_RmaWinRef window, uint32_t remote,
                         uint64_t bytes, uint64_t matching) {
  append_rma(context(d), time, EventKind::RmaPut, window, remote, bytes, matching);
  return kGoOn;
}
OTF2_CallbackCode on_get(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                         OTF2_AttributeList *, OTF2_RmaWinRef window, uint32_t remote,
                         uint64_t bytes, uint64_t matching) {
  append_rma(context(d), time, EventKind::RmaGet, window, remote, bytes, matching);
  return kGoOn;
}

OTF2_CallbackCode on_program_begin(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                   OTF2_AttributeList *, OTF2_StringRef, uint32_t,
                                   const OTF2_StringRef *) {
  auto &c = context(d);
  c.builder->append(c.location, record(c, time, EventKind::ProgramBegin));
  return kGoOn;
}
OTF2_CallbackCode on_program_end(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                 OTF2_AttributeList *, int64_t status) {
  append_request(context(d), time, EventKind::ProgramEnd, static_cast<std::uint64_t>(status));
  return kGoOn;
}
OTF2_CallbackCode on_measurement(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                 OTF2_AttributeList *, OTF2_MeasurementMode mode) {
  append_request(context(d), time, EventKind::MeasurementOnOff,
                 mode == OTF2_MEASUREMENT_ON ? 1U : 0U);
  return kGoOn;
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
  c.builder->append(c.location, r);
  return kGoOn;
}

void append_generic(LocationContext &c, OTF2_TimeStamp time, std::uint32_t record_id,
                    std::uint32_t comm) {
  auto r = record(c, time, EventKind::Generic);
  r.aux = record_id;
  r.comm = comm;
  c.builder->append(c.location, r);
}
OTF2_CallbackCode on_comm_create(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                 OTF2_AttributeList *, OTF2_CommRef comm) {
  auto &c = context(d);
  append_generic(c, time, 87, c.x->comm(comm));
  return kGoOn;
}
OTF2_CallbackCode on_comm_destroy(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                                  OTF2_AttributeList *, OTF2_CommRef comm) {
  auto &c = context(d);
  append_generic(c, time, 88, c.x->comm(comm));
  return kGoOn;
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
    return kGoOn;
  }
};

OTF2_CallbackCode on_unknown(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void *d,
                             OTF2_AttributeList *) {
  append_generic(context(d), time, 0, kNoRef);
  return kGoOn;
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

void read_events(OTF2_Reader *reader, const ArchiveFiles &files, const EventTranslation &x,
                 Otf2ErrorScope &errors, TraceBuilder &builder) {
  const auto locations = static_cast<std::uint32_t>(x.location_ids.size());
  std::uint64_t declared = 0;
  for (std::uint32_t l = 0; l < locations; ++l) {
    declared += x.declared_events[l];
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
    check_otf2(OTF2_Reader_SelectLocation(reader, x.location_ids[l]), errors, files.anchor,
               "selecting location " + std::to_string(x.location_ids[l]));
  }
  // Event counts declared by the writer (Score-P, parjava) size the columns exactly.
  builder.reserve(declared);

  const bool have_local_definitions = OTF2_Reader_OpenDefFiles(reader) == OTF2_SUCCESS;
  errors.take_messages();
  check_otf2(OTF2_Reader_OpenEvtFiles(reader), errors, files.anchor, "opening the event files");
  const std::unique_ptr<OTF2_EvtReaderCallbacks, CallbacksDeleter> callbacks(make_callbacks());
  auto &metadata = builder.metadata();
  std::uint64_t unknown_ranks = 0;
  for (std::uint32_t l = 0; l < locations; ++l) {
    const auto id = x.location_ids[l];
    const auto evt = files.events_of(id);
    if (file_size(evt) < 0) {
      continue;
    }
    const auto def = files.definitions_of(id);
    if (have_local_definitions && file_size(def) >= 0) {
      // Local definitions carry the mapping tables and clock offsets the library applies to
      // this location's events.
      OTF2_DefReader *local = OTF2_Reader_GetDefReader(reader, id);
      if (local != nullptr) {
        std::uint64_t count = 0;
        check_otf2(OTF2_Reader_ReadAllLocalDefinitions(reader, local, &count), errors, def,
                   "reading the local definitions");
        OTF2_Reader_CloseDefReader(reader, local);
      }
    } else {
      metadata.warnings.push_back(def + ": no local definitions for location " +
                                  std::to_string(id) +
                                  "; its events are read without mapping tables or clock offsets");
    }
    OTF2_EvtReader *events = OTF2_Reader_GetEvtReader(reader, id);
    if (events == nullptr) {
      check_otf2(OTF2_ERROR_FILE_INTERACTION, errors, evt, "opening the events");
    }
    LocationContext context{&builder, &x, l, builder.locations()[l].rank};
    check_otf2(OTF2_Reader_RegisterEvtCallbacks(reader, events, callbacks.get(), &context), errors,
               evt, "registering event callbacks");
    std::uint64_t read = 0;
    const auto status = OTF2_Reader_ReadAllLocalEvents(reader, events, &read);
    check_otf2(status, errors, evt,
               "reading the events (after " + std::to_string(read) + " events)");
    OTF2_Reader_CloseEvtReader(reader, events);
    unknown_ranks += context.unknown_ranks;
  }
  OTF2_Reader_CloseEvtFiles(reader);
  if (have_local_definitions) {
    OTF2_Reader_CloseDefFiles(reader);
  }
  if (unknown_ranks != 0) {
    metadata.warnings.push_back(std::to_string(unknown_ranks) +
                                " message, collective or RMA events name a rank outside their "
                                "communicator; their peer is kNoRank");
  }
  errors.take_messages();
}

} // namespace parjava::trace::detail
