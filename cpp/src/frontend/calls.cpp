#include "calls.hpp"

#include <algorithm>
#include <memory>

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Mangle.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Index/USRGeneration.h>
#include <llvm/ADT/SmallString.h>

#include "subscripts.hpp"

namespace parjava::frontend {

namespace {

bool is_one_of(const std::string &name, std::initializer_list<const char *> names) {
  for (const char *n : names) {
    if (name == n) {
      return true;
    }
  }
  return false;
}

// The expression-language function for a pure math call, "" if there is none.
std::string math_function(const std::string &name, std::size_t nargs) {
  static const std::vector<std::pair<std::vector<const char *>, const char *>> table = {
      {{"sqrt", "sqrtf", "sqrtl"}, "sqrt"},
      {{"abs", "labs", "llabs", "fabs", "fabsf", "fabsl"}, "abs"},
      {{"floor", "floorf", "floorl"}, "floor"},
      {{"ceil", "ceilf", "ceill"}, "ceil"},
      {{"round", "roundf", "roundl", "lround", "llround"}, "round"},
      {{"trunc", "truncf", "truncl"}, "trunc"},
      {{"log2", "log2f", "log2l"}, "log2"},
      {{"log", "logf", "logl"}, "log"},
      {{"exp", "expf", "expl"}, "exp"},
      {{"pow", "powf", "powl"}, "pow"},
      {{"cbrt", "cbrtf", "cbrtl"}, "cbrt"},
      {{"fmin", "fminf", "fminl", "min"}, "min"},
      {{"fmax", "fmaxf", "fmaxl", "max"}, "max"},
  };
  if (name == "omp_get_num_procs" && nargs == 0) {
    // The processors the program finds (XSBench's and RSBench's default team): on the
    // predicted machine, the prediction's threads per process.
    return "nthreads";
  }
  for (const auto &[names, fn] : table) {
    for (const char *n : names) {
      if (name == n) {
        std::string f(fn);
        const bool binary = f == "pow" || f == "min" || f == "max";
        if ((binary && nargs == 2) || (!binary && nargs == 1)) {
          return f;
        }
      }
    }
  }
  return {};
}

bool is_std(const clang::Decl *decl) {
  const clang::DeclContext *dc = decl->getDeclContext();
  while (dc != nullptr) {
    if (const auto *ns = llvm::dyn_cast<clang::NamespaceDecl>(dc)) {
      if (ns->isStdNamespace()) {
        return true;
      }
    }
    dc = dc->getParent();
  }
  return false;
}

// main's argv, as a parameter declaration, if `e` names it.
const clang::ParmVarDecl *main_argv(const clang::Expr *e) {
  const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  const auto *param = ref != nullptr ? llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl()) : nullptr;
  if (param == nullptr) {
    return nullptr;
  }
  const auto *fn = llvm::dyn_cast<clang::FunctionDecl>(param->getDeclContext());
  return fn != nullptr && fn->isMain() && param->getFunctionScopeIndex() == 1 ? param : nullptr;
}

// Every step of main's argv (`++argv`, `argv++`), in source order, with the blocks around it
// (innermost first); `ok` false when one is not a plain step outside loops (a decrement,
// `argv += k`, a step in a loop), so that no position can be told.
class ArgvSteps : public clang::RecursiveASTVisitor<ArgvSteps> {
public:
  ArgvSteps(const clang::ParmVarDecl *argv, clang::ASTContext &ctx) : argv_(argv), ctx_(ctx) {}
  bool VisitUnaryOperator(clang::UnaryOperator *u) {
    if (main_argv(u->getSubExpr()) != argv_) {
      return true;
    }
    if (u->isIncrementOp()) {
      std::vector<const clang::Stmt *> around = blocks_around(u);
      ok = ok && !around.empty();
      blocks.push_back(std::move(around));
      steps.push_back(u);
    } else if (u->isDecrementOp()) {
      ok = false;
    }
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator *b) {
    ok = ok && !(b->isAssignmentOp() && main_argv(b->getLHS()) == argv_);
    return true;
  }
  std::vector<const clang::UnaryOperator *> steps;
  std::vector<std::vector<const clang::Stmt *>> blocks;
  bool ok = true;

private:
  // The compound statements around a step, innermost first; empty inside a loop.
  std::vector<const clang::Stmt *> blocks_around(const clang::Stmt *s) {
    std::vector<const clang::Stmt *> out;
    clang::DynTypedNode node = clang::DynTypedNode::create(*s);
    for (int depth = 0; depth < 1000; ++depth) {
      const auto parents = ctx_.getParents(node);
      if (parents.empty()) {
        return out;
      }
      if (parents[0].get<clang::VarDecl>() != nullptr) {
        node = parents[0]; // `int n = atoi(*++argv);`: on to its declaration statement
        continue;
      }
      const auto *p = parents[0].get<clang::Stmt>();
      if (p == nullptr) {
        return out;
      }
      if (llvm::isa<clang::ForStmt>(p) || llvm::isa<clang::WhileStmt>(p) ||
          llvm::isa<clang::DoStmt>(p)) {
        return {};
      }
      if (llvm::isa<clang::CompoundStmt>(p)) {
        out.push_back(p);
      }
      node = parents[0];
    }
    return {};
  }
  const clang::ParmVarDecl *argv_;
  clang::ASTContext &ctx_;
};

// The text a std::string holds or was made from: `std::stoi(argv[1])` converts a temporary
// string constructed from argv[1], `atoi(args[1].c_str())` the text of a string.
bool is_std_string(const clang::CXXRecordDecl *record) {
  return record != nullptr && record->getName() == "basic_string" && is_std(record);
}

const clang::Expr *string_source(const clang::Expr *e) {
  for (;;) {
    e = e->IgnoreParenImpCasts();
    if (const auto *tmp = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(e)) {
      e = tmp->getSubExpr();
    } else if (const auto *bind = llvm::dyn_cast<clang::CXXBindTemporaryExpr>(e)) {
      e = bind->getSubExpr();
    } else if (const auto *cast = llvm::dyn_cast<clang::CXXFunctionalCastExpr>(e)) {
      e = cast->getSubExpr();
    } else if (const auto *make = llvm::dyn_cast<clang::CXXConstructExpr>(e);
               make != nullptr && make->getNumArgs() >= 1 &&
               is_std_string(make->getConstructor()->getParent()) &&
               make->getArg(0)->getType()->isPointerType()) {
      e = make->getArg(0);
    } else if (const auto *text = llvm::dyn_cast<clang::CXXMemberCallExpr>(e);
               text != nullptr && text->getNumArgs() == 0 && text->getMethodDecl() != nullptr &&
               is_one_of(text->getMethodDecl()->getNameAsString(), {"c_str", "data"}) &&
               is_std_string(text->getRecordDecl())) {
      e = text->getImplicitObjectArgument();
    } else {
      return e;
    }
  }
}

// `*++argv` / `*argv++` (PRK kernels read `iterations = atoi(*++argv);`): the position it reads,
// from the steps of argv before it in main -- each of which must run whenever it runs, in a
// block around it (PRK's Synch_p2p reads its optional fourth argument in `if (argc == 5)`); -1
// when that cannot be told (a step in a branch beside it, or in a loop).
int stepped_argv_index(const clang::Expr *e, clang::ASTContext &ctx) {
  const auto *deref = llvm::dyn_cast<clang::UnaryOperator>(e);
  if (deref == nullptr || deref->getOpcode() != clang::UO_Deref) {
    return -1;
  }
  const auto *step = llvm::dyn_cast<clang::UnaryOperator>(deref->getSubExpr()->IgnoreParens());
  const clang::ParmVarDecl *argv = step != nullptr ? main_argv(step->getSubExpr()) : nullptr;
  if (argv == nullptr || !step->isIncrementOp()) {
    return -1;
  }
  const auto *fn = llvm::cast<clang::FunctionDecl>(argv->getDeclContext());
  ArgvSteps steps(argv, ctx);
  steps.TraverseStmt(fn->getBody());
  const auto at = std::find(steps.steps.begin(), steps.steps.end(), step);
  if (!steps.ok || at == steps.steps.end()) {
    return -1;
  }
  const auto index = static_cast<std::size_t>(at - steps.steps.begin());
  const std::vector<const clang::Stmt *> &mine = steps.blocks[index];
  for (std::size_t k = 0; k < index; ++k) {
    if (std::find(mine.begin(), mine.end(), steps.blocks[k].front()) == mine.end()) {
      return -1;
    }
  }
  return step->isPrefix() ? static_cast<int>(index) + 1 : static_cast<int>(index);
}

// main's argv or a variable that always holds it (argv_aliases.hpp), named by `e`.
bool names_argv(const clang::Expr *e, const Program *program) {
  const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  return ref != nullptr && (main_argv(ref) != nullptr ||
                            (program != nullptr &&
                             program->argv_aliases.contains(ref->getDecl()->getCanonicalDecl())));
}

// `args[k]` with a constant k of a vector of strings copied from argv: argv's position.
int argv_copy_index(const clang::Expr *e, clang::ASTContext &ctx, const Program *program) {
  const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e);
  if (op == nullptr || op->getOperator() != clang::OO_Subscript || op->getNumArgs() != 2) {
    return -1;
  }
  const auto *base = llvm::dyn_cast<clang::DeclRefExpr>(op->getArg(0)->IgnoreParenImpCasts());
  const int offset = base != nullptr ? argv_copy_offset(base->getDecl(), program) : -1;
  clang::Expr::EvalResult result;
  if (offset < 0 || !op->getArg(1)->EvaluateAsInt(result, ctx)) {
    return -1;
  }
  return offset + static_cast<int>(result.Val.getInt().getExtValue());
}

} // namespace

