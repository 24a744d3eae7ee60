// Compiler of the expression bytecode. Compilation folds every constant subtree (program
// parameters, size and nthreads are constants at this point) and types every operation
// statically; the evaluator is in bytecode_run.cpp, the scalar operations in bytecode_ops.hpp.
#include "parjava/model/bytecode.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "bytecode_ops.hpp"
#include "parjava/error.hpp"

namespace parjava::model {

using ops::float_binary;
using ops::float_compare;
using ops::float_to_int;
using ops::float_unary;
using ops::int_binary;
using ops::kMaxStack;

namespace {

[[noreturn]] void fail(std::string_view where, const std::string &what) {
  throw Error(ErrorKind::Model, std::string(where) + ": " + what);
}

bool is_comparison(ExprOp op) {
  return op == ExprOp::Equal || op == ExprOp::NotEqual || op == ExprOp::Less ||
         op == ExprOp::LessEqual || op == ExprOp::Greater || op == ExprOp::GreaterEqual;
}

Opcode comparison_opcode(ExprOp op, bool as_float) {
  switch (op) {
  case ExprOp::Equal:
    return as_float ? Opcode::FEq : Opcode::IEq;
  case ExprOp::NotEqual:
    return as_float ? Opcode::FNe : Opcode::INe;
  case ExprOp::Less:
    return as_float ? Opcode::FLt : Opcode::ILt;
  case ExprOp::LessEqual:
    return as_float ? Opcode::FLe : Opcode::ILe;
  case ExprOp::Greater:
    return as_float ? Opcode::FGt : Opcode::IGt;
  default:
    return as_float ? Opcode::FGe : Opcode::IGe;
  }
}

const char *op_text(ExprOp op) {
  switch (op) {
  case ExprOp::Remainder:
    return "%";
  case ExprOp::BitAnd:
    return "&";
  case ExprOp::BitOr:
    return "|";
  case ExprOp::BitXor:
    return "^";
  case ExprOp::ShiftLeft:
    return "<<";
  case ExprOp::ShiftRight:
    return ">>";
  case ExprOp::BitNot:
    return "~";
  default:
    return "?";
  }
}

} // namespace

// A compiled subtree: either a folded constant or code leaving one value of `type` on the stack.
struct Piece {
  std::optional<Value> constant;
  ValueType type = ValueType::Int;
  std::vector<Instruction> code;
};

class ExpressionCompiler {
public:
  ExpressionCompiler(const SymbolResolver &resolve, std::string_view where,
                     std::vector<std::uint64_t> &constants)
      : resolve_(resolve), where_(where), constants_(constants) {}

  Piece compile(const ExprNode &node) {
    switch (node.kind) {
    case ExprKind::IntLiteral:
      return constant(Value::of_int(node.int_value));
    case ExprKind::FloatLiteral:
      return constant(Value::of_float(node.float_value));
    case ExprKind::Name:
      return name(node.name);
    case ExprKind::Unary:
      return unary(node);
    case ExprKind::Binary:
      return binary(node);
    case ExprKind::Ternary:
      return ternary(node);
    case ExprKind::Call:
      return call(node);
    }
    fail(where_, "malformed expression");
  }

  // Code for a piece, materialising a constant.
  std::vector<Instruction> code_of(const Piece &p) {
    if (p.constant) {
      constants_.push_back(p.constant->bits);
      return {{Opcode::PushConst, static_cast<std::uint32_t>(constants_.size() - 1)}};
    }
    return p.code;
  }

private:
  static Piece constant(Value v) {
    Piece p;
    p.constant = v;
    p.type = v.type;
    return p;
  }

