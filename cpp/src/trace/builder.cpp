// TraceBuilder: definitions, event appends straight into the columns, and finish() (group by
// location, stable time order, index, match).
#include "parjava/trace/builder.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>

#include "matching_passes.hpp"
#include "parallel.hpp"
#include "parjava/error.hpp"
#include "parjava/trace/matching.hpp"

namespace parjava::trace {

RegionRole default_role(Function function) {
  const auto &info = function_info(function);
  if (function == Function::None) {
    return RegionRole::Function;
  }
  if (info.shape == CollectiveShape::Barrier) {
    return RegionRole::Barrier;
  }
  if (info.category == Category::Collective) {
    return RegionRole::Collective;
  }
  switch (function) {
  case Function::ShmemSetLock:
  case Function::ShmemTestLock:
  case Function::ShmemClearLock:
    return RegionRole::Lock;
  default:
    break;
  }
  if (info.category == Category::BlockingSend || info.category == Category::NonblockingSend ||
      info.category == Category::BlockingReceiveWait ||
      info.category == Category::NonblockingReceiveTest) {
    return RegionRole::PointToPoint;
  }
  return RegionRole::Function;
}

TraceBuilder::TraceBuilder() = default;

TraceBuilder::~TraceBuilder() { wait_for_populate(); }

TraceBuilder::TraceBuilder(TraceBuilder &&other) noexcept
    : trace_(std::move(other.trace_)), populate_(std::move(other.populate_)),
      region_by_name_(std::move(other.region_by_name_)),
      group_by_rank_(std::move(other.group_by_rank_)), world_(other.world_),
      location_column_sorted_(other.location_column_sorted_), presized_(other.presized_),
      slice_written_(std::move(other.slice_written_)),
      slice_generic_(std::move(other.slice_generic_)) {
  // A matching run refers to the trace it was made for: start it again after a move.
  other.run_.reset();
}

TraceBuilder &TraceBuilder::operator=(TraceBuilder &&other) noexcept {
  if (this != &other) {
    wait_for_populate(); // a joinable std::thread must not be overwritten
    trace_ = std::move(other.trace_);
    populate_ = std::move(other.populate_);
    region_by_name_ = std::move(other.region_by_name_);
    group_by_rank_ = std::move(other.group_by_rank_);
    world_ = other.world_;
    location_column_sorted_ = other.location_column_sorted_;
    presized_ = other.presized_;
    slice_written_ = std::move(other.slice_written_);
    slice_generic_ = std::move(other.slice_generic_);
    run_.reset();
    other.run_.reset();
  }
  return *this;
}

void TraceBuilder::wait_for_populate() {
  if (populate_.joinable()) {
    populate_.join();
  }
}

void LocationSlice::populate() const {
  const auto n = end_ - begin_;
  detail::populate_pages(time_ + begin_, n * sizeof(Timestamp));
  detail::populate_pages(kind_ + begin_, n * sizeof(EventKind));
  detail::populate_pages(location_ + begin_, n * sizeof(std::uint32_t));
  detail::populate_pages(region_ + begin_, n * sizeof(std::uint32_t));
  detail::populate_pages(peer_ + begin_, n * sizeof(std::int32_t));
  detail::populate_pages(tag_ + begin_, n * sizeof(std::int32_t));
  detail::populate_pages(comm_ + begin_, n * sizeof(std::uint32_t));
  detail::populate_pages(bytes_ + begin_, n * sizeof(std::uint64_t));
  detail::populate_pages(aux_ + begin_, n * sizeof(std::uint64_t));
  detail::populate_pages(callsite_ + begin_, n * sizeof(std::uint32_t));
  detail::populate_pages(match_ + begin_, n * sizeof(EventIndex));
  detail::populate_pages(link_ + begin_, n * sizeof(EventIndex));
}

void TraceBuilder::reserve(std::size_t events) {
  reserve_columns(events);
  start_populate(events);
}

void TraceBuilder::reserve_columns(std::size_t events) {
  wait_for_populate();
  auto &e = trace_.events;
  e.time.reserve(events);
  e.kind.reserve(events);
  e.location.reserve(events);
  e.region.reserve(events);
  e.peer.reserve(events);
  e.tag.reserve(events);
  e.comm.reserve(events);
  e.bytes.reserve(events);
  e.aux.reserve(events);
  e.callsite.reserve(events);
  e.match.reserve(events);
  e.link.reserve(events);
}

void TraceBuilder::start_populate(std::size_t events) {
  auto &e = trace_.events;
  // Below a million events the faults cost less than starting a thread.
  constexpr std::size_t kPopulateThreshold = 1U << 20U;
  if (events >= kPopulateThreshold) {
    // The helper works on a snapshot of the blocks: should a column still grow (more events
    // than announced), madvise on the old block is harmless.
    struct Block {
      char *data;
      std::size_t element_size;
      std::size_t capacity;
    };
    auto block = [](auto &column) {
      using T = typename std::decay_t<decltype(column)>::value_type;
      return Block{reinterpret_cast<char *>(column.data()), sizeof(T), column.capacity()};
    };
    std::vector<Block> blocks = {block(e.time),     block(e.kind),  block(e.location),
                                 block(e.region),   block(e.peer),  block(e.tag),
                                 block(e.comm),     block(e.bytes), block(e.aux),
                                 block(e.callsite), block(e.match), block(e.link)};
    // Event by event in append order, so the pages the caller writes first are ready first.
    populate_ = std::thread([blocks = std::move(blocks), events] {
      constexpr std::size_t kEventsPerStep = std::size_t{1} << 18U;
      for (std::size_t first = 0; first < events; first += kEventsPerStep) {
        const auto n = std::min(kEventsPerStep, events - first);
        for (const auto &b : blocks) {
          detail::populate_pages(b.data + first * b.element_size, n * b.element_size);
        }
      }
    });
  }
}

std::uint32_t TraceBuilder::add_system_node(std::string name, std::string class_name,
                                            std::uint32_t parent) {
  trace_.system_nodes.push_back({std::move(name), std::move(class_name), parent});
  return static_cast<std::uint32_t>(trace_.system_nodes.size() - 1);
}

std::uint32_t TraceBuilder::add_location_group(std::string name, std::int32_t rank,
                                               std::uint32_t system_node) {
  trace_.location_groups.push_back({std::move(name), rank, system_node});
  const auto index = static_cast<std::uint32_t>(trace_.location_groups.size() - 1);
  group_by_rank_.emplace(rank, index);
  return index;
}

std::uint32_t TraceBuilder::group_of_rank(std::int32_t rank) {
  const auto found = group_by_rank_.find(rank);
  if (found != group_by_rank_.end()) {
    return found->second;
  }
  return add_location_group(rank == kNoRank ? "process" : "MPI Rank " + std::to_string(rank), rank);
}

std::uint32_t TraceBuilder::add_location(std::int32_t rank, std::int32_t thread, std::string name,
                                         LocationType type, std::uint32_t group, std::uint64_t id) {
  if (name.empty()) {
    name = "rank " + std::to_string(rank);
    if (thread != 0) {
      name += " thread " + std::to_string(thread);
    }
  }
  if (id == UINT64_MAX) {
    // docs/otf2-conventions.md: main thread = rank, thread t = rank + t * 2^32.
    id = static_cast<std::uint64_t>(static_cast<std::uint32_t>(std::max(rank, 0))) +
         (static_cast<std::uint64_t>(thread) << 32U);
  }
  if (group == kNoRef) {
    group = group_of_rank(rank);
  }
  trace_.locations.push_back({id, std::move(name), type, rank, thread, group});
  trace_.location_offsets.push_back(0);
  return static_cast<std::uint32_t>(trace_.locations.size() - 1);
}

std::uint32_t TraceBuilder::add_ranks(std::int32_t n) {
  const auto first = static_cast<std::uint32_t>(trace_.locations.size());
  for (std::int32_t r = 0; r < n; ++r) {
    add_location(r);
  }
  return first;
}

std::uint32_t TraceBuilder::add_region(Region region) {
  if (region.function == Function::None) {
    region.function = function_by_name(region.name);
  }
  const auto &info = function_info(region.function);
  region.category = info.category;
  if (region.function != Function::None) {
    region.paradigm = info.paradigm;
  } else if (region.paradigm == Paradigm::Mpi || region.paradigm == Paradigm::Shmem) {
    // A runtime call parjava does not know (MPI_Comm_group, shmem_ptr, ...): seed 004 puts
    // such rarely used calls in category 6.
    region.category = Category::Other;
  }
  if (region.role == RegionRole::Unknown) {
    region.role = default_role(region.function);
  }
  const auto index = static_cast<std::uint32_t>(trace_.regions.size());
  region_by_name_.emplace(region.name, index);
  trace_.regions.push_back(std::move(region));
  return index;
}

std::uint32_t TraceBuilder::add_region(std::string name, RegionRole role, std::string file,
                                       std::uint32_t line_begin, std::uint32_t line_end) {
  Region r;
  r.name = std::move(name);
  r.role = role;
  r.file = std::move(file);
  r.line_begin = line_begin;
  r.line_end = line_end;
  return add_region(std::move(r));
}

std::uint32_t TraceBuilder::region(std::string_view name) {
  const auto found = region_by_name_.find(std::string(name));
  if (found != region_by_name_.end()) {
    return found->second;
  }
  return add_region(std::string(name));
}

std::uint32_t TraceBuilder::add_communicator(std::string name, std::vector<std::int32_t> members,
                                             std::uint32_t parent) {
  trace_.communicators.push_back({std::move(name), std::move(members), parent, false});
  return static_cast<std::uint32_t>(trace_.communicators.size() - 1);
}

std::uint32_t TraceBuilder::add_self_communicator(std::string name) {
  trace_.communicators.push_back({std::move(name), {}, kNoRef, true});
  return static_cast<std::uint32_t>(trace_.communicators.size() - 1);
}

std::uint32_t TraceBuilder::world_communicator() {
  if (world_ != kNoRef) {
    return world_;
  }
  std::set<std::int32_t> ranks;
  for (const auto &loc : trace_.locations) {
    if (loc.rank != kNoRank) {
      ranks.insert(loc.rank);
    }
  }
  world_ = add_communicator("MPI_COMM_WORLD", {ranks.begin(), ranks.end()});
  return world_;
}

std::uint32_t TraceBuilder::add_callsite(std::string file, std::uint32_t line,
                                         std::string function) {
  trace_.callsites.push_back({std::move(file), line, std::move(function)});
  return static_cast<std::uint32_t>(trace_.callsites.size() - 1);
}

std::uint32_t TraceBuilder::add_metric(MetricDefinition metric) {
  trace_.metrics.push_back(std::move(metric));
  return static_cast<std::uint32_t>(trace_.metrics.size() - 1);
}

void TraceBuilder::throw_unknown_location(std::uint32_t loc) const {
  throw Error(ErrorKind::Trace, "event " + std::to_string(size()) + " names location " +
                                    std::to_string(loc) + " but only " +
                                    std::to_string(trace_.locations.size()) +
                                    " locations are defined: add_location() first");
}

void TraceBuilder::enter(std::uint32_t loc, Timestamp t, std::uint32_t region,
                         std::uint32_t callsite) {
  EventRecord r{t, EventKind::Enter};
  r.region = region;
  r.callsite = callsite;
  append(loc, r);
}

void TraceBuilder::leave(std::uint32_t loc, Timestamp t, std::uint32_t region) {
  EventRecord r{t, EventKind::Leave};
  r.region = region;
  append(loc, r);
}

namespace {
EventRecord message(Timestamp t, EventKind kind, std::int32_t peer, std::int32_t tag,
                    std::uint32_t comm, std::uint64_t bytes, std::uint64_t request) {
  EventRecord r{t, kind};
  r.peer = peer;
  r.tag = tag;
  r.comm = comm;
  r.bytes = bytes;
  r.aux = request;
  return r;
}
EventRecord with_aux(Timestamp t, EventKind kind, std::uint64_t aux) {
  EventRecord r{t, kind};
  r.aux = aux;
  return r;
}
} // namespace

void TraceBuilder::send(std::uint32_t loc, Timestamp t, std::int32_t dest, std::int32_t tag,
                        std::uint32_t comm, std::uint64_t bytes) {
  append(loc, message(t, EventKind::Send, dest, tag, comm, bytes, 0));
}

void TraceBuilder::isend(std::uint32_t loc, Timestamp t, std::int32_t dest, std::int32_t tag,
                         std::uint32_t comm, std::uint64_t bytes, std::uint64_t request) {
  append(loc, message(t, EventKind::IsendPost, dest, tag, comm, bytes, request));
}

void TraceBuilder::isend_complete(std::uint32_t loc, Timestamp t, std::uint64_t request) {
  append(loc, with_aux(t, EventKind::IsendComplete, request));
}

void TraceBuilder::irecv_post(std::uint32_t loc, Timestamp t, std::uint64_t request) {
  append(loc, with_aux(t, EventKind::IrecvPost, request));
}

void TraceBuilder::recv(std::uint32_t loc, Timestamp t, std::int32_t source, std::int32_t tag,
                        std::uint32_t comm, std::uint64_t bytes) {
  append(loc, message(t, EventKind::Recv, source, tag, comm, bytes, 0));
}

void TraceBuilder::irecv_complete(std::uint32_t loc, Timestamp t, std::int32_t source,
                                  std::int32_t tag, std::uint32_t comm, std::uint64_t bytes,
                                  std::uint64_t request) {
  append(loc, message(t, EventKind::IrecvComplete, source, tag, comm, bytes, request));
}

void TraceBuilder::request_test(std::uint32_t loc, Timestamp t, std::uint64_t request) {
  append(loc, with_aux(t, EventKind::RequestTest, request));
}

void TraceBuilder::request_cancelled(std::uint32_t loc, Timestamp t, std::uint64_t request) {
  append(loc, with_aux(t, EventKind::RequestCancelled, request));
}

void TraceBuilder::collective_begin(std::uint32_t loc, Timestamp t) {
  append(loc, EventRecord{t, EventKind::CollectiveBegin});
}

void TraceBuilder::collective_end(std::uint32_t loc, Timestamp t, CollectiveOp op,
                                  std::uint32_t comm, std::int32_t root, std::uint64_t sent,
                                  std::uint64_t received) {
  append(loc, message(t, EventKind::CollectiveEnd, root, op, comm, sent, received));
}

void TraceBuilder::lock_request(std::uint32_t loc, Timestamp t, std::int32_t owner,
                                std::uint64_t lock, std::int32_t lock_type) {
  append(loc, message(t, EventKind::LockRequest, owner, lock_type, kNoRef, 0, lock));
}

void TraceBuilder::lock_acquire(std::uint32_t loc, Timestamp t, std::int32_t owner,
                                std::uint64_t lock, std::int32_t lock_type) {
  append(loc, message(t, EventKind::LockAcquire, owner, lock_type, kNoRef, 0, lock));
}

void TraceBuilder::lock_release(std::uint32_t loc, Timestamp t, std::int32_t owner,
                                std::uint64_t lock) {
  append(loc, message(t, EventKind::LockRelease, owner, 0, kNoRef, 0, lock));
}

void TraceBuilder::rma_put(std::uint32_t loc, Timestamp t, std::int32_t target, std::uint64_t bytes,
                           std::uint64_t matching_id) {
  append(loc, message(t, EventKind::RmaPut, target, 0, kNoRef, bytes, matching_id));
}

void TraceBuilder::rma_get(std::uint32_t loc, Timestamp t, std::int32_t target, std::uint64_t bytes,
                           std::uint64_t matching_id) {
  append(loc, message(t, EventKind::RmaGet, target, 0, kNoRef, bytes, matching_id));
}

void TraceBuilder::interval_begin(std::uint32_t loc, Timestamp t, std::uint32_t region,
                                  std::uint64_t id, std::uint32_t callsite) {
  EventRecord r{t, EventKind::IntervalBegin};
  r.region = region;
  r.aux = id;
  r.callsite = callsite;
  append(loc, r);
}

void TraceBuilder::interval_end(std::uint32_t loc, Timestamp t, std::uint32_t region,
                                std::uint64_t id, std::uint32_t callsite) {
  EventRecord r{t, EventKind::IntervalEnd};
  r.region = region;
  r.aux = id;
  r.callsite = callsite;
  append(loc, r);
}

void TraceBuilder::program_begin(std::uint32_t loc, Timestamp t) {
  append(loc, EventRecord{t, EventKind::ProgramBegin});
}

void TraceBuilder::program_end(std::uint32_t loc, Timestamp t, std::int64_t exit_status) {
  append(loc, with_aux(t, EventKind::ProgramEnd, static_cast<std::uint64_t>(exit_status)));
}

void TraceBuilder::measurement(std::uint32_t loc, Timestamp t, bool on) {
  append(loc, with_aux(t, EventKind::MeasurementOnOff, on ? 1U : 0U));
}

void TraceBuilder::metric(std::uint32_t loc, Timestamp t, std::uint32_t metric_class,
                          std::uint64_t raw) {
  EventRecord r{t, EventKind::Metric};
  r.region = metric_class;
  r.aux = raw;
  append(loc, r);
}

void TraceBuilder::generic(std::uint32_t loc, Timestamp t, std::uint32_t otf2_record_type) {
  append(loc, with_aux(t, EventKind::Generic, otf2_record_type));
}

namespace {

// Reorder one column by `order` (new position i takes old event order[i]). Only one temporary
// column is alive at a time, so the peak stays one column above the trace.
template <typename T> void permute(Column<T> &column, const std::vector<EventIndex> &order) {
  Column<T> sorted;
  sorted.resize_for_overwrite(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    sorted[i] = column[static_cast<std::size_t>(order[i])];
  }
  column = std::move(sorted);
}

template <typename F> void for_each_column(EventColumns &e, F f) {
  f(e.time);
  f(e.kind);
  f(e.location);
  f(e.region);
  f(e.peer);
  f(e.tag);
  f(e.comm);
  f(e.bytes);
  f(e.aux);
  f(e.callsite);
}

// Put events [begin, end) of one location in stable time order, if they are not.
void order_location(EventColumns &e, std::size_t begin, std::size_t end) {
  if (std::is_sorted(e.time.begin() + static_cast<std::ptrdiff_t>(begin),
                     e.time.begin() + static_cast<std::ptrdiff_t>(end))) {
    return;
  }
  std::vector<std::size_t> order(end - begin);
  std::iota(order.begin(), order.end(), begin);
  std::stable_sort(order.begin(), order.end(),
                   [&e](std::size_t a, std::size_t b) { return e.time[a] < e.time[b]; });
  for_each_column(e, [&](auto &column) {
    using T = typename std::decay_t<decltype(column)>::value_type;
    std::vector<T> sorted;
    sorted.reserve(order.size());
    for (const auto i : order) {
      sorted.push_back(column[i]);
    }
    std::copy(sorted.begin(), sorted.end(), column.begin() + static_cast<std::ptrdiff_t>(begin));
  });
}

} // namespace

void TraceBuilder::presize(const std::vector<std::uint64_t> &events_per_location,
                           bool background_prefault) {
  if (events_per_location.size() != trace_.locations.size()) {
    throw Error(ErrorKind::Usage, "presize: " + std::to_string(events_per_location.size()) +
                                      " counts for " + std::to_string(trace_.locations.size()) +
                                      " locations");
  }
  if (size() != 0 || presized_) {
    throw Error(ErrorKind::Usage, "presize: call it once, before any event is appended");
  }
  auto &offsets = trace_.location_offsets;
  offsets.assign(events_per_location.size() + 1, 0);
  for (std::size_t l = 0; l < events_per_location.size(); ++l) {
    offsets[l + 1] = offsets[l] + events_per_location[l];
  }
  const auto total = offsets.back();
  if (total > static_cast<std::uint64_t>(std::numeric_limits<EventIndex>::max())) {
    throw Error(ErrorKind::Trace, "the trace announces " + std::to_string(total) +
                                      " events; parjava holds at most 2^31 - 1 per trace");
  }
  reserve_columns(total);
  if (background_prefault) {
    start_populate(total);
  }
  for_each_column(trace_.events, [total](auto &column) { column.resize_for_overwrite(total); });
  presized_ = true;
  slice_written_.assign(events_per_location.size(), 0);
  slice_generic_.assign(events_per_location.size(), 0);
  run_ = std::make_unique<detail::MatchingRun>(trace_);
}

LocationSlice TraceBuilder::slice(std::uint32_t location) {
  if (!presized_ || location >= trace_.locations.size()) {
    throw Error(ErrorKind::Usage, "slice: presize() the builder first and name an existing "
                                  "location");
  }
  auto &e = trace_.events;
  LocationSlice s;
  s.begin_ = s.next_ = trace_.location_offsets[location];
  s.end_ = trace_.location_offsets[location + 1];
  s.location_index_ = location;
  s.time_ = e.time.data();
  s.kind_ = e.kind.data();
  s.location_ = e.location.data();
  s.region_ = e.region.data();
  s.peer_ = e.peer.data();
  s.tag_ = e.tag.data();
  s.comm_ = e.comm.data();
  s.bytes_ = e.bytes.data();
  s.aux_ = e.aux.data();
  s.callsite_ = e.callsite.data();
  s.match_ = e.match.data();
  s.link_ = e.link.data();
  return s;
}

void TraceBuilder::slice_filled(const LocationSlice &filled) {
  const auto &e = trace_.events;
  const auto first = e.time.begin() + static_cast<std::ptrdiff_t>(filled.begin_);
  const auto last = e.time.begin() + static_cast<std::ptrdiff_t>(filled.next_);
  const auto generic = static_cast<std::uint64_t>(
      std::count(e.kind.begin() + static_cast<std::ptrdiff_t>(filled.begin_),
                 e.kind.begin() + static_cast<std::ptrdiff_t>(filled.next_), EventKind::Generic));
  slice_filled(filled, std::is_sorted(first, last), generic);
}

void TraceBuilder::slice_filled(const LocationSlice &filled, bool in_time_order,
                                std::uint64_t generic) {
  const auto l = filled.location_index_;
  slice_written_.at(l) = filled.written();
  if (run_ && filled.written() == filled.capacity()) {
    if (!in_time_order) {
      order_location(trace_.events, filled.begin_, filled.end_);
    }
    slice_generic_[l] = generic;
    thread_local detail::LocationScratch scratch;
    run_->location(l, scratch);
  }
}

Trace TraceBuilder::finish(unsigned threads) {
  wait_for_populate();
  auto &e = trace_.events;
  const std::size_t locations = trace_.locations.size();
  auto &offsets = trace_.location_offsets;
  if (presized_) {
    bool complete = run_ != nullptr;
    for (std::size_t l = 0; l < locations && complete; ++l) {
      complete = slice_written_[l] == offsets[l + 1] - offsets[l];
    }
    if (complete) {
      // Every slice was ordered and matched when it was filled (slice_filled).
      trace_.metadata.unknown_events =
          std::accumulate(slice_generic_.begin(), slice_generic_.end(), std::uint64_t{0});
      run_->complete(std::max(1U, threads));
      run_.reset();
      return take_trace();
    }
    run_.reset();
    // Slices with fewer events than announced: close the gaps, location by location.
    std::uint64_t to = 0;
    for (std::size_t l = 0; l < locations; ++l) {
      const auto from = offsets[l];
      const auto n = slice_written_[l];
      if (from != to && n != 0) {
        for_each_column(e, [&](auto &column) {
          std::copy(column.begin() + static_cast<std::ptrdiff_t>(from),
                    column.begin() + static_cast<std::ptrdiff_t>(from + n),
                    column.begin() + static_cast<std::ptrdiff_t>(to));
        });
      }
      offsets[l] = to;
      to += n;
    }
    offsets[locations] = to;
    for_each_column(e, [to](auto &column) { column.resize_for_overwrite(to); });
  } else {
    const std::size_t n = e.time.size();
    if (n > static_cast<std::size_t>(std::numeric_limits<EventIndex>::max())) {
      throw Error(ErrorKind::Trace, "the trace has " + std::to_string(n) +
                                        " events; parjava holds at most 2^31 - 1 per trace: "
                                        "filter the trace or trace fewer functions");
    }
    offsets.assign(locations + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
      ++offsets[e.location[i] + 1];
    }
    std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
    if (!location_column_sorted_) {
      // Stable counting sort by location keeps append order within a location.
      std::vector<EventIndex> order(n);
      std::vector<std::uint64_t> next(offsets.begin(), offsets.end() - 1);
      for (std::size_t i = 0; i < n; ++i) {
        order[next[e.location[i]]++] = static_cast<EventIndex>(i);
      }
      for_each_column(e, [&order](auto &column) { permute(column, order); });
    }
  }
  for_each_column(e, [](auto &column) { column.shrink_to_fit(); });

  // Per location, in parallel: time order, then the per-location matching pass.
  threads = std::max(1U, threads);
  detail::MatchingRun run(trace_);
  std::vector<detail::LocationScratch> scratch(threads);
  std::vector<std::uint64_t> generic(threads, 0);
  detail::parallel_for(locations, threads, [&](std::size_t l, unsigned worker) {
    const auto begin = static_cast<std::size_t>(offsets[l]);
    const auto end = static_cast<std::size_t>(offsets[l + 1]);
    order_location(e, begin, end);
    generic[worker] += static_cast<std::uint64_t>(
        std::count(e.kind.begin() + static_cast<std::ptrdiff_t>(begin),
                   e.kind.begin() + static_cast<std::ptrdiff_t>(end), EventKind::Generic));
    run.location(static_cast<std::uint32_t>(l), scratch[worker]);
  });
  trace_.metadata.unknown_events =
      std::accumulate(generic.begin(), generic.end(), std::uint64_t{0});
  run.complete(threads);
  return take_trace();
}

Trace TraceBuilder::take_trace() {
  Trace result = std::move(trace_);
  trace_ = Trace{};
  region_by_name_.clear();
  group_by_rank_.clear();
  world_ = kNoRef;
  location_column_sorted_ = true;
  presized_ = false;
  slice_written_.clear();
  slice_generic_.clear();
  return result;
}

} // namespace parjava::trace
