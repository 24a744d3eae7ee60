#include "vector_parameters.hpp"

#include <clang/AST/RecursiveASTVisitor.h>

#include <map>
#include <set>
#include <vector>

namespace parjava::frontend {

namespace {

// Names of functions that are not the callee of a call: an address taken (`std::thread(worker,
// std::ref(v))`, a callback table), through which the model would not see the call.
class FunctionNames : public clang::RecursiveASTVisitor<FunctionNames> {
public:
  bool VisitCallExpr(clang::CallExpr *call) {
    if (const auto *ref =
            llvm::dyn_cast_or_null<clang::DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts())) {
      callees.insert(ref);
    }
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr *ref) {
    if (const auto *fn = llvm::dyn_cast<clang::FunctionDecl>(ref->getDecl())) {
      named.emplace_back(ref, fn->getCanonicalDecl());
    }
    return true;
  }
  std::set<const clang::DeclRefExpr *> callees;
  std::vector<std::pair<const clang::DeclRefExpr *, const clang::FunctionDecl *>> named;
};

} // namespace

void find_vector_size_cells(Program &program, const CallClassifier &calls) {
  const std::size_t n = program.functions.size();
  std::vector<bool> called(n, false);
  std::vector<bool> hidden(n, false); // reached through a pointer, a dispatch or a taken address
  std::set<const clang::FunctionDecl *> taken;
  for (FunctionId f = 0; f < n; ++f) {
    if (!program.live(f)) {
      continue;
    }
    const FunctionInfo &fn = program.functions[f];
    for (const clang::Expr *call : calls_in(fn.decl->getBody())) {
      const ClassifiedCall c = calls.classify(call, *fn.context);
      if (c.kind == CallClass::User && c.user != kNoFunction) {
        called[c.user] = true;
      }
      for (FunctionId g : c.targets) {
        hidden[g] = true;
      }
    }
    FunctionNames names;
    names.TraverseStmt(const_cast<clang::Stmt *>(fn.decl->getBody()));
    for (const auto &[ref, decl] : names.named) {
      if (!names.callees.contains(ref)) {
        taken.insert(decl);
      }
    }
  }
  for (FunctionId g = 0; g < n; ++g) {
    const FunctionInfo &fn = program.functions[g];
    const auto *method = llvm::dyn_cast<clang::CXXMethodDecl>(fn.decl);
    if (!program.live(g) || !called[g] || hidden[g] ||
        taken.contains(fn.decl->getCanonicalDecl()) || (method != nullptr && method->isVirtual()) ||
        fn.recursive) {
      continue;
    }
    for (const clang::ParmVarDecl *param : fn.decl->parameters()) {
      const auto *record = param->getType().getNonReferenceType()->getAsCXXRecordDecl();
      if (record == nullptr || record->getQualifiedNameAsString() != "std::vector" ||
          param->getName().empty()) {
        continue;
      }
      const std::string key =
          "size:" + std::to_string(reinterpret_cast<std::uintptr_t>(param->getCanonicalDecl()));
      const VarId cell = program.synthetic(key, VarType::Integer, VarScope::Global, kNoFunction);
      Variable &v = program.variables[cell];
      v.source_name = param->getNameAsString() + ".size()";
      v.location = param->getLocation();
      program.vector_size_cells[param->getCanonicalDecl()] = cell;
    }
  }
}

} // namespace parjava::frontend
