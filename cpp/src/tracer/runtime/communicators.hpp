// Communicator identities of one process. Each communicator gets a process-local id (0 is
// MPI_COMM_WORLD, 1 MPI_COMM_SELF) and a definitions-log line with its members as world ranks
// and a key that is the same in every member process, so the assembler unifies them without
// any communication at run time: a child's key is its parent's key, the number of creation
// calls the parent had seen, and the smallest world rank of the child (which tells apart the
// communicators one MPI_Comm_split makes).
#pragma once

#include <cstdint>
#include <mpi.h>

#include "parjava/tracer/routines.hpp"

namespace parjava::tracer::runtime {

inline constexpr std::uint32_t kWorldComm = 0;
inline constexpr std::uint32_t kSelfComm = 1;

// After MPI_Init: define MPI_COMM_WORLD and MPI_COMM_SELF.
void register_world_communicators(int world_rank, int world_size);

// OpenSHMEM without an initialised MPI: define the world (all PEs) and self the same way.
void register_world_without_mpi(int world_rank, int world_size);
// The communicator of an OpenSHMEM active set (PE_start, logPE_stride, PE_size); the world's
// id when the set is all PEs. Every PE computes the same key, no communication needed.
std::uint32_t active_set_comm(int start, int log_stride, int size);

// The process-local id of a communicator (fast for MPI_COMM_WORLD). A communicator this tracer
// did not see created (e.g. from MPI_Comm_create_group) is defined on first use, keyed by its
// member list.
std::uint32_t comm_id(MPI_Comm comm);

// A collective creation call over `parent` returned `child` (MPI_COMM_NULL when this process
// is not a member). Every member of the parent calls this once per creation call.
void comm_created(MPI_Comm parent, MPI_Comm child, Routine how);
// MPI_Comm_free: forget the handle (the id stays defined; handles get reused).
void comm_freed(MPI_Comm comm);

} // namespace parjava::tracer::runtime
