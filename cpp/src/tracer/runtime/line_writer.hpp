// Builds one line of the definitions log in a fixed buffer without allocating or calling
// non-async-signal-safe functions (no snprintf), so the same code serves normal paths and
// signal handlers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace parjava::tracer::runtime {

class LineWriter {
public:
  LineWriter &text(std::string_view s) {
    for (const char c : s) {
      put(c);
    }
    return *this;
  }
  // A free-text field (names, file paths): newlines and backslashes are escaped so one
  // definition stays one line. It must be the last field of its line.
  LineWriter &escaped(std::string_view s) {
    for (const char c : s) {
      if (c == '\n') {
        put('\\');
        put('n');
      } else if (c == '\\') {
        put('\\');
        put('\\');
      } else {
        put(c);
      }
    }
    return *this;
  }
  template <typename Integer> LineWriter &number(Integer value) {
    static_assert(std::is_integral_v<Integer>);
    std::uint64_t v = static_cast<std::uint64_t>(value);
    if constexpr (std::is_signed_v<Integer>) {
      if (value < 0) {
        put('-');
        v = std::uint64_t{0} - v;
      }
    }
    char digits[24];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0) {
      put(digits[--n]);
    }
    return *this;
  }
  LineWriter &space() {
    put(' ');
    return *this;
  }
  // Terminate the line; returns false if it did not fit (it is then cut, still one line).
  bool end() {
    if (size_ >= sizeof buffer_) {
      size_ = sizeof buffer_ - 1;
    }
    buffer_[size_++] = '\n';
    return !overflow_;
  }
  [[nodiscard]] const char *data() const { return buffer_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  void clear() {
    size_ = 0;
    overflow_ = false;
  }

private:
  void put(char c) {
    if (size_ + 1 < sizeof buffer_) {
      buffer_[size_++] = c;
    } else {
      overflow_ = true;
    }
  }

  char buffer_[8192];
  std::size_t size_ = 0;
  bool overflow_ = false;
};

} // namespace parjava::tracer::runtime
