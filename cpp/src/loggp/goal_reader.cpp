// GOAL text reader (anchor §2). A hand-written scanner that follows txt2bin's re2c states
// token for token, so files txt2bin accepts parse to the same schedule (same op offsets, same
// dependency order), and everything else gets a positioned error instead of a corrupt .bin.
#include "parjava/loggp/goal_reader.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "goal_line_scanner.hpp"
#include "mapped_file.hpp"
#include "parjava/error.hpp"

namespace parjava::loggp {

namespace {

constexpr std::uint64_t kMaxRanks = std::uint64_t{1} << 31U;

bool is_alpha(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) noexcept { return is_alpha(c) || is_digit(c) || c == '_'; }

// Per-rank label -> op offset. Schedgen (and our generator) write labels "l<N>"; those go to a
// flat table indexed by N, stamped with the rank so nothing needs clearing between ranks. Any
// other label goes to a hash map.
class LabelTable {
public:
  struct Definition {
    std::uint32_t op = 0;
    std::uint64_t line = 0;
  };

  void start_rank(std::uint32_t rank) {
    stamp_ = rank + 1U;
    if (general_.size() > 4096U) {
      general_ = {}; // clear() would memset the whole bucket array for every following rank
    } else if (!general_.empty()) { // generated files have no other labels: skip the memset
      general_.clear();
    }
  }

  [[nodiscard]] const Definition *find(std::string_view label) const {
    std::uint32_t n = 0;
    if (numeric(label, n)) {
      return find_numeric(n);
    }
    const auto it = general_.find(label);
    return it == general_.end() ? nullptr : &it->second;
  }

  // Returns the earlier definition if the label is already defined (and then inserts nothing).
  const Definition *insert(std::string_view label, Definition definition) {
    std::uint32_t n = 0;
    if (numeric(label, n)) {
      return insert_numeric(n, definition);
    }
    const auto [it, inserted] = general_.emplace(label, definition);
    return inserted ? nullptr : &it->second;
  }

  // The label l<n> (n < 10^7, no leading zero), as numeric() reads it.
  [[nodiscard]] const Definition *find_numeric(std::uint32_t n) const noexcept {
    return n < numeric_.size() && numeric_[n].stamp == stamp_ ? &numeric_[n].definition : nullptr;
  }
  const Definition *insert_numeric(std::uint32_t n, Definition definition) {
    if (n >= numeric_.size()) {
      numeric_.resize(std::max<std::size_t>(std::size_t{n} + 1U, numeric_.size() * 2U));
    }
    Slot &slot = numeric_[n];
    if (slot.stamp == stamp_) {
      return &slot.definition;
    }
    slot.stamp = stamp_;
    slot.definition = definition;
    return nullptr;
  }

private:
  struct Slot {
    std::uint32_t stamp = 0;
    Definition definition;
  };
  // "l" followed by 1-7 digits without a leading zero (or "l0").
  static bool numeric(std::string_view label, std::uint32_t &n) noexcept {
    if (label.size() < 2U || label.size() > 8U || label[0] != 'l') {
      return false;
    }
    if (label[1] == '0' && label.size() > 2U) {
      return false;
    }
    n = 0;
    for (std::size_t i = 1; i < label.size(); ++i) {
      if (!is_digit(label[i])) {
        return false;
      }
      n = n * 10U + static_cast<std::uint32_t>(label[i] - '0');
    }
    return true;
  }

  std::uint32_t stamp_ = 0;
  std::vector<Slot> numeric_;
  std::unordered_map<std::string_view, Definition> general_;
};

class GoalTextParser {
public:
  GoalTextParser(const char *begin, const char *end, std::string source)
      : begin_(begin), end_(end), p_(begin), line_start_(begin), source_(std::move(source)) {}

  // Parsed ranks of `file` (the text being parsed) may be dropped from memory while parsing.
  void release_pages_of(MappedFile &file) noexcept {
    file_ = &file;
    released_ = begin_;
    file.will_need(0, kReadAhead);
  }

