// Events of a Trace -> OTF2 event records (docs/otf2-conventions.md, "Events"), the inverse of
// otf2_events_reader.cpp: world ranks go back to communicator ranks, ns to 1 GHz ticks, and
// Generic events to their own record type (with a zero payload: parjava does not keep the
// payload of records it does not interpret, except the communicator of CommCreate/Destroy).
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "otf2_status.hpp"
#include "otf2_writer_plan.hpp"
#include "parjava/trace/otf2_records.hpp"

namespace parjava::trace::detail {
namespace {

// Calls an OTF2_EvtWriter_<Record> function with every payload argument zero (or null).
template <typename Function> struct ZeroPayload;
template <typename... Payload>
struct ZeroPayload<OTF2_ErrorCode (*)(OTF2_EvtWriter *, OTF2_AttributeList *, OTF2_TimeStamp,
                                      Payload...)> {
  template <typename Function>
  static OTF2_ErrorCode write(Function f, OTF2_EvtWriter *w, OTF2_TimeStamp t) {
    return f(w, nullptr, t, Payload{}...);
  }
};

// The OpenMP records of OTF2 1.x are deprecated, but old archives hold them: writing them back
// keeps the record type the trace was read with.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
OTF2_ErrorCode write_generic(OTF2_EvtWriter *w, OTF2_TimeStamp t, std::uint64_t record,
                             OTF2_CommRef comm) {
  if (record == 87) {
    return OTF2_EvtWriter_CommCreate(w, nullptr, t, comm);
  }
  if (record == 88) {
    return OTF2_EvtWriter_CommDestroy(w, nullptr, t, comm);
  }
  switch (record) {
#define PARJAVA_WRITE_ZERO(Name, NAME, ID)                                                         \
  case ID:                                                                                         \
    return ZeroPayload<decltype(&OTF2_EvtWriter_##Name)>::write(&OTF2_EvtWriter_##Name, w, t);
    PARJAVA_OTF2_EVENT_RECORDS(PARJAVA_WRITE_ZERO)
#undef PARJAVA_WRITE_ZERO
  default:
    return OTF2_ERROR_INVALID_ARGUMENT;
  }
}
#pragma GCC diagnostic pop

OTF2_Type otf2_type(MetricValueType type) {
  switch (type) {
  case MetricValueType::Int64:
    return OTF2_TYPE_INT64;
  case MetricValueType::Double:
    return OTF2_TYPE_DOUBLE;
  case MetricValueType::Uint64:
    break;
  }
  return OTF2_TYPE_UINT64;
}

struct AttributeListDeleter {
  void operator()(OTF2_AttributeList *list) const { OTF2_AttributeList_Delete(list); }
};

} // namespace

void write_events(OTF2_Archive *archive, const Trace &trace, WriterPlan &plan,
                  OTF2_AttributeRef callsite_attribute, const std::string &path) {
  Otf2ErrorScope errors;
  const auto &e = trace.events;
  const auto shift = plan.time_shift;
  const std::unique_ptr<OTF2_AttributeList, AttributeListDeleter> attributes(
      OTF2_AttributeList_New());
  for (std::uint32_t l = 0; l < trace.location_count(); ++l) {
    const auto &location = trace.locations[l];
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(archive, location.id);
    if (w == nullptr) {
      check_otf2(OTF2_ERROR_FILE_INTERACTION, errors, path,
                 "creating the event writer of location " + std::to_string(location.id));
    }
    const auto own = location.rank;
    for (auto i = trace.location_begin(l); i < trace.location_end(l); ++i) {
      const auto u = static_cast<std::size_t>(i);
      const auto t = static_cast<OTF2_TimeStamp>(e.time[u] - shift);
      const auto comm = e.comm[u];
      const OTF2_CommRef otf2_comm = comm == kNoRef ? OTF2_UNDEFINED_COMM : comm;
      const auto peer = plan.comm_rank(comm, e.peer[u], own);
      const auto tag = static_cast<std::uint32_t>(e.tag[u]);
      const auto region = e.region[u];
      auto with_callsite = [&]() -> OTF2_AttributeList * {
        if (e.callsite[u] == kNoRef) {
          return nullptr;
        }
        OTF2_AttributeList_RemoveAllAttributes(attributes.get());
        OTF2_AttributeList_AddSourceCodeLocationRef(attributes.get(), callsite_attribute,
                                                    e.callsite[u]);
        return attributes.get();
      };
      // SHMEM collectives are written as RMA collectives on a window over their communicator.
      const bool shmem = region < plan.regions.size() &&
                         plan.regions[region].paradigm == Paradigm::Shmem && comm != kNoRef;
      OTF2_ErrorCode status = OTF2_SUCCESS;
      switch (e.kind[u]) {
      case EventKind::Enter:
        status = OTF2_EvtWriter_Enter(w, with_callsite(), t, region);
        break;
      case EventKind::Leave:
        status = OTF2_EvtWriter_Leave(w, nullptr, t, region);
        break;
      case EventKind::IntervalBegin:
        status = OTF2_EvtWriter_Enter(w, with_callsite(), t, region);
        break;
      case EventKind::IntervalEnd:
        status = OTF2_EvtWriter_Leave(w, with_callsite(), t, region);
        break;
      case EventKind::Send:
        status = OTF2_EvtWriter_MpiSend(w, nullptr, t, peer, otf2_comm, tag, e.bytes[u]);
        break;
      case EventKind::IsendPost:
        status = OTF2_EvtWriter_MpiIsend(w, nullptr, t, peer, otf2_comm, tag, e.bytes[u], e.aux[u]);
        break;
      case EventKind::IsendComplete:
        status = OTF2_EvtWriter_MpiIsendComplete(w, nullptr, t, e.aux[u]);
        break;
      case EventKind::IrecvPost:
        status = OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t, e.aux[u]);
        break;
      case EventKind::Recv:
        status = OTF2_EvtWriter_MpiRecv(w, nullptr, t, peer, otf2_comm, tag, e.bytes[u]);
        break;
      case EventKind::IrecvComplete:
        status = OTF2_EvtWriter_MpiIrecv(w, nullptr, t, peer, otf2_comm, tag, e.bytes[u], e.aux[u]);
        break;
      case EventKind::RequestTest:
        status = OTF2_EvtWriter_MpiRequestTest(w, nullptr, t, e.aux[u]);
        break;
      case EventKind::RequestCancelled:
        status = OTF2_EvtWriter_MpiRequestCancelled(w, nullptr, t, e.aux[u]);
        break;
      case EventKind::CollectiveBegin:
        // The End carries the communicator; a SHMEM collective is written as an RMA one.
        status = shmem ? OTF2_EvtWriter_RmaCollectiveBegin(w, nullptr, t)
                       : OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, t);
        break;
      case EventKind::CollectiveEnd:
        status =
            shmem ? OTF2_EvtWriter_RmaCollectiveEnd(
                        w, nullptr, t, static_cast<OTF2_CollectiveOp>(e.tag[u]),
                        OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY, plan.window(comm),
                        plan.comm_rank(comm, e.peer[u], own), e.bytes[u], e.aux[u])
                  : OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, t,
                                                    static_cast<OTF2_CollectiveOp>(e.tag[u]),
                                                    otf2_comm, peer, e.bytes[u], e.aux[u]);
        break;
      case EventKind::LockRequest:
        status = OTF2_EvtWriter_RmaRequestLock(w, nullptr, t, plan.window(plan.world),
                                               plan.comm_rank(plan.world, e.peer[u], own), e.aux[u],
                                               static_cast<OTF2_LockType>(e.tag[u]));
        break;
      case EventKind::LockAcquire:
        status = OTF2_EvtWriter_RmaAcquireLock(w, nullptr, t, plan.window(plan.world),
                                               plan.comm_rank(plan.world, e.peer[u], own), e.aux[u],
                                               static_cast<OTF2_LockType>(e.tag[u]));
        break;
      case EventKind::LockRelease:
        status =
            OTF2_EvtWriter_RmaReleaseLock(w, nullptr, t, plan.window(plan.world),
                                          plan.comm_rank(plan.world, e.peer[u], own), e.aux[u]);
        break;
      case EventKind::RmaPut:
        status =
            OTF2_EvtWriter_RmaPut(w, nullptr, t, plan.window(plan.world),
                                  plan.comm_rank(plan.world, e.peer[u], own), e.bytes[u], e.aux[u]);
        break;
      case EventKind::RmaGet:
        status =
            OTF2_EvtWriter_RmaGet(w, nullptr, t, plan.window(plan.world),
                                  plan.comm_rank(plan.world, e.peer[u], own), e.bytes[u], e.aux[u]);
        break;
      case EventKind::ProgramBegin:
        status = OTF2_EvtWriter_ProgramBegin(w, nullptr, t, 0, 0, nullptr);
        break;
      case EventKind::ProgramEnd:
        status = OTF2_EvtWriter_ProgramEnd(w, nullptr, t, static_cast<std::int64_t>(e.aux[u]));
        break;
      case EventKind::MeasurementOnOff:
        status = OTF2_EvtWriter_MeasurementOnOff(
            w, nullptr, t, e.aux[u] != 0 ? OTF2_MEASUREMENT_ON : OTF2_MEASUREMENT_OFF);
        break;
      case EventKind::Metric: {
        OTF2_MetricValue value;
        std::memcpy(&value, &e.aux[u], sizeof value);
        const OTF2_Type type = region < trace.metrics.size() ? otf2_type(trace.metrics[region].type)
                                                             : OTF2_Type{OTF2_TYPE_UINT64};
        status = OTF2_EvtWriter_Metric(w, nullptr, t, region, 1, &type, &value);
        break;
      }
      case EventKind::Generic:
        if (e.aux[u] == 0) {
          ++plan.skipped_events; // a record newer than OTF2 3.0: nothing to write it as
          continue;
        }
        status = write_generic(w, t, e.aux[u], otf2_comm);
        break;
      }
      check_otf2(status, errors, path,
                 "writing event " + std::to_string(i) + " (" + event_kind_name(e.kind[u]) +
                     ") of location " + std::to_string(location.id));
    }
    std::uint64_t written = 0;
    OTF2_EvtWriter_GetNumberOfEvents(w, &written);
    plan.events_written.push_back(written);
    check_otf2(OTF2_Archive_CloseEvtWriter(archive, w), errors, path,
               "writing the events of location " + std::to_string(location.id));
  }
}

} // namespace parjava::trace::detail
