// The AST walk that turns one function body into its control structure (seed 000 notes §2.3,
// §2.8; seed 003 notes §2.2): sequences of computational blocks and call leaves, if / if-else /
// switch / for / while / do-while, break / continue / return as leaves naming their target,
// OpenMP and pthread / std::thread task groups. goto, longjmp and case labels inside nested
// statements make the function unstructured: its body becomes one measured reduced block and a
// diagnostic says where and why.
#pragma once

#include <clang/AST/ASTContext.h>

#include "calls.hpp"
#include "program.hpp"

namespace parjava::frontend {

// Build program.functions[function].body from its Clang body. Never throws for constructs it
// does not understand: those become diagnostics.
void build_structure(Program &program, const CallClassifier &calls, FunctionId function);

// A pthread worker `void *w(void *arg)` reads its task number as `(long)arg`: its parameter is
// an integer for the model. Called for every pthread_create target before any body is walked,
// so the worker's uses of `arg` are seen.
void mark_task_parameter(Program &program, FunctionId worker);

} // namespace parjava::frontend
