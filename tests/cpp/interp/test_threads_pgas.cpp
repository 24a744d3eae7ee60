// Thread primitives (notes 000 §2.7, §3.6) and PGAS operations (seed 001) with hand-computed
// times.
#include <gtest/gtest.h>

#include "helpers.hpp"

using namespace parjava::interp;
using namespace parjava::interp::testing;

namespace {
constexpr double us = 1e-6;
constexpr double eps = 1e-12;

parjava::machine::Machine with_costs(double start, double lock = 0.0) {
  parjava::machine::ThreadCosts c;
  c.start = start;
  c.lock = lock;
  c.create = 2e-6;
  c.atomic_cas = 1e-8;
  c.copy_per_byte = 1e-10;
  return hockney(1e-6, 1e9).with_threads(c);
}

const char *kTasks = R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "task_group", "tasks": 4, "children": [3]},
    {"id": 3, "kind": "cb", "time": 1e-6})J";
} // namespace

TEST(Threads, ForkJoinClockRule) {
  // 4 tasks of 1 us on 2 pool threads, handed out every 0.1 us: thread A runs tasks 0 and 2
  // (0.1-1.1, 1.1-2.1), thread B tasks 1 and 3 (0.2-1.2, 1.2-2.2); the main thread resumes
  // at the last task end.
  const auto m = model_of("{}", kTasks);
  auto p = run(m, with_costs(0.1e-6), 1, 2);
  EXPECT_NEAR(p.program_time, 2.2 * us, eps);
  EXPECT_EQ(stats(p, 3).freq, 4U);
  p = run(m, with_costs(0.1e-6), 1, 4);
  EXPECT_NEAR(p.program_time, 1.4 * us, eps);
}

TEST(Threads, TaskAndThreadBuiltins) {
  const auto n = model_of(R"J({"nt": 3})J", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "task_group", "tasks": "nt", "children": [3]},
    {"id": 3, "kind": "cb", "time": "1e-6 * (task + 1) + 0 * thread + 0 * ntasks"})J");
  // 3 tasks on 3 threads, no start cost: the longest is task 2 with 3 us.
  EXPECT_NEAR(run(n, with_costs(0), 1, 3).program_time, 3 * us, eps);
}

TEST(Threads, LockSerialisesCriticalSections) {
  // Two tasks each lock, compute 1 us, unlock; with the lock costing 0.05 us: the second
  // waits until the first releases (sem_ts = 1.05 us), then pays the lock cost again.
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "task_group", "tasks": 2, "children": [3]},
    {"id": 3, "kind": "seq", "children": [4, 5, 6]},
    {"id": 4, "kind": "cfc", "op": "lock", "args": {"lock": "L"}},
    {"id": 5, "kind": "cb", "time": 1e-6},
    {"id": 6, "kind": "cfc", "op": "unlock", "args": {"lock": "L"}})J");
  const auto p = run(m, with_costs(0, 0.05e-6), 1, 2);
  EXPECT_NEAR(p.program_time, 2.1 * us, eps);
  // Time of the lock node includes the wait: 0.05 + (1.05 - 0 + 0.05)
  EXPECT_NEAR(stats(p, 4).time, 1.15 * us, eps);
}

TEST(Threads, CountingSemaphoreAndTrylock) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2, 3]},
    {"id": 2, "kind": "cfc", "op": "semaphore_create", "args": {"lock": "S", "permits": 2}},
    {"id": 3, "kind": "task_group", "tasks": 3, "children": [4]},
    {"id": 4, "kind": "seq", "children": [5, 6, 7]},
    {"id": 5, "kind": "cfc", "op": "lock", "args": {"lock": "S"}},
    {"id": 6, "kind": "cb", "time": 1e-6},
    {"id": 7, "kind": "cfc", "op": "unlock", "args": {"lock": "S"}})J");
  EXPECT_NEAR(run(m, with_costs(0), 1, 3).program_time, 2 * us, eps);
  const auto t = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2, 3, 4]},
    {"id": 2, "kind": "cfc", "op": "lock", "args": {"lock": "M"}},
    {"id": 3, "kind": "cfc", "op": "trylock", "args": {"lock": "M", "flag": "got"}},
    {"id": 4, "kind": "cb", "time": "got ? 1 : 1e-6"})J");
  EXPECT_NEAR(run(t, with_costs(0), 1).program_time, 1 * us, eps);
}

