// The sizes of std::vector parameters (issue 12, state reached "through pointers and calls when
// the target is known"). C++ kernels take their arrays as vectors, `double relax(std::vector<
// double> &u)`, and loop to `u.size()`; the callee cannot name the caller's size, so each such
// loop was opaque, its trips measured at the estimation input and kept at every other. Like a
// pointer parameter's cell (aliases.hpp), the parameter's size gets a cell that every call sets
// from the size of the vector it passes (call_effects.cpp, copy_in_effects).
#pragma once

#include "calls.hpp"
#include "program.hpp"

namespace parjava::frontend {

// Fills program.vector_size_cells for the vector parameters of functions every call of which
// the model sees: live, not recursive (a cell is one value, an activation's size would outlive
// it), never called through a pointer or a virtual dispatch.
void find_vector_size_cells(Program &program, const CallClassifier &calls);

} // namespace parjava::frontend
