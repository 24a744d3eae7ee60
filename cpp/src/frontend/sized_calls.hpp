// External calls whose cost follows the bytes they touch (issue 13 item 4): malloc, calloc,
// realloc, free, memcpy, memmove, memset, and any external function with size_t parameters
// (fread, strncpy, ...). The estimation records (bytes, time) at their call sites and the
// loader prices them as a function of their size.
#pragma once

#include <string>
#include <vector>

#include <clang/AST/Expr.h>

namespace parjava::frontend {

struct SizedCall {
  std::string callee;                     // the function's name ("memcpy")
  std::vector<const clang::Expr *> sizes; // the size arguments; bytes = their product
  const clang::Expr *pointer = nullptr;   // free / realloc: the block released
  bool allocates = false;                 // malloc, calloc, realloc: the heap grows
};

// The sized call `call` is, or false when its cost does not follow an argument's size.
bool sized_call(const clang::Expr *call, SizedCall &out);

} // namespace parjava::frontend
