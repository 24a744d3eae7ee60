// PGAS lock contention, P1 (seed 001 notes §3 P1, L148-L152). Anchor: every lock acquisition
// a. r = a.lockptr, the previous status change of the same lock in time over all threads (a
// release, else the pattern fails); e = a.enterptr, the Enter of the call that acquired it
// (shmem_set_lock, MPI_Win_lock, ...). If e.time < r.time the thread tried to take a lock
// another thread held:
//     wasted = r.time - e.time     (charged to a.loc; r.loc held the lock)
// A lock is identified by (lock id, owner rank) as recorded in LockAcquire/LockRelease (aux,
// peer). Works on any trace with lock events: OpenSHMEM locks and MPI passive-target locks.
#pragma once

#include <vector>

#include "../scan_context.hpp"

namespace parjava::analysis {

struct LockEvent {
  std::uint64_t lock = 0;
  std::int32_t owner = 0;
  trace::Timestamp time = 0;
  trace::EventIndex event = trace::kNoEvent;
  bool acquire = false;
};

// Collected during the point-to-point pass (one entry per LockAcquire/LockRelease).
void scan_lock_contention(ScanContext &ctx, std::vector<LockEvent> &locks);

} // namespace parjava::analysis
