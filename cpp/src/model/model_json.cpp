// JSON reader and writer of the program model (docs/model-schema.md).
#include "parjava/model/model_json.hpp"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unordered_map>

#include "parjava/error.hpp"

namespace parjava::model {

namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

constexpr std::string_view kFormat = "parjava-model";

// Reads one JSON object field by field, remembering which fields were used so that unknown
// ones are reported; every message carries `where` ("node 12 (cb)", "function 'main'", ...).
class FieldReader {
public:
  FieldReader(const Json &object, std::string where) : object_(object), where_(std::move(where)) {
    if (!object_.is_object()) {
      fail("", "must be a JSON object");
    }
  }

  [[noreturn]] void fail(std::string_view field, const std::string &what) const {
    throw Error(ErrorKind::Model,
                where_ + (field.empty() ? "" : ", field '" + std::string(field) + "'") + ": " +
                    what);
  }

  const Json *get(std::string_view field) {
    used_.insert(std::string(field));
    const auto it = object_.find(std::string(field));
    if (it == object_.end() || it->is_null()) {
      return nullptr;
    }
    return &*it;
  }

  const Json &require(std::string_view field) {
    const Json *v = get(field);
    if (v == nullptr) {
      fail(field, "is required");
    }
    return *v;
  }

  std::string string(std::string_view field, const std::string &fallback = "") {
    const Json *v = get(field);
    if (v == nullptr) {
      return fallback;
    }
    if (!v->is_string()) {
      fail(field, "must be a string");
    }
    return v->get<std::string>();
  }

  std::string required_string(std::string_view field) {
    require(field);
    return string(field);
  }

  std::int64_t integer(std::string_view field, std::int64_t fallback) {
    const Json *v = get(field);
    if (v == nullptr) {
      return fallback;
    }
    if (!v->is_number_integer()) {
      fail(field, "must be an integer");
    }
    return v->get<std::int64_t>();
  }

  double number(std::string_view field, double fallback) {
    const Json *v = get(field);
    if (v == nullptr) {
      return fallback;
    }
    if (!v->is_number()) {
      fail(field, "must be a number");
    }
    return v->get<double>();
  }

  bool boolean(std::string_view field, bool fallback) {
    const Json *v = get(field);
    if (v == nullptr) {
      return fallback;
    }
    if (!v->is_boolean()) {
      fail(field, "must be true or false");
    }
    return v->get<bool>();
  }

  // Report the first field that was never read.
  void finish() const {
    for (const auto &[key, value] : object_.items()) {
      if (!used_.contains(key)) {
        fail(key, "unknown field (check the spelling against docs/model-schema.md)");
      }
    }
  }

