// OTF2 writer: open(t).write(u); open(u) gives the same columns and definitions, for every
// archive of tests/data/otf2 and for a builder trace using every event kind; otf2-print reads
// what we write without a warning.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <unistd.h>

#include "parjava/error.hpp"
#include "parjava/trace/builder.hpp"
#include "parjava/trace/otf2.hpp"

using namespace parjava::trace;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(PARJAVA_SOURCE_DIR) / "tests" / "data" / "otf2";

class TempDir {
public:
  TempDir() {
    // Unique per process: other worktrees run these tests at the same time in the same /tmp.
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("parjava_write_") + std::to_string(getpid()) + "_" +
                       info->test_suite_name() + "_" + info->name();
    for (auto &c : name) {
      c = c == '/' ? '_' : c;
    }
    path_ = fs::temp_directory_path() / name;
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  [[nodiscard]] fs::path operator/(const std::string &name) const { return path_ / name; }

private:
  fs::path path_;
};

// Everything otf2-print writes to stderr while printing events and definitions.
std::string otf2_print_complaints(const fs::path &anchor) {
  if (std::system("command -v otf2-print >/dev/null 2>&1") != 0) {
    return {};
  }
  std::string complaints;
  for (const char *options : {"", "-G "}) {
    const auto command =
        std::string("otf2-print ") + options + "'" + anchor.string() + "' 2>&1 >/dev/null";
    std::unique_ptr<FILE, int (*)(FILE *)> pipe(popen(command.c_str(), "r"), pclose);
    char line[1024];
    while (pipe && std::fgets(line, sizeof line, pipe.get()) != nullptr) {
      complaints += line;
    }
  }
  return complaints;
}

void expect_same_trace(const Trace &a, const Trace &b) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(a.events.time, b.events.time);
  EXPECT_EQ(a.events.kind, b.events.kind);
  EXPECT_EQ(a.events.location, b.events.location);
  EXPECT_EQ(a.events.region, b.events.region);
  EXPECT_EQ(a.events.peer, b.events.peer);
  EXPECT_EQ(a.events.tag, b.events.tag);
  EXPECT_EQ(a.events.comm, b.events.comm);
  EXPECT_EQ(a.events.bytes, b.events.bytes);
  EXPECT_EQ(a.events.aux, b.events.aux);
  EXPECT_EQ(a.events.callsite, b.events.callsite);
  EXPECT_EQ(a.events.match, b.events.match);
  EXPECT_EQ(a.events.link, b.events.link);
  EXPECT_EQ(a.location_offsets, b.location_offsets);
  EXPECT_EQ(a.unmatched, b.unmatched);
  EXPECT_EQ(a.collective_members, b.collective_members);
  ASSERT_EQ(a.collectives.size(), b.collectives.size());
  for (std::size_t c = 0; c < a.collectives.size(); ++c) {
    EXPECT_EQ(a.collectives[c].function, b.collectives[c].function);
    EXPECT_EQ(a.collectives[c].member_count, b.collectives[c].member_count);
    EXPECT_EQ(a.collectives[c].expected, b.collectives[c].expected);
    EXPECT_EQ(a.collectives[c].root, b.collectives[c].root);
  }
  ASSERT_EQ(a.locations.size(), b.locations.size());
  for (std::size_t l = 0; l < a.locations.size(); ++l) {
    EXPECT_EQ(a.locations[l].id, b.locations[l].id);
    EXPECT_EQ(a.locations[l].name, b.locations[l].name);
    EXPECT_EQ(a.locations[l].type, b.locations[l].type);
    EXPECT_EQ(a.locations[l].rank, b.locations[l].rank);
    EXPECT_EQ(a.locations[l].thread, b.locations[l].thread);
  }
  // Regions: the written archive may add the functions of call sites at the end.
  ASSERT_LE(a.regions.size(), b.regions.size());
  for (std::size_t r = 0; r < a.regions.size(); ++r) {
    EXPECT_EQ(a.regions[r].name, b.regions[r].name);
    EXPECT_EQ(a.regions[r].function, b.regions[r].function);
    EXPECT_EQ(a.regions[r].category, b.regions[r].category);
    EXPECT_EQ(a.regions[r].paradigm, b.regions[r].paradigm) << a.regions[r].name;
    EXPECT_EQ(a.regions[r].role, b.regions[r].role) << a.regions[r].name;
    EXPECT_EQ(a.regions[r].file, b.regions[r].file);
    EXPECT_EQ(a.regions[r].line_begin, b.regions[r].line_begin);
  }
  ASSERT_EQ(a.communicators.size(), b.communicators.size());
  for (std::size_t c = 0; c < a.communicators.size(); ++c) {
    EXPECT_EQ(a.communicators[c].name, b.communicators[c].name);
    EXPECT_EQ(a.communicators[c].members, b.communicators[c].members);
    EXPECT_EQ(a.communicators[c].parent, b.communicators[c].parent);
    EXPECT_EQ(a.communicators[c].self, b.communicators[c].self);
  }
  ASSERT_EQ(a.callsites.size(), b.callsites.size());
  for (std::size_t s = 0; s < a.callsites.size(); ++s) {
    EXPECT_EQ(a.callsites[s].file, b.callsites[s].file);
    EXPECT_EQ(a.callsites[s].line, b.callsites[s].line);
    EXPECT_EQ(a.callsites[s].function, b.callsites[s].function);
  }
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  for (std::size_t m = 0; m < a.metrics.size(); ++m) {
    EXPECT_EQ(a.metrics[m].name, b.metrics[m].name);
    EXPECT_EQ(a.metrics[m].unit, b.metrics[m].unit);
    EXPECT_EQ(a.metrics[m].type, b.metrics[m].type);
  }
  EXPECT_EQ(a.metadata.unknown_events, b.metadata.unknown_events);
}

} // namespace