int argv_copy_offset(const clang::ValueDecl *decl, const Program *program, bool *to_argc) {
  const auto *var = llvm::dyn_cast_or_null<clang::VarDecl>(decl);
  const auto *record = var != nullptr ? var->getType()->getAsCXXRecordDecl() : nullptr;
  if (record == nullptr || record->getName() != "vector" || !is_std(record) || !var->hasInit()) {
    return -1;
  }
  const auto *make = llvm::dyn_cast<clang::CXXConstructExpr>(var->getInit()->IgnoreImplicit());
  if (make == nullptr || make->getNumArgs() < 2) {
    return -1;
  }
  if (to_argc != nullptr) {
    const auto *end = llvm::dyn_cast<clang::BinaryOperator>(make->getArg(1)->IgnoreParenImpCasts());
    const auto *count =
        end != nullptr ? llvm::dyn_cast<clang::DeclRefExpr>(end->getRHS()->IgnoreParenImpCasts())
                       : nullptr;
    const auto *argc =
        count != nullptr ? llvm::dyn_cast<clang::ParmVarDecl>(count->getDecl()) : nullptr;
    const auto *fn =
        argc != nullptr ? llvm::dyn_cast<clang::FunctionDecl>(argc->getDeclContext()) : nullptr;
    *to_argc = end != nullptr && end->getOpcode() == clang::BO_Add &&
               main_argv(end->getLHS()) != nullptr && fn != nullptr && fn->isMain() &&
               argc->getFunctionScopeIndex() == 0;
  }
  const clang::Expr *first = make->getArg(0)->IgnoreParenImpCasts();
  if (names_argv(first, program)) {
    return 0;
  }
  const auto *plus = llvm::dyn_cast<clang::BinaryOperator>(first);
  clang::Expr::EvalResult result;
  if (plus != nullptr && plus->getOpcode() == clang::BO_Add &&
      names_argv(plus->getLHS(), program) &&
      plus->getRHS()->EvaluateAsInt(result, var->getASTContext())) {
    return static_cast<int>(result.Val.getInt().getExtValue());
  }
  return -1;
}

