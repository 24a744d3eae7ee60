// parjava._core bindings of the interval analysis and the timeline extraction: the options,
// the tree's nodes as plain dicts and NumPy arrays. python/parjava/intervals.py and
// timeline.py build the user-facing objects on top.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "parjava/analysis/intervals/analyze_intervals.hpp"
#include "parjava/analysis/intervals/interval_parts.hpp"
#include "parjava/analysis/intervals/interval_report.hpp"
#include "parjava/analysis/intervals/timeline.hpp"
#include "parjava/error.hpp"
#include "parjava/trace/trace.hpp"

namespace py = pybind11;
namespace pa = parjava::analysis;
namespace pt = parjava::trace;

namespace {

template <typename T> py::array_t<T> to_array(const std::vector<T> &v) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
  if (!v.empty()) {
    std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(T));
  }
  return a;
}

// Rows of characteristics as an (n, columns) int64 array (the first `columns` of each row).
py::array_t<std::int64_t> to_matrix(const std::vector<pa::CharacteristicRow> &rows,
                                    std::size_t columns) {
  py::array_t<std::int64_t> a(
      {static_cast<py::ssize_t>(rows.size()), static_cast<py::ssize_t>(columns)});
  auto *out = a.mutable_data();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::memcpy(out + r * columns, rows[r].data(), columns * sizeof(std::int64_t));
  }
  return a;
}

const pa::IntervalNode &node_at(const pa::IntervalTree &tree, std::size_t i) {
  if (i >= tree.nodes.size()) {
    throw parjava::Error(parjava::ErrorKind::Usage, "interval tree: no node " + std::to_string(i) +
                                                        " (the tree has " +
                                                        std::to_string(tree.nodes.size()) + ")");
  }
  return tree.nodes[i];
}

py::dict node_dict(const pa::IntervalNode &n) {
  py::dict d;
  d["id"] = n.id;
  d["parent"] = n.parent == pa::kNoNode ? py::object(py::none()) : py::object(py::int_(n.parent));
  d["children"] = n.children;
  d["level"] = n.level;
  d["source"] = std::string(pa::interval_source_name(n.source));
  d["name"] = n.name;
  d["file"] = n.file;
  d["line"] = n.line;
  d["user_id"] = n.user_id;
  d["sequential"] = n.sequential;
  d["exe_count"] = n.exe_count;
  return d;
}

py::dict summary_dict(const pa::IntervalSummary &s) {
  py::dict d;
  d["execution_time"] = s.execution_time;
  d["processes"] = s.processes;
  d["total_time"] = s.total_time;
  d["productive_time"] = s.productive_time;
  d["productive_cpu"] = s.productive_cpu;
  d["productive_mpi"] = s.productive_mpi;
  d["efficiency"] = s.efficiency;
  d["lost_time"] = s.lost_time;
  d["lost_insufficient"] = s.lost_insufficient;
  d["lost_mpi"] = s.lost_mpi;
  d["lost_idle"] = s.lost_idle;
  d["least_mpi_process"] = s.least_mpi_process;
  std::vector<std::int64_t> sum, min, max;
  std::vector<std::uint32_t> min_process, max_process;
  std::vector<double> mean;
  for (const auto &c : s.characteristics) {
    sum.push_back(c.sum);
    min.push_back(c.min);
    max.push_back(c.max);
    min_process.push_back(c.min_process);
    max_process.push_back(c.max_process);
    mean.push_back(c.mean);
  }
  d["sum"] = to_array(sum);
  d["min"] = to_array(min);
  d["min_process"] = to_array(min_process);
  d["max"] = to_array(max);
  d["max_process"] = to_array(max_process);
  d["mean"] = to_array(mean);
  return d;
}

py::list process_list(const std::vector<pa::IntervalProcess> &processes) {
  py::list l;
  for (const auto &p : processes) {
    py::dict d;
    d["location"] = p.location;
    d["rank"] = p.rank;
    d["thread"] = p.thread;
    d["name"] = p.name;
    l.append(d);
  }
  return l;
}

} // namespace

