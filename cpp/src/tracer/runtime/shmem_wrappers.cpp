// pshmem wrappers of OpenSHMEM (seed 001 §2.8: the operations that make PEs interact):
// initialisation and finalisation, barriers, locks (RMA lock events, seed 001 §2.4),
// collectives and collective allocation (RMA collective events with their synchronisation
// level, seed 001 §2.9), puts and gets, quiet/fence and waits. The pshmem_* entry points are
// weak references, so the library loads into MPI programs that do not link OpenSHMEM.
//
// Synchronisation levels (OTF2_RmaSyncLevel) stand for the seed's IN/OUT flags:
// PROCESS|MEMORY = ALLSYNC (barriers, shmem_malloc/free, which end with a barrier),
// MEMORY = MYSYNC (broadcast, collect, reductions, alltoall: a PE returns once its own data is
// complete, without waiting for all PEs).
#include <mpi.h>
#include <otf2/OTF2_Events.h>
#include <pshmem.h>
#include <shmem.h>

#include "calibration.hpp"
#include "call.hpp"
#include "clock_sync.hpp"
#include "communicators.hpp"
#include "line_writer.hpp"
#include "process.hpp"

namespace parjava::tracer::runtime {
namespace {

constexpr std::uint8_t kAllSync = OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY;
constexpr std::uint8_t kMySync = OTF2_RMA_SYNC_LEVEL_MEMORY;

MPI_Comm g_sync_comm = MPI_COMM_NULL;
std::atomic<std::uint64_t> g_next_rma{1};

void record_call(Routine routine, std::uint64_t enter, std::uint64_t leave, const void *site) {
  if (ThreadState *ts = enter_call(routine); ts != nullptr) {
    Record r;
    r.kind = RecordKind::Call;
    r.routine = static_cast<std::uint16_t>(routine);
    r.time = enter;
    r.a = leave;
    r.b = reinterpret_cast<std::uintptr_t>(site);
    ts->buffer.push(r);
    ts->depth = 0;
  }
}

void after_init(Routine routine, std::uint64_t enter, std::uint64_t leave, const void *site) {
  const int pe = pshmem_my_pe();
  const int npes = pshmem_n_pes();
  set_process_rank(pe, npes, Paradigm::Shmem);
  int mpi = 0;
  PMPI_Initialized(&mpi);
  if (mpi != 0) {
    // Open MPI's OpenSHMEM runs on MPI: PEs are MPI_COMM_WORLD ranks, and MPI measures clocks.
    register_world_communicators(pe, npes);
    PMPI_Comm_dup(MPI_COMM_WORLD, &g_sync_comm);
    synchronize_clocks(g_sync_comm, "init");
  } else {
    register_world_without_mpi(pe, npes);
  }
  calibrate_overhead();
  write_tick_anchor();
  write_memory_map();
  install_signal_handlers();
  record_call(routine, enter, leave, site);
}

void collective_end(Call &call, std::uint32_t comm, OTF2_CollectiveOp op, std::uint8_t sync,
                    int root, std::uint64_t sent, std::uint64_t received) {
  Record r;
  r.kind = RecordKind::CollectiveEnd;
  r.comm = comm;
  r.peer = root;
  r.tag = static_cast<std::int32_t>(op);
  r.a = sent;
  r.b = received;
  r.flags = sync;
  call.at_leave(r);
}

Record lock_event(RecordKind kind, const volatile long *lock) {
  Record r;
  r.kind = kind;
  r.comm = kWorldComm;
  r.peer = -1; // OpenSHMEM locks are global: no owning PE
  r.a = reinterpret_cast<std::uintptr_t>(lock);
  return r;
}

// A blocking put or get: RmaPut/RmaGet at enter, its blocking completion at leave.
void rma(Call &call, RecordKind kind, int pe, std::uint64_t bytes) {
  const auto id = g_next_rma.fetch_add(1, std::memory_order_relaxed);
  Record r;
  r.kind = kind;
  r.comm = kWorldComm;
  r.peer = pe;
  r.a = bytes;
  r.b = id;
  call.at_enter(r);
  Record done;
  done.kind = RecordKind::RmaComplete;
  done.comm = kWorldComm;
  done.b = id;
  call.at_leave(done);
}

void broadcast(Call &call, int root, int start, int log_stride, int size, std::uint64_t bytes) {
  const auto comm = active_set_comm(start, log_stride, size);
  const int me = (pshmem_my_pe() - start) >> log_stride;
  // The root's target is not written (OpenSHMEM 1.x broadcast semantics).
  collective_end(call, comm, OTF2_COLLECTIVE_OP_BCAST, kMySync, root, me == root ? bytes : 0,
                 me == root ? 0 : bytes);
}

} // namespace
} // namespace parjava::tracer::runtime

