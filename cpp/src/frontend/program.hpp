// The frontend's analysis form of a C/C++ program: the structured statements of every function
// (one StructNode per future model node), the variables the control-variable analysis tracks,
// and the facts that analysis computes. It points into Clang's AST, which stays alive while a
// build runs; it is not a model and is never written anywhere (the model part owns that).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/SourceLocation.h>

#include "parjava/frontend/diagnostic.hpp"

namespace clang {
class ASTContext;
class SourceManager;
} // namespace clang

namespace parjava::frontend {

using VarId = std::uint32_t;
using FunctionId = std::uint32_t;
using StructIndex = std::uint32_t;
inline constexpr VarId kNoVar = std::numeric_limits<VarId>::max();
inline constexpr FunctionId kNoFunction = std::numeric_limits<FunctionId>::max();
inline constexpr StructIndex kNoStruct = std::numeric_limits<StructIndex>::max();

// Where a tracked variable lives. Fields are field-sensitive but object-insensitive: every
// object of a class shares one variable per field (the model has no objects; notes 000 §3.5
// treats class fields as global control variables).
enum class VarScope : std::uint8_t {
  Local,      // a local variable (or a synthetic one of a function: status fields, captures)
  Parameter,  // a formal parameter
  Global,     // file-scope and static variables
  Field,      // a class field, one variable for every object of the class
  ReturnSlot, // the value a function returns (a global the callee sets before returning)
  Builtin,    // always equal to a model name (argc, a task index): `builtin`
};

// What a variable holds, as far as the model's expression language is concerned.
enum class VarType : std::uint8_t {
  Integer,  // any integer, enum or bool scalar
  Floating, // float, double, long double
  Comm,     // MPI_Comm: its value is a communicator name
  Request,  // MPI_Request (or an array of them): its value is a request array name
  Datatype, // MPI_Datatype: tracked as its size in bytes
  Other,    // pointers, arrays, records, ...: data the model never keeps
};

struct Variable {
  std::string source_name; // as written ("nx_", "status.MPI_SOURCE")
  std::string model_name;  // unique valid model identifier
  VarScope scope = VarScope::Local;
  VarType type = VarType::Other;
  const clang::ValueDecl *decl = nullptr; // VarDecl, ParmVarDecl or FieldDecl (null: synthetic)
  FunctionId function = kNoFunction;      // owner of locals, parameters and return slots
  std::uint32_t param_index = 0;          // Parameter: position
  clang::SourceLocation location;
  // Analysis results (control_analysis.cpp).
  bool representable = true; // every definition is an expression the model can evaluate
  std::string unrepresentable_reason;
  clang::SourceLocation unrepresentable_at;
  bool control = false; // decides control flow or feeds an MPI argument somewhere
  // Builtin: the model name the variable always equals ("argc", "task").
  std::string builtin;
  // A constant communicator name for Comm variables (e.g. "world") found by the analysis.
  std::string handle_name;
};

// A definition of a tracked variable made by a statement.
struct Effect {
  enum class Kind : std::uint8_t {
    Assign,    // var = value
    Compound,  // var op= value (op in `op`)
    Increment, // ++var / var++
    Decrement, // --var / var--
    Builtin,   // var = a model builtin or parameter (text in `text`: rank, size, argv1)
    Product,   // var = factors... * size(datatype) (MPI_Type_contiguous / vector / size)
    Quotient,  // var = source / size(datatype) (MPI_Get_count)
    Operation, // written by the communication leaf itself (status source/tag, flags)
    Havoc,     // written in a way the model cannot follow (reason in `text`)
  };
  Kind kind = Kind::Assign;
  VarId var = kNoVar;
  const clang::Expr *value = nullptr;
  clang::BinaryOperatorKind op = clang::BO_Add;
  std::string text;
  std::vector<const clang::Expr *> factors;
  const clang::Expr *datatype = nullptr;
  VarId source = kNoVar;
  bool strong = true; // kills the previous value (false for a may-write)
  clang::SourceLocation location;
  std::vector<VarId> uses; // tracked variables the new value depends on
  bool kept = false;       // analysis: the definition reaches a control use
};

// Node kinds of the structured form; each becomes the model node of the same name.
enum class StructKind : std::uint8_t {
  Sequence,
  If,
  IfElse,
  Switch,
  For,
  While,
  DoWhile,
  TaskGroup,
  Block,         // cb: straight-line statements
  UserCall,      // ufc
  ExternalCall,  // efc
  Communication, // cfc: MPI or thread operation
  Return,
  Break,
  Continue,
  Reduced, // rb: an unstructured function body, measured as a whole
};

bool is_loop(StructKind kind);

// One argument of a communication leaf, before translation: a Clang expression to translate, a
// model text already decided (MPI constants, names), or a bytes product of count × datatype.
struct CommArg {
  std::string name; // the model argument name ("dest", "bytes", "request", ...)
  const clang::Expr *expr = nullptr;
  const clang::Expr *count = nullptr;    // bytes: count expression
  const clang::Expr *datatype = nullptr; // bytes: datatype expression
  std::string text;                      // decided model text (names, constants) when expr is null
  bool is_name = false;                  // Comm / Request / Variable / Lock / Choice argument
  bool substitute_peer = false;          // v-collectives: the block of rank `peer` is its own count
  VarId var = kNoVar;                    // status_source / status_tag / flag / index: the output
  std::vector<VarId> uses;
};

struct SwitchLabel {
  std::vector<std::int64_t> values;
  bool is_default = false;
};

struct StructNode {
  StructKind kind = StructKind::Sequence;
  FunctionId function = kNoFunction;
  clang::SourceRange range; // the whole statement or run of statements
  std::string label;
  std::vector<StructIndex> children;

