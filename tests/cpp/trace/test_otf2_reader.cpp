// OTF2 reader on the real archives of tests/data/otf2 (tests/data/otf2/SOURCES.md): every
// archive loads, its records match otf2-print's record by record type, and each archive's
// edge case reads as documented. Bad input gives a TraceError naming the file and the defect.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "parjava/error.hpp"
#include "parjava/trace/otf2.hpp"

#include <otf2/otf2.h>

using namespace parjava::trace;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(PARJAVA_SOURCE_DIR) / "tests" / "data" / "otf2";

// OTF2 record name an event was read from; MPI and RMA collectives share one key.
std::string record_key(const Trace &t, std::size_t i) {
  switch (t.events.kind[i]) {
  case EventKind::Enter:
  case EventKind::IntervalBegin:
    return "ENTER";
  case EventKind::Leave:
  case EventKind::IntervalEnd:
    return "LEAVE";
  case EventKind::Send:
    return "MPI_SEND";
  case EventKind::IsendPost:
    return "MPI_ISEND";
  case EventKind::IsendComplete:
    return "MPI_ISEND_COMPLETE";
  case EventKind::IrecvPost:
    return "MPI_IRECV_REQUEST";
  case EventKind::Recv:
    return "MPI_RECV";
  case EventKind::IrecvComplete:
    return "MPI_IRECV";
  case EventKind::RequestTest:
    return "MPI_REQUEST_TEST";
  case EventKind::RequestCancelled:
    return "MPI_REQUEST_CANCELLED";
  case EventKind::CollectiveBegin:
    return "COLLECTIVE_BEGIN";
  case EventKind::CollectiveEnd:
    return "COLLECTIVE_END";
  case EventKind::LockRequest:
    return "RMA_REQUEST_LOCK";
  case EventKind::LockAcquire:
    return "RMA_ACQUIRE_LOCK";
  case EventKind::LockRelease:
    return "RMA_RELEASE_LOCK";
  case EventKind::RmaPut:
    return "RMA_PUT";
  case EventKind::RmaGet:
    return "RMA_GET";
  case EventKind::ProgramBegin:
    return "PROGRAM_BEGIN";
  case EventKind::ProgramEnd:
    return "PROGRAM_END";
  case EventKind::MeasurementOnOff:
    return "MEASUREMENT_ON_OFF";
  case EventKind::Metric:
    return "METRIC";
  case EventKind::Generic:
    return std::string(otf2_record_name(t.events.aux[i]));
  }
  return "?";
}

std::map<std::string, int> our_records(const Trace &t) {
  std::map<std::string, int> counts;
  for (std::size_t i = 0; i < t.size(); ++i) {
    ++counts[record_key(t, i)];
  }
  return counts;
}

// Record counts as otf2-print reports them (one line per record after its 5 header lines;
// "ADDITIONAL ATTRIBUTES" lines continue the previous record).
std::map<std::string, int> otf2_print_records(const fs::path &archive) {
  std::map<std::string, int> counts;
  const auto command = "otf2-print '" + (archive / "traces.otf2").string() + "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE *)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) {
    return counts;
  }
  char line[4096];
  int number = 0;
  while (std::fgets(line, sizeof line, pipe.get()) != nullptr) {
    if (++number <= 5) {
      continue;
    }
    std::istringstream words(line);
    std::string name;
    words >> name;
    if (name.empty() || name == "ADDITIONAL") {
      continue;
    }
    if (name.find("COLLECTIVE_BEGIN") != std::string::npos && name.rfind("NON_BLOCKING", 0) != 0) {
      name = "COLLECTIVE_BEGIN";
    } else if (name.find("COLLECTIVE_END") != std::string::npos) {
      name = "COLLECTIVE_END";
    }
    ++counts[name];
  }
  return counts;
}

bool have_otf2_print() { return std::system("command -v otf2-print >/dev/null 2>&1") == 0; }

} // namespace

class EveryArchive : public ::testing::TestWithParam<std::pair<const char *, std::size_t>> {};

