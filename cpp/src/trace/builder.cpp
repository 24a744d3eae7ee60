// TraceBuilder: definitions, event appends straight into the columns, and finish() (group by
// location, stable time order, index, match).
#include "parjava/trace/builder.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>

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

TraceBuilder::~TraceBuilder() { wait_for_populate(); }

void TraceBuilder::wait_for_populate() {
  if (populate_.joinable()) {
    populate_.join();
  }
}

void TraceBuilder::reserve(std::size_t events) {
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

} // namespace

Trace TraceBuilder::finish() {
  wait_for_populate();
  auto &e = trace_.events;
  const std::size_t n = e.time.size();
  if (n > static_cast<std::size_t>(std::numeric_limits<EventIndex>::max())) {
    throw Error(ErrorKind::Trace, "the trace has " + std::to_string(n) +
                                      " events; parjava holds at most 2^31 - 1 per trace: "
                                      "filter the trace or trace fewer functions");
  }
  const std::size_t locations = trace_.locations.size();

  // Events per location -> offsets.
  auto &offsets = trace_.location_offsets;
  offsets.assign(locations + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    ++offsets[e.location[i] + 1];
  }
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());

  // Is each location's run already in time order (the usual case)?
  std::vector<EventIndex> order;
  if (!location_column_sorted_) {
    // Stable counting sort by location keeps append order within a location.
    order.resize(n);
    std::vector<std::uint64_t> next(offsets.begin(), offsets.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
      order[next[e.location[i]]++] = static_cast<EventIndex>(i);
    }
  }
  auto time_of = [&](std::size_t pos) {
    return order.empty() ? e.time[pos] : e.time[static_cast<std::size_t>(order[pos])];
  };
  for (std::size_t l = 0; l < locations; ++l) {
    bool sorted = true;
    for (auto pos = offsets[l] + 1; pos < offsets[l + 1]; ++pos) {
      if (time_of(pos) < time_of(pos - 1)) {
        sorted = false;
        break;
      }
    }
    if (!sorted) {
      if (order.empty()) {
        order.resize(n);
        std::iota(order.begin(), order.end(), 0);
      }
      std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(offsets[l]),
                       order.begin() + static_cast<std::ptrdiff_t>(offsets[l + 1]),
                       [&](EventIndex a, EventIndex b) {
                         return e.time[static_cast<std::size_t>(a)] <
                                e.time[static_cast<std::size_t>(b)];
                       });
    }
  }
  if (!order.empty()) {
    permute(e.time, order);
    permute(e.kind, order);
    permute(e.location, order);
    permute(e.region, order);
    permute(e.peer, order);
    permute(e.tag, order);
    permute(e.comm, order);
    permute(e.bytes, order);
    permute(e.aux, order);
    permute(e.callsite, order);
    order = {};
  }
  for (auto *column : {&e.location, &e.region, &e.comm, &e.callsite}) {
    column->shrink_to_fit();
  }
  e.time.shrink_to_fit();
  e.kind.shrink_to_fit();
  e.peer.shrink_to_fit();
  e.tag.shrink_to_fit();
  e.bytes.shrink_to_fit();
  e.aux.shrink_to_fit();

  trace_.metadata.unknown_events =
      static_cast<std::uint64_t>(std::count(e.kind.begin(), e.kind.end(), EventKind::Generic));
  match(trace_);

  Trace result = std::move(trace_);
  trace_ = Trace{};
  region_by_name_.clear();
  group_by_rank_.clear();
  world_ = kNoRef;
  location_column_sorted_ = true;
  return result;
}

} // namespace parjava::trace
