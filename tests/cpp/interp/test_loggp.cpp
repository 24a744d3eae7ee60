// Point-to-point timing under LogGP equals LogGOPSim's: the worked examples of
// anchors/loggopsim-semantics.md §6 (defaults L=2500 o=1500 g=1000 G=6 O=0 S=65535 ns),
// written as MPI models. Times in ns.
#include <gtest/gtest.h>

#include "helpers.hpp"

using namespace parjava::interp;
using namespace parjava::interp::testing;

namespace {
double ns(double seconds) { return seconds * 1e9; }
constexpr double exact = 1e-6; // ns
} // namespace

TEST(LogGOPSim, Ex1EagerMessage) {
  const auto m = per_rank(
      "{}", {{op("MPI_Send", R"J("dest": 1, "bytes": 8)J")}, {op("MPI_Recv", R"J("source": 0)J")}});
  const auto p = run(m, loggp(), 2);
  EXPECT_NEAR(ns(p.end_times[0]), 1500, exact);
  EXPECT_NEAR(ns(p.end_times[1]), 5542, exact);
  // -O 1 -S 0: rendezvous; the sender's CPU rises to the match at 4000.
  const auto r = run(m, loggp(2500e-9, 1500e-9, 1000e-9, 6e-9, 1e-9, 0), 2);
  EXPECT_NEAR(ns(r.end_times[0]), 4000, exact);
  EXPECT_NEAR(ns(r.end_times[1]), 5542, exact);
}

TEST(LogGOPSim, Ex2RendezvousReleasesTheSenderAtTheMatch) {
  const auto big =
      per_rank("{}", {{op("MPI_Send", R"J("dest": 1, "bytes": 100000)J"), compute(100e-9)},
                      {op("MPI_Recv", R"J("source": 0)J")}});
  auto p = run(big, loggp(), 2);
  EXPECT_NEAR(ns(p.end_times[1]), 605494, exact);
  EXPECT_NEAR(ns(p.end_times[0]), 4100, exact);
  const auto eager =
      per_rank("{}", {{op("MPI_Send", R"J("dest": 1, "bytes": 65535)J"), compute(100e-9)},
                      {op("MPI_Recv", R"J("source": 0)J")}});
  p = run(eager, loggp(), 2);
  EXPECT_NEAR(ns(p.end_times[0]), 1600, exact);
  EXPECT_NEAR(ns(p.end_times[1]), 398704, exact);
}

TEST(LogGOPSim, Ex3UnexpectedMessageIsChargedWhenTheCpuFrees) {
  const auto m = per_rank("{}", {{op("MPI_Send", R"J("dest": 1, "bytes": 8)J")},
                                 {compute(10000e-9), op("MPI_Recv", R"J("source": 0)J")}});
  const auto p = run(m, loggp(), 2);
  EXPECT_NEAR(ns(p.end_times[1]), 11542, exact);
  EXPECT_NEAR(ns(p.end_times[0]), 1500, exact);
}

TEST(LogGOPSim, Ex4GapBetweenSends) {
  const auto m = per_rank("{}", {{op("MPI_Send", R"J("dest": 1, "bytes": 8)J"),
                                  op("MPI_Send", R"J("dest": 2, "bytes": 8)J")},
                                 {op("MPI_Recv", R"J("source": 0)J")},
                                 {op("MPI_Recv", R"J("source": 0)J")}});
  auto p = run(m, loggp(), 3);
  EXPECT_NEAR(ns(p.end_times[0]), 3000, exact);
  EXPECT_NEAR(ns(p.end_times[1]), 5542, exact);
  EXPECT_NEAR(ns(p.end_times[2]), 7042, exact);
  p = run(m, loggp(2500e-9, 1500e-9, 2000e-9), 3);
  EXPECT_NEAR(ns(p.end_times[0]), 3542, exact);
  EXPECT_NEAR(ns(p.end_times[2]), 7584, exact);
}

TEST(LogGOPSim, Ex5TagsWildcardsAndFifo) {
  const auto m = per_rank(
      "{}", {{op("MPI_Isend", R"J("dest": 1, "bytes": 60000, "tag": 5, "request": "s")J"),
              op("MPI_Isend", R"J("dest": 1, "bytes": 8, "tag": 6, "request": "s", "index": 1)J"),
              op("MPI_Waitall", R"J("request": "s")J")},
             {op("MPI_Irecv", R"J("source": "ANY_SOURCE", "tag": 6, "request": "r")J"),
              op("MPI_Irecv", R"J("source": 0, "tag": "ANY_TAG", "request": "r", "index": 1)J"),
              op("MPI_Waitall", R"J("request": "r")J")}});
  const auto p = run(m, loggp(), 2);
  EXPECT_NEAR(ns(p.end_times[0]), 362494, exact);
  EXPECT_NEAR(ns(p.end_times[1]), 367036, exact);
}

TEST(LogGOPSim, Ex8RendezvousWithAnUnexpectedMessage) {
  const auto m =
      per_rank("{}", {{op("MPI_Send", R"J("dest": 1, "bytes": 100000)J"), compute(10e-9)},
                      {compute(20000e-9), op("MPI_Recv", R"J("source": 0)J")}});
  const auto p = run(m, loggp(), 2);
  EXPECT_NEAR(ns(p.end_times[1]), 621494, exact);
  EXPECT_NEAR(ns(p.end_times[0]), 20010, exact);
}