TEST_P(EveryArchive, LoadsWithTheEventCountOfSourcesMd) {
  const auto [name, events] = GetParam();
  const auto t = open((kData / name).string());
  EXPECT_EQ(t.size(), events);
  EXPECT_EQ(t.location_offsets.size(), t.location_count() + 1);
  EXPECT_EQ(t.location_offsets.back(), t.size());
  EXPECT_LT(static_cast<double>(t.memory_bytes()) / static_cast<double>(t.size()), 64.0);
  // Stable time order within each location.
  for (std::uint32_t l = 0; l < t.location_count(); ++l) {
    for (auto i = t.location_begin(l) + 1; i < t.location_end(l); ++i) {
      ASSERT_LE(t.events.time[static_cast<std::size_t>(i - 1)],
                t.events.time[static_cast<std::size_t>(i)]);
    }
  }
}

TEST_P(EveryArchive, RecordsMatchOtf2PrintTypeByType) {
  if (!have_otf2_print()) {
    GTEST_SKIP() << "otf2-print is not installed (apt-get install otf2-tools)";
  }
  const auto [name, events] = GetParam();
  const auto t = open((kData / name).string());
  EXPECT_EQ(our_records(t), otf2_print_records(kData / name));
  (void)events;
}

INSTANTIATE_TEST_SUITE_P(Otf2Data, EveryArchive,
                         ::testing::Values(std::pair{"pipit-ping-pong", 120},
                                           std::pair{"pipit-ping-pong-papi", 204},
                                           std::pair{"sstmacro-mpi-coverage", 22180},
                                           std::pair{"sst-ember-otf2", 80},
                                           std::pair{"tracer-stencil4d-64", 8644},
                                           std::pair{"fastotf2-mi300-hip", 72670}),
                         [](const auto &param_info) {
                           std::string n = param_info.param.first;
                           for (auto &c : n) {
                             c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           }
                           return n;
                         });

TEST(Otf2Reader, PingPongMessagesAreMatchedBetweenWorldRanks) {
  const auto t = open((kData / "pipit-ping-pong" / "traces.otf2").string());
  EXPECT_EQ(t.process_count(), 2);
  EXPECT_EQ(t.metadata.creator, "Score-P 7.1");
  EXPECT_EQ(t.metadata.format_version, "2.3.0");
  int sends = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.events.kind[i] != EventKind::Send) {
      continue;
    }
    ++sends;
    const auto recv = static_cast<std::size_t>(t.events.match[i]);
    ASSERT_EQ(t.events.kind[recv], EventKind::Recv);
    const auto sender = t.locations[t.events.location[i]].rank;
    const auto receiver = t.locations[t.events.location[recv]].rank;
    EXPECT_EQ(t.events.peer[i], receiver);
    EXPECT_EQ(t.events.peer[recv], sender);
    EXPECT_LT(t.events.time[i], t.events.time[recv]); // clocks are synchronised by Score-P
    EXPECT_EQ(t.regions[t.events.region[i]].function, Function::MPI_Send);
  }
  EXPECT_EQ(sends, 16);
  EXPECT_EQ(t.unmatched.total(), 0U);
}

