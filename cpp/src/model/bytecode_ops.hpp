// The scalar operations of the expression bytecode with C semantics, shared by the compiler
// (constant folding) and the evaluator: inline, so the evaluator's switch keeps them in its loop.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "parjava/model/bytecode.hpp"

namespace parjava::model::ops {

// The evaluator's fixed stack: a compiled expression never needs more (checked at compile).
constexpr std::size_t kMaxStack = 64;

// Integer operations with C semantics; false on an operation C leaves undefined (division by
// zero, overflow of the minimum by -1, shifts outside 0..63).
inline bool int_binary(Opcode op, std::int64_t a, std::int64_t b, std::int64_t &out) {
  switch (op) {
  case Opcode::IAdd:
    out = static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
    return true;
  case Opcode::ISub:
    out = static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
    return true;
  case Opcode::IMul:
    out = static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
    return true;
  case Opcode::IDiv:
  case Opcode::IRem:
    if (b == 0 || (a == std::numeric_limits<std::int64_t>::min() && b == -1)) {
      return false;
    }
    out = op == Opcode::IDiv ? a / b : a % b;
    return true;
  case Opcode::IEq:
    out = a == b;
    return true;
  case Opcode::INe:
    out = a != b;
    return true;
  case Opcode::ILt:
    out = a < b;
    return true;
  case Opcode::ILe:
    out = a <= b;
    return true;
  case Opcode::IGt:
    out = a > b;
    return true;
  case Opcode::IGe:
    out = a >= b;
    return true;
  case Opcode::BitAnd:
    out = a & b;
    return true;
  case Opcode::BitOr:
    out = a | b;
    return true;
  case Opcode::BitXor:
    out = a ^ b;
    return true;
  case Opcode::Shl:
  case Opcode::Shr:
    if (b < 0 || b > 63) {
      return false;
    }
    out = op == Opcode::Shl
              ? static_cast<std::int64_t>(static_cast<std::uint64_t>(a) << static_cast<unsigned>(b))
              : a >> b;
    return true;
  case Opcode::IMin:
    out = a < b ? a : b;
    return true;
  case Opcode::IMax:
    out = a > b ? a : b;
    return true;
  default:
    return false;
  }
}

inline double float_binary(Opcode op, double a, double b) {
  switch (op) {
  case Opcode::FAdd:
    return a + b;
  case Opcode::FSub:
    return a - b;
  case Opcode::FMul:
    return a * b;
  case Opcode::FDiv:
    return a / b;
  case Opcode::FMin:
    return a < b ? a : b;
  case Opcode::FMax:
    return a > b ? a : b;
  case Opcode::Pow:
    return std::pow(a, b);
  default:
    return std::numeric_limits<double>::quiet_NaN();
  }
}

inline std::int64_t float_compare(Opcode op, double a, double b) {
  switch (op) {
  case Opcode::FEq:
    return a == b;
  case Opcode::FNe:
    return a != b;
  case Opcode::FLt:
    return a < b;
  case Opcode::FLe:
    return a <= b;
  case Opcode::FGt:
    return a > b;
  case Opcode::FGe:
    return a >= b;
  default:
    return 0;
  }
}

inline double float_unary(Opcode op, double a) {
  switch (op) {
  case Opcode::FNeg:
    return -a;
  case Opcode::FAbs:
    return std::fabs(a);
  case Opcode::Floor:
    return std::floor(a);
  case Opcode::Ceil:
    return std::ceil(a);
  case Opcode::Round:
    return std::round(a);
  case Opcode::Trunc:
    return std::trunc(a);
  case Opcode::Log2:
    return std::log2(a);
  case Opcode::Log:
    return std::log(a);
  case Opcode::Exp:
    return std::exp(a);
  case Opcode::Sqrt:
    return std::sqrt(a);
  default:
    return std::numeric_limits<double>::quiet_NaN();
  }
}

inline std::int64_t float_to_int(double v) {
  if (!(v > -9.2e18 && v < 9.2e18)) { // NaN or out of range: saturate, never UB
    return v > 0 ? std::numeric_limits<std::int64_t>::max()
                 : std::numeric_limits<std::int64_t>::min();
  }
  return static_cast<std::int64_t>(v);
}

} // namespace parjava::model::ops
