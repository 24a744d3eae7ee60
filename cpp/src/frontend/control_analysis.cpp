#include "control_analysis.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/Basic/SourceManager.h>
#include <llvm/Support/Path.h>

#include "measured_definitions.hpp"
#include "shared_fields.hpp"
#include "variables.hpp"

namespace parjava::frontend {

namespace {

// A set of variables, dense over VarId.
class VarSet {
public:
  bool has(VarId v) const { return v < bits_.size() && bits_[v]; }
  bool set(VarId v) {
    if (v >= bits_.size()) {
      bits_.resize(v + 1, false);
    }
    const bool added = !bits_[v];
    bits_[v] = true;
    return added;
  }
  void reset(VarId v) {
    if (v < bits_.size()) {
      bits_[v] = false;
    }
  }
  bool merge(const VarSet &other) {
    bool changed = false;
    for (VarId v = 0; v < other.bits_.size(); ++v) {
      if (other.bits_[v]) {
        changed = set(v) || changed;
      }
    }
    return changed;
  }
  bool operator==(const VarSet &other) const {
    const std::size_t n = std::max(bits_.size(), other.bits_.size());
    for (VarId v = 0; v < n; ++v) {
      if (has(v) != other.has(v)) {
        return false;
      }
    }
    return true;
  }

private:
  std::vector<bool> bits_;
};

bool global_like(const Variable &v) {
  return v.scope == VarScope::Global || v.scope == VarScope::Field ||
         v.scope == VarScope::ReturnSlot;
}

class Analysis {
public:
  Analysis(Program &program, const ExpressionWriter &writer) : p_(program), writer_(writer) {}

  void run() {
    mark_builtins();
    representability();
    communicator_names();
    conditions();
    control_search();
    communication_and_recursion();
    report();
  }

private:
  // --- helpers ------------------------------------------------------------------------

  std::vector<StructIndex> nodes_of(FunctionId f) const {
    std::vector<StructIndex> out;
    const StructIndex root = p_.functions[f].body;
    if (root == kNoStruct) {
      return out;
    }
    std::vector<StructIndex> stack{root};
    while (!stack.empty()) {
      const StructIndex n = stack.back();
      stack.pop_back();
      out.push_back(n);
      for (auto it = p_.nodes[n].children.rbegin(); it != p_.nodes[n].children.rend(); ++it) {
        stack.push_back(*it);
      }
    }
    return out;
  }

  // `unit` is the translation unit `where` belongs to (the analysed function's, or the one a
  // writer result names).
  bool knock_out(VarId v, const std::string &why, clang::SourceLocation where,
                 const clang::ASTContext *unit) {
    Variable &var = p_.variables[v];
    if (!var.representable || var.scope == VarScope::Builtin) {
      return false;
    }
    var.representable = false;
    var.unrepresentable_reason = why;
    var.unrepresentable_at = where;
    var.unrepresentable_unit = unit;
    return true;
  }

  static const clang::ASTContext *unit_of(const WriteResult &r, const clang::ASTContext *own) {
    return r.unit != nullptr ? r.unit : own;
  }

  // Substitutions inside a task group: the creating loop's variable is `task`.
  const std::map<VarId, std::string> *task_substitution(StructIndex n) {
    const auto it = task_subs_.find(n);
    return it == task_subs_.end() ? nullptr : &it->second;
  }

  void mark_builtins() {
    for (auto &v : p_.variables) {
      if (v.type == VarType::Other) {
        v.representable = false;
      }
    }
    // Loops with a variable of their own read it, not the function's (loop_scopes.hpp).
    for (const auto &scoped : p_.scoped_loops) {
      std::vector<StructIndex> stack{scoped.loop};
      while (!stack.empty()) {
        const StructIndex c = stack.back();
        stack.pop_back();
        task_subs_[c][scoped.outer] = writer_.name(scoped.inner);
        for (StructIndex cc : p_.nodes[c].children) {
          stack.push_back(cc);
        }
      }
    }
    // Record which call nodes sit inside task groups (their arguments read `task`).
    for (StructIndex n = 0; n < p_.nodes.size(); ++n) {
      const StructNode &node = p_.nodes[n];
      if (node.kind == StructKind::TaskGroup && node.task_var != kNoVar) {
        std::vector<StructIndex> stack(node.children.begin(), node.children.end());
        while (!stack.empty()) {
          const StructIndex c = stack.back();
          stack.pop_back();
          task_subs_[c][node.task_var] = "task";
          for (StructIndex cc : p_.nodes[c].children) {
            stack.push_back(cc);
          }
        }
      }
    }
  }

  // --- 1. representability ------------------------------------------------------------

