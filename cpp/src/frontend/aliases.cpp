#include "aliases.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>

#include "array_copies.hpp"
#include "subscripts.hpp"
#include "variables.hpp"

namespace parjava::frontend {

namespace {

bool global_like(const Variable &v) {
  return v.scope == VarScope::Global || v.scope == VarScope::Field;
}

// The variable a reference argument names (`neighbours(rank, size, left, right)` for
// `int &left`): a scalar, a field, an element at a constant index, or what the caller's own
// reference parameter names.
std::optional<AliasTarget> referenced(const clang::Expr *arg, VariableResolver &vars) {
  const VarId v = vars.lvalue(arg);
  if (v == kNoVar) {
    return std::nullopt;
  }
  AliasTarget t;
  t.scalar = v;
  return t;
}

// Every definition of the pointer variables of one function body.
class PointerDefinitions : public clang::RecursiveASTVisitor<PointerDefinitions> {
public:
  bool TraverseLambdaExpr(clang::LambdaExpr *) { return true; }
  bool VisitVarDecl(clang::VarDecl *var) {
    if (var->getType()->isPointerType() && !var->hasGlobalStorage() &&
        !llvm::isa<clang::ParmVarDecl>(var)) {
      auto &list = defs[var->getCanonicalDecl()];
      if (var->hasInit()) {
        list.push_back(var->getInit());
      }
    }
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator *op) {
    if (!op->isAssignmentOp()) {
      return true;
    }
    if (const clang::VarDecl *var = pointer(op->getLHS())) {
      if (op->getOpcode() == clang::BO_Assign) {
        defs[var].push_back(op->getRHS());
      } else {
        invalid.insert(var); // p += k moves the pointer
      }
    }
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator *op) {
    if (op->isIncrementDecrementOp() || op->getOpcode() == clang::UO_AddrOf) {
      if (const clang::VarDecl *var = pointer(op->getSubExpr())) {
        invalid.insert(var); // moved, or its address escapes
      }
    }
    return true;
  }
  std::map<const clang::VarDecl *, std::vector<const clang::Expr *>> defs;
  std::set<const clang::VarDecl *> invalid;

private:
  static const clang::VarDecl *pointer(const clang::Expr *e) {
    const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
    const auto *var = ref ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
    if (var == nullptr || !var->getType()->isPointerType() || var->hasGlobalStorage()) {
      return nullptr;
    }
    return var->getCanonicalDecl();
  }
};

// Array storage used as a pointer: decays and addresses of elements.
class PointerUses : public clang::RecursiveASTVisitor<PointerUses> {
public:
  explicit PointerUses(clang::ASTContext &ctx) : ctx_(ctx) {}
  bool TraverseLambdaExpr(clang::LambdaExpr *) { return true; }
  bool VisitImplicitCastExpr(clang::ImplicitCastExpr *cast) {
    if (cast->getCastKind() == clang::CK_ArrayToPointerDecay && !subscripted(cast)) {
      uses.push_back(cast);
    }
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator *op) {
    if (op->getOpcode() == clang::UO_AddrOf &&
        llvm::isa<clang::ArraySubscriptExpr>(op->getSubExpr()->IgnoreParens())) {
      uses.push_back(op);
    }
    return true;
  }
  // `for (int &field : fields) field = 0;` writes every element through a reference the effects
  // do not follow (CloverLeaf's start()): the array is data, not its elements' stale values.
  bool VisitCXXForRangeStmt(clang::CXXForRangeStmt *loop) {
    const clang::QualType var = loop->getLoopVariable()->getType();
    if (var->isReferenceType() && !var.getNonReferenceType().isConstQualified() &&
        loop->getRangeInit() != nullptr &&
        loop->getRangeInit()->IgnoreParenImpCasts()->getType()->isArrayType()) {
      range_writes.push_back(loop->getRangeInit());
    }
    return true;
  }
  std::vector<const clang::Expr *> uses;
  std::vector<const clang::Expr *> range_writes;

private:
  // `a[i]` decays `a` to index it: that is an element access, not a pointer use.
  bool subscripted(const clang::Expr *e) {
    const auto parents = ctx_.getParents(*e);
    if (parents.empty()) {
      return false;
    }
    if (const auto *sub = parents[0].get<clang::ArraySubscriptExpr>()) {
      return sub->getBase()->IgnoreParens() == e;
    }
    if (const auto *u = parents[0].get<clang::UnaryOperator>()) {
      return u->getOpcode() == clang::UO_Deref;
    }
    return false;
  }
  clang::ASTContext &ctx_;
};

class AliasFinder {
public:
  AliasFinder(Program &program, const CallClassifier &calls) : p_(program), calls_(calls) {}

