// PMPI wrappers of the blocking MPI collectives: MpiCollectiveBegin after the Enter and
// MpiCollectiveEnd before the Leave, with the OTF2 collective operation, communicator, root
// (rank in the communicator) and the bytes this process sent and received. Byte counts follow
// the buffers the call reads and writes on this process (docs/otf2-conventions.md): e.g. a
// Bcast root sends `count` elements and receives none, a Gather root receives size x recvcount.
#include <mpi.h>
#include <otf2/OTF2_Events.h>

#include "call.hpp"
#include "communicators.hpp"
#include "messages.hpp"

namespace parjava::tracer::runtime {
namespace {

struct Collective {
  std::uint32_t comm;
  int rank;
  int size;
};

Collective collective_of(MPI_Comm comm) {
  Collective c{comm_id(comm), 0, 0};
  PMPI_Comm_rank(comm, &c.rank);
  PMPI_Comm_size(comm, &c.size);
  return c;
}

void end(Call &call, const Collective &c, OTF2_CollectiveOp op, int root, std::uint64_t sent,
         std::uint64_t received) {
  Record r;
  r.kind = RecordKind::CollectiveEnd;
  r.comm = c.comm;
  r.peer = root;
  r.tag = static_cast<std::int32_t>(op);
  r.a = sent;
  r.b = received;
  call.at_leave(r);
}

std::uint64_t sum_bytes(const int counts[], MPI_Datatype type, int n) {
  std::uint64_t total = 0;
  for (int i = 0; i < n; ++i) {
    total += bytes_of(counts[i], type);
  }
  return total;
}

} // namespace
} // namespace parjava::tracer::runtime

