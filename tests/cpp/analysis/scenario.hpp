// Hand-built traces for the scanner tests: whole MPI/SHMEM calls with chosen start and end times
// (in ns) appended through TraceBuilder, then scanned with chosen options.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "parjava/analysis/scanner.hpp"
#include "parjava/error.hpp"
#include "parjava/trace/builder.hpp"

namespace scan_test {

using namespace parjava::analysis;
using parjava::trace::EventIndex;
using parjava::trace::Timestamp;
using parjava::trace::TraceBuilder;

class Scenario {
public:
  explicit Scenario(int ranks) {
    b.add_ranks(ranks);
    world = b.world_communicator();
    site = b.add_callsite("solver.c", 42, "exchange");
  }
  // Ranks placed on hosts: rank r runs on host host_of_rank[r].
  explicit Scenario(const std::vector<int> &host_of_rank) {
    const auto machine = b.add_system_node("machine", "machine");
    std::vector<std::uint32_t> hosts;
    for (std::size_t r = 0; r < host_of_rank.size(); ++r) {
      const auto h = static_cast<std::size_t>(host_of_rank[r]);
      while (hosts.size() <= h) {
        hosts.push_back(b.add_system_node("host" + std::to_string(hosts.size()), "node", machine));
      }
      const auto rank = static_cast<std::int32_t>(r);
      b.add_location(rank, 0, {}, parjava::trace::LocationType::CpuThread,
                     b.add_location_group("MPI Rank " + std::to_string(r), rank, hosts[h]));
    }
    world = b.world_communicator();
    site = b.add_callsite("solver.c", 42, "exchange");
  }

  // A blocking send call ("MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend") from `start` to
  // `end`; the send event is at the start.
  void send(std::uint32_t rank, const char *function, Timestamp start, Timestamp end,
            std::int32_t dest, std::uint64_t bytes, std::int32_t tag = 0) {
    b.enter(rank, start, b.region(function), site);
    b.send(rank, start, dest, tag, world, bytes);
    b.leave(rank, end);
  }
  // MPI_Recv from `start` to `end`; the receive event is at the end (when the data is there).
  void recv(std::uint32_t rank, Timestamp start, Timestamp end, std::int32_t source,
            std::uint64_t bytes, std::int32_t tag = 0) {
    b.enter(rank, start, b.region("MPI_Recv"), site);
    b.recv(rank, end, source, tag, world, bytes);
    b.leave(rank, end);
  }
  void isend(std::uint32_t rank, const char *function, Timestamp start, Timestamp end,
             std::int32_t dest, std::uint64_t bytes, std::uint64_t request, std::int32_t tag = 0) {
    b.enter(rank, start, b.region(function), site);
    b.isend(rank, start, dest, tag, world, bytes, request);
    b.leave(rank, end);
  }
  void irecv(std::uint32_t rank, Timestamp start, Timestamp end, std::uint64_t request) {
    b.enter(rank, start, b.region("MPI_Irecv"), site);
    b.irecv_post(rank, start, request);
    b.leave(rank, end);
  }
  // A completion call; completions are appended in order at its end.
  struct Completion {
    bool receive;
    std::uint64_t request;
    std::int32_t source = 0; // receives: actual source, tag, bytes
    std::uint64_t bytes = 0;
    std::int32_t tag = 0;
  };
  void wait(std::uint32_t rank, const char *function, Timestamp start, Timestamp end,
            const std::vector<Completion> &completions) {
    b.enter(rank, start, b.region(function), site);
    for (const auto &c : completions) {
      if (c.receive) {
        b.irecv_complete(rank, end, c.source, c.tag, world, c.bytes, c.request);
      } else {
        b.isend_complete(rank, end, c.request);
      }
    }
    b.leave(rank, end);
  }
  // A collective call [start, end] with collective begin/end `inset` ns inside it.
  void collective(std::uint32_t rank, const char *function, Timestamp start, Timestamp end,
                  std::int32_t root = -1, std::uint64_t sent = 8, std::uint64_t received = 8,
                  Timestamp inset = 0) {
    b.enter(rank, start, b.region(function), site);
    b.collective_begin(rank, start + inset);
    b.collective_end(rank, end - inset, 0, world, root, sent, received);
    b.leave(rank, end);
  }
  void compute(std::uint32_t rank, Timestamp start, Timestamp end) {
    b.enter(rank, start, b.region("compute"));
    b.leave(rank, end);
  }

  std::vector<Finding> scan(const ScanOptions &options = {}) {
    if (!built) {
      trace = b.finish();
      built = true;
    }
    return parjava::analysis::scan(trace, options);
  }

  // TraceBuilder is neither copyable nor movable; on the heap, a Scenario can be returned.
  std::unique_ptr<TraceBuilder> builder = std::make_unique<TraceBuilder>();
  TraceBuilder &b = *builder;
  std::uint32_t world = 0;
  std::uint32_t site = 0;
  parjava::trace::Trace trace;
  bool built = false;
};

inline ScanOptions only(std::vector<std::string> names, Timestamp eps = 0) {
  ScanOptions o;
  o.patterns = select_patterns(names);
  o.eps = eps;
  return o;
}

inline std::vector<Finding> of(const std::vector<Finding> &all, PatternId id) {
  std::vector<Finding> out;
  for (const auto &f : all) {
    if (f.pattern == id) {
      out.push_back(f);
    }
  }
  return out;
}

} // namespace scan_test
