// The control-variable analysis and reduction of seed 000 notes §3.5 on the thesis's own worked
// example (Fig. 4), and its interprocedural pieces: control parameters, control-return
// functions, global control variables, calling contexts.
#include <gtest/gtest.h>

#include "support.hpp"

namespace parjava::frontend::testing {
namespace {

using model::NodeKind;

// Fig. 4 of notes 000 §3.5, with main added so the program runs.
constexpr const char *kFigure4 = R"(
int gvar1, gvar2;
int h(int p1) {
  gvar1 = p1 + 5;
  gvar2 = 6;
  return gvar1 + gvar2;
}
void g(int p1, int p2) {
  int a, b;
  a = p2 + 1;
  b = h(p1);
  if (gvar1 > 0) {
    a = 0;
  }
}
void f(void) {
  int a, b;
  a = 2;
  b = 3;
  g(a, b);
}
int main(void) {
  f();
  return 0;
}
)";

const model::Function &function(const model::Model &m, const std::string &name) {
  const model::Function *f = m.function(name);
  EXPECT_NE(f, nullptr) << name;
  return *f;
}

std::vector<const model::Node *> in_function(const model::Model &m, const std::string &name,
                                             NodeKind kind) {
  std::vector<const model::Node *> out;
  const std::size_t f = m.function_index(name);
  for (model::NodeIndex i = 0; i < m.nodes.size(); ++i) {
    if (m.function_of(i) == f && m.nodes[i].kind == kind) {
      out.push_back(&m.nodes[i]);
    }
  }
  return out;
}

TEST(ControlAnalysis, ThesisFigure4) {
  BuildResult r = build(write_source("figure4.c", kFigure4));
  model::Model &m = r.model;
  m.validate();
  // gvar1 decides the branch in g, so it is a global control variable; gvar2 decides nothing.
  ASSERT_EQ(m.globals.size(), 1u);
  EXPECT_EQ(m.globals[0].name, "gvar1");

  // h: gvar1 = p1 + 5 is kept, gvar2 = 6 is removed, and h's result is not a control value.
  const auto h_blocks = in_function(m, "h", NodeKind::Compute);
  bool sets_gvar1 = false;
  for (const auto *b : h_blocks) {
    EXPECT_FALSE(has_assignment(*b, "gvar2"));
    EXPECT_FALSE(has_assignment(*b, "ret_h"));
    for (const auto &a : b->assign) {
      if (a.variable == "gvar1") {
        sets_gvar1 = true;
        EXPECT_EQ(a.value.text(), "(p1 + 5)");
      }
    }
  }
  EXPECT_TRUE(sets_gvar1);

  // g: a = p2 + 1 is removed; the call h(p1) is kept with p1, a control parameter of h.
  for (const auto *b : in_function(m, "g", NodeKind::Compute)) {
    for (const auto &a : b->assign) {
      EXPECT_NE(a.value.text(), "(p2 + 1)");
    }
  }
  const auto calls_h = in_function(m, "g", NodeKind::UserCall);
  ASSERT_EQ(calls_h.size(), 1u);
  EXPECT_EQ(calls_h[0]->callee, "h");
  ASSERT_EQ(calls_h[0]->args.size(), 1u);
  EXPECT_EQ(calls_h[0]->args[0].text(), "p1");
  const auto ifs = in_function(m, "g", NodeKind::If);
  ASSERT_EQ(ifs.size(), 1u);
  EXPECT_EQ(ifs[0]->cond.text(), "(gvar1 > 0)");

  // f: a = 2 stays (it reaches g's control parameter p1), b = 3 goes, and the non-control
  // argument b becomes a constant: the call g(2, 0) is a calling context of g.
  bool keeps_a = false;
  for (const auto *b : in_function(m, "f", NodeKind::Compute)) {
    keeps_a = keeps_a || has_assignment(*b, "a");
    EXPECT_FALSE(has_assignment(*b, "b"));
  }
  EXPECT_TRUE(keeps_a);
  const auto calls_g = in_function(m, "f", NodeKind::UserCall);
  ASSERT_EQ(calls_g.size(), 1u);
  const auto &g = function(m, "g");
  ASSERT_EQ(g.params.size(), 2u);
  if (calls_g[0]->context >= 0) {
    ASSERT_EQ(g.contexts.size(), 1u);
    EXPECT_EQ(g.contexts[0].args[1].text(), "0");
  } else {
    ASSERT_EQ(calls_g[0]->args.size(), 2u);
    EXPECT_EQ(calls_g[0]->args[0].text(), "a");
    EXPECT_EQ(calls_g[0]->args[1].text(), "0");
  }
}

TEST(ControlAnalysis, ControlReturnFunctionsPassTheirValueThroughAReturnSlot) {
  const std::string src = R"(
#include <mpi.h>
static int half(int n) { return n / 2; }
static int unused_value(int n) { return n * 3; }
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = 64;
  int m = half(n);
  int k = unused_value(n);
  for (int i = 0; i < m; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return k > 0 ? 0 : 1;
}
)";
  BuildResult r = build(write_source("control_return.c", src));
  const model::Model &m = r.model;
  // half() returns a control value: the model has its return slot and sets it before `ret`.
  bool slot = false;
  for (const auto &g : m.globals) {
    slot = slot || g.name == "ret_half";
    EXPECT_NE(g.name, "ret_unused_value");
  }
  EXPECT_TRUE(slot);
  bool sets_slot = false;
  for (const auto *b : in_function(m, "half", NodeKind::Compute)) {
    for (const auto &a : b->assign) {
      if (a.variable == "ret_half") {
        sets_slot = true;
        EXPECT_EQ(a.value.text(), "(n / 2)");
      }
    }
  }
  EXPECT_TRUE(sets_slot);
  bool reads_slot = false;
  for (const auto *b : in_function(m, "main", NodeKind::Compute)) {
    for (const auto &a : b->assign) {
      if (a.variable == "m") {
        reads_slot = true;
        EXPECT_EQ(a.value.text(), "ret_half");
      }
    }
  }
  EXPECT_TRUE(reads_slot);
  const auto loops = in_function(m, "main", NodeKind::For);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0]->cond.text(), "(i < m)");
}

