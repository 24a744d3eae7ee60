// Calls in the walk (structure_walk.hpp): which calls of a statement become leaves, calls of
// model functions (their return slots, and a dispatch chain for calls through function
// pointers, dispatch.hpp), and external calls (timed like blocks; sized ones priced by size).
#include "structure_walk.hpp"

#include <set>

#include "dispatch.hpp"
#include "input_reads.hpp"
#include "record_copies.hpp"
#include "sized_calls.hpp"
#include <clang/AST/ExprCXX.h>

namespace parjava::frontend {

namespace {

// `n++` or `n--` of a local scalar of the caller, passed whole as an argument
// (Program::argument_steps).
const clang::UnaryOperator *local_step(const clang::Expr *arg) {
  const auto *step = llvm::dyn_cast<clang::UnaryOperator>(arg->IgnoreParenImpCasts());
  if (step == nullptr || !step->isPostfix() || !step->isIncrementDecrementOp()) {
    return nullptr;
  }
  const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(step->getSubExpr()->IgnoreParens());
  const auto *var = ref != nullptr ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
  const bool local = var != nullptr && var->hasLocalStorage() && !var->isStaticLocal() &&
                     var->getType()->isIntegerType() && !var->getType()->isReferenceType();
  return local ? step : nullptr;
}

} // namespace

// Calls of `s` that must become leaves (MPI communication, user functions, thread
// operations), in evaluation order.
std::vector<ClassifiedCall> StructureWalk::leaf_calls(const clang::Stmt *s) {
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
             c.virtual_call
                 ? "virtual call: the model calls the overrider of the object's class among " +
                       names +
                       "; which one is measured by the estimation run (the object's "
                       "dynamic type)"
                 : "call through a function pointer: the model calls the function it holds "
                   "among " +
                       names +
                       " (the functions of its type whose address the program takes); which "
                       "one is measured by the estimation run");
      }
    }
    const bool leaf = c.kind == CallClass::User ||
                      (c.kind == CallClass::Indirect && !c.targets.empty()) ||
                      c.kind == CallClass::ThreadOp || c.kind == CallClass::ScopedLock ||
                      (c.kind == CallClass::Mpi && c.mpi != nullptr &&
                       (c.mpi->role == MpiRole::Communication || c.mpi->role == MpiRole::Group ||
                        c.mpi->role == MpiRole::PersistentInit || c.mpi->role == MpiRole::Start ||
                        comm_query_output(c, vars_) != kNoVar));
    if (leaf) {
      out.push_back(std::move(c));
    }
  }
  return out;
}

// OpenSHMEM's API, with the SGI-era names GUPS-like benchmarks still call.
static bool openshmem_call(const std::string &name) {
  static const std::set<std::string> old_names = {"start_pes", "shmalloc",   "shfree",
                                                  "shrealloc", "shmemalign", "my_pe",
                                                  "_my_pe",    "num_pes",    "_num_pes"};
  return name.starts_with("shmem_") || name.starts_with("pshmem_") || old_names.contains(name);
}

void StructureWalk::append_external(Seq &seq, const clang::Stmt *s, const ClassifiedCall &c) {
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
  } else if (openshmem_call(c.name)) {
    if (!program_.pgas_reported) {
      program_.pgas_reported = true;
      diag(DiagnosticKind::Unsupported, Severity::Warning, s->getBeginLoc(),
           c.name + " is an OpenSHMEM call: the model builder models MPI, so OpenSHMEM calls "
                    "are external calls timed at the estimation run's PE count (their target "
                    "PEs, contention and shmem_n_pes() are not followed); a prediction at "
                    "another np says so");
    }
  } else if (c.name == "exit" || c.name == "abort" || c.name == "_Exit") {
    diag(DiagnosticKind::Unsupported, Severity::Warning, s->getBeginLoc(),
         c.name + "() ends the process here; the model continues after it");
  }
  add_child(seq, program_.add(std::move(n)));
}

