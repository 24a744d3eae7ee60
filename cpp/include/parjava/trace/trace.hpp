// The in-memory trace (ARCHITECTURE §3, Trace): events of every location stored column-wise,
// grouped by location and time-ordered within it, with definition tables and the matching
// (send<->receive, request post<->completion, Enter<->Leave, collective instances) computed once
// and stored as index arrays. Real traces (OTF2 from our tracer or Score-P) and model traces
// (the interpreter) produce the same structure, so every analysis reads only this.
//
// Memory: 57 bytes per event in the columns below (the issue bounds it by 64 B per event).
// Columns are parjava::trace::Column (column.hpp: the std::vector interface, realloc storage so
// growth and trimming never hold two copies).
// Event indices are 32-bit: a trace holds at most 2^31 - 1 events (TraceError beyond).
//
// Build a Trace with TraceBuilder (builder.hpp) or read one with open() (otf2.hpp); both end in
// match() (matching.hpp), which fills `match`, `link`, the enclosing region and call site of
// inner events, the collective instances and `unmatched`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "parjava/trace/column.hpp"
#include "parjava/trace/functions.hpp"

namespace parjava::trace {

using Timestamp = std::int64_t; // nanoseconds since the trace's time origin
using EventIndex = std::int32_t;
inline constexpr EventIndex kNoEvent = -1;
inline constexpr std::uint32_t kNoRef = 0xffffffffU; // missing region, comm, call site, ...
inline constexpr std::int32_t kNoRank = -1;

// What an event is. The meaning of the generic columns for each kind is given beside it;
// columns not named are kNoRef / kNoRank / 0 / kNoEvent.
//
// Filled by matching for every kind except Enter, Leave, IntervalBegin, IntervalEnd and Metric:
//   region   = the innermost enclosing region (the MPI/SHMEM call holding the event), or kNoRef;
//   callsite = that region's Enter call site (kNoRef if it has none).
// A Leave gets the region and call site of its Enter when it has none. Ranks (peer) are always
// MPI_COMM_WORLD ranks (PE numbers for OpenSHMEM), never communicator ranks.
enum class EventKind : std::uint8_t {
  Enter,            // region = entered region, callsite; match = its Leave
  Leave,            // region = left region; match = its Enter
  Send,             // blocking send message (OTF2 MpiSend): peer = receiver (world rank), tag,
                    //   comm, bytes; match = the receive event (Recv or IrecvComplete)
  IsendPost,        // OTF2 MpiIsend: as Send, aux = request id; match = receive event;
                    //   link = its IsendComplete (or the RequestCancelled that ended it; a
                    //   cancelled send is never matched to a receive)
  IsendComplete,    // OTF2 MpiIsendComplete (inside Wait*/Test*): aux = request id;
                    //   link = its IsendPost; peer/tag/comm/bytes copied from the post
  IrecvPost,        // OTF2 MpiIrecvRequest: aux = request id; link = its IrecvComplete (or
                    //   RequestCancelled); peer/tag/comm/bytes copied from the completion (the
                    //   actual envelope: OTF2 does not record the posted one, e.g. ANY_SOURCE)
  Recv,             // OTF2 MpiRecv: peer = actual source (world rank), tag, comm, bytes;
                    //   match = the send event (Send or IsendPost)
  IrecvComplete,    // OTF2 MpiIrecv (inside Wait*/Test*): as Recv, aux = request id;
                    //   link = its IrecvPost; match = the send event
  RequestTest,      // OTF2 MpiRequestTest: a test that did not complete; aux = request id;
                    //   link = the pending post it tested
  RequestCancelled, // OTF2 MpiRequestCancelled: aux = request id; link = the cancelled post
  CollectiveBegin,  // OTF2 MpiCollectiveBegin / RmaCollectiveBegin: match = its End;
                    //   link = collective instance (index into Trace::collectives)
  CollectiveEnd,    // OTF2 MpiCollectiveEnd / RmaCollectiveEnd: peer = root (world rank or
                    //   kNoRank), tag = CollectiveOp, comm, bytes = sent, aux = received;
                    //   match = its Begin; link = collective instance
  LockRequest,      // OTF2 RmaRequestLock: peer = lock owner rank, aux = lock id, tag = LockType;
                    //   match = the LockAcquire that granted it
  LockAcquire,      // OTF2 RmaAcquireLock: as LockRequest;
                    //   match = the LockRelease that ends this holding; link = its LockRequest
  LockRelease,      // OTF2 RmaReleaseLock: peer, aux = lock id; match = the LockAcquire
  RmaPut,           // OTF2 RmaPut: peer = target rank, bytes, aux = matching id
  RmaGet,           // OTF2 RmaGet: peer = target rank, bytes, aux = matching id
  IntervalBegin,    // user interval marker (parjava_interval_begin, notes 004 §3.3): region =
                    //   the interval region, aux = user id, callsite = marker's file:line;
                    //   match = its IntervalEnd (the latest open IntervalBegin with the same id)
  IntervalEnd,      // parjava_interval_end: region, aux = user id, callsite; match = its
                    //   IntervalBegin
  ProgramBegin,     // OTF2 ProgramBegin
  ProgramEnd,       // OTF2 ProgramEnd: aux = exit status
  MeasurementOnOff, // OTF2 MeasurementOnOff: aux = 1 on, 0 off (also MPI_Pcontrol levels)
  Metric,           // OTF2 Metric: region = metric (index into Trace::metrics), aux = the
                    //   value's raw 64 bits (int64, uint64 or double per the metric's type)
  Generic,          // any other OTF2 record (e.g. RmaTryLock, a failed attempt), kept: aux = OTF2
                    //   event record id (OTF2_EVENT_*, named by otf2_record_name() in otf2.hpp);
                    //   comm = the communicator of CommCreate/CommDestroy
};
inline constexpr int kEventKindCount = static_cast<int>(EventKind::Generic) + 1;

// Printable name of an event kind ("Enter", "IsendPost", ...).
const char *event_kind_name(EventKind kind);

// Collective operation identity stored in CollectiveEnd.tag, following OTF2_CollectiveOp.
using CollectiveOp = std::int32_t;

// The event columns. Index i across all vectors is event i. Events of location l occupy
// [location_offsets[l], location_offsets[l + 1]) and are sorted by time (stable: record order
// breaks ties, so Enter precedes the events inside it and Leave follows them).
struct EventColumns {
  Column<Timestamp> time;
  Column<EventKind> kind;
  Column<std::uint32_t> location;
  Column<std::uint32_t> region; // see EventKind; for message, request, collective and lock
                                // events: the innermost enclosing region (the MPI call)
  Column<std::int32_t> peer;
  Column<std::int32_t> tag;
  Column<std::uint32_t> comm;
  Column<std::uint64_t> bytes;
  Column<std::uint64_t> aux;
  Column<std::uint32_t> callsite; // call site of the enclosing runtime call (kNoRef if none)
  Column<EventIndex> match;       // see EventKind
  Column<EventIndex> link;        // see EventKind
};

enum class LocationType : std::uint8_t { CpuThread, Gpu, Metric, Other };

struct Location {
  std::uint64_t id = 0; // OTF2 location id as found in the archive
  std::string name;     // e.g. "rank 3" or "Master thread"
  LocationType type = LocationType::CpuThread;
  std::int32_t rank = kNoRank;  // MPI world rank / PE of the owning process
  std::int32_t thread = 0;      // thread number within the process (0 = main thread)
  std::uint32_t group = kNoRef; // index into Trace::location_groups (the process)
};

struct LocationGroup {
  std::string name;                   // e.g. "MPI Rank 3"
  std::int32_t rank = kNoRank;        // world rank of the process
  std::uint32_t system_node = kNoRef; // index into Trace::system_nodes (e.g. the host)
};

struct SystemNode {
  std::string name;       // e.g. the host name
  std::string class_name; // e.g. "node", "machine"
  std::uint32_t parent = kNoRef;
};

enum class RegionRole : std::uint8_t {
  Function,
  Wrapper,
  Loop,
  Code,
  Barrier,
  Collective,
  PointToPoint,
  FileIo,
  Lock,
  Interval,
  Artificial,
  Unknown
};

struct Region {
  std::string name;                   // as defined in the archive, e.g. "MPI_Send", "main"
  Function function = Function::None; // function_by_name(name), or None for user code
  Category category = Category::UserCode;
  Paradigm paradigm = Paradigm::User;
  RegionRole role = RegionRole::Unknown;
  std::string file; // source file where known
  std::uint32_t line_begin = 0;
  std::uint32_t line_end = 0;
};

struct Communicator {
  std::string name;                  // "MPI_COMM_WORLD", "comm 3", ...
  std::vector<std::int32_t> members; // world ranks, in communicator-rank order
  std::uint32_t parent = kNoRef;     // communicator it was derived from, if known
  bool self = false; // MPI_COMM_SELF: every process alone (members empty; rank 0 = itself)
};

struct CallSite {
  std::string file;
  std::uint32_t line = 0;
  std::string function; // enclosing function name where known
};

enum class MetricValueType : std::uint8_t { Int64, Uint64, Double };

// A metric sampled by Metric events (hardware counters, power, memory): the first member of
// an OTF2 metric class or instance.
struct MetricDefinition {
  std::string name; // e.g. "PAPI_TOT_CYC"
  std::string unit; // e.g. "#", "W"
  MetricValueType type = MetricValueType::Uint64;
};

// One execution of a collective operation: all participating CollectiveBegin/End pairs
// (notes 001 §2.3 "relocalisation operations"; Scalasca's collective instance).
struct CollectiveInstance {
  std::uint32_t comm = kNoRef;
  Function function = Function::None; // the runtime call (MPI_Allreduce, shmem_barrier_all, ...)
  CollectiveOp op = 0;
  std::int32_t root = kNoRank;    // world rank or kNoRank
  std::uint32_t first_member = 0; // members' End events: collective_members[first, first+n)
  std::uint32_t member_count = 0; // participants that reached the collective
  std::uint32_t expected = 0;     // size of the communicator
  // Participants in the whole trace: member_count, except in a parallel analysis part that
  // holds only the decisive members of an instance (partition.hpp), where it is the count of
  // the whole trace's members and member_count that of the members held.
  std::uint32_t participants = 0;
};

// Counts of what matching could not pair. Nothing is guessed: unmatched events keep kNoEvent.
struct MatchReport {
  std::uint64_t sends = 0;                    // sends without a receive (cancelled ones excluded)
  std::uint64_t receives = 0;                 // receives without a send
  std::uint64_t request_posts = 0;            // Isend/Irecv posts never completed nor cancelled
  std::uint64_t request_completions = 0;      // completions/cancellations without a post
  std::uint64_t collectives_incomplete = 0;   // instances with fewer members than the comm size
  std::uint64_t collectives_mismatched = 0;   // instances whose members called different functions
  std::uint64_t collective_ends_unopened = 0; // CollectiveEnd without a CollectiveBegin
  std::uint64_t enters_unclosed = 0;          // Enter without Leave (e.g. the program was killed)
  std::uint64_t leaves_unopened = 0;          // Leave without an Enter of the same region
  std::uint64_t locks_unreleased = 0;         // LockAcquire never released
  std::uint64_t lock_releases_unacquired = 0; // LockRelease without a LockAcquire
  std::uint64_t intervals_unclosed = 0;       // IntervalBegin without IntervalEnd
  std::uint64_t intervals_unopened = 0;       // IntervalEnd without IntervalBegin