class RoundTrip : public ::testing::TestWithParam<const char *> {};

TEST_P(RoundTrip, OpenWriteOpenGivesTheSameTrace) {
  TempDir dir;
  const auto original = open((kData / GetParam()).string());
  write(original, (dir / "copy").string());
  EXPECT_EQ(otf2_print_complaints(dir / "copy" / "traces.otf2"), "");
  const auto copy = open((dir / "copy").string());
  expect_same_trace(original, copy);
  EXPECT_EQ(copy.metadata.creator, original.metadata.creator);
  // And a second round trip changes nothing either.
  write(copy, (dir / "again" / "run.otf2").string());
  expect_same_trace(copy, open((dir / "again" / "run.otf2").string()));
}

INSTANTIATE_TEST_SUITE_P(Otf2Data, RoundTrip,
                         ::testing::Values("pipit-ping-pong", "pipit-ping-pong-papi",
                                           "sstmacro-mpi-coverage", "sst-ember-otf2",
                                           "tracer-stencil4d-64", "fastotf2-mi300-hip"),
                         [](const auto &param_info) {
                           std::string n = param_info.param;
                           for (auto &c : n) {
                             c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           }
                           return n;
                         });

namespace {

// A trace using every event kind, two threads in one process, MPI and SHMEM calls, a
// sub-communicator and MPI_COMM_SELF, call sites with functions, intervals and metrics, and
// an event before the time origin.
Trace every_kind_trace() {
  TraceBuilder b;
  const auto r0 = b.add_location(0, 0);
  const auto r0_worker = b.add_location(0, 1);
  const auto r1 = b.add_location(1, 0);
  const auto r2 = b.add_location(2, 0);
  const auto world = b.world_communicator();
  const auto pair = b.add_communicator("pair", {0, 2}, world);
  const auto self = b.add_self_communicator();
  const auto site = b.add_callsite("ring.c", 17, "main");
  const auto site_solver = b.add_callsite("solver.c", 88, "solve_step");
  const auto phase = b.add_region("phase 1", RegionRole::Interval);
  const auto watts = b.add_metric({"power", "W", MetricValueType::Double});
  b.metadata().creator = "parjava test";
  b.metadata().tracer_overhead_ns = 42;

  b.program_begin(r0, -50);
  b.enter(r0, 0, b.region("main"));
  b.interval_begin(r0, 1, phase, 7, site);
  b.enter(r0, 10, b.region("MPI_Send"), site);
  b.send(r0, 11, 1, 3, world, 100);
  b.leave(r0, 12);
  b.enter(r0, 20, b.region("MPI_Isend"), site_solver);
  b.isend(r0, 21, 2, 4, pair, 200, 0x10);
  b.leave(r0, 22);
  b.enter(r0, 30, b.region("MPI_Test"));
  b.request_test(r0, 31, 0x10);
  b.leave(r0, 32);
  b.enter(r0, 40, b.region("MPI_Wait"));
  b.isend_complete(r0, 41, 0x10);
  b.leave(r0, 42);
  b.enter(r0, 50, b.region("MPI_Irecv"));
  b.irecv_post(r0, 51, 0x20);
  b.leave(r0, 52);
  b.enter(r0, 60, b.region("MPI_Cancel"));
  b.request_cancelled(r0, 61, 0x20);
  b.leave(r0, 62);
  b.enter(r0, 70, b.region("MPI_Allreduce"));
  b.collective_begin(r0, 71);
  b.collective_end(r0, 72, 11, world, kNoRank, 8, 8);
  b.leave(r0, 73);
  b.enter(r0, 80, b.region("MPI_Gather"));
  b.collective_begin(r0, 81);
  b.collective_end(r0, 82, 4, self, 0, 8, 8);
  b.leave(r0, 83);
  b.enter(r0, 90, b.region("shmem_set_lock"));
  b.lock_request(r0, 91, 1, 0xabc);
  b.lock_acquire(r0, 92, 1, 0xabc);
  b.leave(r0, 93);
  b.enter(r0, 95, b.region("shmem_putmem"));
  b.rma_put(r0, 96, 2, 4096, 5);
  b.leave(r0, 97);
  b.enter(r0, 98, b.region("shmem_clear_lock"));
  b.lock_release(r0, 99, 1, 0xabc);
  b.leave(r0, 100);
  b.enter(r0, 101, b.region("shmem_broadcast64"));
  b.collective_begin(r0, 102);
  b.collective_end(r0, 103, 2, world, 0, 64, 0);
  b.leave(r0, 104);
  b.measurement(r0, 110, false);
  b.measurement(r0, 120, true);
  b.interval_end(r0, 130, phase, 7, site_solver);
  b.leave(r0, 140);
  b.program_end(r0, 150, 3);

  b.enter(r0_worker, 5, b.region("worker"));
  b.generic(r0_worker, 6, 53);                          // THREAD_FORK
  b.metric(r0_worker, 7, watts, 0x4059000000000000ULL); // 100.0
  b.leave(r0_worker, 8);

  b.enter(r1, 5, b.region("MPI_Recv"));
  b.recv(r1, 15, 0, 3, world, 100);
  b.leave(r1, 16);
  b.enter(r1, 70, b.region("MPI_Allreduce"));
  b.collective_begin(r1, 71);
  b.collective_end(r1, 74, 11, world, kNoRank, 8, 8);
  b.leave(r1, 75);
  b.enter(r1, 101, b.region("shmem_broadcast64"));
  b.collective_begin(r1, 102);
  b.collective_end(r1, 105, 2, world, 0, 0, 64);
  b.leave(r1, 106);

  b.enter(r2, 18, b.region("MPI_Irecv"));
  b.irecv_post(r2, 19, 0x30);
  b.leave(r2, 20);
  b.enter(r2, 45, b.region("MPI_Waitall"));
  b.irecv_complete(r2, 46, 0, 4, pair, 200, 0x30);
  b.leave(r2, 47);
  b.enter(r2, 70, b.region("MPI_Allreduce"));
  b.collective_begin(r2, 71);
  b.collective_end(r2, 76, 11, world, kNoRank, 8, 8);
  b.leave(r2, 77);
  b.rma_get(r2, 80, 0, 16, 6);
  b.enter(r2, 101, b.region("shmem_broadcast64"));
  b.collective_begin(r2, 102);
  b.collective_end(r2, 107, 2, world, 0, 0, 64);
  b.leave(r2, 108);
  b.generic(r2, 110, 87); // COMM_CREATE, without communicator
  return b.finish();
}

} // namespace

