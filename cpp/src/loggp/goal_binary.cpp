#include "parjava/loggp/goal_binary.hpp"

#include <algorithm>
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
// Version 2 (issue 18): 16-byte op records with a shape table and implied dependents.
// Version 1: 32-byte op records and every dependency listed; still read (and converted).
constexpr std::uint32_t kVersion = 2;
constexpr std::uint32_t kVersion1 = 1;

// Both versions start with this header; version 2 follows it with HeaderV2.
struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t num_ranks;
  std::uint64_t num_ops;   // including the sentinel record
  std::uint64_t num_edges; // version 2: explicit dependents only
  std::uint64_t num_rank_offsets;
  std::uint64_t source_length;
  std::uint32_t num_cpus;
  std::uint32_t num_nics;
};
static_assert(sizeof(Header) == 56);

struct HeaderV2 {
  std::uint64_t num_shapes;
  std::uint64_t num_large_counts;
  std::uint64_t num_large_splits;
  std::uint64_t total_edges; // implied ones included
};

// A version-1 op record.
struct OpV1 {
  std::uint64_t size;
  std::uint32_t peer;
  std::uint32_t tag;
  std::uint32_t requires_begin;
  std::uint32_t irequires_begin;
  std::uint32_t dependency_count;
  OpKind kind;
  std::uint8_t cpu;
  std::uint8_t nic;
  std::uint8_t reserved;
};
static_assert(sizeof(OpV1) == 32);

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

bool valid_kind(OpKind kind) noexcept {
  return kind == OpKind::Send || kind == OpKind::Recv || kind == OpKind::Calc;
}

bool valid_peer(OpKind kind, std::uint32_t peer, std::uint32_t num_ranks) noexcept {
  return kind == OpKind::Calc || peer < num_ranks || (kind == OpKind::Recv && peer == kAnySource);
}

