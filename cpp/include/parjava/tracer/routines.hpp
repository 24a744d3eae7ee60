// The routines libparjava_tracer.so wraps, by exact name. A Record stores the Routine (the name
// the program called, e.g. shmem_int_sum_to_all), and the OTF2 region gets that name; its
// identity, category and tracer group come from the trace part's function table
// (parjava/trace/functions.hpp) through function_by_name, so nothing is classified twice.
//
// MPI: the 46 functions of seed 004 App. 2 (notes 004 §5), environment and communicator
// creation; OpenSHMEM: the calls seed 001 §2.8 needs (locks, barriers, collectives, collective
// allocation, puts and gets, quiet/fence, waits).
#pragma once

#include <cstdint>
#include <string_view>

#include "parjava/trace/functions.hpp"

// X(name) for every wrapped routine, in a fixed order (the order is part of the fragment format,
// checked through routine_table_hash()).
// clang-format off
#define PARJAVA_TRACER_MPI_ROUTINES(X)                                                             \
  X(MPI_Init) X(MPI_Init_thread) X(MPI_Finalize) X(MPI_Abort) X(MPI_Pcontrol)                      \
  X(MPI_Comm_split) X(MPI_Comm_dup) X(MPI_Comm_create) X(MPI_Cart_create) X(MPI_Comm_free)         \
  X(MPI_Send) X(MPI_Bsend) X(MPI_Ssend) X(MPI_Rsend) X(MPI_Recv) X(MPI_Sendrecv)                   \
  X(MPI_Sendrecv_replace) X(MPI_Probe)                                                             \
  X(MPI_Isend) X(MPI_Ibsend) X(MPI_Issend) X(MPI_Irsend) X(MPI_Irecv) X(MPI_Iprobe)                \
  X(MPI_Wait) X(MPI_Waitany) X(MPI_Waitall) X(MPI_Waitsome)                                        \
  X(MPI_Test) X(MPI_Testany) X(MPI_Testall) X(MPI_Testsome)                                        \
  X(MPI_Request_free) X(MPI_Cancel) X(MPI_Test_cancelled) X(MPI_Send_init) X(MPI_Bsend_init)       \
  X(MPI_Ssend_init) X(MPI_Rsend_init) X(MPI_Recv_init) X(MPI_Start) X(MPI_Startall)                \
  X(MPI_Buffer_attach) X(MPI_Buffer_detach)                                                        \
  X(MPI_Barrier) X(MPI_Bcast) X(MPI_Gather) X(MPI_Gatherv) X(MPI_Scatter) X(MPI_Scatterv)          \
  X(MPI_Allgather) X(MPI_Allgatherv) X(MPI_Alltoall) X(MPI_Alltoallv) X(MPI_Alltoallw)             \
  X(MPI_Reduce) X(MPI_Allreduce) X(MPI_Reduce_scatter) X(MPI_Reduce_scatter_block) X(MPI_Scan)     \
  X(MPI_Exscan)

// Typed OpenSHMEM families: reductions over (type, operation), puts and gets over types.
#define PARJAVA_TRACER_SHMEM_ARITH_TYPES(X, ...)                                                   \
  X(short, short, __VA_ARGS__) X(int, int, __VA_ARGS__) X(long, long, __VA_ARGS__)                 \
  X(longlong, long long, __VA_ARGS__) X(float, float, __VA_ARGS__) X(double, double, __VA_ARGS__)
#define PARJAVA_TRACER_SHMEM_BITWISE_TYPES(X, ...)                                                 \
  X(short, short, __VA_ARGS__) X(int, int, __VA_ARGS__) X(long, long, __VA_ARGS__)                 \
  X(longlong, long long, __VA_ARGS__)
#define PARJAVA_TRACER_SHMEM_RMA_TYPES(X, ...)                                                     \
  X(char, char, __VA_ARGS__) X(short, short, __VA_ARGS__) X(int, int, __VA_ARGS__)                 \
  X(long, long, __VA_ARGS__) X(longlong, long long, __VA_ARGS__) X(float, float, __VA_ARGS__)      \
  X(double, double, __VA_ARGS__)

#define PARJAVA_TRACER_REDUCTION_NAME(tname, ctype, op) X_ROUTINE(shmem_##tname##_##op##_to_all)
#define PARJAVA_TRACER_PUT_NAME(tname, ctype, unused) X_ROUTINE(shmem_##tname##_put)
#define PARJAVA_TRACER_GET_NAME(tname, ctype, unused) X_ROUTINE(shmem_##tname##_get)
#define PARJAVA_TRACER_P_NAME(tname, ctype, unused) X_ROUTINE(shmem_##tname##_p)
#define PARJAVA_TRACER_G_NAME(tname, ctype, unused) X_ROUTINE(shmem_##tname##_g)