  [[nodiscard]] const std::string &where() const { return where_; }

private:
  const Json &object_;
  std::string where_;
  std::set<std::string> used_;
};

// An expression written as a string or a number.
Expression read_expression(const Json &v, const FieldReader &r, const std::string &field) {
  std::string where = r.where() + ", field '" + field + "'";
  if (v.is_string()) {
    return Expression::parse(v.get<std::string>(), where);
  }
  if (v.is_number_integer()) {
    return Expression::constant(v.get<std::int64_t>());
  }
  if (v.is_number()) {
    return Expression::constant(v.get<double>());
  }
  if (v.is_boolean()) {
    return Expression::constant(static_cast<std::int64_t>(v.get<bool>() ? 1 : 0));
  }
  r.fail(field, "must be an expression (a string such as \"N/size\" or a number)");
}

Expression optional_expression(FieldReader &r, std::string_view field) {
  const Json *v = r.get(field);
  return v == nullptr ? Expression{} : read_expression(*v, r, std::string(field));
}

TimeSpec read_time(FieldReader &r, std::string_view field) {
  const Json *v = r.get(field);
  if (v == nullptr) {
    return {};
  }
  if (v->is_number()) {
    return TimeSpec::constant(v->get<double>());
  }
  if (v->is_string()) {
    return TimeSpec::expression(read_expression(*v, r, std::string(field)));
  }
  if (v->is_object()) {
    FieldReader m(*v, r.where() + ", field '" + std::string(field) + "'");
    const double mean = m.number("mean", NAN);
    if (std::isnan(mean)) {
      m.fail("mean", "is required for a measured time");
    }
    const double sigma = m.number("sigma", 0.0);
    const std::int64_t samples = m.integer("samples", 1);
    if (samples < 1) {
      m.fail("samples", "must be >= 1");
    }
    m.finish();
    return TimeSpec::measured(mean, sigma, static_cast<std::uint64_t>(samples));
  }
  r.fail(field, "must be seconds (a number), an expression (a string) or "
                "{\"mean\", \"sigma\", \"samples\"}");
}

std::vector<Assignment> read_assignments(FieldReader &r, std::string_view field) {
  std::vector<Assignment> out;
  const Json *v = r.get(field);
  if (v == nullptr) {
    return out;
  }
  if (!v->is_array()) {
    r.fail(field, "must be a list of [variable, expression] pairs");
  }
  for (const auto &pair : *v) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string()) {
      r.fail(field, "must be a list of [variable, expression] pairs");
    }
    out.push_back({pair[0].get<std::string>(), read_expression(pair[1], r, std::string(field))});
  }
  return out;
}

SourceRange read_source(FieldReader &r) {
  SourceRange s;
  const Json *v = r.get("source");
  if (v == nullptr) {
    return s;
  }
  FieldReader sr(*v, r.where() + ", field 'source'");
  s.file = static_cast<std::int32_t>(sr.integer("file", -1));
  const auto u32 = [&](std::string_view f) {
    const std::int64_t x = sr.integer(f, 0);
    if (x < 0) {
      sr.fail(f, "must be >= 0");
    }
    return static_cast<std::uint32_t>(x);
  };
  s.line = u32("line");
  s.column = u32("column");
  s.end_line = u32("end_line");
  s.end_column = u32("end_column");
  sr.finish();
  return s;
}

std::vector<VariableRef> read_refs(FieldReader &r, std::string_view field) {
  std::vector<VariableRef> out;
  const Json *v = r.get(field);
  if (v == nullptr) {
    return out;
  }
  if (!v->is_array()) {
    r.fail(field, "must be a list of [name, defining node id or null]");
  }
  for (const auto &e : *v) {
    if (e.is_string()) {
      out.push_back({e.get<std::string>(), kNoId});
    } else if (e.is_array() && e.size() == 2 && e[0].is_string() &&
               (e[1].is_null() || e[1].is_number_unsigned())) {
      out.push_back({e[0].get<std::string>(), e[1].is_null() ? kNoId : e[1].get<NodeId>()});
    } else {
      r.fail(field, "must be a list of [name, defining node id or null]");
    }
  }
  return out;
}

Opaque read_opaque(FieldReader &r) {
  Opaque o;
  const Json *v = r.get("opaque");
  if (v == nullptr) {
    return o;
  }
  FieldReader orr(*v, r.where() + ", field 'opaque'");
  const Json *p = orr.get("probability");
  const Json *t = orr.get("trips");
  if ((p != nullptr) == (t != nullptr)) {
    orr.fail("", "give exactly one of 'probability' or 'trips'");
  }
  if (p != nullptr) {
    o.kind = Opaque::Kind::Probability;
    o.probability = orr.number("probability", 0.0);
  } else {
    o.kind = Opaque::Kind::Trips;
    o.trips_mean = orr.number("trips", 0.0);
    if (const Json *d = orr.get("distribution")) {
      if (!d->is_array()) {
        orr.fail("distribution", "must be a list of [trip count, frequency]");
      }
      for (const auto &e : *d) {
        if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer() || !e[1].is_number()) {
          orr.fail("distribution", "must be a list of [trip count, frequency]");
        }
        o.distribution.emplace_back(e[0].get<std::int64_t>(), e[1].get<double>());
      }
    }
  }
  const std::int64_t samples = orr.integer("samples", 0);
  if (samples < 0) {
    orr.fail("samples", "must be >= 0");
  }
  o.samples = static_cast<std::uint64_t>(samples);
  orr.finish();
  return o;
}

