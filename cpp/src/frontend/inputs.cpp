#include "inputs.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include "calls.hpp"
#include "parjava/model/expression.hpp"
#include "source_analysis.hpp"
#include "variables.hpp"

namespace parjava::frontend {

namespace {

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `word` occurs in `text` as a whole identifier.
bool has_word(const std::string &text, const std::string &word) {
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool left = at == 0 || !is_identifier_char(text[at - 1]);
    const std::size_t end = at + word.size();
    const bool right = end >= text.size() || !is_identifier_char(text[end]);
    if (left && right) {
      return true;
    }
  }
  return false;
}

// getopt_long's tables: `struct option opts[] = {{"steps", required_argument, 0, 's'}, ...}`
// map the short option a `case 's':` handles to its long spelling.
class LongOptionTables : public clang::RecursiveASTVisitor<LongOptionTables> {
public:
  explicit LongOptionTables(clang::ASTContext &ctx) : ctx_(ctx) {}
  bool VisitVarDecl(clang::VarDecl *var) {
    const auto *array = ctx_.getAsConstantArrayType(var->getType());
    if (array == nullptr || !var->hasInit()) {
      return true;
    }
    const auto *record = array->getElementType()->getAsRecordDecl();
    if (record == nullptr || record->getName() != "option") {
      return true;
    }
    const auto *list = llvm::dyn_cast<clang::InitListExpr>(var->getInit()->IgnoreImplicit());
    if (list == nullptr) {
      return true;
    }
    for (const clang::Expr *entry : list->inits()) {
      const auto *fields = llvm::dyn_cast<clang::InitListExpr>(entry->IgnoreImplicit());
      if (fields == nullptr || fields->getNumInits() < 4) {
        continue;
      }
      const auto *name =
          llvm::dyn_cast<clang::StringLiteral>(fields->getInit(0)->IgnoreParenImpCasts());
      clang::Expr::EvalResult val;
      if (name == nullptr || !fields->getInit(3)->EvaluateAsInt(val, ctx_)) {
        continue;
      }
      long_names[val.Val.getInt().getExtValue()] = "--" + name->getString().str();
    }
    return true;
  }
  std::map<std::int64_t, std::string> long_names;

private:
  clang::ASTContext &ctx_;
};

class StringLiterals : public clang::RecursiveASTVisitor<StringLiterals> {
public:
  bool VisitStringLiteral(clang::StringLiteral *s) {
    if (s->isOrdinary()) {
      const std::string text = s->getString().str();
      if (!text.empty() && text.size() <= 40 && text.find(' ') == std::string::npos) {
        found.push_back(text);
      }
    }
    return true;
  }
  std::vector<std::string> found;
};

bool takes_argv(const clang::Expr *call) {
  const auto *ce = llvm::dyn_cast_or_null<clang::CallExpr>(call);
  if (ce == nullptr) {
    return false;
  }
  for (const clang::Expr *arg : ce->arguments()) {
    const clang::QualType t = arg->IgnoreImpCasts()->getType();
    if (t->isPointerType() && t->getPointeeType()->isPointerType() &&
        t->getPointeeType()->getPointeeType()->isCharType()) {
      return true;
    }
  }
  return false;
}

class InputAnalysis {
public:
  explicit InputAnalysis(Program &program) : p_(program) {}

  void run() {
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
    for (InputSite &site : p_.inputs) {
      if (!site.given_default) {
        site.given_default = value_before(site);
      }
    }
    for (std::uint32_t k = 0; k < p_.inputs.size(); ++k) {
      forget_before(k);
    }
    name_parameters();
  }

