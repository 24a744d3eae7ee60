// Threads in the walk (structure_walk.hpp): lock and unlock leaves, and task groups of
// `for (...) pthread_create(...)` / std::thread loops followed by their join loops.
#include "structure_builder.hpp"
#include "structure_walk.hpp"

#include <cctype>
#include <clang/AST/ExprCXX.h>

namespace parjava::frontend {

void StructureWalk::emit_lock_op(Seq &seq, const std::string &op, const clang::Expr *object,
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

std::string StructureWalk::lock_name(const clang::Expr *object) {
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

void StructureWalk::emit_named_lock(Seq &seq, const std::string &op, const std::string &name,
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

// A statement that is a single call of the given class, with that call.
std::optional<ClassifiedCall> StructureWalk::single_call(const clang::Stmt *s, CallClass kind) {
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
std::size_t StructureWalk::try_thread_group(Seq &seq,
                                            const std::vector<const clang::Stmt *> &children,
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
  // Built first: it adds nodes, which may move program_.nodes.
  const StructIndex built_gidx = close_sequence(body);
  program_.nodes[gidx].children.push_back(built_gidx);
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

FunctionId StructureWalk::callable_function(const clang::Expr *callable,
                                            const clang::VarDecl *loop_var) {
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

void StructureWalk::mark_pointer_parameter(FunctionId id) { mark_task_parameter(program_, id); }

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

} // namespace parjava::frontend
