// The probes of loops (see unit_rewriter.hpp): trip counters, timed fragments and iterations, a
// loop left by return, OpenMP work-sharing loops timed whole or per iteration.
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
#include <clang/Basic/OpenMPKinds.h>
#include <clang/Basic/SourceManager.h>

#include "model_emitter.hpp"
#include "openmp_count.hpp"
#include "variables.hpp"

namespace parjava::frontend {

// The loop directive a loop belongs to: its parents are the directive's captured statements
// and declarations (one of each per construct a combined directive names).
const clang::OMPLoopDirective *UnitRewriter::directive_of(const clang::Stmt *loop) {
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

bool UnitRewriter::in_openmp_directive(const clang::Stmt *s) {
  const clang::Stmt *parent = parent_of(s);
  return parent != nullptr && (llvm::isa<clang::CapturedStmt>(parent) ||
                               llvm::isa<clang::OMPExecutableDirective>(parent));
}

const clang::Stmt *UnitRewriter::body_of(const clang::Stmt *loop) {
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
void UnitRewriter::open_body(const clang::Stmt *body, const std::string &top) {
  if (const auto *compound = llvm::dyn_cast<clang::CompoundStmt>(body)) {
    open(after_token(compound->getLBracLoc()), " " + top);
  } else {
    open(before(body->getBeginLoc()), "{ " + top);
    close(end_of(body), " }");
  }
}

void UnitRewriter::loop(const StructNode &node, std::map<ProbeKind, std::uint32_t> &slot) {
  const clang::Stmt *loop = node.stmt;
  if (loop == nullptr) {
    throw Skip{"the loop has no statement"};
  }
  // A `#pragma omp simd` loop (no work-sharing: UoB-HPC/flow's columns) in canonical form: its
  // count is computed after it from its bounds, which it leaves as they were, with nothing
  // added to its body (a store per iteration in a vector loop).
  const auto *fors = llvm::dyn_cast<clang::ForStmt>(loop);
  const clang::OMPLoopDirective *directive = fors != nullptr ? directive_of(fors) : nullptr;
  if (directive != nullptr && !node.omp_chunk &&
      !clang::isOpenMPWorksharingDirective(directive->getDirectiveKind()) &&
      !slot.contains(ProbeKind::Fragment) && !slot.contains(ProbeKind::Iterations)) {
    const auto count = canonical_count_text(fors, ctx_, [this](const clang::Expr *e) {
      return edits_.text(e->getBeginLoc(), e->getEndLoc());
    });
    if (!count) {
      throw Skip{"the loop belongs to an OpenMP directive and its count is not canonical"};
    }
    close(end_of(loop), std::string(node.opaque ? " pj_trips(" : " pj_trips_sum(") +
                            std::to_string(slot[ProbeKind::Trips]) + ", " + *count + ");");
    return;
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
    head += begin_probe(slot[ProbeKind::Fragment]) + " ";
  }
  head += "pj_u64 pj_n" + t + " = 0; ";
  if (iterations) {
    head += "pj_iter pj_i" + i + " = pj_iter_begin(" + i + "); ";
  }
  // A nest that calls functions timed for their other callers silences their probes while it
  // runs (after the declarations: C90), and any way out of it (its tail, before a return)
  // ends that.
  const bool quiets = timed && quiets_.contains(slot[ProbeKind::Fragment]);
  if (quiets) {
    head += "pj_quiet++; ";
  }
  std::string top = "pj_n" + t + "++; ";
  if (iterations) {
    top += "pj_iteration(" + i + ", &pj_i" + i + "); ";
  }
  std::string tail = quiets ? " pj_quiet--;" : "";
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
void UnitRewriter::openmp_loop(const StructNode &node, std::uint32_t k, std::uint32_t trips) {
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
bool UnitRewriter::openmp_construct(const StructNode &node, std::uint32_t k, std::uint32_t trips) {
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
  // The team the directive forks: its num_threads, evaluated where the directive evaluates it
  // (before the region), else the runtime's current team size (-1); 0 for an orphaned loop.
  std::string team = forks ? "-1" : "0";
  std::string team_decl;
  if (const auto *clause = directive->getSingleClause<clang::OMPNumThreadsClause>();
      forks && clause != nullptr && clause->getNumThreads() != nullptr) {
    const clang::Expr *e = clause->getNumThreads();
    team_decl = " long long pj_on" + t + " = (long long)(" +
                edits_.text(e->getBeginLoc(), e->getEndLoc()) + ");";
    team = "pj_on" + t;
  }
  open(before(at), "{ pj_u64 pj_oc" + t + " = " + *count + ";" + team_decl + " pj_u64 pj_ot" + t +
                       " = pj_now();\n#line " + std::to_string(line.getLine()) + " \"" + name +
                       "\"\n");
  close(end_of(loop),
        " pj_omp_construct(" + t + ", pj_ot" + t + ", pj_oc" + t + ", " + team + ");" +
            (trips != kNoTrips
                 ? " pj_omp_construct_trips(" + std::to_string(trips) + ", pj_oc" + t + ");"
                 : "") +
            " }");
  constructs_.insert(node.model_id);
  return true;
}

// Which branches end communicating loops (loop_exits.hpp), built on first use.
const LoopExits &UnitRewriter::loop_exits() {
  if (!loop_exits_) {
    loop_exits_.emplace(a_.program);
  }
  return *loop_exits_;
}

} // namespace parjava::frontend
