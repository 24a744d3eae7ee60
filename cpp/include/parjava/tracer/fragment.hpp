// The raw data one traced process leaves behind (a "fragment"), before the launcher assembles
// the OTF2 archive (docs/otf2-conventions.md). Each process writes its own files with plain
// write(2) calls, so a crash of one process loses nothing of the others and the files can be
// completed from a signal handler:
//
//   p<pid>.defs        append-only text log of definitions: rank, host, clock offsets, overhead,
//                      communicators, interval names, marker sites, how the process ended
//   p<pid>.t<k>.evt    binary events of thread k: a FragmentHeader, then fixed-size Records
//   p<pid>.maps        copy of /proc/self/maps at the end (call sites and lock ids are addresses)
//
// Times are the process's CLOCK_MONOTONIC in ns; the assembler maps them to rank-0 time.
#pragma once

#include <cstdint>

namespace parjava::tracer {

inline constexpr char kEventMagic[8] = {'P', 'J', 'E', 'V', 'T', '0', '0', '1'};
inline constexpr int kFragmentVersion = 1;

// What a Record says. Records of a call are written when the call returns: first the events
// inside it (Send, Recv, ...), then the Call record that closes them; the assembler emits
// Enter, the inner events, Leave. A process that dies inside a call leaves CallUnfinished.
enum class RecordKind : std::uint8_t {
  Call = 1,         // time = enter, a = leave, b = call site (return address), routine
  CallUnfinished,   // the call in flight when the process died: time = enter, b = call site
  Send,             // blocking send: peer (rank in comm), tag, comm, a = bytes
  Recv,             // peer = actual source (rank in comm), tag, comm, a = bytes
  IsendPost,        // peer, tag, comm, a = bytes, b = request id
  IrecvPost,        // b = request id (peer/tag/comm as posted, informative only)
  IsendComplete,    // b = request id
  IrecvComplete,    // peer = actual source, tag, comm, a = bytes, b = request id
  RequestTest,      // b = request id: a test that did not complete it
  RequestCancelled, // b = request id
  CollectiveEnd,    // comm, peer = root (rank in comm, -1 if none), tag = OTF2 collective op,
                    //   a = bytes sent, b = bytes received, flags = OTF2 RMA sync level (SHMEM)
  LockRequest,      // a = lock address, peer = PE owning the lock
  LockAcquire,      // as LockRequest
  LockTryFailed,    // as LockRequest: shmem_test_lock that did not get the lock
  LockRelease,      // as LockRequest
  RmaPut,           // peer = target PE, a = bytes, b = matching id
  RmaGet,           // peer = target PE, a = bytes, b = matching id
  RmaComplete,      // b = matching id: blocking completion of the put/get
  IntervalBegin,    // tag = user interval id, b = marker site token
  IntervalEnd,      // tag = user interval id, b = marker site token
  MeasurementOnOff, // a = 1 on, 0 off (MPI_Pcontrol)
};

// One event, 40 bytes. Field meaning by kind above; unused fields are zero.
struct Record {
  std::uint64_t time = 0;
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  std::uint32_t comm = 0; // process-local communicator id (defs log "comm" lines)
  std::int32_t peer = -1;
  std::int32_t tag = 0;
  std::uint16_t routine = 0; // tracer::Routine
  RecordKind kind = RecordKind::Call;
  std::uint8_t flags = 0;
};
static_assert(sizeof(Record) == 40, "the fragment format fixes records at 40 bytes");

// Marker sites (interval.h passes __FILE__/__LINE__) are interned per process as tokens with
// this bit set, so they never collide with return addresses (user-space addresses are < 2^47).
inline constexpr std::uint64_t kSiteTokenBit = std::uint64_t{1} << 63;

struct FragmentHeader {
  char magic[8];
  std::uint32_t record_size;
  std::uint32_t thread;       // thread index within the process (0 = main thread)
  std::uint64_t routine_hash; // routine_table_hash() of the writer: same table as the reader
};
static_assert(sizeof(FragmentHeader) == 24);

} // namespace parjava::tracer
