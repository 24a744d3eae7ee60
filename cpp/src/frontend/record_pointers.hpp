// Struct objects passed by address (issue 12 item 2, "state held in structs ... through pointers
// and calls when the target is known"): `set_range(&lo, ...); set_range(&hi, ...)`.
//
// A local struct object the model follows (record_copies.hpp) is one variable per scalar field.
// Passing its address to a function used to end that: the callee writes `r->first` through the
// pointer, which the model could only take as the field's one variable for every object, so two
// objects of one record in one function read the same values (the decision between them data,
// the peers they name wrong). A pointer parameter whose callee uses it only to read and write
// scalar fields (`r->first = rank * n;`, `if (r->count > 0)`), never storing it, passing it on
// or taking a field's address, now has a cell per scalar field, as a by-value parameter has:
// each call copies the pointee's fields into the cells before the call and back after it (not
// back for a pointer to const), and the callee's `r->f` is the cell. The caller's object stays
// followed. The callee must not be recursive (one set of cells) nor be called through a
// function pointer (no call site to copy at), and its calls must pass the addresses of two local
// objects or more: one object's fields are already its own variables (an option parser's
// `parse(&opts)`, whose defaults the input analysis finds through them).
#pragma once

#include <vector>

#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>

#include "calls.hpp"
#include "program.hpp"
#include "variables.hpp"

namespace parjava::frontend {

// Fills program.record_pointer_params; runs after the recursive functions and the dispatch
// table are known and before any structure is built.
void find_record_pointer_params(Program &program, const CallClassifier &calls);

// The Copy effects of a call of a program function around its record pointer parameters:
// `in` the pointees' fields into the cells (before the call), else the cells back into them.
std::vector<Effect> record_pointer_copies(const ClassifiedCall &call, VariableResolver &vars,
                                          bool in);

} // namespace parjava::frontend
