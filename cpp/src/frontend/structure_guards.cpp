// Calls that only some evaluations of a statement make (a branch of `?:`, the right operand of
// `&&` or `||`) become leaves under an if on the guard's condition: `s += odd ? slow() :
// fast();` ran both calls on every evaluation, and a `ok && exchange()` ran the exchange
// whether or not `ok` held (issue 13: never silently wrong). The if's condition is the
// guard's (the `?:` condition, the left operand), evaluated by the model where it is control
// and counted by the estimation run where it is data, as any if's.
#include "structure_walk.hpp"

#include <algorithm>

#include <clang/AST/ParentMapContext.h>

namespace parjava::frontend {

namespace {

// The conditionals between `e` and `top` that not every evaluation of `top` passes through.
std::vector<Guard> guards_of(const clang::Expr *e, const clang::Stmt *top,
                             clang::ASTContext &context) {
  std::vector<Guard> out;
  const clang::Stmt *child = e;
  for (int depth = 0; depth < 256 && child != top; ++depth) {
    const auto parents = context.getParents(*child);
    if (parents.empty()) {
      break;
    }
    const auto *parent = parents[0].get<clang::Stmt>();
    if (parent == nullptr) {
      break;
    }
    if (const auto *c = llvm::dyn_cast<clang::ConditionalOperator>(parent)) {
      if (child == c->getTrueExpr()) {
        out.push_back({c, 0});
      } else if (child == c->getFalseExpr()) {
        out.push_back({c, 1});
      }
    } else if (const auto *b = llvm::dyn_cast<clang::BinaryOperator>(parent);
               b != nullptr && b->isLogicalOp() && child == b->getRHS()) {
      out.push_back({b, b->getOpcode() == clang::BO_LAnd ? 0 : 1});
    }
    child = parent;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

const clang::Expr *guard_condition(const clang::Expr *guard) {
  if (const auto *c = llvm::dyn_cast<clang::ConditionalOperator>(guard)) {
    return c->getCond();
  }
  return llvm::cast<clang::BinaryOperator>(guard)->getLHS();
}

} // namespace

void StructureWalk::emit_leaves(Seq &seq, const std::vector<ClassifiedCall> &leaves,
                                const clang::Stmt *statement) {
  std::vector<GuardedCall> calls;
  calls.reserve(leaves.size());
  for (const ClassifiedCall &c : leaves) {
    calls.push_back({c, guards_of(c.expr, statement, context_)});
  }
  emit_guarded(seq, calls, 0, statement);
}

// The calls of `calls` (in evaluation order) below `depth` guards: those with no further
// guard as leaves where they stand, each run of calls under one more guard as an if (an
// if-else when the guard's second side holds calls too).
void StructureWalk::emit_guarded(Seq &seq, const std::vector<GuardedCall> &calls, std::size_t depth,
                                 const clang::Stmt *statement) {
  for (std::size_t i = 0; i < calls.size();) {
    if (calls[i].guards.size() == depth) {
      emit_call_leaf(seq, calls[i].call, statement);
      ++i;
      continue;
    }
    const clang::Expr *guard = calls[i].guards[depth].expr;
    std::vector<GuardedCall> sides[2];
    for (;
         i < calls.size() && calls[i].guards.size() > depth && calls[i].guards[depth].expr == guard;
         ++i) {
      sides[calls[i].guards[depth].side].push_back(calls[i]);
    }
    flush(seq);
    const clang::Expr *cond = guard_condition(guard);
    const bool has_else = !sides[1].empty();
    StructNode n = make(has_else ? StructKind::IfElse : StructKind::If, guard->getSourceRange());
    n.stmt = guard;
    n.label = "if " + source_text(cond, context_, 40);
    const StructIndex idx = program_.add(std::move(n));
    set_condition(idx, cond);
    // Built before they are attached: building adds nodes, which may move program_.nodes.
    Seq then_seq = open_sequence(nullptr);
    emit_guarded(then_seq, sides[0], depth + 1, statement);
    const StructIndex then_branch = close_sequence(then_seq);
    program_.nodes[idx].children.push_back(then_branch);
    if (has_else) {
      Seq else_seq = open_sequence(nullptr);
      emit_guarded(else_seq, sides[1], depth + 1, statement);
      const StructIndex else_branch = close_sequence(else_seq);
      program_.nodes[idx].children.push_back(else_branch);
    }
    add_child(seq, idx);
  }
}

} // namespace parjava::frontend
