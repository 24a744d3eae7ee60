#include "parjava/loggp/goal_writer.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>

#include "parjava/error.hpp"

namespace parjava::loggp {

namespace {

// Appends GOAL text to a buffer and hands full buffers to a sink (a file or a string).
template <class Sink> class GoalTextWriter {
public:
  explicit GoalTextWriter(Sink &sink) : sink_(sink) { buffer_.reserve(kFlushAt + 256); }

  void write(const GoalSchedule &s) {
    text("num_ranks ");
    number(s.num_ranks());
    text("\n");
    for (std::uint32_t r = 0; r < s.num_ranks(); ++r) {
      text("\nrank ");
      number(r);
      text(" {\n");
      const OpId first = s.rank_begin(r);
      const OpId end = s.rank_begin(r + 1);
      for (OpId id = first; id < end; ++id) {
        op(s.op(id), id - first);
      }
      for (OpId id = first; id < end; ++id) {
        s.for_each_requires(id, [&](OpId d) { dependency(d - first, "requires", id - first); });
        s.for_each_irequires(id, [&](OpId d) { dependency(d - first, "irequires", id - first); });
      }
      text("}\n");
      if (buffer_.size() >= kFlushAt) {
        flush();
      }
    }
    flush();
  }

private:
  static constexpr std::size_t kFlushAt = std::size_t{1} << 22U;

  void text(const char *s) { buffer_.append(s); }
  void number(std::uint64_t v) {
    char digits[24];
    const auto r = std::to_chars(digits, digits + sizeof(digits), v);
    buffer_.append(digits, r.ptr);
  }
  void label(std::uint32_t offset) {
    buffer_.push_back('l');
    number(std::uint64_t{offset} + 1U);
  }
  void op(const GoalOp &o, std::uint32_t offset) {
    label(offset);
    text(": ");
    if (o.kind == OpKind::Calc) {
      text("calc ");
      number(o.size);
      if (o.cpu != 0) {
        text(" cpu ");
        number(o.cpu);
      }
      text("\n");
      return;
    }
    text(o.kind == OpKind::Send ? "send " : "recv ");
    number(o.size);
    text(o.kind == OpKind::Send ? "b to " : "b from ");
    if (o.peer == kAnySource) {
      text("-1");
    } else {
      number(o.peer);
    }
    text(" tag ");
    if (o.tag == kAnyTag) {
      text("-1");
    } else {
      number(o.tag);
    }
    if (o.cpu != 0 || o.nic != 0) {
      text(" cpu ");
      number(o.cpu);
    }
    if (o.nic != 0) {
      text(" nic ");
      number(o.nic);
    }
    text("\n");
  }
  void dependency(std::uint32_t dependent, const char *kind, std::uint32_t prerequisite) {
    label(dependent);
    buffer_.push_back(' ');
    text(kind);
    buffer_.push_back(' ');
    label(prerequisite);
    buffer_.push_back('\n');
  }
  void flush() {
    sink_(buffer_);
    buffer_.clear();
  }

  Sink &sink_;
  std::string buffer_;
};

struct FileCloser {
  void operator()(std::FILE *f) const noexcept { std::fclose(f); }
};

} // namespace

void write_goal_file(const GoalSchedule &schedule, const std::string &path) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "wb"));
  if (!file) {
    throw Error(ErrorKind::Usage, "cannot write " + path + ": " + std::strerror(errno));
  }
  bool ok = true;
  auto sink = [&](const std::string &chunk) {
    ok = ok && std::fwrite(chunk.data(), 1, chunk.size(), file.get()) == chunk.size();
  };
  GoalTextWriter<decltype(sink)> writer(sink);
  writer.write(schedule);
  if (!ok || std::fflush(file.get()) != 0) {
    throw Error(ErrorKind::Usage, "writing " + path + " failed: " + std::strerror(errno));
  }
}

std::string goal_text(const GoalSchedule &schedule) {
  std::string out;
  auto sink = [&out](const std::string &chunk) { out += chunk; };
  GoalTextWriter<decltype(sink)> writer(sink);
  writer.write(schedule);
  return out;
}

} // namespace parjava::loggp
