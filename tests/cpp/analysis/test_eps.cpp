// ε for every pattern with a severity (seed 000 §5.4: I_T = 0 when Δ < ε): on one scenario per
// pattern, the largest occurrence is reported at eps = its value and nothing at eps = value + 1.
// (B9/B10 have no ε in the seed and are tested in test_parjava_blocking.cpp.)
#include <functional>
#include <memory>

#include "scenario.hpp"

using namespace scan_test;

namespace {

struct Case {
  const char *pattern;
  int ranks;
  std::function<void(Scenario &)> build;
  ScanOptions base = {};
};

void p2p(Scenario &s, const char *send, Timestamp send_start, Timestamp send_end,
         Timestamp recv_start, Timestamp recv_end, std::uint64_t bytes) {
  s.send(0, send, send_start, send_end, 1, bytes);
  s.recv(1, recv_start, recv_end, 0, bytes);
}

void nonblocking(Scenario &s, const char *isend, std::uint64_t bytes) {
  s.isend(0, isend, 1000, 1100, 1, bytes, 1);
  s.wait(0, "MPI_Wait", 3000, 8000, {{false, 1}});
  s.irecv(1, 2000, 2050, 7);
  s.wait(1, "MPI_Wait", 4000, 8200, {{true, 7, 0, bytes}});
}

void collective(Scenario &s, const char *function, std::int32_t root,
                const std::vector<Timestamp> &begins) {
  for (std::size_t r = 0; r < begins.size(); ++r) {
    s.collective(static_cast<std::uint32_t>(r), function, begins[r],
                 9000 + 10 * static_cast<Timestamp>(r), root, 8, 8);
  }
}

ScanOptions pgas_all() {
  ScanOptions o;
  o.pgas.entry = PgasOptions::Sync::All;
  o.pgas.exit = PgasOptions::Sync::All;
  return o;
}

ScanOptions pgas_mpi() {
  ScanOptions o;
  o.pgas.include_mpi_collectives = true;
  return o;
}

std::vector<Case> cases() {
  constexpr std::uint64_t big = 1 << 20;
  return {
      {"B1", 2, [](Scenario &s) { p2p(s, "MPI_Send", 1000, 6000, 5000, 6100, big); }},
      {"B2", 2, [](Scenario &s) { p2p(s, "MPI_Send", 5000, 6000, 1000, 6100, 8); }},
      {"B3", 2, [](Scenario &s) { p2p(s, "MPI_Bsend", 5000, 5100, 1000, 6100, 8); }},
      {"B5", 2, [](Scenario &s) { p2p(s, "MPI_Ssend", 5000, 6000, 1000, 6100, 8); }},
      {"B6", 2, [](Scenario &s) { p2p(s, "MPI_Ssend", 1000, 6000, 5000, 6100, 8); }},
      {"B7", 2, [](Scenario &s) { p2p(s, "MPI_Rsend", 5000, 6000, 1000, 6100, 8); }},
      {"B8", 2, [](Scenario &s) { p2p(s, "MPI_Rsend", 1000, 6000, 5000, 6100, big); }},
      {"N1", 2, [](Scenario &s) { nonblocking(s, "MPI_Isend", 8); }},
      {"N2", 2, [](Scenario &s) { nonblocking(s, "MPI_Isend", 8); }},
      {"N4", 2, [](Scenario &s) { nonblocking(s, "MPI_Ibsend", 8); }},
      {"N5", 2, [](Scenario &s) { nonblocking(s, "MPI_Issend", 8); }},
      {"N6", 2, [](Scenario &s) { nonblocking(s, "MPI_Issend", 8); }},
      {"N7", 2, [](Scenario &s) { nonblocking(s, "MPI_Irsend", big); }},
      {"N8", 2, [](Scenario &s) { nonblocking(s, "MPI_Irsend", 8); }},
      {"SR", 2,
       [](Scenario &s) {
         s.send(0, "MPI_Send", 1000, 2000, 1, 8);
         s.recv(0, 2003, 3000, 1, 8);
         s.recv(1, 900, 2100, 0, 8);
         s.send(1, "MPI_Send", 2200, 2900, 0, 8);
       }},
      {"late_sender", 2, [](Scenario &s) { p2p(s, "MPI_Send", 5000, 6000, 1000, 6100, 8); }},
      {"late_receiver", 2, [](Scenario &s) { p2p(s, "MPI_Send", 1000, 6000, 5000, 6100, big); }},
      {"wait_at_barrier", 3,
       [](Scenario &s) {
         collective(s, "MPI_Barrier", -1, {1000, 2000, 5000});
       }},
      {"barrier_completion", 3,
       [](Scenario &s) {
         collective(s, "MPI_Barrier", -1, {1000, 2000, 5000});
       }},
      {"wait_at_nxn", 3,
       [](Scenario &s) {
         collective(s, "MPI_Allreduce", -1, {1000, 2000, 5000});
       }},
      {"nxn_completion", 3,
       [](Scenario &s) {
         collective(s, "MPI_Allreduce", -1, {1000, 2000, 5000});
       }},
      {"late_broadcast", 3,
       [](Scenario &s) {
         collective(s, "MPI_Bcast", 2, {1000, 2000, 5000});
       }},
      {"early_reduce", 3,
       [](Scenario &s) {
         collective(s, "MPI_Reduce", 0, {1000, 2000, 5000});
       }},
      {"early_scan", 3,
       [](Scenario &s) {
         collective(s, "MPI_Scan", -1, {5000, 1000, 2000});
       }},
      {"P2", 3,
       [](Scenario &s) {
         collective(s, "shmem_broadcast64", 0, {1000, 2000, 5000});
       },
       pgas_all()},
      {"P3", 3,
       [](Scenario &s) {
         collective(s, "shmem_broadcast64", 0, {1000, 2000, 5000});
       },
       pgas_all()},
      {"P4", 3,
       [](Scenario &s) {
         collective(s, "shmem_barrier_all", -1, {1000, 2000, 5000});
       }},
      {"P5", 3,
       [](Scenario &s) {
         collective(s, "shmem_barrier_all", -1, {1000, 2000, 5000});
       }},
      {"P6", 3,
       [](Scenario &s) {
         collective(s, "shmem_broadcast64", 2, {1000, 2000, 5000});
       }},
      {"P7", 3,
       [](Scenario &s) {
         collective(s, "MPI_Gather", 2, {1000, 2000, 5000});
       },
       pgas_mpi()},
      {"P8", 3,
       [](Scenario &s) {
         collective(s, "MPI_Scan", -1, {5000, 1000, 2000});
       },
       pgas_mpi()},
      {"P9", 3,
       [](Scenario &s) {
         collective(s, "shmem_fcollect64", -1, {1000, 2000, 5000});
       }},
      {"P10", 3,
       [](Scenario &s) {
         collective(s, "shmem_fcollect64", -1, {1000, 2000, 5000});
       }},
      {"P11", 3,
       [](Scenario &s) {
         collective(s, "shmem_broadcast64", 0, {1000, 2000, 3000});
       }},
      {"P12", 3,
       [](Scenario &s) {
         collective(s, "shmem_malloc", -1, {5000, 1000, 2000});
       }},
  };
}

} // namespace

TEST(Eps, EveryPatternDropsOccurrencesUnderEps) {
  for (const auto &c : cases()) {
    SCOPED_TRACE(c.pattern);
    auto scenario = std::make_unique<Scenario>(c.ranks);
    c.build(*scenario);
    ScanOptions options = c.base;
    options.patterns = select_patterns({c.pattern});
    options.eps = 0;
    const auto all = scenario->scan(options);
    ASSERT_FALSE(all.empty());
    std::int64_t largest = 0;
    for (const auto &f : all) {
      largest = std::max(largest, f.idle < 0 ? -f.idle : f.idle);
    }
    ASSERT_GT(largest, 0);
    options.eps = largest;
    EXPECT_FALSE(scenario->scan(options).empty());
    options.eps = largest + 1;
    EXPECT_TRUE(scenario->scan(options).empty());
  }
}
