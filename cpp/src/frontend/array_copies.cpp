#include "array_copies.hpp"

#include <string>

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include "effects.hpp"
#include "record_copies.hpp"
#include "subscripts.hpp"

namespace parjava::frontend {

namespace {

// The aggregate whose elements `value` holds: a named array, or a program function's return
// cell for a call of it.
AggregateId source_aggregate(const clang::Expr *value, VariableResolver &vars) {
  value = record_source(value);
  if (const auto *call = llvm::dyn_cast<clang::CallExpr>(value)) {
    const FunctionId f = vars.program().callee_of(call->getDirectCallee());
    return f != kNoFunction ? returned_array_cell(vars.program(), f) : kNoAggregate;
  }
  // A named array, or a std::array parameter's cell.
  const auto target = vars.pointer_target(value);
  return target && target->offset == 0 ? target->aggregate : kNoAggregate;
}

} // namespace

AggregateId returned_array_cell(Program &program, FunctionId function) {
  const FunctionInfo &fn = program.functions[function];
  clang::QualType element;
  const auto n = std_array_extent(fn.decl->getReturnType(), &element);
  const VarType type = n ? classify_type(element) : VarType::Other;
  if (!n || *n == 0 || *n > kMaxAggregateElements ||
      (type != VarType::Integer && type != VarType::Floating)) {
    return kNoAggregate;
  }
  const std::string key = "array-return:" + std::to_string(function) + ":";
  const VarId first = program.synthetic(key + "0", type, VarScope::Global, kNoFunction);
  if (program.variables[first].aggregate != kNoAggregate) {
    return program.variables[first].aggregate;
  }
  const auto id = static_cast<AggregateId>(program.aggregates.size());
  Aggregate cell;
  cell.source_name = fn.name + "()";
  cell.dims = {*n};
  for (std::uint64_t k = 0; k < *n; ++k) {
    const VarId v = program.synthetic(key + std::to_string(k), type, VarScope::Global, kNoFunction);
    Variable &var = program.variables[v];
    var.source_name = fn.name + "()[" + std::to_string(k) + "]";
    var.location = fn.decl->getLocation();
    var.aggregate = id;
    var.element = k;
    cell.elements.push_back(v);
  }
  program.aggregates.push_back(std::move(cell));
  return id;
}

std::vector<Effect> whole_array_effects(AggregateId target, const clang::Expr *value,
                                        VariableResolver &vars, clang::SourceLocation where) {
  const Program &program = vars.program();
  const std::vector<VarId> elements = program.aggregates[target].elements;
  const AggregateId from = source_aggregate(value, vars);
  const bool copies = from != kNoAggregate && from != target &&
                      program.aggregates[from].elements.size() == elements.size() &&
                      program.variables[program.aggregates[from].elements.front()].type ==
                          program.variables[elements.front()].type;
  std::vector<Effect> out;
  for (std::size_t k = 0; k < elements.size(); ++k) {
    if (!copies) {
      out.push_back(havoc(elements[k],
                          "set from '" + source_text(value, vars.context(), 40) +
                              "', a whole array the model does not follow",
                          where));
      continue;
    }
    Effect e;
    e.kind = Effect::Kind::Copy;
    e.var = elements[k];
    e.source = program.aggregates[from].elements[k];
    e.uses.push_back(e.source);
    e.location = where;
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<std::vector<Effect>> whole_array_assignment(const clang::CallExpr *call,
                                                          VariableResolver &vars) {
  const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
  if (op == nullptr || op->getOperator() != clang::OO_Equal || op->getNumArgs() != 2 ||
      !std_array_extent(op->getArg(0)->getType(), nullptr)) {
    return std::nullopt;
  }
  const clang::ValueDecl *decl = named_decl(op->getArg(0)->IgnoreParenImpCasts());
  const AggregateId target = decl != nullptr ? vars.aggregate(decl) : kNoAggregate;
  if (target == kNoAggregate) {
    return std::nullopt;
  }
  return whole_array_effects(target, op->getArg(1), vars, op->getOperatorLoc());
}

namespace {

class WholeArrayUses : public clang::RecursiveASTVisitor<WholeArrayUses> {
public:
  explicit WholeArrayUses(clang::ASTContext &context) : context_(context) {}
  bool TraverseLambdaExpr(clang::LambdaExpr *) { return true; }
  bool VisitDeclRefExpr(clang::DeclRefExpr *e) {
    check(e);
    return true;
  }
  bool VisitMemberExpr(clang::MemberExpr *e) {
    check(e);
    return true;
  }
  std::vector<const clang::Expr *> uses;

private:
  void check(const clang::Expr *e) {
    if (!std_array_extent(e->getType(), nullptr) || harmless(e)) {
      return;
    }
    uses.push_back(e);
  }

  const clang::Expr *parent_expr(const clang::Expr *e, const clang::Stmt **stmt) const {
    const auto parents = context_.getParents(*e);
    *stmt = parents.empty() ? nullptr : parents[0].get<clang::Stmt>();
    return parents.empty() ? nullptr : parents[0].get<clang::Expr>();
  }

  bool harmless(const clang::Expr *e) const {
    const clang::Stmt *stmt = nullptr;
    const clang::Expr *parent = parent_expr(e, &stmt);
    while (parent != nullptr &&
           (llvm::isa<clang::ImplicitCastExpr>(parent) || llvm::isa<clang::ParenExpr>(parent) ||
            llvm::isa<clang::MaterializeTemporaryExpr>(parent))) {
      e = parent;
      parent = parent_expr(e, &stmt);
    }
    if (parent == nullptr) {
      return stmt != nullptr && llvm::isa<clang::ReturnStmt>(stmt);
    }
    if (const auto *member = llvm::dyn_cast<clang::MemberExpr>(parent)) {
      const auto *method = llvm::dyn_cast<clang::CXXMethodDecl>(member->getMemberDecl());
      const std::string name = method != nullptr ? method->getNameAsString() : "";
      return name == "at" || name == "size" || name == "empty" || name == "max_size";
    }
    if (is_std_array_access(parent) || is_std_array_assignment(parent)) {
      return true;
    }
    if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(parent)) {
      return construct->getConstructor()->isCopyOrMoveConstructor() ||
             read_only_argument(construct->getConstructor(), construct->arguments(), e);
    }
    if (const auto *call = llvm::dyn_cast<clang::CallExpr>(parent)) {
      return read_only_argument(call->getDirectCallee(), call->arguments(), e);
    }
    return false;
  }

  // Bound to a const reference parameter (or copied into a by-value one): the callee reads it.
  template <typename Arguments>
  static bool read_only_argument(const clang::FunctionDecl *callee, Arguments arguments,
                                 const clang::Expr *e) {
    unsigned i = 0;
    for (const clang::Expr *a : arguments) {
      if (a == e) {
        if (callee == nullptr || i >= callee->getNumParams()) {
          return false;
        }
        const clang::QualType type = callee->getParamDecl(i)->getType();
        return !type->isReferenceType() || type.getNonReferenceType().isConstQualified();
      }
      ++i;
    }
    return false;
  }

  clang::ASTContext &context_;
};

} // namespace

std::vector<const clang::Expr *> escaping_array_uses(const clang::Stmt *body,
                                                     clang::ASTContext &context) {
  WholeArrayUses visitor(context);
  visitor.TraverseStmt(const_cast<clang::Stmt *>(body));
  return std::move(visitor.uses);
}

} // namespace parjava::frontend
