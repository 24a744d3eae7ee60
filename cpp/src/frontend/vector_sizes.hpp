// The sizes of std::vector objects (the defS sets of seed 000 notes §3.5, for `v.size()`): a
// vector's size is a variable of the model (VariableResolver::container_size) that its
// declaration, resize/assign/clear and whole assignments define; push_back and the like, a copy
// from a range or a call's result, and a call that may refill it (by reference or address)
// make it data. Each form must define it: a model names a local only where it assigns it, and
// miniFE's `std::vector<int> all_ids;` filled by a helper was an unknown name.
#pragma once

#include <vector>

#include <clang/AST/Decl.h>

#include "calls.hpp"
#include "program.hpp"
#include "variables.hpp"

namespace parjava::frontend {

bool is_std_vector_object(const clang::Expr *obj);

// A declaration of a vector (`init` without its implicit wrappers); false if it is none.
bool vector_declaration(const clang::VarDecl *decl, const clang::Expr *init, VariableResolver &vars,
                        std::vector<Effect> &out);

// v.resize(n), v.clear(), v.push_back(x) ...; false if the call is no member call of a vector.
bool vector_member_call(const ClassifiedCall &call, VariableResolver &vars,
                        std::vector<Effect> &out, clang::SourceLocation where);

// `a = b` between vectors; false if the call is no such assignment.
bool vector_assignment(const ClassifiedCall &call, VariableResolver &vars, std::vector<Effect> &out,
                       clang::SourceLocation where);

// The size of a vector a call may resize (passed by non-const reference, or by address to a
// non-const pointer); kNoVar otherwise.
VarId written_vector_size(const clang::Expr *arg, const clang::ParmVarDecl *param,
                          VariableResolver &vars);

} // namespace parjava::frontend