void register_intervals(py::module_ &m) {
  py::enum_<pa::ProductiveTime>(m, "ProductiveTime")
      .value("UserCode", pa::ProductiveTime::UserCode)
      .value("UserCodeOneMpi", pa::ProductiveTime::UserCodeOneMpi);
  py::enum_<pa::SkewAttribution>(m, "SkewAttribution")
      .value("LateProcess", pa::SkewAttribution::LateProcess)
      .value("WaitingProcess", pa::SkewAttribution::WaitingProcess);
  py::enum_<pa::SendRecvTime>(m, "SendRecvTime")
      .value("CallTime", pa::SendRecvTime::CallTime)
      .value("MessageTime", pa::SendRecvTime::MessageTime);
  py::enum_<pa::ExecutionTimeBasis>(m, "ExecutionTimeBasis")
      .value("Accumulated", pa::ExecutionTimeBasis::Accumulated)
      .value("PerExecution", pa::ExecutionTimeBasis::PerExecution);
  py::enum_<pa::LoadBasis>(m, "LoadBasis")
      .value("UserCode", pa::LoadBasis::UserCode)
      .value("UserCodeAndMpi", pa::LoadBasis::UserCodeAndMpi);

  py::class_<pa::IntervalOptions>(m, "IntervalOptions")
      .def(py::init<>())
      .def_property(
          "markers", [](const pa::IntervalOptions &o) { return o.sources.markers; },
          [](pa::IntervalOptions &o, bool v) { o.sources.markers = v; })
      .def_property(
          "pcontrol", [](const pa::IntervalOptions &o) { return o.sources.pcontrol; },
          [](pa::IntervalOptions &o, bool v) { o.sources.pcontrol = v; })
      .def_property(
          "regions", [](const pa::IntervalOptions &o) { return o.sources.regions; },
          [](pa::IntervalOptions &o, bool v) { o.sources.regions = v; })
      .def_readwrite("max_depth", &pa::IntervalOptions::max_depth)
      .def_readwrite("productive", &pa::IntervalOptions::productive)
      .def_readwrite("attribution", &pa::IntervalOptions::attribution)
      .def_readwrite("sendrecv", &pa::IntervalOptions::sendrecv)
      .def_readwrite("execution", &pa::IntervalOptions::execution)
      .def_readwrite("load", &pa::IntervalOptions::load)
      .def_readwrite("sequential", &pa::IntervalOptions::sequential)
      .def_readwrite("record_executions", &pa::IntervalOptions::record_executions);

  std::vector<std::string> names;
  for (std::size_t c = 0; c < pa::kCharacteristicCount; ++c) {
    names.emplace_back(pa::characteristic_name(static_cast<pa::Characteristic>(c)));
  }
  m.attr("INTERVAL_CHARACTERISTICS") = names;
  m.attr("INTERVAL_ADDITIVE_COUNT") = pa::kAdditiveCount;

  py::class_<pa::IntervalTree>(m, "IntervalTree")
      .def_property_readonly("node_count", [](const pa::IntervalTree &t) { return t.nodes.size(); })
      .def_property_readonly("processes",
                             [](const pa::IntervalTree &t) { return process_list(t.processes); })
      .def_readonly("warnings", &pa::IntervalTree::warnings)
      .def_readonly("begin", &pa::IntervalTree::begin)
      .def_readonly("end", &pa::IntervalTree::end)
      .def_readonly("events", &pa::IntervalTree::events)
      .def_readonly("options", &pa::IntervalTree::options)
      .def("node",
           [](const pa::IntervalTree &t, std::size_t i) { return node_dict(node_at(t, i)); })
      .def("node_processes", [](const pa::IntervalTree &t,
                                std::size_t i) { return to_array(node_at(t, i).processes); })
      .def("node_executions", [](const pa::IntervalTree &t,
                                 std::size_t i) { return to_array(node_at(t, i).executions); })
      .def("values",
           [](const pa::IntervalTree &t, std::size_t i) {
             return to_matrix(node_at(t, i).values, pa::kCharacteristicCount);
           })
      .def("exclusive",
           [](const pa::IntervalTree &t, std::size_t i) {
             return to_matrix(node_at(t, i).exclusive, pa::kAdditiveCount);
           })
      .def("summary", [](const pa::IntervalTree &t,
                         std::size_t i) { return summary_dict(node_at(t, i).summary); })
      .def(
          "report",
          [](const pa::IntervalTree &t, int max_level, bool per_process, const py::object &node) {
            pa::ReportOptions options;
            options.max_level = max_level;
            options.per_process = per_process;
            if (node.is_none()) {
              return pa::interval_report(t, options);
            }
            const auto id = node.cast<std::size_t>();
            (void)node_at(t, id);
            return pa::interval_report(t, static_cast<std::uint32_t>(id), options);
          },
          py::arg("max_level") = -1, py::arg("per_process") = true, py::arg("node") = py::none())
      .def("process_labels",
           [](const pa::IntervalTree &t) {
             std::vector<std::string> labels;
             labels.reserve(t.processes.size());
             for (const auto &p : t.processes) {
               labels.push_back(pa::process_label(p));
             }
             return labels;
           })
      .def("executions", [](const pa::IntervalTree &t) {
        std::vector<std::uint32_t> node, process;
        std::vector<std::int64_t> begin, end;
        node.reserve(t.executions.size());
        process.reserve(t.executions.size());
        begin.reserve(t.executions.size());
        end.reserve(t.executions.size());
        for (const auto &x : t.executions) {
          node.push_back(x.node);
          process.push_back(x.process);
          begin.push_back(x.begin);
          end.push_back(x.end);
        }
        py::dict d;
        d["node"] = to_array(node);
        d["process"] = to_array(process);
        d["begin"] = to_array(begin);
        d["end"] = to_array(end);
        return d;
      });

  // Parallel analysis (interval_parts.hpp): a rank's part as bytes, and the merge on one rank.
  m.def(
      "analyze_interval_part",
      [](const pt::Trace &trace, const pa::IntervalOptions &options,
         const py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast> &owned) {
        if (static_cast<std::size_t>(owned.size()) != trace.locations.size()) {
          throw parjava::Error(parjava::ErrorKind::Usage,
                               "analyze_interval_part: `owned` has " +
                                   std::to_string(owned.size()) + " flags for " +
                                   std::to_string(trace.locations.size()) + " locations");
        }
        std::vector<std::uint8_t> mask(owned.data(), owned.data() + owned.size());
        std::string bytes;
        {
          const py::gil_scoped_release release;
          bytes = pa::interval_part_bytes(pa::analyze_interval_part(trace, options, mask));
        }
        return py::bytes(bytes);
      },
      py::arg("trace"), py::arg("options"), py::arg("owned"),
      "Walk the processes on the owned locations; the part's tree as bytes.");
  m.def(
      "merge_interval_parts",
      [](const pt::Trace &trace, const pa::IntervalOptions &options, const py::list &parts) {
        std::vector<std::string> raw;
        raw.reserve(parts.size());
        for (const auto &p : parts) {
          raw.push_back(p.cast<std::string>());
        }
        auto tree = std::make_unique<pa::IntervalTree>();
        {
          const py::gil_scoped_release release;
          std::vector<pa::IntervalTree> trees;
          trees.reserve(raw.size());
          for (auto &r : raw) {
            trees.push_back(pa::interval_part_from_bytes(r));
            r.clear();
            r.shrink_to_fit();
          }
          *tree = pa::merge_interval_parts(trace, options, std::move(trees));
        }
        return tree;
      },
      py::arg("trace"), py::arg("options"), py::arg("parts"),
      "Merge the parts' bytes (analyze_interval_part) into the serial tree.");
  m.def(
      "analyze_intervals",
      [](const pt::Trace &trace, const pa::IntervalOptions &options, const py::object &progress) {
        pa::IntervalProgress report;
        if (!progress.is_none()) {
          report = [progress](std::size_t done, std::size_t total) {
            const py::gil_scoped_acquire gil;
            progress(done, total);
          };
        }
        auto tree = std::make_unique<pa::IntervalTree>();
        {
          const py::gil_scoped_release release;
          *tree = pa::analyze_intervals(trace, options, report);
        }
        return tree;
      },
      py::arg("trace"), py::arg("options"), py::arg("progress") = py::none(),
      "Interval analysis of a trace (see parjava.intervals).");

  m.def(
      "extract_timeline",
      [](const pt::Trace &trace, std::int64_t begin, std::int64_t end,
         std::uint32_t max_bars_per_row, std::uint32_t max_messages) {
        pa::TimelineOptions options;
        options.begin = begin;
        options.end = end;
        options.max_bars_per_row = max_bars_per_row;
        options.max_messages = max_messages;
        pa::TimelineData data;
        {
          const py::gil_scoped_release release;
          data = pa::extract_timeline(trace, options);
        }
        py::dict d;
        d["begin"] = data.begin;
        d["end"] = data.end;
        d["rows"] = process_list(data.rows);
        d["row_begin"] = to_array(data.row_begin);
        d["row_end"] = to_array(data.row_end);
        d["row_binned"] = to_array(data.row_binned);
        d["bar_row"] = to_array(data.bar_row);
        d["bar_begin"] = to_array(data.bar_begin);
        d["bar_end"] = to_array(data.bar_end);
        d["bar_category"] = to_array(data.bar_category);
        d["bar_region"] = to_array(data.bar_region);
        d["message_from_row"] = to_array(data.message_from_row);
        d["message_to_row"] = to_array(data.message_to_row);
        d["message_send"] = to_array(data.message_send);
        d["message_receive"] = to_array(data.message_receive);
        d["messages_in_window"] = data.messages_in_window;
        return d;
      },
      py::arg("trace"), py::arg("begin"), py::arg("end"), py::arg("max_bars_per_row"),
      py::arg("max_messages"), "Timeline data of a trace window (see parjava.timeline).");
}
