// parjava._core: the machine description (cpp/include/parjava/machine/). Thin: conversions
// only; the Python face (units, reprs, tables, netbench launching) is python/parjava/machine.py.
#include <pybind11/numpy.h>
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "parjava/machine/fabric.hpp"
#include "parjava/machine/fit.hpp"
#include "parjava/machine/machine_json.hpp"
#include "parjava/machine/predictor_par.hpp"
#include "parjava/machine/presets.hpp"
#include "parjava/machine/units.hpp"

namespace py = pybind11;
using namespace parjava::machine;

namespace {

std::vector<TablePoint> to_points(const std::vector<std::pair<std::uint64_t, double>> &pairs) {
  std::vector<TablePoint> points;
  points.reserve(pairs.size());
  for (const auto &[bytes, seconds] : pairs) {
    points.push_back({bytes, seconds});
  }
  return points;
}

py::dict fit_error_dict(const FitError &error) {
  py::dict out;
  out["rms_relative"] = error.rms_relative;
  out["max_relative"] = error.max_relative;
  out["worst_bytes"] = error.worst_bytes;
  out["points"] = error.points;
  return out;
}

// p2p_time over a scalar or any array of sizes, without a Python loop.
template <typename Time> py::object times(const py::object &bytes, Time time) {
  if (py::isinstance<py::int_>(bytes)) {
    const auto n = bytes.cast<std::int64_t>();
    if (n < 0) {
      throw py::value_error("a message size must be >= 0 bytes");
    }
    return py::float_(time(static_cast<std::uint64_t>(n)));
  }
  const auto sizes = py::array_t<std::int64_t, py::array::forcecast>::ensure(bytes);
  if (!sizes) {
    throw py::type_error("bytes must be an int or an array of ints");
  }
  py::array_t<double> result(sizes.request().shape);
  const auto in = sizes.unchecked();
  auto *out = result.mutable_data();
  const std::int64_t *data = sizes.data();
  for (py::ssize_t i = 0; i < in.size(); ++i) {
    if (data[i] < 0) {
      throw py::value_error("a message size must be >= 0 bytes");
    }
    out[i] = time(static_cast<std::uint64_t>(data[i]));
  }
  return result;
}

} // namespace

