// What the model builder tells the user about the model it built: what it reduced, what became
// opaque and why, what it did not understand (seed 000 notes §3.5; issue 7 "diagnostics list").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace parjava::frontend {

enum class DiagnosticKind : std::uint8_t {
  Reduced,       // computation removed from the model (only its time is kept)
  Opaque,        // a condition or trip count depends on data the model does not keep
  Unstructured,  // goto / longjmp / computed jumps: the function became one measured block
  Unsupported,   // a construct the builder does not model (exceptions, unknown MPI call, ...)
  Parameter,     // a program parameter the model reads (argc, argv[k])
  Approximation, // modelled with a stated simplification (object-insensitive fields, ...)
  Estimation,    // estimation results: balanced / unbalanced loops, errors, missing samples
};

enum class Severity : std::uint8_t { Note, Warning, Error };

std::string_view diagnostic_kind_name(DiagnosticKind kind);
std::string_view severity_name(Severity severity);

struct Diagnostic {
  DiagnosticKind kind = DiagnosticKind::Unsupported;
  Severity severity = Severity::Note;
  std::string file;       // source file ("" when not tied to a place)
  std::uint32_t line = 0; // 1-based; 0 when unknown
  std::uint32_t column = 0;
  std::string function;   // enclosing function, if any
  std::uint32_t node = 0; // model node id it concerns (0: none)
  std::string message;

  // "jacobi.c:42:5: warning: [opaque] ..." as compilers print it.
  [[nodiscard]] std::string format() const;
};

// The diagnostics of one kind, for tests and summaries.
std::vector<Diagnostic> filter(const std::vector<Diagnostic> &all, DiagnosticKind kind);

// JSON list of {kind, severity, file, line, column, function, node, message}.
std::string diagnostics_to_json(const std::vector<Diagnostic> &all, int indent = 1);

} // namespace parjava::frontend
