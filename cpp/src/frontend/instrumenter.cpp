// Source-to-source instrumentation (the clang-tools-extra way): probes are inserted as text at
// statement boundaries of the user's code, so the estimation code is the user's program compiled
// by the user's compiler with the user's flags (seed 000 notes §3.7.1: times measured in context,
// during a real run, with the production optimisation level). SourceEdits places the text
// between tokens of the expanded program, writing a macro use out expanded when a probe belongs
// inside it; a probe that cannot be placed is dropped from the plan with a diagnostic, so the
// copy always compiles as far as the instrumenter can tell, and instrument(..., without) leaves
// whole functions unprobed when the compiler still disagrees (the caller's self-repair).
#include "parjava/frontend/instrument.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <clang/AST/ASTContext.h>
#include <clang/Basic/SourceManager.h>

#include "header_mirror.hpp"
#include "model_emitter.hpp"
#include "parjava/error.hpp"
#include "probe_runtime.hpp"
#include "source_analysis.hpp"
#include "source_edits.hpp"
#include "unit_rewriter.hpp"
#include "variables.hpp"

namespace parjava::frontend {

namespace fs = std::filesystem;

namespace {

// Two lines precede the user's first line in every instrumented copy.
constexpr unsigned kHeaderLines = 2;

void write_file(const fs::path &path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    throw Error(ErrorKind::Run, "cannot write " + path.string());
  }
}

// Loops whose timing probe was not placed are not reduced from their measurements.
void drop_unplaced(EstimationPlan &plan, const std::set<std::uint32_t> &unplaced) {
  std::set<model::NodeId> untimed;
  for (const Probe &p : plan.probes) {
    if (unplaced.contains(p.slot) &&
        (p.kind == ProbeKind::Fragment ||
         (p.kind == ProbeKind::Iterations && plan.loop(p.node) != nullptr &&
          plan.loop(p.node)->by_iterations))) {
      untimed.insert(p.node);
    }
  }
  std::erase_if(plan.probes, [&](const Probe &p) { return unplaced.contains(p.slot); });
  for (PlannedLoop &l : plan.loops) {
    if (untimed.contains(l.node)) {
      l.timed = false;
    }
  }
}

} // namespace

Instrumentation instrument(const BuildOptions &options, const std::string &directory,
                           const std::set<std::string> &without) {
  BuildOptions with_tokens = options;
  with_tokens.keep_tokens = true;
  std::unique_ptr<AnalysedSources> a = analyse_sources(with_tokens);
  EmittedModel emitted = emit_model(*a);
  Instrumentation out;
  out.model = std::move(emitted.model);
  out.plan = std::move(emitted.plan);
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec) {
    throw Error(ErrorKind::Run, "cannot create " + directory + ": " + ec.message());
  }
  out.directory = fs::absolute(directory).string();
  std::set<std::string> names;
  std::set<std::uint32_t> unplaced;
  std::set<model::NodeId> constructs;
  HeaderMirror mirror(fs::path(out.directory) / "include");
  for (std::size_t u = 0; u < a->parsed.units.size(); ++u) {
    clang::ASTUnit &unit = *a->parsed.units[u];
    std::vector<const ProbeSite *> sites;
    for (const ProbeSite &site : a->probe_sites) {
      const FunctionInfo &fn = a->program.functions[a->program.nodes[site.node].function];
      if (fn.context == &unit.getASTContext()) {
        sites.push_back(&site);
      }
    }
    const clang::syntax::TokenBuffer *tokens =
        u < a->parsed.tokens.size() ? a->parsed.tokens[u].get() : nullptr;
    UnitRewriter rewriter(*a, unit, tokens, a->program.diagnostics);
    std::vector<ProbeLocation> locations;
    const std::string text = rewriter.run(sites, without, unplaced, locations);
    constructs.insert(rewriter.constructs().begin(), rewriter.constructs().end());
    const CompileCommand &cmd = a->parsed.commands[u];
    std::string name = fs::path(cmd.file).filename().string();
    if (!names.insert(name).second) {
      name.insert(0, "_").insert(0, std::to_string(u));
      names.insert(name);
    }
    const fs::path path = fs::path(out.directory) / name;
    write_file(path, text);
    for (ProbeLocation &l : locations) {
      if (!l.instrumented.empty()) { // in a header: line k of its mirror is line k + 1
        l.instrumented = mirror.copy(l.instrumented).string();
        l.instrumented_line = l.line + 1;
      } else {
        l.instrumented = path.string();
        l.instrumented_line = l.line + kHeaderLines + rewriter.declaration_lines();
      }
      out.locations.push_back(std::move(l));
    }
    for (auto &[header, pieces] : rewriter.header_pieces()) {
      mirror.edit(header, std::move(pieces));
    }
    const clang::SourceManager &sm = unit.getASTContext().getSourceManager();
    mirror.add_headers_of(sm);
    // The functions written in this file and its own headers, so a compiler error's line names
    // one.
    for (const FunctionInfo &fn : a->program.functions) {
      if (fn.context != &unit.getASTContext() || fn.decl == nullptr || !fn.decl->hasBody()) {
        continue;
      }
      const clang::SourceRange r = fn.decl->getSourceRange();
      const clang::SourceLocation b = sm.getExpansionLoc(r.getBegin());
      const clang::SourceLocation e = sm.getExpansionLoc(r.getEnd());
      if (sm.getFileID(b) != sm.getFileID(e)) {
        continue;
      }
      std::string file = cmd.file;
      if (sm.getFileID(b) != sm.getMainFileID()) {
        if (!SourceEdits::editable_header(sm, sm.getFileID(b))) {
          continue;
        }
        file = sm.getFileEntryForID(sm.getFileID(b))->tryGetRealPathName().str();
      }
      out.functions.push_back(
          {fn.name, file, sm.getSpellingLineNumber(b), sm.getSpellingLineNumber(e)});
    }
    InstrumentedSource src;
    src.original = cmd.file;
    src.instrumented = path.string();
    src.directory = cmd.directory;
    src.original_command = cmd.arguments;
    for (const auto &arg : cmd.arguments) {
      src.command.push_back(arg == cmd.file ? path.string() : arg);
    }
    mirror.redirect(src.command, cmd.directory);
    // Headers next to the original keep resolving (their mirrored copies first), and the
    // probes header is found.
    const fs::path own = fs::weakly_canonical(fs::path(cmd.directory) / cmd.file).parent_path();
    src.command.insert(src.command.begin() + 1, {"-iquote", mirror.directory_of(own).string(),
                                                 "-iquote", own.string(), "-I", out.directory});
    out.sources.push_back(std::move(src));
  }
  for (HeaderCopy &h : mirror.write()) {
    out.headers.push_back(std::move(h));
  }
  drop_unplaced(out.plan, unplaced);
  for (PlannedLoop &l : out.plan.loops) {
    l.by_construct = l.by_iterations && constructs.contains(l.node);
  }
  write_file(fs::path(out.directory) / "parjava_probes.h", probe_runtime_header());
  out.runtime_source = (fs::path(out.directory) / "parjava_probes.c").string();
  write_file(out.runtime_source,
             std::string(probe_runtime_source()).append(probe_runtime_heap_source()));
  out.diagnostics = a->program.diagnostics;
  return out;
}

} // namespace parjava::frontend
