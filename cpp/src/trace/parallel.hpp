// parallel_for: run work(i, worker) for i in [0, n) on up to `threads` threads (the caller's
// included), handing out indices one at a time so uneven items balance. The first exception
// thrown by any worker is rethrown in the caller once all have stopped.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace parjava::trace::detail {

template <typename Work> void parallel_for(std::size_t n, unsigned threads, Work work) {
  const auto workers = static_cast<unsigned>(
      std::max<std::size_t>(1, std::min<std::size_t>(threads == 0 ? 1 : threads, n)));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto run = [&](unsigned worker) {
    try {
      for (auto i = next.fetch_add(1); i < n && !failed.load(); i = next.fetch_add(1)) {
        work(i, worker);
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) {
        error = std::current_exception();
      }
      failed = true;
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(workers - 1);
  for (unsigned w = 1; w < workers; ++w) {
    helpers.emplace_back(run, w);
  }
  run(0);
  for (auto &h : helpers) {
    h.join();
  }
  if (error) {
    std::rethrow_exception(error);
  }
}

// Threads to use by default: the machine's, at most 8 (OTF2 reading stops scaling with the
// disk and memory bandwidth), at least 1.
inline unsigned default_threads() {
  return std::clamp(std::thread::hardware_concurrency(), 1U, 8U);
}

} // namespace parjava::trace::detail