void StructureWalk::emit_call_leaf(Seq &seq, const ClassifiedCall &c,
                                   const clang::Stmt *statement) {
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
    // A struct passed by value: into the callee's parameter cells when the callee follows the
    // parameter, else into the fields' shared variables (record_copies.hpp).
    const FunctionInfo &target_fn = program_.functions[c.user];
    for (std::size_t i = 0; i < args.size() && i < target_fn.decl->getNumParams(); ++i) {
      const clang::ParmVarDecl *param = target_fn.decl->getParamDecl(static_cast<unsigned>(i));
      if (param->getType()->isReferenceType() || record_scalar_fields(param->getType()).empty()) {
        continue;
      }
      RecordTarget target;
      if (followed_object(param, program_, *target_fn.context)) {
        target = {RecordTarget::Kind::Parameter, nullptr, c.user, static_cast<unsigned>(i)};
      }
      add_effects(seq, record_copy_effects(target, args[i], vars_, calls_, args[i]->getBeginLoc()),
                  range);
    }
    emit_comm_parameters(seq, c, args);
    argument_inputs(c, args);
    for (const clang::Expr *a : args) {
      if (const auto *step = local_step(a)) {
        program_.argument_steps.insert(step);
      }
      n.args.push_back(a);
      std::vector<VarId> uses;
      vars_.uses(a, uses);
      n.arg_uses.push_back(std::move(uses));
    }
    // The returned value, if the statement uses it, is read from the callee's return slot.
    if (value_used_ || top_call(statement) != c.expr || !llvm::isa<clang::Expr>(statement) ||
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
    if (c.operation == "set_team") {
      CommArg threads;
      threads.name = "threads";
      threads.expr = c.args.front();
      vars_.uses(threads.expr, threads.uses);
      n.comm_args.push_back(threads);
      n.label = "omp_set_num_threads";
    } else if (c.operation != "atomic_cas") {
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

// `if (set_num_iterations(atoi(optarg))) ...` under getopt's `case 'i':` (the OSU
// micro-benchmarks): the number goes straight into a setter, which stores it in the options
// that bound the timing loops. The read is an input like `n = atoi(optarg)`: the callee's
// parameter takes the model parameter (inputs.cpp classifies and names it, after the setter:
// `num_iterations`), so the loops it bounds follow `-i`.
void StructureWalk::argument_inputs(const ClassifiedCall &c,
                                    const std::vector<const clang::Expr *> &args) {
  const FunctionInfo &callee = program_.functions[c.user];
  for (std::size_t i = 0; i < args.size() && i < callee.params.size(); ++i) {
    const clang::Expr *arg = args[i]->IgnoreParenCasts();
    if (callee.params[i] == kNoVar || !llvm::isa<clang::CallExpr>(arg) ||
        !is_input_conversion(arg, calls_, context_)) {
      continue;
    }
    InputSite site;
    site.var = callee.params[i];
    site.function = function_;
    site.how = input_origin(arg);
    site.what = source_text(arg, context_, 60);
    site.doc = "the number " + site.what + " passes to " + callee.name + "()";
    site.location = arg->getBeginLoc();
    site.call = c.expr;
    site.name = setter_name(callee.name, program_.variables[site.var].source_name);
    program_.argument_inputs[arg] = static_cast<std::uint32_t>(program_.inputs.size());
    program_.inputs.push_back(std::move(site));
  }
}

// `set_num_iterations` -> `num_iterations`, `setWarmup` -> `warmup`; otherwise the parameter's
// own name.
std::string StructureWalk::setter_name(const std::string &function, const std::string &param) {
  const std::size_t colon = function.rfind(':');
  const std::string base = colon == std::string::npos ? function : function.substr(colon + 1);
  std::string rest;
  if (base.size() > 4 && base.compare(0, 4, "set_") == 0) {
    rest = base.substr(4);
  } else if (base.size() > 3 && base.compare(0, 3, "set") == 0 &&
             std::isupper(static_cast<unsigned char>(base[3])) != 0) {
    rest = base.substr(3);
  } else {
    return param;
  }
  rest.front() = static_cast<char>(std::tolower(static_cast<unsigned char>(rest.front())));
  return rest;
}

std::string StructureWalk::indirect_reason(const ClassifiedCall &c) const {
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
StructIndex StructureWalk::dispatch_chain(const ClassifiedCall &c, const clang::Stmt *statement,
                                          std::size_t k) {
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
    // Built first: it adds nodes, which may move program_.nodes.
    const StructIndex built_idx = close_sequence(else_seq);
    program_.nodes[idx].children.push_back(built_idx);
  }
  return idx;
}

VarId StructureWalk::return_slot(FunctionId callee) {
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

} // namespace parjava::frontend
