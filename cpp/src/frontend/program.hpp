// The frontend's analysis form of a C/C++ program: the structured statements of every function
// (one StructNode per future model node), the variables the control-variable analysis tracks,
// and the facts that analysis computes. It points into Clang's AST, which stays alive while a
// build runs; it is not a model and is never written anywhere (the model part owns that).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
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
using AggregateId = std::uint32_t;
using FunctionId = std::uint32_t;
using StructIndex = std::uint32_t;
inline constexpr VarId kNoVar = std::numeric_limits<VarId>::max();
inline constexpr FunctionId kNoFunction = std::numeric_limits<FunctionId>::max();
inline constexpr StructIndex kNoStruct = std::numeric_limits<StructIndex>::max();
inline constexpr AggregateId kNoAggregate = std::numeric_limits<AggregateId>::max();
// Arrays of at most this many scalars are replaced by one variable per element.
inline constexpr std::uint64_t kMaxAggregateElements = 64;

// Where a tracked variable lives. Fields are field-sensitive but object-insensitive: every
// object of a class shares one variable per field (the model has no objects; notes 000 §3.5
// treats class fields as global control variables), except the scalar fields of local and
// by-value struct objects whose every use the model follows, which are Locals of their function
// (record_copies.hpp).
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
  // The unit `unrepresentable_at` belongs to: a program-wide variable is seen from several.
  const clang::ASTContext *unrepresentable_unit = nullptr;
  bool control = false; // decides control flow or feeds an MPI argument somewhere
  // Builtin: the model name the variable always equals ("argc", "task").
  std::string builtin;
  // A constant communicator name for Comm variables (e.g. "world") found by the analysis.
  std::string handle_name;
  // Comm variables assigned another communicator elsewhere: why handle_name is approximate.
  std::string handle_conflict;
  // An element of an aggregate (Program::aggregates): which one, and its row-major index.
  AggregateId aggregate = kNoAggregate;
  std::uint64_t element = 0;
};

// Scalar replacement of aggregates (issue 12, state held in small arrays): a fixed-size array of
// at most kMaxAggregateElements scalars -- a local, a global or a field (`int nbr[6]`,
// `int procGrid[3]`, `real3 extent`) -- is one variable per element, so that neighbour ranks and
// grid sizes computed into it stay control variables that every rank evaluates for itself.
struct Aggregate {
  std::string source_name;
  std::vector<std::uint64_t> dims; // extents, outermost first
  std::vector<VarId> elements;     // row-major
};

// Where a pointer always points (issue 12, "through pointers and calls when the target is
// known"): into an aggregate at a constant offset (`const int *grid = domain->procGrid;`), or
// at one scalar variable (`int *n` of a function every call passes `&count`). A scalar that is a
// local of the caller is reached through a cell: a variable of the callee the call copies in
// before and out after (`getTuple(box, &ix, &iy, &iz)`).
struct AliasTarget {
  AggregateId aggregate = kNoAggregate;
  std::uint64_t offset = 0;
  VarId scalar = kNoVar; // the variable, or the cell for a caller's local
  bool cell = false;
  bool operator==(const AliasTarget &) const = default;
};

// What a function reads into a reference parameter (reference_inputs.hpp): the conversion's
// text, and the command-line options it reads it under, when string literals name them.
struct ReferenceRead {
  std::string text;
  std::vector<std::string> names;
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
    Input,     // a program input: the value of a model parameter (Program::inputs[input])
    Element,   // var (an aggregate element) = `element_kind` applied when the dynamic index hits it
    Copy,      // var = source (a pointer cell copied in before a call or out after it)
    Topology,  // var = a Cartesian-topology formula over `grid` (Effect::Grid)
  };
  // Topology: MPI_Dims_create / Cart_coords / Cart_shift / Cart_rank (MPI 4.0 §8.5) as
  // expressions of the grid's dimension variables, so neighbour ranks stay computed per rank.
  struct Grid {
    enum class Formula : std::uint8_t { Dims, Coord, ShiftSource, ShiftDest, Rank };
    Formula formula = Formula::Coord;
    std::vector<VarId> dims;            // the grid's extents (dims[0] varies slowest)
    std::vector<VarId> periods;         // periodic flags (empty: not known, Shift is then data)
    std::vector<VarId> coords;          // Rank: the coordinates; Dims: the entry values of dims
    const clang::Expr *value = nullptr; // Dims: nnodes; Coord: the rank
    const clang::Expr *disp = nullptr;  // Shift: the displacement
    std::uint64_t axis = 0;             // Coord / Shift / Dims: the dimension
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
  std::uint32_t input = std::numeric_limits<std::uint32_t>::max(); // Input: Program::inputs
  // Element: the write `a[i][j] op= value` with an index the model computes at run time; the
  // effect updates element `element` of `aggregate` if the flattened index equals it.
  Kind element_kind = Kind::Assign;
  AggregateId aggregate = kNoAggregate;
  std::uint64_t element = 0;
  std::uint64_t offset = 0;                 // pointer aliases: where the pointer points
  std::vector<const clang::Expr *> indices; // outermost first
  Grid grid;                                // Topology
};