  GoalSchedule parse() {
    skip_filler();
    const std::uint32_t num_ranks = parse_num_ranks();
    // Every rank has a block of at least 8 bytes ("rank 0{}"): a larger count cannot be this
    // file's, and would make the builder reserve memory for ranks that never come.
    const auto bytes = static_cast<std::uint64_t>(end_ - begin_);
    if (num_ranks > bytes / 8U) {
      fail_at(p_ - 1, "num_ranks " + std::to_string(num_ranks) +
                          " cannot be right: each rank needs a 'rank r { ... }' block of at "
                          "least 8 bytes, and the file has " +
                          std::to_string(bytes) + " bytes");
    }
    GoalScheduleBuilder builder(num_ranks, source_);
    // A typical GOAL line is 20-30 bytes; reserving address space is cheap (pages are only
    // committed when touched), reallocation of multi-GB arrays is not.
    builder.reserve(bytes / 16U + 16U, bytes / 24U + 16U);
    builder_ = &builder;
    for (std::uint32_t rank = 0; rank < num_ranks; ++rank) {
      skip_filler();
      if (p_ == end_) {
        fail("'rank " + std::to_string(rank) + " {'",
             "the file ends after " + std::to_string(rank) + " rank block(s) but num_ranks is " +
                 std::to_string(num_ranks));
      }
      release_parsed();
      parse_rank_header(rank, num_ranks);
      builder.set_rank_block_offset(static_cast<std::uint64_t>(token_ - begin_));
      builder.begin_rank(rank);
      labels_.start_rank(rank);
      parse_rank_body(rank);
      builder.end_rank();
    }
    skip_filler();
    if (p_ != end_) {
      fail("end of file", "the schedule declares num_ranks " + std::to_string(num_ranks) +
                              " and all of them have been read; txt2bin would silently ignore "
                              "the rest of the file");
    }
    return builder.finish();
  }

  // Locate mode: parse one rank block starting at the current position and record where each
  // wanted op (by offset within the rank) starts.
  void locate(std::uint64_t start_offset, std::uint32_t rank, std::uint32_t num_ranks,
              std::vector<GoalSourcePosition *> &wanted) {
    line_ = 1U + static_cast<std::uint64_t>(std::count(begin_, begin_ + start_offset, '\n'));
    p_ = begin_ + start_offset;
    line_start_ = p_;
    while (line_start_ > begin_ && line_start_[-1] != '\n') {
      --line_start_;
    }
    num_ranks_ = num_ranks;
    wanted_ = &wanted;
    parse_rank_header(rank, num_ranks);
    parse_rank_body(rank);
  }

private:
  // ---- errors -----------------------------------------------------------------------------
  [[nodiscard]] std::string where(const char *at) const {
    // Column in bytes, 1-based, from the start of the line containing `at`.
    const char *ls = at;
    while (ls > begin_ && ls[-1] != '\n') {
      --ls;
    }
    std::uint64_t line = line_;
    if (at < line_start_) { // error reported at an earlier token on an earlier line
      line -= static_cast<std::uint64_t>(std::count(at, line_start_, '\n'));
    }
    return source_ + ":" + std::to_string(line) + ":" + std::to_string(at - ls + 1);
  }

  [[nodiscard]] std::string found_here() const {
    if (p_ >= end_) {
      return "end of file";
    }
    if (*p_ == '\n' || *p_ == '\r') {
      return "end of line";
    }
    const char *q = p_;
    if (is_ident_char(*q)) {
      while (q < end_ && is_ident_char(*q) && q - p_ < 24) {
        ++q;
      }
    } else {
      ++q;
    }
    return "'" + std::string(p_, q) + "'";
  }

  // Error paths take the text of what was expected as a string_view (literals on the hot
  // path): building a std::string per token cost more than the parse itself (callgrind: malloc
  // and free were a third of the instructions).
  [[noreturn]] [[gnu::cold]] void fail(std::string_view expected,
                                       std::string_view note = {}) const {
    std::string message =
        where(p_) + ": expected " + std::string(expected) + ", found " + found_here();
    if (!note.empty()) {
      message += " (" + std::string(note) + ")";
    }
    throw Error(ErrorKind::Model, message);
  }

  [[noreturn]] [[gnu::cold]] void fail_at(const char *at, const std::string &message) const {
    throw Error(ErrorKind::Model, where(at) + ": " + message);
  }