std::optional<NodeKind> kind_by_name(std::string_view name) {
  for (int k = 0; k <= static_cast<int>(NodeKind::Continue); ++k) {
    if (node_kind_name(static_cast<NodeKind>(k)) == name) {
      return static_cast<NodeKind>(k);
    }
  }
  return std::nullopt;
}

struct PendingChildren {
  NodeIndex node;
  std::vector<NodeId> ids;
};

void read_operation(FieldReader &r, Node &node) {
  const std::string op_name = r.required_string("op");
  const std::optional<Operation> op = operation_by_name(op_name);
  if (!op) {
    r.fail("op", "unknown operation '" + op_name +
                     "' (see docs/model-schema.md for the list: MPI_Send ... pgas_get)");
  }
  node.op = *op;
  if (node.label.empty()) {
    node.label = op_name;
  }
  const Json *args = r.get("args");
  if (args == nullptr) {
    return;
  }
  if (!args->is_object()) {
    r.fail("args", "must be an object of argument name -> value");
  }
  for (const auto &[key, value] : args->items()) {
    const ArgSpec *spec = operation_arg(node.op, key);
    OperationArg a;
    a.name = key;
    if (spec == nullptr) {
      r.fail("args." + key, op_name + " takes no argument '" + std::string(key) + "'");
    }
    a.kind = spec->kind;
    if (spec->kind == ArgKind::Expr) {
      a.expr = read_expression(value, r, "args." + key);
    } else {
      if (!value.is_string()) {
        r.fail("args." + key, "must be a name (a string)");
      }
      a.text = value.get<std::string>();
    }
    node.op_args.push_back(std::move(a));
  }
}

