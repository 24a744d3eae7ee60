// Placing one unit's probes (see unit_rewriter.hpp): the order of the sites, positions in the
// text (statements of their own, ends of statements, preprocessor branches), blocks, branches,
// functions and their prologues, and the rewritten text.
#include "unit_rewriter.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <clang/AST/ASTContext.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/StmtOpenMP.h>
#include <clang/Basic/SourceManager.h>

#include "model_emitter.hpp"
#include "sized_calls.hpp"
#include "variables.hpp"

namespace parjava::frontend {

// Place the sites' probes (outer nodes first, as the planner lists them); returns the
// rewritten main file. Slots that could not be placed are added to `unplaced`.
std::string UnitRewriter::run(const std::vector<const ProbeSite *> &sites,
                              const std::set<std::string> &without,
                              std::set<std::uint32_t> &unplaced,
                              std::vector<ProbeLocation> &locations) {
  std::vector<StructIndex> order;
  std::map<StructIndex, std::vector<const ProbeSite *>> by_node;
  for (const ProbeSite *s : sites) {
    if (s->quiet) {
      quiet_.insert(s->slot);
    }
    if (s->quiets) {
      quiets_.insert(s->slot);
    }
    if (!by_node.contains(s->node)) {
      order.push_back(s->node);
    }
    by_node[s->node].push_back(s);
  }
  // A call timed inside a condition is inside the probes of its statement (the branch
  // counter around the condition starts at the same token): placed last, it nests inside.
  std::stable_partition(order.begin(), order.end(),
                        [this](StructIndex n) { return !a_.program.nodes[n].in_condition; });
  for (StructIndex n : order) {
    const StructNode &node = a_.program.nodes[n];
    const std::string &function = a_.program.functions[node.function].name;
    const auto &node_sites = by_node[n];
    // A constant-evaluated function cannot read a clock: it stays as written.
    const clang::FunctionDecl *decl = a_.program.functions[node.function].decl;
    if (without.contains(function) || (decl != nullptr && decl->isConstexpr())) {
      for (const ProbeSite *s : node_sites) {
        unplaced.insert(s->slot);
      }
      continue;
    }
    pending_.clear();
    dropped_.clear();
    try {
      place(node, node_sites);
      for (const Pending &p : pending_) {
        if (const std::string why = edits_.check(p.point); !why.empty()) {
          throw Skip{why};
        }
      }
    } catch (const Skip &skip) {
      for (const ProbeSite *s : node_sites) {
        unplaced.insert(s->slot);
      }
      if (!skip.why.empty()) {
        note(node, skip.why);
      }
      continue;
    }
    for (Pending &p : pending_) {
      if (p.opening) {
        edits_.open(p.point, std::move(p.text));
      } else {
        edits_.close(p.point, std::move(p.text));
      }
    }
    const auto loc = sm_.getPresumedLoc(sm_.getExpansionLoc(node.range.getBegin()));
    for (const ProbeSite *s : node_sites) {
      if (dropped_.contains(s->slot)) {
        unplaced.insert(s->slot);
        continue;
      }
      ProbeLocation l;
      l.slot = s->slot;
      l.function = function;
      if (loc.isValid()) {
        l.file = loc.getFilename();
        l.line = loc.getLine();
      }
      // A probe in a header: the instrumenter names the header's mirror copy here.
      const clang::FileID file = sm_.getFileID(sm_.getExpansionLoc(node.range.getBegin()));
      if (file != sm_.getMainFileID() && sm_.getFileEntryForID(file) != nullptr) {
        l.instrumented = sm_.getFileEntryForID(file)->tryGetRealPathName().str();
      }
      locations.push_back(std::move(l));
    }
  }
  return_from_main();
  std::vector<SourceEdits::ExpandedUse> expanded;
  header_pieces_ = edits_.pieces(&expanded);
  report_expansions(expanded);
  const std::string original = edits_.main_path();
  const auto main_pieces = header_pieces_.find(original);
  std::string text =
      SourceEdits::apply(sm_.getBufferData(sm_.getMainFileID()),
                         main_pieces == header_pieces_.end() ? std::vector<SourceEdits::Piece>{}
                                                             : main_pieces->second);
  if (main_pieces != header_pieces_.end()) {
    header_pieces_.erase(main_pieces);
  }
  std::string declarations;
  for (const auto &[f, d] : declarations_) {
    declarations += d;
  }
  // Functions of this unit that calls through pointers elsewhere compare with (dispatch.hpp).
  std::string exports;
  for (const auto &[type, functions] : a_.calls->dispatch_table().functions) {
    for (const FunctionId f : functions) {
      if (a_.program.functions[f].context == &ctx_) {
        exports += dispatch_export(a_.program, f);
      }
    }
  }
  return "#include \"parjava_probes.h\"\n" + declarations + "#line 1 \"" + original + "\"\n" +
         text + (exports.empty() ? "" : "\n" + exports);
}

// C89 leaves the status of a main that ends without `return` undefined (C99 5.1.2.2.3 made it
// 0): minisweep's main ends so under -ansi, the program happened to exit 0 and its estimation
// code 136, which the estimation then reported as the program's own verdict. The copy returns
// 0 there, as every later standard does.
void UnitRewriter::return_from_main() {
  if (ctx_.getLangOpts().CPlusPlus || ctx_.getLangOpts().C99) {
    return;
  }
  for (const FunctionInfo &fn : a_.program.functions) {
    if (fn.context != &ctx_ || fn.decl == nullptr || !fn.decl->isMain() ||
        !fn.decl->getReturnType()->isIntegerType()) {
      continue;
    }
    const auto *body = llvm::dyn_cast_or_null<clang::CompoundStmt>(fn.decl->getBody());
    if (body == nullptr ||
        (!body->body_empty() && llvm::isa<clang::ReturnStmt>(body->body_back()))) {
      continue;
    }
    const Point end = before(body->getRBracLoc());
    if (edits_.check(end).empty()) {
      edits_.open(end, "return 0; ");
    }
  }
}

void UnitRewriter::note(const StructNode &node, const std::string &why) {
  Diagnostic d;
  d.kind = DiagnosticKind::Estimation;
  d.severity = Severity::Warning;
  d.function = a_.program.functions[node.function].name;
  d.node = node.model_id;
  const auto ploc = sm_.getPresumedLoc(sm_.getExpansionLoc(node.range.getBegin()));
  if (ploc.isValid()) {
    d.file = ploc.getFilename();
    d.line = ploc.getLine();
    d.column = ploc.getColumn();
  }
  d.message = "no probe for '" + node.label + "': " + why + "; its time stays unmeasured";
  diagnostics_.push_back(std::move(d));
}

// One note per source file: which macro uses were written out expanded, and why.
void UnitRewriter::report_expansions(const std::vector<SourceEdits::ExpandedUse> &all) {
  std::map<std::string, std::vector<SourceEdits::ExpandedUse>> by_file;
  for (const SourceEdits::ExpandedUse &u : all) {
    by_file[u.file].push_back(u);
  }
  for (const auto &[file, uses] : by_file) {
    report_expansions(file, uses);
  }
}

void UnitRewriter::report_expansions(const std::string &file,
                                     const std::vector<SourceEdits::ExpandedUse> &uses) {
  Diagnostic d;
  d.kind = DiagnosticKind::Estimation;
  d.severity = Severity::Note;
  d.file = file;
  d.line = uses.front().line;
  std::string list;
  for (std::size_t i = 0; i < uses.size() && i < 4; ++i) {
    list += (i ? ", '" : "'") + uses[i].spelling + "' (line " + std::to_string(uses[i].line) + ")";
  }
  if (uses.size() > 4) {
    list += " and " + std::to_string(uses.size() - 4) + " more";
  }
  d.message = std::to_string(uses.size()) +
              " macro use(s) hold probes inside their expansion (control flow or a measured "
              "place in the macro) and are written out expanded in the estimation code: " +
              list;
  diagnostics_.push_back(std::move(d));
}

const clang::Stmt *UnitRewriter::parent_of(const clang::Stmt *s) {
  const auto parents = ctx_.getParents(*s);
  if (parents.empty()) {
    return nullptr;
  }
  return parents[0].get<clang::Stmt>();
}

// Is there a preprocessor conditional (#if, #ifdef, #ifndef, #elif, #else, #endif) between
// the end of `a` and the start of `b` (or are they in different files or expansions)?
bool UnitRewriter::conditional_between(const clang::Stmt *a, const clang::Stmt *b) {
  const auto [fa, oa] = sm_.getDecomposedLoc(sm_.getExpansionLoc(a->getEndLoc()));
  const auto [fb, ob] = sm_.getDecomposedLoc(sm_.getExpansionLoc(b->getBeginLoc()));
  if (fa != fb || ob < oa) {
    return true;
  }
  bool invalid = false;
  const llvm::StringRef buffer = sm_.getBufferData(fa, &invalid);
  if (invalid || ob > buffer.size()) {
    return true;
  }
  llvm::StringRef text = buffer.substr(oa, ob - oa);
  // A directive starts a line: look at what follows each newline.
  for (std::size_t nl = text.find('\n'); nl != llvm::StringRef::npos; nl = text.find('\n')) {
    text = text.substr(nl + 1);
    llvm::StringRef line = text.ltrim(" \t");
    if (!line.consume_front("#")) {
      continue;
    }
    line = line.ltrim(" \t");
    for (const char *d : {"if", "elif", "else", "endif"}) {
      if (line.starts_with(d)) {
        return true; // #if, #ifdef, #ifndef, #elif, #elifdef, #else, #endif
      }
    }
  }
  return false;
}

// Is `s` a statement of its own (in a block, after a label, a control statement's body), as
// opposed to a part of a statement's header (a for-init or increment, a condition)?
bool UnitRewriter::statement_position(const clang::Stmt *s) {
  const auto parents = ctx_.getParents(*s);
  if (!parents.empty() && parents[0].get<clang::Stmt>() == nullptr) {
    // Under a declaration: a function's body is a statement, a variable's initialiser not.
    const auto *d = parents[0].get<clang::Decl>();
    return d == nullptr || llvm::isa<clang::FunctionDecl>(d);
  }
  const clang::Stmt *p = parent_of(s);
  if (p == nullptr || llvm::isa<clang::CompoundStmt>(p) || llvm::isa<clang::SwitchCase>(p) ||
      llvm::isa<clang::LabelStmt>(p) || llvm::isa<clang::AttributedStmt>(p) ||
      llvm::isa<clang::CapturedStmt>(p) || llvm::isa<clang::OMPExecutableDirective>(p)) {
    return true;
  }
  if (const auto *i = llvm::dyn_cast<clang::IfStmt>(p)) {
    return s == i->getThen() || s == i->getElse();
  }
  if (const auto *f = llvm::dyn_cast<clang::ForStmt>(p)) {
    return s == f->getBody();
  }
  if (const auto *w = llvm::dyn_cast<clang::WhileStmt>(p)) {
    return s == w->getBody();
  }
  if (const auto *d = llvm::dyn_cast<clang::DoStmt>(p)) {
    return s == d->getBody();
  }
  if (const auto *r = llvm::dyn_cast<clang::CXXForRangeStmt>(p)) {
    return s == r->getBody();
  }
  if (const auto *w = llvm::dyn_cast<clang::SwitchStmt>(p)) {
    return s == w->getBody();
  }
  return false;
}

// The statement of its own holding `e` (through the declarations of a DeclStmt), or null.
const clang::Stmt *UnitRewriter::enclosing_statement(const clang::Stmt *e) {
  clang::DynTypedNode node = clang::DynTypedNode::create(*e);
  for (int depth = 0; depth < 64; ++depth) {
    const auto parents = ctx_.getParents(node);
    if (parents.empty()) {
      return nullptr;
    }
    node = parents[0];
    if (const auto *st = node.get<clang::Stmt>()) {
      if (llvm::isa<clang::CompoundStmt>(st)) {
        return nullptr; // e was a statement itself; callers pass expressions
      }
      if (statement_position(st)) {
        return st;
      }
    } else if (node.get<clang::Decl>() == nullptr) {
      return nullptr;
    }
  }
  return nullptr;
}

UnitRewriter::Place UnitRewriter::place_of(const clang::Stmt *s) {
  const clang::Stmt *parent = parent_of(s);
  if (parent == nullptr || llvm::isa<clang::CompoundStmt>(parent)) {
    return Place::InCompound;
  }
  if (llvm::isa<clang::SwitchCase>(parent) || llvm::isa<clang::LabelStmt>(parent) ||
      llvm::isa<clang::AttributedStmt>(parent)) {
    return Place::AfterLabel;
  }
  return Place::ControlBody;
}

// The place just after a statement, including its ';'.
Point UnitRewriter::end_of(const clang::Stmt *s) {
  if (const auto *c = llvm::dyn_cast<clang::CompoundStmt>(s)) {
    return after_token(c->getRBracLoc());
  }
  if (const auto *i = llvm::dyn_cast<clang::IfStmt>(s)) {
    return end_of(i->getElse() ? i->getElse() : i->getThen());
  }
  if (const auto *f = llvm::dyn_cast<clang::ForStmt>(s)) {
    return end_of(f->getBody());
  }
  if (const auto *w = llvm::dyn_cast<clang::WhileStmt>(s)) {
    return end_of(w->getBody());
  }
  if (const auto *r = llvm::dyn_cast<clang::CXXForRangeStmt>(s)) {
    return end_of(r->getBody());
  }
  if (const auto *sw = llvm::dyn_cast<clang::SwitchStmt>(s)) {
    return end_of(sw->getBody());
  }
  if (const auto *l = llvm::dyn_cast<clang::LabelStmt>(s)) {
    return end_of(l->getSubStmt());
  }
  if (const auto *c = llvm::dyn_cast<clang::SwitchCase>(s)) {
    return end_of(c->getSubStmt());
  }
  if (const auto *a = llvm::dyn_cast<clang::AttributedStmt>(s)) {
    return end_of(a->getSubStmt());
  }
  return edits_.after_statement(s->getEndLoc());
}

void UnitRewriter::place(const StructNode &node, const std::vector<const ProbeSite *> &sites) {
  std::map<ProbeKind, std::uint32_t> slot;
  for (const ProbeSite *s : sites) {
    slot[static_cast<ProbeKind>(s->kind)] = s->slot;
  }
  if (slot.contains(ProbeKind::Block) && node.in_condition) {
    timed_call(node, slot[ProbeKind::Block]);
  } else if (slot.contains(ProbeKind::Block)) {
    block(node, slot[ProbeKind::Block],
          slot.contains(ProbeKind::Sized) ? std::optional(slot[ProbeKind::Sized]) : std::nullopt);
  }
  if (node.omp_loop && slot.contains(ProbeKind::Iterations)) {
    const std::uint32_t trips = slot.contains(ProbeKind::Trips) ? slot[ProbeKind::Trips] : kNoTrips;
    if (!openmp_construct(node, slot[ProbeKind::Iterations], trips)) {
      openmp_loop(node, slot[ProbeKind::Iterations], trips);
    }
  } else if (slot.contains(ProbeKind::Trips)) {
    loop(node, slot);
  }
  if (slot.contains(ProbeKind::Branch)) {
    branch(node, slot[ProbeKind::Branch]);
  }
  if (slot.contains(ProbeKind::Switch)) {
    selector(node, slot[ProbeKind::Switch]);
  }
  if (slot.contains(ProbeKind::Function)) {
    function(node, slot[ProbeKind::Function]);
  }
  if (slot.contains(ProbeKind::Prologue)) {
    prologue(node, slot[ProbeKind::Prologue]);
  }
  for (const ProbeSite *s : sites) {
    if (static_cast<ProbeKind>(s->kind) == ProbeKind::Value) {
      argument_value(node, *s);
    } else if (static_cast<ProbeKind>(s->kind) == ProbeKind::Input) {
      input_value(*s);
    }
  }
}

void UnitRewriter::block(const StructNode &node, std::uint32_t k,
                         std::optional<std::uint32_t> sized) {
  // Statements of a loop header (a for-init the builder moved before the loop, the increment
  // of a loop rotated around a condition that calls functions) stay where they are: a probe
  // there would turn them into something else. They cost nothing worth measuring.
  std::size_t first = 0;
  std::size_t last = node.stmts.size();
  while (first < last && !statement_position(node.stmts[first])) {
    ++first;
  }
  while (last > first && !statement_position(node.stmts[last - 1])) {
    --last;
  }
  if (first == last) {
    dropped_.insert(k);
    return;
  }
  for (std::size_t i = first; i < last; ++i) {
    if (!statement_position(node.stmts[i])) {
      throw Skip{"the statements include part of a loop header"};
    }
  }
  // The probe's two ends in one scope and one preprocessor branch: a block the builder ran
  // on into a nested `{ }` (graph500's main: the begin inside it declared a variable the end
  // outside used), or across an `#else` / `#endif` the compiler of the estimation code takes
  // the other side of (graph500's bitreverse: Clang's __GNUC__ is 4, gcc's 12), does not
  // compile, and the function lost all its probes. The statements after the first such
  // boundary go untimed: declarations and assignments, not loops or calls of the model.
  for (std::size_t i = first + 1; i < last; ++i) {
    if (parent_of(node.stmts[i]) != parent_of(node.stmts[first]) ||
        conditional_between(node.stmts[i - 1], node.stmts[i])) {
      last = i;
      break;
    }
  }
  const clang::Stmt *s0 = node.stmts[first];
  const Point begin = before(s0->getBeginLoc());
  const Point end = end_of(node.stmts[last - 1]);
  const std::string id = std::to_string(k);
  // A call priced by its size: its size arguments (a freed block) are observed as the call
  // evaluates them, and its sample is binned by those bytes.
  std::string opening = begin_probe(k) + " ";
  std::string closing = " PJ_END(" + id + ")";
  if (sized) {
    SizedCall call;
    if (!sized_call(node.call, call)) {
      throw Skip{"the sized call has no call expression"};
    }
    for (const clang::Expr *e : call.sizes) {
      observe(e, "pj_size_mul((double)pj_v)");
    }
    if (call.pointer != nullptr && call.sizes.empty()) {
      observe_pointer(call.pointer, "pj_size_free"); // a free costs by its block's size
    }
    opening = begin_probe(k, true) + " ";
    closing = " PJ_END_SIZED(" + id + ", " + std::to_string(*sized) + ")";
  }
  // Statements that declare nothing go into a block of their own: the probe's declarations
  // then open a block (C90 allows no declaration after a statement) and a case label may
  // jump past them (C++ allows no jump past an initialisation).
  const bool declares =
      std::any_of(node.stmts.begin() + static_cast<std::ptrdiff_t>(first),
                  node.stmts.begin() + static_cast<std::ptrdiff_t>(last),
                  [](const clang::Stmt *st) { return llvm::isa<clang::DeclStmt>(st); });
  if (!declares) {
    open(begin, "{ " + opening);
    close(end, closing + " }");
    return;
  }
  switch (place_of(s0)) {
  case Place::InCompound:
    open(begin, opening);
    close(end, closing);
    break;
  case Place::AfterLabel:
    open(begin, "; " + opening);
    close(end, closing);
    break;
  case Place::ControlBody:
    open(begin, "{ " + opening);
    close(end, closing + " }");
    break;
  }
}

void UnitRewriter::branch(const StructNode &node, std::uint32_t k) {
  if (node.dispatch != kNoFunction) {
    dispatch(node, k);
    return;
  }
  const clang::Expr *cond = nullptr;
  if (const auto *ifs = llvm::dyn_cast_or_null<clang::IfStmt>(node.stmt)) {
    if (ifs->getConditionVariable() != nullptr || ifs->isConstexpr()) {
      throw Skip{"the condition declares a variable"};
    }
    cond = ifs->getCond();
  } else if (const auto *c = llvm::dyn_cast_or_null<clang::ConditionalOperator>(node.stmt)) {
    cond = c->getCond(); // calls under `?:` (structure_guards.cpp)
  } else if (const auto *b = llvm::dyn_cast_or_null<clang::BinaryOperator>(node.stmt);
             b != nullptr && b->isLogicalOp()) {
    cond = b->getLHS(); // calls right of `&&` / `||`
  } else {
    throw Skip{"the branch has no condition in the source to count"};
  }
  open(before(cond->getBeginLoc()),
       std::string(node.communicates || loop_exits().ends_communicating_loop(index_of(node))
                       ? "pj_branch_seq("
                       : "pj_branch(") +
           std::to_string(k) + ", !!(");
  close(after_token(cond->getEndLoc()), "))");
}

void UnitRewriter::function(const StructNode &node, std::uint32_t k) {
  const auto *body = llvm::dyn_cast_or_null<clang::CompoundStmt>(node.stmts.front());
  if (body == nullptr) {
    throw Skip{"the function body is not a block"};
  }
  const std::string id = std::to_string(k);
  ReturnCollector returns;
  returns.TraverseStmt(const_cast<clang::CompoundStmt *>(body));
  open(after_token(body->getLBracLoc()), " " + begin_probe(k));
  close(before(body->getRBracLoc()), "PJ_END(" + id + ") ");
  for (const clang::ReturnStmt *r : returns.returns) {
    open(before(r->getBeginLoc()), "{ PJ_END(" + id + ") ");
    close(end_of(r), " }");
  }
}

// A constructor's prologue: marked before the statement that calls it, timed at the top of
// its body (the member initialisers run in between).
void UnitRewriter::prologue(const StructNode &node, std::uint32_t k) {
  const std::string id = std::to_string(k);
  if (node.kind != StructKind::UserCall) {
    const clang::FunctionDecl *decl = a_.program.functions[node.function].decl;
    const auto *body =
        llvm::dyn_cast_or_null<clang::CompoundStmt>(decl != nullptr ? decl->getBody() : nullptr);
    if (body == nullptr) {
      throw Skip{"the constructor has no body block"};
    }
    open(after_token(body->getLBracLoc()), " pj_prologue(" + id + ");");
    return;
  }
  const clang::Stmt *s = enclosing_statement(node.call);
  if (s == nullptr) {
    throw Skip{"the constructor call is not in a statement"};
  }
  if (place_of(s) == Place::InCompound) {
    open(before(s->getBeginLoc()), "pj_mark(" + id + "); ");
  } else if (!llvm::isa<clang::DeclStmt>(s)) {
    open(before(s->getBeginLoc()), "{ pj_mark(" + id + "); ");
    close(end_of(s), " }");
  } else {
    throw Skip{"the constructor call is a declaration after a label"};
  }
}

StructIndex UnitRewriter::index_of(const StructNode &node) const {
  return static_cast<StructIndex>(&node - a_.program.nodes.data());
}

} // namespace parjava::frontend