  void representability() {
    // Arrays whose storage escapes (aliases.cpp) are data, element by element.
    for (const auto &[agg, escape] : p_.escaped_aggregates) {
      for (VarId v : p_.aggregates[agg].elements) {
        knock_out(v, "'" + p_.aggregates[agg].source_name + "' is data: " + escape.why,
                  escape.where, escape.unit);
      }
    }
    // Globals initialised from data, or never given a constant value, are data.
    for (VarId v = 0; v < p_.variables.size(); ++v) {
      Variable &var = p_.variables[v];
      if (var.scope != VarScope::Global || var.decl == nullptr) {
        continue;
      }
      const auto *decl = llvm::dyn_cast<clang::VarDecl>(var.decl);
      if (decl == nullptr || decl->getInit() == nullptr) {
        continue;
      }
      clang::Expr::EvalResult result;
      if (!decl->getInit()->EvaluateAsRValue(result, decl->getASTContext())) {
        knock_out(v, "'" + var.source_name + "' is initialised from data", var.location,
                  &decl->getASTContext());
      } else if (result.Val.isInt() && !result.Val.getInt().isRepresentableByInt64()) {
        knock_out(v,
                  "'" + var.source_name +
                      "' is initialised to a constant beyond the model's 64-bit signed integers",
                  var.location, &decl->getASTContext());
      }
    }
    unassigned_vector_sizes();
    for (const SharedField &field : fields_of_several_objects(p_)) {
      knock_out(field.var, field.why, field.where, field.unit);
      p_.shared_fields.push_back(field.var);
    }
    measure_alternative_definitions(p_, writer_);
    bool changed = true;
    while (changed) {
      changed = false;
      for (FunctionId f = 0; f < p_.functions.size(); ++f) {
        for (StructIndex n : nodes_of(f)) {
          changed = check_node(f, n) || changed;
        }
      }
    }
  }

  // A model names a local only where it assigns it. The size of a local vector that no effect
  // of its function assigns (a way of filling it the effects do not know) is data: a read of
  // it was an unknown name and no model at all (miniFE, PENNANT).
  void unassigned_vector_sizes() {
    std::set<VarId> assigned;
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      for (StructIndex n : nodes_of(f)) {
        const StructNode &node = p_.nodes[n];
        for (const auto *list : {&node.effects, &node.init, &node.update}) {
          for (const Effect &e : *list) {
            assigned.insert(e.var);
          }
        }
        if (node.result != kNoVar) {
          assigned.insert(node.result);
        }
      }
    }
    for (VarId v = 0; v < p_.variables.size(); ++v) {
      const Variable &var = p_.variables[v];
      // A scalar declared without a value and never assigned (Ember's lqcd tests `int
      // nsCompute;` in main, set only in another function's local of that name): what it
      // holds is indeterminate, a condition on it is measured.
      const auto *decl = llvm::dyn_cast_or_null<clang::VarDecl>(var.decl);
      if (var.scope == VarScope::Local && decl != nullptr && !decl->hasInit() &&
          decl->isLocalVarDecl() && !decl->getType()->isArrayType() && !assigned.contains(v) &&
          (var.type == VarType::Integer || var.type == VarType::Floating)) {
        knock_out(v, "'" + var.source_name + "' is never assigned a value (read uninitialised)",
                  var.location,
                  var.function != kNoFunction ? p_.functions[var.function].context : nullptr);
        continue;
      }
      // A status field no modelled MPI call sets (graph500's `ack_intra -= status.MPI_TAG`
      // after MPI_Testany, an external call): the model had a name nothing declared.
      if (var.decl == nullptr && !assigned.contains(v) &&
          (var.source_name.ends_with(".MPI_TAG") || var.source_name.ends_with(".MPI_SOURCE"))) {
        knock_out(
            v, "'" + var.source_name + "' is set by an MPI call the model does not follow (data)",
            var.location,
            var.function != kNoFunction ? p_.functions[var.function].context : nullptr);
        continue;
      }
      if (var.scope == VarScope::Local && var.source_name.ends_with(".size()") &&
          !assigned.contains(v)) {
        knock_out(v,
                  "'" + var.source_name +
                      "' is the size of a vector filled in a way the model does not follow",
                  var.location,
                  var.function != kNoFunction ? p_.functions[var.function].context : nullptr);
      }
    }
  }

  bool check_effects(FunctionId f, StructIndex n, const std::vector<Effect> &effects) {
    bool changed = false;
    WriteOptions o;
    o.substitutions = task_substitution(n);
    for (const Effect &e : effects) {
      if (!p_.variables[e.var].representable) {
        continue;
      }
      const WriteResult r = writer_.effect_value(e, f, o);
      if (!r.ok) {
        const clang::ASTContext *own = p_.functions[f].context;
        changed = (r.where.isValid() ? knock_out(e.var, r.why, r.where, unit_of(r, own))
                                     : knock_out(e.var, r.why, e.location, own)) ||
                  changed;
      }
    }
    return changed;
  }

