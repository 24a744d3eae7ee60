// Process state of the tracer runtime (process.hpp): configuration, fragment files, thread
// registry and every way the process can end. Everything reachable from a signal handler uses
// async-signal-safe calls only (open, write, read, close, clock_gettime, sigaction, raise).
#include "process.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <mutex>
#include <pthread.h>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

#include "parjava/trace/functions.hpp"

namespace parjava::tracer::runtime {

std::atomic<bool> g_routine_on[kRoutineCount];
std::atomic<bool> g_markers_on{false};
std::uint64_t g_flush_interval_ticks = 0;

namespace {

constexpr std::uint32_t kMaxThreads = 4096;
constexpr std::size_t kDefaultBufferBytes = std::size_t{1} << 20;

struct Config {
  bool disabled = false;
  std::string dir = "parjava-trace-fragments";
  std::string groups = "all";
  std::size_t buffer_records = kDefaultBufferBytes / sizeof(Record);
  bool configured[kRoutineCount] = {};
};

Config g_config;
char g_prefix[4096];             // "<dir>/p<pid>", the start of every fragment file name
std::uint64_t g_start_ticks = 0; // library load, in timer ticks
std::uint64_t g_start_mono = 0;  // the same instant in CLOCK_MONOTONIC ns
const char *g_timer_name = "monotonic";
pid_t g_pid = 0; // the traced process (fragment files are named after it)
long g_flush_ms = 1000;
// After SIGCONT every call writes its records out until this tick (see on_continue_signal).
std::atomic<std::uint64_t> g_write_through_until{0};
std::uint64_t g_write_through_ticks = 0; // the length of that window
long g_kill_timeout_s = 1;               // Open MPI's odls_base_sigkill_timeout
std::atomic<int> g_defs_fd{-1};
std::mutex g_files_mutex; // creating files and registering threads (never on the hot path)
bool g_files_failed = false;
ThreadState *g_threads[kMaxThreads];
std::atomic<std::uint32_t> g_thread_count{0};
std::atomic<bool> g_ended{false};
std::atomic<bool> g_paused{false};
std::atomic<int> g_rank{-1};
std::atomic<int> g_size{0};
pthread_key_t g_thread_key;

thread_local ThreadState *t_state __attribute__((tls_model("initial-exec"))) = nullptr;

void set_all_routines(bool on) {
  for (std::size_t r = 0; r < kRoutineCount; ++r) {
    g_routine_on[r].store(on && g_config.configured[r], std::memory_order_relaxed);
  }
  g_markers_on.store(on, std::memory_order_relaxed);
}

void warn(const char *message) {
  const std::string text = std::string("parjava tracer: ") + message + "\n";
  write_all(STDERR_FILENO, text.data(), text.size());
}

// PARJAVA_TRACE_GROUPS: "all" or a comma-separated list of group names (functions.hpp).
void parse_groups(const char *spec) {
  const std::string_view all(spec);
  if (all.empty() || all == "all") {
    for (std::size_t r = 1; r < kRoutineCount; ++r) {
      g_config.configured[r] = true;
    }
    return;
  }
  std::size_t start = 0;
  while (start <= all.size()) {
    auto comma = all.find(',', start);
    if (comma == std::string_view::npos) {
      comma = all.size();
    }
    const auto name = all.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) {
      continue;
    }
    const auto group = trace::group_by_name(name);
    if (!group) {
      warn(("unknown group '" + std::string(name) +
            "' in PARJAVA_TRACE_GROUPS (known: coll, p2p-blocking, p2p-nonblocking, "
            "wait-test, other, shmem)")
               .c_str());
      continue;
    }
    for (std::size_t r = 1; r < kRoutineCount; ++r) {
      const auto f = routine_function(static_cast<Routine>(r));
      if (trace::function_info(f).group == *group) {
        g_config.configured[r] = true;
      }
    }
  }
}

void read_config() {
  if (const char *v = std::getenv("PARJAVA_TRACE_DISABLE");
      v != nullptr && *v != '\0' && std::string_view(v) != "0") {
    g_config.disabled = true;
  }
  if (const char *v = std::getenv("PARJAVA_TRACE_DIR"); v != nullptr && *v != '\0') {
    g_config.dir = v;
  }
  if (const char *v = std::getenv("PARJAVA_TRACE_GROUPS"); v != nullptr) {
    g_config.groups = v;
  }
  if (const char *v = std::getenv("PARJAVA_TRACE_BUFFER_KB"); v != nullptr && *v != '\0') {
    const long kb = std::strtol(v, nullptr, 10);
    if (kb >= 4) {
      g_config.buffer_records = static_cast<std::size_t>(kb) * 1024 / sizeof(Record);
    }
  }
  if (const char *v = std::getenv("PARJAVA_TRACE_FLUSH_MS"); v != nullptr && *v != '\0') {
    g_flush_ms = std::strtol(v, nullptr, 10);
  }
  // Open MPI passes its MCA settings to the ranks in the environment.
  if (const char *v = std::getenv("OMPI_MCA_odls_base_sigkill_timeout");
      v != nullptr && *v != '\0') {
    g_kill_timeout_s = std::max(1L, std::strtol(v, nullptr, 10));
  }
  parse_groups(g_config.groups.c_str());
}

void make_prefix() {
  LineWriter w;
  w.text(g_config.dir).text("/p").number(static_cast<std::int64_t>(getpid()));
  const auto n = std::min(w.size(), sizeof g_prefix - 1);
  std::memcpy(g_prefix, w.data(), n);
  g_prefix[n] = '\0';
}

// g_prefix + suffix into out (async-signal-safe).
void fragment_path(char *out, std::size_t size, const char *suffix) {
  std::size_t n = 0;
  for (const char *p = g_prefix; *p != '\0' && n + 1 < size; ++p) {
    out[n++] = *p;
  }
  for (const char *p = suffix; *p != '\0' && n + 1 < size; ++p) {
    out[n++] = *p;
  }
  out[n] = '\0';
}

bool make_directories(const std::string &dir) {
  std::string partial;
  for (std::size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || (dir[i] == '/' && i > 0)) {
      partial = dir.substr(0, i);
      if (::mkdir(partial.c_str(), 0777) != 0 && errno != EEXIST) {
        return false;
      }
    }
  }
  return true;
}

