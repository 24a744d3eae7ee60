#include "source_analysis.hpp"

#include <filesystem>
#include <set>
#include <sstream>

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include "aliases.hpp"
#include "argv_aliases.hpp"
#include "control_analysis.hpp"
#include "inputs.hpp"
#include "live_functions.hpp"
#include "loop_scopes.hpp"
#include "parjava/error.hpp"
#include "parjava/model/expression.hpp"
#include "program_choice.hpp"
#include "record_pointers.hpp"
#include "record_punning.hpp"
#include "reference_inputs.hpp"
#include "shared_fields.hpp"
#include "structure_builder.hpp"
#include "variables.hpp"
#include "vector_parameters.hpp"

namespace parjava::frontend {

namespace {

// Names the model reserves (builtins and functions of the expression language).
bool reserved(const std::string &name) {
  if (!model::is_valid_variable_name(name) || name == "argc" || name == "world" || name == "self") {
    return true;
  }
  // Program parameters argv1, argv2, ...
  if (name.rfind("argv", 0) == 0 && name.size() > 4 &&
      name.find_first_not_of("0123456789", 4) == std::string::npos) {
    return true;
  }
  return false;
}

class FunctionCollector : public clang::RecursiveASTVisitor<FunctionCollector> {
public:
  FunctionCollector(clang::ASTContext &ctx, std::vector<const clang::FunctionDecl *> &out)
      : ctx_(ctx), out_(out) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitFunctionDecl(clang::FunctionDecl *fd) {
    consider(fd);
    return true;
  }
  bool VisitLambdaExpr(clang::LambdaExpr *lambda) {
    consider(lambda->getCallOperator());
    return true;
  }

private:
  void consider(const clang::FunctionDecl *fd) {
    if (fd == nullptr || !fd->doesThisDeclarationHaveABody() || fd->getBody() == nullptr ||
        fd->isDependentContext() || fd->isDeleted() ||
        (fd->isDefaulted() && !fd->isUserProvided())) {
      return;
    }
    if (!in_user_file(fd, ctx_.getSourceManager())) {
      return;
    }
    if (seen_.insert(fd->getCanonicalDecl()).second) {
      out_.push_back(fd);
    }
  }
  clang::ASTContext &ctx_;
  std::vector<const clang::FunctionDecl *> &out_;
  std::set<const clang::Decl *> seen_;
};

// Every definition of a global with external linkage, by USR, so that a unit that declares it
// `extern` reads the value the defining unit gives it (issue 12, whole programs).
class GlobalDefinitionCollector : public clang::RecursiveASTVisitor<GlobalDefinitionCollector> {
public:
  explicit GlobalDefinitionCollector(Program &program) : program_(program) {}
  bool VisitVarDecl(clang::VarDecl *var) {
    if (!program_wide(var) || llvm::isa<clang::ParmVarDecl>(var) ||
        var->isThisDeclarationADefinition() == clang::VarDecl::DeclarationOnly) {
      return true;
    }
    const std::string usr = usr_of(var);
    if (usr.empty()) {
      return true;
    }
    // A definition with an initialiser wins over a tentative one (`int n;` in C).
    auto [it, added] = program_.global_definitions.emplace(usr, var);
    if (!added && it->second->getInit() == nullptr && var->getInit() != nullptr) {
      it->second = var;
    }
    return true;
  }

private:
  Program &program_;
};

std::string function_name(const clang::FunctionDecl *fd) {
  if (const auto *method = llvm::dyn_cast<clang::CXXMethodDecl>(fd)) {
    if (method->getParent()->isLambda()) {
      const clang::SourceManager &sm = fd->getASTContext().getSourceManager();
      const auto ploc = sm.getPresumedLoc(sm.getExpansionLoc(method->getParent()->getBeginLoc()));
      std::string enclosing;
      const clang::DeclContext *dc = method->getParent()->getDeclContext();
      while (dc != nullptr && !llvm::isa<clang::FunctionDecl>(dc)) {
        dc = dc->getParent();
      }
      if (const auto *outer = llvm::dyn_cast_or_null<clang::FunctionDecl>(dc)) {
        enclosing = function_name(outer) + "::";
      }
      return enclosing + "lambda@" + (ploc.isValid() ? std::to_string(ploc.getLine()) : "?");
    }
  }
  std::string name = fd->getQualifiedNameAsString();
  if (fd->getTemplateSpecializationArgs() != nullptr) {
    std::string args;
    llvm::raw_string_ostream os(args);
    const auto *targs = fd->getTemplateSpecializationArgs();
    os << "<";
    for (unsigned i = 0; i < targs->size(); ++i) {
      if (i > 0) {
        os << ", ";
      }
      targs->get(i).print(fd->getASTContext().getPrintingPolicy(), os, true);
    }
    os << ">";
    name += os.str();
  }
  return name;
}

std::string signature(const clang::FunctionDecl *fd) {
  std::string s = "(";
  for (unsigned i = 0; i < fd->getNumParams(); ++i) {
    if (i > 0) {
      s += ", ";
    }
    s += fd->getParamDecl(i)->getType().getAsString(fd->getASTContext().getPrintingPolicy());
  }
  return s + ")";
}

void name_variables(Program &program) {
  std::set<std::string> taken;
  for (const auto &p : program.parameters) {
    taken.insert(p.name);
  }
  const auto unique = [&](std::string base, std::set<std::string> &used) {
    base = identifier(base);
    if (reserved(base)) {
      base += "_";
    }
    std::string name = base;
    for (int k = 2; used.contains(name) || taken.contains(name) || reserved(name); ++k) {
      name = base + "_" + std::to_string(k);
    }
    used.insert(name);
    return name;
  };
  // Globals first: a local must never shadow one (the model resolves names per process).
  std::set<std::string> globals;
  for (auto &v : program.variables) {
    if (v.scope == VarScope::Global || v.scope == VarScope::Field) {
      v.model_name = unique(v.source_name, globals);
    } else if (v.scope == VarScope::ReturnSlot) {
      v.model_name = unique("ret_" + program.functions[v.function].name, globals);
    }
  }
  for (const auto &g : globals) {
    taken.insert(g);
  }
  std::vector<std::set<std::string>> locals(program.functions.size());
  for (auto &v : program.variables) {
    if (v.scope == VarScope::Local || v.scope == VarScope::Parameter) {
      if (v.function == kNoFunction || v.function >= locals.size()) {
        std::set<std::string> none;
        v.model_name = unique(v.source_name, none);
      } else {
        // Distinct declarations of one name in a function (sibling scopes, shadowing) get
        // distinct model names; the same declaration is named once.
        v.model_name = unique(v.source_name, locals[v.function]);
      }
    }
  }
}

} // namespace

std::string identifier(const std::string &text) {
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
  if (out.empty()) {
    out = "v";
  }
  if (std::isdigit(static_cast<unsigned char>(out.front()))) {
    out = "v" + out;
  }
  return out;
}

namespace {

// A call chain from `from` back to `target` through user calls ("f -> g -> f"), or "".
std::string chain_back(const std::vector<std::set<FunctionId>> &callees, const Program &program,
                       FunctionId from, FunctionId target) {
  std::vector<FunctionId> parent(callees.size(), kNoFunction);
  std::vector<FunctionId> queue{from};
  std::vector<bool> seen(callees.size(), false);
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const FunctionId f = queue[i];
    for (FunctionId g : callees[f]) {
      if (g == target) {
        std::vector<FunctionId> path{g};
        for (FunctionId h = f; h != kNoFunction; h = parent[h]) {
          path.push_back(h);
        }
        std::string text;
        for (auto it = path.rbegin(); it != path.rend(); ++it) {
          text += (text.empty() ? "" : " -> ") + program.functions[*it].name;
        }
        return text;
      }
      if (!seen[g]) {
        seen[g] = true;
        parent[g] = f;
        queue.push_back(g);
      }
    }
  }
  return {};
}

// A recursive function that neither communicates nor starts threads is measured in place:
// calls to it become external calls, timed with the computational block around the call from
// outside the recursion (seed 000 §3.7: reduced computation keeps only its measured time). A
// recursive function that communicates is kept with its calls, since measuring it would hide
// its communication; the interpreter runs it with a frame per activation (docs/interpreter.md
// "Calls and recursion"), and a note says so.
void mark_recursive_functions(Program &program, CallClassifier &calls) {
  const std::size_t n = program.functions.size();
  std::vector<std::set<FunctionId>> callees(n);
  std::vector<bool> communicates(n, false);
  for (FunctionId f = 0; f < n; ++f) {
    for (const clang::Expr *call : calls_in(program.functions[f].decl->getBody())) {
      const ClassifiedCall c = calls.classify(call, *program.functions[f].context);
      if (c.kind == CallClass::User && c.user != kNoFunction) {
        callees[f].insert(c.user);
      } else if (c.kind == CallClass::Indirect) {
        callees[f].insert(c.targets.begin(), c.targets.end());
      } else if (c.kind == CallClass::Mpi || c.kind == CallClass::ThreadCreate ||
                 c.kind == CallClass::ThreadJoin || c.kind == CallClass::ThreadOp ||
                 c.kind == CallClass::ScopedLock) {
        communicates[f] = true;
      }
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (FunctionId f = 0; f < n; ++f) {
      for (FunctionId g : callees[f]) {
        if (communicates[g] && !communicates[f]) {
          communicates[f] = changed = true;
        }
      }
    }
  }
  for (FunctionId f = 0; f < n; ++f) {
    const std::string chain = chain_back(callees, program, f, f);
    if (chain.empty()) {
      continue;
    }
    program.functions[f].recursive = true; // read before the control analysis confirms it
    const FunctionInfo &fn = program.functions[f];
    Diagnostic d;
    d.kind = DiagnosticKind::Reduced;
    d.function = fn.name;
    const auto &sm = fn.context->getSourceManager();
    const auto where = sm.getPresumedLoc(sm.getExpansionLoc(fn.decl->getLocation()));
    if (where.isValid()) {
      d.file = program.source_file(*fn.context, where.getFilename());
      d.line = where.getLine();
      d.column = where.getColumn();
    }
    if (communicates[f]) {
      d.kind = DiagnosticKind::Approximation;
      d.severity = Severity::Note;
      d.message = "function '" + fn.name + "' is recursive (" + chain +
                  ") and communicates: it stays in the model with its calls; the interpreter "
                  "runs a frame per activation, its depth decided by the conditions on the "
                  "calls (and bounded by max_depth)";
    } else {
      calls.measure_in_place(f);
      d.severity = Severity::Warning;
      d.message = "function '" + fn.name + "' is recursive (" + chain +
                  "): each call to it from outside the recursion is measured as part of the "
                  "computational block around it, at the estimation input";
    }
    program.diagnostics.push_back(std::move(d));
  }
}

// Accessors (issue 12, state in structs): a body `return <expr>;` whose expression reads only
// fields, globals, enumerators and literals, without calls or side effects.
class ReadsOnlyState : public clang::RecursiveASTVisitor<ReadsOnlyState> {
public:
  bool VisitDeclRefExpr(clang::DeclRefExpr *ref) {
    if (const auto *var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl())) {
      ok = ok && var->hasGlobalStorage();
    }
    return ok;
  }
  bool VisitCallExpr(clang::CallExpr *) {
    ok = false;
    return false;
  }
  bool ok = true;
};

const clang::Expr *accessor_expression(const clang::FunctionDecl *fd) {
  const auto *body = llvm::dyn_cast_or_null<clang::CompoundStmt>(fd->getBody());
  if (body == nullptr || body->size() != 1 || fd->isMain()) {
    return nullptr;
  }
  const auto *ret = llvm::dyn_cast<clang::ReturnStmt>(body->body_front());
  if (ret == nullptr || ret->getRetValue() == nullptr) {
    return nullptr;
  }
  const clang::QualType type = fd->getReturnType().getNonReferenceType();
  const VarType vt = classify_type(type);
  if (vt != VarType::Integer && vt != VarType::Floating) {
    return nullptr;
  }
  const clang::Expr *value = ret->getRetValue();
  if (value->HasSideEffects(fd->getASTContext())) {
    return nullptr;
  }
  ReadsOnlyState check;
  check.TraverseStmt(const_cast<clang::Expr *>(value));
  return check.ok ? value : nullptr;
}

} // namespace