TEST(ControlAnalysis, DataReceivedOrReadFromArraysMakesConditionsOpaque) {
  const std::string src = R"(
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int n = 0;
  double *a = malloc(100 * sizeof(double));
  if (rank == 0) {
    n = 10;
  }
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  while (n > 0) {
    n--;
  }
  if (a[3] > 0.5) {
    a[0] = 1.0;
  }
  free(a);
  MPI_Finalize();
  return 0;
}
)";
  BuildResult r = build(write_source("opaque.c", src));
  const model::Model &m = r.model;
  // n is what rank 0 broadcasts (issue 12: rank 0 parses and broadcasts): a parameter holding
  // the constant the root sends, so the loop on it is counted, not opaque.
  const model::Parameter *n = m.parameter("n");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->value.as_int(), 10);
  EXPECT_EQ(n->origin, "broadcast");
  const auto loops = nodes_of(m, NodeKind::While);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_FALSE(loops[0]->cond.empty());
  EXPECT_EQ(loops[0]->opaque.kind, model::Opaque::Kind::None);
  int opaque_ifs = 0;
  int control_ifs = 0;
  for (const auto *node : nodes_of(m, NodeKind::If)) {
    if (node->opaque.kind == model::Opaque::Kind::Probability) {
      ++opaque_ifs;
    } else {
      ++control_ifs;
      EXPECT_EQ(node->cond.text(), "(rank_ == 0)");
    }
  }
  EXPECT_EQ(opaque_ifs, 1);
  EXPECT_EQ(control_ifs, 1);
  // What was received as data stays opaque and says so.
  const auto opaque = filter(r.diagnostics, DiagnosticKind::Opaque);
  ASSERT_EQ(opaque.size(), 1u);
  EXPECT_GT(opaque[0].line, 0u);
  EXPECT_NE(opaque[0].message.find("array element"), std::string::npos);
}

TEST(ControlAnalysis, DataReceivedByAMessageMakesConditionsOpaque) {
  const std::string src = R"(
#include <mpi.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    n = 10;
    MPI_Send(&n, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Recv(&n, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  while (n > 0) {
    n--;
  }
  MPI_Finalize();
  return 0;
}
)";
  BuildResult r = build(write_source("received.c", src));
  const auto loops = nodes_of(r.model, NodeKind::While);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_TRUE(loops[0]->cond.empty());
  EXPECT_EQ(loops[0]->opaque.kind, model::Opaque::Kind::Trips);
  bool mentions_recv = false;
  for (const auto &d : filter(r.diagnostics, DiagnosticKind::Opaque)) {
    mentions_recv = mentions_recv || d.message.find("MPI_Recv") != std::string::npos;
  }
  EXPECT_TRUE(mentions_recv);
}

} // namespace
} // namespace parjava::frontend::testing
