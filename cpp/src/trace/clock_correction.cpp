// correct_clocks(): the controlled logical clock with forward and backward amortisation
// (clock_condition.hpp for the papers).
//
// Forward replay (Rabenseifner 1997). Events are corrected in an order that respects every
// dependency of clock_dependencies.hpp: each location advances until its next event waits for
// one not yet corrected, and resumes when that event's location has made progress. Event i
// with predecessor p on its location gets
//     LC(i) = max( t(i),  LC(p) + (1 - rate) * (t(i) - t(p)),  LC(what i waits for) )
// (the minimum latency of a message is taken as 0). The first term keeps every event at or
// after its recorded time; the second lets the clock, once pushed ahead by a jump, return to
// the recorded times at (1 - rate) of their pace (forward amortisation); the third is the
// clock condition. When the third term wins, event i "jumps" by J = its excess over the two
// others.
//
// Backward amortisation (Becker et al. 2009, §3). A jump leaves the interval just before the
// jumping event J too long. Instead, the events in the window of length A = J / rate before
// the event's uncorrected position B move later along a ramp, event e by J * (LC(e) - (B -
// A)) / A, so that the local intervals there stretch by at most `rate`. An event that others
// wait for (a send, a collective entry) may only move as far as its earliest waiter allows
// (its slack); the window is shortened until every such event fits, and never reaches back
// past the previous jump on the location (whose position is then fixed) or its first event
// (a start waits for nothing: near it the ramp is steeper than `rate`). Moves are only ever
// later and keep the order of the location's events, so later windows and other locations'
// slack stay valid.
//
// A damaged trace can hold dependencies in a cycle (a receive matched to a send recorded
// after it on the same location, ...): when no location can advance, the blocked event with
// the earliest recorded time is corrected with what is known and the cycle is counted.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clock_dependencies.hpp"
#include "parjava/error.hpp"
#include "parjava/trace/clock_condition.hpp"

namespace parjava::trace {

namespace {

using detail::CollectiveWaits;
using detail::kNever;
using detail::WaitShape;

class ControlledLogicalClock {
public:
  ControlledLogicalClock(Trace &trace, double rate)
      : trace_(trace), e_(trace.events), waits_(trace), rate_(rate), lc_(e_.time),
        cursor_(trace.location_count()), pending_(trace.collectives.size(), 0),
        latest_(trace.collectives.size(), kNever) {
    for (std::uint32_t l = 0; l < trace.location_count(); ++l) {
      cursor_[l] = trace.location_begin(l);
    }
    for (std::uint32_t k = 0; k < trace.collectives.size(); ++k) {
      if (waits_.shape(k) == WaitShape::None) {
        continue;
      }
      for (auto m = waits_.first(k); m < waits_.last(k); ++m) {
        pending_[k] += waits_.is_source(m) ? 1U : 0U;
      }
    }
  }

  void forward();
  void backward();
  ClockCorrectionReport apply();

private:
  [[nodiscard]] std::uint32_t location_of(EventIndex i) const {
    return e_.location[static_cast<std::size_t>(i)];
  }
  [[nodiscard]] bool corrected(EventIndex i) const { return i < cursor_[location_of(i)]; }
  // The member of a collective event (Begin or End) when it takes part in a dependency.
  [[nodiscard]] std::optional<std::pair<std::uint32_t, std::uint32_t>>
  collective_member(EventIndex i) const;
  // An event `i` waits for that is not corrected yet (kNoEvent: none).
  [[nodiscard]] EventIndex uncorrected_source(EventIndex i) const;
  // The latest corrected time of what `i` waits for (kNever: nothing).
  [[nodiscard]] Timestamp required(EventIndex i) const;
  void correct(EventIndex i);
  // Corrected time of the earliest event that waits for `i`, minus LC(i); max for none.
  [[nodiscard]] Timestamp slack(EventIndex i) const;
  void amortise(EventIndex jump, Timestamp amount, EventIndex fixed);

