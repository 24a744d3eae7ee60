#include "subscripts.hpp"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/ExprCXX.h>

namespace parjava::frontend {

namespace {

const clang::ClassTemplateSpecializationDecl *std_array_record(const clang::CXXRecordDecl *r) {
  const auto *spec = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(r);
  if (spec == nullptr || spec->getName() != "array" || !spec->isInStdNamespace()) {
    return nullptr;
  }
  const clang::TemplateArgumentList &args = spec->getTemplateArgs();
  if (args.size() != 2 || args[0].getKind() != clang::TemplateArgument::Type ||
      args[1].getKind() != clang::TemplateArgument::Integral) {
    return nullptr;
  }
  return spec;
}

// Whether `method` is std::array's method `name`.
bool std_array_method(const clang::CXXMethodDecl *method, const char *name) {
  return method != nullptr && method->getNameAsString() == name &&
         std_array_record(method->getParent()) != nullptr;
}

} // namespace

bool is_std_array_assignment(const clang::Expr *call) {
  const auto *op = llvm::dyn_cast_or_null<clang::CXXOperatorCallExpr>(call);
  const auto *method =
      op != nullptr ? llvm::dyn_cast_or_null<clang::CXXMethodDecl>(op->getDirectCallee()) : nullptr;
  return method != nullptr && op->getOperator() == clang::OO_Equal &&
         std_array_method(method, "operator=");
}

std::optional<std::uint64_t> std_array_extent(clang::QualType type, clang::QualType *element) {
  const clang::ClassTemplateSpecializationDecl *spec =
      std_array_record(type.getNonReferenceType()->getAsCXXRecordDecl());
  if (spec == nullptr) {
    return std::nullopt;
  }
  const clang::TemplateArgumentList &args = spec->getTemplateArgs();
  if (element != nullptr) {
    *element = args[0].getAsType();
  }
  return args[1].getAsIntegral().getZExtValue();
}

Subscript subscript(const clang::Expr *e) {
  Subscript out;
  if (e == nullptr) {
    return out;
  }
  e = e->IgnoreParenImpCasts();
  if (const auto *sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) {
    out.base = sub->getBase();
    out.index = sub->getIdx();
    return out;
  }
  if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e)) {
    const auto *method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(op->getDirectCallee());
    if (op->getOperator() == clang::OO_Subscript && op->getNumArgs() == 2 &&
        std_array_method(method, "operator[]")) {
      out.base = op->getArg(0);
      out.index = op->getArg(1);
    }
    return out;
  }
  if (const auto *call = llvm::dyn_cast<clang::CXXMemberCallExpr>(e)) {
    if (call->getNumArgs() == 1 && std_array_method(call->getMethodDecl(), "at")) {
      out.base = call->getImplicitObjectArgument();
      out.index = call->getArg(0);
    }
  }
  return out;
}

bool is_std_array_access(const clang::Expr *call) {
  return call != nullptr && !llvm::isa<clang::ArraySubscriptExpr>(call->IgnoreParenImpCasts()) &&
         subscript(call).valid();
}

} // namespace parjava::frontend