TEST(Otf2Reader, TimestampsAreNanosecondsSinceTheGlobalOffset) {
  // The archive counts 2,095,197,216 ticks per second from a global offset (otf2-print -G).
  // Every event of location 0 must be (ticks - offset) * 1e9 / resolution, to the ns.
  if (!have_otf2_print()) {
    GTEST_SKIP() << "otf2-print is not installed (apt-get install otf2-tools)";
  }
  const auto archive = kData / "pipit-ping-pong" / "traces.otf2";
  const auto t = open(archive.string());
  const std::uint64_t resolution = 2095197216ULL;
  const std::uint64_t offset = 7397466976977800ULL;
  ASSERT_EQ(t.metadata.timer_resolution, resolution);
  ASSERT_EQ(static_cast<std::uint64_t>(t.metadata.time_origin), offset);
  const auto command = "otf2-print -L 0 '" + archive.string() + "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE *)> pipe(popen(command.c_str(), "r"), pclose);
  ASSERT_TRUE(pipe);
  char line[4096];
  std::size_t i = t.location_begin(0);
  int number = 0;
  int checked = 0;
  while (std::fgets(line, sizeof line, pipe.get()) != nullptr) {
    std::istringstream words(line);
    std::string name;
    std::uint64_t location = 0;
    std::uint64_t ticks = 0;
    if (++number <= 5 || !(words >> name >> location >> ticks) || name == "ADDITIONAL") {
      continue;
    }
    __extension__ using Wide = unsigned __int128;
    const auto expected =
        static_cast<Timestamp>(static_cast<Wide>(ticks - offset) * 1'000'000'000U / resolution);
    ASSERT_LT(i, static_cast<std::size_t>(t.location_end(0)));
    EXPECT_NEAR(static_cast<double>(t.events.time[i]), static_cast<double>(expected), 1.0)
        << "event " << i << " (" << name << ")";
    ++i;
    ++checked;
  }
  EXPECT_EQ(checked, t.location_end(0) - t.location_begin(0));
}

TEST(Otf2Reader, ScoreP2ArchiveWithNonblockingCallsAndSubCommunicators) {
  const auto t = open((kData / "sstmacro-mpi-coverage").string());
  EXPECT_EQ(t.metadata.format_version, "2.0.0");
  EXPECT_EQ(t.process_count(), 10);
  EXPECT_EQ(t.unmatched.total(), 0U);
  std::map<Function, int> instances;
  for (const auto &c : t.collectives) {
    ++instances[c.function];
    EXPECT_EQ(c.member_count, c.expected);
    EXPECT_LE(c.expected, 10U);
  }
  EXPECT_GT(instances[Function::MPI_Allreduce], 0);
  EXPECT_GT(instances[Function::MPI_Bcast], 0);
  // Collectives on communicators of 2 ranks (Comm_split) and on MPI_COMM_SELF (one member).
  std::map<std::uint32_t, int> by_size;
  for (const auto &c : t.collectives) {
    ++by_size[c.expected];
    if (t.communicators[c.comm].self) {
      EXPECT_EQ(c.member_count, 1U);
    }
  }
  EXPECT_GT(by_size[2], 0);
  EXPECT_GT(by_size[1], 0);
  EXPECT_GT(by_size[10], 0);
  // IsendComplete carries its post's envelope; IrecvPost gets its completion's.
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.events.kind[i] == EventKind::IsendComplete) {
      const auto post = static_cast<std::size_t>(t.events.link[i]);
      EXPECT_EQ(t.events.peer[i], t.events.peer[post]);
      EXPECT_NE(t.events.match[post], kNoEvent);
    }
  }
}

TEST(Otf2Reader, UnclosedRegionsAndMeasurementSwitchesOfTraceR) {
  const auto t = open((kData / "tracer-stencil4d-64").string());
  EXPECT_EQ(t.process_count(), 64);
  // Rank 0 enters TRACER_WallTime_InLoop twice and never leaves it (SOURCES.md).
  EXPECT_EQ(t.unmatched.enters_unclosed, 2U);
  EXPECT_EQ(t.unmatched.leaves_unopened, 0U);
  EXPECT_EQ(t.unmatched.sends + t.unmatched.receives, 0U);
  ASSERT_EQ(t.collectives.size(), 3U);
  for (const auto &c : t.collectives) {
    EXPECT_EQ(c.function, Function::MPI_Barrier);
    EXPECT_EQ(c.member_count, 64U);
  }
  int on = 0;
  int off = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.events.kind[i] == EventKind::MeasurementOnOff) {
      (t.events.aux[i] == 1 ? on : off)++;
    }
  }
  EXPECT_EQ(on, 64);
  EXPECT_EQ(off, 128);
}

