// Threads in the model (seed 000 notes §2.7, §3.6): OpenMP parallel loops and their reductions,
// pthread and std::thread create/join loops become task groups; mutexes, semaphores and atomics
// become thread primitives.
#include <gtest/gtest.h>

#include "support.hpp"

namespace parjava::frontend::testing {
namespace {

using model::NodeKind;
using model::Operation;

TEST(Threads, OpenMpParallelForIsAChunkedTaskGroupWithItsReduction) {
  const std::string src = R"(
#include <stdlib.h>
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  double sum = 0.0;
  double *a = malloc(n * sizeof(double));
  #pragma omp parallel for reduction(+:sum)
  for (int i = 0; i < n; i++) {
    a[i] = i * 0.5;
    sum += a[i];
  }
  free(a);
  return sum > 0 ? 0 : 1;
}
)";
  BuildResult r = build(write_source("omp.c", src), {"-fopenmp"});
  const model::Model &m = r.model;
  const auto groups = nodes_of(m, NodeKind::TaskGroup);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_TRUE(groups[0]->tasks.empty()); // nthreads
  const auto loops = nodes_of(m, NodeKind::For);
  ASSERT_EQ(loops.size(), 1u);
  ASSERT_EQ(loops[0]->init.size(), 1u);
  // Static schedule: task t runs [a + t*c, min(b, a + (t+1)*c)) with c = ceil((b - a) / T).
  EXPECT_EQ(loops[0]->init[0].value.text(), "(0) + task * (((n) - (0) + ntasks - 1) / ntasks)");
  EXPECT_EQ(loops[0]->cond.text(),
            "i < min((n), (0) + (task + 1) * (((n) - (0) + ntasks - 1) / ntasks))");
  EXPECT_EQ(operations(m, Operation::AtomicCas).size(), 1u); // the reduction of sum
}

TEST(Threads, PthreadCreateJoinLoopsAreATaskGroupAndMutexesLocks) {
  const std::string src = R"(
#include <pthread.h>
#include <stdlib.h>
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;
static void *worker(void *arg) {
  long id = (long)arg;
  long local = 0;
  for (long i = 0; i < 1000 * (id + 1); i++) {
    local += i;
  }
  pthread_mutex_lock(&lock);
  total += local;
  pthread_mutex_unlock(&lock);
  return NULL;
}
int main(int argc, char **argv) {
  int nthreads = argc > 1 ? atoi(argv[1]) : 4;
  pthread_t threads[64];
  for (int t = 0; t < nthreads; t++) {
    pthread_create(&threads[t], NULL, worker, (void *)(long)t);
  }
  for (int t = 0; t < nthreads; t++) {
    pthread_join(threads[t], NULL);
  }
  return total > 0 ? 0 : 1;
}
)";
  BuildResult r = build(write_source("pthreads.c", src), {"-pthread"});
  const model::Model &m = r.model;
  const auto groups = nodes_of(m, NodeKind::TaskGroup);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0]->tasks.text(), "max(0, (nthreads_) - (0))");
  const auto calls = nodes_of(m, NodeKind::UserCall);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->callee, "worker");
  ASSERT_EQ(calls[0]->args.size(), 1u);
  EXPECT_EQ(calls[0]->args[0].text(), "task");
  // The worker's loop bound follows the task number it was given.
  const auto loops = nodes_of(m, NodeKind::For);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0]->cond.text(), "(i < (1000 * (id + 1)))");
  ASSERT_EQ(operations(m, Operation::Lock).size(), 1u);
  ASSERT_EQ(operations(m, Operation::Unlock).size(), 1u);
  EXPECT_EQ(arg(*operations(m, Operation::Lock)[0], "lock"), "lock");
}

TEST(Threads, StdThreadLambdasMutexGuardsAndAtomics) {
  const std::string src = R"(
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>
int main() {
  const int n = 4;
  std::atomic<long> hits{0};
  std::mutex m;
  long shared = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100 * (t + 1); ++i) {
        hits.fetch_add(1);
      }
      std::lock_guard<std::mutex> guard(m);
      shared += t;
    });
  }
  for (auto &th : threads) {
    th.join();
  }
  return hits.load() > 0 && shared > 0 ? 0 : 1;
}
)";
  BuildResult r = build(write_source("stdthread.cpp", src), {"-std=c++17", "-pthread"});
  const model::Model &m = r.model;
  const auto groups = nodes_of(m, NodeKind::TaskGroup);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0]->tasks.text(), "max(0, (4) - (0))");
  const auto loops = nodes_of(m, NodeKind::For);
  ASSERT_GE(loops.size(), 1u);
  bool task_bound = false;
  for (const auto *l : loops) {
    task_bound = task_bound || l->cond.text() == "(i < (100 * (task + 1)))";
  }
  EXPECT_TRUE(task_bound);
  EXPECT_EQ(operations(m, Operation::AtomicCas).size(), 1u);
  ASSERT_EQ(operations(m, Operation::Lock).size(), 1u);
  ASSERT_EQ(operations(m, Operation::Unlock).size(), 1u);
  EXPECT_EQ(arg(*operations(m, Operation::Lock)[0], "lock"), "m");
}

} // namespace
} // namespace parjava::frontend::testing
