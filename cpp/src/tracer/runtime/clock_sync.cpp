// Ping-pong clock synchronisation (clock_sync.hpp).
#include "clock_sync.hpp"

#include <cstdint>
#include <limits>

#include "line_writer.hpp"
#include "process.hpp"

namespace parjava::tracer::runtime {
namespace {

constexpr int kRoundTrips = 20;

void log_clock(const char *phase, std::uint64_t local, std::int64_t offset, std::uint64_t rtt) {
  LineWriter w;
  w.text("clock ")
      .text(phase)
      .space()
      .number(local)
      .space()
      .number(offset)
      .space()
      .number(rtt)
      .end();
  defs_line(w);
}

} // namespace

void synchronize_clocks(MPI_Comm comm, const char *phase) {
  int rank = 0;
  int size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  if (rank == 0) {
    for (int peer = 1; peer < size; ++peer) {
      std::uint64_t best_rtt = std::numeric_limits<std::uint64_t>::max();
      // result = {remote time at the best exchange, offset, round trip}
      std::int64_t result[3] = {0, 0, 0};
      for (int k = 0; k < kRoundTrips; ++k) {
        const std::uint64_t t1 = monotonic_ns();
        PMPI_Send(&t1, 1, MPI_UINT64_T, peer, 0, comm);
        std::uint64_t remote = 0;
        PMPI_Recv(&remote, 1, MPI_UINT64_T, peer, 0, comm, MPI_STATUS_IGNORE);
        const std::uint64_t t2 = monotonic_ns();
        if (t2 - t1 < best_rtt) {
          best_rtt = t2 - t1;
          const auto midpoint = t1 + (t2 - t1) / 2;
          result[0] = static_cast<std::int64_t>(remote);
          result[1] = static_cast<std::int64_t>(remote) - static_cast<std::int64_t>(midpoint);
          result[2] = static_cast<std::int64_t>(best_rtt);
        }
      }
      PMPI_Send(result, 3, MPI_INT64_T, peer, 1, comm);
    }
    log_clock(phase, monotonic_ns(), 0, 0);
    return;
  }
  for (int k = 0; k < kRoundTrips; ++k) {
    std::uint64_t t1 = 0;
    PMPI_Recv(&t1, 1, MPI_UINT64_T, 0, 0, comm, MPI_STATUS_IGNORE);
    const std::uint64_t here = monotonic_ns();
    PMPI_Send(&here, 1, MPI_UINT64_T, 0, 0, comm);
  }
  std::int64_t result[3] = {0, 0, 0};
  PMPI_Recv(result, 3, MPI_INT64_T, 0, 1, comm, MPI_STATUS_IGNORE);
  log_clock(phase, static_cast<std::uint64_t>(result[0]), result[1],
            static_cast<std::uint64_t>(result[2]));
}

} // namespace parjava::tracer::runtime