  Piece name(const std::string &n) {
    const std::optional<Symbol> symbol = resolve_(n);
    if (!symbol) {
      fail(where_,
           "unknown name '" + n + "' (not a program parameter, a variable in scope or a builtin)");
    }
    Piece p;
    switch (symbol->kind) {
    case Symbol::Kind::Constant:
      return constant(symbol->constant);
    case Symbol::Kind::Slot:
      p.type = symbol->type;
      p.code.push_back({Opcode::LoadSlot, symbol->slot});
      return p;
    case Symbol::Kind::Rank:
      p.code.push_back({Opcode::LoadRank, 0});
      break;
    case Symbol::Kind::Thread:
      p.code.push_back({Opcode::LoadThread, 0});
      break;
    case Symbol::Kind::Peer:
      p.code.push_back({Opcode::LoadPeer, 0});
      break;
    case Symbol::Kind::Task:
      p.code.push_back({Opcode::LoadTask, 0});
      break;
    }
    p.type = ValueType::Int;
    return p;
  }

  // Convert a piece to float (constant or code).
  Piece to_float(Piece p) {
    if (p.type == ValueType::Float) {
      return p;
    }
    if (p.constant) {
      return constant(Value::of_float(static_cast<double>(p.constant->as_int())));
    }
    p.code.push_back({Opcode::IntToFloat, 0});
    p.type = ValueType::Float;
    return p;
  }

  // Truth value (int 0/1) of a piece.
  Piece truth(Piece p) {
    if (p.constant) {
      const bool t =
          p.type == ValueType::Int ? p.constant->as_int() != 0 : p.constant->as_float() != 0.0;
      return constant(Value::of_int(t ? 1 : 0));
    }
    p.code.push_back({p.type == ValueType::Int ? Opcode::IntTruth : Opcode::FloatTruth, 0});
    p.type = ValueType::Int;
    return p;
  }

  // Apply one opcode to operand pieces: fold if all are constant (and the operation is
  // defined on those values), else emit.
  Piece apply(Opcode op, ValueType result, const std::vector<Piece> &operands) {
    bool all_constant = true;
    for (const auto &o : operands) {
      all_constant = all_constant && o.constant.has_value();
    }
    if (all_constant) {
      if (std::optional<Value> v = fold(op, operands)) {
        return constant(*v);
      }
    }
    Piece p;
    p.type = result;
    for (const auto &o : operands) {
      auto code = code_of(o);
      p.code.insert(p.code.end(), code.begin(), code.end());
    }
    p.code.push_back({op, 0});
    return p;
  }

  static std::optional<Value> fold(Opcode op, const std::vector<Piece> &operands) {
    const Value a = operands[0].constant.value_or(Value{});
    if (operands.size() == 3) { // DimsCreate
      return Value::of_int(dims_create(a.as_int(), operands[1].constant.value_or(Value{}).as_int(),
                                       operands[2].constant.value_or(Value{}).as_int()));
    }
    if (operands.size() == 1) {
      switch (op) {
      case Opcode::INeg:
        return Value::of_int(-a.as_int());
      case Opcode::Not:
        return Value::of_int(a.as_int() == 0 ? 1 : 0);
      case Opcode::BitNot:
        return Value::of_int(~a.as_int());
      case Opcode::IAbs:
        return Value::of_int(a.as_int() < 0 ? -a.as_int() : a.as_int());
      case Opcode::FloatToInt:
        return Value::of_int(float_to_int(a.as_float()));
      default:
        return Value::of_float(float_unary(op, a.as_float()));
      }
    }
    const Value b = operands[1].constant.value_or(Value{});
    if (a.type == ValueType::Int && b.type == ValueType::Int) {
      std::int64_t out = 0;
      if (!int_binary(op, a.as_int(), b.as_int(), out)) {
        return std::nullopt; // left to run time, where it fails only if actually evaluated
      }
      return Value::of_int(out);
    }
    switch (op) {
    case Opcode::FEq:
    case Opcode::FNe:
    case Opcode::FLt:
    case Opcode::FLe:
    case Opcode::FGt:
    case Opcode::FGe:
      return Value::of_int(float_compare(op, a.as_float(), b.as_float()));
    default:
      return Value::of_float(float_binary(op, a.as_float(), b.as_float()));
    }
  }

  void require_int(const Piece &p, const char *what) {
    if (p.type != ValueType::Int) {
      fail(where_,
           std::string("'") + what + "' needs integer operands (convert with int(...) first)");
    }
  }