TEST(Otf2Reader, CommCreateEventsAreKeptAsGenericWithTheirCommunicator) {
  const auto t = open((kData / "sst-ember-otf2").string());
  EXPECT_EQ(t.metadata.unknown_events, 16U);
  int creates = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.events.kind[i] == EventKind::Generic &&
        otf2_record_name(t.events.aux[i]) == "COMM_CREATE") {
      ++creates;
      EXPECT_LT(t.events.comm[i], t.communicators.size());
    }
  }
  EXPECT_EQ(creates, 8);
  // MPI_Init, MPI_Bcast (root 0) and MPI_Finalize on MPI_COMM_WORLD, 4 ranks each.
  ASSERT_EQ(t.collectives.size(), 3U);
  EXPECT_EQ(t.collectives[0].function, Function::MPI_Init);
  EXPECT_EQ(t.collectives[1].function, Function::MPI_Bcast);
  EXPECT_EQ(t.collectives[1].root, 0);
  EXPECT_EQ(t.collectives[2].function, Function::MPI_Finalize);
  for (const auto &c : t.collectives) {
    EXPECT_EQ(t.communicators[c.comm].name, "MPI_COMM_WORLD");
    EXPECT_EQ(c.member_count, 4U);
    EXPECT_EQ(c.expected, 4U);
  }
}

TEST(Otf2Reader, MetricLocationsAnd64BitLocationIds) {
  const auto t = open((kData / "fastotf2-mi300-hip").string());
  EXPECT_EQ(t.location_count(), 32U);
  EXPECT_EQ(t.process_count(), 0); // no MPI
  const auto metric_location = t.location_by_id(4294967296ULL);
  ASSERT_NE(metric_location, kNoRef);
  EXPECT_EQ(t.locations[metric_location].type, LocationType::Metric);
  EXPECT_EQ(t.locations[metric_location].name, "Per process metrics");
  const auto gpu = t.location_by_id(128849018880ULL);
  ASSERT_NE(gpu, kNoRef);
  EXPECT_EQ(t.locations[gpu].type, LocationType::Gpu);
  int metrics = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.events.kind[i] == EventKind::Metric) {
      ++metrics;
      ASSERT_LT(t.events.region[i], t.metrics.size());
    }
  }
  EXPECT_EQ(metrics, 72584);
  bool power = false;
  for (const auto &m : t.metrics) {
    power = power || m.name.find("current_socket_power") != std::string::npos;
  }
  EXPECT_TRUE(power);
}

TEST(Otf2Reader, PapiCountersBecomeMetricEvents) {
  const auto t = open((kData / "pipit-ping-pong-papi").string());
  ASSERT_EQ(t.metrics.size(), 1U);
  EXPECT_FALSE(t.metrics[0].name.empty());
  EXPECT_EQ(t.unmatched.total(), 0U);
}

// --- bad input -------------------------------------------------------------------------

class BadArchive : public ::testing::Test {
protected:
  void SetUp() override {
    // Unique per process: other worktrees run these tests at the same time in the same /tmp.
    dir_ = fs::temp_directory_path() /
           ("parjava_bad_otf2_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::copy(kData / "pipit-ping-pong", dir_ / "a", fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void truncate_half(const fs::path &file) {
    fs::resize_file(file, fs::file_size(file) / 2);
  }
  // The message of the TraceError open(path) throws.
  static std::string error_of(const fs::path &path) {
    try {
      open(path.string());
    } catch (const parjava::Error &e) {
      EXPECT_EQ(e.kind(), parjava::ErrorKind::Trace);
      return e.what();
    }
    ADD_FAILURE() << "no error for " << path;
    return {};
  }
  fs::path dir_;
};

#define EXPECT_CONTAINS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST_F(BadArchive, MissingPath) {
  const auto m = error_of(dir_ / "nowhere");
  EXPECT_CONTAINS(m, "nowhere");
  EXPECT_CONTAINS(m, "no such file");
}

TEST_F(BadArchive, DirectoryWithoutAnchor) {
  fs::create_directories(dir_ / "empty");
  EXPECT_CONTAINS(error_of(dir_ / "empty"), "no anchor file");
}

