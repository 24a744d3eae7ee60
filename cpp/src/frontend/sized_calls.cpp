#include "sized_calls.hpp"

#include <clang/AST/Decl.h>
#include <clang/AST/Type.h>

namespace parjava::frontend {

namespace {

// Is the declared type of a parameter size_t (through any typedef sugar)?
bool is_size_t(clang::QualType type) {
  while (const auto *td = type->getAs<clang::TypedefType>()) {
    if (td->getDecl()->getName() == "size_t") {
      return true;
    }
    type = td->getDecl()->getUnderlyingType();
  }
  return false;
}

} // namespace

bool sized_call(const clang::Expr *call, SizedCall &out) {
  const auto *ce = llvm::dyn_cast_or_null<clang::CallExpr>(call);
  if (ce == nullptr) {
    return false;
  }
  const clang::FunctionDecl *fn = ce->getDirectCallee();
  if (fn == nullptr || fn->getIdentifier() == nullptr) {
    return false;
  }
  out = SizedCall{};
  out.callee = fn->getName().str();
  const unsigned n = ce->getNumArgs();
  if (out.callee == "free" && n == 1) {
    out.pointer = ce->getArg(0);
    return true;
  }
  if (out.callee == "realloc" && n == 2) {
    out.pointer = ce->getArg(0);
    out.sizes = {ce->getArg(1)};
    out.allocates = true;
    return true;
  }
  out.allocates = out.callee == "malloc" || out.callee == "calloc" || out.callee == "aligned_alloc";
  for (unsigned i = 0; i < n && i < fn->getNumParams(); ++i) {
    if (is_size_t(fn->getParamDecl(i)->getOriginalType())) {
      out.sizes.push_back(ce->getArg(i));
    }
  }
  return !out.sizes.empty();
}

} // namespace parjava::frontend
