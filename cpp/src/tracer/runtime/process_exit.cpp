// _exit and _Exit end a process without running exit handlers; MPI runtimes call them when
// they give up (e.g. after a peer died). Interposed so the trace still records how the process
// ended and writes out its buffers, then the process ends as asked. Both stay [[noreturn]] as
// glibc declares them.
#include <cstdlib>
#include <sys/syscall.h>
#include <unistd.h>

#include "process.hpp"

extern "C" {

void _exit(int status) { // NOLINT(bugprone-reserved-identifier)
  parjava::tracer::runtime::end_process("exit", status);
  for (;;) {
    syscall(SYS_exit_group, status);
  }
}

void _Exit(int status) noexcept { // NOLINT(bugprone-reserved-identifier)
  parjava::tracer::runtime::end_process("exit", status);
  for (;;) {
    syscall(SYS_exit_group, status);
  }
}

} // extern "C"