  bool check_node(FunctionId f, StructIndex n) {
    bool changed = false;
    // Copy: knocking out variables never changes the node itself.
    const StructNode &node = p_.nodes[n];
    changed = check_effects(f, n, node.effects) || changed;
    changed = check_effects(f, n, node.init) || changed;
    changed = check_effects(f, n, node.update) || changed;
    // A call in a function the program never runs passes nothing (live_functions.hpp).
    if (node.kind == StructKind::UserCall && node.callee != kNoFunction && p_.live(f)) {
      const FunctionInfo &callee = p_.functions[node.callee];
      WriteOptions o;
      o.substitutions = task_substitution(n);
      for (std::size_t i = 0; i < callee.params.size(); ++i) {
        const VarId param = callee.params[i];
        if (param == kNoVar || !p_.variables[param].representable) {
          continue;
        }
        const clang::Expr *arg = i < node.args.size() ? node.args[i] : nullptr;
        if (arg == nullptr) {
          changed =
              knock_out(param,
                        "parameter '" + p_.variables[param].source_name + "' of " + callee.name +
                            "() gets no value from " + p_.functions[f].name + "()",
                        p_.variables[param].location, p_.functions[node.callee].context) ||
              changed;
          continue;
        }
        const WriteResult r = p_.variables[param].type == VarType::Datatype
                                  ? writer_.datatype_size(arg, f)
                                  : writer_.write(arg, f, o);
        if (!r.ok) {
          changed = knock_out(param,
                              "parameter '" + p_.variables[param].source_name + "' of " +
                                  callee.name + "() is passed data (" + r.why + ")",
                              r.where, unit_of(r, p_.functions[f].context)) ||
                    changed;
        }
      }
    }
    if (node.kind == StructKind::Return && node.return_value != nullptr) {
      const VarId slot = p_.functions[f].return_slot;
      if (slot != kNoVar && p_.variables[slot].representable) {
        const WriteResult r = writer_.write(node.return_value, f);
        if (!r.ok) {
          changed = knock_out(slot,
                              "the value " + p_.functions[f].name +
                                  "() returns depends "
                                  "on " +
                                  r.why,
                              r.where, unit_of(r, p_.functions[f].context)) ||
                    changed;
        }
      }
    }
    return changed;
  }

  // Communicators: a variable set by Comm_split / Comm_dup is named after itself; one assigned
  // MPI_COMM_WORLD (or passed it as a parameter everywhere) is "world".
  void communicator_names() {
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      for (StructIndex n : nodes_of(f)) {
        const StructNode &node = p_.nodes[n];
        for (const Effect &e : node.effects) {
          Variable &v = p_.variables[e.var];
          if (v.type != VarType::Comm) {
            continue;
          }
          if (e.kind == Effect::Kind::Operation) {
            v.handle_name = v.model_name;
          } else if (e.kind == Effect::Kind::Assign && e.value != nullptr &&
                     v.handle_name.empty()) {
            v.handle_name = comm_text(e.value, f);
          } else if (e.kind == Effect::Kind::Assign && e.value != nullptr &&
                     v.handle_name != v.model_name) {
            // One name per variable: a second assignment of another communicator would be
            // followed silently by the first one's name; it is said here and on every leaf
            // that uses the variable (Variable::handle_conflict).
            const std::string other = comm_text(e.value, f);
            if (other != v.handle_name) {
              const unsigned line =
                  p_.functions[f].context->getSourceManager().getPresumedLineNumber(e.location);
              v.handle_conflict =
                  "communicator '" + v.source_name + "' is assigned " +
                  (other.empty() ? std::string("a communicator the model cannot name")
                                 : "'" + other + "'") +
                  " at line " + std::to_string(line) + " and '" + v.handle_name +
                  "' elsewhere; the model names it '" + v.handle_name + "' everywhere";
              p_.diagnostics.push_back(at(f, e.location, DiagnosticKind::Approximation,
                                          Severity::Warning, v.handle_conflict));
            }
          }
        }
      }
    }
    bool changed = true;
    while (changed) {
      changed = false;
      for (FunctionId f = 0; f < p_.functions.size(); ++f) {
        for (StructIndex n : nodes_of(f)) {
          const StructNode &node = p_.nodes[n];
          if (node.kind != StructKind::UserCall || node.callee == kNoFunction) {
            continue;
          }
          const FunctionInfo &callee = p_.functions[node.callee];
          for (std::size_t i = 0; i < callee.params.size() && i < node.args.size(); ++i) {
            const VarId param = callee.params[i];
            if (param == kNoVar || p_.variables[param].type != VarType::Comm ||
                node.args[i] == nullptr) {
              continue;
            }
            const std::string name = comm_text(node.args[i], f);
            Variable &pv = p_.variables[param];
            if (pv.handle_name.empty() && !name.empty()) {
              pv.handle_name = name;
              changed = true;
            }
          }
        }
      }
    }
  }

