#include "effects.hpp"

#include "array_copies.hpp"
#include "file_keys.hpp"
#include "hidden_writes.hpp"
#include "input_reads.hpp"
#include "keyed_inputs.hpp"
#include "record_copies.hpp"
#include "shared_fields.hpp"
#include "vector_sizes.hpp"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <set>

namespace parjava::frontend {

Effect havoc(VarId var, std::string reason, clang::SourceLocation where) {
  Effect e;
  e.kind = Effect::Kind::Havoc;
  e.var = var;
  e.text = std::move(reason);
  e.location = where;
  return e;
}

namespace {

const clang::Expr *strip(const clang::Expr *e) {
  if (e == nullptr) {
    return nullptr;
  }
  e = e->IgnoreImplicit();
  if (const auto *cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(e)) {
    e = cleanups->getSubExpr();
  }
  if (const auto *list = llvm::dyn_cast<clang::InitListExpr>(e)) {
    if (list->getNumInits() == 1) {
      return strip(list->getInit(0));
    }
  }
  return e;
}

class EffectCollector : public clang::RecursiveASTVisitor<EffectCollector> {
public:
  EffectCollector(VariableResolver &vars, const CallClassifier &calls, std::vector<Effect> &out,
                  const std::set<const clang::Expr *> *skip)
      : vars_(vars), calls_(calls), out_(out), skip_(skip) {}

  bool shouldTraversePostOrder() const { return true; }
  bool TraverseLambdaExpr(clang::LambdaExpr *) { return true; }
  bool TraverseUnaryExprOrTypeTraitExpr(clang::UnaryExprOrTypeTraitExpr *) { return true; }

  bool VisitBinaryOperator(clang::BinaryOperator *op) {
    if (!op->isAssignmentOp()) {
      return true;
    }
    if (op->getOpcode() == clang::BO_Assign && !record_scalar_fields(op->getType()).empty()) {
      record_assignment(op->getLHS(), op->getRHS(), op->getOperatorLoc());
      return true;
    }
    const VarId var = vars_.lvalue(op->getLHS());
    note_field_write(vars_, var, op);
    if (var == kNoVar) {
      element_write(op->getLHS(),
                    op->isCompoundAssignmentOp() ? Effect::Kind::Compound : Effect::Kind::Assign,
                    op->getRHS(),
                    op->isCompoundAssignmentOp()
                        ? clang::BinaryOperator::getOpForCompoundAssignment(op->getOpcode())
                        : clang::BO_Add,
                    op->getOperatorLoc());
      return true;
    }
    if (op->getOpcode() == clang::BO_Assign &&
        keyed_input(var, op->getRHS(), source_text(op->getLHS(), vars_.context(), 200),
                    op->getOperatorLoc())) {
      return true;
    }
    if (op->getOpcode() == clang::BO_Assign &&
        is_input_conversion(op->getRHS(), calls_, vars_.context())) {
      out_.push_back(keyed_file_read(
          input(vars_, var, input_origin(op->getRHS()),
                source_text(op->getRHS()->IgnoreParenCasts(), vars_.context(), 60),
                source_text(op->getLHS(), vars_.context(), 200), op->getOperatorLoc()),
          op, op->getRHS()));
      return true;
    }
    // `globals.tiles_per_chunk = std::stoi(words[1]) / parallel.max_task;` under a key of an
    // input file (CloverLeaf's tiles_per_problem): the variable is configuration as when the
    // conversion is assigned alone; its parameter is the value the expression gave in the
    // estimation run (the run measures the variable after the loop), and is said so.
    if (const clang::Expr *conversion =
            op->getOpcode() == clang::BO_Assign
                ? conversion_within(op->getRHS(), calls_, vars_.context())
                : nullptr;
        conversion != nullptr && file_key(op, conversion, vars_.context())) {
      Effect e = keyed_file_read(
          input(vars_, var, input_origin(conversion),
                source_text(op->getRHS()->IgnoreParenCasts(), vars_.context(), 60),
                source_text(op->getLHS(), vars_.context(), 200), op->getOperatorLoc()),
          op, conversion);
      if (InputSite &site = vars_.program().inputs[e.input]; site.keyed) {
        site.doc += " (the value the whole expression gave in the estimation run)";
      }
      out_.push_back(std::move(e));
      return true;
    }
    Effect e;
    e.var = var;
    e.location = op->getOperatorLoc();
    e.value = op->getRHS();
    if (op->isCompoundAssignmentOp()) {
      e.kind = Effect::Kind::Compound;
      e.op = clang::BinaryOperator::getOpForCompoundAssignment(op->getOpcode());
      e.uses.push_back(var);
    } else {
      e.kind = Effect::Kind::Assign;
    }
    vars_.uses(op->getRHS(), e.uses);
    out_.push_back(std::move(e));
    return true;
  }

