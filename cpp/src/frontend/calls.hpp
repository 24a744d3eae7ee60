// Classification of calls (issue 7, "calls classified"): MPI (cfc), user functions defined in
// the input (ufc), thread primitives (locks, atomics; cfc of the thread family), program inputs
// read from argv, pure math the expression language has, and everything else (efc).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>

#include "dispatch.hpp"
#include "mpi_calls.hpp"
#include "program.hpp"

namespace parjava::frontend {

enum class CallClass : std::uint8_t {
  Mpi,          // a function of mpi.h (see MpiFunction for its role)
  User,         // defined in the input: a ufc leaf
  ThreadOp,     // lock / unlock / trylock / semaphore / atomic: a thread cfc leaf
  ThreadCreate, // pthread_create, std::thread: a task group when the pattern is recognised
  ThreadJoin,   // pthread_join, std::thread::join
  ArgvNumber,   // atoi(argv[k]) and friends: a program parameter
  InputNumber,  // atoi / strtol / atof of anything else (argv[i + 1], optarg, a buffer): an input
  Math,         // sqrt, fabs, floor, std::min, ...: pure, written into expressions
  External,     // anything else: an efc leaf (or part of a computational block)
  Indirect,     // through a function pointer: treated as external
  ScopedLock,   // std::lock_guard / std::unique_lock / std::scoped_lock construction
  Accessor,     // a user function that returns a field or global (FunctionInfo::accessor)
};

struct ClassifiedCall {
  CallClass kind = CallClass::External;
  const clang::Expr *expr = nullptr; // CallExpr or CXXConstructExpr
  const clang::FunctionDecl *callee = nullptr;
  std::string name;                         // callee name as written in messages
  const MpiFunction *mpi = nullptr;         // Mpi
  FunctionId user = kNoFunction;            // User
  std::string operation;                    // ThreadOp: model operation name
  const clang::Expr *object = nullptr;      // ThreadOp/ScopedLock: the lock or atomic
  int argv_index = -1;                      // ArgvNumber
  bool argv_floating = false;               // ArgvNumber: atof / strtod
  std::string math;                         // Math: expression-language function
  std::vector<const clang::Expr *> args;    // the call's arguments
  const clang::Expr *inline_expr = nullptr; // Accessor: what the call reads (or names)
  // Indirect: the functions the pointer may hold (dispatch.hpp); empty when the model cannot
  // name them all (a library function of the type, a static function of another unit).
  std::vector<FunctionId> targets;
  // Indirect through a virtual method (`force->compute(...)` on a `Force *`): the overriders
  // the program defines are the targets, and `type_names[i]` is the typeid name of the class
  // of targets[i], which the estimation code compares with the object's dynamic type.
  bool virtual_call = false;
  std::vector<std::string> type_names;
};

class CallClassifier {
public:
  explicit CallClassifier(const Program &program) : program_(program) {}
  // Classify a call or constructor expression; `context` is the AST it belongs to.
  ClassifiedCall classify(const clang::Expr *call, clang::ASTContext &context) const;
  // Resolve a callee to a function of the input (across translation units, by USR).
  FunctionId user_function(const clang::FunctionDecl *callee) const;
  // The same, ignoring measure_in_place.
  FunctionId defined_function(const clang::FunctionDecl *callee) const;
  void register_usr(const std::string &usr, FunctionId id) { usr_index_[usr] = id; }
  // The function's signature_key, for callees whose USR differs from the definition's.
  void register_signature(const std::string &key, FunctionId id) { signature_index_[key] = id; }
  // From now on calls to `f` are external calls, measured inside the enclosing computational
  // block (recursive functions: see mark_recursive_functions in source_analysis.cpp).
  void measure_in_place(FunctionId f) { in_place_.insert(f); }
  // The functions whose address the program takes, by type (calls through pointers).
  void set_dispatch_table(DispatchTable table) { dispatch_ = std::move(table); }
  [[nodiscard]] const DispatchTable &dispatch_table() const { return dispatch_; }

private:
  const Program &program_;
  std::map<std::string, FunctionId> usr_index_;
  std::map<std::string, FunctionId> signature_index_;
  std::set<FunctionId> in_place_;
  DispatchTable dispatch_;
  std::vector<FunctionId> indirect_targets(const clang::CallExpr *call,
                                           clang::ASTContext &context) const;
  bool virtual_targets(const clang::CXXMemberCallExpr *call, clang::ASTContext &context,
                       ClassifiedCall &out) const;
};

// The USR of a declaration (stable across translation units), "" if Clang cannot make one.
std::string usr_of(const clang::Decl *decl);

// A function's qualified name and parameter types without their top-level qualifiers. Clang's
// USR spells a parameter declared `const int` as `#1I`, so a definition `f(const int n)` and the
// declaration `f(int n)` another file sees have different USRs (UoB-HPC/CloverLeaf's
// chunk_type constructor: every call of it was an external call); this key is the same for both.
std::string signature_key(const clang::FunctionDecl *fd);

// `name` converts text to a number (atoi ... strtod); `floating` for atof, strtod, strtof.
bool number_conversion(const std::string &name, bool &floating);

// The position of main's argv a number conversion reads (`atoi(argv[2])`, the second
// `atoi(*++argv)`), or -1.
int argv_number(const clang::CallExpr *call, clang::ASTContext &ctx, bool &floating,
                const Program *program = nullptr);

// A vector of strings made from main's argv (`std::vector<std::string> args(argv, argv +
// argc)`, or from `argv + 1`): the position of argv its element 0 holds; -1 for any other
// variable. `to_argc` tells whether the copy ends at main's `argv + argc`.
int argv_copy_offset(const clang::ValueDecl *decl, const Program *program, bool *to_argc = nullptr);

// True if `decl` is defined in a file the user wrote (not a system header).
bool in_user_file(const clang::Decl *decl, const clang::SourceManager &sm);

// The record (class) name of a method or constructor's class, qualified ("std::mutex").
std::string record_name(const clang::CXXRecordDecl *record);

// Every call and constructor inside `stmt` in evaluation order (arguments before the call),
// not descending into lambda bodies.
std::vector<const clang::Expr *> calls_in(const clang::Stmt *stmt);

} // namespace parjava::frontend