using namespace parjava::tracer::runtime; // NOLINT(google-build-using-namespace)
using parjava::tracer::RecordKind;
using parjava::tracer::Routine;

// Weak references to the profiling entry points (resolved when OpenSHMEM is loaded).
#define PARJAVA_WEAK(name) extern "C" decltype(name) name __attribute__((weak));
PARJAVA_WEAK(pshmem_init)
PARJAVA_WEAK(pstart_pes)
PARJAVA_WEAK(pshmem_finalize)
PARJAVA_WEAK(pshmem_my_pe)
PARJAVA_WEAK(pshmem_n_pes)
PARJAVA_WEAK(pshmem_barrier_all)
PARJAVA_WEAK(pshmem_barrier)
PARJAVA_WEAK(pshmem_set_lock)
PARJAVA_WEAK(pshmem_test_lock)
PARJAVA_WEAK(pshmem_clear_lock)
PARJAVA_WEAK(pshmem_broadcast32)
PARJAVA_WEAK(pshmem_broadcast64)
PARJAVA_WEAK(pshmem_collect32)
PARJAVA_WEAK(pshmem_collect64)
PARJAVA_WEAK(pshmem_fcollect32)
PARJAVA_WEAK(pshmem_fcollect64)
PARJAVA_WEAK(pshmem_alltoall32)
PARJAVA_WEAK(pshmem_alltoall64)
PARJAVA_WEAK(pshmem_malloc)
PARJAVA_WEAK(pshmalloc)
PARJAVA_WEAK(pshmem_calloc)
PARJAVA_WEAK(pshmem_align)
PARJAVA_WEAK(pshmemalign)
PARJAVA_WEAK(pshmem_free)
PARJAVA_WEAK(pshfree)
PARJAVA_WEAK(pshmem_putmem)
PARJAVA_WEAK(pshmem_put32)
PARJAVA_WEAK(pshmem_put64)
PARJAVA_WEAK(pshmem_put128)
PARJAVA_WEAK(pshmem_getmem)
PARJAVA_WEAK(pshmem_get32)
PARJAVA_WEAK(pshmem_get64)
PARJAVA_WEAK(pshmem_get128)
PARJAVA_WEAK(pshmem_quiet)
PARJAVA_WEAK(pshmem_fence)
PARJAVA_WEAK(pshmem_int_wait_until)
PARJAVA_WEAK(pshmem_long_wait_until)
PARJAVA_WEAK(pshmem_longlong_wait_until)

