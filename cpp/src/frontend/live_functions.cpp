#include "live_functions.hpp"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

namespace parjava::frontend {

namespace {

// Every function a body names: called, taken by address, a method, a constructor.
class FunctionRefs : public clang::RecursiveASTVisitor<FunctionRefs> {
public:
  bool VisitDeclRefExpr(clang::DeclRefExpr *d) {
    add(llvm::dyn_cast<clang::FunctionDecl>(d->getDecl()));
    return true;
  }
  bool VisitMemberExpr(clang::MemberExpr *m) {
    add(llvm::dyn_cast<clang::FunctionDecl>(m->getMemberDecl()));
    return true;
  }
  bool VisitCXXConstructExpr(clang::CXXConstructExpr *c) {
    add(c->getConstructor());
    return true;
  }
  std::vector<const clang::FunctionDecl *> named;

private:
  void add(const clang::FunctionDecl *fd) {
    if (fd != nullptr) {
      named.push_back(fd);
    }
  }
};

} // namespace

std::vector<bool> live_functions(const Program &program, const CallClassifier &calls) {
  const std::size_t n = program.functions.size();
  std::vector<bool> live(n, false);
  std::vector<FunctionId> work;
  for (FunctionId f = 0; f < n; ++f) {
    if (program.functions[f].decl->isMain()) {
      live[f] = true;
      work.push_back(f);
    }
  }
  if (work.empty()) {
    return std::vector<bool>(n, true);
  }
  while (!work.empty()) {
    const FunctionId f = work.back();
    work.pop_back();
    const FunctionInfo &fn = program.functions[f];
    std::vector<FunctionId> targets;
    for (const clang::Expr *call : calls_in(fn.decl->getBody())) {
      const ClassifiedCall c = calls.classify(call, *fn.context);
      if (c.kind == CallClass::Indirect && c.targets.empty()) {
        return std::vector<bool>(n, true);
      }
      targets.insert(targets.end(), c.targets.begin(), c.targets.end());
      if (c.kind == CallClass::User && c.user != kNoFunction) {
        targets.push_back(c.user);
      }
    }
    FunctionRefs refs;
    refs.TraverseStmt(fn.decl->getBody());
    for (const clang::FunctionDecl *fd : refs.named) {
      targets.push_back(calls.user_function(fd));
    }
    for (FunctionId g : targets) {
      if (g < n && !live[g]) {
        live[g] = true;
        work.push_back(g);
      }
    }
  }
  return live;
}

} // namespace parjava::frontend