void write_header_lines(int fd) {
  LineWriter w;
  w.text("parjava-fragment ").number(kFragmentVersion).space().number(routine_table_hash()).end();
  write_all(fd, w.data(), w.size());
  w.clear();
  w.text("pid ").number(static_cast<std::int64_t>(getpid())).end();
  write_all(fd, w.data(), w.size());
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  w.clear();
  w.text("host ").escaped(host).end();
  write_all(fd, w.data(), w.size());
  timespec real{};
  clock_gettime(CLOCK_REALTIME, &real);
  const auto mono = monotonic_ns();
  w.clear();
  w.text("realtime ")
      .number(mono)
      .space()
      .number(static_cast<std::uint64_t>(real.tv_sec) * 1'000'000'000ULL +
              static_cast<std::uint64_t>(real.tv_nsec))
      .end();
  write_all(fd, w.data(), w.size());
  w.clear();
  w.text("timer ").text(g_timer_name).end();
  write_all(fd, w.data(), w.size());
  w.clear();
  w.text("ticks ").number(g_start_ticks).space().number(g_start_mono).end();
  write_all(fd, w.data(), w.size());
  w.clear();
  w.text("begin ").number(g_start_ticks).end();
  write_all(fd, w.data(), w.size());
  w.clear();
  w.text("groups ").escaped(g_config.groups).end();
  write_all(fd, w.data(), w.size());
  // The command line, one argument per line, for OTF2 ProgramBegin.
  const int cmd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (cmd >= 0) {
    std::string all;
    char chunk[4096];
    ssize_t n = 0;
    while ((n = ::read(cmd, chunk, sizeof chunk)) > 0) {
      all.append(chunk, static_cast<std::size_t>(n));
    }
    ::close(cmd);
    std::size_t start = 0;
    while (start < all.size()) {
      const auto end = all.find('\0', start);
      const auto arg =
          all.substr(start, end == std::string::npos ? std::string::npos : end - start);
      w.clear();
      w.text("arg ").escaped(arg).end();
      write_all(fd, w.data(), w.size());
      if (end == std::string::npos) {
        break;
      }
      start = end + 1;
    }
  }
}

