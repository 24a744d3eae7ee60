#include "keyed_inputs.hpp"

#include "calls.hpp"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <set>

namespace parjava::frontend {

namespace {

// Through the conversions a literal passes to reach a `const std::string &` parameter.
const clang::Expr *unwrap(const clang::Expr *e) {
  for (int depth = 0; e != nullptr && depth < 8; ++depth) {
    e = e->IgnoreImplicit()->IgnoreParenCasts();
    if (const auto *m = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(e)) {
      e = m->getSubExpr();
    } else if (const auto *b = llvm::dyn_cast<clang::CXXBindTemporaryExpr>(e)) {
      e = b->getSubExpr();
    } else if (const auto *c = llvm::dyn_cast<clang::CXXConstructExpr>(e);
               c != nullptr && c->getNumArgs() >= 1) {
      e = c->getArg(0);
    } else {
      return e;
    }
  }
  return e;
}

bool key_like(llvm::StringRef s) {
  s = s.ltrim('-');
  if (s.empty() || s.size() > 40 ||
      !(std::isalpha(static_cast<unsigned char>(s.front())) || s.front() == '_')) {
    return false;
  }
  return llvm::all_of(s, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

bool is_argv(const clang::Decl *d, const Program &program) {
  if (d == nullptr) {
    return false;
  }
  if (const auto *p = llvm::dyn_cast<clang::ParmVarDecl>(d)) {
    const auto *f = llvm::dyn_cast_or_null<clang::FunctionDecl>(p->getDeclContext());
    if (f != nullptr && f->isMain() && p->getFunctionScopeIndex() == 1) {
      return true;
    }
  }
  return program.argv_aliases.contains(d->getCanonicalDecl());
}

const clang::Decl *named(const clang::Expr *e) {
  e = unwrap(e);
  if (const auto *u = llvm::dyn_cast_or_null<clang::UnaryOperator>(e);
      u != nullptr && u->getOpcode() == clang::UO_AddrOf) {
    e = unwrap(u->getSubExpr());
  }
  const auto *ref = llvm::dyn_cast_or_null<clang::DeclRefExpr>(e);
  return ref != nullptr ? ref->getDecl()->getCanonicalDecl() : nullptr;
}

// Calls of the function body that pass both argv and `text`: read_args_into_string(argc, argv,
// argstring) fills argstring from the command line.
class FilledFromArgv : public clang::RecursiveASTVisitor<FilledFromArgv> {
public:
  FilledFromArgv(const clang::Decl *text, const Program &program)
      : text_(text), program_(program) {}
  bool VisitCallExpr(clang::CallExpr *call) {
    bool argv = false;
    bool text = false;
    for (const clang::Expr *a : call->arguments()) {
      const clang::Decl *d = named(a);
      argv = argv || is_argv(d, program_);
      text = text || d == text_;
    }
    found = found || (argv && text);
    return !found;
  }
  bool found = false;

private:
  const clang::Decl *text_;
  const Program &program_;
};

// An object of a record the program fills from argv (Program::argv_records), passed by value,
// address or pointer: `Arguments_consume_int_or_default(args, "--ncell_x", 5)` (ORNL
// minisweep, whose Arguments_create(&args, argc, argv) keeps argv in `args->argv_unconsumed`).
bool argv_record(const clang::Expr *arg, const Program &program) {
  clang::QualType t = unwrap(arg)->getType();
  if (t->isPointerType()) {
    t = t->getPointeeType();
  }
  const clang::RecordDecl *record = t->getAsRecordDecl();
  return record != nullptr && program.argv_records.contains(usr_of(record));
}

bool holds_command_line(const clang::Expr *arg, VariableResolver &vars) {
  const Program &program = vars.program();
  if (argv_record(arg, program)) { // also a field or an element: `&run->args`
    return true;
  }
  const clang::Decl *d = named(arg);
  if (d == nullptr) {
    return false;
  }
  if (is_argv(d, program)) {
    return true;
  }
  const auto *var = llvm::dyn_cast<clang::VarDecl>(d);
  if (var == nullptr || var->hasGlobalStorage() || llvm::isa<clang::ParmVarDecl>(var) ||
      vars.function() == kNoFunction) {
    return false;
  }
  const clang::FunctionDecl *fn = program.functions[vars.function()].decl;
  if (fn == nullptr || fn->getBody() == nullptr) {
    return false;
  }
  FilledFromArgv visitor(d, program);
  visitor.TraverseStmt(fn->getBody());
  return visitor.found;
}

// Whether a program function opens or reads a file, itself or through the program functions it
// calls (`get_int_parameter("nx", file)` -> get_parameter_line() -> fopen/fgets; UoB-HPC's arch
// mini-apps). A key looked up by such a function is a value of the input file, not a count.
class ReadsFile : public clang::RecursiveASTVisitor<ReadsFile> {
public:
  explicit ReadsFile(const Program &program) : program_(program) {}

  bool reads(const clang::FunctionDecl *fn, int depth) {
    // The definition may be in another file's AST (params.c for main.c's call).
    const FunctionId id = fn != nullptr ? program_.callee_of(fn) : kNoFunction;
    const clang::FunctionDecl *def = id != kNoFunction ? program_.functions[id].decl : nullptr;
    if (def == nullptr || depth > 3 || def->getBody() == nullptr || !seen_.insert(def).second) {
      return false;
    }
    const int outer = depth_;
    depth_ = depth;
    TraverseStmt(def->getBody());
    depth_ = outer;
    return found_;
  }

  bool VisitCallExpr(clang::CallExpr *call) {
    const clang::FunctionDecl *callee = call->getDirectCallee();
    if (callee == nullptr) {
      return true;
    }
    if (program_.callee_of(callee) != kNoFunction) {
      found_ = found_ || reads(callee, depth_ + 1);
    } else if (callee->getIdentifier() != nullptr) {
      static const std::set<llvm::StringRef> readers = {"fopen",   "fgets", "fscanf", "fread",
                                                        "getline", "getc",  "fgetc",  "getdelim"};
      found_ = found_ || readers.contains(callee->getName());
    }
    return !found_;
  }

  bool VisitCXXConstructExpr(clang::CXXConstructExpr *construct) {
    const clang::CXXRecordDecl *record = construct->getConstructor()->getParent();
    found_ = found_ || record->getName() == "basic_ifstream";
    return !found_;
  }

private:
  const Program &program_;
  std::set<const clang::FunctionDecl *> seen_;
  int depth_ = 0;
  bool found_ = false;
};

} // namespace

std::optional<KeyedLookup> keyed_lookup(const clang::Expr *value, VariableResolver &vars) {
  if (value == nullptr) {
    return std::nullopt;
  }
  const auto *call = llvm::dyn_cast<clang::CallExpr>(value->IgnoreParenCasts());
  if (call == nullptr || !call->getType()->isArithmeticType()) {
    return std::nullopt;
  }
  // A method reads the object's table, not the command line; only a const one is a lookup
  // (`inp->getInt("cstop", 999999)`), and its key literal is a bare word.
  const auto *method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(call->getDirectCallee());
  const bool member = llvm::isa<clang::CXXMemberCallExpr>(call);
  if (member && (method == nullptr || !method->isConst())) {
    return std::nullopt;
  }
  // The program's own parser: `cmp = strcmp(argv[1], "run")` is a comparison, not a lookup.
  const clang::FunctionDecl *callee = call->getDirectCallee();
  if (callee == nullptr || vars.program().callee_of(callee) == kNoFunction) {
    return std::nullopt;
  }
  int key_at = -1;
  bool command_line = false;
  std::string key;
  for (unsigned i = 0; i < call->getNumArgs(); ++i) {
    const clang::Expr *a = call->getArg(i);
    if (const auto *lit = llvm::dyn_cast_or_null<clang::StringLiteral>(unwrap(a));
        lit != nullptr && key_at < 0 && lit->isOrdinary() && key_like(lit->getString())) {
      key_at = static_cast<int>(i);
      key = lit->getString().str();
      continue;
    }
    command_line = command_line || holds_command_line(a, vars);
  }
  if (key_at < 0 || (member && key.front() == '-')) {
    return std::nullopt;
  }
  // A free function of the program that reads a file and is given a key, not the command line:
  // `mesh.global_nx = get_int_parameter("nx", flow_params)` with `flow_params = argv[1]` the
  // file's name (UoB-HPC/flow). Before, every such call was the one variable its sscanf()
  // wrote, and nx, ny and the iteration count were the last value read.
  const bool file =
      member || (!command_line && key.front() != '-' && ReadsFile(vars.program()).reads(callee, 0));
  if (!command_line && !file) {
    return std::nullopt;
  }
  KeyedLookup out;
  out.key = key;
  out.file = file;
  if (!file) { // a file's key is no command-line option
    const std::string bare = llvm::StringRef(key).ltrim('-').str();
    out.options = {bare, "-" + bare, "--" + bare};
  }
  if (static_cast<unsigned>(key_at) + 1 < call->getNumArgs()) {
    clang::Expr::EvalResult r;
    const clang::Expr *d = call->getArg(static_cast<unsigned>(key_at) + 1);
    if (!d->isValueDependent() && unwrap(d)->EvaluateAsRValue(r, vars.context())) {
      if (r.Val.isInt()) {
        out.fallback = static_cast<double>(r.Val.getInt().getExtValue());
      } else if (r.Val.isFloat()) {
        out.fallback = r.Val.getFloat().convertToDouble();
      }
    }
  }
  out.what = source_text(call, vars.context(), 60);
  return out;
}

} // namespace parjava::frontend
