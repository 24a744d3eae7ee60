// parjava._core bindings of the cause analyses (critical path, delay costs): columns as NumPy
// arrays, tables built in python/parjava/causes.py.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "parjava/analysis/causes/causes.hpp"

namespace py = pybind11;
using namespace parjava::analysis;

namespace {

template <typename T, typename Row, typename Get>
py::array_t<T> column(const std::vector<Row> &rows, Get get) {
  py::array_t<T> out(static_cast<py::ssize_t>(rows.size()));
  auto view = out.template mutable_unchecked<1>();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    view(static_cast<py::ssize_t>(i)) = get(rows[i]);
  }
  return out;
}

py::dict time_rows(const std::vector<ActivityTime> &rows) {
  return py::dict(
      py::arg("location") = column<std::uint32_t>(rows, [](const auto &r) { return r.location; }),
      py::arg("activity") = column<std::uint32_t>(rows, [](const auto &r) { return r.activity; }),
      py::arg("ns") = column<double>(rows, [](const auto &r) { return r.ns; }));
}

} // namespace

void register_causes(py::module_ &m) {
  py::class_<CauseAnalysis, std::shared_ptr<CauseAnalysis>>(m, "CauseAnalysis",
                                                            "Critical path and delay costs")
      .def_property_readonly(
          "activities",
          [](const CauseAnalysis &c) {
            const auto &a = c.activities;
            return py::dict(py::arg("region") =
                                column<std::uint32_t>(a, [](const auto &x) { return x.region; }),
                            py::arg("callsite") =
                                column<std::uint32_t>(a, [](const auto &x) { return x.callsite; }),
                            py::arg("computation") =
                                column<bool>(a, [](const auto &x) { return x.computation; }),
                            py::arg("next_call") =
                                column<std::uint32_t>(a, [](const auto &x) { return x.next_call; }),
                            py::arg("previous_callsite") = column<std::uint32_t>(
                                a, [](const auto &x) { return x.previous_callsite; }));
          })
      .def_property_readonly("locations",
                             [](const CauseAnalysis &c) {
                               return column<std::uint32_t>(c.locations,
                                                            [](std::uint32_t l) { return l; });
                             })
      .def_property_readonly("time", [](const CauseAnalysis &c) { return time_rows(c.time); })
      .def_property_readonly("waiting", [](const CauseAnalysis &c) { return time_rows(c.waiting); })
      .def_property_readonly(
          "path_segments",
          [](const CauseAnalysis &c) {
            const auto &s = c.critical_path.segments;
            return py::dict(
                py::arg("location") =
                    column<std::uint32_t>(s, [](const auto &x) { return x.location; }),
                py::arg("begin") = column<std::int64_t>(s, [](const auto &x) { return x.begin; }),
                py::arg("end") = column<std::int64_t>(s, [](const auto &x) { return x.end; }));
          })
      .def_property_readonly(
          "path_profile", [](const CauseAnalysis &c) { return time_rows(c.critical_path.profile); })
      .def_property_readonly("path_imbalance",
                             [](const CauseAnalysis &c) {
                               return column<double>(c.critical_path.imbalance,
                                                     [](double v) { return v; });
                             })
      .def_property_readonly("path",
                             [](const CauseAnalysis &c) {
                               const auto &p = c.critical_path;
                               return py::dict(py::arg("begin") = p.begin, py::arg("end") = p.end,
                                               py::arg("length") = p.length,
                                               py::arg("imbalance") = p.imbalance_total);
                             })
      .def_property_readonly(
          "delay_costs",
          [](const CauseAnalysis &c) {
            const auto &d = c.delays.costs;
            return py::dict(py::arg("location") =
                                column<std::uint32_t>(d, [](const auto &x) { return x.location; }),
                            py::arg("activity") =
                                column<std::uint32_t>(d, [](const auto &x) { return x.activity; }),
                            py::arg("short_term") =
                                column<double>(d, [](const auto &x) { return x.short_term; }),
                            py::arg("long_term") =
                                column<double>(d, [](const auto &x) { return x.long_term; }));
          })
      .def_property_readonly("delay_totals",
                             [](const CauseAnalysis &c) {
                               return py::dict(py::arg("wait_states") = c.delays.wait_states,
                                               py::arg("total_wait") = c.delays.total_wait,
                                               py::arg("unattributed") = c.delays.unattributed);
                             })
      .def_readonly("seconds", &CauseAnalysis::seconds);

  m.def(
      "analyze_causes",
      [](const std::shared_ptr<const parjava::trace::Trace> &trace) {
        py::gil_scoped_release release;
        return std::make_shared<CauseAnalysis>(analyze_causes(*trace));
      },
      py::arg("trace"));
}
