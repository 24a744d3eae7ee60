// parjava._core interpreter bindings (thin: python/parjava/prediction.py builds the user API).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "parjava/interp/collective_algorithm.hpp"
#include "parjava/interp/interpreter.hpp"
#include "parjava/machine/machine_json.hpp"

namespace py = pybind11;
using namespace parjava::interp;

namespace {

InterpretOptions options_from(std::int64_t np, std::int64_t threads, const py::dict &params,
                              const std::string &opaque, std::uint64_t seed,
                              const std::map<std::string, std::string> &algorithms,
                              double reduction, bool contention, bool trace,
                              std::uint64_t max_events) {
  InterpretOptions o;
  o.processes = np;
  o.threads = threads;
  for (const auto &[key, value] : params) {
    const auto name = key.cast<std::string>();
    if (py::isinstance<py::bool_>(value) || py::isinstance<py::int_>(value)) {
      o.params[name] = parjava::model::Value::of_int(value.cast<std::int64_t>());
    } else if (py::isinstance<py::float_>(value)) {
      o.params[name] = parjava::model::Value::of_float(value.cast<double>());
    } else {
      throw parjava::Error(parjava::ErrorKind::Usage, "parameter '" + name +
                                                          "' must be a number, not " +
                                                          py::repr(value).cast<std::string>());
    }
  }
  if (opaque == "expected") {
    o.opaque = OpaqueMode::Expected;
  } else if (opaque == "sampled") {
    o.opaque = OpaqueMode::Sampled;
  } else {
    throw parjava::Error(parjava::ErrorKind::Usage,
                         "opaque must be 'expected' or 'sampled', not '" + opaque + "'");
  }
  o.seed = seed;
  o.algorithms = algorithms;
  o.reduction_seconds_per_byte = reduction;
  o.endpoint_contention = contention;
  o.record_trace = trace;
  o.max_events = max_events;
  return o;
}

// A machine given as the C++ object (parjava.Machine's core) or as machine JSON text.
struct MachineArg {
  std::optional<parjava::machine::Machine> owned;
  const parjava::machine::Machine *machine = nullptr;

  explicit MachineArg(const py::object &m) {
    if (py::isinstance<py::str>(m)) {
      owned.emplace(parjava::machine::machine_from_json(m.cast<std::string>(), "machine"));
      machine = &*owned;
    } else {
      machine = &m.cast<const parjava::machine::Machine &>();
    }
  }
};

// The engine's progress callback: hands the numbers to Python's callable (if any) and lets
// Ctrl-C stop a long interpretation. Runs with the GIL released around it, at most every 0.2 s.
std::function<void(const ProgressInfo &)> progress_callback(const py::object &callback) {
  return [callback](const ProgressInfo &info) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      throw py::error_already_set();
    }
    if (!callback.is_none()) {
      callback(info.events, info.model_time, info.wall_seconds);
    }
  };
}

py::dict blocked_dict(const BlockedOperation &b) {
  return py::dict(py::arg("rank") = b.rank, py::arg("thread") = b.thread, py::arg("node") = b.node,
                  py::arg("operation") = b.operation, py::arg("location") = b.location,
                  py::arg("waiting_for") = b.waiting_for, py::arg("since") = b.since);
}

} // namespace

