// Forward gotos that leave a run of statements (issue 12, real programs): every Parallel
// Research Kernel checks its arguments under `if (my_ID == root) { ... goto ENDOFTESTS; ...
// ENDOFTESTS:; }`, and C code leaves loops and error paths with `goto done;` / `goto cleanup;`.
// Such a goto jumps forward to a label of a compound statement that encloses it: it leaves the
// statements from the first one holding a goto to the label up to the label. Wrapped in a
// sequence of their own, those statements are left by a `break` naming that sequence, which the
// model and the interpreter have (docs/model-schema.md: break leaves any enclosing statement).
// A goto backwards, into a block, or to a label that is not a statement of a compound keeps the
// function unstructured.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Stmt.h>

namespace parjava::frontend {

// Statements [begin, end) of a compound, left by the gotos to `labels` (the label is statement
// `end`). Blocks of one compound nest: crossing ranges are widened until they do.
struct GotoBlock {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::vector<const clang::LabelDecl *> labels;
};

struct GotoPlan {
  std::map<const clang::CompoundStmt *, std::vector<GotoBlock>> blocks;
  std::string unstructured; // why some goto is not of that form ("" when all are)
  clang::SourceLocation where;
};

GotoPlan plan_gotos(clang::ASTContext &context, const clang::Stmt *body,
                    const std::vector<const clang::GotoStmt *> &gotos);

} // namespace parjava::frontend