// Where a program reads an input that reaches control flow or communication (issue 12, program
// inputs): a number parsed from the command line (`atoi(argv[i + 1])` under a strcmp of the
// option, `atoi(optarg)` under getopt's case), an option table that registers a variable's
// address (`addArg("nSteps", 'N', ..., &cmd.nSteps)`), a value read from a file (`fscanf`),
// a broadcast of such a value, or an external call's out-argument. In setup code (outside loops)
// the variable becomes a named model parameter there; inside loops it stays data.
struct InputSite {
  VarId var = kNoVar;
  FunctionId function = kNoFunction;
  std::string how;  // "argv", "option", "file", "broadcast", "external", "annotation"
  std::string what; // the reading call as written ("atoi(argv[i + 1])", "fscanf()")
  std::vector<std::string> options; // command-line spellings that set it ("-N", "--nSteps")
  // Which value after the option: `-n 20 30 40` read as `nx = atoi(argv[++i]); ny =
  // atoi(argv[++i]); ...` gives ny position 2 (LLNL/AMG's -n and -P).
  int position = 1;
  std::string doc;                     // the program's own help text for the option, if any
  bool registration = false;           // an option table entry: the value arrives at the next call
                                       // of the function that takes argv
  std::string spelling;                // the variable as written there (`cmd.nSteps`)
  std::optional<double> given_default; // the default the reading call names (keyed lookups)
  // The program's default is the processors it finds (`in.nthreads = omp_get_num_procs();`,
  // XSBench, RSBench): the parameter's default is 0, which the model reads as `nthreads`.
  bool processors_default = false;
  std::optional<double> flag; // how "flag": the constant an option without a value sets
  // A value read under one entry of a table of option prefixes (`sscanf(argv[i] +
  // strlen(cparams[j]), "%d", iparams + j)`, HPCG): the parameter's name from the entry
  // (`--nx=` -> `nx`), and the value holds once the loop over argv ends (inputs.cpp moves the
  // input after it).
  std::string name;
  bool table = false;
  // A number passed straight to a program function, `set_num_iterations(atoi(optarg))` (the OSU
  // micro-benchmarks, osu_pt2pt.c:165): `var` is the callee's parameter, `call` the call whose
  // node holds the read; the model passes the parameter as that argument.
  const clang::Expr *call = nullptr;
  // Read into an element chosen at run time (`fscanf(f, "%d", dims + i)` in `for (i = 0; i < 3;
  // ++i)`): each element is read once, so a loop around the read does not make it data.
  bool element = false;
  // Read by a getter with a key literal (`block.getValue<int>("nSteps", sp.nSteps)`, LLNL
  // Quicksilver's input-file blocks): configuration, even in a loop over a file's blocks.
  bool keyed = false;
  // A broadcast whose root computes what it sends from its own inputs (PRK nstream's
  // `length = total_length / Num_procs;` then MPI_Bcast(&length)): that expression, with the
  // root-only inputs it reads written as their parameters (`argv2`).
  const clang::Expr *broadcast_value = nullptr;
  std::map<VarId, std::string> broadcast_inputs;
  const clang::Stmt *statement = nullptr; // the value is set when this statement ends
  clang::SourceLocation location;
  bool setup = true;     // analysis: read outside loops, in code run once
  std::string parameter; // the model parameter's name ("" until named)
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
  // Group_incl's `rank` and `count` (text "list": member k is elements[k]; "range": elements
  // are first, last, stride of MPI_Group_range_incl's one range).
  std::vector<VarId> elements;
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
  // Communication: why the leaf approximates the program (the model node's `approximate`, a
  // warning of every prediction that runs it); empty when it does not.
  std::string approximate;
  std::vector<CommArg> comm_args;
  bool zero_time = false; // MPI_Init / MPI_Finalize: outside the measured region
  // ExternalCall: a call inside the condition of an if or switch (no statement of its own),
  // timed around the call expression (`if (nanosleep(&ts, &rem) == EINTR)`).
  bool in_condition = false;

