// Text read from files (names in a trace, values in a damaged archive) need not be UTF-8,
// while everything parjava hands on (Python str, JSON, HTML) must be. valid_utf8() keeps valid
// UTF-8 as it is and replaces each byte that does not start a valid sequence with U+FFFD, the
// way Python's errors="replace" decodes it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace parjava {

// Length of the valid UTF-8 sequence starting at s[i], or 0 (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF).
inline std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) {
    return 1;
  }
  std::size_t n = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    low = c == 0xE0 ? 0xA0 : 0x80;
    high = c == 0xED ? 0x9F : 0xBF;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    low = c == 0xF0 ? 0x90 : 0x80;
    high = c == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (i + n > s.size()) {
    return 0;
  }
  for (std::size_t k = 1; k < n; ++k) {
    const unsigned char b = byte(i + k);
    if (b < (k == 1 ? low : 0x80) || b > (k == 1 ? high : 0xBF)) {
      return 0;
    }
  }
  return n;
}

inline bool is_valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto n = utf8_sequence_length(s, i);
    if (n == 0) {
      return false;
    }
    i += n;
  }
  return true;
}

inline std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto n = utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD"; // U+FFFD
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

} // namespace parjava
