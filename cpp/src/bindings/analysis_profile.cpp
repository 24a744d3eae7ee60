// parjava._core flat profile bindings: the columns as NumPy arrays (python/parjava/profile.py).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "parjava/analysis/profile/profile.hpp"

namespace py = pybind11;

namespace {

template <typename T> py::array_t<T> matrix(std::vector<T> &&values, std::size_t rows) {
  auto *owned = new std::vector<T>(std::move(values));
  const py::capsule free_when_done(owned, [](void *p) { delete static_cast<std::vector<T> *>(p); });
  const auto r = static_cast<py::ssize_t>(rows);
  const auto c = static_cast<py::ssize_t>(rows == 0 ? 0 : owned->size() / rows);
  return py::array_t<T>({r, c}, owned->data(), free_when_done);
}

template <typename T> py::array_t<T> vector(std::vector<T> &&values) {
  auto *owned = new std::vector<T>(std::move(values));
  const py::capsule free_when_done(owned, [](void *p) { delete static_cast<std::vector<T> *>(p); });
  return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), free_when_done);
}

} // namespace

void register_profile(py::module_ &m) {
  m.def(
      "profile",
      [](const std::shared_ptr<const parjava::trace::Trace> &trace) {
        parjava::analysis::Profile p;
        {
          py::gil_scoped_release release;
          p = parjava::analysis::profile(*trace);
        }
        const std::size_t rows = p.locations;
        return py::dict(py::arg("exclusive") = matrix(std::move(p.exclusive), rows),
                        py::arg("inclusive") = matrix(std::move(p.inclusive), rows),
                        py::arg("visits") = matrix(std::move(p.visits), rows),
                        py::arg("begin") = vector(std::move(p.begin)),
                        py::arg("end") = vector(std::move(p.end)));
      },
      py::arg("trace"),
      "Exclusive and inclusive ns and visits per (location, region); the last column is the "
      "time outside every region");
  m.def(
      "window_times",
      [](const std::shared_ptr<const parjava::trace::Trace> &trace, std::int64_t begin,
         std::int64_t end) {
        parjava::analysis::WindowTimes w;
        {
          py::gil_scoped_release release;
          w = parjava::analysis::window_times(*trace, begin, end);
        }
        return py::dict(py::arg("computation") = vector(std::move(w.computation)),
                        py::arg("communication") = vector(std::move(w.communication)));
      },
      py::arg("trace"), py::arg("begin"), py::arg("end"),
      "Per location, ns outside and inside MPI/SHMEM calls within [begin, end)");
}
