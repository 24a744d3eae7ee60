#include "input_reads.hpp"

#include <functional>

#include <clang/AST/ExprCXX.h>

namespace parjava::frontend {

// Program inputs (issue 12): an Input effect and the InputSite that says how it is read.
Effect input(VariableResolver &vars, VarId var, std::string how, std::string what,
             const std::string &spelling, clang::SourceLocation where) {
  Program &program = vars.program();
  InputSite site;
  site.var = var;
  site.function = vars.function();
  site.how = std::move(how);
  site.what = std::move(what);
  site.spelling = spelling;
  site.location = where;
  Effect e;
  e.kind = Effect::Kind::Input;
  e.var = var;
  e.location = where;
  e.input = static_cast<std::uint32_t>(program.inputs.size());
  program.inputs.push_back(std::move(site));
  return e;
}

DynamicElement dynamic_element(const clang::Expr *arg, VariableResolver &vars) {
  DynamicElement out;
  const clang::Expr *e = arg->IgnoreParenCasts();
  const clang::Expr *base = nullptr;
  if (const auto *b = llvm::dyn_cast<clang::BinaryOperator>(e);
      b != nullptr && b->getOpcode() == clang::BO_Add) {
    const bool left = b->getLHS()->getType()->isPointerType();
    base = left ? b->getLHS() : b->getRHS();
    out.index = left ? b->getRHS() : b->getLHS();
  } else if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(e);
             u != nullptr && u->getOpcode() == clang::UO_AddrOf) {
    if (const auto *sub =
            llvm::dyn_cast<clang::ArraySubscriptExpr>(u->getSubExpr()->IgnoreParenImpCasts())) {
      base = sub->getBase();
      out.index = sub->getIdx();
    }
  }
  if (base == nullptr) {
    return out;
  }
  const auto target = vars.pointer_target(base);
  if (!target || target->aggregate == kNoAggregate) {
    return out;
  }
  out.aggregate = target->aggregate;
  out.offset = target->offset;
  return out;
}

// The string literals of a constant table of option prefixes (`char cparams[][7] = {"--nx=",
// "--ny=", ...}`) that `table[j]` reads; empty when `e` is no such read.
std::vector<std::string> option_table(const clang::Expr *e, const clang::ValueDecl *index) {
  const auto *sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(e->IgnoreParenImpCasts());
  if (sub == nullptr || named_decl(sub->getIdx()->IgnoreParenImpCasts()) != index) {
    return {};
  }
  const auto *table =
      llvm::dyn_cast_or_null<clang::VarDecl>(named_decl(sub->getBase()->IgnoreParenImpCasts()));
  if (table == nullptr || !table->hasInit() || !table->getType()->isArrayType()) {
    return {};
  }
  const auto *list = llvm::dyn_cast<clang::InitListExpr>(table->getInit()->IgnoreImplicit());
  if (list == nullptr) {
    return {};
  }
  std::vector<std::string> out;
  for (const clang::Expr *init : list->inits()) {
    const auto *str = llvm::dyn_cast<clang::StringLiteral>(init->IgnoreParenImpCasts());
    if (str == nullptr || !str->isOrdinary()) {
      return {};
    }
    out.push_back(str->getString().str());
  }
  return out;
}

// `argv[i] + strlen(table[j])` (the text after an option prefix): the prefixes of the table
// when `j` is `index`, else none.
std::vector<std::string> prefix_table(const clang::Expr *text, const clang::Expr *index) {
  const auto *b = llvm::dyn_cast<clang::BinaryOperator>(text->IgnoreParenCasts());
  const clang::ValueDecl *j = named_decl(index->IgnoreParenImpCasts());
  if (b == nullptr || b->getOpcode() != clang::BO_Add || j == nullptr) {
    return {};
  }
  const auto *call = llvm::dyn_cast<clang::CallExpr>(b->getRHS()->IgnoreParenCasts());
  const clang::FunctionDecl *callee = call ? call->getDirectCallee() : nullptr;
  if (callee == nullptr || callee->getName() != "strlen" || call->getNumArgs() != 1 ||
      !llvm::isa<clang::ArraySubscriptExpr>(b->getLHS()->IgnoreParenImpCasts())) {
    return {};
  }
  return option_table(call->getArg(0), j);
}

// An option prefix as the option users write and the parameter's name: "--nx=" -> ("--nx",
// "nx"); nullopt when what is left is not an identifier.
std::optional<std::pair<std::string, std::string>> prefix_option(const std::string &prefix) {
  std::string option = prefix;
  while (!option.empty() && (option.back() == '=' || option.back() == ':')) {
    option.pop_back();
  }
  std::string name = option;
  name.erase(0, name.find_first_not_of('-'));
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())) ||
      !std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      })) {
    return std::nullopt;
  }
  return std::make_pair(option, name);
}

