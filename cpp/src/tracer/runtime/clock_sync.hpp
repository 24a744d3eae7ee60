// Clock offsets to rank 0, measured by ping-pong with the minimum round trip (the offset
// estimate whose error is bounded by half that round trip). Measured after MPI_Init and before
// MPI_Finalize; the assembler interpolates linearly between the two to correct drift.
#pragma once

#include <mpi.h>

namespace parjava::tracer::runtime {

// Collective over `comm` (a private duplicate of MPI_COMM_WORLD). Logs
//   clock <phase> <local ns at the measurement> <offset ns = local - rank 0> <round trip ns>
void synchronize_clocks(MPI_Comm comm, const char *phase);

} // namespace parjava::tracer::runtime