  Trace &trace_;
  const EventColumns &e_;
  CollectiveWaits waits_;
  double rate_;
  Column<Timestamp> lc_;               // corrected times; recorded ones stay in e_.time until apply
  std::vector<EventIndex> cursor_;     // per location: its first event not corrected yet
  std::vector<std::uint32_t> pending_; // per instance: sources not corrected yet
  std::vector<Timestamp> latest_;      // per instance: latest corrected source
  struct Jump {
    EventIndex event;
    Timestamp amount;
  };
  std::vector<Jump> jumps_;
  std::uint64_t cycles_broken_ = 0;
};

std::optional<std::pair<std::uint32_t, std::uint32_t>>
ControlledLogicalClock::collective_member(EventIndex i) const {
  const auto u = static_cast<std::size_t>(i);
  const auto k = e_.link[u];
  const auto end = e_.kind[u] == EventKind::CollectiveEnd ? i : e_.match[u];
  if (k == kNoEvent || end == kNoEvent ||
      waits_.shape(static_cast<std::uint32_t>(k)) == WaitShape::None) {
    return std::nullopt;
  }
  return std::make_pair(static_cast<std::uint32_t>(k), waits_.member_of_end(end));
}

EventIndex ControlledLogicalClock::uncorrected_source(EventIndex i) const {
  const auto u = static_cast<std::size_t>(i);
  const auto kind = e_.kind[u];
  if (detail::is_receive_event(kind)) {
    const auto send = e_.match[u];
    return send != kNoEvent && !corrected(send) ? send : kNoEvent;
  }
  if (kind != EventKind::CollectiveEnd) {
    return kNoEvent;
  }
  const auto member = collective_member(i);
  if (!member || !waits_.is_sink(member->second)) {
    return kNoEvent;
  }
  const auto [k, sink] = *member;
  if (waits_.shape(k) != WaitShape::Prefix && pending_[k] == 0) {
    return kNoEvent;
  }
  for (auto m = waits_.first(k); m < waits_.last(k); ++m) {
    if (waits_.is_source(m) && waits_.waits_for(k, sink, m) && !corrected(waits_.begin_of(m))) {
      return waits_.begin_of(m);
    }
  }
  return kNoEvent;
}

Timestamp ControlledLogicalClock::required(EventIndex i) const {
  const auto u = static_cast<std::size_t>(i);
  const auto kind = e_.kind[u];
  if (detail::is_receive_event(kind)) {
    const auto send = e_.match[u];
    return send != kNoEvent && corrected(send) ? lc_[static_cast<std::size_t>(send)] : kNever;
  }
  if (kind != EventKind::CollectiveEnd) {
    return kNever;
  }
  const auto member = collective_member(i);
  if (!member || !waits_.is_sink(member->second)) {
    return kNever;
  }
  const auto [k, sink] = *member;
  if (waits_.shape(k) != WaitShape::Prefix) {
    return latest_[k];
  }
  Timestamp latest = kNever;
  for (auto m = waits_.first(k); m < waits_.last(k); ++m) {
    const auto begin = waits_.begin_of(m);
    if (waits_.is_source(m) && waits_.waits_for(k, sink, m) && corrected(begin)) {
      latest = std::max(latest, lc_[static_cast<std::size_t>(begin)]);
    }
  }
  return latest;
}

void ControlledLogicalClock::correct(EventIndex i) {
  const auto u = static_cast<std::size_t>(i);
  const auto l = location_of(i);
  Timestamp local = e_.time[u];
  if (i > trace_.location_begin(l)) {
    const auto before = u - 1;
    const auto step = e_.time[u] - e_.time[before];
    local = std::max(local, lc_[before] + static_cast<Timestamp>(std::llround(
                                              (1.0 - rate_) * static_cast<double>(step))));
  }
  const auto needed = required(i);
  if (needed > local) {
    jumps_.push_back({i, needed - local});
    local = needed;
  }
  lc_[u] = local;
  if (e_.kind[u] == EventKind::CollectiveBegin) {
    if (const auto member = collective_member(i); member && waits_.is_source(member->second)) {
      --pending_[member->first];
      latest_[member->first] = std::max(latest_[member->first], local);
    }
  }
}

void ControlledLogicalClock::forward() {
  const auto locations = static_cast<std::uint32_t>(trace_.location_count());
  enum class State : std::uint8_t { Runnable, Blocked, Finished };
  std::vector<State> state(locations, State::Runnable);
  std::vector<std::vector<std::uint32_t>> waiters(locations);
  std::vector<std::uint32_t> runnable(locations);
  std::iota(runnable.rbegin(), runnable.rend(), 0U); // location 0 first
  std::uint32_t finished = 0;
  while (finished < locations) {
    if (runnable.empty()) {
      // Every unfinished location waits for another: a cycle. Correct the blocked event
      // recorded earliest with what is known, and go on.
      std::uint32_t chosen = locations;
      for (std::uint32_t l = 0; l < locations; ++l) {
        if (state[l] == State::Blocked &&
            (chosen == locations || e_.time[static_cast<std::size_t>(cursor_[l])] <
                                        e_.time[static_cast<std::size_t>(cursor_[chosen])])) {
          chosen = l;
        }
      }
      ++cycles_broken_;
      correct(cursor_[chosen]++);
      state[chosen] = State::Runnable;
      runnable.push_back(chosen);
    }
    const auto l = runnable.back();
    runnable.pop_back();
    if (state[l] != State::Runnable) {
      continue;
    }
    const auto end = trace_.location_end(l);
    const auto started = cursor_[l];
    while (true) {
      const auto i = cursor_[l];
      if (i == end) {
        state[l] = State::Finished;
        ++finished;
        break;
      }
      const auto source = uncorrected_source(i);
      if (source == kNoEvent) {
        correct(i);
        ++cursor_[l];
        continue;
      }
      if (location_of(source) == l) { // waits for a later event of its own location
        ++cycles_broken_;
        correct(i);
        ++cursor_[l];
        continue;
      }
      state[l] = State::Blocked;
      waiters[location_of(source)].push_back(l);
      break;
    }
    // Only progress can unblock a waiter (waking on none would cycle forever).
    if (cursor_[l] != started) {
      for (const auto w : waiters[l]) {
        if (state[w] == State::Blocked) {
          state[w] = State::Runnable;
          runnable.push_back(w);
        }
      }
      waiters[l].clear();
    }
  }
}

Timestamp ControlledLogicalClock::slack(EventIndex i) const {
  const auto u = static_cast<std::size_t>(i);
  const auto kind = e_.kind[u];
  Timestamp earliest = std::numeric_limits<Timestamp>::max();
  if (detail::is_send_event(kind)) {
    const auto receive = e_.match[u];
    if (receive != kNoEvent &&
        detail::is_receive_event(e_.kind[static_cast<std::size_t>(receive)])) {
      earliest = lc_[static_cast<std::size_t>(receive)];
    }
  } else if (kind == EventKind::CollectiveBegin) {
    if (const auto member = collective_member(i); member && waits_.is_source(member->second)) {
      const auto [k, source] = *member;
      for (auto m = waits_.first(k); m < waits_.last(k); ++m) {
        if (waits_.is_sink(m) && waits_.waits_for(k, m, source)) {
          earliest = std::min(earliest, lc_[static_cast<std::size_t>(waits_.end_of(m))]);
        }
      }
    }
  }
  return earliest == std::numeric_limits<Timestamp>::max() ? earliest : earliest - lc_[u];
}

void ControlledLogicalClock::amortise(EventIndex jump, Timestamp amount, EventIndex fixed) {
  // `fixed` keeps its time: the previous jump on this location, or its first event (a start
  // waits for nothing).
  if (fixed >= jump) {
    return;
  }
  const auto lowest = fixed + 1;
  const Timestamp base = lc_[static_cast<std::size_t>(jump)] - amount; // without the jump
  const auto j = static_cast<double>(amount);
  double window =
      std::min(j / rate_, static_cast<double>(base - lc_[static_cast<std::size_t>(fixed)]));
  auto distance = [&](EventIndex i) {
    return static_cast<double>(base - lc_[static_cast<std::size_t>(i)]);
  };
  // Shorten the window until every event in it that others wait for can move its share.
  auto first = jump;
  for (auto i = jump - 1; i >= lowest && distance(i) < window; --i) {
    const auto room = slack(i);
    if (room < amount) {
      window = std::min(window, distance(i) * j / (j - static_cast<double>(room)));
    }
    first = i;
  }
  if (window < 1.0) {
    return;
  }
  const double start = static_cast<double>(base) - window;
  for (auto i = first; i < jump; ++i) {
    auto &t = lc_[static_cast<std::size_t>(i)];
    if (static_cast<double>(t) > start) {
      t += static_cast<Timestamp>(std::floor(j * (static_cast<double>(t) - start) / window));
    }
  }
}

void ControlledLogicalClock::backward() {
  // Per location in time order: event indices order them.
  std::sort(jumps_.begin(), jumps_.end(),
            [](const Jump &a, const Jump &b) { return a.event < b.event; });
  EventIndex fixed = 0;
  for (std::size_t n = 0; n < jumps_.size(); ++n) {
    const auto &jump = jumps_[n];
    if (n == 0 || location_of(jumps_[n - 1].event) != location_of(jump.event)) {
      fixed = trace_.location_begin(location_of(jump.event));
    }
    amortise(jump.event, jump.amount, fixed);
    fixed = jump.event;
  }
}

ClockCorrectionReport ControlledLogicalClock::apply() {
  ClockCorrectionReport report;
  report.before = trace_.clock_violations;
  report.jumps = jumps_.size();
  report.cycles_broken = cycles_broken_;
  auto &time = trace_.events.time;
  for (std::size_t i = 0; i < time.size(); ++i) {
    if (lc_[i] != time[i]) {
      ++report.events_moved;
      report.largest_shift_ns = std::max(report.largest_shift_ns, lc_[i] - time[i]);
      time[i] = lc_[i];
    }
  }
  return report;
}

} // namespace

ClockCorrectionReport correct_clocks(Trace &trace, const ClockCorrectionOptions &options) {
  if (!(options.amortisation_rate > 0.0 && options.amortisation_rate < 1.0)) {
    throw Error(ErrorKind::Usage, "clock correction: amortisation_rate must be in (0, 1), not " +
                                      std::to_string(options.amortisation_rate));
  }
  ControlledLogicalClock clock(trace, options.amortisation_rate);
  clock.forward();
  clock.backward();
  auto report = clock.apply();
  trace.clock_violations = count_clock_violations(trace);
  trace.clock_correction = report;
  trace.metadata.properties.emplace_back(
      "PARJAVA::CLOCK_CONDITION",
      "controlled logical clock: " + std::to_string(report.before.total()) +
          " violations corrected, " + std::to_string(report.events_moved) +
          " events moved, largest shift " + std::to_string(report.largest_shift_ns) + " ns");
  return report;
}

} // namespace parjava::trace