void read_node(const Json &j, Model &m, std::vector<PendingChildren> &pending,
               std::unordered_map<NodeIndex, std::vector<NodeId>> &unused) {
  (void)unused;
  Node node;
  std::string where = "node ?";
  if (j.is_object()) {
    const auto it = j.find("id");
    if (it != j.end() && it->is_number_unsigned()) {
      where = "node " + std::to_string(it->get<NodeId>());
    }
  }
  FieldReader r(j, where);
  const Json &id = r.require("id");
  if (!id.is_number_unsigned() || id.get<std::uint64_t>() >= kNoId) {
    r.fail("id", "must be an integer >= 0");
  }
  node.id = id.get<NodeId>();
  const std::string kind = r.required_string("kind");
  const std::optional<NodeKind> k = kind_by_name(kind);
  if (!k) {
    r.fail("kind", "unknown kind '" + kind +
                       "' (seq, if, if-else, switch, for, while, do-while, task_group, cb, ufc, "
                       "efc, cfc, ret, rb, break, continue)");
  }
  node.kind = *k;
  FieldReader nr(j, where + " (" + kind + ")");
  nr.get("id");
  nr.get("kind");
  node.source = read_source(nr);
  node.label = nr.string("label");
  node.inputs = read_refs(nr, "inputs");
  node.outputs = read_refs(nr, "outputs");
  node.controls = read_refs(nr, "controls");
  node.simple = nr.boolean("simple", false);
  std::vector<NodeId> children;
  if (const Json *c = nr.get("children")) {
    if (!c->is_array()) {
      nr.fail("children", "must be a list of node ids");
    }
    for (const auto &e : *c) {
      if (!e.is_number_unsigned()) {
        nr.fail("children", "must be a list of node ids");
      }
      children.push_back(e.get<NodeId>());
    }
  }
  if (is_leaf(node.kind) && !children.empty()) {
    nr.fail("children", "a " + kind + " block is a leaf and has no children");
  }
  switch (node.kind) {
  case NodeKind::Sequence:
    break;
  case NodeKind::If:
  case NodeKind::IfElse:
  case NodeKind::While:
  case NodeKind::DoWhile:
    node.cond = optional_expression(nr, "cond");
    node.opaque = read_opaque(nr);
    node.cond_time = read_time(nr, "cond_time");
    break;
  case NodeKind::For:
    node.init = read_assignments(nr, "init");
    node.cond = optional_expression(nr, "cond");
    node.update = read_assignments(nr, "update");
    node.opaque = read_opaque(nr);
    node.cond_time = read_time(nr, "cond_time");
    break;
  case NodeKind::Switch: {
    node.value = optional_expression(nr, "value");
    node.cond_time = read_time(nr, "cond_time");
    const Json &cases = nr.require("cases");
    if (!cases.is_array()) {
      nr.fail("cases", "must be a list of {labels | default, weight}");
    }
    bool all_weighted = true;
    for (const auto &c : cases) {
      FieldReader cr(c, nr.where() + ", a case");
      SwitchCase sc;
      sc.is_default = cr.boolean("default", false);
      if (const Json *labels = cr.get("labels")) {
        if (!labels->is_array()) {
          cr.fail("labels", "must be a list of integers");
        }
        for (const auto &l : *labels) {
          if (!l.is_number_integer()) {
            cr.fail("labels", "must be a list of integers");
          }
          sc.labels.push_back(l.get<std::int64_t>());
        }
      }
      const Json *w = cr.get("weight");
      all_weighted = all_weighted && w != nullptr;
      sc.weight = cr.number("weight", 0.0);
      cr.finish();
      node.cases.push_back(std::move(sc));
    }
    if (node.value.empty() && all_weighted) {
      node.opaque.kind = Opaque::Kind::Weights;
      node.opaque.samples = static_cast<std::uint64_t>(nr.integer("samples", 0));
    } else {
      nr.get("samples");
    }
    break;
  }
  case NodeKind::TaskGroup:
    node.tasks = optional_expression(nr, "tasks");
    break;
  case NodeKind::Compute:
  case NodeKind::Reduced:
    node.time = read_time(nr, "time");
    node.assign = read_assignments(nr, "assign");
    if (node.kind == NodeKind::Reduced) {
      const std::int64_t replaces = nr.integer("replaces", -1);
      node.replaces = replaces < 0 ? kNoId : static_cast<NodeId>(replaces);
    }
    break;
  case NodeKind::ExternalCall:
    node.callee = nr.required_string("callee");
    node.time = read_time(nr, "time");
    node.assign = read_assignments(nr, "assign");
    break;
  case NodeKind::UserCall: {
    node.callee = nr.required_string("callee");
    if (const Json *args = nr.get("args")) {
      if (!args->is_array()) {
        nr.fail("args", "must be a list of expressions");
      }
      for (const auto &a : *args) {
        node.args.push_back(read_expression(a, nr, "args"));
      }
    }
    node.context = static_cast<std::int32_t>(nr.integer("context", -1));
    break;
  }
  case NodeKind::Communication:
    read_operation(nr, node);
    node.time = read_time(nr, "time");
    break;
  case NodeKind::Return:
    break;
  case NodeKind::Break:
  case NodeKind::Continue: {
    const Json &t = nr.require("target");
    if (!t.is_number_unsigned()) {
      nr.fail("target", "must be a node id");
    }
    node.target = t.get<NodeId>();
    break;
  }
  }
  nr.finish();
  const NodeIndex index = m.add(std::move(node));
  if (!children.empty()) {
    pending.push_back({index, std::move(children)});
  }
}

Value read_parameter_value(const Json &v, const std::string &name) {
  if (v.is_number_integer()) {
    return Value::of_int(v.get<std::int64_t>());
  }
  if (v.is_number()) {
    return Value::of_float(v.get<double>());
  }
  throw Error(ErrorKind::Model, "parameter '" + name + "': value must be a number");
}

