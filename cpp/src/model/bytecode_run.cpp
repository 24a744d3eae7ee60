// The evaluator of the expression bytecode: a switch over a flat instruction array with a fixed
// stack, no allocation per evaluation.
#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <string>
#include <vector>

#include "bytecode_ops.hpp"
#include "parjava/error.hpp"
#include "parjava/model/bytecode.hpp"

namespace parjava::model {

using ops::float_binary;
using ops::float_compare;
using ops::float_to_int;
using ops::float_unary;
using ops::int_binary;
using ops::kMaxStack;

Value CompiledExpression::run(const EvalScope &scope) const {
  std::array<std::uint64_t, kMaxStack> stack{};
  std::size_t sp = 0;
  const Instruction *code = code_.data();
  const std::size_t n = code_.size();
  auto as_i = [](std::uint64_t b) { return static_cast<std::int64_t>(b); };
  auto as_f = [](std::uint64_t b) { return std::bit_cast<double>(b); };
  auto of_i = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  auto of_f = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  for (std::size_t pc = 0; pc < n; ++pc) {
    const Instruction ins = code[pc];
    switch (ins.op) {
    case Opcode::PushConst:
      stack[sp++] = constants_[ins.arg];
      break;
    case Opcode::LoadSlot:
      stack[sp++] = scope.slots[ins.arg];
      break;
    case Opcode::LoadRank:
      stack[sp++] = of_i(scope.rank);
      break;
    case Opcode::LoadThread:
      stack[sp++] = of_i(scope.thread);
      break;
    case Opcode::LoadPeer:
      stack[sp++] = of_i(scope.peer);
      break;
    case Opcode::LoadTask:
      stack[sp++] = of_i(scope.task);
      break;
    case Opcode::IntToFloat:
      stack[sp - 1] = of_f(static_cast<double>(as_i(stack[sp - 1])));
      break;
    case Opcode::FloatToInt:
      stack[sp - 1] = of_i(float_to_int(as_f(stack[sp - 1])));
      break;
    case Opcode::IntTruth:
      stack[sp - 1] = as_i(stack[sp - 1]) != 0 ? 1 : 0;
      break;
    case Opcode::FloatTruth:
      stack[sp - 1] = as_f(stack[sp - 1]) != 0.0 ? 1 : 0;
      break;
    case Opcode::INeg:
      stack[sp - 1] = of_i(-as_i(stack[sp - 1]));
      break;
    case Opcode::Not:
      stack[sp - 1] = as_i(stack[sp - 1]) == 0 ? 1 : 0;
      break;
    case Opcode::BitNot:
      stack[sp - 1] = ~stack[sp - 1];
      break;
    case Opcode::IAbs: {
      const std::int64_t v = as_i(stack[sp - 1]);
      stack[sp - 1] = of_i(v < 0 ? -v : v);
      break;
    }
    case Opcode::FNeg:
    case Opcode::FAbs:
    case Opcode::Floor:
    case Opcode::Ceil:
    case Opcode::Round:
    case Opcode::Trunc:
    case Opcode::Log2:
    case Opcode::Log:
    case Opcode::Exp:
    case Opcode::Sqrt:
      stack[sp - 1] = of_f(float_unary(ins.op, as_f(stack[sp - 1])));
      break;
    case Opcode::FAdd:
    case Opcode::FSub:
    case Opcode::FMul:
    case Opcode::FDiv:
    case Opcode::FMin:
    case Opcode::FMax:
    case Opcode::Pow:
      --sp;
      stack[sp - 1] = of_f(float_binary(ins.op, as_f(stack[sp - 1]), as_f(stack[sp])));
      break;
    case Opcode::FEq:
    case Opcode::FNe:
    case Opcode::FLt:
    case Opcode::FLe:
    case Opcode::FGt:
    case Opcode::FGe:
      --sp;
      stack[sp - 1] = of_i(float_compare(ins.op, as_f(stack[sp - 1]), as_f(stack[sp])));
      break;
    case Opcode::DimsCreate:
      sp -= 2;
      stack[sp - 1] = of_i(dims_create(as_i(stack[sp - 1]), as_i(stack[sp]), as_i(stack[sp + 1])));
      break;
    case Opcode::JumpIfZero:
      --sp;
      if (stack[sp] == 0) {
        pc += ins.arg - 1;
      }
      break;
    case Opcode::JumpIfZeroKeep:
      if (stack[sp - 1] == 0) {
        pc += ins.arg - 1;
      } else {
        --sp;
      }
      break;
    case Opcode::JumpIfNonzeroKeep:
      if (stack[sp - 1] != 0) {
        pc += ins.arg - 1;
      } else {
        --sp;
      }
      break;
    case Opcode::Jump:
      pc += ins.arg - 1;
      break;
    default: { // integer binary operations
      --sp;
      std::int64_t out = 0;
      if (!int_binary(ins.op, as_i(stack[sp - 1]), as_i(stack[sp]), out)) {
        const bool division = ins.op == Opcode::IDiv || ins.op == Opcode::IRem;
        throw Error(ErrorKind::Model,
                    where_ + ": " +
                        (division
                             ? std::string("integer division by zero")
                             : "shift by " + std::to_string(as_i(stack[sp])) + " (must be 0..63)") +
                        " on rank " + std::to_string(scope.rank) + " thread " +
                        std::to_string(scope.thread));
      }
      stack[sp - 1] = of_i(out);
      break;
    }
    }
  }
  return {type_, stack[0]};
}

std::int64_t dims_create(std::int64_t n, std::int64_t ndims, std::int64_t i) {
  if (n < 1 || ndims < 1 || ndims > 64 || i < 0 || i >= ndims) {
    return 0;
  }
  std::vector<std::int64_t> factors;
  std::int64_t m = n;
  for (std::int64_t p = 2; p * p <= m; ++p) {
    while (m % p == 0) {
      factors.push_back(p);
      m /= p;
    }
  }
  if (m > 1) {
    factors.push_back(m);
  }
  std::vector<std::int64_t> dims(static_cast<std::size_t>(ndims), 1);
  for (auto f = factors.rbegin(); f != factors.rend(); ++f) {
    *std::min_element(dims.begin(), dims.end()) *= *f;
  }
  std::sort(dims.begin(), dims.end(), std::greater<>());
  return dims[static_cast<std::size_t>(i)];
}

} // namespace parjava::model
