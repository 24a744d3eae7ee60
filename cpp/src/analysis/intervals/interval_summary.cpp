// Integrate: the formulas of notes 004 §8.2 and notes 002 §S.2 (see interval_summary.hpp).
//   Exec = max_p T_p (F1) — or Σ_k max_p T_p,k with ExecutionTimeBasis::PerExecution
//   Total = Exec · P (F2); Efficiency = Productive / Total (F3), 1 when Total = 0 (§S.2)
//   Idle_p = Exec − T_p (F5); LoadImbalance_p = max_q L_q − L_p (F6)
//   InsufficientParallelism_p = SequentialCpu_p · (P − 1)/P (notes 002 §8 formula 5), as
//   SequentialCpu_p − ⌊SequentialCpu_p / P⌋ in integer nanoseconds
//   Productive_p = Cpu_p − InsufficientParallelism_p (+ Mpi_p* in mode B) (§S.2)
//   Lost_p = InsufficientParallelism_p + Mpi_p + Idle_p (− Mpi_p* in mode B) (F7), so that
//   Lost = Total − Productive (F4) and, in mode A, Lost = Σ MPI + Σ Idle as in the example.
#include "interval_summary.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace parjava::analysis::detail {
namespace {

using C = Characteristic;

std::int64_t &at(CharacteristicRow &row, C c) { return row[index_of(c)]; }

// Σ_k max_p T_p,k per node, aligning the k-th execution of each process.
std::vector<std::int64_t> per_execution_times(const IntervalTree &tree) {
  const auto n = tree.nodes.size();
  std::vector<std::vector<std::int64_t>> longest(n);
  std::vector<std::uint32_t> current_process(n, kNoNode);
  std::vector<std::size_t> k(n, 0);
  for (const auto &x : tree.executions) {
    if (current_process[x.node] != x.process) {
      current_process[x.node] = x.process;
      k[x.node] = 0;
    }
    auto &l = longest[x.node];
    const auto kk = k[x.node]++;
    if (l.size() <= kk) {
      l.resize(kk + 1, 0);
    }
    l[kk] = std::max<std::int64_t>(l[kk], x.end - x.begin);
  }
  std::vector<std::int64_t> result(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (const auto v : longest[i]) {
      result[i] += v;
    }
  }
  return result;
}

void finish_additive(IntervalNode &node, const IntervalOptions &options) {
  for (auto &row : node.values) {
    if (options.sendrecv == SendRecvTime::CallTime) {
      at(row, C::SendRecv) = at(row, C::PointToPoint);
    }
    at(row, C::Communication) =
        at(row, C::SendRecv) + at(row, C::Collective) + at(row, C::AllToAll);
  }
}

void derive(IntervalNode &node, const IntervalOptions &options, std::size_t all_processes,
            std::int64_t per_execution_exec) {
  const auto n = node.values.size();
  auto &s = node.summary;
  s = IntervalSummary{};
  s.processes = static_cast<std::uint32_t>(n);
  if (n == 0) {
    return;
  }
  std::int64_t exec = 0;
  std::int64_t max_load = 0;
  std::size_t least_mpi = 0;
  for (std::size_t p = 0; p < n; ++p) {
    auto &row = node.values[p];
    // Of the work every process repeats, one copy in P is productive.
    const auto sequential = at(row, C::SequentialCpu);
    at(row, C::InsufficientParallelism) =
        sequential -
        sequential / static_cast<std::int64_t>(std::max<std::size_t>(all_processes, 1));
    exec = std::max(exec, at(row, C::Time));
    const auto load =
        options.load == LoadBasis::UserCode ? at(row, C::Cpu) : at(row, C::Cpu) + at(row, C::Mpi);
    max_load = std::max(max_load, load);
    if (at(row, C::Mpi) < at(node.values[least_mpi], C::Mpi)) {
      least_mpi = p;
    }
  }
  if (options.execution == ExecutionTimeBasis::PerExecution) {
    exec = per_execution_exec;
  }
  const bool mode_b = options.productive == ProductiveTime::UserCodeOneMpi;
  for (std::size_t p = 0; p < n; ++p) {
    auto &row = node.values[p];
    const auto load =
        options.load == LoadBasis::UserCode ? at(row, C::Cpu) : at(row, C::Cpu) + at(row, C::Mpi);
    at(row, C::Idle) = exec - at(row, C::Time);
    at(row, C::LoadImbalance) = max_load - load;
    const auto productive_mpi = mode_b && p == least_mpi ? at(row, C::Mpi) : 0;
    at(row, C::Productive) = at(row, C::Cpu) - at(row, C::InsufficientParallelism) + productive_mpi;
    at(row, C::Lost) =
        at(row, C::InsufficientParallelism) + at(row, C::Mpi) + at(row, C::Idle) - productive_mpi;
  }

  for (std::size_t c = 0; c < kCharacteristicCount; ++c) {
    auto &cmp = s.characteristics[c];
    cmp.min = cmp.max = node.values[0][c];
    cmp.min_process = cmp.max_process = node.processes[0];
    for (std::size_t p = 0; p < n; ++p) {
      const auto v = node.values[p][c];
      cmp.sum += v;
      if (v < cmp.min) {
        cmp.min = v;
        cmp.min_process = node.processes[p];
      }
      if (v > cmp.max) {
        cmp.max = v;
        cmp.max_process = node.processes[p];
      }
    }
    cmp.mean = static_cast<double>(cmp.sum) / static_cast<double>(n);
  }

  s.execution_time = exec;
  s.total_time = exec * static_cast<std::int64_t>(n);
  s.least_mpi_process = node.processes[least_mpi];
  s.productive_mpi = mode_b ? at(node.values[least_mpi], C::Mpi) : 0;
  s.productive_time = s[C::Productive].sum;
  s.productive_cpu = s.productive_time - s.productive_mpi;
  s.lost_time = s.total_time - s.productive_time;
  s.lost_insufficient = s[C::InsufficientParallelism].sum;
  s.lost_mpi = s[C::Mpi].sum - s.productive_mpi;
  s.lost_idle = s[C::Idle].sum;
  s.efficiency = s.total_time == 0
                     ? 1.0
                     : static_cast<double>(s.productive_time) / static_cast<double>(s.total_time);
  node.exe_count = *std::max_element(node.executions.begin(), node.executions.end());
}

// exclusive = inclusive − Σ children (additive columns). A child only runs inside executions
// of its parent on the same process, so its processes are a subset of the parent's.
void exclusive_part(IntervalTree &tree, IntervalNode &node) {
  node.exclusive.assign(node.values.size(), CharacteristicRow{});
  for (std::size_t p = 0; p < node.values.size(); ++p) {
    std::copy_n(node.values[p].begin(), kAdditiveCount, node.exclusive[p].begin());
  }
  for (const auto c : node.children) {
    const auto &child = tree.nodes[c];
    for (std::size_t q = 0; q < child.processes.size(); ++q) {
      const auto it =
          std::lower_bound(node.processes.begin(), node.processes.end(), child.processes[q]);
      const auto p = static_cast<std::size_t>(it - node.processes.begin());
      for (std::size_t k = 0; k < kAdditiveCount; ++k) {
        node.exclusive[p][k] -= child.values[q][k];
      }
    }
  }
}

} // namespace

void summarize(IntervalTree &tree) {
  const auto &options = tree.options;
  std::vector<std::int64_t> per_execution;
  if (options.execution == ExecutionTimeBasis::PerExecution) {
    per_execution = per_execution_times(tree);
  }
  for (auto &node : tree.nodes) {
    finish_additive(node, options);
  }
  for (auto &node : tree.nodes) {
    derive(node, options, tree.processes.size(),
           per_execution.empty() ? 0 : per_execution[node.id]);
    exclusive_part(tree, node);
  }
}

} // namespace parjava::analysis::detail
