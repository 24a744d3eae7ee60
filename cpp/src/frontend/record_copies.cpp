#include "record_copies.hpp"

#include <string>

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include "effects.hpp"

namespace parjava::frontend {

namespace {

const clang::RecordDecl *plain_struct(clang::QualType type) {
  if (type.isNull() || type->isReferenceType() || type.isVolatileQualified()) {
    return nullptr;
  }
  const auto *record = type->getAsRecordDecl();
  if (record == nullptr || record->isUnion() || record->getDefinition() == nullptr) {
    return nullptr;
  }
  record = record->getDefinition();
  if (const auto *cxx = llvm::dyn_cast<clang::CXXRecordDecl>(record);
      cxx != nullptr && (!cxx->isTriviallyCopyable() || cxx->isPolymorphic())) {
    return nullptr;
  }
  return record;
}

bool same_record(clang::QualType a, clang::QualType b) {
  const clang::RecordDecl *ra = plain_struct(a.getNonReferenceType());
  const clang::RecordDecl *rb = plain_struct(b.getNonReferenceType());
  return ra != nullptr && rb != nullptr && ra->getCanonicalDecl() == rb->getCanonicalDecl();
}

// Every reference to one local object in its function, each judged by what encloses it.
class ObjectUses : public clang::RecursiveASTVisitor<ObjectUses> {
public:
  ObjectUses(const clang::VarDecl *object, const clang::FunctionDecl *function,
             const Program &program, clang::ASTContext &context)
      : object_(object), function_(function), program_(program), context_(context) {}

  bool VisitDeclRefExpr(clang::DeclRefExpr *ref) {
    if (ref->getDecl() != object_) {
      return true;
    }
    if (ref->refersToEnclosingVariableOrCapture() || !followed_use(ref)) {
      followed = false;
      return false;
    }
    return true;
  }

  bool followed = true;

private:
  struct Up {
    const clang::Stmt *stmt = nullptr;
    const clang::Decl *decl = nullptr;
  };

  Up parent(const clang::Stmt *s) const {
    const auto parents = context_.getParents(*s);
    if (parents.empty()) {
      return {};
    }
    return {parents[0].get<clang::Stmt>(), parents[0].get<clang::Decl>()};
  }

  // Above parentheses, implicit casts, temporaries and copy constructors of `e`: what takes its
  // value. `by_value` says whether a conversion to a value (a load or a copy) was crossed.
  Up value_user(const clang::Stmt *&e, bool &by_value) const {
    for (;;) {
      Up up = parent(e);
      const clang::Stmt *p = up.stmt;
      if (p == nullptr) {
        return up;
      }
      if (const auto *cast = llvm::dyn_cast<clang::ImplicitCastExpr>(p)) {
        if (cast->getCastKind() == clang::CK_LValueToRValue) {
          by_value = true;
        } else if (cast->getCastKind() != clang::CK_NoOp) {
          return up;
        }
      } else if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(p)) {
        if (construct->getNumArgs() != 1 ||
            !construct->getConstructor()->isCopyOrMoveConstructor()) {
          return up;
        }
        by_value = true;
      } else if (!llvm::isa<clang::ParenExpr, clang::MaterializeTemporaryExpr,
                            clang::ExprWithCleanups, clang::CXXBindTemporaryExpr>(p)) {
        return up;
      }
      e = p;
    }
  }

