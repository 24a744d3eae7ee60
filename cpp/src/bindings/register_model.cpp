// parjava._core model bindings: the C++ Model seen from Python (thin; the builder and the HTML
// view live in python/parjava/model.py).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "parjava/error.hpp"
#include "parjava/model/expression.hpp"
#include "parjava/model/model_json.hpp"
#include "parjava/model/operation.hpp"
#include "parjava/model/reduction.hpp"

namespace py = pybind11;
using namespace parjava::model;

namespace {

// A time given from Python: seconds (float), an expression (str) or (mean, sigma, samples).
TimeSpec time_from_python(const py::object &t) {
  if (py::isinstance<py::str>(t)) {
    return TimeSpec::expression(Expression::parse(t.cast<std::string>(), "time"));
  }
  if (py::isinstance<py::tuple>(t) || py::isinstance<py::list>(t)) {
    const auto seq = t.cast<std::vector<double>>();
    if (seq.size() != 3) {
      throw parjava::Error(parjava::ErrorKind::Usage,
                           "a measured time is (mean, sigma, samples), got " +
                               std::to_string(seq.size()) + " values");
    }
    return TimeSpec::measured(seq[0], seq[1], static_cast<std::uint64_t>(seq[2]));
  }
  return TimeSpec::constant(t.cast<double>());
}

const char *arg_kind_name(ArgKind k) {
  switch (k) {
  case ArgKind::Expr:
    return "expr";
  case ArgKind::Variable:
    return "variable";
  case ArgKind::Comm:
    return "comm";
  case ArgKind::Request:
    return "request";
  case ArgKind::Lock:
    return "lock";
  case ArgKind::Choice:
    return "choice";
  }
  return "?";
}

} // namespace

void register_model(py::module_ &m) {
  py::class_<Model>(m, "Model", "A validated program model (private: use parjava.Model)")
      .def_static("from_json", &model_from_json, py::arg("text"), py::arg("origin") = "<string>")
      .def_static("load", &load_model, py::arg("path"))
      .def("to_json", &model_to_json, py::arg("indent") = 1)
      .def("save", [](const Model &model, const std::string &path) { save_model(model, path); })
      .def_readonly("name", &Model::name)
      .def_readonly("entry", &Model::entry)
      .def_property_readonly("node_count", [](const Model &model) { return model.nodes.size(); })
      .def("mark_simple", &mark_simple)
      .def("reducibility",
           [](const Model &model, NodeId id) {
             const Reducibility r = reducibility(model, model.index_of(id));
             return py::make_tuple(r.simple, r.reason);
           })
      .def(
          "reduce",
          [](Model &model, NodeId id, const py::object &time,
             const std::vector<std::pair<std::string, std::string>> &assign) {
            std::vector<Assignment> as;
            as.reserve(assign.size());
            for (const auto &[var, expr] : assign) {
              as.push_back({var, Expression::parse(expr, "assign of " + var)});
            }
            reduce(model, id, time_from_python(time), std::move(as));
          },
          py::arg("id"), py::arg("time"),
          py::arg("assign") = std::vector<std::pair<std::string, std::string>>{});

  m.def(
      "check_expression",
      [](const std::string &text) { return Expression::parse(text, "expression").names(); },
      py::arg("text"), "Parse an expression; returns the names it reads (raises ModelError).");

  m.def("model_operations", [] {
    py::list out;
    for (int i = 0; i < static_cast<int>(Operation::Count_); ++i) {
      const OperationInfo &info = operation_info(static_cast<Operation>(i));
      py::list args;
      for (const auto &a : info.args) {
        args.append(py::dict(
            py::arg("name") = std::string(a.name), py::arg("kind") = arg_kind_name(a.kind),
            py::arg("required") = a.required, py::arg("default") = std::string(a.default_text),
            py::arg("doc") = std::string(a.doc)));
      }
      const char *family = info.family == OperationFamily::Mpi      ? "mpi"
                           : info.family == OperationFamily::Thread ? "thread"
                                                                    : "pgas";
      out.append(py::dict(py::arg("name") = std::string(info.name), py::arg("family") = family,
                          py::arg("doc") = std::string(info.doc), py::arg("args") = args));
    }
    return out;
  });
  m.attr("MODEL_SCHEMA_VERSION") = kModelSchemaVersion;
}
