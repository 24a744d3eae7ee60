// Pointers whose target is known (issue 12: state reached "through pointers and calls when the
// target is known"). A local pointer defined once from an array or an address
// (`const int *procGrid = domain->procGrid;`) and a pointer parameter that every call passes the
// same global array or variable (`void neighbours(int *nbr)` called as
// `neighbours(halo->nbrRank)`) alias that target: reads and writes through them are reads and
// writes of the target's variables. A pointer parameter that receives the address of a tracked
// scalar (`getTuple(box, &ix, &iy, &iz)`) is given a cell, a variable the call copies the
// caller's value into before and back out of after, since the callee cannot name the caller's
// locals.
#pragma once

#include "calls.hpp"
#include "program.hpp"

namespace parjava::frontend {

// Fills program.pointer_aliases; runs after the functions are collected and before any
// structure is built (the effects of statements depend on it).
void find_pointer_aliases(Program &program, const CallClassifier &calls);

} // namespace parjava::frontend