TEST(Threads, PrimitiveCostsComeFromTheMachine) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2, 3, 4]},
    {"id": 2, "kind": "cfc", "op": "thread_pool_create", "args": {"threads": 4}},
    {"id": 3, "kind": "cfc", "op": "atomic_cas", "args": {"count": 100}},
    {"id": 4, "kind": "cfc", "op": "copy", "args": {"bytes": 10000}})J");
  // 4 x 2 us + 100 x 10 ns + 10000 x 0.1 ns
  EXPECT_NEAR(run(m, with_costs(0), 1).program_time, 8 * us + 1 * us + 1 * us, eps);
}

TEST(Threads, OpenMpTeamsFollowTheProgramsTeamSize) {
  // A `team` group without tasks has nthreads tasks until set_team, then set_team's; a group
  // with tasks (num_threads) has its own. Each task is 1 us; no start cost.
  const auto m = model_of(R"J({"t": 1, "p": 1})J", R"J(
    {"id": 1, "kind": "seq", "children": [2, 4, 5, 7, 8]},
    {"id": 2, "kind": "task_group", "team": true, "children": [3]},
    {"id": 3, "kind": "cb", "time": 1e-6},
    {"id": 4, "kind": "cfc", "op": "set_team", "args": {"threads": "t"}},
    {"id": 5, "kind": "task_group", "team": true, "children": [6]},
    {"id": 6, "kind": "cb", "time": 1e-6},
    {"id": 7, "kind": "task_group", "team": true, "tasks": "p", "children": [9]},
    {"id": 8, "kind": "task_group", "tasks": 4, "children": [10]},
    {"id": 9, "kind": "cb", "time": 1e-6},
    {"id": 10, "kind": "cb", "time": 1e-6})J");
  const auto with = [&](std::int64_t t, std::int64_t p, std::int64_t threads) {
    InterpretOptions o;
    o.threads = threads;
    o.params = {{"t", parjava::model::Value::of_int(t)}, {"p", parjava::model::Value::of_int(p)}};
    return interpret(m, with_costs(0), o);
  };
  // One thread everywhere: 1 + 1 + 1 + 4 (the pool of 1 queues the four tasks of node 8).
  auto one = with(1, 1, 1);
  EXPECT_NEAR(one.program_time, 7 * us, eps);
  EXPECT_EQ(stats(one, 6).freq, 1U);
  EXPECT_TRUE(one.warnings.empty());
  // set_team(3): node 5 runs 3 tasks on a pool grown to 3, and node 8's pool tasks queue on it
  // (4 tasks on 3 threads: 2 us); the warning says why the pool is not threads=1.
  auto three = with(3, 1, 1);
  EXPECT_EQ(stats(three, 6).freq, 3U);
  EXPECT_EQ(stats(three, 3).freq, 1U);
  EXPECT_EQ(three.threads, 3);
  EXPECT_NEAR(three.program_time, (1 + 1 + 1 + 2) * us, eps);
  ASSERT_FALSE(three.warnings.empty());
  EXPECT_NE(three.warnings.front().find("asks for a team of 3 threads"), std::string::npos)
      << three.warnings.front();
  EXPECT_NE(three.warnings.front().find("not threads=1"), std::string::npos);
  // num_threads(p) names its own team; threads=2 sizes the regions before set_team.
  auto own = with(1, 2, 2);
  EXPECT_EQ(stats(own, 3).freq, 2U);
  EXPECT_EQ(stats(own, 6).freq, 1U);
  EXPECT_EQ(stats(own, 9).freq, 2U);
  EXPECT_TRUE(own.warnings.empty());
  // A team of no thread is the model's error, named at its node.
  try {
    with(0, 1, 1);
    FAIL() << "set_team(0) ran";
  } catch (const parjava::Error &e) {
    EXPECT_NE(std::string(e.what()).find("a team of 0 threads"), std::string::npos) << e.what();
  }
}

TEST(Pgas, BroadcastSyncModes) {
  const auto bcast = [](const std::string &in, const std::string &out) {
    return model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2]},
      {"id": 2, "kind": "cfc", "op": "pgas_broadcast", "args": {"bytes": 8, "sync_in": ")J" +
                              in + R"J(", "sync_out": ")J" + out + R"J("}})J");
  };
  const auto m = hockney(1e-6, 1e9);
  InterpretOptions o;
  o.processes = 4;
  o.endpoint_contention = false;
  // binomial tree of depth 2
  EXPECT_NEAR(interpret(bcast("nosync", "nosync"), m, o).program_time, 2 * 1.008 * us, eps);
  // ALLSYNC on both sides adds two dissemination barriers of 2 rounds each
  EXPECT_NEAR(interpret(bcast("allsync", "allsync"), m, o).program_time, (4 + 2 * 1.008) * us, eps);
}

