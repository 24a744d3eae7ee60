// The definitions log of a process fragment: every line kind, free text with spaces and
// escapes, a last line cut short by a kill, unreadable lines, and foreign files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "parjava/error.hpp"
#include "parjava/tracer/fragment_reader.hpp"
#include "parjava/tracer/routines.hpp"

namespace parjava::tracer {
namespace {

std::filesystem::path fresh_dir(const std::string &name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("parjava_fragments_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string header() {
  return "parjava-fragment " + std::to_string(kFragmentVersion) + " " +
         std::to_string(routine_table_hash()) + "\n";
}

TEST(FragmentReader, ReadsEveryDefinition) {
  const auto dir = fresh_dir("all");
  std::ofstream(dir / "p42.defs") << header()
                                  << "pid 42\nhost node 7\nrealtime 100 5000\ntimer tsc\n"
                                  << "ticks 3000 1000\nticks 9000 3000\n"
                                  << "begin 90\ngroups coll,p2p-blocking\narg ./app\narg a b\n"
                                  << "rank 3 4 mpi\nrank 0 4 shmem\n"
                                  << "comm 0 -1 - world 4 0 1 2 3\n"
                                  << "comm 2 0 MPI_Comm_split world/0.1 2 1 3\n"
                                  << "clock init 1000 -25 4000\nclock final 9000 -21 3900\n"
                                  << "overhead 48\ninterval 7 time step\n"
                                  << "site 9223372036854775809 12 /src/my file.c\n"
                                  << "thread 0 42\nwrite-failed 1\nwrite-failed 1\nfinalize 8000\n"
                                  << "end signal 15 9500\n";
  std::ofstream(dir / "p42.maps") << "55d0-55e0 r-xp 00001000 08:01 1 /bin/app\n";
  std::ofstream(dir / "p42.t0.evt") << "";
  std::ofstream(dir / "p42.t1.evt") << "";
  const auto p = read_process_fragment(dir / "p42.defs");
  EXPECT_TRUE(p.warnings.empty()) << p.warnings.front();
  EXPECT_EQ(p.pid, 42);
  EXPECT_EQ(p.host, "node 7");
  EXPECT_EQ(p.rank, 3); // the first initialisation names the process
  EXPECT_EQ(p.size, 4);
  EXPECT_EQ(p.paradigm, "mpi");
  EXPECT_EQ(p.groups, "coll,p2p-blocking");
  EXPECT_EQ(p.timer, "tsc");
  ASSERT_EQ(p.tick_anchors.size(), 2U);
  EXPECT_EQ(p.tick_anchors[1], (std::pair<std::uint64_t, std::uint64_t>{9000, 3000}));
  EXPECT_EQ(p.arguments, (std::vector<std::string>{"./app", "a b"}));
  ASSERT_EQ(p.communicators.size(), 2U);
  EXPECT_EQ(p.communicators[1].created_by, "MPI_Comm_split");
  EXPECT_EQ(p.communicators[1].parent, 0);
  EXPECT_EQ(p.communicators[1].members, (std::vector<std::int32_t>{1, 3}));
  ASSERT_TRUE(p.clock_init && p.clock_final);
  EXPECT_EQ(p.clock_init->offset, -25);
  EXPECT_EQ(p.clock_final->local, 9000U);
  EXPECT_EQ(p.overhead_ns, 48U);
  EXPECT_EQ(p.interval_names.at(7), "time step");
  EXPECT_EQ(p.sites.at(kSiteTokenBit | 1).file, "/src/my file.c");
  EXPECT_EQ(p.sites.at(kSiteTokenBit | 1).line, 12U);
  EXPECT_EQ(p.finalize_time, 8000U);
  EXPECT_EQ(p.end.reason, "signal");
  EXPECT_EQ(p.end.status, 15);
  EXPECT_NE(p.memory_map.find("/bin/app"), std::string::npos);
  EXPECT_EQ(p.event_files.size(), 2U);
  EXPECT_EQ(p.incomplete_threads, (std::vector<std::uint32_t>{1}));
  std::filesystem::remove_all(dir);
}

TEST(FragmentReader, KeepsWhatIsReadableAndSaysWhatIsNot) {
  const auto dir = fresh_dir("damaged");
  std::ofstream(dir / "p7.defs") << header() << "rank 1 2 mpi\ncomm 0 -1 - world 2 0\n"
                                 << "no-such-line 1\nclock init x y z\nend exit 0 12";
  const auto p = read_process_fragment(dir / "p7.defs");
  EXPECT_EQ(p.rank, 1);
  EXPECT_TRUE(p.communicators.empty()); // the member count did not match
  EXPECT_FALSE(p.clock_init);
  EXPECT_TRUE(p.end.reason.empty()); // the cut-short last line is not trusted
  ASSERT_EQ(p.warnings.size(), 4U);
  EXPECT_NE(p.warnings[0].find("p7.defs:3"), std::string::npos);
  EXPECT_NE(p.warnings[3].find("incomplete last line"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(FragmentReader, RejectsForeignAndForeignVersionFiles) {
  const auto dir = fresh_dir("foreign");
  std::ofstream(dir / "p1.defs") << "hello\n";
  EXPECT_THROW(read_process_fragment(dir / "p1.defs"), Error);
  std::ofstream(dir / "p1.defs") << "parjava-fragment 1 12345\n";
  try {
    read_process_fragment(dir / "p1.defs");
    FAIL() << "a fragment of another tracer version must be refused";
  } catch (const Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::Trace);
    EXPECT_NE(std::string(e.what()).find("another version"), std::string::npos);
  }
  EXPECT_THROW(read_fragments(dir / "missing"), Error);
  std::filesystem::remove_all(dir);
}

TEST(FragmentReader, SortsProcessesByRank) {
  const auto dir = fresh_dir("sorted");
  std::ofstream(dir / "p9.defs") << header() << "pid 9\nrank 1 2 mpi\n";
  std::ofstream(dir / "p5.defs") << header() << "pid 5\nrank 0 2 mpi\n";
  std::ofstream(dir / "notes.txt") << "ignored\n";
  const auto all = read_fragments(dir);
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[0].pid, 5);
  EXPECT_EQ(all[1].pid, 9);
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace parjava::tracer
