#include "inputs.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include "calls.hpp"
#include "input_analysis.hpp"
#include "parjava/model/expression.hpp"
#include "source_analysis.hpp"
#include "variables.hpp"

namespace parjava::frontend {

void InputAnalysis::run() {
  const std::size_t n = p_.functions.size();
  trees_.resize(n);
  for (FunctionId f = 0; f < n; ++f) {
    walk(f);
  }
  looped_functions();
  for (FunctionId f = 0; f < n; ++f) {
    for (StructIndex node : trees_[f].preorder) {
      classify(f, node);
    }
  }
  helper_inputs();
  argument_inputs();
  flag_inputs();
  hoist_table_inputs();
  local_broadcasts();
  for (FunctionId f = 0; f < n; ++f) {
    // Copy: deferral moves effects between nodes of the list.
    const std::vector<StructIndex> order = trees_[f].preorder;
    for (std::size_t i = 0; i < order.size(); ++i) {
      defer_registrations(f, order, i);
    }
  }
  // The defaults first: forgetting rewrites the definitions value_before() reads.
  for (std::uint32_t k = 0; k < p_.inputs.size(); ++k) {
    InputSite &site = p_.inputs[k];
    if (!site.given_default && !order_dependent_.contains(k)) {
      site.given_default = value_before(site);
    }
  }
  for (std::uint32_t k = 0; k < p_.inputs.size(); ++k) {
    forget_before(k);
  }
  name_parameters();
}

void InputAnalysis::forget_before(std::uint32_t k) {
  const InputSite &site = p_.inputs[k];
  const auto holder = holder_.find(k);
  // A broadcast's earlier value is what the root sends (broadcast_source), not forgotten.
  if (!site.setup || holder == holder_.end() || site.how == "broadcast" ||
      p_.variables[site.var].scope != VarScope::Local) {
    return;
  }
  const Tree &t = trees_[site.function];
  const auto at = std::find(t.preorder.begin(), t.preorder.end(), holder->second);
  std::vector<StructIndex> defs;
  for (auto it = t.preorder.begin(); it != at; ++it) {
    const StructNode &n = p_.nodes[*it];
    if (t.in_data_loop.contains(*it)) {
      if (writes_var(n, site.var)) {
        return; // a loop changes it before the input: keep the analysis' view
      }
      continue;
    }
    for (const Effect &e : n.effects) {
      if (std::find(e.uses.begin(), e.uses.end(), site.var) != e.uses.end()) {
        return; // read in between: what it held matters
      }
    }
    if (std::find(n.uses.begin(), n.uses.end(), site.var) != n.uses.end()) {
      return;
    }
    if (writes_var(n, site.var)) {
      defs.push_back(*it);
    }
  }
  // A read the program does not always make (`if (!strcmp(argv[i], "--half_neigh"))
  // halfneigh = atoi(argv[++i]);`, an option absent from most command lines) leaves the
  // variable at its earlier value when it is skipped: the parameter (whose default is that
  // value) takes the place of the definition, so an absent option keeps the program's
  // default. Forgotten outright, miniMD's `int halfneigh = 1;` was 0 in the model and its
  // force computation took the full-neighbour-list path it never runs.
  std::optional<Effect> read;
  if (!defs.empty() && site.given_default && !unconditional(site.function, holder->second)) {
    for (const Effect &e : p_.nodes[holder->second].effects) {
      if (e.kind == Effect::Kind::Input && e.input == k) {
        read = e;
      }
    }
  }
  for (StructIndex d : defs) {
    // An input read only on some paths after the definition (`int kba = 10;` before
    // `if (!strcmp(argv[i], "-kba")) kba = atoi(argv[i + 1]);` in the loop over argv, a getopt
    // case) leaves the definition in force on the others: a value the model computes stays
    // (without it a run that omits the option read 0: `nz % kba` divided by zero).
    const bool conditional = !reaches_unconditionally(t, d, holder->second);
    auto &effects = p_.nodes[d].effects;
    if (read && d == defs.back()) {
      // In the place of the last definition, so the node's order of effects holds.
      auto last = std::find_if(effects.rbegin(), effects.rend(), [&](const Effect &e) {
        return e.var == site.var && e.kind != Effect::Kind::Input;
      });
      if (last != effects.rend()) {
        Effect replaced = *read;
        replaced.location = last->location;
        *last = std::move(replaced);
      }
    }
    effects.erase(std::remove_if(effects.begin(), effects.end(),
                                 [&](const Effect &e) {
                                   return e.var == site.var && e.kind != Effect::Kind::Input &&
                                          !(conditional && computed_default(e));
                                 }),
                  effects.end());
  }
}

bool InputAnalysis::writes_var(const StructNode &n, VarId v) const {
  for (const auto *list : {&n.init, &n.effects, &n.update}) {
    for (const Effect &e : *list) {
      if (e.var == v) {
        return true;
      }
    }
  }
  return false;
}

bool InputAnalysis::reaches_unconditionally(const Tree &t, StructIndex def, StructIndex n) const {
  std::set<StructIndex> around_def;
  for (auto it = t.parent.find(def); it != t.parent.end(); it = t.parent.find(it->second)) {
    around_def.insert(it->second);
  }
  for (auto it = t.parent.find(n); it != t.parent.end(); it = t.parent.find(it->second)) {
    if (around_def.contains(it->second)) {
      break;
    }
    const StructKind k = p_.nodes[it->second].kind;
    if (k == StructKind::If || k == StructKind::IfElse || k == StructKind::Switch || is_loop(k)) {
      return false;
    }
  }
  return true;
}

bool InputAnalysis::computed_default(const Effect &e) {
  return (e.kind == Effect::Kind::Assign && e.value != nullptr) || e.kind == Effect::Kind::Builtin;
}

void InputAnalysis::walk(FunctionId f) {
  Tree &t = trees_[f];
  const StructIndex root = p_.functions[f].body;
  if (root == kNoStruct) {
    return;
  }
  struct Item {
    StructIndex node;
    bool in_loop;
    bool in_parser; // inside a loop over the command line
  };
  std::vector<Item> stack{{root, false, false}};
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    t.preorder.push_back(item.node);
    if (item.in_loop) {
      t.in_data_loop.insert(item.node);
    }
    const StructNode &node = p_.nodes[item.node];
    // A loop inside the loop over argv walks a table of options for each argument (HPCG's
    // `for (j = 0; j < nparams; ++j) if (startswith(argv[i], cparams[j])) ...`): parsing too.
    const bool parser = is_loop(node.kind) && (item.in_parser || parses_command_line(node));
    const bool data_loop = is_loop(node.kind) && !parser;
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) {
      t.parent[*it] = item.node;
      stack.push_back({*it, item.in_loop || data_loop, item.in_parser || parser});
    }
  }
}