  bool VisitUnaryOperator(clang::UnaryOperator *op) {
    if (!op->isIncrementDecrementOp()) {
      return true;
    }
    const VarId var = vars_.lvalue(op->getSubExpr());
    if (var == kNoVar) {
      element_write(op->getSubExpr(),
                    op->isIncrementOp() ? Effect::Kind::Increment : Effect::Kind::Decrement,
                    nullptr, clang::BO_Add, op->getOperatorLoc());
      return true;
    }
    Effect e;
    e.kind = op->isIncrementOp() ? Effect::Kind::Increment : Effect::Kind::Decrement;
    e.var = var;
    e.location = op->getOperatorLoc();
    e.uses.push_back(var);
    out_.push_back(std::move(e));
    return true;
  }

  bool VisitVarDecl(clang::VarDecl *decl) {
    if (llvm::isa<clang::ParmVarDecl>(decl)) {
      return true;
    }
    if (!decl->getType()->isReferenceType() && !record_scalar_fields(decl->getType()).empty()) {
      if (decl->hasInit()) {
        RecordTarget target;
        if (followed_object(decl, vars_.program(), vars_.context())) {
          target.kind = RecordTarget::Kind::Object;
          target.object = decl;
        }
        std::vector<Effect> copy =
            record_copy_effects(target, decl->getInit(), vars_, calls_, decl->getLocation());
        out_.insert(out_.end(), copy.begin(), copy.end());
      }
      return true;
    }
    if (!decl->hasInit()) {
      uninitialised(decl);
      return true;
    }
    if (vars_.aggregate(decl) != kNoAggregate) {
      aggregate_init(decl);
      return true;
    }
    const clang::Expr *init = strip(decl->getInit());
    if (vector_declaration(decl, init, vars_, out_) || llvm::isa<clang::CXXConstructExpr>(init)) {
      return true;
    }
    const VarId var = vars_.declare(decl);
    if (var == kNoVar) {
      return true;
    }
    if (keyed_input(var, init, decl->getNameAsString(), decl->getLocation())) {
      return true;
    }
    if (is_input_conversion(init, calls_, vars_.context())) {
      out_.push_back(
          keyed_file_read(input(vars_, var, input_origin(init),
                                source_text(init->IgnoreParenCasts(), vars_.context(), 60),
                                decl->getNameAsString(), decl->getLocation()),
                          init, init));
      return true;
    }
    Effect e;
    e.kind = Effect::Kind::Assign;
    e.var = var;
    e.value = init;
    e.location = decl->getLocation();
    vars_.uses(init, e.uses);
    out_.push_back(std::move(e));
    return true;
  }

  bool VisitCallExpr(clang::CallExpr *call) {
    if (skip_ != nullptr && skip_->contains(call)) {
      return true;
    }
    if (auto copy = whole_array_assignment(call, vars_)) {
      out_.insert(out_.end(), copy->begin(), copy->end());
      return true;
    }
    if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
        op != nullptr && op->getOperator() == clang::OO_Equal && op->getNumArgs() == 2 &&
        !record_scalar_fields(op->getType()).empty()) {
      const auto *method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(op->getDirectCallee());
      if (method != nullptr && method->isTrivial()) {
        record_assignment(op->getArg(0), op->getArg(1), op->getOperatorLoc());
        return true;
      }
    }
    const ClassifiedCall c = calls_.classify(call, vars_.context());
    for (auto &e : call_effects(c, vars_)) {
      out_.push_back(std::move(e));
    }
    return true;
  }

  bool VisitCXXConstructExpr(clang::CXXConstructExpr *construct) {
    const clang::CXXConstructorDecl *ctor = construct->getConstructor();
    if (ctor == nullptr || ctor->isTrivial() || ctor->isImplicit() ||
        (skip_ != nullptr && skip_->contains(construct))) {
      return true;
    }
    const ClassifiedCall c = calls_.classify(construct, vars_.context());
    for (auto &e : call_effects(c, vars_)) {
      out_.push_back(std::move(e));
    }
    return true;
  }

private:
  // `int myRank;` with no initialiser, whose address a call takes: a model names a local only
  // where it assigns it, so a value read before any kept write (`rankOf(comm, &myRank)` copies
  // it into the callee's cell before the call) would be an unknown name. The program's value is
  // indeterminate; the model starts it at 0, as it does the elements of uninitialised local
  // arrays. (Other locals keep no such definition: a loop index declared at the top would
  // become a variable of the whole function.)
  void uninitialised(const clang::VarDecl *decl) {
    const clang::QualType type = decl->getType();
    if (decl->hasGlobalStorage() || decl->hasExternalStorage() ||
        !(type->isArithmeticType() || type->isEnumeralType()) || !address_taken(decl)) {
      return;
    }
    const VarId var = vars_.declare(decl);
    if (var == kNoVar) {
      return;
    }
    Effect e;
    e.kind = Effect::Kind::Builtin;
    e.var = var;
    e.text = type->isRealFloatingType() ? "0.0" : "0";
    e.location = decl->getLocation();
    out_.push_back(std::move(e));
  }

