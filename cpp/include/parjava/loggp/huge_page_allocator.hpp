// An allocator for the LogGP engine's large arrays (the schedule's op records and dependents,
// the per-host records, the per-op counters): blocks of at least kHugeThreshold bytes are
// mapped on their own, aligned to 2 MiB, and marked MADV_HUGEPAGE before they are first
// touched, so the kernel backs them with transparent huge pages where it can.
//
// Why: at 2^20 ranks every event lands on a host and an op far from the previous event's
// (a binomial broadcast's hosts are 2^19, 2^18, ... apart), so with 4 KiB pages nearly every
// access misses the TLB and the prefetches of upcoming events wait for page walks. With 2 MiB
// pages the 200 MB working set needs ~100 TLB entries instead of ~50,000 (measured: the 2^20
// broadcast's loop 0.96 s -> 0.74 s, benchmarks/goal_results.md, fifth pass). Under the
// kernel's default THP setting ("madvise") only such marked ranges get huge pages; with THP
// off the advice is ignored and nothing changes but the alignment. Smaller blocks come from
// operator new as usual.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>

namespace parjava::loggp {

inline constexpr std::size_t kHugePage = std::size_t{2} << 20U;
inline constexpr std::size_t kHugeThreshold = std::size_t{4} << 20U;

// Map `bytes` (a multiple of kHugePage) aligned to kHugePage, advised for huge pages.
inline void *map_huge(std::size_t bytes) {
  // Over-map by one huge page and trim both ends to get the alignment.
  const std::size_t span = bytes + kHugePage;
  void *raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) { // NOLINT(cppcoreguidelines-pro-type-cstyle-cast): the libc macro
    throw std::bad_alloc();
  }
  auto *base = static_cast<char *>(raw);
  const auto address = reinterpret_cast<std::uintptr_t>(raw); // NOLINT(*-reinterpret-cast)
  const std::size_t lead = (kHugePage - (address & (kHugePage - 1U))) & (kHugePage - 1U);
  if (lead > 0) {
    munmap(base, lead);
  }
  char *block = base + lead;
  if (span > lead + bytes) {
    munmap(block + bytes, span - lead - bytes);
  }
  madvise(block, bytes, MADV_HUGEPAGE); // advice only: failure changes nothing
  return block;
}

template <class T> class HugePageAllocator {
public:
  using value_type = T;

  HugePageAllocator() noexcept = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U> & /*other*/) noexcept {} // NOLINT(*-explicit-*)

  T *allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugeThreshold) {
      return static_cast<T *>(::operator new(bytes, std::align_val_t{alignof(T)}));
    }
    return static_cast<T *>(map_huge(rounded(bytes)));
  }

  void deallocate(T *p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugeThreshold) {
      ::operator delete(p, std::align_val_t{alignof(T)});
      return;
    }
    munmap(p, rounded(bytes));
  }

  template <class U> bool operator==(const HugePageAllocator<U> & /*other*/) const noexcept {
    return true;
  }

private:
  static std::size_t rounded(std::size_t bytes) noexcept {
    return (bytes + kHugePage - 1U) & ~(kHugePage - 1U);
  }
};

} // namespace parjava::loggp
