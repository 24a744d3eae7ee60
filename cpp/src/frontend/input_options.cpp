// Command-line options that select an input (inputs.hpp): the string literals compared in the
// if around an argv read, getopt's cases and getopt_long's tables, option-table registrations
// whose value arrives when the program parses argv, tables of option prefixes, and the value a
// command line gives an option.
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

// Whether `s` names a vector of strings copied from argv (calls.hpp, argv_copy_offset).
bool reads_argv_copy(const clang::Stmt *s, const Program *program) {
  if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(s);
      ref != nullptr && argv_copy_offset(ref->getDecl(), program) >= 0) {
    return true;
  }
  return std::any_of(s->child_begin(), s->child_end(), [&](const clang::Stmt *child) {
    return child != nullptr && reads_argv_copy(child, program);
  });
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

// The argv index variable an option test reads (`strcmp(argv[i], "-n")`): i's declaration.
class ArgvIndex : public clang::RecursiveASTVisitor<ArgvIndex> {
public:
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr *e) {
    const clang::QualType base = e->getBase()->IgnoreParenImpCasts()->getType();
    const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e->getIdx()->IgnoreParenImpCasts());
    if (index == nullptr && ref != nullptr && base->isPointerType() &&
        base->getPointeeType()->isPointerType() &&
        base->getPointeeType()->getPointeeType()->isCharType()) {
      index = ref->getDecl();
    }
    return true;
  }
  const clang::ValueDecl *index = nullptr;
};

bool names(const clang::Expr *e, const clang::ValueDecl *var) {
  const auto *ref = llvm::dyn_cast_or_null<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  return ref != nullptr && ref->getDecl() == var;
}

// Walks an option's branch in source order: the steps of the index variable and each argv read
// with the place of the value it takes after the option.
class ArgvSteps : public clang::RecursiveASTVisitor<ArgvSteps> {
public:
  ArgvSteps(const clang::ValueDecl *index, clang::ASTContext &ctx) : index_(index), ctx_(ctx) {}
  // Pre-order: a read `argv[i++]` is seen before the step inside it, as it is evaluated.
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr *e) {
    const clang::QualType base = e->getBase()->IgnoreParenImpCasts()->getType();
    if (!base->isPointerType() || !base->getPointeeType()->isPointerType()) {
      return true;
    }
    const clang::Expr *idx = e->getIdx()->IgnoreParenImpCasts();
    std::int64_t offset = 0;
    if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(idx); u != nullptr) {
      if (!names(u->getSubExpr(), index_)) {
        return true;
      }
      offset = u->getOpcode() == clang::UO_PreInc ? 1 : u->getOpcode() == clang::UO_PreDec ? -1 : 0;
    } else if (const auto *b = llvm::dyn_cast<clang::BinaryOperator>(idx);
               b != nullptr &&
               (b->getOpcode() == clang::BO_Add || b->getOpcode() == clang::BO_Sub)) {
      const clang::Expr *other = names(b->getLHS(), index_) ? b->getRHS()
                                 : b->getOpcode() == clang::BO_Add && names(b->getRHS(), index_)
                                     ? b->getLHS()
                                     : nullptr;
      clang::Expr::EvalResult r;
      if (other == nullptr || other->isValueDependent() || !other->EvaluateAsInt(r, ctx_)) {
        return true;
      }
      offset = r.Val.getInt().getExtValue() * (b->getOpcode() == clang::BO_Sub ? -1 : 1);
    } else if (!names(idx, index_)) {
      return true;
    }
    reads.emplace_back(e->getBeginLoc(), delta_ + offset);
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator *u) {
    if (u->isIncrementDecrementOp() && names(u->getSubExpr(), index_)) {
      delta_ += u->isIncrementOp() ? 1 : -1;
    }
    return true;
  }
  bool VisitCompoundAssignOperator(clang::CompoundAssignOperator *c) {
    clang::Expr::EvalResult r;
    if (names(c->getLHS(), index_) && !c->getRHS()->isValueDependent() &&
        c->getRHS()->EvaluateAsInt(r, ctx_)) {
      const std::int64_t v = r.Val.getInt().getExtValue();
      delta_ += c->getOpcode() == clang::BO_AddAssign   ? v
                : c->getOpcode() == clang::BO_SubAssign ? -v
                                                        : 0;
    }
    return true;
  }
  std::vector<std::pair<clang::SourceLocation, std::int64_t>> reads;

