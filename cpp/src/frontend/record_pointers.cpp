#include "record_pointers.hpp"

#include <map>
#include <set>

#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include "record_copies.hpp"

namespace parjava::frontend {

namespace {

// Does every use of `param` in the body read or write a field through it (`param->f`), with no
// field's address taken and no reference bound to a field?
class PointerUses : public clang::RecursiveASTVisitor<PointerUses> {
public:
  PointerUses(const clang::ParmVarDecl *param, clang::ASTContext &context)
      : param_(param), context_(context) {}

  bool VisitDeclRefExpr(clang::DeclRefExpr *ref) {
    if (ref->getDecl() != param_) {
      return true;
    }
    if (!field_access(ref)) {
      fields_only = false;
      return false;
    }
    return true;
  }

  bool fields_only = true;

private:
  const clang::Stmt *parent(const clang::Stmt *s) const {
    const auto parents = context_.getParents(*s);
    return parents.empty() ? nullptr : parents[0].get<clang::Stmt>();
  }

  bool field_access(const clang::DeclRefExpr *ref) const {
    const clang::Stmt *e = ref;
    const clang::Stmt *p = parent(e);
    // The pointer's value, loaded (and parenthesised): the base of `->`.
    while (p != nullptr &&
           (llvm::isa<clang::ParenExpr>(p) ||
            (llvm::isa<clang::ImplicitCastExpr>(p) &&
             llvm::cast<clang::ImplicitCastExpr>(p)->getCastKind() == clang::CK_LValueToRValue))) {
      e = p;
      p = parent(e);
    }
    const auto *member = llvm::dyn_cast_or_null<clang::MemberExpr>(p);
    if (member == nullptr || !member->isArrow() ||
        member->getBase()->IgnoreParenImpCasts() != ref ||
        !llvm::isa<clang::FieldDecl>(member->getMemberDecl())) {
      return false;
    }
    return field_used_in_place(member, context_);
  }

  const clang::ParmVarDecl *param_;
  clang::ASTContext &context_;
};

// The caller's field of the same name as the callee's (each unit declares the record anew).
const clang::FieldDecl *same_field(clang::QualType record, const clang::FieldDecl *field) {
  for (const clang::FieldDecl *f : record_scalar_fields(record)) {
    if (f->getName() == field->getName()) {
      return f;
    }
  }
  return nullptr;
}

// The pointee's variable for `field`: the field of a followed local object when the argument is
// `&object`, else the field's one variable for every object.
VarId pointee_field(const clang::Expr *arg, const clang::FieldDecl *field, VariableResolver &vars) {
  const clang::VarDecl *object = addressed_object(arg);
  if (object == nullptr) {
    return vars.declare(field);
  }
  const clang::FieldDecl *own = same_field(object->getType(), field);
  if (own == nullptr) {
    return kNoVar;
  }
  if (followed_object(object, vars.program(), vars.context())) {
    return vars.object_field(object, own);
  }
  return vars.declare(own);
}

} // namespace

void find_record_pointer_params(Program &program, const CallClassifier &calls) {
  std::set<FunctionId> indirect;
  for (const auto &[type, functions] : calls.dispatch_table().functions) {
    indirect.insert(functions.begin(), functions.end());
  }
  // The local objects whose addresses each parameter receives. One object (an option parser's
  // `parse(&opts)`) gains nothing from cells: its fields' shared variables are that object's,
  // and the parameters' defaults are found through them (inputs.cpp).
  std::map<const clang::ParmVarDecl *, std::set<const clang::VarDecl *>> objects;
  for (FunctionId f = 0; f < program.functions.size(); ++f) {
    const FunctionInfo &fn = program.functions[f];
    if (fn.decl == nullptr || fn.decl->getBody() == nullptr || fn.context == nullptr) {
      continue;
    }
    for (const clang::Expr *expr : calls_in(fn.decl->getBody())) {
      const ClassifiedCall call = calls.classify(expr, *fn.context);
      if (call.kind != CallClass::User || call.user == kNoFunction) {
        continue;
      }
      const clang::FunctionDecl *callee = program.functions[call.user].decl;
      for (std::size_t i = 0; i < call.args.size() && i < callee->getNumParams(); ++i) {
        if (const clang::VarDecl *object = addressed_object(call.args[i]);
            object != nullptr && object->isLocalVarDeclOrParm()) {
          objects[callee->getParamDecl(static_cast<unsigned>(i))].insert(
              object->getCanonicalDecl());
        }
      }
    }
  }
  for (FunctionId g = 0; g < program.functions.size(); ++g) {
    const FunctionInfo &fn = program.functions[g];
    if (fn.decl == nullptr || fn.decl->getBody() == nullptr || fn.recursive ||
        indirect.contains(g) || fn.context == nullptr) {
      continue;
    }
    if (const auto *method = llvm::dyn_cast<clang::CXXMethodDecl>(fn.decl);
        method != nullptr && method->getParent()->isLambda()) {
      continue;
    }
    for (const clang::ParmVarDecl *param : fn.decl->parameters()) {
      const clang::QualType type = param->getType();
      if (!type->isPointerType() || record_scalar_fields(type->getPointeeType()).empty() ||
          program.pointer_aliases.contains(param->getCanonicalDecl())) {
        continue;
      }
      if (const auto it = objects.find(param); it == objects.end() || it->second.size() < 2) {
        continue;
      }
      PointerUses uses(param, *fn.context);
      uses.TraverseStmt(fn.decl->getBody());
      if (uses.fields_only) {
        program.record_pointer_params.insert(param);
      }
    }
  }
}

std::vector<Effect> record_pointer_copies(const ClassifiedCall &call, VariableResolver &vars,
                                          bool in) {
  std::vector<Effect> out;
  if (call.kind != CallClass::User || call.user == kNoFunction) {
    return out;
  }
  const Program &program = vars.program();
  const clang::FunctionDecl *callee = program.functions[call.user].decl;
  for (std::size_t i = 0; i < call.args.size() && i < callee->getNumParams(); ++i) {
    const clang::ParmVarDecl *own = callee->getParamDecl(static_cast<unsigned>(i));
    if (!program.record_pointer_params.contains(own)) {
      continue;
    }
    const clang::QualType pointee = own->getType()->getPointeeType();
    if (!in && pointee.isConstQualified()) {
      continue; // the callee cannot write through a pointer to const
    }
    for (const clang::FieldDecl *field : record_scalar_fields(pointee)) {
      const VarId cell = vars.parameter_cell(call.user, static_cast<unsigned>(i), field);
      const VarId object = pointee_field(call.args[i], field, vars);
      if (cell == kNoVar || object == kNoVar) {
        continue;
      }
      Effect copy;
      copy.kind = Effect::Kind::Copy;
      copy.var = in ? cell : object;
      copy.source = in ? object : cell;
      copy.uses = {copy.source};
      copy.location = call.args[i]->getBeginLoc();
      out.push_back(std::move(copy));
    }
  }
  return out;
}

} // namespace parjava::frontend
