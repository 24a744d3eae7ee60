#include "program_choice.hpp"

#include <filesystem>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/Frontend/ASTUnit.h>

#include "parjava/error.hpp"

namespace parjava::frontend {

namespace {

// Whether the unit's own file defines `main` (a header's would be every unit's).
bool defines_main(clang::ASTUnit &unit) {
  const clang::SourceManager &sm = unit.getSourceManager();
  for (const clang::Decl *d : unit.getASTContext().getTranslationUnitDecl()->decls()) {
    const auto *f = llvm::dyn_cast<clang::FunctionDecl>(d);
    if (f != nullptr && f->isMain() && f->doesThisDeclarationHaveABody() &&
        sm.isInMainFile(sm.getExpansionLoc(f->getLocation()))) {
      return true;
    }
  }
  return false;
}

std::string stem(const std::string &path) { return std::filesystem::path(path).stem().string(); }

} // namespace

std::optional<std::string> choose_program(ParsedSources &parsed, const BuildOptions &options) {
  if (!options.sources.empty() || options.compile_commands.empty() || options.entry != "main") {
    return std::nullopt;
  }
  std::vector<std::size_t> mains;
  for (std::size_t u = 0; u < parsed.units.size(); ++u) {
    if (parsed.units[u] && defines_main(*parsed.units[u])) {
      mains.push_back(u);
    }
  }
  if (mains.size() < 2) {
    return std::nullopt;
  }
  std::vector<std::string> names;
  if (!options.argv.empty()) {
    names.push_back(stem(options.argv.front()));
  }
  if (!options.name.empty()) {
    names.push_back(options.name);
  }
  std::size_t chosen = parsed.units.size();
  for (const std::string &name : names) {
    for (const std::size_t u : mains) {
      if (chosen == parsed.units.size() && stem(parsed.commands[u].file) == name) {
        chosen = u;
      }
    }
  }
  std::string files;
  for (const std::size_t u : mains) {
    files += (files.empty() ? "" : ", ") + parsed.commands[u].file;
  }
  if (chosen == parsed.units.size()) {
    throw Error(ErrorKind::Usage,
                "the compilation database builds " + std::to_string(mains.size()) +
                    " programs: main is defined in " + files +
                    "; name the one to model by its command line, whose program name is its "
                    "file's stem (--argv \"./" +
                    stem(parsed.commands[mains.front()].file) + " ...\"), or by --name");
  }
  const std::string modelled = parsed.commands[chosen].file;
  // The other mains' units go, last first so that the indices still hold; the parallel
  // vectors stay parallel.
  for (auto u = mains.rbegin(); u != mains.rend(); ++u) {
    if (*u == chosen) {
      continue;
    }
    const auto at = static_cast<std::ptrdiff_t>(*u);
    parsed.units.erase(parsed.units.begin() + at);
    parsed.commands.erase(parsed.commands.begin() + at);
    if (*u < parsed.tokens.size()) {
      parsed.tokens.erase(parsed.tokens.begin() + at);
    }
  }
  return "the compilation database builds " + std::to_string(mains.size()) +
         " programs (main is defined in " + files + "); modelled the one in " + modelled +
         ", which the command line names, with the database's files that define no main";
}

} // namespace parjava::frontend
