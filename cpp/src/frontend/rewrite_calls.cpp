// The probes of calls and values (see unit_rewriter.hpp): a call timed inside a condition,
// dispatch through pointers and virtual calls, switch selectors, the values of arguments and
// program inputs.
#include "unit_rewriter.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <clang/AST/ASTContext.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/StmtOpenMP.h>
#include <clang/Basic/SourceManager.h>

#include "model_emitter.hpp"
#include "sized_calls.hpp"
#include "variables.hpp"

namespace parjava::frontend {

// `f(...)` somewhere in `text`: a name followed by `(`, not a parenthesised lvalue such as
// `(params)[1]`.
bool UnitRewriter::spelled_as_call(const std::string &text) {
  for (std::size_t i = text.find('('); i != std::string::npos; i = text.find('(', i + 1)) {
    std::size_t j = i;
    while (j > 0 && (text[j - 1] == ' ' || text[j - 1] == '\t')) {
      --j;
    }
    if (j > 0 &&
        (std::isalnum(static_cast<unsigned char>(text[j - 1])) != 0 || text[j - 1] == '_')) {
      return true;
    }
  }
  return false;
}

// After the statement that sets a program input, the value it set (the model parameter's
// value in the estimation run). A place that cannot hold it drops this probe only: the
// node's other probes do not depend on it.
void UnitRewriter::input_value(const ProbeSite &site) {
  const clang::Stmt *s = site.after;
  if (s != nullptr && !statement_position(s)) {
    s = llvm::isa<clang::Expr>(s) ? enclosing_statement(s) : nullptr;
  }
  // The variable is read back by its spelling; a spelling that is a call (a macro use,
  // graph500's `SETCOLUMN(next, gtgt)`: a memcpy returning a pointer) is not the variable,
  // and `(double)` of it did not compile.
  if (s == nullptr || spelled_as_call(site.spelling)) {
    dropped_.insert(site.slot);
    return;
  }
  const std::string text =
      " pj_value(" + std::to_string(site.slot) + ", (double)(" + site.spelling + "));";
  const Point end = end_of(s);
  const bool braces = place_of(s) == Place::ControlBody;
  const Point begin = before(s->getBeginLoc());
  if (!edits_.check(end).empty() || (braces && !edits_.check(begin).empty())) {
    dropped_.insert(site.slot);
    return;
  }
  if (braces) {
    open(begin, "{ ");
    close(end, text + " }");
  } else if (llvm::isa<clang::ForStmt, clang::WhileStmt, clang::DoStmt, clang::CXXForRangeStmt>(
                 s)) {
    // After the whole loop (an option table's inputs hold once the loop over argv ends):
    // opened at its end, so it follows the braces and probes that close the loop there.
    open(end, text);
  } else {
    close(end, text);
  }
}

// A call in a condition, timed around the call expression: a GNU statement expression (GCC
// and Clang, C and C++) that runs the call once between the probe's two clock readings and
// gives its value.
void UnitRewriter::timed_call(const StructNode &node, std::uint32_t k) {
  const clang::Expr *call = node.call;
  if (call == nullptr) {
    throw Skip{"the call has no expression"};
  }
  const std::string id = std::to_string(k);
  const clang::QualType type = call->getType();
  if (type->isVoidType()) {
    open(before(call->getBeginLoc()), "__extension__ ({ " + begin_probe(k) + " ");
    close(after_token(call->getEndLoc()), "; PJ_END(" + id + ") })");
    return;
  }
  if (!type->isArithmeticType() && !type->isEnumeralType() && !type->isPointerType()) {
    throw Skip{"the call's value is a " + type.getAsString() + ", not a number or a pointer"};
  }
  const std::string text = edits_.text(call->getBeginLoc(), call->getEndLoc());
  const std::string value = "pj_c" + id + "v";
  open(before(call->getBeginLoc()),
       "__extension__ ({ " + begin_probe(k) + " __typeof__((" + text + ") + 0) " + value + " = (");
  close(after_token(call->getEndLoc()), "); PJ_END(" + id + ") " + value + "; })");
}

// A pointer argument handed to the runtime before the call releases its block.
void UnitRewriter::observe_pointer(const clang::Expr *expr, const std::string &probe) {
  open(before(expr->getBeginLoc()), "__extension__ ({ void *pj_p = (void *)(");
  close(after_token(expr->getEndLoc()), "); " + probe + "(pj_p); pj_p; })");
}

// One test of a dispatch chain (dispatch.hpp), counted where the pointer is read for the
// call: `(earlier ? 0 : pj_branch(k, fp == f_i)), fp` around the callee, so the counts are
// those of `if (fp == f1) ... else if (fp == f2) ...`. The callee has no side effects
// (CallClassifier::indirect_targets), so reading it again changes nothing.
void UnitRewriter::dispatch(const StructNode &node, std::uint32_t k) {
  const clang::CallExpr *call = node.dispatch_call;
  const clang::Expr *callee = call->getCallee();
  const ClassifiedCall classified = a_.calls->classify(call, ctx_);
  if (classified.virtual_call) {
    virtual_dispatch(node, classified, k);
    return;
  }
  const std::vector<FunctionId> &targets = classified.targets;
  const std::string pointer =
      "((void (*)(void))(" + edits_.text(callee->getBeginLoc(), callee->getEndLoc()) + "))";
  std::string earlier;
  std::string test;
  for (const FunctionId t : targets) {
    const auto spelling = dispatch_spelling(a_.program, t, ctx_, call->getBeginLoc());
    if (!spelling) {
      throw Skip{"the function '" + a_.program.functions[t].name +
                 "' cannot be named in this file"};
    }
    if (!spelling->declaration.empty()) {
      declarations_.emplace(t, spelling->declaration);
    }
    if (t == node.dispatch) {
      test = pointer + " == " + spelling->expression;
      break;
    }
    earlier += (earlier.empty() ? "" : " || ") + pointer + " == " + spelling->expression;
  }
  if (test.empty()) {
    throw Skip{"the call's targets changed"};
  }
  const std::string probe = "pj_branch(" + std::to_string(k) + ", !!(" + test + "))";
  open(before(callee->getBeginLoc()),
       "((" + (earlier.empty() ? probe : "(" + earlier + ") ? 0 : " + probe) + "), ");
  close(after_token(callee->getEndLoc()), ")");
}

// One test of a virtual call's dispatch (CallClassifier::virtual_targets), counted where the
// object is read for the call: `((earlier ? 0 : pj_branch(k, typeid(*obj) is C_i)), obj)->f()`.
// The object has no side effects, so reading it again changes nothing; the classes are named
// by their typeid names, so the unit need not see their definitions.
void UnitRewriter::virtual_dispatch(const StructNode &node, const ClassifiedCall &c,
                                    std::uint32_t k) {
  const auto *member = llvm::dyn_cast<clang::CXXMemberCallExpr>(node.dispatch_call);
  const auto *callee =
      member ? llvm::dyn_cast<clang::MemberExpr>(member->getCallee()->IgnoreParens()) : nullptr;
  if (callee == nullptr || c.object == nullptr) {
    throw Skip{"the virtual call has no object expression"};
  }
  const clang::Expr *object = c.object;
  const bool implicit_this =
      object->getBeginLoc().isInvalid() ||
      (llvm::isa<clang::CXXThisExpr>(object->IgnoreParenImpCasts()) &&
       llvm::cast<clang::CXXThisExpr>(object->IgnoreParenImpCasts())->isImplicit());
  const std::string text =
      implicit_this ? "this" : edits_.text(object->getBeginLoc(), object->getEndLoc());
  const std::string dynamic = "typeid(" +
                              std::string(callee->isArrow() || implicit_this ? "*" : "") + "(" +
                              text + ")).name()";
  std::string earlier;
  std::string test;
  for (std::size_t i = 0; i < c.targets.size(); ++i) {
    const std::string is = "__builtin_strcmp(" + dynamic + ", \"" + c.type_names[i] + "\") == 0";
    if (c.targets[i] == node.dispatch) {
      test = is;
      break;
    }
    earlier += (earlier.empty() ? "" : " || ") + is;
  }
  if (test.empty()) {
    throw Skip{"the call's targets changed"};
  }
  // One line among the declarations (declaration_lines() counts them).
  declarations_.emplace(kNoFunction, "#include <typeinfo>\n");
  const std::string probe = "pj_branch(" + std::to_string(k) + ", !!(" + test + "))";
  const std::string counted =
      "((" + (earlier.empty() ? probe : "(" + earlier + ") ? 0 : " + probe) + "), ";
  if (implicit_this) {
    open(before(callee->getMemberLoc()), counted + "this)->");
    return;
  }
  open(before(object->getBeginLoc()), counted);
  close(after_token(object->getEndLoc()), ")");
}

// `expr` evaluated once into a temporary the probe reads, then the expression's value: a GNU
// statement expression (GCC and Clang, C and C++), so an argument with side effects or calls
// (`x.counts.data()`, `n++`) runs exactly as often as in the user's program. `+ 0` decays an
// array and gives enums and bit-fields a type a variable can have.
void UnitRewriter::observe(const clang::Expr *expr, const std::string &probe) {
  const std::string text = edits_.text(expr->getBeginLoc(), expr->getEndLoc());
  open(before(expr->getBeginLoc()), "__extension__ ({ __typeof__((" + text + ") + 0) pj_v = (");
  close(after_token(expr->getEndLoc()), "); " + probe + "; pj_v; })");
}

void UnitRewriter::selector(const StructNode &node, std::uint32_t k) {
  const auto *sw = llvm::dyn_cast_or_null<clang::SwitchStmt>(node.stmt);
  if (sw == nullptr || sw->getConditionVariable() != nullptr) {
    throw Skip{"the selector declares a variable"};
  }
  observe(sw->getCond(), "pj_switch(" + std::to_string(k) + ", (long)pj_v)");
}

// The communicator argument of the node's MPI call, as text ("MPI_COMM_WORLD" if none).
std::string UnitRewriter::communicator_text(const StructNode &node) {
  for (const CommArg &a : node.comm_args) {
    if (a.name == "comm" && a.expr != nullptr) {
      return edits_.text(a.expr->getBeginLoc(), a.expr->getEndLoc());
    }
  }
  return "MPI_COMM_WORLD";
}

void UnitRewriter::argument_value(const StructNode &node, const ProbeSite &site) {
  const clang::Expr *expr = site.value;
  if (expr == nullptr) {
    throw Skip{"the argument has no expression"};
  }
  const std::string k = std::to_string(site.slot);
  const clang::QualType type = expr->IgnoreParenImpCasts()->getType();
  if (type->isPointerType() || type->isArrayType()) {
    // A per-peer count array (MPI_Alltoallv's counts): the mean over the communicator's
    // ranks, which the runtime asks MPI for.
    const clang::QualType element = type->isPointerType()
                                        ? type->getPointeeType()
                                        : clang::QualType(type->getArrayElementTypeNoTypeQual(), 0);
    if (!element->isIntegerType()) {
      throw Skip{"the argument is an array of " + element.getAsString() + ", not of counts"};
    }
    observe(expr, "pj_value_counts(" + k + ", (const int *)pj_v, (int)MPI_Comm_c2f(" +
                      communicator_text(node) + "))");
    return;
  }
  if (!type->isArithmeticType() && !type->isEnumeralType()) {
    throw Skip{"the argument is not a number"};
  }
  observe(expr, "pj_value(" + k + ", (double)pj_v)");
}

} // namespace parjava::frontend
