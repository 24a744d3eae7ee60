// Small helpers the MPI wrappers share: message sizes and event records.
#pragma once

#include <cstdint>
#include <mpi.h>

#include "parjava/tracer/fragment.hpp"

namespace parjava::tracer::runtime {

inline std::uint64_t bytes_of(int count, MPI_Datatype type) {
  int size = 0;
  if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS ||
      size <= 0) {
    return 0;
  }
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
}

inline std::uint64_t received_bytes(const MPI_Status &status) {
  int count = 0;
  PMPI_Get_count(&status, MPI_BYTE, &count);
  return count > 0 ? static_cast<std::uint64_t>(count) : 0;
}

inline Record message(RecordKind kind, int peer, int tag, std::uint32_t comm, std::uint64_t bytes,
                      std::uint64_t request = 0) {
  Record r;
  r.kind = kind;
  r.peer = peer;
  r.tag = tag;
  r.comm = comm;
  r.a = bytes;
  r.b = request;
  return r;
}

inline Record request_event(RecordKind kind, std::uint64_t request) {
  Record r;
  r.kind = kind;
  r.b = request;
  return r;
}

} // namespace parjava::tracer::runtime
