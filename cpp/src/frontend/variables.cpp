#include "variables.hpp"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include "calls.hpp"

namespace parjava::frontend {

namespace {

std::string typedef_name(clang::QualType type) {
  while (!type.isNull()) {
    if (const auto *td = type->getAs<clang::TypedefType>()) {
      const std::string name = td->getDecl()->getNameAsString();
      if (name.rfind("MPI_", 0) == 0) {
        return name;
      }
      type = td->getDecl()->getUnderlyingType();
      continue;
    }
    break;
  }
  return {};
}

bool is_std_vector(clang::QualType type) {
  const auto *record = type.getNonReferenceType()->getAsCXXRecordDecl();
  return record != nullptr && record->getQualifiedNameAsString() == "std::vector";
}

const clang::FunctionDecl *owner_function(const clang::ValueDecl *decl) {
  const clang::DeclContext *dc = decl->getDeclContext();
  while (dc != nullptr) {
    if (const auto *fn = llvm::dyn_cast<clang::FunctionDecl>(dc)) {
      return fn;
    }
    dc = dc->getParent();
  }
  return nullptr;
}

class UseCollector : public clang::RecursiveASTVisitor<UseCollector> {
public:
  UseCollector(VariableResolver &resolver, std::vector<VarId> &out)
      : resolver_(resolver), out_(out) {}
  bool TraverseLambdaExpr(clang::LambdaExpr *) { return true; }
  bool TraverseUnaryExprOrTypeTraitExpr(clang::UnaryExprOrTypeTraitExpr *) { return true; }
  // The value of a user call that became a leaf is its return slot, not its arguments. (The
  // visitor dispatches on the exact class, so each call class needs its override.)
  bool TraverseCallExpr(clang::CallExpr *call) {
    return result(call) || clang::RecursiveASTVisitor<UseCollector>::TraverseCallExpr(call);
  }
  bool TraverseCXXMemberCallExpr(clang::CXXMemberCallExpr *call) {
    return result(call) ||
           clang::RecursiveASTVisitor<UseCollector>::TraverseCXXMemberCallExpr(call);
  }
  bool TraverseCXXOperatorCallExpr(clang::CXXOperatorCallExpr *call) {
    return result(call) ||
           clang::RecursiveASTVisitor<UseCollector>::TraverseCXXOperatorCallExpr(call);
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr *ref) {
    add(resolver_.lvalue(ref));
    return true;
  }
  bool VisitMemberExpr(clang::MemberExpr *member) {
    add(resolver_.lvalue(member));
    return true;
  }
  bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr *call) {
    const clang::CXXMethodDecl *method = call->getMethodDecl();
    if (method != nullptr && method->getNameAsString() == "size") {
      add(resolver_.container_size(call->getImplicitObjectArgument()));
    }
    return true;
  }

private:
  bool result(const clang::CallExpr *call) {
    const auto it = resolver_.program().call_results.find(call);
    if (it == resolver_.program().call_results.end()) {
      return false;
    }
    add(it->second);
    return true;
  }
  void add(VarId id) {
    if (id == kNoVar) {
      return;
    }
    for (VarId v : out_) {
      if (v == id) {
        return;
      }
    }
    out_.push_back(id);
  }
  VariableResolver &resolver_;
  std::vector<VarId> &out_;
};

} // namespace

VarType classify_type(clang::QualType type) {
  if (type.isNull()) {
    return VarType::Other;
  }
  if (type->isReferenceType()) {
    return VarType::Other;
  }
  clang::QualType element = type;
  if (const auto *array = type->getAsArrayTypeUnsafe()) {
    element = array->getElementType();
    if (typedef_name(element) == "MPI_Request") {
      return VarType::Request;
    }
    return VarType::Other;
  }
  const std::string mpi = typedef_name(type);
  if (mpi == "MPI_Comm") {
    return VarType::Comm;
  }
  if (mpi == "MPI_Request") {
    return VarType::Request;
  }
  if (mpi == "MPI_Datatype") {
    return VarType::Datatype;
  }
  const clang::QualType canonical = type.getCanonicalType();
  if (canonical->isIntegralOrEnumerationType()) {
    return VarType::Integer;
  }
  if (canonical->isRealFloatingType()) {
    return VarType::Floating;
  }
  return VarType::Other;
}

