#include "loop_shape.hpp"

#include <clang/AST/ASTContext.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>

#include "variables.hpp"

namespace parjava::frontend {

namespace {

// Does the body write the loop variable, or leave the loop other than by its condition?
class BodyScanner : public clang::RecursiveASTVisitor<BodyScanner> {
public:
  explicit BodyScanner(const clang::VarDecl *var) : var_(var) {}
  bool TraverseLambdaExpr(clang::LambdaExpr *) { return true; }
  bool TraverseForStmt(clang::ForStmt *s) { return nested(s); }
  bool TraverseWhileStmt(clang::WhileStmt *s) { return nested(s); }
  bool TraverseDoStmt(clang::DoStmt *s) { return nested(s); }
  bool TraverseCXXForRangeStmt(clang::CXXForRangeStmt *s) { return nested(s); }
  bool TraverseSwitchStmt(clang::SwitchStmt *s) {
    ++switch_depth_;
    const bool r = clang::RecursiveASTVisitor<BodyScanner>::TraverseSwitchStmt(s);
    --switch_depth_;
    return r;
  }
  bool VisitBreakStmt(clang::BreakStmt *) {
    if (loop_depth_ == 0 && switch_depth_ == 0) {
      leaves = true;
    }
    return true;
  }
  bool VisitReturnStmt(clang::ReturnStmt *) {
    leaves = true;
    return true;
  }
  bool VisitGotoStmt(clang::GotoStmt *) {
    leaves = true;
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator *op) {
    if (op->isAssignmentOp() && named_variable(op->getLHS()) == var_) {
      writes = true;
    }
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator *op) {
    if ((op->isIncrementDecrementOp() || op->getOpcode() == clang::UO_AddrOf) &&
        named_variable(op->getSubExpr()) == var_) {
      writes = true;
    }
    return true;
  }
  bool writes = false;
  bool leaves = false;

private:
  template <typename S> bool nested(S *s) {
    ++loop_depth_;
    const bool r = clang::RecursiveASTVisitor<BodyScanner>::TraverseStmt(s->getBody());
    --loop_depth_;
    // The nested loop's own header may write the variable too.
    if constexpr (std::is_same_v<S, clang::ForStmt>) {
      clang::RecursiveASTVisitor<BodyScanner>::TraverseStmt(s->getInit());
      clang::RecursiveASTVisitor<BodyScanner>::TraverseStmt(s->getInc());
    }
    return r;
  }
  const clang::VarDecl *var_;
  int loop_depth_ = 0;
  int switch_depth_ = 0;
};

// The names the loop's expressions see: an enclosing loop with a variable of its own
// (loop_scopes.hpp) renames the function's variable inside it. Without them HPCCG's
// `for (j = i + 1; ...)` under a scoped `for (i ...)` counted `num_external - (i + 1)` with the
// function's `i`, which the model does not have there, and its estimation at np 2 failed.
std::map<VarId, std::string> scope_names(const Program &program, const ExpressionWriter &writer,
                                         const clang::Stmt *loop, clang::ASTContext &ctx,
                                         const std::map<VarId, std::string> *given) {
  std::map<VarId, std::string> names;
  if (given != nullptr) {
    names = *given;
  }
  clang::DynTypedNode at = clang::DynTypedNode::create(*loop);
  for (int depth = 0; depth < 4096; ++depth) {
    if (const auto *s = at.get<clang::Stmt>()) {
      const auto own = program.loop_variables.find(s);
      if (own != program.loop_variables.end()) {
        for (const auto &[outer, inner] : own->second) {
          names.emplace(outer, writer.name(inner)); // the innermost scope wins
        }
      }
    }
    const auto parents = ctx.getParents(at);
    if (parents.empty() || parents[0].get<clang::Decl>() != nullptr) {
      break;
    }
    at = parents[0];
  }
  return names;
}

// `e` is `var`, `var + c` or `var - c` (c + var too) with an integer constant c: its offset.
bool offset_of(const clang::Expr *e, const clang::VarDecl *var, const clang::ASTContext &ctx,
               std::int64_t &offset) {
  if (named_variable(e) == var) {
    offset = 0;
    return true;
  }
  const auto *sum = llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParenImpCasts());
  if (sum == nullptr || (sum->getOpcode() != clang::BO_Add && sum->getOpcode() != clang::BO_Sub)) {
    return false;
  }
  const bool left = named_variable(sum->getLHS()) == var;
  const bool right = sum->getOpcode() == clang::BO_Add && named_variable(sum->getRHS()) == var;
  clang::Expr::EvalResult c;
  if ((!left && !right) || !(left ? sum->getRHS() : sum->getLHS())->EvaluateAsInt(c, ctx)) {
    return false;
  }
  offset = c.Val.getInt().getExtValue();
  offset = sum->getOpcode() == clang::BO_Sub ? -offset : offset;
  return true;
}

} // namespace