void InputAnalysis::looped_functions() {
  looped_.assign(p_.functions.size(), false);
  for (FunctionId f = 0; f < p_.functions.size(); ++f) {
    for (StructIndex n : trees_[f].preorder) {
      const StructNode &node = p_.nodes[n];
      if (node.kind == StructKind::UserCall && node.callee != kNoFunction &&
          trees_[f].in_data_loop.contains(n)) {
        looped_[node.callee] = true;
      }
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      if (!looped_[f]) {
        continue;
      }
      for (FunctionId g : p_.functions[f].callees) {
        if (g < looped_.size() && !looped_[g]) {
          looped_[g] = changed = true;
        }
      }
    }
  }
  p_.looped_functions = looped_;
}

void InputAnalysis::classify(FunctionId f, StructIndex n) {
  StructNode &node = p_.nodes[n];
  const bool in_loop = trees_[f].in_data_loop.contains(n);
  for (auto *list : {&node.effects, &node.init, &node.update}) {
    for (Effect &e : *list) {
      if (e.kind != Effect::Kind::Input) {
        continue;
      }
      InputSite &site = p_.inputs[e.input];
      const bool setup = (!in_loop || site.element || site.keyed) && (!looped_[f] || site.keyed);
      site.setup = setup && list == &node.effects;
      holder_[e.input] = n;
      if (!site.setup) {
        e.kind = Effect::Kind::Havoc;
        e.text = "read by " + site.what + " inside a loop (data that changes, not a program input)";
        continue;
      }
      if (site.how == "argv" && site.options.empty()) {
        site.options = options_around(f, n, site.location, site.position);
      }
    }
  }
}