VarId VariableResolver::declare(const clang::ValueDecl *decl) {
  if (decl == nullptr) {
    return kNoVar;
  }
  const clang::FunctionDecl *owner = owner_function(decl);
  const FunctionId owner_id = program_.function_of(owner);
  // A lambda reading a variable of the function that encloses it.
  if (owner != nullptr && function_ != kNoFunction && owner_id != function_ &&
      llvm::isa<clang::VarDecl>(decl) && !llvm::cast<clang::VarDecl>(decl)->hasGlobalStorage()) {
    const FunctionInfo &fn = program_.functions[function_];
    const std::string key = "capture:" + std::to_string(function_) + ":" +
                            std::to_string(reinterpret_cast<std::uintptr_t>(decl));
    const VarType type = classify_type(decl->getType());
    if (type == VarType::Other) {
      return kNoVar;
    }
    const VarId id = program_.synthetic(key, type, VarScope::Local, function_);
    Variable &v = program_.variables[id];
    v.source_name = decl->getNameAsString();
    v.location = decl->getLocation();
    if (fn.task_capture != nullptr &&
        fn.task_capture->getCanonicalDecl() == decl->getCanonicalDecl()) {
      v.scope = VarScope::Builtin;
      v.builtin = "task";
    } else if (v.representable && v.unrepresentable_reason.empty()) {
      v.representable = false;
      v.unrepresentable_reason = "'" + v.source_name +
                                 "' is captured by the lambda from the "
                                 "function around it";
      v.unrepresentable_at = decl->getLocation();
    }
    return id;
  }
  const VarId known = program_.variable_of(decl);
  if (known != kNoVar) {
    return known;
  }
  const VarType type = classify_type(decl->getType());
  if (type == VarType::Other) {
    return kNoVar;
  }
  Variable v;
  v.source_name = decl->getNameAsString();
  v.type = type;
  v.decl = decl;
  v.location = decl->getLocation();
  if (const auto *field = llvm::dyn_cast<clang::FieldDecl>(decl)) {
    v.scope = VarScope::Field;
    v.source_name = record_name(llvm::dyn_cast<clang::CXXRecordDecl>(field->getParent())) +
                    "::" + v.source_name;
    if (v.source_name.rfind("::", 0) == 0) {
      v.source_name = field->getParent()->getNameAsString() + v.source_name;
    }
  } else if (const auto *param = llvm::dyn_cast<clang::ParmVarDecl>(decl)) {
    v.function = owner_id;
    v.param_index = param->getFunctionScopeIndex();
    v.scope = VarScope::Parameter;
    if (owner != nullptr && owner->isMain() && v.param_index == 0) {
      v.scope = VarScope::Builtin;
      v.builtin = "argc";
    }
  } else if (const auto *var = llvm::dyn_cast<clang::VarDecl>(decl)) {
    if (var->hasGlobalStorage()) {
      v.scope = VarScope::Global;
      if (owner != nullptr) {
        v.source_name = owner->getNameAsString() + "::" + v.source_name; // static local
      }
    } else {
      v.scope = VarScope::Local;
      v.function = owner_id;
    }
  } else {
    return kNoVar;
  }
  const VarId id = program_.add(std::move(v));
  program_.map_variable(decl, id);
  return id;
}

VarId VariableResolver::field(const clang::FieldDecl *f) { return declare(f); }

VarId VariableResolver::status_field(const clang::Expr *status, const std::string &field_name) {
  status = status->IgnoreParenImpCasts();
  if (const auto *unary = llvm::dyn_cast<clang::UnaryOperator>(status)) {
    if (unary->getOpcode() == clang::UO_AddrOf) {
      status = unary->getSubExpr()->IgnoreParenImpCasts();
    }
  }
  const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(status);
  if (ref == nullptr) {
    return kNoVar;
  }
  const auto *var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
  if (var == nullptr || var->getType()->isArrayType()) {
    return kNoVar;
  }
  const bool global = var->hasGlobalStorage();
  const FunctionId owner = global ? kNoFunction : program_.function_of(owner_function(var));
  const std::string key =
      "status:" + std::to_string(reinterpret_cast<std::uintptr_t>(var->getCanonicalDecl())) + ":" +
      field_name;
  const VarId id =
      program_.synthetic(key, VarType::Integer, global ? VarScope::Global : VarScope::Local, owner);
  Variable &v = program_.variables[id];
  v.source_name = var->getNameAsString() + "." + field_name;
  v.location = var->getLocation();
  return id;
}

