#include "variables.hpp"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include "calls.hpp"
#include "record_copies.hpp"
#include "subscripts.hpp"

namespace parjava::frontend {

namespace {

std::string typedef_name(clang::QualType type) {
  while (!type.isNull()) {
    if (const auto *td = type->getAs<clang::TypedefType>()) {
      std::string name = td->getDecl()->getNameAsString();
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
    return result(call) || accessor(call) ||
           clang::RecursiveASTVisitor<UseCollector>::TraverseCallExpr(call);
  }
  bool TraverseCXXMemberCallExpr(clang::CXXMemberCallExpr *call) {
    return result(call) || accessor(call) ||
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
    if (is_std_array_access(call)) {
      element(call); // a std::array's `a.at(i)`
      return true;
    }
    const clang::CXXMethodDecl *method = call->getMethodDecl();
    if (method != nullptr && method->getNameAsString() == "size") {
      add(resolver_.container_size(call->getImplicitObjectArgument()));
    }
    return true;
  }
  // An element read with a constant index reads that element; with an index computed at run
  // time it may read any of them (the index's own variables are visited as usual).
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr *sub) {
    element(sub);
    return true;
  }
  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr *call) {
    if (is_std_array_access(call)) {
      element(call); // a std::array's `a[i]`
    }
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator *op) {
    if (op->getOpcode() == clang::UO_Deref && !element(op)) {
      // `*n` where n always points at one scalar (or at the callee's cell of a caller's
      // local): HPCG's HPCG_Init reads `int argc = *argc_p;`, and the expression writer names
      // the target, so the target is what the expression uses.
      add(resolver_.lvalue(op));
    }
    return true;
  }

private:
  // An accessor call reads what the accessor's expression reads.
  bool accessor(const clang::CallExpr *call) {
    const FunctionId f = resolver_.program().callee_of(call->getDirectCallee());
    if (f == kNoFunction || resolver_.program().functions[f].accessor == nullptr) {
      return false;
    }
    TraverseStmt(const_cast<clang::Expr *>(resolver_.program().functions[f].accessor));
    return true;
  }
  // Whether `e` is an element access of a known aggregate (its uses are then added).
  bool element(const clang::Expr *e) {
    const VariableResolver::ElementAccess access = resolver_.element_access(e);
    if (!access.valid()) {
      return false;
    }
    const Aggregate &agg = resolver_.program().aggregates[access.aggregate];
    if (const auto k = resolver_.constant_element(access)) {
      add(agg.elements[*k]);
      return true;
    }
    for (VarId v : agg.elements) {
      add(v);
    }
    return true;
  }
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

const clang::VarDecl *named_variable(const clang::Expr *e) {
  if (e == nullptr) {
    return nullptr;
  }
  if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts())) {
    return llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
  }
  return nullptr;
}

bool program_wide(const clang::ValueDecl *decl) {
  if (llvm::isa<clang::FieldDecl>(decl)) {
    return true;
  }
  const auto *var = llvm::dyn_cast<clang::VarDecl>(decl);
  return var != nullptr && var->hasGlobalStorage() && !var->isStaticLocal() &&
         var->hasExternalFormalLinkage();
}

