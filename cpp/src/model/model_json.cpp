// JSON reader of the program model (docs/model-schema.md); the writer is model_json_write.cpp.
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

  std::vector<std::string> strings(std::string_view field) {
    std::vector<std::string> out;
    const Json *v = get(field);
    if (v == nullptr) {
      return out;
    }
    if (!v->is_array()) {
      fail(field, "must be a list of strings");
    }
    for (const auto &item : *v) {
      if (!item.is_string()) {
        fail(field, "must be a list of strings");
      }
      out.push_back(item.get<std::string>());
    }
    return out;
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

std::vector<std::int64_t> read_cycle(const Json &values, FieldReader &r, const std::string &field) {
  if (!values.is_array() || values.empty()) {
    r.fail(field, "must be a non-empty list of integer values");
  }
  std::vector<std::int64_t> out;
  out.reserve(values.size());
  for (const auto &x : values) {
    if (!x.is_number_integer()) {
      r.fail(field, "must be a non-empty list of integer values");
    }
    out.push_back(x.get<std::int64_t>());
  }
  return out;
}

// Node::trips_cap: absent is -1 (no cap).
std::int64_t read_trips_cap(FieldReader &r) {
  const std::int64_t cap = r.integer("trips_cap", -1);
  if (r.get("trips_cap") != nullptr && cap < 0) {
    r.fail("trips_cap", "must be an iteration count >= 0");
  }
  return cap;
}

SourceRange read_source(FieldReader &r, std::string_view field = "source") {
  SourceRange s;
  const Json *v = r.get(field);
  if (v == nullptr) {
    return s;
  }
  FieldReader sr(*v, r.where() + ", field '" + std::string(field) + "'");
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

std::vector<std::pair<std::int64_t, double>> read_distribution(FieldReader &r) {
  std::vector<std::pair<std::int64_t, double>> out;
  if (const Json *d = r.get("distribution")) {
    if (!d->is_array()) {
      r.fail("distribution", "must be a list of [trip count, frequency]");
    }
    for (const auto &e : *d) {
      if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer() || !e[1].is_number()) {
        r.fail("distribution", "must be a list of [trip count, frequency]");
      }
      out.emplace_back(e[0].get<std::int64_t>(), e[1].get<double>());
    }
  }
  return out;
}

std::uint64_t read_samples(FieldReader &r) {
  const std::int64_t samples = r.integer("samples", 0);
  if (samples < 0) {
    r.fail("samples", "must be >= 0");
  }
  return static_cast<std::uint64_t>(samples);
}

// A list of integer sequences, one per rank of an estimation run (measured arguments and
// measured trip counts).
std::vector<std::vector<std::int64_t>> read_sequences(const Json &ranks, FieldReader &r,
                                                      const std::string &field) {
  const auto bad = [&] {
    r.fail(field, "must be a list with one list of integer values per rank");
  };
  if (!ranks.is_array()) {
    bad();
  }
  std::vector<std::vector<std::int64_t>> out;
  for (const auto &values : ranks) {
    if (!values.is_array()) {
      bad();
    }
    std::vector<std::int64_t> seq;
    seq.reserve(values.size());
    for (const auto &x : values) {
      if (!x.is_number_integer()) {
        bad();
      }
      seq.push_back(x.get<std::int64_t>());
    }
    out.push_back(std::move(seq));
  }
  return out;
}

// `by_rank` of an opaque object (or of an opaque switch node): one entry per rank of the
// estimation run with the fields of `kind` (docs/model-schema.md "Per-rank statistics").
std::vector<OpaqueRankStats> read_by_rank(FieldReader &r, Opaque::Kind kind) {
  std::vector<OpaqueRankStats> out;
  const Json *v = r.get("by_rank");
  if (v == nullptr) {
    return out;
  }
  if (!v->is_array()) {
    r.fail("by_rank", "must be a list with one object per rank of the estimation run");
  }
  for (std::size_t i = 0; i < v->size(); ++i) {
    FieldReader er((*v)[i], r.where() + ", field 'by_rank[" + std::to_string(i) + "]'");
    OpaqueRankStats e;
    e.samples = read_samples(er);
    if (kind == Opaque::Kind::Probability) {
      e.probability = er.number("probability", 0.0);
    } else if (kind == Opaque::Kind::Trips) {
      e.trips_mean = er.number("trips", 0.0);
      e.distribution = read_distribution(er);
    } else {
      if (const Json *w = er.get("weights")) {
        if (!w->is_array()) {
          er.fail("weights", "must be a list of case weights in case order");
        }
        for (const auto &x : *w) {
          if (!x.is_number()) {
            er.fail("weights", "must be a list of case weights in case order");
          }
          e.weights.push_back(x.get<double>());
        }
      }
    }
    er.finish();
    out.push_back(std::move(e));
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
    o.distribution = read_distribution(orr);
  }
  o.samples = read_samples(orr);
  o.by_rank = read_by_rank(orr, o.kind);
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
  node.approximate = r.string("approximate");
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
    if (spec->kind == ArgKind::Expr && value.is_object()) {
      // A measured argument: {"expr": fallback, "by_rank": [[values of rank 0], ...]}.
      FieldReader ar(value, r.where() + ", field 'args." + key + "'");
      a.expr = read_expression(ar.require("expr"), ar, "expr");
      a.by_rank = read_sequences(ar.require("by_rank"), ar, "by_rank");
      ar.finish();
    } else if (spec->kind == ArgKind::Expr) {
      a.expr = read_expression(value, r, "args." + key);
    } else {
      if (!value.is_string()) {
        r.fail("args." + key, "must be a name (a string)");
      }
      a.text = value.get<std::string>();
      // An element of a communicator array: "comms[level + 1]".
      const std::size_t open = a.text.find('[');
      if (spec->kind == ArgKind::Comm && open != std::string::npos) {
        if (a.text.back() != ']' || open == 0) {
          r.fail("args." + key, "'" + a.text + "' is neither a name nor name[index]");
        }
        const std::string index = a.text.substr(open + 1, a.text.size() - open - 2);
        a.expr = read_expression(Json(index), r, "args." + key);
        a.text.resize(open);
      }
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
    if (const Json *t = nr.get("trips_by_rank");
        t != nullptr && node.kind != NodeKind::If && node.kind != NodeKind::IfElse) {
      node.trips_by_rank = read_sequences(*t, nr, "trips_by_rank");
    }
    if (const Json *t = nr.get("taken_by_rank");
        t != nullptr && (node.kind == NodeKind::If || node.kind == NodeKind::IfElse)) {
      node.taken_by_rank = read_sequences(*t, nr, "taken_by_rank");
    }
    if (const Json *t = nr.get("trips_cycle");
        t != nullptr && node.kind != NodeKind::If && node.kind != NodeKind::IfElse) {
      node.trips_cycle = read_cycle(*t, nr, "trips_cycle");
    }
    if (node.kind == NodeKind::While) {
      node.trips_cap = read_trips_cap(nr);
    }
    if (const Json *t = nr.get("taken_cycle");
        t != nullptr && (node.kind == NodeKind::If || node.kind == NodeKind::IfElse)) {
      node.taken_cycle = read_cycle(*t, nr, "taken_cycle");
    }
    node.cond_time = read_time(nr, "cond_time");
    break;
  case NodeKind::For:
    node.init = read_assignments(nr, "init");
    node.cond = optional_expression(nr, "cond");
    node.update = read_assignments(nr, "update");
    node.opaque = read_opaque(nr);
    if (const Json *t = nr.get("trips_by_rank")) {
      node.trips_by_rank = read_sequences(*t, nr, "trips_by_rank");
    }
    if (const Json *t = nr.get("trips_cycle")) {
      node.trips_cycle = read_cycle(*t, nr, "trips_cycle");
    }
    node.trips_cap = read_trips_cap(nr);
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
      node.opaque.samples = read_samples(nr);
      node.opaque.by_rank = read_by_rank(nr, Opaque::Kind::Weights);
    } else {
      nr.get("samples");
      if (nr.get("by_rank") != nullptr) {
        nr.fail("by_rank", "per-rank weights describe an opaque switch (weights, no value)");
      }
    }
    break;
  }
  case NodeKind::TaskGroup:
    node.tasks = optional_expression(nr, "tasks");
    node.team = nr.boolean("team", false);
    node.fork_timed = nr.boolean("fork_timed", false);
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

// "unscaled_nests" / "scaled_nests": measured nests and their working sets.
void read_nests(FieldReader &top, const char *key, std::string_view origin,
                std::vector<NestWorkingSet> &out) {
  const Json *nests = top.get(key);
  if (nests == nullptr) {
    return;
  }
  if (!nests->is_array()) {
    top.fail(key, "must be a list");
  }
  for (const auto &nj : *nests) {
    FieldReader nr(nj, std::string(origin) + ", " + key);
    NestWorkingSet n;
    const std::int64_t node = nr.integer("node", -1);
    if (node < 0) {
      nr.fail("node", "must be a node id");
    }
    n.node = static_cast<NodeId>(node);
    n.seconds = nr.number("seconds", 0.0);
    n.working_set = nr.number("working_set", 0.0);
    n.holds_to = nr.number("holds_to", 0.0);
    if (!(n.seconds >= 0.0) || !(n.working_set >= 0.0) || !(n.holds_to >= 0.0)) {
      nr.fail("", "needs seconds, working_set and holds_to >= 0");
    }
    nr.finish();
    out.push_back(n);
  }
}

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
        p.options = pr.strings("options");
        p.position = static_cast<int>(pr.integer("position", 1));
        if (p.position < 1 || p.position > 64) {
          pr.fail("position", "must be 1..64, the value's place after the option");
        }
        if (const Json *d = pr.get("default")) {
          p.program_default = read_parameter_value(*d, name);
        }
        if (const Json *fl = pr.get("flag")) {
          p.flag = read_parameter_value(*fl, name);
        }
        if (const Json *ch = pr.get("choices")) {
          if (!ch->is_object()) {
            pr.fail("choices", "must be an object of word -> the value it sets");
          }
          for (const auto &[word, v] : ch->items()) {
            p.choices.emplace_back(word, read_parameter_value(v, name));
          }
        }
        p.source = pr.string("source");
        p.origin = pr.string("origin");
        p.aliases = pr.strings("aliases");
        p.measured_through = pr.strings("measured_through");
        p.preprocessor_tests = pr.strings("preprocessor_tests");
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
  if (const Json *check = top.get("self_check")) {
    FieldReader cr(*check, std::string(origin) + ", self_check");
    (void)cr.boolean("passed", true);
    if (cr.integer("np", 1) < 1) {
      cr.fail("np", "must be at least 1");
    }
    for (const char *field : {"measured", "predicted", "coverage", "error"}) {
      (void)cr.number(field, 0.0);
    }
    (void)cr.string("message");
    // What `measured` is: the unmodified program's run, or the estimation runs less their
    // probes' estimated cost (python/parjava/_reference_run.py).
    if (const Json *baseline = cr.get("baseline");
        baseline != nullptr &&
        (!baseline->is_string() || (*baseline != "unmodified" && *baseline != "estimation"))) {
      cr.fail("baseline", "must be \"unmodified\" or \"estimation\"");
    }
    if (const Json *overhead = cr.get("overhead");
        overhead != nullptr && (!overhead->is_number() || overhead->get<double>() <= 0)) {
      cr.fail("overhead", "must be the estimation code's time over the program's, above 0");
    }
    // The |error| that passes: 0.10, or the unmodified program's own run-to-run spread up to
    // 0.25 (python/parjava/_estimation_report.py, SELF_CHECK_NOISY_TOLERANCE).
    if (const Json *tolerance = cr.get("tolerance");
        tolerance != nullptr && (!tolerance->is_number() || tolerance->get<double>() < 0)) {
      cr.fail("tolerance", "must be the relative error that passes, at least 0");
    }
    if (const Json *fragments = cr.get("fragments");
        fragments != nullptr && !fragments->is_array()) {
      cr.fail("fragments", "must be a list");
    }
    if (const Json *executions = cr.get("executions");
        executions != nullptr && !executions->is_object()) {
      cr.fail("executions", "must be an object of node id -> executions per process");
    }
    if (const Json *argv = cr.get("argv"); argv != nullptr && !argv->is_array()) {
      cr.fail("argv", "must be the estimation run's command line, a list of strings");
    }
    if (const Json *timings = cr.get("timings");
        timings != nullptr && (!timings->is_object() || !timings->contains("verdict"))) {
      cr.fail("timings", "must be an object with the estimation runs' 'verdict' and 'line'");
    }
    if (const Json *unmeasured = cr.get("unmeasured");
        unmeasured != nullptr &&
        (!unmeasured->is_array() ||
         !std::all_of(unmeasured->begin(), unmeasured->end(),
                      [](const Json &id) { return id.is_number_integer(); }))) {
      cr.fail("unmeasured", "must be the list of node ids the estimation run never executed");
    }
    cr.finish();
    m.self_check = check->dump();
  }
  if (const Json *bounds = top.get("rewritten_bounds")) {
    if (!bounds->is_array()) {
      top.fail("rewritten_bounds", "must be a list");
    }
    for (const auto &bj : *bounds) {
      FieldReader br(bj, std::string(origin) + ", a rewritten bound");
      RewrittenBound b;
      const std::int64_t node = br.integer("node", -1);
      if (node < 0) {
        br.fail("node", "must be a node id");
      }
      b.node = static_cast<NodeId>(node);
      b.label = br.string("label");
      b.data = br.string("data");
      b.source = read_source(br);
      b.written = read_source(br, "written");
      b.enclosing = read_source(br, "enclosing");
      if (const Json *measured = br.get("measured")) {
        FieldReader mr(*measured, std::string(origin) + ", a rewritten bound's 'measured'");
        b.executions = mr.number("executions", 0.0);
        b.min = mr.number("min", 0.0);
        b.max = mr.number("max", 0.0);
        b.drift = mr.number("drift", 0.0);
        if (b.executions < 0 || b.min > b.max) {
          mr.fail("", "needs executions >= 0 and min <= max");
        }
        mr.finish();
      }
      br.finish();
      m.rewritten_bounds.push_back(std::move(b));
    }
  }
  read_nests(top, "unscaled_nests", origin, m.unscaled_nests);
  read_nests(top, "scaled_nests", origin, m.scaled_nests);
  if (const Json *fields = top.get("field_communicators")) {
    if (!fields->is_array() ||
        !std::all_of(fields->begin(), fields->end(), [](const Json &f) { return f.is_string(); })) {
      top.fail("field_communicators", "must be a list of communicator names");
    }
    for (const auto &f : *fields) {
      m.field_communicators.push_back(f.get<std::string>());
    }
  }
  top.finish();
  m.validate();
  for (const RewrittenBound &b : m.rewritten_bounds) {
    if (!m.has_node(b.node)) {
      throw Error(ErrorKind::Model, std::string(origin) + ", a rewritten bound: node " +
                                        std::to_string(b.node) + " is not in the model");
    }
  }
  for (const auto *nests : {&m.unscaled_nests, &m.scaled_nests}) {
    for (const NestWorkingSet &n : *nests) {
      if (!m.has_node(n.node)) {
        throw Error(ErrorKind::Model, std::string(origin) + ", a measured nest: node " +
                                          std::to_string(n.node) + " is not in the model");
      }
    }
  }
  return m;
}

} // namespace

Model load_model(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorKind::Model, path + ": cannot open the model file");
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return model_from_json(buffer.str(), path);
}

} // namespace parjava::model
