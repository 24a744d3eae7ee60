#include "hidden_writes.hpp"

#include "effects.hpp"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <set>

namespace parjava::frontend {

// A record an external function returns (div_t from div(), a struct from a library) is written
// with values the model cannot know, and a field of a record is one variable per field, shared
// by every object of the type (variables.cpp): so the call makes every arithmetic field of the
// type data, also of the records in a standard container it returns. HPCG's ComputePrimeFactors
// loops `while (1) { r = div(n, d); if (r.rem == 0) {
// ...; continue; } break; }`: without this `r.rem` stayed 0 in the model and rank 3 of 4 looped
// forever. Records of the C++ library (std::string, iterators) keep no model variables.
void returned_record_fields(const ClassifiedCall &call, VariableResolver &vars,
                            std::vector<Effect> &out, const clang::RecordDecl *record,
                            const std::string &spelling, int depth) {
  if (record == nullptr || depth > 3) {
    return;
  }
  record = record->getDefinition();
  if (record == nullptr) {
    return;
  }
  if (record->isInStdNamespace()) {
    // A standard container of the program's records that a library function fills
    // (`std::vector<tile_info> from_a_library(int)`): its elements' fields are the library's.
    // The containers' own members (begin(), size(), an element reference) and the standard
    // library's functions (std::back_inserter) hold or make no values of their own.
    const auto *spec = llvm::dyn_cast<clang::ClassTemplateSpecializationDecl>(record);
    if (spec == nullptr || call.callee == nullptr || call.callee->isInStdNamespace() ||
        llvm::isa<clang::CXXMethodDecl>(call.callee)) {
      return;
    }
    for (const clang::TemplateArgument &a : spec->getTemplateArgs().asArray()) {
      if (a.getKind() == clang::TemplateArgument::Type) {
        returned_record_fields(call, vars, out, a.getAsType()->getAsRecordDecl(), spelling,
                               depth + 1);
      }
    }
    return;
  }
  for (const clang::FieldDecl *field : record->fields()) {
    const clang::QualType type = field->getType().getCanonicalType();
    if (const clang::RecordDecl *inner = type->getAsRecordDecl()) {
      returned_record_fields(call, vars, out, inner, spelling, depth + 1);
      continue;
    }
    if (!type->isIntegralOrEnumerationType() && !type->isRealFloatingType()) {
      continue;
    }
    const VarId v = vars.declare(field);
    if (v != kNoVar) {
      out.push_back(
          havoc(v, "returned in a " + spelling + " by " + call.name + "() (an external function)",
                call.expr->getBeginLoc()));
    }
  }
}

// `tiles[t]`, `v.at(k)`, `v.front()`, `*it` of a standard container of the program's records:
// a reference to an element, whose fields hold what the program wrote into them (a field is one
// variable whatever the object, as for `cells[i].count` of a C array), not a library's values.
// UoB-HPC/CloverLeaf keeps its tile bounds in a std::vector<tile_info>: every loop over a tile
// was timed as a constant because `tiles[tile]` made tile_info's fields data.
bool container_element(const ClassifiedCall &call) {
  const auto *method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(call.callee);
  if (method == nullptr || !method->getParent()->isInStdNamespace() ||
      !method->getReturnType()->isLValueReferenceType()) {
    return false;
  }
  if (method->getOverloadedOperator() == clang::OO_Subscript ||
      method->getOverloadedOperator() == clang::OO_Star ||
      method->getOverloadedOperator() == clang::OO_Arrow) {
    return true;
  }
  const std::string name = method->getNameAsString();
  return name == "at" || name == "front" || name == "back";
}

// What a function the model measures in place (a recursive one: mark_recursive_functions) and
// the functions it calls assign, in globals and fields: the model never runs those statements,
// so the values are data. A linked hierarchy built recursively -- `l->n = n; l->coarse =
// build(levels - 1, n / 8);` -- left the field `n` at 0 in the model, and every loop bounded by
// it ran zero times (the self-check missed by 90 %).
namespace {

class AssignedTargets : public clang::RecursiveASTVisitor<AssignedTargets> {
public:
  bool VisitBinaryOperator(clang::BinaryOperator *op) {
    if (op->isAssignmentOp()) {
      targets.push_back(op->getLHS());
    }
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator *op) {
    if (op->isIncrementDecrementOp()) {
      targets.push_back(op->getSubExpr());
    }
    return true;
  }
  bool VisitCallExpr(clang::CallExpr *call) {
    callees.push_back(call->getDirectCallee());
    return true;
  }
  std::vector<const clang::Expr *> targets;
  std::vector<const clang::FunctionDecl *> callees;
};

} // namespace

void in_place_writes(const ClassifiedCall &call, FunctionId first, VariableResolver &vars,
                     std::vector<Effect> &out) {
  Program &program = vars.program();
  std::set<FunctionId> seen{first};
  std::vector<FunctionId> work{first};
  std::set<VarId> written;
  while (!work.empty()) {
    const FunctionId g = work.back();
    work.pop_back();
    const FunctionInfo &fn = program.functions[g];
    if (fn.decl->getBody() == nullptr) {
      continue;
    }
    AssignedTargets found;
    found.TraverseStmt(fn.decl->getBody());
    VariableResolver resolver(program, *fn.context, g);
    for (const clang::Expr *target : found.targets) {
      const VarId v = resolver.lvalue(target);
      if (v != kNoVar && (program.variables[v].scope == VarScope::Global ||
                          program.variables[v].scope == VarScope::Field)) {
        written.insert(v);
      }
    }
    for (const clang::FunctionDecl *callee : found.callees) {
      const FunctionId h = program.callee_of(callee);
      if (h != kNoFunction && seen.insert(h).second) {
        work.push_back(h);
      }
    }
  }
  for (VarId v : written) {
    out.push_back(havoc(v,
                        "assigned in " + call.name +
                            "(), which the model measures in place (it is recursive) and so "
                            "never runs",
                        call.expr->getBeginLoc()));
  }
}

} // namespace parjava::frontend
