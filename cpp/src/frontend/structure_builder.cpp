// build_structure() (structure_builder.hpp): the walk over one function body
// (structure_walk.hpp) -- its nodes and sequences, statements dispatched by kind, forward gotos
// as breaks, plain statements as blocks -- and the reduced block of a function a control tree
// cannot express. Statements, calls, MPI, threads and OpenMP have files of their own
// (structure_statements.cpp, structure_calls.cpp, structure_mpi.cpp, structure_threads.cpp,
// structure_openmp.cpp).
#include "structure_builder.hpp"

#include "record_copies.hpp"

#include <set>

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include "sized_calls.hpp"
#include "structure_walk.hpp"

namespace parjava::frontend {

namespace {

class JumpScanner : public clang::RecursiveASTVisitor<JumpScanner> {
public:
  bool TraverseLambdaExpr(clang::LambdaExpr *) { return true; }
  // Forward gotos may become breaks (forward_gotos.hpp): collected, judged by the plan.
  bool VisitGotoStmt(clang::GotoStmt *s) {
    gotos.push_back(s);
    return true;
  }
  bool VisitIndirectGotoStmt(clang::IndirectGotoStmt *s) {
    record("computed goto", s->getGotoLoc());
    return true;
  }
  bool VisitCallExpr(clang::CallExpr *call) {
    if (const clang::FunctionDecl *fn = call->getDirectCallee()) {
      const std::string name = fn->getNameAsString();
      if (name == "setjmp" || name == "_setjmp" || name == "sigsetjmp" || name == "longjmp" ||
          name == "_longjmp" || name == "siglongjmp") {
        record(name + "()", call->getBeginLoc());
      }
    }
    return true;
  }
  std::string reason;
  clang::SourceLocation where;
  std::vector<const clang::GotoStmt *> gotos;

private:
  void record(const std::string &what, clang::SourceLocation loc) {
    if (reason.empty()) {
      reason = what;
      where = loc;
    }
  }
};

class MpiCallLister : public clang::RecursiveASTVisitor<MpiCallLister> {
public:
  explicit MpiCallLister(const clang::SourceManager &sm) : sm_(sm) {}
  bool VisitCallExpr(clang::CallExpr *call) {
    if (const clang::FunctionDecl *fn = call->getDirectCallee()) {
      const std::string name = fn->getNameAsString();
      const MpiFunction *mpi = find_mpi_function(name);
      if (mpi != nullptr && mpi->role == MpiRole::Communication) {
        const auto ploc = sm_.getPresumedLoc(sm_.getExpansionLoc(call->getBeginLoc()));
        if (!text.empty()) {
          text += ", ";
        }
        text += name + (ploc.isValid() ? " at line " + std::to_string(ploc.getLine()) : "");
      }
    }
    return true;
  }
  std::string text;

private:
  const clang::SourceManager &sm_;
};

} // namespace

const clang::Expr *strip_value(const clang::Expr *e) {
  if (e == nullptr) {
    return nullptr;
  }
  e = e->IgnoreImplicit();
  if (const auto *cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(e)) {
    e = cleanups->getSubExpr()->IgnoreImplicit();
  }
  e = e->IgnoreParens();
  if (const auto *cast = llvm::dyn_cast<clang::CStyleCastExpr>(e)) {
    if (cast->getType()->isVoidType()) {
      return strip_value(cast->getSubExpr());
    }
  }
  return e->IgnoreParenImpCasts();
}

// The value a statement computes (`f(x)` of `f(x);`, `y = f(x);` and `T y = f(x);`), or null.
static const clang::Expr *statement_value(const clang::Stmt *s) {
  const clang::Expr *e = nullptr;
  if (const auto *decl = llvm::dyn_cast<clang::DeclStmt>(s)) {
    if (decl->isSingleDecl()) {
      if (const auto *var = llvm::dyn_cast<clang::VarDecl>(decl->getSingleDecl())) {
        e = var->getInit();
      }
    }
  } else if (const auto *expr = llvm::dyn_cast<clang::Expr>(s)) {
    e = expr;
  }
  e = strip_value(e);
  if (e == nullptr) {
    return nullptr;
  }
  if (const auto *assign = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    if (assign->getOpcode() == clang::BO_Assign) {
      e = strip_value(assign->getRHS());
    }
  }
  return e;
}

const clang::Expr *top_call(const clang::Stmt *s) {
  const clang::Expr *e = statement_value(s);
  if (e != nullptr && (llvm::isa<clang::CallExpr>(e) || llvm::isa<clang::CXXConstructExpr>(e))) {
    return e;
  }
  return nullptr;
}

// An allocation or copy whose result the statement converts (`p = (double *)malloc(n)` in C,
// `static_cast<T *>(std::malloc(n))` in C++) is still a call priced by its size; it went into
// the surrounding block, unpriced. Other calls under a cast stay there.
static const clang::Expr *sized_call_under_cast(const clang::Stmt *s) {
  const clang::Expr *e = statement_value(s);
  bool cast = false;
  while (const auto *c = llvm::dyn_cast_or_null<clang::ExplicitCastExpr>(e)) {
    e = strip_value(c->getSubExpr());
    cast = true;
  }
  SizedCall sized;
  return cast && e != nullptr && llvm::isa<clang::CallExpr>(e) && sized_call(e, sized) ? e
                                                                                       : nullptr;
}

bool contains_call(const clang::Stmt *s) {
  if (s == nullptr) {
    return false;
  }
  if (llvm::isa<clang::CallExpr>(s)) {
    return true;
  }
  for (const clang::Stmt *child : s->children()) {
    if (contains_call(child)) {
      return true;
    }
  }
  return false;
}

const clang::Stmt *single_statement(const clang::Stmt *body) {
  if (const auto *compound = llvm::dyn_cast_or_null<clang::CompoundStmt>(body)) {
    return compound->size() == 1 ? compound->body_front() : nullptr;
  }
  return body;
}

void StructureWalk::build() {
  FunctionInfo &fn = program_.functions[function_];
  const clang::Stmt *body = fn.decl->getBody();
  // Parameters are variables of the function even if the body never reads them.
  for (const clang::ParmVarDecl *p : fn.decl->parameters()) {
    fn.params.push_back(vars_.declare(p));
  }
  JumpScanner scanner;
  scanner.TraverseStmt(const_cast<clang::Stmt *>(body));
  if (!scanner.reason.empty()) {
    make_reduced(scanner.reason, scanner.where);
    return;
  }
  gotos_ = plan_gotos(context_, body, scanner.gotos);
  if (!gotos_.unstructured.empty()) {
    make_reduced(gotos_.unstructured, gotos_.where);
    return;
  }
  const std::size_t first_node = program_.nodes.size();
  const std::size_t first_diag = program_.diagnostics.size();
  try {
    Seq seq = open_sequence(body);
    // By-value struct parameters the model follows: their fields from the calls' cells.
    add_effects(seq, parameter_entry_effects(function_, vars_), fn.decl->getSourceRange());
    if (const auto *ctor = llvm::dyn_cast<clang::CXXConstructorDecl>(fn.decl)) {
      constructor_initialisers(seq, ctor);
    }
    append(seq, body);
    program_.functions[function_].body = close_sequence(seq);
  } catch (const UnstructuredFlow &u) {
    program_.nodes.resize(first_node);
    program_.diagnostics.resize(first_diag);
    make_reduced(u.reason, u.where);
  }
}

void StructureWalk::diag(DiagnosticKind kind, Severity severity, clang::SourceLocation loc,
                         const std::string &message) {
  Diagnostic d;
  d.kind = kind;
  d.severity = severity;
  d.function = program_.functions[function_].name;
  d.message = message;
  const auto ploc = sm_.getPresumedLoc(sm_.getExpansionLoc(loc));
  if (ploc.isValid()) {
    d.file = program_.source_file(context_, ploc.getFilename());
    d.line = ploc.getLine();
    d.column = ploc.getColumn();
  }
  program_.diagnostics.push_back(std::move(d));
}

StructNode StructureWalk::make(StructKind kind, clang::SourceRange range) {
  StructNode n;
  n.kind = kind;
  n.function = function_;
  n.range = range;
  return n;
}

void StructureWalk::make_reduced(const std::string &reason, clang::SourceLocation where) {
  FunctionInfo &fn = program_.functions[function_];
  fn.unstructured = true;
  fn.unstructured_reason = reason;
  fn.unstructured_at = where;
  const clang::Stmt *body = fn.decl->getBody();
  StructNode n = make(StructKind::Reduced, body->getSourceRange());
  n.label = fn.name + " (unstructured)";
  n.reduced_reason = reason;
  n.stmts = {body};
  fn.body = program_.add(std::move(n));
  diag(DiagnosticKind::Unstructured, Severity::Warning, where,
       "function '" + fn.name + "' uses " + reason +
           ", which a control tree cannot express; its body is one reduced block whose time "
           "the estimation run measures");
  MpiCallLister lister(sm_);
  lister.TraverseStmt(const_cast<clang::Stmt *>(body));
  if (!lister.text.empty()) {
    diag(DiagnosticKind::Unstructured, Severity::Error, where,
         "the MPI calls in '" + fn.name + "' (" + lister.text +
             ") are inside the reduced block and are not modelled as communication; "
             "restructure the jumps to model them");
  }
}

StructureWalk::Seq StructureWalk::open_sequence(const clang::Stmt *s) {
  Seq seq;
  seq.node =
      program_.add(make(StructKind::Sequence, s ? s->getSourceRange() : clang::SourceRange()));
  return seq;
}

StructIndex StructureWalk::close_sequence(Seq &seq) {
  flush(seq);
  return seq.node;
}

void StructureWalk::add_child(Seq &seq, StructIndex child) {
  flush(seq);
  program_.nodes[seq.node].children.push_back(child);
}

void StructureWalk::flush(Seq &seq) {
  if (!seq.has_pending) {
    return;
  }
  StructNode block = std::move(seq.pending);
  seq.pending = StructNode();
  seq.has_pending = false;
  if (!block.stmts.empty()) {
    block.range =
        clang::SourceRange(block.stmts.front()->getBeginLoc(), block.stmts.back()->getEndLoc());
    block.label = source_text(block.stmts.front(), context_, 40);
    if (block.stmts.size() > 1) {
      block.label += " (" + std::to_string(block.stmts.size()) + " statements)";
    }
  }
  const StructIndex idx = program_.add(std::move(block));
  program_.nodes[seq.node].children.push_back(idx);
}

void StructureWalk::add_to_block(Seq &seq, const clang::Stmt *s, std::vector<Effect> effects) {
  if (!seq.has_pending) {
    seq.pending = make(StructKind::Block, s->getSourceRange());
    seq.has_pending = true;
  }
  seq.pending.stmts.push_back(s);
  for (auto &e : effects) {
    seq.pending.effects.push_back(std::move(e));
  }
}

// Effects that no statement carries (a residue after call leaves): an unmeasured block.
void StructureWalk::add_effects(Seq &seq, std::vector<Effect> effects, clang::SourceRange range) {
  if (effects.empty()) {
    return;
  }
  flush(seq);
  StructNode n = make(StructKind::Block, range);
  n.effects = std::move(effects);
  n.label = "assignments";
  add_child(seq, program_.add(std::move(n)));
}

// The statement at whose end each program input of `effects` holds its value (the estimation
// code reads it there).
std::vector<Effect> StructureWalk::tagged(std::vector<Effect> effects,
                                          const clang::Stmt *statement) {
  for (const Effect &e : effects) {
    if (e.kind == Effect::Kind::Input && program_.inputs[e.input].statement == nullptr) {
      program_.inputs[e.input].statement = statement;
    }
  }
  return effects;
}

void StructureWalk::append(Seq &seq, const clang::Stmt *s) {
  if (s == nullptr) {
    return;
  }
  if (const auto *compound = llvm::dyn_cast<clang::CompoundStmt>(s)) {
    const std::size_t locks = seq.scoped_locks.size();
    append_compound(seq, compound);
    while (seq.scoped_locks.size() > locks) {
      emit_lock_op(seq, "unlock", seq.scoped_locks.back(), compound->getRBracLoc());
      seq.scoped_locks.pop_back();
    }
    return;
  }
  if (const auto *label = llvm::dyn_cast<clang::LabelStmt>(s)) {
    append(seq, label->getSubStmt());
    return;
  }
  if (const auto *attributed = llvm::dyn_cast<clang::AttributedStmt>(s)) {
    append(seq, attributed->getSubStmt());
    return;
  }
  if (llvm::isa<clang::NullStmt>(s)) {
    return;
  }
  if (const auto *ifs = llvm::dyn_cast<clang::IfStmt>(s)) {
    append_if(seq, ifs);
  } else if (const auto *fors = llvm::dyn_cast<clang::ForStmt>(s)) {
    append_for(seq, fors);
  } else if (const auto *whiles = llvm::dyn_cast<clang::WhileStmt>(s)) {
    append_while(seq, whiles);
  } else if (const auto *dos = llvm::dyn_cast<clang::DoStmt>(s)) {
    append_do(seq, dos);
  } else if (const auto *sw = llvm::dyn_cast<clang::SwitchStmt>(s)) {
    append_switch(seq, sw);
  } else if (const auto *brk = llvm::dyn_cast<clang::BreakStmt>(s)) {
    append_jump(seq, StructKind::Break, brk->getSourceRange());
  } else if (const auto *cont = llvm::dyn_cast<clang::ContinueStmt>(s)) {
    append_jump(seq, StructKind::Continue, cont->getSourceRange());
  } else if (const auto *ret = llvm::dyn_cast<clang::ReturnStmt>(s)) {
    append_return(seq, ret);
  } else if (const auto *range = llvm::dyn_cast<clang::CXXForRangeStmt>(s)) {
    append_range_for(seq, range);
  } else if (const auto *tryst = llvm::dyn_cast<clang::CXXTryStmt>(s)) {
    diag(DiagnosticKind::Unsupported, Severity::Note, tryst->getTryLoc(),
         "exception handlers are not modelled: the try block is modelled as if nothing "
         "throws");
    append(seq, tryst->getTryBlock());
  } else if (const auto *omp = llvm::dyn_cast<clang::OMPExecutableDirective>(s)) {
    append_openmp(seq, omp);
  } else if (llvm::isa<clang::SwitchCase>(s)) {
    throw UnstructuredFlow{"a case label inside a nested statement", s->getBeginLoc()};
  } else if (const auto *jump = llvm::dyn_cast<clang::GotoStmt>(s)) {
    append_goto(seq, jump);
  } else if (llvm::isa<clang::IndirectGotoStmt>(s)) {
    throw UnstructuredFlow{"computed goto", s->getBeginLoc()};
  } else {
    append_simple(seq, s);
  }
}

void StructureWalk::append_compound(Seq &seq, const clang::CompoundStmt *compound) {
  const auto children =
      std::vector<const clang::Stmt *>(compound->body_begin(), compound->body_end());
  const auto blocks = gotos_.blocks.find(compound);
  append_range(seq, children, 0, children.size(),
               blocks == gotos_.blocks.end() ? nullptr : &blocks->second);
}

// Statements [lo, hi) of a compound; a run its forward gotos leave becomes a sequence of its
// own, which they leave by a break (forward_gotos.hpp).
void StructureWalk::append_range(Seq &seq, const std::vector<const clang::Stmt *> &children,
                                 std::size_t lo, std::size_t hi,
                                 const std::vector<GotoBlock> *blocks) {
  for (std::size_t i = lo; i < hi;) {
    const GotoBlock *outer = nullptr;
    if (blocks != nullptr) {
      for (const GotoBlock &b : *blocks) {
        const bool inside = b.begin == i && b.end <= hi && !(b.begin == lo && b.end == hi);
        if (inside && (outer == nullptr || b.end > outer->end)) {
          outer = &b;
        }
      }
    }
    if (outer != nullptr) {
      flush(seq);
      Seq inner = open_sequence(children[i]);
      program_.nodes[inner.node].range =
          clang::SourceRange(children[i]->getBeginLoc(), children[outer->end - 1]->getEndLoc());
      for (const clang::LabelDecl *label : outer->labels) {
        goto_targets_[label] = inner.node;
      }
      append_range(inner, children, i, outer->end, blocks);
      add_child(seq, close_sequence(inner));
      i = outer->end;
      continue;
    }
    const std::vector<const clang::Stmt *> rest(children.begin() + static_cast<std::ptrdiff_t>(i),
                                                children.begin() + static_cast<std::ptrdiff_t>(hi));
    if (const std::size_t consumed = try_thread_group(seq, rest, 0)) {
      i += consumed;
      continue;
    }
    append(seq, children[i]);
    ++i;
  }
}

void StructureWalk::append_goto(Seq &seq, const clang::GotoStmt *jump) {
  const auto target = goto_targets_.find(jump->getLabel());
  if (target == goto_targets_.end()) {
    throw UnstructuredFlow{"goto " + jump->getLabel()->getNameAsString(), jump->getGotoLoc()};
  }
  flush(seq);
  StructNode n = make(StructKind::Break, jump->getSourceRange());
  n.target = target->second;
  n.label = "goto " + jump->getLabel()->getNameAsString();
  add_child(seq, program_.add(std::move(n)));
}

void StructureWalk::append_simple(Seq &seq, const clang::Stmt *s) {
  if (append_comm_assign(seq, s)) {
    return;
  }
  const std::vector<ClassifiedCall> leaves = leaf_calls(s);
  if (leaves.empty()) {
    const clang::Expr *call = top_call(s);
    if (call == nullptr) {
      call = sized_call_under_cast(s);
    }
    if (call != nullptr) {
      const ClassifiedCall c = calls_.classify(call, context_);
      const bool external =
          c.kind == CallClass::External || c.kind == CallClass::Indirect ||
          c.kind == CallClass::ThreadCreate || c.kind == CallClass::ThreadJoin ||
          (c.kind == CallClass::Mpi &&
           (c.mpi == nullptr || c.mpi->role == MpiRole::Init || c.mpi->role == MpiRole::Finalize ||
            c.mpi->role == MpiRole::Local || c.mpi->role == MpiRole::Wtime));
      if (external) {
        append_external(seq, s, c);
        return;
      }
    }
    add_to_block(seq, s, tagged(statement_effects(s, vars_, calls_), s));
    return;
  }
  flush(seq);
  std::set<const clang::Expr *> skip;
  for (const auto &c : leaves) {
    skip.insert(c.expr);
  }
  emit_leaves(seq, leaves, s);
  add_effects(seq, tagged(statement_effects(s, vars_, calls_, &skip), s), s->getSourceRange());
}

void build_structure(Program &program, const CallClassifier &calls, FunctionId function) {
  StructureWalk(program, calls, function).build();
}

} // namespace parjava::frontend