  void run() {
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      PointerDefinitions defs;
      defs.TraverseStmt(const_cast<clang::Stmt *>(p_.functions[f].decl->getBody()));
      bodies_.push_back(std::move(defs));
    }
    // Locals defined from parameters need the parameters first, and the other way round for
    // pointers passed on: two rounds settle the usual chains.
    for (int round = 0; round < 2; ++round) {
      for (FunctionId f = 0; f < p_.functions.size(); ++f) {
        locals(f);
      }
      parameters();
    }
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      escapes(f);
    }
  }

private:
  void locals(FunctionId f) {
    VariableResolver vars(p_, *p_.functions[f].context, f);
    for (const auto &[var, list] : bodies_[f].defs) {
      if (list.size() != 1 || bodies_[f].invalid.contains(var)) {
        continue;
      }
      auto target = vars.pointer_target(list.front());
      if (!target) {
        target = heap_array(f, var, list.front());
      }
      if (target && usable(*target, f)) {
        p_.pointer_aliases[var] = *target;
      }
    }
  }

  // `iparams = (int *)malloc(sizeof(int) * nparams)` with nparams a constant (HPCG's options,
  // src/init.cpp): a heap array of at most kMaxAggregateElements scalars that only this
  // pointer reaches is an aggregate like `int iparams[10]`, one variable per element, named
  // after the pointer. calloc(n, size) too.
  std::optional<AliasTarget> heap_array(FunctionId f, const clang::VarDecl *var,
                                        const clang::Expr *value) {
    const auto *call = llvm::dyn_cast<clang::CallExpr>(value->IgnoreParenCasts());
    const clang::FunctionDecl *callee = call ? call->getDirectCallee() : nullptr;
    if (callee == nullptr) {
      return std::nullopt;
    }
    const std::string name = callee->getNameAsString();
    clang::ASTContext &ctx = *p_.functions[f].context;
    const clang::QualType element = var->getType()->getPointeeType();
    const VarType type = classify_type(element);
    if ((type != VarType::Integer && type != VarType::Floating) || element->isIncompleteType()) {
      return std::nullopt;
    }
    const auto constant = [&](const clang::Expr *e) -> std::optional<std::int64_t> {
      clang::Expr::EvalResult r;
      if (e == nullptr || e->isValueDependent() || !e->EvaluateAsInt(r, ctx)) {
        return std::nullopt;
      }
      return r.Val.getInt().getExtValue();
    };
    std::optional<std::int64_t> bytes;
    if (name == "malloc" && call->getNumArgs() == 1) {
      bytes = constant(call->getArg(0));
    } else if (name == "calloc" && call->getNumArgs() == 2) {
      const auto n = constant(call->getArg(0));
      const auto size = constant(call->getArg(1));
      if (n && size) {
        bytes = *n * *size;
      }
    }
    const auto size = static_cast<std::int64_t>(ctx.getTypeSizeInChars(element).getQuantity());
    if (!bytes || size <= 0 || *bytes <= 0 || *bytes % size != 0 ||
        static_cast<std::uint64_t>(*bytes / size) > kMaxAggregateElements) {
      return std::nullopt;
    }
    const auto n = static_cast<std::uint64_t>(*bytes / size);
    const std::string key = "heap:" + std::to_string(f) + ":" + var->getNameAsString() + ":";
    // The second round of run() finds the aggregate the first one made.
    const VarId first = p_.synthetic(key + "0", type, VarScope::Local, f);
    AggregateId id = p_.variables[first].aggregate;
    if (id == kNoAggregate) {
      id = static_cast<AggregateId>(p_.aggregates.size());
      Aggregate heap;
      heap.source_name = var->getNameAsString();
      heap.dims = {n};
      for (std::uint64_t k = 0; k < n; ++k) {
        const VarId v = p_.synthetic(key + std::to_string(k), type, VarScope::Local, f);
        Variable &element_var = p_.variables[v];
        element_var.source_name = heap.source_name + "[" + std::to_string(k) + "]";
        element_var.location = var->getLocation();
        element_var.aggregate = id;
        element_var.element = k;
        heap.elements.push_back(v);
      }
      p_.aggregates.push_back(std::move(heap));
    }
    AliasTarget t;
    t.aggregate = id;
    return t;
  }