  static bool address_taken(const clang::VarDecl *decl) {
    const auto *fn = llvm::dyn_cast_or_null<clang::FunctionDecl>(decl->getParentFunctionOrMethod());
    if (fn == nullptr || fn->getBody() == nullptr) {
      return false;
    }
    std::vector<const clang::Stmt *> stack{fn->getBody()};
    while (!stack.empty()) {
      const clang::Stmt *s = stack.back();
      stack.pop_back();
      if (const auto *op = llvm::dyn_cast<clang::UnaryOperator>(s);
          op != nullptr && op->getOpcode() == clang::UO_AddrOf) {
        const auto *ref =
            llvm::dyn_cast<clang::DeclRefExpr>(op->getSubExpr()->IgnoreParenImpCasts());
        if (ref != nullptr && ref->getDecl() == decl) {
          return true;
        }
      }
      for (const clang::Stmt *child : s->children()) {
        if (child != nullptr) {
          stack.push_back(child);
        }
      }
    }
    return false;
  }

  // `y = x` of whole structs (record_copies.hpp).
  void record_assignment(const clang::Expr *lhs, const clang::Expr *rhs, clang::SourceLocation at) {
    RecordTarget target;
    if (const clang::VarDecl *object = followed_source(lhs, vars_)) {
      target.kind = RecordTarget::Kind::Object;
      target.object = object;
    }
    std::vector<Effect> copy = record_copy_effects(target, rhs, vars_, calls_, at);
    out_.insert(out_.end(), copy.begin(), copy.end());
  }

  // `a[i] op= value` with an index the model computes at run time: every element may be the
  // one written, so each gets a conditional update (a weak definition).
  void element_write(const clang::Expr *lhs, Effect::Kind kind, const clang::Expr *value,
                     clang::BinaryOperatorKind op, clang::SourceLocation where) {
    const VariableResolver::ElementAccess access = vars_.element_access(lhs);
    if (!access.valid()) {
      return;
    }
    const Aggregate &agg = vars_.program().aggregates[access.aggregate];
    // `nbr[count++] = q`: an index that changes a variable is no expression the model can
    // evaluate; any element may be the one written.
    for (const clang::Expr *index : access.indices) {
      if (index->HasSideEffects(vars_.context())) {
        for (const VarId element : agg.elements) {
          out_.push_back(havoc(element,
                               "written at '" + source_text(index, vars_.context(), 40) +
                                   "', an index that changes a variable",
                               where));
        }
        return;
      }
    }
    std::vector<VarId> index_uses;
    for (const clang::Expr *index : access.indices) {
      vars_.uses(index, index_uses);
    }
    std::vector<VarId> value_uses;
    if (value != nullptr) {
      vars_.uses(value, value_uses);
    }
    for (std::uint64_t k = 0; k < agg.elements.size(); ++k) {
      Effect e;
      e.kind = Effect::Kind::Element;
      e.element_kind = kind;
      e.var = agg.elements[k];
      e.value = value;
      e.op = op;
      e.aggregate = access.aggregate;
      e.element = k;
      e.offset = access.offset;
      e.indices = access.indices;
      e.strong = false;
      e.location = where;
      e.uses = value_uses;
      e.uses.insert(e.uses.end(), index_uses.begin(), index_uses.end());
      e.uses.push_back(e.var);
      out_.push_back(std::move(e));
    }
  }

  // A conversion under a test of a word against a key, inside the loop over an input file's
  // lines (file_keys.hpp): configuration read from the file, not data that changes.
  Effect keyed_file_read(Effect e, const clang::Stmt *where, const clang::Expr *value) {
    InputSite &site = vars_.program().inputs[e.input];
    if (site.how == "environment") {
      return e;
    }
    if (const auto key = file_key(where, value, vars_.context())) {
      site.how = "file";
      site.keyed = true;
      site.doc = "'" + *key + "' read from an input file by " + site.what;
    }
    return e;
  }