void InputAnalysis::helper_inputs() {
  std::map<VarId, std::uint32_t> cell_inputs; // cell -> the helper's input site
  for (std::uint32_t k = 0; k < p_.inputs.size(); ++k) {
    const InputSite &site = p_.inputs[k];
    // A scalar cell, or an element of an array cell (ReadHpcgDat(int *localDimensions)
    // reading `localDimensions + i` from a file for HPCG_Init's `iparams`).
    const Variable &v = p_.variables[site.var];
    const auto alias =
        std::find_if(p_.pointer_aliases.begin(), p_.pointer_aliases.end(), [&](const auto &entry) {
          return entry.second.cell &&
                 (entry.second.scalar == site.var || (entry.second.aggregate != kNoAggregate &&
                                                      v.aggregate == entry.second.aggregate));
        });
    if (site.setup && alias != p_.pointer_aliases.end()) {
      cell_inputs[site.var] = k;
    }
  }
  if (cell_inputs.empty()) {
    return;
  }
  for (FunctionId f = 0; f < p_.functions.size(); ++f) {
    for (StructIndex n : trees_[f].preorder) {
      StructNode &node = p_.nodes[n];
      if (node.kind != StructKind::UserCall) {
        continue;
      }
      for (Effect &e : node.effects) {
        const auto cell = cell_inputs.find(e.source);
        if (e.kind != Effect::Kind::Copy || cell == cell_inputs.end()) {
          continue;
        }
        const InputSite &inner = p_.inputs[cell->second];
        const bool setup = !trees_[f].in_data_loop.contains(n) && !looped_[f];
        if (!setup) {
          continue;
        }
        InputSite site;
        site.var = e.var;
        site.function = f;
        site.how = inner.how;
        site.what = node.callee_name + "() (" + inner.what + ")";
        site.spelling = e.text;
        site.location = e.location;
        site.statement = node.call;
        if (site.how == "argv") {
          site.options = options_around(f, n, site.location, site.position);
        }
        e.kind = Effect::Kind::Input;
        e.input = static_cast<std::uint32_t>(p_.inputs.size());
        e.uses.clear();
        holder_[e.input] = n;
        p_.inputs.push_back(std::move(site));
      }
    }
  }
  for (const auto &[cell, k] : cell_inputs) {
    p_.inputs[k].setup = false; // read per call, through the caller's inputs above
  }
}

// Reads passed as a call's argument (InputSite::call, structure_calls.cpp): held by the call's
// node, setup code under the same rules as a read into a variable there.
void InputAnalysis::argument_inputs() {
  for (std::uint32_t k = 0; k < p_.inputs.size(); ++k) {
    InputSite &site = p_.inputs[k];
    if (site.call == nullptr) {
      continue;
    }
    const FunctionId f = site.function;
    site.setup = false;
    for (StructIndex n : trees_[f].preorder) {
      const StructNode &node = p_.nodes[n];
      if (node.kind != StructKind::UserCall || node.call != site.call) {
        continue;
      }
      holder_[k] = n;
      site.setup = !trees_[f].in_data_loop.contains(n) && !looped_[f];
      if (site.setup && site.how == "argv") {
        site.options = options_around(f, n, site.location, site.position);
      }
      break;
    }
  }
}

