// The thread primitive benchmarks run and give costs in plausible ranges on any machine.
#include <gtest/gtest.h>

#include "parjava/netbench/thread_benchmarks.hpp"

using namespace parjava::netbench;

TEST(ThreadBenchmarks, GivePlausibleCosts) {
  const auto costs = measure_thread_costs({1, 4, 20, 2000, 1u << 20});
  costs.validate();
  // Loose bounds that hold from a laptop to a loaded 2-core VM: they catch unit mistakes
  // (ms for s, per-run for per-operation) and loops the optimiser removed.
  EXPECT_GT(costs.create, 1e-7);
  EXPECT_LT(costs.create, 1e-2);
  EXPECT_GT(costs.start, 1e-8);
  EXPECT_LT(costs.start, 1e-2);
  for (double cost : {costs.lock, costs.try_lock, costs.release, costs.atomic_cas}) {
    EXPECT_GT(cost, 1e-11);
    EXPECT_LT(cost, 1e-5);
  }
  EXPECT_GT(costs.atomic_create, 1e-10);
  EXPECT_GT(costs.semaphore_create, 1e-10);
  EXPECT_GT(costs.copy_per_byte, 1e-12); // slower than 1 TB/s
  EXPECT_LT(costs.copy_per_byte, 1e-8);  // faster than 100 MB/s
  // Creating a thread takes a system call; an uncontended lock does not.
  EXPECT_GT(costs.create, 10 * costs.lock);
}
