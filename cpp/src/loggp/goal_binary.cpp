#include "parjava/loggp/goal_binary.hpp"

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "parjava/error.hpp"

namespace parjava::loggp {

namespace {

static_assert(std::endian::native == std::endian::little,
              "the .pjgoal format is little-endian; add byte swapping for this platform");

constexpr char kMagic[8] = {'P', 'J', 'G', 'O', 'A', 'L', '\x1a', '\x01'};
constexpr std::uint32_t kVersion = 1;

struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t num_ranks;
  std::uint64_t num_ops; // including the sentinel record
  std::uint64_t num_edges;
  std::uint64_t num_rank_offsets;
  std::uint64_t source_length;
  std::uint32_t num_cpus;
  std::uint32_t num_nics;
};

struct FileCloser {
  void operator()(std::FILE *f) const noexcept { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

[[noreturn]] void corrupt(const std::string &path, const std::string &what) {
  throw Error(ErrorKind::Model, path + ": not a valid parjava binary schedule (" + what +
                                    "); write it again with write_goal_binary / "
                                    "Schedule.save(..., format='binary')");
}

template <class T> void write_array(std::FILE *f, const T *data, std::size_t n, bool &ok) {
  if (n > 0) {
    ok = ok && std::fwrite(data, sizeof(T), n, f) == n;
  }
}

template <class T, class A>
void read_array(std::FILE *f, std::vector<T, A> &out, std::uint64_t n, const std::string &path,
                const char *what) {
  out.resize(static_cast<std::size_t>(n));
  if (n > 0 && std::fread(out.data(), sizeof(T), out.size(), f) != out.size()) {
    corrupt(path, std::string("truncated in ") + what);
  }
}

} // namespace

void write_goal_binary(const GoalSchedule &schedule, const std::string &path) {
  const File file(std::fopen(path.c_str(), "wb"));
  if (!file) {
    throw Error(ErrorKind::Usage, "cannot write " + path + ": " + std::strerror(errno));
  }
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kVersion;
  h.num_ranks = schedule.num_ranks();
  h.num_ops = schedule.ops().size();
  h.num_edges = schedule.dependents().size();
  h.num_rank_offsets = schedule.rank_block_offsets().size();
  h.source_length = schedule.source().size();
  h.num_cpus = schedule.num_cpus();
  h.num_nics = schedule.num_nics();
  bool ok = std::fwrite(&h, sizeof(h), 1, file.get()) == 1;
  write_array(file.get(), schedule.source().data(), schedule.source().size(), ok);
  write_array(file.get(), schedule.rank_begins().data(), schedule.rank_begins().size(), ok);
  write_array(file.get(), schedule.ops().data(), schedule.ops().size(), ok);
  write_array(file.get(), schedule.dependents().data(), schedule.dependents().size(), ok);
  write_array(file.get(), schedule.rank_block_offsets().data(),
              schedule.rank_block_offsets().size(), ok);
  if (!ok || std::fflush(file.get()) != 0) {
    throw Error(ErrorKind::Usage, "writing " + path + " failed: " + std::strerror(errno));
  }
}

bool is_goal_binary(const std::string &path) {
  const File file(std::fopen(path.c_str(), "rb"));
  char magic[sizeof(kMagic)] = {};
  return file && std::fread(magic, 1, sizeof(magic), file.get()) == sizeof(magic) &&
         std::memcmp(magic, kMagic, sizeof(kMagic)) == 0;
}

GoalSchedule read_goal_binary(const std::string &path) {
  const File file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    throw Error(ErrorKind::Model, "cannot open " + path + ": " + std::strerror(errno));
  }
  Header h{};
  if (std::fread(&h, sizeof(h), 1, file.get()) != 1 ||
      std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0) {
    corrupt(path, "missing magic bytes");
  }
  if (h.version != kVersion) {
    corrupt(path, "format version " + std::to_string(h.version) + ", this parjava reads " +
                      std::to_string(kVersion));
  }
  if (h.num_ranks == 0 || h.num_ops == 0 || h.num_ops > 0xffffffffULL ||
      h.num_edges >= 0xffffffffULL || h.num_cpus == 0 || h.num_cpus > 256 || h.num_nics == 0 ||
      h.num_nics > 256 || (h.num_rank_offsets != 0 && h.num_rank_offsets != h.num_ranks) ||
      h.source_length > (1U << 20U)) {
    corrupt(path, "inconsistent header");
  }
  GoalSchedule s;
  s.source_.resize(static_cast<std::size_t>(h.source_length));
  if (h.source_length > 0 &&
      std::fread(s.source_.data(), 1, s.source_.size(), file.get()) != s.source_.size()) {
    corrupt(path, "truncated in the source name");
  }
  read_array(file.get(), s.rank_begin_, std::uint64_t{h.num_ranks} + 1U, path, "rank table");
  read_array(file.get(), s.ops_, h.num_ops, path, "operations");
  read_array(file.get(), s.dependents_, h.num_edges, path, "dependencies");
  read_array(file.get(), s.rank_block_offsets_, h.num_rank_offsets, path, "rank offsets");
  s.num_cpus_ = h.num_cpus;
  s.num_nics_ = h.num_nics;

  // Validate everything the simulator relies on, so a damaged file cannot crash it.
  const auto n = static_cast<std::uint32_t>(h.num_ops - 1U);
  if (s.rank_begin_.front() != 0 || s.rank_begin_.back() != n) {
    corrupt(path, "rank table does not cover the operations");
  }
  for (std::uint32_t r = 0; r < h.num_ranks; ++r) {
    if (s.rank_begin_[r] > s.rank_begin_[r + 1U]) {
      corrupt(path, "rank table is not sorted");
    }
  }
  std::vector<std::uint32_t> incoming(n, 0);
  std::uint32_t rank = 0;
  for (std::uint32_t i = 0; i <= n; ++i) {
    const GoalOp &op = s.ops_[i];
    const GoalOp *next = i < n ? &s.ops_[i + 1U] : nullptr;
    if (op.requires_begin > op.irequires_begin ||
        (next != nullptr && op.irequires_begin > next->requires_begin) ||
        op.irequires_begin > h.num_edges) {
      corrupt(path, "dependency lists out of range at op " + std::to_string(i));
    }
    if (i == n) {
      if (op.requires_begin != h.num_edges) {
        corrupt(path, "dependency lists do not end at the last operation");
      }
      break;
    }
    while (s.rank_begin_[rank + 1U] <= i) {
      ++rank;
    }
    const bool kind_ok =
        op.kind == OpKind::Send || op.kind == OpKind::Recv || op.kind == OpKind::Calc;
    const bool peer_ok = op.kind == OpKind::Calc || op.peer < h.num_ranks ||
                         (op.kind == OpKind::Recv && op.peer == kAnySource);
    if (!kind_ok || !peer_ok || op.cpu >= h.num_cpus || op.nic >= h.num_nics) {
      corrupt(path, "operation " + std::to_string(i) + " has an invalid kind, peer, cpu or nic");
    }
    for (std::uint32_t e = op.requires_begin; e < next->requires_begin; ++e) {
      const OpId d = s.dependents_[e];
      if (d < s.rank_begin_[rank] || d >= s.rank_begin_[rank + 1U]) {
        corrupt(path, "a dependency of operation " + std::to_string(i) + " leaves its rank");
      }
      ++incoming[d];
    }
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    if (incoming[i] != s.ops_[i].dependency_count) {
      corrupt(path, "dependency count of operation " + std::to_string(i) + " does not match");
    }
  }
  return s;
}

} // namespace parjava::loggp
