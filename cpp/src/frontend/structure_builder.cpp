#include "structure_builder.hpp"

#include <optional>
#include <set>

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/StmtOpenMP.h>
#include <clang/Basic/OpenMPKinds.h>
#include <clang/Basic/SourceManager.h>

#include "effects.hpp"
#include "forward_gotos.hpp"
#include "sized_calls.hpp"
#include "variables.hpp"

namespace parjava::frontend {

namespace {

// Thrown inside the walk when the function cannot be a control tree; caught per function.
struct UnstructuredFlow {
  std::string reason;
  clang::SourceLocation where;
};

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

// The call a statement consists of (`f(x);`, `y = f(x);`, `T y = f(x);`), or null.
const clang::Expr *top_call(const clang::Stmt *s) {
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
  if (e != nullptr && (llvm::isa<clang::CallExpr>(e) || llvm::isa<clang::CXXConstructExpr>(e))) {
    return e;
  }
  return nullptr;
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

class Builder {
public:
  Builder(Program &program, const CallClassifier &calls, FunctionId function)
      : program_(program), calls_(calls), function_(function),
        context_(*program.functions[function].context), sm_(context_.getSourceManager()),
        vars_(program, context_, function) {}

  void build() {
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

private:
  struct Seq {
    StructIndex node = kNoStruct;
    StructNode pending;
    bool has_pending = false;
    std::vector<const clang::Expr *> scoped_locks; // unlocked at the end of the compound
  };
  struct Frame {
    StructIndex node;
    bool is_loop;
    // Rotated loops (calls in the condition) repeat these before every continue.
    const clang::Expr *rotated_cond = nullptr;
    const clang::Stmt *rotated_update = nullptr;
  };

  // --- diagnostics and nodes -------------------------------------------------------------

  void diag(DiagnosticKind kind, Severity severity, clang::SourceLocation loc,
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

  StructNode make(StructKind kind, clang::SourceRange range) {
    StructNode n;
    n.kind = kind;
    n.function = function_;
    n.range = range;
    return n;
  }

  void make_reduced(const std::string &reason, clang::SourceLocation where) {
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

  Seq open_sequence(const clang::Stmt *s) {
    Seq seq;
    seq.node =
        program_.add(make(StructKind::Sequence, s ? s->getSourceRange() : clang::SourceRange()));
    return seq;
  }

  StructIndex close_sequence(Seq &seq) {
    flush(seq);
    return seq.node;
  }

  void add_child(Seq &seq, StructIndex child) {
    flush(seq);
    program_.nodes[seq.node].children.push_back(child);
  }

  void flush(Seq &seq) {
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

  void add_to_block(Seq &seq, const clang::Stmt *s, std::vector<Effect> effects) {
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
  void add_effects(Seq &seq, std::vector<Effect> effects, clang::SourceRange range) {
    if (effects.empty()) {
      return;
    }
    flush(seq);
    StructNode n = make(StructKind::Block, range);
    n.effects = std::move(effects);
    n.label = "assignments";
    add_child(seq, program_.add(std::move(n)));
  }

  // --- statements ------------------------------------------------------------------------

  void append(Seq &seq, const clang::Stmt *s) {
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

  void append_compound(Seq &seq, const clang::CompoundStmt *compound) {
    const auto children =
        std::vector<const clang::Stmt *>(compound->body_begin(), compound->body_end());
    const auto blocks = gotos_.blocks.find(compound);
    append_range(seq, children, 0, children.size(),
                 blocks == gotos_.blocks.end() ? nullptr : &blocks->second);
  }

  // Statements [lo, hi) of a compound; a run its forward gotos leave becomes a sequence of its
  // own, which they leave by a break (forward_gotos.hpp).
  void append_range(Seq &seq, const std::vector<const clang::Stmt *> &children, std::size_t lo,
                    std::size_t hi, const std::vector<GotoBlock> *blocks) {
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
                                                  children.begin() +
                                                      static_cast<std::ptrdiff_t>(hi));
      if (const std::size_t consumed = try_thread_group(seq, rest, 0)) {
        i += consumed;
        continue;
      }
      append(seq, children[i]);
      ++i;
    }
  }

  void append_goto(Seq &seq, const clang::GotoStmt *jump) {
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

  // Calls of `s` that must become leaves (MPI communication, user functions, thread
  // operations), in evaluation order.
  std::vector<ClassifiedCall> leaf_calls(const clang::Stmt *s) {
    std::vector<ClassifiedCall> out;
    for (const clang::Expr *call : calls_in(s)) {
      ClassifiedCall c = calls_.classify(call, context_);
      if (c.kind == CallClass::Indirect && reported_indirect_.insert(call).second) {
        if (c.targets.empty()) {
          diag(DiagnosticKind::Unsupported, Severity::Note, call->getBeginLoc(),
               "call through a function pointer: the model does not follow it (" +
                   indirect_reason(c) + "); its time is part of the surrounding block");
        } else {
          std::string names;
          for (const FunctionId t : c.targets) {
            names += (names.empty() ? "" : ", ") + program_.functions[t].name;
          }
          diag(DiagnosticKind::Approximation, Severity::Note, call->getBeginLoc(),
               "call through a function pointer: the model calls the function it holds among " +
                   names +
                   " (the functions of its type whose address the program takes); which one is "
                   "measured by the estimation run");
        }
      }
      const bool leaf = c.kind == CallClass::User ||
                        (c.kind == CallClass::Indirect && !c.targets.empty()) ||
                        c.kind == CallClass::ThreadOp || c.kind == CallClass::ScopedLock ||
                        (c.kind == CallClass::Mpi && c.mpi != nullptr &&
                         (c.mpi->role == MpiRole::Communication || c.mpi->role == MpiRole::Group ||
                          comm_query_output(c, vars_) != kNoVar));
      if (leaf) {
        out.push_back(std::move(c));
      }
    }
    return out;
  }

  // `MPI_Comm c = comms[k];` / `c = comms[k];`: a communicator variable that copies an element
  // of a communicator array is a communicator name of its own, set per rank by a comm_assign
  // leaf (the element differs between ranks and over time, so no static name fits).
  bool append_comm_copy(Seq &seq, const clang::Stmt *s) {
    const clang::ValueDecl *target = nullptr;
    const clang::Expr *source = nullptr;
    if (const auto *decl = llvm::dyn_cast<clang::DeclStmt>(s)) {
      const auto *var =
          decl->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(decl->getSingleDecl()) : nullptr;
      if (var != nullptr && var->hasInit()) {
        target = var;
        source = var->getInit();
      }
    } else if (const auto *e = llvm::dyn_cast<clang::Expr>(s)) {
      const auto *assign = llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParenImpCasts());
      if (assign != nullptr && assign->getOpcode() == clang::BO_Assign) {
        target = named_decl(assign->getLHS()->IgnoreParenImpCasts());
        source = assign->getRHS();
      }
    }
    if (target == nullptr || !comm_element(source).valid() || contains_call(source)) {
      return false;
    }
    const VarId var = vars_.declare(target);
    if (var == kNoVar || program_.variables[var].type != VarType::Comm) {
      return false;
    }
    flush(seq);
    StructNode n = make(StructKind::Communication, s->getSourceRange());
    n.operation = "comm_assign";
    n.callee_name = "the copy of " + source_text(source, context_, 40);
    n.label = "comm_assign";
    CommArg comm;
    comm.name = "comm";
    comm.expr = source;
    comm.is_name = true;
    vars_.uses(comm_element(source).index, comm.uses);
    CommArg newcomm;
    newcomm.name = "newcomm";
    newcomm.is_name = true;
    newcomm.var = var;
    n.uses = comm.uses;
    n.comm_args = {std::move(comm), std::move(newcomm)};
    Effect named;
    named.kind = Effect::Kind::Operation; // the variable names the leaf's newcomm
    named.var = var;
    named.location = s->getBeginLoc();
    n.effects.push_back(named);
    add_child(seq, program_.add(std::move(n)));
    return true;
  }

  // A call of a function with MPI_Comm parameters: each parameter is a communicator name of
  // its own (`<function>_<parameter>`), set by a comm_assign leaf before every call, so a
  // function called with a row communicator here and a column one there (PRK's RING_Bcast),
  // or with an element of a communicator array, uses the right one on every call.
  void emit_comm_parameters(Seq &seq, const ClassifiedCall &c,
                            const std::vector<const clang::Expr *> &args) {
    FunctionInfo &callee = program_.functions[c.user];
    // The callee's parameters from its declaration: a function defined after its caller has
    // no FunctionInfo::params yet (PRK DGEMM's RING_Bcast).
    VariableResolver callee_vars(program_, *callee.context, c.user);
    const auto params = callee.decl->parameters();
    for (std::size_t i = 0; i < params.size() && i < args.size(); ++i) {
      const VarId param = callee_vars.declare(params[i]);
      if (param == kNoVar || program_.variables[param].type != VarType::Comm ||
          args[i] == nullptr || contains_call(args[i])) {
        continue;
      }
      Variable &pv = program_.variables[param];
      if (pv.handle_name.empty()) {
        pv.handle_name = identifier_text(callee.name + "_" + pv.source_name);
      }
      if (c.user == function_) {
        diag(DiagnosticKind::Approximation, Severity::Warning, c.expr->getBeginLoc(),
             callee.name + "() calls itself with communicator parameter '" + pv.source_name +
                 "': the model keeps one such communicator per process, so after the inner call "
                 "returns, this activation uses the communicator the inner call was given");
      }
      StructNode n = make(StructKind::Communication, args[i]->getSourceRange());
      n.operation = "comm_assign";
      n.callee_name = "the communicator parameter '" + pv.source_name + "' of " + callee.name;
      n.label = "comm_assign";
      CommArg comm;
      comm.name = "comm";
      comm.expr = args[i];
      comm.is_name = true;
      if (const CommElement element = comm_element(args[i]); element.valid()) {
        vars_.uses(element.index, comm.uses);
      }
      CommArg newcomm;
      newcomm.name = "newcomm";
      newcomm.is_name = true;
      newcomm.text = pv.handle_name;
      n.uses = comm.uses;
      n.comm_args = {std::move(comm), std::move(newcomm)};
      flush(seq);
      add_child(seq, program_.add(std::move(n)));
    }
  }

  static std::string identifier_text(const std::string &text) {
    std::string out;
    for (char ch : text) {
      if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
        out += ch;
      } else if (!out.empty() && out.back() != '_') {
        out += '_';
      }
    }
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out.front()))) {
      out = "comm_" + out;
    }
    return out;
  }

  // MPI_Group_incl(group, n, ranks, &newgroup) and MPI_Group_range_incl(group, 1, ranges,
  // &newgroup): an MPI_Group_incl leaf whose member `peer` is ranks[peer] (a small array the
  // model keeps, one variable per element) or first + peer * stride. Anything else is a
  // comm_assign of the whole group, with a warning (approximate) that says why.
  bool append_group_incl(Seq &seq, const ClassifiedCall &c) {
    const bool range = c.name == "MPI_Group_range_incl" || c.name == "PMPI_Group_range_incl";
    if ((!range && c.name != "MPI_Group_incl" && c.name != "PMPI_Group_incl") ||
        c.args.size() != 4) {
      return false;
    }
    flush(seq);
    StructNode n = make(StructKind::Communication, c.expr->getSourceRange());
    n.call = c.expr;
    n.callee_name = c.name;
    n.label = c.name;
    CommArg base;
    base.name = "comm";
    base.expr = c.args[0];
    base.is_name = true;
    CommArg newgroup;
    newgroup.name = "newcomm";
    newgroup.expr = c.args[3];
    newgroup.is_name = true;
    program_.made_groups.insert(group_text(c.args[3]));
    std::string why;
    const auto target = vars_.pointer_target(c.args[2]);
    const Aggregate *agg = target && target->aggregate != kNoAggregate
                               ? &program_.aggregates[target->aggregate]
                               : nullptr;
    std::optional<std::int64_t> count;
    if (clang::Expr::EvalResult r;
        !c.args[1]->isValueDependent() && c.args[1]->EvaluateAsInt(r, context_)) {
      count = r.Val.getInt().getExtValue();
    }
    if (agg == nullptr) {
      why = "'" + source_text(c.args[2], context_, 40) +
            "' is not a small array the model keeps (one of at most 64 scalars, declared with "
            "its size)";
    } else if (range && (!count || *count != 1)) {
      why = "only one range (a constant count of 1) is followed";
    } else if (range && agg->elements.size() < target->offset + 3) {
      why = "the range array has fewer than 3 entries";
    }
    if (!why.empty()) {
      n.operation = "comm_assign";
      n.approximate = "the members of the group made by " + c.name + ": " + why +
                      "; the model uses the whole group '" + group_text(c.args[0]) + "'";
      diag(DiagnosticKind::Approximation, Severity::Warning, c.expr->getBeginLoc(), n.approximate);
      n.comm_args = {std::move(base), std::move(newgroup)};
      add_child(seq, program_.add(std::move(n)));
      return true;
    }
    n.operation = "MPI_Group_incl";
    CommArg members;
    members.name = "rank";
    members.is_name = false;
    members.text = range ? "range" : "list";
    for (std::uint64_t k = target->offset; k < agg->elements.size(); ++k) {
      members.elements.push_back(agg->elements[k]);
    }
    if (range) {
      members.elements.resize(3); // first, last, stride of ranges[0]
    }
    members.uses = members.elements;
    CommArg count_arg;
    count_arg.name = "count";
    if (range) {
      count_arg.text = "range";
      count_arg.elements = members.elements;
      count_arg.uses = members.elements;
    } else {
      count_arg.expr = c.args[1];
      vars_.uses(c.args[1], count_arg.uses);
    }
    n.uses = members.uses;
    n.uses.insert(n.uses.end(), count_arg.uses.begin(), count_arg.uses.end());
    n.comm_args = {std::move(base), std::move(count_arg), std::move(members), std::move(newgroup)};
    add_child(seq, program_.add(std::move(n)));
    return true;
  }

  std::string group_text(const clang::Expr *e) const {
    const clang::Expr *inner = e->IgnoreParenImpCasts();
    if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(inner)) {
      if (u->getOpcode() == clang::UO_AddrOf) {
        inner = u->getSubExpr()->IgnoreParenImpCasts();
      }
    }
    return source_text(inner, context_, 40);
  }

  // `comms[k] = comm;`: the element of a communicator array names another communicator, a
  // comm_assign leaf (no communication) so that the interpreter knows it per rank.
  bool append_comm_assign(Seq &seq, const clang::Stmt *s) {
    if (append_comm_copy(seq, s)) {
      return true;
    }
    const auto *e = llvm::dyn_cast<clang::Expr>(s);
    const auto *assign =
        e == nullptr ? nullptr : llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParenImpCasts());
    if (assign == nullptr || assign->getOpcode() != clang::BO_Assign) {
      return false;
    }
    const CommElement target = comm_element(assign->getLHS());
    if (!target.valid() || contains_call(assign->getRHS())) {
      return false; // a call on the right goes the usual way (its leaves, then the effects)
    }
    flush(seq);
    StructNode n = make(StructKind::Communication, s->getSourceRange());
    n.operation = "comm_assign";
    n.callee_name = "the assignment to " + source_text(assign->getLHS(), context_, 40);
    n.label = "comm_assign";
    CommArg comm;
    comm.name = "comm";
    comm.expr = assign->getRHS();
    comm.is_name = true;
    if (const CommElement source = comm_element(comm.expr); source.valid()) {
      vars_.uses(source.index, comm.uses);
    }
    n.comm_args.push_back(std::move(comm));
    CommArg newcomm;
    newcomm.name = "newcomm";
    newcomm.expr = assign->getLHS();
    newcomm.is_name = true;
    vars_.uses(target.index, newcomm.uses);
    n.comm_args.push_back(std::move(newcomm));
    for (const auto &a : n.comm_args) {
      n.uses.insert(n.uses.end(), a.uses.begin(), a.uses.end());
    }
    add_child(seq, program_.add(std::move(n)));
    return true;
  }

