// PMPI wrappers of the MPI environment: MPI_Init(_thread) sets up the process (rank,
// communicators, clock offsets, overhead calibration, signal handlers), MPI_Finalize measures
// the clocks again and writes everything before the runtime shuts down, MPI_Abort writes
// everything before the job is killed, MPI_Pcontrol pauses and resumes (seed 000 §5.2: groups
// of wrappers switched on and off), and the communicator constructors define communicators.
#include <mpi.h>

#include "calibration.hpp"
#include "call.hpp"
#include "clock_sync.hpp"
#include "communicators.hpp"
#include "line_writer.hpp"
#include "process.hpp"

namespace parjava::tracer::runtime {
namespace {

MPI_Comm g_sync_comm = MPI_COMM_NULL;

void after_init(Routine routine, std::uint64_t enter, std::uint64_t leave, const void *site) {
  int rank = 0;
  int size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  set_process_rank(rank, size, Paradigm::Mpi);
  register_world_communicators(rank, size);
  PMPI_Comm_dup(MPI_COMM_WORLD, &g_sync_comm);
  synchronize_clocks(g_sync_comm, "init");
  calibrate_overhead();
  write_tick_anchor();
  write_memory_map();
  // After the MPI runtime installed its own handlers, which ours chain to.
  install_signal_handlers();
  if (ThreadState *ts = enter_call(routine); ts != nullptr) {
    Record r;
    r.kind = RecordKind::Call;
    r.routine = static_cast<std::uint16_t>(routine);
    r.time = enter;
    r.a = leave;
    r.b = reinterpret_cast<std::uintptr_t>(site);
    ts->buffer.push(r);
    ts->depth = 0;
  }
}

} // namespace
} // namespace parjava::tracer::runtime

using namespace parjava::tracer::runtime; // NOLINT(google-build-using-namespace)
using parjava::tracer::Routine;

extern "C" {

int MPI_Init(int *argc, char ***argv) {
  const void *site = PARJAVA_CALL_SITE();
  const auto enter = now_ticks();
  const int rc = PMPI_Init(argc, argv);
  const auto leave = now_ticks();
  if (rc == MPI_SUCCESS) {
    after_init(Routine::MPI_Init, enter, leave, site);
  }
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  const void *site = PARJAVA_CALL_SITE();
  const auto enter = now_ticks();
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  const auto leave = now_ticks();
  if (rc == MPI_SUCCESS) {
    after_init(Routine::MPI_Init_thread, enter, leave, site);
  }
  return rc;
}

int MPI_Finalize() {
  Call call(Routine::MPI_Finalize, PARJAVA_CALL_SITE());
  LineWriter w;
  w.text("finalize ").number(now_ticks()).end();
  defs_line(w);
  if (g_sync_comm != MPI_COMM_NULL) {
    synchronize_clocks(g_sync_comm, "final");
    PMPI_Comm_free(&g_sync_comm);
  }
  // Everything so far is on disk before the runtime shuts down (it may hang or crash there).
  checkpoint();
  const int rc = PMPI_Finalize();
  call.returned();
  return rc;
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  // The Call stays open: MPI_Abort does not return, the trace shows where the program was.
  Call call(Routine::MPI_Abort, PARJAVA_CALL_SITE());
  end_process("abort", errorcode);
  return PMPI_Abort(comm, errorcode);
}

int MPI_Pcontrol(const int level, ...) {
  const void *site = PARJAVA_CALL_SITE();
  if (level == 0) {
    std::uint64_t off_time = 0;
    {
      Call call(Routine::MPI_Pcontrol, site);
      PMPI_Pcontrol(level);
      call.returned();
      off_time = call.active() ? call.leave_time() : now_ticks();
    }
    set_recording(false, off_time);
    return MPI_SUCCESS;
  }
  set_recording(true, now_ticks());
  Call call(Routine::MPI_Pcontrol, site);
  PMPI_Pcontrol(level);
  return MPI_SUCCESS;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  Call call(Routine::MPI_Comm_split, PARJAVA_CALL_SITE());
  const int rc = PMPI_Comm_split(comm, color, key, newcomm);
  call.returned();
  if (rc == MPI_SUCCESS) {
    comm_created(comm, *newcomm, Routine::MPI_Comm_split);
  }
  return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  Call call(Routine::MPI_Comm_dup, PARJAVA_CALL_SITE());
  const int rc = PMPI_Comm_dup(comm, newcomm);
  call.returned();
  if (rc == MPI_SUCCESS) {
    comm_created(comm, *newcomm, Routine::MPI_Comm_dup);
  }
  return rc;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
  Call call(Routine::MPI_Comm_create, PARJAVA_CALL_SITE());
  const int rc = PMPI_Comm_create(comm, group, newcomm);
  call.returned();
  if (rc == MPI_SUCCESS) {
    comm_created(comm, *newcomm, Routine::MPI_Comm_create);
  }
  return rc;
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart) {
  Call call(Routine::MPI_Cart_create, PARJAVA_CALL_SITE());
  const int rc = PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart);
  call.returned();
  if (rc == MPI_SUCCESS) {
    comm_created(comm_old, *comm_cart, Routine::MPI_Cart_create);
  }
  return rc;
}

int MPI_Comm_free(MPI_Comm *comm) {
  Call call(Routine::MPI_Comm_free, PARJAVA_CALL_SITE());
  if (comm != nullptr) {
    comm_freed(*comm);
  }
  return PMPI_Comm_free(comm);
}

} // extern "C"
