// Identity of the parallel-runtime functions parjava knows: MPI and OpenSHMEM calls, with the
// seed-004 category (notes 004 §5, App. 2), the tracer group that switches them on and off
// (seed 000 §5.2), and the semantic facts analyses need (send mode, blocking, collective kind).
//
// Regions in a trace are classified by name through function_by_name(), so a Score-P trace and a
// parjava trace give the same identities.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace parjava::trace {

// Seed-004 classification of MPI operations (notes 004 §5), also the timeline colours.
enum class Category : std::uint8_t {
  Collective = 1,             // black
  BlockingSend = 2,           // dark green
  NonblockingSend = 3,        // light green
  BlockingReceiveWait = 4,    // dark blue (Recv, Wait*, Probe, Sendrecv*)
  NonblockingReceiveTest = 5, // light blue (Irecv, Test*, Iprobe)
  Other = 6,                  // light grey (rarely used and management calls)
  UserCode = 7,               // light pink (everything outside the parallel runtime)
};

// Tracer function groups (seed 000 §5.2: wrappers are divided into groups switched on and off).
enum class Group : std::uint8_t {
  None = 0,
  Collective,     // "coll"
  P2PBlocking,    // "p2p-blocking"
  P2PNonblocking, // "p2p-nonblocking"
  WaitTest,       // "wait-test"
  Other,          // "other": init, finalize, communicators, probes, persistent requests
  Shmem,          // "shmem"
};

// Send mode of a point-to-point send (seed 000 §5.5: standard, buffered, synchronous, ready).
enum class SendMode : std::uint8_t { None, Standard, Buffered, Synchronous, Ready };

// What a collective does to data, for the classic MPI patterns (Late Broadcast is 1-to-N,
// Early Reduce is N-to-1, Wait at NxN is N-to-N) and the PGAS patterns of seed 001.
enum class CollectiveShape : std::uint8_t {
  None,
  Barrier,    // pure synchronisation
  OneToAll,   // Bcast, Scatter(v), shmem_broadcast
  AllToOne,   // Reduce, Gather(v)
  AllToAll,   // Allreduce, Allgather(v), Alltoall(v/w), Reduce_scatter(_block), collect, to_all
  Prefix,     // Scan, Exscan
  Allocation, // shmem_malloc / shmem_free: collective allocation (seed 001 P12)
};

enum class Paradigm : std::uint8_t { User, Mpi, Shmem, Pthread, OpenMP, Measurement, Unknown };

// Every function parjava classifies. Keep grouped by family; the table in functions.cpp gives
// each one its properties. `None` marks a region that is not a known runtime function.
// One family per line reads better than one name per line.
// clang-format off
enum class Function : std::uint16_t {
  None = 0,
  // MPI environment and communicators
  MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort, MPI_Pcontrol, MPI_Comm_rank, MPI_Comm_size,
  MPI_Comm_split, MPI_Comm_dup, MPI_Comm_create, MPI_Cart_create, MPI_Comm_free,
  // blocking point-to-point
  MPI_Send, MPI_Bsend, MPI_Ssend, MPI_Rsend, MPI_Recv, MPI_Sendrecv, MPI_Sendrecv_replace,
  MPI_Probe,
  // non-blocking point-to-point
  MPI_Isend, MPI_Ibsend, MPI_Issend, MPI_Irsend, MPI_Irecv, MPI_Iprobe,
  // completion
  MPI_Wait, MPI_Waitany, MPI_Waitall, MPI_Waitsome, MPI_Test, MPI_Testany, MPI_Testall,
  MPI_Testsome,
  // persistent requests and the rest of seed-004 category 6
  MPI_Request_free, MPI_Cancel, MPI_Test_cancelled, MPI_Send_init, MPI_Bsend_init,
  MPI_Ssend_init, MPI_Rsend_init, MPI_Recv_init, MPI_Start, MPI_Startall, MPI_Buffer_attach,
  MPI_Buffer_detach,
  // blocking collectives
  MPI_Barrier, MPI_Bcast, MPI_Gather, MPI_Gatherv, MPI_Scatter, MPI_Scatterv, MPI_Allgather,
  MPI_Allgatherv, MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw, MPI_Reduce, MPI_Allreduce,
  MPI_Reduce_scatter, MPI_Reduce_scatter_block, MPI_Scan, MPI_Exscan,
  // non-blocking collectives
  MPI_Ibarrier, MPI_Ibcast, MPI_Igather, MPI_Igatherv, MPI_Iscatter, MPI_Iscatterv,
  MPI_Iallgather, MPI_Iallgatherv, MPI_Ialltoall, MPI_Ialltoallv, MPI_Ireduce, MPI_Iallreduce,
  MPI_Ireduce_scatter, MPI_Iscan, MPI_Iexscan,
  // OpenSHMEM (typed variants of one operation share an identity: shmem_int_put is ShmemPut)
  ShmemInit, ShmemFinalize, ShmemBarrierAll, ShmemBarrier, ShmemSetLock, ShmemTestLock,
  ShmemClearLock, ShmemBroadcast, ShmemCollect, ShmemFcollect, ShmemAlltoall, ShmemReduce,
  ShmemMalloc, ShmemFree, ShmemPut, ShmemGet, ShmemQuiet, ShmemFence, ShmemWaitUntil,
  Count_
};
// clang-format on

struct FunctionInfo {
  Function function;
  std::string_view name; // canonical name, e.g. "MPI_Send" or "shmem_put"
  Paradigm paradigm;
  Category category;
  Group group;
  SendMode send_mode;    // for sends (blocking and non-blocking)
  CollectiveShape shape; // for collectives
  bool blocking;         // false for MPI_I*, Test*, Iprobe and the non-blocking collectives
  bool receives;         // Recv, Irecv, Sendrecv*: the call receives a message
};

// Properties of a function; function_info(Function::None) describes user code.
const FunctionInfo &function_info(Function f);

// Classify a region name: exact MPI names ("MPI_Send", also "PMPI_Send"), OpenSHMEM names and
// their typed variants ("shmem_int_sum_to_all" -> ShmemReduce, "shmem_putmem" -> ShmemPut,
// "shmalloc" -> ShmemMalloc). Returns Function::None for anything else.
Function function_by_name(std::string_view name);

// Parse a tracer group name ("coll", "p2p-blocking", "p2p-nonblocking", "wait-test", "other",
// "shmem"); nullopt when unknown.
std::optional<Group> group_by_name(std::string_view name);
std::string_view group_name(Group g);

} // namespace parjava::trace