  // Parsed text is never read again (but for an error message): give its pages back as the
  // parse moves on, so the process holds at most kReleaseEvery bytes of the file besides the
  // schedule (issue 18: a 4 GB GOAL text must not be resident beside the schedule it becomes).
  //
  // The same steps keep kReadAhead bytes ahead of the parse point requested from the disk:
  // the kernel's own readahead on faults of a mapping reads in small steps, and a cold 1.6 GB
  // text was read at a quarter of the disk's rate (benchmarks/goal_read.py).
  void release_parsed() noexcept {
    if (file_ != nullptr && p_ - released_ >= kReleaseEvery) {
      file_->release_before(p_);
      file_->will_need(static_cast<std::size_t>(released_ - begin_) + kReadAhead,
                       static_cast<std::size_t>(p_ - released_));
      released_ = p_;
    }
  }

  // ---- lexical helpers --------------------------------------------------------------------
  void skip_ws() noexcept {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t')) {
      ++p_;
    }
  }

  // "\r"? "\n", or the end of the file (txt2bin appends a newline at EOF).
  bool newline() noexcept {
    if (p_ == end_) {
      return true;
    }
    if (*p_ == '\n') {
      ++p_;
    } else if (*p_ == '\r' && p_ + 1 < end_ && p_[1] == '\n') {
      p_ += 2;
    } else {
      return false;
    }
    ++line_;
    line_start_ = p_;
    return true;
  }

  void expect_newline(std::string_view expected) {
    skip_ws();
    if (!newline()) {
      fail(expected);
    }
  }

  // Keywords after the first word of a line are literal prefixes, as in txt2bin's states.
  bool keyword(std::string_view word) noexcept {
    if (static_cast<std::size_t>(end_ - p_) >= word.size() &&
        std::memcmp(p_, word.data(), word.size()) == 0) {
      p_ += word.size();
      return true;
    }
    return false;
  }

  std::string_view identifier() noexcept {
    const char *start = p_;
    if (p_ < end_ && is_alpha(*p_)) {
      ++p_;
      while (p_ < end_ && is_ident_char(*p_)) {
        ++p_;
      }
    }
    return {start, static_cast<std::size_t>(p_ - start)};
  }

  // Blank lines, whitespace and comments between items (txt2bin state 0).
  // Inline for the common case, an item right here (a generated file's every line).
  // Generated files put one or two bare newlines before a rank's first line and between ranks:
  // those are taken here too (the call to the general loop was ~120 instructions a rank, a
  // twentieth of reading a tree's or ring's two-op ranks).
  void skip_filler() {
    while (p_ != end_ && *p_ == '\n') {
      ++p_;
      ++line_;
      line_start_ = p_;
    }
    if (p_ != end_ && *p_ != ' ' && *p_ != '\t' && *p_ != '\r' && *p_ != '/') {
      return;
    }
    skip_filler_slow();
  }

  [[gnu::noinline]] void skip_filler_slow() {
    for (;;) {
      skip_ws();
      if (p_ == end_) {
        return;
      }
      if (*p_ == '\n' || *p_ == '\r') {
        if (!newline()) {
          return; // a lone '\r': let the caller report it
        }
      } else if (p_ + 1 < end_ && p_[0] == '/' && p_[1] == '/') {
        while (p_ < end_ && *p_ != '\n') {
          ++p_;
        }
        newline();
      } else if (p_ + 1 < end_ && p_[0] == '/' && p_[1] == '*') {
        const char *open = p_;
        p_ += 2;
        for (;;) {
          if (p_ >= end_) {
            fail_at(open, "comment opened here is never closed with '*/'");
          }
          if (p_ + 1 < end_ && p_[0] == '*' && p_[1] == '/') {
            p_ += 2;
            break;
          }
          if (*p_ == '\n') {
            ++p_;
            ++line_;
            line_start_ = p_;
          } else {
            ++p_;
          }
        }
      } else {
        return;
      }
    }
  }