  // `int nbr[6] = {...}`, `std::array<int, 6> nbr{...}`: one assignment per element, the
  // missing ones zero. A std::array left uninitialised has no effect (as `int nbr[6];`), one
  // initialised from a whole array is a copy (array_copies.hpp).
  void aggregate_init(const clang::VarDecl *decl) {
    const AggregateId id = vars_.aggregate(decl);
    const Aggregate &agg = vars_.program().aggregates[id];
    std::vector<const clang::Expr *> values(agg.elements.size(), nullptr);
    const auto *list = llvm::dyn_cast<clang::InitListExpr>(decl->getInit()->IgnoreImplicit());
    if (list == nullptr) {
      const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(strip(decl->getInit()));
      if (construct == nullptr || construct->getNumArgs() > 0) {
        std::vector<Effect> copy =
            whole_array_effects(id, decl->getInit(), vars_, decl->getLocation());
        out_.insert(out_.end(), copy.begin(), copy.end());
      }
      return;
    }
    std::size_t next = 0;
    const std::function<void(const clang::InitListExpr *)> flatten =
        [&](const clang::InitListExpr *l) {
          for (const clang::Expr *init : l->inits()) {
            if (const auto *inner = llvm::dyn_cast<clang::InitListExpr>(init->IgnoreImplicit())) {
              flatten(inner);
            } else if (next < values.size()) {
              values[next++] =
                  llvm::isa<clang::ImplicitValueInitExpr>(init->IgnoreImplicit()) ? nullptr : init;
            }
          }
        };
    flatten(list);
    for (std::uint64_t k = 0; k < agg.elements.size(); ++k) {
      Effect e;
      e.var = agg.elements[k];
      e.location = decl->getLocation();
      if (values[k] != nullptr) {
        e.kind = Effect::Kind::Assign;
        e.value = values[k];
        vars_.uses(values[k], e.uses);
      } else {
        e.kind = Effect::Kind::Builtin;
        e.text = vars_.program().variables[e.var].type == VarType::Floating ? "0.0" : "0";
      }
      out_.push_back(std::move(e));
    }
  }

  VariableResolver &vars_;
  const CallClassifier &calls_;
  // `params.nx = parse_parameter<int>(argstring, "nx", 10)` (keyed_inputs.hpp).
  bool keyed_input(VarId var, const clang::Expr *value, const std::string &spelling,
                   clang::SourceLocation where) {
    const std::optional<KeyedLookup> keyed = keyed_lookup(value, vars_);
    if (!keyed) {
      return false;
    }
    Effect e = input(vars_, var, keyed->file ? "file" : "argv", keyed->what, spelling, where);
    InputSite &site = vars_.program().inputs[e.input];
    site.options = keyed->options;
    site.given_default = keyed->fallback;
    site.doc = "'" + keyed->key + "' looked up in the " +
               (keyed->file ? "input file" : "command line") + " by " + keyed->what;
    // A file's setting is named as the file spells it (`nx` for `mesh.global_nx =
    // get_int_parameter("nx", file)`), which is what a user edits; the variable is an alias.
    if (keyed->file) {
      site.name = keyed->key;
    }
    out_.push_back(std::move(e));
    return true;
  }

  std::vector<Effect> &out_;
  const std::set<const clang::Expr *> *skip_;
};

} // namespace

std::string macro_name(const clang::Expr *expr, const clang::ASTContext &context) {
  if (expr == nullptr) {
    return {};
  }
  std::string text = source_text(expr, context, 80);
  if (text.rfind("MPI_", 0) != 0) {
    return {};
  }
  for (char c : text) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
      return {};
    }
  }
  return text;
}

bool is_comm_world(const clang::Expr *comm, const clang::ASTContext &context) {
  if (macro_name(comm, context) == "MPI_COMM_WORLD") {
    return true;
  }
  const clang::Expr *e = comm->IgnoreParenCasts();
  if (const auto *unary = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    e = unary->getSubExpr()->IgnoreParenCasts();
  }
  if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    return ref->getDecl()->getNameAsString() == "ompi_mpi_comm_world";
  }
  return false;
}

std::vector<Effect> statement_effects(const clang::Stmt *stmt, VariableResolver &vars,
                                      const CallClassifier &calls,
                                      const std::set<const clang::Expr *> *skip_calls) {
  std::vector<Effect> out;
  if (stmt == nullptr) {
    return out;
  }
  EffectCollector collector(vars, calls, out, skip_calls);
  collector.TraverseStmt(const_cast<clang::Stmt *>(stmt));
  return out;
}

} // namespace parjava::frontend