  Piece unary(const ExprNode &node) {
    Piece a = compile(node.args[0]);
    switch (node.op) {
    case ExprOp::Negate:
      return apply(a.type == ValueType::Int ? Opcode::INeg : Opcode::FNeg, a.type, {a});
    case ExprOp::Not:
      return apply(Opcode::Not, ValueType::Int, {truth(a)});
    default:
      require_int(a, op_text(node.op));
      return apply(Opcode::BitNot, ValueType::Int, {a});
    }
  }

  Piece logical(const ExprNode &node) {
    const bool is_and = node.op == ExprOp::And;
    Piece left = truth(compile(node.args[0]));
    if (left.constant) {
      const bool l = left.constant->as_int() != 0;
      if (is_and != l) { // false && x, true || x
        return left;
      }
      return truth(compile(node.args[1]));
    }
    Piece right = truth(compile(node.args[1]));
    auto right_code = code_of(right);
    Piece p;
    p.type = ValueType::Int;
    p.code = left.code;
    // Short circuit: keep the deciding value and skip the right operand.
    p.code.push_back({is_and ? Opcode::JumpIfZeroKeep : Opcode::JumpIfNonzeroKeep,
                      static_cast<std::uint32_t>(right_code.size() + 1)});
    p.code.insert(p.code.end(), right_code.begin(), right_code.end());
    return p;
  }

  Piece binary(const ExprNode &node) {
    if (node.op == ExprOp::And || node.op == ExprOp::Or) {
      return logical(node);
    }
    Piece a = compile(node.args[0]);
    Piece b = compile(node.args[1]);
    const bool any_float = a.type == ValueType::Float || b.type == ValueType::Float;
    if (is_comparison(node.op)) {
      if (any_float) {
        return apply(comparison_opcode(node.op, true), ValueType::Int,
                     {to_float(std::move(a)), to_float(std::move(b))});
      }
      return apply(comparison_opcode(node.op, false), ValueType::Int, {a, b});
    }
    switch (node.op) {
    case ExprOp::Add:
    case ExprOp::Subtract:
    case ExprOp::Multiply:
    case ExprOp::Divide: {
      static constexpr std::array<Opcode, 4> int_ops = {Opcode::IAdd, Opcode::ISub, Opcode::IMul,
                                                        Opcode::IDiv};
      static constexpr std::array<Opcode, 4> float_ops = {Opcode::FAdd, Opcode::FSub, Opcode::FMul,
                                                          Opcode::FDiv};
      const auto index = static_cast<std::size_t>(node.op) - static_cast<std::size_t>(ExprOp::Add);
      if (any_float) {
        return apply(float_ops[index], ValueType::Float,
                     {to_float(std::move(a)), to_float(std::move(b))});
      }
      return apply(int_ops[index], ValueType::Int, {a, b});
    }
    default: {
      require_int(a, op_text(node.op));
      require_int(b, op_text(node.op));
      Opcode op = Opcode::IRem;
      switch (node.op) {
      case ExprOp::BitAnd:
        op = Opcode::BitAnd;
        break;
      case ExprOp::BitOr:
        op = Opcode::BitOr;
        break;
      case ExprOp::BitXor:
        op = Opcode::BitXor;
        break;
      case ExprOp::ShiftLeft:
        op = Opcode::Shl;
        break;
      case ExprOp::ShiftRight:
        op = Opcode::Shr;
        break;
      default:
        break;
      }
      return apply(op, ValueType::Int, {a, b});
    }
    }
  }

  Piece ternary(const ExprNode &node) {
    Piece cond = truth(compile(node.args[0]));
    if (cond.constant) {
      // Only the chosen branch is compiled, so "size > 1 ? N/(size-1) : 0" is fine at size 1,
      // but its type is still the common type of both branches.
      Piece chosen = compile(node.args[cond.constant->as_int() != 0 ? 1 : 2]);
      const std::optional<ValueType> other_type =
          infer_type_of(node.args[cond.constant->as_int() != 0 ? 2 : 1]);
      if (other_type == ValueType::Float) {
        return to_float(std::move(chosen));
      }
      return chosen;
    }
    Piece yes = compile(node.args[1]);
    Piece no = compile(node.args[2]);
    if (yes.type != no.type) {
      yes = to_float(std::move(yes));
      no = to_float(std::move(no));
    }
    auto yes_code = code_of(yes);
    auto no_code = code_of(no);
    Piece p;
    p.type = yes.type;
    p.code = cond.code;
    p.code.push_back({Opcode::JumpIfZero, static_cast<std::uint32_t>(yes_code.size() + 2)});
    p.code.insert(p.code.end(), yes_code.begin(), yes_code.end());
    p.code.push_back({Opcode::Jump, static_cast<std::uint32_t>(no_code.size() + 1)});
    p.code.insert(p.code.end(), no_code.begin(), no_code.end());
    return p;
  }

