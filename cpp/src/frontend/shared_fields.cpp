#include "shared_fields.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <clang/AST/ASTContext.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <llvm/Support/Path.h>

namespace parjava::frontend {

namespace {

// The declaration an object expression names, through `*p`, `&x`, `p->`, casts and parens.
const clang::ValueDecl *object_decl(const clang::Expr *e) {
  for (int depth = 0; e != nullptr && depth < 8; ++depth) {
    e = e->IgnoreParenImpCasts();
    if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(e);
        u != nullptr && (u->getOpcode() == clang::UO_Deref || u->getOpcode() == clang::UO_AddrOf)) {
      e = u->getSubExpr();
      continue;
    }
    if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
      return ref->getDecl();
    }
    return nullptr;
  }
  return nullptr;
}

const clang::ParmVarDecl *by_reference_param(const clang::ValueDecl *d) {
  const auto *p = llvm::dyn_cast_or_null<clang::ParmVarDecl>(d);
  if (p == nullptr || !(p->getType()->isReferenceType() || p->getType()->isPointerType())) {
    return nullptr;
  }
  return p;
}

// Does `body` release the object parameter `param` points at: `free(p)`, `free(p->x)`,
// `delete p`, `delete[] p->x`? Such a function is the object's teardown.
class Releases : public clang::RecursiveASTVisitor<Releases> {
public:
  explicit Releases(const clang::ParmVarDecl *param) : param_(param) {}
  bool TraverseLambdaExpr(clang::LambdaExpr *) { return true; }
  bool VisitCallExpr(clang::CallExpr *call) {
    const clang::FunctionDecl *callee = call->getDirectCallee();
    if (callee != nullptr && callee->getName() == "free" && call->getNumArgs() == 1) {
      found = found || names_param(call->getArg(0));
    }
    return !found;
  }
  bool VisitCXXDeleteExpr(clang::CXXDeleteExpr *del) {
    found = found || names_param(del->getArgument());
    return !found;
  }
  bool found = false;

private:
  // The parameter itself, or a member of the object it points at (through `->` and `.`).
  [[nodiscard]] bool names_param(const clang::Expr *e) const {
    for (int depth = 0; e != nullptr && depth < 8; ++depth) {
      e = e->IgnoreParenCasts();
      if (const auto *m = llvm::dyn_cast<clang::MemberExpr>(e)) {
        e = m->getBase();
        continue;
      }
      return object_decl(e) == param_;
    }
    return false;
  }
  const clang::ParmVarDecl *param_;
};

// A constant stored into a field of an object the same function releases (CoSP2's
// destroySparseMatrix: free(spmatrix->iia) ... spmatrix->hsize = 0): the object is dead after
// it, so the store sets no value another object's reads could see.
bool teardown_store(const clang::BinaryOperator *assign, const clang::ParmVarDecl *param,
                    const FunctionInfo &fn) {
  if (assign->getOpcode() != clang::BO_Assign || fn.decl == nullptr || !fn.decl->hasBody() ||
      fn.context == nullptr || assign->getRHS()->isValueDependent() ||
      !assign->getRHS()->isEvaluatable(*fn.context)) {
    return false;
  }
  Releases r(param);
  r.TraverseStmt(fn.decl->getBody());
  return r.found;
}

class Roots {
public:
  explicit Roots(const Program &p) : p_(p) {
    for (StructIndex n = 0; n < p_.nodes.size(); ++n) {
      const StructNode &node = p_.nodes[n];
      if (node.kind == StructKind::UserCall && node.callee != kNoFunction) {
        calls_[node.callee].push_back(n);
      }
    }
  }

  // The objects parameter `index` of function f receives, as declarations (or the argument
  // expressions themselves when they name none), and one call site each, for the reason.
  void collect(FunctionId f, unsigned index, int depth,
               std::map<const void *, StructIndex> &objects) const {
    const auto found = calls_.find(f);
    if (found == calls_.end() || depth > 8 || objects.size() > 8) {
      return;
    }
    for (StructIndex n : found->second) {
      const StructNode &call = p_.nodes[n];
      if (index >= call.args.size() || call.args[index] == nullptr) {
        continue;
      }
      const clang::ValueDecl *d = object_decl(call.args[index]);
      if (const clang::ParmVarDecl *passed = by_reference_param(d)) {
        // Passed on unchanged: the objects the caller's parameter receives.
        collect(call.function, passed->getFunctionScopeIndex(), depth + 1, objects);
        continue;
      }
      const void *key = d != nullptr ? static_cast<const void *>(d->getCanonicalDecl())
                                     : static_cast<const void *>(call.args[index]);
      objects.emplace(key, n);
    }
  }

private:
  const Program &p_;
  std::map<FunctionId, std::vector<StructIndex>> calls_;
};

} // namespace