// An option without a value: `if (strcmp(argv[i], "-q") == 0) { opts->quiet = 1; i += 1; }`
// (LULESH, lulesh-util.cc) sets a constant under an option's test inside the loop over argv.
// Left there, the model drew the test by its frequency in the estimation run; as an input it
// is a parameter whose value is the constant when the option is given (model::Parameter::flag)
// and the program's value before the loop otherwise, and it moves after the loop as the other
// options' reads do (input_options.cpp).
void InputAnalysis::flag_inputs() {
  for (FunctionId f = 0; f < p_.functions.size(); ++f) {
    if (looped_[f]) {
      continue;
    }
    const clang::ASTContext &ctx = *p_.functions[f].context;
    const clang::SourceManager &sm = ctx.getSourceManager();
    for (StructIndex n : trees_[f].preorder) {
      const StructIndex loop = argv_loop(f, n);
      if (trees_[f].in_data_loop.contains(n) || loop == kNoStruct) {
        continue;
      }
      const clang::Stmt *parsing = p_.nodes[loop].stmt;
      for (Effect &e : p_.nodes[n].effects) {
        if (e.kind != Effect::Kind::Assign || e.var == kNoVar || e.value == nullptr) {
          continue;
        }
        // A local of the parsing loop's body (miniXyce's `int n = 0;` counting the values after
        // `-init`) ends with its iteration: no option's value once the loop is over.
        const Variable &v = p_.variables[e.var];
        if (v.scope == VarScope::Local && parsing != nullptr && v.location.isValid() &&
            !sm.isBeforeInTranslationUnit(v.location, parsing->getBeginLoc()) &&
            sm.isBeforeInTranslationUnit(v.location, parsing->getEndLoc())) {
          continue;
        }
        const std::optional<double> value = constant(e.value, ctx);
        int position = 1;
        bool conditional = false;
        std::vector<std::string> options =
            value ? options_around(f, n, e.location, position, &conditional)
                  : std::vector<std::string>{};
        // A constant set under a further test is not what the option sets: XSBench's `-m event`
        // sets particles to 0 only while neither -p nor -l came before it.
        if (options.empty() || conditional) {
          continue;
        }
        InputSite site;
        site.var = e.var;
        site.function = f;
        site.how = "flag";
        site.what = "option " + options.front();
        site.options = std::move(options);
        site.location = e.location;
        site.flag = value;
        site.doc = "'" + p_.variables[e.var].source_name + "' set to " +
                   source_text(e.value, ctx, 30) + " by the option " + site.options.front();
        e.kind = Effect::Kind::Input;
        e.input = static_cast<std::uint32_t>(p_.inputs.size());
        e.uses.clear();
        holder_[e.input] = n;
        p_.inputs.push_back(std::move(site));
      }
    }
  }
}

bool InputAnalysis::inside(const Tree &t, StructIndex n, StructIndex ancestor) {
  for (auto it = t.parent.find(n); it != t.parent.end(); it = t.parent.find(it->second)) {
    if (it->second == ancestor) {
      return true;
    }
  }
  return false;
}

void InputAnalysis::forget_unfollowed_writes(FunctionId f, StructIndex block,
                                             const std::set<VarId> &vars) {
  const Tree &t = trees_[f];
  std::string forgotten;
  clang::SourceLocation where;
  for (StructIndex n : t.preorder) {
    if (n == block) {
      break;
    }
    auto &effects = p_.nodes[n].effects;
    for (auto e = effects.begin(); e != effects.end();) {
      if (e->kind == Effect::Kind::Havoc && vars.contains(e->var) &&
          e->text.find("an element known only at run time") != std::string::npos) {
        if (forgotten.empty()) {
          forgotten = e->text;
          where = e->location;
        }
        e = effects.erase(e);
      } else {
        ++e;
      }
    }
  }
  if (forgotten.empty()) {
    return;
  }
  Diagnostic d;
  d.kind = DiagnosticKind::Parameter;
  d.severity = Severity::Note;
  d.function = p_.functions[f].name;
  d.message = "'" +
              p_.variables[*vars.begin()].source_name.substr(
                  0, p_.variables[*vars.begin()].source_name.find('[')) +
              "' " + forgotten.substr(0, forgotten.find(',')) +
              " before the option loop: the model takes what the elements hold after that "
              "loop (the option parameters), so a value given only by position on the "
              "command line reaches the model through the parameter's value, not its option";
  const clang::SourceManager &sm = p_.functions[f].context->getSourceManager();
  const auto ploc = sm.getPresumedLoc(sm.getExpansionLoc(where));
  if (ploc.isValid()) {
    d.file = p_.source_file(*p_.functions[f].context, ploc.getFilename());
    d.line = ploc.getLine();
  }
  p_.diagnostics.push_back(std::move(d));
}