std::string line_column(std::string_view text, std::size_t byte) {
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// ---- writing ----

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

OrderedJson opaque_json(const Opaque &o) {
  OrderedJson out;
  if (o.kind == Opaque::Kind::Probability) {
    out["probability"] = o.probability;
  } else {
    out["trips"] = o.trips_mean;
    if (!o.distribution.empty()) {
      OrderedJson d = OrderedJson::array();
      for (const auto &[count, freq] : o.distribution) {
        d.push_back(OrderedJson::array({count, freq}));
      }
      out["distribution"] = d;
    }
  }
  if (o.samples != 0) {
    out["samples"] = o.samples;
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
    put_time("cond_time", n.cond_time);
    break;
  }
  case NodeKind::TaskGroup:
    if (!n.tasks.empty()) {
      o["tasks"] = expr_json(n.tasks);
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
      args[a.name] = a.kind == ArgKind::Expr ? a.expr.text() : a.text;
    }
    o["args"] = args;
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

namespace {
Model read_model(std::string_view text, std::string_view origin);
} // namespace

// Every error names the file: those found below a node say which node and field, so the
// origin is put in front of them here.
Model model_from_json(std::string_view text, std::string_view origin) {
  try {
    return read_model(text, origin);
  } catch (const Error &e) {
    const std::string_view what = e.what();
    if (what.substr(0, origin.size()) == origin) {
      throw;
    }
    throw Error(e.kind(), std::string(origin) + ": " + std::string(what));
  } catch (const Json::exception &e) {
    throw Error(ErrorKind::Model, std::string(origin) + ": " + e.what());
  }
}

namespace {

Model read_model(std::string_view text, std::string_view origin) {
  Json doc;
  try {
    doc = Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error &e) {
    throw Error(ErrorKind::Model, std::string(origin) + ": not valid JSON at " +
                                      line_column(text, e.byte) + " (" + e.what() + ")");
  } catch (const Json::exception &e) { // a number a double cannot hold (1e309)
    throw Error(ErrorKind::Model, std::string(origin) + ": not valid JSON (" + e.what() + ")");
  }
  FieldReader top(doc, std::string(origin));
  const std::string format = top.string("format");
  if (format != kFormat) {
    top.fail("format", "must be \"parjava-model\" (is this a parjava model file?)");
  }
  const std::int64_t version = top.integer("version", -1);
  if (version != kModelSchemaVersion) {
    top.fail("version", "schema version " + std::to_string(version) +
                            " is not supported (this parjava reads version " +
                            std::to_string(kModelSchemaVersion) + ")");
  }
  Model m;
  m.name = top.string("name", "model");
  m.entry = top.string("entry", "main");
  if (const Json *files = top.get("files")) {
    if (!files->is_array()) {
      top.fail("files", "must be a list of file names");
    }
    for (const auto &f : *files) {
      if (!f.is_string()) {
        top.fail("files", "must be a list of file names");
      }
      m.files.push_back(f.get<std::string>());
    }
  }
  if (const Json *params = top.get("parameters")) {
    if (!params->is_object()) {
      top.fail("parameters", "must be an object of name -> value or {value, doc}");
    }
    for (const auto &[name, value] : params->items()) {
      Parameter p;
      p.name = name;
      if (value.is_object()) {
        FieldReader pr(value, std::string(origin) + ", parameter '" + name + "'");
        p.value = read_parameter_value(pr.require("value"), name);
        p.doc = pr.string("doc");
        pr.finish();
      } else {
        p.value = read_parameter_value(value, name);
      }
      m.parameters.push_back(std::move(p));
    }
  }
  if (const Json *globals = top.get("globals")) {
    if (!globals->is_array()) {
      top.fail("globals", "must be a list of {name, init}");
    }
    for (const auto &g : *globals) {
      FieldReader gr(g, std::string(origin) + ", a global");
      GlobalVariable gv;
      gv.name = gr.required_string("name");
      gv.init = read_expression(gr.require("init"), gr, "init");
      gr.finish();
      m.globals.push_back(std::move(gv));
    }
  }
  std::vector<PendingChildren> pending;
  std::unordered_map<NodeIndex, std::vector<NodeId>> unused;
  const Json &nodes = top.require("nodes");
  if (!nodes.is_array()) {
    top.fail("nodes", "must be a list of nodes");
  }
  for (const auto &j : nodes) {
    read_node(j, m, pending, unused);
  }
  std::unordered_map<NodeId, NodeIndex> index;
  for (NodeIndex i = 0; i < m.nodes.size(); ++i) {
    if (!index.emplace(m.nodes[i].id, i).second) {
      throw Error(ErrorKind::Model,
                  std::string(origin) + ": duplicate node id " + std::to_string(m.nodes[i].id));
    }
  }
  const auto resolve = [&](NodeId id, const std::string &where) {
    const auto it = index.find(id);
    if (it == index.end()) {
      throw Error(ErrorKind::Model, where + ": node " + std::to_string(id) + " does not exist");
    }
    return it->second;
  };
  for (auto &p : pending) {
    for (NodeId c : p.ids) {
      m.nodes[p.node].children.push_back(
          resolve(c, "node " + std::to_string(m.nodes[p.node].id) + ", field 'children'"));
    }
  }
  const Json &functions = top.require("functions");
  if (!functions.is_array()) {
    top.fail("functions", "must be a list of functions");
  }
  for (const auto &fj : functions) {
    std::string where = std::string(origin) + ", function";
    if (fj.is_object() && fj.contains("name") && fj["name"].is_string()) {
      where += " '" + fj["name"].get<std::string>() + "'";
    }
    FieldReader fr(fj, where);
    Function f;
    f.name = fr.required_string("name");
    if (const Json *params = fr.get("params")) {
      if (!params->is_array()) {
        fr.fail("params", "must be a list of names");
      }
      for (const auto &p : *params) {
        if (!p.is_string()) {
          fr.fail("params", "must be a list of names");
        }
        f.params.push_back(p.get<std::string>());
      }
    }
    const Json &body = fr.require("body");
    if (!body.is_number_unsigned()) {
      fr.fail("body", "must be a node id");
    }
    f.body = resolve(body.get<NodeId>(), where + ", field 'body'");
    f.source = read_source(fr);
    if (const Json *contexts = fr.get("contexts")) {
      if (!contexts->is_array()) {
        fr.fail("contexts", "must be a list of {number, args}");
      }
      for (const auto &cj : *contexts) {
        FieldReader cr(cj, where + ", a calling context");
        CallingContext c;
        c.number = static_cast<std::int32_t>(cr.integer("number", 0));
        const Json &args = cr.require("args");
        if (!args.is_array()) {
          cr.fail("args", "must be a list of expressions");
        }
        for (const auto &a : args) {
          c.args.push_back(read_expression(a, cr, "args"));
        }
        if (c.args.size() != f.params.size()) {
          cr.fail("args", "has " + std::to_string(c.args.size()) + " values for " +
                              std::to_string(f.params.size()) + " parameters");
        }
        cr.finish();
        f.contexts.push_back(std::move(c));
      }
    }
    fr.finish();
    m.functions.push_back(std::move(f));
  }
  top.finish();
  m.validate();
  return m;
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
    if (p.doc.empty()) {
      params[p.name] = value;
    } else {
      params[p.name] = {{"value", value}, {"doc", p.doc}};
    }
  }
  doc["parameters"] = params;
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
  OrderedJson nodes = OrderedJson::array();
  for (const auto &n : m.nodes) {
    nodes.push_back(node_json(m, n));
  }
  doc["nodes"] = nodes;
  return doc.dump(indent);
}

Model load_model(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorKind::Model, path + ": cannot open the model file");
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return model_from_json(buffer.str(), path);
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
