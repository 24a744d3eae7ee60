// parjava._core: the C++ engine seen from Python. Each part registers itself in its own
// register_<part>.cpp; this file only calls them in dependency order.
#include <pybind11/pybind11.h>

namespace py = pybind11;

#define PARJAVA_REGISTER(part) void register_##part(py::module_ &m);
#include "registrations.inc"
#undef PARJAVA_REGISTER

PYBIND11_MODULE(_core, m) {
  m.doc() = "parjava C++ engine (private: use the parjava package)";
  m.attr("__version__") = PARJAVA_VERSION;
#define PARJAVA_REGISTER(part) register_##part(m);
#include "registrations.inc"
#undef PARJAVA_REGISTER
}
