// The per-process characteristics of an interval (notes 004 §4.1-§4.4, notes 002 §S.1), all
// times in nanoseconds. The first kAdditiveCount are sums over the time of the interval on the
// process, so a parent's value is its own part plus the sum of its children's (additive); the
// rest are derived per interval from the others and are not additive.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace parjava::analysis {

enum class Characteristic : std::uint8_t {
  // --- additive: measured while walking the events -------------------------------------
  Time,          // T_p: time of the interval on the process (all executions); = Cpu + Mpi
  Cpu,           // user code: time outside runtime (MPI/SHMEM) calls (notes 004 §4.5: T − MPI)
  Mpi,           // MPI_p: time inside runtime calls (F8); = PointToPoint + Collective +
                 //   AllToAll + OtherMpi
  PointToPoint,  // time inside point-to-point calls (categories 2-5; SHMEM put/get/quiet)
  Collective,    // time inside collectives that are not all-to-all ("CollectiveAll")
  AllToAll,      // time inside all-to-all collectives (Allreduce, Allgather*, Alltoall*, ...)
  OtherMpi,      // time inside other runtime calls (category 6, Init, Finalize, Comm_*, ...)
  SendRecv,      // SendRecv time (SendRecvTime option): PointToPoint or message times (F9)
  Communication, // SendRecv + Collective + AllToAll
  TimeOfStart,   // time inside calls that start non-blocking operations (F12)
  RealSync,      // time actually spent waiting for a late partner (late sender, late
                 //   receiver, collective arrival order); charged to the waiting process
  PotentialSync, // start skew of collectives and receives posted before their send (F10)
  TimeVariation, // end skew of collectives (F11)
  Overlap,       // user-code time while a non-blocking request of the process is pending
  SequentialCpu, // user-code time inside intervals marked sequential
  Unrecorded,    // user-code time with measurement switched off (MPI_Pcontrol(0))
  CategoryCollective,             // time in seed-004 category 1 (notes 004 §5)
  CategoryBlockingSend,           // category 2
  CategoryNonblockingSend,        // category 3
  CategoryBlockingReceiveWait,    // category 4
  CategoryNonblockingReceiveTest, // category 5
  CategoryOther,                  // category 6 (category 7, user code, is Cpu)
  // --- derived per interval ---------------------------------------------------------------
  InsufficientParallelism, // SequentialCpu · (P − 1)/P (notes 002 §8 formula 5)
  Idle,                    // Exec − T_p (F5)
  LoadImbalance,           // max_q L_q − L_p (F6, LoadBasis)
  Productive,              // Cpu − InsufficientParallelism (+ Mpi on p* in mode B)
  Lost,                    // InsufficientParallelism + Mpi + Idle (− Mpi on p* in mode B) (F7)
  Count_
};

inline constexpr std::size_t kCharacteristicCount =
    static_cast<std::size_t>(Characteristic::Count_);
inline constexpr std::size_t kAdditiveCount =
    static_cast<std::size_t>(Characteristic::InsufficientParallelism);

constexpr std::size_t index_of(Characteristic c) { return static_cast<std::size_t>(c); }

// Snake-case name ("time", "potential_sync", ...), used for columns in Python and JSON.
std::string_view characteristic_name(Characteristic c);

// One row of characteristics (a process of an interval).
using CharacteristicRow = std::array<std::int64_t, kCharacteristicCount>;

} // namespace parjava::analysis
