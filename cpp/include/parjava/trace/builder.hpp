// TraceBuilder: programmatic construction of a Trace. The OTF2 reader, the interpreter (model
// traces of millions of events) and tests all build traces through it.
//
// Usage: add definitions (locations, regions, communicators, call sites), then append events to
// any location in any order, then finish(). Events of one location should be appended in time
// order; finish() sorts them stably by time when they are not (ties keep append order, so an
// Enter appended before the events inside it stays before them). Appending writes into the
// columns directly: no heap allocation per event, amortised growth by realloc (column.hpp).
//
// finish() groups events by location, fills `location_offsets`, then runs match()
// (matching.hpp): enclosing regions, Enter<->Leave, requests, messages, collectives, locks,
// intervals. Anything that cannot be paired is counted in Trace::unmatched, never guessed.
//
// Ranks are MPI_COMM_WORLD ranks (or PE numbers) everywhere, including peers and roots.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "parjava/trace/trace.hpp"

namespace parjava::trace {

class TraceBuilder;
namespace detail {
class MatchingRun;
} // namespace detail

// All columns of one event before matching; the kind-specific meaning is in EventKind.
struct EventRecord {
  Timestamp time = 0;
  EventKind kind = EventKind::Generic;
  std::uint32_t region = kNoRef;
  std::int32_t peer = kNoRank;
  std::int32_t tag = 0;
  std::uint32_t comm = kNoRef;
  std::uint64_t bytes = 0;
  std::uint64_t aux = 0;
  std::uint32_t callsite = kNoRef;
};

// The slice of the columns reserved for one location by TraceBuilder::presize(): filled from
// any one thread, independently of the other locations' slices.
class LocationSlice {
public:
  // False (and nothing written) when the slice is full: the location has more events than
  // announced.
  bool append(const EventRecord &r) {
    if (next_ == end_) {
      return false;
    }
    time_[next_] = r.time;
    kind_[next_] = r.kind;
    location_[next_] = location_index_;
    region_[next_] = r.region;
    peer_[next_] = r.peer;
    tag_[next_] = r.tag;
    comm_[next_] = r.comm;
    bytes_[next_] = r.bytes;
    aux_[next_] = r.aux;
    callsite_[next_] = r.callsite;
    ++next_;
    return true;
  }
  [[nodiscard]] std::size_t written() const { return next_ - begin_; }
  [[nodiscard]] std::size_t capacity() const { return end_ - begin_; }
  // Fault in this slice's pages of every column (match and link included) in one go, before
  // filling it: cheaper than a page fault per 4 KiB on first write.
  void populate() const;

private:
  friend class TraceBuilder;
  std::size_t begin_ = 0;
  std::size_t next_ = 0;
  std::size_t end_ = 0;
  std::uint32_t location_index_ = 0;
  Timestamp *time_ = nullptr;
  EventKind *kind_ = nullptr;
  std::uint32_t *location_ = nullptr;
  std::uint32_t *region_ = nullptr;
  std::int32_t *peer_ = nullptr;
  std::int32_t *tag_ = nullptr;
  std::uint32_t *comm_ = nullptr;
  std::uint64_t *bytes_ = nullptr;
  std::uint64_t *aux_ = nullptr;
  std::uint32_t *callsite_ = nullptr;
  EventIndex *match_ = nullptr; // filled by matching
  EventIndex *link_ = nullptr;
};

class TraceBuilder {
public:
  TraceBuilder();
  TraceBuilder(const TraceBuilder &) = delete;
  TraceBuilder &operator=(const TraceBuilder &) = delete;
  // Movable (not while slices are being filled): the prefault helper (see reserve()) holds no
  // reference to the builder.
  TraceBuilder(TraceBuilder &&other) noexcept;
  TraceBuilder &operator=(TraceBuilder &&other) noexcept;
  ~TraceBuilder();

  // Expected number of events: one allocation of every column (match and link included) up
  // front instead of growth. For large traces a helper thread then faults the pages in while
  // the caller appends (page faults are the largest cost of filling fresh memory; on the
  // benchmark VM they cost more than parsing OTF2). finish() waits for it.
  void reserve(std::size_t events);

