// The iteration count of a canonical OpenMP loop as C text, to evaluate before its directive.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace clang {
class ASTContext;
class Expr;
class ForStmt;
} // namespace clang

namespace parjava::frontend {

// `pj_omp_count(lo, bound, step, inclusive, down)` for a loop in OpenMP's canonical form
// (OpenMP 5.2 §4.4.1: `for (i = lo; i < bound; i += step)` and its variants, an integer or
// pointer variable, bounds that do not read it); nullopt for any other loop, or a bound with side
// effects (it is evaluated once more, before the loop). `text` spells an expression as the
// instrumented copy must.
std::optional<std::string>
canonical_count_text(const clang::ForStmt *loop, clang::ASTContext &ctx,
                     const std::function<std::string(const clang::Expr *)> &text);

} // namespace parjava::frontend