// Create the fragment directory and the definitions log (caller holds g_files_mutex).
bool ensure_files_locked() {
  if (g_defs_fd.load() >= 0) {
    return true;
  }
  if (g_files_failed) {
    return false;
  }
  if (!make_directories(g_config.dir)) {
    warn(("cannot create the trace directory " + g_config.dir + ": " + std::strerror(errno) +
          "; this process is not traced")
             .c_str());
    g_files_failed = true;
    return false;
  }
  char path[4200];
  fragment_path(path, sizeof path, ".defs");
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    warn((std::string("cannot create ") + path + ": " + std::strerror(errno) +
          "; this process is not traced")
             .c_str());
    g_files_failed = true;
    return false;
  }
  write_header_lines(fd);
  g_defs_fd.store(fd);
  return true;
}

void write_unfinished_call(ThreadState *ts) {
  const auto routine = ts->in_flight.routine.load(std::memory_order_acquire);
  if (routine == 0) {
    return;
  }
  const auto enter = ts->in_flight.enter.load(std::memory_order_relaxed);
  // The call may have pushed its Call record but not yet cleared in_flight.
  if (const Record *last = ts->buffer.last();
      last != nullptr && last->kind == RecordKind::Call && last->time == enter) {
    return;
  }
  Record r;
  r.kind = RecordKind::CallUnfinished;
  r.routine = routine;
  r.time = enter;
  r.b = ts->in_flight.site.load(std::memory_order_relaxed);
  ts->buffer.flush_from_signal();
  if (ts->buffer.fd() >= 0) {
    write_all(ts->buffer.fd(), &r, sizeof r);
  }
  ts->in_flight.routine.store(0, std::memory_order_relaxed);
}

void flush_all_threads(bool with_unfinished) {
  const auto n = std::min(g_thread_count.load(std::memory_order_acquire), kMaxThreads);
  for (std::uint32_t i = 0; i < n; ++i) {
    ThreadState *ts = g_threads[i];
    if (ts == nullptr) {
      continue;
    }
    ts->buffer.flush_from_signal();
    if (with_unfinished) {
      write_unfinished_call(ts);
    }
    if (ts->buffer.write_failed()) {
      // Said once per thread and path; the assembler warns that this thread is incomplete.
      LineWriter w;
      w.text("write-failed ").number(i).end();
      defs_line_from_signal(w);
    }
  }
}

void on_thread_exit(void *state) {
  auto *ts = static_cast<ThreadState *>(state);
  if (ts != nullptr && !g_ended.load()) {
    ts->buffer.flush();
  }
}

void on_process_exit(int status, void * /*unused*/) { end_process("exit", status); }

void disable_in_child() {
  g_pid = getpid();
  // A fork()ed child must not write into the parent's files.
  g_config.disabled = true;
  g_ended.store(true);
  set_all_routines(false);
  g_defs_fd.store(-1);
  g_thread_count.store(0);
  t_state = nullptr;
}

// Fatal signals: write everything, then let the previous handler (the MPI runtime's, which
// prints a backtrace) or the default action finish the process.
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT};
struct sigaction g_previous[65];
std::atomic<bool> g_handlers_installed{false};

// Open MPI (4.1, odls_base_default_kill_local_procs) ends the ranks of a failed or interrupted
// job with SIGCONT, sleeps odls_base_sigkill_timeout seconds (1 by default), sends SIGTERM,
// sleeps as long again and sends SIGKILL. Each rank that dies interrupts that second sleep,
// which then resumes for the whole seconds left only, so SIGKILL can follow SIGTERM within
// milliseconds, before a rank descheduled on a busy node has run its SIGTERM handler. So
// SIGCONT is the warning: every thread writes its buffer out at the end of its next call, and
// every call after that does the same for a while (a few write(2)s per call), so what a rank
// records after SIGCONT survives SIGKILL too. The owning thread writes, so a program that just
// continues (job control) loses nothing and its buffers are never touched concurrently.
void on_continue_signal(int signo, siginfo_t *info, void *context) {
  g_write_through_until.store(now_ticks() + g_write_through_ticks, std::memory_order_relaxed);
  const auto n = std::min(g_thread_count.load(std::memory_order_acquire), kMaxThreads);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (ThreadState *ts = g_threads[i]; ts != nullptr) {
      ts->flush_due.store(kFlushRequested, std::memory_order_relaxed); // next Call::finish
    }
  }
  const struct sigaction &prev = g_previous[signo];
  if ((prev.sa_flags & SA_SIGINFO) != 0 && prev.sa_sigaction != nullptr) {
    prev.sa_sigaction(signo, info, context);
  } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN &&
             prev.sa_handler != nullptr) {
    prev.sa_handler(signo);
  }
}

