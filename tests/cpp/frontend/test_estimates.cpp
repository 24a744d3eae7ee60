// Loading estimation results into a model: block times with mean, σ and samples, overhead
// correction, trip counts, and the reduction of a loop nest to a block whose time scales with
// its trip counts (seed 000 notes §3.7, §4). The estimates files are written by hand here with
// numbers whose effect is computed by hand; the real estimation run is tested from Python.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "parjava/error.hpp"
#include "parjava/frontend/estimates.hpp"
#include "parjava/model/bytecode.hpp"
#include "support.hpp"

namespace parjava::frontend::testing {
namespace {

using model::NodeKind;

constexpr const char *kNest = R"(
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 100;
  double *a = malloc((size_t)n * n * sizeof(double));
  for (int it = 0; it < 10; it++) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        a[i * n + j] += 1.0;
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(a);
  MPI_Finalize();
  return 0;
}
)";

struct Fixture {
  BuildResult built;
  std::map<std::pair<model::NodeId, ProbeKind>, std::uint32_t> slots;

  Fixture() : built(build(write_source("nest.c", kNest))) {
    for (const auto &p : built.plan.probes) {
      slots[{p.node, p.kind}] = p.slot;
    }
  }
  model::NodeId loop(const std::string &label) const {
    const model::Node *n = labelled(built.model, label);
    EXPECT_NE(n, nullptr) << label;
    return n == nullptr ? 0 : n->id;
  }
  std::uint32_t slot(model::NodeId node, ProbeKind kind) const {
    const auto it = slots.find({node, kind});
    EXPECT_NE(it, slots.end()) << "node " << node << " " << probe_kind_name(kind);
    return it == slots.end() ? 0 : it->second;
  }
};

std::string estimates_file(const std::string &name, std::uint32_t slots, double self, double pair,
                           const std::string &body, bool end = true) {
  std::ostringstream out;
  out << "parjava-estimates 1\nclock rdtsc\nticks_per_second 1e9\nslots " << slots
      << "\nrun_seconds 1\ncalibration " << self << " " << pair << "\n"
      << body;
  if (end) {
    out << "end\n";
  }
  return write_source(name, out.str());
}

TEST(Estimates, PlanProbesBlocksOutsideNestsAndTheNestAsAWhole) {
  Fixture f;
  const model::NodeId outer = f.loop("for i < n");
  const model::NodeId inner = f.loop("for j < n");
  const model::NodeId block = f.loop("double s = 0.0;");
  EXPECT_NE(f.built.plan.find(outer, ProbeKind::Fragment), nullptr);
  EXPECT_NE(f.built.plan.find(outer, ProbeKind::Iterations), nullptr);
  EXPECT_NE(f.built.plan.find(outer, ProbeKind::Trips), nullptr);
  EXPECT_NE(f.built.plan.find(inner, ProbeKind::Trips), nullptr);
  EXPECT_EQ(f.built.plan.find(inner, ProbeKind::Fragment), nullptr); // perfect nest
  EXPECT_NE(f.built.plan.find(block, ProbeKind::Block), nullptr);
  const PlannedLoop *planned = f.built.plan.loop(outer);
  ASSERT_NE(planned, nullptr);
  EXPECT_TRUE(planned->timed);
  EXPECT_EQ(planned->trips, "max(0, (n) - (0))");
  // The plan round-trips through JSON.
  const EstimationPlan again = EstimationPlan::from_json(f.built.plan.to_json());
  EXPECT_EQ(again.slots, f.built.plan.slots);
  EXPECT_EQ(again.probes.size(), f.built.plan.probes.size());
}