  // An unsigned decimal number (txt2bin's INT), at most `max`.
  std::uint64_t number(std::string_view what, std::uint64_t max) {
    skip_ws();
    if (p_ == end_ || !is_digit(*p_)) {
      fail(what);
    }
    const char *start = p_;
    std::uint64_t value = 0;
    bool overflow = false;
    while (p_ < end_ && is_digit(*p_)) {
      const auto digit = static_cast<std::uint64_t>(*p_ - '0');
      if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10U) {
        overflow = true;
      }
      value = value * 10U + digit;
      ++p_;
    }
    if (overflow || value > max) {
      fail_at(start, std::string(what) + " must be at most " + std::to_string(max) + ", found " +
                         std::string(start, p_));
    }
    return value;
  }

  // ---- grammar ----------------------------------------------------------------------------
  std::uint32_t parse_num_ranks() {
    token_ = p_;
    const std::string_view word = identifier();
    if (word != "num_ranks") {
      p_ = token_;
      fail("'num_ranks N' at the start of the schedule");
    }
    const std::uint64_t n = number("the number of ranks after 'num_ranks'", kMaxRanks);
    if (n == 0) {
      fail_at(p_ - 1, "num_ranks must be at least 1");
    }
    num_ranks_ = static_cast<std::uint32_t>(n);
    return num_ranks_;
  }

  void parse_rank_header(std::uint32_t rank, std::uint32_t num_ranks) {
    token_ = p_;
    if (rank_header_as_written(rank)) {
      return;
    }
    const std::string_view word = identifier();
    if (word == "num_ranks") {
      fail_at(token_, "num_ranks is given twice; it must appear once, before the first rank");
    }
    if (word != "rank") {
      p_ = token_;
      fail("'rank " + std::to_string(rank) + " {'");
    }
    const char *number_at = (skip_ws(), p_);
    const std::uint64_t r =
        number("a rank number after 'rank'", std::numeric_limits<std::uint64_t>::max());
    if (r != rank) {
      fail_at(number_at,
              "rank blocks must appear in order 0.." + std::to_string(num_ranks - 1U) +
                  ": expected rank " + std::to_string(rank) + ", found rank " + std::to_string(r) +
                  (r >= num_ranks ? " (beyond num_ranks " + std::to_string(num_ranks) + ")" : ""));
    }
    skip_ws();
    if (!keyword("{")) {
      fail("'{' after 'rank " + std::to_string(rank) + "'");
    }
  }

  // `rank N {` with single blanks, as generators write it (the general way below takes any
  // blanks and names what is wrong). At 2^20 ranks of two ops each, the header was a fifth of
  // the reading; it is compared whole against the expected text, whose number is incremented
  // from the previous rank's (a digit loop with bounds checks was ~130 instructions a rank).
  bool rank_header_as_written(std::uint32_t rank) noexcept {
    expect_header(rank);
    if (static_cast<std::size_t>(end_ - p_) < header_length_ ||
        std::memcmp(p_, header_.data(), header_length_) != 0) {
      return false;
    }
    p_ += header_length_;
    return true;
  }

  // header_ holds "rank <rank> {" (header_length_ bytes).
  void expect_header(std::uint32_t rank) noexcept {
    if (header_length_ != 0 && rank == header_rank_) {
      return;
    }
    if (header_length_ != 0 && rank == header_rank_ + 1U) {
      std::size_t i = header_length_ - 3U; // the last digit
      while (header_[i] == '9') {
        header_[i--] = '0';
      }
      if (header_[i] == ' ') { // all nines: one more digit, "1" then zeros
        header_[i + 1U] = '1';
        header_[header_length_ - 2U] = '0';
        header_[header_length_ - 1U] = ' ';
        header_[header_length_] = '{';
        ++header_length_;
      } else {
        ++header_[i];
      }
    } else {
      const std::string text = "rank " + std::to_string(rank) + " {";
      std::memcpy(header_.data(), text.data(), text.size());
      header_length_ = text.size();
    }
    header_rank_ = rank;
  }