void on_fatal_signal(int signo, siginfo_t *info, void *context) {
  end_process("signal", signo);
  struct sigaction &prev = g_previous[signo];
  sigaction(signo, &prev, nullptr);
  if ((prev.sa_flags & SA_SIGINFO) != 0 && prev.sa_sigaction != nullptr) {
    prev.sa_sigaction(signo, info, context);
    return;
  }
  if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler != nullptr) {
    prev.sa_handler(signo);
    return;
  }
  // Default action: re-raise with it installed; a real fault also re-faults on return.
  raise(signo);
}

} // namespace

ThreadState *thread_state() {
  ThreadState *ts = t_state;
  if (ts != nullptr) {
    return ts;
  }
  if (g_config.disabled || g_ended.load(std::memory_order_relaxed)) {
    return nullptr;
  }
  const std::lock_guard lock(g_files_mutex);
  if (!ensure_files_locked()) {
    return nullptr;
  }
  const auto index = g_thread_count.load();
  if (index >= kMaxThreads) {
    return nullptr;
  }
  char suffix[64];
  LineWriter w;
  w.text(".t").number(index).text(".evt");
  std::memcpy(suffix, w.data(), w.size());
  suffix[w.size()] = '\0';
  char path[4200];
  fragment_path(path, sizeof path, suffix);
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || !write_fragment_header(fd, index)) {
    warn((std::string("cannot write ") + path + ": " + std::strerror(errno)).c_str());
    return nullptr;
  }
  ts = new ThreadState;
  auto *storage = new Record[g_config.buffer_records];
  ts->buffer.attach(storage, g_config.buffer_records, fd);
  ts->index = index;
  g_threads[index] = ts;
  g_thread_count.store(index + 1, std::memory_order_release);
  t_state = ts;
  pthread_setspecific(g_thread_key, ts);
  w.clear();
  w.text("thread ").number(index).space().number(static_cast<std::int64_t>(gettid())).end();
  defs_line(w);
  return ts;
}

void defs_line(const LineWriter &line) { defs_text({line.data(), line.size()}); }

void defs_text(std::string_view lines) {
  int fd = g_defs_fd.load(std::memory_order_acquire);
  if (fd < 0) {
    const std::lock_guard lock(g_files_mutex);
    if (g_ended.load() || g_config.disabled || !ensure_files_locked()) {
      return;
    }
    fd = g_defs_fd.load();
  }
  // One write per call on an O_APPEND file: lines from several threads never interleave.
  write_all(fd, lines.data(), lines.size());
}

void defs_line_from_signal(const LineWriter &line) {
  const int fd = g_defs_fd.load(std::memory_order_acquire);
  if (fd >= 0) {
    write_all(fd, line.data(), line.size());
  }
}

void set_process_rank(int rank, int size, Paradigm paradigm) {
  g_rank.store(rank);
  g_size.store(size);
  LineWriter w;
  w.text("rank ")
      .number(rank)
      .space()
      .number(size)
      .space()
      .text(paradigm == Paradigm::Mpi ? "mpi" : "shmem")
      .end();
  defs_line(w);
}

int process_rank() { return g_rank.load(); }
int process_size() { return g_size.load(); }
bool process_has_rank() { return g_rank.load() >= 0; }

void set_recording(bool on, std::uint64_t time) {
  if (g_ended.load() || g_paused.load() == !on) {
    return;
  }
  g_paused.store(!on);
  set_all_routines(on);
  if (ThreadState *ts = thread_state(); ts != nullptr) {
    Record r;
    r.kind = RecordKind::MeasurementOnOff;
    r.time = time;
    r.a = on ? 1 : 0;
    ts->buffer.push(r);
  }
}