  void append_simple(Seq &seq, const clang::Stmt *s) {
    if (append_comm_assign(seq, s)) {
      return;
    }
    const std::vector<ClassifiedCall> leaves = leaf_calls(s);
    if (leaves.empty()) {
      const clang::Expr *call = top_call(s);
      if (call != nullptr) {
        const ClassifiedCall c = calls_.classify(call, context_);
        const bool external = c.kind == CallClass::External || c.kind == CallClass::Indirect ||
                              c.kind == CallClass::ThreadCreate ||
                              c.kind == CallClass::ThreadJoin ||
                              (c.kind == CallClass::Mpi &&
                               (c.mpi == nullptr || c.mpi->role == MpiRole::Init ||
                                c.mpi->role == MpiRole::Finalize || c.mpi->role == MpiRole::Local ||
                                c.mpi->role == MpiRole::Wtime));
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
      emit_call_leaf(seq, c, s);
      skip.insert(c.expr);
    }
    add_effects(seq, tagged(statement_effects(s, vars_, calls_, &skip), s), s->getSourceRange());
  }

  void append_external(Seq &seq, const clang::Stmt *s, const ClassifiedCall &c) {
    flush(seq);
    StructNode n = make(StructKind::ExternalCall, s->getSourceRange());
    n.stmts = {s};
    n.call = c.expr;
    n.callee_name = c.name;
    n.label = c.name;
    n.effects = tagged(statement_effects(s, vars_, calls_), s);
    // A call priced by its size (malloc, memcpy, ...): the size is a control use, so the
    // estimation can write the call's time as a function of it (issue 13 item 4).
    if (SizedCall sized; sized_call(c.expr, sized)) {
      for (const clang::Expr *e : sized.sizes) {
        vars_.uses(e, n.uses);
      }
    }
    if (c.kind == CallClass::Mpi) {
      if (c.mpi == nullptr) {
        diag(DiagnosticKind::Unsupported, Severity::Warning, s->getBeginLoc(),
             c.name + " is not an MPI call the model knows; it is an external call whose time "
                      "is measured (its communication is not modelled)");
      } else if (c.mpi->role == MpiRole::Init || c.mpi->role == MpiRole::Finalize) {
        n.zero_time = true;
      }
    } else if (c.kind == CallClass::ThreadCreate || c.kind == CallClass::ThreadJoin) {
      diag(DiagnosticKind::Unsupported, Severity::Warning, s->getBeginLoc(),
           c.name + " outside the create-loop / join-loop pattern is not modelled as a task "
                    "group; write the threads as `for (i...) create(...)` followed by "
                    "`for (i...) join(...)`");
    } else if (c.name == "exit" || c.name == "abort" || c.name == "_Exit") {
      diag(DiagnosticKind::Unsupported, Severity::Warning, s->getBeginLoc(),
           c.name + "() ends the process here; the model continues after it");
    }
    add_child(seq, program_.add(std::move(n)));
  }

  // The statement at whose end each program input of `effects` holds its value (the estimation
  // code reads it there).
  std::vector<Effect> tagged(std::vector<Effect> effects, const clang::Stmt *statement) {
    for (const Effect &e : effects) {
      if (e.kind == Effect::Kind::Input && program_.inputs[e.input].statement == nullptr) {
        program_.inputs[e.input].statement = statement;
      }
    }
    return effects;
  }

  void emit_lock_op(Seq &seq, const std::string &op, const clang::Expr *object,
                    clang::SourceLocation where) {
    StructNode n = make(StructKind::Communication, clang::SourceRange(where, where));
    n.operation = op;
    n.label = op;
    CommArg lock;
    lock.name = "lock";
    lock.is_name = true;
    lock.text = object ? lock_name(object) : std::string("lock");
    n.comm_args.push_back(lock);
    add_child(seq, program_.add(std::move(n)));
  }

  std::string lock_name(const clang::Expr *object) {
    std::string text = source_text(object->IgnoreParenImpCasts(), context_, 60);
    std::string out;
    for (char c : text) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
        out += c;
      } else if (!out.empty() && out.back() != '_') {
        out += '_';
      }
    }
    while (!out.empty() && out.back() == '_') {
      out.pop_back();
    }
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out.front()))) {
      out = "lock_" + out;
    }
    return out;
  }

  void emit_call_leaf(Seq &seq, const ClassifiedCall &c, const clang::Stmt *statement) {
    const clang::SourceRange range = c.expr->getSourceRange();
    switch (c.kind) {
    case CallClass::User: {
      // Pointer parameters that reach a caller's local through a cell: copy in before the call.
      add_effects(seq, copy_in_effects(c, vars_), range);
      StructNode n = make(StructKind::UserCall, range);
      n.call = c.expr;
      n.callee = c.user;
      n.callee_name = program_.functions[c.user].name;
      n.label = n.callee_name;
      std::vector<const clang::Expr *> args = c.args;
      if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(c.expr)) {
        if (llvm::isa<clang::CXXMethodDecl>(c.callee) && !args.empty()) {
          args.erase(args.begin()); // the object
        }
        (void)op;
      }
      emit_comm_parameters(seq, c, args);
      for (const clang::Expr *a : args) {
        n.args.push_back(a);
        std::vector<VarId> uses;
        vars_.uses(a, uses);
        n.arg_uses.push_back(std::move(uses));
      }
      // The returned value, if the statement uses it, is read from the callee's return slot.
      if (top_call(statement) != c.expr || !llvm::isa<clang::Expr>(statement) ||
          llvm::isa<clang::BinaryOperator>(strip_value(llvm::cast<clang::Expr>(statement)))) {
        const VarId slot = return_slot(c.user);
        if (slot != kNoVar) {
          program_.call_results[c.expr] = slot;
          n.result = slot;
        }
      }
      n.effects = tagged(call_effects(c, vars_), statement);
      program_.functions[function_].callees.push_back(c.user);
      add_child(seq, program_.add(std::move(n)));
      break;
    }
    case CallClass::ThreadOp: {
      StructNode n = make(StructKind::Communication, range);
      n.call = c.expr;
      n.operation = c.operation;
      n.callee_name = c.name;
      n.label = c.operation + (c.object ? " " + lock_name(c.object) : std::string());
      if (c.operation != "atomic_cas") {
        CommArg lock;
        lock.name = "lock";
        lock.is_name = true;
        lock.text = c.object ? lock_name(c.object) : std::string("lock");
        n.comm_args.push_back(lock);
        if (c.operation == "semaphore_create" && c.name == "sem_init" && c.args.size() == 3) {
          CommArg permits;
          permits.name = "permits";
          permits.expr = c.args[2];
          vars_.uses(permits.expr, permits.uses);
          n.comm_args.push_back(permits);
        }
      }
      add_child(seq, program_.add(std::move(n)));
      break;
    }
    case CallClass::ScopedLock:
      emit_lock_op(seq, "lock", c.object, c.expr->getBeginLoc());
      seq.scoped_locks.push_back(c.object);
      break;
    case CallClass::Mpi:
      if (!append_group_incl(seq, c)) {
        emit_mpi_leaf(seq, c);
      }
      break;
    case CallClass::Indirect:
      add_child(seq, dispatch_chain(c, statement, 0));
      break;
    default:
      break;
    }
  }

  std::string indirect_reason(const ClassifiedCall &c) const {
    const auto *call = llvm::cast<clang::CallExpr>(c.expr);
    const std::string key = function_type_key(call->getCallee()->getType());
    if (key.empty()) {
      return "not a plain function pointer";
    }
    return "no function of type '" + key +
           "' whose address the program takes can be named here, or one of them is a library "
           "function";
  }

  // `fp(args)` with fp holding one of f1..fk: if (fp == f1) f1(args) else if (fp == f2) ...
  // (dispatch.hpp). The conditions are opaque: the estimation run counts them at the call.
  StructIndex dispatch_chain(const ClassifiedCall &c, const clang::Stmt *statement, std::size_t k) {
    const auto *call = llvm::cast<clang::CallExpr>(c.expr);
    const FunctionId target = c.targets[k];
    const bool last = k + 1 == c.targets.size();
    StructNode n = make(last ? StructKind::If : StructKind::IfElse, call->getSourceRange());
    n.label = "if " + source_text(call->getCallee(), context_, 40) +
              " == " + program_.functions[target].name;
    n.dispatch = target;
    n.dispatch_call = call;
    n.cond = call->getCallee();
    const StructIndex idx = program_.add(std::move(n));
    Seq then_seq = open_sequence(nullptr);
    ClassifiedCall direct = c;
    direct.kind = CallClass::User;
    direct.user = target;
    direct.callee = program_.functions[target].decl;
    direct.name = program_.functions[target].name;
    emit_call_leaf(then_seq, direct, statement);
    if (c.targets.size() > 1) {
      program_.call_results.erase(c.expr); // which return slot holds the value is data
    }
    const StructIndex then_branch = close_sequence(then_seq);
    program_.nodes[idx].children.push_back(then_branch);
    if (!last) {
      Seq else_seq = open_sequence(nullptr);
      add_child(else_seq, dispatch_chain(c, statement, k + 1));
      program_.nodes[idx].children.push_back(close_sequence(else_seq));
    }
    return idx;
  }

  VarId return_slot(FunctionId callee) {
    FunctionInfo &fn = program_.functions[callee];
    if (fn.return_slot != kNoVar) {
      return fn.return_slot;
    }
    const VarType type = classify_type(fn.decl->getReturnType());
    if (type != VarType::Integer && type != VarType::Floating) {
      return kNoVar;
    }
    const VarId id =
        program_.synthetic("return:" + std::to_string(callee), type, VarScope::ReturnSlot, callee);
    program_.variables[id].source_name = fn.name + "()";
    program_.variables[id].location = fn.decl->getLocation();
    program_.functions[callee].return_slot = id;
    return id;
  }

  // MPI_Comm_rank / MPI_Comm_size of a communicator other than world: a leaf whose operation
  // writes the variable with this rank's value in that communicator.
  void emit_comm_query_leaf(Seq &seq, const ClassifiedCall &c) {
    const bool rank = c.mpi->role == MpiRole::CommRank;
    StructNode n = make(StructKind::Communication, c.expr->getSourceRange());
    n.call = c.expr;
    n.operation = rank ? "MPI_Comm_rank" : "MPI_Comm_size";
    n.callee_name = c.name;
    n.label = c.name;
    CommArg comm;
    comm.name = "comm";
    comm.expr = c.args[0];
    comm.is_name = true;
    if (const CommElement element = comm_element(comm.expr); element.valid()) {
      vars_.uses(element.index, comm.uses);
    }
    CommArg out;
    out.name = rank ? "rank" : "size";
    out.is_name = true;
    out.var = comm_query_output(c, vars_);
    n.uses = comm.uses;
    n.comm_args = {std::move(comm), std::move(out)};
    n.effects = tagged(call_effects(c, vars_), c.expr);
    add_child(seq, program_.add(std::move(n)));
  }

  void emit_mpi_leaf(Seq &seq, const ClassifiedCall &c) {
    const MpiFunction &mpi = *c.mpi;
    if (mpi.role != MpiRole::Communication) {
      emit_comm_query_leaf(seq, c);
      return;
    }
    if ((c.name == "MPI_Comm_group" || c.name == "PMPI_Comm_group") && c.args.size() == 2) {
      program_.made_groups.insert(group_text(c.args[1]));
    }
    StructNode n = make(StructKind::Communication, c.expr->getSourceRange());
    n.call = c.expr;
    n.operation = std::string(mpi.operation);
    n.callee_name = c.name;
    n.label = c.name;
    const auto arg = [&](int i) -> const clang::Expr * {
      return i >= 0 && static_cast<std::size_t>(i) < c.args.size()
                 ? c.args[static_cast<std::size_t>(i)]
                 : nullptr;
    };
    for (const MpiArg &a : mpi.args) {
      const clang::Expr *e = arg(a.index);
      if (e == nullptr) {
        continue;
      }
      CommArg ca;
      ca.name = std::string(a.model_name);
      switch (a.kind) {
      case MpiArg::Kind::Expr:
        ca.expr = e;
        vars_.uses(e, ca.uses);
        break;
      case MpiArg::Kind::Bytes:
      case MpiArg::Kind::PeerBytes:
        ca.count = e;
        ca.datatype = arg(a.aux);
        ca.substitute_peer = a.kind == MpiArg::Kind::PeerBytes;
        vars_.uses(ca.count, ca.uses);
        vars_.uses(ca.datatype, ca.uses);
        break;
      case MpiArg::Kind::Comm:
      case MpiArg::Kind::NewComm:
      case MpiArg::Kind::Request:
      case MpiArg::Kind::RequestArray:
        ca.expr = e;
        ca.is_name = true;
        if (a.kind == MpiArg::Kind::Request) {
          vars_.uses(e, ca.uses); // the index of &reqs[k]
        } else if (const CommElement element = comm_element(e); element.valid()) {
          vars_.uses(element.index, ca.uses); // the element of comms[k]
        }
        break;
      case MpiArg::Kind::Status:
        for (const char *field : {"MPI_SOURCE", "MPI_TAG"}) {
          const VarId var = vars_.status_field(e, field);
          if (var != kNoVar) {
            CommArg st;
            st.name = std::string(field) == "MPI_SOURCE" ? "status_source" : "status_tag";
            st.is_name = true;
            st.var = var;
            n.comm_args.push_back(st);
          }
        }
        continue;
      case MpiArg::Kind::Flag:
      case MpiArg::Kind::Index: {
        const clang::Expr *inner = e->IgnoreParenImpCasts();
        if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(inner)) {
          if (u->getOpcode() == clang::UO_AddrOf) {
            ca.var = vars_.lvalue(u->getSubExpr());
          }
        }
        if (ca.var == kNoVar) {
          continue;
        }
        ca.is_name = true;
        break;
      }
      }
      n.comm_args.push_back(std::move(ca));
    }
    n.effects = tagged(call_effects(c, vars_), c.expr);
    for (const auto &a : n.comm_args) {
      for (VarId v : a.uses) {
        n.uses.push_back(v);
      }
    }
    add_child(seq, program_.add(std::move(n)));
  }

  // Leaves for the calls inside a condition or returned value (evaluated before it).
  void emit_condition_calls(Seq &seq, const clang::Stmt *s) {
    if (s == nullptr) {
      return;
    }
    for (const auto &c : leaf_calls(s)) {
      emit_call_leaf(seq, c, s);
    }
  }

  bool has_leaf_calls(const clang::Stmt *s) { return s != nullptr && !leaf_calls(s).empty(); }

  void set_condition(StructIndex idx, const clang::Expr *cond) {
    StructNode &n = program_.nodes[idx];
    n.cond = cond;
    if (cond != nullptr) {
      std::vector<VarId> uses;
      vars_.uses(cond, uses);
      program_.nodes[idx].uses = std::move(uses);
    }
  }

  // `once`: the condition of an if, evaluated once where it stands; a program input read
  // there (`if (fscanf(f, "%d", &n) != 1)`) is an input like any other, set by `statement`.
  void check_condition_effects(const clang::Expr *cond, bool once = false,
                               const clang::Stmt *statement = nullptr) {
    if (cond == nullptr) {
      return;
    }
    // Calls that became leaves carry their own effects (out-arguments).
    std::set<const clang::Expr *> leaves;
    for (const auto &c : leaf_calls(cond)) {
      leaves.insert(c.expr);
    }
    for (const Effect &e : statement_effects(cond, vars_, calls_, &leaves)) {
      if (e.kind == Effect::Kind::Input && once) {
        pending_havoc_.push_back(tagged({e}, statement).front());
        continue;
      }
      if (e.kind != Effect::Kind::Operation) {
        diag(DiagnosticKind::Unsupported, Severity::Note, e.location,
             "an assignment inside a condition is not modelled; the variable it writes is "
             "treated as data");
        Effect h = e;
        h.kind = Effect::Kind::Havoc;
        h.text = "assigned inside a condition";
        pending_havoc_.push_back(h);
      }
    }
  }

  // Build a statement into a child node (a sequence unless it is a single structured node).
  StructIndex build_child(const clang::Stmt *s) {
    Seq seq = open_sequence(s);
    append(seq, s);
    return close_sequence(seq);
  }

  void append_if(Seq &seq, const clang::IfStmt *ifs) {
    if (ifs->getInit() != nullptr) {
      append(seq, ifs->getInit());
    }
    if (const clang::DeclStmt *cv = ifs->getConditionVariableDeclStmt()) {
      append_simple(seq, cv);
    }
    flush(seq);
    emit_condition_calls(seq, ifs->getCond());
    check_condition_effects(ifs->getCond(), /*once=*/true, ifs);
    flush_havoc(seq, ifs->getSourceRange());
    const bool has_else = ifs->getElse() != nullptr;
    StructNode n = make(has_else ? StructKind::IfElse : StructKind::If, ifs->getSourceRange());
    n.stmt = ifs;
    n.label = "if " + source_text(ifs->getCond(), context_, 40);
    const StructIndex idx = program_.add(std::move(n));
    set_condition(idx, ifs->getCond());
    const StructIndex then_branch = build_child(ifs->getThen());
    program_.nodes[idx].children.push_back(then_branch);
    if (has_else) {
      const StructIndex else_branch = build_child(ifs->getElse());
      program_.nodes[idx].children.push_back(else_branch);
    }
    add_child(seq, idx);
  }

  void flush_havoc(Seq &seq, clang::SourceRange range) {
    if (!pending_havoc_.empty()) {
      add_effects(seq, std::move(pending_havoc_), range);
      pending_havoc_.clear();
    }
  }

  void append_for(Seq &seq, const clang::ForStmt *fors) {
    flush(seq);
    if (has_leaf_calls(fors->getCond()) || has_leaf_calls(fors->getInc())) {
      // for (init; cond-with-calls; inc) body  ==>  init; calls; while (cond) {body; inc; calls}
      if (fors->getInit() != nullptr) {
        append(seq, fors->getInit());
      }
      append_rotated_loop(seq, fors, fors->getCond(), fors->getInc(), fors->getBody());
      return;
    }
    StructNode n = make(StructKind::For, fors->getSourceRange());
    n.stmt = fors;
    n.loop_body = fors->getBody();
    if (fors->getInit() != nullptr) {
      if (has_leaf_calls(fors->getInit())) {
        append(seq, fors->getInit());
        flush(seq);
      } else {
        n.init = statement_effects(fors->getInit(), vars_, calls_);
      }
    }
    if (fors->getInc() != nullptr) {
      n.update = statement_effects(fors->getInc(), vars_, calls_);
    }
    n.label = "for " + source_text(fors->getCond(), context_, 40);
    check_condition_effects(fors->getCond());
    flush_havoc(seq, fors->getSourceRange());
    const StructIndex idx = program_.add(std::move(n));
    set_condition(idx, fors->getCond());
    frames_.push_back({idx, true});
    const StructIndex body = build_child(fors->getBody());
    frames_.pop_back();
    program_.nodes[idx].children.push_back(body);
    add_child(seq, idx);
  }

  void append_rotated_loop(Seq &seq, const clang::Stmt *loop, const clang::Expr *cond,
                           const clang::Stmt *update, const clang::Stmt *body_stmt) {
    emit_condition_calls(seq, cond);
    flush(seq);
    StructNode n = make(StructKind::While, loop->getSourceRange());
    n.stmt = loop;
    n.loop_body = body_stmt;
    n.label = "while " + source_text(cond, context_, 40);
    const StructIndex idx = program_.add(std::move(n));
    set_condition(idx, cond);
    frames_.push_back({idx, true, cond, update});
    Seq body = open_sequence(body_stmt);
    append(body, body_stmt);
    if (update != nullptr) {
      append(body, update);
    }
    emit_condition_calls(body, cond);
    frames_.pop_back();
    program_.nodes[idx].children.push_back(close_sequence(body));
    add_child(seq, idx);
    diag(DiagnosticKind::Approximation, Severity::Note, loop->getBeginLoc(),
         "the loop condition calls functions the model keeps; they are modelled before the "
         "loop and at the end of every iteration");
  }

  void append_while(Seq &seq, const clang::WhileStmt *whiles) {
    flush(seq);
    if (const clang::DeclStmt *cv = whiles->getConditionVariableDeclStmt()) {
      diag(DiagnosticKind::Unsupported, Severity::Note, cv->getBeginLoc(),
           "a declaration in a while condition is treated as data");
    }
    if (has_leaf_calls(whiles->getCond())) {
      append_rotated_loop(seq, whiles, whiles->getCond(), nullptr, whiles->getBody());
      return;
    }
    check_condition_effects(whiles->getCond());
    flush_havoc(seq, whiles->getSourceRange());
    StructNode n = make(StructKind::While, whiles->getSourceRange());
    n.stmt = whiles;
    n.loop_body = whiles->getBody();
    n.label = "while " + source_text(whiles->getCond(), context_, 40);
    const StructIndex idx = program_.add(std::move(n));
    set_condition(idx, whiles->getCond());
    frames_.push_back({idx, true});
    const StructIndex body = build_child(whiles->getBody());
    frames_.pop_back();
    program_.nodes[idx].children.push_back(body);
    add_child(seq, idx);
  }

  void append_do(Seq &seq, const clang::DoStmt *dos) {
    flush(seq);
    const bool calls_in_cond = has_leaf_calls(dos->getCond());
    check_condition_effects(dos->getCond());
    flush_havoc(seq, dos->getSourceRange());
    StructNode n = make(StructKind::DoWhile, dos->getSourceRange());
    n.stmt = dos;
    n.loop_body = dos->getBody();
    n.label = "do-while " + source_text(dos->getCond(), context_, 40);
    const StructIndex idx = program_.add(std::move(n));
    set_condition(idx, dos->getCond());
    frames_.push_back({idx, true, calls_in_cond ? dos->getCond() : nullptr, nullptr});
    Seq body = open_sequence(dos->getBody());
    append(body, dos->getBody());
    if (calls_in_cond) {
      emit_condition_calls(body, dos->getCond());
    }
    frames_.pop_back();
    program_.nodes[idx].children.push_back(close_sequence(body));
    add_child(seq, idx);
  }

  void append_range_for(Seq &seq, const clang::CXXForRangeStmt *range) {
    flush(seq);
    StructNode n = make(StructKind::For, range->getSourceRange());
    n.stmt = range;
    n.loop_body = range->getBody();
    n.range_for = true;
    n.trips_hint = range->getRangeInit();
    n.label = "for " + source_text(range->getLoopVariable()->getInit() ? range->getRangeInit()
                                                                       : range->getRangeInit(),
                                   context_, 40);
    const VarId size = vars_.container_size(range->getRangeInit());
    if (size != kNoVar) {
      const std::string key = "counter:" + std::to_string(reinterpret_cast<std::uintptr_t>(range));
      n.counter = program_.synthetic(key, VarType::Integer, VarScope::Local, function_);
      program_.variables[n.counter].source_name = "iteration";
      n.uses = {size, n.counter};
    }
    const StructIndex idx = program_.add(std::move(n));
    frames_.push_back({idx, true});
    const StructIndex body = build_child(range->getBody());
    frames_.pop_back();
    program_.nodes[idx].children.push_back(body);
    add_child(seq, idx);
  }

  void append_switch(Seq &seq, const clang::SwitchStmt *sw) {
    if (sw->getInit() != nullptr) {
      append(seq, sw->getInit());
    }
    flush(seq);
    emit_condition_calls(seq, sw->getCond());
    const auto *body = llvm::dyn_cast_or_null<clang::CompoundStmt>(sw->getBody());
    if (body == nullptr) {
      throw UnstructuredFlow{"a switch whose body is not a compound statement", sw->getBeginLoc()};
    }
    StructNode n = make(StructKind::Switch, sw->getSourceRange());
    n.stmt = sw;
    n.label = "switch " + source_text(sw->getCond(), context_, 40);
    const StructIndex idx = program_.add(std::move(n));
    set_condition(idx, sw->getCond());
    frames_.push_back({idx, false});
    std::optional<Seq> current;
    const auto finish_case = [&]() {
      if (current) {
        program_.nodes[idx].children.push_back(close_sequence(*current));
        current.reset();
      }
    };
    for (const clang::Stmt *child : body->body()) {
      const clang::Stmt *s = child;
      if (llvm::isa<clang::SwitchCase>(s)) {
        finish_case();
        SwitchLabel label;
        while (const auto *sc = llvm::dyn_cast<clang::SwitchCase>(s)) {
          if (const auto *cs = llvm::dyn_cast<clang::CaseStmt>(sc)) {
            const llvm::APSInt lo = cs->getLHS()->EvaluateKnownConstInt(context_);
            std::int64_t hi = lo.getExtValue();
            if (cs->getRHS() != nullptr) {
              hi = cs->getRHS()->EvaluateKnownConstInt(context_).getExtValue();
              if (hi - lo.getExtValue() > 256) {
                throw UnstructuredFlow{"a case range of more than 256 values", cs->getBeginLoc()};
              }
            }
            for (std::int64_t v = lo.getExtValue(); v <= hi; ++v) {
              label.values.push_back(v);
            }
          } else {
            label.is_default = true;
          }
          s = sc->getSubStmt();
        }
        program_.nodes[idx].cases.push_back(label);
        current.emplace(open_sequence(s));
      }
      if (!current) {
        continue; // statements before the first label never run
      }
      append(*current, s);
    }
    finish_case();
    frames_.pop_back();
    if (program_.nodes[idx].cases.empty()) {
      // switch without cases: only the selector is evaluated.
      StructNode &node = program_.nodes[idx];
      node.kind = StructKind::Sequence;
      node.cond = nullptr;
    }
    add_child(seq, idx);
  }

  void append_jump(Seq &seq, StructKind kind, clang::SourceRange range) {
    const Frame *target = nullptr;
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
      if (kind == StructKind::Break || it->is_loop) {
        target = &*it;
        break;
      }
    }
    if (target == nullptr) {
      throw UnstructuredFlow{kind == StructKind::Break ? "break outside a loop or switch"
                                                       : "continue outside a loop",
                             range.getBegin()};
    }
    if (kind == StructKind::Continue &&
        (target->rotated_cond != nullptr || target->rotated_update != nullptr)) {
      const Frame frame = *target;
      if (frame.rotated_update != nullptr) {
        append(seq, frame.rotated_update);
      }
      emit_condition_calls(seq, frame.rotated_cond);
    }
    flush(seq);
    StructNode n = make(kind, range);
    n.target = target->node;
    n.label = kind == StructKind::Break ? "break" : "continue";
    add_child(seq, program_.add(std::move(n)));
  }

  void append_return(Seq &seq, const clang::ReturnStmt *ret) {
    flush(seq);
    const clang::Expr *value = ret->getRetValue();
    if (value != nullptr) {
      emit_condition_calls(seq, value);
      add_effects(seq, statement_effects(value, vars_, calls_, nullptr), ret->getSourceRange());
    }
    StructNode n = make(StructKind::Return, ret->getSourceRange());
    n.stmt = ret;
    n.label = "return";
    n.return_value = value;
    if (value != nullptr) {
      vars_.uses(value, n.uses);
    }
    add_child(seq, program_.add(std::move(n)));
  }

  void constructor_initialisers(Seq &seq, const clang::CXXConstructorDecl *ctor) {
    for (const clang::CXXCtorInitializer *init : ctor->inits()) {
      if (!init->isMemberInitializer() || !init->isWritten()) {
        continue;
      }
      const clang::FieldDecl *field = init->getMember();
      const clang::Expr *value = init->getInit();
      if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(value)) {
        // A std::vector member built with a size.
        const VarId size = vars_.container_size_of(field);
        if (size != kNoVar && construct->getNumArgs() >= 1 &&
            construct->getArg(0)->getType()->isIntegralOrEnumerationType()) {
          Effect e;
          e.kind = Effect::Kind::Assign;
          e.var = size;
          e.value = construct->getArg(0);
          e.location = init->getSourceLocation();
          vars_.uses(e.value, e.uses);
          add_effects(seq, {e}, init->getSourceRange());
        }
        continue;
      }
      const VarId var = vars_.declare(field);
      if (var == kNoVar) {
        continue;
      }
      Effect e;
      e.kind = Effect::Kind::Assign;
      e.var = var;
      e.value = value->IgnoreImplicit();
      if (const auto *paren = llvm::dyn_cast<clang::ParenListExpr>(e.value)) {
        if (paren->getNumExprs() == 1) {
          e.value = paren->getExpr(0);
        }
      }
      e.location = init->getSourceLocation();
      vars_.uses(e.value, e.uses);
      add_effects(seq, {e}, init->getSourceRange());
    }
  }

  // --- threads ---------------------------------------------------------------------------

  // A statement that is a single call of the given class, with that call.
  std::optional<ClassifiedCall> single_call(const clang::Stmt *s, CallClass kind) {
    if (s == nullptr) {
      return std::nullopt;
    }
    const clang::Expr *call = top_call(s);
    if (call == nullptr) {
      return std::nullopt;
    }
    ClassifiedCall c = calls_.classify(call, context_);
    if (c.kind == kind) {
      return c;
    }
    // v.emplace_back(fn, args...) / v.push_back(std::thread(...)) on a vector of threads.
    if (kind == CallClass::ThreadCreate) {
      if (const auto *member = llvm::dyn_cast<clang::CXXMemberCallExpr>(call)) {
        const std::string m = c.name;
        const clang::Expr *obj = member->getImplicitObjectArgument();
        const std::string type = obj ? obj->getType().getAsString() : "";
        if ((m == "emplace_back" || m == "push_back") &&
            type.find("std::thread") != std::string::npos && !c.args.empty()) {
          ClassifiedCall t = c;
          t.kind = CallClass::ThreadCreate;
          const clang::Expr *a0 = strip_value(c.args.front());
          if (const auto *construct = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(a0)) {
            if (record_name(construct->getConstructor()->getParent()) == "std::thread") {
              t.args.assign(construct->arg_begin(), construct->arg_end());
            }
          }
          return t;
        }
      }
    }
    return std::nullopt;
  }

  // `for (i = ...; ...) create(worker, args)` followed (later in the same block) by a join
  // loop: a task group running the worker once per iteration, `task` standing for i.
  std::size_t try_thread_group(Seq &seq, const std::vector<const clang::Stmt *> &children,
                               std::size_t i) {
    const auto *create_loop = llvm::dyn_cast<clang::ForStmt>(children[i]);
    if (create_loop == nullptr) {
      return 0;
    }
    const auto create =
        single_call(single_statement(create_loop->getBody()), CallClass::ThreadCreate);
    if (!create) {
      return 0;
    }
    std::size_t join_at = 0;
    for (std::size_t j = i + 1; j < children.size() && join_at == 0; ++j) {
      const clang::Stmt *body = nullptr;
      if (const auto *f = llvm::dyn_cast<clang::ForStmt>(children[j])) {
        body = f->getBody();
      } else if (const auto *r = llvm::dyn_cast<clang::CXXForRangeStmt>(children[j])) {
        body = r->getBody();
      }
      if (single_call(single_statement(body), CallClass::ThreadJoin)) {
        join_at = j;
      }
    }
    if (join_at == 0) {
      return 0;
    }
    // The loop variable numbers the tasks.
    const clang::VarDecl *loop_var = nullptr;
    if (const auto *init = llvm::dyn_cast_or_null<clang::DeclStmt>(create_loop->getInit())) {
      if (init->isSingleDecl()) {
        loop_var = llvm::dyn_cast<clang::VarDecl>(init->getSingleDecl());
      }
    } else if (const auto *assign =
                   llvm::dyn_cast_or_null<clang::BinaryOperator>(create_loop->getInit())) {
      if (const auto *ref =
              llvm::dyn_cast<clang::DeclRefExpr>(assign->getLHS()->IgnoreParenImpCasts())) {
        loop_var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
      }
    }
    // The worker and its arguments.
    const clang::Expr *callable = nullptr;
    std::vector<const clang::Expr *> worker_args;
    if (create->name == "pthread_create") {
      if (create->args.size() != 4) {
        return 0;
      }
      callable = create->args[2];
      const clang::Expr *arg = create->args[3]->IgnoreParens();
      // (void *)(long)i: the worker receives the task number in a pointer.
      while (const auto *cast = llvm::dyn_cast<clang::CastExpr>(arg)) {
        if (cast->getSubExpr()->getType()->isIntegralOrEnumerationType()) {
          arg = cast->getSubExpr()->IgnoreParens();
          break;
        }
        arg = cast->getSubExpr()->IgnoreParens();
      }
      worker_args.push_back(arg);
    } else {
      if (create->args.empty()) {
        return 0;
      }
      callable = create->args.front();
      for (std::size_t k = 1; k < create->args.size(); ++k) {
        worker_args.push_back(create->args[k]);
      }
    }
    const FunctionId worker = callable_function(callable, loop_var);
    if (worker == kNoFunction) {
      return 0;
    }
    flush(seq);
    StructNode group =
        make(StructKind::TaskGroup,
             clang::SourceRange(create_loop->getBeginLoc(), children[join_at]->getEndLoc()));
    group.label = "task group " + program_.functions[worker].name;
    group.task_loop = create_loop;
    group.task_var = loop_var ? vars_.declare(loop_var) : kNoVar;
    // The task count is the creating loop's trip count: its bounds are control variables.
    vars_.uses(create_loop->getCond(), group.uses);
    if (const auto *init = llvm::dyn_cast_or_null<clang::DeclStmt>(create_loop->getInit())) {
      for (const clang::Decl *d : init->decls()) {
        if (const auto *v = llvm::dyn_cast<clang::VarDecl>(d)) {
          vars_.uses(v->getInit(), group.uses);
        }
      }
    } else if (const auto *e = llvm::dyn_cast_or_null<clang::Expr>(create_loop->getInit())) {
      vars_.uses(e, group.uses);
    }
    group.stmts = {create_loop, children[join_at]};
    const StructIndex gidx = program_.add(std::move(group));
    Seq body = open_sequence(create_loop);
    StructNode call = make(StructKind::UserCall, create->expr->getSourceRange());
    call.call = create->expr;
    call.callee = worker;
    call.callee_name = program_.functions[worker].name;
    call.label = call.callee_name;
    const FunctionInfo &wf = program_.functions[worker];
    const std::size_t nparams = wf.decl->getNumParams();
    for (std::size_t k = 0; k < nparams; ++k) {
      const clang::Expr *a = k < worker_args.size() ? worker_args[k] : nullptr;
      call.args.push_back(a);
      std::vector<VarId> uses;
      if (a != nullptr) {
        vars_.uses(a, uses);
      }
      call.arg_uses.push_back(std::move(uses));
    }
    program_.functions[function_].callees.push_back(worker);
    add_child(body, program_.add(std::move(call)));
    program_.nodes[gidx].children.push_back(close_sequence(body));
    add_child(seq, gidx);
    if (join_at > i + 1) {
      diag(DiagnosticKind::Approximation, Severity::Note, children[i + 1]->getBeginLoc(),
           "statements between creating and joining the threads are modelled after the join "
           "(a task group is fork-join)");
      for (std::size_t k = i + 1; k < join_at; ++k) {
        append(seq, children[k]);
      }
    }
    return join_at - i + 1;
  }

  FunctionId callable_function(const clang::Expr *callable, const clang::VarDecl *loop_var) {
    const clang::Expr *e = strip_value(callable);
    if (const auto *unary = llvm::dyn_cast_or_null<clang::UnaryOperator>(e)) {
      e = unary->getSubExpr()->IgnoreParenImpCasts();
    }
    if (const auto *construct = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(e)) {
      if (construct->getNumArgs() == 1) {
        e = strip_value(construct->getArg(0));
      }
    }
    if (const auto *ref = llvm::dyn_cast_or_null<clang::DeclRefExpr>(e)) {
      if (const auto *fn = llvm::dyn_cast<clang::FunctionDecl>(ref->getDecl())) {
        const FunctionId id = calls_.user_function(fn);
        if (id != kNoFunction) {
          mark_pointer_parameter(id);
        }
        return id;
      }
      if (const auto *var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl())) {
        if (var->getInit() != nullptr) {
          return callable_function(var->getInit(), loop_var);
        }
      }
    }
    if (const auto *lambda = llvm::dyn_cast_or_null<clang::LambdaExpr>(e)) {
      const FunctionId id = calls_.user_function(lambda->getCallOperator());
      if (id != kNoFunction) {
        program_.functions[id].task_capture = loop_var;
      }
      return id;
    }
    return kNoFunction;
  }

  void mark_pointer_parameter(FunctionId id) { mark_task_parameter(program_, id); }

  // --- OpenMP ----------------------------------------------------------------------------

  const clang::Stmt *captured(const clang::OMPExecutableDirective *d) {
    if (!d->hasAssociatedStmt()) {
      return nullptr;
    }
    if (const auto *loop = llvm::dyn_cast<clang::OMPLoopDirective>(d)) {
      (void)loop;
    }
    return d->getInnermostCapturedStmt()->getCapturedStmt();
  }

  void append_openmp(Seq &seq, const clang::OMPExecutableDirective *d) {
    const clang::OpenMPDirectiveKind kind = d->getDirectiveKind();
    const clang::Stmt *body = captured(d);
    const clang::SourceLocation loc = d->getBeginLoc();
    const bool parallel_loop =
        kind == llvm::omp::OMPD_parallel_for || kind == llvm::omp::OMPD_parallel_for_simd;
    if (parallel_loop || kind == llvm::omp::OMPD_parallel) {
      if (in_parallel_) {
        diag(DiagnosticKind::Unsupported, Severity::Warning, loc,
             "nested OpenMP parallel regions run in the enclosing task (the thread pool is "
             "fixed, notes 000 §2.2)");
        append(seq, body);
        return;
      }
      flush(seq);
      StructNode group = make(StructKind::TaskGroup, d->getSourceRange());
      group.label = parallel_loop ? "omp parallel for" : "omp parallel";
      group.stmts = {d};
      const StructIndex gidx = program_.add(std::move(group));
      Seq inner = open_sequence(body);
      in_parallel_ = true;
      if (parallel_loop) {
        append_worksharing_loop(inner, body, d);
      } else {
        append(inner, body);
      }
      in_parallel_ = false;
      program_.nodes[gidx].children.push_back(close_sequence(inner));
      add_child(seq, gidx);
      return;
    }
    if (kind == llvm::omp::OMPD_for || kind == llvm::omp::OMPD_for_simd) {
      if (!in_parallel_) {
        // An orphaned `omp for` outside a parallel region runs serially.
        const std::size_t before = program_.nodes.size();
        append(seq, body);
        mark_openmp_loop(before, body, false);
        return;
      }
      append_worksharing_loop(seq, body, d);
      return;
    }
    if (kind == llvm::omp::OMPD_single || kind == llvm::omp::OMPD_master ||
        kind == llvm::omp::OMPD_masked) {
      flush(seq);
      StructNode n = make(StructKind::If, d->getSourceRange());
      n.cond_text = "task == 0";
      n.label = kind == llvm::omp::OMPD_single ? "omp single" : "omp master";
      const StructIndex idx = program_.add(std::move(n));
      program_.nodes[idx].children.push_back(build_child(body));
      add_child(seq, idx);
      return;
    }
    if (kind == llvm::omp::OMPD_critical) {
      std::string name = "omp_critical";
      if (const auto *crit = llvm::dyn_cast<clang::OMPCriticalDirective>(d)) {
        const std::string n = crit->getDirectiveName().getAsString();
        if (!n.empty()) {
          name += "_" + n;
        }
      }
      emit_named_lock(seq, "lock", name, loc);
      append(seq, body);
      emit_named_lock(seq, "unlock", name, d->getEndLoc());
      return;
    }
    if (kind == llvm::omp::OMPD_atomic) {
      flush(seq);
      StructNode n = make(StructKind::Communication, d->getSourceRange());
      n.operation = "atomic_cas";
      n.label = "omp atomic";
      add_child(seq, program_.add(std::move(n)));
      return;
    }
    if (kind == llvm::omp::OMPD_barrier) {
      diag(DiagnosticKind::Unsupported, Severity::Warning, loc,
           "omp barrier inside a parallel region is not modelled (the model's thread "
           "primitives have no barrier; the join at the end of the region is)");
      return;
    }
    diag(DiagnosticKind::Unsupported, Severity::Note, loc,
         "OpenMP directive '" + std::string(llvm::omp::getOpenMPDirectiveName(kind)) +
             "' is not modelled; its statement runs as written");
    if (body != nullptr) {
      append(seq, body);
    }
  }

  void emit_named_lock(Seq &seq, const std::string &op, const std::string &name,
                       clang::SourceLocation where) {
    flush(seq);
    StructNode n = make(StructKind::Communication, clang::SourceRange(where, where));
    n.operation = op;
    n.label = op + " " + name;
    CommArg lock;
    lock.name = "lock";
    lock.is_name = true;
    lock.text = name;
    n.comm_args.push_back(lock);
    add_child(seq, program_.add(std::move(n)));
  }

  void mark_openmp_loop(std::size_t first_new_node, const clang::Stmt *loop, bool chunked) {
    for (std::size_t k = first_new_node; k < program_.nodes.size(); ++k) {
      if (program_.nodes[k].stmt == loop) {
        program_.nodes[k].omp_chunk = chunked;
        program_.nodes[k].omp_loop = true;
        break;
      }
    }
  }

  void append_worksharing_loop(Seq &seq, const clang::Stmt *loop,
                               const clang::OMPExecutableDirective *d) {
    const auto *fors = llvm::dyn_cast_or_null<clang::ForStmt>(loop);
    if (fors == nullptr) {
      append(seq, loop);
      return;
    }
    const std::size_t before = program_.nodes.size();
    append_for(seq, fors);
    mark_openmp_loop(before, fors, true);
    for (const auto *clause : d->getClausesOfKind<clang::OMPReductionClause>()) {
      for (const clang::Expr *var : clause->varlists()) {
        (void)var;
        flush(seq);
        StructNode n = make(StructKind::Communication,
                            clause->getBeginLoc().isValid()
                                ? clang::SourceRange(clause->getBeginLoc(), clause->getEndLoc())
                                : d->getSourceRange());
        n.operation = "atomic_cas";
        n.label = "reduction " + source_text(var, context_, 20);
        add_child(seq, program_.add(std::move(n)));
      }
    }
  }

  Program &program_;
  const CallClassifier &calls_;
  FunctionId function_;
  clang::ASTContext &context_;
  const clang::SourceManager &sm_;
  VariableResolver vars_;
  std::vector<Frame> frames_;
  GotoPlan gotos_;
  std::map<const clang::LabelDecl *, StructIndex> goto_targets_;
  std::vector<Effect> pending_havoc_;
  std::set<const clang::Expr *> reported_indirect_;
  bool in_parallel_ = false;
};

} // namespace

void mark_task_parameter(Program &program, FunctionId id) {
  FunctionInfo &fn = program.functions[id];
  if (fn.decl->getNumParams() != 1 || !fn.decl->getParamDecl(0)->getType()->isPointerType()) {
    return;
  }
  const clang::ParmVarDecl *p = fn.decl->getParamDecl(0);
  if (program.variable_of(p) != kNoVar) {
    return;
  }
  Variable v;
  v.source_name = p->getNameAsString();
  v.scope = VarScope::Parameter;
  v.type = VarType::Integer;
  v.decl = p;
  v.function = id;
  v.location = p->getLocation();
  const VarId var = program.add(std::move(v));
  program.map_variable(p, var);
  if (!fn.params.empty()) {
    fn.params[0] = var;
  }
}

void build_structure(Program &program, const CallClassifier &calls, FunctionId function) {
  Builder(program, calls, function).build();
}

} // namespace parjava::frontend