bool InputAnalysis::unconditional(FunctionId f, StructIndex n) const {
  const Tree &t = trees_[f];
  for (auto it = t.parent.find(n); it != t.parent.end(); it = t.parent.find(it->second)) {
    const StructNode &node = p_.nodes[it->second];
    if (node.kind == StructKind::If || node.kind == StructKind::IfElse ||
        node.kind == StructKind::Switch || (is_loop(node.kind) && !parses_command_line(node))) {
      return false;
    }
  }
  return true;
}

std::string InputAnalysis::base_name(const Variable &v) const { return parameter_base_name(v); }

std::string parameter_base_name(const Variable &v) {
  std::string name = v.source_name;
  for (const char *sep : {"::", ".", "->"}) {
    const std::size_t at = name.rfind(sep);
    if (at != std::string::npos) {
      name = name.substr(at + std::string(sep).size());
    }
  }
  name = identifier(name);
  if (!model::is_valid_variable_name(name) || name == "argc" || name == "world" || name == "self" ||
      (name.rfind("argv", 0) == 0 && name.size() > 4)) {
    name += "_";
  }
  return name;
}

std::string InputAnalysis::location(const InputSite &site) const {
  const clang::SourceManager &sm = p_.functions[site.function].context->getSourceManager();
  const auto ploc = sm.getPresumedLoc(sm.getExpansionLoc(site.location));
  if (ploc.isInvalid()) {
    return {};
  }
  return p_.source_file(*p_.functions[site.function].context, ploc.getFilename()) + ":" +
         std::to_string(ploc.getLine());
}

std::optional<double> InputAnalysis::value_before(const InputSite &site) {
  const auto holder = holder_.find(static_cast<std::uint32_t>(&site - p_.inputs.data()));
  if (holder == holder_.end()) {
    return std::nullopt;
  }
  FunctionId f = site.function;
  StructIndex from = holder->second;
  // Within the reading function, then (parsers are called once) in its only caller, from
  // the call on: `opts.numReg = 11; ParseCommandLineOptions(argc, argv, &opts);`.
  // Inside the loop over argv, another option's read of the variable says nothing of its value
  // before the command line; anything else the loop writes to it makes that value depend on the
  // order of the options (XSBench's `-m event` sets particles to 0 unless -p came first).
  StructIndex parsing = argv_loop(f, from);
  for (int depth = 0; depth < 4; ++depth) {
    const std::vector<StructIndex> &order = trees_[f].preorder;
    const auto at = std::find(order.begin(), order.end(), from);
    const clang::ASTContext &ctx = *p_.functions[f].context;
    for (auto it = std::make_reverse_iterator(at); it != order.rend(); ++it) {
      const StructNode &n = p_.nodes[*it];
      const bool in_parsing = depth == 0 && parsing != kNoStruct;
      if (*it == parsing) {
        parsing = kNoStruct;
      }
      for (auto e = n.effects.rbegin(); e != n.effects.rend(); ++e) {
        if (e->var != site.var) {
          continue;
        }
        if (in_parsing) {
          if (e->kind == Effect::Kind::Input) {
            continue;
          }
          return std::nullopt;
        }
        // An element write (`for (i = 0; i < n; ++i) iparams[i] = 0;`) of a constant holds
        // for whichever element it hits.
        if (e->kind == Effect::Kind::Assign ||
            (e->kind == Effect::Kind::Element && e->element_kind == Effect::Kind::Assign)) {
          if (e->kind == Effect::Kind::Assign && processors_call(e->value)) {
            // The option's read then writes `(param > 0 ? param : nthreads)`: 0, the default,
            // stands for an absent option (OpenMP teams have at least one thread).
            p_.inputs[holder->first].processors_default = true;
            return 0.0;
          }
          return constant(e->value, ctx);
        }
        return std::nullopt;
      }
    }
    const auto call = only_call_of(f);
    if (!call) {
      break;
    }
    f = call->first;
    from = call->second;
  }
  if (const auto *decl = llvm::dyn_cast_or_null<clang::VarDecl>(p_.variables[site.var].decl)) {
    if (decl->getInit() != nullptr) {
      clang::Expr::EvalResult r;
      if (!decl->getInit()->isValueDependent() &&
          decl->getInit()->EvaluateAsRValue(r, decl->getASTContext())) {
        if (r.Val.isInt()) {
          return static_cast<double>(r.Val.getInt().getExtValue());
        }
        if (r.Val.isFloat()) {
          return r.Val.getFloat().convertToDouble();
        }
      }
    } else if (decl->hasGlobalStorage()) {
      return 0.0; // a global without an initialiser starts at zero
    }
  }
  // A field's default member initializer (`int nSteps = 10;`), the value every object starts
  // with unless a constructor says otherwise.
  const auto *field = llvm::dyn_cast_or_null<clang::FieldDecl>(p_.variables[site.var].decl);
  if (field == nullptr) {
    return std::nullopt;
  }
  if (field->hasInClassInitializer() && field->getInClassInitializer() != nullptr) {
    return constant(field->getInClassInitializer(), field->getASTContext());
  }
  return constructor_default(field);
}