LoopShape loop_shape(Program &program, const ExpressionWriter &writer, const clang::Stmt *loop,
                     FunctionId function, const std::map<VarId, std::string> *substitutions) {
  LoopShape shape;
  const auto *fors = llvm::dyn_cast_or_null<clang::ForStmt>(loop);
  if (fors == nullptr || fors->getCond() == nullptr || fors->getInc() == nullptr ||
      fors->getInit() == nullptr) {
    return shape;
  }
  clang::ASTContext &ctx = *program.functions[function].context;
  // init: `T v = a` or `v = a`
  const clang::VarDecl *var = nullptr;
  const clang::Expr *start = nullptr;
  if (const auto *decl = llvm::dyn_cast<clang::DeclStmt>(fors->getInit())) {
    if (decl->isSingleDecl()) {
      var = llvm::dyn_cast<clang::VarDecl>(decl->getSingleDecl());
    } else if (const auto *test =
                   llvm::dyn_cast<clang::BinaryOperator>(fors->getCond()->IgnoreParenImpCasts())) {
      // `int i = 1, j = 0; i < n`: the variable the condition compares is the counter.
      for (const clang::Decl *d : decl->decls()) {
        const auto *v = llvm::dyn_cast<clang::VarDecl>(d);
        if (v != nullptr &&
            (named_variable(test->getLHS()) == v || named_variable(test->getRHS()) == v)) {
          var = v;
        }
      }
    }
    start = var != nullptr ? var->getInit() : nullptr;
  } else if (const auto *assign = llvm::dyn_cast<clang::BinaryOperator>(fors->getInit())) {
    if (assign->getOpcode() == clang::BO_Assign) {
      var = named_variable(assign->getLHS());
      start = assign->getRHS();
    }
  }
  if (var == nullptr || start == nullptr || !var->getType()->isIntegralOrEnumerationType()) {
    return shape;
  }
  // cond: v op b, or b op v
  const auto *cond = llvm::dyn_cast<clang::BinaryOperator>(fors->getCond()->IgnoreParenImpCasts());
  if (cond == nullptr || !cond->isComparisonOp()) {
    return shape;
  }
  clang::BinaryOperatorKind op = cond->getOpcode();
  const clang::Expr *bound = nullptr;
  // `j + 1 < n` (a stencil's interior) is `j < n - 1`: the offset moves to the bound.
  std::int64_t offset = 0;
  if (offset_of(cond->getLHS(), var, ctx, offset)) {
    bound = cond->getRHS();
  } else if (offset_of(cond->getRHS(), var, ctx, offset)) {
    bound = cond->getLHS();
    switch (op) {
    case clang::BO_LT:
      op = clang::BO_GT;
      break;
    case clang::BO_LE:
      op = clang::BO_GE;
      break;
    case clang::BO_GT:
      op = clang::BO_LT;
      break;
    case clang::BO_GE:
      op = clang::BO_LE;
      break;
    default:
      break;
    }
  } else {
    return shape;
  }
  // update: ++v, v++, --v, v--, v += s, v -= s, v = v + s
  const clang::Expr *step = nullptr;
  bool decreasing = false;
  const clang::Expr *inc = fors->getInc()->IgnoreParenImpCasts();
  if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(inc)) {
    if (!u->isIncrementDecrementOp() || named_variable(u->getSubExpr()) != var) {
      return shape;
    }
    decreasing = u->isDecrementOp();
  } else if (const auto *ca = llvm::dyn_cast<clang::CompoundAssignOperator>(inc)) {
    if (named_variable(ca->getLHS()) != var ||
        (ca->getOpcode() != clang::BO_AddAssign && ca->getOpcode() != clang::BO_SubAssign)) {
      return shape;
    }
    step = ca->getRHS();
    decreasing = ca->getOpcode() == clang::BO_SubAssign;
  } else if (const auto *as = llvm::dyn_cast<clang::BinaryOperator>(inc)) {
    const auto *rhs = llvm::dyn_cast<clang::BinaryOperator>(as->getRHS()->IgnoreParenImpCasts());
    if (as->getOpcode() != clang::BO_Assign || named_variable(as->getLHS()) != var ||
        rhs == nullptr || named_variable(rhs->getLHS()) != var ||
        (rhs->getOpcode() != clang::BO_Add && rhs->getOpcode() != clang::BO_Sub)) {
      return shape;
    }
    step = rhs->getRHS();
    decreasing = rhs->getOpcode() == clang::BO_Sub;
  } else {
    return shape;
  }
  if (step != nullptr) {
    clang::Expr::EvalResult value;
    if (step->EvaluateAsInt(value, ctx) && value.Val.getInt().isNegative()) {
      return shape; // v += -1: rare enough to leave to the counters
    }
  }
  BodyScanner scanner(var);
  scanner.TraverseStmt(const_cast<clang::Stmt *>(fors->getBody()));
  if (scanner.writes) {
    return shape;
  }
  VariableResolver vars(program, ctx, function);
  VarId v = vars.declare(var);
  // A loop with a variable of its own (loop_scopes.hpp) counts with that one.
  const auto own = program.loop_variables.find(loop);
  if (own != program.loop_variables.end() && own->second.contains(v)) {
    v = own->second.at(v);
  }
  const std::map<VarId, std::string> names = scope_names(program, writer, loop, ctx, substitutions);
  WriteOptions scoped;
  scoped.substitutions = &names;
  const WriteResult a = writer.write(start, function, scoped);
  const WriteResult b = writer.write(bound, function, scoped);
  const WriteResult s =
      step ? writer.write(step, function, scoped) : WriteResult{true, "1", "", {}};
  if (v == kNoVar || !a.ok || !b.ok || !s.ok) {
    return shape;
  }
  shape.variable = writer.name(v);
  shape.start = a.text;
  shape.step = s.text;
  shape.decreasing = decreasing;
  const bool inclusive = op == clang::BO_LE || op == clang::BO_GE;
  std::string end = b.text;
  if (offset != 0) {
    end = "(" + b.text + (offset > 0 ? " - " : " + ") +
          std::to_string(offset > 0 ? offset : -offset) + ")";
  }
  if (!decreasing && (op == clang::BO_LT || op == clang::BO_LE || op == clang::BO_NE)) {
    shape.end = inclusive ? "(" + end + " + 1)" : end;
    shape.canonical = true;
  } else if (decreasing && (op == clang::BO_GT || op == clang::BO_GE || op == clang::BO_NE)) {
    shape.end = inclusive ? "(" + end + " - 1)" : end;
    shape.canonical = true;
  } else {
    return shape;
  }
  if (scanner.leaves) {
    return shape; // a break or return makes the trip count data dependent
  }
  const std::string span = decreasing ? "(" + shape.start + ") - (" + shape.end + ")"
                                      : "(" + shape.end + ") - (" + shape.start + ")";
  shape.trips = shape.step == "1"
                    ? "max(0, " + span + ")"
                    : "max(0, (" + span + " + (" + shape.step + ") - 1) / (" + shape.step + "))";
  return shape;
}

std::string static_chunk_trips(const std::string &a, const std::string &b) {
  const std::string chunk = "((" + b + " - " + a + " + ntasks - 1) / ntasks)";
  return "max(0, min(" + b + ", " + a + " + (task + 1) * " + chunk + ") - (" + a + " + task * " +
         chunk + "))";
}

} // namespace parjava::frontend