TEST_F(BadArchive, EmptyAnchor) {
  std::ofstream(dir_ / "a" / "traces.otf2", std::ios::trunc).close();
  const auto m = error_of(dir_ / "a" / "traces.otf2");
  EXPECT_CONTAINS(m, "traces.otf2");
  EXPECT_CONTAINS(m, "empty");
}

TEST_F(BadArchive, NotOtf2) {
  std::ofstream(dir_ / "a" / "traces.otf2", std::ios::trunc) << "this is a text file\n";
  const auto m = error_of(dir_ / "a");
  EXPECT_CONTAINS(m, "traces.otf2");
  EXPECT_CONTAINS(m, "not a readable OTF2 archive");
}

TEST_F(BadArchive, TruncatedAnchor) {
  truncate_half(dir_ / "a" / "traces.otf2");
  const auto m = error_of(dir_ / "a");
  EXPECT_CONTAINS(m, "traces.otf2");
  EXPECT_CONTAINS(m, "not a readable OTF2 archive");
}

TEST_F(BadArchive, MissingGlobalDefinitions) {
  fs::remove(dir_ / "a" / "traces.def");
  const auto m = error_of(dir_ / "a");
  EXPECT_CONTAINS(m, "traces.def");
  EXPECT_CONTAINS(m, "missing");
}

TEST_F(BadArchive, TruncatedGlobalDefinitions) {
  truncate_half(dir_ / "a" / "traces.def");
  const auto m = error_of(dir_ / "a");
  EXPECT_CONTAINS(m, "traces.def");
  EXPECT_CONTAINS(m, "reading the global definitions failed");
}

TEST_F(BadArchive, MissingEventFile) {
  fs::remove(dir_ / "a" / "traces" / "1.evt");
  const auto m = error_of(dir_ / "a");
  EXPECT_CONTAINS(m, "1.evt");
  EXPECT_CONTAINS(m, "missing");
}

TEST_F(BadArchive, TruncatedEventFile) {
  // OTF2 itself notices only some cuts; the announced event count catches the others.
  for (const auto fraction : {2, 3, 5}) {
    fs::remove_all(dir_ / "a");
    fs::copy(kData / "pipit-ping-pong", dir_ / "a", fs::copy_options::recursive);
    const auto evt = dir_ / "a" / "traces" / "0.evt";
    fs::resize_file(evt, fs::file_size(evt) * (fraction - 1) / fraction);
    const auto m = error_of(dir_ / "a");
    EXPECT_CONTAINS(m, "0.evt");
    EXPECT_CONTAINS(m, "reading the events");
  }
}

TEST_F(BadArchive, EmptyEventFile) {
  std::ofstream(dir_ / "a" / "traces" / "0.evt", std::ios::trunc).close();
  const auto m = error_of(dir_ / "a");
  EXPECT_CONTAINS(m, "0.evt");
}

TEST_F(BadArchive, MissingLocalDefinitionsIsAWarningNotAnError) {
  // otf2-print reads such archives too: local definitions only carry mapping tables and
  // clock offsets, which Score-P archives without them do not need.
  fs::remove(dir_ / "a" / "traces" / "1.def");
  const auto t = open((dir_ / "a").string());
  EXPECT_EQ(t.size(), 120U);
  ASSERT_FALSE(t.metadata.warnings.empty());
  EXPECT_CONTAINS(t.metadata.warnings.front(), "1.def");
}