using namespace parjava::tracer::runtime; // NOLINT(google-build-using-namespace)
using parjava::tracer::Routine;

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  Call call(Routine::MPI_Barrier, PARJAVA_CALL_SITE());
  const int rc = PMPI_Barrier(comm);
  if (call) {
    end(call, collective_of(comm), OTF2_COLLECTIVE_OP_BARRIER, -1, 0, 0);
  }
  return rc;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  Call call(Routine::MPI_Bcast, PARJAVA_CALL_SITE());
  const int rc = PMPI_Bcast(buffer, count, type, root, comm);
  if (call) {
    const auto c = collective_of(comm);
    const auto bytes = bytes_of(count, type);
    end(call, c, OTF2_COLLECTIVE_OP_BCAST, root, c.rank == root ? bytes : 0,
        c.rank == root ? 0 : bytes);
  }
  return rc;
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  Call call(Routine::MPI_Gather, PARJAVA_CALL_SITE());
  const int rc =
      PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  if (call) {
    const auto c = collective_of(comm);
    const std::uint64_t received =
        c.rank == root ? static_cast<std::uint64_t>(c.size) * bytes_of(recvcount, recvtype) : 0;
    end(call, c, OTF2_COLLECTIVE_OP_GATHER, root, bytes_of(sendcount, sendtype), received);
  }
  return rc;
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  Call call(Routine::MPI_Gatherv, PARJAVA_CALL_SITE());
  const int rc =
      PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  if (call) {
    const auto c = collective_of(comm);
    const auto received = c.rank == root ? sum_bytes(recvcounts, recvtype, c.size) : 0;
    end(call, c, OTF2_COLLECTIVE_OP_GATHERV, root, bytes_of(sendcount, sendtype), received);
  }
  return rc;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  Call call(Routine::MPI_Scatter, PARJAVA_CALL_SITE());
  const int rc =
      PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  if (call) {
    const auto c = collective_of(comm);
    const std::uint64_t sent =
        c.rank == root ? static_cast<std::uint64_t>(c.size) * bytes_of(sendcount, sendtype) : 0;
    end(call, c, OTF2_COLLECTIVE_OP_SCATTER, root, sent, bytes_of(recvcount, recvtype));
  }
  return rc;
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  Call call(Routine::MPI_Scatterv, PARJAVA_CALL_SITE());
  const int rc = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                               root, comm);
  if (call) {
    const auto c = collective_of(comm);
    const auto sent = c.rank == root ? sum_bytes(sendcounts, sendtype, c.size) : 0;
    end(call, c, OTF2_COLLECTIVE_OP_SCATTERV, root, sent, bytes_of(recvcount, recvtype));
  }
  return rc;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Call call(Routine::MPI_Allgather, PARJAVA_CALL_SITE());
  const int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  if (call) {
    const auto c = collective_of(comm);
    end(call, c, OTF2_COLLECTIVE_OP_ALLGATHER, -1, bytes_of(sendcount, sendtype),
        static_cast<std::uint64_t>(c.size) * bytes_of(recvcount, recvtype));
  }
  return rc;
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  Call call(Routine::MPI_Allgatherv, PARJAVA_CALL_SITE());
  const int rc =
      PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  if (call) {
    const auto c = collective_of(comm);
    end(call, c, OTF2_COLLECTIVE_OP_ALLGATHERV, -1, bytes_of(sendcount, sendtype),
        sum_bytes(recvcounts, recvtype, c.size));
  }
  return rc;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Call call(Routine::MPI_Alltoall, PARJAVA_CALL_SITE());
  const int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  if (call) {
    const auto c = collective_of(comm);
    const auto n = static_cast<std::uint64_t>(c.size);
    end(call, c, OTF2_COLLECTIVE_OP_ALLTOALL, -1, n * bytes_of(sendcount, sendtype),
        n * bytes_of(recvcount, recvtype));
  }
  return rc;
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  Call call(Routine::MPI_Alltoallv, PARJAVA_CALL_SITE());
  const int rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                rdispls, recvtype, comm);
  if (call) {
    const auto c = collective_of(comm);
    end(call, c, OTF2_COLLECTIVE_OP_ALLTOALLV, -1, sum_bytes(sendcounts, sendtype, c.size),
        sum_bytes(recvcounts, recvtype, c.size));
  }
  return rc;
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  Call call(Routine::MPI_Alltoallw, PARJAVA_CALL_SITE());
  const int rc = PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                rdispls, recvtypes, comm);
  if (call) {
    const auto c = collective_of(comm);
    std::uint64_t sent = 0;
    std::uint64_t received = 0;
    for (int i = 0; i < c.size; ++i) {
      sent += bytes_of(sendcounts[i], sendtypes[i]);
      received += bytes_of(recvcounts[i], recvtypes[i]);
    }
    end(call, c, OTF2_COLLECTIVE_OP_ALLTOALLW, -1, sent, received);
  }
  return rc;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  Call call(Routine::MPI_Reduce, PARJAVA_CALL_SITE());
  const int rc = PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  if (call) {
    const auto c = collective_of(comm);
    const auto bytes = bytes_of(count, type);
    end(call, c, OTF2_COLLECTIVE_OP_REDUCE, root, bytes, c.rank == root ? bytes : 0);
  }
  return rc;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  Call call(Routine::MPI_Allreduce, PARJAVA_CALL_SITE());
  const int rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  if (call) {
    const auto bytes = bytes_of(count, type);
    end(call, collective_of(comm), OTF2_COLLECTIVE_OP_ALLREDUCE, -1, bytes, bytes);
  }
  return rc;
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  Call call(Routine::MPI_Reduce_scatter, PARJAVA_CALL_SITE());
  const int rc = PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
  if (call) {
    const auto c = collective_of(comm);
    end(call, c, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, -1, sum_bytes(recvcounts, type, c.size),
        bytes_of(recvcounts[c.rank], type));
  }
  return rc;
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  Call call(Routine::MPI_Reduce_scatter_block, PARJAVA_CALL_SITE());
  const int rc = PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
  if (call) {
    const auto c = collective_of(comm);
    const auto bytes = bytes_of(recvcount, type);
    end(call, c, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, -1,
        static_cast<std::uint64_t>(c.size) * bytes, bytes);
  }
  return rc;
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm) {
  Call call(Routine::MPI_Scan, PARJAVA_CALL_SITE());
  const int rc = PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
  if (call) {
    const auto bytes = bytes_of(count, type);
    end(call, collective_of(comm), OTF2_COLLECTIVE_OP_SCAN, -1, bytes, bytes);
  }
  return rc;
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm) {
  Call call(Routine::MPI_Exscan, PARJAVA_CALL_SITE());
  const int rc = PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
  if (call) {
    const auto c = collective_of(comm);
    const auto bytes = bytes_of(count, type);
    end(call, c, OTF2_COLLECTIVE_OP_EXSCAN, -1, bytes, c.rank == 0 ? 0 : bytes);
  }
  return rc;
}

} // extern "C"
