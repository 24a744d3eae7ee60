// The expression IR of control variables (seed 000 notes §2.3 C sets, §2.5 reduced models):
// the language in which a model states loop bounds, branch conditions, leaf times and the
// arguments of communication calls. Expressions are written as C-like text
// ("2.1e-9 * N*N/size", "(rank + 1) % size", "i < niter && rank != 0"), parsed once into a
// tree (this header) and compiled per interpretation into bytecode (bytecode.hpp), because the
// interpreter evaluates them millions of times.
//
// Values are 64-bit integers or doubles, with C's rules: integer literals and integer operands
// give integer results (`/` truncates, `%` is the C remainder), anything involving a double is
// a double, comparisons and logic give the integers 0 and 1.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace parjava::model {

enum class ExprKind : std::uint8_t {
  IntLiteral,   // int_value
  FloatLiteral, // float_value
  Name,         // name: a variable, program parameter or builtin (rank, size, thread, ...)
  Unary,        // op, args[0]
  Binary,       // op, args[0], args[1]
  Ternary,      // args[0] ? args[1] : args[2]
  Call,         // name(args...): min max abs floor ceil round trunc log2 log exp sqrt pow int float
};

enum class ExprOp : std::uint8_t {
  None,
  // unary
  Negate,
  Not,
  BitNot,
  // binary, from loosest to tightest binding
  Or,
  And,
  BitOr,
  BitXor,
  BitAnd,
  Equal,
  NotEqual,
  Less,
  LessEqual,
  Greater,
  GreaterEqual,
  ShiftLeft,
  ShiftRight,
  Add,
  Subtract,
  Multiply,
  Divide,
  Remainder,
};

// One node of a parsed expression. Children are held by value: expressions are small and
// parsed once per model load.
struct ExprNode {
  ExprKind kind = ExprKind::IntLiteral;
  ExprOp op = ExprOp::None;
  std::int64_t int_value = 0;
  double float_value = 0.0;
  std::string name;
  std::vector<ExprNode> args;
};

// A parsed expression with the text it came from (kept for messages, JSON and display).
class Expression {
public:
  Expression() = default;
  // Parse `text`; throws Error(Model) naming the column and what was expected. `where` names
  // the place for the message (e.g. "node 12, field 'time'").
  static Expression parse(std::string_view text, std::string_view where = "expression");
  static Expression constant(std::int64_t value);
  static Expression constant(double value);
  // A part of a parsed expression (an operand of its root) to compile alone; `text` names it in
  // messages (the whole expression's text).
  static Expression of_tree(ExprNode root, std::string text);

  [[nodiscard]] const std::string &text() const { return text_; }
  [[nodiscard]] const ExprNode &root() const { return root_; }
  [[nodiscard]] bool empty() const { return text_.empty(); }
  // Every identifier the expression reads (variables, parameters, builtins), without repeats.
  [[nodiscard]] std::vector<std::string> names() const;

private:
  std::string text_;
  ExprNode root_;
};

// True if `name` is a valid identifier for a variable or parameter (C rules, not a builtin or
// function name, not a keyword of the expression language).
bool is_valid_variable_name(std::string_view name);

// Builtin names every expression may read. rank/size are the MPI world rank and process count,
// thread/nthreads the logical thread and threads per process, peer the other side of a
// per-peer quantity (v-collective block sizes), task the index of a task in a task group.
// ANY_SOURCE, ANY_TAG and PROC_NULL are the MPI constants as the interpreter understands them.
bool is_builtin_name(std::string_view name);

inline constexpr std::int64_t kAnySource = -1;
inline constexpr std::int64_t kAnyTag = -1;
inline constexpr std::int64_t kProcNull = -2;

} // namespace parjava::model