// Version 1: validate the old arrays as the old reader did, then rebuild the schedule through
// the builder, adding each prerequisite's dependents in list order so release order is kept.
GoalSchedule convert_version1(std::FILE *file, const Header &h, std::string source,
                              const std::string &path) {
  std::vector<OpId> rank_begin;
  std::vector<OpV1> ops;
  std::vector<OpId> deps;
  std::vector<std::uint64_t> offsets;
  read_array(file, rank_begin, std::uint64_t{h.num_ranks} + 1U, path, "rank table");
  read_array(file, ops, h.num_ops, path, "operations");
  read_array(file, deps, h.num_edges, path, "dependencies");
  read_array(file, offsets, h.num_rank_offsets, path, "rank offsets");
  const auto n = static_cast<std::uint32_t>(h.num_ops - 1U);
  if (rank_begin.front() != 0 || rank_begin.back() != n) {
    corrupt(path, "rank table does not cover the operations");
  }
  for (std::uint32_t r = 0; r < h.num_ranks; ++r) {
    if (rank_begin[r] > rank_begin[r + 1U]) {
      corrupt(path, "rank table is not sorted");
    }
  }
  for (std::uint32_t i = 0; i <= n; ++i) {
    const OpV1 &op = ops[i];
    if (op.requires_begin > op.irequires_begin ||
        (i < n && op.irequires_begin > ops[i + 1U].requires_begin) ||
        op.irequires_begin > h.num_edges || (i == n && op.requires_begin != h.num_edges)) {
      corrupt(path, "dependency lists out of range at op " + std::to_string(i));
    }
  }
  GoalScheduleBuilder builder(h.num_ranks, std::move(source));
  try {
    for (std::uint32_t r = 0; r < h.num_ranks; ++r) {
      builder.begin_rank(r);
      if (!offsets.empty()) {
        builder.set_rank_block_offset(offsets[r]);
      }
      const OpId b = rank_begin[r];
      const OpId e = rank_begin[r + 1U];
      for (OpId i = b; i < e; ++i) {
        const OpV1 &op = ops[i];
        if (!valid_kind(op.kind) || !valid_peer(op.kind, op.peer, h.num_ranks)) {
          corrupt(path,
                  "operation " + std::to_string(i) + " has an invalid kind, peer, cpu or nic");
        }
        if (op.kind == OpKind::Calc) {
          builder.add_calc(op.size, op.cpu);
        } else if (op.kind == OpKind::Send) {
          builder.add_send(op.size, op.peer, op.tag, op.cpu, op.nic);
        } else {
          builder.add_recv(op.size, op.peer, op.tag, op.cpu, op.nic);
        }
      }
      for (OpId i = b; i < e; ++i) {
        for (std::uint32_t k = ops[i].requires_begin; k < ops[i + 1U].requires_begin; ++k) {
          if (deps[k] < b || deps[k] >= e) {
            corrupt(path, "a dependency of operation " + std::to_string(i) + " leaves its rank");
          }
          if (k < ops[i].irequires_begin) {
            builder.add_requires(deps[k] - b, i - b);
          } else {
            builder.add_irequires(deps[k] - b, i - b);
          }
        }
      }
      builder.end_rank();
    }
  } catch (const Error &e) {
    if (e.kind() != ErrorKind::Usage) {
      throw;
    }
    corrupt(path, std::string("format version 1: ") + e.what());
  }
  GoalSchedule s = builder.finish();
  for (std::uint32_t i = 0; i < n; ++i) {
    if (s.dependency_count(i) != ops[i].dependency_count) {
      corrupt(path, "dependency count of operation " + std::to_string(i) + " does not match");
    }
  }
  return s;
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
  HeaderV2 h2{};
  h2.num_shapes = schedule.shapes().size();
  h2.num_large_counts = schedule.large_counts().size();
  h2.num_large_splits = schedule.large_splits().size();
  h2.total_edges = schedule.num_edges();
  bool ok = std::fwrite(&h, sizeof(h), 1, file.get()) == 1;
  ok = ok && std::fwrite(&h2, sizeof(h2), 1, file.get()) == 1;
  write_array(file.get(), schedule.source().data(), schedule.source().size(), ok);
  write_array(file.get(), schedule.rank_begins().data(), schedule.rank_begins().size(), ok);
  write_array(file.get(), schedule.shapes().data(), schedule.shapes().size(), ok);
  write_array(file.get(), schedule.ops().data(), schedule.ops().size(), ok);
  write_array(file.get(), schedule.dependents().data(), schedule.dependents().size(), ok);
  write_array(file.get(), schedule.large_counts().data(), schedule.large_counts().size(), ok);
  write_array(file.get(), schedule.large_splits().data(), schedule.large_splits().size(), ok);
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
  if (h.version != kVersion && h.version != kVersion1) {
    corrupt(path, "format version " + std::to_string(h.version) + ", this parjava reads " +
                      std::to_string(kVersion1) + " and " + std::to_string(kVersion));
  }
  HeaderV2 h2{};
  if (h.version == kVersion && std::fread(&h2, sizeof(h2), 1, file.get()) != 1) {
    corrupt(path, "truncated in the header");
  }
  if (h.num_ranks == 0 || h.num_ops == 0 || h.num_ops > 0xffffffffULL ||
      h.num_edges >= 0xffffffffULL || h.num_cpus == 0 || h.num_cpus > 256 || h.num_nics == 0 ||
      h.num_nics > 256 || (h.num_rank_offsets != 0 && h.num_rank_offsets != h.num_ranks) ||
      h.source_length > (1U << 20U) || h2.num_shapes > h.num_ops ||
      h2.num_large_counts > h.num_ops || h2.num_large_splits > h.num_ops ||
      h2.total_edges >= 0xffffffffULL) {
    corrupt(path, "inconsistent header");
  }
  std::string source(static_cast<std::size_t>(h.source_length), '\0');
  if (h.source_length > 0 &&
      std::fread(source.data(), 1, source.size(), file.get()) != source.size()) {
    corrupt(path, "truncated in the source name");
  }
  if (h.version == kVersion1) {
    return convert_version1(file.get(), h, std::move(source), path);
  }
  GoalSchedule s;
  s.source_ = std::move(source);
  read_array(file.get(), s.rank_begin_, std::uint64_t{h.num_ranks} + 1U, path, "rank table");
  read_array(file.get(), s.shapes_, h2.num_shapes, path, "shapes");
  read_array(file.get(), s.ops_, h.num_ops, path, "operations");
  read_array(file.get(), s.dependents_, h.num_edges, path, "dependencies");
  read_array(file.get(), s.large_counts_, h2.num_large_counts, path, "dependency counts");
  read_array(file.get(), s.large_splits_, h2.num_large_splits, path, "dependency splits");
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
  for (const OpShape &shape : s.shapes_) {
    if (!valid_kind(shape.kind) || shape.cpu >= h.num_cpus || shape.nic >= h.num_nics) {
      corrupt(path, "a shape has an invalid kind, cpu or nic");
    }
  }
  for (const GoalSchedule::Large *table : {&s.large_counts_, &s.large_splits_}) {
    for (std::size_t k = 0; k < table->size(); ++k) {
      if ((*table)[k].first >= n || (k > 0 && (*table)[k].first <= (*table)[k - 1U].first)) {
        corrupt(path, "a table of large dependency counts is out of range or not sorted");
      }
    }
  }
  std::vector<std::uint32_t> incoming(n, 0);
  std::uint32_t rank = 0;
  std::uint64_t total_edges = 0;
  for (std::uint32_t i = 0; i <= n; ++i) {
    const OpRecord &op = s.ops_[i];
    if (i == n) {
      if (op.edges != h.num_edges) {
        corrupt(path, "dependency lists do not end at the last operation");
      }
      break;
    }
    const OpRecord &next = s.ops_[i + 1U];
    if (op.edges > next.edges || next.edges > h.num_edges) {
      corrupt(path, "dependency lists out of range at op " + std::to_string(i));
    }
    while (s.rank_begin_[rank + 1U] <= i) {
      ++rank;
    }
    const OpId end = s.rank_begin_[rank + 1U];
    if (op.shape >= s.shapes_.size() ||
        !valid_peer(s.shapes_[op.shape].kind, op.peer, h.num_ranks)) {
      corrupt(path, "operation " + std::to_string(i) + " has an invalid kind, peer, cpu or nic");
    }
    const std::uint32_t at = op.requires_at();
    const std::uint32_t run = op.requires_run();
    const std::uint32_t iat = op.irequires_at();
    const std::uint32_t split = s.split(i);
    const bool many_split = op.split() == OpRecord::kManySplit;
    const bool many_count = op.dependencies() == OpRecord::kManyDependencies;
    if ((at == 0) != (run == 0) || (run != 0 && std::uint64_t{i} + at + run > end) ||
        (iat != 0 && std::uint64_t{i} + iat >= end) || split > next.edges - op.edges ||
        (many_split && split < OpRecord::kManySplit) ||
        (many_count && s.dependency_count(i) < OpRecord::kManyDependencies)) {
      corrupt(path, "implied dependencies of operation " + std::to_string(i) + " out of range");
    }
    for (std::uint32_t k = 0; k < run; ++k) {
      ++incoming[i + at + k];
    }
    if (iat != 0) {
      ++incoming[i + iat];
    }
    for (std::uint32_t e = op.edges; e < next.edges; ++e) {
      const OpId d = s.dependents_[e];
      if (d < s.rank_begin_[rank] || d >= end || d == i) {
        corrupt(path, "a dependency of operation " + std::to_string(i) + " leaves its rank");
      }
      ++incoming[d];
    }
    total_edges += run + (iat != 0 ? 1U : 0U) + (next.edges - op.edges);
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    if (incoming[i] != s.dependency_count(i)) {
      corrupt(path, "dependency count of operation " + std::to_string(i) + " does not match");
    }
    s.max_dependencies_ = std::max(s.max_dependencies_, incoming[i]);
  }
  if (total_edges != h2.total_edges) {
    corrupt(path, "the number of dependencies does not match the header");
  }
  s.num_edges_ = total_edges;
  return s;
}

} // namespace parjava::loggp
