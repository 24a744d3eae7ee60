#include "compile_time_inputs.hpp"

#include <cctype>
#include <fstream>
#include <set>
#include <string_view>

#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

namespace parjava::frontend {

namespace {

// Deep enough for a constant computed from constants computed from the flag (miniWeather's
// dx = xlen / nx_glob); a bound, since a constant's initialiser may name another constant.
constexpr int kMaxDepth = 8;

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) {
    s.remove_prefix(1);
  }
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) {
    s.remove_suffix(1);
  }
  return s;
}

bool reads(const clang::Stmt *s, const clang::ASTContext &ctx, int depth);

bool initializer_reads(const clang::Expr *e, const clang::ASTContext &ctx, int depth) {
  const clang::Expr *init = nullptr;
  const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e);
  if (ref == nullptr) {
    return false;
  }
  if (const auto *var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl())) {
    if (var->getType().isConstQualified() || var->isConstexpr()) {
      init = var->getAnyInitializer();
    }
  } else if (const auto *constant = llvm::dyn_cast<clang::EnumConstantDecl>(ref->getDecl())) {
    init = constant->getInitExpr();
  }
  return init != nullptr && reads(init, ctx, depth + 1);
}

bool reads(const clang::Stmt *s, const clang::ASTContext &ctx, int depth) {
  if (s == nullptr || depth > kMaxDepth) {
    return false;
  }
  if (const auto *e = llvm::dyn_cast<clang::Expr>(s)) {
    if (command_line_literal(e, ctx) || initializer_reads(e, ctx, depth)) {
      return true;
    }
  }
  for (const clang::Stmt *child : s->children()) {
    if (reads(child, ctx, depth)) {
      return true;
    }
  }
  return false;
}

} // namespace

std::optional<CommandLineLiteral> command_line_literal(const clang::Expr *e,
                                                       const clang::ASTContext &ctx) {
  if (!llvm::isa<clang::IntegerLiteral, clang::FloatingLiteral>(e)) {
    return std::nullopt;
  }
  const clang::SourceManager &sm = ctx.getSourceManager();
  const clang::SourceLocation loc = e->getBeginLoc();
  if (!loc.isMacroID()) {
    return std::nullopt;
  }
  // The token is spelled where its macro was defined: for -D, in the predefines buffer under
  // the line marker "<command line>", as `#define NAME VALUE`.
  const clang::SourceLocation spelling = sm.getSpellingLoc(loc);
  const clang::PresumedLoc presumed = sm.getPresumedLoc(spelling);
  if (presumed.isInvalid() || std::string_view(presumed.getFilename()) != "<command line>") {
    return std::nullopt;
  }
  const std::string macro = clang::Lexer::getImmediateMacroName(loc, sm, ctx.getLangOpts()).str();
  bool invalid = false;
  const char *at = sm.getCharacterData(spelling, &invalid);
  const llvm::StringRef buffer = sm.getBufferData(sm.getFileID(spelling), &invalid);
  if (invalid || macro.empty() || at == nullptr) {
    return std::nullopt;
  }
  const char *begin = buffer.data();
  const char *end = buffer.data() + buffer.size();
  const char *line = at;
  while (line > begin && line[-1] != '\n') {
    --line;
  }
  const char *stop = at;
  while (stop < end && *stop != '\n') {
    ++stop;
  }
  const std::string_view text(line, static_cast<std::size_t>(stop - line));
  const std::string head = "#define " + macro + " ";
  if (text.substr(0, head.size()) != head) {
    return std::nullopt;
  }
  const std::string_view value = trimmed(text.substr(head.size()));
  const unsigned length = clang::Lexer::MeasureTokenLength(spelling, sm, ctx.getLangOpts());
  // The number alone, or after a minus sign (`-D_OUT_FREQ=-1`): the literal is then the
  // macro's value negated.
  const bool negated =
      value.size() > length && value.front() == '-' && trimmed(value.substr(1)).data() == at;
  if (value.size() < length || value.data() + value.size() != at + length ||
      (value.data() != at && !negated)) {
    return std::nullopt; // a value of several tokens (`-DN=2*100`)
  }
  CommandLineLiteral out;
  out.macro = macro;
  out.negated = negated;
  out.value = std::string(value);
  out.floating = llvm::isa<clang::FloatingLiteral>(e);
  return out;
}

namespace {

// The directive of a line (`if`, `define`, ...) and the text after it; empty when the line is
// not a directive.
std::pair<std::string_view, std::string_view> directive(std::string_view line) {
  line = trimmed(line);
  if (line.empty() || line.front() != '#') {
    return {};
  }
  line = trimmed(line.substr(1));
  std::size_t n = 0;
  while (n < line.size() && std::isalpha(static_cast<unsigned char>(line[n])) != 0) {
    ++n;
  }
  return {line.substr(0, n), trimmed(line.substr(n))};
}

bool names(std::string_view text, const std::string &macro) {
  const auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  for (std::size_t at = text.find(macro); at != std::string_view::npos;
       at = text.find(macro, at + 1)) {
    const std::size_t end = at + macro.size();
    if ((at == 0 || !word(text[at - 1])) && (end == text.size() || !word(text[end]))) {
      return true;
    }
  }
  return false;
}

} // namespace

std::vector<std::string> preprocessor_tests(const std::string &macro,
                                            const std::vector<std::string> &files,
                                            std::size_t limit) {
  static const std::set<std::string_view> conditionals = {"if",   "ifdef",   "ifndef",
                                                          "elif", "elifdef", "elifndef"};
  std::vector<std::string> out;
  for (const std::string &file : files) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
      lines.push_back(std::move(line));
    }
    for (std::size_t i = 0; i < lines.size() && out.size() < limit; ++i) {
      const auto [word, rest] = directive(lines[i]);
      if (!conditionals.contains(word) || !names(rest, macro)) {
        continue;
      }
      // `#ifndef NX` / `#define NX 256`: a default for a build without the flag.
      std::size_t next = i + 1;
      while (next < lines.size() && trimmed(lines[next]).empty()) {
        ++next;
      }
      if (word == "ifndef" && next < lines.size()) {
        const auto [then, defined] = directive(lines[next]);
        if (then == "define" && names(defined.substr(0, macro.size() + 1), macro)) {
          continue;
        }
      }
      out.push_back(file + ":" + std::to_string(i + 1));
    }
  }
  return out;
}

bool reads_command_line_macro(const clang::Expr *e, const clang::ASTContext &ctx) {
  return reads(e, ctx, 0);
}

const clang::Expr *compile_time_initializer(const clang::Expr *e, const clang::ASTContext &ctx) {
  const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e);
  if (ref == nullptr || !initializer_reads(e, ctx, 0)) {
    return nullptr;
  }
  if (const auto *var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl())) {
    return var->getAnyInitializer();
  }
  return llvm::cast<clang::EnumConstantDecl>(ref->getDecl())->getInitExpr();
}

} // namespace parjava::frontend
