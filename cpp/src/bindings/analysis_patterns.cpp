// parjava._core bindings of the pattern scanner (python/parjava/scan.py wraps them). Thin:
// options in, a ScanResult out whose findings reach Python as a NumPy view of the C++ rows.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parjava/analysis/diagnosis.hpp"
#include "parjava/analysis/eager_limit.hpp"
#include "parjava/analysis/pattern_catalogue.hpp"
#include "parjava/analysis/scanner.hpp"
#include "parjava/error.hpp"
#include "parjava/machine/machine.hpp"
#include "parjava/trace/trace.hpp"

namespace py = pybind11;
namespace a = parjava::analysis;

namespace {

using ResultPtr = std::shared_ptr<a::ScanResult>;

// (name, NumPy format, offset) of every Finding field: Python builds the dtype from it, so the
// layout is written down once, here, with offsetof.
py::list finding_layout() {
  py::list fields;
  auto add = [&](const char *name, const char *format, std::size_t offset) {
    fields.append(py::make_tuple(name, format, offset));
  };
  add("time", "<i8", offsetof(a::Finding, time));
  add("idle", "<i8", offsetof(a::Finding, idle));
  add("optimal_distance", "<i8", offsetof(a::Finding, optimal_distance));
  add("bytes", "<u8", offsetof(a::Finding, bytes));
  add("event", "<i4", offsetof(a::Finding, event));
  add("peer_event", "<i4", offsetof(a::Finding, peer_event));
  add("location", "<u4", offsetof(a::Finding, location));
  add("peer_location", "<u4", offsetof(a::Finding, peer_location));
  add("callsite", "<u4", offsetof(a::Finding, callsite));
  add("region", "<u4", offsetof(a::Finding, region));
  add("caller", "<u4", offsetof(a::Finding, caller));
  add("instance", "<u4", offsetof(a::Finding, instance));
  add("pattern", "<u2", offsetof(a::Finding, pattern));
  add("flags", "<u2", offsetof(a::Finding, flags));
  return fields;
}

py::list pattern_table() {
  py::list rows;
  for (const auto &p : a::all_patterns()) {
    py::dict d;
    d["id"] = static_cast<int>(p.id);
    d["key"] = std::string(p.key);
    d["code"] = std::string(p.code);
    d["name"] = std::string(p.name);
    d["family"] = std::string(a::family_key(p.family));
    d["family_title"] = std::string(a::family_title(p.family));
    d["tree_group"] = std::string(p.tree_group);
    d["part_of_parent"] = p.part_of_parent;
    d["source"] = std::string(p.source);
    d["meaning"] = std::string(p.meaning);
    d["fix"] = std::string(p.fix);
    rows.append(d);
  }
  return rows;
}

py::tuple eager_tuple(const a::EagerLimit &e) {
  return py::make_tuple(e.intra_node, e.inter_node, e.source);
}

} // namespace

