#include "parjava/analysis/scanner.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <tuple>

#include "patterns/collective_members.hpp"
#include "patterns/lock_contention.hpp"
#include "patterns/mpi_collectives.hpp"
#include "patterns/pgas_collectives.hpp"
#include "patterns/point_to_point_pass.hpp"
#include "scan_context.hpp"

namespace parjava::analysis {

using trace::EventIndex;
using trace::EventKind;
using trace::kNoRef;

namespace {

// Traces without call sites (most Score-P traces) still say where: the region enclosing the
// call that lost the time. One forward sweep with a call stack per location that needs it.
void resolve_callers(const trace::Trace &trace, std::vector<Finding> &findings) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (findings[i].callsite == kNoRef && findings[i].event != trace::kNoEvent) {
      rows.push_back(i);
    }
  }
  if (rows.empty()) {
    return;
  }
  std::sort(rows.begin(), rows.end(),
            [&](std::size_t a, std::size_t b) { return findings[a].event < findings[b].event; });
  const auto &ev = trace.events;
  std::vector<EventIndex> stack;
  std::size_t next = 0;
  while (next < rows.size()) {
    const auto loc = ev.location[static_cast<std::size_t>(findings[rows[next]].event)];
    stack.clear();
    for (EventIndex e = trace.location_begin(loc);
         e < trace.location_end(loc) && next < rows.size(); ++e) {
      while (next < rows.size() && findings[rows[next]].event == e) {
        // The anchor is an event inside the call: the stack is [..., caller, call].
        auto &f = findings[rows[next]];
        if (stack.size() >= 2) {
          f.caller = ev.region[static_cast<std::size_t>(stack[stack.size() - 2])];
        }
        ++next;
      }
      const auto u = static_cast<std::size_t>(e);
      if (ev.kind[u] == EventKind::Enter) {
        stack.push_back(e);
      } else if (ev.kind[u] == EventKind::Leave && !stack.empty()) {
        const auto enter = ev.match[u];
        const auto it = std::find(stack.rbegin(), stack.rend(), enter);
        if (it != stack.rend()) {
          stack.erase(std::prev(it.base()), stack.end());
        }
      }
    }
    // Rows of this location past its end (cannot happen for valid anchors) are skipped.
    while (next < rows.size() &&
           ev.location[static_cast<std::size_t>(findings[rows[next]].event)] == loc) {
      ++next;
    }
  }
}

} // namespace

std::vector<Finding> scan(const trace::Trace &trace, const ScanOptions &options) {
  validate(options);
  FindingSink sink;
  ScanContext ctx(trace, options, sink);
  std::vector<LockEvent> locks;
  scan_point_to_point(ctx, locks);
  CollectiveMembers gatherer(trace);
  scan_mpi_collectives(ctx, gatherer);
  scan_pgas_collectives(ctx, gatherer);
  scan_lock_contention(ctx, locks);
  auto findings = sink.take_sorted();
  resolve_callers(trace, findings);
  return findings;
}

namespace {

// The clock condition, always stated: patterns read waiting times off the timestamps, and a
// receive recorded before its send makes them wrong (anchors/mpi-wait-state-patterns.md §5).
std::string clock_note(const trace::Trace &trace) {
  const auto &v = trace.clock_violations;
  std::string note = "clock condition: ";
  if (trace.clock_correction) {
    const auto &c = *trace.clock_correction;
    note += std::to_string(c.before.total()) +
            " violations corrected by the controlled logical "
            "clock (" +
            std::to_string(c.events_moved) + " events moved, by up to " +
            std::to_string(c.largest_shift_ns) + " ns)";
    if (v.total() == 0) {
      return note;
    }
    note += "; ";
  }
  if (v.total() == 0) {
    return note + "no violations";
  }
  note += std::to_string(v.total()) + " violations (" + std::to_string(v.receives_before_send) +
          " receives before their send, " + std::to_string(v.collective_exits_before_entry) +
          " collective exits before an entry they wait for), up to " +
          std::to_string(v.largest_ns) +
          " ns early: waiting times near them are unreliable; correct them with "
          "Trace.open(path, correct_clocks=True) or parjava scan --correct-clocks";
  return note;
}

} // namespace

ScanResult scan(std::shared_ptr<const trace::Trace> trace, const ScanOptions &options) {
  ScanResult result;
  const auto started = std::chrono::steady_clock::now();
  result.findings = scan(*trace, options);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.events_scanned = trace->size();
  result.options = options;
  result.notes.push_back("eager limit: " + options.eager_limit.source);
  if (options.machine) {
    result.notes.push_back("T_send for O_D: machine '" + options.machine->name() + "'");
  } else {
    result.notes.push_back("T_send for O_D: no machine given, taken as 0 (O_D is a lower bound)");
  }
  const auto &u = trace->unmatched;
  if (u.total() > 0) {
    std::string what;
    auto add = [&](std::uint64_t n, const char *name) {
      if (n > 0) {
        what += (what.empty() ? "" : ", ") + std::to_string(n) + " " + name;
      }
    };
    add(u.sends, "sends without receive");
    add(u.receives, "receives without send");
    add(u.request_posts, "requests never completed");
    add(u.request_completions, "completions without request");
    add(u.collectives_incomplete, "incomplete collectives");
    add(u.collectives_mismatched, "mismatched collectives");
    add(u.enters_unclosed, "calls never left");
    add(u.locks_unreleased, "locks never released");
    if (!what.empty()) {
      result.notes.push_back("unmatched in the trace: " + what +
                             " (patterns that need them skip them)");
    }
  }
  result.notes.push_back(clock_note(*trace));
  result.trace = std::move(trace);
  return result;
}

} // namespace parjava::analysis