namespace {

// argv[k] with a constant k, where argv is the second parameter of main or a variable that
// always holds it (argv_aliases.hpp); `args[k]` of a vector of strings copied from argv; or
// `*++argv`.
int argv_index(const clang::Expr *e, clang::ASTContext &ctx, const Program *program) {
  e = string_source(e);
  if (const int k = stepped_argv_index(e, ctx); k >= 0) {
    return k;
  }
  if (const int k = argv_copy_index(e, ctx, program); k >= 0) {
    return k;
  }
  const auto *sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(e);
  if (sub == nullptr) {
    return -1;
  }
  const auto *base = llvm::dyn_cast<clang::DeclRefExpr>(sub->getBase()->IgnoreParenImpCasts());
  if (base == nullptr) {
    return -1;
  }
  const bool alias =
      program != nullptr && program->argv_aliases.contains(base->getDecl()->getCanonicalDecl());
  const auto *param = llvm::dyn_cast<clang::ParmVarDecl>(base->getDecl());
  if (param == nullptr && !alias) {
    return -1;
  }
  const auto *fn =
      param != nullptr ? llvm::dyn_cast<clang::FunctionDecl>(param->getDeclContext()) : nullptr;
  if (!alias && (fn == nullptr || !fn->isMain() || param->getFunctionScopeIndex() != 1)) {
    return -1;
  }
  clang::Expr::EvalResult result;
  if (!sub->getIdx()->EvaluateAsInt(result, ctx)) {
    return -1;
  }
  return static_cast<int>(result.Val.getInt().getExtValue());
}

class CallCollector : public clang::RecursiveASTVisitor<CallCollector> {
public:
  bool shouldTraversePostOrder() const { return true; }
  bool TraverseLambdaExpr(clang::LambdaExpr *lambda) {
    // The lambda object itself is data; its body is a function of its own.
    (void)lambda;
    return true;
  }
  bool TraverseBlockExpr(clang::BlockExpr *) { return true; }
  bool VisitCallExpr(clang::CallExpr *call) {
    calls.push_back(call);
    return true;
  }
  bool VisitCXXConstructExpr(clang::CXXConstructExpr *construct) {
    const clang::CXXConstructorDecl *ctor = construct->getConstructor();
    if (ctor != nullptr && !ctor->isTrivial() && !ctor->isImplicit()) {
      calls.push_back(construct);
    }
    return true;
  }
  std::vector<const clang::Expr *> calls;
};

} // namespace