  // Array storage the model cannot follow makes the array data: a pointer into it that is
  // neither an argument (calls write what they are passed, see effects.cpp) nor the one
  // definition of a known pointer, or one whose target is unknown (`fa[i]`, `&a[k]` with k known
  // only at run time).
  void escapes(FunctionId f) {
    clang::ASTContext &ctx = *p_.functions[f].context;
    VariableResolver vars(p_, ctx, f);
    PointerUses found(ctx);
    found.TraverseStmt(const_cast<clang::Stmt *>(p_.functions[f].decl->getBody()));
    for (const clang::Expr *use : found.uses) {
      const AggregateId agg = referenced_aggregate(use, vars);
      if (agg == kNoAggregate || p_.escaped_aggregates.contains(agg)) {
        continue;
      }
      const auto target = vars.pointer_target(use);
      std::string why;
      if (!target) {
        why =
            "'" + source_text(use, ctx, 40) + "' points into it at a place known only at run time";
      } else if (!argument_or_alias(use, ctx)) {
        why = "'" + source_text(use, ctx, 40) + "' takes its address";
      }
      if (!why.empty()) {
        p_.escaped_aggregates[agg] = {why, use->getBeginLoc(), &ctx};
      }
    }
    for (const clang::Expr *range : found.range_writes) {
      const AggregateId agg = referenced_aggregate(range, vars);
      if (agg != kNoAggregate && !p_.escaped_aggregates.contains(agg)) {
        p_.escaped_aggregates[agg] = {"'" + source_text(range, ctx, 40) +
                                          "' is written through the reference of a range-for",
                                      range->getBeginLoc(), &ctx};
      }
    }
    for (const clang::Expr *use : escaping_array_uses(p_.functions[f].decl->getBody(), ctx)) {
      const clang::ValueDecl *decl = named_decl(use);
      const AggregateId agg = decl != nullptr ? vars.aggregate(decl) : kNoAggregate;
      if (agg != kNoAggregate && !p_.escaped_aggregates.contains(agg)) {
        p_.escaped_aggregates[agg] = {"'" + source_text(use->IgnoreImplicit(), ctx, 40) +
                                          "' is used as a whole where the model follows only "
                                          "its elements, copies and returns",
                                      use->getBeginLoc(), &ctx};
      }
    }
  }

