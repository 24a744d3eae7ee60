// The program model (seed 000 notes §2.3, Def. 3.1.1-3.1.6; ARCHITECTURE §3 "Program model"):
// program parameters, global control variables, functions whose bodies are control trees, and
// the node arena. Models come from the frontend (Clang), from the Python builder, or from JSON
// (model_json.hpp); validate() checks everything the interpreter relies on and names the node id
// and field of each defect.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "parjava/model/bytecode.hpp"
#include "parjava/model/node.hpp"

namespace parjava::model {

inline constexpr int kModelSchemaVersion = 1;

// A program parameter: a value fixed for one interpretation (N, niter, ...), overridable.
struct Parameter {
  std::string name;
  Value value;
  std::string doc;
  // How the program reads it (issue 12, program inputs), written by the model builder so that a
  // command line can be turned into parameters: the option spellings that set it ("-N",
  // "--nSteps"), the program's own value when no option sets it, where the program reads it
  // ("mycommand.c:223"), what it is read from ("argv", "option", "file", "broadcast",
  // "external") and the control variables it sets ("cmd.nSteps"), which name it too.
  std::vector<std::string> options;
  int position = 1; // the k-th value after the option (`-n 20 30 40`: ny is 2)
  std::optional<Value> program_default;
  // An option that takes no value (LULESH's `-q`, `if (strcmp(argv[i], "-q") == 0) opts.quiet =
  // 1;`): the value the program sets when one of `options` is on the command line.
  std::optional<Value> flag;
  // Words that set a constant each (XSBench's `-m history` / `-m event` set simulation_method
  // to 1 / 2): the last one on the command line decides, unless a value option comes after it.
  std::vector<std::pair<std::string, Value>> choices;
  std::string source;
  std::string origin;
  std::vector<std::string> aliases;
  // Data the model measured at the estimation input although the program computes it from this
  // parameter (a field set for several objects: shared_fields.hpp): a prediction at another
  // value keeps what was measured, and says so.
  std::vector<std::string> measured_through;
  // A compile-line number (origin "compile-time") that `#if`/`#ifdef` lines also test
  // ("weather.c:12"): a prediction at another value keeps the code this build compiled there.
  std::vector<std::string> preprocessor_tests;
};

// A global control variable (notes 000 §3.5 GCVariables): one copy per logical process,
// initialised before the entry function runs.
struct GlobalVariable {
  std::string name;
  Expression init;
};

// A calling context (Remark 3.1.8, Def. 3.1.14): constant actual parameters of one call shape.
struct CallingContext {
  std::int32_t number = 0;
  std::vector<Expression> args;
};

struct Function {
  std::string name;
  std::vector<std::string> params;
  NodeIndex body = kNoNode;
  SourceRange source;
  std::vector<CallingContext> contexts;
};

// An opaque loop whose bound reads data the program rewrites inside an enclosing loop
// (docs/model-schema.md "Rewritten bounds"; the builder's rewritten_bounds.hpp): its count was
// measured over the estimation's run only, so a prediction that runs it far more often keeps
// what the estimation saw. A prediction says so when the counts did not stay put.
struct RewrittenBound {
  NodeId node = kNoId;   // the loop, or the reduced block that now stands for it
  std::string label;     // the loop's own label ("for in < sorted_index[num_refine+1]")
  std::string data;      // what its bound reads that the enclosing loop rewrites
  SourceRange source;    // the loop
  SourceRange written;   // one write of `data` inside the enclosing loop (or its callees)
  SourceRange enclosing; // the enclosing loop
  // Measured by the estimation (0 executions: not measured): the loop's executions per process,
  // the smallest and largest trip count, and the drift -- the change of the expected count from
  // the run's first execution to its last, relative to the mean (least squares over executions).
  double executions = 0.0;
  double min = 0.0;
  double max = 0.0;
  double drift = 0.0;
};

// A measured loop nest and its working set (docs/model-schema.md "Unscaled nests"). Unscaled:
// the estimation could not scale its time across cache levels (its working set was unknown, or
// too small to tell), so a prediction that gives it more work per execution prices every
// iteration at the estimation's cost, and says so when the work grows past what that cost
// holds for. Scaled: its time follows the machine's sweep cost per byte, which a nest of
// strided or indirect accesses can outgrow; a prediction far beyond its working set says so.
struct NestWorkingSet {
  NodeId node = kNoId;
  double seconds = 0.0;     // time per execution in the estimation run
  double working_set = 0.0; // bytes it held per execution there (0: unknown)
  // The largest working set whose sweep cost per byte stays within 10 % of the measured one on
  // the estimation machine (0: unknown).
  double holds_to = 0.0;
};

class Model {
public:
  std::string name;
  std::vector<std::string> files; // source files referred to by SourceRange::file
  std::vector<Parameter> parameters;
  std::vector<GlobalVariable> globals;
  std::vector<Function> functions;
  std::string entry = "main";
  std::vector<Node> nodes;
  // The estimation's self-check (docs/model-schema.md "Self-check"), a JSON object as text;
  // empty when the model was not estimated or not checked. The reader validates its fields.
  std::string self_check;
  std::vector<RewrittenBound> rewritten_bounds;
  std::vector<NestWorkingSet> unscaled_nests;
  std::vector<NestWorkingSet> scaled_nests;
  // Communicators held in a field of records (docs/model-schema.md "Communicator fields"): one
  // name for the field of every record, set by comm_assign leaves. Read before the model ran
  // any of them, the field is world, with a warning (its records are filled in an order the
  // model's draws need not follow).
  std::vector<std::string> field_communicators;

  // Structural and semantic validation; throws Error(Model) naming the node id and field.
  // Also rebuilds the id index and parent links, so call it after editing nodes.
  void validate();

  [[nodiscard]] NodeIndex index_of(NodeId id) const; // throws Error(Usage) if unknown
  [[nodiscard]] bool has_node(NodeId id) const { return index_.contains(id); }
  [[nodiscard]] const Node &node(NodeId id) const { return nodes[index_of(id)]; }
  [[nodiscard]] NodeIndex parent(NodeIndex n) const { return parents_[n]; }
  // The function whose body contains node n.
  [[nodiscard]] std::size_t function_of(NodeIndex n) const { return owner_[n]; }
  [[nodiscard]] const Function *function(std::string_view fname) const;
  [[nodiscard]] std::size_t function_index(std::string_view fname) const; // npos if none
  [[nodiscard]] const Parameter *parameter(std::string_view pname) const;
  [[nodiscard]] NodeId max_id() const;

  // "node 12 (jacobi.c:40)" for messages.
  [[nodiscard]] std::string describe(NodeIndex n) const;
  [[nodiscard]] std::string location(const SourceRange &range) const; // "file:line" or ""

  // Append a node and return its index (ids must be unique; validate() checks).
  NodeIndex add(Node node);

  // Local variables of each function (params, loop variables, assigned names, operation
  // outputs), computed by validate(), in order of first appearance.
  [[nodiscard]] const std::vector<std::string> &locals(std::size_t function) const {
    return locals_[function];
  }
  // Names of communicators created by Comm_split / Comm_dup / comm_assign anywhere in the model.
  [[nodiscard]] const std::vector<std::string> &communicator_names() const { return comms_; }

private:
  std::unordered_map<NodeId, NodeIndex> index_;
  std::vector<NodeIndex> parents_;
  std::vector<std::size_t> owner_;
  std::vector<std::vector<std::string>> locals_;
  std::vector<std::string> comms_;
  std::set<std::string> comm_arrays_; // communicators named with an index ("comms[k]")
  friend class ModelValidator;
};

} // namespace parjava::model