bool number_conversion(const std::string &name, bool &floating) {
  // C's conversions, and C++'s of a std::string (`n = std::stoi(argv[++i]);`, the usual idiom of
  // C++ option parsers); callers reach here only for functions of the C library or std.
  floating = is_one_of(name, {"atof", "strtod", "strtof", "stof", "stod", "stold"});
  return floating || is_one_of(name, {"atoi", "atol", "atoll", "strtol", "strtoll", "strtoul",
                                      "strtoull", "stoi", "stol", "stoll", "stoul", "stoull"});
}

int argv_number(const clang::CallExpr *call, clang::ASTContext &ctx, bool &floating,
                const Program *program) {
  const clang::FunctionDecl *callee = call != nullptr ? call->getDirectCallee() : nullptr;
  if (callee == nullptr || call->getNumArgs() == 0 ||
      !number_conversion(callee->getNameAsString(), floating)) {
    return -1;
  }
  return argv_index(call->getArg(0), ctx, program);
}

std::string usr_of(const clang::Decl *decl) {
  llvm::SmallString<128> buf;
  if (clang::index::generateUSRForDecl(decl, buf)) {
    return {};
  }
  return std::string(buf.str());
}

std::string signature_key(const clang::FunctionDecl *fd) {
  std::string key = fd->getQualifiedNameAsString() + "(";
  for (const clang::ParmVarDecl *p : fd->parameters()) {
    key += p->getType().getCanonicalType().getUnqualifiedType().getAsString() + ",";
  }
  key += ")";
  if (const auto *method = llvm::dyn_cast<clang::CXXMethodDecl>(fd); method && method->isConst()) {
    key += " const";
  }
  return key;
}

