// Source-to-source instrumentation (the clang-tools-extra way): probes are inserted as text at
// statement boundaries of the user's code, so the estimation code is the user's program compiled
// by the user's compiler with the user's flags (seed 000 notes §3.7.1: times measured in context,
// during a real run, with the production optimisation level). SourceEdits places the text
// between tokens of the expanded program, writing a macro use out expanded when a probe belongs
// inside it; a probe that cannot be placed is dropped from the plan with a diagnostic, so the
// copy always compiles as far as the instrumenter can tell, and instrument(..., without) leaves
// whole functions unprobed when the compiler still disagrees (the caller's self-repair).
#include "parjava/frontend/instrument.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include <clang/AST/ASTContext.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/StmtOpenMP.h>
#include <clang/Basic/OpenMPKinds.h>
#include <clang/Basic/SourceManager.h>

#include "header_mirror.hpp"
#include "loop_exits.hpp"
#include "model_emitter.hpp"
#include "openmp_count.hpp"
#include "parjava/error.hpp"
#include "probe_runtime.hpp"
#include "sized_calls.hpp"
#include "source_analysis.hpp"
#include "source_edits.hpp"
#include "variables.hpp"

namespace parjava::frontend {

namespace fs = std::filesystem;

namespace {

// Two lines precede the user's first line in every instrumented copy.
constexpr unsigned kHeaderLines = 2;

class ReturnCollector : public clang::RecursiveASTVisitor<ReturnCollector> {
public:
  bool TraverseLambdaExpr(clang::LambdaExpr *) { return true; }
  bool VisitReturnStmt(clang::ReturnStmt *r) {
    returns.push_back(r);
    return true;
  }
  std::vector<const clang::ReturnStmt *> returns;
};

using Point = SourceEdits::Point;

// No Trips probe (the model computes the loop's count).
constexpr std::uint32_t kNoTrips = UINT32_MAX;

class UnitRewriter {
public:
  UnitRewriter(AnalysedSources &a, clang::ASTUnit &unit, const clang::syntax::TokenBuffer *tokens,
               std::vector<Diagnostic> &diagnostics)
      : a_(a), ctx_(unit.getASTContext()), sm_(ctx_.getSourceManager()),
        edits_(sm_, ctx_.getLangOpts(), tokens), diagnostics_(diagnostics) {}

