// The analysis part in parjava._core: the pattern scanner (analysis_patterns.cpp) and the
// interval analysis register their own pieces (bindings/CMakeLists.txt compiles every
// analysis_*.cpp beside this file).
#include <pybind11/pybind11.h>

namespace py = pybind11;

void register_patterns(py::module_ &m);
void register_intervals(py::module_ &m);
void register_replay(py::module_ &m);
void register_profile(py::module_ &m);
void register_causes(py::module_ &m);

void register_analysis(py::module_ &m) {
  register_patterns(m);
  register_intervals(m);
  register_replay(m);
  register_profile(m);
  register_causes(m);
}
