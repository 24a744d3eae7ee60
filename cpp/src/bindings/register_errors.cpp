// Translate parjava::Error into the Python exception classes of parjava.errors, so a C++
// failure reaches the user as e.g. parjava.TraceError with its message intact.
#include <pybind11/pybind11.h>

#include <string_view>

#include "parjava/error.hpp"

namespace py = pybind11;

namespace {

const char *python_class_name(parjava::ErrorKind kind) {
  switch (kind) {
  case parjava::ErrorKind::Usage:
    return "UsageError";
  case parjava::ErrorKind::Machine:
    return "MachineError";
  case parjava::ErrorKind::Trace:
    return "TraceError";
  case parjava::ErrorKind::Model:
    return "ModelError";
  case parjava::ErrorKind::Deadlock:
    return "DeadlockError";
  case parjava::ErrorKind::Frontend:
    return "FrontendError";
  case parjava::ErrorKind::Run:
    return "RunError";
  case parjava::ErrorKind::Analysis:
    return "AnalysisError";
  }
  return "Error";
}

void translate_error(std::exception_ptr p) { // NOLINT(performance-unnecessary-value-param)
  try {
    if (p) {
      std::rethrow_exception(p);
    }
  } catch (const parjava::Error &e) {
    py::object errors = py::module_::import("parjava.errors");
    py::object cls = errors.attr(python_class_name(e.kind()));
    // Messages quote input (a damaged file's bytes, a name from a trace) that need not be
    // UTF-8: undecodable bytes become \xNN escapes instead of a UnicodeDecodeError that
    // would replace the parjava error.
    const std::string_view what = e.what();
    const auto message = py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
        what.data(), static_cast<Py_ssize_t>(what.size()), "backslashreplace"));
    PyErr_SetObject(cls.ptr(), message.ptr());
  }
}

} // namespace

void register_errors(py::module_ &m) {
  (void)m;
  py::register_exception_translator(translate_error);
}

// pybind11 tries global translators newest first, so a second global one registered by
// parjava._frontend would shadow the richer ones of _core (DeadlockError.blocked, registered by
// the interp part). Other extension modules register theirs for their own functions only.
void register_module_local_errors(py::module_ &m) {
  (void)m;
  py::register_local_exception_translator(translate_error);
}
