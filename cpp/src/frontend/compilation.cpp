#include "compilation.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/JSONCompilationDatabase.h>
#include <clang/Tooling/Syntax/Tokens.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/raw_ostream.h>

#include "parjava/error.hpp"
#include "pragma_macros.hpp"

namespace parjava::frontend {

namespace fs = std::filesystem;

namespace {

std::string run_and_capture(const std::string &command) {
  std::string out;
  FILE *pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    return out;
  }
  std::array<char, 512> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) {
    out += buffer.data();
  }
  if (pclose(pipe) != 0) {
    return {};
  }
  return out;
}

std::vector<std::string> split_words(const std::string &text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    words.push_back(word);
  }
  return words;
}

// GCC's private include directory holds omp.h, which Clang 16 without libomp-dev lacks.
std::string gcc_omp_include_dir() {
  const std::string dir = run_and_capture("gcc -print-file-name=include 2>/dev/null");
  const auto words = split_words(dir);
  if (words.empty() || !fs::exists(fs::path(words[0]) / "omp.h")) {
    return {};
  }
  return words[0];
}

// Builds the AST like ClangTool::buildASTs and also records the expanded token stream, which
// the estimation code needs to write a macro use out expanded when a probe belongs inside it.
class TokenCollectingAction : public clang::SyntaxOnlyAction {
public:
  std::unique_ptr<clang::syntax::TokenCollector> collector;

private:
  bool BeginSourceFileAction(clang::CompilerInstance &ci) override {
    collector = std::make_unique<clang::syntax::TokenCollector>(ci.getPreprocessor());
    return true;
  }
};

class TokenASTBuilder : public clang::tooling::ToolAction {
public:
  std::vector<std::unique_ptr<clang::ASTUnit>> units;
  std::vector<std::unique_ptr<clang::syntax::TokenBuffer>> tokens;

  bool runInvocation(std::shared_ptr<clang::CompilerInvocation> invocation,
                     clang::FileManager *files, std::shared_ptr<clang::PCHContainerOperations> pch,
                     clang::DiagnosticConsumer *consumer) override {
    TokenCollectingAction action;
    auto diagnostics = clang::CompilerInstance::createDiagnostics(
        &invocation->getDiagnosticOpts(), consumer, /*ShouldOwnClient=*/false);
    // The unit reads files through the tool's file system (pragma_macros.hpp), as
    // ClangTool::buildASTs does; left alone it would open the real files.
    std::unique_ptr<clang::ASTUnit> unit = clang::ASTUnit::create(
        invocation, diagnostics, clang::CaptureDiagsKind::None, /*UserFilesAreVolatile=*/false);
    if (!unit) {
      return false;
    }
    unit->getFileManager().setVirtualFileSystem(files->getVirtualFileSystemPtr());
    if (clang::ASTUnit::LoadFromCompilerInvocationAction(invocation, std::move(pch), diagnostics,
                                                         &action, unit.get()) == nullptr ||
        !action.collector) {
      return false;
    }
    auto buffer =
        std::make_unique<clang::syntax::TokenBuffer>(std::move(*action.collector).consume());
    buffer->indexExpandedTokens();
    units.push_back(std::move(unit));
    tokens.push_back(std::move(buffer));
    return true;
  }
};

// Collects Clang's errors so a file that does not compile gives one readable FrontendError.
class ErrorCollector : public clang::DiagnosticConsumer {
public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic &info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error) {
      return;
    }
    ++errors_;
    if (messages_.size() >= 8) {
      return;
    }
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    std::string where;
    if (info.getLocation().isValid() && info.hasSourceManager()) {
      const auto ploc = info.getSourceManager().getPresumedLoc(info.getLocation());
      if (ploc.isValid()) {
        where = std::string(ploc.getFilename()) + ":" + std::to_string(ploc.getLine()) + ":" +
                std::to_string(ploc.getColumn()) + ": ";
      }
    }
    messages_.push_back(where + "error: " + std::string(text.str()));
  }
  [[nodiscard]] unsigned errors() const { return errors_; }
  [[nodiscard]] std::string summary() const {
    std::string out;
    for (const auto &m : messages_) {
      out += "\n  " + m;
    }
    if (errors_ > messages_.size()) {
      out += "\n  ... and " + std::to_string(errors_ - messages_.size()) + " more";
    }
    return out;
  }
  void reset() {
    errors_ = 0;
    messages_.clear();
  }