  // --- definitions -----------------------------------------------------------------------
  std::uint32_t add_system_node(std::string name, std::string class_name,
                                std::uint32_t parent = kNoRef);
  std::uint32_t add_location_group(std::string name, std::int32_t rank,
                                   std::uint32_t system_node = kNoRef);
  // A location (a thread of a process). `id` defaults to parjava's OTF2 convention
  // rank + thread * 2^32 (docs/otf2-conventions.md); `name` defaults to "rank R" /
  // "rank R thread T". When `group` is kNoRef, the process's location group is created (or
  // reused) from the rank.
  std::uint32_t add_location(std::int32_t rank, std::int32_t thread = 0, std::string name = {},
                             LocationType type = LocationType::CpuThread,
                             std::uint32_t group = kNoRef, std::uint64_t id = UINT64_MAX);
  // Locations for ranks 0..n-1 (thread 0); returns the index of rank 0's location (they are
  // consecutive).
  std::uint32_t add_ranks(std::int32_t n);
  // A region, classified with function_by_name(). The role defaults from the function
  // (POINT2POINT, COLLECTIVE, BARRIER, ...; Function for user code).
  std::uint32_t add_region(Region region);
  std::uint32_t add_region(std::string name, RegionRole role = RegionRole::Unknown,
                           std::string file = {}, std::uint32_t line_begin = 0,
                           std::uint32_t line_end = 0);
  // The region with this name, added on first use (regions of the same name share an id).
  std::uint32_t region(std::string_view name);
  std::uint32_t add_communicator(std::string name, std::vector<std::int32_t> members,
                                 std::uint32_t parent = kNoRef);
  // MPI_COMM_SELF (or any communicator of one process, whichever it is).
  std::uint32_t add_self_communicator(std::string name = "MPI_COMM_SELF");
  // MPI_COMM_WORLD over the ranks of the locations added so far (added once).
  std::uint32_t world_communicator();
  std::uint32_t add_callsite(std::string file, std::uint32_t line, std::string function = {});
  std::uint32_t add_metric(MetricDefinition metric);

  TraceMetadata &metadata() { return trace_.metadata; }
  [[nodiscard]] const std::vector<Location> &locations() const { return trace_.locations; }
  [[nodiscard]] const std::vector<Region> &regions() const { return trace_.regions; }
  [[nodiscard]] const std::vector<Communicator> &communicators() const {
    return trace_.communicators;
  }
  [[nodiscard]] std::size_t size() const { return trace_.events.time.size(); }

  // --- events (loc = location index; times in ns) ----------------------------------------
  // Inline: the OTF2 reader and the interpreter call it once per event.
  void append(std::uint32_t loc, const EventRecord &event) {
    auto &e = trace_.events;
    if (loc >= trace_.locations.size()) {
      throw_unknown_location(loc);
    }
    if (!e.location.empty() && loc < e.location.back()) {
      location_column_sorted_ = false;
    }
    e.time.push_back(event.time);
    e.kind.push_back(event.kind);
    e.location.push_back(loc);
    e.region.push_back(event.region);
    e.peer.push_back(event.peer);
    e.tag.push_back(event.tag);
    e.comm.push_back(event.comm);
    e.bytes.push_back(event.bytes);
    e.aux.push_back(event.aux);
    e.callsite.push_back(event.callsite);
  }

