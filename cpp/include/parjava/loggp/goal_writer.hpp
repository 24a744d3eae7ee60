// Writing a schedule as GOAL text that LogGOPSim's txt2bin (and parjava's reader) accept, e.g.
// to run a parjava-generated pattern through LogGOPSim for comparison. Labels are "l<offset+1>"
// like Schedgen's; dependency lines follow each rank's ops in an order that rebuilds the same
// dependency lists, so reading the file back gives an identical schedule.
#pragma once

#include <string>

#include "parjava/loggp/goal_schedule.hpp"

namespace parjava::loggp {

void write_goal_file(const GoalSchedule &schedule, const std::string &path);
[[nodiscard]] std::string goal_text(const GoalSchedule &schedule);

} // namespace parjava::loggp
