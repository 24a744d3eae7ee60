// Hand-built traces for the interval-analysis tests: a thin layer over TraceBuilder that writes
// MPI calls the way the tracer and Score-P record them (Enter, message or collective events
// inside, Leave), and the identities every interval tree must satisfy (issue 5).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "parjava/analysis/intervals/analyze_intervals.hpp"
#include "parjava/trace/builder.hpp"

namespace parjava::analysis::testing {

using trace::Timestamp;

// Microseconds to nanoseconds (the tests write times in µs, the trace holds ns).
constexpr Timestamp us(double micros) { return static_cast<Timestamp>(micros * 1000.0 + 0.5); }

class Program {
public:
  explicit Program(int ranks) : ranks_(ranks) {
    first_ = builder.add_ranks(ranks);
    world_ = builder.world_communicator();
  }

  trace::TraceBuilder builder;

  std::uint32_t loc(int rank) const { return first_ + static_cast<std::uint32_t>(rank); }
  std::uint32_t world() const { return world_; }

  void begin(int rank, Timestamp t) { builder.program_begin(loc(rank), t); }
  void end(int rank, Timestamp t) { builder.program_end(loc(rank), t, 0); }

  // A runtime call with nothing inside (MPI_Init, MPI_Comm_rank, ...).
  void call(int rank, const std::string &function, Timestamp t0, Timestamp t1) {
    const auto r = builder.region(function);
    builder.enter(loc(rank), t0, r);
    builder.leave(loc(rank), t1, r);
  }
  // Blocking send: the message event right after the Enter (as Score-P writes MPI_SEND).
  void send(int rank, int dest, int tag, Timestamp t0, Timestamp t1,
            const std::string &function = "MPI_Send") {
    const auto r = builder.region(function);
    builder.enter(loc(rank), t0, r);
    builder.send(loc(rank), t0, dest, tag, world_, 8);
    builder.leave(loc(rank), t1, r);
  }
  // Blocking receive: the message event at the end of the call (MPI_RECV before the Leave).
  void recv(int rank, int source, int tag, Timestamp t0, Timestamp t1) {
    const auto r = builder.region("MPI_Recv");
    builder.enter(loc(rank), t0, r);
    builder.recv(loc(rank), t1, source, tag, world_, 8);
    builder.leave(loc(rank), t1, r);
  }
  void isend(int rank, int dest, int tag, std::uint64_t request, Timestamp t0, Timestamp t1) {
    const auto r = builder.region("MPI_Isend");
    builder.enter(loc(rank), t0, r);
    builder.isend(loc(rank), t0, dest, tag, world_, 8, request);
    builder.leave(loc(rank), t1, r);
  }
  void irecv(int rank, std::uint64_t request, Timestamp t0, Timestamp t1) {
    const auto r = builder.region("MPI_Irecv");
    builder.enter(loc(rank), t0, r);
    builder.irecv_post(loc(rank), t0, request);
    builder.leave(loc(rank), t1, r);
  }
  // MPI_Wait completing one receive request.
  void wait_recv(int rank, int source, int tag, std::uint64_t request, Timestamp t0, Timestamp t1) {
    const auto r = builder.region("MPI_Wait");
    builder.enter(loc(rank), t0, r);
    builder.irecv_complete(loc(rank), t1, source, tag, world_, 8, request);
    builder.leave(loc(rank), t1, r);
  }
  void wait_send(int rank, std::uint64_t request, Timestamp t0, Timestamp t1) {
    const auto r = builder.region("MPI_Wait");
    builder.enter(loc(rank), t0, r);
    builder.isend_complete(loc(rank), t1, request);
    builder.leave(loc(rank), t1, r);
  }
  // A collective over MPI_COMM_WORLD: begin at the Enter, end before the Leave.
  void collective(int rank, const std::string &function, Timestamp t0, Timestamp t1,
                  int root = trace::kNoRank, trace::CollectiveOp op = 0) {
    const auto r = builder.region(function);
    builder.enter(loc(rank), t0, r);
    builder.collective_begin(loc(rank), t0);
    builder.collective_end(loc(rank), t1, op, world_, root, 8, 8);
    builder.leave(loc(rank), t1, r);
  }
  void barrier(int rank, Timestamp t0, Timestamp t1) { collective(rank, "MPI_Barrier", t0, t1); }

  // Interval markers (parjava_interval_begin/end) at file:line.
  void interval_begin(int rank, Timestamp t, std::int64_t id, const std::string &name,
                      const std::string &file = "app.c", std::uint32_t line = 10) {
    const auto r = builder.region(name);
    const auto site = builder.add_callsite(file, line);
    builder.interval_begin(loc(rank), t, r, static_cast<std::uint64_t>(id), site);
  }
  void interval_end(int rank, Timestamp t, std::int64_t id, const std::string &name,
                    const std::string &file = "app.c", std::uint32_t line = 20) {
    const auto r = builder.region(name);
    const auto site = builder.add_callsite(file, line);
    builder.interval_end(loc(rank), t, r, static_cast<std::uint64_t>(id), site);
  }
  // A user-code region (Score-P user or compiler instrumentation).
  void region_enter(int rank, Timestamp t, const std::string &name) {
    builder.enter(loc(rank), t, user_region(name));
  }
  void region_leave(int rank, Timestamp t, const std::string &name) {
    builder.leave(loc(rank), t, user_region(name));
  }

