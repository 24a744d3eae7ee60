// parjava._core trace replay bindings (thin: python/parjava/replay.py builds the user API).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "parjava/analysis/replay/replay.hpp"
#include "parjava/error.hpp"

namespace py = pybind11;
using namespace parjava::analysis;

void register_replay(py::module_ &m) {
  py::class_<ReplayResult, std::shared_ptr<ReplayResult>>(m, "ReplayResult",
                                                          "One replay's result (private)")
      .def_property_readonly("prediction",
                             [](const std::shared_ptr<ReplayResult> &r) {
                               // Shares the result's lifetime: no copy of the model trace.
                               return std::shared_ptr<parjava::interp::Prediction>(r,
                                                                                   &r->prediction);
                             })
      .def_readonly("original_time", &ReplayResult::original_time)
      .def_property_readonly(
          "original_end_times",
          [](const ReplayResult &r) { return py::array_t<double>(py::cast(r.original_end_times)); })
      .def_readonly("notes", &ReplayResult::notes)
      .def_readonly("events", &ReplayResult::events)
      .def_readonly("steps", &ReplayResult::steps)
      .def_readonly("calls", &ReplayResult::calls)
      .def_readonly("build_seconds", &ReplayResult::build_seconds)
      .def_readonly("run_seconds", &ReplayResult::run_seconds);

  m.def(
      "replay",
      [](const std::shared_ptr<const parjava::trace::Trace> &trace,
         const parjava::machine::Machine &machine, double compute_scale,
         std::vector<double> region_scale, std::vector<double> callsite_scale,
         std::vector<double> rank_scale, bool balance, const std::string &overhead,
         bool record_trace, const std::map<std::string, std::string> &algorithms, bool contention,
         std::uint64_t max_events, const parjava::machine::Machine *overhead_machine) {
        ReplayOptions o;
        o.compute_scale = compute_scale;
        o.region_scale = std::move(region_scale);
        o.callsite_scale = std::move(callsite_scale);
        o.rank_scale = std::move(rank_scale);
        o.balance = balance;
        if (overhead == "minimum") {
          o.call_overhead = CallOverhead::Minimum;
        } else if (overhead == "none") {
          o.call_overhead = CallOverhead::None;
        } else {
          throw parjava::Error(parjava::ErrorKind::Usage,
                               "call_overhead must be 'minimum' or 'none', not '" + overhead + "'");
        }
        o.interpret.record_trace = record_trace;
        o.interpret.algorithms = algorithms;
        o.interpret.endpoint_contention = contention;
        o.interpret.max_events = max_events;
        o.overhead_machine = overhead_machine;
        py::gil_scoped_release release;
        return std::make_shared<ReplayResult>(replay(*trace, machine, o));
      },
      py::arg("trace"), py::arg("machine"), py::arg("compute_scale") = 1.0,
      py::arg("region_scale") = std::vector<double>{},
      py::arg("callsite_scale") = std::vector<double>{},
      py::arg("rank_scale") = std::vector<double>{}, py::arg("balance") = false,
      py::arg("call_overhead") = "minimum", py::arg("record_trace") = true,
      py::arg("algorithms") = std::map<std::string, std::string>{}, py::arg("contention") = true,
      py::arg("max_events") = 0, py::arg("overhead_machine") = nullptr);

  m.def("ideal_network", &ideal_network, py::arg("machine"));
}