private:
  const clang::ValueDecl *index_;
  clang::ASTContext &ctx_;
  std::int64_t delta_ = 0;
};

// The place after the option of the value an argv read at `read` takes, in the option's branch
// `if (!strcmp(argv[i], "-n")) { i++; nx = atoi(argv[i++]); ny = atoi(argv[i++]); ... }` (LLNL
// AMG) or `{ nx = atoi(argv[i + 1]); ny = atoi(argv[i + 2]); i += 2; }`: the steps of i before
// the read, plus the read's own offset. 1 when the branch does not say.
int argv_position(const clang::IfStmt *branch, clang::SourceLocation read, clang::ASTContext &ctx) {
  if (branch == nullptr || branch->getThen() == nullptr || read.isInvalid()) {
    return 1;
  }
  ArgvIndex test;
  test.TraverseStmt(const_cast<clang::Expr *>(branch->getCond()));
  if (test.index == nullptr) {
    return 1;
  }
  ArgvSteps steps(test.index, ctx);
  steps.TraverseStmt(const_cast<clang::Stmt *>(branch->getThen()));
  const clang::SourceManager &sm = ctx.getSourceManager();
  const clang::SourceLocation at = sm.getExpansionLoc(read);
  for (const auto &[loc, place] : steps.reads) {
    if (!sm.isBeforeInTranslationUnit(sm.getExpansionLoc(loc), at)) {
      return place >= 1 && place <= 64 ? static_cast<int>(place) : 1;
    }
  }
  return 1;
}

} // namespace