TEST(WriteBuilderTrace, EveryEventKindSurvivesTheRoundTrip) {
  TempDir dir;
  const auto original = every_kind_trace();
  EXPECT_EQ(original.unmatched.total(), 0U) << "the test trace itself is consistent";
  write(original, (dir / "all").string());
  EXPECT_EQ(otf2_print_complaints(dir / "all" / "traces.otf2"), "");
  const auto copy = open((dir / "all").string());
  expect_same_trace(original, copy);
  EXPECT_EQ(copy.metadata.tracer_overhead_ns, 42);
  EXPECT_EQ(copy.metadata.creator, "parjava test");
  EXPECT_EQ(copy.events.time[0], -50); // before the origin, kept
  // The interval keeps its id and call sites; call-site functions come back.
  EXPECT_EQ(copy.regions[copy.events.region[2]].role, RegionRole::Interval);
  EXPECT_EQ(copy.callsites[1].function, "solve_step");
}

TEST(WriteBuilderTrace, RefusesToOverwriteAnArchive) {
  TempDir dir;
  const auto t = every_kind_trace();
  write(t, (dir / "x").string());
  try {
    write(t, (dir / "x").string());
    FAIL() << "overwrote";
  } catch (const parjava::Error &e) {
    EXPECT_EQ(e.kind(), parjava::ErrorKind::Trace);
    EXPECT_NE(std::string(e.what()).find("already exists"), std::string::npos) << e.what();
  }
}

TEST(WriteBuilderTrace, UnwritablePlaceIsATraceError) {
  const auto t = every_kind_trace();
  try {
    write(t, "/proc/parjava-cannot-write-here/trace");
    FAIL() << "no error";
  } catch (const parjava::Error &e) {
    EXPECT_EQ(e.kind(), parjava::ErrorKind::Trace);
    EXPECT_NE(std::string(e.what()).find("/proc/parjava-cannot-write-here"), std::string::npos)
        << e.what();
  }
}
