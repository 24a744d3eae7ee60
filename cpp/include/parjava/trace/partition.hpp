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
//   2. replay_selection(): which of its events each other part needs, with the calls that
//      hold them (so the unchanged pattern code finds a partner's call where it looks);
//   3. merge_part(): own events + the events received from the others -> one matched Trace on
//      which the serial scanner runs; only findings on own locations are kept;
//   4. count_unmatched() / count_clock_violations(trace, counted): the notes' counts for own
//      locations, summed over the parts (the serial totals).
// A location's events stay on one part (all locations of a process do). Since every envelope
// (sender, receiver) and every collective sequence a part sees is complete, message pairing
// and collective instances are those of the whole trace.
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

// For each part d (index d of the result; empty for `part` itself): the events of `trace`
// (a part's trace) that d's patterns read, sorted. An event goes to d when d owns its partner:
// the receiver of a send, the sender of a receive, a member of its collective's communicator
// (every part for collectives without a communicator), every part for lock events. It takes
// along its other end (Leave of an Enter, the completion of a request post, the Begin of a
// collective End, the request of a lock), and the Enter and Leave of the call holding each —
// except, without `mpi_collective_calls`, for members of MPI collectives: the wait-state and
// interval analyses read a member's Begin and End only (only the PGAS patterns applied to MPI
// collectives read their calls), and those calls were half of what collectives ship.
std::vector<std::vector<EventIndex>> replay_selection(const Trace &trace, std::uint32_t part,
                                                      std::uint32_t parts,
                                                      bool mpi_collective_calls = true);

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
};

// Add the received events to the part's trace, in place (each column grown once, own events
// moved, received ones written in their location by position, so the trace never exists
// twice), and match it again. `positions` receives each event's position within its location
// in the whole trace. Throws Error(ErrorKind::Usage) when a received event names an owned
// location or a location that does not exist.
void merge_part(Trace &trace, const ReplayEvents &received, std::uint32_t part, std::uint32_t parts,
                std::vector<std::uint64_t> &positions, unsigned threads = 1);

// What matching could not pair, counted on the locations where `counted[l]` is true
// (collective instances on the location of their first member): summed over the parts of a
// partition, Trace::unmatched of the whole trace. With every location counted it equals
// trace.unmatched (a test checks this on every archive).
MatchReport count_unmatched(const Trace &trace, const std::vector<char> &counted);

} // namespace parjava::trace
