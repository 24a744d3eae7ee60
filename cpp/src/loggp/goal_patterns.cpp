#include "parjava/loggp/goal_patterns.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "parjava/error.hpp"

namespace parjava::loggp {

namespace {

constexpr std::uint32_t kNoOp = 0xffffffffU;

[[noreturn]] void usage(const std::string &message) { throw Error(ErrorKind::Usage, message); }

std::uint32_t ceil_log2(std::uint32_t n) {
  std::uint32_t k = 0;
  while ((std::uint64_t{1} << k) < n) {
    ++k;
  }
  return k;
}

// Builds one rank of a pattern; remembers the last recv for chaining.
class RankWriter {
public:
  RankWriter(GoalScheduleBuilder &b, const PatternOptions &o) : b_(b), o_(o) {}

  std::uint32_t send(std::uint64_t bytes, std::uint32_t dest) { return b_.add_send(bytes, dest); }
  std::uint32_t recv(std::uint64_t bytes, std::uint32_t src) {
    const std::uint32_t id = b_.add_recv(bytes, src);
    if (o_.chain_receives && last_recv_ != kNoOp) {
      b_.add_irequires(id, last_recv_);
    }
    last_recv_ = id;
    return id;
  }
  // The op a following send must wait for after `recv`: the recv, or the reduction calc.
  std::uint32_t reduce_after(std::uint32_t recv) {
    if (o_.compute == 0) {
      return recv;
    }
    const std::uint32_t calc = b_.add_calc(o_.compute);
    b_.add_requires(calc, recv);
    return calc;
  }
  void requires_op(std::uint32_t dependent, std::uint32_t prerequisite) {
    if (dependent != kNoOp && prerequisite != kNoOp) {
      b_.add_requires(dependent, prerequisite);
    }
  }
  std::uint32_t calc(std::uint64_t ns) { return b_.add_calc(ns); }
  void reset() { last_recv_ = kNoOp; }

private:
  GoalScheduleBuilder &b_;
  const PatternOptions &o_;
  std::uint32_t last_recv_ = kNoOp;
};

using RankFunction = std::function<void(RankWriter &, std::uint32_t rank)>;

GoalSchedule build(const std::string &name, const PatternOptions &o, std::uint64_t ops_per_rank,
                   const RankFunction &rank_ops) {
  GoalScheduleBuilder builder(o.ranks, "pattern " + name + " ranks=" + std::to_string(o.ranks) +
                                           " bytes=" + std::to_string(o.bytes));
  builder.reserve(ops_per_rank * o.ranks, ops_per_rank * o.ranks * 2U);
  RankWriter writer(builder, o);
  for (std::uint32_t r = 0; r < o.ranks; ++r) {
    builder.begin_rank(r);
    writer.reset();
    rank_ops(writer, r);
    builder.end_rank();
  }
  return builder.finish();
}

std::uint32_t vrank_of(std::uint32_t rank, const PatternOptions &o) {
  return (rank + o.ranks - o.root) % o.ranks;
}
std::uint32_t rank_of(std::uint32_t vrank, const PatternOptions &o) {
  return (vrank + o.root) % o.ranks;
}

GoalSchedule binomial_tree_bcast(const PatternOptions &o) {
  const std::uint32_t rounds = ceil_log2(o.ranks);
  return build("binomial_tree_bcast", o, 2, [&](RankWriter &w, std::uint32_t rank) {
    const std::uint32_t v = vrank_of(rank, o);
    std::uint32_t recv = kNoOp;
    for (std::uint32_t r = 0; r < rounds; ++r) {
      const std::uint64_t dist = std::uint64_t{1} << r;
      if (v < dist && v + dist < o.ranks) {
        const std::uint32_t send =
            w.send(o.bytes, rank_of(static_cast<std::uint32_t>(v + dist), o));
        w.requires_op(send, recv); // forward only what was received
      }
      if (v >= dist && v < 2U * dist) {
        recv = w.recv(o.bytes, rank_of(static_cast<std::uint32_t>(v - dist), o));
      }
    }
  });
}

GoalSchedule binomial_tree_reduce(const PatternOptions &o) {
  const std::uint32_t rounds = ceil_log2(o.ranks);
  return build("binomial_tree_reduce", o, 2, [&](RankWriter &w, std::uint32_t rank) {
    const std::uint32_t v = vrank_of(rank, o);
    std::uint32_t send = kNoOp;
    std::vector<std::uint32_t> recvs;
    for (std::uint32_t r = 0; r < rounds; ++r) {
      const std::uint64_t dist = std::uint64_t{1} << r;
      if (v < dist && v + dist < o.ranks) {
        recvs.push_back(
            w.reduce_after(w.recv(o.bytes, rank_of(static_cast<std::uint32_t>(v + dist), o))));
        w.requires_op(send, recvs.back()); // (Schedgen writes the send before later recvs)
      }
      if (v >= dist && v < 2U * dist) {
        send = w.send(o.bytes, rank_of(static_cast<std::uint32_t>(v - dist), o));
        for (const std::uint32_t recv : recvs) {
          w.requires_op(send, recv);
        }
      }
    }
  });
}

GoalSchedule dissemination(const PatternOptions &o) {
  return build("dissemination", o, 2ULL * ceil_log2(o.ranks), [&](RankWriter &w, std::uint32_t r) {
    std::uint32_t previous = kNoOp;
    for (std::uint64_t dist = 1; dist < o.ranks; dist <<= 1U) {
      const std::uint32_t send = w.send(o.bytes, static_cast<std::uint32_t>((r + dist) % o.ranks));
      w.requires_op(send, previous);
      previous = w.reduce_after(
          w.recv(o.bytes, static_cast<std::uint32_t>((r + o.ranks - dist % o.ranks) % o.ranks)));
    }
  });
}

GoalSchedule allreduce_recursive_doubling(const PatternOptions &o) {
  if ((o.ranks & (o.ranks - 1U)) != 0) {
    usage("allreduce_recursive_doubling needs a power-of-two number of ranks, got " +
          std::to_string(o.ranks));
  }
  const std::uint32_t steps = ceil_log2(o.ranks);
  return build("allreduce_recursive_doubling", o, 4ULL * steps,
               [&](RankWriter &w, std::uint32_t r) {
                 std::uint64_t bytes = o.bytes;
                 std::uint32_t previous = kNoOp;
                 for (std::uint32_t s = 0; s < steps; ++s) { // reduce-scatter, halving
                   bytes /= 2U;
                   const std::uint32_t peer = r ^ (1U << s);
                   const std::uint32_t send = w.send(bytes, peer);
                   w.requires_op(send, previous);
                   previous = w.reduce_after(w.recv(bytes, peer));
                 }
                 for (std::uint32_t s = steps; s-- > 0;) { // allgather, doubling
                   const std::uint32_t peer = r ^ (1U << s);
                   const std::uint32_t send = w.send(bytes, peer);
                   w.requires_op(send, previous);
                   previous = w.recv(bytes, peer);
                   bytes *= 2U;
                 }
               });
}

GoalSchedule allreduce_ring(const PatternOptions &o) {
  const std::uint64_t chunk = o.bytes / o.ranks;
  return build("allreduce_ring", o, 4ULL * o.ranks, [&](RankWriter &w, std::uint32_t r) {
    const std::uint32_t next = (r + 1U) % o.ranks;
    const std::uint32_t prev = (r + o.ranks - 1U) % o.ranks;
    std::uint32_t previous = kNoOp;
    for (std::uint32_t phase = 0; phase < 2; ++phase) {
      for (std::uint32_t step = 0; step + 1U < o.ranks; ++step) {
        const std::uint32_t send = w.send(chunk, next);
        w.requires_op(send, previous);
        const std::uint32_t recv = w.recv(chunk, prev);
        previous = phase == 0 ? w.reduce_after(recv) : recv;
      }
    }
  });
}

GoalSchedule linear_alltoall(const PatternOptions &o) {
  return build("linear_alltoall", o, 2ULL * o.ranks, [&](RankWriter &w, std::uint32_t r) {
    for (std::uint32_t step = 1; step < o.ranks; ++step) {
      w.send(o.bytes, (r + step) % o.ranks);
      w.recv(o.bytes, (r + o.ranks - step) % o.ranks);
    }
  });
}

GoalSchedule pipelined_ring(const PatternOptions &o) {
  if (o.segment == 0) {
    usage("pipelined_ring needs a segment size of at least 1 byte");
  }
  const std::uint64_t rounds = std::max<std::uint64_t>(1, (o.bytes + o.segment - 1U) / o.segment);
  return build("pipelined_ring", o, 2U * rounds, [&](RankWriter &w, std::uint32_t rank) {
    const std::uint32_t v = vrank_of(rank, o);
    for (std::uint64_t round = 0; round < rounds; ++round) {
      const std::uint64_t bytes =
          round + 1U == rounds ? o.bytes - o.segment * (rounds - 1U) : o.segment;
      std::uint32_t recv = kNoOp;
      if (v > 0) {
        recv = w.recv(bytes, rank_of(v - 1U, o));
      }
      if (v + 1U < o.ranks) {
        const std::uint32_t send = w.send(bytes, rank_of(v + 1U, o));
        w.requires_op(send, recv);
      }
    }
  });
}

GoalSchedule gather(const PatternOptions &o) {
  return build("gather", o, 1, [&](RankWriter &w, std::uint32_t rank) {
    if (rank == o.root) {
      for (std::uint32_t v = 1; v < o.ranks; ++v) {
        w.recv(o.bytes, rank_of(v, o));
      }
    } else {
      w.send(o.bytes, o.root);
    }
  });
}

GoalSchedule scatter(const PatternOptions &o) {
  return build("scatter", o, 1, [&](RankWriter &w, std::uint32_t rank) {
    if (rank == o.root) {
      for (std::uint32_t v = 1; v < o.ranks; ++v) {
        w.send(o.bytes, rank_of(v, o));
      }
    } else {
      w.recv(o.bytes, o.root);
    }
  });
}

GoalSchedule linear_barrier(const PatternOptions &o) {
  return build("linear_barrier", o, 2, [&](RankWriter &w, std::uint32_t rank) {
    if (rank == o.root) {
      // One empty calc joins all recvs to all sends (n + n dependencies instead of n * n).
      const std::uint32_t join = w.calc(0);
      for (std::uint32_t v = 1; v < o.ranks; ++v) {
        const std::uint32_t recv = w.recv(o.bytes, rank_of(v, o));
        const std::uint32_t send = w.send(o.bytes, rank_of(v, o));
        w.requires_op(join, recv);
        w.requires_op(send, join);
      }
    } else {
      w.send(o.bytes, o.root);
      w.recv(o.bytes, o.root);
    }
  });
}

struct PatternEntry {
  const char *name;
  GoalSchedule (*make)(const PatternOptions &);
};

constexpr PatternEntry kPatterns[] = {
    {"binomial_tree_bcast", binomial_tree_bcast},
    {"binomial_tree_reduce", binomial_tree_reduce},
    {"dissemination", dissemination},
    {"allreduce_recursive_doubling", allreduce_recursive_doubling},
    {"allreduce_ring", allreduce_ring},
    {"linear_alltoall", linear_alltoall},
    {"pipelined_ring", pipelined_ring},
    {"gather", gather},
    {"scatter", scatter},
    {"linear_barrier", linear_barrier},
};

} // namespace

GoalSchedule generate_pattern(std::string_view name, const PatternOptions &options) {
  if (options.ranks == 0) {
    usage("a pattern needs at least one rank");
  }
  if (options.root >= options.ranks) {
    usage("root " + std::to_string(options.root) + " is not a rank (0.." +
          std::to_string(options.ranks - 1U) + ")");
  }
  for (const PatternEntry &p : kPatterns) {
    if (name == p.name) {
      return p.make(options);
    }
  }
  std::string known;
  for (const PatternEntry &p : kPatterns) {
    known += known.empty() ? "" : ", ";
    known += p.name;
  }
  usage("unknown pattern '" + std::string(name) + "'; known patterns: " + known);
}

std::vector<std::string> pattern_names() {
  std::vector<std::string> names;
  for (const PatternEntry &p : kPatterns) {
    names.emplace_back(p.name);
  }
  return names;
}

} // namespace parjava::loggp