  void enter(std::uint32_t loc, Timestamp t, std::uint32_t region, std::uint32_t callsite = kNoRef);
  // `region` may be kNoRef: the Leave then takes the region of the Enter it closes.
  void leave(std::uint32_t loc, Timestamp t, std::uint32_t region = kNoRef);
  void send(std::uint32_t loc, Timestamp t, std::int32_t dest, std::int32_t tag, std::uint32_t comm,
            std::uint64_t bytes);
  void isend(std::uint32_t loc, Timestamp t, std::int32_t dest, std::int32_t tag,
             std::uint32_t comm, std::uint64_t bytes, std::uint64_t request);
  void isend_complete(std::uint32_t loc, Timestamp t, std::uint64_t request);
  void irecv_post(std::uint32_t loc, Timestamp t, std::uint64_t request);
  // `source` and `tag` are the actual ones (what MPI_Status reports), never wildcards.
  void recv(std::uint32_t loc, Timestamp t, std::int32_t source, std::int32_t tag,
            std::uint32_t comm, std::uint64_t bytes);
  void irecv_complete(std::uint32_t loc, Timestamp t, std::int32_t source, std::int32_t tag,
                      std::uint32_t comm, std::uint64_t bytes, std::uint64_t request);
  void request_test(std::uint32_t loc, Timestamp t, std::uint64_t request);
  void request_cancelled(std::uint32_t loc, Timestamp t, std::uint64_t request);
  void collective_begin(std::uint32_t loc, Timestamp t);
  // `root` is a world rank or kNoRank.
  void collective_end(std::uint32_t loc, Timestamp t, CollectiveOp op, std::uint32_t comm,
                      std::int32_t root, std::uint64_t sent, std::uint64_t received);
  void lock_request(std::uint32_t loc, Timestamp t, std::int32_t owner, std::uint64_t lock,
                    std::int32_t lock_type = 0);
  void lock_acquire(std::uint32_t loc, Timestamp t, std::int32_t owner, std::uint64_t lock,
                    std::int32_t lock_type = 0);
  void lock_release(std::uint32_t loc, Timestamp t, std::int32_t owner, std::uint64_t lock);
  void rma_put(std::uint32_t loc, Timestamp t, std::int32_t target, std::uint64_t bytes,
               std::uint64_t matching_id = 0);
  void rma_get(std::uint32_t loc, Timestamp t, std::int32_t target, std::uint64_t bytes,
               std::uint64_t matching_id = 0);
  void interval_begin(std::uint32_t loc, Timestamp t, std::uint32_t region, std::uint64_t id,
                      std::uint32_t callsite = kNoRef);
  void interval_end(std::uint32_t loc, Timestamp t, std::uint32_t region, std::uint64_t id,
                    std::uint32_t callsite = kNoRef);
  void program_begin(std::uint32_t loc, Timestamp t);
  void program_end(std::uint32_t loc, Timestamp t, std::int64_t exit_status);
  void measurement(std::uint32_t loc, Timestamp t, bool on);
  void metric(std::uint32_t loc, Timestamp t, std::uint32_t metric_class, std::uint64_t raw);
  void generic(std::uint32_t loc, Timestamp t, std::uint32_t otf2_record_type);

  // --- parallel filling -----------------------------------------------------------------
  // When every location's event count is known (OTF2 declares it), presize() allocates the
  // columns once, exactly, and slice(l) gives location l its own part of them: different
  // locations can then be filled from different threads, with no copy afterwards. Call it
  // after the locations are defined and before any append(); a slice filled with fewer
  // events than announced is compacted by finish(). Appends and slices cannot be mixed.
  // With `background_prefault`, a helper faults the pages in while the slices are filled (as
  // reserve() does; best with one filling thread); otherwise whoever fills a slice should
  // call LocationSlice::populate() first, so each thread faults in the pages it writes.
  void presize(const std::vector<std::uint64_t> &events_per_location,
               bool background_prefault = false);
  LocationSlice slice(std::uint32_t location);
  // Record how many events slice `location` received (call once the slice is filled, from
  // the thread that filled it). A slice filled to its announced count is ordered and given
  // its per-location matching pass right away, while its events are still in cache.
  void slice_filled(const LocationSlice &slice);
  // The same, from a filler that noted while writing whether the events came in time order
  // and how many are Generic: two passes over the slice fewer.
  void slice_filled(const LocationSlice &slice, bool in_time_order, std::uint64_t generic);

  // Sort, index and match; the builder is empty afterwards. The per-location work (time
  // order, nesting, requests) runs on up to `threads` threads. Throws TraceError when an
  // event names a location that does not exist or the trace exceeds 2^31 - 1 events.
  Trace finish(unsigned threads = 1);

private:
  std::uint32_t group_of_rank(std::int32_t rank);
  [[noreturn]] void throw_unknown_location(std::uint32_t loc) const;

  void wait_for_populate();
  void reserve_columns(std::size_t events);
  void start_populate(std::size_t events);
  Trace take_trace(); // the finished trace; the builder starts empty again

  Trace trace_;
  std::thread populate_;
  std::unordered_map<std::string, std::uint32_t> region_by_name_;
  std::unordered_map<std::int32_t, std::uint32_t> group_by_rank_;
  std::uint32_t world_ = kNoRef;
  bool location_column_sorted_ = true; // events appended in non-decreasing location order
  bool presized_ = false;
  std::vector<std::uint64_t> slice_written_; // per location, when presized
  std::vector<std::uint64_t> slice_generic_; // Generic events per finished slice
  std::unique_ptr<detail::MatchingRun> run_; // matching of the presized trace
};

// Default role for a region of a known function: COLLECTIVE/BARRIER for collectives,
// POINT2POINT for p2p and completion calls, Function otherwise.
RegionRole default_role(Function function);

} // namespace parjava::trace
