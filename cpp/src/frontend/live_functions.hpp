// The functions a program can run (issue 12, real programs): those main reaches through direct
// calls, the functions the model dispatches through pointers, and every function a reached body
// names otherwise (a thread's worker, a callback, a method, a constructor). Headers define
// helpers the program never calls -- every Parallel Research Kernel includes optimize_split(),
// which calls factor() with array elements its stencil never passes -- and a call in such a
// helper must not make a live function's parameters or pointers unknown.
#pragma once

#include <vector>

#include "calls.hpp"
#include "program.hpp"

namespace parjava::frontend {

// One flag per function; all true when the input has no main, or when a reached call goes
// through a pointer the model cannot follow (anything may run).
std::vector<bool> live_functions(const Program &program, const CallClassifier &calls);

} // namespace parjava::frontend
