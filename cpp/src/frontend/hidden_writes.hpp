// Writes the model cannot see at the statement that makes them (issue 13, honest predictions):
// the fields of a record an external function returns, and the globals and fields a function
// assigns when the model measures it in place instead of running it (a recursive function).
// Both become Havoc effects at the call, so the variables are data, never a silently stale 0.
#pragma once

#include <string>
#include <vector>

#include <clang/AST/Decl.h>

#include "calls.hpp"
#include "program.hpp"
#include "variables.hpp"

namespace parjava::frontend {

// Every arithmetic field of `record` (and of records nested in it, 3 deep) that `call` returns:
// `spelling` names the record's type in the reason.
void returned_record_fields(const ClassifiedCall &call, VariableResolver &vars,
                            std::vector<Effect> &out, const clang::RecordDecl *record,
                            const std::string &spelling, int depth);

// True for an element accessor of a standard container or iterator (`v[k]`, `v.at(k)`,
// `v.front()`, `v.back()`, `*it`, `it->`) that returns a reference: the fields of the element
// it returns are the program's, not values the library wrote.
bool container_element(const ClassifiedCall &call);

// Every global and field that function `first`, called in place by `call`, and the functions it
// calls assign.
void in_place_writes(const ClassifiedCall &call, FunctionId first, VariableResolver &vars,
                     std::vector<Effect> &out);

} // namespace parjava::frontend
