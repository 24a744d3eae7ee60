// The libstdc++ std::sort emulation behind ReadyOrder::LogGOPSim: on libstdc++ it must produce
// exactly std::sort's permutation of equal keys (that permutation is what LogGOPSim's results
// depend on when more than 16 ops become ready at once).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "parjava/loggp/ready_order.hpp"

namespace {

using Item = std::pair<int, int>; // (key, original position)

bool by_key(const Item &a, const Item &b) { return a.first < b.first; }

std::vector<Item> random_items(std::mt19937 &rng, std::size_t n, int distinct_keys) {
  std::uniform_int_distribution<int> key(1, distinct_keys);
  std::vector<Item> items(n);
  for (std::size_t i = 0; i < n; ++i) {
    items[i] = {key(rng), static_cast<int>(i)};
  }
  return items;
}

TEST(ReadyOrder, SixteenOrFewerElementsSortStably) {
  std::mt19937 rng(7);
  for (std::size_t n = 0; n <= 16; ++n) {
    for (int round = 0; round < 50; ++round) {
      auto items = random_items(rng, n, 3);
      auto expected = items;
      std::stable_sort(expected.begin(), expected.end(), by_key);
      parjava::loggp::libstdcxx_sort(items.data(), items.data() + items.size(), by_key);
      EXPECT_EQ(items, expected);
    }
  }
}

TEST(ReadyOrder, SeventeenEqualKeysArePermuted) {
  // The smallest case where std::sort is not stable: it does reorder equal elements.
  std::vector<Item> items(17);
  for (int i = 0; i < 17; ++i) {
    items[static_cast<std::size_t>(i)] = {2, i};
  }
  parjava::loggp::libstdcxx_sort(items.data(), items.data() + items.size(), by_key);
  bool permuted = false;
  for (int i = 0; i < 17; ++i) {
    permuted = permuted || items[static_cast<std::size_t>(i)].second != i;
  }
  EXPECT_TRUE(permuted);
}

#ifdef __GLIBCXX__
TEST(ReadyOrder, EqualsLibstdcxxStdSort) {
  std::mt19937 rng(20261122U);
  for (const std::size_t n : {17U, 18U, 23U, 31U, 40U, 64U, 100U, 257U, 1000U, 5000U}) {
    for (const int keys : {1, 2, 3, 5, 1000}) {
      for (int round = 0; round < 20; ++round) {
        auto items = random_items(rng, n, keys);
        auto expected = items;
        std::sort(expected.begin(), expected.end(), by_key);
        parjava::loggp::libstdcxx_sort(items.data(), items.data() + items.size(), by_key);
        ASSERT_EQ(items, expected) << "n=" << n << " keys=" << keys;
      }
    }
  }
}

TEST(ReadyOrder, HeapSortFallbackEqualsLibstdcxx) {
  // The depth-limit fallback is __partial_sort(first, last, last): make_heap then sort_heap.
  std::mt19937 rng(3);
  for (const std::size_t n : {2U, 3U, 17U, 50U, 333U}) {
    for (const int keys : {2, 3, 50}) {
      auto items = random_items(rng, n, keys);
      auto expected = items;
      std::make_heap(expected.begin(), expected.end(), by_key);
      std::sort_heap(expected.begin(), expected.end(), by_key);
      auto less = by_key;
      parjava::loggp::libstdcxx::heap_sort(items.data(), items.data() + items.size(), less);
      ASSERT_EQ(items, expected) << "n=" << n;
    }
  }
}

TEST(ReadyOrder, AdversarialInputReachesTheDepthLimitAndStillMatches) {
  // Median-of-3 killer sequences drive introsort into its heapsort fallback.
  for (const std::size_t n : {64U, 256U, 1024U}) {
    std::vector<Item> items(n);
    std::vector<int> keys(n);
    std::iota(keys.begin(), keys.end(), 0);
    // Musser's median-of-3 killer permutation.
    const std::size_t k = n / 2;
    for (std::size_t i = 0; i < k; ++i) {
      keys[2 * i] = static_cast<int>(i % 2 == 0 ? i + 1 : k + i);
      keys[2 * i + 1] = static_cast<int>(i % 2 == 0 ? k + i + 1 : i + 1);
    }
    for (std::size_t i = 0; i < n; ++i) {
      items[i] = {keys[i] % 7, static_cast<int>(i)};
    }
    auto expected = items;
    std::sort(expected.begin(), expected.end(), by_key);
    parjava::loggp::libstdcxx_sort(items.data(), items.data() + items.size(), by_key);
    ASSERT_EQ(items, expected) << "n=" << n;
  }
}
#endif

} // namespace