  AggregateId referenced_aggregate(const clang::Expr *e, VariableResolver &vars) const {
    e = e->IgnoreParenImpCasts();
    if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
      e = u->getSubExpr()->IgnoreParenImpCasts();
    }
    while (const auto *sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) {
      e = sub->getBase()->IgnoreParenImpCasts();
    }
    const clang::ValueDecl *decl = named_decl(e);
    return decl != nullptr && decl->getType()->isArrayType() ? vars.aggregate(decl) : kNoAggregate;
  }

  // A call argument, or the initialiser / assigned value of a pointer the model knows.
  bool argument_or_alias(const clang::Expr *use, clang::ASTContext &ctx) const {
    const clang::Expr *outer = use;
    for (auto parents = ctx.getParents(*outer); !parents.empty();
         parents = ctx.getParents(*outer)) {
      if (const auto *e = parents[0].get<clang::Expr>()) {
        if (llvm::isa<clang::CallExpr>(e) || llvm::isa<clang::CXXConstructExpr>(e)) {
          return true;
        }
        if (const auto *assign = llvm::dyn_cast<clang::BinaryOperator>(e)) {
          if (assign->getOpcode() == clang::BO_Assign) {
            return known_pointer(assign->getLHS());
          }
          return false;
        }
        if (llvm::isa<clang::ParenExpr>(e) || llvm::isa<clang::ImplicitCastExpr>(e) ||
            llvm::isa<clang::CStyleCastExpr>(e)) {
          outer = e;
          continue;
        }
        return false;
      }
      if (const auto *var = parents[0].get<clang::VarDecl>()) {
        return p_.pointer_aliases.contains(var->getCanonicalDecl());
      }
      return false;
    }
    return false;
  }

  bool known_pointer(const clang::Expr *e) const {
    const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
    const auto *var = ref ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
    return var != nullptr && p_.pointer_aliases.contains(var->getCanonicalDecl());
  }

  // A target a function other than the owner of a local can reach: globals, fields, their
  // arrays; a local only within its own function.
  bool usable(const AliasTarget &t, FunctionId f) const {
    if (t.aggregate != kNoAggregate) {
      const Variable &first = p_.variables[p_.aggregates[t.aggregate].elements.front()];
      return global_like(first) || first.function == f;
    }
    if (t.scalar == kNoVar) {
      return false;
    }
    const Variable &v = p_.variables[t.scalar];
    return global_like(v) || v.function == f || t.cell;
  }

  void parameters() {
    struct Seen {
      std::vector<AliasTarget> targets;
      bool unknown = false;
    };
    std::map<std::pair<FunctionId, unsigned>, Seen> seen;
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      // A call in a function the program never runs passes nothing (PRK's header defines
      // optimize_split(), calling factor() with array elements, in every kernel; stencil never
      // calls it, and its calls made factor()'s pointers unknown).
      if (!p_.live(f)) {
        continue;
      }
      VariableResolver vars(p_, *p_.functions[f].context, f);
      for (const clang::Expr *call : calls_in(p_.functions[f].decl->getBody())) {
        const ClassifiedCall c = calls_.classify(call, *p_.functions[f].context);
        if (c.kind != CallClass::User || c.user == kNoFunction) {
          continue;
        }
        const clang::FunctionDecl *callee = p_.functions[c.user].decl;
        for (unsigned i = 0; i < callee->getNumParams() && i < c.args.size(); ++i) {
          // Pointers, std::arrays by reference or by value (array_copies.hpp), and references
          // to scalars.
          const clang::QualType type = callee->getParamDecl(i)->getType();
          const bool array_value = !type->isReferenceType() && std_array_extent(type, nullptr);
          // A parsing helper's reference that only receives inputs is the caller's input
          // (reference_inputs.hpp), not a cell.
          const bool scalar_reference =
              is_scalar_reference(type) &&
              !p_.input_references.contains(callee->getParamDecl(i)->getCanonicalDecl());
          if (!type->isPointerType() && !std_array_extent(type, nullptr) && !scalar_reference) {
            continue;
          }
          Seen &s = seen[{c.user, i}];
          const auto target =
              scalar_reference ? referenced(c.args[i], vars) : vars.pointer_target(c.args[i]);
          if (!target) {
            s.unknown = true;
            continue;
          }
          AliasTarget t = *target;
          if (array_value && t.aggregate != kNoAggregate) {
            t.cell = true; // a copy: the callee's writes must not reach the caller's array
          } else if (t.scalar != kNoVar && !t.cell && !global_like(p_.variables[t.scalar])) {
            t.cell = true; // a caller's local: reached through the callee's cell
          } else if (t.aggregate != kNoAggregate &&
                     !global_like(p_.variables[p_.aggregates[t.aggregate].elements.front()])) {
            t.cell = true; // a caller's local array: reached through the callee's array cell
          }
          s.targets.push_back(t);
        }
      }
    }
    for (const auto &[key, s] : seen) {
      const auto [g, i] = key;
      const clang::ParmVarDecl *param = p_.functions[g].decl->getParamDecl(i);
      if (s.unknown || s.targets.empty() || moved(g, param)) {
        continue;
      }
      const AliasTarget first = s.targets.front();
      const bool same = std::all_of(s.targets.begin(), s.targets.end(),
                                    [&](const AliasTarget &t) { return t == first; });
      if (same && !first.cell) {
        p_.pointer_aliases[param->getCanonicalDecl()] = first;
        if (is_scalar_reference(param->getType())) {
          p_.map_variable(param, first.scalar); // the reference is the variable it names
        }
        continue;
      }
      if (first.aggregate != kNoAggregate) {
        array_cell(g, i, param, s.targets);
        continue;
      }
      // Scalars (of one type) from several places, or a caller's local: a cell of the callee.
      const bool scalars =
          std::all_of(s.targets.begin(), s.targets.end(), [&](const AliasTarget &t) {
            return t.scalar != kNoVar &&
                   p_.variables[t.scalar].type == p_.variables[first.scalar].type;
          });
      if (!scalars) {
        continue;
      }
      const VarType type = p_.variables[first.scalar].type;
      const VarId cell = p_.synthetic("cell:" + std::to_string(g) + ":" + std::to_string(i), type,
                                      VarScope::Global, kNoFunction);
      Variable &v = p_.variables[cell];
      const bool reference = is_scalar_reference(param->getType());
      v.source_name =
          p_.functions[g].name + (reference ? "(&" : "(*") + param->getNameAsString() + ")";
      v.location = param->getLocation();
      AliasTarget t;
      t.scalar = cell;
      t.cell = true;
      p_.pointer_aliases[param->getCanonicalDecl()] = t;
      if (reference) {
        // Every use of the reference in the callee reads or writes the cell, which each call
        // copies the caller's variable into and back out of (call_effects.cpp).
        p_.map_variable(param, cell);
      }
    }
  }

  // Arrays (of one element type) from several places, or a caller's local array
  // (`initDecomposition(..., real3 globalExtent)` called with main's `real3 globalExtent`): an
  // array cell of the callee, one variable per element, that each call copies the caller's
  // elements into before and back out of after. It has as many elements as the shortest array
  // passed; an index beyond them is data.
  void array_cell(FunctionId g, unsigned i, const clang::ParmVarDecl *param,
                  const std::vector<AliasTarget> &targets) {
    std::uint64_t n = kMaxAggregateElements;
    VarType type = VarType::Integer;
    for (std::size_t k = 0; k < targets.size(); ++k) {
      const AliasTarget &t = targets[k];
      if (t.aggregate == kNoAggregate) {
        return; // arrays and scalars mixed: the parameter stays unknown
      }
      const Aggregate &agg = p_.aggregates[t.aggregate];
      const VarType element = p_.variables[agg.elements.front()].type;
      if (k > 0 && element != type) {
        return;
      }
      type = element;
      n = std::min<std::uint64_t>(n, agg.elements.size() - std::min(t.offset, agg.elements.size()));
    }
    if (n == 0) {
      return;
    }
    const std::string key = "cell:" + std::to_string(g) + ":" + std::to_string(i) + ":";
    const std::string name = p_.functions[g].name + "(*" + param->getNameAsString() + ")";
    // The second round of run() finds the cell the first one made.
    const VarId first = p_.synthetic(key + "0", type, VarScope::Global, kNoFunction);
    AggregateId id = p_.variables[first].aggregate;
    if (id == kNoAggregate) {
      id = static_cast<AggregateId>(p_.aggregates.size());
      Aggregate cell;
      cell.source_name = name;
      cell.dims = {n};
      for (std::uint64_t k = 0; k < n; ++k) {
        const VarId v = p_.synthetic(key + std::to_string(k), type, VarScope::Global, kNoFunction);
        Variable &var = p_.variables[v];
        var.source_name = name + "[" + std::to_string(k) + "]";
        var.location = param->getLocation();
        var.aggregate = id;
        var.element = k;
        cell.elements.push_back(v);
      }
      p_.aggregates.push_back(std::move(cell));
    }
    AliasTarget t;
    t.aggregate = id;
    t.cell = true;
    p_.pointer_aliases[param->getCanonicalDecl()] = t;
  }

  bool moved(FunctionId g, const clang::ParmVarDecl *param) const {
    const auto *canonical = llvm::cast<clang::VarDecl>(param->getCanonicalDecl());
    const PointerDefinitions &d = bodies_[g];
    const auto it = d.defs.find(canonical);
    return d.invalid.contains(canonical) || (it != d.defs.end() && !it->second.empty());
  }

  Program &p_;
  const CallClassifier &calls_;
  std::vector<PointerDefinitions> bodies_;
};

} // namespace

void find_pointer_aliases(Program &program, const CallClassifier &calls) {
  AliasFinder(program, calls).run();
}

} // namespace parjava::frontend
