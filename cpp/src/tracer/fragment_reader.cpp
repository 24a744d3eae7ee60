// Reading process fragments (fragment_reader.hpp).
#include "parjava/tracer/fragment_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>

#include "parjava/error.hpp"
#include "parjava/tracer/routines.hpp"

namespace parjava::tracer {
namespace {

Error trace_error(const std::string &message) { return Error(ErrorKind::Trace, message); }

// Splits a log line into whitespace-separated fields; `rest_from` returns the remainder of the
// line from field i on (free text such as names and paths, which may contain spaces).
class Fields {
public:
  explicit Fields(std::string_view line) : line_(line) {
    std::size_t pos = 0;
    while (pos < line.size()) {
      const auto start = line.find_first_not_of(' ', pos);
      if (start == std::string_view::npos) {
        break;
      }
      const auto end = line.find(' ', start);
      starts_.push_back(start);
      fields_.push_back(line.substr(start, end == std::string_view::npos ? end : end - start));
      pos = end == std::string_view::npos ? line.size() : end;
    }
  }
  [[nodiscard]] std::size_t size() const { return fields_.size(); }
  [[nodiscard]] std::string_view operator[](std::size_t i) const { return fields_[i]; }
  [[nodiscard]] std::string rest_from(std::size_t i) const {
    return i < starts_.size() ? unescape(line_.substr(starts_[i])) : std::string();
  }
  template <typename T> bool number(std::size_t i, T &out) const {
    if (i >= fields_.size()) {
      return false;
    }
    const auto f = fields_[i];
    const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), out);
    return ec == std::errc() && ptr == f.data() + f.size();
  }

private:
  static std::string unescape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\\' && i + 1 < s.size()) {
        out.push_back(s[i + 1] == 'n' ? '\n' : s[i + 1]);
        ++i;
      } else {
        out.push_back(s[i]);
      }
    }
    return out;
  }

  std::string_view line_;
  std::vector<std::string_view> fields_;
  std::vector<std::size_t> starts_;
};

std::optional<ClockSample> parse_clock(const Fields &f) {
  ClockSample c;
  if (f.number(2, c.local) && f.number(3, c.offset) && f.number(4, c.round_trip)) {
    return c;
  }
  return std::nullopt;
}

std::string read_text(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void parse_line(ProcessFragment &p, std::string_view line, std::size_t line_number) {
  const Fields f(line);
  if (f.size() == 0) {
    return;
  }
  const auto kind = f[0];
  bool ok = true;
  if (kind == "pid") {
    ok = f.number(1, p.pid);
  } else if (kind == "host") {
    p.host = f.rest_from(1);
  } else if (kind == "rank") {
    if (p.rank < 0) { // the first initialisation names the process
      ok = f.number(1, p.rank) && f.number(2, p.size) && f.size() >= 4;
      if (ok) {
        p.paradigm = std::string(f[3]);
      }
    }
  } else if (kind == "begin") {
    ok = f.number(1, p.begin_time);
  } else if (kind == "realtime") {
    ok = f.number(1, p.realtime_local) && f.number(2, p.realtime_ns);
  } else if (kind == "timer") {
    ok = f.size() == 2 && (f[1] == "tsc" || f[1] == "monotonic");
    if (ok) {
      p.timer = std::string(f[1]);
    }
  } else if (kind == "ticks") {
    std::uint64_t tick = 0;
    std::uint64_t ns = 0;
    ok = f.number(1, tick) && f.number(2, ns);
    if (ok) {
      p.tick_anchors.emplace_back(tick, ns);
    }
  } else if (kind == "groups") {
    p.groups = f.rest_from(1);
  } else if (kind == "arg") {
    p.arguments.push_back(f.rest_from(1));
  } else if (kind == "clock") {
    const auto sample = parse_clock(f);
    ok = sample.has_value();
    if (ok && f[1] == "init") {
      p.clock_init = sample;
    } else if (ok && f[1] == "final") {
      p.clock_final = sample;
    }
  } else if (kind == "overhead") {
    std::uint64_t ns = 0;
    ok = f.number(1, ns);
    if (ok) {
      p.overhead_ns = ns;
    }
  } else if (kind == "comm") {
    CommunicatorDefinition c;
    std::size_t count = 0;
    ok = f.number(1, c.local_id) && f.number(2, c.parent) && f.size() >= 6 && f.number(5, count) &&
         f.size() == 6 + count;
    if (ok) {
      c.created_by = std::string(f[3]);
      c.key = std::string(f[4]);
      c.members.resize(count);
      for (std::size_t i = 0; i < count && ok; ++i) {
        ok = f.number(6 + i, c.members[i]);
      }
      if (ok) {
        p.communicators.push_back(std::move(c));
      }
    }
  } else if (kind == "interval") {
    std::int32_t id = 0;
    ok = f.number(1, id);
    if (ok) {
      p.interval_names.emplace(id, f.rest_from(2));
    }
  } else if (kind == "site") {
    std::uint64_t token = 0;
    MarkerSite site;
    ok = f.number(1, token) && f.number(2, site.line);
    if (ok) {
      site.file = f.rest_from(3);
      p.sites.emplace(token, std::move(site));
    }
  } else if (kind == "finalize") {
    std::uint64_t t = 0;
    ok = f.number(1, t);
    if (ok && !p.finalize_time) {
      p.finalize_time = t;
    }
  } else if (kind == "end") {
    ok = f.size() >= 4 && f.number(2, p.end.status) && f.number(3, p.end.time);
    if (ok) {
      p.end.reason = std::string(f[1]);
    }
  } else if (kind == "write-failed") {
    std::uint32_t thread = 0;
    ok = f.number(1, thread);
    if (ok && std::find(p.incomplete_threads.begin(), p.incomplete_threads.end(), thread) ==
                  p.incomplete_threads.end()) {
      p.incomplete_threads.push_back(thread);
    }
  } else if (kind == "thread" || kind == "parjava-fragment") {
    // thread lines name the OS thread ids; the header was checked by the caller
  } else {
    ok = false;
  }
  if (!ok) {
    p.warnings.push_back(p.defs_path.string() + ":" + std::to_string(line_number) +
                         ": unreadable definition line '" + std::string(line.substr(0, 80)) +
                         "' skipped");
  }
}

} // namespace

