// Inputs that rank 0 reads and broadcasts (inputs.hpp): a broadcast of a value every rank read
// itself, the input a root copied into the buffer before sending it, the command-line position
// a root read, and what a root changes between reading and sending.
#include "inputs.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/Basic/SourceManager.h>

#include "calls.hpp"
#include "input_analysis.hpp"
#include "source_analysis.hpp"
#include "variables.hpp"

namespace parjava::frontend {

void InputAnalysis::local_broadcasts() {
  std::map<VarId, std::vector<std::uint32_t>> reads; // var -> unconditional input sites
  for (std::uint32_t k = 0; k < p_.inputs.size(); ++k) {
    const InputSite &site = p_.inputs[k];
    const auto holder = holder_.find(k);
    if (site.setup && site.how != "broadcast" && holder != holder_.end() &&
        unconditional(site.function, holder->second)) {
      reads[site.var].push_back(k);
    }
  }
  std::set<StructIndex> noted;
  for (std::uint32_t k = 0; k < p_.inputs.size(); ++k) {
    InputSite &site = p_.inputs[k];
    const auto holder = holder_.find(k);
    const auto read = reads.find(site.var);
    if (!site.setup || site.how != "broadcast" || holder == holder_.end() || read == reads.end() ||
        std::none_of(read->second.begin(), read->second.end(), [&](std::uint32_t r) {
          return p_.inputs[r].function == site.function &&
                 same_on_every_rank(site.function, holder_[r], holder->second);
        })) {
      continue;
    }
    site.setup = false;
    auto &effects = p_.nodes[holder->second].effects;
    effects.erase(std::remove_if(effects.begin(), effects.end(),
                                 [&](const Effect &e) {
                                   return e.kind == Effect::Kind::Input && e.input == k;
                                 }),
                  effects.end());
    if (noted.insert(holder->second).second) {
      Diagnostic d;
      d.kind = DiagnosticKind::Parameter;
      d.severity = Severity::Note;
      d.function = p_.functions[site.function].name;
      d.message = site.what + " of '" + site.spelling +
                  "': every rank read it from the command line itself, so the broadcast "
                  "leaves what every rank computed (the model has no parameter for it)";
      const std::string at = location(site);
      const std::size_t colon = at.rfind(':');
      if (colon != std::string::npos) {
        d.file = at.substr(0, colon);
        d.line = static_cast<std::uint32_t>(std::stoul(at.substr(colon + 1)));
      }
      p_.diagnostics.push_back(std::move(d));
    }
  }
}

bool InputAnalysis::same_on_every_rank(FunctionId f, StructIndex from, StructIndex to) {
  if (rank_derived_.empty()) {
    for (const StructNode &n : p_.nodes) {
      for (const Effect &e : n.effects) {
        if ((e.kind == Effect::Kind::Builtin && e.text == "rank") ||
            e.kind == Effect::Kind::Operation || e.kind == Effect::Kind::Topology) {
          rank_derived_.insert(e.var);
        }
      }
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (const StructNode &n : p_.nodes) {
        for (const auto *list : {&n.init, &n.effects, &n.update}) {
          for (const Effect &e : *list) {
            if (!rank_derived_.contains(e.var) &&
                std::any_of(e.uses.begin(), e.uses.end(),
                            [&](VarId u) { return rank_derived_.contains(u); })) {
              rank_derived_.insert(e.var);
              changed = true;
            }
          }
        }
      }
    }
    rank_derived_.insert(kNoVar); // computed
  }
  const Tree &t = trees_[f];
  const auto a = std::find(t.preorder.begin(), t.preorder.end(), from);
  const auto b = std::find(t.preorder.begin(), t.preorder.end(), to);
  if (a == t.preorder.end() || b == t.preorder.end() || b < a) {
    return false;
  }
  const auto derived = [&](const std::vector<VarId> &uses) {
    return std::any_of(uses.begin(), uses.end(),
                       [&](VarId u) { return u != kNoVar && rank_derived_.contains(u); });
  };
  for (auto it = a; it != b; ++it) {
    const StructNode &n = p_.nodes[*it];
    if (derived(n.uses)) {
      return false;
    }
    for (const Effect &e : n.effects) {
      if (derived(e.uses)) {
        return false;
      }
    }
  }
  return true;
}

const Effect *InputAnalysis::sent_definition(const InputSite &site,
                                             const std::vector<StructIndex> *&order,
                                             std::vector<StructIndex>::const_iterator &at) const {
  const auto holder = holder_.find(static_cast<std::uint32_t>(&site - p_.inputs.data()));
  if (holder == holder_.end()) {
    return nullptr;
  }
  order = &trees_[site.function].preorder;
  at = std::find(order->begin(), order->end(), holder->second);
  for (auto it = std::make_reverse_iterator(at); it != order->rend(); ++it) {
    const StructNode &n = p_.nodes[*it];
    for (auto e = n.effects.rbegin(); e != n.effects.rend(); ++e) {
      if (e->var == site.var &&
          !(e->kind == Effect::Kind::Input && p_.inputs[e->input].how == "broadcast")) {
        return &*e;
      }
    }
  }
  return nullptr;
}

VarId InputAnalysis::broadcast_source(const InputSite &site) {
  const std::vector<StructIndex> *order = nullptr;
  std::vector<StructIndex>::const_iterator at;
  const Effect *e = sent_definition(site, order, at);
  if (e == nullptr || e->kind != Effect::Kind::Assign || e->value == nullptr) {
    return kNoVar;
  }
  VariableResolver vars(p_, *p_.functions[site.function].context, site.function);
  const VarId source = vars.lvalue(e->value->IgnoreParenCasts());
  if (redefined(source, *order, at)) {
    changed_before_sent_[static_cast<std::uint32_t>(&site - p_.inputs.data())] = source;
    return kNoVar;
  }
  return source;
}

// The parameter `argv<k>` (made on first use), `absent` its value when the command line does
// not have position k.
static std::string argv_parameter(Program &program, int k, const clang::CallExpr *call,
                                  bool floating, std::optional<double> absent) {
  std::string name = "argv" + std::to_string(k);
  if (program.parameter(name) == nullptr) {
    ProgramParameter p;
    p.name = name;
    p.doc = "argv[" + std::to_string(k) + "] read as a number by " +
            call->getDirectCallee()->getNameAsString() + "()";
    p.floating = floating;
    p.program_default = absent;
    program.add_parameter(std::move(p));
  }
  return name;
}

std::string InputAnalysis::broadcast_argv(const InputSite &site) {
  const std::vector<StructIndex> *order = nullptr;
  std::vector<StructIndex>::const_iterator at;
  const Effect *e = sent_definition(site, order, at);
  const auto *call = e != nullptr && e->kind == Effect::Kind::Assign && e->value != nullptr
                         ? llvm::dyn_cast<clang::CallExpr>(e->value->IgnoreParenCasts())
                         : nullptr;
  bool floating = false;
  const int k = argv_number(call, *p_.functions[site.function].context, floating, &p_);
  if (k < 0) {
    return {};
  }
  // The root reads it only when the command line has it (PRK transpose's `if (argc == 4)
  // Tile_order = atoi(*++argv);`) and sends what the variable holds: absent, the value it had
  // before the read. Without it, the model's ranks took 0 (untiled) for the program's 32.
  return argv_parameter(p_, k, call, floating, value_before_definition(site, *order, at, e));
}

std::optional<double>
InputAnalysis::value_before_definition(const InputSite &site, const std::vector<StructIndex> &order,
                                       std::vector<StructIndex>::const_iterator at,
                                       const Effect *definition) const {
  const clang::ASTContext &ctx = *p_.functions[site.function].context;
  bool past = false;
  for (auto it = std::make_reverse_iterator(at); it != order.rend(); ++it) {
    const StructNode &n = p_.nodes[*it];
    for (auto e = n.effects.rbegin(); e != n.effects.rend(); ++e) {
      if (&*e == definition) {
        past = true;
        continue;
      }
      if (!past || e->var != site.var) {
        continue;
      }
      return e->kind == Effect::Kind::Assign ? constant(e->value, ctx) : std::nullopt;
    }
  }
  const auto *decl = llvm::dyn_cast_or_null<clang::VarDecl>(p_.variables[site.var].decl);
  if (decl == nullptr || decl->getInit() == nullptr) {
    return std::nullopt;
  }
  return constant(decl->getInit(), decl->getASTContext());
}

// What rank 0 sends when it computes it from what it read (`length = total_length /
// Num_procs;`): each variable the expression reads is either a position of the command line
// rank 0 read (written as its parameter) or set where every rank sets it (outside the rank
// test: `Num_procs` from MPI_Comm_size). Anything else, and the broadcast stays a parameter the
// estimation run measures. Returns whether the site now has its expression.
bool InputAnalysis::broadcast_expression(InputSite &site) {
  const std::vector<StructIndex> *order = nullptr;
  std::vector<StructIndex>::const_iterator at;
  const Effect *e = sent_definition(site, order, at);
  if (e == nullptr || e->kind != Effect::Kind::Assign || e->value == nullptr || e->uses.empty()) {
    return false;
  }
  clang::ASTContext &ctx = *p_.functions[site.function].context;
  // The node holding the definition, then the reaching definition of each variable it reads.
  auto def = order->end();
  for (auto it = order->begin(); it != at; ++it) {
    for (const Effect &x : p_.nodes[*it].effects) {
      if (&x == e) {
        def = it;
      }
    }
  }
  if (def == order->end()) {
    return false;
  }
  std::map<VarId, std::string> inputs;
  std::vector<VarId> shared;
  for (const VarId u : e->uses) {
    const Effect *reaching = nullptr;
    StructIndex where = kNoStruct;
    for (auto it = std::make_reverse_iterator(def); it != order->rend() && reaching == nullptr;
         ++it) {
      for (auto x = p_.nodes[*it].effects.rbegin(); x != p_.nodes[*it].effects.rend(); ++x) {
        if (x->var == u) {
          reaching = &*x;
          where = *it;
          break;
        }
      }
    }
    if (reaching == nullptr) {
      return false;
    }
    const auto *call = reaching->kind == Effect::Kind::Assign && reaching->value != nullptr
                           ? llvm::dyn_cast<clang::CallExpr>(reaching->value->IgnoreParenCasts())
                           : nullptr;
    bool floating = false;
    if (const int k = argv_number(call, ctx, floating, &p_); k >= 0) {
      const std::string name = argv_parameter(p_, k, call, floating, std::nullopt);
      inputs[u] = floating ? "float(" + name + ")" : name;
    } else if (unconditional(site.function, where)) {
      shared.push_back(u);
    } else {
      return false;
    }
  }
  if (inputs.empty()) {
    return false;
  }
  site.broadcast_value = e->value;
  site.broadcast_inputs = std::move(inputs);
  // The variables every rank holds become control uses of the receiving assignment.
  const auto k = static_cast<std::uint32_t>(&site - p_.inputs.data());
  if (const auto holder = holder_.find(k); holder != holder_.end()) {
    for (Effect &x : p_.nodes[holder->second].effects) {
      if (x.kind == Effect::Kind::Input && x.input == k) {
        x.uses.insert(x.uses.end(), shared.begin(), shared.end());
      }
    }
  }
  return true;
}

bool InputAnalysis::redefined(VarId v, const std::vector<StructIndex> &order,
                              std::vector<StructIndex>::const_iterator at) const {
  if (v == kNoVar) {
    return false;
  }
  std::set<StructIndex> reads; // where the program reads v as an input
  std::set<VarId> received;    // what other ranks receive from a broadcast
  for (std::uint32_t k = 0; k < p_.inputs.size(); ++k) {
    if (const auto h = holder_.find(k); p_.inputs[k].var == v && h != holder_.end()) {
      reads.insert(h->second);
    }
    if (p_.inputs[k].how == "broadcast") {
      received.insert(p_.inputs[k].var);
    }
  }
  // From the input's read on, when this function reads it (`steps = 0;` before it is a
  // default, `if (steps == 0) steps = 6;` after it a change); otherwise constants are taken
  // for defaults.
  const auto first_read =
      std::find_if(order.begin(), at, [&](StructIndex i) { return reads.contains(i); });
  const bool constants_are_defaults = first_read == at;
  std::set<StructIndex> before(first_read == at ? order.begin() : first_read + 1, at);
  std::set<FunctionId> called;
  std::vector<FunctionId> stack;
  for (StructIndex i : before) {
    if (p_.nodes[i].kind == StructKind::UserCall && p_.nodes[i].callee != kNoFunction) {
      stack.push_back(p_.nodes[i].callee);
    }
  }
  while (!stack.empty()) {
    const FunctionId f = stack.back();
    stack.pop_back();
    if (called.insert(f).second) {
      stack.insert(stack.end(), p_.functions[f].callees.begin(), p_.functions[f].callees.end());
    }
  }
  for (StructIndex i = 0; i < p_.nodes.size(); ++i) {
    if (called.contains(p_.nodes[i].function)) {
      before.insert(i);
    }
  }
  // The other ranks' copy of what the root sent (`max_num_blocks = params[0];`) is the same
  // value, not a change.
  const auto copied = [&](const Effect &e) {
    return !e.uses.empty() &&
           std::all_of(e.uses.begin(), e.uses.end(), [&](VarId u) { return received.contains(u); });
  };
  const auto constant = [](const clang::Expr *e) {
    return llvm::isa<clang::IntegerLiteral>(e->IgnoreParenCasts()) ||
           llvm::isa<clang::FloatingLiteral>(e->IgnoreParenCasts());
  };
  for (StructIndex i : before) {
    if (reads.contains(i)) {
      continue;
    }
    for (const Effect &e : p_.nodes[i].effects) {
      if (e.var == v && e.kind != Effect::Kind::Input && e.kind != Effect::Kind::Copy &&
          !copied(e) && e.value != nullptr && !(constants_are_defaults && constant(e.value))) {
        return true;
      }
    }
  }
  return false;
}

} // namespace parjava::frontend
