// The walker behind build_structure() (structure_builder.hpp), shared by the files that hold
// its parts: one function body at a time, statements in order, each appended to the sequence
// that holds it. Private to the frontend; each part's file says what it turns into nodes.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/StmtOpenMP.h>

#include "calls.hpp"
#include "effects.hpp"
#include "forward_gotos.hpp"
#include "program.hpp"
#include "variables.hpp"

namespace parjava::frontend {

// Thrown inside the walk when the function cannot be a control tree; caught per function.
struct UnstructuredFlow {
  std::string reason;
  clang::SourceLocation where;
};

// `e` without implicit nodes, parentheses, cleanups and `(void)` casts.
const clang::Expr *strip_value(const clang::Expr *e);
// The call a statement consists of (`f(x);`, `y = f(x);`, `T y = f(x);`), or null.
const clang::Expr *top_call(const clang::Stmt *s);
bool contains_call(const clang::Stmt *s);
// The statement a loop body consists of (a compound of one statement or the statement), or null.
const clang::Stmt *single_statement(const clang::Stmt *body);

// One conditional a call sits in (structure_guards.cpp): the `?:` or logical operator, and
// which of its two sides holds the call (0: the true branch of `?:` and the right of `&&`; 1:
// the false branch and the right of `||`).
struct Guard {
  const clang::Expr *expr = nullptr;
  int side = 0;
};

struct GuardedCall {
  ClassifiedCall call;
  std::vector<Guard> guards; // outermost first
};

class StructureWalk {
public:
  StructureWalk(Program &program, const CallClassifier &calls, FunctionId function)
      : program_(program), calls_(calls), function_(function),
        context_(*program.functions[function].context), sm_(context_.getSourceManager()),
        vars_(program, context_, function) {}

  void build();

private:
  struct Seq {
    StructIndex node = kNoStruct;
    StructNode pending;
    bool has_pending = false;
    std::vector<const clang::Expr *> scoped_locks; // unlocked at the end of the compound
  };
  struct Frame {
    StructIndex node;
    bool is_loop;
    // Rotated loops (calls in the condition) repeat these before every continue.
    const clang::Expr *rotated_cond = nullptr;
    const clang::Stmt *rotated_update = nullptr;
  };

  // structure_builder.cpp: the walk, its nodes and sequences, statements dispatched by kind
  void diag(DiagnosticKind kind, Severity severity, clang::SourceLocation loc,
            const std::string &message);
  StructNode make(StructKind kind, clang::SourceRange range);
  void make_reduced(const std::string &reason, clang::SourceLocation where);
  Seq open_sequence(const clang::Stmt *s);
  StructIndex close_sequence(Seq &seq);
  void add_child(Seq &seq, StructIndex child);
  void flush(Seq &seq);
  void add_to_block(Seq &seq, const clang::Stmt *s, std::vector<Effect> effects);
  void add_effects(Seq &seq, std::vector<Effect> effects, clang::SourceRange range);
  std::vector<Effect> tagged(std::vector<Effect> effects, const clang::Stmt *statement);
  void append(Seq &seq, const clang::Stmt *s);
  void append_compound(Seq &seq, const clang::CompoundStmt *compound);
  void append_range(Seq &seq, const std::vector<const clang::Stmt *> &children, std::size_t lo,
                    std::size_t hi, const std::vector<GotoBlock> *blocks);
  void append_goto(Seq &seq, const clang::GotoStmt *jump);
  void append_simple(Seq &seq, const clang::Stmt *s);

  // structure_statements.cpp: conditions, if / loops / switch, break / continue / return,
  // constructor initialisers
  void emit_condition_calls(Seq &seq, const clang::Stmt *s);
  void emit_condition_externals(Seq &seq, const clang::Expr *cond);
  bool has_leaf_calls(const clang::Stmt *s);
  void set_condition(StructIndex idx, const clang::Expr *cond);
  void check_condition_effects(const clang::Expr *cond, bool once = false,
                               const clang::Stmt *statement = nullptr);
  StructIndex build_child(const clang::Stmt *s);
  void append_if(Seq &seq, const clang::IfStmt *ifs);
  void flush_havoc(Seq &seq, clang::SourceRange range);
  void append_for(Seq &seq, const clang::ForStmt *fors);
  void append_rotated_loop(Seq &seq, const clang::Stmt *loop, const clang::Expr *cond,
                           const clang::Stmt *update, const clang::Stmt *body_stmt);
  void append_while(Seq &seq, const clang::WhileStmt *whiles);
  void append_do(Seq &seq, const clang::DoStmt *dos);
  void append_range_for(Seq &seq, const clang::CXXForRangeStmt *range);
  // `for (auto it = v.begin(); it != v.end(); ++it)` over a vector whose size the model knows:
  // counted as a range-for over v (false when the loop is not that idiom).
  bool append_iterator_for(Seq &seq, const clang::ForStmt *fors);
  // A loop over a container of `size` elements (kNoVar: unknown, measured), counted by a
  // counter of its own: the range-for and the iterator loop.
  void append_counted_for(Seq &seq, const clang::Stmt *loop, const clang::Stmt *body,
                          const clang::Expr *container, VarId size, std::string label);
  void append_switch(Seq &seq, const clang::SwitchStmt *sw);
  void append_jump(Seq &seq, StructKind kind, clang::SourceRange range);
  void append_return(Seq &seq, const clang::ReturnStmt *ret);
  void constructor_initialisers(Seq &seq, const clang::CXXConstructorDecl *ctor);

