// The interval tree (notes 004 §2.2, §3.4; notes 002 §2.1-§2.4): level 0 is the whole run,
// nested intervals come from markers, MPI_Pcontrol phases and user regions. Under one parent an
// interval is identified by (source, file, line, id); repeated executions are merged into one
// node whose values accumulate, with EXE_count. Every node keeps its characteristics on each
// process that executed it (a subset of the processes for intervals seen on some only), and the
// summary of notes 004 §6.1: main characteristics and min/max/mean over processes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parjava/analysis/intervals/characteristic.hpp"
#include "parjava/analysis/intervals/interval_options.hpp"
#include "parjava/trace/trace.hpp"

namespace parjava::analysis {

inline constexpr std::uint32_t kNoNode = 0xffffffffU;

enum class IntervalSource : std::uint8_t { Root, Marker, Pcontrol, Region };
std::string_view interval_source_name(IntervalSource source); // "root", "marker", ...

// A process of the analysis: one CPU location of the trace (a rank, or a thread of one).
struct IntervalProcess {
  std::uint32_t location = 0;
  std::int32_t rank = trace::kNoRank;
  std::int32_t thread = 0;
  std::string name;
};

// min (with process), max (with process), mean and sum over the processes of a node
// (notes 004 §6.1 "Comparative Characteristics"). Processes are indices into
// IntervalTree::processes; ties go to the lowest index.
struct Comparative {
  std::int64_t sum = 0;
  std::int64_t min = 0;
  std::uint32_t min_process = 0;
  std::int64_t max = 0;
  std::uint32_t max_process = 0;
  double mean = 0.0;
};

// Main characteristics (notes 004 §4.1, §8.2; notes 002 §2.3). Times in ns.
struct IntervalSummary {
  std::int64_t execution_time = 0;     // max_p T_p (or Σ_k max_p T_p,k)
  std::uint32_t processes = 0;         // P: processes that executed the interval
  std::int64_t total_time = 0;         // Exec · P
  std::int64_t productive_time = 0;    // Σ_p Productive_p
  std::int64_t productive_cpu = 0;     // its user-code part
  std::int64_t productive_mpi = 0;     // its MPI part (mode B only)
  double efficiency = 1.0;             // productive / total (1 when total is 0, notes 002 §S.2)
  std::int64_t lost_time = 0;          // total − productive
  std::int64_t lost_insufficient = 0;  // Σ insufficient parallelism
  std::int64_t lost_mpi = 0;           // Σ MPI time counted as lost
  std::int64_t lost_idle = 0;          // Σ idle
  std::uint32_t least_mpi_process = 0; // p* of mode B
  std::array<Comparative, kCharacteristicCount> characteristics{};
  [[nodiscard]] const Comparative &operator[](Characteristic c) const {
    return characteristics[index_of(c)];
  }
};

struct IntervalNode {
  std::uint32_t id = 0;
  std::uint32_t parent = kNoNode;
  std::vector<std::uint32_t> children; // in order of first execution
  std::uint32_t level = 0;
  IntervalSource source = IntervalSource::Root;
  std::string name;
  std::string file;                     // source file of the interval's start, where known
  std::uint32_t line = 0;               // its line
  std::int64_t user_id = 0;             // marker id; 0 for other sources
  std::uint32_t region = trace::kNoRef; // region of a marker or user-region interval
  bool sequential = false;              // marked sequential (IntervalOptions::sequential)
  std::uint64_t exe_count = 0;          // EXE_count: max over processes of its executions
  // Where the interval was first met: the process whose walk created the node and how many
  // interval look-ups that walk had made before. Sorting by (first_process, first_lookup)
  // gives the creation order, so trees of disjoint process sets merge into the serial tree
  // (interval_parts.hpp).
  std::uint32_t first_process = 0;
  std::uint64_t first_lookup = 0;

  std::vector<std::uint32_t> processes;  // indices into IntervalTree::processes, ascending
  std::vector<std::uint64_t> executions; // executions on each of `processes`
  std::vector<CharacteristicRow> values; // inclusive characteristics on each of `processes`
  // The node's own part of the additive characteristics: values − Σ children's values
  // (columns kAdditiveCount.. are 0).
  std::vector<CharacteristicRow> exclusive;
  IntervalSummary summary;

  [[nodiscard]] std::int64_t value(std::size_t process_slot, Characteristic c) const {
    return values[process_slot][index_of(c)];
  }
};

// One execution of an interval on one process.
struct IntervalExecution {
  std::uint32_t node = 0;
  std::uint32_t process = 0; // index into IntervalTree::processes
  trace::Timestamp begin = 0;
  trace::Timestamp end = 0;
};

// Counts of oddities found while walking the processes, reported as warnings.
struct IntervalWalkIssues {
  std::uint64_t intervals_left_open = 0; // still open at the process's last event
  std::uint64_t intervals_cut = 0;       // closed because an enclosing interval ended first
  std::uint64_t calls_left_open = 0;     // runtime call still open at the last event
};

class IntervalTree {
public:
  IntervalOptions options;
  std::vector<IntervalProcess> processes;
  std::vector<IntervalNode> nodes;           // nodes[0] is the root; parents precede children
  std::vector<IntervalExecution> executions; // by process, then by end time (when recorded)
  trace::Timestamp begin = 0;                // earliest event time of the analysed processes
  trace::Timestamp end = 0;                  // latest
  std::uint64_t events = 0;                  // events walked
  std::vector<std::string> warnings;         // non-fatal oddities (broken nesting, ...)
  IntervalWalkIssues issues;                 // the walk's counts behind some of the warnings

  [[nodiscard]] const IntervalNode &root() const { return nodes.front(); }
  // Child of `parent` with this name (first match), or kNoNode.
  [[nodiscard]] std::uint32_t child_named(std::uint32_t parent, std::string_view name) const;
  // Nodes in depth-first pre-order (children in order), down to `max_level` (-1: all).
  [[nodiscard]] std::vector<std::uint32_t> preorder(int max_level = -1) const;
};

} // namespace parjava::analysis
