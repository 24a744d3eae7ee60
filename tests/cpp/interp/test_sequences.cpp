// interpret_sequences(): the engine runs a replay's steps where the SequenceProgram holds them
// (Engine::run_steps). Times, the model's node order (leaves in the order of their calls' first
// steps), counts and the deadlock report are those the former step-by-step translation into
// instructions gave.
#include <gtest/gtest.h>

#include "helpers.hpp"
#include "parjava/interp/sequence_program.hpp"

namespace parjava::interp {
namespace {

using model::Operation;

SequenceCall p2p(Operation op, std::int32_t peer, std::int32_t tag, std::uint32_t function,
                 std::uint32_t callsite) {
  SequenceCall c;
  c.op = op;
  c.peer = peer;
  c.tag = tag;
  c.bytes = 1000;
  c.function = function;
  c.callsite = callsite;
  return c;
}

// Rank 0 computes 1 ms outside any region and 2 ms in "work" (with a zero-second computation
// between, which is no instruction), sends 1000 bytes to rank 1 after 5 us of local time inside
// the call, leaves "work" and makes a local call of 1 us. Rank 1 receives (and, with
// `stray_receive`, then waits for a message nobody sends).
SequenceProgram exchange(bool stray_receive) {
  SequenceProgram sp;
  sp.name = "exchange";
  sp.processes = 2;
  sp.regions.push_back({"work", "solver.c", 30, 50, false, 0});
  sp.callsites = {{"solver.c", 40, ""}, {"solver.c", 42, ""}, {"solver.c", 44, ""}};
  sp.functions = {"MPI_Send", "MPI_Recv", "MPI_Comm_rank"};
  sp.calls.push_back(p2p(Operation::Send, 1, 7, 0, 0));
  sp.calls.push_back(p2p(Operation::Recv, 0, 7, 1, 1));
  SequenceCall local;
  local.local = true;
  local.function = 2;
  local.callsite = 2;
  sp.calls.push_back(local);
  sp.calls.push_back(p2p(Operation::Recv, 0, 8, 1, 1));
  sp.add(StepKind::Compute, kNoSequenceRef, 1e-3);
  sp.add(StepKind::Enter, 0, 0.0);
  sp.add(StepKind::Compute, 0, 0.0);
  sp.add(StepKind::Compute, 0, 2e-3);
  sp.add(StepKind::Call, 0, 5e-6);
  sp.add(StepKind::Leave, 0, 0.0);
  sp.add(StepKind::Call, 2, 1e-6);
  sp.end_rank();
  sp.add(StepKind::Compute, kNoSequenceRef, 0.0);
  sp.add(StepKind::Call, 1, 0.0);
  if (stray_receive) {
    sp.add(StepKind::Call, 3, 0.0);
  }
  sp.end_rank();
  return sp;
}

TEST(InterpSequences, StepsRunInPlaceWithTheTranslationsTimesAndNodes) {
  // T(n) = 1 us + n / (1 GB/s): the 1000-byte eager message takes 2 us, 1 us of it injection.
  const auto machine = testing::hockney(1e-6, 1e9);
  const SequenceProgram sp = exchange(false);
  const Prediction p = interpret_sequences(sp, machine, InterpretOptions{});
  ASSERT_EQ(p.end_times.size(), 2U);
  // Rank 0: 3 ms of computation, 5 us in the call, 1 us injecting, 1 us local call.
  EXPECT_NEAR(p.end_times[0], 3.007e-3, 1e-12);
  // Rank 1: the data is complete 2 us after the send started at 3.005 ms.
  EXPECT_NEAR(p.end_times[1], 3.007e-3, 1e-12);
  // Nodes: the entry's body, region "work", then one leaf per call in the order of the calls'
  // first steps: the send (rank 0), the local call (rank 0), the receive (rank 1).
  ASSERT_EQ(p.nodes.size(), 5U);
  // Its Enter and its 2 ms computation; the zero-second computation is no instruction.
  EXPECT_EQ(p.nodes[1].freq, 2U);
  EXPECT_NEAR(p.nodes[1].time, 2e-3, 1e-12);
  EXPECT_EQ(p.nodes[2].freq, 1U);
  EXPECT_NEAR(p.nodes[2].time, 6e-6, 1e-12); // local time and injection
  EXPECT_EQ(p.nodes[3].freq, 1U);
  EXPECT_NEAR(p.nodes[3].time, 1e-6, 1e-12);
  EXPECT_EQ(p.nodes[4].freq, 1U);
  EXPECT_NEAR(p.nodes[4].time, 3.007e-3, 1e-12); // rank 1 waits in its receive
}

TEST(InterpSequences, ADeadlockNamesTheBlockedStep) {
  const auto machine = testing::hockney(1e-6, 1e9);
  const SequenceProgram sp = exchange(true);
  try {
    (void)interpret_sequences(sp, machine, InterpretOptions{});
    FAIL() << "the stray receive must deadlock";
  } catch (const DeadlockError &e) {
    ASSERT_EQ(e.blocked().size(), 1U);
    EXPECT_EQ(e.blocked()[0].rank, 1);
    EXPECT_EQ(e.blocked()[0].operation, "MPI_Recv");
    EXPECT_EQ(e.blocked()[0].location, "solver.c:42");
    EXPECT_NE(std::string(e.what()).find("waits for"), std::string::npos) << e.what();
  }
}

TEST(InterpSequences, AStepReferringToNothingIsAnError) {
  const auto machine = testing::hockney(1e-6, 1e9);
  SequenceProgram sp = exchange(false);
  sp.ref[4] = 99; // a call that does not exist
  try {
    (void)interpret_sequences(sp, machine, InterpretOptions{});
    FAIL() << "a step referring to call 99 must be refused";
  } catch (const Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(std::string(e.what()).find("step 4 refers to nothing"), std::string::npos)
        << e.what();
  }
}

// A replay-like program of `np` ranks: per iteration an imbalanced computation, a ring
// Sendrecv (user traffic on the same links) and one collective of a rotating mix, some on a
// communicator of the even ranks. With `missing_barrier`, rank 0 leaves out the last barrier.
SequenceProgram collective_mix(std::int32_t np, bool missing_barrier) {
  SequenceProgram sp;
  sp.name = "collective mix";
  sp.processes = np;
  sp.functions = {"MPI_Allreduce", "MPI_Barrier", "MPI_Bcast",   "MPI_Reduce",  "MPI_Allgather",
                  "MPI_Alltoall",  "MPI_Gather",  "MPI_Scatter", "MPI_Sendrecv"};
  SequenceCommunicator even{"even", {}};
  for (std::int32_t r = 0; r < np; r += 2) {
    even.members.push_back(r);
  }
  sp.communicators.push_back(even);
  const auto collective = [](Operation op, std::uint32_t function, std::uint64_t bytes,
                             std::int32_t root, std::uint32_t comm) {
    SequenceCall c;
    c.op = op;
    c.function = function;
    c.bytes = bytes;
    c.root = root;
    c.comm = comm;
    return c;
  };
  sp.calls = {
      collective(Operation::Allreduce, 0, 8, 0, 0),  collective(Operation::Barrier, 1, 0, 0, 0),
      collective(Operation::Bcast, 2, 64, 2, 0),     collective(Operation::Reduce, 3, 16, 1, 0),
      collective(Operation::Allgather, 4, 32, 0, 0), collective(Operation::Alltoall, 5, 16, 0, 0),
      collective(Operation::Gather, 6, 8, 3, 0),     collective(Operation::Scatter, 7, 8, 0, 0),
      collective(Operation::Allreduce, 0, 24, 0, 2), collective(Operation::Bcast, 2, 40, 1, 2)};
  const auto first_sendrecv = static_cast<std::uint32_t>(sp.calls.size());
  for (std::int32_t r = 0; r < np; ++r) {
    SequenceCall c;
    c.op = Operation::Sendrecv;
    c.function = 8;
    c.peer = (r + 1) % np;
    c.source = (r + np - 1) % np;
    c.tag = 5;
    c.recv_tag = 5;
    c.bytes = 96;
    c.recv_bytes = 96;
    sp.calls.push_back(c);
  }
  constexpr std::uint32_t kEvenCalls = 2; // the last two collectives: the even ranks only
  const auto world_calls = static_cast<std::uint32_t>(first_sendrecv - kEvenCalls);
  for (std::int32_t r = 0; r < np; ++r) {
    for (std::uint32_t it = 0; it < 40; ++it) {
      sp.add(StepKind::Compute, kNoSequenceRef, 1e-6 * ((r * 7 + it * 3) % 5));
      sp.add(StepKind::Call, first_sendrecv + static_cast<std::uint32_t>(r), 0.0);
      sp.add(StepKind::Call, it % world_calls, 2e-7 * (r % 3));
      if (r % 2 == 0 && it % 3 == 0) {
        sp.add(StepKind::Call, world_calls + it % kEvenCalls, 1e-7);
      }
    }
    if (!missing_barrier || r != 0) {
      sp.add(StepKind::Call, 1, 0.0);
    }
    sp.end_rank();
  }
  return sp;
}

TEST(InterpSequences, DirectCollectivesGiveTheMessagePathsResults) {
  // Eager limit 4 KiB: every collective of the mix is direct. The algorithms include recursive
  // doubling with the fold of a non-power of two, linear ones whose root sends without waiting,
  // an alltoall that posts every receive before any send, and trees.
  const auto machine = testing::hockney(1e-6, 1e9, 4096);
  for (const std::int32_t np : {6, 8, 13}) {
    for (const bool linear : {false, true}) {
      InterpretOptions on;
      on.processes = np;
      if (linear) {
        on.algorithms = {{"bcast", "linear"},  {"barrier", "linear"}, {"alltoall", "linear"},
                         {"reduce", "linear"}, {"allgather", "ring"}, {"allreduce", "ring"},
                         {"gather", "linear"}, {"scatter", "linear"}};
      }
      InterpretOptions off = on;
      off.direct_collectives = false;
      const SequenceProgram sp = collective_mix(np, false);
      const Prediction a = interpret_sequences(sp, machine, on);
      const Prediction b = interpret_sequences(sp, machine, off);
      SCOPED_TRACE("np " + std::to_string(np) + (linear ? " linear" : ""));
      EXPECT_GT(a.engine.direct_messages, a.engine.messages / 2);
      EXPECT_EQ(b.engine.direct_messages, 0U);
      EXPECT_EQ(a.end_times, b.end_times); // bit for bit
      EXPECT_EQ(a.engine.events, b.engine.events);
      EXPECT_EQ(a.engine.messages, b.engine.messages);
      EXPECT_EQ(a.engine.peak_queue, b.engine.peak_queue);
      ASSERT_EQ(a.nodes.size(), b.nodes.size());
      for (std::size_t n = 0; n < a.nodes.size(); ++n) {
        EXPECT_EQ(a.nodes[n].time, b.nodes[n].time) << "node " << n;
        EXPECT_EQ(a.nodes[n].freq, b.nodes[n].freq) << "node " << n;
      }
    }
  }
}

TEST(InterpSequences, ARankMissingADirectCollectiveIsADeadlockNamingIt) {
  const auto machine = testing::hockney(1e-6, 1e9, 4096);
  InterpretOptions options;
  options.processes = 6;
  try {
    (void)interpret_sequences(collective_mix(6, true), machine, options);
    FAIL() << "the barrier rank 0 never enters must deadlock";
  } catch (const DeadlockError &e) {
    ASSERT_EQ(e.blocked().size(), 5U);
    EXPECT_EQ(e.blocked()[0].operation, "MPI_Barrier");
    EXPECT_NE(e.blocked()[0].waiting_for.find("barrier: a message from rank"), std::string::npos)
        << e.what();
    EXPECT_NE(e.blocked()[0].waiting_for.find("collective traffic on world"), std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace parjava::interp