  // structure_calls.cpp: which calls become leaves; calls of model functions (direct, through
  // pointers), external calls
  std::vector<ClassifiedCall> leaf_calls(const clang::Stmt *s);
  void append_external(Seq &seq, const clang::Stmt *s, const ClassifiedCall &c);
  void emit_call_leaf(Seq &seq, const ClassifiedCall &c, const clang::Stmt *statement);
  std::string indirect_reason(const ClassifiedCall &c) const;
  void argument_inputs(const ClassifiedCall &c, const std::vector<const clang::Expr *> &args);
  static std::string setter_name(const std::string &function, const std::string &param);
  StructIndex dispatch_chain(const ClassifiedCall &c, const clang::Stmt *statement, std::size_t k);
  VarId return_slot(FunctionId callee);

  // structure_guards.cpp: leaves of calls under `?:`, `&&` and `||`, as ifs on the guards
  void emit_leaves(Seq &seq, const std::vector<ClassifiedCall> &leaves,
                   const clang::Stmt *statement);
  void emit_guarded(Seq &seq, const std::vector<GuardedCall> &calls, std::size_t depth,
                    const clang::Stmt *statement);

  // structure_mpi.cpp: MPI leaves, communicator names (arrays, copies, parameters), groups
  void emit_mpi_leaf(Seq &seq, const ClassifiedCall &c);
  // The leaf of `mpi`'s operation with `c`'s arguments, at `site` (the call itself, or the
  // MPI_Start that posts a persistent request made by `c`).
  void emit_operation(Seq &seq, const ClassifiedCall &c, const MpiFunction &mpi,
                      const ClassifiedCall &site);
  // structure_persistent.cpp: persistent requests (MPI_Send_init ... MPI_Start)
  void record_persistent_init(const ClassifiedCall &c);
  void emit_start(Seq &seq, const ClassifiedCall &c);
  using RequestSlot = std::pair<const clang::ValueDecl *, std::int64_t>;
  std::optional<RequestSlot> request_slot(const clang::Expr *e) const;
  // The MPI_*_init call each persistent request of this function was last made by.
  std::map<RequestSlot, ClassifiedCall> persistent_;
  void emit_comm_query_leaf(Seq &seq, const ClassifiedCall &c);
  bool append_comm_copy(Seq &seq, const clang::Stmt *s);
  bool append_comm_assign(Seq &seq, const clang::Stmt *s);
  void emit_comm_parameters(Seq &seq, const ClassifiedCall &c,
                            const std::vector<const clang::Expr *> &args);
  static std::string identifier_text(const std::string &text);
  bool append_group_incl(Seq &seq, const ClassifiedCall &c);
  std::string group_text(const clang::Expr *e) const;

  // structure_threads.cpp: locks, and task groups of pthread / std::thread create and join loops
  void emit_lock_op(Seq &seq, const std::string &op, const clang::Expr *object,
                    clang::SourceLocation where);
  std::string lock_name(const clang::Expr *object);
  void emit_named_lock(Seq &seq, const std::string &op, const std::string &name,
                       clang::SourceLocation where);
  std::optional<ClassifiedCall> single_call(const clang::Stmt *s, CallClass kind);
  std::size_t try_thread_group(Seq &seq, const std::vector<const clang::Stmt *> &children,
                               std::size_t i);
  FunctionId callable_function(const clang::Expr *callable, const clang::VarDecl *loop_var);
  void mark_pointer_parameter(FunctionId id);

  // structure_openmp.cpp: OpenMP parallel regions and worksharing loops
  const clang::Stmt *captured(const clang::OMPExecutableDirective *d);
  void append_openmp(Seq &seq, const clang::OMPExecutableDirective *d);
  void mark_openmp_loop(std::size_t first_new_node, const clang::Stmt *loop, bool chunked);
  void append_worksharing_loop(Seq &seq, const clang::Stmt *loop,
                               const clang::OMPExecutableDirective *d);

  Program &program_;
  const CallClassifier &calls_;
  FunctionId function_;
  clang::ASTContext &context_;
  const clang::SourceManager &sm_;
  VariableResolver vars_;
  std::vector<Frame> frames_;
  GotoPlan gotos_;
  std::map<const clang::LabelDecl *, StructIndex> goto_targets_;
  std::vector<Effect> pending_havoc_;
  std::set<const clang::Expr *> reported_indirect_;
  bool in_parallel_ = false;
  // Calls being emitted from a condition or a returned value: their value is used even when
  // the call is the whole expression (`if (f(x))`, `return f(x);`), unlike `f(x);`.
  bool value_used_ = false;
};

} // namespace parjava::frontend
