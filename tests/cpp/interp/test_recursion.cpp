// Recursion: a frame per activation (locals, loop counters), return slots, Time/Freq without
// double counting, the depth limit and the static depth check (docs/interpreter.md "Calls and
// recursion").
#include <gtest/gtest.h>

#include <string>

#include "helpers.hpp"
#include "parjava/error.hpp"

using namespace parjava::interp;
using namespace parjava::interp::testing;

namespace {

constexpr double us = 1e-6;

std::string error_of(const parjava::model::Model &m, InterpretOptions o) {
  try {
    (void)interpret(m, free_network(), o);
  } catch (const parjava::Error &e) {
    EXPECT_EQ(e.kind(), parjava::ErrorKind::Model);
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

// fact(n) = n * fact(n - 1) through the global return slot ret_fact; `keep` is read after the
// recursive call, so it must be the activation's own.
parjava::model::Model factorial() {
  return parjava::model::model_from_json(R"J({
    "format": "parjava-model", "version": 1, "name": "fact", "files": ["fact.c"],
    "globals": [{"name": "ret_fact", "init": "0"}],
    "functions": [{"name": "main", "params": [], "body": 1},
                  {"name": "fact", "params": ["n"], "body": 10}],
    "nodes": [
      {"id": 1, "kind": "seq", "children": [2, 3]},
      {"id": 2, "kind": "ufc", "callee": "fact", "args": ["5"], "source": {"file": 0, "line": 3}},
      {"id": 3, "kind": "cb", "time": "1e-6 * ret_fact"},
      {"id": 10, "kind": "seq", "children": [11, 14, 15, 16]},
      {"id": 11, "kind": "if", "cond": "n <= 1", "children": [12]},
      {"id": 12, "kind": "seq", "children": [13, 17]},
      {"id": 13, "kind": "cb", "assign": [["ret_fact", "1"]]},
      {"id": 17, "kind": "ret"},
      {"id": 14, "kind": "cb", "time": "1e-6 * n", "assign": [["keep", "n"]]},
      {"id": 15, "kind": "ufc", "callee": "fact", "args": ["n - 1"],
       "source": {"file": 0, "line": 12}},
      {"id": 16, "kind": "cb", "time": "1e-6 * keep", "assign": [["ret_fact", "ret_fact * keep"]]}
    ]})J",
                                         "fact");
}

} // namespace

TEST(Recursion, LocalsAndReturnSlotsPerActivation) {
  const auto p = run(factorial(), free_network(), 1);
  // Before and after each recursive call n = 5..2 costs n µs twice; 5! = 120 µs in main.
  EXPECT_NEAR(p.program_time, (2 * (2 + 3 + 4 + 5) + 120) * us, 1e-12);
  EXPECT_EQ(stats(p, 15).freq, 4U); // fact(5) .. fact(2) call down
  EXPECT_EQ(stats(p, 10).freq, 5U); // five activations
  EXPECT_EQ(stats(p, 17).freq, 1U); // one early return, at n = 1
  // Time without double counting: the call from main holds all activations; the function body
  // (its leaves over every activation) the same; the recursive call the time of its outermost
  // execution, fact(4), which is not added again to the body.
  EXPECT_NEAR(stats(p, 2).time, 28 * us, 1e-12);
  EXPECT_NEAR(stats(p, 10).time, 28 * us, 1e-12);
  EXPECT_NEAR(stats(p, 15).time, 2 * (2 + 3 + 4) * us, 1e-12);
  EXPECT_NEAR(stats(p, 1).time, 148 * us, 1e-12);
}

TEST(Recursion, EveryProcessAndEveryTraceSeesTheCalls) {
  const auto p = run(factorial(), free_network(), 3, 1, true);
  for (double t : p.end_times) {
    EXPECT_NEAR(t, 148 * us, 1e-12);
  }
  ASSERT_NE(p.trace, nullptr);
}

TEST(Recursion, OpaqueLoopCountersArePerActivation) {
  // f(n): if n > 0, an opaque loop of exactly 2 trips runs 1 µs and f(n - 1) per trip:
  // T(n) = 2 (1 µs + T(n - 1)), T(3) = 14 µs. A shared counter would end the outer loops early.
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "ufc", "callee": "f", "args": ["3"]},
    {"id": 10, "kind": "seq", "children": [11]},
    {"id": 11, "kind": "if", "cond": "n > 0", "children": [12]},
    {"id": 12, "kind": "for", "opaque": {"trips": 2}, "children": [13]},
    {"id": 13, "kind": "seq", "children": [14, 15]},
    {"id": 14, "kind": "cb", "time": 1e-6},
    {"id": 15, "kind": "ufc", "callee": "f", "args": ["n - 1"]})J",
                          R"J(, {"name": "f", "params": ["n"], "body": 10})J");
  EXPECT_NEAR(run(m, free_network(), 1).program_time, 14 * us, 1e-12);
}

TEST(Recursion, ArgumentsReadTheCallersFrame) {
  // a(n, m): n µs, then a(m - 1, n): both arguments read the caller's parameters, which the
  // call rebinds. a(3, 2) -> a(1, 3) -> a(2, 1) -> a(0, 2): 3 + 1 + 2 µs (binding one parameter
  // before evaluating the next argument would give a(1, 1) -> a(0, 0): 4 µs).
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "ufc", "callee": "a", "args": ["3", "2"]},
    {"id": 10, "kind": "seq", "children": [11, 12]},
    {"id": 11, "kind": "cb", "time": "1e-6 * n"},
    {"id": 12, "kind": "if", "cond": "n > 0", "children": [13]},
    {"id": 13, "kind": "ufc", "callee": "a", "args": ["m - 1", "n"]})J",
                          R"J(, {"name": "a", "params": ["n", "m"], "body": 10})J");
  EXPECT_NEAR(run(m, free_network(), 1).program_time, 6 * us, 1e-12);
}

