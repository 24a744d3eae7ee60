// In which order the operations that become ready together on a host enter the event queue.
//
// LogGOPSim sorts each host's ready list with std::sort by kind only (SEND < RECV < CALC) and
// gives the ops increasing queue sequence numbers in that order; equal-time ties are then broken
// by that sequence (anchor §4). std::sort is an insertion sort -- hence stable -- for at most 16
// elements, and an unstable introsort above. With more than 16 ready ops it can therefore permute
// receives that have the same source and tag, so the wrong receive matches a message; stock
// Schedgen allreduce_ring (P >= 9) and allreduce_recdoub (P >= 256) then deadlock in LogGOPSim
// although the MPI program is correct (anchor §7).
//
//   ReadyOrder::Stable     orders by kind and keeps the schedule's order within a kind. MPI
//                          requires that messages between a pair of processes with the same tag
//                          match in the order the receives were *posted* (non-overtaking), and
//                          a schedule lists them in program order, so this is the only order
//                          that is faithful to MPI. It is the default.
//   ReadyOrder::LogGOPSim  reproduces libstdc++'s std::sort exactly (emulated below, so the
//                          result does not depend on the standard library parjava is built
//                          with). It exists to compare with LogGOPSim bit for bit, including its
//                          spurious deadlocks.
// With at most 16 ready ops both orders are identical.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace parjava::loggp {

enum class ReadyOrder : std::uint8_t { Stable, LogGOPSim };

// libstdc++'s std::sort (introsort: median-of-3 Hoare partitioning down to runs of 16, heapsort
// when the depth limit 2*floor(log2 n) is exhausted, then a final insertion sort), written out
// step by step so that the permutation it produces for equal keys is exactly libstdc++'s.
// `less(a, b)` must be a strict weak order. Exposed for the tests, which compare it with
// std::sort when built against libstdc++.
namespace libstdcxx {

inline constexpr std::ptrdiff_t kThreshold = 16; // std::sort's _S_threshold

template <class T, class Less> void move_median_to_first(T *result, T *a, T *b, T *c, Less &less) {
  if (less(*a, *b)) {
    if (less(*b, *c)) {
      std::swap(*result, *b);
    } else if (less(*a, *c)) {
      std::swap(*result, *c);
    } else {
      std::swap(*result, *a);
    }
  } else if (less(*a, *c)) {
    std::swap(*result, *a);
  } else if (less(*b, *c)) {
    std::swap(*result, *c);
  } else {
    std::swap(*result, *b);
  }
}

template <class T, class Less> T *unguarded_partition(T *first, T *last, T *pivot, Less &less) {
  for (;;) {
    while (less(*first, *pivot)) {
      ++first;
    }
    --last;
    while (less(*pivot, *last)) {
      --last;
    }
    if (!(first < last)) {
      return first;
    }
    std::swap(*first, *last);
    ++first;
  }
}

template <class T, class Less>
void push_heap(T *first, std::ptrdiff_t hole, std::ptrdiff_t top, T value, Less &less) {
  std::ptrdiff_t parent = (hole - 1) / 2;
  while (hole > top && less(first[parent], value)) {
    first[hole] = std::move(first[parent]);
    hole = parent;
    parent = (hole - 1) / 2;
  }
  first[hole] = std::move(value);
}

template <class T, class Less>
void adjust_heap(T *first, std::ptrdiff_t hole, std::ptrdiff_t len, T value, Less &less) {
  const std::ptrdiff_t top = hole;
  std::ptrdiff_t child = hole;
  while (child < (len - 1) / 2) {
    child = 2 * (child + 1);
    if (less(first[child], first[child - 1])) {
      --child;
    }
    first[hole] = std::move(first[child]);
    hole = child;
  }
  if ((len & 1) == 0 && child == (len - 2) / 2) {
    child = 2 * (child + 1);
    first[hole] = std::move(first[child - 1]);
    hole = child - 1;
  }
  push_heap(first, hole, top, std::move(value), less);
}

template <class T, class Less> void heap_sort(T *first, T *last, Less &less) {
  const std::ptrdiff_t len = last - first;
  if (len >= 2) { // make_heap
    std::ptrdiff_t parent = (len - 2) / 2;
    for (;;) {
      T value = std::move(first[parent]);
      adjust_heap(first, parent, len, std::move(value), less);
      if (parent == 0) {
        break;
      }
      --parent;
    }
  }
  while (last - first > 1) { // sort_heap: repeated pop_heap
    --last;
    T value = std::move(*last);
    *last = std::move(*first);
    adjust_heap(first, std::ptrdiff_t{0}, last - first, std::move(value), less);
  }
}

template <class T, class Less> void unguarded_linear_insert(T *last, Less &less) {
  T value = std::move(*last);
  T *next = last - 1;
  while (less(value, *next)) {
    *last = std::move(*next);
    last = next;
    --next;
  }
  *last = std::move(value);
}

template <class T, class Less> void insertion_sort(T *first, T *last, Less &less) {
  if (first == last) {
    return;
  }
  for (T *i = first + 1; i != last; ++i) {
    if (less(*i, *first)) {
      T value = std::move(*i);
      for (T *j = i; j != first; --j) { // move_backward(first, i, i + 1)
        *j = std::move(*(j - 1));
      }
      *first = std::move(value);
    } else {
      unguarded_linear_insert(i, less);
    }
  }
}

template <class T, class Less>
void introsort_loop(T *first, T *last, std::ptrdiff_t depth_limit, Less &less) {
  while (last - first > kThreshold) {
    if (depth_limit == 0) {
      heap_sort(first, last, less); // std::__partial_sort(first, last, last)
      return;
    }
    --depth_limit;
    T *mid = first + (last - first) / 2;
    move_median_to_first(first, first + 1, mid, last - 1, less);
    T *cut = unguarded_partition(first + 1, last, first, less);
    introsort_loop(cut, last, depth_limit, less);
    last = cut;
  }
}

inline std::ptrdiff_t floor_log2(std::ptrdiff_t n) {
  std::ptrdiff_t k = 0;
  while (n > 1) {
    n >>= 1;
    ++k;
  }
  return k;
}

} // namespace libstdcxx

// Sort [first, last) exactly as libstdc++'s std::sort(first, last, less) does.
template <class T, class Less> void libstdcxx_sort(T *first, T *last, Less less) {
  if (first == last) {
    return;
  }
  libstdcxx::introsort_loop(first, last, libstdcxx::floor_log2(last - first) * 2, less);
  if (last - first > libstdcxx::kThreshold) {
    libstdcxx::insertion_sort(first, first + libstdcxx::kThreshold, less);
    for (T *i = first + libstdcxx::kThreshold; i != last; ++i) {
      libstdcxx::unguarded_linear_insert(i, less);
    }
  } else {
    libstdcxx::insertion_sort(first, last, less);
  }
}

} // namespace parjava::loggp
