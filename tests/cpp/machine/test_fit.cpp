// Fits on synthetic tables with known parameters, and eager-limit detection.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "parjava/error.hpp"
#include "parjava/machine/fit.hpp"

using namespace parjava::machine;

namespace {

// 0 B .. 4 MiB, powers of two and their midpoints (netbench's sizes).
std::vector<std::uint64_t> sizes() {
  std::vector<std::uint64_t> result{0, 1};
  for (std::uint64_t p = 2; p <= (4u << 20); p *= 2) {
    result.push_back(p);
    if (p * 3 / 2 < (4u << 20)) {
      result.push_back(p * 3 / 2);
    }
  }
  return result;
}

template <typename Model> std::vector<TablePoint> table(Model model) {
  std::vector<TablePoint> points;
  for (std::uint64_t n : sizes()) {
    points.push_back({n, model(n)});
  }
  return points;
}

// Deterministic +-amplitude multiplicative noise.
std::vector<TablePoint> with_noise(std::vector<TablePoint> points, double amplitude) {
  std::uint64_t state = 88172645463325252ull;
  for (TablePoint &p : points) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const double unit = static_cast<double>(state % 2001) / 1000.0 - 1.0; // [-1, 1]
    p.seconds *= 1.0 + amplitude * unit;
  }
  return points;
}

void expect_within(double actual, double expected, double relative) {
  EXPECT_NEAR(actual, expected, std::fabs(expected) * relative)
      << "actual " << actual << " expected " << expected;
}

} // namespace

TEST(FitHockney, RecoversKnownParametersExactly) {
  const auto points = table([](std::uint64_t n) { return 1.5e-6 + static_cast<double>(n) / 10e9; });
  const HockneyFit fit = fit_hockney(points, 4096);
  expect_within(fit.parameters.latency, 1.5e-6, 1e-9);
  expect_within(fit.parameters.bandwidth, 10e9, 1e-9);
  EXPECT_EQ(fit.parameters.eager_limit, 4096u);
  EXPECT_FALSE(fit.constrained);
  EXPECT_LT(fit.error.max_relative, 1e-9);
  EXPECT_EQ(fit.error.points, sizes().size());
}

TEST(FitHockney, RecoversKnownParametersWithinOnePercentUnderNoise) {
  const auto points = with_noise(
      table([](std::uint64_t n) { return 0.8e-6 + static_cast<double>(n) / 6e9; }), 0.01);
  const HockneyFit fit = fit_hockney(points, 0);
  expect_within(fit.parameters.latency, 0.8e-6, 0.01);
  expect_within(fit.parameters.bandwidth, 6e9, 0.01);
  EXPECT_LT(fit.error.max_relative, 0.025);
  EXPECT_GT(fit.error.rms_relative, 0.001);
}

TEST(FitHockney, WeightsSizesByRelativeError) {
  // Unweighted least squares would be pulled by the millisecond points; the relative fit keeps
  // small-message times right even when the large sizes follow another slope.
  auto points = table([](std::uint64_t n) {
    const double x = static_cast<double>(n);
    return n <= 65536 ? 1e-6 + x / 5e9 : 1e-6 + 65536 / 5e9 + (x - 65536) / 4e9;
  });
  const HockneyFit fit = fit_hockney(points, 0);
  expect_within(fit.parameters.latency, 1e-6, 0.05);
}

TEST(FitHockney, NegativeInterceptIsConstrainedToZero) {
  const std::vector<TablePoint> points{{1000, 0.5e-6}, {2000, 1.5e-6}, {4000, 3.5e-6}};
  const HockneyFit fit = fit_hockney(points, 0);
  EXPECT_TRUE(fit.constrained);
  EXPECT_EQ(fit.parameters.latency, 0.0);
  EXPECT_GT(fit.parameters.bandwidth, 0.0);
}

TEST(FitHockney, RejectsTablesWithoutAPositiveSlope) {
  EXPECT_THROW((void)fit_hockney(std::vector<TablePoint>{{8, 2e-6}, {16, 1e-6}}, 0),
               parjava::Error);
  EXPECT_THROW((void)fit_hockney(std::vector<TablePoint>{{8, 2e-6}}, 0), parjava::Error);
}

TEST(FitLogGP, RecoversKnownParameters) {
  const LogGPParameters truth{1.1e-6, 0.3e-6, 0.5e-6, 0.08e-9, 0.02e-9, 4096};
  const auto one_way = table([&](std::uint64_t n) {
    return 2 * truth.o + truth.L + (n == 0 ? 0.0 : static_cast<double>(n - 1)) * truth.G;
  });
  std::vector<TablePoint> overhead;
  for (std::uint64_t n : {1ull, 64ull, 512ull, 2048ull, 4096ull}) {
    overhead.push_back({n, truth.o + static_cast<double>(n - 1) * truth.O});
  }
  const LogGPFit fit = fit_loggp({one_way, overhead, truth.g, truth.S});
  expect_within(fit.parameters.L, truth.L, 0.01);
  expect_within(fit.parameters.o, truth.o, 0.01);
  expect_within(fit.parameters.g, truth.g, 0.01);
  expect_within(fit.parameters.G, truth.G, 0.01);
  expect_within(fit.parameters.O, truth.O, 0.01);
  EXPECT_EQ(fit.parameters.S, truth.S);
  EXPECT_FALSE(fit.constrained);
  EXPECT_LT(fit.error.max_relative, 1e-9);
}