bool in_user_file(const clang::Decl *decl, const clang::SourceManager &sm) {
  const clang::SourceLocation loc = sm.getExpansionLoc(decl->getLocation());
  return loc.isValid() && !sm.isInSystemHeader(loc) && !sm.isInSystemMacro(loc);
}

std::string record_name(const clang::CXXRecordDecl *record) {
  return record == nullptr ? std::string() : record->getQualifiedNameAsString();
}

std::vector<const clang::Expr *> calls_in(const clang::Stmt *stmt) {
  CallCollector collector;
  collector.TraverseStmt(const_cast<clang::Stmt *>(stmt));
  return collector.calls;
}

FunctionId CallClassifier::defined_function(const clang::FunctionDecl *callee) const {
  if (callee == nullptr) {
    return kNoFunction;
  }
  FunctionId id = program_.function_of(callee);
  if (id != kNoFunction) {
    return id;
  }
  if (const clang::FunctionDecl *def = callee->getDefinition()) {
    id = program_.function_of(def);
    if (id != kNoFunction) {
      return id;
    }
  }
  const std::string usr = usr_of(callee);
  if (const auto it = usr_index_.find(usr); it != usr_index_.end()) {
    return it->second;
  }
  const auto it = signature_index_.find(signature_key(callee));
  return it == signature_index_.end() ? kNoFunction : it->second;
}

FunctionId CallClassifier::user_function(const clang::FunctionDecl *callee) const {
  const FunctionId id = defined_function(callee);
  return in_place_.contains(id) ? kNoFunction : id;
}

// A dispatch needs every function the pointer may hold, each one nameable where the call is
// (the estimation code compares the pointer with it), and a callee expression it may evaluate
// again (no side effects).
std::vector<FunctionId> CallClassifier::indirect_targets(const clang::CallExpr *call,
                                                         clang::ASTContext &context) const {
  constexpr std::size_t kMaxTargets = 16;
  const clang::Expr *callee = call->getCallee();
  const std::string key = function_type_key(callee->getType());
  const std::optional<FunctionShape> shape = function_shape(callee->getType());
  if (key.empty() || callee->HasSideEffects(context)) {
    return {};
  }
  // Every function the pointer may hold, each nameable here; a library function among them is
  // code the model cannot follow.
  const auto usable = [&](const std::vector<FunctionId> &targets) {
    if (targets.empty() || targets.size() > kMaxTargets) {
      return false;
    }
    return std::ranges::all_of(targets, [&](FunctionId f) {
      return !in_place_.contains(f) &&
             dispatch_spelling(program_, f, context, call->getBeginLoc()).has_value();
    });
  };
  const auto add = [&](const std::string &type, std::vector<FunctionId> &targets) {
    if (dispatch_.external.contains(type)) {
      return false;
    }
    if (const auto it = dispatch_.functions.find(type); it != dispatch_.functions.end()) {
      for (const FunctionId f : it->second) {
        if (std::find(targets.begin(), targets.end(), f) == targets.end()) {
          targets.push_back(f);
        }
      }
    }
    return true;
  };
  std::vector<FunctionId> exact;
  if (!add(key, exact)) {
    return {};
  }
  // Then the functions of the types the call reaches through `void *` (callable_through). When
  // they make the dispatch impossible (too many, one not nameable here, a library function), the
  // call keeps the dispatch among its own type's functions, as before there were any.
  std::vector<FunctionId> loose = exact;
  bool loose_ok = shape.has_value();
  if (loose_ok) {
    for (const auto &[type, held] : dispatch_.shapes) {
      if (type != key && callable_through(*shape, held) && !add(type, loose)) {
        loose_ok = false;
        break;
      }
    }
  }
  if (loose_ok && usable(loose)) {
    return loose;
  }
  return usable(exact) ? exact : std::vector<FunctionId>{};
}

