// Names of the interval characteristics (columns in Python, keys in JSON).
#include "parjava/analysis/intervals/characteristic.hpp"

namespace parjava::analysis {

std::string_view characteristic_name(Characteristic c) {
  switch (c) {
  case Characteristic::Time:
    return "time";
  case Characteristic::Cpu:
    return "cpu";
  case Characteristic::Mpi:
    return "mpi";
  case Characteristic::PointToPoint:
    return "point_to_point";
  case Characteristic::Collective:
    return "collective";
  case Characteristic::AllToAll:
    return "all_to_all";
  case Characteristic::OtherMpi:
    return "other_mpi";
  case Characteristic::SendRecv:
    return "sendrecv";
  case Characteristic::Communication:
    return "communication";
  case Characteristic::TimeOfStart:
    return "time_of_start";
  case Characteristic::RealSync:
    return "real_sync";
  case Characteristic::PotentialSync:
    return "potential_sync";
  case Characteristic::TimeVariation:
    return "time_variation";
  case Characteristic::Overlap:
    return "overlap";
  case Characteristic::SequentialCpu:
    return "sequential_cpu";
  case Characteristic::Unrecorded:
    return "unrecorded";
  case Characteristic::CategoryCollective:
    return "category_collective";
  case Characteristic::CategoryBlockingSend:
    return "category_blocking_send";
  case Characteristic::CategoryNonblockingSend:
    return "category_nonblocking_send";
  case Characteristic::CategoryBlockingReceiveWait:
    return "category_blocking_receive_wait";
  case Characteristic::CategoryNonblockingReceiveTest:
    return "category_nonblocking_receive_test";
  case Characteristic::CategoryOther:
    return "category_other";
  case Characteristic::InsufficientParallelism:
    return "insufficient_parallelism";
  case Characteristic::Idle:
    return "idle";
  case Characteristic::LoadImbalance:
    return "load_imbalance";
  case Characteristic::Productive:
    return "productive";
  case Characteristic::Lost:
    return "lost";
  case Characteristic::Count_:
    break;
  }
  return "unknown";
}

} // namespace parjava::analysis