bool InputAnalysis::parses_command_line(const StructNode &loop) const {
  const clang::ASTContext &ctx = *p_.functions[loop.function].context;
  const std::string cond = loop.cond != nullptr ? source_text(loop.cond, ctx, 1000) : "";
  if (has_word(cond, "argc") || cond.find("getopt") != std::string::npos) {
    return true;
  }
  // `for (i = 1; i < args.size(); ++i)` over a vector of strings copied from argv.
  if (loop.cond != nullptr && reads_argv_copy(loop.cond, &p_)) {
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

StructIndex InputAnalysis::argv_loop(FunctionId f, StructIndex n) const {
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

StructIndex InputAnalysis::enclosing_loop(FunctionId f, StructIndex n) const {
  const Tree &t = trees_[f];
  for (auto it = t.parent.find(n); it != t.parent.end(); it = t.parent.find(it->second)) {
    if (is_loop(p_.nodes[it->second].kind)) {
      return it->second;
    }
  }
  return kNoStruct;
}

void InputAnalysis::hoist_table_inputs() {
  std::map<StructIndex, StructIndex> after; // argv loop -> the block of its inputs
  std::map<StructIndex, std::set<VarId>> hoisted;
  for (std::uint32_t k = 0; k < p_.inputs.size(); ++k) {
    InputSite &site = p_.inputs[k];
    const auto holder = holder_.find(k);
    // A keyword of an input file (file_keys.hpp) holds its value once the loop over the file's
    // lines ends, whichever line set it, or the program's own when the file has no such line.
    // Left under the key's test inside that loop, the model drew the test by its frequency in
    // the estimation run: CloverLeaf's y_cells branch never ran in the model, whose chunks were
    // 10 cells high (the program's default) instead of 240.
    const bool keyed = site.keyed && site.how == "file";
    if (holder == holder_.end() || site.call != nullptr ||
        (!keyed && (!site.setup || !(site.table || parsed_option(site, holder->second))))) {
      continue;
    }
    const FunctionId f = site.function;
    const StructIndex loop =
        keyed ? enclosing_loop(f, holder->second) : argv_loop(f, holder->second);
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
      n.label = keyed ? "inputs set by the input file's loop" : "inputs set by the option loop";
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

bool InputAnalysis::parsed_option(const InputSite &site, StructIndex holder) {
  if (site.options.empty() || site.how == "broadcast") {
    return false;
  }
  const bool known_default = value_before(site).has_value();
  const FunctionId f = site.function;
  const StructIndex loop = argv_loop(f, holder);
  if (loop == kNoStruct) {
    return false;
  }
  // An option read by a helper through a pointer (LULESH's `StrToInt(argv[i+1], &opts->its)`,
  // lulesh-util.cc:76) arrives through the helper's pointer cell: the copy into that cell before
  // the call reads the option's variable, but the helper writes it before it reads it, or the
  // read would not be an input.
  const auto k = static_cast<std::uint32_t>(&site - p_.inputs.data());
  std::set<VarId> cells;
  for (const Effect &e : p_.nodes[holder].effects) {
    if (e.kind == Effect::Kind::Input && e.input == k && e.source != kNoVar) {
      cells.insert(e.source);
    }
  }
  const Tree &t = trees_[f];
  bool rewritten = false; // another branch of the loop writes the variable
  for (StructIndex n : t.preorder) {
    if (n == holder || !inside(t, n, loop)) {
      continue;
    }
    const StructNode &node = p_.nodes[n];
    // Reads of the variable are only allowed in updates of it (`lookups = lookups * particles`).
    bool writes = false;
    for (const auto *list : {&node.init, &node.effects, &node.update}) {
      for (const Effect &e : *list) {
        if (e.kind == Effect::Kind::Copy && cells.contains(e.var)) {
          continue;
        }
        const bool reads = std::find(e.uses.begin(), e.uses.end(), site.var) != e.uses.end();
        if (e.var == site.var && e.kind != Effect::Kind::Input) {
          writes = true;
          rewritten = true;
        } else if (reads) {
          return false;
        }
      }
    }
    if (!writes && std::find(node.uses.begin(), node.uses.end(), site.var) != node.uses.end()) {
      return false;
    }
  }
  for (const Effect &e : p_.nodes[holder].effects) {
    if (e.var == site.var && e.kind != Effect::Kind::Input) {
      return false;
    }
  }
  // A default the model cannot write as a constant (`int width = size;`) stays where the program
  // sets it, the option's read in its branch: moved, an omitted option would take the
  // estimation run's value (unless the loop decides it anyway: then no default, and a warning).
  if (rewritten) {
    order_dependent_.insert(static_cast<std::uint32_t>(&site - p_.inputs.data()));
    return true;
  }
  return known_default;
}

std::vector<std::string> InputAnalysis::options_around(FunctionId f, StructIndex n,
                                                       clang::SourceLocation read, int &position,
                                                       bool *conditional) {
  const Tree &t = trees_[f];
  clang::ASTContext &ctx = *p_.functions[f].context;
  StructIndex child = n;
  if (conditional != nullptr) {
    *conditional = false;
  }
  // Marks the test just passed when the options turn out to be further up.
  const auto passed = [&](const StructNode &node) {
    if (conditional != nullptr && node.kind != StructKind::Sequence) {
      *conditional = true;
    }
  };
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
        position = argv_position(llvm::dyn_cast_or_null<clang::IfStmt>(parent.stmt), read, ctx);
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
    passed(parent);
    child = it->second;
  }
  return {};
}

const std::map<std::int64_t, std::string> &InputAnalysis::long_options(clang::ASTContext &ctx) {
  auto it = tables_.find(&ctx);
  if (it == tables_.end()) {
    LongOptionTables tables(ctx);
    tables.TraverseDecl(ctx.getTranslationUnitDecl());
    it = tables_.emplace(&ctx, std::move(tables.long_names)).first;
  }
  return it->second;
}

void InputAnalysis::defer_registrations(FunctionId f, const std::vector<StructIndex> &order,
                                        std::size_t i) {
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

std::optional<std::string> option_value(const std::vector<std::string> &argv,
                                        const std::vector<std::string> &options, int position) {
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string &arg = argv[i];
    for (const auto &o : options) {
      const auto at = i + static_cast<std::size_t>(std::max(position, 1));
      if (arg == o) {
        if (at < argv.size()) {
          return argv[at];
        }
        continue;
      }
      if (position == 1 && arg.size() > o.size() && arg.compare(0, o.size(), o) == 0) {
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
