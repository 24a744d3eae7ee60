// Reading GOAL text schedules, the input format of LogGOPSim's txt2bin (anchor §2):
//
//   num_ranks 2
//   rank 0 {
//   l1: send 8b to 1 tag 5        // optional clauses: tag, cpu, nic, in that order
//   l2: calc 100 cpu 1             // calc takes only a cpu clause
//   l2 requires l1                 // l2 starts after l1 completed (irequires: after it started)
//   }
//   rank 1 {
//   recv 8b from -1 tag -1         // -1: any source / any tag
//   }
//
// The reader accepts exactly what txt2bin accepts, with the same token rules (keywords are
// matched as prefixes after the first word of a line, whitespace between tokens is optional,
// comments stand before an op or on their own line), and rejects with a parjava::Error(Model)
// naming file:line:column and what was expected where txt2bin would silently build a corrupt
// or undefined schedule: ranks out of order or missing, `to -1`, a peer >= num_ranks, cpu/nic
// > 255, numbers that overflow, duplicate labels (txt2bin keeps the first), undefined or
// self-referencing labels, and anything after the last rank block (txt2bin ignores it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parjava/loggp/goal_schedule.hpp"

namespace parjava::loggp {

// Read a GOAL text file (memory-mapped; multi-GB files are fine).
[[nodiscard]] GoalSchedule read_goal_file(const std::string &path);

// Parse GOAL text held in memory; `source_name` is used in error messages.
[[nodiscard]] GoalSchedule parse_goal_text(std::string_view text,
                                           const std::string &source_name = "<text>");

// Position of an operation in its GOAL file, for reports (1-based line and column).
struct GoalSourcePosition {
  std::uint32_t rank = 0;
  std::uint32_t op_offset = 0; // index of the op within its rank
  std::uint64_t line = 0;      // 0 when unknown
  std::uint64_t column = 0;
};

// Find where ops are written in the file a schedule was read from (using the rank block
// offsets the reader recorded). Unknown positions (schedule not from that file) get line 0.
[[nodiscard]] std::vector<GoalSourcePosition> locate_goal_ops(const GoalSchedule &schedule,
                                                              const std::string &path,
                                                              const std::vector<OpId> &ops);

} // namespace parjava::loggp