void write_memory_map() {
  if (g_defs_fd.load() < 0) {
    return;
  }
  char path[4200];
  fragment_path(path, sizeof path, ".maps");
  const int out = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int in = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (out >= 0 && in >= 0) {
    char chunk[8192];
    ssize_t n = 0;
    while ((n = ::read(in, chunk, sizeof chunk)) > 0) {
      write_all(out, chunk, static_cast<std::size_t>(n));
    }
  }
  if (in >= 0) {
    ::close(in);
  }
  if (out >= 0) {
    ::close(out);
  }
}

void checkpoint() {
  if (g_ended.load()) {
    return;
  }
  if (ThreadState *ts = t_state; ts != nullptr) {
    ts->buffer.flush();
  }
  flush_all_threads(false);
  write_memory_map();
  write_tick_anchor();
}

void periodic_flush(ThreadState &ts, std::uint64_t now) {
  const auto due = ts.flush_due.load(std::memory_order_relaxed);
  if (due != kFirstCall) {
    ts.buffer.flush();
    if (due != kWriteThrough) { // not one tick anchor per call while writing through
      write_tick_anchor();
    }
  }
  if (now < g_write_through_until.load(std::memory_order_relaxed)) {
    ts.flush_due.store(kWriteThrough, std::memory_order_relaxed);
    return;
  }
  ts.flush_due.store(g_flush_interval_ticks != 0 ? now + g_flush_interval_ticks
                                                 : std::numeric_limits<std::uint64_t>::max(),
                     std::memory_order_relaxed);
}

void end_process(const char *reason, std::int64_t status) {
  // A vfork()ed child (posix_spawn) shares our memory but must not write our files.
  if (getpid() != g_pid || g_ended.exchange(true)) {
    return;
  }
  const auto time = now_ticks();
  set_all_routines(false);
  // Most important first, in case the process is killed outright while this runs (mpirun
  // follows SIGTERM with SIGKILL): how it ended, the events, then the final memory map (the
  // one written after initialisation is already there).
  LineWriter w;
  w.text("end ").text(reason).space().number(status).space().number(time).end();
  defs_line_from_signal(w);
  write_tick_anchor();
  flush_all_threads(true);
  write_memory_map();
}

void install_signal_handlers() {
  if (g_config.disabled || g_handlers_installed.exchange(true)) {
    return;
  }
  for (const int signo : kFatalSignals) {
    struct sigaction action {};
    action.sa_sigaction = on_fatal_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(signo, &action, &g_previous[signo]);
  }
  struct sigaction action {};
  action.sa_sigaction = on_continue_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGCONT, &action, &g_previous[SIGCONT]);
}

namespace {

// Runs when the library is loaded (LD_PRELOAD or linked): configuration only; files are
// created on the first event, so processes that never trace (mpirun helpers, shells) leave
// nothing behind. A static object rather than __attribute__((constructor)): dynamic
// initialisation follows definition order within this file, so g_config is ready.
void load() {
  g_pid = getpid();
  read_config();
  g_timer_name = choose_timer();
  g_start_mono = monotonic_ns();
  g_start_ticks = now_ticks();
  g_flush_interval_ticks = g_flush_ms > 0
                               ? static_cast<std::uint64_t>(static_cast<double>(g_flush_ms) * 1e6 *
                                                            ticks_per_ns_estimate())
                               : 0;
  // SIGCONT, timeout, SIGTERM, at most timeout, SIGKILL: the window covers both and a second.
  g_write_through_ticks = static_cast<std::uint64_t>(static_cast<double>(2 * g_kill_timeout_s + 1) *
                                                     1e9 * ticks_per_ns_estimate());
  make_prefix();
  pthread_key_create(&g_thread_key, on_thread_exit);
  if (g_config.disabled) {
    set_all_routines(false);
    return;
  }
  set_all_routines(true);
  on_exit(on_process_exit, nullptr);
  pthread_atfork(nullptr, nullptr, disable_in_child);
}

struct LoadHook {
  LoadHook() { load(); }
};
const LoadHook g_load_hook;

} // namespace

} // namespace parjava::tracer::runtime
