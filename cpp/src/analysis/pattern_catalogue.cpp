// The pattern table. Texts say what was lost and the fix to try; the formulas live beside the
// code that computes them (cpp/src/analysis/patterns/), with their sources.
#include "parjava/analysis/pattern_catalogue.hpp"

#include <array>
#include <cctype>

namespace parjava::analysis {
namespace {

using P = PatternId;
using F = PatternFamily;

// clang-format off
constexpr std::array kPatterns = std::to_array<PatternInfo>({
    // --- seed 000 §5.5 ------------------------------------------------------------------------
    {P::EarlyStandardSend, "early_standard_send", "B1", "Early standard send (E_MPI_Send -> MPI_Recv)",
     F::ParJava, "Blocking point-to-point", false, "seed 000 notes §5.5, B1",
     "the sender blocked in MPI_Send (rendezvous: message above the eager limit) until the receiver posted MPI_Recv",
     "post the receive earlier (MPI_Irecv before the computation), or send later / non-blocking with MPI_Isend"},
    {P::LateStandardSend, "late_standard_send", "B2", "Late standard send (L_MPI_Send -> MPI_Recv)",
     F::ParJava, "Blocking point-to-point", false, "seed 000 notes §5.5, B2",
     "the receiver idled in MPI_Recv until the sender started MPI_Send",
     "send earlier or balance the work before the send; receive with MPI_Irecv and overlap the wait with computation"},
    {P::LateBufferedSend, "late_buffered_send", "B3", "Late buffered send (L_MPI_Bsend -> MPI_Recv)",
     F::ParJava, "Blocking point-to-point", false, "seed 000 notes §5.5, B3",
     "the receiver idled in MPI_Recv until the sender started MPI_Bsend",
     "issue the MPI_Bsend earlier or balance the work before it; receive with MPI_Irecv and overlap"},
    {P::LateSynchronousSend, "late_synchronous_send", "B5", "Late synchronous send (L_MPI_Ssend -> MPI_Recv)",
     F::ParJava, "Blocking point-to-point", false, "seed 000 notes §5.5, B5",
     "the receiver idled in MPI_Recv until the sender started MPI_Ssend",
     "issue the MPI_Ssend earlier or balance the work before it; receive with MPI_Irecv and overlap"},
    {P::EarlySynchronousSend, "early_synchronous_send", "B6", "Early synchronous send (E_MPI_Ssend -> MPI_Recv)",
     F::ParJava, "Blocking point-to-point", false, "seed 000 notes §5.5, B6",
     "the sender blocked in MPI_Ssend (rendezvous) until the receiver posted MPI_Recv",
     "post the receive earlier, or use MPI_Send/MPI_Isend if synchronous completion is not needed"},
    {P::LateReadySend, "late_ready_send", "B7", "Late ready send (L_MPI_Rsend -> MPI_Recv)",
     F::ParJava, "Blocking point-to-point", false, "seed 000 notes §5.5, B7",
     "the receiver idled in MPI_Recv until the sender started MPI_Rsend",
     "issue the MPI_Rsend earlier or balance the work before it"},
    {P::EarlyReadySend, "early_ready_send", "B8", "Early ready send (E_MPI_Rsend -> MPI_Recv)",
     F::ParJava, "Blocking point-to-point", false, "seed 000 notes §5.5, B8",
     "MPI_Rsend started before its receive was posted (erroneous per the MPI standard) and, above the eager limit, the sender blocked until the receive",
     "post the receive before the ready send (that is MPI_Rsend's contract), e.g. with MPI_Irecv followed by a barrier or handshake"},
    // --- seed 000 §5.6 ------------------------------------------------------------------------
    {P::WrongOrderSend, "wrong_order_send", "B9", "Wrong message order {MPI_Send, MPI_Recv}",
     F::ParJava, "Wrong message order", false, "seed 000 notes §5.6, B9",
     "the receiver posted the receives in the opposite order of the sends, so an eager message waited in the unexpected-message buffer while the receiver waited for the later one",
     "receive in the order the messages are sent (or swap the sends), or use MPI_Irecv for both and MPI_Waitall"},
    {P::WrongOrderBsend, "wrong_order_bsend", "B10", "Wrong message order {MPI_Bsend, MPI_Recv}",
     F::ParJava, "Wrong message order", false, "seed 000 notes §5.6, B10",
     "the receiver posted the receives in the opposite order of the buffered sends, so a message sat in the attached buffer while the receiver waited for the later one",
     "receive in the order the messages are sent (or swap the sends), or use MPI_Irecv for both and MPI_Waitall"},
    // --- seed 000 §5.7 ------------------------------------------------------------------------
    {P::IsendSenderWait, "isend_sender_wait", "N1", "Wait on the sender side {MPI_Isend, MPI_Irecv}",
     F::ParJava, "Non-blocking point-to-point", false, "seed 000 notes §5.7, N1",
     "the sender's MPI_Wait for an MPI_Isend blocked",
     "move the MPI_Wait later, to at least the optimal distance O_D after the MPI_Isend, and fill the gap with independent computation"},
    {P::IsendReceiverWait, "isend_receiver_wait", "N2", "Wait on the receiver side {MPI_Isend, MPI_Irecv}",
     F::ParJava, "Non-blocking point-to-point", false, "seed 000 notes §5.7, N2",
     "the receiver's MPI_Wait for an MPI_Irecv blocked until the message arrived",
     "move the MPI_Wait later, to at least the optimal distance O_D after the MPI_Irecv, and fill the gap with independent computation"},
    {P::IbsendReceiverWait, "ibsend_receiver_wait", "N4", "Wait on the receiver side {MPI_Ibsend, MPI_Irecv}",
     F::ParJava, "Non-blocking point-to-point", false, "seed 000 notes §5.7, N4",
     "the receiver's MPI_Wait for an MPI_Irecv blocked until the buffered message arrived",
     "move the MPI_Wait later, to at least the optimal distance O_D after the MPI_Irecv"},
    {P::IssendSenderWait, "issend_sender_wait", "N5", "Wait on the sender side {MPI_Issend, MPI_Irecv}",
     F::ParJava, "Non-blocking point-to-point", false, "seed 000 notes §5.7, N5",
     "the sender's MPI_Wait for an MPI_Issend blocked until the receive matched",
     "move the MPI_Wait later, to at least the optimal distance O_D after the MPI_Issend, or post the receive earlier"},
    {P::IssendReceiverWait, "issend_receiver_wait", "N6", "Wait on the receiver side {MPI_Issend, MPI_Irecv}",
     F::ParJava, "Non-blocking point-to-point", false, "seed 000 notes §5.7, N6",
     "the receiver's MPI_Wait for an MPI_Irecv blocked until the synchronous message arrived",
     "move the MPI_Wait later, to at least the optimal distance O_D after the MPI_Irecv"},
    {P::IrsendSenderWait, "irsend_sender_wait", "N7", "Wait on the sender side {MPI_Irsend, MPI_Irecv}",
     F::ParJava, "Non-blocking point-to-point", false, "seed 000 notes §5.7, N7",
     "the sender's MPI_Wait for a large MPI_Irsend (above the eager limit) blocked until the receive was posted",
     "post the receive before the ready send and move the MPI_Wait to at least the optimal distance O_D"},
    {P::IrsendReceiverWait, "irsend_receiver_wait", "N8", "Wait on the receiver side {MPI_Irsend, MPI_Irecv}",
     F::ParJava, "Non-blocking point-to-point", false, "seed 000 notes §5.7, N8",
     "the receiver's MPI_Wait for an MPI_Irecv blocked until the ready-mode message arrived",
     "move the MPI_Wait later, to at least the optimal distance O_D after the MPI_Irecv"},
    // --- seed 000 §5.8 ------------------------------------------------------------------------
    {P::CloseSendRecv, "close_send_recv", "SR", "Close send/receive",
     F::ParJava, "Close send and receive", false, "seed 000 notes §5.8",
     "a send to a partner was followed within send_recv_delta by a receive from the same partner; the two transfers ran one after the other",
     "if send_buf and recv_buf are independent, merge the pair into one MPI_Sendrecv (both directions overlap on a duplex link)"},
    // --- Scalasca (anchors/mpi-wait-state-patterns.md) ----------------------------------------
    {P::LateSender, "late_sender", "mpi_latesender", "Late Sender",
     F::Scalasca, "Point-to-point", false, "Scalasca 2.6 MPI.pattern MPI_LATESENDER (anchors §2.1)",
     "a blocking receive (or wait) was entered before the matching send started",
     "post the send earlier or the receive later (MPI_Irecv + MPI_Wait after independent work); balance the computation before the send"},
    {P::LateSenderWrongOrderSame, "late_sender_wrong_order_same", "mpi_lswo_same",
     "Late Sender, wrong order (same source)",
     F::Scalasca, "Point-to-point/Late Sender/Messages in Wrong Order", true,
     "Scalasca 2.6 MPI.pattern MPI_LSWO_SAME (anchors §2.2)",
     "a receive waited for a message that the same source sent after a message received later",
     "receive in the order the source sends (or swap the sends); MPI_ANY_TAG processes them as they arrive"},
    {P::LateSenderWrongOrderDifferent, "late_sender_wrong_order_different", "mpi_lswo_different",
     "Late Sender, wrong order (different sources)",
     F::Scalasca, "Point-to-point/Late Sender/Messages in Wrong Order", true,
     "Scalasca 2.6 MPI.pattern MPI_LSWO_DIFFERENT (anchors §2.2)",
     "a receive waited for a message that was sent after a message from another source that was received later",
     "receive from the sources in the order they send; MPI_ANY_SOURCE processes messages as they arrive"},
    {P::LateReceiver, "late_receiver", "mpi_latereceiver", "Late Receiver",
     F::Scalasca, "Point-to-point", false, "Scalasca 2.6 MPI.pattern MPI_LATERECEIVER (anchors §2.3)",
     "a send (or its wait) blocked until the matching receive was posted",
     "post the receive earlier (MPI_Irecv), or send non-blocking and complete later; check the eager limit for this size"},
    {P::WaitAtBarrier, "wait_at_barrier", "mpi_barrier_wait", "Wait at Barrier",
     F::Scalasca, "Collective/Barrier", false, "Scalasca 2.6 MPI.pattern MPI_BARRIER_WAIT (anchors §3.2)",
     "a process waited in MPI_Barrier for the last process to arrive",
     "balance the work before the barrier, or remove the barrier if correctness does not need it"},
    {P::BarrierCompletion, "barrier_completion", "mpi_barrier_completion", "Barrier Completion",
     F::Scalasca, "Collective/Barrier", false, "Scalasca 2.6 MPI.pattern MPI_BARRIER_COMPLETION (anchors §3.2)",
     "a process stayed in MPI_Barrier after the first process had left it",
     "large values point to the MPI implementation or to interference from other processes on the node"},
    {P::WaitAtNxN, "wait_at_nxn", "mpi_wait_nxn", "Wait at N x N",
     F::Scalasca, "Collective", false, "Scalasca 2.6 MPI.pattern MPI_WAIT_NXN (anchors §3.3)",
     "a process waited in an all-to-all collective for the last process to arrive",
     "balance the work before the collective, or use the non-blocking variant (MPI_Iallreduce, ...) and overlap"},
    {P::NxNCompletion, "nxn_completion", "mpi_nxn_completion", "N x N Completion",
     F::Scalasca, "Collective", false, "Scalasca 2.6 MPI.pattern MPI_NXN_COMPLETION (anchors §3.3)",
     "a process stayed in an all-to-all collective after the first process had left it",
     "large values point to the collective's algorithm or message sizes; try fewer, larger collectives"},
    {P::LateBroadcast, "late_broadcast", "mpi_latebroadcast", "Late Broadcast",
     F::Scalasca, "Collective", false, "Scalasca 2.6 MPI.pattern MPI_LATEBROADCAST (anchors §3.4)",
     "a receiver of a 1-to-N collective waited for the root to enter it",
     "let the root reach the broadcast/scatter earlier (move its extra work after the collective)"},
    {P::EarlyReduce, "early_reduce", "mpi_earlyreduce", "Early Reduce",
     F::Scalasca, "Collective", false, "Scalasca 2.6 MPI.pattern MPI_EARLYREDUCE (anchors §3.5)",
     "the root of an N-to-1 collective entered it before the last sender",
     "give the root other work before the reduce/gather, or use MPI_Ireduce and complete it later"},
    {P::EarlyScan, "early_scan", "mpi_earlyscan", "Early Scan",
     F::Scalasca, "Collective", false, "Scalasca 2.6 MPI.pattern MPI_EARLYSCAN (anchors §3.6)",
     "a process entered MPI_Scan/MPI_Exscan before a lower rank it depends on",
     "balance the work of the lower ranks before the scan, or use MPI_Iscan and overlap"},
    // --- seed 001 §3 ---------------------------------------------------------------------------
    {P::LockContention, "lock_contention", "P1", "Lock contention",
     F::Pgas, "Synchronization/Locks", false, "seed 001 notes §3 P1 (L148-L152)",
     "a thread tried to take a lock while another thread held it",
     "hold the lock for less time, split it into finer locks, or replace it with atomic operations"},
    {P::CollectiveEntrySync, "collective_entry_sync", "P2", "Synchronization at entry to a collective",
     F::Pgas, "Collective/ALLSYNC", false, "seed 001 notes §3 P2 (L154-L172)",
     "with IN_ALLSYNC every thread waited at entry for the last one",
     "balance the work before the collective, or use a weaker entry synchronisation (MYSYNC/NOSYNC) if the data allow"},
    {P::CollectiveExitSync, "collective_exit_sync", "P3", "Synchronization at exit from a collective",
     F::Pgas, "Collective/ALLSYNC", false, "seed 001 notes §3 P3 (L174-L176)",
     "with OUT_ALLSYNC the threads left the collective at different times",
     "use a weaker exit synchronisation (MYSYNC/NOSYNC) if the data allow"},
    {P::PgasWaitAtBarrier, "pgas_wait_at_barrier", "P4", "Wait at barrier",
     F::Pgas, "Synchronization/Barrier", false, "seed 001 notes §3 P4 (L136-L138, L178)",
     "a thread waited at the barrier for the last one",
     "balance the work before the barrier; split it (notify/wait) and do local work in between"},
    {P::PgasBarrierCompletion, "pgas_barrier_completion", "P5", "Barrier completion",
     F::Pgas, "Synchronization/Barrier", false, "seed 001 notes §3 P5 (L180)",
     "the threads left the barrier at different times",
     "any value points to the runtime's barrier or interference from other processes on the node"},
    {P::PgasLateBroadcast, "pgas_late_broadcast", "P6", "Late broadcast",
     F::Pgas, "Collective/IN_MYSYNC", false, "seed 001 notes §3 P6 (L182-L188)",
     "the root entered a one-to-many collective after the receivers, which waited",
     "let the root reach the broadcast earlier (move its extra work after the collective)"},
    {P::EarlyGather, "early_gather", "P7", "Early gather",
     F::Pgas, "Collective/IN_MYSYNC", false, "seed 001 notes §3 P7 (L190-L195)",
     "in a gathering collective the threads waited for the receiving root (literal reading) or the root for the senders",
     "balance the work between the root and the other threads before the gather/reduce"},
    {P::EarlyPrefixReduction, "early_prefix_reduction", "P8", "Early prefix reduction",
     F::Pgas, "Collective/IN_MYSYNC", false, "seed 001 notes §3 P8 (L197-L207)",
     "a thread entered the prefix reduction before a lower-numbered thread it depends on",
     "balance the work of the lower-numbered threads before the prefix reduction"},
    {P::ManyToManyEntrySync, "many_to_many_entry_sync", "P9", "Synchronization at entry to a many-to-many collective",
     F::Pgas, "Collective/MYSYNC many-to-many", false, "seed 001 notes §3 P9 (L209-L214)",
     "threads waited at entry to a many-to-many collective (a suspicion: part of it may be useful exchange)",
     "balance the work before the collective; look closer if it is a large share of the run"},
    {P::ManyToManyExitSync, "many_to_many_exit_sync", "P10", "Synchronization at exit from a many-to-many collective",
     F::Pgas, "Collective/MYSYNC many-to-many", false, "seed 001 notes §3 P10 (L216)",
     "threads left a many-to-many collective at different times (a suspicion, like P9)",
     "look closer if it is a large share of the run; try a weaker exit synchronisation"},
    {P::WaitInsideCollective, "wait_inside_collective", "P11", "Wait inside a collective",
     F::Pgas, "Collective/IN_MYSYNC", false, "seed 001 notes §3 P11 (L218-L228)",
     "a thread was alone inside the collective while the others had left or not yet entered",
     "bring the threads into the collective together: balance the work before it"},
    {P::WaitInCollectiveAllocation, "wait_in_collective_allocation", "P12", "Wait in collective allocation",
     F::Pgas, "Collective/IN_MYSYNC", false, "seed 001 notes §3 P12 (L230)",
     "the threads waited in the collective allocation for the allocating thread",
     "allocate once, earlier (outside loops), or balance the allocating thread's work before it"},
});
// clang-format on

constexpr bool table_is_in_enum_order() {
  for (std::size_t i = 0; i < kPatterns.size(); ++i) {
    if (static_cast<std::size_t>(kPatterns[i].id) != i) {
      return false;
    }
  }
  return true;
}
static_assert(kPatterns.size() == kPatternCount, "every PatternId needs one row");
static_assert(table_is_in_enum_order(), "rows must follow the PatternId order");

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

} // namespace

std::string_view family_key(PatternFamily family) {
  switch (family) {
  case PatternFamily::ParJava:
    return "parjava";
  case PatternFamily::Scalasca:
    return "scalasca";
  case PatternFamily::Pgas:
    return "pgas";
  }
  return "unknown";
}

std::string_view family_title(PatternFamily family) {
  switch (family) {
  case PatternFamily::ParJava:
    return "ParJava point-to-point patterns (seed 000 §5)";
  case PatternFamily::Scalasca:
    return "MPI wait states (EXPERT/Scalasca catalogue)";
  case PatternFamily::Pgas:
    return "PGAS patterns (seed 001)";
  }
  return "unknown";
}

const PatternInfo &pattern_info(PatternId id) { return kPatterns.at(static_cast<std::size_t>(id)); }

std::span<const PatternInfo> all_patterns() { return kPatterns; }

std::optional<PatternId> pattern_by_name(std::string_view name) {
  for (const auto &info : kPatterns) {
    if (equal_ignoring_case(info.key, name) || equal_ignoring_case(info.code, name)) {
      return info.id;
    }
  }
  return std::nullopt;
}

} // namespace parjava::analysis
