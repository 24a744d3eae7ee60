// Parallel trace analysis (issue 15): a trace split over `parts` analysis processes, each
// holding the events of its own share of the processes, plus the few events of other
// processes that its patterns read, obtained by a replay of the traced communication
// (Geimer, Wolf, Wylie, Abraham, Becker, Mohr, "A scalable tool architecture for diagnosing
// wait states in massively parallel applications", Parallel Computing 35(7), 2009: the forward
// replay carries senders' and collective members' events to the receivers' and members'
// analysis processes, the backward replay carries receivers' events back to the senders').
//
// The steps, run by every part (the exchange itself is MPI, in Python: parjava.parallel):
//   1. open_part(): the definitions and the events of the part's own processes only;
//   1b. collective_reduction() / decisive_members(): which members of each collective instance
//      the others need (its decisive ones, below), reduced over the parts by MPI;
//   2. replay_selection(): which of its events each other part needs, with the calls that
//      hold them (so the unchanged pattern code finds a partner's call where it looks);
//   3. merge_part(): own events + the events received from the others -> one matched Trace on
//      which the serial scanner runs; only findings on own locations are kept;
//   4. count_unmatched() / count_clock_violations(trace, counted): the notes' counts for own
//      locations, summed over the parts (the serial totals).
// A location's events stay on one part (all locations of a process do). Since every envelope
// (sender, receiver) a part sees is complete, message pairing is the whole trace's; collective
// members travel with their index in their sequence, so instances are the whole trace's too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "parjava/trace/trace.hpp"

