// Measuring the thread primitive costs of notes 000 §3.6 with std::thread, std::mutex,
// std::atomic and std::counting_semaphore on the calling node.
#pragma once

#include "parjava/machine/thread_costs.hpp"

namespace parjava::netbench {

struct ThreadBenchmarkOptions {
  int repetitions = 5;                // each cost is the median over this many runs
  int threads_to_create = 16;         // per run, for create
  int handoffs = 200;                 // per run, for start
  int operations = 20000;             // per run, for lock/try_lock/release/atomics
  std::size_t copy_bytes = 32u << 20; // per run, for copy_per_byte (beyond the caches)
};

// What each cost measures (all per operation, uncontended, on an idle node):
//  create           constructing a std::thread (the clone and its bookkeeping), joined later;
//  start            from notifying a waiting pool thread (mutex + condition variable) to the
//                   task starting to run in it;
//  lock / try_lock  std::mutex::lock / try_lock on a free mutex, one mutex per operation so a
//                   loop of locks can be timed without unlocks in between;
//  release          std::mutex::unlock;
//  atomic_create    allocating and initialising a std::atomic<long> on the heap;
//  atomic_cas       an uncontended compare_exchange_strong;
//  semaphore_create allocating and initialising a std::counting_semaphore;
//  copy_per_byte    memcpy of copy_bytes, divided by the bytes copied;
//  team_start       an OpenMP-style region handed to a spinning team thread and joined
//                   (operations rounds trips).
machine::ThreadCosts measure_thread_costs(const ThreadBenchmarkOptions &options);

} // namespace parjava::netbench
