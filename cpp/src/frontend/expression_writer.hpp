// Writes Clang expressions in the model's expression language (docs/model-schema.md, the
// expression IR of the model part): arithmetic, comparisons, logic, ternaries and the math
// functions over tracked variables, program parameters and the builtins rank / size / task.
// An expression that reads data the model does not keep (array elements, pointers, results of
// external calls) cannot be written; the result says what it reads and where, which becomes the
// reason a condition is opaque (seed 000 notes §3.5).
#pragma once

#include <map>
#include <string>

#include <clang/AST/Expr.h>

#include "calls.hpp"
#include "program.hpp"

namespace parjava::frontend {

struct WriteResult {
  bool ok = false;
  std::string text; // model expression text when ok
  std::string why;  // what the expression reads that the model does not keep, when not ok
  clang::SourceLocation where;
  const clang::ASTContext *unit = nullptr; // the unit of `where` when not the function's own
};

struct WriteOptions {
  // Variables written as a fixed text instead of their name (a task group's loop variable is
  // `task` inside the group).
  const std::map<VarId, std::string> *substitutions = nullptr;
  // v-collectives: the block of rank `peer` is that rank's own count, so `rank` reads `peer`.
  bool rank_as_peer = false;
};

class ExpressionWriter {
public:
  ExpressionWriter(Program &program, const CallClassifier &calls)
      : program_(program), calls_(calls) {}

  // `expr` inside function `function`.
  WriteResult write(const clang::Expr *expr, FunctionId function,
                    const WriteOptions &options = {}) const;
  // A constant initialiser of `unit` outside any function (a global's), written as the
  // expression it is when it reads a compile-line macro (compile_time_inputs.hpp).
  WriteResult constant(const clang::Expr *expr, clang::ASTContext &unit) const;
  // The size in bytes of an MPI datatype argument (a predefined type or a tracked datatype).
  WriteResult datatype_size(const clang::Expr *datatype, FunctionId function) const;
  // The new value a kept effect gives its variable, in model syntax.
  WriteResult effect_value(const Effect &effect, FunctionId function,
                           const WriteOptions &options = {}) const;
  // The model name of a variable (its builtin text for Builtin variables).
  [[nodiscard]] std::string name(VarId var) const;

private:
  WriteResult expr(const clang::Expr *e, FunctionId f, const WriteOptions &o,
                   clang::ASTContext &ctx) const;
  // An element of an aggregate (a[i][j], p[k], *p): the element's variable for constant
  // indices, a selection over the elements otherwise; `ok` false with `why` empty when `e` is
  // not an element of a known aggregate.
  WriteResult element(const clang::Expr *e, FunctionId f, const WriteOptions &o,
                      clang::ASTContext &ctx) const;
  WriteResult topology(const Effect::Grid &grid, FunctionId f, const WriteOptions &o) const;
  WriteResult flat_index(const std::vector<const clang::Expr *> &indices,
                         const std::vector<std::uint64_t> &dims, std::uint64_t offset, FunctionId f,
                         const WriteOptions &o, clang::ASTContext &ctx) const;
  WriteResult variable(VarId var, const clang::Expr *e, const WriteOptions &o) const;
  Program &program_;
  const CallClassifier &calls_;
};

// Formats a double so the model parses it back as a floating-point literal.
std::string float_literal(double value);

} // namespace parjava::frontend
