// Before the walk (sequence_builder_class.hpp): which management calls synchronise every rank,
// and each collective instance's payload in the sense of the engine's operations.
#include <algorithm>
#include <limits>
#include <otf2/OTF2_Events.h>

#include "sequence_builder_class.hpp"

namespace parjava::analysis {

std::optional<Operation> collective_operation(trace::CollectiveOp op) {
  switch (op) {
  case OTF2_COLLECTIVE_OP_BARRIER:
    return Operation::Barrier;
  case OTF2_COLLECTIVE_OP_BCAST:
    return Operation::Bcast;
  case OTF2_COLLECTIVE_OP_GATHER:
    return Operation::Gather;
  case OTF2_COLLECTIVE_OP_GATHERV:
    return Operation::Gatherv;
  case OTF2_COLLECTIVE_OP_SCATTER:
    return Operation::Scatter;
  case OTF2_COLLECTIVE_OP_SCATTERV:
    return Operation::Scatterv;
  case OTF2_COLLECTIVE_OP_ALLGATHER:
    return Operation::Allgather;
  case OTF2_COLLECTIVE_OP_ALLGATHERV:
    return Operation::Allgatherv;
  case OTF2_COLLECTIVE_OP_ALLTOALL:
    return Operation::Alltoall;
  case OTF2_COLLECTIVE_OP_ALLTOALLV:
  case OTF2_COLLECTIVE_OP_ALLTOALLW:
    return Operation::Alltoallv;
  case OTF2_COLLECTIVE_OP_ALLREDUCE:
    return Operation::Allreduce;
  case OTF2_COLLECTIVE_OP_REDUCE:
    return Operation::Reduce;
  case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
  case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
    return Operation::ReduceScatter;
  case OTF2_COLLECTIVE_OP_SCAN:
    return Operation::Scan;
  case OTF2_COLLECTIVE_OP_EXSCAN:
    return Operation::Exscan;
  default:
    return std::nullopt;
  }
}

bool synchronising_management(Function f) {
  return f == Function::MPI_Init || f == Function::MPI_Init_thread || f == Function::MPI_Finalize ||
         f == Function::MPI_Comm_split || f == Function::MPI_Comm_dup ||
         f == Function::MPI_Comm_create || f == Function::MPI_Cart_create;
}

// ---- survey: synchronising management calls, collective sizes ----------------------------
void SequenceBuilder::survey() {
  const auto np = main_.size();
  std::vector<std::vector<std::uint32_t>> counts(static_cast<std::size_t>(Function::Count_),
                                                 std::vector<std::uint32_t>(np, 0));
  for (std::size_t r = 0; r < np; ++r) {
    const auto l = main_[r];
    std::uint32_t depth = 0;
    for (EventIndex e = t_.location_begin(l); e < t_.location_end(l); ++e) {
      const auto i = static_cast<std::size_t>(e);
      const EventKind k = ev_.kind[i];
      if (k == EventKind::Enter && is_runtime_call(ev_.region[i])) {
        if (depth++ == 0) {
          const Function f = function_of(ev_.region[i]);
          if (synchronising_management(f)) {
            ++counts[static_cast<std::size_t>(f)][r];
            sync_enters_[static_cast<std::size_t>(f)].push_back(ev_.time[i]);
          }
        }
      } else if (k == EventKind::Leave && depth > 0 && is_runtime_call(ev_.region[i])) {
        --depth;
      }
    }
  }
  // A management call is a barrier when every rank made it equally often; its k-th
  // reference time is the latest entry of the k-th call over the ranks.
  for (auto &[f, enters] : sync_enters_) {
    const auto &c = counts[f];
    if (std::adjacent_find(c.begin(), c.end(), std::not_equal_to<>()) != c.end() || c[0] == 0) {
      enters.clear();
      continue;
    }
    const std::uint32_t n = c[0];
    std::vector<Timestamp> latest(n, std::numeric_limits<Timestamp>::min());
    for (std::size_t r = 0; r < np; ++r) {
      for (std::uint32_t k = 0; k < n; ++k) {
        latest[k] = std::max(latest[k], enters[r * n + k]);
      }
    }
    enters = std::move(latest);
  }
  // Collective payloads, per instance, in the sense of the engine's operations.
  instance_bytes_.assign(t_.collectives.size(), 0);
  instance_complete_.assign(t_.collectives.size(), 0);
  for (std::size_t c = 0; c < t_.collectives.size(); ++c) {
    instance_bytes_[c] = collective_bytes(t_.collectives[c]);
    instance_complete_[c] = t_.collectives[c].member_count == t_.collectives[c].expected &&
                            t_.collectives[c].member_count > 0;
  }
}

std::uint64_t SequenceBuilder::collective_bytes(const trace::CollectiveInstance &inst) const {
  const auto op = collective_operation(inst.op);
  if (!op) {
    return 0;
  }
  std::uint64_t max_sent = 0, max_received = 0, sum_sent = 0, sum_received = 0;
  std::uint64_t nonroot_sent = 0, nonroot_received = 0, nonroot = 0;
  std::uint64_t nonroot_sum_sent = 0, nonroot_sum_received = 0;
  for (std::uint32_t m = 0; m < inst.member_count; ++m) {
    const auto e = static_cast<std::size_t>(t_.collective_members[inst.first_member + m]);
    const std::uint64_t sent = ev_.bytes[e];
    const std::uint64_t received = ev_.aux[e];
    max_sent = std::max(max_sent, sent);
    max_received = std::max(max_received, received);
    sum_sent += sent;
    sum_received += received;
    const auto rank = t_.locations[ev_.location[e]].rank;
    if (rank != inst.root) {
      ++nonroot;
      nonroot_sent = std::max(nonroot_sent, sent);
      nonroot_received = std::max(nonroot_received, received);
      nonroot_sum_sent += sent;
      nonroot_sum_received += received;
    }
  }
  const std::uint64_t n = std::max<std::uint64_t>(1, inst.member_count);
  const auto mean = [](std::uint64_t sum, std::uint64_t count) {
    return count == 0 ? std::uint64_t{0} : (sum + count / 2) / count;
  };
  switch (*op) {
  case Operation::Barrier:
    return 0;
  case Operation::Bcast:
    return nonroot > 0 ? nonroot_received : max_sent;
  case Operation::Reduce:
  case Operation::Gather:
    return nonroot > 0 ? nonroot_sent : max_sent;
  case Operation::Gatherv:
    return nonroot > 0 ? mean(nonroot_sum_sent, nonroot) : max_sent;
  case Operation::Scatter:
    return nonroot > 0 ? nonroot_received : max_received;
  case Operation::Scatterv:
    return nonroot > 0 ? mean(nonroot_sum_received, nonroot) : max_received;
  case Operation::Allgatherv:
    return mean(sum_sent, n);
  case Operation::Alltoall:
    return max_sent / n;
  case Operation::Alltoallv:
    return mean(sum_sent, n) / n;
  case Operation::ReduceScatter:
    return mean(sum_received, n);
  default: // Allgather, Allreduce, Scan, Exscan: what each member sends
    return max_sent;
  }
}

} // namespace parjava::analysis