TEST(Pgas, MysyncWaitsForTheTargetToEnter) {
  // PE 3 enters 10 us late. Its parent in the binomial tree is PE 2.
  const auto late = [](const std::string &in) {
    return model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2, 3]},
      {"id": 2, "kind": "cb", "time": "rank == 3 ? 10e-6 : 0"},
      {"id": 3, "kind": "cfc", "op": "pgas_broadcast", "args": {"bytes": 8, "sync_in": ")J" +
                              in + R"J(", "sync_out": "nosync"}})J");
  };
  InterpretOptions o;
  o.processes = 4;
  o.endpoint_contention = false;
  const auto no = interpret(late("nosync"), hockney(1e-6, 1e9), o);
  // PE 2 gets the data at 1.008 us, writes into PE 3's memory (8 ns) and leaves
  EXPECT_NEAR(no.end_times[2], 1.016 * us, eps);
  EXPECT_NEAR(no.end_times[3], 10 * us, eps);
  const auto my = interpret(late("mysync"), hockney(1e-6, 1e9), o);
  EXPECT_NEAR(my.end_times[3], 11.008 * us, eps); // the transfer starts when PE 3 is there
  EXPECT_NEAR(my.end_times[2], 11.008 * us, eps);
}

TEST(Pgas, LocksLiveOnTheirHome) {
  // Both PEs lock L (home 0) at t = 0 and hold it 5 us. PE 0 gets it at once; PE 1's
  // request reaches PE 0 at 1.008 us, is granted at the release (5 us, local to the home),
  // and the grant travels back: it holds the lock 6.008-11.008 us.
  const auto m = model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2, 3, 4]},
    {"id": 2, "kind": "cfc", "op": "pgas_lock", "args": {"lock": "L"}},
    {"id": 3, "kind": "cb", "time": 5e-6},
    {"id": 4, "kind": "cfc", "op": "pgas_unlock", "args": {"lock": "L"}})J");
  const auto p = run(m, hockney(1e-6, 1e9), 2);
  EXPECT_NEAR(p.end_times[0], 5 * us, eps);
  EXPECT_NEAR(p.end_times[1], 11.008 * us, eps);
}

TEST(Pgas, SplitPhaseBarrierPutGetAlloc) {
  // PE r notifies at r us and waits 0.5 us later; the release is the last notify (3 us) plus
  // ceil(log2 4) = 2 latencies (T(0) = 1 us).
  const auto nw = model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2, 3, 4, 5]},
    {"id": 2, "kind": "cb", "time": "1e-6 * rank"},
    {"id": 3, "kind": "cfc", "op": "pgas_notify"},
    {"id": 4, "kind": "cb", "time": 0.5e-6},
    {"id": 5, "kind": "cfc", "op": "pgas_wait"})J");
  const auto p = run(nw, hockney(1e-6, 1e9), 4);
  for (double t : p.end_times) {
    EXPECT_NEAR(t, 5 * us, eps);
  }
  const auto rma = model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2, 3]},
    {"id": 2, "kind": "cfc", "op": "pgas_put", "args": {"target": "(rank + 1) % size", "bytes": 1000}},
    {"id": 3, "kind": "cfc", "op": "pgas_get", "args": {"target": "(rank + 1) % size", "bytes": 1000}})J");
  EXPECT_NEAR(run(rma, hockney(1e-6, 1e9), 2).program_time, (2 + 1 + 2) * us, eps);
  const auto alloc = model_of("{}", R"J({"id": 1, "kind": "seq", "children": [2, 3]},
    {"id": 2, "kind": "cfc", "op": "pgas_alloc", "args": {"bytes": 4096}},
    {"id": 3, "kind": "cfc", "op": "pgas_free"})J");
  // broadcast of 8 B over 4 PEs (2 levels) + barrier (2 rounds), then free's barrier (2)
  InterpretOptions o;
  o.processes = 4;
  o.endpoint_contention = false;
  EXPECT_NEAR(interpret(alloc, hockney(1e-6, 1e9), o).program_time, (2.016 + 2 + 2) * us, eps);
}
