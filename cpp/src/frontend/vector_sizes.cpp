#include "vector_sizes.hpp"

#include <clang/AST/ExprCXX.h>

#include "effects.hpp"

namespace parjava::frontend {

namespace {

// The size a declaration gives a std::vector. A model names a local only where it assigns
// it, so every form must assign the size: miniFE's `std::vector<int> all_ids;` is filled by a
// helper and then tested with `all_ids.size() > 0`, which was an unknown name.
void vector_construction(const clang::VarDecl *decl, const clang::CXXConstructExpr *construct,
                         VariableResolver &vars, std::vector<Effect> &out) {
  const VarId size = vars.container_size_of(decl);
  if (size == kNoVar) {
    return;
  }
  Effect e;
  e.var = size;
  e.location = decl->getLocation();
  const clang::Expr *first =
      construct->getNumArgs() >= 1 ? construct->getArg(0)->IgnoreImplicit() : nullptr;
  if (first == nullptr || llvm::isa<clang::CXXDefaultArgExpr>(first)) {
    e.kind = Effect::Kind::Builtin; // std::vector<T> v;
    e.text = "0";
  } else if (first->getType()->isIntegralOrEnumerationType()) {
    e.kind = Effect::Kind::Assign; // std::vector<T> v(n[, value]): the size is n
    e.value = construct->getArg(0);
    vars.uses(e.value, e.uses);
  } else if (const auto *list = llvm::dyn_cast<clang::CXXStdInitializerListExpr>(first)) {
    const auto *items = llvm::dyn_cast<clang::InitListExpr>(list->getSubExpr()->IgnoreImplicit());
    if (items == nullptr) {
      out.push_back(havoc(size, "the size of a vector built from a list", e.location));
      return;
    }
    e.kind = Effect::Kind::Builtin; // std::vector<T> v = {a, b, c}
    e.text = std::to_string(items->getNumInits());
  } else if (bool to_argc = false; argv_copy_offset(decl, nullptr, &to_argc) >= 0 && to_argc) {
    // `std::vector<std::string> args(argv + k, argv + argc)`: argc - k strings, so a loop over
    // them is counted from the command line as a loop up to argc is.
    const int offset = argv_copy_offset(decl, nullptr);
    e.kind = Effect::Kind::Builtin;
    e.text = offset == 0 ? "argc" : "(argc - " + std::to_string(offset) + ")";
  } else {
    // A copy of another vector or a range of iterators: a size the model does not follow.
    out.push_back(havoc(
        size, "the size of a vector copied from '" + source_text(first, vars.context(), 40) + "'",
        e.location));
    return;
  }
  out.push_back(std::move(e));
}

} // namespace

bool is_std_vector_object(const clang::Expr *obj) {
  const auto *record = obj->getType().getNonReferenceType()->getAsCXXRecordDecl();
  return record != nullptr && record->getQualifiedNameAsString() == "std::vector";
}

bool vector_declaration(const clang::VarDecl *decl, const clang::Expr *init, VariableResolver &vars,
                        std::vector<Effect> &out) {
  if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(init)) {
    if (!is_std_vector_object(construct)) {
      return false;
    }
    vector_construction(decl, construct, vars, out);
    return true;
  }
  const auto *record = decl->getType()->getAsCXXRecordDecl();
  if (record == nullptr || record->getQualifiedNameAsString() != "std::vector") {
    return false; // not a vector, or a reference naming one (its size is the vector's)
  }
  // `vector<double> params = inp->getDoubleList(...)` (PENNANT): a vector a call returns,
  // built in place (no constructor call in the AST since C++17).
  if (const VarId size = vars.container_size_of(decl); size != kNoVar) {
    out.push_back(havoc(size,
                        "the size of a vector initialised from '" +
                            source_text(init, vars.context(), 40) + "'",
                        decl->getLocation()));
  }
  return true;
}

