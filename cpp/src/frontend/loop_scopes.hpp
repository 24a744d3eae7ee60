// Counted loops stay counted (issue 12): C code often reuses one index variable for many loops
// (`int i; ... for (i = 0; i < n; i++) ... for (i = 0; i < num[k]; i++)`). The control-variable
// analysis is per variable, so one data-dependent loop makes every loop on that variable opaque
// and freezes its trip count at the estimation input. A counted loop whose variable is set by
// its own init, changed only by its own update and dead after the loop gets a variable of its
// own inside the loop; other uses of the function's variable keep theirs. A for with several
// variables (`for (n = 0, i = k; i > 0; i--, n++)`) is considered variable by variable.
#pragma once

#include "program.hpp"

namespace parjava::frontend {

// Runs after the structure is built and before variables are named.
void scope_loop_variables(Program &program);

} // namespace parjava::frontend