  bool followed_use(const clang::DeclRefExpr *ref) const {
    const clang::Stmt *e = ref;
    bool by_value = false;
    const Up up = value_user(e, by_value);
    if (up.decl != nullptr) {
      // The initialiser of another object: a copy into it.
      const auto *var = llvm::dyn_cast<clang::VarDecl>(up.decl);
      return var != nullptr && !var->getType()->isReferenceType() &&
             same_record(var->getType(), object_->getType());
    }
    const clang::Stmt *p = up.stmt;
    if (p == nullptr) {
      return false;
    }
    if (const auto *member = llvm::dyn_cast<clang::MemberExpr>(p)) {
      return !member->isArrow() && llvm::isa<clang::FieldDecl>(member->getMemberDecl()) &&
             field_used_in_place(member, context_);
    }
    if (llvm::isa<clang::ReturnStmt>(p)) {
      return function_ != nullptr && same_record(function_->getReturnType(), object_->getType());
    }
    if (const auto *op = llvm::dyn_cast<clang::BinaryOperator>(p)) {
      return op->getOpcode() == clang::BO_Assign && same_record(op->getType(), object_->getType());
    }
    if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(p)) {
      return record_assignment(op);
    }
    if (llvm::isa<clang::CallExpr>(p) || llvm::isa<clang::CXXConstructExpr>(p)) {
      return by_value; // an argument passed by value: the callee reads a copy
    }
    if (const auto *address = llvm::dyn_cast<clang::UnaryOperator>(p);
        address != nullptr && address->getOpcode() == clang::UO_AddrOf && !by_value) {
      return passed_to_cells(address);
    }
    return llvm::isa<clang::UnaryExprOrTypeTraitExpr>(p);
  }

  bool record_assignment(const clang::CXXOperatorCallExpr *op) const {
    const auto *method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(op->getDirectCallee());
    return op->getOperator() == clang::OO_Equal && method != nullptr &&
           (method->isCopyAssignmentOperator() || method->isMoveAssignmentOperator()) &&
           method->isTrivial() && same_record(op->getType(), object_->getType());
  }

  // `&x` passed where the callee has a cell per field (record_pointers.hpp): the call copies
  // the object's fields in and out.
  bool passed_to_cells(const clang::UnaryOperator *address) const {
    const clang::Stmt *e = address;
    Up up = parent(e);
    while (up.stmt != nullptr &&
           (llvm::isa<clang::ParenExpr>(up.stmt) || llvm::isa<clang::ImplicitCastExpr>(up.stmt))) {
      e = up.stmt;
      up = parent(e);
    }
    const auto *call = llvm::dyn_cast_or_null<clang::CallExpr>(up.stmt);
    const FunctionId g =
        call != nullptr ? program_.callee_of(call->getDirectCallee()) : kNoFunction;
    if (g == kNoFunction || llvm::isa<clang::CXXOperatorCallExpr>(call)) {
      return false;
    }
    const clang::FunctionDecl *callee = program_.functions[g].decl;
    for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams(); ++i) {
      if (call->getArg(i) == e) {
        return program_.record_pointer_params.contains(callee->getParamDecl(i));
      }
    }
    return false;
  }

  const clang::VarDecl *object_;
  const clang::FunctionDecl *function_;
  const Program &program_;
  clang::ASTContext &context_;
};

std::string record_name(const clang::RecordDecl *record) {
  std::string name = record->getNameAsString();
  if (name.empty() && record->getTypedefNameForAnonDecl() != nullptr) {
    name = record->getTypedefNameForAnonDecl()->getNameAsString();
  }
  return name;
}

} // namespace

bool field_used_in_place(const clang::MemberExpr *member, clang::ASTContext &context) {
  const auto parent = [&context](const clang::Stmt *s) {
    const auto parents = context.getParents(*s);
    return parents.empty()
               ? std::pair<const clang::Stmt *, const clang::Decl *>{}
               : std::pair{parents[0].get<clang::Stmt>(), parents[0].get<clang::Decl>()};
  };
  auto up = parent(member);
  while (up.first != nullptr && llvm::isa<clang::ParenExpr>(up.first)) {
    up = parent(up.first);
  }
  if (up.second != nullptr) {
    const auto *var = llvm::dyn_cast<clang::VarDecl>(up.second);
    return var == nullptr || !var->getType()->isReferenceType();
  }
  const clang::Stmt *p = up.first;
  if (const auto *u = llvm::dyn_cast_or_null<clang::UnaryOperator>(p)) {
    return u->getOpcode() != clang::UO_AddrOf;
  }
  // A call or constructor argument with no conversion above it binds a reference.
  return p == nullptr || !(llvm::isa<clang::CallExpr>(p) || llvm::isa<clang::CXXConstructExpr>(p) ||
                           llvm::isa<clang::InitListExpr>(p) || llvm::isa<clang::LambdaExpr>(p));
}