ProcessFragment read_process_fragment(const std::filesystem::path &defs_path) {
  ProcessFragment p;
  p.defs_path = defs_path;
  const std::string text = read_text(defs_path);
  std::string_view rest(text);
  const auto first_end = rest.find('\n');
  const Fields header(rest.substr(0, first_end));
  std::uint64_t hash = 0;
  int version = 0;
  if (header.size() < 3 || header[0] != "parjava-fragment" || !header.number(1, version) ||
      !header.number(2, hash)) {
    throw trace_error(defs_path.string() + ": not a parjava trace fragment (the first line must be "
                                           "'parjava-fragment <version> <routine table>')");
  }
  if (version != kFragmentVersion || hash != routine_table_hash()) {
    throw trace_error(defs_path.string() +
                      ": written by another version of the parjava tracer "
                      "(format " +
                      std::to_string(version) +
                      "); assemble it with the parjava that traced the program");
  }
  std::size_t line_number = 0;
  while (!rest.empty()) {
    const auto eol = rest.find('\n');
    ++line_number;
    if (eol == std::string_view::npos) {
      // A last line without newline: the process died while writing it.
      p.warnings.push_back(defs_path.string() + ":" + std::to_string(line_number) +
                           ": incomplete last line skipped (the process was killed)");
      break;
    }
    parse_line(p, rest.substr(0, eol), line_number);
    rest.remove_prefix(eol + 1);
  }
  // Sibling files: p<pid>.maps and p<pid>.t<k>.evt.
  const auto dir = defs_path.parent_path();
  const auto stem = defs_path.stem().string(); // p<pid>
  if (const auto maps = dir / (stem + ".maps"); std::filesystem::exists(maps)) {
    p.memory_map = read_text(maps);
  }
  for (std::uint32_t k = 0;; ++k) {
    const auto evt = dir / (stem + ".t" + std::to_string(k) + ".evt");
    if (!std::filesystem::exists(evt)) {
      break;
    }
    p.event_files.push_back(evt);
  }
  return p;
}

std::vector<ProcessFragment> read_fragments(const std::filesystem::path &dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw trace_error(dir.string() + ": no such fragment directory (the traced program wrote "
                                     "nothing: did it start?)");
  }
  std::vector<ProcessFragment> out;
  for (const auto &entry : std::filesystem::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (entry.is_regular_file() && name.size() > 6 && name.front() == 'p' &&
        entry.path().extension() == ".defs") {
      out.push_back(read_process_fragment(entry.path()));
    }
  }
  std::sort(out.begin(), out.end(), [](const ProcessFragment &a, const ProcessFragment &b) {
    return a.rank != b.rank ? a.rank < b.rank : a.pid < b.pid;
  });
  return out;
}

EventFileReader::EventFileReader(const std::filesystem::path &path) : path_(path) {
  file_ = std::fopen(path.c_str(), "rb");
  if (file_ == nullptr) {
    throw trace_error(path.string() + ": cannot open event file: " + std::strerror(errno));
  }
  FragmentHeader header{};
  if (std::fread(&header, sizeof header, 1, file_) != 1 ||
      std::memcmp(header.magic, kEventMagic, sizeof header.magic) != 0 ||
      header.record_size != sizeof(Record)) {
    std::fclose(file_);
    file_ = nullptr;
    throw trace_error(path.string() + ": not a parjava event file (bad header)");
  }
  if (header.routine_hash != routine_table_hash()) {
    std::fclose(file_);
    file_ = nullptr;
    throw trace_error(path.string() + ": written by another version of the parjava tracer");
  }
  thread_ = header.thread;
}

EventFileReader::~EventFileReader() {
  if (file_ != nullptr) {
    std::fclose(file_);
  }
}

bool EventFileReader::next(std::vector<Record> &out, std::size_t max) {
  out.resize(max);
  const std::size_t bytes =
      file_ == nullptr ? 0 : std::fread(out.data(), 1, max * sizeof(Record), file_);
  out.resize(bytes / sizeof(Record));
  // Bytes that do not complete a record can only be the end of a file cut short.
  trailing_ += bytes % sizeof(Record);
  return !out.empty();
}

} // namespace parjava::tracer