namespace parjava::trace {

// Which part owns a location: processes in contiguous blocks (rank * parts / processes);
// locations of no process (rank < 0) belong to part 0.
class PartitionPlan {
public:
  PartitionPlan(const std::vector<Location> &locations, std::uint32_t parts);
  [[nodiscard]] std::uint32_t parts() const { return parts_; }
  [[nodiscard]] std::uint32_t owner_of_rank(std::int32_t rank) const;
  [[nodiscard]] std::uint32_t owner(const Location &location) const {
    return owner_of_rank(location.rank);
  }

private:
  std::uint32_t parts_;
  std::int64_t processes_ = 0;
};

// Read the definitions of the archive and the events of the locations `part` owns (the
// others keep their definitions and no events), matched. `events_per_location` receives the
// event count of the owned locations (0 elsewhere). Throws Error(ErrorKind::Usage) for
// part >= parts, and what open() throws.
Trace open_part(const std::string &path, std::uint32_t part, std::uint32_t parts,
                unsigned threads = 0);

// The reduced collective replay. Shipping the Begin and End of every member of a collective
// to every part that owns a member does not shrink with the number of parts: a world
// collective's members all go everywhere. What the patterns read of the other members is
// little: Scalasca's replay reduces (MAXLOC/MINLOC) over the members' entry and exit times
// instead of shipping them (MpiCommunicationHandler.cpp, cb_pre_mpi_collend; see
// mpi_collectives.hpp). So for an instance every
// part reads, as extremes over all members — the latest begin (of all members, of those with
// a payload, of the senders), the earliest end (of all, of those with a payload), the
// earliest begin and the latest end (the interval analysis' skews) — each with its member
// (ties to the lowest communicator rank, then location, as the serial patterns pick it), plus
// the root's members. These decisive members alone travel, with every part holding the
// instance's other members' values through the extremes. Which member is decisive is found by
// a reduction over the parts (in Python: parjava.parallel, four MPI_Allreduce): each part's
// own member counts and extremes per instance (collective_reduction()), summed and reduced
// by minimum over the parts (maxima as negated minima), then each part's least member id at
// the reduced extremes (decisive_members(stage 1)), reduced by minimum again. An all-to-all
// whose payload members do not all overlap synchronises in Scalasca's second step with the
// latest sender only, ending at the earliest end among it and the receivers that began
// before it: stage 1 also gives that earliest end, and stage 2 its member.
// An instance travels whole, as before, when the reduction does not describe every member:
// incomplete (fewer members than the communicator), members without a Begin, members that
// disagree on function, operation or root, prefix reductions (a member waits for its lower
// ranks: a scan, not a reduction), non-MPI collectives, and every collective
// when their calls travel too (mpi_collective_calls). Communicators whose members are on one
// part need no reduction.
inline constexpr std::size_t kCollectiveSums = 2; // members; members with a CollectiveBegin
inline constexpr std::size_t kDecisiveKeys = 7;   // see collective_reduction()
inline constexpr std::size_t kCollectiveMinima = 4 + kDecisiveKeys;
inline constexpr std::size_t kDecisiveColumns = kDecisiveKeys + 2;

// Per collective instance of a part's trace (before merge_part), rows of fixed width:
//   sums:     members, members with a Begin                              (reduced by sum)
//   minima:   function<<32|op, its negation, root (uint32), its negation, then the keys:
//             -latest begin, earliest end, -latest begin and earliest end of the members with
//             a payload (sent or received bytes), -latest begin of the senders, earliest
//             begin, -latest end; INT64_MAX where no member qualifies   (reduced by minimum)
//   decisive: per key, the member at the extreme as (communicator rank + 2^31) << 32 |
//             location; then the earliest end of the receivers that began before the latest
//             sender (as time ^ 2^63, so that it orders as unsigned) and its member;
//             UINT64_MAX for none                                        (reduced by minimum)
// `sequence` and `index` name the instance in the whole trace (its communicator's sequence
// and its place in it), `spread` whether its communicator's members are on several parts.
struct CollectiveReduction {
  std::vector<std::uint32_t> sequence;
  std::vector<std::uint32_t> index;
  std::vector<std::uint8_t> spread;
  std::vector<std::int64_t> sums;
  std::vector<std::int64_t> minima;
  std::vector<std::uint64_t> decisive;
};

// Each collective instance's sequence, as matching numbers them (a communicator's, the one of
// collectives without a communicator, one per location for MPI_COMM_SELF), and its index in
// it: the instance's name in the whole trace.
void collective_sequences(const Trace &trace, std::vector<std::uint32_t> &sequence,
                          std::vector<std::uint32_t> &index);

// The own contributions of a part's trace (sums and minima; decisive left at UINT64_MAX).
CollectiveReduction collective_reduction(const Trace &trace, std::uint32_t parts);
// After sums and minima were reduced over the parts, stage 1: each own member at a reduced
// extreme, and the second all-to-all step's earliest end (decisive columns 0..kDecisiveKeys);
// after those were reduced, stage 2: the member at that earliest end (the last column).
void decisive_members(const Trace &trace, CollectiveReduction &reduction, int stage);
// Whether instance k travels reduced (its decisive and root members only), from the reduced
// rows.
bool travels_reduced(const Trace &trace, const CollectiveReduction &reduction, std::size_t k);
// The index in its sequence of each CollectiveEnd of `events` (kNoRef for other events): it
// travels with the event, as the receiving part holds only some of its location's members.
std::vector<std::uint32_t> sequence_indices(const Trace &trace,
                                            const std::vector<EventIndex> &events);

// For each part d (index d of the result; empty for `part` itself): the events of `trace`
// (a part's trace) that d's patterns read, sorted. An event goes to d when d owns its partner:
// the receiver of a send, the sender of a receive, a member of its collective's communicator
// (every part for collectives without a communicator), every part for lock events. It takes
// along its other end (Leave of an Enter, the completion of a request post, the Begin of a
// collective End, the request of a lock), and the Enter and Leave of the call holding each —
// except, without `mpi_collective_calls`, for members of MPI collectives: the wait-state and
// interval analyses read a member's Begin and End only (only the PGAS patterns applied to MPI
// collectives read their calls), and those calls were half of what collectives ship.
// With a reduced `reduction` (see above), an instance that travels reduced sends only its
// decisive members and the root's.
std::vector<std::vector<EventIndex>>
replay_selection(const Trace &trace, std::uint32_t part, std::uint32_t parts,
                 bool mpi_collective_calls = true, const CollectiveReduction *reduction = nullptr);

// Events received from other parts: columns as in EventColumns (match and link are
// recomputed) plus each event's position within its location in the whole trace.
struct ReplayEvents {
  std::vector<Timestamp> time;
  std::vector<EventKind> kind;
  std::vector<std::uint32_t> location;
  std::vector<std::uint32_t> region;
  std::vector<std::int32_t> peer;
  std::vector<std::int32_t> tag;
  std::vector<std::uint32_t> comm;
  std::vector<std::uint64_t> bytes;
  std::vector<std::uint64_t> aux;
  std::vector<std::uint32_t> callsite;
  std::vector<std::uint64_t> position;
  // Of a CollectiveEnd, its index in its sequence (sequence_indices()); empty when every
  // location's collectives travel whole (then they are counted).
  std::vector<std::uint32_t> sequence;
};

// Add the received events to the part's trace, in place (each column grown once, own events
// moved, received ones written in their location by position, so the trace never exists
// twice), and match it again. In the merged trace a location's own events come first, at
// their own positions, and its received ones follow; `received_positions` receives the
// received events' positions within their location in the whole trace, in the merged trace's
// order (location by location). Throws Error(ErrorKind::Usage) when a received event names an
// owned location or a location that does not exist.
// With the `reduction` the selection used, instances that travelled reduced keep the whole
// trace's member count as their `participants`.
void merge_part(Trace &trace, const ReplayEvents &received, std::uint32_t part, std::uint32_t parts,
                std::vector<std::uint64_t> &received_positions, unsigned threads = 1,
                const CollectiveReduction *reduction = nullptr);

// What matching could not pair, counted on the locations where `counted[l]` is true
// (collective instances on the location of their first member): summed over the parts of a
// partition, Trace::unmatched of the whole trace. With every location counted it equals
// trace.unmatched (a test checks this on every archive).
MatchReport count_unmatched(const Trace &trace, const std::vector<char> &counted);

} // namespace parjava::trace