  trace::Trace finish() { return builder.finish(); }
  int ranks() const { return ranks_; }

private:
  std::uint32_t user_region(const std::string &name) {
    for (std::uint32_t r = 0; r < builder.regions().size(); ++r) {
      if (builder.regions()[r].name == name) {
        return r;
      }
    }
    trace::Region region;
    region.name = name;
    region.paradigm = trace::Paradigm::User;
    region.role = trace::RegionRole::Function;
    region.file = "app.c";
    region.line_begin = 100 + static_cast<std::uint32_t>(builder.regions().size());
    return builder.add_region(region);
  }

  int ranks_;
  std::uint32_t first_ = 0;
  std::uint32_t world_ = 0;
};

// Row of a node for a process (by tree process index); fails the test when absent.
inline const CharacteristicRow &row_of(const IntervalNode &node, std::uint32_t process) {
  for (std::size_t s = 0; s < node.processes.size(); ++s) {
    if (node.processes[s] == process) {
      return node.values[s];
    }
  }
  ADD_FAILURE() << "process " << process << " did not execute interval '" << node.name << "'";
  static const CharacteristicRow none{};
  return none;
}

inline std::int64_t value_of(const IntervalNode &node, std::uint32_t process, Characteristic c) {
  return row_of(node, process)[index_of(c)];
}

// The identities of issue 5, exact in integer nanoseconds (efficiency: to rounding).
inline void expect_identities(const IntervalTree &tree) {
  using C = Characteristic;
  for (const auto &node : tree.nodes) {
    SCOPED_TRACE("interval '" + node.name + "' (node " + std::to_string(node.id) + ")");
    const auto &s = node.summary;
    const auto p = static_cast<std::int64_t>(s.processes);
    ASSERT_EQ(s.processes, node.processes.size());
    EXPECT_EQ(s.total_time, s.execution_time * p);
    EXPECT_NEAR(s.efficiency * static_cast<double>(s.total_time),
                static_cast<double>(s.productive_time),
                1e-9 * static_cast<double>(s.total_time) + 1e-9);
    EXPECT_EQ(s.lost_time, s.total_time - s.productive_time);
    EXPECT_EQ(s.lost_time, s.lost_insufficient + s.lost_mpi + s.lost_idle);
    EXPECT_EQ(s[C::Communication].sum,
              s[C::SendRecv].sum + s[C::Collective].sum + s[C::AllToAll].sum);
    EXPECT_EQ(s[C::Idle].sum, p * s.execution_time - s[C::Time].sum);
    for (std::size_t slot = 0; slot < node.values.size(); ++slot) {
      const auto &row = node.values[slot];
      auto v = [&](C c) { return row[index_of(c)]; };
      EXPECT_EQ(v(C::Time), v(C::Cpu) + v(C::Mpi));
      EXPECT_EQ(v(C::Mpi), v(C::PointToPoint) + v(C::Collective) + v(C::AllToAll) + v(C::OtherMpi));
      EXPECT_EQ(v(C::Mpi), v(C::CategoryCollective) + v(C::CategoryBlockingSend) +
                               v(C::CategoryNonblockingSend) + v(C::CategoryBlockingReceiveWait) +
                               v(C::CategoryNonblockingReceiveTest) + v(C::CategoryOther));
      EXPECT_EQ(v(C::Communication), v(C::SendRecv) + v(C::Collective) + v(C::AllToAll));
      EXPECT_GE(v(C::Idle), 0);
      EXPECT_GE(v(C::RealSync), 0);
      EXPECT_LE(v(C::RealSync), v(C::Mpi));
      EXPECT_LE(v(C::Overlap), v(C::Cpu));
      EXPECT_LE(v(C::TimeOfStart), v(C::Mpi));
    }
    // Children's values plus the node's own part give the node's values, per process and per
    // additive characteristic.
    std::vector<CharacteristicRow> sum = node.exclusive;
    for (const auto c : node.children) {
      const auto &child = tree.nodes[c];
      EXPECT_EQ(child.level, node.level + 1);
      for (std::size_t q = 0; q < child.processes.size(); ++q) {
        std::size_t slot = 0;
        while (slot < node.processes.size() && node.processes[slot] != child.processes[q]) {
          ++slot;
        }
        ASSERT_LT(slot, node.processes.size()) << "child on a process its parent never ran on";
        for (std::size_t k = 0; k < kAdditiveCount; ++k) {
          sum[slot][k] += child.values[q][k];
        }
      }
    }
    for (std::size_t slot = 0; slot < node.values.size(); ++slot) {
      for (std::size_t k = 0; k < kAdditiveCount; ++k) {
        EXPECT_EQ(sum[slot][k], node.values[slot][k])
            << characteristic_name(static_cast<C>(k)) << " on process " << node.processes[slot];
      }
      EXPECT_GE(node.exclusive[slot][index_of(C::Time)], 0);
    }
  }
}

} // namespace parjava::analysis::testing
