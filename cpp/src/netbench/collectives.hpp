// Timing collectives on all ranks of a communicator: each sample is the slowest rank's mean
// time per operation over a batch that starts after a barrier.
#pragma once

#include <cstdint>
#include <string>

#include <mpi.h>

#include "parjava/machine/measurement.hpp"
#include "parjava/netbench/sampler.hpp"

namespace parjava::netbench {

enum class Collective { Barrier, Bcast, Allreduce, Alltoall };

std::string collective_name(Collective collective);

// `bytes` is the message size per rank (Bcast: the broadcast buffer; Allreduce: the vector of
// doubles, rounded down to whole doubles; Alltoall: the block sent to each rank). Collective
// over `comm`; the result is meaningful on rank 0.
machine::CollectiveTiming time_collective(MPI_Comm comm, Collective collective, std::uint64_t bytes,
                                          const SamplerOptions &options,
                                          double target_sample_seconds);

} // namespace parjava::netbench
