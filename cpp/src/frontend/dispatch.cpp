#include "dispatch.hpp"

#include <set>

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include "calls.hpp"

namespace parjava::frontend {

namespace {

// Functions named other than as the callee of a direct call: their address is taken.
class AddressTaken : public clang::RecursiveASTVisitor<AddressTaken> {
public:
  explicit AddressTaken(const clang::SourceManager &sm) : sm_(sm) {}
  // The callee of a direct call is visited (pre-order) before the reference it holds.
  bool VisitCallExpr(clang::CallExpr *call) {
    if (const auto *ref =
            llvm::dyn_cast<clang::DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts())) {
      callees_.insert(ref);
    }
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr *ref) {
    const auto *fn = llvm::dyn_cast<clang::FunctionDecl>(ref->getDecl());
    if (fn == nullptr || callees_.contains(ref) || sm_.isInSystemHeader(ref->getLocation())) {
      return true;
    }
    if (const auto *method = llvm::dyn_cast<clang::CXXMethodDecl>(fn)) {
      if (!method->isStatic()) {
        return true; // a member pointer, not a function pointer
      }
    }
    taken.push_back(fn);
    return true;
  }
  std::vector<const clang::FunctionDecl *> taken;

private:
  const clang::SourceManager &sm_;
  std::set<const clang::DeclRefExpr *> callees_;
};

} // namespace

std::string function_type_key(clang::QualType type) {
  if (type.isNull()) {
    return {};
  }
  type = type.getCanonicalType();
  if (type->isPointerType()) {
    type = type->getPointeeType().getCanonicalType();
  }
  if (!type->isFunctionType()) {
    return {};
  }
  return type.getAsString();
}

std::optional<FunctionShape> function_shape(clang::QualType type) {
  if (type.isNull()) {
    return std::nullopt;
  }
  type = type.getCanonicalType();
  if (type->isPointerType()) {
    type = type->getPointeeType().getCanonicalType();
  }
  const auto *proto = type->getAs<clang::FunctionProtoType>();
  if (proto == nullptr) {
    return std::nullopt;
  }
  const auto object_pointer = [](clang::QualType t) {
    t = t.getCanonicalType();
    return t->isPointerType() && !t->getPointeeType()->isFunctionType();
  };
  FunctionShape shape;
  shape.result = proto->getReturnType().getCanonicalType().getAsString();
  shape.object_pointer.push_back(object_pointer(proto->getReturnType()));
  for (const clang::QualType param : proto->getParamTypes()) {
    shape.params.push_back(param.getCanonicalType().getUnqualifiedType().getAsString());
    shape.object_pointer.push_back(object_pointer(param));
  }
  shape.variadic = proto->isVariadic();
  return shape;
}

bool callable_through(const FunctionShape &call, const FunctionShape &held) {
  if (call.variadic != held.variadic || call.params.size() != held.params.size()) {
    return false;
  }
  const auto fits = [](const std::string &want, bool want_pointer, const std::string &have,
                       bool have_pointer) {
    return want == have ||
           (want_pointer && have_pointer && (want == "void *" || want == "const void *"));
  };
  if (!fits(call.result, call.object_pointer[0], held.result, held.object_pointer[0])) {
    return false;
  }
  for (std::size_t i = 0; i < call.params.size(); ++i) {
    if (!fits(call.params[i], call.object_pointer[i + 1], held.params[i],
              held.object_pointer[i + 1])) {
      return false;
    }
  }
  return true;
}

DispatchTable find_dispatch_table(const Program &program, const CallClassifier &calls) {
  DispatchTable table;
  std::set<clang::ASTContext *> units;
  for (const FunctionInfo &fn : program.functions) {
    units.insert(fn.context);
  }
  std::set<std::pair<std::string, FunctionId>> seen;
  for (clang::ASTContext *unit : units) {
    AddressTaken finder(unit->getSourceManager());
    finder.TraverseDecl(unit->getTranslationUnitDecl());
    for (const clang::FunctionDecl *fn : finder.taken) {
      const std::string key = function_type_key(fn->getType());
      if (key.empty()) {
        continue;
      }
      if (!table.shapes.contains(key)) {
        if (auto shape = function_shape(fn->getType())) {
          table.shapes.emplace(key, std::move(*shape));
        }
      }
      const FunctionId id = calls.defined_function(fn);
      if (id == kNoFunction) {
        table.external.emplace(key, fn->getNameAsString());
      } else if (seen.insert({key, id}).second) {
        table.functions[key].push_back(id);
      }
    }
  }
  return table;
}

namespace {

// The name by which the end of the defining unit's main file reaches `decl` ("" if none: a
// template, an overload set, a definition outside the main file).
std::string name_at_end(const FunctionInfo &fn) {
  const clang::FunctionDecl *decl = fn.decl;
  const clang::SourceManager &sm = fn.context->getSourceManager();
  if (decl->getTemplatedKind() != clang::FunctionDecl::TK_NonTemplate ||
      !sm.isInMainFile(sm.getExpansionLoc(decl->getLocation()))) {
    return {};
  }
  const auto lookup = decl->getDeclContext()->getRedeclContext()->lookup(decl->getDeclName());
  if (std::distance(lookup.begin(), lookup.end()) > 1) {
    return {};
  }
  std::string name = decl->getQualifiedNameAsString();
  const std::string anonymous = "(anonymous namespace)::";
  for (auto at = name.find(anonymous); at != std::string::npos; at = name.find(anonymous)) {
    name.erase(at, anonymous.size());
  }
  return name;
}

} // namespace

std::optional<DispatchSpelling> dispatch_spelling(const Program &program, FunctionId function,
                                                  const clang::ASTContext &unit,
                                                  clang::SourceLocation call) {
  const FunctionInfo &fn = program.functions[function];
  const std::string name = name_at_end(fn);
  if (name.empty()) {
    return std::nullopt;
  }
  if (fn.context == &unit && unit.getSourceManager().isBeforeInTranslationUnit(
                                 fn.decl->getFirstDecl()->getLocation(), call)) {
    return DispatchSpelling{"((void (*)(void))&" + name + ")", ""};
  }
  const std::string id = std::to_string(function);
  return DispatchSpelling{"pj_fx_" + id, "extern void (*pj_fx_" + id + ")(void);\n"};
}

std::string dispatch_export(const Program &program, FunctionId function) {
  const std::string name = name_at_end(program.functions[function]);
  if (name.empty()) {
    return {};
  }
  return "void (*pj_fx_" + std::to_string(function) + ")(void) = (void (*)(void))&" + name + ";\n";
}

} // namespace parjava::frontend