private:
  unsigned errors_ = 0;
  std::vector<std::string> messages_;
};

bool is_link_only_flag(const std::string &arg) {
  return arg.rfind("-l", 0) == 0 || arg.rfind("-L", 0) == 0 || arg.rfind("-Wl,", 0) == 0 ||
         arg == "-pthread" || arg == "-static" || arg == "-shared";
}

std::string absolute(const std::string &path) {
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec);
  return (ec ? fs::path(path) : p).lexically_normal().string();
}

std::unique_ptr<clang::tooling::CompilationDatabase> load_database(const BuildOptions &options,
                                                                   std::string &directory) {
  std::string error;
  fs::path path(options.compile_commands);
  if (!fs::exists(path)) {
    throw Error(ErrorKind::Usage, "compilation database " + options.compile_commands +
                                      " does not exist (give compile_commands.json or its "
                                      "directory, e.g. build/ after `cmake -DCMAKE_EXPORT_"
                                      "COMPILE_COMMANDS=ON`)");
  }
  if (fs::is_directory(path)) {
    path /= "compile_commands.json";
  }
  auto db = clang::tooling::JSONCompilationDatabase::loadFromFile(
      path.string(), error, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!db) {
    throw Error(ErrorKind::Usage,
                "cannot read compilation database " + path.string() + ": " + error);
  }
  directory = path.parent_path().string();
  return db;
}

} // namespace

bool is_cxx_file(const std::string &file) {
  const std::string ext = fs::path(file).extension().string();
  return ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".C" || ext == ".c++" ||
         ext == ".hpp" || ext == ".hh";
}

std::string default_compiler(const std::string &file) {
  return is_cxx_file(file) ? "mpicxx" : "mpicc";
}

const std::vector<std::string> &mpi_include_dirs() {
  static const std::vector<std::string> dirs = [] {
    std::vector<std::string> found;
    for (const auto &word : split_words(run_and_capture("mpicc --showme:compile 2>/dev/null"))) {
      if (word.rfind("-I", 0) == 0 && word.size() > 2) {
        found.push_back(word.substr(2));
      }
    }
    if (found.empty() && fs::exists("/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h")) {
      found.emplace_back("/usr/lib/x86_64-linux-gnu/openmpi/include");
    }
    return found;
  }();
  return dirs;
}

