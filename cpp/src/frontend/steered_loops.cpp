#include "steered_loops.hpp"

#include <algorithm>

namespace parjava::frontend {

namespace {

class Steering {
public:
  explicit Steering(const Program &p)
      : p_(p), var_(p.variables.size(), false), fn_(p.functions.size(), false) {}

  std::vector<bool> run() {
    // Decisions: what is written under an opaque condition, in any function reached from one.
    for (bool changed = true; changed;) {
      changed = false;
      for (FunctionId f = 0; f < p_.functions.size(); ++f) {
        if (p_.functions[f].body != kNoStruct) {
          changed = walk(p_.functions[f].body, false, f) || changed;
        }
      }
    }
    // Values computed from them.
    for (bool changed = true; changed;) {
      changed = false;
      for (const StructNode &node : p_.nodes) {
        changed = propagate(node) || changed;
      }
    }
    std::vector<bool> out(p_.nodes.size(), false);
    for (StructIndex n = 0; n < p_.nodes.size(); ++n) {
      const StructNode &node = p_.nodes[n];
      if ((node.kind != StructKind::For && node.kind != StructKind::While) || !node.communicates ||
          node.opaque) {
        continue;
      }
      bool steered = reads(node.uses);
      for (const Effect &e : node.init) {
        steered = steered || reads(e.uses) || (e.source != kNoVar && var_[e.source]);
      }
      out[n] = steered;
    }
    return out;
  }

private:
  [[nodiscard]] bool reads(const std::vector<VarId> &uses) const {
    return std::any_of(uses.begin(), uses.end(), [&](VarId v) { return v != kNoVar && var_[v]; });
  }

  bool mark(VarId v) {
    if (v == kNoVar || var_[v]) {
      return false;
    }
    var_[v] = true;
    return true;
  }

  // A decision's writes; program inputs and builtins are values, not decisions. In a function
  // called under a decision (`all` false) only what outlives the call is: a local written
  // unconditionally there has the same value whichever caller ran it.
  bool mark_writes(const std::vector<Effect> &effects, bool all) {
    bool changed = false;
    for (const Effect &e : effects) {
      if (e.var == kNoVar || e.kind == Effect::Kind::Input || e.kind == Effect::Kind::Builtin) {
        continue;
      }
      const VarScope scope = p_.variables[e.var].scope;
      if (all || scope == VarScope::Global || scope == VarScope::Field) {
        changed = mark(e.var) || changed;
      }
    }
    return changed;
  }

  // `local`: under an opaque condition of this function; `fn_[f]`: the function is called
  // under one. A loop's own init is its control, not a decision's write.
  bool walk(StructIndex n, bool local, FunctionId f) {
    const StructNode &node = p_.nodes[n];
    bool changed = false;
    // An opaque loop's update runs a data-many times (`n++, num_mesg++` counting messages).
    if (is_loop(node.kind) && (node.opaque || local || fn_[f])) {
      changed = mark_writes(node.update, node.opaque || local) || changed;
    }
    if (local || fn_[f]) {
      changed = mark_writes(node.effects, local) || changed;
      if (node.kind == StructKind::UserCall && node.callee != kNoFunction && !fn_[node.callee]) {
        fn_[node.callee] = true;
        changed = true;
      }
    }
    const bool decides =
        node.opaque && (node.kind == StructKind::If || node.kind == StructKind::IfElse ||
                        node.kind == StructKind::Switch || is_loop(node.kind));
    for (StructIndex c : node.children) {
      changed = walk(c, local || decides, f) || changed;
    }
    return changed;
  }

  bool propagate(const StructNode &node) {
    bool changed = false;
    const auto follow = [&](const std::vector<Effect> &effects) {
      for (const Effect &e : effects) {
        if (e.var != kNoVar && !var_[e.var] && e.kind != Effect::Kind::Input &&
            (reads(e.uses) || (e.source != kNoVar && var_[e.source]))) {
          changed = mark(e.var) || changed;
        }
      }
    };
    follow(node.effects);
    follow(node.init);
    follow(node.update);
    if (node.kind == StructKind::UserCall && node.callee != kNoFunction) {
      const FunctionInfo &callee = p_.functions[node.callee];
      for (std::size_t i = 0; i < node.arg_uses.size() && i < callee.params.size(); ++i) {
        if (reads(node.arg_uses[i])) {
          changed = mark(callee.params[i]) || changed;
        }
      }
      if (node.result != kNoVar && callee.return_slot != kNoVar && var_[callee.return_slot]) {
        changed = mark(node.result) || changed;
      }
    }
    if (node.kind == StructKind::Return && node.function != kNoFunction && reads(node.uses)) {
      changed = mark(p_.functions[node.function].return_slot) || changed;
    }
    return changed;
  }

  const Program &p_;
  std::vector<bool> var_;
  std::vector<bool> fn_;
};

} // namespace

std::vector<bool> steered_loops(const Program &program) { return Steering(program).run(); }

} // namespace parjava::frontend
