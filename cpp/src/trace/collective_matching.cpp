// Collective instances: MPI requires every member of a communicator to call its collectives in
// the same order, so the k-th collective on communicator c at each member location belongs to
// instance k of c (notes 001 §2.6.3, the per-thread FIFO of relocalisation operations;
// Scalasca's collective instance). Members are the CollectiveEnd events (they carry the root,
// operation and byte counts). Collectives without a communicator (kNoRef) form one sequence
// over all processes; collectives on MPI_COMM_SELF are instances of one member each (a sequence
// per location). An instance whose members called different functions or operations is
// an erroneous program or a damaged trace: it is counted and described in the warnings.
#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "matching_passes.hpp"

namespace parjava::trace::detail {
namespace {

struct Member {
  std::uint32_t sequence_key; // see build_collectives
  std::uint32_t sequence;
  EventIndex event;
};

constexpr std::size_t kMaxWarnings = 10;

} // namespace

void build_collectives(Trace &trace, std::vector<MatchingLists> &lists, const Processes &processes,
                       const std::vector<std::pair<EventIndex, std::uint32_t>> *received) {
  auto &e = trace.events;
  // Sequences: one per communicator [0, comms), one for collectives without a communicator
  // (`none`), and one per location for MPI_COMM_SELF collectives (`none` + 1 + location).
  const auto comms = static_cast<std::uint32_t>(trace.communicators.size());
  const auto none = comms;
  const auto sequences = comms + 1 + static_cast<std::uint32_t>(trace.locations.size());
  std::vector<std::uint32_t> seen_here(sequences, 0);
  std::vector<std::uint32_t> instances_of(sequences, 0);
  std::vector<std::uint32_t> touched;
  std::vector<Member> members;
  std::size_t ends = 0;
  for (const auto &l : lists) {
    ends += l.collective_ends.size();
  }
  members.reserve(ends);

  // The ends come location by location, each location's in time order.
  auto close_location = [&] {
    for (const auto key : touched) {
      instances_of[key] = std::max(instances_of[key], seen_here[key]);
      seen_here[key] = 0;
    }
    touched.clear();
  };
  std::uint32_t current = kNoRef;
  for (const auto &list : lists) {
    for (const auto i : list.collective_ends) {
      const auto u = static_cast<std::size_t>(i);
      const auto l = e.location[u];
      if (l != current) {
        close_location();
        current = l;
      }
      const auto comm = e.comm[u];
      const auto key = comm >= comms ? none : trace.communicators[comm].self ? none + 1 + l : comm;
      if (received != nullptr && !received->empty()) {
        const auto at = std::lower_bound(received->begin(), received->end(),
                                         std::make_pair(i, std::uint32_t{0}));
        if (at != received->end() && at->first == i) {
          // A received member: its place in the sequence travelled with it.
          instances_of[key] = std::max(instances_of[key], at->second + 1);
          members.push_back({key, at->second, i});
          continue;
        }
      }
      if (seen_here[key] == 0) {
        touched.push_back(key);
      }
      members.push_back({key, seen_here[key]++, i});
    }
  }
  close_location();
  for (auto &l : lists) {
    l.collective_ends = {};
  }

  // Instance ids: communicator by communicator, in sequence order.
  std::vector<std::uint32_t> first_instance(sequences + 1, 0);
  for (std::uint32_t key = 0; key < sequences; ++key) {
    first_instance[key + 1] = first_instance[key] + instances_of[key];
  }
  const auto instance_count = first_instance[sequences];
  auto instance_of = [&](const Member &m) { return first_instance[m.sequence_key] + m.sequence; };

  // Members grouped by instance (stable counting sort: location order within an instance).
  std::vector<std::uint32_t> start(instance_count + 1, 0);
  for (const auto &m : members) {
    ++start[instance_of(m) + 1];
  }
  for (std::uint32_t k = 0; k < instance_count; ++k) {
    start[k + 1] += start[k];
  }
  trace.collective_members.resize_for_overwrite(members.size());
  trace.collectives.assign(instance_count, CollectiveInstance{});
  for (std::uint32_t k = 0; k < instance_count; ++k) {
    trace.collectives[k].first_member = start[k];
  }
  for (const auto &m : members) {
    const auto k = instance_of(m);
    trace.collective_members[start[k]++] = m.event;
    e.link[static_cast<std::size_t>(m.event)] = static_cast<EventIndex>(k);
    const auto begin = e.match[static_cast<std::size_t>(m.event)];
    if (begin != kNoEvent) {
      e.link[static_cast<std::size_t>(begin)] = static_cast<EventIndex>(k);
    }
  }
  members = {};

  std::uint32_t processes_with_events = 0;
  for (const auto &locations : processes.locations_of_rank) {
    processes_with_events += locations.empty() ? 0U : 1U;
  }
  auto function_at = [&](EventIndex event) {
    const auto r = e.region[static_cast<std::size_t>(event)];
    return r < trace.regions.size() ? trace.regions[r].function : Function::None;
  };
  auto &report = trace.unmatched;
  std::uint32_t key = 0;
  for (std::uint32_t k = 0; k < instance_count; ++k) {
    while (k >= first_instance[key + 1]) {
      ++key;
    }
    auto &inst = trace.collectives[k];
    inst.member_count =
        (k + 1 < instance_count ? trace.collectives[k + 1].first_member
                                : static_cast<std::uint32_t>(trace.collective_members.size())) -
        inst.first_member;
    inst.participants = inst.member_count;
    const auto first_end = static_cast<std::size_t>(trace.collective_members[inst.first_member]);
    inst.comm = key == none ? kNoRef : e.comm[first_end];
    inst.expected = key == none ? processes_with_events
                    : key > none
                        ? 1U
                        : static_cast<std::uint32_t>(trace.communicators[key].members.size());
    const auto first = trace.collective_members[inst.first_member];
    const auto uf = static_cast<std::size_t>(first);
    inst.function = function_at(first);
    inst.op = e.tag[uf];
    inst.root = kNoRank;
    bool agree = true;
    for (auto m = inst.first_member; m < inst.first_member + inst.member_count; ++m) {
      const auto event = trace.collective_members[m];
      const auto u = static_cast<std::size_t>(event);
      if (inst.root == kNoRank) {
        inst.root = e.peer[u];
      }
      if (agree && (function_at(event) != inst.function || e.tag[u] != inst.op)) {
        agree = false;
        ++report.collectives_mismatched;
        if (report.collectives_mismatched <= kMaxWarnings) {
          const auto &comm_name = inst.comm == kNoRef
                                      ? std::string("(no communicator)")
                                      : "'" + trace.communicators[inst.comm].name + "'";
          trace.metadata.warnings.push_back(
              "collective instance " + std::to_string(k - first_instance[key]) +
              " on communicator " + comm_name + ": location '" +
              trace.locations[e.location[uf]].name + "' called " +
              std::string(function_info(inst.function).name) + " (op " + std::to_string(inst.op) +
              ") but location '" + trace.locations[e.location[u]].name + "' called " +
              std::string(function_info(function_at(event)).name) + " (op " +
              std::to_string(e.tag[u]) +
              "); the program called collectives in different "
              "orders or the trace is damaged");
        }
      }
    }
    if (inst.member_count < inst.expected) {
      ++report.collectives_incomplete;
    }
  }
}

} // namespace parjava::trace::detail
