// Compile-time inputs (issue 12, "program inputs become parameters"): a number given on the
// compile line, `-D_NX=200`, that the program's control reads through a macro
// (mrnorman/miniWeather: `int constexpr nx_glob = _NX;`, the grid, time and output interval
// all come from -D flags). Clang folds such a value into a constant like any literal, and the
// model would keep it at every size; instead the literal becomes a model parameter named after
// the macro, whose default is the flag's number, and constants computed from it (constexpr
// variables, enumerators) are written as the expressions they are.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

namespace parjava::frontend {

// A literal that a macro of the compile line spelled: the macro and its value's text.
struct CommandLineLiteral {
  std::string macro;
  std::string value;
  bool floating = false;
  bool negated = false; // the value is `-` and the literal: the literal is -macro
};

// `e` itself, a numeric literal, when it is the whole value of a macro defined on the compile
// line (`-DN=200`, `-DN=-1`; not `-DN=2*100`, whose tokens are not one number each).
std::optional<CommandLineLiteral> command_line_literal(const clang::Expr *e,
                                                       const clang::ASTContext &ctx);

// Whether `e` reads such a literal, directly or through the initialiser of a constant variable
// or enumerator it names.
bool reads_command_line_macro(const clang::Expr *e, const clang::ASTContext &ctx);

// The lines of `files` where a conditional directive (`#if`, `#ifdef`, `#elif`, ...) tests
// `macro`, as "file:line", at most `limit` of them; a guard that only gives the macro a default
// (`#ifndef NX` followed by `#define NX 256`) is not one.
std::vector<std::string> preprocessor_tests(const std::string &macro,
                                            const std::vector<std::string> &files,
                                            std::size_t limit = 5);

// The initialiser to write in place of a reference to a constant (a const or constexpr
// variable, an enumerator) that reads a compile-line macro; null otherwise.
const clang::Expr *compile_time_initializer(const clang::Expr *e, const clang::ASTContext &ctx);

} // namespace parjava::frontend
