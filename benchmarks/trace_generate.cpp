// trace_generate: write a large, realistic MPI trace as an OTF2 archive with the OTF2 library,
// for the trace loading benchmark (benchmarks/README.md). Independent of parjava's own writer
// so the benchmark input does not depend on the code under test.
//
// Each rank runs `iterations` steps of a 1-D halo-exchange solver, the usual MPI mix:
//   compute (user region); MPI_Irecv x2 + MPI_Isend x2 to both neighbours; MPI_Waitall
//   completing all four; MPI_Allreduce; every 4th step an MPI_Sendrecv with rank ^ 1;
//   every 10th step MPI_Barrier and MPI_Bcast from rank 0.
// That is 25.8 events per rank and step on average.
//
//   trace_generate -o /tmp/big --ranks 64 --events 10000000
#include <otf2/otf2.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

OTF2_FlushType pre_flush(void *, OTF2_FileType, OTF2_LocationRef, void *, bool) {
  return OTF2_FLUSH;
}
OTF2_TimeStamp post_flush(void *, OTF2_FileType, OTF2_LocationRef) { return 0; }
OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

void check(OTF2_ErrorCode code, const char *what) {
  if (code != OTF2_SUCCESS) {
    std::fprintf(stderr, "trace_generate: %s failed: %s\n", what, OTF2_Error_GetName(code));
    std::exit(2);
  }
}

enum Region : OTF2_RegionRef {
  Main,
  Compute,
  Init,
  Finalize,
  Irecv,
  Isend,
  Waitall,
  Allreduce,
  Sendrecv,
  Barrier,
  Bcast,
  RegionCount
};
const char *region_names[] = {"main",         "compute",     "MPI_Init",    "MPI_Finalize",
                              "MPI_Irecv",    "MPI_Isend",   "MPI_Waitall", "MPI_Allreduce",
                              "MPI_Sendrecv", "MPI_Barrier", "MPI_Bcast"};

struct RankWriter {
  OTF2_EvtWriter *w;
  std::uint64_t t = 0;
  OTF2_TimeStamp tick(std::uint64_t dt) { return t += dt; }
  void enter(Region r, std::uint64_t dt = 50) {
    check(OTF2_EvtWriter_Enter(w, nullptr, tick(dt), r), "Enter");
  }
  void leave(Region r, std::uint64_t dt = 50) {
    check(OTF2_EvtWriter_Leave(w, nullptr, tick(dt), r), "Leave");
  }
};

} // namespace

