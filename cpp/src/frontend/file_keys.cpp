#include "file_keys.hpp"

#include <algorithm>
#include <cctype>

#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Lex/Lexer.h>

namespace parjava::frontend {

namespace {

// A key-like string literal under implicit conversions and std::string temporaries.
std::optional<std::string> key_literal(const clang::Expr *e) {
  e = e->IgnoreImplicit()->IgnoreParens();
  if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(e);
      construct != nullptr && construct->getNumArgs() >= 1) {
    e = construct->getArg(0)->IgnoreImplicit()->IgnoreParens();
  }
  const auto *literal = llvm::dyn_cast<clang::StringLiteral>(e);
  if (literal == nullptr || !literal->isOrdinary()) {
    return std::nullopt;
  }
  const std::string text = literal->getString().str();
  const bool word =
      !text.empty() && text.size() <= 40 && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
      });
  return word ? std::optional<std::string>(text) : std::nullopt;
}

bool mentions_command_line(const clang::Expr *e, clang::ASTContext &context) {
  const clang::SourceManager &sm = context.getSourceManager();
  const std::string text =
      clang::Lexer::getSourceText(clang::CharSourceRange::getTokenRange(e->getSourceRange()), sm,
                                  context.getLangOpts())
          .str();
  // An identifier of the command line's idioms: argv, optarg, a copy (args[i], arg == "-n").
  std::string word;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ' ';
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += c;
      continue;
    }
    if (word == "argv" || word == "optarg" || word == "args" || word == "arg" || word == "argc") {
      return true;
    }
    word.clear();
  }
  return false;
}

// The key of `a == "key"` / `"key" == a` (also std::string's operator==), or of a strcmp-like
// call compared with 0 (or negated), or a.compare("key") == 0.
std::optional<std::string> key_test(const clang::Expr *cond, clang::ASTContext &context) {
  cond = cond->IgnoreImplicit()->IgnoreParens();
  const clang::Expr *lhs = nullptr;
  const clang::Expr *rhs = nullptr;
  if (const auto *b = llvm::dyn_cast<clang::BinaryOperator>(cond);
      b != nullptr && b->getOpcode() == clang::BO_EQ) {
    lhs = b->getLHS();
    rhs = b->getRHS();
  } else if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(cond);
             op != nullptr && op->getOperator() == clang::OO_EqualEqual && op->getNumArgs() == 2) {
    lhs = op->getArg(0);
    rhs = op->getArg(1);
  } else if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(cond);
             u != nullptr && u->getOpcode() == clang::UO_LNot) {
    lhs = u->getSubExpr();
  } else {
    return std::nullopt;
  }
  if (rhs != nullptr) {
    if (auto key = key_literal(rhs); key && !mentions_command_line(lhs, context)) {
      return key;
    }
    if (auto key = key_literal(lhs); key && !mentions_command_line(rhs, context)) {
      return key;
    }
    clang::Expr::EvalResult zero;
    if (!rhs->EvaluateAsInt(zero, context) || zero.Val.getInt() != 0) {
      return std::nullopt;
    }
  }
  // strcmp(a, "key") / a.compare("key"), compared with 0 or negated.
  const auto *call = llvm::dyn_cast<clang::CallExpr>(lhs->IgnoreImplicit()->IgnoreParens());
  const clang::FunctionDecl *callee = call != nullptr ? call->getDirectCallee() : nullptr;
  if (callee == nullptr || mentions_command_line(call, context)) {
    return std::nullopt;
  }
  const std::string name = callee->getNameAsString();
  if (name != "strcmp" && name != "strcasecmp" && name != "compare") {
    return std::nullopt;
  }
  for (const clang::Expr *arg : call->arguments()) {
    if (auto key = key_literal(arg)) {
      return key;
    }
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string> file_key(const clang::Stmt *s, const clang::Expr *value,
                                    clang::ASTContext &context) {
  if (value == nullptr || mentions_command_line(value, context)) {
    return std::nullopt;
  }
  const clang::Stmt *child = s;
  for (auto parents = context.getParents(*child); !parents.empty();
       parents = context.getParents(*child)) {
    const clang::Stmt *parent = parents[0].get<clang::Stmt>();
    if (parent == nullptr) {
      return std::nullopt; // a declaration or the function: no loop around
    }
    if (llvm::isa<clang::ForStmt>(parent) || llvm::isa<clang::WhileStmt>(parent) ||
        llvm::isa<clang::DoStmt>(parent) || llvm::isa<clang::CXXForRangeStmt>(parent)) {
      return std::nullopt;
    }
    if (const auto *branch = llvm::dyn_cast<clang::IfStmt>(parent);
        branch != nullptr && branch->getThen() == child && branch->getCond() != nullptr) {
      return key_test(branch->getCond(), context);
    }
    child = parent;
  }
  return std::nullopt;
}

} // namespace parjava::frontend
