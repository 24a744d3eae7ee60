// The fast path of the GOAL text reader (private to the loggp part): one pass over the line
// shapes that schedule generators write -- `lN: send 8b to 3 tag 0`, `recv ... from -1`,
// `calc 100 cpu 1`, `lN requires lM`, `lN irequires lM` -- on a copy of the line that ends in a
// NUL, so no character needs a bounds check, with no error text and no overflow check per digit.
//
// Why: issue 18 asks for a GOAL text parsed at disk speed (~700 MB/s read with O_DIRECT on the
// development VM). The general scanner (goal_reader.cpp), which keeps txt2bin's token rules
// and names file:line:column on every error, ran at 33 instructions per byte. This one
// accepts a strict subset of what the general one accepts, with the same values; on anything
// else (a long line, a label that is not `l<N>`, a number out of range, a comment, an error)
// it reports no match and the caller parses the line the general way, which also gives the
// error message. So it changes speed, never an answer or a message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "parjava/loggp/goal_schedule.hpp"

namespace parjava::loggp::detail {

struct GoalLine {
  enum class Kind : std::uint8_t { Operation, Requires, Irequires };
  Kind kind = Kind::Operation;
  OpKind op = OpKind::Calc;
  bool labelled = false;
  bool newline = false;           // the line ended with a newline (not at the end of the file)
  std::uint32_t label = 0;        // N of the line's `lN` (the dependent of a dependency line)
  std::uint32_t prerequisite = 0; // M of `lN requires lM`
  std::uint32_t peer = 0;
  std::uint32_t tag = 0;
  std::uint64_t size = 0;
  std::uint8_t cpu = 0;
  std::uint8_t nic = 0;
  std::size_t length = 0; // bytes of the line, its newline included
};

namespace goal_line {

// Longest line this path reads; longer ones (many blanks) go the general way.
inline constexpr std::size_t kMaxLine = 95;
// Bytes after the copy's NUL that a keyword compare may read (the longest keyword).
inline constexpr std::size_t kSlack = 16;

[[gnu::always_inline]] inline bool digit(char c) noexcept {
  return static_cast<unsigned char>(c - '0') < 10U;
}
[[gnu::always_inline]] inline bool ident(char c) noexcept {
  return digit(c) || c == '_' || static_cast<unsigned char>((c | 0x20) - 'a') < 26U;
}
[[gnu::always_inline]] inline void blanks(const char *&q) noexcept {
  while (*q == ' ' || *q == '\t') {
    ++q;
  }
}
// A keyword as a literal prefix (txt2bin's rule after the first word of a line). The NUL at the
// end of the copy stops a comparison running past it.
// A compare of a constant size: a load or two, no loop (the copy has room to read past its NUL).
template <std::size_t N>
[[gnu::always_inline]] inline bool word(const char *&q, const char (&w)[N]) noexcept {
  if (std::memcmp(q, w, N - 1U) != 0) {
    return false;
  }
  q += N - 1U;
  return true;
}
// An unsigned decimal of at most `digits` digits (so it cannot overflow 64 bits), after blanks.
[[gnu::always_inline]] inline bool number(const char *&q, std::uint64_t &value,
                                          std::ptrdiff_t digits) noexcept {
  blanks(q);
  const char *start = q;
  std::uint64_t v = 0;
  while (digit(*q)) {
    v = v * 10U + static_cast<std::uint64_t>(*q - '0');
    ++q;
  }
  if (q == start || q - start > digits) {
    return false;
  }
  value = v;
  return true;
}
[[gnu::always_inline]] inline bool small(const char *&q,
                                         std::uint8_t &out) noexcept { // cpu, nic: 0..255
  std::uint64_t v = 0;
  if (!number(q, v, 3) || v > 255U) {
    return false;
  }
  out = static_cast<std::uint8_t>(v);
  return true;
}
// `l<N>` with 1-7 digits and no leading zero (the reader's numeric labels), ending where an
// identifier ends.
[[gnu::always_inline]] inline bool label(const char *&q, std::uint32_t &n) noexcept {
  if (q[0] != 'l' || !digit(q[1]) || (q[1] == '0' && ident(q[2]))) {
    return false;
  }
  const char *d = q + 1;
  std::uint32_t value = 0;
  while (digit(*d)) {
    value = value * 10U + static_cast<std::uint32_t>(*d - '0');
    ++d;
  }
  if (d - q > 8 || ident(*d)) {
    return false;
  }
  n = value;
  q = d;
  return true;
}

[[gnu::always_inline]] inline bool operation(const char *&q, GoalLine &line, bool need_blank,
                                             std::uint32_t num_ranks) noexcept {
  if (word(q, "send")) {
    line.op = OpKind::Send;
  } else if (word(q, "recv")) {
    line.op = OpKind::Recv;
  } else if (word(q, "calc")) {
    line.op = OpKind::Calc;
  } else {
    return false;
  }
  // Unlabelled, the name is a whole word (an identifier); after `lN:` it is a prefix.
  if (*q != ' ' && *q != '\t' && (need_blank || !digit(*q))) {
    return false;
  }
  line.kind = GoalLine::Kind::Operation;
  if (!number(q, line.size, 19)) {
    return false;
  }
  blanks(q);
  if (line.op == OpKind::Calc) {
    return !word(q, "cpu") || small(q, line.cpu);
  }
  const bool send = line.op == OpKind::Send;
  if (!word(q, "b")) {
    return false;
  }
  blanks(q);
  if (!(send ? word(q, "to") : word(q, "from"))) {
    return false;
  }
  blanks(q);
  if (!send && word(q, "-1")) {
    line.peer = kAnySource;
  } else {
    std::uint64_t peer = 0;
    if (!number(q, peer, 10) || peer >= num_ranks) {
      return false; // out of range (or 4294967295 for any source): the general way
    }
    line.peer = static_cast<std::uint32_t>(peer);
  }
  blanks(q);
  if (word(q, "tag")) {
    blanks(q);
    if (word(q, "-1")) {
      line.tag = kAnyTag;
    } else {
      std::uint64_t tag = 0;
      if (!number(q, tag, 10) || tag > 0xffffffffULL) {
        return false;
      }
      line.tag = static_cast<std::uint32_t>(tag);
    }
    blanks(q);
  }
  if (word(q, "cpu")) {
    if (!small(q, line.cpu)) {
      return false;
    }
    blanks(q);
  }
  return !word(q, "nic") || small(q, line.nic);
}

} // namespace goal_line

// Scan the line at p (an item: not blanks or a comment) of the text ending at `end`. True and
// `line` filled if it is one of the shapes above, exactly as the general scanner reads it.
[[gnu::always_inline]] inline bool
scan_goal_line(const char *p, const char *end, std::uint32_t num_ranks, GoalLine &line) noexcept {
  using namespace goal_line;
  char copy[kMaxLine + 1 + kSlack];
  const auto available = static_cast<std::size_t>(end - p);
  std::size_t n = kMaxLine;
  if (available >= kMaxLine) {
    std::memcpy(copy, p, kMaxLine); // a fixed size: a few vector moves, no call
  } else {
    n = available;
    std::memcpy(copy, p, n);
  }
  std::memset(copy + n, 0, kSlack + 1U);
  const char *q = copy;
  line = GoalLine{};
  if (label(q, line.label)) {
    line.labelled = true;
    blanks(q);
    if (*q == ':') {
      ++q;
      blanks(q);
      if (!operation(q, line, /*need_blank=*/false, num_ranks)) {
        return false;
      }
    } else {
      if (word(q, "requires")) {
        line.kind = GoalLine::Kind::Requires;
      } else if (word(q, "irequires")) {
        line.kind = GoalLine::Kind::Irequires;
      } else {
        return false;
      }
      blanks(q);
      if (!label(q, line.prerequisite)) {
        return false;
      }
    }
  } else if (!operation(q, line, /*need_blank=*/true, num_ranks)) {
    return false;
  }
  blanks(q);
  // A newline, or the end of the file (not a NUL inside the file, not the end of the copy).
  if (*q == '\n') {
    ++q;
    line.newline = true;
  } else if (*q == '\r' && q[1] == '\n') {
    q += 2;
    line.newline = true;
  } else if (static_cast<std::size_t>(q - copy) != available) {
    return false;
  }
  line.length = static_cast<std::size_t>(q - copy);
  return true;
}

} // namespace parjava::loggp::detail