TEST(Recursion, MutualRecursion) {
  // a(n, m) calls b(m, n); b(x, y) calls a(y - 1, x). Work n µs per activation of a.
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "ufc", "callee": "a", "args": ["3", "100"]},
    {"id": 10, "kind": "seq", "children": [11, 12]},
    {"id": 11, "kind": "cb", "time": "1e-6 * n"},
    {"id": 12, "kind": "if", "cond": "n > 0", "children": [13]},
    {"id": 13, "kind": "ufc", "callee": "b", "args": ["m", "n"]},
    {"id": 20, "kind": "seq", "children": [21]},
    {"id": 21, "kind": "ufc", "callee": "a", "args": ["y - 1", "x"]})J",
                          R"J(, {"name": "a", "params": ["n", "m"], "body": 10},
                              {"name": "b", "params": ["x", "y"], "body": 20})J");
  // a(3,100) -> b(100,3) -> a(2,100) -> b -> a(1,100) -> b -> a(0,100): 3 + 2 + 1 + 0 µs.
  EXPECT_NEAR(run(m, free_network(), 1).program_time, 6 * us, 1e-12);
}

TEST(Recursion, DepthLimitNamesTheChain) {
  // The guard is computed (n > 0) but never false: the run hits the depth limit.
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "ufc", "callee": "up", "args": ["1"], "source": {"file": 0, "line": 3}},
    {"id": 10, "kind": "seq", "children": [11]},
    {"id": 11, "kind": "if", "cond": "n > 0", "children": [12]},
    {"id": 12, "kind": "ufc", "callee": "up", "args": ["n + 1"],
     "source": {"file": 0, "line": 12}})J",
                          R"J(, {"name": "up", "params": ["n"], "body": 10})J");
  InterpretOptions o;
  o.processes = 2;
  o.max_depth = 50;
  const std::string e = error_of(m, o);
  EXPECT_NE(e.find("max_depth=50 is exceeded on rank 0"), std::string::npos) << e;
  EXPECT_NE(e.find("main -> up (t.c:3) -> up (t.c:12) x 50"), std::string::npos) << e;
  EXPECT_NE(e.find("--max-depth"), std::string::npos) << e;
  o.max_depth = kDefaultMaxDepth;
  EXPECT_NE(error_of(m, o).find("up (t.c:12) x 10000"), std::string::npos);
}

TEST(Recursion, OpaqueGuardsNeedConsent) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "ufc", "callee": "split", "args": []},
    {"id": 10, "kind": "seq", "children": [11, 12]},
    {"id": 11, "kind": "cb", "time": 1e-6},
    {"id": 12, "kind": "if", "opaque": {"probability": 0.75}, "children": [13],
     "source": {"file": 0, "line": 21}},
    {"id": 13, "kind": "ufc", "callee": "split", "args": [], "source": {"file": 0, "line": 22}})J",
                          R"J(, {"name": "split", "params": [], "body": 10})J");
  InterpretOptions o;
  const std::string e = error_of(m, o);
  EXPECT_NE(e.find("recursive call chain split -> split has no depth the model can compute"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("node 13 (ufc, t.c:22) is guarded only by node 12 (if, t.c:21)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("opaque_recursion=True"), std::string::npos) << e;
  // With consent the profiled probability decides (error diffusion: 0.5 + 0.75 reaches 1 at
  // once, then 0.25 + 0.75 again, then 0.0 + 0.75 stops): three activations.
  o.allow_opaque_recursion = true;
  EXPECT_NEAR(interpret(m, free_network(), o).program_time, 3 * us, 1e-12);
}

TEST(Recursion, UnconditionalRecursionIsAlwaysAnError) {
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "ufc", "callee": "f", "args": []},
    {"id": 10, "kind": "seq", "children": [11]},
    {"id": 11, "kind": "ufc", "callee": "f", "args": []})J",
                          R"J(, {"name": "f", "params": [], "body": 10})J");
  InterpretOptions o;
  o.allow_opaque_recursion = true;
  const std::string e = error_of(m, o);
  EXPECT_NE(e.find("recursive call chain f -> f never ends"), std::string::npos) << e;
}

TEST(Recursion, AnEarlyReturnUnderAComputedConditionGuardsTheCall) {
  // The multigrid shape: `if (level == 0) { ...; return; }` before the recursive call, and the
  // halo exchange at every level.
  const auto m = model_of("{}", R"J(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "ufc", "callee": "vcycle", "args": ["4"]},
    {"id": 10, "kind": "seq", "children": [11, 12, 15, 16]},
    {"id": 11, "kind": "cfc", "op": "MPI_Sendrecv",
     "args": {"dest": "(rank + 1) % size", "sendbytes": 8, "source": "(rank - 1 + size) % size"}},
    {"id": 12, "kind": "if", "cond": "level == 0", "children": [13]},
    {"id": 13, "kind": "seq", "children": [14]},
    {"id": 14, "kind": "ret"},
    {"id": 15, "kind": "ufc", "callee": "vcycle", "args": ["level - 1"]},
    {"id": 16, "kind": "cfc", "op": "MPI_Allreduce", "args": {"bytes": 8}})J",
                          R"J(, {"name": "vcycle", "params": ["level"], "body": 10})J");
  const auto p = run(m, hockney(1e-6, 1e9), 4);
  EXPECT_EQ(stats(p, 11).freq, 4U * 5U); // five levels on four ranks
  EXPECT_EQ(stats(p, 16).freq, 4U * 4U);
  EXPECT_GT(p.program_time, 5 * us);
}
