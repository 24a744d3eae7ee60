// The operations a communication leaf (cfc) can perform, and the arguments each one takes:
// MPI calls (seed 000 notes §2.6), thread primitives (notes 000 §2.7, §3.6: ParJava's pr_*
// primitives) and PGAS operations (seed 001 notes §2.3, §2.4, §2.8, §2.9: collectives with IN/OUT
// synchronisation modes, locks, collective allocation). One table drives validation, the JSON
// schema, the Python builder and the documentation (docs/model-schema.md).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace parjava::model {

enum class Operation : std::uint8_t {
  // MPI point-to-point
  Send,
  Bsend,
  Ssend,
  Rsend,
  Isend,
  Ibsend,
  Issend,
  Irsend,
  Recv,
  Irecv,
  Sendrecv,
  // MPI completion and probing
  Wait,
  Waitall,
  Waitany,
  Test,
  Testall,
  Probe,
  Iprobe,
  // MPI collectives
  Barrier,
  Bcast,
  Reduce,
  Allreduce,
  Gather,
  Gatherv,
  Scatter,
  Scatterv,
  Allgather,
  Allgatherv,
  Alltoall,
  Alltoallv,
  Scan,
  Exscan,
  ReduceScatter,
  // MPI communicators
  CommSplit,
  CommDup,
  CommCreate, // MPI_Comm_create(comm, group, &newcomm): the group's members, in its order
  CommAssign, // `comms[k] = comm`: an element of a communicator array names another (local)
  CommRank,   // MPI_Comm_rank on a communicator other than world (local)
  CommSize,   // MPI_Comm_size on a communicator other than world (local)
  GroupIncl,  // MPI_Group_incl / MPI_Group_range_incl (local): a group is a communicator name
  // threads (ParJava primitives, notes 000 §2.7)
  ThreadPoolCreate,
  SemaphoreCreate,
  Lock,
  TryLock,
  Unlock,
  AtomicCreate,
  AtomicCas,
  Copy,
  SetTeam, // omp_set_num_threads: the team size of the process's later OpenMP regions
  // PGAS (UPC / OpenSHMEM, seed 001)
  PgasBarrier,
  PgasNotify,
  PgasWait,
  PgasBroadcast,
  PgasScatter,
  PgasGather,
  PgasGatherAll,
  PgasExchange,
  PgasPermute,
  PgasReduce,
  PgasPrefixReduce,
  PgasLock,
  PgasUnlock,
  PgasAlloc,
  PgasFree,
  PgasPut,
  PgasGet,
  Count_
};

enum class OperationFamily : std::uint8_t { Mpi, Thread, Pgas };

// How an argument is written: an expression over control variables, or a name of something.
enum class ArgKind : std::uint8_t {
  Expr,     // expression (peer, bytes, tag, root, color, ...)
  Variable, // name of a variable the operation writes (status source/tag/bytes, flags, index)
  Comm,     // communicator name: "world", "self" or one created by Comm_split / Comm_dup, or an
            // element of a communicator array, "name[index expression]"
  Request,  // request array name (non-blocking operations and their completion)
  Lock,     // lock / semaphore name
  Choice,   // one of a fixed set of words (sync modes, collective algorithm)
};

struct ArgSpec {
  std::string_view name;
  ArgKind kind;
  bool required;
  std::string_view default_text; // default when absent (not required); empty: "not given"
  std::string_view doc;
};

struct OperationInfo {
  Operation op;
  std::string_view name; // JSON spelling: "MPI_Send", "lock", "pgas_broadcast", ...
  OperationFamily family;
  std::span<const ArgSpec> args;
  std::string_view doc;
};

const OperationInfo &operation_info(Operation op);
std::optional<Operation> operation_by_name(std::string_view name);
// The ArgSpec of `arg` for `op`, or nullptr when `op` takes no such argument.
const ArgSpec *operation_arg(Operation op, std::string_view arg);

// Words accepted by ArgKind::Choice arguments.
inline constexpr std::string_view kSyncModes[] = {"nosync", "mysync", "allsync"};

// Classification used by the interpreter and the trace writer.
bool is_collective(Operation op); // MPI collectives and Comm_split / Comm_dup / Comm_create
bool is_pgas_collective(Operation op);
bool is_nonblocking(Operation op); // Isend family and Irecv

} // namespace parjava::model
