// The one exception type every parjava part throws. The Python layer maps each ErrorKind to a
// subclass of parjava.Error (python/parjava/errors.py), so users catch e.g. parjava.TraceError.
#pragma once

#include <stdexcept>
#include <string>

namespace parjava {

enum class ErrorKind {
  Usage,    // wrong parameters or arguments (maps to parjava.UsageError, also a ValueError)
  Machine,  // machine description: missing/negative fields, unreadable JSON, bad preset
  Trace,    // trace input or output: malformed, truncated or unreadable archives
  Model,    // program model: malformed model, unknown node, bad expression
  Deadlock, // the interpreter found every unfinished logical process blocked
  Frontend, // the Clang model builder could not process a source file
  Run,      // an external program (mpirun, netbench, the user's program) failed
  Analysis, // an analysis could not be computed on the given input
};

// A parjava error: the message names the problem, the place (file, line, field, event) and,
// where possible, what to do about it.
class Error : public std::runtime_error {
public:
  Error(ErrorKind kind, const std::string &message) : std::runtime_error(message), kind_(kind) {}
  [[nodiscard]] ErrorKind kind() const noexcept { return kind_; }

private:
  ErrorKind kind_;
};

} // namespace parjava
