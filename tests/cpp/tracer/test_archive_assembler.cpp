// Assembling synthetic fragments of a two-rank run into OTF2 and reading the archive back with
// the OTF2 library: definitions unified, events in rank-0 time, call sites attached, the
// unfinished call of a killed rank kept as an Enter without Leave.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <otf2/otf2.h>
#include <unistd.h>
#include <vector>

#include "parjava/error.hpp"
#include "parjava/trace/otf2.hpp"
#include "parjava/tracer/archive_assembler.hpp"
#include "parjava/tracer/event_buffer.hpp"
#include "parjava/tracer/routines.hpp"

namespace parjava::tracer {
namespace {

constexpr std::uint64_t kSite = kSiteTokenBit | 1;

Record call(Routine r, std::uint64_t enter, std::uint64_t leave) {
  Record c;
  c.kind = RecordKind::Call;
  c.routine = static_cast<std::uint16_t>(r);
  c.time = enter;
  c.a = leave;
  c.b = kSite;
  return c;
}

Record message(RecordKind kind, std::uint64_t time, std::int32_t peer, std::uint64_t bytes) {
  Record m;
  m.kind = kind;
  m.time = time;
  m.peer = peer;
  m.tag = 5;
  m.comm = 0;
  m.a = bytes;
  return m;
}

void write_process(const std::filesystem::path &dir, int pid, int rank, std::int64_t offset,
                   const std::vector<Record> &records, const std::string &end,
                   std::uint64_t begin = 1000) {
  std::ofstream(dir / ("p" + std::to_string(pid) + ".maps"))
      << "55d000000000-55d000001000 r-xp 00000000 08:01 17 /bin/synthetic\n";
  std::ofstream defs(dir / ("p" + std::to_string(pid) + ".defs"));
  defs << "parjava-fragment " << kFragmentVersion << " " << routine_table_hash() << "\n"
       << "pid " << pid << "\nhost testhost\nbegin " << begin << "\narg ./synthetic\narg -x\n"
       << "rank " << rank << " 2 mpi\ncomm 0 -1 - world 2 0 1\ncomm 1 -1 - self:" << rank << " 1 "
       << rank << "\nclock init 100 " << offset << " 1000\nclock final 100000 " << offset
       << " 1000\noverhead " << 40 + rank << "\ninterval 1 step\nsite " << kSite
       << " 21 /src/synthetic.c\n"
       << end;
  const auto evt = dir / ("p" + std::to_string(pid) + ".t0.evt");
  const int fd = ::open(evt.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(write_fragment_header(fd, 0));
  ASSERT_TRUE(write_all(fd, records.data(), records.size() * sizeof(Record)));
  ::close(fd);
}

struct Counts {
  std::map<std::string, int> events;
  std::map<OTF2_LocationRef, std::vector<OTF2_TimeStamp>> times;
  std::uint64_t global_offset = 0;
  int comms = 0;
  int source_locations = 0;
  int callsite_attributes = 0;
};

OTF2_CallbackCode on_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, void *data,
                           OTF2_AttributeList *attributes, OTF2_RegionRef) {
  auto *c = static_cast<Counts *>(data);
  ++c->events["Enter"];
  c->times[loc].push_back(t);
  if (attributes != nullptr && OTF2_AttributeList_GetNumberOfElements(attributes) > 0) {
    ++c->callsite_attributes;
  }
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, void *data, OTF2_AttributeList *,
                           OTF2_RegionRef) {
  auto *c = static_cast<Counts *>(data);
  ++c->events["Leave"];
  c->times[loc].push_back(t);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_send(OTF2_LocationRef, OTF2_TimeStamp, void *data, OTF2_AttributeList *,
                          uint32_t receiver, OTF2_CommRef, uint32_t tag, uint64_t length) {
  auto *c = static_cast<Counts *>(data);
  c->events["MpiSend"] += (receiver == 1 && tag == 5 && length == 64) ? 1 : 100;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_recv(OTF2_LocationRef, OTF2_TimeStamp, void *data, OTF2_AttributeList *,
                          uint32_t sender, OTF2_CommRef, uint32_t tag, uint64_t length) {
  auto *c = static_cast<Counts *>(data);
  c->events["MpiRecv"] += (sender == 0 && tag == 5 && length == 64) ? 1 : 100;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_collective_end(OTF2_LocationRef, OTF2_TimeStamp, void *data,
                                    OTF2_AttributeList *, OTF2_CollectiveOp op, OTF2_CommRef,
                                    uint32_t, uint64_t, uint64_t) {
  static_cast<Counts *>(data)->events["CollectiveEnd"] += op == OTF2_COLLECTIVE_OP_BARRIER;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_program_end(OTF2_LocationRef, OTF2_TimeStamp, void *data, OTF2_AttributeList *,
                                 int64_t status) {
  static_cast<Counts *>(data)->events["ProgramEnd:" + std::to_string(status)] += 1;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_clock(void *data, uint64_t, uint64_t offset, uint64_t, uint64_t) {
  static_cast<Counts *>(data)->global_offset = offset;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_comm(void *data, OTF2_CommRef, OTF2_StringRef, OTF2_GroupRef, OTF2_CommRef,
                          OTF2_CommFlag) {
  ++static_cast<Counts *>(data)->comms;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_source(void *data, OTF2_SourceCodeLocationRef, OTF2_StringRef, uint32_t) {
  ++static_cast<Counts *>(data)->source_locations;
  return OTF2_CALLBACK_SUCCESS;
}

Counts read_archive(const std::filesystem::path &archive) {
  Counts counts;
  OTF2_Reader *reader = OTF2_Reader_Open(archive.c_str());
  EXPECT_NE(reader, nullptr);
  OTF2_Reader_SetSerialCollectiveCallbacks(reader);
  auto *defs = OTF2_Reader_GetGlobalDefReader(reader);
  auto *dcb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(dcb, on_clock);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(dcb, on_comm);
  OTF2_GlobalDefReaderCallbacks_SetSourceCodeLocationCallback(dcb, on_source);
  OTF2_Reader_RegisterGlobalDefCallbacks(reader, defs, dcb, &counts);
  uint64_t n = 0;
  OTF2_Reader_ReadAllGlobalDefinitions(reader, defs, &n);
  OTF2_GlobalDefReaderCallbacks_Delete(dcb);
  OTF2_Reader_CloseGlobalDefReader(reader, defs);
  for (OTF2_LocationRef loc : {0, 1}) {
    OTF2_Reader_SelectLocation(reader, loc);
  }
  OTF2_Reader_OpenEvtFiles(reader);
  for (OTF2_LocationRef loc : {0, 1}) {
    OTF2_Reader_GetEvtReader(reader, loc);
  }
  auto *events = OTF2_Reader_GetGlobalEvtReader(reader);
  auto *ecb = OTF2_GlobalEvtReaderCallbacks_New();
  OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(ecb, on_enter);
  OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(ecb, on_leave);
  OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(ecb, on_send);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(ecb, on_recv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, on_collective_end);
  OTF2_GlobalEvtReaderCallbacks_SetProgramEndCallback(ecb, on_program_end);
  OTF2_Reader_RegisterGlobalEvtCallbacks(reader, events, ecb, &counts);
  OTF2_Reader_ReadAllGlobalEvents(reader, events, &n);
  OTF2_GlobalEvtReaderCallbacks_Delete(ecb);
  OTF2_Reader_CloseGlobalEvtReader(reader, events);
  OTF2_Reader_CloseEvtFiles(reader);
  OTF2_Reader_Close(reader);
  return counts;
}

class ArchiveAssemblerTest : public ::testing::Test {
protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("parjava_assemble_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "fragments");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::filesystem::path root_;
};

TEST_F(ArchiveAssemblerTest, TwoRanksOneMessageOneBarrierAndAKilledRank) {
  // Rank 0's clock is the reference; rank 1's runs 500 ns ahead.
  Record barrier_end;
  barrier_end.kind = RecordKind::CollectiveEnd;
  barrier_end.tag = OTF2_COLLECTIVE_OP_BARRIER;
  barrier_end.peer = -1;
  Record interval_begin;
  interval_begin.kind = RecordKind::IntervalBegin;
  interval_begin.time = 1500;
  interval_begin.tag = 1;
  interval_begin.b = kSite;
  Record interval_end = interval_begin;
  interval_end.kind = RecordKind::IntervalEnd;
  interval_end.time = 1900;
  barrier_end.time = 2600;
  std::vector<Record> rank0 = {interval_begin,
                               message(RecordKind::Send, 1600, 1, 64),
                               call(Routine::MPI_Send, 1600, 1700),
                               interval_end,
                               barrier_end,
                               call(Routine::MPI_Barrier, 2000, 2600)};
  barrier_end.time = 3100;
  Record unfinished;
  unfinished.kind = RecordKind::CallUnfinished;
  unfinished.routine = static_cast<std::uint16_t>(Routine::MPI_Recv);
  unfinished.time = 3300;
  unfinished.b = kSite;
  std::vector<Record> rank1 = {message(RecordKind::Recv, 2300, 0, 64),
                               call(Routine::MPI_Recv, 1800, 2300), barrier_end,
                               call(Routine::MPI_Barrier, 2400, 3100), unfinished};
  write_process(root_ / "fragments", 100, 0, 0, rank0, "end exit 0 4000\n");
  write_process(root_ / "fragments", 101, 1, 500, rank1, "end signal 15 3400\n", 1600);

  const auto report = assemble_archive({root_ / "fragments", root_ / "out", "traces"});
  EXPECT_EQ(report.archive, root_ / "out" / "traces.otf2");
  EXPECT_EQ(report.ranks, 2);
  EXPECT_EQ(report.paradigm, "mpi");
  EXPECT_EQ(report.clock_correction, "linear");
  EXPECT_EQ(report.overhead_ns, 41); // the median of 40 and 41 (upper)
  EXPECT_EQ(report.calls.at("MPI_Send"), 1U);
  EXPECT_EQ(report.calls.at("MPI_Recv"), 2U);
  EXPECT_EQ(report.calls.at("step"), 1U);
  EXPECT_EQ(report.callsites, 1U);
  ASSERT_EQ(report.processes.size(), 2U);
  EXPECT_EQ(report.processes[1].end_reason, "signal");
  EXPECT_EQ(report.processes[1].unfinished_calls, 1U);
  EXPECT_TRUE(report.warnings.empty()) << report.warnings.front();
  EXPECT_NE(report.to_json().find("\"unfinished_calls\": 1"), std::string::npos);

  const auto counts = read_archive(report.archive);
  EXPECT_EQ(counts.events.at("MpiSend"), 1);
  EXPECT_EQ(counts.events.at("MpiRecv"), 1);
  EXPECT_EQ(counts.events.at("CollectiveEnd"), 2);
  EXPECT_EQ(counts.events.at("Enter"), 6); // Send, Barrier, step | Recv, Barrier, Recv
  EXPECT_EQ(counts.events.at("Leave"), 5); // the killed rank's last Recv never returned
  EXPECT_EQ(counts.events.at("ProgramEnd:0"), 1);
  EXPECT_EQ(counts.events.at("ProgramEnd:143"), 1); // 128 + SIGTERM
  EXPECT_EQ(counts.callsite_attributes, 6);
  EXPECT_EQ(counts.comms, 2); // MPI_COMM_WORLD and one MPI_COMM_SELF
  EXPECT_EQ(counts.source_locations, 1);
  EXPECT_EQ(counts.global_offset, 1000U); // ProgramBegin of rank 0 (rank 1's: 1600 - 500)
  // Rank 1's times are moved 500 ns back into rank 0's clock: its Recv enters at 1300.
  ASSERT_FALSE(counts.times.at(1).empty());
  EXPECT_EQ(counts.times.at(1).front(), 1300U);
}

TEST_F(ArchiveAssemblerTest, TheTracePartReadsBackWhatTheTracerWrote) {
  // Rank 0 posts an Isend completed in a Wait, rank 1 receives it with a blocking Recv.
  Record isend = message(RecordKind::IsendPost, 1100, 1, 256);
  isend.b = 7;
  Record complete;
  complete.kind = RecordKind::IsendComplete;
  complete.time = 1400;
  complete.b = 7;
  const std::vector<Record> rank0 = {isend, call(Routine::MPI_Isend, 1100, 1150), complete,
                                     call(Routine::MPI_Wait, 1300, 1400)};
  const std::vector<Record> rank1 = {message(RecordKind::Recv, 1500, 0, 256),
                                     call(Routine::MPI_Recv, 1200, 1500)};
  write_process(root_ / "fragments", 100, 0, 0, rank0, "end exit 0 2000\n");
  write_process(root_ / "fragments", 101, 1, -100, rank1, "end exit 0 2000\n");
  const auto report = assemble_archive({root_ / "fragments", root_ / "out", "traces"});

  const auto t = trace::open(report.archive.string());
  EXPECT_EQ(t.process_count(), 2);
  EXPECT_EQ(t.unmatched.total(), 0U);
  EXPECT_EQ(t.metadata.tracer_overhead_ns, 41);
  std::size_t send = t.size();
  std::size_t recv = t.size();
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.events.kind[i] == trace::EventKind::IsendPost) {
      send = i;
    } else if (t.events.kind[i] == trace::EventKind::Recv) {
      recv = i;
    }
  }
  ASSERT_LT(send, t.size());
  ASSERT_LT(recv, t.size());
  EXPECT_EQ(t.events.match[send], static_cast<trace::EventIndex>(recv));
  EXPECT_EQ(t.events.peer[send], 1);
  EXPECT_EQ(t.events.peer[recv], 0);
  EXPECT_EQ(t.events.bytes[recv], 256U);
  EXPECT_NE(t.events.link[send], trace::kNoEvent); // its IsendComplete
  // Rank 1's clock ran 100 ns behind: its Recv entered at 1300 in rank 0's time, 1300 - 1000
  // after the trace's origin (rank 0's ProgramBegin at 1000).
  const auto cs = t.events.callsite[recv];
  ASSERT_NE(cs, trace::kNoRef);
  EXPECT_EQ(t.callsites[cs].file, "/src/synthetic.c");
  EXPECT_EQ(t.callsites[cs].line, 21U);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.events.kind[i] == trace::EventKind::Enter && t.events.location[i] == 1) {
      EXPECT_EQ(t.events.time[i], 300);
      break;
    }
  }
}

TEST_F(ArchiveAssemblerTest, RefusesMixedRunsAndEmptyDirectories) {
  EXPECT_THROW(assemble_archive({root_ / "fragments", root_ / "out", "traces"}), Error);
  write_process(root_ / "fragments", 100, 0, 0, {}, "");
  write_process(root_ / "fragments", 200, 0, 0, {}, "");
  try {
    assemble_archive({root_ / "fragments", root_ / "out", "traces"});
    FAIL() << "two processes claiming rank 0 must be refused";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("two processes"), std::string::npos);
  }
}

TEST_F(ArchiveAssemblerTest, AMissingRankGetsAnEmptyLocationAndAWarning) {
  write_process(root_ / "fragments", 100, 0, 0, {call(Routine::MPI_Init, 1100, 1200)},
                "end exit 0 1300\n");
  const auto report = assemble_archive({root_ / "fragments", root_ / "out", "traces"});
  ASSERT_EQ(report.locations.size(), 2U);
  EXPECT_EQ(report.locations[1].rank, 1);
  EXPECT_EQ(report.locations[1].events, 0U);
  ASSERT_EQ(report.warnings.size(), 1U) << report.warnings.back();
  EXPECT_NE(report.warnings[0].find("rank 1 of 2 left no trace data"), std::string::npos);
  // Assembling again overwrites the archive.
  EXPECT_NO_THROW(assemble_archive({root_ / "fragments", root_ / "out", "traces"}));
}

} // namespace
} // namespace parjava::tracer
