// Source-to-source instrumentation with clang::Rewriter (the clang-tools-extra way): probes are
// inserted as text at statement boundaries of the user's code, so the estimation code is the
// user's program compiled by the user's compiler with the user's flags (seed 000 notes §3.7.1:
// times measured in context, during a real run, with the production optimisation level).
#include "parjava/frontend/instrument.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <clang/AST/ASTContext.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/StmtOpenMP.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include "model_emitter.hpp"
#include "parjava/error.hpp"
#include "probe_runtime.hpp"
#include "source_analysis.hpp"
#include "variables.hpp"

namespace parjava::frontend {

namespace fs = std::filesystem;

namespace {

class ReturnCollector : public clang::RecursiveASTVisitor<ReturnCollector> {
public:
  bool TraverseLambdaExpr(clang::LambdaExpr *) { return true; }
  bool VisitReturnStmt(clang::ReturnStmt *r) {
    returns.push_back(r);
    return true;
  }
  std::vector<const clang::ReturnStmt *> returns;
};

class UnitRewriter {
public:
  UnitRewriter(AnalysedSources &a, clang::ASTUnit &unit, std::vector<Diagnostic> &diagnostics)
      : a_(a), ctx_(unit.getASTContext()), sm_(ctx_.getSourceManager()),
        rw_(sm_, ctx_.getLangOpts()), diagnostics_(diagnostics) {}

  // Returns the rewritten main file.
  std::string run(const std::vector<const ProbeSite *> &sites) {
    // Group the sites by node, outer nodes first (the planner adds them in pre-order).
    std::vector<StructIndex> order;
    std::map<StructIndex, std::vector<const ProbeSite *>> by_node;
    for (const ProbeSite *s : sites) {
      if (!by_node.contains(s->node)) {
        order.push_back(s->node);
      }
      by_node[s->node].push_back(s);
    }
    for (StructIndex n : order) {
      const StructNode &node = a_.program.nodes[n];
      try {
        place(node, by_node[n]);
      } catch (const Skip &skip) {
        note(node, skip.why);
      }
    }
    const clang::FileID main = sm_.getMainFileID();
    std::string text;
    if (const clang::RewriteBuffer *buffer = rw_.getRewriteBufferFor(main)) {
      text.assign(buffer->begin(), buffer->end());
    } else {
      text = std::string(sm_.getBufferData(main));
    }
    const std::string original = sm_.getFileEntryForID(main)->tryGetRealPathName().str();
    return "#include \"parjava_probes.h\"\n#line 1 \"" + original + "\"\n" + text;
  }

private:
  struct Skip {
    std::string why;
  };

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

  clang::SourceLocation file_loc(clang::SourceLocation loc, bool end) {
    if (loc.isInvalid()) {
      throw Skip{"no source location"};
    }
    if (loc.isMacroID()) {
      const clang::CharSourceRange r = sm_.getExpansionRange(loc);
      loc = end ? r.getEnd() : r.getBegin();
    }
    if (!sm_.isWrittenInMainFile(loc)) {
      throw Skip{"the code is in a header or macro, not in the source file"};
    }
    return loc;
  }

  // The location just after a statement, including its ';'.
  clang::SourceLocation after(const clang::Stmt *s) {
    if (const auto *c = llvm::dyn_cast<clang::CompoundStmt>(s)) {
      return clang::Lexer::getLocForEndOfToken(file_loc(c->getRBracLoc(), true), 0, sm_,
                                               ctx_.getLangOpts());
    }
    if (const auto *i = llvm::dyn_cast<clang::IfStmt>(s)) {
      return after(i->getElse() ? i->getElse() : i->getThen());
    }
    if (const auto *f = llvm::dyn_cast<clang::ForStmt>(s)) {
      return after(f->getBody());
    }
    if (const auto *w = llvm::dyn_cast<clang::WhileStmt>(s)) {
      return after(w->getBody());
    }
    if (const auto *r = llvm::dyn_cast<clang::CXXForRangeStmt>(s)) {
      return after(r->getBody());
    }
    if (const auto *sw = llvm::dyn_cast<clang::SwitchStmt>(s)) {
      return after(sw->getBody());
    }
    if (const auto *l = llvm::dyn_cast<clang::LabelStmt>(s)) {
      return after(l->getSubStmt());
    }
    if (const auto *c = llvm::dyn_cast<clang::SwitchCase>(s)) {
      return after(c->getSubStmt());
    }
    const clang::SourceLocation last = file_loc(s->getEndLoc(), true);
    clang::SourceLocation end = clang::Lexer::getLocForEndOfToken(last, 0, sm_, ctx_.getLangOpts());
    clang::Token tok;
    if (!clang::Lexer::getRawToken(last, tok, sm_, ctx_.getLangOpts()) &&
        tok.is(clang::tok::semi)) {
      return end;
    }
    const std::optional<clang::Token> next =
        clang::Lexer::findNextToken(last, sm_, ctx_.getLangOpts());
    if (next && next->is(clang::tok::semi)) {
      return next->getEndLoc();
    }
    return end;
  }

