// Calls through function pointers (issue 12, real programs: `s->pot->force(s)` in CoMD, callback
// tables, strategy structs). The model cannot know which function a pointer holds, but it can
// know which functions it may hold: those of the call's type whose address the program takes.
// Such a call becomes a dispatch -- an if-chain "pointer == f1 ? f1(...) : pointer == f2 ?
// f2(...) : ..." -- whose conditions the estimation run measures like any opaque branch, so the
// callee's loops are interpreted (they scale with the input and split among ranks) instead of
// being timed as a constant inside the caller's block.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

#include "program.hpp"

namespace parjava::frontend {

class CallClassifier;

// A function type as comparable text across translation units: the return type and each
// parameter's canonical type, and which of them point to objects (not to functions).
struct FunctionShape {
  std::string result;
  std::vector<std::string> params;
  std::vector<bool> object_pointer; // result first, then each parameter
  bool variadic = false;
};

// The functions a pointer of each function type may hold, keyed by the canonical type as
// printed (`int (struct SimFlatSt *)`, equal across translation units).
struct DispatchTable {
  std::map<std::string, std::vector<FunctionId>> functions;
  // Types for which the program also takes the address of a function it does not define (a
  // library function): a pointer of that type may reach code the model cannot follow.
  std::map<std::string, std::string> external; // type -> the first such function's name
  std::map<std::string, FunctionShape> shapes; // every key above -> its shape
};

// The shape of a function type or of a function pointer's pointee (nullopt: neither, or a
// function without a prototype).
std::optional<FunctionShape> function_shape(clang::QualType type);

// Whether a pointer of shape `call` may hold a function of shape `held`: the same type, or one
// whose object pointers the call's type spells `void *` (C callback tables: hypre's Krylov
// solvers call `int (*)(void *, void *, void *, void *)`, which the program set from
// `(HYPRE_PtrToSolverFcn) HYPRE_BoomerAMGSolve`, a function of four typed pointers).
bool callable_through(const FunctionShape &call, const FunctionShape &held);

// Collects every function whose address the program takes (not as the callee of a direct
// call), in function bodies and in initialisers of globals (`{"lj", ljForce}` tables).
DispatchTable find_dispatch_table(const Program &program, const CallClassifier &calls);

// The key of a function type, or of the pointee of a function pointer type; "" if neither.
std::string function_type_key(clang::QualType type);

// How the instrumented copy of the unit that holds `call` names `function` in an expression:
// its own name where the unit declares it before the call, otherwise a pointer the defining
// unit exports (`pj_fx_<id>`, see dispatch_export), read from memory so the compiler cannot
// fold the comparison. std::nullopt: no unit can name it (a template, an overload set, a
// definition in a header).
struct DispatchSpelling {
  std::string expression;  // an expression of type void (*)(void)
  std::string declaration; // prepended to the unit (empty if none is needed)
};
std::optional<DispatchSpelling> dispatch_spelling(const Program &program, FunctionId function,
                                                  const clang::ASTContext &unit,
                                                  clang::SourceLocation call);

// The definition the defining unit appends to its instrumented copy so that other units can
// compare a pointer with `function` (static functions included), "" if it cannot.
std::string dispatch_export(const Program &program, FunctionId function);

} // namespace parjava::frontend