bool is_scalar_reference(clang::QualType type) {
  return !type.isNull() && type->isLValueReferenceType() &&
         type.getNonReferenceType()->isArithmeticType();
}

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
      v.unrepresentable_unit = &context_;
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
  // One variable per program-wide symbol: the same global or field seen from another unit.
  const std::string usr =
      program_wide(decl) ? program_.representative_usr(usr_of(decl)) : std::string();
  if (!usr.empty()) {
    const VarId same = program_.variable_of_usr(usr);
    if (same != kNoVar) {
      program_.map_variable(decl, same);
      return same;
    }
  }
  Variable v;
  v.source_name = decl->getNameAsString();
  v.type = type;
  v.decl = decl;
  if (!usr.empty()) {
    const auto def = program_.global_definitions.find(usr);
    if (def != program_.global_definitions.end()) {
      v.decl = def->second; // its initialiser, even when this unit only says `extern`
    }
  }
  v.location = decl->getLocation();
  if (const auto *field = llvm::dyn_cast<clang::FieldDecl>(decl)) {
    v.scope = VarScope::Field;
    v.source_name = record_name(llvm::dyn_cast<clang::CXXRecordDecl>(field->getParent())) +
                    "::" + v.source_name;
    if (v.source_name.rfind("::", 0) == 0) {
      const clang::RecordDecl *record = field->getParent();
      std::string record_owner = record->getNameAsString();
      if (record_owner.empty()) {
        if (const clang::TypedefNameDecl *td = record->getTypedefNameForAnonDecl()) {
          record_owner = td->getNameAsString(); // typedef struct { ... } Command;
        }
      }
      v.source_name = record_owner + v.source_name;
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
  if (!usr.empty()) {
    program_.map_usr(usr, id);
  }
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

VarId VariableResolver::object_field(const clang::VarDecl *object, const clang::FieldDecl *field) {
  const VarType type = classify_type(field->getType());
  if (type != VarType::Integer && type != VarType::Floating) {
    return kNoVar;
  }
  object = object->getCanonicalDecl();
  const std::string key = "object:" + std::to_string(reinterpret_cast<std::uintptr_t>(object)) +
                          ":" + field->getNameAsString();
  const VarId id =
      program_.synthetic(key, type, VarScope::Local, program_.function_of(owner_function(object)));
  Variable &v = program_.variables[id];
  v.source_name = object->getNameAsString() + "." + field->getNameAsString();
  v.location = object->getLocation();
  return id;
}

VarId VariableResolver::returned_field(FunctionId function, const clang::FieldDecl *field) {
  const VarType type = classify_type(field->getType());
  if (type != VarType::Integer && type != VarType::Floating) {
    return kNoVar;
  }
  // Keyed by the field's name: the caller's unit declares the record anew.
  const std::string key =
      "record-return:" + std::to_string(function) + ":" + field->getNameAsString();
  const VarId id = program_.synthetic(key, type, VarScope::Global, kNoFunction);
  Variable &v = program_.variables[id];
  v.source_name = program_.functions[function].name + "()." + field->getNameAsString();
  v.location = program_.functions[function].decl->getLocation();
  return id;
}

VarId VariableResolver::parameter_cell(FunctionId function, unsigned index,
                                       const clang::FieldDecl *field) {
  const VarType type = classify_type(field->getType());
  const clang::FunctionDecl *decl = program_.functions[function].decl;
  if ((type != VarType::Integer && type != VarType::Floating) || index >= decl->getNumParams()) {
    return kNoVar;
  }
  // Keyed by the field's name: the caller's unit declares the record anew.
  const std::string key = "record-param:" + std::to_string(function) + ":" + std::to_string(index) +
                          ":" + field->getNameAsString();
  const VarId id = program_.synthetic(key, type, VarScope::Global, kNoFunction);
  Variable &v = program_.variables[id];
  v.source_name = program_.functions[function].name + "(" +
                  decl->getParamDecl(index)->getNameAsString() + ")." + field->getNameAsString();
  v.location = decl->getParamDecl(index)->getLocation();
  return id;
}

VarId VariableResolver::container_size(const clang::Expr *container) {
  container = container->IgnoreParenImpCasts();
  // A copy has the size of what it copies (a vector passed by value).
  if (const auto *copy = llvm::dyn_cast<clang::CXXConstructExpr>(container);
      copy != nullptr && copy->getNumArgs() == 1 && is_std_vector(copy->getType())) {
    return container_size(copy->getArg(0));
  }
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
  if (!llvm::isa<clang::FieldDecl>(decl) && !llvm::isa<clang::VarDecl>(decl)) {
    return kNoVar; // a structured binding's vector: data
  }
  if (llvm::isa<clang::FieldDecl>(decl)) {
    scope = VarScope::Field;
  } else if (const auto *var = llvm::dyn_cast<clang::VarDecl>(decl)) {
    if (var->getType()->isReferenceType() && !llvm::isa<clang::ParmVarDecl>(var)) {
      // `const std::vector<int> &sends = A.elements_to_send;` (miniFE) has the size of what it
      // names; a size of its own would never be assigned.
      return var->getInit() != nullptr ? container_size(var->getInit()) : kNoVar;
    }
    if (!var->hasGlobalStorage()) {
      owner = program_.function_of(owner_function(var));
      scope = llvm::isa<clang::ParmVarDecl>(var) ? VarScope::Parameter : VarScope::Local;
    }
  }
  if (scope == VarScope::Parameter) {
    // A vector passed in: its size is the caller's, which the callee's cell holds where every
    // call sets it (vector_parameters.hpp); data otherwise.
    const auto cell = program_.vector_size_cells.find(decl->getCanonicalDecl());
    return cell != program_.vector_size_cells.end() ? cell->second : kNoVar;
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
  if (subscript(expr).valid() ||
      (llvm::isa<clang::UnaryOperator>(expr) &&
       llvm::cast<clang::UnaryOperator>(expr)->getOpcode() == clang::UO_Deref)) {
    const ElementAccess access = element_access(expr);
    if (access.valid()) {
      if (const auto k = constant_element(access)) {
        return program_.aggregates[access.aggregate].elements[*k];
      }
      return kNoVar; // an index known only at run time: see Effect::Kind::Element
    }
    // `*n` where n always points at one scalar (or at the cell of a caller's local).
    if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(expr)) {
      if (const auto target = pointer_target(u->getSubExpr())) {
        if (target->scalar != kNoVar) {
          return target->scalar;
        }
      }
    }
    return kNoVar;
  }
  if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(expr)) {
    if (llvm::isa<clang::VarDecl>(ref->getDecl())) {
      return declare(ref->getDecl());
    }
    return kNoVar;
  }
  if (const auto *call = llvm::dyn_cast<clang::CallExpr>(expr)) {
    // domain.tp(): the field the accessor returns (a reference accessor also names it).
    const FunctionId f = program_.callee_of(call->getDirectCallee());
    if (f != kNoFunction && program_.functions[f].accessor != nullptr) {
      return lvalue(program_.functions[f].accessor);
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
      const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(base);
      const auto *object =
          ref != nullptr ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
      // A field read or written through a record pointer parameter is the parameter's cell,
      // which each call fills from the pointee and copies back (record_pointers.hpp).
      if (const auto *param = llvm::dyn_cast_or_null<clang::ParmVarDecl>(object);
          param != nullptr && member->isArrow() && program_.record_pointer_params.contains(param)) {
        const auto *owner = llvm::dyn_cast<clang::FunctionDecl>(param->getDeclContext());
        const FunctionId g = owner != nullptr ? program_.function_of(owner) : kNoFunction;
        if (g != kNoFunction) {
          if (const VarId cell = parameter_cell(g, param->getFunctionScopeIndex(), f);
              cell != kNoVar) {
            return cell;
          }
        }
      }
      // A followed object's scalar fields are its own; its communicators, datatypes and
      // requests stay one variable per field (the model names those handles, not values).
      if (object != nullptr && !member->isArrow() && followed_object(object, program_, context_)) {
        if (const VarId own = object_field(object, f); own != kNoVar) {
          return own;
        }
      }
      const VarId id = field(f);
      if (id != kNoVar && !member->isArrow() && function_ != kNoFunction && object != nullptr &&
          !object->hasGlobalStorage() && !object->getType()->isReferenceType()) {
        program_.field_local_objects[id][function_].insert(object);
      }
      return id;
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

namespace {

// The extents of a small array of scalars (`int a[3][2]` -> {3, 2}), empty otherwise.
std::vector<std::uint64_t> scalar_array_dims(clang::QualType type, const clang::ASTContext &ctx) {
  std::vector<std::uint64_t> dims;
  std::uint64_t total = 1;
  for (;;) {
    std::uint64_t n = 0;
    clang::QualType element;
    if (const auto *array = ctx.getAsConstantArrayType(type)) {
      n = array->getSize().getZExtValue();
      element = array->getElementType();
    } else if (const auto extent = std_array_extent(type, &element)) {
      n = *extent; // std::array<int, 4>: the int[4] it wraps
    } else {
      break;
    }
    if (n == 0 || total * n > kMaxAggregateElements) {
      return {};
    }
    total *= n;
    dims.push_back(n);
    type = element;
  }
  if (dims.empty()) {
    return {};
  }
  const VarType element = classify_type(type);
  if (element != VarType::Integer && element != VarType::Floating) {
    return {};
  }
  return dims;
}

} // namespace

std::string mpi_typedef_name(clang::QualType type) { return typedef_name(type); }

CommElement comm_element(const clang::Expr *expr) {
  CommElement out;
  if (expr == nullptr) {
    return out;
  }
  const clang::Expr *e = expr->IgnoreParenImpCasts();
  if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    if (u->getOpcode() == clang::UO_AddrOf) {
      e = u->getSubExpr()->IgnoreParenImpCasts();
    }
  }
  const auto *sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(e);
  if (sub == nullptr) {
    return out;
  }
  const clang::ValueDecl *decl = named_decl(sub->getBase()->IgnoreParenImpCasts());
  if (decl == nullptr) {
    return out;
  }
  const clang::QualType type = decl->getType();
  clang::QualType element;
  if (const auto *array = type->getAsArrayTypeUnsafe()) {
    element = array->getElementType();
  } else if (type->isPointerType()) {
    element = type->getPointeeType();
  }
  if (element.isNull() || typedef_name(element) != "MPI_Comm") {
    return out;
  }
  out.array = decl;
  out.index = sub->getIdx();
  out.parameter = llvm::isa<clang::ParmVarDecl>(decl);
  return out;
}

const clang::ValueDecl *named_decl(const clang::Expr *expr) {
  if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(expr)) {
    return ref->getDecl();
  }
  if (const auto *member = llvm::dyn_cast<clang::MemberExpr>(expr)) {
    return member->getMemberDecl();
  }
  return nullptr;
}

AggregateId VariableResolver::aggregate(const clang::ValueDecl *decl) {
  if (decl == nullptr || !(llvm::isa<clang::VarDecl>(decl) || llvm::isa<clang::FieldDecl>(decl)) ||
      llvm::isa<clang::ParmVarDecl>(decl)) {
    return kNoAggregate;
  }
  const AggregateId known = program_.aggregate_of(decl);
  if (known != kNoAggregate) {
    return known;
  }
  const std::vector<std::uint64_t> dims = scalar_array_dims(decl->getType(), context_);
  if (dims.empty()) {
    return kNoAggregate;
  }
  const std::string usr =
      program_wide(decl) ? program_.representative_usr(usr_of(decl)) : std::string();
  if (!usr.empty()) {
    const AggregateId same = program_.aggregate_of_usr(usr);
    if (same != kNoAggregate) {
      program_.map_aggregate(decl, same);
      return same;
    }
  }
  clang::QualType element_type = decl->getType();
  for (;;) {
    clang::QualType inner;
    if (const auto *array = context_.getAsConstantArrayType(element_type)) {
      inner = array->getElementType();
    } else if (!std_array_extent(element_type, &inner)) {
      break;
    }
    element_type = inner;
  }
  Aggregate agg;
  agg.dims = dims;
  std::uint64_t total = 1;
  for (std::uint64_t d : dims) {
    total *= d;
  }
  // The element variables share the declaration's scope; their names spell the element.
  Variable proto;
  proto.type = classify_type(element_type);
  proto.location = decl->getLocation();
  std::string base = decl->getNameAsString();
  if (const auto *field = llvm::dyn_cast<clang::FieldDecl>(decl)) {
    proto.scope = VarScope::Field;
    const clang::RecordDecl *record = field->getParent();
    std::string owner = record->getNameAsString();
    if (owner.empty() && record->getTypedefNameForAnonDecl() != nullptr) {
      owner = record->getTypedefNameForAnonDecl()->getNameAsString();
    }
    base = owner + "::" + base;
  } else {
    const auto *var = llvm::cast<clang::VarDecl>(decl);
    if (var->hasGlobalStorage()) {
      proto.scope = VarScope::Global;
    } else {
      proto.scope = VarScope::Local;
      proto.function = program_.function_of(owner_function(decl));
    }
  }
  agg.source_name = base;
  const AggregateId id = static_cast<AggregateId>(program_.aggregates.size());
  for (std::uint64_t k = 0; k < total; ++k) {
    Variable v = proto;
    std::string suffix;
    std::uint64_t rest = k;
    std::vector<std::uint64_t> index(dims.size());
    for (std::size_t d = dims.size(); d-- > 0;) {
      index[d] = rest % dims[d];
      rest /= dims[d];
    }
    for (std::uint64_t i : index) {
      suffix += "[" + std::to_string(i) + "]";
    }
    v.source_name = base + suffix;
    v.aggregate = id;
    v.element = k;
    agg.elements.push_back(program_.add(std::move(v)));
  }
  program_.aggregates.push_back(std::move(agg));
  program_.map_aggregate(decl, id);
  if (!usr.empty()) {
    program_.map_aggregate_usr(usr, id);
  }
  return id;
}

VariableResolver::ElementAccess VariableResolver::element_access(const clang::Expr *expr) {
  ElementAccess out;
  if (expr == nullptr) {
    return out;
  }
  expr = expr->IgnoreParenImpCasts();
  std::vector<const clang::Expr *> indices;
  bool deref = false;
  if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(expr)) {
    if (u->getOpcode() != clang::UO_Deref) {
      return out;
    }
    deref = true;
    expr = u->getSubExpr()->IgnoreParenImpCasts();
  }
  for (Subscript sub = subscript(expr); sub.valid(); sub = subscript(expr)) {
    indices.insert(indices.begin(), sub.index);
    expr = sub.base->IgnoreParenImpCasts();
  }
  const clang::ValueDecl *decl = named_decl(expr);
  if (decl == nullptr) {
    return out;
  }
  const clang::QualType type = decl->getType();
  if (type->isPointerType() ||
      (llvm::isa<clang::ParmVarDecl>(decl) && std_array_extent(type, nullptr))) {
    // A known pointer into an aggregate: p[k] and *p index it from the pointer's offset; a
    // std::array parameter's a[k] indexes what every call passes (its cell, aliases.cpp).
    const auto *var = llvm::dyn_cast<clang::VarDecl>(decl);
    const auto it = var ? program_.pointer_aliases.find(var->getCanonicalDecl())
                        : program_.pointer_aliases.end();
    if (it == program_.pointer_aliases.end() || it->second.aggregate == kNoAggregate ||
        indices.size() + (deref ? 1 : 0) != 1) {
      return out;
    }
    out.aggregate = it->second.aggregate;
    out.offset = it->second.offset;
    out.indices = std::move(indices);
    return out;
  }
  if (deref) {
    return out; // *arr: an array used as a pointer, rare enough to leave as data
  }
  const AggregateId agg = aggregate(decl);
  if (agg == kNoAggregate || indices.size() != program_.aggregates[agg].dims.size()) {
    return out;
  }
  out.aggregate = agg;
  out.indices = std::move(indices);
  return out;
}

std::optional<std::uint64_t> VariableResolver::constant_element(const ElementAccess &access) const {
  const Aggregate &agg = program_.aggregates[access.aggregate];
  std::int64_t flat = 0;
  if (access.indices.size() == agg.dims.size()) {
    for (std::size_t d = 0; d < agg.dims.size(); ++d) {
      clang::Expr::EvalResult r;
      if (access.indices[d]->isValueDependent() || !access.indices[d]->EvaluateAsInt(r, context_)) {
        return std::nullopt;
      }
      flat = flat * static_cast<std::int64_t>(agg.dims[d]) + r.Val.getInt().getExtValue();
    }
  } else if (access.indices.size() == 1) {
    clang::Expr::EvalResult r;
    if (access.indices[0]->isValueDependent() || !access.indices[0]->EvaluateAsInt(r, context_)) {
      return std::nullopt;
    }
    flat = r.Val.getInt().getExtValue();
  } else if (!access.indices.empty()) {
    return std::nullopt;
  }
  flat += static_cast<std::int64_t>(access.offset);
  if (flat < 0 || static_cast<std::uint64_t>(flat) >= agg.elements.size()) {
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(flat);
}

std::optional<AliasTarget> VariableResolver::pointer_target(const clang::Expr *expr) {
  if (expr == nullptr) {
    return std::nullopt;
  }
  expr = expr->IgnoreParenCasts();
  // &x, &a[k], &s->field
  if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(expr)) {
    if (u->getOpcode() != clang::UO_AddrOf) {
      return std::nullopt;
    }
    const clang::Expr *sub = u->getSubExpr()->IgnoreParenImpCasts();
    if (llvm::isa<clang::ArraySubscriptExpr>(sub)) {
      const ElementAccess access = element_access(sub);
      if (!access.valid()) {
        return std::nullopt;
      }
      if (const auto k = constant_element(access)) {
        AliasTarget t;
        t.aggregate = access.aggregate;
        t.offset = *k;
        return t;
      }
      return std::nullopt;
    }
    const VarId v = lvalue(sub);
    if (v == kNoVar) {
      return std::nullopt;
    }
    AliasTarget t;
    t.scalar = v;
    return t;
  }
  // a + k
  if (const auto *b = llvm::dyn_cast<clang::BinaryOperator>(expr)) {
    if (b->getOpcode() != clang::BO_Add) {
      return std::nullopt;
    }
    auto base = pointer_target(b->getLHS());
    clang::Expr::EvalResult r;
    if (!base || base->aggregate == kNoAggregate || b->getRHS()->isValueDependent() ||
        !b->getRHS()->EvaluateAsInt(r, context_)) {
      return std::nullopt;
    }
    base->offset += static_cast<std::uint64_t>(r.Val.getInt().getExtValue());
    return base;
  }
  const clang::ValueDecl *decl = named_decl(expr);
  if (decl == nullptr) {
    return std::nullopt;
  }
  if (decl->getType()->isArrayType() || std_array_extent(decl->getType(), nullptr)) {
    // An array, or a std::array passed by reference or value (its parameter's cell).
    if (const AggregateId agg = aggregate(decl); agg != kNoAggregate) {
      AliasTarget t;
      t.aggregate = agg;
      return t;
    }
    if (!llvm::isa<clang::ParmVarDecl>(decl)) {
      return std::nullopt;
    }
  }
  if (const auto *var = llvm::dyn_cast<clang::VarDecl>(decl)) {
    const auto it = program_.pointer_aliases.find(var->getCanonicalDecl());
    if (it != program_.pointer_aliases.end()) {
      return it->second;
    }
  }
  return std::nullopt;
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