  const clang::Stmt *parent_of(const clang::Stmt *s) {
    const auto parents = ctx_.getParents(*s);
    if (parents.empty()) {
      return nullptr;
    }
    return parents[0].get<clang::Stmt>();
  }

  bool in_openmp_directive(const clang::Stmt *s) {
    const clang::Stmt *parent = parent_of(s);
    return parent != nullptr && (llvm::isa<clang::CapturedStmt>(parent) ||
                                 llvm::isa<clang::OMPExecutableDirective>(parent));
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

  void insert_before(clang::SourceLocation loc, const std::string &text) {
    if (rw_.InsertText(loc, text, /*InsertAfter=*/true)) {
      throw Skip{"the location cannot be rewritten"};
    }
  }
  void insert_after(clang::SourceLocation loc, const std::string &text) {
    if (rw_.InsertText(loc, text, /*InsertAfter=*/false)) {
      throw Skip{"the location cannot be rewritten"};
    }
  }

  void place(const StructNode &node, const std::vector<const ProbeSite *> &sites) {
    std::map<ProbeKind, std::uint32_t> slot;
    const ProbeSite *value = nullptr;
    for (const ProbeSite *s : sites) {
      slot[static_cast<ProbeKind>(s->kind)] = s->slot;
      if (static_cast<ProbeKind>(s->kind) == ProbeKind::Value) {
        value = s;
      }
    }
    if (slot.contains(ProbeKind::Block)) {
      block(node, slot[ProbeKind::Block]);
    }
    if (node.omp_loop && slot.contains(ProbeKind::Iterations)) {
      openmp_loop(node, slot[ProbeKind::Iterations]);
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
    for (const ProbeSite *s : sites) {
      if (static_cast<ProbeKind>(s->kind) == ProbeKind::Value) {
        argument_value(node, *s);
      }
    }
    (void)value;
  }

  void block(const StructNode &node, std::uint32_t k) {
    const clang::Stmt *first = node.stmts.front();
    const clang::Stmt *last = node.stmts.back();
    const clang::SourceLocation begin = file_loc(first->getBeginLoc(), false);
    const clang::SourceLocation end = after(last);
    const std::string id = std::to_string(k);
    switch (place_of(first)) {
    case Place::InCompound:
      insert_before(begin, "PJ_BEGIN(" + id + ") ");
      insert_after(end, " PJ_END(" + id + ")");
      break;
    case Place::AfterLabel:
      insert_before(begin, "; PJ_BEGIN(" + id + ") ");
      insert_after(end, " PJ_END(" + id + ")");
      break;
    case Place::ControlBody:
      insert_before(begin, "{ PJ_BEGIN(" + id + ") ");
      insert_after(end, " PJ_END(" + id + ") }");
      break;
    }
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

  void loop(const StructNode &node, std::map<ProbeKind, std::uint32_t> &slot) {
    const clang::Stmt *loop = node.stmt;
    if (loop == nullptr) {
      throw Skip{"the loop has no statement"};
    }
    if (node.omp_chunk || in_openmp_directive(loop)) {
      throw Skip{"the loop belongs to an OpenMP directive, which must stay next to it"};
    }
    const std::string t = std::to_string(slot[ProbeKind::Trips]);
    const bool timed = slot.contains(ProbeKind::Fragment);
    const bool iterations = slot.contains(ProbeKind::Iterations);
    const std::string f = timed ? std::to_string(slot[ProbeKind::Fragment]) : "";
    const std::string i = iterations ? std::to_string(slot[ProbeKind::Iterations]) : "";
    const clang::SourceLocation begin = file_loc(loop->getBeginLoc(), false);
    const clang::SourceLocation end =
        llvm::isa<clang::DoStmt>(loop) ? after(loop) : after(body_of(loop));
    const clang::Stmt *body = body_of(loop);
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
    // Only an opaque trip count needs its distribution (and the cost of collecting it).
    tail += std::string(node.opaque ? " pj_trips(" : " pj_trips_sum(") + t + ", pj_n" + t + ");";
    if (timed) {
      tail += " PJ_END(" + f + ")";
    }
    tail += " }";
    // Check every location before changing anything.
    clang::SourceLocation body_top;
    clang::SourceLocation body_begin;
    clang::SourceLocation body_end;
    if (const auto *compound = llvm::dyn_cast<clang::CompoundStmt>(body)) {
      body_top = clang::Lexer::getLocForEndOfToken(file_loc(compound->getLBracLoc(), false), 0, sm_,
                                                   ctx_.getLangOpts());
    } else {
      body_begin = file_loc(body->getBeginLoc(), false);
      body_end = after(body);
    }
    insert_before(begin, head);
    if (body_top.isValid()) {
      insert_before(body_top, " " + top);
    } else {
      insert_before(body_begin, "{ " + top);
      insert_after(body_end, " }");
    }
    insert_after(end, tail);
    (void)node;
  }

  // An OpenMP loop stays next to its pragma: probes go inside its body and after it.
  void openmp_loop(const StructNode &node, std::uint32_t k) {
    const clang::Stmt *loop = node.stmt;
    if (loop == nullptr) {
      throw Skip{"the loop has no statement"};
    }
    const clang::Stmt *body = body_of(loop);
    const std::string top = "pj_iteration_tls(" + std::to_string(k) + "); ";
    const clang::SourceLocation end = after(body);
    if (const auto *compound = llvm::dyn_cast<clang::CompoundStmt>(body)) {
      insert_before(clang::Lexer::getLocForEndOfToken(file_loc(compound->getLBracLoc(), false), 0,
                                                      sm_, ctx_.getLangOpts()),
                    " " + top);
    } else {
      insert_before(file_loc(body->getBeginLoc(), false), "{ " + top);
      insert_after(end, " }");
    }
    insert_after(end, " pj_generation_bump();");
  }

  void branch(const StructNode &node, std::uint32_t k) {
    const auto *ifs = llvm::dyn_cast_or_null<clang::IfStmt>(node.stmt);
    if (ifs == nullptr || ifs->getConditionVariable() != nullptr || ifs->isConstexpr()) {
      throw Skip{"the condition declares a variable"};
    }
    const clang::Expr *cond = ifs->getCond();
    const clang::CharSourceRange r = sm_.getExpansionRange(cond->getSourceRange());
    const clang::SourceLocation b = file_loc(r.getBegin(), false);
    const clang::SourceLocation e =
        clang::Lexer::getLocForEndOfToken(file_loc(r.getEnd(), true), 0, sm_, ctx_.getLangOpts());
    insert_before(b, "pj_branch(" + std::to_string(k) + ", !!(");
    insert_after(e, "))");
  }

  void selector(const StructNode &node, std::uint32_t k) {
    const auto *sw = llvm::dyn_cast_or_null<clang::SwitchStmt>(node.stmt);
    if (sw == nullptr || sw->getConditionVariable() != nullptr ||
        sw->getCond()->HasSideEffects(ctx_)) {
      throw Skip{"the selector has side effects"};
    }
    const clang::Expr *cond = sw->getCond();
    const std::string text = source_text(cond, ctx_, 100000);
    const clang::CharSourceRange r = sm_.getExpansionRange(cond->getSourceRange());
    const clang::SourceLocation b = file_loc(r.getBegin(), false);
    const clang::SourceLocation e =
        clang::Lexer::getLocForEndOfToken(file_loc(r.getEnd(), true), 0, sm_, ctx_.getLangOpts());
    insert_before(b, "(pj_switch(" + std::to_string(k) + ", (long)(");
    insert_after(e, ")), " + text + ")");
  }

  void argument_value(const StructNode &node, const ProbeSite &site) {
    const clang::Expr *expr = site.value;
    if (expr == nullptr || expr->HasSideEffects(ctx_)) {
      throw Skip{"the argument has side effects"};
    }
    const std::string text = source_text(expr, ctx_, 100000);
    const clang::CharSourceRange r = sm_.getExpansionRange(expr->getSourceRange());
    const clang::SourceLocation b = file_loc(r.getBegin(), false);
    const clang::SourceLocation e =
        clang::Lexer::getLocForEndOfToken(file_loc(r.getEnd(), true), 0, sm_, ctx_.getLangOpts());
    insert_before(b, "(pj_value(" + std::to_string(site.slot) + ", (double)(");
    insert_after(e, ")), " + text + ")");
    (void)node;
  }

  void function(const StructNode &node, std::uint32_t k) {
    const auto *body = llvm::dyn_cast_or_null<clang::CompoundStmt>(node.stmts.front());
    if (body == nullptr) {
      throw Skip{"the function body is not a block"};
    }
    const std::string id = std::to_string(k);
    const clang::SourceLocation top = clang::Lexer::getLocForEndOfToken(
        file_loc(body->getLBracLoc(), false), 0, sm_, ctx_.getLangOpts());
    const clang::SourceLocation bottom = file_loc(body->getRBracLoc(), true);
    ReturnCollector returns;
    returns.TraverseStmt(const_cast<clang::CompoundStmt *>(body));
    insert_before(top, " PJ_BEGIN(" + id + ")");
    for (const clang::ReturnStmt *r : returns.returns) {
      insert_before(file_loc(r->getBeginLoc(), false), "{ PJ_END(" + id + ") ");
      insert_after(after(r), " }");
    }
    insert_after(bottom, "PJ_END(" + id + ") ");
  }

  AnalysedSources &a_;
  clang::ASTContext &ctx_;
  clang::SourceManager &sm_;
  clang::Rewriter rw_;
  std::vector<Diagnostic> &diagnostics_;
};

void write_file(const fs::path &path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    throw Error(ErrorKind::Run, "cannot write " + path.string());
  }
}

} // namespace

Instrumentation instrument(const BuildOptions &options, const std::string &directory) {
  std::unique_ptr<AnalysedSources> a = analyse_sources(options);
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
  for (std::size_t u = 0; u < a->parsed.units.size(); ++u) {
    clang::ASTUnit &unit = *a->parsed.units[u];
    std::vector<const ProbeSite *> sites;
    for (const ProbeSite &site : a->probe_sites) {
      const FunctionInfo &fn = a->program.functions[a->program.nodes[site.node].function];
      if (fn.context == &unit.getASTContext()) {
        sites.push_back(&site);
      }
    }
    UnitRewriter rewriter(*a, unit, a->program.diagnostics);
    const std::string text = rewriter.run(sites);
    const CompileCommand &cmd = a->parsed.commands[u];
    std::string name = fs::path(cmd.file).filename().string();
    if (!names.insert(name).second) {
      name.insert(0, "_").insert(0, std::to_string(u));
      names.insert(name);
    }
    const fs::path path = fs::path(out.directory) / name;
    write_file(path, text);
    InstrumentedSource src;
    src.original = cmd.file;
    src.instrumented = path.string();
    src.directory = cmd.directory;
    for (const auto &arg : cmd.arguments) {
      src.command.push_back(arg == cmd.file ? path.string() : arg);
    }
    // Headers next to the original keep resolving, and the probes header is found.
    src.command.insert(src.command.begin() + 1,
                       {"-iquote", fs::path(cmd.file).parent_path().string(), "-I", out.directory});
    out.sources.push_back(std::move(src));
  }
  write_file(fs::path(out.directory) / "parjava_probes.h", probe_runtime_header());
  out.runtime_source = (fs::path(out.directory) / "parjava_probes.c").string();
  write_file(out.runtime_source, probe_runtime_source());
  out.diagnostics = a->program.diagnostics;
  return out;
}

} // namespace parjava::frontend