namespace {

// A two-rank archive written with the OTF2 library whose Location definitions announce
// `announced` events while the files hold 4 (rank 0) and 2 (rank 1).
void write_archive_announcing(const fs::path &dir, std::uint64_t announced0,
                              std::uint64_t announced1) {
  OTF2_Archive *a = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, 1 << 20, 1 << 22,
                                      OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  ASSERT_NE(a, nullptr);
  static OTF2_FlushCallbacks flush = {
      [](void *, OTF2_FileType, OTF2_LocationRef, void *, bool) -> OTF2_FlushType {
        return OTF2_FLUSH;
      },
      [](void *, OTF2_FileType, OTF2_LocationRef) -> OTF2_TimeStamp { return 0; }};
  OTF2_Archive_SetFlushCallbacks(a, &flush, nullptr);
  OTF2_Archive_SetSerialCollectiveCallbacks(a);
  OTF2_Archive_OpenEvtFiles(a);
  auto *w0 = OTF2_Archive_GetEvtWriter(a, 0);
  OTF2_EvtWriter_Enter(w0, nullptr, 10, 0);
  OTF2_EvtWriter_MpiSend(w0, nullptr, 11, 1, 0, 5, 8);
  OTF2_EvtWriter_Leave(w0, nullptr, 12, 0);
  OTF2_EvtWriter_ProgramEnd(w0, nullptr, 13, 0);
  OTF2_Archive_CloseEvtWriter(a, w0);
  auto *w1 = OTF2_Archive_GetEvtWriter(a, 1);
  OTF2_EvtWriter_MpiRecv(w1, nullptr, 20, 0, 0, 5, 8);
  OTF2_EvtWriter_ProgramEnd(w1, nullptr, 21, 0);
  OTF2_Archive_CloseEvtWriter(a, w1);
  OTF2_Archive_CloseEvtFiles(a);
  auto *d = OTF2_Archive_GetGlobalDefWriter(a);
  OTF2_GlobalDefWriter_WriteClockProperties(d, 1'000'000'000, 0, 100, OTF2_UNDEFINED_TIMESTAMP);
  OTF2_GlobalDefWriter_WriteString(d, 0, "");
  OTF2_GlobalDefWriter_WriteString(d, 1, "MPI_Send");
  OTF2_GlobalDefWriter_WriteString(d, 2, "MPI_COMM_WORLD");
  OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, 0, 0, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  for (std::uint64_t r = 0; r < 2; ++r) {
    OTF2_GlobalDefWriter_WriteLocationGroup(d, r, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(d, r, 0, OTF2_LOCATION_TYPE_CPU_THREAD,
                                       r == 0 ? announced0 : announced1, r);
  }
  OTF2_GlobalDefWriter_WriteRegion(d, 0, 1, 1, 0, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                   OTF2_REGION_FLAG_NONE, 0, 0, 0);
  const std::uint64_t members[] = {0, 1};
  OTF2_GlobalDefWriter_WriteGroup(d, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, 2, members);
  OTF2_GlobalDefWriter_WriteGroup(d, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, 2, members);
  OTF2_GlobalDefWriter_WriteComm(d, 0, 2, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  OTF2_Archive_CloseGlobalDefWriter(a, d);
  OTF2_Archive_Close(a);
}

} // namespace

TEST_F(BadArchive, AnnouncedEventCountsAreChecked) {
  // The files hold 4 (rank 0) and 2 (rank 1) events. Exact or missing counts read normally;
  // more events than announced are read again by appending, with a warning; fewer means a
  // file cut short: a TraceError naming it, whatever OTF2 noticed.
  for (const auto &[announced0, announced1] :
       {std::pair<std::uint64_t, std::uint64_t>{4, 2}, {2, 2}, {0, 0}, {4, 9}, {9, 2}}) {
    const auto dir =
        dir_ / ("counts_" + std::to_string(announced0) + "_" + std::to_string(announced1));
    write_archive_announcing(dir, announced0, announced1);
    for (const unsigned threads : {1U, 2U}) {
      const bool too_many =
          (announced0 != 0 && announced0 < 4) || (announced1 != 0 && announced1 < 2);
      const bool too_few = announced0 > 4 || announced1 > 2;
      if (too_few && !too_many) {
        const auto m = error_of(dir);
        EXPECT_CONTAINS(m, announced0 > 4 ? "0.evt" : "1.evt");
        EXPECT_CONTAINS(m, "truncated or damaged");
        continue;
      }
      const auto t = open(dir.string(), threads);
      ASSERT_EQ(t.size(), 6U) << announced0 << "/" << announced1;
      EXPECT_EQ(t.location_offsets, (std::vector<std::uint64_t>{0, 4, 6}));
      EXPECT_EQ(t.unmatched.total(), 0U);
      EXPECT_EQ(t.events.match[1], 4);
      const bool warned =
          !t.metadata.warnings.empty() &&
          t.metadata.warnings.front().find("announces fewer events") != std::string::npos;
      EXPECT_EQ(warned, too_many);
    }
  }
}

TEST_F(BadArchive, LocalDefinitionsAreAppliedAndEmptyOnesSkipped) {
  // Rank 1's events name communicator 7, which its local mapping table maps to the global
  // MPI_COMM_WORLD (0); rank 0's local definition file is written but holds no record. The
  // reader skips the empty file without a warning (otf2_files.hpp, local_definitions) and must
  // still apply the mapping, or rank 1's receive would not match rank 0's send.
  const auto dir = dir_ / "mapped";
  write_archive_announcing(dir, 4, 2);
  fs::remove_all(dir / "traces");
  OTF2_Archive *a = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, 1 << 20, 1 << 22,
                                      OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  ASSERT_NE(a, nullptr);
  static OTF2_FlushCallbacks flush = {
      [](void *, OTF2_FileType, OTF2_LocationRef, void *, bool) -> OTF2_FlushType {
        return OTF2_FLUSH;
      },
      [](void *, OTF2_FileType, OTF2_LocationRef) -> OTF2_TimeStamp { return 0; }};
  OTF2_Archive_SetFlushCallbacks(a, &flush, nullptr);
  OTF2_Archive_SetSerialCollectiveCallbacks(a);
  OTF2_Archive_OpenEvtFiles(a);
  auto *w0 = OTF2_Archive_GetEvtWriter(a, 0);
  OTF2_EvtWriter_Enter(w0, nullptr, 10, 0);
  OTF2_EvtWriter_MpiSend(w0, nullptr, 11, 1, 0, 5, 8);
  OTF2_EvtWriter_Leave(w0, nullptr, 12, 0);
  OTF2_EvtWriter_ProgramEnd(w0, nullptr, 13, 0);
  OTF2_Archive_CloseEvtWriter(a, w0);
  auto *w1 = OTF2_Archive_GetEvtWriter(a, 1);
  OTF2_EvtWriter_MpiRecv(w1, nullptr, 20, 0, 7, 5, 8);
  OTF2_EvtWriter_ProgramEnd(w1, nullptr, 21, 0);
  OTF2_Archive_CloseEvtWriter(a, w1);
  OTF2_Archive_CloseEvtFiles(a);
  OTF2_Archive_OpenDefFiles(a);
  OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, 0));
  auto *local = OTF2_Archive_GetDefWriter(a, 1);
  OTF2_IdMap *map = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, 1);
  OTF2_IdMap_AddIdPair(map, 7, 0);
  OTF2_DefWriter_WriteMappingTable(local, OTF2_MAPPING_COMM, map);
  OTF2_IdMap_Free(map);
  OTF2_Archive_CloseDefWriter(a, local);
  OTF2_Archive_CloseDefFiles(a);
  OTF2_Archive_Close(a);
  ASSERT_EQ(fs::file_size(dir / "traces" / "0.def"), 20U); // an empty OTF2 definition file
  ASSERT_GT(fs::file_size(dir / "traces" / "1.def"), 20U);