  // Place the sites' probes (outer nodes first, as the planner lists them); returns the
  // rewritten main file. Slots that could not be placed are added to `unplaced`.
  std::string run(const std::vector<const ProbeSite *> &sites, const std::set<std::string> &without,
                  std::set<std::uint32_t> &unplaced, std::vector<ProbeLocation> &locations) {
    std::vector<StructIndex> order;
    std::map<StructIndex, std::vector<const ProbeSite *>> by_node;
    for (const ProbeSite *s : sites) {
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

  // The edits of the program's own headers, by real path (after run()).
  [[nodiscard]] std::map<std::string, std::vector<SourceEdits::Piece>> &header_pieces() {
    return header_pieces_;
  }

  // The work-sharing loops timed whole (openmp_construct), by model node.
  [[nodiscard]] const std::set<model::NodeId> &constructs() const { return constructs_; }

  // Lines the dispatch declarations add before the original text (one per declaration).
  [[nodiscard]] unsigned declaration_lines() const {
    return static_cast<unsigned>(declarations_.size());
  }

private:
  struct Skip {
    std::string why;
  };
  struct Pending {
    Point point;
    std::string text;
    bool opening = true;
  };

  void open(Point p, std::string text) { pending_.push_back({p, std::move(text), true}); }
  void close(Point p, std::string text) { pending_.push_back({p, std::move(text), false}); }

  static Point before(clang::SourceLocation loc) { return {loc, false}; }
  static Point after_token(clang::SourceLocation loc) { return {loc, true}; }

  void note(const StructNode &node, const std::string &why) {
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
  void report_expansions(const std::vector<SourceEdits::ExpandedUse> &all) {
    std::map<std::string, std::vector<SourceEdits::ExpandedUse>> by_file;
    for (const SourceEdits::ExpandedUse &u : all) {
      by_file[u.file].push_back(u);
    }
    for (const auto &[file, uses] : by_file) {
      report_expansions(file, uses);
    }
  }

  void report_expansions(const std::string &file,
                         const std::vector<SourceEdits::ExpandedUse> &uses) {
    Diagnostic d;
    d.kind = DiagnosticKind::Estimation;
    d.severity = Severity::Note;
    d.file = file;
    d.line = uses.front().line;
    std::string list;
    for (std::size_t i = 0; i < uses.size() && i < 4; ++i) {
      list +=
          (i ? ", '" : "'") + uses[i].spelling + "' (line " + std::to_string(uses[i].line) + ")";
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

  const clang::Stmt *parent_of(const clang::Stmt *s) {
    const auto parents = ctx_.getParents(*s);
    if (parents.empty()) {
      return nullptr;
    }
    return parents[0].get<clang::Stmt>();
  }

  // Is there a preprocessor conditional (#if, #ifdef, #ifndef, #elif, #else, #endif) between
  // the end of `a` and the start of `b` (or are they in different files or expansions)?
  bool conditional_between(const clang::Stmt *a, const clang::Stmt *b) {
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

  // The loop directive a loop belongs to: its parents are the directive's captured statements
  // and declarations (one of each per construct a combined directive names).
  const clang::OMPLoopDirective *directive_of(const clang::Stmt *loop) {
    clang::DynTypedNodeList parents = ctx_.getParents(*loop);
    for (int depth = 0; depth < 16 && !parents.empty(); ++depth) {
      const clang::DynTypedNode up = parents[0];
      if (const auto *d = up.get<clang::OMPLoopDirective>()) {
        return d;
      }
      if (up.get<clang::CapturedStmt>() == nullptr && up.get<clang::CapturedDecl>() == nullptr) {
        return nullptr;
      }
      parents = ctx_.getParents(up);
    }
    return nullptr;
  }

  bool in_openmp_directive(const clang::Stmt *s) {
    const clang::Stmt *parent = parent_of(s);
    return parent != nullptr && (llvm::isa<clang::CapturedStmt>(parent) ||
                                 llvm::isa<clang::OMPExecutableDirective>(parent));
  }

  // Is `s` a statement of its own (in a block, after a label, a control statement's body), as
  // opposed to a part of a statement's header (a for-init or increment, a condition)?
  bool statement_position(const clang::Stmt *s) {
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
  const clang::Stmt *enclosing_statement(const clang::Stmt *e) {
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

  enum class Place { InCompound, AfterLabel, ControlBody };
  Place place_of(const clang::Stmt *s) {
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
  Point end_of(const clang::Stmt *s) {
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

  void place(const StructNode &node, const std::vector<const ProbeSite *> &sites) {
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
      const std::uint32_t trips =
          slot.contains(ProbeKind::Trips) ? slot[ProbeKind::Trips] : kNoTrips;
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

  // `f(...)` somewhere in `text`: a name followed by `(`, not a parenthesised lvalue such as
  // `(params)[1]`.
  static bool spelled_as_call(const std::string &text) {
    for (std::size_t i = text.find('('); i != std::string::npos; i = text.find('(', i + 1)) {
      std::size_t j = i;
      while (j > 0 && (text[j - 1] == ' ' || text[j - 1] == '\t')) {
        --j;
      }
      if (j > 0 &&
          (std::isalnum(static_cast<unsigned char>(text[j - 1])) != 0 || text[j - 1] == '_')) {
        return true;
      }
    }
    return false;
  }

  // After the statement that sets a program input, the value it set (the model parameter's
  // value in the estimation run). A place that cannot hold it drops this probe only: the
  // node's other probes do not depend on it.
  void input_value(const ProbeSite &site) {
    const clang::Stmt *s = site.after;
    if (s != nullptr && !statement_position(s)) {
      s = llvm::isa<clang::Expr>(s) ? enclosing_statement(s) : nullptr;
    }
    // The variable is read back by its spelling; a spelling that is a call (a macro use,
    // graph500's `SETCOLUMN(next, gtgt)`: a memcpy returning a pointer) is not the variable,
    // and `(double)` of it did not compile.
    if (s == nullptr || spelled_as_call(site.spelling)) {
      dropped_.insert(site.slot);
      return;
    }
    const std::string text =
        " pj_value(" + std::to_string(site.slot) + ", (double)(" + site.spelling + "));";
    const Point end = end_of(s);
    const bool braces = place_of(s) == Place::ControlBody;
    const Point begin = before(s->getBeginLoc());
    if (!edits_.check(end).empty() || (braces && !edits_.check(begin).empty())) {
      dropped_.insert(site.slot);
      return;
    }
    if (braces) {
      open(begin, "{ ");
      close(end, text + " }");
    } else if (llvm::isa<clang::ForStmt, clang::WhileStmt, clang::DoStmt, clang::CXXForRangeStmt>(
                   s)) {
      // After the whole loop (an option table's inputs hold once the loop over argv ends):
      // opened at its end, so it follows the braces and probes that close the loop there.
      open(end, text);
    } else {
      close(end, text);
    }
  }

  // A call in a condition, timed around the call expression: a GNU statement expression (GCC
  // and Clang, C and C++) that runs the call once between the probe's two clock readings and
  // gives its value.
  void timed_call(const StructNode &node, std::uint32_t k) {
    const clang::Expr *call = node.call;
    if (call == nullptr) {
      throw Skip{"the call has no expression"};
    }
    const std::string id = std::to_string(k);
    const clang::QualType type = call->getType();
    if (type->isVoidType()) {
      open(before(call->getBeginLoc()), "__extension__ ({ PJ_BEGIN(" + id + ") ");
      close(after_token(call->getEndLoc()), "; PJ_END(" + id + ") })");
      return;
    }
    if (!type->isArithmeticType() && !type->isEnumeralType() && !type->isPointerType()) {
      throw Skip{"the call's value is a " + type.getAsString() + ", not a number or a pointer"};
    }
    const std::string text = edits_.text(call->getBeginLoc(), call->getEndLoc());
    const std::string value = "pj_c" + id + "v";
    open(before(call->getBeginLoc()),
         "__extension__ ({ PJ_BEGIN(" + id + ") __typeof__((" + text + ") + 0) " + value + " = (");
    close(after_token(call->getEndLoc()), "); PJ_END(" + id + ") " + value + "; })");
  }

  void block(const StructNode &node, std::uint32_t k,
             std::optional<std::uint32_t> sized = std::nullopt) {
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
    std::string opening = "PJ_BEGIN(" + id + ") ";
    std::string closing = " PJ_END(" + id + ")";
    if (sized) {
      SizedCall call;
      if (!sized_call(node.call, call)) {
        throw Skip{"the sized call has no call expression"};
      }
      for (const clang::Expr *e : call.sizes) {
        observe(e, "pj_size_mul((double)pj_v)");
      }
      if (call.pointer != nullptr) {
        observe_pointer(call.pointer, call.sizes.empty() ? "pj_size_free" : "pj_size_release");
      }
      opening = "PJ_BEGIN_SIZED(" + id + ") ";
      closing = " PJ_END_SIZED(" + id + ", " + std::to_string(*sized) + ", " +
                (call.allocates ? "1" : "0") + ")";
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

  // A pointer argument handed to the runtime before the call releases its block.
  void observe_pointer(const clang::Expr *expr, const std::string &probe) {
    open(before(expr->getBeginLoc()), "__extension__ ({ void *pj_p = (void *)(");
    close(after_token(expr->getEndLoc()), "); " + probe + "(pj_p); pj_p; })");
  }

  const clang::Stmt *body_of(const clang::Stmt *loop) {
    if (const auto *f = llvm::dyn_cast<clang::ForStmt>(loop)) {
      return f->getBody();
    }
    if (const auto *w = llvm::dyn_cast<clang::WhileStmt>(loop)) {
      return w->getBody();
    }
    if (const auto *d = llvm::dyn_cast<clang::DoStmt>(loop)) {
      return d->getBody();
    }
    if (const auto *r = llvm::dyn_cast<clang::CXXForRangeStmt>(loop)) {
      return r->getBody();
    }
    throw Skip{"not a loop statement"};
  }

  // The body's first place (after its '{'), or, for a body without braces, braces around it.
  // Called after the enclosing edits at the body's end, so its closing brace comes first.
  void open_body(const clang::Stmt *body, const std::string &top) {
    if (const auto *compound = llvm::dyn_cast<clang::CompoundStmt>(body)) {
      open(after_token(compound->getLBracLoc()), " " + top);
    } else {
      open(before(body->getBeginLoc()), "{ " + top);
      close(end_of(body), " }");
    }
  }

  void loop(const StructNode &node, std::map<ProbeKind, std::uint32_t> &slot) {
    const clang::Stmt *loop = node.stmt;
    if (loop == nullptr) {
      throw Skip{"the loop has no statement"};
    }
    if (node.omp_chunk || in_openmp_directive(loop)) {
      if (slot.contains(ProbeKind::Fragment) || slot.contains(ProbeKind::Iterations)) {
        throw Skip{"the loop belongs to an OpenMP directive, which must stay next to it"};
      }
      // A work-sharing loop the model interprets (its body synchronises threads: miniVite's
      // `omp atomic` updates per vertex) whose count is data: each thread counts its share
      // inside the body and records it after the loop, as openmp_loop does, so the pragma
      // stays next to the loop. Without it the count was never measured and the model ran one
      // iteration of miniVite's 20000 per Louvain step.
      const std::string t = std::to_string(slot[ProbeKind::Trips]);
      const clang::Stmt *body = body_of(loop);
      close(end_of(body), " pj_omp_trips(" + t + ");");
      open_body(body, "pj_omp_iteration(" + t + "); ");
      return;
    }
    if (!statement_position(loop)) {
      throw Skip{"the loop is not a statement of its own"};
    }
    const std::string t = std::to_string(slot[ProbeKind::Trips]);
    const bool timed = slot.contains(ProbeKind::Fragment);
    const bool iterations = slot.contains(ProbeKind::Iterations);
    const std::string f = timed ? std::to_string(slot[ProbeKind::Fragment]) : "";
    const std::string i = iterations ? std::to_string(slot[ProbeKind::Iterations]) : "";
    const clang::Stmt *body = body_of(loop);
    const Point begin = before(loop->getBeginLoc());
    const Point end = llvm::isa<clang::DoStmt>(loop) ? end_of(loop) : end_of(body);
    std::string head = "{ ";
    if (timed) {
      head += "PJ_BEGIN(" + f + ") ";
    }
    head += "pj_u64 pj_n" + t + " = 0; ";
    if (iterations) {
      head += "pj_iter pj_i" + i + " = pj_iter_begin(" + i + "); ";
    }
    std::string top = "pj_n" + t + "++; ";
    if (iterations) {
      top += "pj_iteration(" + i + ", &pj_i" + i + "); ";
    }
    std::string tail;
    if (iterations) {
      tail += " pj_last_iteration(" + i + ", &pj_i" + i + ");";
    }
    // Only an opaque trip count needs its distribution (and the cost of collecting it); a loop
    // that communicates keeps its counts in order, so that each rank can replay its own.
    tail += std::string(node.communicates ? " pj_trips_seq("
                        : node.opaque     ? " pj_trips("
                                          : " pj_trips_sum(") +
            t + ", pj_n" + t + ");";
    if (timed) {
      tail += " PJ_END(" + f + ")";
    }
    // The loop's own region first: a brace-less body's closing brace then lands inside it.
    open(begin, head);
    close(end, tail + " }");
    open_body(body, top);
    // A return inside the loop leaves it past its tail: the count and the time are recorded
    // before it too. Quicksilver's `while (true) { ... if (!retry) return nearest_facet; }`
    // (MCT.cc:565, its hottest loop) recorded nothing, so the run "never executed" it and its
    // time was outside the probes: the self-check explained 19 % of the run.
    ReturnCollector returns;
    returns.TraverseStmt(const_cast<clang::Stmt *>(body));
    for (const clang::ReturnStmt *r : returns.returns) {
      open(before(r->getBeginLoc()), "{" + tail + " ");
      close(end_of(r), " }");
    }
  }

  // An OpenMP loop stays next to its pragma: probes go inside its body and after it.
  // With `trips`, each thread counts its chunk's iterations and records them after the loop.
  void openmp_loop(const StructNode &node, std::uint32_t k, std::uint32_t trips) {
    const clang::Stmt *loop = node.stmt;
    if (loop == nullptr) {
      throw Skip{"the loop has no statement"};
    }
    const clang::Stmt *body = body_of(loop);
    const bool counted = trips != kNoTrips;
    const std::string t = counted ? std::to_string(trips) : "";
    close(end_of(body), (counted ? " pj_omp_trips(" + t + ");" : "") + " pj_generation_bump();");
    open_body(body, "pj_iteration_tls(" + std::to_string(k) + "); " +
                        (counted ? "pj_omp_iteration(" + t + "); " : ""));
  }

  // A work-sharing loop timed whole, from before its directive to after the loop
  // (probe_runtime.cpp, pj_omp_construct), its count computed before it from its canonical
  // bounds (openmp_count.cpp): nothing inside the body, which the compiler then vectorises as
  // in the program. False when the count cannot be computed there or the text around cannot
  // take the probes; the loop then gets openmp_loop's per-iteration probes. A `#pragma` must
  // start its line: the opening ends with a newline and a #line that keeps the user's
  // numbering. A directive a macro spells (miniMD's OMPFORSCHEDULE, read as _Pragma,
  // pragma_macros.hpp) is timed from before the macro's use.
  bool openmp_construct(const StructNode &node, std::uint32_t k, std::uint32_t trips) {
    const auto *loop = llvm::dyn_cast_or_null<clang::ForStmt>(node.stmt);
    const clang::OMPLoopDirective *directive = loop != nullptr ? directive_of(loop) : nullptr;
    if (directive == nullptr || directive->getBeginLoc().isInvalid()) {
      return false;
    }
    const clang::SourceLocation at = sm_.getExpansionLoc(directive->getBeginLoc());
    if (!edits_.check(before(at)).empty() || !edits_.check(end_of(loop)).empty()) {
      return false;
    }
    const auto count = canonical_count_text(loop, ctx_, [this](const clang::Expr *e) {
      return edits_.text(e->getBeginLoc(), e->getEndLoc());
    });
    const clang::PresumedLoc line = sm_.getPresumedLoc(at);
    const clang::FileID file = sm_.getFileID(at);
    const clang::FileEntry *entry = sm_.getFileEntryForID(file);
    if (!count || !line.isValid() || (file != sm_.getMainFileID() && entry == nullptr)) {
      return false;
    }
    const std::string name =
        file == sm_.getMainFileID() ? edits_.main_path() : entry->tryGetRealPathName().str();
    const std::string t = std::to_string(k);
    const bool forks = clang::isOpenMPParallelDirective(directive->getDirectiveKind());
    open(before(at), "{ pj_u64 pj_oc" + t + " = " + *count + "; pj_u64 pj_ot" + t +
                         " = pj_now();\n#line " + std::to_string(line.getLine()) + " \"" + name +
                         "\"\n");
    close(end_of(loop), " pj_omp_construct(" + t + ", pj_ot" + t + ", pj_oc" + t + ", " +
                            (forks ? "1" : "0") + ");" +
                            (trips != kNoTrips ? " pj_omp_construct_trips(" +
                                                     std::to_string(trips) + ", pj_oc" + t + ");"
                                               : "") +
                            " }");
    constructs_.insert(node.model_id);
    return true;
  }

  void branch(const StructNode &node, std::uint32_t k) {
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

  // One test of a dispatch chain (dispatch.hpp), counted where the pointer is read for the
  // call: `(earlier ? 0 : pj_branch(k, fp == f_i)), fp` around the callee, so the counts are
  // those of `if (fp == f1) ... else if (fp == f2) ...`. The callee has no side effects
  // (CallClassifier::indirect_targets), so reading it again changes nothing.
  void dispatch(const StructNode &node, std::uint32_t k) {
    const clang::CallExpr *call = node.dispatch_call;
    const clang::Expr *callee = call->getCallee();
    const ClassifiedCall classified = a_.calls->classify(call, ctx_);
    if (classified.virtual_call) {
      virtual_dispatch(node, classified, k);
      return;
    }
    const std::vector<FunctionId> &targets = classified.targets;
    const std::string pointer =
        "((void (*)(void))(" + edits_.text(callee->getBeginLoc(), callee->getEndLoc()) + "))";
    std::string earlier;
    std::string test;
    for (const FunctionId t : targets) {
      const auto spelling = dispatch_spelling(a_.program, t, ctx_, call->getBeginLoc());
      if (!spelling) {
        throw Skip{"the function '" + a_.program.functions[t].name +
                   "' cannot be named in this file"};
      }
      if (!spelling->declaration.empty()) {
        declarations_.emplace(t, spelling->declaration);
      }
      if (t == node.dispatch) {
        test = pointer + " == " + spelling->expression;
        break;
      }
      earlier += (earlier.empty() ? "" : " || ") + pointer + " == " + spelling->expression;
    }
    if (test.empty()) {
      throw Skip{"the call's targets changed"};
    }
    const std::string probe = "pj_branch(" + std::to_string(k) + ", !!(" + test + "))";
    open(before(callee->getBeginLoc()),
         "((" + (earlier.empty() ? probe : "(" + earlier + ") ? 0 : " + probe) + "), ");
    close(after_token(callee->getEndLoc()), ")");
  }

  // One test of a virtual call's dispatch (CallClassifier::virtual_targets), counted where the
  // object is read for the call: `((earlier ? 0 : pj_branch(k, typeid(*obj) is C_i)), obj)->f()`.
  // The object has no side effects, so reading it again changes nothing; the classes are named
  // by their typeid names, so the unit need not see their definitions.
  void virtual_dispatch(const StructNode &node, const ClassifiedCall &c, std::uint32_t k) {
    const auto *member = llvm::dyn_cast<clang::CXXMemberCallExpr>(node.dispatch_call);
    const auto *callee =
        member ? llvm::dyn_cast<clang::MemberExpr>(member->getCallee()->IgnoreParens()) : nullptr;
    if (callee == nullptr || c.object == nullptr) {
      throw Skip{"the virtual call has no object expression"};
    }
    const clang::Expr *object = c.object;
    const bool implicit_this =
        object->getBeginLoc().isInvalid() ||
        (llvm::isa<clang::CXXThisExpr>(object->IgnoreParenImpCasts()) &&
         llvm::cast<clang::CXXThisExpr>(object->IgnoreParenImpCasts())->isImplicit());
    const std::string text =
        implicit_this ? "this" : edits_.text(object->getBeginLoc(), object->getEndLoc());
    const std::string dynamic = "typeid(" +
                                std::string(callee->isArrow() || implicit_this ? "*" : "") + "(" +
                                text + ")).name()";
    std::string earlier;
    std::string test;
    for (std::size_t i = 0; i < c.targets.size(); ++i) {
      const std::string is = "__builtin_strcmp(" + dynamic + ", \"" + c.type_names[i] + "\") == 0";
      if (c.targets[i] == node.dispatch) {
        test = is;
        break;
      }
      earlier += (earlier.empty() ? "" : " || ") + is;
    }
    if (test.empty()) {
      throw Skip{"the call's targets changed"};
    }
    // One line among the declarations (declaration_lines() counts them).
    declarations_.emplace(kNoFunction, "#include <typeinfo>\n");
    const std::string probe = "pj_branch(" + std::to_string(k) + ", !!(" + test + "))";
    const std::string counted =
        "((" + (earlier.empty() ? probe : "(" + earlier + ") ? 0 : " + probe) + "), ";
    if (implicit_this) {
      open(before(callee->getMemberLoc()), counted + "this)->");
      return;
    }
    open(before(object->getBeginLoc()), counted);
    close(after_token(object->getEndLoc()), ")");
  }

  // `expr` evaluated once into a temporary the probe reads, then the expression's value: a GNU
  // statement expression (GCC and Clang, C and C++), so an argument with side effects or calls
  // (`x.counts.data()`, `n++`) runs exactly as often as in the user's program. `+ 0` decays an
  // array and gives enums and bit-fields a type a variable can have.
  void observe(const clang::Expr *expr, const std::string &probe) {
    const std::string text = edits_.text(expr->getBeginLoc(), expr->getEndLoc());
    open(before(expr->getBeginLoc()), "__extension__ ({ __typeof__((" + text + ") + 0) pj_v = (");
    close(after_token(expr->getEndLoc()), "); " + probe + "; pj_v; })");
  }

  void selector(const StructNode &node, std::uint32_t k) {
    const auto *sw = llvm::dyn_cast_or_null<clang::SwitchStmt>(node.stmt);
    if (sw == nullptr || sw->getConditionVariable() != nullptr) {
      throw Skip{"the selector declares a variable"};
    }
    observe(sw->getCond(), "pj_switch(" + std::to_string(k) + ", (long)pj_v)");
  }

  // The communicator argument of the node's MPI call, as text ("MPI_COMM_WORLD" if none).
  std::string communicator_text(const StructNode &node) {
    for (const CommArg &a : node.comm_args) {
      if (a.name == "comm" && a.expr != nullptr) {
        return edits_.text(a.expr->getBeginLoc(), a.expr->getEndLoc());
      }
    }
    return "MPI_COMM_WORLD";
  }

  void argument_value(const StructNode &node, const ProbeSite &site) {
    const clang::Expr *expr = site.value;
    if (expr == nullptr) {
      throw Skip{"the argument has no expression"};
    }
    const std::string k = std::to_string(site.slot);
    const clang::QualType type = expr->IgnoreParenImpCasts()->getType();
    if (type->isPointerType() || type->isArrayType()) {
      // A per-peer count array (MPI_Alltoallv's counts): the mean over the communicator's
      // ranks, which the runtime asks MPI for.
      const clang::QualType element =
          type->isPointerType() ? type->getPointeeType()
                                : clang::QualType(type->getArrayElementTypeNoTypeQual(), 0);
      if (!element->isIntegerType()) {
        throw Skip{"the argument is an array of " + element.getAsString() + ", not of counts"};
      }
      observe(expr, "pj_value_counts(" + k + ", (const int *)pj_v, (int)MPI_Comm_c2f(" +
                        communicator_text(node) + "))");
      return;
    }
    if (!type->isArithmeticType() && !type->isEnumeralType()) {
      throw Skip{"the argument is not a number"};
    }
    observe(expr, "pj_value(" + k + ", (double)pj_v)");
  }

  void function(const StructNode &node, std::uint32_t k) {
    const auto *body = llvm::dyn_cast_or_null<clang::CompoundStmt>(node.stmts.front());
    if (body == nullptr) {
      throw Skip{"the function body is not a block"};
    }
    const std::string id = std::to_string(k);
    ReturnCollector returns;
    returns.TraverseStmt(const_cast<clang::CompoundStmt *>(body));
    open(after_token(body->getLBracLoc()), " PJ_BEGIN(" + id + ")");
    close(before(body->getRBracLoc()), "PJ_END(" + id + ") ");
    for (const clang::ReturnStmt *r : returns.returns) {
      open(before(r->getBeginLoc()), "{ PJ_END(" + id + ") ");
      close(end_of(r), " }");
    }
  }

  // A constructor's prologue: marked before the statement that calls it, timed at the top of
  // its body (the member initialisers run in between).
  void prologue(const StructNode &node, std::uint32_t k) {
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

  // Which branches end communicating loops (loop_exits.hpp), built on first use.
  const LoopExits &loop_exits() {
    if (!loop_exits_) {
      loop_exits_.emplace(a_.program);
    }
    return *loop_exits_;
  }
  StructIndex index_of(const StructNode &node) const {
    return static_cast<StructIndex>(&node - a_.program.nodes.data());
  }

  AnalysedSources &a_;
  std::optional<LoopExits> loop_exits_;
  clang::ASTContext &ctx_;
  clang::SourceManager &sm_;
  SourceEdits edits_;
  std::map<std::string, std::vector<SourceEdits::Piece>> header_pieces_;
  std::map<FunctionId, std::string> declarations_; // dispatch targets named by assembler label
  std::vector<Diagnostic> &diagnostics_;
  std::vector<Pending> pending_;
  std::set<std::uint32_t> dropped_; // probes left out on purpose (nothing to measure there)
  std::set<model::NodeId> constructs_;
};

void write_file(const fs::path &path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    throw Error(ErrorKind::Run, "cannot write " + path.string());
  }
}

// Loops whose timing probe was not placed are not reduced from their measurements.
void drop_unplaced(EstimationPlan &plan, const std::set<std::uint32_t> &unplaced) {
  std::set<model::NodeId> untimed;
  for (const Probe &p : plan.probes) {
    if (unplaced.contains(p.slot) &&
        (p.kind == ProbeKind::Fragment ||
         (p.kind == ProbeKind::Iterations && plan.loop(p.node) != nullptr &&
          plan.loop(p.node)->by_iterations))) {
      untimed.insert(p.node);
    }
  }
  std::erase_if(plan.probes, [&](const Probe &p) { return unplaced.contains(p.slot); });
  for (PlannedLoop &l : plan.loops) {
    if (untimed.contains(l.node)) {
      l.timed = false;
    }
  }
}

} // namespace

Instrumentation instrument(const BuildOptions &options, const std::string &directory,
                           const std::set<std::string> &without) {
  BuildOptions with_tokens = options;
  with_tokens.keep_tokens = true;
  std::unique_ptr<AnalysedSources> a = analyse_sources(with_tokens);
  EmittedModel emitted = emit_model(*a);
  Instrumentation out;
  out.model = std::move(emitted.model);
  out.plan = std::move(emitted.plan);
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec) {
    throw Error(ErrorKind::Run, "cannot create " + directory + ": " + ec.message());
  }
  out.directory = fs::absolute(directory).string();
  std::set<std::string> names;
  std::set<std::uint32_t> unplaced;
  std::set<model::NodeId> constructs;
  HeaderMirror mirror(fs::path(out.directory) / "include");
  for (std::size_t u = 0; u < a->parsed.units.size(); ++u) {
    clang::ASTUnit &unit = *a->parsed.units[u];
    std::vector<const ProbeSite *> sites;
    for (const ProbeSite &site : a->probe_sites) {
      const FunctionInfo &fn = a->program.functions[a->program.nodes[site.node].function];
      if (fn.context == &unit.getASTContext()) {
        sites.push_back(&site);
      }
    }
    const clang::syntax::TokenBuffer *tokens =
        u < a->parsed.tokens.size() ? a->parsed.tokens[u].get() : nullptr;
    UnitRewriter rewriter(*a, unit, tokens, a->program.diagnostics);
    std::vector<ProbeLocation> locations;
    const std::string text = rewriter.run(sites, without, unplaced, locations);
    constructs.insert(rewriter.constructs().begin(), rewriter.constructs().end());
    const CompileCommand &cmd = a->parsed.commands[u];
    std::string name = fs::path(cmd.file).filename().string();
    if (!names.insert(name).second) {
      name.insert(0, "_").insert(0, std::to_string(u));
      names.insert(name);
    }
    const fs::path path = fs::path(out.directory) / name;
    write_file(path, text);
    for (ProbeLocation &l : locations) {
      if (!l.instrumented.empty()) { // in a header: line k of its mirror is line k + 1
        l.instrumented = mirror.copy(l.instrumented).string();
        l.instrumented_line = l.line + 1;
      } else {
        l.instrumented = path.string();
        l.instrumented_line = l.line + kHeaderLines + rewriter.declaration_lines();
      }
      out.locations.push_back(std::move(l));
    }
    for (auto &[header, pieces] : rewriter.header_pieces()) {
      mirror.edit(header, std::move(pieces));
    }
    const clang::SourceManager &sm = unit.getASTContext().getSourceManager();
    mirror.add_headers_of(sm);
    // The functions written in this file and its own headers, so a compiler error's line names
    // one.
    for (const FunctionInfo &fn : a->program.functions) {
      if (fn.context != &unit.getASTContext() || fn.decl == nullptr || !fn.decl->hasBody()) {
        continue;
      }
      const clang::SourceRange r = fn.decl->getSourceRange();
      const clang::SourceLocation b = sm.getExpansionLoc(r.getBegin());
      const clang::SourceLocation e = sm.getExpansionLoc(r.getEnd());
      if (sm.getFileID(b) != sm.getFileID(e)) {
        continue;
      }
      std::string file = cmd.file;
      if (sm.getFileID(b) != sm.getMainFileID()) {
        if (!SourceEdits::editable_header(sm, sm.getFileID(b))) {
          continue;
        }
        file = sm.getFileEntryForID(sm.getFileID(b))->tryGetRealPathName().str();
      }
      out.functions.push_back(
          {fn.name, file, sm.getSpellingLineNumber(b), sm.getSpellingLineNumber(e)});
    }
    InstrumentedSource src;
    src.original = cmd.file;
    src.instrumented = path.string();
    src.directory = cmd.directory;
    src.original_command = cmd.arguments;
    for (const auto &arg : cmd.arguments) {
      src.command.push_back(arg == cmd.file ? path.string() : arg);
    }
    mirror.redirect(src.command, cmd.directory);
    // Headers next to the original keep resolving (their mirrored copies first), and the
    // probes header is found.
    const fs::path own = fs::weakly_canonical(fs::path(cmd.directory) / cmd.file).parent_path();
    src.command.insert(src.command.begin() + 1, {"-iquote", mirror.directory_of(own).string(),
                                                 "-iquote", own.string(), "-I", out.directory});
    out.sources.push_back(std::move(src));
  }
  for (HeaderCopy &h : mirror.write()) {
    out.headers.push_back(std::move(h));
  }
  drop_unplaced(out.plan, unplaced);
  for (PlannedLoop &l : out.plan.loops) {
    l.by_construct = l.by_iterations && constructs.contains(l.node);
  }
  write_file(fs::path(out.directory) / "parjava_probes.h", probe_runtime_header());
  out.runtime_source = (fs::path(out.directory) / "parjava_probes.c").string();
  write_file(out.runtime_source, probe_runtime_source());
  out.diagnostics = a->program.diagnostics;
  return out;
}

} // namespace parjava::frontend