  std::string comm_text(const clang::Expr *e, FunctionId f) {
    clang::ASTContext &ctx = *p_.functions[f].context;
    const std::string macro = source_text(e, ctx, 40);
    if (macro == "MPI_COMM_WORLD") {
      return "world";
    }
    if (macro == "MPI_COMM_SELF") {
      return "self";
    }
    VariableResolver vars(p_, ctx, f);
    const VarId v = vars.lvalue(e);
    if (v != kNoVar && p_.variables[v].type == VarType::Comm) {
      return p_.variables[v].handle_name;
    }
    const clang::Expr *inner = e->IgnoreParenCasts();
    if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(inner)) {
      inner = u->getSubExpr()->IgnoreParenCasts();
    }
    if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(inner)) {
      const std::string n = ref->getDecl()->getNameAsString();
      if (n == "ompi_mpi_comm_world") {
        return "world";
      }
      if (n == "ompi_mpi_comm_self") {
        return "self";
      }
    }
    return {};
  }

  // --- 2. conditions ----------------------------------------------------------------

  void conditions() {
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      for (StructIndex n : nodes_of(f)) {
        StructNode &node = p_.nodes[n];
        const bool has_condition = node.kind == StructKind::If || node.kind == StructKind::IfElse ||
                                   node.kind == StructKind::Switch || is_loop(node.kind);
        if (!has_condition) {
          continue;
        }
        if (!node.cond_text.empty()) {
          node.control = true;
          continue;
        }
        if (node.range_for) {
          if (node.counter != kNoVar && !node.uses.empty() &&
              p_.variables[node.uses.front()].representable) {
            node.control = true;
          } else {
            node.opaque = true;
            node.opaque_reason = "the loop runs over '" +
                                 source_text(node.trips_hint, *p_.functions[f].context, 40) +
                                 "', whose length the model does not know";
          }
          continue;
        }
        if (node.dispatch != kNoFunction) {
          node.opaque = true;
          node.opaque_reason = "which function the pointer '" +
                               source_text(node.cond, *p_.functions[f].context, 40) +
                               "' holds is data the model does not keep";
          opaque_where_[n] = {node.cond->getBeginLoc(), p_.functions[f].context};
          continue;
        }
        if (node.cond == nullptr) {
          node.control = true; // for (;;): left by break or return
          continue;
        }
        WriteOptions o;
        o.substitutions = task_substitution(n);
        const WriteResult r = writer_.write(node.cond, f, o);
        if (r.ok || (is_loop(node.kind) && bounded_by_control(node, f, o, r))) {
          node.control = true;
        } else {
          node.opaque = true;
          node.opaque_reason = r.why;
          opaque_where_[n] = {r.where, unit_of(r, p_.functions[f].context)};
        }
      }
    }
  }

  // `while (time < stoptime && cycle < its)`: a loop whose condition is a conjunction of a
  // data test and tests the model computes runs at most as long as the computed part allows.
  // The model keeps that part (so the loop scales with `its`) and says which data test it
  // assumes does not end the loop first; the estimation run's self-check sees if it does.
  bool bounded_by_control(StructNode &node, FunctionId f, const WriteOptions &o,
                          const WriteResult &whole) {
    // Only outer loops that call or communicate (time-step loops); a computational loop keeps
    // its measured trip count, which already says when the data test ends it.
    if (!calls_or_communicates(node)) {
      return false;
    }
    std::vector<const clang::Expr *> conjuncts;
    const std::function<void(const clang::Expr *)> split = [&](const clang::Expr *e) {
      e = e->IgnoreParenImpCasts();
      if (const auto *b = llvm::dyn_cast<clang::BinaryOperator>(e)) {
        if (b->getOpcode() == clang::BO_LAnd) {
          split(b->getLHS());
          split(b->getRHS());
          return;
        }
      }
      conjuncts.push_back(e);
    };
    split(node.cond);
    std::string kept;
    std::string dropped;
    for (const clang::Expr *c : conjuncts) {
      const WriteResult r = writer_.write(c, f, o);
      if (r.ok) {
        kept += (kept.empty() ? "" : " && ") + std::string("(") + r.text + ")";
      } else {
        dropped +=
            (dropped.empty() ? "'" : ", '") + source_text(c, *p_.functions[f].context, 60) + "'";
      }
    }
    if (kept.empty() || dropped.empty()) {
      return false;
    }
    node.cond_text = kept;
    Diagnostic d = at(f, node.range.getBegin(), DiagnosticKind::Approximation, Severity::Warning,
                      "loop '" + node.label + "' runs while " + kept +
                          " in the model; its data "
                          "test " +
                          dropped + " (" + whole.why +
                          ") is assumed not to end it "
                          "earlier");
    p_.diagnostics.push_back(std::move(d));
    return true;
  }

  bool calls_or_communicates(const StructNode &node) const {
    if (node.kind == StructKind::Communication || node.kind == StructKind::UserCall ||
        node.kind == StructKind::TaskGroup) {
      return true;
    }
    return std::any_of(node.children.begin(), node.children.end(),
                       [&](StructIndex c) { return calls_or_communicates(p_.nodes[c]); });
  }

  // --- 3. backward control search (notes 000 §3.5, Fig. 1-3) ---------------------------

  struct Targets {
    std::map<StructIndex, VarSet> exit;
    std::map<StructIndex, VarSet> cont;
  };

  void add_uses(VarSet &live, const std::vector<VarId> &uses) {
    for (VarId v : uses) {
      if (v >= p_.variables.size()) {
        continue;
      }
      const Variable &var = p_.variables[v];
      if (var.scope == VarScope::Builtin || !var.representable) {
        continue;
      }
      if (global_like(var)) {
        if (gc_.set(v)) {
          global_changed_ = true;
        }
      } else {
        live.set(v);
      }
    }
  }

  void process_effects(std::vector<Effect> &effects, VarSet &live) {
    for (auto it = effects.rbegin(); it != effects.rend(); ++it) {
      Effect &e = *it;
      const Variable &var = p_.variables[e.var];
      const bool needed = global_like(var) ? gc_.has(e.var) : live.has(e.var);
      if (!needed || !var.representable || e.kind == Effect::Kind::Havoc) {
        continue;
      }
      e.kept = true;
      const bool kills = e.strong && !global_like(var) &&
                         (e.kind == Effect::Kind::Assign || e.kind == Effect::Kind::Builtin ||
                          e.kind == Effect::Kind::Product || e.kind == Effect::Kind::Operation ||
                          e.kind == Effect::Kind::Input || e.kind == Effect::Kind::Copy ||
                          e.kind == Effect::Kind::Topology);
      if (kills) {
        live.reset(e.var);
      }
      add_uses(live, e.uses);
    }
  }

  VarSet process(StructIndex n, VarSet out, Targets &t) {
    StructNode &node = p_.nodes[n];
    const FunctionId f = node.function;
    switch (node.kind) {
    case StructKind::Sequence: {
      t.exit[n] = out; // a forward goto leaves it by a break (forward_gotos.hpp)
      VarSet live = std::move(out);
      const auto children = node.children;
      for (auto it = children.rbegin(); it != children.rend(); ++it) {
        live = process(*it, std::move(live), t);
      }
      return live;
    }
    case StructKind::Block:
      process_effects(node.effects, out);
      return out;
    case StructKind::ExternalCall:
      process_effects(node.effects, out);
      add_uses(out, node.uses); // the size of a call priced by it (structure_calls.cpp)
      return out;
    case StructKind::Communication: {
      process_effects(node.effects, out);
      for (const CommArg &a : node.comm_args) {
        add_uses(out, a.uses);
      }
      return out;
    }
    case StructKind::UserCall: {
      process_effects(node.effects, out);
      if (node.result != kNoVar && gc_.has(node.result) && node.callee != kNoFunction &&
          !p_.functions[node.callee].returns_control) {
        p_.functions[node.callee].returns_control = true;
        global_changed_ = true;
      }
      if (node.callee != kNoFunction) {
        const FunctionInfo &callee = p_.functions[node.callee];
        for (std::size_t i = 0; i < callee.params.size() && i < node.arg_uses.size(); ++i) {
          if (callee.params[i] != kNoVar && control_params_.has(callee.params[i])) {
            add_uses(out, node.arg_uses[i]);
          }
        }
      }
      return out;
    }
    case StructKind::Return: {
      VarSet live;
      const VarId slot = p_.functions[f].return_slot;
      if (slot != kNoVar && gc_.has(slot)) {
        add_uses(live, node.uses);
      }
      return live;
    }
    case StructKind::Break:
      return t.exit[node.target];
    case StructKind::Continue:
      return t.cont[node.target];
    case StructKind::Reduced:
      return out;
    case StructKind::TaskGroup: {
      VarSet live = node.children.empty() ? out : process(node.children.front(), out, t);
      live.merge(out);
      add_uses(live, node.uses); // the task count
      return live;
    }
    case StructKind::If:
    case StructKind::IfElse: {
      VarSet live = process(node.children[0], out, t);
      if (node.kind == StructKind::IfElse) {
        live.merge(process(node.children[1], out, t));
      } else {
        live.merge(out);
      }
      if (node.control) {
        add_uses(live, node.uses);
      }
      return live;
    }
    case StructKind::Switch: {
      t.exit[n] = out;
      VarSet next = out;
      VarSet live;
      bool has_default = false;
      for (std::size_t k = node.children.size(); k-- > 0;) {
        next = process(node.children[k], next, t);
        live.merge(next);
        has_default = has_default || node.cases[k].is_default;
      }
      if (!has_default) {
        live.merge(out);
      }
      if (node.control) {
        add_uses(live, node.uses);
      }
      return live;
    }
    case StructKind::For:
    case StructKind::While:
    case StructKind::DoWhile: {
      t.exit[n] = out;
      VarSet head = out;
      if (node.control) {
        add_uses(head, node.uses);
      }
      for (int iteration = 0; iteration < 100; ++iteration) {
        VarSet after_body = head;
        process_effects(node.update, after_body);
        t.cont[n] = node.kind == StructKind::DoWhile ? head : after_body;
        VarSet body_in = process(node.children[0], after_body, t);
        VarSet next = out;
        if (node.control) {
          add_uses(next, node.uses);
        }
        next.merge(body_in);
        if (next == head) {
          break;
        }
        head = std::move(next);
      }
      if (node.kind == StructKind::DoWhile) {
        return process(node.children[0], head, t);
      }
      VarSet live = head;
      process_effects(node.init, live);
      return live;
    }
    }
    return out;
  }

  void control_search() {
    for (int round = 0; round < 200; ++round) {
      global_changed_ = false;
      for (FunctionId f = 0; f < p_.functions.size(); ++f) {
        if (p_.functions[f].body == kNoStruct) {
          continue;
        }
        Targets t;
        const VarSet entry = process(p_.functions[f].body, VarSet(), t);
        for (VarId param : p_.functions[f].params) {
          if (param != kNoVar && entry.has(param) && control_params_.set(param)) {
            global_changed_ = true;
          }
        }
      }
      if (!global_changed_) {
        break;
      }
    }
    for (VarId v = 0; v < p_.variables.size(); ++v) {
      p_.variables[v].control = gc_.has(v) || control_params_.has(v);
    }
    for (auto &node : p_.nodes) {
      for (auto *list : {&node.effects, &node.init, &node.update}) {
        for (const Effect &e : *list) {
          if (e.kept) {
            p_.variables[e.var].control = true;
            // An array element a kept effect reads with no definition before it (an
            // uninitialised local array copied into a callee's cell, CloverLeaf's `int
            // fields[NUM_FIELDS]` set by a range-for): the emitter starts it at 0
            // (zero_local_arrays), or the model would name a variable it never declares.
            for (VarId u : e.uses) {
              if (p_.variables[u].aggregate != kNoAggregate && p_.variables[u].representable) {
                p_.variables[u].control = true;
              }
            }
          }
        }
      }
    }
  }

  // --- 4. which subtrees communicate; recursion ------------------------------------------

  void communication_and_recursion() {
    // A function communicates if it holds a cfc or a task group, or calls one that does.
    bool changed = true;
    while (changed) {
      changed = false;
      for (FunctionId f = 0; f < p_.functions.size(); ++f) {
        FunctionInfo &fn = p_.functions[f];
        if (fn.communicates) {
          continue;
        }
        for (StructIndex n : nodes_of(f)) {
          const StructNode &node = p_.nodes[n];
          if (node.kind == StructKind::Communication || node.kind == StructKind::TaskGroup ||
              (node.kind == StructKind::UserCall && node.callee != kNoFunction &&
               p_.functions[node.callee].communicates)) {
            fn.communicates = true;
            changed = true;
            break;
          }
        }
      }
    }
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      if (p_.functions[f].body != kNoStruct) {
        mark_communicates(p_.functions[f].body);
      }
    }
    // A function with a loop whose trip count the model computes from the function's inputs
    // (an FFT of n points, a row kernel) takes time that depends on its arguments: a loop
    // calling it is interpreted call by call, so the callee's own loops, reduced with their
    // trip counts (seed 000 §3.7), scale with the arguments. Measuring the calling loop as one
    // fragment would freeze the callee's cost at the estimation input. Loops with opaque or
    // constant trip counts (a Newton iteration) stay inside the caller's measured nest, where
    // their time is measured without per-call probes.
    for (changed = true; changed;) {
      changed = false;
      for (FunctionId f = 0; f < p_.functions.size(); ++f) {
        FunctionInfo &fn = p_.functions[f];
        if (fn.has_loops || fn.body == kNoStruct) {
          continue;
        }
        for (StructIndex n : nodes_of(f)) {
          const StructNode &node = p_.nodes[n];
          if (scales_with_inputs(node) ||
              (node.kind == StructKind::UserCall && node.callee != kNoFunction &&
               p_.functions[node.callee].has_loops)) {
            fn.has_loops = changed = true;
            break;
          }
        }
      }
    }
    // A worksharing loop takes time that depends on the threads of the region that runs it
    // (OpenMP's binding region, the caller's for an orphaned one).
    for (changed = true; changed;) {
      changed = false;
      for (FunctionId f = 0; f < p_.functions.size(); ++f) {
        FunctionInfo &fn = p_.functions[f];
        if (fn.shares_work || fn.body == kNoStruct) {
          continue;
        }
        for (StructIndex n : nodes_of(f)) {
          const StructNode &node = p_.nodes[n];
          if (node.omp_chunk || (node.kind == StructKind::UserCall && node.callee != kNoFunction &&
                                 p_.functions[node.callee].shares_work)) {
            fn.shares_work = changed = true;
            break;
          }
        }
      }
    }
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      if (p_.functions[f].body != kNoStruct) {
        bool shares = false;
        mark_interpreted(p_.functions[f].body, shares);
      }
    }
    // Recursion: a function that reaches itself through the call graph.
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      std::set<FunctionId> seen;
      std::vector<FunctionId> stack(p_.functions[f].callees.begin(), p_.functions[f].callees.end());
      while (!stack.empty()) {
        const FunctionId g = stack.back();
        stack.pop_back();
        if (g == f) {
          p_.functions[f].recursive = true;
          break;
        }
        if (seen.insert(g).second) {
          for (FunctionId h : p_.functions[g].callees) {
            stack.push_back(h);
          }
        }
      }
    }
  }

  // A countable loop whose condition reads a parameter, a global or a field.
  bool scales_with_inputs(const StructNode &node) const {
    if (!is_loop(node.kind) || node.opaque) {
      return false;
    }
    return std::any_of(node.uses.begin(), node.uses.end(), [&](VarId v) {
      const VarScope scope = p_.variables[v].scope;
      return scope == VarScope::Parameter || scope == VarScope::Global || scope == VarScope::Field;
    });
  }

  // A for loop whose condition reads nothing its body writes: the model counts its iterations
  // whatever the data do inside.
  bool counted(StructIndex l) const {
    const StructNode &loop = p_.nodes[l];
    if (loop.kind != StructKind::For || loop.opaque) {
      return false;
    }
    const auto read = [&](const std::vector<Effect> &effects) {
      return std::any_of(effects.begin(), effects.end(), [&](const Effect &e) {
        return std::find(loop.uses.begin(), loop.uses.end(), e.var) != loop.uses.end();
      });
    };
    std::vector<StructIndex> stack(loop.children.begin(), loop.children.end());
    while (!stack.empty()) {
      const StructNode &n = p_.nodes[stack.back()];
      stack.pop_back();
      if (read(n.effects) || read(n.init) || read(n.update)) {
        return false;
      }
      stack.insert(stack.end(), n.children.begin(), n.children.end());
    }
    return true;
  }

  // Whether `n` is interpreted; `shares`: a worksharing loop runs in it (or in what it calls).
  bool mark_interpreted(StructIndex n, bool &shares) {
    StructNode &node = p_.nodes[n];
    // A forward goto is a break out of a sequence (forward_gotos.hpp): a loop it leaves cannot
    // be one measured fragment, so the decisions that take it are measured one by one.
    const bool leaves = node.kind == StructKind::Break && node.target != kNoStruct &&
                        p_.nodes[node.target].kind == StructKind::Sequence;
    bool c = node.communicates || leaves ||
             (node.kind == StructKind::UserCall && node.callee != kNoFunction &&
              p_.functions[node.callee].has_loops);
    bool below = node.kind == StructKind::UserCall && node.callee != kNoFunction &&
                 p_.functions[node.callee].shares_work;
    for (StructIndex child : std::vector<StructIndex>(node.children)) {
      bool s = false;
      c = mark_interpreted(child, s) || c;
      below = below || s;
    }
    // What encloses a worksharing loop is interpreted rather than measured as one fragment,
    // whose time would not change with the threads; the loop itself is reduced on its own
    // (trips per task x its time per iteration). Not a loop whose exit depends on data, though
    // (miniMD's `while (resize)` around its binning, which it leaves once no bin overflowed):
    // interpreted, it would draw its exit from the overflow's frequency and run for ever: only
    // counted loops are. It stays one fragment, timed with the estimation's threads.
    if (below && !c && is_loop(node.kind) && !counted(n)) {
      below = false;
    }
    p_.nodes[n].interpreted = c || below;
    shares = below || node.omp_chunk;
    return p_.nodes[n].interpreted;
  }

  bool mark_communicates(StructIndex n) {
    StructNode &node = p_.nodes[n];
    bool c = node.kind == StructKind::Communication || node.kind == StructKind::TaskGroup ||
             (node.kind == StructKind::UserCall && node.callee != kNoFunction &&
              p_.functions[node.callee].communicates);
    for (StructIndex child : std::vector<StructIndex>(node.children)) {
      c = mark_communicates(child) || c;
    }
    p_.nodes[n].communicates = c;
    return c;
  }

  // --- 5. diagnostics ----------------------------------------------------------------

  Diagnostic at(FunctionId f, clang::SourceLocation loc, DiagnosticKind kind, Severity s,
                std::string message) {
    Diagnostic d;
    d.kind = kind;
    d.severity = s;
    d.function = f == kNoFunction ? std::string() : p_.functions[f].name;
    d.message = std::move(message);
    if (f != kNoFunction && loc.isValid()) {
      const clang::SourceManager &sm = p_.functions[f].context->getSourceManager();
      const auto ploc = sm.getPresumedLoc(sm.getExpansionLoc(loc));
      if (ploc.isValid()) {
        d.file = p_.source_file(*p_.functions[f].context, ploc.getFilename());
        d.line = ploc.getLine();
        d.column = ploc.getColumn();
      }
    }
    return d;
  }

  void report() {
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      const FunctionInfo &fn = p_.functions[f];
      if (fn.body == kNoStruct || fn.unstructured) {
        continue;
      }
      std::size_t statements = 0;
      std::size_t kept = 0;
      std::set<std::string> removed;
      for (StructIndex n : nodes_of(f)) {
        const StructNode &node = p_.nodes[n];
        statements += node.stmts.size();
        for (const Effect &e : node.effects) {
          if (e.kept) {
            ++kept;
          } else if (e.kind != Effect::Kind::Operation &&
                     p_.variables[e.var].scope != VarScope::Builtin) {
            removed.insert(p_.variables[e.var].source_name);
          }
        }
        if (node.opaque) {
          const bool loop = is_loop(node.kind);
          const auto where = opaque_where_.find(n);
          std::string msg = std::string(loop ? "trip count" : "branch") + " of '" + node.label +
                            "' depends on " + node.opaque_reason;
          if (where != opaque_where_.end() && where->second.first.isValid()) {
            const clang::SourceManager &sm = where->second.second->getSourceManager();
            const auto ploc = sm.getPresumedLoc(sm.getExpansionLoc(where->second.first));
            if (ploc.isValid()) {
              msg += " (" + std::string(llvm::sys::path::filename(ploc.getFilename())) + ":" +
                     std::to_string(ploc.getLine()) + ")";
            }
          }
          msg += loop ? "; the model uses the trip counts measured by the estimation run"
                      : "; the model uses the branch frequency measured by the estimation run";
          p_.diagnostics.push_back(at(f, node.range.getBegin(), DiagnosticKind::Opaque,
                                      loop ? Severity::Warning : Severity::Note, msg));
        }
      }
      std::vector<std::string> data;
      for (const clang::ParmVarDecl *param : fn.decl->parameters()) {
        // A reference the model follows names a variable (or its cell, aliases.cpp).
        if (classify_type(param->getType()) == VarType::Other && p_.variable_of(param) == kNoVar) {
          data.push_back(param->getNameAsString());
        }
      }
      collect_data_declarations(fn.decl->getBody(), data);
      for (const auto &r : removed) {
        bool also_kept = false;
        for (VarId v = 0; v < p_.variables.size(); ++v) {
          if (p_.variables[v].source_name == r && p_.variables[v].control &&
              (p_.variables[v].function == f || global_like(p_.variables[v]))) {
            also_kept = true;
          }
        }
        if (!also_kept) {
          data.push_back(r);
        }
      }
      if (statements > 0 || !data.empty()) {
        std::string msg = std::to_string(statements) +
                          " statements reduced to their measured "
                          "time, " +
                          std::to_string(kept) + " control assignments kept";
        if (!data.empty()) {
          std::sort(data.begin(), data.end());
          data.erase(std::unique(data.begin(), data.end()), data.end());
          msg += "; data not kept in the model: ";
          for (std::size_t i = 0; i < data.size() && i < 12; ++i) {
            msg += (i ? ", " : "") + data[i];
          }
          if (data.size() > 12) {
            msg += ", ... (" + std::to_string(data.size()) + " in all)";
          }
        }
        p_.diagnostics.push_back(
            at(f, fn.decl->getBeginLoc(), DiagnosticKind::Reduced, Severity::Note, msg));
      }
    }
  }

  void collect_data_declarations(const clang::Stmt *s, std::vector<std::string> &out) {
    if (s == nullptr) {
      return;
    }
    if (const auto *decl = llvm::dyn_cast<clang::DeclStmt>(s)) {
      for (const clang::Decl *d : decl->decls()) {
        if (const auto *var = llvm::dyn_cast<clang::VarDecl>(d)) {
          if (classify_type(var->getType()) == VarType::Other) {
            out.push_back(var->getNameAsString());
          }
        }
      }
    }
    if (llvm::isa<clang::LambdaExpr>(s)) {
      return;
    }
    for (const clang::Stmt *child : s->children()) {
      collect_data_declarations(child, out);
    }
  }

  Program &p_;
  const ExpressionWriter &writer_;
  std::map<StructIndex, std::map<VarId, std::string>> task_subs_;
  std::map<StructIndex, std::pair<clang::SourceLocation, const clang::ASTContext *>> opaque_where_;
  VarSet gc_;
  VarSet control_params_;
  bool global_changed_ = false;
};

} // namespace

void analyse_control(Program &program, const ExpressionWriter &writer) {
  Analysis(program, writer).run();
}

} // namespace parjava::frontend
