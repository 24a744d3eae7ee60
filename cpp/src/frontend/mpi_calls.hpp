// The MPI functions the model builder understands: which model operation each C call becomes and
// where each model argument comes from in the C argument list (seed 000 notes §2.6: cfc blocks
// keep every argument as an expression; sizes are count × datatype size in bytes).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace parjava::frontend {

// What a call to an MPI function means for the model.
enum class MpiRole : std::uint8_t {
  Communication,  // a cfc leaf with an operation
  CommRank,       // MPI_Comm_rank(comm, &r): r = rank
  CommSize,       // MPI_Comm_size(comm, &s): s = size
  Init,           // MPI_Init / MPI_Init_thread
  Finalize,       // MPI_Finalize
  Wtime,          // MPI_Wtime / MPI_Wtick: a clock read
  TypeContiguous, // MPI_Type_contiguous(count, old, &new): size(new) = count * size(old)
  TypeVector,     // MPI_Type_vector(count, blocklen, stride, old, &new)
  TypeSize,       // MPI_Type_size(type, &s)
  GetCount,       // MPI_Get_count(&status, type, &count)
  Group,          // MPI_Group_incl / MPI_Group_range_incl: a leaf (structure_mpi.cpp)
  Local,          // local bookkeeping (Type_commit, Type_free, Op_create, ...): an efc
  // Cartesian topologies (MPI 4.0 §8.5): computed by the model from the grid (effects.cpp).
  DimsCreate, // MPI_Dims_create(n, ndims, dims)
  CartCoords, // MPI_Cart_coords(comm, rank, maxdims, coords)
  CartShift,  // MPI_Cart_shift(comm, direction, disp, &source, &dest)
  CartRank,   // MPI_Cart_rank(comm, coords, &rank)
  // Persistent requests (MPI 4.0 §3.9, structure_persistent.cpp): an MPI_*_init records the
  // operation (`operation`, with its arguments) that each MPI_Start / MPI_Startall of the
  // request posts.
  PersistentInit,
  Start,
};

// Where one model argument comes from.
struct MpiArg {
  enum class Kind : std::uint8_t {
    Expr,         // the C argument `index` as an expression
    Bytes,        // C argument `index` (count) times the size of datatype argument `aux`
    PeerBytes,    // Bytes of a v-collective: the block of rank `peer` is that rank's own count
    Comm,         // communicator argument
    NewComm,      // &newcomm out-argument (Comm_split, Comm_dup)
    Request,      // &req or &reqs[k]: request array name and index
    RequestArray, // an array of requests (Waitall, Waitany, Testall)
    Status,       // &status: status_source / status_tag / status_bytes outputs
    Flag,         // &flag out-argument
    Index,        // &index out-argument (Waitany)
  };
  std::string_view model_name; // "dest", "bytes", "request", ... ("" for Status)
  Kind kind = Kind::Expr;
  int index = 0;
  int aux = -1;
};

struct MpiFunction {
  std::string_view name; // C name ("MPI_Send")
  MpiRole role = MpiRole::Local;
  std::string_view operation; // model operation name for Communication
  std::vector<MpiArg> args;
  int comm_index = -1; // CommRank / CommSize: the communicator argument
  int out_index = -1;  // CommRank/CommSize/Type*/GetCount: the out-argument
};

// The description of an MPI function, or nullopt for names this table does not know.
const MpiFunction *find_mpi_function(std::string_view name);

// Size in bytes of a predefined MPI datatype named as in mpi.h ("MPI_DOUBLE") or as Open MPI's
// symbol ("ompi_mpi_double"); nullopt if unknown.
std::optional<std::int64_t> mpi_datatype_size(std::string_view name);

// True for names that look like MPI calls (MPI_ / PMPI_ prefix).
bool is_mpi_name(std::string_view name);

} // namespace parjava::frontend
