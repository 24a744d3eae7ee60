// parjava._core bindings of the cause analyses (critical path, delay costs): columns as NumPy
// arrays, tables built in python/parjava/causes.py.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "parjava/analysis/causes/cause_parts.hpp"
#include "parjava/analysis/causes/causes.hpp"
#include "parjava/error.hpp"

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

std::vector<std::uint8_t>
mask_of(const parjava::trace::Trace &trace,
        const py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast> &owned) {
  if (static_cast<std::size_t>(owned.size()) != trace.locations.size()) {
    throw parjava::Error(parjava::ErrorKind::Usage,
                         "`owned` has " + std::to_string(owned.size()) + " flags for " +
                             std::to_string(trace.locations.size()) + " locations");
  }
  return {owned.data(), owned.data() + owned.size()};
}

template <typename T> py::array_t<T> array_of(const std::vector<T> &values) {
  py::array_t<T> out(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

std::vector<std::string> strings_of(const py::list &items) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const auto &item : items) {
    out.push_back(item.cast<std::string>());
  }
  return out;
}

using OwnedMask = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>;

void register_cause_parts(py::module_ &m) {
  py::class_<CausePart>(m, "CausePart",
                        "A part's share of the critical path (cause_parts.hpp): its processes' "
                        "timelines and wait states, the walk while it stays on them")
      .def(py::init([](const std::shared_ptr<const parjava::trace::Trace> &trace,
                       const OwnedMask &owned, std::uint32_t finalize_latest,
                       std::int64_t finalize_entry) {
             auto mask = mask_of(*trace, owned);
             py::gil_scoped_release release;
             return std::make_unique<CausePart>(*trace, mask, finalize_latest, finalize_entry);
           }),
           py::arg("trace"), py::arg("owned"), py::arg("finalize_latest"),
           py::arg("finalize_entry"))
      .def_property_readonly("locations",
                             [](const CausePart &p) { return array_of(p.locations()); })
      .def("begins", [](const CausePart &p) { return array_of(p.begins()); })
      .def("ends", [](const CausePart &p) { return array_of(p.ends()); })
      .def(
          "walk",
          [](CausePart &p, std::uint32_t location, std::int64_t time, std::int64_t first,
             std::int64_t step) {
            CausePart::Step s;
            {
              py::gil_scoped_release release;
              s = p.walk(location, time, first, step);
            }
            return py::make_tuple(s.location, s.time, s.step, s.done);
          },
          py::arg("location"), py::arg("time"), py::arg("first"), py::arg("step"),
          "Walk back while on own locations: (location, time, step, done) to go on from")
      .def(
          "caused_elsewhere",
          [](const CausePart &p, const std::vector<std::uint32_t> &owners, std::size_t parts) {
            std::vector<std::string> bytes;
            {
              py::gil_scoped_release release;
              bytes = p.caused_elsewhere(owners, parts);
            }
            py::list out;
            for (const auto &b : bytes) {
              out.append(py::bytes(b));
            }
            return out;
          },
          py::arg("owners"), py::arg("parts"),
          "Per analysis rank, the bytes of own wait states caused by its processes")
      .def(
          "start_delays",
          [](CausePart &p, const std::shared_ptr<const parjava::trace::Trace> &trace,
             const std::vector<std::uint32_t> &owners, const py::list &caused, std::int64_t init,
             bool init_all) {
            const auto bytes = strings_of(caused);
            py::gil_scoped_release release;
            p.start_delays(*trace, owners, bytes, init, init_all);
          },
          py::arg("trace"), py::arg("owners"), py::arg("caused"), py::arg("init"),
          py::arg("init_all"),
          "Start the delay costs' propagation with what every rank sent (caused_elsewhere)")
      .def(
          "propagate_delays",
          [](CausePart &p, const py::list &incoming, std::size_t parts, std::size_t budget) {
            const auto bytes = strings_of(incoming);
            std::vector<std::string> outgoing(parts);
            CausePart::Propagation status{};
            {
              py::gil_scoped_release release;
              status = p.propagate_delays(bytes, outgoing, budget);
            }
            py::list out;
            for (const auto &b : outgoing) {
              out.append(py::bytes(b));
            }
            return py::make_tuple(static_cast<int>(status), out);
          },
          py::arg("incoming"), py::arg("parts"), py::arg("budget"),
          "(status, bytes per rank): 0 done, 1 waiting for another rank, 2 budget spent")
      .def("result_bytes", [](const CausePart &p) {
        std::string bytes;
        {
          py::gil_scoped_release release;
          bytes = p.result_bytes();
        }
        return py::bytes(bytes);
      });
  m.def(
      "finalize_entries",
      [](const std::shared_ptr<const parjava::trace::Trace> &trace, const OwnedMask &owned) {
        const auto e = finalize_entries(*trace, mask_of(*trace, owned));
        return py::make_tuple(array_of(e.entry), e.entered);
      },
      py::arg("trace"), py::arg("owned"),
      "Per analysed location its MPI_Finalize entry where owned (INT64_MIN elsewhere), and "
      "how many owned ones have one");
  m.def(
      "init_entries",
      [](const std::shared_ptr<const parjava::trace::Trace> &trace, const OwnedMask &owned) {
        const auto e = init_entries(*trace, mask_of(*trace, owned));
        return py::make_tuple(e.latest, e.entered);
      },
      py::arg("trace"), py::arg("owned"),
      "The latest first entry into MPI_Init of the owned processes, and how many have one");
  m.def(
      "merge_cause_parts",
      [](const std::shared_ptr<const parjava::trace::Trace> &trace, const py::list &parts,
         double seconds) {
        const auto bytes = strings_of(parts);
        py::gil_scoped_release release;
        return std::make_shared<CauseAnalysis>(merge_cause_parts(*trace, bytes, seconds));
      },
      py::arg("trace"), py::arg("parts"), py::arg("seconds"),
      "The parts' bytes as the serial analysis (critical path, delay costs: as computed)");
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
  register_cause_parts(m);
}
