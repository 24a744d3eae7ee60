// Whole fixed-size arrays copied by value: a std::array initialised or assigned from another
// (`auto b = a;`, `b = a;`), or from what a program function returns (`auto nbr =
// decompose(rank, size);`, UoB-HPC/CloverLeaf's clover_decompose). Scalar replacement of
// aggregates (Program::aggregates) makes each element a variable; a copy is then one Copy effect
// per element, and a function that returns such an array writes a return cell -- an aggregate of
// globals, like the cells of aliases.cpp -- that the caller copies out of after the call.
// Anything the model cannot follow (a library call's result, an array of another size) leaves
// every element data, with the reason: never the stale or zero values of before.
#pragma once

#include <vector>

#include <clang/AST/Expr.h>

#include "program.hpp"
#include "variables.hpp"

namespace parjava::frontend {

// The return cell of a program function whose return type is a fixed-size array of scalars
// (std::array<int, 4>), created on first use; kNoAggregate for any other function.
AggregateId returned_array_cell(Program &program, FunctionId function);

// The effects of setting every element of aggregate `target` from `value`, a whole array: one
// Copy per element from another aggregate of as many elements of the same kind or from a
// program function's return cell, else a Havoc per element naming `value`.
std::vector<Effect> whole_array_effects(AggregateId target, const clang::Expr *value,
                                        VariableResolver &vars, clang::SourceLocation where);

// `b = a` for a std::array aggregate b (a call of its operator=): the effects of the copy;
// nullopt when `call` is not such an assignment.
std::optional<std::vector<Effect>> whole_array_assignment(const clang::CallExpr *call,
                                                          VariableResolver &vars);

// Uses of whole std::array objects in `body` that may change their elements in a way the
// effects do not follow (`a.data()` passed on, `a.fill(0)`, a non-const reference to it, a
// range-for over it): the expressions, for aliases.cpp to make those arrays data. Element
// accesses, copies from and into it, size(), returning it and binding it to a const
// reference are not such uses.
std::vector<const clang::Expr *> escaping_array_uses(const clang::Stmt *body,
                                                     clang::ASTContext &context);

} // namespace parjava::frontend