  void parse_rank_body(std::uint32_t rank) {
    op_count_ = 0;
    for (;;) {
      release_parsed(); // also inside a rank: one rank of a linear all-to-all can be MBs
      skip_filler();
      if (p_ == end_) {
        fail("'}'", "rank " + std::to_string(rank) + " is not closed");
      }
      if (*p_ == '}') {
        ++p_;
        return;
      }
      if (builder_ != nullptr && common_lines()) {
        continue;
      }
      token_ = p_;
      const std::uint64_t token_line = line_;
      const std::string_view word = identifier();
      if (word.empty()) {
        fail("an operation (send, recv, calc), a label, a comment or '}'");
      }
      if (word == "send") {
        operation(OpKind::Send, {}, token_line);
      } else if (word == "recv") {
        operation(OpKind::Recv, {}, token_line);
      } else if (word == "calc") {
        operation(OpKind::Calc, {}, token_line);
      } else if (word == "rank" || word == "num_ranks") {
        p_ = token_;
        fail("'}'", "rank " + std::to_string(rank) + " is not closed before the next '" +
                        std::string(word) + "'");
      } else {
        labelled_line(word, token_line);
      }
    }
  }

  // The lines from here on that have the shapes generators write (goal_line_scanner.hpp), in
  // one loop with the position in a register; false if the first is not one of them (the
  // general scanner below reads it, and reports every error).
  bool common_lines() {
    const char *p = p_;
    std::uint64_t line_number = line_;
    detail::GoalLine line;
    bool any = false;
    // '}' ends a rank: no line shape starts with it, so it needs no copy and scan.
    while (p != end_ && *p != '}' && detail::scan_goal_line(p, end_, num_ranks_, line)) {
      if (line.kind == detail::GoalLine::Kind::Operation) {
        if (line.labelled && labels_.find_numeric(line.label) != nullptr) {
          break; // a duplicate label
        }
        const std::uint32_t offset = op_count_++;
        if (line.op == OpKind::Send) {
          builder_->add_send(line.size, line.peer, line.tag, line.cpu, line.nic);
        } else if (line.op == OpKind::Recv) {
          builder_->add_recv(line.size, line.peer, line.tag, line.cpu, line.nic);
        } else {
          builder_->add_calc(line.size, line.cpu);
        }
        if (line.labelled) {
          labels_.insert_numeric(line.label, {offset, line_number});
        }
      } else {
        const LabelTable::Definition *dependent = labels_.find_numeric(line.label);
        const LabelTable::Definition *required = labels_.find_numeric(line.prerequisite);
        if (dependent == nullptr || required == nullptr || dependent->op == required->op) {
          break;
        }
        if (line.kind == detail::GoalLine::Kind::Irequires) {
          builder_->add_irequires(dependent->op, required->op);
        } else {
          builder_->add_requires(dependent->op, required->op);
        }
      }
      any = true;
      p += line.length;
      if (!line.newline) {
        break; // the end of the file
      }
      ++line_number;
      if (p - released_ >= kReleaseEvery) {
        p_ = p;
        release_parsed();
      }
    }
    if (any) {
      p_ = p;
      line_ = line_number;
      line_start_ = p;
    }
    return any;
  }

  void labelled_line(std::string_view label, std::uint64_t label_line) {
    const char *label_at = token_;
    skip_ws();
    if (keyword(":")) {
      skip_ws();
      if (keyword("send")) {
        operation(OpKind::Send, label, label_line);
      } else if (keyword("recv")) {
        operation(OpKind::Recv, label, label_line);
      } else if (keyword("calc")) {
        operation(OpKind::Calc, label, label_line);
      } else {
        fail("'send', 'recv' or 'calc' after '" + std::string(label) + ":'");
      }
      return;
    }
    bool start = false;
    if (keyword("requires")) {
      start = false;
    } else if (keyword("irequires")) {
      start = true;
    } else {
      fail("':', 'requires' or 'irequires' after the label '" + std::string(label) + "'");
    }
    skip_ws();
    const char *prerequisite_at = p_;
    const std::string_view prerequisite = identifier();
    if (prerequisite.empty()) {
      fail("a label after '" + std::string(start ? "irequires" : "requires") + "'");
    }
    skip_ws();
    if (!newline()) {
      fail("end of line after the dependency '" + std::string(label) +
           (start ? " irequires " : " requires ") + std::string(prerequisite) + "'");
    }
    if (builder_ == nullptr) {
      return; // locate mode
    }
    const LabelTable::Definition *dependent = labels_.find(label);
    if (dependent == nullptr) {
      fail_at(label_at, "label '" + std::string(label) +
                            "' is not defined in this rank (a "
                            "dependency line must come after both of its labels)");
    }
    const LabelTable::Definition *required = labels_.find(prerequisite);
    if (required == nullptr) {
      fail_at(prerequisite_at, "label '" + std::string(prerequisite) +
                                   "' is not defined in this rank (a dependency line must come "
                                   "after both of its labels)");
    }
    if (dependent->op == required->op) {
      fail_at(label_at, "'" + std::string(label) + "' depends on itself, so it could never start");
    }
    if (start) {
      builder_->add_irequires(dependent->op, required->op);
    } else {
      builder_->add_requires(dependent->op, required->op);
    }
  }

