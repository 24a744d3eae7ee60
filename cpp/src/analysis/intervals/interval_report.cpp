// Text report (see interval_report.hpp). Column widths follow the sample of notes 004 §6.1:
// labels of the main characteristics are 29 characters wide; the comparative table has a
// 17-character label, 10-character values and 7-character process columns.
#include "parjava/analysis/intervals/interval_report.hpp"

#include <cstdio>
#include <string>

namespace parjava::analysis {
namespace {

using C = Characteristic;

std::string seconds(std::int64_t ns) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", static_cast<double>(ns) * 1e-9);
  return buf;
}

std::string seconds(double ns) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", ns * 1e-9);
  return buf;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) {
    s.append(width - s.size(), ' ');
  }
  return s;
}

void line(std::string &out, const std::string &label, const std::string &value) {
  out += pad(label, 29) + value + "\n";
}

struct ComparativeRow {
  const char *label;
  C characteristic;
};

// The sample's seven rows, then ours.
constexpr ComparativeRow kComparativeRows[] = {
    {"Lost Time", C::Lost},
    {"Idle Time", C::Idle},
    {"Comm. Time", C::Communication},
    {"MPI Time", C::Mpi},
    {"Potential Sync.", C::PotentialSync},
    {"Time variation", C::TimeVariation},
    {"Time of Start", C::TimeOfStart},
    {"Real Sync.", C::RealSync},
    {"Load Imbalance", C::LoadImbalance},
    {"Overlap", C::Overlap},
    {"CPU Time", C::Cpu},
    {"Execution Time", C::Time},
};

struct ProcessColumn {
  const char *header;
  C characteristic;
};

constexpr ProcessColumn kProcessColumns[] = {
    {"Exec", C::Time},
    {"CPU", C::Cpu},
    {"MPI", C::Mpi},
    {"Comm", C::Communication},
    {"Idle", C::Idle},
    {"Imbalance", C::LoadImbalance},
    {"PotSync", C::PotentialSync},
    {"RealSync", C::RealSync},
    {"Variation", C::TimeVariation},
    {"Lost", C::Lost},
};

} // namespace

std::string process_label(const IntervalProcess &process) {
  if (process.rank < 0) {
    return "L" + std::to_string(process.location);
  }
  auto label = std::to_string(process.rank);
  if (process.thread != 0) {
    label += "." + std::to_string(process.thread);
  }
  return label;
}

std::string interval_report(const IntervalTree &tree, std::uint32_t id,
                            const ReportOptions &options) {
  const auto &node = tree.nodes.at(id);
  const auto &s = node.summary;
  std::string out;
  out += "Interval (LineNumber = " + std::to_string(node.line) + " SourceFile = " + node.file +
         ") Level=" + std::to_string(node.level) + " EXE_Count=" + std::to_string(node.exe_count) +
         " Name=\"" + node.name + "\"";
  if (node.source == IntervalSource::Marker) {
    out += " Id=" + std::to_string(node.user_id);
  }
  out += "\n ---Main Characteristics---\n";
  char efficiency[64];
  std::snprintf(efficiency, sizeof efficiency, "%.6f", s.efficiency);
  line(out, "Parallelization Efficiency", efficiency);
  line(out, "Execution Time", seconds(s.execution_time));
  line(out, "Processors", std::to_string(s.processes));
  line(out, "Total Time", seconds(s.total_time));
  line(out, "Productive Time",
       seconds(s.productive_time) + " (CPU " + seconds(s.productive_cpu) + " MPI " +
           seconds(s.productive_mpi) + ")");
  line(out, "Lost Time", seconds(s.lost_time));
  if (s.lost_insufficient != 0) {
    line(out, "---Insufficient Par.", seconds(s.lost_insufficient));
  }
  line(out, "---MPI Time", seconds(s.lost_mpi));
  line(out, "---Idle Time", seconds(s.lost_idle));
  line(out, "Communication Time", seconds(s[C::Communication].sum));
  line(out, "*****SendRecv Time", seconds(s[C::SendRecv].sum));
  line(out, "*****CollectiveAll Time", seconds(s[C::Collective].sum));
  line(out, "*****AllToAll Time", seconds(s[C::AllToAll].sum));
  line(out, "Potential Sync.", seconds(s[C::PotentialSync].sum));
  line(out, "Time Variation", seconds(s[C::TimeVariation].sum));
  line(out, "Time of Start", seconds(s[C::TimeOfStart].sum));
  line(out, "Real Sync.", seconds(s[C::RealSync].sum));
  line(out, "Load Imbalance", seconds(s[C::LoadImbalance].sum));
  line(out, "Overlap", seconds(s[C::Overlap].sum));
  line(out, "CPU Time", seconds(s[C::Cpu].sum));
  line(out, "MPI Time", seconds(s[C::Mpi].sum));
  if (s[C::Unrecorded].sum != 0) {
    line(out, "Unrecorded Time", seconds(s[C::Unrecorded].sum));
  }

  out += "---Comparative Characteristics---\n";
  out += "                 Tmin      Nproc  Tmax      Nproc  Tmid\n";
  for (const auto &row : kComparativeRows) {
    const auto &c = s[row.characteristic];
    out += pad(row.label, 17) + pad(seconds(c.min), 10) +
           pad(process_label(tree.processes[c.min_process]), 7) + pad(seconds(c.max), 10) +
           pad(process_label(tree.processes[c.max_process]), 7) + seconds(c.mean) + "\n";
  }

  if (options.per_process) {
    out += "---Characteristics on Each Processor---\n";
    std::string header = pad("Nproc", 7);
    for (const auto &col : kProcessColumns) {
      header += pad(col.header, 11);
    }
    while (!header.empty() && header.back() == ' ') {
      header.pop_back();
    }
    out += header + "\n";
    for (std::size_t slot = 0; slot < node.processes.size(); ++slot) {
      std::string row = pad(process_label(tree.processes[node.processes[slot]]), 7);
      for (const auto &col : kProcessColumns) {
        row += pad(seconds(node.values[slot][index_of(col.characteristic)]), 11);
      }
      while (!row.empty() && row.back() == ' ') {
        row.pop_back();
      }
      out += row + "\n";
    }
  }
  return out;
}

std::string interval_report(const IntervalTree &tree, const ReportOptions &options) {
  std::string out;
  bool first = true;
  for (const auto id : tree.preorder(options.max_level)) {
    if (!first) {
      out += "\n";
    }
    first = false;
    out += interval_report(tree, id, options);
  }
  if (!tree.warnings.empty()) {
    out += "\nWarnings:\n";
    for (const auto &w : tree.warnings) {
      out += "  " + w + "\n";
    }
  }
  return out;
}

} // namespace parjava::analysis