const clang::VarDecl *addressed_object(const clang::Expr *arg) {
  const auto *address = llvm::dyn_cast<clang::UnaryOperator>(arg->IgnoreParenImpCasts());
  if (address == nullptr || address->getOpcode() != clang::UO_AddrOf) {
    return nullptr;
  }
  const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(address->getSubExpr()->IgnoreParens());
  return ref != nullptr ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
}

std::vector<const clang::FieldDecl *> record_scalar_fields(clang::QualType type) {
  std::vector<const clang::FieldDecl *> out;
  const clang::RecordDecl *record = plain_struct(type);
  if (record == nullptr) {
    return out;
  }
  for (const clang::FieldDecl *f : record->fields()) {
    const VarType t = classify_type(f->getType());
    if (!f->isBitField() && (t == VarType::Integer || t == VarType::Floating)) {
      out.push_back(f);
    }
  }
  return out;
}

bool followed_object(const clang::VarDecl *decl, Program &program, clang::ASTContext &context) {
  decl = decl->getCanonicalDecl();
  if (const auto known = program.followed_objects.find(decl);
      known != program.followed_objects.end()) {
    return known->second;
  }
  bool followed = false;
  const auto *function = llvm::dyn_cast_or_null<clang::FunctionDecl>(decl->getDeclContext());
  // A parameter is followed in the function's definition, where every call copies into its
  // cells (a prototype's parameter names nothing the body uses).
  // A range-for's element and a handler's exception are set by no statement the effects see.
  if (!decl->hasGlobalStorage() && !decl->isCXXForRangeDecl() && !decl->isExceptionVariable() &&
      function != nullptr && function->getBody() != nullptr &&
      function->isThisDeclarationADefinition() &&
      (!llvm::isa<clang::ParmVarDecl>(decl) || program.function_of(function) != kNoFunction) &&
      !record_scalar_fields(decl->getType()).empty()) {
    ObjectUses uses(decl, function, program, context);
    uses.TraverseStmt(function->getBody());
    followed = uses.followed;
  }
  program.followed_objects[decl] = followed;
  return followed;
}

const clang::Expr *record_source(const clang::Expr *value) {
  for (;;) {
    value = value->IgnoreParenImpCasts();
    if (const auto *cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(value)) {
      value = cleanups->getSubExpr();
    } else if (const auto *temp = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(value)) {
      value = temp->getSubExpr();
    } else if (const auto *bind = llvm::dyn_cast<clang::CXXBindTemporaryExpr>(value)) {
      value = bind->getSubExpr();
    } else if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(value);
               construct != nullptr && construct->getNumArgs() == 1 &&
               construct->getConstructor()->isCopyOrMoveConstructor()) {
      value = construct->getArg(0);
    } else if (const auto *literal = llvm::dyn_cast<clang::CompoundLiteralExpr>(value)) {
      value = literal->getInitializer(); // `(StepInfo){0, octant, 1}`: its list
    } else {
      return value;
    }
  }
}

const clang::VarDecl *followed_source(const clang::Expr *value, VariableResolver &vars) {
  const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(record_source(value));
  const auto *var = ref != nullptr ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
  return var != nullptr && followed_object(var, vars.program(), vars.context()) ? var : nullptr;
}

