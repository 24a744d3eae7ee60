// Region classification for the interval walk. The seed-004 categories (notes 004 §5) give the
// colour and the category column; the MPI-time bucket follows the names of the seed's output:
// SendRecv for point-to-point calls, CollectiveAll and AllToAll for collectives (AllToAll =
// collectives of CollectiveShape::AllToAll: Allreduce, Allgather*, Alltoall*, Reduce_scatter*;
// notes 004 §5 "inferred"), and "other" for the rest of the runtime (Init, Finalize, ...).
#include "region_classes.hpp"

namespace parjava::analysis::detail {
namespace {

using trace::Category;
using trace::Function;

Characteristic category_column(Category c) {
  switch (c) {
  case Category::Collective:
    return Characteristic::CategoryCollective;
  case Category::BlockingSend:
    return Characteristic::CategoryBlockingSend;
  case Category::NonblockingSend:
    return Characteristic::CategoryNonblockingSend;
  case Category::BlockingReceiveWait:
    return Characteristic::CategoryBlockingReceiveWait;
  case Category::NonblockingReceiveTest:
    return Characteristic::CategoryNonblockingReceiveTest;
  case Category::Other:
  case Category::UserCode:
    break;
  }
  return Characteristic::CategoryOther;
}

// One-sided SHMEM data movement is point-to-point communication although seed 004 (an MPI
// tool) has no category for it.
bool is_shmem_transfer(Function f) {
  return f == Function::ShmemPut || f == Function::ShmemGet || f == Function::ShmemQuiet ||
         f == Function::ShmemFence || f == Function::ShmemWaitUntil;
}

// Calls that start a non-blocking operation (notes 004 F12: "non-blocking operations"; tests
// and probes only look, so they are not starts).
bool starts_nonblocking(const trace::FunctionInfo &info) {
  if (info.function == Function::MPI_Start || info.function == Function::MPI_Startall) {
    return true;
  }
  if (info.blocking) {
    return false;
  }
  switch (info.function) {
  case Function::MPI_Test:
  case Function::MPI_Testany:
  case Function::MPI_Testall:
  case Function::MPI_Testsome:
  case Function::MPI_Iprobe:
  case Function::ShmemTestLock:
    return false;
  default:
    return true;
  }
}

} // namespace

std::vector<RegionClass> classify_regions(const trace::Trace &trace) {
  std::vector<RegionClass> classes(trace.regions.size());
  for (std::size_t r = 0; r < trace.regions.size(); ++r) {
    const auto &region = trace.regions[r];
    auto &cls = classes[r];
    if (region.role == trace::RegionRole::Artificial ||
        region.role == trace::RegionRole::Interval) {
      continue; // Score-P's "PARALLEL" and interval regions are neither calls nor user regions
    }
    const bool runtime = region.paradigm == trace::Paradigm::Mpi ||
                         region.paradigm == trace::Paradigm::Shmem ||
                         region.function != Function::None;
    if (!runtime) {
      cls.user_interval = region.paradigm == trace::Paradigm::User;
      continue;
    }
    const auto &info = trace::function_info(region.function);
    cls.runtime_call = true;
    cls.category =
        category_column(region.function == Function::None ? Category::Other : info.category);
    if (info.category == Category::Collective) {
      cls.bucket = info.shape == trace::CollectiveShape::AllToAll ? Characteristic::AllToAll
                                                                  : Characteristic::Collective;
    } else if (info.category == Category::BlockingSend ||
               info.category == Category::NonblockingSend ||
               info.category == Category::BlockingReceiveWait ||
               info.category == Category::NonblockingReceiveTest ||
               is_shmem_transfer(region.function)) {
      cls.bucket = Characteristic::PointToPoint;
    }
    cls.starts_nonblocking = region.function != Function::None && starts_nonblocking(info);
    cls.blocking_send = region.function == Function::MPI_Send ||
                        region.function == Function::MPI_Ssend ||
                        region.function == Function::MPI_Sendrecv ||
                        region.function == Function::MPI_Sendrecv_replace;
  }
  return classes;
}

} // namespace parjava::analysis::detail
