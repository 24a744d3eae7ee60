#include "parjava/netbench/thread_benchmarks.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <semaphore>
#include <thread>
#include <vector>

#include <sched.h>
#include <unistd.h>

namespace parjava::netbench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

// Written after each timed loop so the optimiser cannot delete a loop whose result is unused.
volatile long observed = 0;
void keep(long value) { observed = observed + value; }

double thread_create(int count) {
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(count));
  const auto start = Clock::now();
  for (int i = 0; i < count; ++i) {
    threads.emplace_back([] {});
  }
  const double elapsed = seconds_since(start);
  for (std::thread &thread : threads) {
    thread.join();
  }
  return elapsed / count;
}

// A pool of one worker waiting on a condition variable, as a task pool's idle thread does
// (pr_SetTask, notes 000 §3.6): the cost is from posting the task to the task running.
double thread_start(int handoffs) {
  std::mutex mutex;
  std::condition_variable wake;
  std::condition_variable finished;
  bool posted = false;
  bool stop = false;
  Clock::time_point posted_at;
  double total = 0.0;
  int completed = 0;
  std::thread worker([&] {
    std::unique_lock lock(mutex);
    while (true) {
      wake.wait(lock, [&] { return posted || stop; });
      if (stop) {
        return;
      }
      total += seconds_since(posted_at);
      posted = false;
      ++completed;
      finished.notify_one();
    }
  });
  for (int i = 0; i < handoffs; ++i) {
    std::unique_lock lock(mutex);
    posted_at = Clock::now();
    posted = true;
    wake.notify_one();
    finished.wait(lock, [&] { return !posted; });
  }
  {
    const std::lock_guard lock(mutex);
    stop = true;
  }
  wake.notify_one();
  worker.join();
  return total / completed;
}

// An OpenMP region's fork and join per team thread. With the OpenMP runtime, its own regions;
// without, a team of one spinning worker, as an OpenMP team's threads wait between regions
// (libgomp spins GOMP_SPINCOUNT times before it sleeps): the main thread publishes a region,
// the worker runs it, and the main thread waits at the join (a lower bound: 86 ns against
// libgomp's 0.37 us on the development VM).
double team_start(int regions) {
  // mpirun binds a rank to one core: its team would share it. The node's cores are measured, as
  // a program run with its ranks bound to several cores each (`--map-by ...:PE=n`) has them.
  cpu_set_t bound;
  const bool rebound = sched_getaffinity(0, sizeof(bound), &bound) == 0;
  if (rebound) {
    cpu_set_t all;
    CPU_ZERO(&all);
    const long cpus = std::min<long>(sysconf(_SC_NPROCESSORS_ONLN), CPU_SETSIZE);
    for (long c = 0; c < cpus; ++c) {
      CPU_SET(static_cast<int>(c), &all);
    }
    (void)sched_setaffinity(0, sizeof(all), &all);
  }
#ifdef _OPENMP
  // The runtime's own regions, of one thread: libgomp sizes its spinning by the cores of the
  // mask it started with, so a team of two in a rank mpirun bound to one core sleeps between
  // regions (3.25 us a thread here), which a rank bound to several cores does not. A region of
  // one costs what a thread of a larger team adds (0.39 us; 0.70-0.79 us at two threads).
  constexpr int team = 1;
  long ran = 0;
#pragma omp parallel num_threads(team) reduction(+ : ran)
  ran += 1; // the team's threads are created here, before the timing
  const auto began = Clock::now();
  for (int i = 0; i < regions; ++i) {
#pragma omp parallel num_threads(team) reduction(+ : ran)
    ran += 1;
  }
  const double took = seconds_since(began);
  keep(ran);
  if (rebound) {
    (void)sched_setaffinity(0, sizeof(bound), &bound);
  }
  return took / regions / team;
#else
  std::atomic<int> posted{0};
  std::atomic<int> joined{0};
  // Spinning, then yielding: on a node with fewer free cores than the two threads, a pure spin
  // would wait out a time slice per region.
  const auto wait_until = [](const std::atomic<int> &value, int target) {
    for (int spins = 0; value.load(std::memory_order_acquire) != target; ++spins) {
      if (spins > 4096) {
        std::this_thread::yield();
      }
    }
  };
  std::thread worker([&] {
    for (int i = 1; i <= regions; ++i) {
      wait_until(posted, i);
      joined.store(i, std::memory_order_release);
    }
  });
  const auto start = Clock::now();
  for (int i = 1; i <= regions; ++i) {
    posted.store(i, std::memory_order_release);
    wait_until(joined, i);
  }
  const double elapsed = seconds_since(start);
  worker.join();
  if (rebound) {
    (void)sched_setaffinity(0, sizeof(bound), &bound);
  }
  return elapsed / regions;
#endif
}

