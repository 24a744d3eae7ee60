// One column of the event table: a contiguous array of a trivially copyable type with the
// std::vector interface that analyses use (size, data, [], iteration, push_back, resize, ...).
//
// Why not std::vector: a column of millions of events grows by reallocation. std::vector
// allocates a new block and copies, so growth costs a copy and briefly needs twice the memory,
// and trimming the final capacity (shrink_to_fit) copies again. Column keeps its storage in
// malloc/realloc, which for large blocks moves pages with mremap instead of copying, so a
// trace grows and is trimmed to its exact size without ever holding two copies (the memory
// budget of the issue: < 64 bytes per event, peak included).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace parjava::trace {

namespace detail {

// Ask Linux for transparent huge pages on a large block, if PARJAVA_HUGE_PAGES=1 (see above).
inline void advise_huge_pages(void *block, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  static const bool wanted = [] {
    const char *value = std::getenv("PARJAVA_HUGE_PAGES");
    return value != nullptr && value[0] == '1';
  }();
  constexpr std::size_t kHuge = std::size_t{2} << 20U;
  if (!wanted || bytes < 2 * kHuge) {
    return;
  }
  auto *const first = static_cast<char *>(block);
  const auto address = reinterpret_cast<std::uintptr_t>(first);
  const auto skip = (kHuge - (address & (kHuge - 1))) & (kHuge - 1); // to the first huge page
  const auto length = (bytes - skip) & ~(kHuge - 1);                 // whole huge pages
  if (length != 0) {
    madvise(first + skip, length, MADV_HUGEPAGE);
  }
#else
  (void)block;
  (void)bytes;
#endif
}

// Fault in the pages of [block, block + bytes) without writing them (Linux >= 5.14), so that
// the first writes do not pay a page fault each. Safe while another thread writes the block.
inline void populate_pages(void *block, std::size_t bytes) {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
  constexpr int MADV_POPULATE_WRITE = 23; // NOLINT: the kernel's value, missing in old headers
#endif
  constexpr std::size_t kPage = 4096;
  auto *const first = static_cast<char *>(block);
  const auto back = reinterpret_cast<std::uintptr_t>(first) & (kPage - 1); // to its page start
  if (bytes != 0) {
    madvise(first - back, bytes + back, MADV_POPULATE_WRITE);
  }
#else
  (void)block;
  (void)bytes;
#endif
}
} // namespace detail

template <typename T> class Column {
  static_assert(std::is_trivially_copyable_v<T>, "a Column holds plain values only");

public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T &;
  using const_reference = const T &;
  using pointer = T *;
  using const_pointer = const T *;
  using iterator = T *;
  using const_iterator = const T *;

  Column() noexcept = default;
  explicit Column(size_type n, const T &value = T{}) { assign(n, value); }
  Column(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
  explicit Column(const std::vector<T> &values) {
    assign(values.data(), values.data() + values.size());
  }
  Column(const Column &other) { assign(other.begin(), other.end()); }
  Column(Column &&other) noexcept
      : data_(other.data_), size_(other.size_), capacity_(other.capacity_) {
    other.data_ = nullptr;
    other.size_ = other.capacity_ = 0;
  }
  Column &operator=(const Column &other) {
    if (this != &other) {
      assign(other.begin(), other.end());
    }
    return *this;
  }
  Column &operator=(Column &&other) noexcept {
    if (this != &other) {
      std::free(data_);
      data_ = other.data_;
      size_ = other.size_;
      capacity_ = other.capacity_;
      other.data_ = nullptr;
      other.size_ = other.capacity_ = 0;
    }
    return *this;
  }
  ~Column() { std::free(data_); }

  [[nodiscard]] size_type size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] size_type capacity() const noexcept { return capacity_; }
  [[nodiscard]] T *data() noexcept { return data_; }
  [[nodiscard]] const T *data() const noexcept { return data_; }
  T &operator[](size_type i) noexcept { return data_[i]; }
  const T &operator[](size_type i) const noexcept { return data_[i]; }
  T &front() noexcept { return data_[0]; }
  const T &front() const noexcept { return data_[0]; }
  T &back() noexcept { return data_[size_ - 1]; }
  const T &back() const noexcept { return data_[size_ - 1]; }
  iterator begin() noexcept { return data_; }
  iterator end() noexcept { return data_ + size_; }
  const_iterator begin() const noexcept { return data_; }
  const_iterator end() const noexcept { return data_ + size_; }
  const_iterator cbegin() const noexcept { return data_; }
  const_iterator cend() const noexcept { return data_ + size_; }

  void push_back(const T &value) {
    if (size_ == capacity_) {
      grow(size_ + 1);
    }
    data_[size_++] = value;
  }
  void pop_back() noexcept { --size_; }
  void clear() noexcept { size_ = 0; }

  void reserve(size_type n) {
    if (n > capacity_) {
      reallocate(n);
    }
  }
  // New elements are value-initialized, as with std::vector.
  void resize(size_type n, const T &value = T{}) {
    reserve(n);
    std::fill(data_ + std::min(n, size_), data_ + n, value);
    size_ = n;
  }
  // Resize without writing the new elements: the caller overwrites all of them.
  void resize_for_overwrite(size_type n) {
    reserve(n);
    size_ = n;
  }
  void assign(size_type n, const T &value) {
    size_ = 0;
    resize(n, value);
  }
  void assign(const T *first, const T *last) {
    const auto n = static_cast<size_type>(last - first);
    size_ = 0;
    reserve(n);
    if (n != 0) {
      std::memcpy(static_cast<void *>(data_), first, n * sizeof(T));
    }
    size_ = n;
  }
  // Give back unused capacity; realloc shrinks in place, so nothing is copied.
  void shrink_to_fit() {
    if (capacity_ != size_) {
      reallocate(size_);
    }
  }

  // Fault in the pages of the whole capacity now (see detail::populate_pages).
  void populate() const {
    if (capacity_ != 0) {
      detail::populate_pages(data_, capacity_ * sizeof(T));
    }
  }

  [[nodiscard]] std::vector<T> to_vector() const { return std::vector<T>(begin(), end()); }

  friend bool operator==(const Column &a, const Column &b) {
    return a.size_ == b.size_ &&
           (a.size_ == 0 || std::memcmp(a.data_, b.data_, a.size_ * sizeof(T)) == 0);
  }

private:
  void grow(size_type needed) { reallocate(std::max<size_type>({needed, 2 * capacity_, 16})); }
  void reallocate(size_type n) {
    if (n == 0) {
      std::free(data_);
      data_ = nullptr;
      capacity_ = 0;
      return;
    }
    void *p = std::realloc(static_cast<void *>(data_), n * sizeof(T));
    if (p == nullptr) {
      throw std::bad_alloc();
    }
    data_ = static_cast<T *>(p);
    if (n > capacity_) {
      detail::advise_huge_pages(p, n * sizeof(T));
    }
    capacity_ = n;
  }

  T *data_ = nullptr;
  size_type size_ = 0;
  size_type capacity_ = 0;
};

} // namespace parjava::trace
