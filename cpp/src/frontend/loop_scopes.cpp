#include "loop_scopes.hpp"

#include <algorithm>
#include <map>

namespace parjava::frontend {

namespace {

bool contains(const std::vector<VarId> &list, VarId v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

// Does the node read `v` (its condition, its effects' values, its call arguments)?
bool reads(const StructNode &n, VarId v) {
  if (contains(n.uses, v)) {
    return true;
  }
  for (const auto *list : {&n.init, &n.effects, &n.update}) {
    for (const Effect &e : *list) {
      if (contains(e.uses, v)) {
        return true;
      }
    }
  }
  for (const CommArg &a : n.comm_args) {
    if (contains(a.uses, v)) {
      return true;
    }
  }
  for (const auto &uses : n.arg_uses) {
    if (contains(uses, v)) {
      return true;
    }
  }
  return false;
}

bool writes(const StructNode &n, VarId v) {
  for (const auto *list : {&n.init, &n.effects, &n.update}) {
    for (const Effect &e : *list) {
      if (e.var == v) {
        return true;
      }
    }
  }
  return false;
}

// The node starts a fresh value of `v` before reading it: a for whose init sets it, or a block
// whose first effect on it is a plain assignment that does not read it.
bool kills(const StructNode &n, VarId v) {
  const std::vector<Effect> &list = n.kind == StructKind::For ? n.init : n.effects;
  for (const Effect &e : list) {
    if (contains(e.uses, v)) {
      return false;
    }
    if (e.var == v) {
      return e.strong && (e.kind == Effect::Kind::Assign || e.kind == Effect::Kind::Builtin);
    }
  }
  return false;
}

class Scoper {
public:
  explicit Scoper(Program &program) : p_(program) {}

  void run() {
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      if (p_.functions[f].body == kNoStruct) {
        continue;
      }
      order_.clear();
      end_.clear();
      parent_.clear();
      walk(p_.functions[f].body, kNoStruct);
      for (std::size_t i = 0; i < order_.size(); ++i) {
        consider(order_[i], i);
      }
    }
  }

private:
  void walk(StructIndex n, StructIndex parent) {
    const std::size_t at = order_.size();
    position_[n] = at;
    parent_[n] = parent;
    order_.push_back(n);
    for (StructIndex c : p_.nodes[n].children) {
      walk(c, n);
    }
    end_[n] = order_.size(); // one past the last node of the subtree
  }

  // A for with several variables (`for (n = 0, i = nfac; i > 0; i--, n++)`, miniAMR's split
  // loop) is considered per variable: each that the init sets and only the update changes.
  void consider(StructIndex l, std::size_t at) {
    const StructNode &loop = p_.nodes[l];
    if (loop.kind != StructKind::For || loop.init.empty() || loop.update.empty()) {
      return;
    }
    std::vector<VarId> set;
    for (const Effect &init : loop.init) {
      set.push_back(init.var);
    }
    for (const Effect &e : loop.update) {
      if (!contains(set, e.var)) {
        return;
      }
    }
    for (std::size_t k = 0; k < set.size(); ++k) {
      if (std::count(set.begin(), set.end(), set[k]) == 1) {
        consider_variable(l, at, p_.nodes[l].init[k]);
      }
    }
  }

  void consider_variable(StructIndex l, std::size_t at, const Effect &init) {
    const VarId v = init.var;
    const Variable &var = p_.variables[v];
    if (var.scope != VarScope::Local || var.type != VarType::Integer || !init.strong ||
        init.kind != Effect::Kind::Assign || contains(init.uses, v)) {
      return;
    }
    const std::size_t end = end_[l];
    for (std::size_t k = at + 1; k < end; ++k) {
      if (writes(p_.nodes[order_[k]], v)) {
        return; // the body changes it: not a counted loop
      }
    }
    bool elsewhere = false;
    for (std::size_t k = 0; k < order_.size() && !elsewhere; ++k) {
      elsewhere = (k < at || k >= end) && writes(p_.nodes[order_[k]], v);
    }
    if (!elsewhere || live_after(l, at, end, v)) {
      return;
    }
    Variable copy = var;
    copy.decl = nullptr; // not the declaration's variable: never looked up by decl
    const VarId inner = p_.add(std::move(copy));
    for (std::size_t k = at; k < end; ++k) {
      rename(p_.nodes[order_[k]], v, inner);
    }
    p_.scoped_loops.push_back({l, v, inner});
    p_.loop_copies[v].push_back(inner);
    if (p_.nodes[l].stmt != nullptr) {
      p_.loop_variables[p_.nodes[l].stmt][v] = inner;
    }
  }

  // Is `v` read after the loop before something sets it afresh? Program order is the preorder
  // of the structure; an enclosing loop also runs its nodes before this one again.
  bool live_after(StructIndex l, std::size_t at, std::size_t end, VarId v) {
    for (std::size_t k = end; k < order_.size(); ++k) {
      const StructNode &n = p_.nodes[order_[k]];
      if (kills(n, v)) {
        break;
      }
      if (reads(n, v)) {
        return true;
      }
    }
    for (StructIndex a = parent_[l]; a != kNoStruct; a = parent_[a]) {
      if (!is_loop(p_.nodes[a].kind)) {
        continue;
      }
      for (std::size_t k = position_[a]; k < at; ++k) {
        const StructNode &n = p_.nodes[order_[k]];
        if (kills(n, v)) {
          break;
        }
        if (reads(n, v)) {
          return true;
        }
      }
    }
    return false;
  }

  static void replace(std::vector<VarId> &list, VarId from, VarId to) {
    std::replace(list.begin(), list.end(), from, to);
  }

  static void rename(StructNode &n, VarId from, VarId to) {
    replace(n.uses, from, to);
    for (auto *list : {&n.init, &n.effects, &n.update}) {
      for (Effect &e : *list) {
        if (e.var == from) {
          e.var = to;
        }
        replace(e.uses, from, to);
      }
    }
    for (CommArg &a : n.comm_args) {
      replace(a.uses, from, to);
    }
    for (auto &uses : n.arg_uses) {
      replace(uses, from, to);
    }
  }

  Program &p_;
  std::vector<StructIndex> order_;
  std::map<StructIndex, std::size_t> position_;
  std::map<StructIndex, std::size_t> end_;
  std::map<StructIndex, StructIndex> parent_;
};

} // namespace

void scope_loop_variables(Program &program) { Scoper(program).run(); }

} // namespace parjava::frontend