  std::optional<ValueType> infer_type_of(const ExprNode &node) {
    switch (node.kind) {
    case ExprKind::IntLiteral:
      return ValueType::Int;
    case ExprKind::FloatLiteral:
      return ValueType::Float;
    case ExprKind::Name: {
      const auto s = resolve_(node.name);
      if (!s) {
        return std::nullopt;
      }
      return s->kind == Symbol::Kind::Constant ? s->constant.type
             : s->kind == Symbol::Kind::Slot   ? s->type
                                               : ValueType::Int;
    }
    default:
      return compile(node).type;
    }
  }

  Piece call(const ExprNode &node) {
    const std::string &f = node.name;
    std::vector<Piece> args;
    args.reserve(node.args.size());
    for (const auto &a : node.args) {
      args.push_back(compile(a));
    }
    if (f == "min" || f == "max") {
      bool any_float = false;
      for (const auto &a : args) {
        any_float = any_float || a.type == ValueType::Float;
      }
      const Opcode op = f == "min" ? (any_float ? Opcode::FMin : Opcode::IMin)
                                   : (any_float ? Opcode::FMax : Opcode::IMax);
      const ValueType t = any_float ? ValueType::Float : ValueType::Int;
      Piece acc = any_float ? to_float(std::move(args[0])) : std::move(args[0]);
      for (std::size_t i = 1; i < args.size(); ++i) {
        acc = apply(op, t, {acc, any_float ? to_float(std::move(args[i])) : std::move(args[i])});
      }
      return acc;
    }
    if (f == "abs") {
      if (args[0].type == ValueType::Int) {
        return apply(Opcode::IAbs, ValueType::Int, {args[0]});
      }
      return apply(Opcode::FAbs, ValueType::Float, {args[0]});
    }
    if (f == "int") {
      if (args[0].type == ValueType::Int) {
        return args[0];
      }
      return apply(Opcode::FloatToInt, ValueType::Int, {args[0]});
    }
    if (f == "float") {
      return to_float(std::move(args[0]));
    }
    if (f == "pow") {
      return apply(Opcode::Pow, ValueType::Float,
                   {to_float(std::move(args[0])), to_float(std::move(args[1]))});
    }
    if (f == "dims_create") {
      for (auto &a : args) {
        if (a.type == ValueType::Float) {
          a = apply(Opcode::FloatToInt, ValueType::Int, {a});
        }
      }
      return apply(Opcode::DimsCreate, ValueType::Int, args);
    }
    Opcode op = Opcode::Floor;
    if (f == "ceil") {
      op = Opcode::Ceil;
    } else if (f == "round") {
      op = Opcode::Round;
    } else if (f == "trunc") {
      op = Opcode::Trunc;
    } else if (f == "log2") {
      op = Opcode::Log2;
    } else if (f == "log") {
      op = Opcode::Log;
    } else if (f == "exp") {
      op = Opcode::Exp;
    } else if (f == "sqrt") {
      op = Opcode::Sqrt;
    }
    return apply(op, ValueType::Float, {to_float(std::move(args[0]))});
  }