namespace {

// The elements' expression of `base` when it is an element at an index the compiler cannot
// evaluate (`a[i]`, `v[i]`, `v.at(i)`), else null.
const clang::Expr *run_time_element(const clang::Expr *base, const clang::ASTContext &ctx) {
  base = base->IgnoreParenImpCasts();
  const clang::Expr *elements = nullptr;
  const clang::Expr *index = nullptr;
  if (const auto *sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(base)) {
    elements = sub->getBase();
    index = sub->getIdx();
  } else if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(base);
             op != nullptr && op->getOperator() == clang::OO_Subscript && op->getNumArgs() == 2) {
    elements = op->getArg(0);
    index = op->getArg(1);
  } else if (const auto *call = llvm::dyn_cast<clang::CXXMemberCallExpr>(base);
             call != nullptr && call->getMethodDecl() != nullptr &&
             call->getMethodDecl()->getName() == "at" && call->getNumArgs() == 1) {
    elements = call->getImplicitObjectArgument();
    index = call->getArg(0);
  }
  if (index == nullptr || index->isValueDependent()) {
    return nullptr;
  }
  clang::Expr::EvalResult constant;
  return index->EvaluateAsInt(constant, ctx) ? nullptr : elements;
}

} // namespace

void note_field_write(VariableResolver &vars, VarId var, const clang::BinaryOperator *assign) {
  Program &program = vars.program();
  if (var == kNoVar || program.variables[var].scope != VarScope::Field ||
      vars.function() == kNoFunction) {
    return;
  }
  const auto *member = llvm::dyn_cast<clang::MemberExpr>(assign->getLHS()->IgnoreParenImpCasts());
  if (member == nullptr) {
    return;
  }
  if (const clang::Expr *elements = run_time_element(member->getBase(), vars.context())) {
    program.field_element_writes.try_emplace(
        var, Program::ElementWrite{vars.function(), assign->getOperatorLoc(),
                                   source_text(elements, vars.context(), 40)});
  }
  if (const clang::ParmVarDecl *p = by_reference_param(object_decl(member->getBase()))) {
    if (teardown_store(assign, p, program.functions[vars.function()])) {
      return;
    }
    program.field_param_writes[var].insert({vars.function(), p->getFunctionScopeIndex()});
  }
}

std::vector<SharedField> fields_of_several_objects(const Program &program) {
  const Roots roots(program);
  std::vector<SharedField> out;
  for (const auto &[var, writers] : program.field_param_writes) {
    for (const auto &[f, index] : writers) {
      std::map<const void *, StructIndex> objects;
      roots.collect(f, index, 0, objects);
      if (objects.size() < 2) {
        continue;
      }
      const FunctionInfo &fn = program.functions[f];
      const clang::ASTContext *unit = fn.context;
      std::string sites;
      int shown = 0;
      for (const auto &[key, n] : objects) {
        const StructNode &call = program.nodes[n];
        const clang::ASTContext &ctx = *program.functions[call.function].context;
        const auto loc = ctx.getSourceManager().getPresumedLoc(
            ctx.getSourceManager().getExpansionLoc(call.range.getBegin()));
        if (shown++ < 3) {
          sites += (sites.empty() ? "" : ", ") + std::string("'") +
                   source_text(call.args.size() > index ? call.args[index] : call.call, ctx, 30) +
                   "' (" +
                   (loc.isValid() ? llvm::sys::path::filename(loc.getFilename()).str() + ":" +
                                        std::to_string(loc.getLine())
                                  : std::string("?")) +
                   ")";
        }
      }
      SharedField s;
      s.var = var;
      s.why = "'" + program.variables[var].source_name + "' is set by " + fn.name + "() for " +
              std::to_string(objects.size()) + " objects (" + sites +
              "), and the model keeps one value per field, not per object";
      s.where = fn.decl != nullptr ? fn.decl->getLocation() : clang::SourceLocation();
      s.unit = unit;
      out.push_back(std::move(s));
      break;
    }
  }
  // Two local objects of one function: minisweep's StepScheduler_must_do_recv keeps the
  // StepInfo of the sending and of the receiving step (`source.is_active &&
  // target.is_active && source.octant == target.octant`), each returned by value from
  // StepScheduler_stepinfo; with one variable per field both were the last call's, every
  // comparison true, and the model posted receives the program never does (deadlock at np 1).
  for (const auto &[var, functions] : program.field_local_objects) {
    if (std::any_of(out.begin(), out.end(),
                    [v = var](const SharedField &s) { return s.var == v; })) {
      continue;
    }
    for (const auto &[f, objects] : functions) {
      if (objects.size() < 2 || !program.live(f)) {
        continue;
      }
      std::vector<const clang::VarDecl *> sorted(objects.begin(), objects.end());
      std::sort(sorted.begin(), sorted.end(), [](const clang::VarDecl *a, const clang::VarDecl *b) {
        return a->getLocation() < b->getLocation();
      });
      std::string names;
      for (std::size_t i = 0; i < sorted.size() && i < 3; ++i) {
        names += (i == 0 ? "'" : ", '") + sorted[i]->getNameAsString() + "'";
      }
      const FunctionInfo &fn = program.functions[f];
      SharedField s;
      s.var = var;
      s.why = "'" + program.variables[var].source_name + "' is a field of " +
              std::to_string(sorted.size()) + " local objects of " + fn.name + "() (" + names +
              "), and the model keeps one value per field, not per object";
      s.where = sorted.front()->getLocation();
      s.unit = fn.context;
      out.push_back(std::move(s));
      break;
    }
  }
  return out;
}

