// The function table behind functions.hpp. Categories follow seed 004 App. 2 (notes 004 §5);
// MPI_Iprobe and MPI_Test* are category 5, MPI_Probe and MPI_Wait* category 4, as listed there.
// Functions the seed does not list (communicator management, non-blocking collectives,
// OpenSHMEM) are placed where their blocking behaviour puts them.
#include "parjava/trace/functions.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace parjava::trace {
namespace {

using F = Function;
using P = Paradigm;
using C = Category;
using G = Group;
using M = SendMode;
using S = CollectiveShape;

constexpr FunctionInfo kUserCode{F::None, "user code", P::User, C::UserCode, G::None,
                                 M::None, S::None,     true,    false};

// One row per line, even past 100 columns: the table is read across.
// clang-format off
constexpr std::array kTable = std::to_array<FunctionInfo>({
    {F::MPI_Init, "MPI_Init", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Init_thread, "MPI_Init_thread", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Finalize, "MPI_Finalize", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Abort, "MPI_Abort", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Pcontrol, "MPI_Pcontrol", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Comm_rank, "MPI_Comm_rank", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Comm_size, "MPI_Comm_size", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Comm_split, "MPI_Comm_split", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Comm_dup, "MPI_Comm_dup", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Comm_create, "MPI_Comm_create", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Cart_create, "MPI_Cart_create", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Comm_free, "MPI_Comm_free", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Send, "MPI_Send", P::Mpi, C::BlockingSend, G::P2PBlocking, M::Standard, S::None, true, false},
    {F::MPI_Bsend, "MPI_Bsend", P::Mpi, C::BlockingSend, G::P2PBlocking, M::Buffered, S::None, true, false},
    {F::MPI_Ssend, "MPI_Ssend", P::Mpi, C::BlockingSend, G::P2PBlocking, M::Synchronous, S::None, true, false},
    {F::MPI_Rsend, "MPI_Rsend", P::Mpi, C::BlockingSend, G::P2PBlocking, M::Ready, S::None, true, false},
    {F::MPI_Recv, "MPI_Recv", P::Mpi, C::BlockingReceiveWait, G::P2PBlocking, M::None, S::None, true, true},
    {F::MPI_Sendrecv, "MPI_Sendrecv", P::Mpi, C::BlockingReceiveWait, G::P2PBlocking, M::Standard, S::None, true, true},
    {F::MPI_Sendrecv_replace, "MPI_Sendrecv_replace", P::Mpi, C::BlockingReceiveWait, G::P2PBlocking, M::Standard, S::None, true, true},
    {F::MPI_Probe, "MPI_Probe", P::Mpi, C::BlockingReceiveWait, G::Other, M::None, S::None, true, false},
    {F::MPI_Isend, "MPI_Isend", P::Mpi, C::NonblockingSend, G::P2PNonblocking, M::Standard, S::None, false, false},
    {F::MPI_Ibsend, "MPI_Ibsend", P::Mpi, C::NonblockingSend, G::P2PNonblocking, M::Buffered, S::None, false, false},
    {F::MPI_Issend, "MPI_Issend", P::Mpi, C::NonblockingSend, G::P2PNonblocking, M::Synchronous, S::None, false, false},
    {F::MPI_Irsend, "MPI_Irsend", P::Mpi, C::NonblockingSend, G::P2PNonblocking, M::Ready, S::None, false, false},
    {F::MPI_Irecv, "MPI_Irecv", P::Mpi, C::NonblockingReceiveTest, G::P2PNonblocking, M::None, S::None, false, true},
    {F::MPI_Iprobe, "MPI_Iprobe", P::Mpi, C::NonblockingReceiveTest, G::Other, M::None, S::None, false, false},
    {F::MPI_Wait, "MPI_Wait", P::Mpi, C::BlockingReceiveWait, G::WaitTest, M::None, S::None, true, false},
    {F::MPI_Waitany, "MPI_Waitany", P::Mpi, C::BlockingReceiveWait, G::WaitTest, M::None, S::None, true, false},
    {F::MPI_Waitall, "MPI_Waitall", P::Mpi, C::BlockingReceiveWait, G::WaitTest, M::None, S::None, true, false},
    {F::MPI_Waitsome, "MPI_Waitsome", P::Mpi, C::BlockingReceiveWait, G::WaitTest, M::None, S::None, true, false},
    {F::MPI_Test, "MPI_Test", P::Mpi, C::NonblockingReceiveTest, G::WaitTest, M::None, S::None, false, false},
    {F::MPI_Testany, "MPI_Testany", P::Mpi, C::NonblockingReceiveTest, G::WaitTest, M::None, S::None, false, false},
    {F::MPI_Testall, "MPI_Testall", P::Mpi, C::NonblockingReceiveTest, G::WaitTest, M::None, S::None, false, false},
    {F::MPI_Testsome, "MPI_Testsome", P::Mpi, C::NonblockingReceiveTest, G::WaitTest, M::None, S::None, false, false},
    {F::MPI_Request_free, "MPI_Request_free", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Cancel, "MPI_Cancel", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Test_cancelled, "MPI_Test_cancelled", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Send_init, "MPI_Send_init", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Bsend_init, "MPI_Bsend_init", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Ssend_init, "MPI_Ssend_init", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Rsend_init, "MPI_Rsend_init", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Recv_init, "MPI_Recv_init", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Start, "MPI_Start", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Startall, "MPI_Startall", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Buffer_attach, "MPI_Buffer_attach", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Buffer_detach, "MPI_Buffer_detach", P::Mpi, C::Other, G::Other, M::None, S::None, true, false},
    {F::MPI_Barrier, "MPI_Barrier", P::Mpi, C::Collective, G::Collective, M::None, S::Barrier, true, false},
    {F::MPI_Bcast, "MPI_Bcast", P::Mpi, C::Collective, G::Collective, M::None, S::OneToAll, true, false},
    {F::MPI_Gather, "MPI_Gather", P::Mpi, C::Collective, G::Collective, M::None, S::AllToOne, true, false},
    {F::MPI_Gatherv, "MPI_Gatherv", P::Mpi, C::Collective, G::Collective, M::None, S::AllToOne, true, false},
    {F::MPI_Scatter, "MPI_Scatter", P::Mpi, C::Collective, G::Collective, M::None, S::OneToAll, true, false},
    {F::MPI_Scatterv, "MPI_Scatterv", P::Mpi, C::Collective, G::Collective, M::None, S::OneToAll, true, false},
    {F::MPI_Allgather, "MPI_Allgather", P::Mpi, C::Collective, G::Collective, M::None, S::AllToAll, true, false},
    {F::MPI_Allgatherv, "MPI_Allgatherv", P::Mpi, C::Collective, G::Collective, M::None, S::AllToAll, true, false},
    {F::MPI_Alltoall, "MPI_Alltoall", P::Mpi, C::Collective, G::Collective, M::None, S::AllToAll, true, false},
    {F::MPI_Alltoallv, "MPI_Alltoallv", P::Mpi, C::Collective, G::Collective, M::None, S::AllToAll, true, false},
    {F::MPI_Alltoallw, "MPI_Alltoallw", P::Mpi, C::Collective, G::Collective, M::None, S::AllToAll, true, false},
    {F::MPI_Reduce, "MPI_Reduce", P::Mpi, C::Collective, G::Collective, M::None, S::AllToOne, true, false},
    {F::MPI_Allreduce, "MPI_Allreduce", P::Mpi, C::Collective, G::Collective, M::None, S::AllToAll, true, false},
    {F::MPI_Reduce_scatter, "MPI_Reduce_scatter", P::Mpi, C::Collective, G::Collective, M::None, S::AllToAll, true, false},
    {F::MPI_Reduce_scatter_block, "MPI_Reduce_scatter_block", P::Mpi, C::Collective, G::Collective, M::None, S::AllToAll, true, false},
    {F::MPI_Scan, "MPI_Scan", P::Mpi, C::Collective, G::Collective, M::None, S::Prefix, true, false},
    {F::MPI_Exscan, "MPI_Exscan", P::Mpi, C::Collective, G::Collective, M::None, S::Prefix, true, false},
    {F::MPI_Ibarrier, "MPI_Ibarrier", P::Mpi, C::Collective, G::Collective, M::None, S::Barrier, false, false},
    {F::MPI_Ibcast, "MPI_Ibcast", P::Mpi, C::Collective, G::Collective, M::None, S::OneToAll, false, false},
    {F::MPI_Igather, "MPI_Igather", P::Mpi, C::Collective, G::Collective, M::None, S::AllToOne, false, false},
    {F::MPI_Igatherv, "MPI_Igatherv", P::Mpi, C::Collective, G::Collective, M::None, S::AllToOne, false, false},
    {F::MPI_Iscatter, "MPI_Iscatter", P::Mpi, C::Collective, G::Collective, M::None, S::OneToAll, false, false},
    {F::MPI_Iscatterv, "MPI_Iscatterv", P::Mpi, C::Collective, G::Collective, M::None, S::OneToAll, false, false},
    {F::MPI_Iallgather, "MPI_Iallgather", P::Mpi, C::Collective, G::Collective, M::None, S::AllToAll, false, false},
    {F::MPI_Iallgatherv, "MPI_Iallgatherv", P::Mpi, C::Collective, G::Collective, M::None, S::AllToAll, false, false},
    {F::MPI_Ialltoall, "MPI_Ialltoall", P::Mpi, C::Collective, G::Collective, M::None, S::AllToAll, false, false},
    {F::MPI_Ialltoallv, "MPI_Ialltoallv", P::Mpi, C::Collective, G::Collective, M::None, S::AllToAll, false, false},
    {F::MPI_Ireduce, "MPI_Ireduce", P::Mpi, C::Collective, G::Collective, M::None, S::AllToOne, false, false},
    {F::MPI_Iallreduce, "MPI_Iallreduce", P::Mpi, C::Collective, G::Collective, M::None, S::AllToAll, false, false},
    {F::MPI_Ireduce_scatter, "MPI_Ireduce_scatter", P::Mpi, C::Collective, G::Collective, M::None, S::AllToAll, false, false},
    {F::MPI_Iscan, "MPI_Iscan", P::Mpi, C::Collective, G::Collective, M::None, S::Prefix, false, false},
    {F::MPI_Iexscan, "MPI_Iexscan", P::Mpi, C::Collective, G::Collective, M::None, S::Prefix, false, false},
    {F::ShmemInit, "shmem_init", P::Shmem, C::Other, G::Shmem, M::None, S::None, true, false},
    {F::ShmemFinalize, "shmem_finalize", P::Shmem, C::Other, G::Shmem, M::None, S::None, true, false},
    {F::ShmemBarrierAll, "shmem_barrier_all", P::Shmem, C::Collective, G::Shmem, M::None, S::Barrier, true, false},
    {F::ShmemBarrier, "shmem_barrier", P::Shmem, C::Collective, G::Shmem, M::None, S::Barrier, true, false},
    {F::ShmemSetLock, "shmem_set_lock", P::Shmem, C::Other, G::Shmem, M::None, S::None, true, false},
    {F::ShmemTestLock, "shmem_test_lock", P::Shmem, C::Other, G::Shmem, M::None, S::None, false, false},
    {F::ShmemClearLock, "shmem_clear_lock", P::Shmem, C::Other, G::Shmem, M::None, S::None, true, false},
    {F::ShmemBroadcast, "shmem_broadcast", P::Shmem, C::Collective, G::Shmem, M::None, S::OneToAll, true, false},
    {F::ShmemCollect, "shmem_collect", P::Shmem, C::Collective, G::Shmem, M::None, S::AllToAll, true, false},
    {F::ShmemFcollect, "shmem_fcollect", P::Shmem, C::Collective, G::Shmem, M::None, S::AllToAll, true, false},
    {F::ShmemAlltoall, "shmem_alltoall", P::Shmem, C::Collective, G::Shmem, M::None, S::AllToAll, true, false},
    {F::ShmemReduce, "shmem_to_all", P::Shmem, C::Collective, G::Shmem, M::None, S::AllToAll, true, false},
    {F::ShmemMalloc, "shmem_malloc", P::Shmem, C::Collective, G::Shmem, M::None, S::Allocation, true, false},
    {F::ShmemFree, "shmem_free", P::Shmem, C::Collective, G::Shmem, M::None, S::Allocation, true, false},
    {F::ShmemPut, "shmem_put", P::Shmem, C::Other, G::Shmem, M::None, S::None, false, false},
    {F::ShmemGet, "shmem_get", P::Shmem, C::Other, G::Shmem, M::None, S::None, true, false},
    {F::ShmemQuiet, "shmem_quiet", P::Shmem, C::Other, G::Shmem, M::None, S::None, true, false},
    {F::ShmemFence, "shmem_fence", P::Shmem, C::Other, G::Shmem, M::None, S::None, true, false},
    {F::ShmemWaitUntil, "shmem_wait_until", P::Shmem, C::Other, G::Shmem, M::None, S::None, true, false},
});
// clang-format on

static_assert(kTable.size() == static_cast<std::size_t>(Function::Count_) - 1,
              "every Function needs exactly one row in kTable");

constexpr bool table_is_in_enum_order() {
  for (std::size_t i = 0; i < kTable.size(); ++i) {
    if (static_cast<std::size_t>(kTable[i].function) != i + 1) {
      return false;
    }
  }
  return true;
}
static_assert(table_is_in_enum_order(), "kTable rows must follow the Function enum order");

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// OpenSHMEM typed variants: shmem_<type>_<op>, shmem_<op><bits>, shmem_<op>mem, and the old
// names (shmalloc, shfree, start_pes). The caller has lower-cased the name.
Function shmem_by_name(std::string_view n) {
  if (n == "shmalloc" || n == "shmem_malloc" || n == "shmem_calloc" || n == "shmem_align" ||
      n == "shmemalign" || n == "shmem_realloc" || n == "shrealloc") {
    return F::ShmemMalloc;
  }
  if (n == "shfree" || n == "shmem_free") {
    return F::ShmemFree;
  }
  if (n == "start_pes" || n == "shmem_init" || n == "shmem_init_thread") {
    return F::ShmemInit;
  }
  if (!starts_with(n, "shmem_")) {
    return F::None;
  }
  n.remove_prefix(6);
  if (n == "finalize") {
    return F::ShmemFinalize;
  }
  if (n == "barrier_all") {
    return F::ShmemBarrierAll;
  }
  if (n == "barrier" || n == "sync" || n == "team_sync" || n == "sync_all") {
    return n == "sync_all" ? F::ShmemBarrierAll : F::ShmemBarrier;
  }
  if (n == "set_lock") {
    return F::ShmemSetLock;
  }
  if (n == "test_lock") {
    return F::ShmemTestLock;
  }
  if (n == "clear_lock") {
    return F::ShmemClearLock;
  }
  if (n == "quiet") {
    return F::ShmemQuiet;
  }
  if (n == "fence") {
    return F::ShmemFence;
  }
  if (ends_with(n, "_to_all") || ends_with(n, "_reduce")) {
    return F::ShmemReduce;
  }
  if (starts_with(n, "broadcast")) {
    return F::ShmemBroadcast;
  }
  if (starts_with(n, "fcollect")) {
    return F::ShmemFcollect;
  }
  if (starts_with(n, "collect")) {
    return F::ShmemCollect;
  }
  if (starts_with(n, "alltoall")) {
    return F::ShmemAlltoall;
  }
  if (n.find("wait") != std::string_view::npos) {
    return F::ShmemWaitUntil;
  }
  // Typed or sized puts and gets: putmem, int_put, put64, int_p, iput, put_nbi, double_g ...
  const bool put = n.find("put") != std::string_view::npos || ends_with(n, "_p");
  const bool get = n.find("get") != std::string_view::npos || ends_with(n, "_g");
  if (put && !get) {
    return F::ShmemPut;
  }
  if (get && !put) {
    return F::ShmemGet;
  }
  return F::None;
}

} // namespace

