// A work-sharing loop is timed whole, from outside its directive (rewrite_loops.cpp,
// openmp_construct), and its count is computed there from its bounds: probes inside its body
// stopped its vectorisation (the estimation code of an OpenMP force loop ran 1.35x the
// program's time, issue 12, item 4).
#include "openmp_count.hpp"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>

#include "variables.hpp"

namespace parjava::frontend {

namespace {

class Reads : public clang::RecursiveASTVisitor<Reads> {
public:
  explicit Reads(const clang::VarDecl *v) : v_(v) {}
  bool VisitDeclRefExpr(clang::DeclRefExpr *ref) {
    found = found || ref->getDecl() == v_;
    return !found;
  }
  bool found = false;

private:
  const clang::VarDecl *v_;
};

bool reads(const clang::Expr *e, const clang::VarDecl *v) {
  Reads r(v);
  r.TraverseStmt(const_cast<clang::Expr *>(e));
  return r.found;
}

struct Step {
  const clang::Expr *by = nullptr; // nullptr: 1
  bool down = false;
};

std::optional<Step> step_of(const clang::Expr *inc, const clang::VarDecl *v) {
  inc = inc != nullptr ? inc->IgnoreParens() : nullptr;
  if (const auto *u = llvm::dyn_cast_or_null<clang::UnaryOperator>(inc)) {
    if (u->isIncrementDecrementOp() && named_variable(u->getSubExpr()) == v) {
      return Step{nullptr, u->isDecrementOp()};
    }
    return std::nullopt;
  }
  if (const auto *c = llvm::dyn_cast_or_null<clang::CompoundAssignOperator>(inc)) {
    if (named_variable(c->getLHS()) == v &&
        (c->getOpcode() == clang::BO_AddAssign || c->getOpcode() == clang::BO_SubAssign)) {
      return Step{c->getRHS(), c->getOpcode() == clang::BO_SubAssign};
    }
    return std::nullopt;
  }
  const auto *b = llvm::dyn_cast_or_null<clang::BinaryOperator>(inc);
  if (b == nullptr || b->getOpcode() != clang::BO_Assign || named_variable(b->getLHS()) != v) {
    return std::nullopt;
  }
  const auto *sum = llvm::dyn_cast<clang::BinaryOperator>(b->getRHS()->IgnoreParenImpCasts());
  if (sum == nullptr) {
    return std::nullopt;
  }
  if (sum->getOpcode() == clang::BO_Add && named_variable(sum->getLHS()) == v) {
    return Step{sum->getRHS(), false};
  }
  if (sum->getOpcode() == clang::BO_Add && named_variable(sum->getRHS()) == v) {
    return Step{sum->getLHS(), false};
  }
  if (sum->getOpcode() == clang::BO_Sub && named_variable(sum->getLHS()) == v) {
    return Step{sum->getRHS(), true};
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string>
canonical_count_text(const clang::ForStmt *loop, clang::ASTContext &ctx,
                     const std::function<std::string(const clang::Expr *)> &text) {
  if (loop == nullptr) {
    return std::nullopt;
  }
  const clang::VarDecl *v = nullptr;
  const clang::Expr *lo = nullptr;
  if (const auto *decl = llvm::dyn_cast_or_null<clang::DeclStmt>(loop->getInit())) {
    if (decl->isSingleDecl()) {
      v = llvm::dyn_cast<clang::VarDecl>(decl->getSingleDecl());
      lo = v != nullptr ? v->getInit() : nullptr;
    }
  } else if (const auto *init = llvm::dyn_cast_or_null<clang::BinaryOperator>(
                 loop->getInit() != nullptr
                     ? llvm::dyn_cast<clang::Expr>(loop->getInit())->IgnoreParens()
                     : nullptr);
             init != nullptr && init->getOpcode() == clang::BO_Assign) {
    v = named_variable(init->getLHS());
    lo = init->getRHS();
  }
  if (v == nullptr || lo == nullptr ||
      !(v->getType()->isIntegerType() || v->getType()->isPointerType())) {
    return std::nullopt;
  }
  const auto *cond = llvm::dyn_cast_or_null<clang::BinaryOperator>(
      loop->getCond() != nullptr ? loop->getCond()->IgnoreParenImpCasts() : nullptr);
  if (cond == nullptr) {
    return std::nullopt;
  }
  clang::BinaryOperatorKind op = cond->getOpcode();
  const clang::Expr *bound = nullptr;
  if (named_variable(cond->getLHS()) == v) {
    bound = cond->getRHS();
  } else if (named_variable(cond->getRHS()) == v) {
    bound = cond->getLHS();
    op = clang::BinaryOperator::reverseComparisonOp(op);
  } else {
    return std::nullopt;
  }
  const std::optional<Step> step = step_of(loop->getInc(), v);
  if (!step) {
    return std::nullopt;
  }
  const bool up_test = op == clang::BO_LT || op == clang::BO_LE;
  const bool down_test = op == clang::BO_GT || op == clang::BO_GE;
  if (!(up_test || down_test || op == clang::BO_NE) || (up_test && step->down) ||
      (down_test && !step->down) || (op == clang::BO_NE && step->by != nullptr)) {
    return std::nullopt;
  }
  for (const clang::Expr *e : {lo, bound, step->by}) {
    if (e != nullptr && (reads(e, v) || e->HasSideEffects(ctx))) {
      return std::nullopt;
    }
  }
  const bool inclusive = op == clang::BO_LE || op == clang::BO_GE;
  const std::string by = step->by != nullptr ? text(step->by) : std::string("1");
  const std::string tail = "(long long)(" + by + "), " + (inclusive ? "1" : "0") + ", ";
  if (v->getType()->isPointerType()) {
    // A pointer's distance in elements, which its step counts in.
    const std::string distance = step->down ? "(" + text(lo) + ") - (" + text(bound) + ")"
                                            : "(" + text(bound) + ") - (" + text(lo) + ")";
    return "pj_omp_count(0, (long long)(" + distance + "), " + tail + "0)";
  }
  return "pj_omp_count((long long)(" + text(lo) + "), (long long)(" + text(bound) + "), " + tail +
         (step->down ? "1" : "0") + ")";
}

} // namespace parjava::frontend