extern "C" {

void shmem_init() {
  const void *site = PARJAVA_CALL_SITE();
  const auto enter = now_ticks();
  pshmem_init();
  after_init(Routine::shmem_init, enter, now_ticks(), site);
}

void start_pes(int npes) {
  const void *site = PARJAVA_CALL_SITE();
  const auto enter = now_ticks();
  pstart_pes(npes);
  after_init(Routine::start_pes, enter, now_ticks(), site);
}

void shmem_finalize() {
  Call call(Routine::shmem_finalize, PARJAVA_CALL_SITE());
  LineWriter w;
  w.text("finalize ").number(now_ticks()).end();
  defs_line(w);
  if (g_sync_comm != MPI_COMM_NULL) {
    synchronize_clocks(g_sync_comm, "final");
    PMPI_Comm_free(&g_sync_comm);
  }
  // Written before the runtime's finalize, which may crash (Debian's OpenSHMEM does).
  checkpoint();
  pshmem_finalize();
}

void shmem_barrier_all() {
  Call call(Routine::shmem_barrier_all, PARJAVA_CALL_SITE());
  pshmem_barrier_all();
  if (call) {
    collective_end(call, kWorldComm, OTF2_COLLECTIVE_OP_BARRIER, kAllSync, -1, 0, 0);
  }
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync) {
  Call call(Routine::shmem_barrier, PARJAVA_CALL_SITE());
  pshmem_barrier(PE_start, logPE_stride, PE_size, pSync);
  if (call) {
    collective_end(call, active_set_comm(PE_start, logPE_stride, PE_size),
                   OTF2_COLLECTIVE_OP_BARRIER, kAllSync, -1, 0, 0);
  }
}

void shmem_set_lock(volatile long *lock) {
  Call call(Routine::shmem_set_lock, PARJAVA_CALL_SITE());
  pshmem_set_lock(lock);
  if (call) {
    call.at_enter(lock_event(RecordKind::LockRequest, lock));
    call.at_leave(lock_event(RecordKind::LockAcquire, lock));
  }
}

int shmem_test_lock(volatile long *lock) {
  Call call(Routine::shmem_test_lock, PARJAVA_CALL_SITE());
  const int held_by_other = pshmem_test_lock(lock);
  if (call) {
    call.at_leave(
        lock_event(held_by_other == 0 ? RecordKind::LockAcquire : RecordKind::LockTryFailed, lock));
  }
  return held_by_other;
}

void shmem_clear_lock(volatile long *lock) {
  Call call(Routine::shmem_clear_lock, PARJAVA_CALL_SITE());
  pshmem_clear_lock(lock);
  if (call) {
    call.at_enter(lock_event(RecordKind::LockRelease, lock));
  }
}

void shmem_broadcast32(void *target, const void *source, size_t nelems, int PE_root, int PE_start,
                       int logPE_stride, int PE_size, long *pSync) {
  Call call(Routine::shmem_broadcast32, PARJAVA_CALL_SITE());
  pshmem_broadcast32(target, source, nelems, PE_root, PE_start, logPE_stride, PE_size, pSync);
  if (call) {
    broadcast(call, PE_root, PE_start, logPE_stride, PE_size, nelems * 4);
  }
}

void shmem_broadcast64(void *target, const void *source, size_t nelems, int PE_root, int PE_start,
                       int logPE_stride, int PE_size, long *pSync) {
  Call call(Routine::shmem_broadcast64, PARJAVA_CALL_SITE());
  pshmem_broadcast64(target, source, nelems, PE_root, PE_start, logPE_stride, PE_size, pSync);
  if (call) {
    broadcast(call, PE_root, PE_start, logPE_stride, PE_size, nelems * 8);
  }
}

// collect: the total received depends on the other PEs' counts and is not known locally.
#define PARJAVA_SHMEM_GATHER(name, width, op, received_factor)                                     \
  void shmem_##name(void *target, const void *source, size_t nelems, int PE_start,                 \
                    int logPE_stride, int PE_size, long *pSync) {                                  \
    Call call(Routine::shmem_##name, PARJAVA_CALL_SITE());                                         \
    pshmem_##name(target, source, nelems, PE_start, logPE_stride, PE_size, pSync);                 \
    if (call) {                                                                                    \
      const std::uint64_t bytes = nelems * (width);                                                \
      collective_end(call, active_set_comm(PE_start, logPE_stride, PE_size), op, kMySync, -1,      \
                     bytes, bytes *static_cast<std::uint64_t>(received_factor));                   \
    }                                                                                              \
  }
PARJAVA_SHMEM_GATHER(collect32, 4, OTF2_COLLECTIVE_OP_ALLGATHERV, 0)
PARJAVA_SHMEM_GATHER(collect64, 8, OTF2_COLLECTIVE_OP_ALLGATHERV, 0)
PARJAVA_SHMEM_GATHER(fcollect32, 4, OTF2_COLLECTIVE_OP_ALLGATHER, PE_size)
PARJAVA_SHMEM_GATHER(fcollect64, 8, OTF2_COLLECTIVE_OP_ALLGATHER, PE_size)

#define PARJAVA_SHMEM_ALLTOALL(name, width)                                                        \
  void shmem_##name(void *target, const void *source, size_t nelems, int PE_start,                 \
                    int logPE_stride, int PE_size, long *pSync) {                                  \
    Call call(Routine::shmem_##name, PARJAVA_CALL_SITE());                                         \
    pshmem_##name(target, source, nelems, PE_start, logPE_stride, PE_size, pSync);                 \
    if (call) {                                                                                    \
      const std::uint64_t bytes = nelems * (width) * static_cast<std::uint64_t>(PE_size);          \
      collective_end(call, active_set_comm(PE_start, logPE_stride, PE_size),                       \
                     OTF2_COLLECTIVE_OP_ALLTOALL, kMySync, -1, bytes, bytes);                      \
    }                                                                                              \
  }
PARJAVA_SHMEM_ALLTOALL(alltoall32, 4)
PARJAVA_SHMEM_ALLTOALL(alltoall64, 8)

#define PARJAVA_SHMEM_REDUCTION(tname, ctype, op)                                                  \
  PARJAVA_WEAK_IN_C(pshmem_##tname##_##op##_to_all)                                                \
  void shmem_##tname##_##op##_to_all(ctype *target, const ctype *source, int nreduce,              \
                                     int PE_start, int logPE_stride, int PE_size, ctype *pWrk,     \
                                     long *pSync) {                                                \
    Call call(Routine::shmem_##tname##_##op##_to_all, PARJAVA_CALL_SITE());                        \
    pshmem_##tname##_##op##_to_all(target, source, nreduce, PE_start, logPE_stride, PE_size, pWrk, \
                                   pSync);                                                         \
    if (call) {                                                                                    \
      const auto bytes = static_cast<std::uint64_t>(nreduce > 0 ? nreduce : 0) * sizeof(ctype);    \
      collective_end(call, active_set_comm(PE_start, logPE_stride, PE_size),                       \
                     OTF2_COLLECTIVE_OP_ALLREDUCE, kMySync, -1, bytes, bytes);                     \
    }                                                                                              \
  }
#define PARJAVA_WEAK_IN_C(name) decltype(name) name __attribute__((weak));
PARJAVA_TRACER_SHMEM_ARITH_TYPES(PARJAVA_SHMEM_REDUCTION, sum)
PARJAVA_TRACER_SHMEM_ARITH_TYPES(PARJAVA_SHMEM_REDUCTION, prod)
PARJAVA_TRACER_SHMEM_ARITH_TYPES(PARJAVA_SHMEM_REDUCTION, min)
PARJAVA_TRACER_SHMEM_ARITH_TYPES(PARJAVA_SHMEM_REDUCTION, max)
PARJAVA_TRACER_SHMEM_BITWISE_TYPES(PARJAVA_SHMEM_REDUCTION, and)
PARJAVA_TRACER_SHMEM_BITWISE_TYPES(PARJAVA_SHMEM_REDUCTION, or)
PARJAVA_TRACER_SHMEM_BITWISE_TYPES(PARJAVA_SHMEM_REDUCTION, xor)

// Collective allocation (seed 001 P12): every PE takes part and it ends with a barrier.
#define PARJAVA_SHMEM_ALLOCATION(name, params, args, bytes)                                        \
  void *name params {                                                                              \
    Call call(Routine::name, PARJAVA_CALL_SITE());                                                 \
    void *result = p##name args;                                                                   \
    if (call) {                                                                                    \
      collective_end(call, kWorldComm, OTF2_COLLECTIVE_OP_ALLOCATE, kAllSync, -1, 0, (bytes));     \
    }                                                                                              \
    return result;                                                                                 \
  }
PARJAVA_SHMEM_ALLOCATION(shmem_malloc, (size_t size), (size), size)
PARJAVA_SHMEM_ALLOCATION(shmalloc, (size_t size), (size), size)
PARJAVA_SHMEM_ALLOCATION(shmem_calloc, (size_t count, size_t size), (count, size), count *size)
PARJAVA_SHMEM_ALLOCATION(shmem_align, (size_t align, size_t size), (align, size), size)
PARJAVA_SHMEM_ALLOCATION(shmemalign, (size_t align, size_t size), (align, size), size)

#define PARJAVA_SHMEM_DEALLOCATION(name)                                                           \
  void name(void *ptr) {                                                                           \
    Call call(Routine::name, PARJAVA_CALL_SITE());                                                 \
    p##name(ptr);                                                                                  \
    if (call) {                                                                                    \
      collective_end(call, kWorldComm, OTF2_COLLECTIVE_OP_DEALLOCATE, kAllSync, -1, 0, 0);         \
    }                                                                                              \
  }
PARJAVA_SHMEM_DEALLOCATION(shmem_free)
PARJAVA_SHMEM_DEALLOCATION(shfree)

#define PARJAVA_SHMEM_MEM_RMA(name, kind, width)                                                   \
  void shmem_##name(void *target, const void *source, size_t nelems, int pe) {                     \
    Call call(Routine::shmem_##name, PARJAVA_CALL_SITE());                                         \
    pshmem_##name(target, source, nelems, pe);                                                     \
    if (call) {                                                                                    \
      rma(call, kind, pe, nelems *(width));                                                        \
    }                                                                                              \
  }
PARJAVA_SHMEM_MEM_RMA(putmem, RecordKind::RmaPut, 1)
PARJAVA_SHMEM_MEM_RMA(put32, RecordKind::RmaPut, 4)
PARJAVA_SHMEM_MEM_RMA(put64, RecordKind::RmaPut, 8)
PARJAVA_SHMEM_MEM_RMA(put128, RecordKind::RmaPut, 16)
PARJAVA_SHMEM_MEM_RMA(getmem, RecordKind::RmaGet, 1)
PARJAVA_SHMEM_MEM_RMA(get32, RecordKind::RmaGet, 4)
PARJAVA_SHMEM_MEM_RMA(get64, RecordKind::RmaGet, 8)
PARJAVA_SHMEM_MEM_RMA(get128, RecordKind::RmaGet, 16)

#define PARJAVA_SHMEM_TYPED_PUT(tname, ctype, unused)                                              \
  PARJAVA_WEAK_IN_C(pshmem_##tname##_put)                                                          \
  void shmem_##tname##_put(ctype *target, const ctype *source, size_t len, int pe) {               \
    Call call(Routine::shmem_##tname##_put, PARJAVA_CALL_SITE());                                  \
    pshmem_##tname##_put(target, source, len, pe);                                                 \
    if (call) {                                                                                    \
      rma(call, RecordKind::RmaPut, pe, len * sizeof(ctype));                                      \
    }                                                                                              \
  }
#define PARJAVA_SHMEM_TYPED_GET(tname, ctype, unused)                                              \
  PARJAVA_WEAK_IN_C(pshmem_##tname##_get)                                                          \
  void shmem_##tname##_get(ctype *target, const ctype *source, size_t len, int pe) {               \
    Call call(Routine::shmem_##tname##_get, PARJAVA_CALL_SITE());                                  \
    pshmem_##tname##_get(target, source, len, pe);                                                 \
    if (call) {                                                                                    \
      rma(call, RecordKind::RmaGet, pe, len * sizeof(ctype));                                      \
    }                                                                                              \
  }
#define PARJAVA_SHMEM_TYPED_P(tname, ctype, unused)                                                \
  PARJAVA_WEAK_IN_C(pshmem_##tname##_p)                                                            \
  void shmem_##tname##_p(ctype *addr, ctype value, int pe) {                                       \
    Call call(Routine::shmem_##tname##_p, PARJAVA_CALL_SITE());                                    \
    pshmem_##tname##_p(addr, value, pe);                                                           \
    if (call) {                                                                                    \
      rma(call, RecordKind::RmaPut, pe, sizeof(ctype));                                            \
    }                                                                                              \
  }
#define PARJAVA_SHMEM_TYPED_G(tname, ctype, unused)                                                \
  PARJAVA_WEAK_IN_C(pshmem_##tname##_g)                                                            \
  ctype shmem_##tname##_g(const ctype *addr, int pe) {                                             \
    Call call(Routine::shmem_##tname##_g, PARJAVA_CALL_SITE());                                    \
    const ctype value = pshmem_##tname##_g(addr, pe);                                              \
    if (call) {                                                                                    \
      rma(call, RecordKind::RmaGet, pe, sizeof(ctype));                                            \
    }                                                                                              \
    return value;                                                                                  \
  }
PARJAVA_TRACER_SHMEM_RMA_TYPES(PARJAVA_SHMEM_TYPED_PUT, )
PARJAVA_TRACER_SHMEM_RMA_TYPES(PARJAVA_SHMEM_TYPED_GET, )
PARJAVA_TRACER_SHMEM_RMA_TYPES(PARJAVA_SHMEM_TYPED_P, )
PARJAVA_TRACER_SHMEM_RMA_TYPES(PARJAVA_SHMEM_TYPED_G, )

void shmem_quiet() {
  Call call(Routine::shmem_quiet, PARJAVA_CALL_SITE());
  pshmem_quiet();
}

void shmem_fence() {
  Call call(Routine::shmem_fence, PARJAVA_CALL_SITE());
  pshmem_fence();
}

void shmem_int_wait_until(volatile int *ivar, int cmp, int cmp_value) {
  Call call(Routine::shmem_int_wait_until, PARJAVA_CALL_SITE());
  pshmem_int_wait_until(ivar, cmp, cmp_value);
}

void shmem_long_wait_until(volatile long *ivar, int cmp, long cmp_value) {
  Call call(Routine::shmem_long_wait_until, PARJAVA_CALL_SITE());
  pshmem_long_wait_until(ivar, cmp, cmp_value);
}

void shmem_longlong_wait_until(volatile long long *ivar, int cmp, long long cmp_value) {
  Call call(Routine::shmem_longlong_wait_until, PARJAVA_CALL_SITE());
  pshmem_longlong_wait_until(ivar, cmp, cmp_value);
}

} // extern "C"
