// Incremental max-min (flow_network.hpp) against re-solving every changed component from
// scratch, on random flow sets over real topologies: flows start in batches at random instants
// and leave when done, with bounds, RTT-unfair penalties and cross traffic mixed in. After every
// settle both solvers must give every live flow the same rate and finish time, the incremental
// solution must be max-min fair by definition (no link over capacity; every flow at its bound or
// on a saturated link where no flow has a higher level), and where the flows do not all share
// one bottleneck the incremental solver must have solved fewer flows (else the test would not
// exercise it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "../../../cpp/src/interp/flow_network.hpp"
#include "parjava/machine/fabric.hpp"

using parjava::interp::FlowNetwork;
namespace pm = parjava::machine;

namespace {

struct Mix {
  bool share_host_links = true;
  bool expect_savings = true;
  bool same_size = false; // every flow of one size: ties everywhere, as in an all-to-all
  bool bounds = false;
  bool penalties = false;
  bool crosstraffic = false;
};

class Twin {
public:
  Twin(const pm::Topology &topology, std::int64_t nodes, const Mix &mix, unsigned seed)
      : fabric_(topology, nodes, 1e9), mix_(mix), rng_(seed) {
    incremental_.build(fabric_, mix.share_host_links);
    scratch_.build(fabric_, mix.share_host_links);
    scratch_.set_incremental(false);
  }

  void start_batch(int count) {
    std::uniform_int_distribution<std::int64_t> node(0, fabric_.nodes() - 1);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int i = 0; i < count; ++i) {
      const auto a = static_cast<std::int32_t>(node(rng_));
      auto b = static_cast<std::int32_t>(node(rng_));
      if (a == b) {
        b = static_cast<std::int32_t>((b + 1) % fabric_.nodes());
      }
      route_.clear();
      back_.clear();
      fabric_.route(a, b, owner_, route_);
      if (mix_.crosstraffic) {
        fabric_.route(b, a, owner_, back_);
      }
      const double bytes = mix_.same_size ? 65536.0 : 1000.0 + 100000.0 * unit(rng_);
      const double bound = mix_.bounds && unit(rng_) < 0.4
                               ? 0.05 + unit(rng_)
                               : std::numeric_limits<double>::infinity();
      const double penalty = mix_.penalties ? 1.0 + 3.0 * unit(rng_) : 1.0;
      Flow &flow = flows_[owner_];
      flow.route = route_;
      flow.back = back_;
      flow.penalty = penalty;
      flow.bound = bound;
      for (const std::uint32_t l : route_) {
        if (!shared(l)) {
          flow.bound = std::min(flow.bound, fabric_.bandwidth(l) * 1e-9);
        }
      }
      flow.incremental = incremental_.start(now_, bytes, route_.data(), route_.size(), back_.data(),
                                            back_.size(), 0.05, bound, penalty, owner_);
      flow.scratch = scratch_.start(now_, bytes, route_.data(), route_.size(), back_.data(),
                                    back_.size(), 0.05, bound, penalty, owner_);
      ++owner_;
    }
  }

  void settle() {
    incremental_.settle(now_);
    scratch_.settle(now_);
    for (const auto &[owner, flow] : flows_) {
      const double r = scratch_.rate(flow.scratch);
      ASSERT_NEAR(incremental_.rate(flow.incremental), r, 1e-9 * r)
          << "flow " << owner << " at " << now_;
      const double f = scratch_.finish(flow.scratch);
      // Finish times are rounded up to 1/1024 ns: the same rate reached by other roundings may
      // land one step away.
      ASSERT_NEAR(incremental_.finish(flow.incremental), f, 1.5 / 1024 + 1e-12 * f)
          << "flow " << owner << " at " << now_;
    }
    check_max_min();
  }

  // Max-min fairness by definition, on the incremental solution.
  void check_max_min() {
    std::vector<double> load(fabric_.link_count(), 0.0);
    std::vector<double> top(fabric_.link_count(), 0.0); // highest level on the link
    const auto each_member = [&](const Flow &flow, auto &&visit) {
      for (const std::uint32_t l : flow.route) {
        visit(l, 1.0);
      }
      for (const std::uint32_t l : flow.back) {
        visit(l, 0.05);
      }
    };
    for (const auto &[owner, flow] : flows_) {
      const double rate = incremental_.rate(flow.incremental);
      each_member(flow, [&](std::uint32_t l, double usage) {
        if (shared(l)) {
          load[l] += usage * rate;
          top[l] = std::max(top[l], rate * flow.penalty);
        }
      });
    }
    for (std::uint32_t l = 0; l < load.size(); ++l) {
      ASSERT_LE(load[l], fabric_.bandwidth(l) * 1e-9 * (1 + 1e-9)) << "link " << l;
    }
    for (const auto &[owner, flow] : flows_) {
      const double rate = incremental_.rate(flow.incremental);
      bool limited = rate >= flow.bound * (1 - 1e-9);
      each_member(flow, [&](std::uint32_t l, double) {
        limited = limited || (shared(l) && load[l] >= fabric_.bandwidth(l) * 1e-9 * (1 - 1e-9) &&
                              rate * flow.penalty >= top[l] * (1 - 1e-9));
      });
      ASSERT_TRUE(limited) << "flow " << owner << " at " << now_ << " could go faster";
    }
  }

