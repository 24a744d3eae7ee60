// The analysis part in parjava._core: the interval analysis (analysis_intervals.cpp) and the
// pattern scanner register their own pieces.
#include <pybind11/pybind11.h>

namespace py = pybind11;

void register_intervals(py::module_ &m);

void register_analysis(py::module_ &m) { register_intervals(m); }