  // Block / ExternalCall: the statements in order (the first and last bound the probes).
  std::vector<const clang::Stmt *> stmts;
  std::vector<Effect> effects;
  std::vector<VarId> uses; // variables the condition, selector or returned value reads

  // Conditions and loops.
  const clang::Expr *cond = nullptr;       // if, loops; switch selector
  std::vector<Effect> init, update;        // for
  const clang::Stmt *stmt = nullptr;       // the Clang statement (loops, if, switch)
  const clang::Stmt *loop_body = nullptr;  // loops: the body statement (iteration probes)
  std::vector<SwitchLabel> cases;          // switch, parallel to children
  bool range_for = false;                  // for (x : container): trips from the container
  const clang::Expr *trips_hint = nullptr; // range-for: container whose size is the trip count

  // Calls.
  const clang::Expr *call = nullptr;        // the call expression
  FunctionId callee = kNoFunction;          // UserCall
  std::string callee_name;                  // UserCall, ExternalCall, Communication (source name)
  std::vector<const clang::Expr *> args;    // UserCall: actual parameters
  std::vector<std::vector<VarId>> arg_uses; // UserCall: variables each argument reads
  VarId result = kNoVar;                    // UserCall: variable receiving the return value
  std::string operation; // Communication: model operation name ("MPI_Send", "lock")
  std::vector<CommArg> comm_args;
  bool zero_time = false; // MPI_Init / MPI_Finalize: outside the measured region

  // Task groups (notes 000 §2.7): the number of tasks (model text; "" for nthreads), the loop
  // that creates them (its trip count is the task count) and its variable, which the worker's
  // arguments read as `task`.
  std::string tasks_text;
  const clang::Stmt *task_loop = nullptr;
  VarId task_var = kNoVar;
  bool omp_chunk = false; // for: an OpenMP work-sharing loop, iterations split among tasks
  bool omp_loop = false;  // the loop of an OpenMP directive (probes cannot enclose it)
  std::string cond_text;  // a condition already in model syntax ("task == 0")
  VarId counter = kNoVar; // range-for over a vector: the synthetic iteration counter

  // Return: the returned expression (control-return functions keep it).
  const clang::Expr *return_value = nullptr;

  // Break / continue: the statement left or repeated.
  StructIndex target = kNoStruct;

  // Reduced: why the body could not be structured.
  std::string reduced_reason;

  // Analysis results.
  bool control = false; // the node decides control flow (its condition is kept)
  bool opaque = false;  // condition depends on data the model does not keep
  std::string opaque_reason;
  bool communicates = false; // the subtree has a cfc, a task group or a ufc that does
  // The estimation must not measure the subtree as a whole: it communicates, or it calls a
  // function with loops, whose time depends on its arguments (control_analysis.cpp).
  bool interpreted = false;
  std::uint32_t model_id = 0; // id of the model node emitted for it (0: none yet)
};

struct FunctionInfo {
  std::string name; // model name (qualified, disambiguated for overloads)
  const clang::FunctionDecl *decl = nullptr;
  clang::ASTContext *context = nullptr;
  std::vector<VarId> params; // one per declared parameter (kNoVar for unnamed)
  VarId return_slot = kNoVar;
  StructIndex body = kNoStruct;
  bool unstructured = false;
  std::string unstructured_reason;
  clang::SourceLocation unstructured_at;
  bool recursive = false;
  bool communicates = false;    // calls MPI or thread operations, directly or through callees
  bool has_loops = false;       // a loop whose trips follow its inputs, here or in a callee
  bool returns_control = false; // ControlReturnMethods
  bool called = false;
  std::vector<FunctionId> callees;
  // A lambda run as a task: the captured loop variable that numbers the tasks.
  const clang::VarDecl *task_capture = nullptr;
};

// A program parameter the frontend creates: argc and argv[k] read as numbers.
struct ProgramParameter {
  std::string name;
  std::string doc;
  bool floating = false; // read with atof / strtod
};

class Program {
public:
  std::vector<FunctionInfo> functions;
  std::vector<Variable> variables;
  std::vector<StructNode> nodes;
  std::vector<ProgramParameter> parameters;
  std::vector<Diagnostic> diagnostics;
  std::vector<std::string> files; // source files named by diagnostics and ranges
  // User calls whose value an expression uses: the return slot that holds it after the ufc.
  std::map<const clang::Expr *, VarId> call_results;

  StructIndex add(StructNode node) {
    nodes.push_back(std::move(node));
    return static_cast<StructIndex>(nodes.size() - 1);
  }
  VarId add(Variable var) {
    variables.push_back(std::move(var));
    return static_cast<VarId>(variables.size() - 1);
  }
  [[nodiscard]] FunctionId function_of(const clang::FunctionDecl *decl) const;
  void map_function(const clang::FunctionDecl *decl, FunctionId id);
  [[nodiscard]] VarId variable_of(const clang::ValueDecl *decl) const;
  void map_variable(const clang::ValueDecl *decl, VarId id);
  // A synthetic variable (status fields, container sizes) keyed by its source spelling.
  VarId synthetic(const std::string &key, VarType type, VarScope scope, FunctionId function);
  [[nodiscard]] const ProgramParameter *parameter(const std::string &name) const;
  void add_parameter(ProgramParameter p);

private:
  std::map<const clang::FunctionDecl *, FunctionId> function_index_;
  std::map<const clang::ValueDecl *, VarId> variable_index_;
  std::map<std::string, VarId> synthetic_index_;
};

} // namespace parjava::frontend