  const SymbolResolver &resolve_;
  std::string_view where_;
  std::vector<std::uint64_t> &constants_;
};

CompiledExpression CompiledExpression::compile(const Expression &expr,
                                               const SymbolResolver &resolve,
                                               std::string_view where) {
  CompiledExpression out;
  out.where_ = std::string(where);
  if (expr.empty()) {
    fail(where, "empty expression");
  }
  ExpressionCompiler compiler(resolve, where, out.constants_);
  Piece p = compiler.compile(expr.root());
  out.type_ = p.type;
  if (p.constant) {
    out.constant_ = p.constant;
    return out;
  }
  out.code_ = std::move(p.code);
  // Stack depth check, following the jumps: the two arms of a `?:` each leave one value, but
  // only one of them runs, so a straight-line count adds one per nested conditional and a
  // chain of 27 (an array element read by a variable index, `faces[n]`, replaced by one
  // variable per element) looked 27 deep when it runs 3 deep. Jumps only go forward.
  const std::size_t n = out.code_.size();
  std::vector<int> at(n + 1, -1); // the depth on entry to each instruction; -1: not reached
  int max_depth = 0;
  auto reach = [&](std::size_t pc, int depth) {
    if (pc >= at.size()) {
      fail(where, "internal: a jump past the end of the expression's code");
    }
    at[pc] = std::max(at[pc], depth);
    max_depth = std::max(max_depth, depth);
  };
  for (std::size_t pc = 0; pc < n; ++pc) {
    const int depth = pc == 0 ? 0 : at[pc];
    if (depth < 0) {
      continue;
    }
    const Instruction ins = out.code_[pc];
    switch (ins.op) {
    case Opcode::PushConst:
    case Opcode::LoadSlot:
    case Opcode::LoadRank:
    case Opcode::LoadThread:
    case Opcode::LoadPeer:
    case Opcode::LoadTask:
      reach(pc + 1, depth + 1);
      break;
    case Opcode::IntToFloat:
    case Opcode::FloatToInt:
    case Opcode::IntTruth:
    case Opcode::FloatTruth:
    case Opcode::INeg:
    case Opcode::FNeg:
    case Opcode::Not:
    case Opcode::BitNot:
    case Opcode::IAbs:
    case Opcode::FAbs:
    case Opcode::Floor:
    case Opcode::Ceil:
    case Opcode::Round:
    case Opcode::Trunc:
    case Opcode::Log2:
    case Opcode::Log:
    case Opcode::Exp:
    case Opcode::Sqrt:
      reach(pc + 1, depth);
      break;
    case Opcode::Jump:
      reach(pc + ins.arg, depth);
      break;
    case Opcode::JumpIfZero:
      reach(pc + 1, depth - 1);
      reach(pc + ins.arg, depth - 1);
      break;
    case Opcode::JumpIfZeroKeep:
    case Opcode::JumpIfNonzeroKeep:
      reach(pc + 1, depth - 1);
      reach(pc + ins.arg, depth);
      break;
    case Opcode::DimsCreate:
      reach(pc + 1, depth - 2);
      break;
    default:
      reach(pc + 1, depth - 1);
      break;
    }
  }
  if (max_depth >= static_cast<int>(kMaxStack)) {
    fail(where, "expression nests too deeply (more than 63 pending operands)");
  }
  return out;
}

CompiledExpression CompiledExpression::of_constant(Value v) {
  CompiledExpression out;
  out.constant_ = v;
  out.type_ = v.type;
  return out;
}

std::optional<ValueType>
infer_type(const Expression &expr,
           const std::function<std::optional<ValueType>(std::string_view)> &type_of) {
  if (expr.empty()) {
    return std::nullopt;
  }
  // Compile against slot symbols of the requested types: compilation computes exactly the
  // static type the interpreter will use.
  bool unknown = false;
  SymbolResolver resolver = [&](std::string_view name) -> std::optional<Symbol> {
    if (name == "rank") {
      return Symbol{Symbol::Kind::Rank, {}, ValueType::Int, 0};
    }
    const std::optional<ValueType> t = type_of(name);
    if (!t) {
      unknown = true;
      return Symbol{Symbol::Kind::Slot, {}, ValueType::Int, 0};
    }
    return Symbol{Symbol::Kind::Slot, {}, *t, 0};
  };
  const CompiledExpression c = CompiledExpression::compile(expr, resolver, "type inference");
  if (unknown) {
    return std::nullopt;
  }
  return c.type();
}

} // namespace parjava::model
