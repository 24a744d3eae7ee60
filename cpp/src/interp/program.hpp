// The model compiled for one interpretation: the control trees flattened into a linear
// instruction array with jumps (notes 000 §3.2's return states become jumps), every expression
// compiled to bytecode with parameters, size and nthreads folded in, variables assigned to
// fixed slots of a per-thread frame, and communication leaves decoded into CommOp records.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "parjava/interp/options.hpp"
#include "parjava/interp/sequence_program.hpp"
#include "parjava/model/bytecode.hpp"
#include "parjava/model/model.hpp"

namespace parjava::interp {

enum class Code : std::uint8_t {
  Enter,        // node: Freq++
  Compute,      // node: Freq++, clock += time(a) (a = time index)
  Assign,       // slot a = expr b
  JumpIfFalse,  // if !expr a: goto b
  Jump,         // goto b
  OpaqueBranch, // opaque a decides; if false goto b
  TripsStart,   // opaque a: draw this execution's trip count into its counter slot
  TripsTest,    // opaque a: if its counter is 0 goto b, else decrement it
  // Trip counts measured per rank (Program::measured_sequences a): Start loads this execution's
  // count and skips the next instruction (the opaque draw), or falls through to it when the
  // rank has no values; Test leaves (goto b) at 0 or decrements and skips the loop's own test,
  // or falls through to that test for a rank without values.
  MeasuredTripsStart,
  MeasuredTripsTest,
  // An if's outcomes measured per rank (Program::measured_sequences a): taken skips the if's own
  // test, not taken goes to b, no values for this rank falls through to the test.
  MeasuredBranch,
  Switch,    // switch table a
  CondTime,  // node: clock += time(a) (the B_CE block)
  Call,      // call function a from ufc node `node`
  CallRec,   // call function a inside its recursive cycle: recursive call b (a new frame)
  Return,    // return from the current function
  Comm,      // communication leaf: comm op a
  TaskGroup, // task group a; the main thread continues at b
  TaskEnd,   // a pool thread finished its task
  End,       // the entry function returned: the thread is done
  // Replayed sequences (sequence_program.hpp):
  Elapse,      // node: clock += delays[a] ns (a measured time, neither scaled nor shared)
  RegionEnter, // node: enter the trace region of function a (call site node b - 1, 0: none)
  RegionLeave, // leave the innermost region, that of function a
  LocalCall,   // node: an MPI call without communication, named trace_names[a]: delays[b] ns
  // A counted loop whose body only computes (Program::counted_loops a): all its iterations at
  // once, then goto b (the loop's exit); falls through to the loop's own code when its bound is
  // not an integer.
  CountedLoop,
};

struct Instruction {
  Code code;
  model::NodeIndex node;
  std::uint32_t a;
  std::uint32_t b;
};

// A block time: a constant or an expression (seconds, scaled by the machine's power), with the
// 3σ/√N error of a measured time.
struct TimeSource {
  std::int32_t expr = -1; // index into Program::exprs, or -1 for the constant
  double seconds = 0.0;   // the constant
  double error = 0.0;     // 3σ/√N per execution (seconds, scaled)
};

// A `for` whose iterations change nothing but the clock and the counters: one integer variable
// stepped by a constant and compared with a bound the body cannot change, and a body of compute
// blocks (and the sequences holding them) whose times do not read the variable. Seed 000 notes
// §3.5 keeps such a loop only for its trip count; the interpreter runs it as trips x body.
struct CountedLoop {
  std::uint32_t slot = 0;                   // the loop variable
  std::int64_t step = 0;                    // its constant step (never 0)
  model::ExprOp test = model::ExprOp::Less; // variable `test` bound
  std::uint32_t bound = 0;                  // expression index
  std::int32_t cond_time = -1;              // time index of the condition's own block, per test
  std::vector<std::pair<model::NodeIndex, std::uint32_t>> computes; // node, time index
  std::vector<model::NodeIndex> entered; // body nodes counted once per iteration
};

// The statistics one rank uses for an opaque condition.
struct OpaqueStats {
  double probability = 0.0;
  double trips_mean = 0.0;
  std::vector<std::pair<std::int64_t, double>> distribution; // cumulative frequencies, sum 1
  std::vector<double> weights;                               // switch cases (normalised)
};

// An opaque condition's decision state lives in frame slots (docs/model-schema.md).
struct OpaqueInfo {
  model::Opaque::Kind kind = model::Opaque::Kind::None;
  OpaqueStats base; // the statistics pooled over the ranks
  // Per-rank statistics (interfaces §1 rank classes): with per_rank, classes[r] is rank r's;
  // otherwise {rank 0, ranks 1..np-2, rank np-1}. Empty: every rank uses base.
  std::vector<OpaqueStats> classes;
  // Per class: the estimation rank(s) never evaluated the node, so the class uses the pooled
  // statistics (the engine warns when such a rank evaluates it).
  std::vector<std::uint8_t> unmeasured;
  bool per_rank = false;
  std::uint32_t index = 0; // in Program::opaques
  // Sampled mode: the subtree communicates, so the draw is keyed by (seed, node, the number
  // of evaluations so far) and shared by every rank instead of drawn per rank.
  bool shared = false;
  // The taken branch leaves the loop around the test (a convergence check's `break`). Its error
  // diffusion starts at 0, not ½: each entry then runs 1/p iterations, the first one too (from
  // ½, UoB-HPC/hot's 10 CG solves ran 9.5/p, 5 % short of the run's 10/p).
  bool leaves_loop = false;
  // The test leaves a loop of measured trips (opaques[last_trip_of]): taken on its last trip
  // only, in last_trip_share of the entries (Builder::last_trip).
  std::int32_t last_trip_of = -1;
  double last_trip_share = 0.0;
  std::uint64_t key = 0;          // the node id
  std::uint32_t state_slot = 0;   // accumulator(s): error diffusion / round robin
  std::uint32_t counter_slot = 0; // trips: remaining iterations
  std::uint32_t count_slot = 0;   // shared: evaluations so far
};

struct SwitchTable {
  std::int32_t value_expr = -1; // -1: opaque (weights)
  std::uint32_t opaque = 0;
  std::vector<std::pair<std::int64_t, std::uint32_t>> labels; // label -> pc
  std::uint32_t default_pc = 0;
  std::vector<std::uint32_t> case_pcs; // opaque: pc of case i
};

// Arguments of communication operations, decoded.
enum class Arg : std::uint8_t {
  Dest,
  Source,
  Tag,
  Bytes,
  Root,
  Index,
  Color,
  Key,
  Permits,
  Count,
  Threads,
  Target,
  Home,
  SendBytes,
  SendTag,
  RecvTag,
  RecvBytes,
  CommIndex,    // element of the communicator array `comm` (absent: not an array)
  NewcommIndex, // element of the communicator array `newcomm`
  GroupIndex,   // element of the communicator array `group` (Comm_create)
  Member,       // Group_incl: comm's rank of the new group's member `peer`
  Count_
};

struct CommOp {
  model::Operation op = model::Operation::Send;
  model::NodeIndex node = 0;
  std::array<std::int32_t, static_cast<std::size_t>(Arg::Count_)> expr{}; // -1: absent
  // Communicator slots (0 world, 1 self, 2.. model comms); for an array, the slot of its name,
  // and the element's own slot is found at run time from expr[CommIndex / NewcommIndex].
  std::uint32_t comm = 0;
  std::uint32_t newcomm = 0;    // Comm_split / Comm_dup / comm_assign target slot
  std::uint32_t group = 0;      // Comm_create: the group's slot
  bool approximate = false;     // the node's `approximate`: a prediction that runs it warns
  std::uint32_t request = 0;    // request name id (+1; 0: none given)
  std::uint32_t lock = 0;       // lock name id
  std::int32_t out_source = -1; // variable slots written by the operation
  std::int32_t out_tag = -1;
  std::int32_t out_bytes = -1;
  std::int32_t out_flag = -1;
  std::int32_t out_index = -1; // Waitany's index, Comm_rank's rank, Comm_size's size
  std::uint8_t algorithm = 0;  // Algorithm; 0 = automatic
  std::uint8_t sync_in = 2;    // 0 nosync, 1 mysync, 2 allsync
  std::uint8_t sync_out = 2;
  TimeSource local_time; // optional extra local cost of the call
  bool has_local_time = false;
  std::uint32_t callsite = 0; // index into Program::callsites (+1; 0: none)
  // The function the model trace names the call by (+1 into Program::trace_names; 0: the
  // operation's own name), e.g. MPI_Waitsome replayed as a Waitall.
  std::uint32_t trace_name = 0;
  // Arguments measured per rank (interfaces §2): index into Program::measured, -1 for none;
  // count_slot counts this thread's executions of the leaf (when counted).
  std::array<std::int32_t, static_cast<std::size_t>(Arg::Count_)> measured{};
  bool counted = false;
  std::uint32_t count_slot = 0;
};

// Values of one argument measured per rank: values[r] is rank r's sequence (may be empty).
struct MeasuredArg {
  std::vector<std::vector<std::int64_t>> values;
  std::string name;     // the argument
  std::string fallback; // its expression, used by a rank without values
};

// A loop's trip counts or an if's outcomes measured per rank (docs/model-schema.md "Measured
// decisions"): values[r] is rank r's sequence (may be empty: the node's own test decides).
struct MeasuredSequence {
  std::vector<std::vector<std::int64_t>> values;
  std::uint32_t count_slot = 0;   // executions of the loop by this thread so far
  std::uint32_t counter_slot = 0; // iterations left in this execution (kFromCondition: none)
  bool cap = false; // the counts bound the loop, whose condition still decides (Node::trips_cap)
};
inline constexpr std::uint64_t kFromCondition = ~std::uint64_t{0};

// A call inside a recursive cycle of the call graph: the arguments are evaluated into
// temporaries, the callee's frame (its variables and loop counters, Program::save_slots) is
// pushed on the thread's spill stack, then the temporaries become the parameters.
struct RecursiveCall {
  std::uint32_t callee = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> params; // (parameter slot, temporary)
  std::uint32_t site = 0; // numbers the recursive call sites (outermost-execution accounting)
};

struct TaskGroupInfo {
  std::int32_t tasks_expr = -1; // -1: the process's team size (nthreads unless set_team)
  bool team = false;            // an OpenMP region: the pool must hold its tasks
  bool fork_timed = false;      // its fork/join is in its loop's measured time (Node::fork_timed)
  std::uint32_t body_pc = 0;
  std::uint32_t task_slot = 0; // hidden slots: task index, number of tasks
  std::uint32_t ntasks_slot = 0;
};

// A replay's steps, read by the engine where the SequenceProgram holds them (Engine::run_steps):
// translating 6.5 million steps of a 10-million-event trace into Instructions and delays wrote
// 24 bytes per step once more (about 160 MB, each page faulted in afresh per replay) only for
// the engine to read them back once. A thread's pc is then a step index; a Call step runs
// `call[ref]` (a Comm instruction, whose b is unused: the step's seconds are its local time, or
// a LocalCall); a Compute step of zero seconds is no instruction; a process ends at `end[p]`.
struct ReplaySteps {
  bool used = false; // false: the program is `code`
  const StepKind *kind = nullptr;
  const std::uint32_t *ref = nullptr;
  const double *seconds = nullptr;
  std::vector<Instruction> call;             // per SequenceProgram::calls entry
  std::vector<model::NodeIndex> region_node; // [0]: outside every region; [1 + i]: region i
  std::vector<std::uint32_t> end;            // per process
  [[nodiscard]] model::NodeIndex node_of_region(std::uint32_t region) const {
    return region_node[region == kNoSequenceRef ? 0 : 1 + static_cast<std::size_t>(region)];
  }
};

struct Program {
  std::vector<Instruction> code;
  ReplaySteps steps;
  std::vector<model::CompiledExpression> exprs;
  std::vector<TimeSource> times;
  std::vector<OpaqueInfo> opaques;
  std::vector<SwitchTable> switches;
  std::vector<CommOp> comms;
  std::vector<TaskGroupInfo> task_groups;
  std::vector<std::uint32_t> function_entry; // pc of each function
  std::vector<std::uint32_t> call_node;      // ufc node per Call instruction (same as node)
  std::uint32_t entry_pc = 0;
  std::uint32_t frame_slots = 0;
  std::uint32_t rng_slot = 0;       // sampled opaque mode
  std::uint32_t max_call_depth = 0; // deepest static call chain (non-recursive programs)
  // Recursion: whether any function can reach itself; per function the slots of one
  // activation (saved by a recursive call); the recursive calls; per node whether it is a
  // call inside a recursive cycle (its time is not rolled up into its parents).
  bool recursive = false;
  std::vector<std::vector<std::uint32_t>> save_slots;
  std::vector<RecursiveCall> recursive_calls;
  std::vector<std::uint8_t> recursive_site;
  std::vector<MeasuredArg> measured;
  std::vector<MeasuredSequence> measured_sequences;
  std::vector<CountedLoop> counted_loops;
  std::vector<std::string> warnings; // found while compiling (per-rank data at another np)
  // The operations whose peers are a fallback guess at this np (measured at another): a
  // deadlock of the model then names them, for the program need not deadlock.
  std::vector<std::string> guessed_peers;
  std::vector<std::uint32_t> global_slots;
  std::vector<std::int32_t> global_init; // expr per global
  std::vector<model::ValueType> slot_types;
  std::vector<std::string> request_names;
  std::vector<std::string> lock_names;
  std::vector<std::string> comm_names; // slot -> name ("world", "self", ...)
  // Per slot: a communicator field (Model::field_communicators), world until assigned.
  std::vector<bool> world_until_assigned;
  // Variable name -> slot, per function and for globals (partial interpretation inputs).
  std::vector<std::unordered_map<std::string, std::uint32_t>> local_slots;
  std::unordered_map<std::string, std::uint32_t> global_slots_by_name;
  // Replayed sequences (sequence_program.hpp): per process its first instruction (empty: all
  // start at entry_pc); measured times in ns (Elapse, LocalCall, and a Comm instruction's extra
  // local time delays[b - 1] when b > 0); names of MPI calls for the model trace; communicators
  // that exist from the start, in slots 2.. (comm_names names them too); whether the entry
  // function is a region of the model trace.
  std::vector<std::uint32_t> process_entry;
  std::vector<double> delays;
  std::vector<std::string> trace_names;
  std::vector<std::int64_t> interval_ids; // per function: its interval id, -1 for a region
  std::vector<std::vector<std::int32_t>> initial_comms;
  bool trace_entry = true;
  bool measured_times = false; // every time was measured on the target: no processor sharing
  bool uses_task_groups = false;
  // The hidden slots `task` and `ntasks` read (every thread's frame): a worksharing loop in a
  // function called outside any task group reads 0 and 1 there (OpenMP's orphaned `omp for`).
  std::uint32_t task_slot = 0;
  std::uint32_t ntasks_slot = 0;
  bool uses_pgas = false;
  std::int64_t processes = 1;
  std::int64_t threads = 1;
};

// Compile `model` for `options` (processes, threads, parameter values) with compute times
// scaled by `compute_scale` (the machine's power). Throws Error(Model) naming node and field.
// `entry_node`, when not kNoNode, makes that node the program (partial interpretation).
Program compile_program(const model::Model &model, const InterpretOptions &options,
                        double compute_scale, model::NodeIndex entry_node = model::kNoNode);

} // namespace parjava::interp