std::vector<Effect> record_copy_effects(const RecordTarget &target, const clang::Expr *value,
                                        VariableResolver &vars, const CallClassifier &calls,
                                        clang::SourceLocation where) {
  std::vector<Effect> out;
  const clang::QualType type =
      target.kind == RecordTarget::Kind::Object ? target.object->getType() : value->getType();
  const std::vector<const clang::FieldDecl *> fields = record_scalar_fields(type);
  if (fields.empty()) {
    return out;
  }
  const clang::Expr *source = record_source(value);
  const clang::VarDecl *object = followed_source(source, vars);
  FunctionId callee = kNoFunction;
  std::string external; // the library function that returns the value
  bool in_place = false;
  if (const auto *call = llvm::dyn_cast<clang::CallExpr>(source)) {
    const ClassifiedCall c = calls.classify(call, vars.context());
    if (c.kind == CallClass::External) {
      external = c.name;
      // A program function the model measures in place (a recursion) is no library's.
      in_place = vars.program().callee_of(call->getDirectCallee()) != kNoFunction;
    }
    if (c.kind == CallClass::User &&
        same_record(vars.program().functions[c.user].decl->getReturnType(), type)) {
      callee = c.user;
    }
  }
  const auto *list = llvm::dyn_cast<clang::InitListExpr>(source);
  if (list != nullptr && !list->isSemanticForm() && list->getSemanticForm() != nullptr) {
    list = list->getSemanticForm();
  }
  if (target.kind == RecordTarget::Kind::Shared && object == nullptr && callee == kNoFunction) {
    return out; // one object the model does not follow into another: the same variables
  }
  const clang::RecordDecl *record = plain_struct(type);
  for (const clang::FieldDecl *f : fields) {
    VarId var = kNoVar;
    switch (target.kind) {
    case RecordTarget::Kind::Object:
      var = vars.object_field(target.object, f);
      break;
    case RecordTarget::Kind::Returned:
      var = vars.returned_field(vars.function(), f);
      break;
    case RecordTarget::Kind::Parameter:
      var = vars.parameter_cell(target.function, target.index, f);
      break;
    case RecordTarget::Kind::Shared:
      var = vars.declare(f);
      break;
    }
    if (var == kNoVar) {
      continue;
    }
    Effect e;
    e.var = var;
    e.location = where;
    if (object != nullptr || callee != kNoFunction) {
      e.kind = Effect::Kind::Copy;
      e.source = object != nullptr ? vars.object_field(object, f) : vars.returned_field(callee, f);
      e.uses.push_back(e.source);
    } else if (list != nullptr) {
      // Positional: the semantic form has one initialiser per field, in declaration order.
      unsigned index = 0;
      for (const clang::FieldDecl *g : record->fields()) {
        if (g == f) {
          break;
        }
        ++index;
      }
      const clang::Expr *init =
          index < list->getNumInits() ? list->getInit(index)->IgnoreImplicit() : nullptr;
      if (init == nullptr || llvm::isa<clang::ImplicitValueInitExpr>(init)) {
        e.kind = Effect::Kind::Builtin;
        e.text = vars.program().variables[var].type == VarType::Floating ? "0.0" : "0";
      } else {
        e.kind = Effect::Kind::Assign;
        e.value = init;
        vars.uses(init, e.uses);
      }
    } else if (source->isGLValue()) {
      // Another object (a global, `*p`, `a[i]`, `s->inner`): its fields' shared variables.
      const VarId from = vars.declare(f);
      if (from == kNoVar) {
        out.push_back(
            havoc(var, "copied from '" + source_text(value, vars.context(), 40) + "'", where));
        continue;
      }
      e.kind = Effect::Kind::Copy;
      e.source = from;
      e.uses.push_back(from);
    } else {
      // The wording of hidden_writes.cpp, which makes the fields' shared variables data too.
      out.push_back(havoc(var,
                          external.empty()
                              ? "set from '" + source_text(value, vars.context(), 40) + "', a " +
                                    record_name(record) + " value the model does not follow"
                              : "returned in a " + record_name(record) + " by " + external +
                                    (in_place ? "(), which the model measures in place (it is "
                                                "recursive) and so never runs"
                                              : "() (an external function)"),
                          where));
      continue;
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<Effect> parameter_entry_effects(FunctionId function, VariableResolver &vars) {
  std::vector<Effect> out;
  Program &program = vars.program();
  const clang::FunctionDecl *decl = program.functions[function].decl;
  clang::ASTContext &context = *program.functions[function].context;
  for (unsigned i = 0; i < decl->getNumParams(); ++i) {
    const clang::ParmVarDecl *param = decl->getParamDecl(i);
    if (!followed_object(param, program, context)) {
      continue;
    }
    for (const clang::FieldDecl *f : record_scalar_fields(param->getType())) {
      Effect e;
      e.kind = Effect::Kind::Copy;
      e.var = vars.object_field(param, f);
      e.source = vars.parameter_cell(function, i, f);
      if (e.var == kNoVar || e.source == kNoVar) {
        continue;
      }
      e.uses.push_back(e.source);
      e.location = param->getLocation();
      out.push_back(std::move(e));
    }
  }
  return out;
}

} // namespace parjava::frontend