  void operation(OpKind kind, std::string_view label, std::uint64_t op_line) {
    const char *op_at = token_;
    std::uint64_t size = 0;
    std::uint32_t peer = 0;
    std::uint32_t tag = 0;
    std::uint64_t cpu = 0;
    std::uint64_t nic = 0;
    if (kind == OpKind::Calc) {
      size = number("an integer duration after 'calc'", std::numeric_limits<std::uint64_t>::max());
      skip_ws();
      bool had_cpu = false;
      if (keyword("cpu")) {
        cpu = number("an integer (0..255) after 'cpu'", 255);
        had_cpu = true;
      }
      expect_newline(had_cpu ? "end of line"
                             : "'cpu' or end of line (calc takes only a cpu clause)");
    } else {
      const bool send = kind == OpKind::Send;
      size = number(send ? "an integer size in bytes after 'send'"
                         : "an integer size in bytes after 'recv'",
                    std::numeric_limits<std::uint64_t>::max());
      skip_ws();
      if (!keyword("b")) {
        fail("'b' after the message size");
      }
      skip_ws();
      if (!keyword(send ? "to" : "from")) {
        fail(send ? "'to' after the size of a send" : "'from' after the size of a recv");
      }
      skip_ws();
      const char *peer_at = p_;
      if (keyword("-1")) {
        if (send) {
          fail_at(peer_at, "'send ... to -1' is invalid: a send needs a destination rank; -1 "
                           "(any source) is only valid in 'recv ... from -1'");
        }
        peer = kAnySource;
      } else {
        const std::uint64_t r =
            number(send ? "a destination rank after 'to'" : "a source rank (or -1) after 'from'",
                   std::numeric_limits<std::uint32_t>::max());
        if (!send && r == kAnySource) {
          peer = kAnySource; // txt2bin reads 4294967295 as -1
        } else if (r >= num_ranks_) {
          fail_at(peer_at, std::string(send ? "send to" : "recv from") + " rank " +
                               std::to_string(r) + ", but the schedule has ranks 0.." +
                               std::to_string(num_ranks_ - 1U));
        } else {
          peer = static_cast<std::uint32_t>(r);
        }
      }
      skip_ws();
      std::string_view next = "'tag', 'cpu', 'nic' or end of line";
      if (keyword("tag")) {
        skip_ws();
        if (keyword("-1")) {
          tag = kAnyTag;
        } else {
          tag = static_cast<std::uint32_t>(
              number("a tag (or -1) after 'tag'", std::numeric_limits<std::uint32_t>::max()));
        }
        skip_ws();
        next = "'cpu', 'nic' or end of line";
      }
      if (keyword("cpu")) {
        cpu = number("an integer (0..255) after 'cpu'", 255);
        skip_ws();
        next = "'nic' or end of line";
      }
      if (keyword("nic")) {
        nic = number("an integer (0..255) after 'nic'", 255);
        next = "end of line";
      }
      skip_ws();
      if (!newline()) {
        fail(std::string(next) + " (clauses come in the order tag, cpu, nic)");
      }
    }
    const std::uint32_t offset = op_count_++;
    if (wanted_ != nullptr) {
      for (GoalSourcePosition *pos : *wanted_) {
        if (pos->op_offset == offset) {
          pos->line = op_line;
          const char *ls = op_at;
          while (ls > begin_ && ls[-1] != '\n') {
            --ls;
          }
          pos->column = static_cast<std::uint64_t>(op_at - ls + 1);
        }
      }
    }
    if (builder_ == nullptr) {
      return;
    }
    if (kind == OpKind::Send) {
      builder_->add_send(size, peer, tag, static_cast<std::uint8_t>(cpu),
                         static_cast<std::uint8_t>(nic));
    } else if (kind == OpKind::Recv) {
      builder_->add_recv(size, peer, tag, static_cast<std::uint8_t>(cpu),
                         static_cast<std::uint8_t>(nic));
    } else {
      builder_->add_calc(size, static_cast<std::uint8_t>(cpu));
    }
    if (!label.empty()) {
      const LabelTable::Definition *earlier = labels_.insert(label, {offset, op_line});
      if (earlier != nullptr) {
        fail_at(op_at, "label '" + std::string(label) + "' is already defined at line " +
                           std::to_string(earlier->line) +
                           " of this rank (txt2bin would silently keep the first one)");
      }
    }
  }