  [[nodiscard]] std::uint64_t total() const {
    return sends + receives + request_posts + request_completions + collectives_incomplete +
           collectives_mismatched + collective_ends_unopened + enters_unclosed + leaves_unopened +
           locks_unreleased + lock_releases_unacquired + intervals_unclosed + intervals_unopened;
  }
  friend bool operator==(const MatchReport &, const MatchReport &) = default;
};

// Timestamps that contradict the matching: the clock condition (an event caused by another
// cannot be earlier than it) is violated, so the clocks of the processes disagreed. Counted
// as Scalasca counts them (anchors/mpi-wait-state-patterns.md §5 "Clocks", §3.1 "Clock
// check"); computed with the matching (clock_condition.hpp).
struct ClockViolations {
  // A receive event (Recv, IrecvComplete) earlier than the start of its send (Send,
  // IsendPost).
  std::uint64_t receives_before_send = 0;
  // A member of a blocking collective left (CollectiveEnd) before a member it waits for
  // entered (CollectiveBegin): for a barrier or an N-to-N collective the last one to enter,
  // for 1-to-N the root, for N-to-1 (at the root) the last sender, for a prefix reduction the
  // last lower rank. Counted once per member that left too early.
  std::uint64_t collective_exits_before_entry = 0;
  Timestamp largest_ns = 0; // the largest amount by which a violating event is early

