// State of the traced process: configuration (PARJAVA_TRACE_*), the fragment files, the
// per-thread buffers, and the end-of-process paths (MPI_Finalize, exit(), MPI_Abort, fatal
// signals) that write out everything buffered. See parjava/tracer/fragment.hpp for the files.
#pragma once

#include <atomic>
#include <cstdint>
#include <ctime>
#include <string_view>

#include "line_writer.hpp"
#include "parjava/tracer/event_buffer.hpp"
#include "parjava/tracer/routines.hpp"
#include "timer.hpp"

namespace parjava::tracer::runtime {

// The call a thread is inside, so a fatal signal can still record its Enter.
struct InFlightCall {
  std::atomic<std::uint16_t> routine{0};
  std::atomic<std::uint64_t> enter{0};
  std::atomic<std::uint64_t> site{0};
};

struct ThreadState {
  EventBuffer buffer;
  InFlightCall in_flight;
  std::uint32_t index = 0;
  int depth = 0; // > 0 while inside a wrapper: calls made from there are not recorded
  // Tick after which the next completed call writes the buffer out even if it is not full, so
  // a process killed outright (SIGKILL) loses at most about PARJAVA_TRACE_FLUSH_MS.
  // kFirstCall before the thread's first call; kFlushRequested when SIGCONT asks for a
  // write-out; kWriteThrough while every call writes out (after SIGCONT); never with
  // PARJAVA_TRACE_FLUSH_MS=0 outside those.
  std::atomic<std::uint64_t> flush_due{0};
};
inline constexpr std::uint64_t kFirstCall = 0;
inline constexpr std::uint64_t kFlushRequested = 1;
inline constexpr std::uint64_t kWriteThrough = 2;

// PARJAVA_TRACE_FLUSH_MS in timer ticks (0: write only when a buffer is full).
extern std::uint64_t g_flush_interval_ticks;
// The periodic write-out of Call::finish (also logs a tick anchor).
void periodic_flush(ThreadState &ts, std::uint64_t now);

// Which routines are recorded right now: configured groups, and nothing while paused by
// MPI_Pcontrol(0) or after the process ended. Read on every wrapped call.
extern std::atomic<bool> g_routine_on[kRoutineCount];
extern std::atomic<bool> g_markers_on; // interval markers (no group; off while paused)

// The calling thread's state, registering the thread (and creating the fragment files) on
// first use; nullptr when tracing is disabled or the files cannot be created.
ThreadState *thread_state();

// Entry of a wrapper: the thread state if `r` is recorded and the thread is not already inside
// a wrapper (then depth is raised), else nullptr.
inline ThreadState *enter_call(Routine r) {
  if (!g_routine_on[static_cast<std::size_t>(r)].load(std::memory_order_relaxed)) {
    return nullptr;
  }
  ThreadState *ts = thread_state();
  if (ts == nullptr || ts->depth != 0) {
    return nullptr;
  }
  ts->depth = 1;
  return ts;
}

// Process identity, once known (MPI_Init or shmem_init).
enum class Paradigm : std::uint8_t { Mpi, Shmem };
void set_process_rank(int rank, int size, Paradigm paradigm);
int process_rank();
int process_size();
bool process_has_rank();

// Append one line to the definitions log (thread-safe; creates the files if needed).
void defs_line(const LineWriter &line);
// Any number of whole lines (each ending in '\n') in one write (not from signal handlers).
void defs_text(std::string_view lines);
// The same from a signal handler: writes only if the log already exists.
void defs_line_from_signal(const LineWriter &line);

// Pause or resume recording (MPI_Pcontrol); records MeasurementOnOff.
void set_recording(bool on, std::uint64_t time);

// Write out every thread's buffer and the memory map, keep recording (used before a runtime
// call that may crash: shmem_finalize, MPI_Finalize).
void checkpoint();
// End of the process: stop recording, write out everything, record how it ended. Runs at most
// once; async-signal-safe. reason: "exit", "abort", "signal", "finalize-crash".
void end_process(const char *reason, std::int64_t status);

// Install the fatal-signal handlers (after the parallel runtime installed its own, which are
// chained).
void install_signal_handlers();

// Dump /proc/self/maps into p<pid>.maps (async-signal-safe).
void write_memory_map();

} // namespace parjava::tracer::runtime