int main(int argc, char **argv) {
  std::string out;
  std::uint32_t ranks = 64;
  std::uint64_t events = 10'000'000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-o" && i + 1 < argc) {
      out = argv[++i];
    } else if (a == "--ranks" && i + 1 < argc) {
      ranks = static_cast<std::uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--events" && i + 1 < argc) {
      events = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: trace_generate -o DIR [--ranks 64] [--events 10000000]\n");
      return 2;
    }
  }
  if (out.empty() || ranks < 2) {
    std::fprintf(stderr, "usage: trace_generate -o DIR [--ranks N>=2] [--events N]\n");
    return 2;
  }
  // Per rank and step: 2 + 6 + 6 + 6 + 4 + 4/4 + 8/10 = 25.8 events (plus 10 per rank).
  const std::uint64_t steps = std::max<std::uint64_t>(1, (events * 10 / ranks) / 258);

  OTF2_Archive *archive =
      OTF2_Archive_Open(out.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (archive == nullptr) {
    std::fprintf(stderr, "trace_generate: cannot create %s (does it exist already?)\n",
                 out.c_str());
    return 2;
  }
  check(OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, nullptr), "flush callbacks");
  check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "collective callbacks");
  check(OTF2_Archive_SetCreator(archive, "parjava benchmarks/trace_generate"), "creator");
  check(OTF2_Archive_OpenEvtFiles(archive), "open event files");

  std::vector<std::uint64_t> counts(ranks);
  std::uint64_t t_end = 0;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    RankWriter w{OTF2_Archive_GetEvtWriter(archive, r)};
    const auto left = (r + ranks - 1) % ranks;
    const auto right = (r + 1) % ranks;
    const OTF2_CommRef world = 0;
    w.t = 1000 + r * 7;
    check(OTF2_EvtWriter_ProgramBegin(w.w, nullptr, w.tick(1), 0, 0, nullptr), "ProgramBegin");
    w.enter(Main);
    w.enter(Init);
    w.leave(Init, 20000);
    std::uint64_t request = 1;
    for (std::uint64_t s = 0; s < steps; ++s) {
      w.enter(Compute);
      w.leave(Compute, 5000 + (r * 131 + s * 17) % 1000);
      const std::uint64_t rl = request++;
      const std::uint64_t rr = request++;
      const std::uint64_t sl = request++;
      const std::uint64_t sr = request++;
      w.enter(Irecv);
      check(OTF2_EvtWriter_MpiIrecvRequest(w.w, nullptr, w.tick(10), rl), "IrecvRequest");
      w.leave(Irecv, 10);
      w.enter(Irecv);
      check(OTF2_EvtWriter_MpiIrecvRequest(w.w, nullptr, w.tick(10), rr), "IrecvRequest");
      w.leave(Irecv, 10);
      w.enter(Isend);
      check(OTF2_EvtWriter_MpiIsend(w.w, nullptr, w.tick(10), left, world, 1, 8192, sl), "Isend");
      w.leave(Isend, 10);
      w.enter(Isend);
      check(OTF2_EvtWriter_MpiIsend(w.w, nullptr, w.tick(10), right, world, 0, 8192, sr), "Isend");
      w.leave(Isend, 10);
      w.enter(Waitall);
      // Completions in an order other than the posts, as Waitall reports them.
      check(OTF2_EvtWriter_MpiIrecv(w.w, nullptr, w.tick(900), right, world, 1, 8192, rr), "Irecv");
      check(OTF2_EvtWriter_MpiIsendComplete(w.w, nullptr, w.tick(5), sl), "IsendComplete");
      check(OTF2_EvtWriter_MpiIrecv(w.w, nullptr, w.tick(5), left, world, 0, 8192, rl), "Irecv");
      check(OTF2_EvtWriter_MpiIsendComplete(w.w, nullptr, w.tick(5), sr), "IsendComplete");
      w.leave(Waitall, 10);
      w.enter(Allreduce);
      check(OTF2_EvtWriter_MpiCollectiveBegin(w.w, nullptr, w.tick(5)), "CollectiveBegin");
      check(OTF2_EvtWriter_MpiCollectiveEnd(w.w, nullptr, w.tick(2000),
                                            OTF2_COLLECTIVE_OP_ALLREDUCE, world,
                                            OTF2_UNDEFINED_UINT32, 8, 8),
            "CollectiveEnd");
      w.leave(Allreduce, 5);
      if (s % 4 == 0) {
        const auto partner = r ^ 1U;
        if (partner < ranks) {
          w.enter(Sendrecv);
          check(OTF2_EvtWriter_MpiSend(w.w, nullptr, w.tick(10), partner, world, 7, 65536), "Send");
          check(OTF2_EvtWriter_MpiRecv(w.w, nullptr, w.tick(3000), partner, world, 7, 65536),
                "Recv");
          w.leave(Sendrecv, 10);
        }
      }
      if (s % 10 == 0) {
        w.enter(Barrier);
        check(OTF2_EvtWriter_MpiCollectiveBegin(w.w, nullptr, w.tick(5)), "CollectiveBegin");
        check(OTF2_EvtWriter_MpiCollectiveEnd(w.w, nullptr, w.tick(1500),
                                              OTF2_COLLECTIVE_OP_BARRIER, world,
                                              OTF2_UNDEFINED_UINT32, 0, 0),
              "CollectiveEnd");
        w.leave(Barrier, 5);
        w.enter(Bcast);
        check(OTF2_EvtWriter_MpiCollectiveBegin(w.w, nullptr, w.tick(5)), "CollectiveBegin");
        check(OTF2_EvtWriter_MpiCollectiveEnd(w.w, nullptr, w.tick(1500), OTF2_COLLECTIVE_OP_BCAST,
                                              world, 0, r == 0 ? 4096 * (ranks - 1) : 0,
                                              r == 0 ? 0 : 4096),
              "CollectiveEnd");
        w.leave(Bcast, 5);
      }
    }
    w.enter(Finalize);
    w.leave(Finalize, 1000);
    w.leave(Main);
    check(OTF2_EvtWriter_ProgramEnd(w.w, nullptr, w.tick(1), 0), "ProgramEnd");
    check(OTF2_EvtWriter_GetNumberOfEvents(w.w, &counts[r]), "event count");
    t_end = std::max(t_end, w.t);
    check(OTF2_Archive_CloseEvtWriter(archive, w.w), "close event writer");
  }
  check(OTF2_Archive_CloseEvtFiles(archive), "close event files");

  // Empty local definition files, as Score-P writes one per location.
  check(OTF2_Archive_OpenDefFiles(archive), "open definition files");
  for (std::uint32_t r = 0; r < ranks; ++r) {
    check(OTF2_Archive_CloseDefWriter(archive, OTF2_Archive_GetDefWriter(archive, r)),
          "def writer");
  }
  check(OTF2_Archive_CloseDefFiles(archive), "close definition files");

  OTF2_GlobalDefWriter *defs = OTF2_Archive_GetGlobalDefWriter(archive);
  check(OTF2_GlobalDefWriter_WriteClockProperties(defs, 1'000'000'000, 0, t_end + 1,
                                                  OTF2_UNDEFINED_TIMESTAMP),
        "clock");
  OTF2_StringRef next_string = 0;
  auto string = [&](const std::string &s) {
    check(OTF2_GlobalDefWriter_WriteString(defs, next_string, s.c_str()), "string");
    return next_string++;
  };
  const auto empty = string("");
  const auto machine = string("machine");
  const auto node = string("node");
  const auto host = string("bench-host");
  check(OTF2_GlobalDefWriter_WriteSystemTreeNode(defs, 0, machine, machine,
                                                 OTF2_UNDEFINED_SYSTEM_TREE_NODE),
        "node");
  check(OTF2_GlobalDefWriter_WriteSystemTreeNode(defs, 1, host, node, 0), "node");
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const auto name = string("MPI Rank " + std::to_string(r));
    check(OTF2_GlobalDefWriter_WriteLocationGroup(defs, r, name, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                  1, OTF2_UNDEFINED_LOCATION_GROUP),
          "location group");
    check(OTF2_GlobalDefWriter_WriteLocation(defs, r, string("Master thread"),
                                             OTF2_LOCATION_TYPE_CPU_THREAD, counts[r], r),
          "location");
  }
  for (OTF2_RegionRef g = 0; g < RegionCount; ++g) {
    const bool mpi = std::strncmp(region_names[g], "MPI_", 4) == 0;
    const auto name = string(region_names[g]);
    OTF2_RegionRole role = OTF2_REGION_ROLE_FUNCTION;
    if (g == Allreduce || g == Bcast)
      role = OTF2_REGION_ROLE_COLL_ALL2ALL;
    if (g == Barrier)
      role = OTF2_REGION_ROLE_BARRIER;
    if (g == Irecv || g == Isend || g == Waitall || g == Sendrecv)
      role = OTF2_REGION_ROLE_POINT2POINT;
    check(OTF2_GlobalDefWriter_WriteRegion(defs, g, name, name, empty, role,
                                           mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
                                           OTF2_REGION_FLAG_NONE, empty, 0, 0),
          "region");
  }
  std::vector<std::uint64_t> members(ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    members[r] = r;
  }
  check(OTF2_GlobalDefWriter_WriteGroup(defs, 0, string(""), OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, ranks,
                                        members.data()),
        "locations group");
  check(OTF2_GlobalDefWriter_WriteGroup(defs, 1, string(""), OTF2_GROUP_TYPE_COMM_GROUP,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, ranks,
                                        members.data()),
        "world group");
  check(OTF2_GlobalDefWriter_WriteComm(defs, 0, string("MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM,
                                       OTF2_COMM_FLAG_NONE),
        "comm");
  check(OTF2_Archive_CloseGlobalDefWriter(archive, defs), "close definitions");
  check(OTF2_Archive_Close(archive), "close archive");

  std::uint64_t total = 0;
  for (auto c : counts) {
    total += c;
  }
  std::printf("wrote %s/traces.otf2: %u ranks, %llu steps, %llu events\n", out.c_str(), ranks,
              static_cast<unsigned long long>(steps), static_cast<unsigned long long>(total));
  return 0;
}