  [[nodiscard]] std::uint64_t total() const {
    return receives_before_send + collective_exits_before_entry;
  }
  friend bool operator==(const ClockViolations &, const ClockViolations &) = default;
};

// What correct_clocks() (clock_condition.hpp) did to a trace.
struct ClockCorrectionReport {
  ClockViolations before;          // the violations it removed
  std::uint64_t jumps = 0;         // events moved forward to follow what they wait for
  std::uint64_t events_moved = 0;  // events whose time changed (jumps and their amortisation)
  Timestamp largest_shift_ns = 0;  // the largest change of one event's time
  std::uint64_t cycles_broken = 0; // dependencies ignored because they formed a cycle
};

// Facts about the archive that are not events.
struct TraceMetadata {
  std::string path;           // where it was read from, if anywhere
  std::string creator;        // e.g. "Score-P 7.1", "parjava tracer 0.1", "parjava model"
  std::string format_version; // OTF2 version of the source archive, e.g. "2.3.0"
  std::uint64_t timer_resolution = 1'000'000'000; // ticks per second in the source archive
  Timestamp time_origin = 0;                      // archive global offset, in the source's ticks
  std::int64_t tracer_overhead_ns = -1;           // measured per-call overhead, when recorded
  bool is_model = false;                          // produced by the interpreter (a model trace)
  std::uint64_t unknown_events = 0;               // records kept as EventKind::Generic
  std::vector<std::string> warnings;              // non-fatal oddities found while reading
  // Archive properties (OTF2 SetProperty), e.g. {"PARJAVA::CLOCK_CORRECTION", "linear"}.
  std::vector<std::pair<std::string, std::string>> properties;
};

class Trace {
public:
  EventColumns events;
  std::vector<std::uint64_t> location_offsets{0}; // size = locations.size() + 1
  std::vector<Location> locations;
  std::vector<LocationGroup> location_groups;
  std::vector<SystemNode> system_nodes;
  std::vector<Region> regions;
  std::vector<Communicator> communicators;
  std::vector<CallSite> callsites;
  std::vector<MetricDefinition> metrics;
  std::vector<CollectiveInstance> collectives;
  Column<EventIndex> collective_members; // CollectiveEnd events grouped by instance
  MatchReport unmatched;
  ClockViolations clock_violations;                      // after correct_clocks(): none
  std::optional<ClockCorrectionReport> clock_correction; // set by correct_clocks()
  TraceMetadata metadata;

  [[nodiscard]] std::size_t size() const { return events.time.size(); }
  [[nodiscard]] std::size_t location_count() const { return locations.size(); }
  [[nodiscard]] EventIndex location_begin(std::uint32_t l) const {
    return static_cast<EventIndex>(location_offsets[l]);
  }
  [[nodiscard]] EventIndex location_end(std::uint32_t l) const {
    return static_cast<EventIndex>(location_offsets[l + 1]);
  }
  // Index of the location with this OTF2 id, or kNoRef.
  [[nodiscard]] std::uint32_t location_by_id(std::uint64_t id) const;
  // Number of MPI processes (distinct ranks among locations), 0 for a non-MPI trace.
  [[nodiscard]] std::int32_t process_count() const;
  // Bytes held by the columns and index arrays (for the memory-per-event benchmark).
  [[nodiscard]] std::size_t memory_bytes() const;
};

} // namespace parjava::trace