ParsedSources parse_sources(const BuildOptions &options) {
  std::unique_ptr<clang::tooling::CompilationDatabase> db;
  std::string db_directory;
  std::vector<std::string> sources;
  for (const auto &s : options.sources) {
    if (!fs::exists(s)) {
      throw Error(ErrorKind::Usage, "source file " + s + " does not exist");
    }
    sources.push_back(absolute(s));
  }
  std::vector<std::string> parse_flags;
  for (const auto &a : options.args) {
    if (!is_link_only_flag(a)) {
      parse_flags.push_back(a);
    }
  }
  if (!options.compile_commands.empty()) {
    db = load_database(options, db_directory);
    if (sources.empty()) {
      sources = db->getAllFiles();
    }
  } else {
    if (sources.empty()) {
      throw Error(ErrorKind::Usage, "no source files given (pass files, or a "
                                    "compile_commands.json)");
    }
    db = std::make_unique<clang::tooling::FixedCompilationDatabase>(fs::current_path().string(),
                                                                    parse_flags);
  }
  if (sources.empty()) {
    throw Error(ErrorKind::Usage, "the compilation database lists no source files");
  }

  ParsedSources parsed;
  for (const auto &file : sources) {
    auto cmds = db->getCompileCommands(file);
    if (cmds.empty()) {
      throw Error(ErrorKind::Usage, "the compilation database has no command for " + file);
    }
    CompileCommand cc;
    cc.file = file;
    cc.directory = cmds.front().Directory;
    if (options.compile_commands.empty()) {
      cc.arguments.push_back(default_compiler(file));
      for (const auto &a : options.args) {
        cc.arguments.push_back(a);
      }
      cc.arguments.push_back(file);
    } else {
      cc.arguments = cmds.front().CommandLine;
      // The source as the command names it, relative to its directory in databases written
      // from make (`mpicc -c amg.c` in LLNL/AMG's test/), is this file: spelled absolute, so
      // that the estimation code compiles the instrumented copy in its place, not the original.
      const fs::path canonical = fs::weakly_canonical(file);
      for (auto &a : cc.arguments) {
        if (!a.empty() && a.front() != '-' && a != file &&
            fs::weakly_canonical(fs::path(cc.directory) / a) == canonical) {
          a = file;
        }
      }
      for (const auto &a : options.args) {
        cc.arguments.push_back(a);
      }
    }
    parsed.commands.push_back(std::move(cc));
  }

  std::vector<std::string> extra = {"-Wno-everything", "-fno-color-diagnostics",
                                    "-resource-dir=" PARJAVA_CLANG_RESOURCE_DIR};
  if (options.find_mpi) {
    for (const auto &dir : mpi_include_dirs()) {
      extra.push_back("-isystem" + dir);
    }
  }
  bool openmp = false;
  for (const auto &a : options.args) {
    openmp = openmp || a == "-fopenmp";
  }
  // Clang's own omp.h (libomp-16-dev) sits in its resource directory; GCC's is the fallback
  // (it parses with Clang only for the common declarations).
  if (openmp && !fs::exists(fs::path(PARJAVA_CLANG_RESOURCE_DIR) / "include" / "omp.h")) {
    const std::string omp = gcc_omp_include_dir();
    if (!omp.empty()) {
      extra.push_back("-idirafter" + omp);
    }
  }
  if (!options.compile_commands.empty()) {
    for (const auto &a : parse_flags) {
      extra.push_back(a);
    }
  }
  ErrorCollector errors;
  // One file system for every unit, so a header's rewritten definitions are reported once.
  const auto files = pragma_macro_file_system(parsed.pragma_macros);
  for (const auto &file : sources) {
    clang::tooling::ClangTool one(*db, {file}, std::make_shared<clang::PCHContainerOperations>(),
                                  files);
    one.appendArgumentsAdjuster(clang::tooling::getClangStripOutputAdjuster());
    one.appendArgumentsAdjuster(clang::tooling::getClangStripDependencyFileAdjuster());
    one.appendArgumentsAdjuster(clang::tooling::getClangSyntaxOnlyAdjuster());
    one.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
        extra, clang::tooling::ArgumentInsertPosition::END));
    one.appendArgumentsAdjuster(
        [](const clang::tooling::CommandLineArguments &args, llvm::StringRef) {
          clang::tooling::CommandLineArguments out;
          for (const auto &a : args) {
            if (!is_link_only_flag(a)) {
              out.push_back(a);
            }
          }
          return out;
        });
    one.setDiagnosticConsumer(&errors);
    one.setPrintErrorMessage(false);
    errors.reset();
    std::vector<std::unique_ptr<clang::ASTUnit>> units;
    TokenASTBuilder with_tokens;
    int status = 0;
    if (options.keep_tokens) {
      status = one.run(&with_tokens);
      units = std::move(with_tokens.units);
    } else {
      status = one.buildASTs(units);
    }
    if (status != 0 || errors.errors() > 0 || units.empty() || !units.front()) {
      std::string msg = "cannot parse " + file;
      if (errors.errors() > 0) {
        msg += errors.summary();
      }
      if (msg.find("mpi.h") != std::string::npos) {
        msg += "\n  (mpi.h not found: install Open MPI with `apt-get install -y libopenmpi-dev` "
               "or pass -I<dir of mpi.h>)";
      } else {
        msg += "\n  (check the flags: -I for headers, -D for macros, -std= for the language)";
      }
      throw Error(ErrorKind::Frontend, msg);
    }
    parsed.units.push_back(std::move(units.front()));
    if (options.keep_tokens) {
      parsed.tokens.push_back(std::move(with_tokens.tokens.front()));
    }
  }
  return parsed;
}

} // namespace parjava::frontend