void report_element_fields(Program &program) {
  std::set<VarId> kept;
  for (const StructNode &node : program.nodes) {
    for (const Effect &e : node.effects) {
      if (e.kept) {
        kept.insert(e.var);
      }
    }
  }
  // (function, container) -> the first write's place and the fields' names
  std::map<std::pair<FunctionId, std::string>,
           std::pair<clang::SourceLocation, std::vector<std::string>>>
      groups;
  for (const auto &[var, write] : program.field_element_writes) {
    if (!kept.contains(var) || !program.variables[var].representable) {
      continue;
    }
    auto &group = groups[{write.function, write.container}];
    if (group.second.empty()) {
      group.first = write.location;
    }
    group.second.push_back("'" + program.variables[var].source_name + "'");
  }
  for (const auto &[key, group] : groups) {
    const FunctionInfo &fn = program.functions[key.first];
    std::string fields;
    for (std::size_t i = 0; i < group.second.size(); ++i) {
      fields += (i == 0 ? "" : i + 1 == group.second.size() ? " and " : ", ") + group.second[i];
    }
    Diagnostic d;
    d.kind = DiagnosticKind::Approximation;
    d.severity = Severity::Warning;
    d.function = fn.name;
    d.message = fields + " of the elements of '" + key.second +
                "' are written at a run-time index, and the model keeps one value per field, "
                "not per element: every element has the value written last (exact when the "
                "elements are alike, the last element's otherwise)";
    const clang::SourceManager &sm = fn.context->getSourceManager();
    const auto ploc = sm.getPresumedLoc(sm.getExpansionLoc(group.first));
    if (ploc.isValid()) {
      d.file = program.source_file(*fn.context, ploc.getFilename());
      d.line = ploc.getLine();
      d.column = ploc.getColumn();
    }
    program.diagnostics.push_back(std::move(d));
  }
}

void mark_measured_through(Program &program) {
  if (program.shared_fields.empty()) {
    return;
  }
  std::map<VarId, std::vector<VarId>> from; // a variable -> the variables its values read
  for (const StructNode &node : program.nodes) {
    for (const auto *list : {&node.effects, &node.init, &node.update}) {
      for (const Effect &e : *list) {
        auto &uses = from[e.var];
        uses.insert(uses.end(), e.uses.begin(), e.uses.end());
      }
    }
    if (node.kind == StructKind::UserCall && node.callee != kNoFunction) {
      const auto &params = program.functions[node.callee].params;
      for (std::size_t i = 0; i < params.size() && i < node.arg_uses.size(); ++i) {
        if (params[i] != kNoVar) {
          auto &uses = from[params[i]];
          uses.insert(uses.end(), node.arg_uses[i].begin(), node.arg_uses[i].end());
        }
      }
    }
  }
  std::map<VarId, std::size_t> parameter_of;
  for (std::size_t k = 0; k < program.parameters.size(); ++k) {
    if (program.parameters[k].input && program.parameters[k].var != kNoVar) {
      parameter_of[program.parameters[k].var] = k;
    }
  }
  for (VarId field : program.shared_fields) {
    std::set<VarId> seen{field};
    std::vector<VarId> stack{field};
    while (!stack.empty() && seen.size() < 4096) {
      const VarId v = stack.back();
      stack.pop_back();
      if (const auto p = parameter_of.find(v); p != parameter_of.end()) {
        auto &list = program.parameters[p->second].measured_through;
        const std::string &name = program.variables[field].source_name;
        if (std::find(list.begin(), list.end(), name) == list.end()) {
          list.push_back(name);
        }
      }
      if (const auto it = from.find(v); it != from.end()) {
        for (VarId u : it->second) {
          if (u != kNoVar && seen.insert(u).second) {
            stack.push_back(u);
          }
        }
      }
    }
  }
}

} // namespace parjava::frontend