void register_interp(py::module_ &m) {
  // pybind11 needs exactly void(std::exception_ptr) here.
  py::register_exception_translator(
      [](std::exception_ptr p) { // NOLINT(performance-unnecessary-value-param)
        try {
          if (p) {
            std::rethrow_exception(p);
          }
        } catch (const DeadlockError &e) {
          py::object cls = py::module_::import("parjava.errors").attr("DeadlockError");
          py::object error = cls(py::str(e.what()));
          py::list blocked;
          for (const auto &b : e.blocked()) {
            blocked.append(blocked_dict(b));
          }
          error.attr("blocked") = blocked;
          PyErr_SetObject(cls.ptr(), error.ptr());
        }
      });

  py::class_<Prediction, std::shared_ptr<Prediction>>(m, "Prediction",
                                                      "One interpretation's result (private)")
      .def_readonly("processes", &Prediction::processes)
      .def_readonly("threads", &Prediction::threads)
      .def_readonly("program_time", &Prediction::program_time)
      .def_readonly("error_bound", &Prediction::error_bound)
      .def_readonly("error_bound_thesis", &Prediction::error_bound_thesis)
      .def_readonly("warnings", &Prediction::warnings)
      .def_readonly("network", &Prediction::network)
      .def_property_readonly(
          "end_times",
          [](const Prediction &p) { return py::array_t<double>(py::cast(p.end_times)); })
      .def("node_columns",
           [](const Prediction &p) {
             const auto n = static_cast<py::ssize_t>(p.nodes.size());
             py::array_t<std::uint32_t> ids(n);
             py::array_t<double> time(n);
             py::array_t<std::uint64_t> freq(n);
             py::array_t<double> error(n);
             for (py::ssize_t i = 0; i < n; ++i) {
               const auto &s = p.nodes[static_cast<std::size_t>(i)];
               ids.mutable_at(i) = s.id;
               time.mutable_at(i) = s.time;
               freq.mutable_at(i) = s.freq;
               error.mutable_at(i) = s.error_bound;
             }
             return py::dict(py::arg("id") = ids, py::arg("time") = time, py::arg("freq") = freq,
                             py::arg("error_bound") = error);
           })
      .def_property_readonly("engine",
                             [](const Prediction &p) {
                               return py::dict(
                                   py::arg("events") = p.engine.events,
                                   py::arg("messages") = p.engine.messages,
                                   py::arg("direct_messages") = p.engine.direct_messages,
                                   py::arg("flows") = p.engine.flows,
                                   py::arg("flow_recomputations") = p.engine.flow_recomputations,
                                   py::arg("flows_recomputed") = p.engine.flows_recomputed,
                                   py::arg("instructions") = p.engine.instructions,
                                   py::arg("wall_seconds") = p.engine.wall_seconds,
                                   py::arg("peak_queue") = p.engine.peak_queue,
                                   py::arg("state_bytes") = p.engine.state_bytes);
                             })
      .def_property_readonly("has_trace", [](const Prediction &p) { return p.trace != nullptr; })
      .def("trace", [](const Prediction &p) -> py::object {
        if (p.trace == nullptr) {
          return py::none();
        }
        if (py::detail::get_type_info(typeid(parjava::trace::Trace)) == nullptr) {
          throw parjava::Error(parjava::ErrorKind::Usage,
                               "this build has no trace bindings (parjava._core.Trace)");
        }
        return py::cast(p.trace);
      });

  m.def(
      "interpret",
      [](const parjava::model::Model &model, const py::object &machine, std::int64_t np,
         std::int64_t threads, const py::dict &params, const std::string &opaque,
         std::uint64_t seed, const std::map<std::string, std::string> &algorithms, double reduction,
         bool contention, bool trace, std::uint64_t max_events, std::uint32_t max_depth,
         bool opaque_recursion, const py::object &progress, double progress_interval) {
        InterpretOptions o = options_from(np, threads, params, opaque, seed, algorithms, reduction,
                                          contention, trace, max_events);
        o.max_depth = max_depth;
        o.allow_opaque_recursion = opaque_recursion;
        o.progress = progress_callback(progress);
        o.progress_interval = progress_interval;
        const MachineArg chosen(machine);
        std::shared_ptr<Prediction> out;
        {
          py::gil_scoped_release release;
          out = std::make_shared<Prediction>(interpret(model, *chosen.machine, o));
        }
        // The callback holds a Python object: drop it with the GIL held.
        o.progress = nullptr;
        return out;
      },
      py::arg("model"), py::arg("machine"), py::arg("np"), py::arg("threads"), py::arg("params"),
      py::arg("opaque"), py::arg("seed"), py::arg("algorithms"), py::arg("reduction"),
      py::arg("contention"), py::arg("trace"), py::arg("max_events"),
      py::arg("max_depth") = kDefaultMaxDepth, py::arg("opaque_recursion") = false,
      py::arg("progress") = py::none(), py::arg("progress_interval") = 0.2);

  m.def(
      "interpret_node",
      [](const parjava::model::Model &model, parjava::model::NodeId node, const py::object &machine,
         std::int64_t np, std::int64_t threads, const py::dict &params, const py::dict &inputs,
         const std::string &opaque, std::uint64_t seed) {
        const InterpretOptions o =
            options_from(np, threads, params, opaque, seed, {}, 0.0, true, false, 0);
        std::map<std::string, parjava::model::Value> values;
        for (const auto &[key, value] : inputs) {
          values[key.cast<std::string>()] =
              py::isinstance<py::float_>(value)
                  ? parjava::model::Value::of_float(value.cast<double>())
                  : parjava::model::Value::of_int(value.cast<std::int64_t>());
        }
        const MachineArg chosen(machine);
        py::gil_scoped_release release;
        return std::make_shared<Prediction>(
            interpret_node(model, node, *chosen.machine, o, values));
      },
      py::arg("model"), py::arg("node"), py::arg("machine"), py::arg("np"), py::arg("threads"),
      py::arg("params"), py::arg("inputs"), py::arg("opaque"), py::arg("seed"));

  m.def("collective_algorithms", [] {
    py::dict out;
    for (int c = 0; c <= static_cast<int>(Collective::ReduceScatter); ++c) {
      py::list names;
      for (auto a : algorithms_for(static_cast<Collective>(c))) {
        names.append(std::string(algorithm_name(a)));
      }
      out[py::str(std::string(collective_name(static_cast<Collective>(c))))] = names;
    }
    return out;
  });
  m.def("collective_decision", [](const std::string &collective, std::int64_t size,
                                  std::uint64_t bytes) {
    const auto c = collective_by_name(collective);
    if (!c) {
      throw parjava::Error(parjava::ErrorKind::Usage, "unknown collective '" + collective + "'");
    }
    return std::string(algorithm_name(decide(*c, size, bytes)));
  });
  m.def("collective_substitutions", &algorithm_substitutions);
}