VarId VariableResolver::container_size(const clang::Expr *container) {
  container = container->IgnoreParenImpCasts();
  if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(container)) {
    return container_size_of(ref->getDecl());
  }
  if (const auto *member = llvm::dyn_cast<clang::MemberExpr>(container)) {
    return container_size_of(member->getMemberDecl());
  }
  return kNoVar;
}

VarId VariableResolver::container_size_of(const clang::ValueDecl *decl) {
  if (decl == nullptr || !is_std_vector(decl->getType())) {
    return kNoVar;
  }
  VarScope scope = VarScope::Global;
  FunctionId owner = kNoFunction;
  if (llvm::isa<clang::FieldDecl>(decl)) {
    scope = VarScope::Field;
  } else if (const auto *var = llvm::dyn_cast<clang::VarDecl>(decl)) {
    if (!var->hasGlobalStorage()) {
      owner = program_.function_of(owner_function(var));
      scope = llvm::isa<clang::ParmVarDecl>(var) ? VarScope::Parameter : VarScope::Local;
    }
  }
  if (scope == VarScope::Parameter) {
    return kNoVar; // a vector passed in: its size is the caller's, which a copy does not carry
  }
  if (owner != kNoFunction && owner != function_) {
    return kNoVar;
  }
  const std::string key =
      "size:" + std::to_string(reinterpret_cast<std::uintptr_t>(decl->getCanonicalDecl()));
  const VarId id = program_.synthetic(key, VarType::Integer, scope, owner);
  Variable &v = program_.variables[id];
  std::string name = decl->getNameAsString();
  if (const auto *f = llvm::dyn_cast<clang::FieldDecl>(decl)) {
    name = f->getParent()->getNameAsString() + "::" + name;
  }
  v.source_name = name + ".size()";
  v.location = decl->getLocation();
  return id;
}

VarId VariableResolver::lvalue(const clang::Expr *expr) {
  if (expr == nullptr) {
    return kNoVar;
  }
  expr = expr->IgnoreParenImpCasts();
  if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(expr)) {
    if (llvm::isa<clang::VarDecl>(ref->getDecl())) {
      return declare(ref->getDecl());
    }
    return kNoVar;
  }
  if (const auto *member = llvm::dyn_cast<clang::MemberExpr>(expr)) {
    const clang::ValueDecl *decl = member->getMemberDecl();
    const clang::Expr *base = member->getBase()->IgnoreParenImpCasts();
    const clang::QualType base_type =
        member->isArrow() ? base->getType()->getPointeeType() : base->getType();
    const std::string mpi = base_type.isNull() ? std::string() : typedef_name(base_type);
    const std::string field_name = decl->getNameAsString();
    if ((mpi == "MPI_Status" || field_name == "MPI_SOURCE" || field_name == "MPI_TAG") &&
        !member->isArrow()) {
      if (field_name == "MPI_SOURCE" || field_name == "MPI_TAG") {
        return status_field(base, field_name);
      }
      return kNoVar;
    }
    if (const auto *f = llvm::dyn_cast<clang::FieldDecl>(decl)) {
      return field(f);
    }
    if (llvm::isa<clang::VarDecl>(decl)) {
      return declare(decl); // static data member
    }
  }
  return kNoVar;
}

void VariableResolver::uses(const clang::Expr *expr, std::vector<VarId> &out) {
  if (expr == nullptr) {
    return;
  }
  UseCollector collector(*this, out);
  collector.TraverseStmt(const_cast<clang::Expr *>(expr));
}

std::string source_text(const clang::Stmt *stmt, const clang::ASTContext &context,
                        std::size_t limit) {
  if (stmt == nullptr) {
    return {};
  }
  const clang::SourceManager &sm = context.getSourceManager();
  const clang::CharSourceRange range = clang::CharSourceRange::getTokenRange(
      sm.getExpansionRange(stmt->getSourceRange()).getAsRange());
  const llvm::StringRef text = clang::Lexer::getSourceText(range, sm, context.getLangOpts());
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == '\t' || c == ' ' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) {
      out += ' ';
      space = false;
    }
    out += c;
    if (out.size() >= limit) {
      out += "...";
      break;
    }
  }
  return out;
}

} // namespace parjava::frontend