// A virtual method called through a pointer or reference whose dynamic type the compiler
// cannot know (`Force *force = new ForceLJ(...); force->compute(...)`, miniMD): the call runs
// the overrider of the object's class, which the model would otherwise replace by the base
// class's body (an empty `{}`: miniMD's whole force computation was missing). Like a call
// through a function pointer it becomes a dispatch among the overriders the program defines,
// each tested in the estimation code against the object's dynamic type (typeid). A call the
// compiler devirtualises (an object by value, a final class, `Base::f()`) stays direct.
bool CallClassifier::virtual_targets(const clang::CXXMemberCallExpr *call,
                                     clang::ASTContext &context, ClassifiedCall &out) const {
  constexpr std::size_t kMaxTargets = 16;
  const clang::CXXMethodDecl *method = call->getMethodDecl();
  const auto *callee = llvm::dyn_cast<clang::MemberExpr>(call->getCallee()->IgnoreParens());
  const clang::Expr *object = call->getImplicitObjectArgument();
  if (method == nullptr || !method->isVirtual() || callee == nullptr || callee->hasQualifier() ||
      object == nullptr || llvm::isa<clang::CXXDestructorDecl>(method) ||
      method->getDevirtualizedMethod(object, /*IsAppleKext=*/false) != nullptr ||
      object->HasSideEffects(context)) {
    return false;
  }
  // Each unit has its own declarations: the same method is the same USR.
  const std::string base = usr_of(method);
  std::vector<FunctionId> targets;
  std::vector<std::string> names;
  for (FunctionId f = 0; f < program_.functions.size(); ++f) {
    const auto *m = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(program_.functions[f].decl);
    if (m == nullptr || in_place_.contains(f) || !m->hasBody()) {
      continue;
    }
    bool overrides = usr_of(m) == base;
    std::vector<const clang::CXXMethodDecl *> stack(m->begin_overridden_methods(),
                                                    m->end_overridden_methods());
    while (!overrides && !stack.empty()) {
      const clang::CXXMethodDecl *o = stack.back();
      stack.pop_back();
      overrides = usr_of(o) == base;
      stack.insert(stack.end(), o->begin_overridden_methods(), o->end_overridden_methods());
    }
    const clang::CXXRecordDecl *record = m->getParent();
    if (!overrides || record->isAbstract() || record->isDependentContext()) {
      continue;
    }
    std::string name;
    llvm::raw_string_ostream os(name);
    clang::ASTContext &own = m->getASTContext();
    const std::unique_ptr<clang::MangleContext> mangle(own.createMangleContext());
    mangle->mangleCXXRTTIName(own.getRecordType(record), os);
    os.flush();
    // typeid(x).name() is the type's mangled name without the "_ZTS" of its symbol.
    if (name.rfind("_ZTS", 0) != 0) {
      return false;
    }
    targets.push_back(f);
    names.push_back(name.substr(4));
  }
  if (targets.empty() || targets.size() > kMaxTargets) {
    return false;
  }
  out.kind = CallClass::Indirect;
  out.virtual_call = true;
  out.object = object;
  out.targets = std::move(targets);
  out.type_names = std::move(names);
  return true;
}