  // Task groups (notes 000 §2.7): the number of tasks (model text; "" for nthreads), the loop
  // that creates them (its trip count is the task count) and its variable, which the worker's
  // arguments read as `task`.
  std::string tasks_text;
  const clang::Expr *tasks_expr = nullptr; // OpenMP num_threads(e)
  bool omp_team = false;                   // an OpenMP parallel region (model `team`)
  const clang::Stmt *task_loop = nullptr;
  VarId task_var = kNoVar;
  bool omp_chunk = false; // for: an OpenMP work-sharing loop, iterations split among tasks
  bool omp_loop = false;  // the loop of an OpenMP directive (probes cannot enclose it)
  // collapse(n) with n >= 2: the loops nested in it are the directive's too, and nothing may
  // stand between them (no counter, no probe).
  bool omp_collapsed = false;
  std::string cond_text;  // a condition already in model syntax ("task == 0")
  VarId counter = kNoVar; // range-for over a vector: the synthetic iteration counter

  // Dispatch of a call through a function pointer (dispatch.hpp): this if tests whether the
  // pointer (`cond`, the callee expression of `dispatch_call`) holds `dispatch`.
  FunctionId dispatch = kNoFunction;
  const clang::CallExpr *dispatch_call = nullptr;

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
  bool shares_work = false;     // an OpenMP worksharing loop, here or in a callee
  bool returns_control = false; // ControlReturnMethods
  bool called = false;
  std::vector<FunctionId> callees;
  // A lambda run as a task: the captured loop variable that numbers the tasks.
  const clang::VarDecl *task_capture = nullptr;
  // An accessor: the body is `return <expr>;` reading only fields, globals and constants
  // (`Index_t &tp() { return m_tp; }`). A call of it is that expression, read or written.
  const clang::Expr *accessor = nullptr;
};

// A program parameter the frontend creates: argc and argv[k] read as numbers.
struct ProgramParameter {
  std::string name;
  std::string doc;
  bool floating = false; // read with atof / strtod
  // Named inputs (Program::inputs): how a command line sets it, where it is read.
  std::vector<std::string> options;
  int position = 1; // InputSite::position
  std::string origin;
  std::string source;
  std::vector<std::string> aliases;
  bool input = false; // a named input parameter (not argv<k>)
  VarId var = kNoVar; // the variable a named input sets
  // The program's own value where no option sets it: the last constant the variable gets
  // before the program reads the input (its initialiser, `cmd.nSteps = 100;`).
  std::optional<double> program_default;
  std::optional<double> flag; // model::Parameter::flag
  // Words of the command line that set a constant, in the order met (model::Parameter::choices).
  std::vector<std::pair<std::string, double>> choices;
  // Data computed from it that the model only measures (model::Parameter::measured_through).
  std::vector<std::string> measured_through;
};

