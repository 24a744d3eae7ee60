// Nodes of the control tree (seed 000 notes §2.3, Def. 3.1.6-3.1.14; seed 003 notes §2.2-§2.3).
// Internal nodes are statements (sequence, if, if-else, switch, for, while, do-while, and the
// task group of notes 000 §2.7); leaves are blocks of type cb, ufc, efc, cfc, ret, rb, plus
// break/continue leaves that carry the id of the statement they leave or repeat (the return
// states of notes 000 §3.2).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parjava/model/expression.hpp"
#include "parjava/model/operation.hpp"

namespace parjava::model {

using NodeId = std::uint32_t;    // stable identifier, written in the JSON and shown to users
using NodeIndex = std::uint32_t; // position in Model::nodes
inline constexpr NodeIndex kNoNode = std::numeric_limits<NodeIndex>::max();
inline constexpr NodeId kNoId = std::numeric_limits<NodeId>::max();

enum class NodeKind : std::uint8_t {
  // internal nodes (statements, θ of Def. 3.1.9)
  Sequence,
  If,
  IfElse,
  Switch,
  For,
  While,
  DoWhile,
  TaskGroup,
  // leaves (blocks, τ of Def. 3.1.10)
  Compute,       // cb: computational block
  UserCall,      // ufc: call of a function of the model
  ExternalCall,  // efc: call of an external function (timed like a reduced block)
  Communication, // cfc: MPI, thread or PGAS operation
  Return,        // ret: return from the current function
  Reduced,       // rb: reduced block standing for a subtree (notes 000 §3.4)
  Break,         // break(target)
  Continue,      // continue(target)
};

bool is_leaf(NodeKind kind);
bool is_loop(NodeKind kind);
std::string_view node_kind_name(NodeKind kind); // JSON spelling: "seq", "if-else", "cb", ...

// Where a node comes from in the source. file indexes Model::files; -1 when unknown.
struct SourceRange {
  std::int32_t file = -1;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::uint32_t end_line = 0;
  std::uint32_t end_column = 0;
};

// How long a block takes. Seconds throughout.
struct TimeSpec {
  enum class Kind : std::uint8_t {
    None,       // no time (control-only leaves, statements without a B_CE time)
    Constant,   // seconds
    Expression, // an expression of control variables, e.g. "2.1e-9 * N*N/size"
    Measured,   // mean, standard deviation and sample count (notes 000 §3.7.1, §4)
  };
  Kind kind = Kind::None;
  double seconds = 0.0;      // Constant; the mean for Measured
  Expression expr;           // Expression
  double sigma = 0.0;        // Measured
  std::uint64_t samples = 0; // Measured

  static TimeSpec constant(double s) {
    TimeSpec t;
    t.kind = Kind::Constant;
    t.seconds = s;
    return t;
  }
  static TimeSpec measured(double mean, double sigma, std::uint64_t samples) {
    TimeSpec t;
    t.kind = Kind::Measured;
    t.seconds = mean;
    t.sigma = sigma;
    t.samples = samples;
    return t;
  }
  static TimeSpec expression(Expression e) {
    TimeSpec t;
    t.kind = Kind::Expression;
    t.expr = std::move(e);
    return t;
  }
  [[nodiscard]] bool given() const { return kind != Kind::None; }
  // Absolute error bound of the mean of a measured time: 3σ/√N (notes 000 §4, Theorem 1).
  [[nodiscard]] double error_bound() const;
};

// The statistics of an opaque condition measured on one rank of an estimation run at np >= 2
// (docs/model-schema.md "Per-rank statistics"): the fields of its kind, and how many
// evaluations they come from (0: the rank never evaluated the node).
struct OpaqueRankStats {
  double probability = 0.0;                                  // Probability
  double trips_mean = 0.0;                                   // Trips
  std::vector<std::pair<std::int64_t, double>> distribution; // Trips (optional)
  std::vector<double> weights;                               // Weights: one per case
  std::uint64_t samples = 0;
};

// Data-dependent control flow the model cannot compute (notes 000 §3.5: conditions that depend
// on removed data), described by profiled statistics instead.
struct Opaque {
  enum class Kind : std::uint8_t {
    None,        // the condition is an expression
    Probability, // if / if-else / while / do-while: probability that the condition is true
    Trips,       // loops: iterations per execution of the loop (mean, optional distribution)
    Weights,     // switch: relative frequency of each case (SwitchCase::weight)
  };
  Kind kind = Kind::None;
  double probability = 0.0;
  double trips_mean = 0.0;
  std::vector<std::pair<std::int64_t, double>> distribution; // (trip count, frequency)
  std::uint64_t samples = 0; // how many executions the statistics come from (0: unknown)
  // Per rank of the estimation run (its length is that run's np); the fields above stay the
  // statistics pooled over all ranks. Empty: not measured per rank.
  std::vector<OpaqueRankStats> by_rank;
};

struct Assignment {
  std::string variable;
  Expression value;
};

struct SwitchCase {
  std::vector<std::int64_t> labels; // empty with is_default
  bool is_default = false;
  double weight = 0.0; // Opaque::Weights
};

// One argument of a communication operation.
struct OperationArg {
  std::string name;
  ArgKind kind = ArgKind::Expr;
  // ArgKind::Expr (the fallback when measured per rank); ArgKind::Comm: the element index of a
  // communicator array (`"comms[n + 1]"` in JSON: text "comms", expr "n + 1"), empty for a
  // communicator that is not an array element.
  Expression expr;
  std::string text; // the name for the other kinds
  // ArgKind::Expr measured per rank (docs/model-schema.md "Measured arguments"): by_rank[r] is
  // the sequence of values rank r passed in an estimation run at np = by_rank.size(). Empty:
  // computed from expr.
  std::vector<std::vector<std::int64_t>> by_rank;
};

// An element of the I/O/C sets: a variable and the id of the block holding the definition that
// reaches this block (Remark 3.1.6); kNoId for a φ-merged or external definition.
struct VariableRef {
  std::string name;
  NodeId definition = kNoId;
};

struct Node {
  NodeId id = kNoId;
  NodeKind kind = NodeKind::Compute;
  SourceRange source;
  std::string label; // short text for displays ("for i", "MPI_Send", the callee name, ...)
  // Children: seq statements; if [then]; if-else [then, else]; switch the case bodies in
  // order; loops and task groups [body].
  std::vector<NodeIndex> children;

