// The operation table: names, families and argument lists of every communication leaf.
#include "parjava/model/operation.hpp"

#include <array>

namespace parjava::model {

namespace {

using K = ArgKind;

// Argument lists shared by several operations. Defaults are expression or name text.
constexpr ArgSpec kComm{"comm", K::Comm, false, "world", "communicator"};
constexpr ArgSpec kStatusSource{"status_source", K::Variable, false, "",
                                "variable receiving the actual source (comm rank)"};
constexpr ArgSpec kStatusTag{"status_tag", K::Variable, false, "",
                             "variable receiving the actual tag"};
constexpr ArgSpec kStatusBytes{"status_bytes", K::Variable, false, "",
                               "variable receiving the received size in bytes"};
constexpr ArgSpec kRequest{"request", K::Request, true, "", "request array name"};
constexpr ArgSpec kIndex{"index", K::Expr, false, "0", "index in the request array"};
constexpr ArgSpec kAlgorithm{"algorithm", K::Choice, false, "",
                             "collective algorithm (overrides the automatic choice)"};
constexpr ArgSpec kSyncIn{"sync_in", K::Choice, false, "allsync",
                          "entry synchronisation: nosync, mysync, allsync (UPC_IN_*)"};
constexpr ArgSpec kSyncOut{"sync_out", K::Choice, false, "allsync",
                           "exit synchronisation: nosync, mysync, allsync (UPC_OUT_*)"};

constexpr std::array kSendArgs = {
    ArgSpec{"dest", K::Expr, true, "", "destination rank in comm (PROC_NULL: no-op)"},
    ArgSpec{"bytes", K::Expr, true, "", "message size in bytes"},
    ArgSpec{"tag", K::Expr, false, "0", "message tag"}, kComm};
constexpr std::array kIsendArgs = {
    ArgSpec{"dest", K::Expr, true, "", "destination rank in comm (PROC_NULL: no-op)"},
    ArgSpec{"bytes", K::Expr, true, "", "message size in bytes"},
    ArgSpec{"tag", K::Expr, false, "0", "message tag"},
    kComm,
    kRequest,
    kIndex};
constexpr std::array kRecvArgs = {
    ArgSpec{"source", K::Expr, true, "", "source rank in comm, ANY_SOURCE or PROC_NULL"},
    ArgSpec{"tag", K::Expr, false, "ANY_TAG", "tag or ANY_TAG"},
    ArgSpec{"bytes", K::Expr, false, "", "receive buffer size (a larger message truncates)"},
    kComm,
    kStatusSource,
    kStatusTag,
    kStatusBytes};
constexpr std::array kIrecvArgs = {
    ArgSpec{"source", K::Expr, true, "", "source rank in comm, ANY_SOURCE or PROC_NULL"},
    ArgSpec{"tag", K::Expr, false, "ANY_TAG", "tag or ANY_TAG"},
    ArgSpec{"bytes", K::Expr, false, "", "receive buffer size"},
    kComm,
    kRequest,
    kIndex,
    kStatusSource,
    kStatusTag,
    kStatusBytes};
constexpr std::array kSendrecvArgs = {
    ArgSpec{"dest", K::Expr, true, "", "destination rank in comm"},
    ArgSpec{"sendbytes", K::Expr, true, "", "bytes sent"},
    ArgSpec{"sendtag", K::Expr, false, "0", "tag of the message sent"},
    ArgSpec{"source", K::Expr, true, "", "source rank in comm or ANY_SOURCE"},
    ArgSpec{"recvtag", K::Expr, false, "ANY_TAG", "tag received or ANY_TAG"},
    ArgSpec{"recvbytes", K::Expr, false, "", "receive buffer size"},
    kComm,
    kStatusSource,
    kStatusTag,
    kStatusBytes};
constexpr std::array kWaitArgs = {kRequest, kIndex};
constexpr std::array kWaitallArgs = {
    ArgSpec{"request", K::Request, false, "",
            "request array name (absent: every pending request of the thread)"}};
constexpr std::array kWaitanyArgs = {
    kRequest, ArgSpec{"status_index", K::Variable, false, "", "variable receiving the index"}};
constexpr std::array kTestArgs = {
    kRequest, kIndex, ArgSpec{"flag", K::Variable, false, "", "variable set to 1 if complete"}};
constexpr std::array kTestallArgs = {
    kRequest, ArgSpec{"flag", K::Variable, false, "", "variable set to 1 if all complete"}};
constexpr std::array kProbeArgs = {
    ArgSpec{"source", K::Expr, true, "", "source rank in comm or ANY_SOURCE"},
    ArgSpec{"tag", K::Expr, false, "ANY_TAG", "tag or ANY_TAG"},
    kComm,
    kStatusSource,
    kStatusTag,
    kStatusBytes};
constexpr std::array kIprobeArgs = {
    ArgSpec{"source", K::Expr, true, "", "source rank in comm or ANY_SOURCE"},
    ArgSpec{"tag", K::Expr, false, "ANY_TAG", "tag or ANY_TAG"},
    kComm,
    ArgSpec{"flag", K::Variable, false, "", "variable set to 1 if a message is waiting"},
    kStatusSource,
    kStatusTag,
    kStatusBytes};
constexpr std::array kBarrierArgs = {kComm, kAlgorithm};
constexpr std::array kRootedArgs = {
    ArgSpec{"root", K::Expr, false, "0", "root rank in comm"},
    ArgSpec{"bytes", K::Expr, true, "", "bytes of the buffer (per rank block for gather/scatter)"},
    kComm, kAlgorithm};
constexpr std::array kRootedVArgs = {
    ArgSpec{"root", K::Expr, false, "0", "root rank in comm"},
    ArgSpec{"bytes", K::Expr, true, "", "bytes of the block of rank `peer`"}, kComm, kAlgorithm};
constexpr std::array kAllArgs = {
    ArgSpec{"bytes", K::Expr, true, "", "bytes per rank (the whole vector for allreduce/scan)"},
    kComm, kAlgorithm};
constexpr std::array kAllVArgs = {
    ArgSpec{"bytes", K::Expr, true, "",
            "bytes of the block of rank `peer` (alltoallv: bytes this rank sends to `peer`)"},
    kComm, kAlgorithm};
constexpr std::array kSplitArgs = {
    kComm, ArgSpec{"color", K::Expr, true, "", "colour (negative: MPI_UNDEFINED)"},
    ArgSpec{"key", K::Expr, false, "rank", "ordering key"},
    ArgSpec{"newcomm", K::Comm, true, "", "name of the new communicator"}};
constexpr std::array kDupArgs = {kComm, ArgSpec{"newcomm", K::Comm, true, "", "name of the copy"}};
constexpr std::array kAssignArgs = {
    kComm,
    ArgSpec{"newcomm", K::Comm, true, "", "element of a communicator array that names comm"}};
constexpr std::array kCreateArgs = {
    kComm,
    ArgSpec{"group", K::Comm, true, "",
            "group of the new communicator (made by comm_assign from a communicator, the C "
            "program's MPI_Comm_group, or by MPI_Group_incl)"},
    ArgSpec{"newcomm", K::Comm, true, "", "name of the new communicator"}};
constexpr std::array kCommRankArgs = {
    kComm, ArgSpec{"rank", K::Variable, false, "", "variable set to this process's rank in comm"}};
constexpr std::array kCommSizeArgs = {
    kComm, ArgSpec{"size", K::Variable, false, "", "variable set to the processes of comm"}};
constexpr std::array kGroupInclArgs = {
    ArgSpec{"comm", K::Comm, false, "world", "the group (or communicator) members are taken from"},
    ArgSpec{"count", K::Expr, true, "", "members of the new group"},
    ArgSpec{"rank", K::Expr, true, "",
            "rank in comm of member `peer` of the new group (an expression of `peer`)"},
    ArgSpec{"newcomm", K::Comm, true, "", "name of the new group"}};
constexpr std::array kPoolArgs = {
    ArgSpec{"threads", K::Expr, false, "nthreads", "number of threads created"}};
constexpr std::array kSemaphoreArgs = {
    ArgSpec{"lock", K::Lock, true, "", "semaphore name"},
    ArgSpec{"index", K::Expr, false, "0", "index in an array of semaphores"},
    ArgSpec{"permits", K::Expr, false, "1", "initial permits (1: a mutex)"}};
constexpr std::array kLockArgs = {
    ArgSpec{"lock", K::Lock, true, "", "lock / semaphore name"},
    ArgSpec{"index", K::Expr, false, "0", "index in an array of locks"}};
constexpr std::array kTryLockArgs = {
    ArgSpec{"lock", K::Lock, true, "", "lock / semaphore name"},
    ArgSpec{"index", K::Expr, false, "0", "index in an array of locks"},
    ArgSpec{"flag", K::Variable, false, "", "variable set to 1 if acquired"}};
constexpr std::array kAtomicArgs = {ArgSpec{"count", K::Expr, false, "1", "number of operations"}};
constexpr std::array kTeamArgs = {
    ArgSpec{"threads", K::Expr, true, "", "threads of each later team (OpenMP region)"}};
constexpr std::array kCopyArgs = {ArgSpec{"bytes", K::Expr, true, "", "bytes copied"}};
constexpr std::array<ArgSpec, 0> kNoArgs = {};
constexpr std::array kPgasRootedArgs = {ArgSpec{"root", K::Expr, false, "0", "root thread / PE"},
                                        ArgSpec{"bytes", K::Expr, true, "", "bytes per block"},
                                        kSyncIn, kSyncOut};
constexpr std::array kPgasAllArgs = {ArgSpec{"bytes", K::Expr, true, "", "bytes per block"},
                                     kSyncIn, kSyncOut};
constexpr std::array kPgasPermuteArgs = {
    ArgSpec{"bytes", K::Expr, true, "", "bytes per block"},
    ArgSpec{"dest", K::Expr, true, "", "where this thread's block goes (a permutation)"}, kSyncIn,
    kSyncOut};
constexpr std::array kPgasLockArgs = {
    ArgSpec{"lock", K::Lock, true, "", "lock name"},
    ArgSpec{"index", K::Expr, false, "0", "index in an array of locks"},
    ArgSpec{"home", K::Expr, false, "0", "thread / PE where the lock lives"}};
constexpr std::array kPgasAllocArgs = {ArgSpec{"bytes", K::Expr, true, "", "bytes allocated"}};
constexpr std::array kPgasRmaArgs = {ArgSpec{"target", K::Expr, true, "", "remote thread / PE"},
                                     ArgSpec{"bytes", K::Expr, true, "", "bytes transferred"}};

constexpr OperationFamily M = OperationFamily::Mpi;
constexpr OperationFamily T = OperationFamily::Thread;
constexpr OperationFamily P = OperationFamily::Pgas;

const std::array<OperationInfo, static_cast<std::size_t>(Operation::Count_)> kTable = {{
    {Operation::Send, "MPI_Send", M, kSendArgs, "standard-mode blocking send"},
    {Operation::Bsend, "MPI_Bsend", M, kSendArgs, "buffered send (always eager, plus a copy)"},
    {Operation::Ssend, "MPI_Ssend", M, kSendArgs, "synchronous send (always rendezvous)"},
    {Operation::Rsend, "MPI_Rsend", M, kSendArgs, "ready send (always eager)"},
    {Operation::Isend, "MPI_Isend", M, kIsendArgs, "non-blocking standard send"},
    {Operation::Ibsend, "MPI_Ibsend", M, kIsendArgs, "non-blocking buffered send"},
    {Operation::Issend, "MPI_Issend", M, kIsendArgs, "non-blocking synchronous send"},
    {Operation::Irsend, "MPI_Irsend", M, kIsendArgs, "non-blocking ready send"},
    {Operation::Recv, "MPI_Recv", M, kRecvArgs, "blocking receive"},
    {Operation::Irecv, "MPI_Irecv", M, kIrecvArgs, "non-blocking receive"},
    {Operation::Sendrecv, "MPI_Sendrecv", M, kSendrecvArgs, "send and receive"},
    {Operation::Wait, "MPI_Wait", M, kWaitArgs, "wait for one request"},
    {Operation::Waitall, "MPI_Waitall", M, kWaitallArgs, "wait for every request of an array"},
    {Operation::Waitany, "MPI_Waitany", M, kWaitanyArgs, "wait for the first request to finish"},
    {Operation::Test, "MPI_Test", M, kTestArgs, "test one request"},
    {Operation::Testall, "MPI_Testall", M, kTestallArgs, "test every request of an array"},
    {Operation::Probe, "MPI_Probe", M, kProbeArgs, "wait until a matching message is pending"},
    {Operation::Iprobe, "MPI_Iprobe", M, kIprobeArgs, "check for a pending matching message"},
    {Operation::Barrier, "MPI_Barrier", M, kBarrierArgs, "barrier"},
    {Operation::Bcast, "MPI_Bcast", M, kRootedArgs, "broadcast from root"},
    {Operation::Reduce, "MPI_Reduce", M, kRootedArgs, "reduction to root"},
    {Operation::Allreduce, "MPI_Allreduce", M, kAllArgs, "reduction to all"},
    {Operation::Gather, "MPI_Gather", M, kRootedArgs, "gather blocks to root"},
    {Operation::Gatherv, "MPI_Gatherv", M, kRootedVArgs, "gather blocks of varying size"},
    {Operation::Scatter, "MPI_Scatter", M, kRootedArgs, "scatter blocks from root"},
    {Operation::Scatterv, "MPI_Scatterv", M, kRootedVArgs, "scatter blocks of varying size"},
    {Operation::Allgather, "MPI_Allgather", M, kAllArgs, "gather blocks to all"},
    {Operation::Allgatherv, "MPI_Allgatherv", M, kAllVArgs, "allgather of varying blocks"},
    {Operation::Alltoall, "MPI_Alltoall", M, kAllArgs, "all-to-all exchange"},
    {Operation::Alltoallv, "MPI_Alltoallv", M, kAllVArgs, "all-to-all of varying blocks"},
    {Operation::Scan, "MPI_Scan", M, kAllArgs, "inclusive prefix reduction"},
    {Operation::Exscan, "MPI_Exscan", M, kAllArgs, "exclusive prefix reduction"},
    {Operation::ReduceScatter, "MPI_Reduce_scatter", M, kAllVArgs,
     "reduction then scatter of blocks"},
    {Operation::CommSplit, "MPI_Comm_split", M, kSplitArgs, "split a communicator by colour"},
    {Operation::CommDup, "MPI_Comm_dup", M, kDupArgs, "duplicate a communicator"},
    {Operation::CommCreate, "MPI_Comm_create", M, kCreateArgs,
     "a communicator of the group's members (in the group's order); MPI_COMM_NULL elsewhere"},
    {Operation::CommAssign, "comm_assign", M, kAssignArgs,
     "`newcomm = comm`: a handle copy, no communication"},
    {Operation::CommRank, "MPI_Comm_rank", M, kCommRankArgs,
     "this process's rank in comm, no communication"},
    {Operation::CommSize, "MPI_Comm_size", M, kCommSizeArgs,
     "the processes of comm, no communication"},
    {Operation::GroupIncl, "MPI_Group_incl", M, kGroupInclArgs,
     "a group of `count` members of comm, member `peer` being comm's rank `rank`, no "
     "communication"},
    {Operation::ThreadPoolCreate, "thread_pool_create", T, kPoolArgs,
     "create the thread pool (pr_CreateThreadPool: threads x time_tCreate)"},
    {Operation::SemaphoreCreate, "semaphore_create", T, kSemaphoreArgs,
     "create a semaphore (pr_CreateSemaphore)"},
    {Operation::Lock, "lock", T, kLockArgs, "blocking entry (pr_Lock)"},
    {Operation::TryLock, "trylock", T, kTryLockArgs, "non-blocking entry (pr_TryLock)"},
    {Operation::Unlock, "unlock", T, kLockArgs, "exit (pr_Unlock)"},
    {Operation::AtomicCreate, "atomic_create", T, kAtomicArgs, "create atomics (pr_CreateAtomic)"},
    {Operation::AtomicCas, "atomic_cas", T, kAtomicArgs,
     "atomic compare-and-set / get-and-add (pr_CompareAndSet)"},
    {Operation::Copy, "copy", T, kCopyArgs, "copy a message in memory (pr_Copy)"},
    {Operation::SetTeam, "set_team", T, kTeamArgs,
     "omp_set_num_threads: the team size of the process's later OpenMP parallel regions that "
     "name none (task groups with `team`), no cost"},
    {Operation::PgasBarrier, "pgas_barrier", P, kNoArgs, "upc_barrier / shmem_barrier_all"},
    {Operation::PgasNotify, "pgas_notify", P, kNoArgs, "split-phase barrier: upc_notify"},
    {Operation::PgasWait, "pgas_wait", P, kNoArgs, "split-phase barrier: upc_wait"},
    {Operation::PgasBroadcast, "pgas_broadcast", P, kPgasRootedArgs, "upc_all_broadcast"},
    {Operation::PgasScatter, "pgas_scatter", P, kPgasRootedArgs, "upc_all_scatter"},
    {Operation::PgasGather, "pgas_gather", P, kPgasRootedArgs, "upc_all_gather"},
    {Operation::PgasGatherAll, "pgas_gather_all", P, kPgasAllArgs, "upc_all_gather_all"},
    {Operation::PgasExchange, "pgas_exchange", P, kPgasAllArgs, "upc_all_exchange"},
    {Operation::PgasPermute, "pgas_permute", P, kPgasPermuteArgs, "upc_all_permute"},
    {Operation::PgasReduce, "pgas_reduce", P, kPgasRootedArgs, "upc_all_reduce"},
    {Operation::PgasPrefixReduce, "pgas_prefix_reduce", P, kPgasAllArgs, "upc_all_prefix_reduce"},
    {Operation::PgasLock, "pgas_lock", P, kPgasLockArgs, "upc_lock / shmem_set_lock"},
    {Operation::PgasUnlock, "pgas_unlock", P, kPgasLockArgs, "upc_unlock / shmem_clear_lock"},
    {Operation::PgasAlloc, "pgas_alloc", P, kPgasAllocArgs,
     "collective allocation (upc_all_alloc / shmem_malloc): thread 0 allocates, then broadcast"},
    {Operation::PgasFree, "pgas_free", P, kNoArgs, "collective free (shmem_free)"},
    {Operation::PgasPut, "pgas_put", P, kPgasRmaArgs, "blocking one-sided put (upc_memput)"},
    {Operation::PgasGet, "pgas_get", P, kPgasRmaArgs, "blocking one-sided get (upc_memget)"},
}};

} // namespace

const OperationInfo &operation_info(Operation op) { return kTable[static_cast<std::size_t>(op)]; }

std::optional<Operation> operation_by_name(std::string_view name) {
  for (const auto &info : kTable) {
    if (info.name == name) {
      return info.op;
    }
  }
  return std::nullopt;
}

const ArgSpec *operation_arg(Operation op, std::string_view arg) {
  for (const auto &spec : operation_info(op).args) {
    if (spec.name == arg) {
      return &spec;
    }
  }
  return nullptr;
}

bool is_collective(Operation op) { return op >= Operation::Barrier && op <= Operation::CommCreate; }

bool is_pgas_collective(Operation op) {
  return (op >= Operation::PgasBarrier && op <= Operation::PgasPrefixReduce) ||
         op == Operation::PgasAlloc || op == Operation::PgasFree;
}

bool is_nonblocking(Operation op) {
  return (op >= Operation::Isend && op <= Operation::Irsend) || op == Operation::Irecv;
}

} // namespace parjava::model