void register_patterns(py::module_ &m) {
  m.def("finding_layout", &finding_layout);
  m.def("finding_size", [] { return sizeof(a::Finding); });
  m.def("pattern_table", &pattern_table);
  m.def("select_patterns", [](const std::vector<std::string> &names) {
    const auto set = a::select_patterns(names);
    std::vector<int> ids;
    for (std::size_t i = 0; i < set.size(); ++i) {
      if (set.test(i)) {
        ids.push_back(static_cast<int>(i));
      }
    }
    return ids;
  });
  m.def("eager_limit_preset",
        [](const std::string &name) { return eager_tuple(a::eager_limit_preset(name)); });
  m.def("eager_limit_preset_names", &a::eager_limit_preset_names);
  m.def("eager_limit_from_machine", [](const parjava::machine::Machine &machine) {
    return eager_tuple(a::eager_limit_from_machine(machine));
  });
  m.def("seconds_to_ns", &a::seconds_to_ns, py::arg("seconds"), py::arg("parameter"));

  py::enum_<a::PgasOptions::Sync>(m, "PgasSync")
      .value("all", a::PgasOptions::Sync::All)
      .value("my", a::PgasOptions::Sync::My)
      .value("no", a::PgasOptions::Sync::No);
  py::enum_<a::PgasOptions::Completion>(m, "PgasCompletion")
      .value("literal", a::PgasOptions::Completion::Literal)
      .value("from_first_exit", a::PgasOptions::Completion::FromFirstExit);
  py::enum_<a::PgasOptions::GatherRoot>(m, "PgasGatherRoot")
      .value("late", a::PgasOptions::GatherRoot::Late)
      .value("early", a::PgasOptions::GatherRoot::Early);
  py::enum_<a::PgasOptions::Alone>(m, "PgasAlone")
      .value("root", a::PgasOptions::Alone::Root)
      .value("every", a::PgasOptions::Alone::Every);

  py::class_<a::ScanOptions>(m, "ScanOptions")
      .def(py::init<>())
      .def_readwrite("eps", &a::ScanOptions::eps)
      .def_readwrite("send_recv_delta", &a::ScanOptions::send_recv_delta)
      .def_readwrite("wrong_order_window", &a::ScanOptions::wrong_order_window)
      .def("set_eager_limit",
           [](a::ScanOptions &o, std::uint64_t intra, std::uint64_t inter, std::string source) {
             o.eager_limit = {intra, inter, std::move(source)};
           })
      .def("set_patterns",
           [](a::ScanOptions &o, const std::vector<std::string> &names) {
             o.patterns = a::select_patterns(names);
           })
      .def("set_machine",
           [](a::ScanOptions &o, const parjava::machine::Machine *machine) {
             o.machine = machine != nullptr
                             ? std::make_shared<const parjava::machine::Machine>(*machine)
                             : nullptr;
           })
      .def_property(
          "pgas_entry", [](const a::ScanOptions &o) { return o.pgas.entry; },
          [](a::ScanOptions &o, a::PgasOptions::Sync v) { o.pgas.entry = v; })
      .def_property(
          "pgas_exit", [](const a::ScanOptions &o) { return o.pgas.exit; },
          [](a::ScanOptions &o, a::PgasOptions::Sync v) { o.pgas.exit = v; })
      .def_property(
          "pgas_completion", [](const a::ScanOptions &o) { return o.pgas.completion; },
          [](a::ScanOptions &o, a::PgasOptions::Completion v) { o.pgas.completion = v; })
      .def_property(
          "pgas_gather_root", [](const a::ScanOptions &o) { return o.pgas.gather_root; },
          [](a::ScanOptions &o, a::PgasOptions::GatherRoot v) { o.pgas.gather_root = v; })
      .def_property(
          "pgas_prefix_clamp", [](const a::ScanOptions &o) { return o.pgas.prefix_clamp; },
          [](a::ScanOptions &o, bool v) { o.pgas.prefix_clamp = v; })
      .def_property(
          "pgas_alone", [](const a::ScanOptions &o) { return o.pgas.alone; },
          [](a::ScanOptions &o, a::PgasOptions::Alone v) { o.pgas.alone = v; })
      .def_property(
          "pgas_allocation_root", [](const a::ScanOptions &o) { return o.pgas.allocation_root; },
          [](a::ScanOptions &o, std::int32_t v) { o.pgas.allocation_root = v; })
      .def_property(
          "pgas_include_mpi",
          [](const a::ScanOptions &o) { return o.pgas.include_mpi_collectives; },
          [](a::ScanOptions &o, bool v) { o.pgas.include_mpi_collectives = v; });

  py::class_<a::ScanResult, ResultPtr>(m, "ScanResult", "Findings of one scan (use parjava.scan)")
      .def("__len__", [](const a::ScanResult &r) { return r.findings.size(); })
      .def_readonly("events_scanned", &a::ScanResult::events_scanned)
      .def_readonly("seconds", &a::ScanResult::seconds)
      .def_readonly("notes", &a::ScanResult::notes)
      .def_property_readonly(
          "eager_limit", [](const a::ScanResult &r) { return eager_tuple(r.options.eager_limit); })
      // The rows as bytes (itemsize finding_size()); Python views them with the dtype built
      // from finding_layout(). The array keeps this result alive.
      .def_property_readonly("rows",
                             [](const py::object &self) {
                               const auto &r = self.cast<const a::ScanResult &>();
                               const auto n = r.findings.size() * sizeof(a::Finding);
                               py::array_t<std::uint8_t> view(
                                   {n}, {1},
                                   reinterpret_cast<const std::uint8_t *>(r.findings.data()), self);
                               view.attr("setflags")(py::arg("write") = false);
                               return view;
                             })
      .def(
          "diagnoses",
          [](const a::ScanResult &r, std::optional<std::vector<std::size_t>> rows) {
            if (!rows) {
              return a::diagnose_all(r.findings, *r.trace);
            }
            // Only these rows (a parallel scan keeps those of its own locations).
            std::vector<a::Finding> chosen;
            chosen.reserve(rows->size());
            for (const auto i : *rows) {
              chosen.push_back(r.findings.at(i));
            }
            return a::diagnose_all(chosen, *r.trace);
          },
          py::arg("rows") = py::none())
      .def(
          "callsite_texts",
          [](const a::ScanResult &r, std::optional<std::vector<std::size_t>> rows) {
            std::vector<std::string> out;
            const auto n = rows ? rows->size() : r.findings.size();
            out.reserve(n);
            for (std::size_t k = 0; k < n; ++k) {
              out.push_back(a::callsite_text(r.findings.at(rows ? (*rows)[k] : k), *r.trace));
            }
            return out;
          },
          py::arg("rows") = py::none());

  // Texts of rows held outside a ScanResult (a parallel scan's gathered rows, bytes of
  // finding_size() each, indices into `trace`'s tables), formatted when Python asks.
  m.def(
      "finding_texts",
      [](const parjava::trace::Trace &trace, const py::array_t<std::uint8_t> &rows,
         const std::vector<std::size_t> &which, bool callsites) {
        const auto n = static_cast<std::size_t>(rows.size()) / sizeof(a::Finding);
        if (static_cast<std::size_t>(rows.size()) != n * sizeof(a::Finding)) {
          throw parjava::Error(parjava::ErrorKind::Usage,
                               "finding rows: " + std::to_string(rows.size()) +
                                   " bytes is not a whole number of " +
                                   std::to_string(sizeof(a::Finding)) + "-byte rows");
        }
        std::vector<std::string> out;
        out.reserve(which.size());
        for (const auto i : which) {
          if (i >= n) {
            throw parjava::Error(parjava::ErrorKind::Usage,
                                 "finding row " + std::to_string(i) + " of " + std::to_string(n));
          }
          a::Finding f{};
          std::memcpy(&f, rows.data() + i * sizeof(a::Finding), sizeof(a::Finding));
          out.push_back(callsites ? a::callsite_text(f, trace) : a::diagnose(f, trace));
        }
        return out;
      },
      py::arg("trace"), py::arg("rows"), py::arg("which"), py::arg("callsites") = false);

  m.def(
      "scan",
      [](const std::shared_ptr<parjava::trace::Trace> &trace, const a::ScanOptions &options) {
        return std::make_shared<a::ScanResult>(
            a::scan(std::shared_ptr<const parjava::trace::Trace>(trace), options));
      },
      py::arg("trace"), py::arg("options"), py::call_guard<py::gil_scoped_release>());
}