  // Statements
  Expression cond; // if, if-else, while, do-while, for (absent: opaque)
  Opaque opaque;
  TimeSpec cond_time;             // Time(B_CE) per evaluation of the control expression
  std::vector<Assignment> init;   // for
  std::vector<Assignment> update; // for
  // Loops that communicate and whose trip count follows data decisions (docs/model-schema.md
  // "Measured decisions"): trips_by_rank[r] is the sequence of trip counts rank r ran in an
  // estimation run at np = trips_by_rank.size(). Empty: counted from cond (or opaque).
  std::vector<std::vector<std::int64_t>> trips_by_rank;
  // The same for an opaque if that guards communication: taken_by_rank[r] is the sequence of
  // outcomes (1 taken, 0 not) of rank r's evaluations.
  std::vector<std::vector<std::int64_t>> taken_by_rank;
  // A period every rank's measured sequence repeats (docs/model-schema.md "Measured decisions"):
  // replayed, cycled, by every rank at any np where the sequences above do not apply. HPCG's
  // V-cycle recurses while `A.mgData != 0`: taken, taken, taken, not taken, per cycle.
  std::vector<std::int64_t> trips_cycle;
  std::vector<std::int64_t> taken_cycle;
  // A loop the estimation run saw ended by a data test the model drops (miniFE's CG:
  // `k <= max_iter && normr > tolerance`): at most this many iterations per entry, its condition
  // still applying; -1 for none.
  std::int64_t trips_cap = -1;
  Expression value;              // switch selector
  std::vector<SwitchCase> cases; // switch, parallel to children
  Expression tasks;              // task group: number of tasks (default nthreads)
  // task group: an OpenMP parallel region. Its threads are created for it, so the process's
  // pool grows to its task count; without `tasks` it has the team size the process last set
  // (set_team: omp_set_num_threads), else nthreads.
  bool team = false;
  // task_group with team: its loop was timed whole, from before the directive to after it
  // (pj_omp_construct), so the region's fork and join at the estimation's team are in the
  // loop's measured time and the machine's `team_start` is not charged again.
  bool fork_timed = false;

  // Blocks
  TimeSpec time;                  // cb, efc, rb (and an optional local cost of cfc)
  std::vector<Assignment> assign; // cb, rb: assignments to control variables (reduced body)
  std::string callee;             // ufc: function name; efc: external function name
  std::vector<Expression> args;   // ufc: actual parameters
  std::int32_t context = -1;      // ufc: calling context number (Remark 3.1.8), -1 if none
  Operation op = Operation::Send; // cfc
  std::vector<OperationArg> op_args;
  // cfc: why the leaf only approximates the program (a communicator or group the model could
  // not follow); every prediction that runs it warns with this text. Empty: exact.
  std::string approximate;
  NodeId target = kNoId;   // break / continue: the statement left or repeated
  NodeId replaces = kNoId; // rb: id of the subtree this block stands for, if any

  // Descriptor sets (Def. 3.1.10) and attributes
  std::vector<VariableRef> inputs, outputs, controls;
  bool simple = false; // marked by reduction analysis: time independent of inputs (§3.7.2)

  [[nodiscard]] const OperationArg *arg(std::string_view name) const {
    for (const auto &a : op_args) {
      if (a.name == name) {
        return &a;
      }
    }
    return nullptr;
  }
};

} // namespace parjava::model
