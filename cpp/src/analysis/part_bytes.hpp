// Bytes of a part of a parallel analysis (interval_parts.hpp, cause_parts.hpp): what an
// analysis rank sends to the one that merges, in native byte order (the ranks of one job
// share a machine type). A truncated or damaged buffer throws ErrorKind::Analysis naming `what`.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "parjava/error.hpp"

namespace parjava::analysis::detail {

class Writer {
public:
  template <typename T> void put(const T &v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out.append(reinterpret_cast<const char *>(&v), sizeof(T));
  }
  void put(const std::string &s) {
    put<std::uint64_t>(s.size());
    out += s;
  }
  template <typename T> void put(const std::vector<T> &v) {
    static_assert(std::is_trivially_copyable_v<T>);
    put<std::uint64_t>(v.size());
    out.append(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(T));
  }
  std::string out;
};

class Reader {
public:
  Reader(const std::string &bytes, const char *what) : in_(bytes), what_(what) {}
  template <typename T> T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    std::memcpy(&v, take(sizeof(T)), sizeof(T));
    return v;
  }
  std::string get_string() {
    const auto n = count(1);
    return {take(n), n};
  }
  template <typename T> std::vector<T> get_vector() {
    const auto n = count(sizeof(T));
    std::vector<T> v(n);
    if (n != 0) {
      std::memcpy(v.data(), take(n * sizeof(T)), n * sizeof(T));
    }
    return v;
  }
  [[nodiscard]] bool done() const { return at_ == in_.size(); }

private:
  std::size_t count(std::size_t item) {
    const auto n = get<std::uint64_t>();
    if (n > (in_.size() - at_) / item) {
      fail();
    }
    return static_cast<std::size_t>(n);
  }
  const char *take(std::size_t n) {
    if (n > in_.size() - at_) {
      fail();
    }
    const char *p = in_.data() + at_;
    at_ += n;
    return p;
  }
  [[noreturn]] void fail() const {
    throw Error(ErrorKind::Analysis, std::string(what_) +
                                         ": the received bytes are truncated or damaged at byte " +
                                         std::to_string(at_) + " of " + std::to_string(in_.size()));
  }
  const std::string &in_;
  const char *what_;
  std::size_t at_ = 0;
};

} // namespace parjava::analysis::detail