OptionLiterals option_literals(const std::vector<const clang::Expr *> &args) {
  OptionLiterals out;
  bool short_seen = false;
  for (const clang::Expr *arg : args) {
    const clang::Expr *e = arg->IgnoreParenImpCasts();
    if (const auto *str = llvm::dyn_cast<clang::StringLiteral>(e)) {
      if (!str->isOrdinary()) {
        continue;
      }
      const std::string text = str->getString().str();
      const bool word =
          !text.empty() && text.size() <= 40 && std::all_of(text.begin(), text.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
          });
      if (word) {
        out.options.push_back(text.front() == '-' ? text : "--" + text);
        if (out.first_word.empty()) {
          out.first_word = text;
        }
      } else if (text.find(' ') != std::string::npos && text.size() > out.doc.size()) {
        out.doc = text;
      }
    } else if (const auto *ch = llvm::dyn_cast<clang::CharacterLiteral>(e)) {
      // The first character is the short option; later ones are flags of the table (a type).
      const unsigned c = ch->getValue();
      if (c > 32 && c < 127 && !short_seen) {
        short_seen = true;
        out.options.push_back(std::string("-") + static_cast<char>(c));
      }
    }
  }
  return out;
}

bool is_input_conversion(const clang::Expr *value, const CallClassifier &calls,
                         clang::ASTContext &context) {
  if (value == nullptr) {
    return false;
  }
  const clang::Expr *e = value->IgnoreParenCasts();
  if (const auto *cond = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
    // `n = argc > 1 ? atoi(argv[1]) : 64;`: the value the run measures is still the input's (or
    // its default), so the variable is the input either way.
    const auto constant = [&](const clang::Expr *x) {
      clang::Expr::EvalResult r;
      return x->IgnoreParenCasts()->EvaluateAsRValue(r, context);
    };
    const bool t = is_input_conversion(cond->getTrueExpr(), calls, context);
    const bool f = is_input_conversion(cond->getFalseExpr(), calls, context);
    return (t && (f || constant(cond->getFalseExpr()))) || (f && constant(cond->getTrueExpr()));
  }
  if (!llvm::isa<clang::CallExpr>(e)) {
    return false;
  }
  return calls.classify(e, context).kind == CallClass::InputNumber;
}

const clang::Expr *conversion_within(const clang::Expr *value, const CallClassifier &calls,
                                     clang::ASTContext &context) {
  if (value == nullptr || is_input_conversion(value, calls, context)) {
    return nullptr;
  }
  const clang::Expr *found = nullptr;
  int count = 0;
  const std::function<void(const clang::Stmt *)> walk = [&](const clang::Stmt *s) {
    if (s == nullptr || count > 1) {
      return;
    }
    if (const auto *e = llvm::dyn_cast<clang::Expr>(s);
        e != nullptr && llvm::isa<clang::CallExpr>(e->IgnoreParenCasts()) &&
        is_input_conversion(e, calls, context)) {
      found = e->IgnoreParenCasts();
      ++count;
      return;
    }
    for (const clang::Stmt *child : s->children()) {
      walk(child);
    }
  };
  walk(value);
  return count == 1 ? found : nullptr;
}

// Where the number an input conversion reads comes from: "environment" when its text is
// getenv()'s, directly or through a local initialised with it (PRK's header reads
// `char *temp = getenv("PRK_ALIGNMENT"); int a = (temp != NULL) ? atoi(temp) : 64;`), else
// "argv". An environment variable is no position of the command line, so Model.arguments() has
// nothing to say about it; the estimation measures its value.
std::string input_origin(const clang::Expr *value) {
  const clang::Expr *e = value->IgnoreParenCasts();
  if (const auto *cond = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
    const std::string t = input_origin(cond->getTrueExpr());
    return t == "environment" ? t : input_origin(cond->getFalseExpr());
  }
  const auto *call = llvm::dyn_cast<clang::CallExpr>(e);
  if (call == nullptr || call->getNumArgs() == 0) {
    return "argv";
  }
  const clang::Expr *text = call->getArg(0)->IgnoreParenCasts();
  if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(text)) {
    const auto *local = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
    text = local != nullptr && local->hasInit() ? local->getInit()->IgnoreParenCasts() : text;
  }
  const auto *source = llvm::dyn_cast<clang::CallExpr>(text);
  const clang::FunctionDecl *callee = source != nullptr ? source->getDirectCallee() : nullptr;
  return callee != nullptr && callee->getName() == "getenv" ? "environment" : "argv";
}

} // namespace parjava::frontend
