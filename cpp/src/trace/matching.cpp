// match(): reset the derived columns, then run the passes in dependency order. Nesting first
// (it fills the enclosing regions collectives are checked with), then requests (an Irecv's
// receive is ordered by its post), then messages and collectives.
#include "parjava/trace/matching.hpp"

#include "matching_passes.hpp"

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

} // namespace detail

void match(Trace &trace) {
  const auto n = trace.size();
  trace.events.match.assign(n, kNoEvent);
  trace.events.link.assign(n, kNoEvent);
  trace.events.match.shrink_to_fit(); // reserved for the announced event count
  trace.events.link.shrink_to_fit();
  trace.unmatched = MatchReport{};
  trace.collectives.clear();
  trace.collective_members.clear();
  trace.collective_members.shrink_to_fit();

  detail::match_nesting(trace);
  const auto processes = detail::group_processes(trace);
  detail::match_requests(trace, processes);
  detail::match_messages(trace, processes);
  detail::match_collectives(trace, processes);
}

} // namespace parjava::trace