TEST(FitLogGP, RecoversKnownParametersWithinOnePercentUnderNoise) {
  const LogGPParameters truth{2.5e-6, 1.5e-6, 1e-6, 6e-9, 1e-9, 65535};
  const auto one_way = with_noise(table([&](std::uint64_t n) {
                                    return 2 * truth.o + truth.L +
                                           (n == 0 ? 0.0 : static_cast<double>(n - 1)) * truth.G;
                                  }),
                                  0.002);
  std::vector<TablePoint> overhead;
  for (std::uint64_t n = 1; n <= 65536; n *= 4) {
    overhead.push_back({n, truth.o + static_cast<double>(n - 1) * truth.O});
  }
  const LogGPFit fit = fit_loggp({one_way, with_noise(overhead, 0.002), truth.g, truth.S});
  expect_within(fit.parameters.L, truth.L, 0.01);
  expect_within(fit.parameters.o, truth.o, 0.01);
  expect_within(fit.parameters.G, truth.G, 0.01);
  expect_within(fit.parameters.O, truth.O, 0.01);
}

TEST(FitLogGP, OverheadLargerThanHalfTheOneWayTimeIsConstrained) {
  const auto one_way = table([](std::uint64_t n) { return 1e-6 + static_cast<double>(n) * 1e-10; });
  const std::vector<TablePoint> overhead{{1, 0.8e-6}};
  const LogGPFit fit = fit_loggp({one_way, overhead, 0.2e-6, 1024});
  EXPECT_TRUE(fit.constrained);
  EXPECT_EQ(fit.parameters.L, 0.0);
  EXPECT_NEAR(fit.parameters.o, 0.5e-6, 1e-9);
}

TEST(FitError, NamesTheWorstSize) {
  const std::vector<TablePoint> points{{0, 1e-6}, {1000, 2e-6}, {2000, 4e-6}};
  const FitError error = fit_error(Network::hockney({1e-6, 1e9, 0}), points);
  EXPECT_EQ(error.worst_bytes, 2000u);
  EXPECT_NEAR(error.max_relative, 0.25, 1e-12);
  EXPECT_EQ(error.points, 3u);
}

TEST(EagerLimit, FindsTheJumpOfARendezvousSwitch) {
  const auto points = table([](std::uint64_t n) {
    const double x = static_cast<double>(n);
    return n <= 4096 ? 0.4e-6 + x / 5e9 : 1.4e-6 + x / 8e9;
  });
  const EagerLimitDetection found = detect_eager_limit(points, 0.01);
  ASSERT_TRUE(found.detected);
  EXPECT_EQ(found.last_eager_bytes, 4096u);
  EXPECT_EQ(found.first_rendezvous_bytes, 6144u);
  // The jump is the smaller gap between the two sides' lines over [4096, 6144].
  expect_within(found.jump_seconds, (1.4e-6 + 6144 / 8e9) - (0.4e-6 + 6144 / 5e9), 1e-6);

  // A size in between is classified by the model it follows.
  EXPECT_TRUE(closer_to_eager_side(points, found, 5000, 0.4e-6 + 5000 / 5e9));
  EXPECT_FALSE(closer_to_eager_side(points, found, 5000, 1.4e-6 + 5000 / 8e9));
}

TEST(EagerLimit, NoJumpNoDetection) {
  const auto points = table([](std::uint64_t n) { return 1e-6 + static_cast<double>(n) / 5e9; });
  EXPECT_FALSE(detect_eager_limit(points, 0.01).detected);
  // A change of slope without a jump (e.g. a cache boundary) is not a protocol switch.
  const auto kink = table([](std::uint64_t n) {
    const double x = static_cast<double>(n);
    return n <= 32768 ? 1e-6 + x / 5e9 : 1e-6 + 32768 / 5e9 + (x - 32768) / 2e9;
  });
  EXPECT_FALSE(detect_eager_limit(kink, 0.01).detected);
}

TEST(EagerLimit, NoiseRaisesTheThreshold) {
  const auto points = table([](std::uint64_t n) {
    const double x = static_cast<double>(n);
    return n <= 4096 ? 1e-6 + x / 5e9 : 1.6e-6 + x / 5e9;
  });
  EXPECT_TRUE(detect_eager_limit(points, 0.01).detected);
  EXPECT_FALSE(detect_eager_limit(points, 0.2).detected);
}
