// Small queries on the Trace container; reading, writing and matching live in their own files.
#include "parjava/trace/trace.hpp"

#include <algorithm>
#include <unordered_set>

namespace parjava::trace {

const char *event_kind_name(EventKind kind) {
  switch (kind) {
  case EventKind::Enter:
    return "Enter";
  case EventKind::Leave:
    return "Leave";
  case EventKind::Send:
    return "Send";
  case EventKind::IsendPost:
    return "IsendPost";
  case EventKind::IsendComplete:
    return "IsendComplete";
  case EventKind::IrecvPost:
    return "IrecvPost";
  case EventKind::Recv:
    return "Recv";
  case EventKind::IrecvComplete:
    return "IrecvComplete";
  case EventKind::RequestTest:
    return "RequestTest";
  case EventKind::RequestCancelled:
    return "RequestCancelled";
  case EventKind::CollectiveBegin:
    return "CollectiveBegin";
  case EventKind::CollectiveEnd:
    return "CollectiveEnd";
  case EventKind::LockRequest:
    return "LockRequest";
  case EventKind::LockAcquire:
    return "LockAcquire";
  case EventKind::LockRelease:
    return "LockRelease";
  case EventKind::RmaPut:
    return "RmaPut";
  case EventKind::RmaGet:
    return "RmaGet";
  case EventKind::IntervalBegin:
    return "IntervalBegin";
  case EventKind::IntervalEnd:
    return "IntervalEnd";
  case EventKind::ProgramBegin:
    return "ProgramBegin";
  case EventKind::ProgramEnd:
    return "ProgramEnd";
  case EventKind::MeasurementOnOff:
    return "MeasurementOnOff";
  case EventKind::Metric:
    return "Metric";
  case EventKind::Generic:
    return "Generic";
  }
  return "Unknown";
}

std::uint32_t Trace::location_by_id(std::uint64_t id) const {
  for (std::uint32_t l = 0; l < locations.size(); ++l) {
    if (locations[l].id == id) {
      return l;
    }
  }
  return kNoRef;
}

std::int32_t Trace::process_count() const {
  std::unordered_set<std::int32_t> ranks;
  for (const auto &loc : locations) {
    if (loc.rank != kNoRank) {
      ranks.insert(loc.rank);
    }
  }
  return static_cast<std::int32_t>(ranks.size());
}

std::size_t Trace::memory_bytes() const {
  const auto &e = events;
  auto bytes_of = [](const auto &v) { return v.capacity() * sizeof(v[0]); };
  return bytes_of(e.time) + bytes_of(e.kind) + bytes_of(e.location) + bytes_of(e.region) +
         bytes_of(e.peer) + bytes_of(e.tag) + bytes_of(e.comm) + bytes_of(e.bytes) +
         bytes_of(e.aux) + bytes_of(e.callsite) + bytes_of(e.match) + bytes_of(e.link) +
         bytes_of(location_offsets) + bytes_of(collective_members) +
         collectives.capacity() * sizeof(CollectiveInstance);
}

} // namespace parjava::trace
