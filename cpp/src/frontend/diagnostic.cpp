#include "parjava/frontend/diagnostic.hpp"

#include <nlohmann/json.hpp>

namespace parjava::frontend {

std::string_view diagnostic_kind_name(DiagnosticKind kind) {
  switch (kind) {
  case DiagnosticKind::Reduced:
    return "reduced";
  case DiagnosticKind::Opaque:
    return "opaque";
  case DiagnosticKind::Unstructured:
    return "unstructured";
  case DiagnosticKind::Unsupported:
    return "unsupported";
  case DiagnosticKind::Parameter:
    return "parameter";
  case DiagnosticKind::Approximation:
    return "approximation";
  case DiagnosticKind::Estimation:
    return "estimation";
  }
  return "?";
}

std::string_view severity_name(Severity severity) {
  switch (severity) {
  case Severity::Note:
    return "note";
  case Severity::Warning:
    return "warning";
  case Severity::Error:
    return "error";
  }
  return "?";
}

std::string Diagnostic::format() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (line > 0) {
      out += ":" + std::to_string(line);
      if (column > 0) {
        out += ":" + std::to_string(column);
      }
    }
    out += ": ";
  }
  out += std::string(severity_name(severity)) + ": [" + std::string(diagnostic_kind_name(kind)) +
         "] " + message;
  if (!function.empty()) {
    out += " (in " + function + ")";
  }
  return out;
}

std::vector<Diagnostic> filter(const std::vector<Diagnostic> &all, DiagnosticKind kind) {
  std::vector<Diagnostic> out;
  for (const auto &d : all) {
    if (d.kind == kind) {
      out.push_back(d);
    }
  }
  return out;
}

std::string diagnostics_to_json(const std::vector<Diagnostic> &all, int indent) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto &d : all) {
    list.push_back({{"kind", std::string(diagnostic_kind_name(d.kind))},
                    {"severity", std::string(severity_name(d.severity))},
                    {"file", d.file},
                    {"line", d.line},
                    {"column", d.column},
                    {"function", d.function},
                    {"node", d.node},
                    {"message", d.message}});
  }
  return list.dump(indent);
}

} // namespace parjava::frontend