std::unique_ptr<AnalysedSources> analyse_sources(const BuildOptions &options) {
  auto a = std::make_unique<AnalysedSources>();
  a->options = options;
  a->parsed = parse_sources(options);
  Program &program = a->program;
  if (const std::optional<std::string> chosen = choose_program(a->parsed, options)) {
    Diagnostic d;
    d.kind = DiagnosticKind::Approximation;
    d.severity = Severity::Note;
    d.message = *chosen;
    program.diagnostics.push_back(std::move(d));
  }
  for (const PragmaMacro &m : a->parsed.pragma_macros) {
    Diagnostic d;
    d.kind = DiagnosticKind::Approximation;
    d.severity = Severity::Note;
    d.file = m.file;
    d.line = m.line;
    d.message = "macro '" + m.name + "' holds the directive '#pragma " + m.pragma +
                "', which only a build that preprocesses first (-E, then -c of the output) "
                "turns into a pragma; read as _Pragma(\"" +
                m.pragma + "\") here and in the estimation code";
    program.diagnostics.push_back(std::move(d));
  }
  a->calls = std::make_unique<CallClassifier>(program);

  // Functions of the input, across translation units (a function defined in two units, e.g. an
  // inline function or a template instantiated in both, is taken once).
  std::map<std::string, FunctionId> by_usr;
  for (auto &unit : a->parsed.units) {
    clang::ASTContext &ctx = unit->getASTContext();
    std::vector<const clang::FunctionDecl *> found;
    FunctionCollector collector(ctx, found);
    collector.TraverseDecl(ctx.getTranslationUnitDecl());
    for (const clang::FunctionDecl *fd : found) {
      const std::string usr = usr_of(fd);
      if (!usr.empty() && by_usr.contains(usr)) {
        program.map_function(fd, by_usr[usr]);
        continue;
      }
      FunctionInfo info;
      info.decl = fd;
      info.context = &ctx;
      info.name = fd->isMain() ? "main" : function_name(fd);
      const FunctionId id = static_cast<FunctionId>(program.functions.size());
      program.functions.push_back(std::move(info));
      program.map_function(fd, id);
      if (!usr.empty()) {
        by_usr[usr] = id;
        a->calls->register_usr(usr, id);
        if (fd->doesThisDeclarationHaveABody()) {
          a->calls->register_signature(signature_key(fd), id);
        }
        program.function_usr[usr] = id;
      }
    }
  }
  // Overloads and specialisations sharing a name get their signature (then a number).
  std::map<std::string, int> count;
  for (const auto &f : program.functions) {
    ++count[f.name];
  }
  std::set<std::string> used;
  for (auto &f : program.functions) {
    if (count[f.name] > 1 && f.name != "main") {
      f.name += signature(f.decl);
    }
    std::string name = f.name;
    for (int k = 2; used.contains(name); ++k) {
      name = f.name + "#" + std::to_string(k);
    }
    f.name = name;
    used.insert(name);
  }
  for (FunctionId f = 0; f < program.functions.size(); ++f) {
    if (program.functions[f].name == options.entry) {
      a->entry = f;
    }
  }
  if (a->entry == kNoFunction) {
    std::string msg = "no function '" + options.entry + "' is defined in the sources";
    if (!program.functions.empty()) {
      msg += " (functions found:";
      for (std::size_t i = 0; i < program.functions.size() && i < 8; ++i) {
        msg += " " + program.functions[i].name;
      }
      msg += "); pass entry=... to name the function the program starts in";
    }
    throw Error(ErrorKind::Frontend, msg);
  }
  for (const auto &file : a->parsed.commands) {
    program.files.push_back(file.file);
  }
  for (std::size_t u = 0; u < a->parsed.units.size(); ++u) {
    program.unit_directory[&a->parsed.units[u]->getASTContext()] = a->parsed.commands[u].directory;
  }
  for (auto &unit : a->parsed.units) {
    GlobalDefinitionCollector globals(program);
    globals.TraverseDecl(unit->getASTContext().getTranslationUnitDecl());
  }

  find_record_punning(program);

  // pthread workers take their task number in a pointer: known before any body is walked.
  for (FunctionId f = 0; f < program.functions.size(); ++f) {
    for (const clang::Expr *call : calls_in(program.functions[f].decl->getBody())) {
      const ClassifiedCall c = a->calls->classify(call, *program.functions[f].context);
      if (c.kind != CallClass::ThreadCreate || c.name != "pthread_create" || c.args.size() != 4) {
        continue;
      }
      const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(c.args[2]->IgnoreParenImpCasts());
      const auto *worker = ref ? llvm::dyn_cast<clang::FunctionDecl>(ref->getDecl()) : nullptr;
      const FunctionId w = a->calls->user_function(worker);
      if (w != kNoFunction) {
        mark_task_parameter(program, w);
      }
    }
  }
  for (auto &fn : program.functions) {
    fn.accessor = accessor_expression(fn.decl);
  }
  a->calls->set_dispatch_table(find_dispatch_table(program, *a->calls));
  mark_recursive_functions(program, *a->calls);
  program.live_functions = live_functions(program, *a->calls);
  find_argv_aliases(program, *a->calls);
  // Before the aliases: a parsing helper's reference parameters are inputs of the caller, not
  // cells (aliases.cpp leaves them alone).
  find_input_references(program, *a->calls);
  find_pointer_aliases(program, *a->calls);
  find_record_pointer_params(program, *a->calls);
  find_vector_size_cells(program, *a->calls);
  for (FunctionId f = 0; f < program.functions.size(); ++f) {
    build_structure(program, *a->calls, f);
  }
  analyse_inputs(program);
  scope_loop_variables(program);
  name_variables(program);
  a->writer = std::make_unique<ExpressionWriter>(program, *a->calls);
  analyse_control(program, *a->writer);
  mark_measured_through(program);
  report_element_fields(program);
  return a;
}

