// The single pass over the events of one process (notes 004 §3.5, Leave/getXXXbyProc): the
// process's time is cut into slices at every call and interval boundary, each slice is user
// code or time inside one runtime call and is added to the innermost open interval; what a
// call waited for is measured when it ends, from the matched partner events (messages,
// collective instances). Closing an interval adds its values to its node and to its parent.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "collective_timing.hpp"
#include "node_table.hpp"
#include "parjava/analysis/intervals/characteristic.hpp"
#include "parjava/analysis/intervals/interval_options.hpp"
#include "parjava/analysis/intervals/interval_tree.hpp"
#include "parjava/trace/trace.hpp"
#include "region_classes.hpp"

namespace parjava::analysis::detail {

// The runtime call that holds a partner's event (a send or receive on another process): the
// nearest earlier Enter of the event's enclosing region on its location. Messages completed in
// one Waitall are looked up one after the other, so the last call found on each location is
// remembered (direct-mapped by location).
class EnclosingCalls {
public:
  explicit EnclosingCalls(const trace::Trace &trace);
  // Entry and exit of the call; both are the event's own time when it is not inside a call,
  // and the exit is the event's time when the call was never left.
  void span(trace::EventIndex e, trace::Timestamp &enter, trace::Timestamp &leave);
  trace::Timestamp enter(trace::EventIndex e);

private:
  struct Entry {
    std::uint32_t location = trace::kNoRef;
    trace::EventIndex enter = trace::kNoEvent;
    trace::EventIndex leave = trace::kNoEvent;
  };
  trace::EventIndex find_enter(trace::EventIndex e);

  const trace::Trace &trace_;
  std::vector<Entry> cache_;
};

using WalkIssues = IntervalWalkIssues;

class ProcessWalker {
public:
  ProcessWalker(const trace::Trace &trace, const IntervalOptions &options,
                const std::vector<RegionClass> &regions,
                const std::vector<CollectiveTiming> &collectives, NodeTable &table,
                IntervalTree &tree);

  void walk(std::uint32_t process);
  [[nodiscard]] const WalkIssues &issues() const { return issues_; }

private:
  using Accumulator = std::array<std::int64_t, kAdditiveCount>;

  struct Frame {
    std::uint32_t node = 0;
    trace::EventIndex opener = trace::kNoEvent; // event that opened it (matched by its end)
    trace::Timestamp begin = 0;
    IntervalSource source = IntervalSource::Root;
    bool sequential = false;
    Accumulator values{};
  };

  // The outermost runtime call in progress.
  struct Call {
    trace::Timestamp enter = 0;
    const RegionClass *cls = nullptr;
    trace::Timestamp latest_send_enter = 0; // of the messages it received
    bool received = false;
    trace::Timestamp latest_receive_post = 0; // of the messages it sent
    bool sent = false;
    std::int64_t collective_wait = 0;
  };

  // Time from the last boundary to `t` goes to the innermost frame.
  void flush(trace::Timestamp t);
  void open_frame(trace::Timestamp t, std::uint32_t node, trace::EventIndex opener,
                  IntervalSource source);
  void close_frame_opened_by(trace::EventIndex opener, trace::Timestamp t);
  void close_innermost(IntervalSource source, trace::Timestamp t);
  void pop_frame(trace::Timestamp t);
  void begin_call(trace::Timestamp t, const RegionClass &cls);
  void end_call(trace::Timestamp t);
  void on_send(trace::EventIndex e, trace::Timestamp t);
  void on_receive(trace::EventIndex e, trace::Timestamp t);
  void on_collective_end(trace::EventIndex e, trace::Timestamp t);
  void request_started(trace::EventIndex e, trace::Timestamp t);
  void request_finished(trace::EventIndex e, trace::Timestamp t);
  [[nodiscard]] bool can_open() const;
  [[nodiscard]] std::uint32_t pcontrol_callsite(trace::EventIndex e) const;
  std::int64_t &value(Characteristic c) { return frames_.back().values[index_of(c)]; }

  const trace::Trace &trace_;
  const IntervalOptions &options_;
  const std::vector<RegionClass> &regions_;
  const std::vector<CollectiveTiming> &collectives_;
  NodeTable &table_;
  IntervalTree &tree_;
  WalkIssues issues_;

  // Per-process state, reset by walk().
  std::uint32_t process_ = 0;
  std::vector<Frame> frames_;
  trace::Timestamp last_ = 0;
  std::uint32_t call_depth_ = 0;
  Call call_;
  std::int64_t pending_requests_ = 0;
  bool measurement_off_ = false;
  std::vector<trace::Timestamp> received_send_enters_; // MessageTime: sends of this call
  EnclosingCalls partner_calls_;
};

} // namespace parjava::analysis::detail