// The value the record's constructors give a field in their member initializer lists
// (Quicksilver's `Parameters() : nBatches(10), balanceTallyReplications(1), ...`), when every
// constructor that names it gives the same constant; each option left out of a command line
// otherwise warned that its default was not known (eleven per call of `arguments()`).
std::optional<double> InputAnalysis::constructor_default(const clang::FieldDecl *field) {
  const auto *record = llvm::dyn_cast<clang::CXXRecordDecl>(field->getParent());
  if (record == nullptr || !record->hasDefinition()) {
    return std::nullopt;
  }
  std::optional<double> value;
  for (const clang::CXXConstructorDecl *ctor : record->getDefinition()->ctors()) {
    const clang::FunctionDecl *def = nullptr;
    if (ctor->isCopyOrMoveConstructor() || !ctor->hasBody(def)) {
      continue;
    }
    for (const clang::CXXCtorInitializer *init :
         llvm::cast<clang::CXXConstructorDecl>(def)->inits()) {
      if (init->getMember() != field || !init->isWritten()) {
        continue;
      }
      const auto given = constant(init->getInit(), field->getASTContext());
      if (!given || (value && *value != *given)) {
        return std::nullopt;
      }
      value = given;
    }
  }
  return value;
}

bool InputAnalysis::processors_call(const clang::Expr *e) {
  const auto *call =
      llvm::dyn_cast_or_null<clang::CallExpr>(e != nullptr ? e->IgnoreParenImpCasts() : nullptr);
  const clang::FunctionDecl *callee = call != nullptr ? call->getDirectCallee() : nullptr;
  return callee != nullptr && call->getNumArgs() == 0 && callee->getIdentifier() != nullptr &&
         (callee->getName() == "omp_get_num_procs" || callee->getName() == "omp_get_max_threads");
}

std::optional<double> InputAnalysis::constant(const clang::Expr *e, const clang::ASTContext &ctx) {
  // `a = b = 32`: the value of the inner assignment is what it assigns.
  while (e != nullptr) {
    const auto *assign = llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParenImpCasts());
    if (assign == nullptr || assign->getOpcode() != clang::BO_Assign) {
      break;
    }
    e = assign->getRHS();
  }
  clang::Expr::EvalResult r;
  if (e == nullptr || e->isValueDependent() || !e->EvaluateAsRValue(r, ctx)) {
    return std::nullopt;
  }
  if (r.Val.isInt()) {
    return static_cast<double>(r.Val.getInt().getExtValue());
  }
  if (r.Val.isFloat()) {
    return r.Val.getFloat().convertToDouble();
  }
  return std::nullopt;
}

