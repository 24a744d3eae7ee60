// parjava's own binary form of a GOAL schedule (not LogGOPSim's .bin): the schedule's arrays
// written as they are in memory, so a multi-GB schedule loads at disk speed instead of being
// parsed again. Little-endian; a header names the format version and the array sizes, and
// loading validates every field (kinds, peers, dependency lists), so a truncated or foreign
// file is reported, never trusted. Suffix by convention: ".pjgoal".
#pragma once

#include <string>

#include "parjava/loggp/goal_schedule.hpp"

namespace parjava::loggp {

void write_goal_binary(const GoalSchedule &schedule, const std::string &path);
[[nodiscard]] GoalSchedule read_goal_binary(const std::string &path);
// Whether the file starts with the binary form's magic bytes.
[[nodiscard]] bool is_goal_binary(const std::string &path);

} // namespace parjava::loggp