bool vector_member_call(const ClassifiedCall &call, VariableResolver &vars,
                        std::vector<Effect> &out, clang::SourceLocation where) {
  const auto *member = llvm::dyn_cast<clang::CXXMemberCallExpr>(call.expr);
  const clang::Expr *obj = member != nullptr ? member->getImplicitObjectArgument() : nullptr;
  if (obj == nullptr || !is_std_vector_object(obj)) {
    return false;
  }
  const VarId size = vars.container_size(obj);
  if (size == kNoVar) {
    return true;
  }
  const std::string &m = call.name;
  if ((m == "resize" && !call.args.empty()) ||
      (m == "assign" && call.args.size() == 2 &&
       call.args[0]->getType()->isIntegralOrEnumerationType())) {
    Effect e; // v.resize(n), v.assign(n, value)
    e.kind = Effect::Kind::Assign;
    e.var = size;
    e.value = call.args[0];
    e.location = where;
    vars.uses(e.value, e.uses);
    out.push_back(std::move(e));
  } else if (m == "clear") {
    Effect e;
    e.kind = Effect::Kind::Builtin;
    e.var = size;
    e.text = "0";
    e.location = where;
    out.push_back(std::move(e));
  } else if (m == "push_back" || m == "emplace_back" || m == "pop_back" || m == "insert" ||
             m == "erase" || m == "assign" || m == "swap" || m == "emplace") {
    out.push_back(havoc(size, "the size of a vector changed by " + m + "()", where));
  }
  return true;
}

// `a = b` between vectors: a's size becomes b's (copied when the model keeps it), or data.
// Without it a vector member assigned whole (`g.interior = ids;`) kept size 0 in the model and
// the branch testing its size was never taken.
bool vector_assignment(const ClassifiedCall &call, VariableResolver &vars, std::vector<Effect> &out,
                       clang::SourceLocation where) {
  const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call.expr);
  if (op == nullptr || op->getOperator() != clang::OO_Equal || op->getNumArgs() != 2 ||
      !is_std_vector_object(op->getArg(0))) {
    return false;
  }
  const VarId size = vars.container_size(op->getArg(0));
  if (size == kNoVar) {
    return true;
  }
  const clang::Expr *from = op->getArg(1)->IgnoreParenImpCasts();
  const VarId source = is_std_vector_object(from) ? vars.container_size(from) : kNoVar;
  if (source == kNoVar) {
    out.push_back(havoc(
        size, "the size of a vector assigned from '" + source_text(from, vars.context(), 40) + "'",
        where));
    return true;
  }
  Effect copy;
  copy.kind = Effect::Kind::Copy;
  copy.var = size;
  copy.source = source;
  copy.uses = {source};
  copy.location = where;
  out.push_back(std::move(copy));
  return true;
}

// The size of a std::vector that a call may resize: one passed by non-const reference, or by
// address to a non-const pointer.
VarId written_vector_size(const clang::Expr *arg, const clang::ParmVarDecl *param,
                          VariableResolver &vars) {
  const clang::Expr *e = arg->IgnoreParenImpCasts();
  if (const auto *addr = llvm::dyn_cast<clang::UnaryOperator>(e);
      addr != nullptr && addr->getOpcode() == clang::UO_AddrOf) {
    e = addr->getSubExpr()->IgnoreParenImpCasts();
  } else if (param == nullptr || !param->getType()->isReferenceType()) {
    return kNoVar; // by value, or through an unknown (variadic) parameter
  }
  if (param != nullptr) {
    const clang::QualType pt = param->getType();
    const clang::QualType pointee =
        pt->isReferenceType() ? pt.getNonReferenceType() : pt->getPointeeType();
    if (!pointee.isNull() && pointee.isConstQualified()) {
      return kNoVar;
    }
  }
  return is_std_vector_object(e) ? vars.container_size(e) : kNoVar;
}

} // namespace parjava::frontend
