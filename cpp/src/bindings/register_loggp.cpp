// parjava._core bindings of the loggp part: GOAL schedules and the LogGP simulator. Thin by
// design; the Python face (parjava.goal) adds defaults, units and error reports.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "parjava/error.hpp"
#include "parjava/loggp/goal_binary.hpp"
#include "parjava/loggp/goal_patterns.hpp"
#include "parjava/loggp/goal_reader.hpp"
#include "parjava/loggp/goal_schedule.hpp"
#include "parjava/loggp/goal_writer.hpp"
#include "parjava/loggp/simulator.hpp"

namespace py = pybind11;
namespace lg = parjava::loggp;

namespace {

const char *reason_name(lg::UnfinishedReason reason) {
  switch (reason) {
  case lg::UnfinishedReason::NeverReady:
    return "never_ready";
  case lg::UnfinishedReason::ReceiveNotMatched:
    return "receive_not_matched";
  case lg::UnfinishedReason::MessageNotReceived:
    return "message_not_received";
  case lg::UnfinishedReason::RendezvousNotMatched:
    return "rendezvous_not_matched";
  }
  return "unfinished";
}

template <class T, class Field> py::array_t<T> op_column(const lg::GoalSchedule &s, Field field) {
  py::array_t<T> out(static_cast<py::ssize_t>(s.num_ops()));
  auto view = out.template mutable_unchecked<1>();
  for (lg::OpId i = 0; i < s.num_ops(); ++i) {
    view(i) = static_cast<T>(field(s.op(i)));
  }
  return out;
}

lg::SimulationResult simulate_goal(const lg::GoalSchedule &schedule,
                                   const lg::LogGPParameters &parameters, const std::string &order,
                                   const py::object &progress) {
  lg::SimulationOptions options;
  options.parameters = parameters;
  if (order == "stable") {
    options.order = lg::ReadyOrder::Stable;
  } else if (order == "loggopsim") {
    options.order = lg::ReadyOrder::LogGOPSim;
  } else {
    throw parjava::Error(parjava::ErrorKind::Usage,
                         "order must be 'stable' or 'loggopsim', got '" + order + "'");
  }
  // Called about every million queue entries: lets Ctrl-C through and feeds a progress bar.
  options.progress = [&progress](std::uint64_t processed) {
    const py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      throw py::error_already_set();
    }
    if (!progress.is_none()) {
      return progress(processed).cast<bool>();
    }
    return true;
  };
  const py::gil_scoped_release release;
  return lg::simulate(schedule, options);
}

} // namespace

