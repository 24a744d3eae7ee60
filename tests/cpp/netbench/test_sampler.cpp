// The stopping rule and the statistics of netbench's sampler; the sizes it measures.
#include <gtest/gtest.h>

#include <cmath>

#include "parjava/netbench/message_sizes.hpp"
#include "parjava/netbench/sampler.hpp"

using namespace parjava::netbench;

TEST(StudentT, MatchesTablesAndTendsToTheNormalQuantile) {
  EXPECT_NEAR(student_t_975(1), 12.706, 1e-3);
  EXPECT_NEAR(student_t_975(10), 2.228, 1e-3);
  EXPECT_NEAR(student_t_975(40), 2.021, 2e-3);
  EXPECT_NEAR(student_t_975(120), 1.980, 2e-3);
  EXPECT_NEAR(student_t_975(100000), 1.960, 1e-3);
}

TEST(Sampler, MeanAndConfidenceIntervalOfKnownSamples) {
  Sampler sampler({2, 100, 0.05, 10.0});
  for (double s : {1.0, 2.0, 3.0, 4.0, 5.0}) {
    sampler.add(s);
  }
  const auto point = sampler.result(64, 10);
  EXPECT_DOUBLE_EQ(point.seconds, 3.0);
  // s = sqrt(2.5); t(4) = 2.776
  EXPECT_NEAR(point.ci95, 2.776 * std::sqrt(2.5) / std::sqrt(5.0), 1e-3);
  EXPECT_EQ(point.samples, 5);
  EXPECT_EQ(point.discarded, 0);
  EXPECT_EQ(point.bytes, 64u);
  EXPECT_EQ(point.operations_per_sample, 10);
}

TEST(Sampler, SetsFarOutliersAside) {
  Sampler sampler({2, 100, 0.05, 10.0});
  for (int i = 0; i < 20; ++i) {
    sampler.add(1.0 + 0.01 * (i % 5));
  }
  sampler.add(1000.0); // a preempted batch
  const auto point = sampler.result(0, 1);
  EXPECT_EQ(point.discarded, 1);
  EXPECT_EQ(point.samples, 20);
  EXPECT_NEAR(point.seconds, 1.02, 1e-9);
}

TEST(Sampler, StopsAtTargetPrecisionNotBeforeTheMinimum) {
  Sampler sampler({5, 100, 0.05, 10.0});
  for (int i = 0; i < 4; ++i) {
    sampler.add(1.0);
  }
  EXPECT_FALSE(sampler.done(0.0));
  sampler.add(1.0);
  EXPECT_TRUE(sampler.done(0.0));
}

TEST(Sampler, KeepsGoingWhileNoisyUntilCapOrBudget) {
  Sampler sampler({3, 8, 0.01, 1.0});
  for (int i = 0; i < 6; ++i) {
    sampler.add(i % 2 == 0 ? 1.0 : 2.0);
  }
  EXPECT_FALSE(sampler.done(0.5));
  EXPECT_TRUE(sampler.done(1.5)); // budget spent
  sampler.add(1.0);
  sampler.add(2.0);
  EXPECT_TRUE(sampler.done(0.0)); // cap reached
}

TEST(MessageSizes, PowersOfTwoAndMidpointsUpToFourMiB) {
  const auto sizes = ping_pong_sizes(4u << 20);
  ASSERT_EQ(sizes.size(), 45u);
  EXPECT_EQ(sizes[0], 0u);
  EXPECT_EQ(sizes[1], 1u);
  EXPECT_EQ(sizes[2], 2u);
  EXPECT_EQ(sizes[3], 3u);
  EXPECT_EQ(sizes[4], 4u);
  EXPECT_EQ(sizes[5], 6u);
  EXPECT_EQ(sizes[sizes.size() - 2], 3u << 20);
  EXPECT_EQ(sizes.back(), 4u << 20);
  for (std::size_t i = 1; i < sizes.size(); ++i) {
    EXPECT_GT(sizes[i], sizes[i - 1]);
  }
}

TEST(MessageSizes, EndAtAnyMaximum) {
  const auto sizes = ping_pong_sizes(5000);
  EXPECT_EQ(sizes.back(), 5000u);
  EXPECT_EQ(sizes[sizes.size() - 2], 4096u);
  const auto sparse = sparse_sizes(4u << 20);
  EXPECT_EQ(sparse.front(), 0u);
  EXPECT_EQ(sparse[2], 4u);
  EXPECT_EQ(sparse.back(), 4u << 20);
}