std::string describe_structure(const Program &program) {
  std::ostringstream out;
  const std::function<void(StructIndex, int)> show = [&](StructIndex n, int depth) {
    const StructNode &node = program.nodes[n];
    static const char *kinds[] = {"seq",      "if",         "if-else",  "switch", "for", "while",
                                  "do-while", "task_group", "cb",       "ufc",    "efc", "cfc",
                                  "ret",      "break",      "continue", "rb"};
    out << std::string(static_cast<std::size_t>(depth) * 2, ' ')
        << kinds[static_cast<int>(node.kind)];
    if (!node.label.empty()) {
      out << " \"" << node.label << "\"";
    }
    if (node.opaque) {
      out << " [opaque: " << node.opaque_reason << "]";
    } else if (node.control) {
      out << " [control]";
    }
    if (node.communicates) {
      out << " [communicates]";
    }
    for (const auto *list : {&node.init, &node.effects, &node.update}) {
      for (const Effect &e : *list) {
        out << (e.kept ? " +" : " -") << program.variables[e.var].model_name;
      }
    }
    out << "\n";
    for (StructIndex c : node.children) {
      show(c, depth + 1);
    }
  };
  for (const auto &f : program.functions) {
    out << "function " << f.name;
    if (f.unstructured) {
      out << " [unstructured: " << f.unstructured_reason << "]";
    }
    if (f.returns_control) {
      out << " [returns control]";
    }
    if (f.recursive) {
      out << " [recursive]";
    }
    out << "\n";
    if (f.body != kNoStruct) {
      show(f.body, 1);
    }
  }
  out << "variables:\n";
  for (const auto &v : program.variables) {
    out << "  " << v.model_name << " (" << v.source_name << ")" << (v.control ? " control" : "")
        << (v.representable ? "" : " data: ") << (v.representable ? "" : v.unrepresentable_reason)
        << "\n";
  }
  for (const auto &d : program.diagnostics) {
    out << d.format() << "\n";
  }
  return out.str();
}

} // namespace parjava::frontend
