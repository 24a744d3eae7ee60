// Compiled expressions: a typed stack bytecode the interpreter evaluates millions of times.
//
// Compilation happens once per interpretation, when program parameters, the process count and
// the threads per process are known: those names become constants and every constant
// subexpression is folded ("2e-9*N*N/size" becomes one multiplication by `1/size`-free constant
// when size is known, or a single literal). What remains reads only per-process values: rank,
// thread, task, peer and variable slots (loop variables, assigned variables, status outputs).
// Types are static: every slot has a fixed type decided by the model's type inference, so an
// instruction never tests a tag at run time.
#pragma once

#include <bit>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parjava/model/expression.hpp"

namespace parjava::model {

enum class ValueType : std::uint8_t { Int, Float };

// A value with its static type; the bits are an int64 or a double.
struct Value {
  ValueType type = ValueType::Int;
  std::uint64_t bits = 0;

  static Value of_int(std::int64_t v) { return {ValueType::Int, static_cast<std::uint64_t>(v)}; }
  static Value of_float(double v) { return {ValueType::Float, std::bit_cast<std::uint64_t>(v)}; }
  [[nodiscard]] std::int64_t as_int() const { return static_cast<std::int64_t>(bits); }
  [[nodiscard]] double as_float() const { return std::bit_cast<double>(bits); }
  // The number as a double whatever its type.
  [[nodiscard]] double number() const {
    return type == ValueType::Int ? static_cast<double>(as_int()) : as_float();
  }
};

// What a name means to the compiler.
struct Symbol {
  enum class Kind : std::uint8_t { Constant, Slot, Rank, Thread, Peer, Task };
  Kind kind = Kind::Constant;
  Value constant;                  // Kind::Constant
  ValueType type = ValueType::Int; // Kind::Slot
  std::uint32_t slot = 0;          // Kind::Slot
};

// Maps a name to its meaning; nullopt means "unknown name" (a ModelError naming it).
using SymbolResolver = std::function<std::optional<Symbol>(std::string_view name)>;

// Per-process values an expression may read while it is evaluated.
struct EvalScope {
  const std::uint64_t *slots = nullptr; // the variable frame of the logical thread
  std::int64_t rank = 0;
  std::int64_t thread = 0;
  std::int64_t peer = 0;
  std::int64_t task = 0;
};

enum class Opcode : std::uint8_t {
  PushConst,
  LoadSlot,
  LoadRank,
  LoadThread,
  LoadPeer,
  LoadTask,
  IntToFloat,
  FloatToInt,
  IntTruth,
  FloatTruth,
  IAdd,
  ISub,
  IMul,
  IDiv,
  IRem,
  INeg,
  FAdd,
  FSub,
  FMul,
  FDiv,
  FNeg,
  IEq,
  INe,
  ILt,
  ILe,
  IGt,
  IGe,
  FEq,
  FNe,
  FLt,
  FLe,
  FGt,
  FGe,
  Not,
  BitNot,
  BitAnd,
  BitOr,
  BitXor,
  Shl,
  Shr,
  IMin,
  IMax,
  FMin,
  FMax,
  IAbs,
  FAbs,
  Floor,
  Ceil,
  Round,
  Trunc,
  Log2,
  Log,
  Exp,
  Sqrt,
  Pow,
  DimsCreate,     // pop i, ndims, n; push dimension i of MPI_Dims_create(n, ndims)
  JumpIfZero,     // pop; jump to arg if it was 0
  JumpIfZeroKeep, // if top is 0 jump to arg (keeping it), else pop
  JumpIfNonzeroKeep,
  Jump,
};

struct Instruction {
  Opcode op;
  std::uint32_t arg; // constant index, slot or jump target
};

class CompiledExpression {
public:
  CompiledExpression() = default;
  // Compile `expr`; unknown names, wrong operand types ('%' on doubles) and constant errors
  // (division by zero) throw Error(Model) prefixed with `where`.
  static CompiledExpression compile(const Expression &expr, const SymbolResolver &resolve,
                                    std::string_view where);
  static CompiledExpression of_constant(Value v);

  [[nodiscard]] ValueType type() const { return type_; }
  [[nodiscard]] bool is_constant() const { return constant_.has_value(); }
  [[nodiscard]] Value constant() const { return constant_.value_or(Value{}); }
  [[nodiscard]] const std::string &where() const { return where_; }

  // Evaluate. Integer division or remainder by zero and invalid shifts throw Error(Model)
  // naming `where` and the process.
  [[nodiscard]] Value evaluate(const EvalScope &scope) const {
    return constant_ ? *constant_ : run(scope);
  }
  [[nodiscard]] std::int64_t evaluate_int(const EvalScope &scope) const {
    const Value v = evaluate(scope);
    return v.type == ValueType::Int ? v.as_int() : static_cast<std::int64_t>(v.as_float());
  }
  [[nodiscard]] double evaluate_number(const EvalScope &scope) const {
    return evaluate(scope).number();
  }
  [[nodiscard]] bool evaluate_truth(const EvalScope &scope) const {
    const Value v = evaluate(scope);
    return v.type == ValueType::Int ? v.as_int() != 0 : v.as_float() != 0.0;
  }
  [[nodiscard]] std::size_t instruction_count() const { return code_.size(); }

private:
  [[nodiscard]] Value run(const EvalScope &scope) const;
  friend class ExpressionCompiler;

  std::vector<Instruction> code_;
  std::vector<std::uint64_t> constants_;
  std::optional<Value> constant_;
  ValueType type_ = ValueType::Int;
  std::string where_;
};

// Dimension `i` (0-based) of the balanced grid MPI_Dims_create(n, ndims, dims) returns with
// every dims[i] zero on entry: the prime factors of n, largest first, each multiplied into the
// dimension with the smallest product so far, then sorted into non-increasing order. This is
// the grid Open MPI 4.1 returns (checked against it for n <= 4096, ndims <= 4); 0 for
// arguments MPI rejects.
std::int64_t dims_create(std::int64_t n, std::int64_t ndims, std::int64_t i);

// Static type of an expression given the types of its names, without compiling it (used by
// the model's type inference of variables). Unknown names are reported by `resolve` returning
// nullopt, in which case this returns nullopt.
std::optional<ValueType>
infer_type(const Expression &expr,
           const std::function<std::optional<ValueType>(std::string_view)> &type_of);

} // namespace parjava::model