void register_loggp(py::module_ &m) {
  py::class_<lg::LogGPParameters>(m, "LogGPParameters")
      .def(py::init<>())
      .def_readwrite("L", &lg::LogGPParameters::L)
      .def_readwrite("o", &lg::LogGPParameters::o)
      .def_readwrite("g", &lg::LogGPParameters::g)
      .def_readwrite("G", &lg::LogGPParameters::G)
      .def_readwrite("O", &lg::LogGPParameters::O)
      .def_readwrite("S", &lg::LogGPParameters::S);

  py::class_<lg::GoalSchedule, std::shared_ptr<lg::GoalSchedule>>(m, "GoalSchedule")
      .def_property_readonly("num_ranks", &lg::GoalSchedule::num_ranks)
      .def_property_readonly("num_ops", &lg::GoalSchedule::num_ops)
      .def_property_readonly("num_cpus", &lg::GoalSchedule::num_cpus)
      .def_property_readonly("num_nics", &lg::GoalSchedule::num_nics)
      .def_property_readonly("num_edges", &lg::GoalSchedule::num_edges)
      .def_property_readonly("num_listed_edges",
                             [](const lg::GoalSchedule &s) { return s.dependents().size(); })
      .def_property_readonly("num_shapes",
                             [](const lg::GoalSchedule &s) { return s.shapes().size(); })
      .def_property_readonly("source", &lg::GoalSchedule::source)
      .def_property_readonly("memory_bytes", &lg::GoalSchedule::memory_bytes)
      .def("count",
           [](const lg::GoalSchedule &s, const std::string &kind) {
             if (kind == "send") {
               return s.count(lg::OpKind::Send);
             }
             if (kind == "recv") {
               return s.count(lg::OpKind::Recv);
             }
             if (kind == "calc") {
               return s.count(lg::OpKind::Calc);
             }
             throw parjava::Error(parjava::ErrorKind::Usage,
                                  "kind must be send, recv or calc, got '" + kind + "'");
           })
      .def("rank_begins",
           [](const lg::GoalSchedule &s) {
             const auto begins = s.rank_begins();
             return py::array_t<std::uint32_t>(static_cast<py::ssize_t>(begins.size()),
                                               begins.data());
           })
      .def("op_columns", [](const lg::GoalSchedule &s) {
        py::dict d;
        d["kind"] = op_column<std::uint8_t>(
            s, [](const lg::GoalOp &o) { return static_cast<std::uint8_t>(o.kind); });
        d["size"] = op_column<std::uint64_t>(s, [](const lg::GoalOp &o) { return o.size; });
        d["peer"] = op_column<std::uint32_t>(s, [](const lg::GoalOp &o) { return o.peer; });
        d["tag"] = op_column<std::uint32_t>(s, [](const lg::GoalOp &o) { return o.tag; });
        d["cpu"] = op_column<std::uint8_t>(s, [](const lg::GoalOp &o) { return o.cpu; });
        d["nic"] = op_column<std::uint8_t>(s, [](const lg::GoalOp &o) { return o.nic; });
        d["dependencies"] =
            op_column<std::uint32_t>(s, [](const lg::GoalOp &o) { return o.dependency_count; });
        return d;
      });

  m.def(
      "read_goal_file",
      [](const std::string &path) {
        const py::gil_scoped_release release;
        return std::make_shared<lg::GoalSchedule>(lg::read_goal_file(path));
      },
      py::arg("path"));
  m.def(
      "parse_goal_text",
      [](const std::string &text, const std::string &name) {
        return std::make_shared<lg::GoalSchedule>(lg::parse_goal_text(text, name));
      },
      py::arg("text"), py::arg("name") = "<text>");
  m.def(
      "read_goal_binary",
      [](const std::string &path) {
        const py::gil_scoped_release release;
        return std::make_shared<lg::GoalSchedule>(lg::read_goal_binary(path));
      },
      py::arg("path"));
  m.def("is_goal_binary", &lg::is_goal_binary, py::arg("path"));
  m.def(
      "write_goal_file",
      [](const lg::GoalSchedule &s, const std::string &path) {
        const py::gil_scoped_release release;
        lg::write_goal_file(s, path);
      },
      py::arg("schedule"), py::arg("path"));
  m.def("goal_text", &lg::goal_text, py::arg("schedule"));
  m.def(
      "write_goal_binary",
      [](const lg::GoalSchedule &s, const std::string &path) {
        const py::gil_scoped_release release;
        lg::write_goal_binary(s, path);
      },
      py::arg("schedule"), py::arg("path"));
  m.def(
      "generate_pattern",
      [](const std::string &name, std::uint32_t ranks, std::uint64_t bytes, std::uint32_t root,
         std::uint64_t segment, std::uint64_t compute, bool chain_receives) {
        lg::PatternOptions o;
        o.ranks = ranks;
        o.bytes = bytes;
        o.root = root;
        o.segment = segment;
        o.compute = compute;
        o.chain_receives = chain_receives;
        const py::gil_scoped_release release;
        return std::make_shared<lg::GoalSchedule>(lg::generate_pattern(name, o));
      },
      py::arg("name"), py::arg("ranks"), py::arg("bytes"), py::arg("root") = 0,
      py::arg("segment") = 1024, py::arg("compute") = 0, py::arg("chain_receives") = false);
  m.def("pattern_names", &lg::pattern_names);

  py::class_<lg::SimulationResult>(m, "GoalSimulationResult")
      .def_property_readonly("end_times",
                             [](const lg::SimulationResult &r) {
                               return py::array_t<std::uint64_t>(
                                   static_cast<py::ssize_t>(r.end_times.size()),
                                   r.end_times.data());
                             })
      // One host's end time without NumPy (the command line prints a few; issue 18 start-up).
      .def("end_time",
           [](const lg::SimulationResult &r, std::size_t host) {
             if (host >= r.end_times.size()) {
               throw py::index_error("host " + std::to_string(host) + " out of range (" +
                                     std::to_string(r.end_times.size()) + " hosts)");
             }
             return r.end_times[host];
           })
      .def_readonly("engine_bytes", &lg::SimulationResult::engine_bytes)
      .def_readonly("max_end_time", &lg::SimulationResult::max_end_time)
      .def_readonly("max_host", &lg::SimulationResult::max_host)
      .def_readonly("events", &lg::SimulationResult::events)
      .def_readonly("queue_pops", &lg::SimulationResult::queue_pops)
      .def_readonly("blocked_checks", &lg::SimulationResult::blocked_checks)
      .def_readonly("ops_completed", &lg::SimulationResult::ops_completed)
      .def_readonly("seconds", &lg::SimulationResult::seconds)
      .def_readonly("cpu_seconds", &lg::SimulationResult::cpu_seconds)
      .def_readonly("complete", &lg::SimulationResult::complete)
      .def_readonly("unfinished_count", &lg::SimulationResult::unfinished_count)
      .def_readonly("receive_queue_left", &lg::SimulationResult::receive_queue_left)
      .def_readonly("unexpected_queue_left", &lg::SimulationResult::unexpected_queue_left)
      .def_property_readonly("unfinished", [](const lg::SimulationResult &r) {
        py::list out;
        for (const lg::UnfinishedOp &u : r.unfinished) {
          out.append(py::make_tuple(u.op, u.rank, reason_name(u.reason), u.waiting_for));
        }
        return out;
      });

  m.def("simulate_goal", &simulate_goal, py::arg("schedule"), py::arg("parameters"),
        py::arg("order") = "stable", py::arg("progress") = py::none());
  m.def("describe_unfinished", &lg::describe_unfinished, py::arg("schedule"), py::arg("result"));
  m.def(
      "locate_goal_ops",
      [](const lg::GoalSchedule &s, const std::string &path, const std::vector<lg::OpId> &ops) {
        py::list out;
        for (const lg::GoalSourcePosition &p : lg::locate_goal_ops(s, path, ops)) {
          out.append(py::make_tuple(p.rank, p.op_offset, p.line, p.column));
        }
        return out;
      },
      py::arg("schedule"), py::arg("path"), py::arg("ops"));
}