  // Moves to the next finish and takes out the flows both solvers have finished by then; false
  // when nothing is in flight.
  bool advance() {
    const double next = scratch_.next_finish();
    if (!std::isfinite(next)) {
      return false;
    }
    now_ = next + 2.0 / 1024;
    std::vector<std::uint32_t> done_incremental;
    std::vector<std::uint32_t> done_scratch;
    std::uint32_t owner = 0;
    while (incremental_.pop_finished(now_, owner)) {
      done_incremental.push_back(owner);
    }
    while (scratch_.pop_finished(now_, owner)) {
      done_scratch.push_back(owner);
    }
    std::sort(done_incremental.begin(), done_incremental.end());
    std::sort(done_scratch.begin(), done_scratch.end());
    EXPECT_EQ(done_incremental, done_scratch) << "at " << now_;
    for (const std::uint32_t o : done_scratch) {
      flows_.erase(o);
    }
    return true;
  }

  // Moves part of the way to the next finish (a start between two finishes).
  void wander() {
    const double next = scratch_.next_finish();
    if (std::isfinite(next)) {
      now_ += (next - now_) * std::uniform_real_distribution<double>(0.0, 0.9)(rng_);
    }
  }

  void run(int rounds) {
    std::uniform_int_distribution<int> batch(1, 12);
    std::uniform_int_distribution<int> pick(0, 3);
    start_batch(4 * batch(rng_));
    settle();
    for (int i = 0; i < rounds && !::testing::Test::HasFatalFailure(); ++i) {
      switch (pick(rng_)) {
      case 0:
        wander();
        start_batch(batch(rng_));
        break;
      case 1:
        start_batch(batch(rng_));
        break;
      default:
        if (!advance()) {
          start_batch(batch(rng_));
        }
      }
      settle();
    }
    while (!::testing::Test::HasFatalFailure() && advance()) {
      settle();
    }
    EXPECT_TRUE(flows_.empty());
    if (mix_.expect_savings) {
      EXPECT_LT(incremental_.flows_recomputed(), scratch_.flows_recomputed());
    }
  }

private:
  struct Flow {
    std::uint32_t incremental = 0;
    std::uint32_t scratch = 0;
    std::vector<std::uint32_t> route;
    std::vector<std::uint32_t> back;
    double penalty = 1.0;
    double bound = 0.0; // its own and its unshared links'
  };

  [[nodiscard]] bool shared(std::uint32_t l) const {
    return !fabric_.fatpipe(l) && (mix_.share_host_links || !fabric_.host_link(l));
  }

  pm::Fabric fabric_;
  Mix mix_;
  std::mt19937 rng_;
  FlowNetwork incremental_;
  FlowNetwork scratch_;
  std::vector<std::uint32_t> route_;
  std::vector<std::uint32_t> back_;
  std::map<std::uint32_t, Flow> flows_;
  std::uint32_t owner_ = 0;
  double now_ = 0.0;
};

pm::LinkParameters link(double bandwidth, pm::LinkSharing sharing = pm::LinkSharing::SplitDuplex) {
  return {bandwidth, 0.0, sharing};
}

void check(const pm::Topology &topology, std::int64_t nodes, const Mix &mix) {
  for (unsigned seed = 1; seed <= 3 && !::testing::Test::HasFatalFailure(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Twin(topology, nodes, mix, seed).run(250);
  }
}

} // namespace

TEST(IncrementalMaxMin, TorusAllToAllSizes) {
  check(pm::Topology::torus_topology({4, 4}, link(0.0)), 16, {.same_size = true});
}

TEST(IncrementalMaxMin, TorusMixedSizesAndBounds) {
  check(pm::Topology::torus_topology({4, 3, 2}, link(0.0)), 24, {.bounds = true});
}

TEST(IncrementalMaxMin, TaperedFatTreeWithPenaltiesAndCrossTraffic) {
  check(pm::Topology::k_ary_fat_tree(4, 3, 2.0, link(0.0)), 16,
        {.bounds = true, .penalties = true, .crosstraffic = true});
}

TEST(IncrementalMaxMin, DragonflyValiantWithoutSharedNics) {
  pm::DragonflyShape shape;
  shape.groups = 3;
  shape.chassis = 2;
  shape.routers = 3;
  shape.nodes = 2;
  check(pm::Topology::dragonfly_topology(shape, pm::DragonflyRouting::Valiant, link(0.0)), 36,
        {.share_host_links = false, .same_size = true, .bounds = true});
}

// Every flow crosses the shared backbone: when it is the bottleneck every change re-solves
// everything, so no savings are asked for there.
TEST(IncrementalMaxMin, StarWithSharedBackboneAndFatpipe) {
  const auto backbone = link(2e9, pm::LinkSharing::Shared);
  auto star = pm::Topology::star(link(1e9), &backbone);
  star.limiter = 1.5e9;
  check(star, 12, {.expect_savings = false, .penalties = true});
  const auto pipe = link(1e9, pm::LinkSharing::Fatpipe);
  check(pm::Topology::star(link(1e9), &pipe), 12, {.same_size = true});
}