struct LockTimes {
  double lock = 0.0;
  double try_lock = 0.0;
  double release = 0.0;
};

LockTimes lock_costs(int operations) {
  // One mutex per operation, so `operations` locks can be timed back to back and the unlocks
  // timed separately.
  std::vector<std::mutex> mutexes(static_cast<std::size_t>(operations));
  LockTimes times;
  auto start = Clock::now();
  for (std::mutex &m : mutexes) {
    m.lock();
  }
  times.lock = seconds_since(start) / operations;
  start = Clock::now();
  for (std::mutex &m : mutexes) {
    m.unlock();
  }
  times.release = seconds_since(start) / operations;
  start = Clock::now();
  bool all = true;
  for (std::mutex &m : mutexes) {
    all = m.try_lock() && all;
  }
  times.try_lock = seconds_since(start) / operations;
  keep(all ? 1 : 0);
  for (std::mutex &m : mutexes) {
    m.unlock();
  }
  return times;
}

double atomic_create(int operations) {
  std::vector<std::unique_ptr<std::atomic<long>>> atomics;
  atomics.reserve(static_cast<std::size_t>(operations));
  const auto start = Clock::now();
  for (int i = 0; i < operations; ++i) {
    atomics.push_back(std::make_unique<std::atomic<long>>(i));
  }
  const double elapsed = seconds_since(start);
  keep(static_cast<long>(atomics.size()));
  return elapsed / operations;
}

double atomic_cas(int operations) {
  std::atomic<long> value{0};
  const auto start = Clock::now();
  for (long i = 0; i < operations; ++i) {
    long expected = i;
    value.compare_exchange_strong(expected, i + 1);
  }
  const double elapsed = seconds_since(start);
  keep(value.load());
  return elapsed / operations;
}

double semaphore_create(int operations) {
  std::vector<std::unique_ptr<std::counting_semaphore<>>> semaphores;
  semaphores.reserve(static_cast<std::size_t>(operations));
  const auto start = Clock::now();
  for (int i = 0; i < operations; ++i) {
    semaphores.push_back(std::make_unique<std::counting_semaphore<>>(1));
  }
  const double elapsed = seconds_since(start);
  keep(static_cast<long>(semaphores.size()));
  return elapsed / operations;
}

double copy_per_byte(std::size_t bytes) {
  // Both buffers are touched first so page faults are not timed.
  std::vector<unsigned char> source(bytes, 1);
  std::vector<unsigned char> target(bytes, 0);
  std::memcpy(target.data(), source.data(), bytes);
  const auto start = Clock::now();
  std::memcpy(target.data(), source.data(), bytes);
  const double elapsed = seconds_since(start);
  keep(target[bytes / 2]);
  return elapsed / static_cast<double>(bytes);
}

} // namespace

machine::ThreadCosts measure_thread_costs(const ThreadBenchmarkOptions &options) {
  std::vector<double> create;
  std::vector<double> start;
  std::vector<double> lock;
  std::vector<double> try_lock;
  std::vector<double> release;
  std::vector<double> a_create;
  std::vector<double> cas;
  std::vector<double> s_create;
  std::vector<double> copy;
  std::vector<double> team;
  for (int run = 0; run < std::max(options.repetitions, 1); ++run) {
    create.push_back(thread_create(options.threads_to_create));
    start.push_back(thread_start(options.handoffs));
    const LockTimes times = lock_costs(options.operations);
    lock.push_back(times.lock);
    try_lock.push_back(times.try_lock);
    release.push_back(times.release);
    a_create.push_back(atomic_create(options.operations));
    cas.push_back(atomic_cas(options.operations));
    s_create.push_back(semaphore_create(options.operations));
    copy.push_back(copy_per_byte(options.copy_bytes));
    team.push_back(team_start(options.operations));
  }
  machine::ThreadCosts costs;
  costs.create = median(create);
  costs.start = median(start);
  costs.lock = median(lock);
  costs.try_lock = median(try_lock);
  costs.release = median(release);
  costs.atomic_create = median(a_create);
  costs.atomic_cas = median(cas);
  costs.semaphore_create = median(s_create);
  costs.copy_per_byte = median(copy);
  costs.team_start = median(team);
  return costs;
}

} // namespace parjava::netbench
