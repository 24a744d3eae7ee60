// The rewriting of one translation unit into its estimation code (instrumenter.cpp drives it
// over the units): probes placed as text at statement boundaries through SourceEdits. Its
// definitions are split by what they probe: unit_rewriter.cpp (placement, blocks, branches,
// functions), rewrite_loops.cpp (loops, OpenMP loops), rewrite_calls.cpp (calls in conditions,
// dispatch, values of arguments and inputs).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtOpenMP.h>
#include <clang/Frontend/ASTUnit.h>

#include "calls.hpp"
#include "loop_exits.hpp"
#include "parjava/frontend/instrument.hpp"
#include "source_analysis.hpp"
#include "source_edits.hpp"

namespace parjava::frontend {

// The return statements of a function or loop body, not those of lambdas inside it.
class ReturnCollector : public clang::RecursiveASTVisitor<ReturnCollector> {
public:
  bool TraverseLambdaExpr(clang::LambdaExpr *) { return true; }
  bool VisitReturnStmt(clang::ReturnStmt *r) {
    returns.push_back(r);
    return true;
  }
  std::vector<const clang::ReturnStmt *> returns;
};

using Point = SourceEdits::Point;

// No Trips probe (the model computes the loop's count).
constexpr std::uint32_t kNoTrips = UINT32_MAX;

class UnitRewriter {
public:
  UnitRewriter(AnalysedSources &a, clang::ASTUnit &unit, const clang::syntax::TokenBuffer *tokens,
               std::vector<Diagnostic> &diagnostics)
      : a_(a), ctx_(unit.getASTContext()), sm_(ctx_.getSourceManager()),
        edits_(sm_, ctx_.getLangOpts(), tokens), diagnostics_(diagnostics) {}
  std::string run(const std::vector<const ProbeSite *> &sites, const std::set<std::string> &without,
                  std::set<std::uint32_t> &unplaced, std::vector<ProbeLocation> &locations);

  // The edits of the program's own headers, by real path (after run()).
  [[nodiscard]] std::map<std::string, std::vector<SourceEdits::Piece>> &header_pieces() {
    return header_pieces_;
  }

  // The work-sharing loops timed whole (openmp_construct), by model node.
  [[nodiscard]] const std::set<model::NodeId> &constructs() const { return constructs_; }

  // Lines the dispatch declarations add before the original text (one per declaration).
  [[nodiscard]] unsigned declaration_lines() const {
    return static_cast<unsigned>(declarations_.size());
  }

private:
  struct Skip {
    std::string why;
  };
  struct Pending {
    Point point;
    std::string text;
    bool opening = true;
  };

  void open(Point p, std::string text) { pending_.push_back({p, std::move(text), true}); }
  void close(Point p, std::string text) { pending_.push_back({p, std::move(text), false}); }

  static Point before(clang::SourceLocation loc) { return {loc, false}; }
  static Point after_token(clang::SourceLocation loc) { return {loc, true}; }
  // unit_rewriter.cpp: placement, positions in the text, blocks, branches, functions.
  void return_from_main();
  void note(const StructNode &node, const std::string &why);
  void report_expansions(const std::vector<SourceEdits::ExpandedUse> &all);
  void report_expansions(const std::string &file,
                         const std::vector<SourceEdits::ExpandedUse> &uses);
  const clang::Stmt *parent_of(const clang::Stmt *s);
  bool conditional_between(const clang::Stmt *a, const clang::Stmt *b);
  const clang::OMPLoopDirective *directive_of(const clang::Stmt *loop);
  bool in_openmp_directive(const clang::Stmt *s);
  bool statement_position(const clang::Stmt *s);
  const clang::Stmt *enclosing_statement(const clang::Stmt *e);

  enum class Place { InCompound, AfterLabel, ControlBody };
  Place place_of(const clang::Stmt *s);
  Point end_of(const clang::Stmt *s);
  void place(const StructNode &node, const std::vector<const ProbeSite *> &sites);
  static bool spelled_as_call(const std::string &text);
  void input_value(const ProbeSite &site);
  void timed_call(const StructNode &node, std::uint32_t k);
  void block(const StructNode &node, std::uint32_t k,
             std::optional<std::uint32_t> sized = std::nullopt);
  void observe_pointer(const clang::Expr *expr, const std::string &probe);
  const clang::Stmt *body_of(const clang::Stmt *loop);
  void open_body(const clang::Stmt *body, const std::string &top);
  void loop(const StructNode &node, std::map<ProbeKind, std::uint32_t> &slot);
  void openmp_loop(const StructNode &node, std::uint32_t k, std::uint32_t trips);
  bool openmp_construct(const StructNode &node, std::uint32_t k, std::uint32_t trips);
  void branch(const StructNode &node, std::uint32_t k);
  void dispatch(const StructNode &node, std::uint32_t k);
  void virtual_dispatch(const StructNode &node, const ClassifiedCall &c, std::uint32_t k);
  void observe(const clang::Expr *expr, const std::string &probe);
  void selector(const StructNode &node, std::uint32_t k);
  std::string communicator_text(const StructNode &node);
  void argument_value(const StructNode &node, const ProbeSite &site);
  void function(const StructNode &node, std::uint32_t k);
  void prologue(const StructNode &node, std::uint32_t k);
  const LoopExits &loop_exits();
  StructIndex index_of(const StructNode &node) const;

  AnalysedSources &a_;
  std::optional<LoopExits> loop_exits_;
  clang::ASTContext &ctx_;
  clang::SourceManager &sm_;
  SourceEdits edits_;
  std::map<std::string, std::vector<SourceEdits::Piece>> header_pieces_;
  std::map<FunctionId, std::string> declarations_; // dispatch targets named by assembler label
  std::vector<Diagnostic> &diagnostics_;
  std::vector<Pending> pending_;
  std::set<std::uint32_t> dropped_; // probes left out on purpose (nothing to measure there)
  std::set<model::NodeId> constructs_;
  std::set<std::uint32_t> quiet_;  // timing probes silent inside measured nests
  std::set<std::uint32_t> quiets_; // Fragment probes whose nests make them silent

  // The start of timing probe k: PJ_BEGIN, or PJ_QBEGIN for a quiet one.
  [[nodiscard]] std::string begin_probe(std::uint32_t k, bool sized = false) const {
    return std::string(quiet_.contains(k) ? "PJ_QBEGIN" : "PJ_BEGIN") + (sized ? "_SIZED(" : "(") +
           std::to_string(k) + ")";
  }
};

} // namespace parjava::frontend