std::optional<std::pair<FunctionId, StructIndex>> InputAnalysis::only_call_of(FunctionId g) const {
  std::optional<std::pair<FunctionId, StructIndex>> found;
  for (FunctionId f = 0; f < p_.functions.size(); ++f) {
    for (StructIndex n : trees_[f].preorder) {
      const StructNode &node = p_.nodes[n];
      if (node.kind == StructKind::UserCall && node.callee == g) {
        if (found) {
          return std::nullopt;
        }
        found = std::make_pair(f, n);
      }
    }
  }
  return found;
}

void InputAnalysis::name_parameters() {
  std::set<std::string> taken;
  for (const auto &pp : p_.parameters) {
    taken.insert(pp.name);
  }
  std::map<VarId, std::size_t> by_var;
  // Broadcasts last: they may be copies of the inputs the root read.
  // Sites that carry their parameter's name (an option prefix) first, so the parameter they
  // share with other reads of the variable is named after the option.
  std::vector<std::uint32_t> order;
  for (std::uint32_t k = 0; k < p_.inputs.size(); ++k) {
    if (p_.inputs[k].how != "broadcast" && !p_.inputs[k].name.empty()) {
      order.push_back(k);
    }
  }
  for (std::uint32_t k = 0; k < p_.inputs.size(); ++k) {
    if (p_.inputs[k].how != "broadcast" && p_.inputs[k].name.empty()) {
      order.push_back(k);
    }
  }
  for (std::uint32_t k = 0; k < p_.inputs.size(); ++k) {
    if (p_.inputs[k].how == "broadcast") {
      order.push_back(k);
    }
  }
  for (std::uint32_t k : order) {
    InputSite &site = p_.inputs[k];
    if (!site.setup) {
      continue;
    }
    if (site.how == "broadcast") {
      if (const std::string argv = broadcast_argv(site); !argv.empty()) {
        site.parameter = argv;
        continue;
      }
      if (broadcast_expression(site)) {
        site.parameter = "(broadcast)"; // written from broadcast_value (ExpressionWriter)
        continue;
      }
      const VarId source = broadcast_source(site);
      const auto linked = source == kNoVar ? by_var.end() : by_var.find(source);
      if (linked != by_var.end()) {
        site.parameter = p_.parameters[linked->second].name;
        continue;
      }
    }
    const Variable &var = p_.variables[site.var];
    const auto known = by_var.find(site.var);
    ProgramParameter *param = nullptr;
    if (known != by_var.end()) {
      param = &p_.parameters[known->second];
    } else {
      ProgramParameter fresh;
      const std::string base = site.name.empty() || !model::is_valid_variable_name(site.name)
                                   ? base_name(var)
                                   : site.name;
      fresh.name = base;
      for (int i = 2; taken.contains(fresh.name); ++i) {
        fresh.name = base + "_" + std::to_string(i);
      }
      taken.insert(fresh.name);
      fresh.input = true;
      fresh.var = site.var;
      fresh.floating = var.type == VarType::Floating;
      fresh.origin = site.how;
      fresh.source = location(site);
      fresh.doc = site.doc.empty() ? "'" + var.source_name + "' read by " + site.what : site.doc;
      // A setter's parameter is named the same in every setter (`value`): the setter names it.
      fresh.aliases.push_back(site.call != nullptr && var.function != kNoFunction
                                  ? p_.functions[var.function].name
                                  : var.source_name);
      // The program's own value: what the variable holds when no option sets it, or, for a
      // broadcast, the constant the root sends (`if (rank == 0) n = 10; MPI_Bcast(&n, ...)`).
      // An input file's keyword too: a deck without it leaves the value the program set before
      // reading the file (CloverLeaf's `globals.tiles_per_chunk = 1;`).
      if (site.how == "option" || site.how == "argv" || site.how == "annotation" ||
          site.how == "broadcast" || site.how == "flag" || (site.how == "file" && site.keyed)) {
        fresh.program_default = site.given_default ? site.given_default : value_before(site);
      }
      if (order_dependent_.contains(k)) {
        fresh.program_default.reset();
      }
      fresh.flag = site.flag;
      by_var[site.var] = p_.parameters.size();
      p_.parameters.push_back(std::move(fresh));
      param = &p_.parameters.back();
    }
    // A word that sets a constant (model::Parameter::choices): XSBench's `-m history` and `-m
    // event` set simulation_method to 1 and 2; `-G unionized|nuclide|hash` sets grid_type.
    const bool choice = site.how == "flag" && site.flag.has_value();
    if (choice) {
      for (const auto &o : site.options) {
        if (std::none_of(param->choices.begin(), param->choices.end(),
                         [&](const auto &c) { return c.first == o; })) {
          param->choices.emplace_back(o, *site.flag);
        }
      }
    } else if (param->flag) {
      // A value read of what was a flag: the words stay choices, the options are the value's.
      param->flag.reset();
      param->options.clear();
      param->origin = site.how;
    }
    for (const auto &o : site.options) {
      if ((!choice || param->flag) &&
          std::find(param->options.begin(), param->options.end(), o) == param->options.end()) {
        param->options.push_back(o);
      }
    }
    if (!site.options.empty()) {
      param->position = site.position;
      // The option's default, when another read of the variable (an input file's keyed read)
      // made the parameter first.
      if (!param->program_default && (site.how == "option" || site.how == "argv") &&
          !order_dependent_.contains(k)) {
        param->program_default = site.given_default ? site.given_default : value_before(site);
      }
    }
    if (!site.spelling.empty() && std::find(param->aliases.begin(), param->aliases.end(),
                                            site.spelling) == param->aliases.end()) {
      param->aliases.push_back(site.spelling);
    }
    site.parameter = param->name;
  }
  // Words that all set one constant are the options of a flag (LULESH's `-q`): no choices.
  for (ProgramParameter &param : p_.parameters) {
    if (param.flag && std::all_of(param.choices.begin(), param.choices.end(),
                                  [&](const auto &c) { return c.second == *param.flag; })) {
      param.choices.clear();
    }
  }
  std::set<std::string> warned;
  for (const auto &[k, source] : changed_before_sent_) {
    const InputSite &site = p_.inputs[k];
    const auto linked = by_var.find(source);
    if (!site.setup || site.parameter.empty() || linked == by_var.end() ||
        !warned.insert(site.parameter).second) {
      continue;
    }
    const std::string input = p_.parameters[linked->second].name;
    parameter_warning(site, "rank 0 changes '" + p_.variables[source].source_name +
                                "' after reading it and before broadcasting it, so the other "
                                "ranks take parameter '" +
                                site.parameter + "' (what the estimation run broadcast), not '" +
                                input + "': when you change '" + input + "', set '" +
                                site.parameter + "' to the value rank 0 will send");
  }
  for (std::uint32_t k : unparsed_) {
    const InputSite &site = p_.inputs[k];
    if (!site.setup) {
      continue;
    }
    parameter_warning(site, "option table entry for '" + p_.variables[site.var].source_name +
                                "' (" + site.what +
                                "): no later call in this function parses argv, so the model "
                                "takes the parameter '" +
                                site.parameter +
                                "' here; the estimation run measures it here too, which may "
                                "be before the program parsed its options");
  }
}

void InputAnalysis::parameter_warning(const InputSite &site, const std::string &message) {
  Diagnostic d;
  d.kind = DiagnosticKind::Parameter;
  d.severity = Severity::Warning;
  d.function = p_.functions[site.function].name;
  d.message = message;
  const std::string where = location(site);
  const std::size_t colon = where.rfind(':');
  if (colon != std::string::npos) {
    d.file = where.substr(0, colon);
    d.line = static_cast<std::uint32_t>(std::stoul(where.substr(colon + 1)));
  }
  p_.diagnostics.push_back(std::move(d));
}

void analyse_inputs(Program &program) { InputAnalysis(program).run(); }

} // namespace parjava::frontend