  for (const unsigned threads : {1U, 2U}) {
    const auto t = open(dir.string(), threads);
    ASSERT_EQ(t.size(), 6U);
    EXPECT_EQ(t.events.kind[4], EventKind::Recv);
    EXPECT_EQ(t.events.comm[4], t.events.comm[1]);
    EXPECT_EQ(t.events.match[4], 1);
    EXPECT_EQ(t.unmatched.total(), 0U);
    EXPECT_TRUE(t.metadata.warnings.empty()) << t.metadata.warnings.front();
  }
}

TEST_F(BadArchive, EventsOutOfTimeOrderInALocationAreOrderedBeforeMatching) {
  // The reader notes while writing each location whether its events came in time order (and
  // how many are Generic), instead of passes over the filled slice. Rank 0's send comes after
  // the Leave that closes its MPI_Send region but happened before it. The OTF2 writer refuses
  // such a file, so the send's and the last event's timestamps are written as markers and
  // patched in the event file afterwards (other writers, or a damaged file, produce it).
  const auto dir = dir_ / "unordered";
  write_archive_announcing(dir, 4, 3);
  fs::remove_all(dir / "traces");
  OTF2_Archive *a = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, 1 << 20, 1 << 22,
                                      OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  ASSERT_NE(a, nullptr);
  static OTF2_FlushCallbacks flush = {
      [](void *, OTF2_FileType, OTF2_LocationRef, void *, bool) -> OTF2_FlushType {
        return OTF2_FLUSH;
      },
      [](void *, OTF2_FileType, OTF2_LocationRef) -> OTF2_TimeStamp { return 0; }};
  OTF2_Archive_SetFlushCallbacks(a, &flush, nullptr);
  OTF2_Archive_SetSerialCollectiveCallbacks(a);
  OTF2_Archive_OpenEvtFiles(a);
  constexpr std::uint64_t kSendMarker = 0x5E0D5E0D5E0D0011ULL;
  constexpr std::uint64_t kEndMarker = 0x5E0D5E0D5E0D0013ULL;
  auto *w0 = OTF2_Archive_GetEvtWriter(a, 0);
  OTF2_EvtWriter_Enter(w0, nullptr, 10, 0);
  OTF2_EvtWriter_Leave(w0, nullptr, 12, 0);
  OTF2_EvtWriter_MpiSend(w0, nullptr, kSendMarker, 1, 0, 5, 8);
  OTF2_EvtWriter_ProgramEnd(w0, nullptr, kEndMarker, 0);
  OTF2_Archive_CloseEvtWriter(a, w0);
  auto *w1 = OTF2_Archive_GetEvtWriter(a, 1);
  OTF2_EvtWriter_MpiRecv(w1, nullptr, 20, 0, 0, 5, 8);
  OTF2_EvtWriter_ThreadFork(w1, nullptr, 21, OTF2_PARADIGM_OPENMP, 2); // kept as Generic
  OTF2_EvtWriter_ProgramEnd(w1, nullptr, 22, 0);
  OTF2_Archive_CloseEvtWriter(a, w1);
  OTF2_Archive_CloseEvtFiles(a);
  OTF2_Archive_Close(a);
  {
    const auto evt = dir / "traces" / "0.evt";
    std::ostringstream read;
    read << std::ifstream(evt, std::ios::binary).rdbuf();
    auto bytes = read.str();
    for (const auto &[marker, time] :
         {std::pair<std::uint64_t, std::uint64_t>{kSendMarker, 11}, {kEndMarker, 13}}) {
      std::string from(8, '\0');
      std::string to(8, '\0');
      std::memcpy(from.data(), &marker, 8); // OTF2 writes timestamps in host byte order
      std::memcpy(to.data(), &time, 8);
      const auto at = bytes.find(from);
      ASSERT_NE(at, std::string::npos);
      bytes.replace(at, 8, to);
    }
    std::ofstream(evt, std::ios::binary | std::ios::trunc) << bytes;
  }

  for (const unsigned threads : {1U, 2U}) {
    const auto t = open(dir.string(), threads);
    ASSERT_EQ(t.size(), 7U);
    const auto &e = t.events;
    EXPECT_EQ(e.time.to_vector(), (std::vector<Timestamp>{10, 11, 12, 13, 20, 21, 22}));
    EXPECT_EQ(e.kind[1], EventKind::Send);
    EXPECT_EQ(e.match[0], 2);            // Enter <-> Leave, around the send once ordered
    EXPECT_EQ(e.region[1], e.region[0]); // the send happened inside MPI_Send
    EXPECT_EQ(e.match[1], 4);            // and is received by rank 1
    EXPECT_EQ(t.unmatched.total(), 0U);
    EXPECT_EQ(t.metadata.unknown_events, 1U);
  }
}
