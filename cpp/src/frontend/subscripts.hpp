// Element accesses of fixed-size arrays in both spellings: a C array's `a[i]` (an
// ArraySubscriptExpr) and a std::array's `a[i]` / `a.at(i)` (calls of its operator[] and at()).
// One shape for both lets scalar replacement of aggregates (Program::aggregates) treat a
// `std::array<int, 4>` of neighbour ranks as it treats an `int[4]` (UoB-HPC/CloverLeaf keeps its
// chunk neighbours in one), instead of as the result of an external function.
#pragma once

#include <cstdint>
#include <optional>

#include <clang/AST/Expr.h>
#include <clang/AST/Type.h>

namespace parjava::frontend {

struct Subscript {
  const clang::Expr *base = nullptr;  // the array (or std::array object) expression
  const clang::Expr *index = nullptr; // the index expression
  [[nodiscard]] bool valid() const { return base != nullptr; }
};

// `e` (parentheses and implicit casts already removed by the caller, or not: both are accepted)
// as an element access, invalid for anything else.
Subscript subscript(const clang::Expr *e);

// Whether a call is a std::array element access (operator[] or at()): part of the expression it
// sits in, not a call of a library function.
bool is_std_array_access(const clang::Expr *call);

// Whether a call is a std::array's copy or move assignment (`b = a`, array_copies.hpp).
bool is_std_array_assignment(const clang::Expr *call);

// std::array<T, N>: N, with T in `element`; nullopt for any other type.
std::optional<std::uint64_t> std_array_extent(clang::QualType type, clang::QualType *element);

} // namespace parjava::frontend
