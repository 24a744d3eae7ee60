// Opaque loops whose bound reads data the program rewrites inside an enclosing loop (issue 13,
// never silently wrong). miniAMR's loops over blocks run `in < sorted_index[num_refine + 1]`,
// and refine() -- called in the time-step loop -- rebuilds `sorted_index` as the mesh refines.
// The estimation measures such a count over its own time steps only: ten steps in which the
// mesh did not change gave one block every time, and a prediction of a hundred steps kept that
// count and came out 97 % too fast without a word. The builder finds these loops; the estimation
// adds how their counts moved during its run (docs/model-schema.md "Rewritten bounds"); a
// prediction that runs them far more often than the estimation did says so, by name and line.
#pragma once

#include <string>
#include <vector>

#include "program.hpp"

namespace parjava::frontend {

struct RewrittenBound {
  StructIndex loop = kNoStruct;      // the opaque loop
  std::string data;                  // the data its bound reads, as the program names it
  FunctionId writer = kNoFunction;   // the function holding the write
  clang::SourceLocation written;     // one write of it inside `enclosing`
  StructIndex enclosing = kNoStruct; // the loop whose iterations (or callees) rewrite it
};

// Every opaque loop whose condition reads a global, a field, or a variable of its function --
// not a model-computed control variable, not one the loop itself writes -- that a loop enclosing
// it writes, directly or in a function it calls (through pointer parameters one call deep). The
// enclosing loop is the nearest one in the same function when there is one, else the smallest
// loop of another function from which the loop's function is reached.
std::vector<RewrittenBound> rewritten_bounds(const Program &program);

} // namespace parjava::frontend