void register_machine(py::module_ &m) {
  py::enum_<Dimension>(m, "Dimension")
      .value("Time", Dimension::Time)
      .value("Size", Dimension::Size)
      .value("Bandwidth", Dimension::Bandwidth)
      .value("TimePerByte", Dimension::TimePerByte)
      .value("Ratio", Dimension::Ratio);
  m.def("parse_quantity", &parse_quantity, py::arg("text"), py::arg("dimension"), py::arg("field"));
  m.def("format_time", &format_time);
  m.def("format_bandwidth", &format_bandwidth);
  m.def("format_size", &format_size);
  m.attr("unlimited_eager") = unlimited_eager;

  py::class_<Network>(m, "Network")
      .def_static(
          "hockney",
          [](double latency, double bandwidth, std::uint64_t eager_limit) {
            return Network::hockney({latency, bandwidth, eager_limit}, "network");
          },
          py::arg("latency"), py::arg("bandwidth"), py::arg("eager_limit"))
      .def_static(
          "loggp",
          [](double L, double o, double g, double G, double O, std::uint64_t S) {
            return Network::loggp({L, o, g, G, O, S}, "network");
          },
          py::arg("L"), py::arg("o"), py::arg("g"), py::arg("G"), py::arg("O"), py::arg("S"))
      .def_static(
          "table",
          [](const std::vector<std::pair<std::uint64_t, double>> &points,
             std::uint64_t eager_limit) {
            return Network::table({to_points(points), eager_limit}, "network");
          },
          py::arg("points"), py::arg("eager_limit"))
      .def_property_readonly("kind", [](const Network &n) { return network_kind_name(n.kind()); })
      .def_property_readonly("eager_limit", &Network::eager_limit)
      .def_property_readonly("parameters",
                             [](const Network &n) {
                               py::dict out;
                               if (const auto *h = n.as_hockney()) {
                                 out["latency"] = h->latency;
                                 out["bandwidth"] = h->bandwidth;
                                 out["eager_limit"] = h->eager_limit;
                               } else if (const auto *p = n.as_loggp()) {
                                 out["L"] = p->L;
                                 out["o"] = p->o;
                                 out["g"] = p->g;
                                 out["G"] = p->G;
                                 out["O"] = p->O;
                                 out["S"] = p->S;
                               } else {
                                 out["eager_limit"] = n.as_table()->eager_limit;
                               }
                               return out;
                             })
      .def_property_readonly("points",
                             [](const Network &n) {
                               std::vector<std::pair<std::uint64_t, double>> out;
                               if (const auto *t = n.as_table()) {
                                 out.reserve(t->points.size());
                                 for (const TablePoint &p : t->points) {
                                   out.emplace_back(p.bytes, p.seconds);
                                 }
                               }
                               return out;
                             })
      .def(
          "p2p_time",
          [](const Network &n, const py::object &bytes) {
            return times(bytes, [&](std::uint64_t b) { return n.p2p_time(b); });
          },
          py::arg("bytes"))
      .def("describe", &Network::describe)
      .def(py::self == py::self);

  py::class_<ThreadCosts>(m, "ThreadCosts")
      .def(py::init<>())
      .def_property_readonly_static("field_names",
                                    [](const py::object &) {
                                      return std::vector<std::string>(
                                          ThreadCosts::field_names.begin(),
                                          ThreadCosts::field_names.end());
                                    })
      .def("get", &ThreadCosts::get)
      .def("set", &ThreadCosts::set)
      .def("validate", &ThreadCosts::validate, py::arg("field") = "threads")
      .def(py::self == py::self);

  py::class_<Machine>(m, "Machine")
      .def(py::init([](std::string name, int nodes, int cores_per_node, int ranks_per_node,
                       const Network &intra_node, const std::optional<Network> &inter_node,
                       const ThreadCosts &threads, double power) {
             return Machine(std::move(name), {nodes, cores_per_node, ranks_per_node}, intra_node,
                            inter_node, threads, power);
           }),
           py::arg("name"), py::arg("nodes"), py::arg("cores_per_node"), py::arg("ranks_per_node"),
           py::arg("intra_node"), py::arg("inter_node"), py::arg("threads"), py::arg("power"))
      .def_property("name", &Machine::name, &Machine::set_name)
      .def_property("description", &Machine::description, &Machine::set_description)
      .def_property("sources", &Machine::sources, &Machine::set_sources)
      .def_property_readonly("nodes", &Machine::nodes)
      .def_property_readonly("cores_per_node", &Machine::cores_per_node)
      .def_property_readonly("ranks_per_node", &Machine::ranks_per_node)
      .def_property_readonly("max_ranks", &Machine::max_ranks)
      .def_property_readonly("power", &Machine::power)
      .def_property_readonly("threads", &Machine::threads)
      .def_property_readonly("intra_node", &Machine::intra_node)
      .def_property_readonly("inter_node",
                             [](const Machine &machine) -> std::optional<Network> {
                               if (!machine.has_inter_node()) {
                                 return std::nullopt;
                               }
                               return machine.inter_node();
                             })
      .def_property_readonly(
          "has_measurement",
          [](const Machine &machine) { return machine.measurement().has_value(); })
      .def("node_of", &Machine::node_of, py::arg("rank"))
      .def("same_node", &Machine::same_node, py::arg("rank_a"), py::arg("rank_b"))
      .def("eager_limit", &Machine::eager_limit, py::arg("intra_node"))
      .def(
          "p2p_time",
          [](const Machine &machine, const py::object &bytes, bool intra_node) {
            const Network &network = machine.network(intra_node);
            return times(bytes, [&](std::uint64_t b) { return network.p2p_time(b); });
          },
          py::arg("bytes"), py::arg("intra_node"))
      .def("p2p_time_between", &Machine::p2p_time_between, py::arg("bytes"), py::arg("rank_a"),
           py::arg("rank_b"))
      .def("scale_compute_time", &Machine::scale_compute_time)
      .def("with_layout",
           [](const Machine &machine, int nodes, int cores_per_node, int ranks_per_node) {
             return machine.with_layout({nodes, cores_per_node, ranks_per_node});
           })
      .def("with_networks", &Machine::with_networks)
      .def("with_threads", &Machine::with_threads)
      .def("with_power", &Machine::with_power)
      .def_property_readonly(
          "topology_json",
          [](const Machine &machine) { return topology_to_json(machine.topology()); })
      .def_property_readonly("topology_description",
                             [](const Machine &machine) { return machine.topology().describe(); })
      .def("with_topology_json",
           [](const Machine &machine, const std::string &text) {
             return machine.with_topology(topology_from_json(text, "topology"));
           })
      .def_property_readonly(
          "placement_json",
          [](const Machine &machine) { return placement_to_json(machine.placement()); })
      .def("with_placement_json",
           [](const Machine &machine, const std::string &text) {
             return machine.with_placement(placement_from_json(text, "placement"));
           })
      .def("with_placement_file",
           [](const Machine &machine, const std::string &path) {
             return machine.with_placement(read_placement(path, machine.node_names()));
           })
      .def_property_readonly("endpoint_contention", &Machine::endpoint_contention)
      .def("with_endpoint_contention", &Machine::with_endpoint_contention)
      .def_property_readonly("node_names", &Machine::node_names)
      .def("with_node_names",
           [](const Machine &machine, std::vector<std::string> names) {
             Machine copy = machine;
             copy.set_node_names(std::move(names));
             return copy;
           })
      .def("to_json", &machine_to_json, py::arg("indent") = 2)
      .def_static("from_json", &machine_from_json, py::arg("text"), py::arg("origin") = "<string>")
      .def_static("load", &load_machine, py::arg("path"))
      .def("save",
           [](const Machine &machine, const std::string &path) { save_machine(machine, path); })
      .def_static("preset", &preset, py::arg("name"))
      .def_static("preset_names", &preset_names)
      .def_static("from_predictor_par_text", &machine_from_predictor_par, py::arg("text"),
                  py::arg("origin") = "<string>")
      .def_static("from_predictor_par", &read_predictor_par, py::arg("path"))
      .def(py::self == py::self);

  m.def(
      "topology_route",
      [](const std::string &topology_json, std::int64_t nodes, double default_bandwidth,
         std::int32_t a, std::int32_t b, std::uint64_t salt) {
        const Fabric fabric(topology_from_json(topology_json, "topology"), nodes,
                            default_bandwidth);
        if (a < 0 || b < 0 || a >= nodes || b >= nodes || a == b) {
          throw py::value_error("route endpoints must be two different nodes in [0, " +
                                std::to_string(nodes) + ")");
        }
        std::vector<std::uint32_t> links;
        fabric.route(a, b, salt, links);
        py::list out;
        for (const std::uint32_t l : links) {
          out.append(py::make_tuple(fabric.link_name(l), fabric.bandwidth(l), fabric.latency(l)));
        }
        return out;
      },
      py::arg("topology_json"), py::arg("nodes"), py::arg("default_bandwidth"), py::arg("a"),
      py::arg("b"), py::arg("salt") = 0);
  m.def(
      "topology_normalize",
      [](const std::string &text) {
        return topology_to_json(topology_from_json(text, "topology"));
      },
      py::arg("text"));
  m.def(
      "topology_describe",
      [](const std::string &text) { return topology_from_json(text, "topology").describe(); },
      py::arg("text"));
  m.def("parse_piecewise_factor", [](const std::string &text) {
    std::vector<std::pair<std::uint64_t, double>> out;
    for (const auto &point : parse_piecewise_factor(text, "factor").points) {
      out.push_back(point);
    }
    return out;
  });
  m.def(
      "fit_hockney",
      [](const std::vector<std::pair<std::uint64_t, double>> &points, std::uint64_t eager_limit) {
        const HockneyFit fit = fit_hockney(to_points(points), eager_limit);
        py::dict out;
        out["latency"] = fit.parameters.latency;
        out["bandwidth"] = fit.parameters.bandwidth;
        out["eager_limit"] = fit.parameters.eager_limit;
        out["constrained"] = fit.constrained;
        out["error"] = fit_error_dict(fit.error);
        return out;
      },
      py::arg("points"), py::arg("eager_limit") = 0);
  m.def(
      "fit_loggp",
      [](const std::vector<std::pair<std::uint64_t, double>> &one_way,
         const std::vector<std::pair<std::uint64_t, double>> &send_overhead, double gap,
         std::uint64_t eager_limit) {
        const std::vector<TablePoint> table = to_points(one_way);
        const std::vector<TablePoint> overhead = to_points(send_overhead);
        const LogGPFit fit = fit_loggp({table, overhead, gap, eager_limit});
        py::dict out;
        out["L"] = fit.parameters.L;
        out["o"] = fit.parameters.o;
        out["g"] = fit.parameters.g;
        out["G"] = fit.parameters.G;
        out["O"] = fit.parameters.O;
        out["S"] = fit.parameters.S;
        out["constrained"] = fit.constrained;
        out["error"] = fit_error_dict(fit.error);
        return out;
      },
      py::arg("one_way"), py::arg("send_overhead"), py::arg("gap"), py::arg("eager_limit"));
  m.def(
      "detect_eager_limit",
      [](const std::vector<std::pair<std::uint64_t, double>> &points, double relative_noise) {
        const EagerLimitDetection found = detect_eager_limit(to_points(points), relative_noise);
        py::dict out;
        out["detected"] = found.detected;
        out["last_eager_bytes"] = found.last_eager_bytes;
        out["first_rendezvous_bytes"] = found.first_rendezvous_bytes;
        out["jump_seconds"] = found.jump_seconds;
        out["jump_relative"] = found.jump_relative;
        return out;
      },
      py::arg("points"), py::arg("relative_noise") = 0.0);
}