TEST(Estimates, LoopNestBecomesABlockThatScalesWithTripCounts) {
  Fixture f;
  const model::NodeId outer = f.loop("for i < n");
  const model::NodeId inner = f.loop("for j < n");
  const model::NodeId block = f.loop("double s = 0.0;");
  // 10 executions of the nest at n = 100: 100 000 inner iterations of 2 ns, plus 50 probe
  // events nested in the nest at 4 ticks each and a self overhead of 3 ticks per sample, which
  // the loader subtracts.
  std::ostringstream body;
  body << "slot " << f.slot(outer, ProbeKind::Fragment) << " 10 " << (200000 + 10 * 3 + 50 * 4)
       << " 4e9 19000 21000 50 0 0\n";
  body << "slot " << f.slot(outer, ProbeKind::Trips) << " 10 1000 100000 0 0 0 0 0 100:10\n";
  body << "slot " << f.slot(inner, ProbeKind::Trips)
       << " 1000 100000 10000000 0 0 0 0 0 100:1000\n";
  body << "slot " << f.slot(outer, ProbeKind::Iterations) << " 1000 200000 4.1e7 190 230 0 0 0\n";
  body << "slot " << f.slot(block, ProbeKind::Block) << " 10 80 650 7 9 0 0 0\n";
  const Measurements ms = load_estimates(
      {estimates_file("est.txt", f.built.plan.slots, 3, 4, body.str())}, f.built.plan.slots);
  model::Model m = f.built.model;
  const auto diagnostics = apply_estimates(m, f.built.plan, ms);

  // The block: (80 - 10 * 3) ticks over 10 samples = 5 ns each.
  const model::Node &b = m.node(block);
  ASSERT_EQ(b.time.kind, model::TimeSpec::Kind::Measured);
  EXPECT_NEAR(b.time.seconds, 5e-9, 1e-15);
  EXPECT_EQ(b.time.samples, 10u);

  // The nest: a reduced block standing for the outer loop, of time trips(i) * trips(j) * 2 ns.
  const model::Node &rb = m.node(outer);
  ASSERT_EQ(rb.kind, NodeKind::Reduced);
  ASSERT_EQ(rb.time.kind, model::TimeSpec::Kind::Expression);
  EXPECT_EQ(rb.time.expr.text(), "max(0, (n) - (0)) * max(0, (n) - (0)) * (2e-09)");
  EXPECT_FALSE(m.has_node(inner));
  // At n = 100 it gives the measured 2 ms per execution; at n = 1000 a hundred times more.
  const auto eval = [&](std::int64_t n) {
    model::SymbolResolver resolve = [&](std::string_view name) -> std::optional<model::Symbol> {
      if (name == "n") {
        model::Symbol s;
        s.constant = model::Value::of_int(n);
        return s;
      }
      return std::nullopt;
    };
    return model::CompiledExpression::compile(rb.time.expr, resolve, "test").evaluate({}).number();
  };
  EXPECT_NEAR(eval(100), 2e-5, 1e-12);
  EXPECT_NEAR(eval(1000), 2e-3, 1e-9);

  // Diagnostics: the reduction, with the balanced-loop verdict (D = 30 of a 200-tick mean).
  bool reported = false;
  for (const auto &d : diagnostics) {
    if (d.node == outer && d.message.find("reduced to a block") != std::string::npos) {
      reported = true;
      EXPECT_NE(d.message.find("unbalanced (D = 15.0%"), std::string::npos) << d.message;
    }
  }
  EXPECT_TRUE(reported);
}

TEST(Estimates, TruncatedOrForeignFilesAreClearErrors) {
  Fixture f;
  const std::uint32_t slots = f.built.plan.slots;
  const std::string truncated = estimates_file("cut.txt", slots, 0, 0, "", false);
  try {
    load_estimates({truncated}, slots);
    FAIL() << "a truncated file must be rejected";
  } catch (const Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::Run);
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos);
  }
  const std::string other = estimates_file("other.txt", slots + 3, 0, 0, "");
  try {
    load_estimates({other}, slots);
    FAIL() << "a file from other estimation code must be rejected";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("instrument again"), std::string::npos);
  }
  EXPECT_THROW(load_estimates({}, slots), Error);
}

} // namespace
} // namespace parjava::frontend::testing
