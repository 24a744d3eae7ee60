// match(): the passes of matching_passes.hpp in order: one pass per location (nesting,
// enclosing regions, requests and message lists of single-threaded processes; in parallel),
// then multi-threaded processes, message pairing and collective instances.
#include "parjava/trace/matching.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <optional>
#include <thread>

#include "clock_dependencies.hpp"
#include "matching_passes.hpp"
#include "parallel.hpp"

namespace parjava::trace {

namespace detail {

Processes group_processes(const Trace &trace) {
  Processes p;
  std::int32_t ranks = 0;
  for (const auto &loc : trace.locations) {
    ranks = std::max(ranks, loc.rank + 1);
  }
  p.locations_of_rank.resize(static_cast<std::size_t>(ranks));
  for (std::uint32_t l = 0; l < trace.locations.size(); ++l) {
    const auto &loc = trace.locations[l];
    if (is_process_location(loc)) {
      p.locations_of_rank[static_cast<std::size_t>(loc.rank)].push_back(l);
    }
  }
  return p;
}

MatchingRun::MatchingRun(Trace &trace)
    : trace_(trace), processes_(group_processes(trace)), lists_(trace.location_count()),
      reports_(trace.location_count()) {
  const auto n = trace.size();
  // Every location's pass clears its own part of these (match_location).
  trace.events.match.resize_for_overwrite(n);
  trace.events.link.resize_for_overwrite(n);
  trace.events.match.shrink_to_fit(); // reserved for the announced event count
  trace.events.link.shrink_to_fit();
  trace.unmatched = MatchReport{};
  trace.collectives.clear();
  trace.collective_members.clear();
  trace.collective_members.shrink_to_fit();
}

void MatchingRun::location(std::uint32_t l, LocationScratch &scratch) {
  const auto &loc = trace_.locations[l];
  const bool whole_process =
      is_process_location(loc) &&
      processes_.locations_of_rank[static_cast<std::size_t>(loc.rank)].size() == 1;
  match_location(trace_, l, whole_process, scratch, lists_[l], reports_[l]);
}

void MatchingRun::complete(unsigned threads) {
  auto &total = trace_.unmatched;
  for (const auto &r : reports_) {
    total.sends += r.sends;
    total.receives += r.receives;
    total.request_posts += r.request_posts;
    total.request_completions += r.request_completions;
    total.collective_ends_unopened += r.collective_ends_unopened;
    total.enters_unclosed += r.enters_unclosed;
    total.leaves_unopened += r.leaves_unopened;
    total.locks_unreleased += r.locks_unreleased;
    total.lock_releases_unacquired += r.lock_releases_unacquired;
    total.intervals_unclosed += r.intervals_unclosed;
    total.intervals_unopened += r.intervals_unopened;
  }
  // Processes with several threads: their requests and messages in the process's order,
  // listed after the others (pairing only needs each process's messages in MPI order).
  for (std::int32_t r = 0; r < processes_.count(); ++r) {
    const auto &locations = processes_.locations_of_rank[static_cast<std::size_t>(r)];
    if (locations.size() > 1) {
      lists_.emplace_back();
      match_process(trace_, r, locations, lists_.back());
    }
  }
  for (const auto &lists : lists_) {
    total.request_posts += lists.posts - lists.completed_posts;
  }
  // Pairing writes match and the message counts, collectives write link, the collective
  // tables and their counts: independent, so they may run at the same time. Each counts its
  // part of the clock condition's violations (clock_condition.hpp) as it goes, instead of a
  // serial pass over all events at the end.
  ClockViolations messages;
  std::array<ClockViolations, 2> collectives{};
  if (threads < 2) {
    pair_messages(trace_, lists_, processes_.count(), messages);
    build_collectives(trace_, lists_, processes_, sequences_);
    count_collective_violations(trace_, nullptr, collectives[0]);
  } else {
    // Pairing takes less time than the collective instances and their count together, so
    // the pairing thread then helps with the count: both take chunks of instances as they
    // come, once the instances (and the model of who waits for whom) exist.
    std::optional<CollectiveWaits> waits;
    std::atomic<bool> built{false};
    std::atomic<std::uint32_t> next{0};
    const auto count_share = [&](ClockViolations &v) {
      constexpr std::uint32_t kChunk = 256;
      const auto n = static_cast<std::uint32_t>(trace_.collectives.size());
      for (auto k = next.fetch_add(kChunk); k < n; k = next.fetch_add(kChunk)) {
        count_collective_violations(trace_, *waits, nullptr, k, std::min(n, k + kChunk), v);
      }
    };
    parallel_for(2, threads, [&](std::size_t task, unsigned /*worker*/) {
      if (task == 0) {
        pair_messages(trace_, lists_, processes_.count(), messages);
        while (!built.load(std::memory_order_acquire)) {
          std::this_thread::yield();
        }
      } else {
        // Set `built` however this ends, or the other task would wait for ever; without
        // `waits` (an exception, which parallel_for rethrows) nobody counts.
        struct Built {
          std::atomic<bool> &flag;
          ~Built() { flag.store(true, std::memory_order_release); }
        } mark{built};
        build_collectives(trace_, lists_, processes_, sequences_);
        waits.emplace(trace_);
      }
      if (waits) {
        count_share(collectives[task]);
      }
    });
  }
  auto &v = trace_.clock_violations;
  v.receives_before_send = messages.receives_before_send;
  v.collective_exits_before_entry =
      collectives[0].collective_exits_before_entry + collectives[1].collective_exits_before_entry;
  v.largest_ns =
      std::max({messages.largest_ns, collectives[0].largest_ns, collectives[1].largest_ns});
  trace_.clock_correction.reset();
}

} // namespace detail

void match(Trace &trace, unsigned threads) {
  detail::MatchingRun run(trace);
  if (threads <= 1) {
    detail::LocationScratch scratch;
    for (std::uint32_t l = 0; l < trace.location_count(); ++l) {
      run.location(l, scratch);
    }
  } else {
    std::vector<detail::LocationScratch> scratch(threads);
    detail::parallel_for(trace.location_count(), threads, [&](std::size_t l, unsigned worker) {
      run.location(static_cast<std::uint32_t>(l), scratch[worker]);
    });
  }
  run.complete(threads);
}

} // namespace parjava::trace
