// Local struct objects followed per object (issue 12 item 2, "state held in structs"): scalar
// replacement of a local object of a plain struct whose every use the model can follow.
//
// A field is otherwise one variable for every object of its record (notes 000 §3.5 treat class
// fields as global control variables). ORNL minisweep decides each face exchange from two
// objects of one struct in one function (StepScheduler_must_do_send: `source.octant ==
// target.octant`, each a copy of what StepScheduler_stepinfo returns for another process); with
// one variable per field both are the same value, the decision is data, and np 2 deadlocks.
// Here such an object is one variable per scalar field (`source.octant`, a local of the
// function), a function returning the struct writes one return field per scalar field -- globals,
// like the return cells of array_copies.hpp -- and every whole copy (`T y = x`, `y = x`,
// `T x = f(...)`, `return x`) is one Copy effect per field. A followed object's value that goes
// where the model does not follow objects (an array element, a global, a by-value parameter) is
// copied into the fields' shared variables, which is what every object's writes did before. A
// by-value struct parameter of a program function is followed the same way: every call copies
// the argument into the parameter's cells, one global per field, and the callee copies them into
// its own variables on entry (so a recursive call cannot overwrite an activation's values).
#pragma once

#include <cstdint>
#include <vector>

#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>

#include "calls.hpp"
#include "program.hpp"
#include "variables.hpp"

namespace parjava::frontend {

// The scalar fields the model tracks of a plain struct type (a C struct, or a trivially copyable
// C++ class), in declaration order; empty for any other type (unions, classes with copy
// semantics of their own, records with no tracked field).
std::vector<const clang::FieldDecl *> record_scalar_fields(clang::QualType type);

// True if `decl` is a local object of a plain struct every use of which the model follows: its
// fields read and written by name (never their address taken or bound to a reference), whole
// copies into and out of it, `return` of it, passing it by value, sizeof. Computed once per
// object (Program::followed_objects).
bool followed_object(const clang::VarDecl *decl, Program &program, clang::ASTContext &context);

// Where a whole struct value goes: a followed object, the return fields of the function being
// built, the parameter cells of a program function's by-value parameter (which the callee copies
// into its own followed parameter on entry), or a place the model does not follow objects of,
// whose fields are the shared variables.
struct RecordTarget {
  enum class Kind : std::uint8_t { Object, Returned, Parameter, Shared };
  Kind kind = Kind::Shared;
  const clang::VarDecl *object = nullptr; // Object
  FunctionId function = kNoFunction;      // Parameter: the callee
  unsigned index = 0;                     // Parameter: its position
};

// The effects of `target = value` for a whole struct value: one per scalar field of the record.
// The value is a followed object, a call of a program function (its return fields), an
// initialiser list, or another object (the shared variables); anything else makes the target's
// fields data, with the reason. Copying shared variables into themselves is no effect.
std::vector<Effect> record_copy_effects(const RecordTarget &target, const clang::Expr *value,
                                        VariableResolver &vars, const CallClassifier &calls,
                                        clang::SourceLocation where);

// A program function's followed by-value struct parameters take their fields from the parameter
// cells on entry: the Copy effects, before the body.
std::vector<Effect> parameter_entry_effects(FunctionId function, VariableResolver &vars);

// Is the field access `x.f` or `p->f` read or written where it stands: not its address taken,
// not bound to a reference (an initialiser, a call's argument)?
bool field_used_in_place(const clang::MemberExpr *member, clang::ASTContext &context);

// The variable `arg` takes the address of (`&x`), null for any other expression.
const clang::VarDecl *addressed_object(const clang::Expr *arg);

// The value under copy constructors, temporaries, casts and a compound literal's braces of
// `value`: what a whole copy (of a struct, or of a std::array in array_copies.hpp) reads.
const clang::Expr *record_source(const clang::Expr *value);

// The followed object a whole-struct expression names, null for anything else.
const clang::VarDecl *followed_source(const clang::Expr *value, VariableResolver &vars);

} // namespace parjava::frontend
