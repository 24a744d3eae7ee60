// Definitions of tracked variables made by a statement (the defS sets of seed 000 notes §3.5):
// assignments, increments, initialisations, MPI service calls (rank, size, datatype sizes),
// status fields, std::vector sizes, and out-arguments of calls the model cannot follow.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <clang/AST/Stmt.h>

#include "calls.hpp"
#include "program.hpp"
#include "variables.hpp"

namespace parjava::frontend {

// Effects of `stmt` in evaluation order, with the variables each new value uses. Calls in
// `skip_calls` contribute nothing (they become leaves that carry their own effects).
std::vector<Effect> statement_effects(const clang::Stmt *stmt, VariableResolver &vars,
                                      const CallClassifier &calls,
                                      const std::set<const clang::Expr *> *skip_calls = nullptr);

// The effects of one call only (out-arguments, MPI service results), for calls that become
// leaves of their own.
std::vector<Effect> call_effects(const ClassifiedCall &call, VariableResolver &vars);

// A user call whose pointer parameters reach a caller's local through a cell (AliasTarget):
// the copies into the cells, made before the call.
std::vector<Effect> copy_in_effects(const ClassifiedCall &call, VariableResolver &vars);

// True if `comm` names MPI_COMM_WORLD (as a macro, Open MPI's symbol or a constant).
bool is_comm_world(const clang::Expr *comm, const clang::ASTContext &context);

// MPI_Comm_rank / MPI_Comm_size of a communicator other than MPI_COMM_WORLD into a tracked
// variable: that variable (the call is a leaf of its own, whose operation computes it per rank);
// kNoVar for world (the builtins rank and size) and for any other call.
VarId comm_query_output(const ClassifiedCall &call, VariableResolver &vars);

// A definition with a value the model cannot know: `var` becomes data, for `reason`.
Effect havoc(VarId var, std::string reason, clang::SourceLocation where);

// The macro an expression was written as (MPI_DOUBLE, MPI_ANY_SOURCE), "" if none.
std::string macro_name(const clang::Expr *expr, const clang::ASTContext &context);

} // namespace parjava::frontend
