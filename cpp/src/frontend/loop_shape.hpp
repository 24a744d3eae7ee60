// The shape of a counted loop `for (v = a; v < b; v += s)` (and <=, >, >=, !=, --, -=): its
// trip count as a model expression, which lets a block time measured at one problem size scale
// to another (seed 000 notes §3.7.3: per-iteration time = loop time / iterations).
#pragma once

#include <map>
#include <string>

#include <clang/AST/Stmt.h>

#include "expression_writer.hpp"
#include "program.hpp"

namespace parjava::frontend {

struct LoopShape {
  bool canonical = false; // a counted loop whose variable the body does not change
  std::string variable;   // model name of the loop variable
  std::string start;      // a (model text)
  std::string end;        // b, exclusive for increasing loops
  std::string step = "1"; // s > 0
  bool decreasing = false;
  std::string trips; // iterations per execution, "" when not computable (break, return, data)
};

// `substitutions`: names the caller already decided (a task group's `task`); the enclosing
// loops' own variables are added to them.
LoopShape loop_shape(Program &program, const ExpressionWriter &writer, const clang::Stmt *loop,
                     FunctionId function,
                     const std::map<VarId, std::string> *substitutions = nullptr);

// The iterations task `task` of `ntasks` runs of a loop over [a, b) shared by OpenMP's static
// schedule (OpenMP 5.2 §11.5.3: contiguous chunks of ceil((b - a) / ntasks)), as model text.
std::string static_chunk_trips(const std::string &a, const std::string &b);

} // namespace parjava::frontend