class Program {
public:
  std::vector<FunctionInfo> functions;
  std::vector<Variable> variables;
  std::vector<StructNode> nodes;
  std::vector<ProgramParameter> parameters;
  std::vector<InputSite> inputs;
  std::vector<Aggregate> aggregates;
  // Cartesian communicators made by MPI_Cart_create: the grid they were made with.
  struct Cartesian {
    std::vector<VarId> dims;
    std::vector<VarId> periods;
  };
  std::map<VarId, Cartesian> cartesian;
  // Groups (MPI_Group handles) that MPI_Comm_group / MPI_Group_incl / MPI_Group_range_incl
  // make, by their source text: MPI_Comm_create's group must be one of them.
  std::set<std::string> made_groups;
  // Counted loops whose variable is given a variable of its own inside the loop (issue 12,
  // counted loops stay counted): the loop node, the function's variable and the loop's copy.
  struct ScopedLoop {
    StructIndex loop = kNoStruct;
    VarId outer = kNoVar;
    VarId inner = kNoVar;
  };
  std::vector<ScopedLoop> scoped_loops;
  // The ForStmt -> the function's variables it has copies of -> the copies.
  std::map<const clang::Stmt *, std::map<VarId, VarId>> loop_variables;
  std::map<VarId, std::vector<VarId>> loop_copies; // the function's variable -> copies
  // Pointers whose target is known (local pointers and pointer parameters), by canonical decl.
  std::map<const clang::VarDecl *, AliasTarget> pointer_aliases;
  // Aggregates whose storage escapes where the model cannot follow it (`factor(n, fa[i])`,
  // `int *p = &a[i];`): their elements are data, with the reason and the unit it was seen in.
  struct Escape {
    std::string why;
    clang::SourceLocation where;
    const clang::ASTContext *unit = nullptr;
  };
  std::map<AggregateId, Escape> escaped_aggregates;
  [[nodiscard]] AggregateId aggregate_of(const clang::ValueDecl *decl) const;
  void map_aggregate(const clang::ValueDecl *decl, AggregateId id);
  [[nodiscard]] AggregateId aggregate_of_usr(const std::string &usr) const;
  void map_aggregate_usr(const std::string &usr, AggregateId id) { aggregate_usr_[usr] = id; }
  // Macros of the compile line whose number the model reads (compile_time_inputs.hpp), by name:
  // the flag's value, whether it is a floating literal, where the model first read it, and
  // whether the model being emitted reads it (the emitter lists those as parameters).
  struct CompileTimeInput {
    std::string value;
    bool floating = false;
    std::string source;
    bool read = false;
  };
  std::map<std::string, CompileTimeInput> compile_time_inputs;
  std::vector<Diagnostic> diagnostics;
  bool pgas_reported = false;     // the warning that OpenSHMEM calls are not modelled was given
  std::vector<std::string> files; // source files named by diagnostics and ranges
  // The working directory of each unit's compile command: Clang names files as the command
  // did (`./lulesh.h` under `-I.`), and they mean a place relative to that directory, not to
  // wherever parjava runs (issue 12, source paths).
  std::map<const clang::ASTContext *, std::string> unit_directory;
  // A file name as Clang reports it for a unit, made absolute and normalised.
  [[nodiscard]] std::string source_file(const clang::ASTContext &unit, std::string_view name) const;
  // User calls whose value an expression uses: the return slot that holds it after the ufc.
  std::map<const clang::Expr *, VarId> call_results;
  // Input reads passed as a call's argument (InputSite::call): the argument -> its site.
  std::map<const clang::Expr *, std::uint32_t> argument_inputs;
  // `n++` / `n--` of a caller's local passed as a program call's argument (UoB-HPC/flow's
  // `non_block_send(..., nmessages++)`): the argument is `n` as it was, and the step is an
  // effect of the statement after the call, which the callee cannot see.
  std::set<const clang::UnaryOperator *> argument_steps;