  // An input replaces what the variable held: `int steps = cfg.nsteps; PARJAVA_PARAM(steps);`
  // or `int n = guess(); fscanf(f, "%d", &n);`. The analysis is per variable, so an earlier
  // definition from data would make every use data; when nothing reads the variable between
  // its earlier definitions and the input (in the same function, outside loops), those
  // definitions are forgotten by the model (their statements keep their time).
  void forget_before(std::uint32_t k) {
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

  bool writes_var(const StructNode &n, VarId v) const {
    for (const auto *list : {&n.init, &n.effects, &n.update}) {
      for (const Effect &e : *list) {
        if (e.var == v) {
          return true;
        }
      }
    }
    return false;
  }

private:
  struct Tree {
    std::vector<StructIndex> preorder;
    std::map<StructIndex, StructIndex> parent;
    std::set<StructIndex> in_data_loop; // nodes inside a loop that does not parse argv
  };

  // Does every path from `def` pass through `n`: is no branch or loop around `n` that is not
  // around `def` too? (A loop that parses the command line counts as a branch: each option's
  // read runs only when the option is given.)
  bool reaches_unconditionally(const Tree &t, StructIndex def, StructIndex n) const {
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

  // A definition whose value the model can compute without the input: a constant or an
  // expression of other variables (`int pex = world;`), not data.
  static bool computed_default(const Effect &e) {
    return (e.kind == Effect::Kind::Assign && e.value != nullptr) ||
           e.kind == Effect::Kind::Builtin;
  }

  // A loop that walks the command line (its condition reads argc, or it calls getopt): reading
  // numbers inside it is parsing inputs, not data changing from one iteration to the next.
  bool parses_command_line(const StructNode &loop) const {
    const clang::ASTContext &ctx = *p_.functions[loop.function].context;
    const std::string cond = loop.cond != nullptr ? source_text(loop.cond, ctx, 1000) : "";
    if (has_word(cond, "argc") || cond.find("getopt") != std::string::npos) {
      return true;
    }
    if (loop.loop_body != nullptr) {
      for (const clang::Expr *call : calls_in(loop.loop_body)) {
        const auto *ce = llvm::dyn_cast<clang::CallExpr>(call);
        const clang::FunctionDecl *callee = ce ? ce->getDirectCallee() : nullptr;
        if (callee != nullptr && callee->getNameAsString().rfind("getopt", 0) == 0) {
          return true;
        }
      }
    }
    return false;
  }

  void walk(FunctionId f) {
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

  // Functions called (directly or not) from inside a data loop run many times: what they read
  // is data of the iteration, not an input of the program.
  void looped_functions() {
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
  }

  void classify(FunctionId f, StructIndex n) {
    StructNode &node = p_.nodes[n];
    const bool in_loop = trees_[f].in_data_loop.contains(n);
    for (auto *list : {&node.effects, &node.init, &node.update}) {
      for (Effect &e : *list) {
        if (e.kind != Effect::Kind::Input) {
          continue;
        }
        InputSite &site = p_.inputs[e.input];
        const bool setup = (!in_loop || site.element) && !looped_[f];
        site.setup = setup && list == &node.effects;
        holder_[e.input] = n;
        if (!site.setup) {
          e.kind = Effect::Kind::Havoc;
          e.text =
              "read by " + site.what + " inside a loop (data that changes, not a program input)";
          continue;
        }
        if (site.how == "argv" && site.options.empty()) {
          site.options = options_around(f, n);
        }
      }
    }
  }

  // A helper that parses one value into its pointer argument (`StrToInt(argv[i + 1],
  // &opts->its)`, whose body does `*retVal = strtol(token, ...)`) reads a different input at
  // every call: the input is the caller's variable, under the caller's option, set when the
  // call returns. The helper's own read becomes the cell's, which nothing else uses.
  void helper_inputs() {
    std::map<VarId, std::uint32_t> cell_inputs; // cell -> the helper's input site
    for (std::uint32_t k = 0; k < p_.inputs.size(); ++k) {
      const InputSite &site = p_.inputs[k];
      // A scalar cell, or an element of an array cell (ReadHpcgDat(int *localDimensions)
      // reading `localDimensions + i` from a file for HPCG_Init's `iparams`).
      const Variable &v = p_.variables[site.var];
      const auto alias = std::find_if(
          p_.pointer_aliases.begin(), p_.pointer_aliases.end(), [&](const auto &entry) {
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
          site.options = site.how == "argv" ? options_around(f, n) : std::vector<std::string>{};
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

  // The outermost loop over the command line around node `n` of function `f`, or kNoStruct.
  StructIndex argv_loop(FunctionId f, StructIndex n) const {
    const Tree &t = trees_[f];
    StructIndex found = kNoStruct;
    for (auto it = t.parent.find(n); it != t.parent.end(); it = t.parent.find(it->second)) {
      const StructNode &node = p_.nodes[it->second];
      if (is_loop(node.kind) && parses_command_line(node)) {
        found = it->second;
      }
    }
    return found;
  }

  // A value read under an entry of a table of option prefixes (effects.cpp: `sscanf(argv[i] +
  // strlen(cparams[j]), "%d", iparams + j)` inside `for (i...) for (j...)`) holds its value once
  // the loop over argv ends, whichever argument set it: the input moves to a block just after
  // that loop, so the model sets the element there, on every path, and the estimation code reads
  // it there. Earlier writes of the same elements that the model cannot follow (HPCG's
  // positional `sscanf(argv[i+1], "%d", iparams+i)` into an element known only at run time) are
  // what that input replaces: forgotten, with a note.
  void hoist_table_inputs() {
    std::map<StructIndex, StructIndex> after; // argv loop -> the block of its inputs
    std::map<StructIndex, std::set<VarId>> hoisted;
    for (std::uint32_t k = 0; k < p_.inputs.size(); ++k) {
      InputSite &site = p_.inputs[k];
      const auto holder = holder_.find(k);
      if (!site.setup || holder == holder_.end() ||
          !(site.table || parsed_option(site, holder->second))) {
        continue;
      }
      const FunctionId f = site.function;
      const StructIndex loop = argv_loop(f, holder->second);
      Tree &t = trees_[f];
      const auto parent = t.parent.find(loop);
      if (loop == kNoStruct || parent == t.parent.end()) {
        continue;
      }
      StructIndex block = kNoStruct;
      if (const auto known = after.find(loop); known != after.end()) {
        block = known->second;
      } else {
        StructNode n;
        n.kind = StructKind::Block;
        n.function = f;
        n.range = p_.nodes[loop].range;
        n.label = "inputs set by the option loop";
        block = p_.add(std::move(n));
        after[loop] = block;
        auto &siblings = p_.nodes[parent->second].children;
        siblings.insert(std::find(siblings.begin(), siblings.end(), loop) + 1, block);
        t.parent[block] = parent->second;
        if (t.in_data_loop.contains(loop)) {
          t.in_data_loop.insert(block);
        }
        // In preorder, after the loop's last descendant.
        auto at = std::find(t.preorder.begin(), t.preorder.end(), loop) + 1;
        while (at != t.preorder.end() && inside(t, *at, loop)) {
          ++at;
        }
        t.preorder.insert(at, block);
      }
      auto &effects = p_.nodes[holder->second].effects;
      const auto e = std::find_if(effects.begin(), effects.end(), [&](const Effect &x) {
        return x.kind == Effect::Kind::Input && x.input == k;
      });
      if (e == effects.end()) {
        continue;
      }
      Effect moved = *e;
      effects.erase(e);
      p_.nodes[block].effects.push_back(std::move(moved));
      holder_[k] = block;
      site.statement = p_.nodes[loop].stmt;
      hoisted[block].insert(site.var);
    }
    for (const auto &[block, vars] : hoisted) {
      forget_unfollowed_writes(p_.nodes[block].function, block, vars);
    }
  }

  // An option read in the loop over argv (`if (!strcmp(argv[i], "-kba")) kba = atoi(argv[i +
  // 1]);`, a getopt case) that nothing else in that loop writes or reads: the variable holds the
  // option's value once the loop ends, or the program's own when the option is absent. Moved
  // after the loop, the model sets it from its parameter on every path: a command line that
  // gives an option the estimation run did not (or omits one it gave) sets it too, where the
  // branch inside the loop keeps the estimation run's outcomes.
  bool parsed_option(const InputSite &site, StructIndex holder) {
    // A default the model cannot write as a constant (`int width = size;`) stays where the
    // program sets it, the option's read in its branch: moved, an omitted option would take
    // the estimation run's value.
    if (site.options.empty() || site.how == "broadcast" || !value_before(site)) {
      return false;
    }
    const FunctionId f = site.function;
    const StructIndex loop = argv_loop(f, holder);
    if (loop == kNoStruct) {
      return false;
    }
    const Tree &t = trees_[f];
    for (StructIndex n : t.preorder) {
      if (n == holder || !inside(t, n, loop)) {
        continue;
      }
      const StructNode &node = p_.nodes[n];
      if (std::find(node.uses.begin(), node.uses.end(), site.var) != node.uses.end()) {
        return false;
      }
      for (const auto *list : {&node.init, &node.effects, &node.update}) {
        for (const Effect &e : *list) {
          if ((e.var == site.var && e.kind != Effect::Kind::Input) ||
              std::find(e.uses.begin(), e.uses.end(), site.var) != e.uses.end()) {
            return false;
          }
        }
      }
    }
    for (const Effect &e : p_.nodes[holder].effects) {
      if (e.var == site.var && e.kind != Effect::Kind::Input) {
        return false;
      }
    }
    return true;
  }

  static bool inside(const Tree &t, StructIndex n, StructIndex ancestor) {
    for (auto it = t.parent.find(n); it != t.parent.end(); it = t.parent.find(it->second)) {
      if (it->second == ancestor) {
        return true;
      }
    }
    return false;
  }

  void forget_unfollowed_writes(FunctionId f, StructIndex block, const std::set<VarId> &vars) {
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

  // A broadcast of a value every rank already read itself: HPCG parses argv on every rank and
  // broadcasts `iparams` from rank 0 (when it read a file). When the same function reads the
  // variable as an input on a path every rank runs (not under a condition), every rank holds
  // rank 0's value already and the broadcast changes nothing the model computes: it is no input
  // of its own (a note says so).
  void local_broadcasts() {
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
      if (!site.setup || site.how != "broadcast" || holder == holder_.end() ||
          read == reads.end() ||
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

  // Between the read at node `from` and the broadcast at node `to` of function `f`, nothing the
  // program computes depends on the rank: no condition reads a variable derived from it, no
  // assignment uses one. Then every rank holds what rank 0 sends.
  bool same_on_every_rank(FunctionId f, StructIndex from, StructIndex to) {
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

  // No condition of the function decides whether node `n` runs (loops over the command line
  // aside: they run on every rank alike).
  bool unconditional(FunctionId f, StructIndex n) const {
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

  // The options that select an argv read: the string literals compared in the if around it
  // (`if (!strcmp(argv[i], "-nx")) nx = atoi(argv[++i]);`), or the option characters of the
  // getopt case it is in (with their getopt_long spellings).
  std::vector<std::string> options_around(FunctionId f, StructIndex n) {
    const Tree &t = trees_[f];
    clang::ASTContext &ctx = *p_.functions[f].context;
    StructIndex child = n;
    for (auto it = t.parent.find(child); it != t.parent.end(); it = t.parent.find(child)) {
      const StructNode &parent = p_.nodes[it->second];
      if ((parent.kind == StructKind::If || parent.kind == StructKind::IfElse) &&
          !parent.children.empty() && parent.children.front() == child && parent.cond) {
        StringLiterals literals;
        literals.TraverseStmt(const_cast<clang::Expr *>(parent.cond));
        std::vector<std::string> out;
        for (const auto &text : literals.found) {
          if (text.front() == '-' || std::all_of(text.begin(), text.end(), is_identifier_char)) {
            out.push_back(text);
          }
        }
        if (!out.empty()) {
          return out;
        }
      }
      if (parent.kind == StructKind::Switch) {
        for (std::size_t k = 0; k < parent.children.size() && k < parent.cases.size(); ++k) {
          if (parent.children[k] != child) {
            continue;
          }
          std::vector<std::string> out;
          const auto &tables = long_options(ctx);
          // Fall-through: the labels of the empty cases just above belong to this one too.
          for (std::size_t j = k + 1; j-- > 0;) {
            for (std::int64_t v : parent.cases[j].values) {
              if (v > 32 && v < 127) {
                out.push_back(std::string("-") + static_cast<char>(v));
                const auto name = tables.find(v);
                if (name != tables.end()) {
                  out.push_back(name->second);
                }
              }
            }
            if (j == 0 || !p_.nodes[parent.children[j - 1]].children.empty()) {
              break;
            }
          }
          if (!out.empty()) {
            return out;
          }
        }
      }
      child = it->second;
    }
    return {};
  }

  const std::map<std::int64_t, std::string> &long_options(clang::ASTContext &ctx) {
    auto it = tables_.find(&ctx);
    if (it == tables_.end()) {
      LongOptionTables tables(ctx);
      tables.TraverseDecl(ctx.getTranslationUnitDecl());
      it = tables_.emplace(&ctx, std::move(tables.long_names)).first;
    }
    return it->second;
  }

  // An option table entry (`addArg("nSteps", 'N', ..., &cmd.nSteps)`) stores an address; the
  // value arrives when the program parses argv, at the next call of the function that takes
  // argv (`processArgs(argc, argv)`). The input is modelled, and measured, there.
  void defer_registrations(FunctionId f, const std::vector<StructIndex> &order, std::size_t i) {
    StructNode &node = p_.nodes[order[i]];
    std::vector<Effect> keep;
    std::vector<Effect> moved;
    for (Effect &e : node.effects) {
      const bool registration = e.kind == Effect::Kind::Input && p_.inputs[e.input].registration &&
                                p_.inputs[e.input].how == "option";
      (registration ? moved : keep).push_back(std::move(e));
    }
    node.effects = std::move(keep);
    if (moved.empty()) {
      return;
    }
    StructIndex target = order[i];
    for (std::size_t j = i + 1; j < order.size(); ++j) {
      const StructNode &candidate = p_.nodes[order[j]];
      if ((candidate.kind == StructKind::UserCall || candidate.kind == StructKind::ExternalCall) &&
          !candidate.in_condition && takes_argv(candidate.call)) {
        target = order[j];
        break;
      }
    }
    StructNode &to = p_.nodes[target];
    for (Effect &e : moved) {
      InputSite &site = p_.inputs[e.input];
      if (target != order[i]) {
        site.registration = false; // arrived: its value is set by the parser call
        site.statement = to.kind == StructKind::ExternalCall && !to.stmts.empty()
                             ? to.stmts.front()
                             : static_cast<const clang::Stmt *>(to.call);
      } else {
        unparsed_.push_back(e.input);
      }
      holder_[e.input] = target;
      to.effects.push_back(std::move(e));
    }
    (void)f;
  }

  std::string base_name(const Variable &v) const {
    std::string name = v.source_name;
    for (const char *sep : {"::", ".", "->"}) {
      const std::size_t at = name.rfind(sep);
      if (at != std::string::npos) {
        name = name.substr(at + std::string(sep).size());
      }
    }
    name = identifier(name);
    if (!model::is_valid_variable_name(name) || name == "argc" || name == "world" ||
        name == "self" || (name.rfind("argv", 0) == 0 && name.size() > 4)) {
      name += "_";
    }
    return name;
  }

  std::string location(const InputSite &site) const {
    const clang::SourceManager &sm = p_.functions[site.function].context->getSourceManager();
    const auto ploc = sm.getPresumedLoc(sm.getExpansionLoc(site.location));
    if (ploc.isInvalid()) {
      return {};
    }
    return p_.source_file(*p_.functions[site.function].context, ploc.getFilename()) + ":" +
           std::to_string(ploc.getLine());
  }

  // The constant a variable holds when the program reads an input into it: the last effect on
  // it before, in program order within the reading function, if that is a constant assignment;
  // its initialiser when nothing assigns it before.
  std::optional<double> value_before(const InputSite &site) {
    const auto holder = holder_.find(static_cast<std::uint32_t>(&site - p_.inputs.data()));
    if (holder == holder_.end()) {
      return std::nullopt;
    }
    FunctionId f = site.function;
    StructIndex from = holder->second;
    // Within the reading function, then (parsers are called once) in its only caller, from
    // the call on: `opts.numReg = 11; ParseCommandLineOptions(argc, argv, &opts);`.
    for (int depth = 0; depth < 4; ++depth) {
      const std::vector<StructIndex> &order = trees_[f].preorder;
      const auto at = std::find(order.begin(), order.end(), from);
      const clang::ASTContext &ctx = *p_.functions[f].context;
      for (auto it = std::make_reverse_iterator(at); it != order.rend(); ++it) {
        const StructNode &n = p_.nodes[*it];
        for (auto e = n.effects.rbegin(); e != n.effects.rend(); ++e) {
          if (e->var != site.var) {
            continue;
          }
          // An element write (`for (i = 0; i < n; ++i) iparams[i] = 0;`) of a constant holds
          // for whichever element it hits.
          if (e->kind == Effect::Kind::Assign ||
              (e->kind == Effect::Kind::Element && e->element_kind == Effect::Kind::Assign)) {
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
    return std::nullopt;
  }

  static std::optional<double> constant(const clang::Expr *e, const clang::ASTContext &ctx) {
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

  // The one call of function `g` in the program (caller, ufc node), if there is exactly one.
  std::optional<std::pair<FunctionId, StructIndex>> only_call_of(FunctionId g) const {
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

  // The definition of a broadcast value the root made last before sending it (the root's own
  // broadcast, in the other branch, is skipped: what it sends is what counts); null when there
  // is none. `order` and `at` are the function's nodes in preorder and the broadcast's place.
  const Effect *sent_definition(const InputSite &site, const std::vector<StructIndex> *&order,
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

  // A broadcast value the root copied from another input just before (`params[0] =
  // max_num_blocks; MPI_Bcast(params, ...)`, the root having parsed max_num_blocks) is that
  // input: every rank ends with it, and a new command line changes it.
  VarId broadcast_source(const InputSite &site) {
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

  // A broadcast value the root read from a position of the command line just before
  // (`iterations = atoi(*++argv); ... MPI_Bcast(&iterations, ...)`, every Parallel Research
  // Kernel) is that position's parameter on every rank: a new command line changes it.
  std::string broadcast_argv(const InputSite &site) {
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
    const std::string name = "argv" + std::to_string(k);
    if (p_.parameter(name) == nullptr) {
      ProgramParameter p;
      p.name = name;
      p.doc = "argv[" + std::to_string(k) + "] read as a number by " +
              call->getDirectCallee()->getNameAsString() + "()";
      p.floating = floating;
      p_.add_parameter(std::move(p));
    }
    return name;
  }

  // Does the program change an input after reading it (miniAMR's `if (comm_vars == 0)
  // comm_vars = num_vars;` before rank 0 broadcasts it)? Then what the root sends is not the
  // command line's value: the broadcast gets a parameter of its own, measured where it is sent.
  // Looks at what runs before the broadcast in its function (`order` up to `at`), and at every
  // function those nodes call (`check_input()`).
  bool redefined(VarId v, const std::vector<StructIndex> &order,
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
      return !e.uses.empty() && std::all_of(e.uses.begin(), e.uses.end(),
                                            [&](VarId u) { return received.contains(u); });
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

  // One parameter per input variable, named after it (`nSteps`, `nx`), with every option that
  // sets it; the variable's source spellings name it too.
  void name_parameters() {
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
        fresh.aliases.push_back(var.source_name);
        // The program's own value: what the variable holds when no option sets it, or, for a
        // broadcast, the constant the root sends (`if (rank == 0) n = 10; MPI_Bcast(&n, ...)`).
        if (site.how == "option" || site.how == "argv" || site.how == "annotation" ||
            site.how == "broadcast") {
          fresh.program_default = site.given_default ? site.given_default : value_before(site);
        }
        by_var[site.var] = p_.parameters.size();
        p_.parameters.push_back(std::move(fresh));
        param = &p_.parameters.back();
      }
      for (const auto &o : site.options) {
        if (std::find(param->options.begin(), param->options.end(), o) == param->options.end()) {
          param->options.push_back(o);
        }
      }
      if (!site.spelling.empty() && std::find(param->aliases.begin(), param->aliases.end(),
                                              site.spelling) == param->aliases.end()) {
        param->aliases.push_back(site.spelling);
      }
      site.parameter = param->name;
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

  // A warning about an input, at the place the program reads it.
  void parameter_warning(const InputSite &site, const std::string &message) {
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

  Program &p_;
  std::vector<Tree> trees_;
  std::vector<bool> looped_;
  std::map<std::uint32_t, StructIndex> holder_;
  std::set<VarId> rank_derived_; // variables computed from the rank (same_on_every_rank)
  std::vector<std::uint32_t> unparsed_;
  // Broadcasts of an input the root changes before sending it: the input it started from.
  std::map<std::uint32_t, VarId> changed_before_sent_;
  std::map<const clang::ASTContext *, std::map<std::int64_t, std::string>> tables_;
};

} // namespace

void analyse_inputs(Program &program) { InputAnalysis(program).run(); }

std::optional<std::string> option_value(const std::vector<std::string> &argv,
                                        const std::vector<std::string> &options) {
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string &arg = argv[i];
    for (const auto &o : options) {
      if (arg == o) {
        if (i + 1 < argv.size()) {
          return argv[i + 1];
        }
        continue;
      }
      if (arg.size() > o.size() && arg.compare(0, o.size(), o) == 0) {
        if (arg[o.size()] == '=') {
          return arg.substr(o.size() + 1); // --nSteps=100
        }
        const char next = arg[o.size()];
        if (o.size() == 2 && o[0] == '-' && o[1] != '-' &&
            (std::isdigit(static_cast<unsigned char>(next)) || next == '.')) {
          return arg.substr(2); // getopt's -N100
        }
      }
    }
  }
  return std::nullopt;
}

} // namespace parjava::frontend
