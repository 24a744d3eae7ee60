#include "record_punning.hpp"

#include <set>

#include <clang/AST/RecordLayout.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include "calls.hpp"

namespace parjava::frontend {

namespace {

const clang::RecordDecl *pointee_record(clang::QualType type) {
  type = type.getCanonicalType();
  if (!type->isPointerType()) {
    return nullptr;
  }
  const auto *record = type->getPointeeType()->getAs<clang::RecordType>();
  const clang::RecordDecl *decl = record ? record->getDecl()->getDefinition() : nullptr;
  return decl != nullptr && !decl->isInvalidDecl() && !decl->isDependentType() ? decl : nullptr;
}

class PointerCasts : public clang::RecursiveASTVisitor<PointerCasts> {
public:
  explicit PointerCasts(const clang::SourceManager &sm) : sm_(sm) {}
  bool VisitExplicitCastExpr(clang::ExplicitCastExpr *cast) {
    if (sm_.isInSystemHeader(cast->getBeginLoc())) {
      return true;
    }
    const clang::RecordDecl *to = pointee_record(cast->getType());
    const clang::RecordDecl *from =
        pointee_record(cast->getSubExpr()->IgnoreParenImpCasts()->getType());
    if (to != nullptr && from != nullptr && to->getCanonicalDecl() != from->getCanonicalDecl()) {
      pairs.insert({from, to});
    }
    return true;
  }
  std::set<std::pair<const clang::RecordDecl *, const clang::RecordDecl *>> pairs;

private:
  const clang::SourceManager &sm_;
};

std::string find_root(std::map<std::string, std::string> &parent, const std::string &usr) {
  std::string root = usr;
  for (auto it = parent.find(root); it != parent.end() && it->second != root;
       it = parent.find(root)) {
    root = it->second;
  }
  return root;
}

} // namespace

void find_record_punning(Program &program) {
  std::set<clang::ASTContext *> units;
  for (const FunctionInfo &fn : program.functions) {
    units.insert(fn.context);
  }
  std::map<std::string, std::string> &parent = program.field_representatives;
  for (clang::ASTContext *unit : units) {
    PointerCasts casts(unit->getSourceManager());
    casts.TraverseDecl(unit->getTranslationUnitDecl());
    for (const auto &[a, b] : casts.pairs) {
      const clang::ASTRecordLayout &la = unit->getASTRecordLayout(a);
      const clang::ASTRecordLayout &lb = unit->getASTRecordLayout(b);
      auto fa = a->field_begin();
      auto fb = b->field_begin();
      // The common initial sequence: same types at the same offsets, no bit-fields.
      for (; fa != a->field_end() && fb != b->field_end(); ++fa, ++fb) {
        if (fa->isBitField() || fb->isBitField() ||
            la.getFieldOffset(fa->getFieldIndex()) != lb.getFieldOffset(fb->getFieldIndex()) ||
            fa->getType().getCanonicalType().getAsString() !=
                fb->getType().getCanonicalType().getAsString()) {
          break;
        }
        const std::string ua = usr_of(*fa);
        const std::string ub = usr_of(*fb);
        if (ua.empty() || ub.empty()) {
          break;
        }
        const std::string ra = find_root(parent, ua);
        const std::string rb = find_root(parent, ub);
        if (ra != rb) {
          parent[std::max(ra, rb)] = std::min(ra, rb);
          parent.emplace(std::min(ra, rb), std::min(ra, rb));
        }
      }
    }
  }
  // Every entry points at its root, so a lookup is one step.
  for (auto &[usr, root] : parent) {
    root = find_root(parent, usr);
  }
}

} // namespace parjava::frontend