  StructIndex add(StructNode node) {
    nodes.push_back(std::move(node));
    return static_cast<StructIndex>(nodes.size() - 1);
  }
  VarId add(Variable var) {
    variables.push_back(std::move(var));
    return static_cast<VarId>(variables.size() - 1);
  }
  // Functions the program can run (live_functions.hpp); empty: all of them.
  std::vector<bool> live_functions;
  // Functions called inside a loop, directly or through callers (inputs.cpp): not set-up code.
  std::vector<bool> looped_functions;
  // Variables that always hold main's argv, canonical declarations (argv_aliases.hpp).
  std::set<const clang::Decl *> argv_aliases;
  // Records a live call fills from main's argv, with a `char **` field to hold it (ORNL
  // minisweep's `Arguments_create(&args, argc, argv)`), by USR (each unit has its own
  // declaration of the record): a keyed lookup may take such an object for the command line
  // (keyed_inputs.hpp, argv_aliases.hpp).
  std::set<std::string> argv_records;
  // The size of a std::vector parameter as the callee sees it, canonical declaration -> a cell
  // every call sets from the argument's size (vector_parameters.hpp).
  std::map<const clang::Decl *, VarId> vector_size_cells;
  // Reference parameters a function only reads program inputs into, canonical declaration ->
  // the read (reference_inputs.hpp).
  std::map<const clang::Decl *, ReferenceRead> input_references;
  // Fields assigned through a reference or pointer parameter (`A.localNumberOfRows = n;` in
  // GenerateProblem_ref(SparseMatrix &A)): the function and the parameter's index
  // (shared_fields.hpp).
  std::map<VarId, std::set<std::pair<FunctionId, unsigned>>> field_param_writes;
  // Fields named through local objects (`source.is_active`, `target.is_active` in minisweep's
  // StepScheduler_must_do_recv): per field and function, the objects (shared_fields.hpp).
  std::map<VarId, std::map<FunctionId, std::set<const clang::VarDecl *>>> field_local_objects;
  // Local struct objects, canonical declaration -> whether the model follows every use of it and
  // keeps one variable per field of it (record_copies.hpp).
  std::map<const clang::VarDecl *, bool> followed_objects;
  // Pointer parameters (of the definitions) through which the callee only reads and writes scalar
  // fields: a cell per field, copied in and out at each call (record_pointers.hpp).
  std::set<const clang::ParmVarDecl *> record_pointer_params;
  // The fields the control analysis made data for being set for several objects.
  std::vector<VarId> shared_fields;
  // Fields assigned through an element at a run-time index (`tiles[t].t_xmax = ...`, a C array
  // or a standard container of records): one variable for every element (shared_fields.hpp).
  struct ElementWrite {
    FunctionId function = kNoFunction;
    clang::SourceLocation location;
    std::string container; // the elements' expression as written ("tiles")
  };
  std::map<VarId, ElementWrite> field_element_writes;
  [[nodiscard]] bool live(FunctionId f) const {
    return live_functions.empty() || (f < live_functions.size() && live_functions[f]);
  }
  [[nodiscard]] FunctionId function_of(const clang::FunctionDecl *decl) const;
  void map_function(const clang::FunctionDecl *decl, FunctionId id);
  // The function of the input a call reaches, across units (by USR) and through declarations.
  [[nodiscard]] FunctionId callee_of(const clang::FunctionDecl *callee) const;
  std::map<std::string, FunctionId> function_usr;
  [[nodiscard]] VarId variable_of(const clang::ValueDecl *decl) const;
  void map_variable(const clang::ValueDecl *decl, VarId id);
  // Program-wide symbols (issue 12, whole programs): a global with external linkage, or a field,
  // is one variable in every translation unit that declares it, keyed by its USR.
  [[nodiscard]] VarId variable_of_usr(const std::string &usr) const;
  void map_usr(const std::string &usr, VarId id) { usr_index_[usr] = id; }
  // Fields of records the program casts into one another (record_punning.hpp): the USR of a
  // field of a common initial sequence -> the USR of the one variable that stands for them all.
  std::map<std::string, std::string> field_representatives;
  [[nodiscard]] std::string representative_usr(const std::string &usr) const {
    const auto it = field_representatives.find(usr);
    return it == field_representatives.end() ? usr : it->second;
  }
  // The defining declaration (with its initialiser) of every global with external linkage in
  // the input, by USR: a unit that only declares it `extern` reads the definition's value.
  std::map<std::string, const clang::VarDecl *> global_definitions;
  // A synthetic variable (status fields, container sizes) keyed by its source spelling.
  VarId synthetic(const std::string &key, VarType type, VarScope scope, FunctionId function);
  [[nodiscard]] const ProgramParameter *parameter(const std::string &name) const;
  void add_parameter(ProgramParameter p);

private:
  std::map<const clang::FunctionDecl *, FunctionId> function_index_;
  std::map<const clang::ValueDecl *, VarId> variable_index_;
  std::map<std::string, VarId> synthetic_index_;
  std::map<std::string, VarId> usr_index_;
  std::map<const clang::ValueDecl *, AggregateId> aggregate_index_;
  std::map<std::string, AggregateId> aggregate_usr_;
};

} // namespace parjava::frontend
