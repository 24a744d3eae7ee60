// Unifying per-process definitions: communicators by key (one MPI_COMM_SELF), members checked,
// parents mapped; regions, source locations, locks and windows defined once.
#include <gtest/gtest.h>

#include "parjava/tracer/definitions.hpp"
#include "parjava/tracer/routines.hpp"

namespace parjava::tracer {
namespace {

CommunicatorDefinition comm(std::uint32_t id, std::int64_t parent, std::string key,
                            std::vector<std::int32_t> members, std::string how = "-") {
  CommunicatorDefinition c;
  c.local_id = id;
  c.parent = parent;
  c.key = std::move(key);
  c.members = std::move(members);
  c.created_by = std::move(how);
  return c;
}

ProcessFragment process(std::int32_t rank, std::vector<CommunicatorDefinition> comms) {
  ProcessFragment p;
  p.rank = rank;
  p.size = 4;
  p.communicators = std::move(comms);
  return p;
}

TEST(DefinitionUnifier, UnifiesCommunicatorsByKeyAcrossProcesses) {
  DefinitionUnifier defs;
  // Ranks 0 and 2 are in the even half of a split, rank 1 in the odd half; local ids differ.
  const auto p0 = process(0, {comm(0, -1, "world", {0, 1, 2, 3}), comm(1, -1, "self:0", {0}),
                              comm(2, 0, "world/0.0", {0, 2}, "MPI_Comm_split")});
  const auto p1 = process(1, {comm(0, -1, "world", {0, 1, 2, 3}), comm(1, -1, "self:1", {1}),
                              comm(5, 0, "world/0.1", {1, 3}, "MPI_Comm_split")});
  const auto p2 = process(2, {comm(0, -1, "world", {0, 1, 2, 3}), comm(1, -1, "self:2", {2}),
                              comm(2, 0, "world/0.0", {0, 2}, "MPI_Comm_split")});
  const auto m0 = defs.add_communicators(p0);
  const auto m1 = defs.add_communicators(p1);
  const auto m2 = defs.add_communicators(p2);
  const auto &all = defs.communicators();
  ASSERT_EQ(all.size(), 4U); // world, self, even half, odd half
  EXPECT_EQ(all[m0[0]].name, "MPI_COMM_WORLD");
  EXPECT_EQ(m0[0], m1[0]);
  EXPECT_EQ(m0[1], m1[1]); // every process's MPI_COMM_SELF is one definition
  EXPECT_TRUE(all[m0[1]].is_self);
  EXPECT_EQ(m0[2], m2[2]);
  EXPECT_NE(m0[2], m1[5]);
  EXPECT_EQ(all[m1[5]].members, (std::vector<std::int32_t>{1, 3}));
  EXPECT_EQ(all[m1[5]].parent, m1[0]);
  EXPECT_NE(all[m1[5]].name.find("MPI_Comm_split"), std::string::npos);
  EXPECT_EQ(m1[3], kUndefined); // ids a process never defined stay undefined
  EXPECT_TRUE(defs.warnings().empty());
}

TEST(DefinitionUnifier, WarnsWhenProcessesDisagreeOnMembers) {
  DefinitionUnifier defs;
  defs.add_communicators(process(0, {comm(0, -1, "world", {0, 1})}));
  defs.add_communicators(process(1, {comm(0, -1, "world", {1, 0})}));
  ASSERT_EQ(defs.warnings().size(), 1U);
  EXPECT_NE(defs.warnings()[0].find("rank 1"), std::string::npos);
}

TEST(DefinitionUnifier, NamesOpenShmemCommunicators) {
  DefinitionUnifier defs;
  defs.set_paradigm("shmem");
  const auto m = defs.add_communicators(
      process(0, {comm(0, -1, "world", {0, 1, 2, 3}), comm(2, 0, "shmem:0:1:2", {0, 2})}));
  EXPECT_EQ(defs.communicators()[m[0]].name, "SHMEM all PEs");
  EXPECT_NE(defs.communicators()[m[2]].name.find("active set 0:1:2"), std::string::npos);
  EXPECT_EQ(defs.window(m[2]), defs.window(m[2]));
  EXPECT_NE(defs.window(m[0]), defs.window(m[2]));
  EXPECT_EQ(defs.windows().size(), 2U);
}

TEST(DefinitionUnifier, DefinesRegionsSourceLocationsAndLocksOnce) {
  DefinitionUnifier defs;
  const auto send = static_cast<std::uint16_t>(Routine::MPI_Send);
  const auto a = defs.routine_region(send);
  EXPECT_EQ(defs.routine_region(send), a);
  EXPECT_EQ(defs.regions()[a].name, "MPI_Send");
  EXPECT_EQ(defs.regions()[a].function, trace::Function::MPI_Send);
  const auto interval = defs.interval_region(3, "halo", MarkerSite{"/src/a.c", 40});
  EXPECT_EQ(defs.interval_region(3, "other name", MarkerSite{"/src/b.c", 9}), interval);
  EXPECT_EQ(defs.regions()[interval].canonical_name, "parjava_interval:3");
  EXPECT_EQ(defs.regions()[interval].name, "halo");
  EXPECT_EQ(defs.regions()[interval].line, 40U);
  EXPECT_EQ(defs.regions()[defs.interval_region(4, "", {})].name, "interval 4");
  const auto s = defs.source_location("/src/a.c", 12);
  EXPECT_EQ(defs.source_location("/src/a.c", 12), s);
  EXPECT_NE(defs.source_location("/src/a.c", 13), s);
  EXPECT_EQ(defs.lock("/bin/app+4010"), defs.lock("/bin/app+4010"));
  EXPECT_NE(defs.lock("/bin/app+4010"), defs.lock("/bin/app+4018"));
  EXPECT_EQ(defs.lock_count(), 2U);
  const auto unknown = defs.routine_region(60000);
  EXPECT_NE(defs.regions()[unknown].name.find("unknown routine"), std::string::npos);
  EXPECT_EQ(defs.warnings().size(), 1U);
}

} // namespace
} // namespace parjava::tracer