  const char *begin_;
  const char *end_;
  const char *p_;
  const char *line_start_;
  const char *token_ = nullptr;
  std::uint64_t line_ = 1;
  std::string source_;
  std::uint32_t num_ranks_ = 0;
  std::uint32_t op_count_ = 0;
  std::array<char, 24> header_{}; // rank_header_as_written()'s expected text
  std::size_t header_length_ = 0;
  std::uint32_t header_rank_ = 0;
  GoalScheduleBuilder *builder_ = nullptr;
  MappedFile *file_ = nullptr; // a mapped file whose parsed pages may be given back
  const char *released_ = nullptr;
  // 1 MiB: one madvise per MiB parsed is ~4000 calls for a 4 GB file, and the file's share of
  // the peak stays at 1 MiB (16 B per rank at 2^16 ranks; the 64 MiB of before was 1 KB).
  static constexpr std::ptrdiff_t kReleaseEvery = std::ptrdiff_t{1} << 20U;
  static constexpr std::size_t kReadAhead = std::size_t{32} << 20U; // ~40 ms of disk
  LabelTable labels_;
  std::vector<GoalSourcePosition *> *wanted_ = nullptr;
};

} // namespace

GoalSchedule read_goal_file(const std::string &path) {
  MappedFile file(path, ErrorKind::Model);
  if (file.size() == 0) {
    throw Error(ErrorKind::Model, path + ":1:1: expected 'num_ranks N', found an empty file");
  }
  file.advise_sequential();
  GoalTextParser parser(file.data(), file.data() + file.size(), path);
  parser.release_pages_of(file);
  return parser.parse();
}

GoalSchedule parse_goal_text(std::string_view text, const std::string &source_name) {
  GoalTextParser parser(text.data(), text.data() + text.size(), source_name);
  return parser.parse();
}

std::vector<GoalSourcePosition> locate_goal_ops(const GoalSchedule &schedule,
                                                const std::string &path,
                                                const std::vector<OpId> &ops) {
  std::vector<GoalSourcePosition> positions(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    positions[i].rank = schedule.rank_of(ops[i]);
    positions[i].op_offset = ops[i] - schedule.rank_begin(positions[i].rank);
  }
  const auto &offsets = schedule.rank_block_offsets();
  if (offsets.size() != schedule.num_ranks() || ops.empty()) {
    return positions;
  }
  try {
    const MappedFile file(path, ErrorKind::Model);
    std::vector<std::uint32_t> ranks;
    ranks.reserve(positions.size());
    for (const GoalSourcePosition &p : positions) {
      ranks.push_back(p.rank);
    }
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    for (const std::uint32_t rank : ranks) {
      std::vector<GoalSourcePosition *> wanted;
      for (GoalSourcePosition &p : positions) {
        if (p.rank == rank) {
          wanted.push_back(&p);
        }
      }
      if (offsets[rank] >= file.size()) {
        continue;
      }
      GoalTextParser parser(file.data(), file.data() + file.size(), path);
      parser.locate(offsets[rank], rank, schedule.num_ranks(), wanted);
    }
  } catch (const Error &) {
    // The file changed since it was read: positions stay unknown (line 0).
    for (GoalSourcePosition &p : positions) {
      p.line = 0;
      p.column = 0;
    }
  }
  return positions;
}

} // namespace parjava::loggp