// X_ROUTINE must be defined by the user of this list.
#define PARJAVA_TRACER_SHMEM_ROUTINES                                                              \
  X_ROUTINE(shmem_init) X_ROUTINE(start_pes) X_ROUTINE(shmem_finalize)                             \
  X_ROUTINE(shmem_barrier_all) X_ROUTINE(shmem_barrier)                                            \
  X_ROUTINE(shmem_set_lock) X_ROUTINE(shmem_test_lock) X_ROUTINE(shmem_clear_lock)                 \
  X_ROUTINE(shmem_broadcast32) X_ROUTINE(shmem_broadcast64)                                        \
  X_ROUTINE(shmem_collect32) X_ROUTINE(shmem_collect64)                                            \
  X_ROUTINE(shmem_fcollect32) X_ROUTINE(shmem_fcollect64)                                          \
  X_ROUTINE(shmem_alltoall32) X_ROUTINE(shmem_alltoall64)                                          \
  PARJAVA_TRACER_SHMEM_ARITH_TYPES(PARJAVA_TRACER_REDUCTION_NAME, sum)                             \
  PARJAVA_TRACER_SHMEM_ARITH_TYPES(PARJAVA_TRACER_REDUCTION_NAME, prod)                            \
  PARJAVA_TRACER_SHMEM_ARITH_TYPES(PARJAVA_TRACER_REDUCTION_NAME, min)                             \
  PARJAVA_TRACER_SHMEM_ARITH_TYPES(PARJAVA_TRACER_REDUCTION_NAME, max)                             \
  PARJAVA_TRACER_SHMEM_BITWISE_TYPES(PARJAVA_TRACER_REDUCTION_NAME, and)                           \
  PARJAVA_TRACER_SHMEM_BITWISE_TYPES(PARJAVA_TRACER_REDUCTION_NAME, or)                            \
  PARJAVA_TRACER_SHMEM_BITWISE_TYPES(PARJAVA_TRACER_REDUCTION_NAME, xor)                           \
  X_ROUTINE(shmem_malloc) X_ROUTINE(shmalloc) X_ROUTINE(shmem_calloc) X_ROUTINE(shmem_align)       \
  X_ROUTINE(shmemalign) X_ROUTINE(shmem_free) X_ROUTINE(shfree)                                    \
  X_ROUTINE(shmem_putmem) X_ROUTINE(shmem_put32) X_ROUTINE(shmem_put64) X_ROUTINE(shmem_put128)    \
  PARJAVA_TRACER_SHMEM_RMA_TYPES(PARJAVA_TRACER_PUT_NAME, )                                        \
  PARJAVA_TRACER_SHMEM_RMA_TYPES(PARJAVA_TRACER_P_NAME, )                                          \
  X_ROUTINE(shmem_getmem) X_ROUTINE(shmem_get32) X_ROUTINE(shmem_get64) X_ROUTINE(shmem_get128)    \
  PARJAVA_TRACER_SHMEM_RMA_TYPES(PARJAVA_TRACER_GET_NAME, )                                        \
  PARJAVA_TRACER_SHMEM_RMA_TYPES(PARJAVA_TRACER_G_NAME, )                                          \
  X_ROUTINE(shmem_quiet) X_ROUTINE(shmem_fence)                                                    \
  X_ROUTINE(shmem_int_wait_until) X_ROUTINE(shmem_long_wait_until)                                 \
  X_ROUTINE(shmem_longlong_wait_until)
// clang-format on

namespace parjava::tracer {

// Routine 0 is "no routine" (records that are not calls).
enum class Routine : std::uint16_t {
  None = 0,
#define X(name) name,
  PARJAVA_TRACER_MPI_ROUTINES(X)
#undef X
#define X_ROUTINE(name) name,
      PARJAVA_TRACER_SHMEM_ROUTINES
#undef X_ROUTINE
          Count_
};

inline constexpr std::size_t kRoutineCount = static_cast<std::size_t>(Routine::Count_);

// The routine's exact C name, "" for None or out of range.
std::string_view routine_name(Routine r);
std::string_view routine_name(std::uint16_t r);
// Its identity in the trace function table (Function::None only for Routine::None).
trace::Function routine_function(Routine r);
// A hash of the whole table (names and order), stored in fragment headers.
std::uint64_t routine_table_hash();

} // namespace parjava::tracer