ClassifiedCall CallClassifier::classify(const clang::Expr *call, clang::ASTContext &context) const {
  ClassifiedCall out;
  out.expr = call;
  if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(call)) {
    out.callee = construct->getConstructor();
    for (const clang::Expr *a : construct->arguments()) {
      out.args.push_back(a);
    }
    const clang::CXXRecordDecl *record = construct->getConstructor()->getParent();
    const std::string rname = record_name(record);
    out.name = rname;
    if (is_one_of(rname, {"std::lock_guard", "std::unique_lock", "std::scoped_lock"}) &&
        !out.args.empty()) {
      out.kind = CallClass::ScopedLock;
      out.object = out.args.front();
      return out;
    }
    if (rname == "std::thread" || rname == "std::jthread") {
      out.kind = out.args.empty() ? CallClass::External : CallClass::ThreadCreate;
      return out;
    }
    out.user = user_function(out.callee);
    out.kind = out.user != kNoFunction ? CallClass::User : CallClass::External;
    return out;
  }
  const auto *ce = llvm::cast<clang::CallExpr>(call);
  for (const clang::Expr *a : ce->arguments()) {
    out.args.push_back(a);
  }
  out.callee = ce->getDirectCallee();
  if (out.callee == nullptr) {
    out.kind = CallClass::Indirect;
    out.name = "(indirect call)";
    out.targets = indirect_targets(ce, context);
    return out;
  }
  out.name = out.callee->getNameAsString();
  const std::string &name = out.name;
  if (is_std_array_access(ce) || is_std_array_assignment(ce)) {
    // An element of a fixed-size array, as `a[i]` of a C array, or a copy of the whole array
    // (array_copies.hpp): part of the statement, not a library call.
    out.kind = CallClass::Math;
    return out;
  }

  if (const auto *member = llvm::dyn_cast<clang::CXXMemberCallExpr>(ce)) {
    const clang::CXXRecordDecl *record = member->getRecordDecl();
    const std::string rname = record_name(record);
    out.object = member->getImplicitObjectArgument();
    if (is_one_of(rname, {"std::mutex", "std::recursive_mutex", "std::timed_mutex",
                          "std::shared_mutex"})) {
      if (name == "lock" || name == "lock_shared") {
        out.kind = CallClass::ThreadOp;
        out.operation = "lock";
        return out;
      }
      if (name == "unlock" || name == "unlock_shared") {
        out.kind = CallClass::ThreadOp;
        out.operation = "unlock";
        return out;
      }
      if (name == "try_lock") {
        out.kind = CallClass::ThreadOp;
        out.operation = "trylock";
        return out;
      }
    }
    if (rname == "std::atomic" || rname == "std::__atomic_base" ||
        rname.rfind("std::__atomic", 0) == 0 || rname == "std::atomic_flag") {
      if (name != "load" && name.rfind("operator ", 0) != 0 && name != "is_lock_free") {
        out.kind = CallClass::ThreadOp;
        out.operation = "atomic_cas";
        return out;
      }
      out.kind = CallClass::Math; // a plain read: part of the surrounding block
      return out;
    }
    if ((rname == "std::thread" || rname == "std::jthread") && name == "join") {
      out.kind = CallClass::ThreadJoin;
      return out;
    }
  }
  if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(ce)) {
    if (const auto *method = llvm::dyn_cast<clang::CXXMethodDecl>(out.callee)) {
      const std::string rname = record_name(method->getParent());
      if (rname == "std::atomic" || rname.rfind("std::__atomic", 0) == 0) {
        const auto k = op->getOperator();
        if (k == clang::OO_PlusPlus || k == clang::OO_MinusMinus || k == clang::OO_PlusEqual ||
            k == clang::OO_MinusEqual || k == clang::OO_AmpEqual || k == clang::OO_PipeEqual ||
            k == clang::OO_CaretEqual || k == clang::OO_Equal) {
          out.kind = CallClass::ThreadOp;
          out.operation = "atomic_cas";
          out.object = op->getArg(0);
          return out;
        }
      }
    }
  }

  const bool global_c_name =
      !out.callee->isCXXClassMember() && (out.callee->getDeclContext()->isTranslationUnit() ||
                                          out.callee->isExternC() || is_std(out.callee));
  if (global_c_name && is_mpi_name(name)) {
    out.kind = CallClass::Mpi;
    out.mpi = find_mpi_function(name);
    return out;
  }
  // parjava/model.h's no-op marker is an annotation, whatever file defines it.
  if (name == "parjava_param") {
    out.kind = CallClass::External;
    return out;
  }
  if (const auto *member = llvm::dyn_cast<clang::CXXMemberCallExpr>(ce);
      member != nullptr && virtual_targets(member, context, out)) {
    return out;
  }
  out.user = user_function(out.callee);
  if (out.user != kNoFunction) {
    out.kind = CallClass::User;
    if (program_.functions[out.user].accessor != nullptr) {
      out.kind = CallClass::Accessor;
      out.inline_expr = program_.functions[out.user].accessor;
    }
    return out;
  }
  if (global_c_name) {
    if (name == "pthread_create") {
      out.kind = CallClass::ThreadCreate;
      return out;
    }
    if (name == "pthread_join") {
      out.kind = CallClass::ThreadJoin;
      return out;
    }
    if (is_one_of(name, {"pthread_mutex_lock", "pthread_spin_lock", "sem_wait", "omp_set_lock",
                         "pthread_rwlock_wrlock", "pthread_rwlock_rdlock"})) {
      out.kind = CallClass::ThreadOp;
      out.operation = "lock";
      out.object = out.args.empty() ? nullptr : out.args.front();
      return out;
    }
    if (is_one_of(name, {"pthread_mutex_unlock", "pthread_spin_unlock", "sem_post",
                         "omp_unset_lock", "pthread_rwlock_unlock"})) {
      out.kind = CallClass::ThreadOp;
      out.operation = "unlock";
      out.object = out.args.empty() ? nullptr : out.args.front();
      return out;
    }
    if (is_one_of(name, {"pthread_mutex_trylock", "sem_trywait", "omp_test_lock"})) {
      out.kind = CallClass::ThreadOp;
      out.operation = "trylock";
      out.object = out.args.empty() ? nullptr : out.args.front();
      return out;
    }
    if (is_one_of(name, {"pthread_mutex_init", "sem_init", "omp_init_lock"})) {
      out.kind = CallClass::ThreadOp;
      out.operation = "semaphore_create";
      out.object = out.args.empty() ? nullptr : out.args.front();
      return out;
    }
    if (name == "omp_set_num_threads" && out.args.size() == 1) {
      // The team size of the later parallel regions (XSBench's and RSBench's `-t`).
      out.kind = CallClass::ThreadOp;
      out.operation = "set_team";
      return out;
    }
    if (name.rfind("__atomic_", 0) == 0 || name.rfind("__sync_", 0) == 0 ||
        name.rfind("atomic_fetch_", 0) == 0 || name.rfind("atomic_exchange", 0) == 0 ||
        name.rfind("atomic_compare_exchange", 0) == 0) {
      if (name.find("load") == std::string::npos) {
        out.kind = CallClass::ThreadOp;
        out.operation = "atomic_cas";
        return out;
      }
    }
    if (bool floating = false; number_conversion(name, floating) && !out.args.empty()) {
      const int k = argv_index(out.args.front(), context, &program_);
      out.argv_floating = floating;
      if (k >= 0) {
        out.kind = CallClass::ArgvNumber;
        out.argv_index = k;
        return out;
      }
      out.kind = CallClass::InputNumber;
      return out;
    }
    out.math = math_function(name, out.args.size());
    if (!out.math.empty()) {
      out.kind = CallClass::Math;
      return out;
    }
  }
  out.kind = CallClass::External;
  return out;
}

} // namespace parjava::frontend
