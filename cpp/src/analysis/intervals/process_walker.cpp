// The per-process walk of the interval analysis (see process_walker.hpp). Formulas:
//  - MPI_p, CPU_p: slices inside / outside runtime calls (notes 004 F8; CPU = T − MPI, §4.5);
//  - Time of Start: slices inside calls that start non-blocking operations (F12);
//  - SendRecv (MessageTime): exit of the receiving call − entry of the send call (F9);
//  - potential synchronisation (F10): receives entered before their send began, collectives'
//    start skew; time variation (F11): collectives' end skew; both charged per
//    IntervalOptions::attribution;
//  - real synchronisation (DVM's "Real synchronization", notes 002 §S.1): the part of a call
//    spent waiting for a partner that had not yet arrived (late sender, late receiver of a
//    blocking send that completed after the receive was posted, collective members not yet
//    arrived), at most the call's duration;
//  - overlap (notes 004 §2.1): user-code time while a non-blocking request is pending.
#include "process_walker.hpp"

#include <algorithm>
#include <cstddef>

namespace parjava::analysis::detail {
namespace {

using trace::EventIndex;
using trace::EventKind;
using trace::Timestamp;

constexpr std::size_t kCallCacheSize = 256;

std::int64_t clamp_to(std::int64_t value, std::int64_t limit) {
  return std::clamp<std::int64_t>(value, 0, std::max<std::int64_t>(limit, 0));
}

} // namespace

// --- EnclosingCalls ---------------------------------------------------------------------------

EnclosingCalls::EnclosingCalls(const trace::Trace &trace) : trace_(trace), cache_(kCallCacheSize) {}

EventIndex EnclosingCalls::find_enter(EventIndex e) {
  const auto &ev = trace_.events;
  const auto u = static_cast<std::size_t>(e);
  const auto region = ev.region[u];
  if (region == trace::kNoRef) {
    return trace::kNoEvent;
  }
  const auto location = ev.location[u];
  auto &entry = cache_[location % kCallCacheSize];
  if (entry.location == location && entry.enter < e &&
      (entry.leave == trace::kNoEvent || e < entry.leave)) {
    return entry.enter;
  }
  const auto first = trace_.location_begin(location);
  for (auto j = e - 1; j >= first; --j) {
    const auto uj = static_cast<std::size_t>(j);
    if (ev.kind[uj] == EventKind::Enter && ev.region[uj] == region) {
      entry = {location, j, ev.match[uj]};
      return j;
    }
  }
  return trace::kNoEvent;
}

Timestamp EnclosingCalls::enter(EventIndex e) {
  const auto enter = find_enter(e);
  return trace_.events.time[static_cast<std::size_t>(enter == trace::kNoEvent ? e : enter)];
}

void EnclosingCalls::span(EventIndex e, Timestamp &enter, Timestamp &leave) {
  const auto &ev = trace_.events;
  const auto found = find_enter(e);
  if (found == trace::kNoEvent) {
    enter = leave = ev.time[static_cast<std::size_t>(e)];
    return;
  }
  enter = ev.time[static_cast<std::size_t>(found)];
  const auto l = ev.match[static_cast<std::size_t>(found)];
  leave = ev.time[static_cast<std::size_t>(l == trace::kNoEvent ? e : l)];
}

// --- ProcessWalker ----------------------------------------------------------------------------

ProcessWalker::ProcessWalker(const trace::Trace &trace, const IntervalOptions &options,
                             const std::vector<RegionClass> &regions,
                             const std::vector<CollectiveTiming> &collectives, NodeTable &table,
                             IntervalTree &tree)
    : trace_(trace), options_(options), regions_(regions), collectives_(collectives), table_(table),
      tree_(tree), partner_calls_(trace) {
  frames_.reserve(64);
}

bool ProcessWalker::can_open() const {
  return options_.max_depth < 0 || frames_.size() <= static_cast<std::size_t>(options_.max_depth);
}

void ProcessWalker::flush(Timestamp t) {
  if (t <= last_) {
    return;
  }
  const auto dt = t - last_;
  last_ = t;
  auto &frame = frames_.back();
  auto &v = frame.values;
  v[index_of(Characteristic::Time)] += dt;
  if (call_depth_ > 0) {
    v[index_of(Characteristic::Mpi)] += dt;
    v[index_of(call_.cls->bucket)] += dt;
    v[index_of(call_.cls->category)] += dt;
    if (call_.cls->starts_nonblocking) {
      v[index_of(Characteristic::TimeOfStart)] += dt;
    }
    return;
  }
  v[index_of(Characteristic::Cpu)] += dt;
  if (frame.sequential) {
    v[index_of(Characteristic::SequentialCpu)] += dt;
  }
  if (pending_requests_ > 0) {
    v[index_of(Characteristic::Overlap)] += dt;
  }
  if (measurement_off_) {
    v[index_of(Characteristic::Unrecorded)] += dt;
  }
}

void ProcessWalker::open_frame(Timestamp t, std::uint32_t node, EventIndex opener,
                               IntervalSource source) {
  flush(t);
  const bool sequential = frames_.back().sequential || tree_.nodes[node].sequential;
  frames_.push_back(Frame{node, opener, t, source, sequential, {}});
}

void ProcessWalker::pop_frame(Timestamp t) {
  const Frame frame = frames_.back();
  frames_.pop_back();
  auto &node = tree_.nodes[frame.node];
  if (node.processes.empty() || node.processes.back() != process_) {
    node.processes.push_back(process_);
    node.executions.push_back(0);
    node.values.emplace_back();
    node.values.back().fill(0);
  }
  auto &row = node.values.back();
  for (std::size_t c = 0; c < kAdditiveCount; ++c) {
    row[c] += frame.values[c];
  }
  ++node.executions.back();
  if (options_.record_executions) {
    tree_.executions.push_back({frame.node, process_, frame.begin, t});
  }
  if (!frames_.empty()) {
    auto &parent = frames_.back().values;
    for (std::size_t c = 0; c < kAdditiveCount; ++c) {
      parent[c] += frame.values[c];
    }
  }
}

void ProcessWalker::close_frame_opened_by(EventIndex opener, Timestamp t) {
  for (auto depth = frames_.size(); depth > 1; --depth) {
    if (frames_[depth - 1].opener == opener) {
      flush(t);
      issues_.intervals_cut += frames_.size() - depth;
      while (frames_.size() >= depth) {
        pop_frame(t);
      }
      return;
    }
  }
}

void ProcessWalker::close_innermost(IntervalSource source, Timestamp t) {
  for (auto depth = frames_.size(); depth > 1; --depth) {
    if (frames_[depth - 1].source == source) {
      close_frame_opened_by(frames_[depth - 1].opener, t);
      return;
    }
  }
}

void ProcessWalker::begin_call(Timestamp t, const RegionClass &cls) {
  flush(t);
  call_ = Call{};
  call_.enter = t;
  call_.cls = &cls;
  received_send_enters_.clear();
}

void ProcessWalker::end_call(Timestamp t) {
  flush(t);
  const auto duration = t - call_.enter;
  std::int64_t waited = 0;
  if (call_.received) {
    // Late sender: the receive was entered before the latest of its messages was sent.
    const auto late_sender = clamp_to(call_.latest_send_enter - call_.enter, duration);
    waited = late_sender;
    if (options_.attribution == SkewAttribution::WaitingProcess) {
      value(Characteristic::PotentialSync) += late_sender;
    }
  }
  if (call_.cls->blocking_send && call_.sent && call_.latest_receive_post < t) {
    // Late receiver: the send could only complete once the receive was posted.
    waited = std::max(waited, clamp_to(call_.latest_receive_post - call_.enter, duration));
  }
  value(Characteristic::RealSync) += std::min(duration, waited + call_.collective_wait);
  if (options_.sendrecv == SendRecvTime::MessageTime) {
    for (const auto send_enter : received_send_enters_) {
      value(Characteristic::SendRecv) += std::max<std::int64_t>(0, t - send_enter);
    }
  }
}

void ProcessWalker::on_send(EventIndex e, Timestamp t) {
  const auto &ev = trace_.events;
  const auto r = ev.match[static_cast<std::size_t>(e)];
  if (r == trace::kNoEvent) {
    return;
  }
  const auto ur = static_cast<std::size_t>(r);
  Timestamp receive_enter = 0;
  Timestamp receive_leave = 0;
  partner_calls_.span(r, receive_enter, receive_leave);
  if (call_depth_ > 0) {
    // An Irecv was posted by its IrecvPost; a blocking receive when its call began.
    const auto posted = ev.kind[ur] == EventKind::IrecvComplete && ev.link[ur] != trace::kNoEvent
                            ? ev.time[static_cast<std::size_t>(ev.link[ur])]
                            : receive_enter;
    call_.latest_receive_post = call_.sent ? std::max(call_.latest_receive_post, posted) : posted;
    call_.sent = true;
  }
  if (options_.attribution == SkewAttribution::LateProcess) {
    // The receive (or the wait completing it) was entered before this send began.
    const auto send_enter = call_depth_ > 0 ? call_.enter : t;
    value(Characteristic::PotentialSync) +=
        clamp_to(send_enter - receive_enter, receive_leave - receive_enter);
  }
}

void ProcessWalker::on_receive(EventIndex e, Timestamp t) {
  const auto s = trace_.events.match[static_cast<std::size_t>(e)];
  if (s == trace::kNoEvent) {
    return;
  }
  const auto send_enter = partner_calls_.enter(s);
  if (call_depth_ == 0) {
    if (options_.sendrecv == SendRecvTime::MessageTime) {
      value(Characteristic::SendRecv) += std::max<std::int64_t>(0, t - send_enter);
    }
    return;
  }
  call_.latest_send_enter =
      call_.received ? std::max(call_.latest_send_enter, send_enter) : send_enter;
  call_.received = true;
  if (options_.sendrecv == SendRecvTime::MessageTime) {
    received_send_enters_.push_back(send_enter);
  }
}

void ProcessWalker::on_collective_end(EventIndex e, Timestamp t) {
  const auto k = trace_.events.link[static_cast<std::size_t>(e)];
  if (k == trace::kNoEvent || static_cast<std::size_t>(k) >= collectives_.size()) {
    return;
  }
  const auto &timing = collectives_[static_cast<std::size_t>(k)];
  const auto own_begin = member_begin(trace_, e);
  const auto own_end = t;
  std::int64_t start_skew = 0;
  std::int64_t end_skew = 0;
  if (options_.attribution == SkewAttribution::LateProcess) {
    start_skew = own_begin - timing.min_begin;
    end_skew = own_end - timing.min_end;
  } else {
    start_skew = timing.max_begin - own_begin;
    end_skew = timing.max_end - own_end;
  }
  value(Characteristic::PotentialSync) += std::max<std::int64_t>(0, start_skew);
  value(Characteristic::TimeVariation) += std::max<std::int64_t>(0, end_skew);
  const auto ready = collective_ready_time(trace_, collectives_, static_cast<std::uint32_t>(k), e);
  const auto waited = clamp_to(ready - own_begin, own_end - own_begin);
  if (call_depth_ > 0) {
    call_.collective_wait += waited;
  } else {
    value(Characteristic::RealSync) += waited;
  }
}

void ProcessWalker::request_started(EventIndex e, Timestamp t) {
  if (trace_.events.link[static_cast<std::size_t>(e)] == trace::kNoEvent) {
    return; // never completed: it would count as pending to the end of the run
  }
  flush(t);
  ++pending_requests_;
}

void ProcessWalker::request_finished(EventIndex e, Timestamp t) {
  if (trace_.events.link[static_cast<std::size_t>(e)] == trace::kNoEvent ||
      pending_requests_ == 0) {
    return;
  }
  flush(t);
  --pending_requests_;
}

void ProcessWalker::walk(std::uint32_t process) {
  const auto &ev = trace_.events;
  const auto location = tree_.processes[process].location;
  const auto first = trace_.location_begin(location);
  const auto last = trace_.location_end(location);
  if (first == last) {
    return;
  }
  process_ = process;
  table_.begin_process(process);
  frames_.clear();
  call_depth_ = 0;
  call_ = Call{};
  pending_requests_ = 0;
  measurement_off_ = false;
  last_ = ev.time[static_cast<std::size_t>(first)];
  frames_.push_back(Frame{NodeTable::kRoot,
                          trace::kNoEvent,
                          last_,
                          IntervalSource::Root,
                          tree_.nodes[NodeTable::kRoot].sequential,
                          {}});
  const auto &sources = options_.sources;

  for (auto i = first; i < last; ++i) {
    const auto u = static_cast<std::size_t>(i);
    const auto t = ev.time[u];
    switch (ev.kind[u]) {
    case EventKind::Enter: {
      const auto region = ev.region[u];
      if (region >= regions_.size()) {
        break;
      }
      const auto &cls = regions_[region];
      if (cls.runtime_call) {
        if (call_depth_ == 0) {
          begin_call(t, cls); // flushes the user-code slice before the call
        }
        ++call_depth_;
      } else if (cls.user_interval && sources.regions && call_depth_ == 0 && can_open()) {
        open_frame(t, table_.region(frames_.back().node, region), i, IntervalSource::Region);
      }
      break;
    }
    case EventKind::Leave: {
      const auto region = ev.region[u];
      if (region >= regions_.size()) {
        break;
      }
      const auto &cls = regions_[region];
      if (cls.runtime_call) {
        if (call_depth_ == 1) {
          end_call(t); // flushes the call's slice while still inside it
        }
        call_depth_ -= call_depth_ > 0 ? 1U : 0U;
      } else if (cls.user_interval && sources.regions && ev.match[u] != trace::kNoEvent) {
        close_frame_opened_by(ev.match[u], t);
      }
      break;
    }
    case EventKind::IntervalBegin:
      if (sources.markers && can_open()) {
        open_frame(t,
                   table_.marker(frames_.back().node, ev.region[u], ev.callsite[u],
                                 static_cast<std::int64_t>(ev.aux[u])),
                   i, IntervalSource::Marker);
      }
      break;
    case EventKind::IntervalEnd:
      if (sources.markers && ev.match[u] != trace::kNoEvent) {
        close_frame_opened_by(ev.match[u], t);
      }
      break;
    case EventKind::MeasurementOnOff:
      if (ev.aux[u] != 0) {
        flush(t);
        measurement_off_ = false;
        if (sources.pcontrol && can_open()) {
          open_frame(t, table_.pcontrol(frames_.back().node, pcontrol_callsite(i)), i,
                     IntervalSource::Pcontrol);
        }
      } else {
        flush(t);
        if (sources.pcontrol) {
          close_innermost(IntervalSource::Pcontrol, t);
        }
        measurement_off_ = true;
      }
      break;
    case EventKind::Send:
      on_send(i, t);
      break;
    case EventKind::IsendPost:
      on_send(i, t);
      request_started(i, t);
      break;
    case EventKind::IrecvPost:
      request_started(i, t);
      break;
    case EventKind::Recv:
      on_receive(i, t);
      break;
    case EventKind::IrecvComplete:
      on_receive(i, t);
      request_finished(i, t);
      break;
    case EventKind::IsendComplete:
    case EventKind::RequestCancelled:
      request_finished(i, t);
      break;
    case EventKind::CollectiveEnd:
      on_collective_end(i, t);
      break;
    default:
      break;
    }
  }

  const auto end = ev.time[static_cast<std::size_t>(last - 1)];
  flush(end);
  if (call_depth_ > 0) {
    ++issues_.calls_left_open;
    call_depth_ = 0;
  }
  issues_.intervals_left_open += frames_.size() - 1;
  while (!frames_.empty()) {
    pop_frame(end);
  }
}

std::uint32_t ProcessWalker::pcontrol_callsite(EventIndex e) const {
  // The tracer records MeasurementOnOff just outside the MPI_Pcontrol call (on: before its
  // Enter, off: after its Leave); Score-P records no call site at all.
  const auto &ev = trace_.events;
  const auto u = static_cast<std::size_t>(e);
  if (ev.callsite[u] != trace::kNoRef) {
    return ev.callsite[u];
  }
  auto is_pcontrol = [&](EventIndex j) {
    const auto r = ev.region[static_cast<std::size_t>(j)];
    return r < trace_.regions.size() && trace_.regions[r].function == trace::Function::MPI_Pcontrol;
  };
  const auto location = ev.location[u];
  if (e + 1 < trace_.location_end(location) && ev.kind[u + 1] == EventKind::Enter &&
      is_pcontrol(e + 1)) {
    return ev.callsite[u + 1];
  }
  if (e > trace_.location_begin(location) && ev.kind[u - 1] == EventKind::Leave &&
      is_pcontrol(e - 1)) {
    return ev.callsite[u - 1];
  }
  return trace::kNoRef;
}

} // namespace parjava::analysis::detail