const FunctionInfo &function_info(Function f) {
  const auto i = static_cast<std::size_t>(f);
  if (i == 0 || i > kTable.size()) {
    return kUserCode;
  }
  return kTable[i - 1];
}

Function function_by_name(std::string_view name) {
  if (starts_with(name, "PMPI_")) {
    name.remove_prefix(1);
  }
  if (starts_with(name, "MPI_")) {
    for (const auto &row : kTable) {
      if (row.paradigm == P::Mpi && row.name == name) {
        return row.function;
      }
    }
    return F::None;
  }
  if (starts_with(name, "pshmem_")) {
    name.remove_prefix(1);
  }
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return shmem_by_name(lower);
}

std::optional<Group> group_by_name(std::string_view name) {
  for (auto g :
       {G::Collective, G::P2PBlocking, G::P2PNonblocking, G::WaitTest, G::Other, G::Shmem}) {
    if (group_name(g) == name) {
      return g;
    }
  }
  return std::nullopt;
}

std::string_view group_name(Group g) {
  switch (g) {
  case G::None:
    return "none";
  case G::Collective:
    return "coll";
  case G::P2PBlocking:
    return "p2p-blocking";
  case G::P2PNonblocking:
    return "p2p-nonblocking";
  case G::WaitTest:
    return "wait-test";
  case G::Other:
    return "other";
  case G::Shmem:
    return "shmem";
  }
  return "none";
}

} // namespace parjava::trace
