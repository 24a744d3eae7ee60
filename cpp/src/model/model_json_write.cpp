// JSON writer of the program model (docs/model-schema.md): fields in a stable order, optional
// fields only when set, so that a model written and read back is written the same.
#include <fstream>
#include <nlohmann/json.hpp>

#include "parjava/error.hpp"
#include "parjava/model/model_json.hpp"

namespace parjava::model {

namespace {

using OrderedJson = nlohmann::ordered_json;

constexpr std::string_view kFormat = "parjava-model";

OrderedJson expr_json(const Expression &e) { return e.text(); }

OrderedJson time_json(const TimeSpec &t) {
  switch (t.kind) {
  case TimeSpec::Kind::Constant:
    return t.seconds;
  case TimeSpec::Kind::Expression:
    return t.expr.text();
  case TimeSpec::Kind::Measured: {
    OrderedJson o;
    o["mean"] = t.seconds;
    o["sigma"] = t.sigma;
    o["samples"] = t.samples;
    return o;
  }
  case TimeSpec::Kind::None:
    break;
  }
  return nullptr;
}

OrderedJson assignments_json(const std::vector<Assignment> &as) {
  OrderedJson out = OrderedJson::array();
  for (const auto &a : as) {
    out.push_back(OrderedJson::array({a.variable, a.value.text()}));
  }
  return out;
}

OrderedJson refs_json(const std::vector<VariableRef> &refs) {
  OrderedJson out = OrderedJson::array();
  for (const auto &r : refs) {
    out.push_back(OrderedJson::array(
        {r.name, r.definition == kNoId ? OrderedJson(nullptr) : OrderedJson(r.definition)}));
  }
  return out;
}

OrderedJson source_json(const SourceRange &s) {
  OrderedJson o;
  if (s.file >= 0) {
    o["file"] = s.file;
  }
  o["line"] = s.line;
  if (s.column != 0) {
    o["column"] = s.column;
  }
  if (s.end_line != 0) {
    o["end_line"] = s.end_line;
  }
  if (s.end_column != 0) {
    o["end_column"] = s.end_column;
  }
  return o;
}

OrderedJson distribution_json(const std::vector<std::pair<std::int64_t, double>> &dist) {
  OrderedJson d = OrderedJson::array();
  for (const auto &[count, freq] : dist) {
    d.push_back(OrderedJson::array({count, freq}));
  }
  return d;
}

OrderedJson by_rank_json(const Opaque &o) {
  OrderedJson out = OrderedJson::array();
  for (const auto &e : o.by_rank) {
    OrderedJson j = OrderedJson::object();
    if (e.samples != 0) {
      if (o.kind == Opaque::Kind::Probability) {
        j["probability"] = e.probability;
      } else if (o.kind == Opaque::Kind::Trips) {
        j["trips"] = e.trips_mean;
        if (!e.distribution.empty()) {
          j["distribution"] = distribution_json(e.distribution);
        }
      } else {
        j["weights"] = e.weights;
      }
    }
    j["samples"] = e.samples;
    out.push_back(j);
  }
  return out;
}

OrderedJson opaque_json(const Opaque &o) {
  OrderedJson out;
  if (o.kind == Opaque::Kind::Probability) {
    out["probability"] = o.probability;
  } else {
    out["trips"] = o.trips_mean;
    if (!o.distribution.empty()) {
      out["distribution"] = distribution_json(o.distribution);
    }
  }
  if (o.samples != 0) {
    out["samples"] = o.samples;
  }
  if (!o.by_rank.empty()) {
    out["by_rank"] = by_rank_json(o);
  }
  return out;
}

OrderedJson node_json(const Model &m, const Node &n) {
  OrderedJson o;
  o["id"] = n.id;
  o["kind"] = std::string(node_kind_name(n.kind));
  if (!n.label.empty()) {
    o["label"] = n.label;
  }
  if (n.source.line != 0 || n.source.file >= 0) {
    o["source"] = source_json(n.source);
  }
  const auto put_time = [&](const char *field, const TimeSpec &t) {
    if (t.given()) {
      o[field] = time_json(t);
    }
  };
  switch (n.kind) {
  case NodeKind::If:
  case NodeKind::IfElse:
  case NodeKind::While:
  case NodeKind::DoWhile:
  case NodeKind::For:
    if (!n.init.empty()) {
      o["init"] = assignments_json(n.init);
    }
    if (!n.cond.empty()) {
      o["cond"] = expr_json(n.cond);
    }
    if (!n.update.empty()) {
      o["update"] = assignments_json(n.update);
    }
    if (n.opaque.kind != Opaque::Kind::None) {
      o["opaque"] = opaque_json(n.opaque);
    }
    if (!n.trips_by_rank.empty()) {
      o["trips_by_rank"] = n.trips_by_rank;
    }
    if (!n.taken_by_rank.empty()) {
      o["taken_by_rank"] = n.taken_by_rank;
    }
    if (!n.trips_cycle.empty()) {
      o["trips_cycle"] = n.trips_cycle;
    }
    if (n.trips_cap >= 0) {
      o["trips_cap"] = n.trips_cap;
    }
    if (!n.taken_cycle.empty()) {
      o["taken_cycle"] = n.taken_cycle;
    }
    put_time("cond_time", n.cond_time);
    break;
  case NodeKind::Switch: {
    if (!n.value.empty()) {
      o["value"] = expr_json(n.value);
    }
    OrderedJson cases = OrderedJson::array();
    for (const auto &c : n.cases) {
      OrderedJson cj;
      if (c.is_default) {
        cj["default"] = true;
      }
      if (!c.labels.empty()) {
        cj["labels"] = c.labels;
      }
      if (n.opaque.kind == Opaque::Kind::Weights) {
        cj["weight"] = c.weight;
      }
      cases.push_back(cj);
    }
    o["cases"] = cases;
    if (n.opaque.kind == Opaque::Kind::Weights && n.opaque.samples != 0) {
      o["samples"] = n.opaque.samples;
    }
    if (n.opaque.kind == Opaque::Kind::Weights && !n.opaque.by_rank.empty()) {
      o["by_rank"] = by_rank_json(n.opaque);
    }
    put_time("cond_time", n.cond_time);
    break;
  }
  case NodeKind::TaskGroup:
    if (!n.tasks.empty()) {
      o["tasks"] = expr_json(n.tasks);
    }
    if (n.team) {
      o["team"] = true;
    }
    if (n.fork_timed) {
      o["fork_timed"] = true;
    }
    break;
  case NodeKind::Compute:
  case NodeKind::Reduced:
  case NodeKind::ExternalCall:
    if (n.kind == NodeKind::ExternalCall) {
      o["callee"] = n.callee;
    }
    put_time("time", n.time);
    if (!n.assign.empty()) {
      o["assign"] = assignments_json(n.assign);
    }
    if (n.kind == NodeKind::Reduced && n.replaces != kNoId) {
      o["replaces"] = n.replaces;
    }
    break;
  case NodeKind::UserCall: {
    o["callee"] = n.callee;
    if (n.context >= 0) {
      o["context"] = n.context;
    } else {
      OrderedJson args = OrderedJson::array();
      for (const auto &a : n.args) {
        args.push_back(a.text());
      }
      o["args"] = args;
    }
    break;
  }
  case NodeKind::Communication: {
    o["op"] = std::string(operation_info(n.op).name);
    if (o.contains("label") && o["label"] == o["op"]) {
      o.erase("label");
    }
    OrderedJson args = OrderedJson::object();
    for (const auto &a : n.op_args) {
      if (a.kind == ArgKind::Expr && !a.by_rank.empty()) {
        args[a.name] = {{"expr", a.expr.text()}, {"by_rank", a.by_rank}};
      } else {
        args[a.name] = a.kind == ArgKind::Expr ? a.expr.text()
                       : a.kind == ArgKind::Comm && !a.expr.empty()
                           ? a.text + "[" + a.expr.text() + "]"
                           : a.text;
      }
    }
    o["args"] = args;
    if (!n.approximate.empty()) {
      o["approximate"] = n.approximate;
    }
    put_time("time", n.time);
    break;
  }
  case NodeKind::Break:
  case NodeKind::Continue:
    o["target"] = n.target;
    break;
  case NodeKind::Sequence:
  case NodeKind::Return:
    break;
  }
  if (!n.children.empty()) {
    OrderedJson children = OrderedJson::array();
    for (NodeIndex c : n.children) {
      children.push_back(m.nodes[c].id);
    }
    o["children"] = children;
  }
  if (!n.inputs.empty()) {
    o["inputs"] = refs_json(n.inputs);
  }
  if (!n.outputs.empty()) {
    o["outputs"] = refs_json(n.outputs);
  }
  if (!n.controls.empty()) {
    o["controls"] = refs_json(n.controls);
  }
  if (n.simple) {
    o["simple"] = true;
  }
  return o;
}

} // namespace

std::string model_to_json(const Model &m, int indent) {
  OrderedJson doc;
  doc["format"] = std::string(kFormat);
  doc["version"] = kModelSchemaVersion;
  doc["name"] = m.name;
  doc["entry"] = m.entry;
  doc["files"] = m.files;
  OrderedJson params = OrderedJson::object();
  for (const auto &p : m.parameters) {
    OrderedJson value = p.value.type == ValueType::Int ? OrderedJson(p.value.as_int())
                                                       : OrderedJson(p.value.as_float());
    const bool described = !p.options.empty() || p.program_default || !p.source.empty() ||
                           !p.origin.empty() || !p.aliases.empty();
    if (p.doc.empty() && !described) {
      params[p.name] = value;
      continue;
    }
    OrderedJson entry = {{"value", value}};
    if (!p.doc.empty()) {
      entry["doc"] = p.doc;
    }
    if (!p.options.empty()) {
      entry["options"] = p.options;
      if (p.position > 1) {
        entry["position"] = p.position;
      }
    }
    if (p.program_default) {
      entry["default"] = p.program_default->type == ValueType::Int
                             ? OrderedJson(p.program_default->as_int())
                             : OrderedJson(p.program_default->as_float());
    }
    if (p.flag) {
      entry["flag"] = p.flag->type == ValueType::Int ? OrderedJson(p.flag->as_int())
                                                     : OrderedJson(p.flag->as_float());
    }
    if (!p.choices.empty()) {
      OrderedJson choices = OrderedJson::object();
      for (const auto &[word, v] : p.choices) {
        choices[word] =
            v.type == ValueType::Int ? OrderedJson(v.as_int()) : OrderedJson(v.as_float());
      }
      entry["choices"] = std::move(choices);
    }
    if (!p.source.empty()) {
      entry["source"] = p.source;
    }
    if (!p.origin.empty()) {
      entry["origin"] = p.origin;
    }
    if (!p.aliases.empty()) {
      entry["aliases"] = p.aliases;
    }
    if (!p.measured_through.empty()) {
      entry["measured_through"] = p.measured_through;
    }
    if (!p.preprocessor_tests.empty()) {
      entry["preprocessor_tests"] = p.preprocessor_tests;
    }
    params[p.name] = std::move(entry);
  }
  doc["parameters"] = params;
  if (!m.self_check.empty()) {
    doc["self_check"] = OrderedJson::parse(m.self_check);
  }
  if (!m.globals.empty()) {
    OrderedJson globals = OrderedJson::array();
    for (const auto &g : m.globals) {
      globals.push_back({{"name", g.name}, {"init", g.init.text()}});
    }
    doc["globals"] = globals;
  }
  OrderedJson functions = OrderedJson::array();
  for (const auto &f : m.functions) {
    OrderedJson fj;
    fj["name"] = f.name;
    fj["params"] = f.params;
    fj["body"] = m.nodes[f.body].id;
    if (f.source.line != 0) {
      fj["source"] = source_json(f.source);
    }
    if (!f.contexts.empty()) {
      OrderedJson cs = OrderedJson::array();
      for (const auto &c : f.contexts) {
        OrderedJson args = OrderedJson::array();
        for (const auto &a : c.args) {
          args.push_back(a.text());
        }
        cs.push_back({{"number", c.number}, {"args", args}});
      }
      fj["contexts"] = cs;
    }
    functions.push_back(fj);
  }
  doc["functions"] = functions;
  if (!m.rewritten_bounds.empty()) {
    OrderedJson bounds = OrderedJson::array();
    for (const auto &b : m.rewritten_bounds) {
      OrderedJson o;
      o["node"] = b.node;
      o["label"] = b.label;
      o["data"] = b.data;
      o["source"] = source_json(b.source);
      o["written"] = source_json(b.written);
      o["enclosing"] = source_json(b.enclosing);
      if (b.executions > 0) {
        o["measured"] = {
            {"executions", b.executions}, {"min", b.min}, {"max", b.max}, {"drift", b.drift}};
      }
      bounds.push_back(std::move(o));
    }
    doc["rewritten_bounds"] = std::move(bounds);
  }
  for (const auto &[key, list] : {std::pair{"unscaled_nests", &m.unscaled_nests},
                                  std::pair{"scaled_nests", &m.scaled_nests}}) {
    if (list->empty()) {
      continue;
    }
    OrderedJson nests = OrderedJson::array();
    for (const auto &n : *list) {
      OrderedJson o;
      o["node"] = n.node;
      o["seconds"] = n.seconds;
      o["working_set"] = n.working_set;
      o["holds_to"] = n.holds_to;
      nests.push_back(std::move(o));
    }
    doc[key] = std::move(nests);
  }
  if (!m.field_communicators.empty()) {
    doc["field_communicators"] = m.field_communicators;
  }
  OrderedJson nodes = OrderedJson::array();
  for (const auto &n : m.nodes) {
    nodes.push_back(node_json(m, n));
  }
  doc["nodes"] = nodes;
  return doc.dump(indent);
}
void save_model(const Model &model, const std::string &path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    throw Error(ErrorKind::Usage, path + ": cannot write the model file");
  }
  out << model_to_json(model, 1) << "\n";
  if (!out) {
    throw Error(ErrorKind::Usage, path + ": writing the model failed");
  }
}

} // namespace parjava::model
