// Model validation: the tree shape, kind-specific fields, name scoping, break/continue targets,
// operation arguments. Every message names the node id, its source line and the field.
#include "parjava/model/model.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "parjava/error.hpp"

namespace parjava::model {

bool is_leaf(NodeKind kind) { return kind >= NodeKind::Compute; }

bool is_loop(NodeKind kind) {
  return kind == NodeKind::For || kind == NodeKind::While || kind == NodeKind::DoWhile;
}

std::string_view node_kind_name(NodeKind kind) {
  switch (kind) {
  case NodeKind::Sequence:
    return "seq";
  case NodeKind::If:
    return "if";
  case NodeKind::IfElse:
    return "if-else";
  case NodeKind::Switch:
    return "switch";
  case NodeKind::For:
    return "for";
  case NodeKind::While:
    return "while";
  case NodeKind::DoWhile:
    return "do-while";
  case NodeKind::TaskGroup:
    return "task_group";
  case NodeKind::Compute:
    return "cb";
  case NodeKind::UserCall:
    return "ufc";
  case NodeKind::ExternalCall:
    return "efc";
  case NodeKind::Communication:
    return "cfc";
  case NodeKind::Return:
    return "ret";
  case NodeKind::Reduced:
    return "rb";
  case NodeKind::Break:
    return "break";
  case NodeKind::Continue:
    return "continue";
  }
  return "?";
}

double TimeSpec::error_bound() const {
  if (kind != Kind::Measured || samples == 0) {
    return 0.0;
  }
  return 3.0 * std::fabs(sigma) / std::sqrt(static_cast<double>(samples));
}

NodeIndex Model::index_of(NodeId id) const {
  const auto it = index_.find(id);
  if (it == index_.end()) {
    throw Error(ErrorKind::Usage, "model '" + name + "' has no node with id " + std::to_string(id));
  }
  return it->second;
}

const Function *Model::function(std::string_view fname) const {
  for (const auto &f : functions) {
    if (f.name == fname) {
      return &f;
    }
  }
  return nullptr;
}

std::size_t Model::function_index(std::string_view fname) const {
  for (std::size_t i = 0; i < functions.size(); ++i) {
    if (functions[i].name == fname) {
      return i;
    }
  }
  return std::string::npos;
}

const Parameter *Model::parameter(std::string_view pname) const {
  for (const auto &p : parameters) {
    if (p.name == pname) {
      return &p;
    }
  }
  return nullptr;
}

NodeId Model::max_id() const {
  NodeId m = 0;
  for (const auto &n : nodes) {
    m = std::max(m, n.id);
  }
  return m;
}

NodeIndex Model::add(Node node) {
  nodes.push_back(std::move(node));
  return static_cast<NodeIndex>(nodes.size() - 1);
}

std::string Model::location(const SourceRange &range) const {
  if (range.line == 0) {
    return "";
  }
  std::string file = range.file >= 0 && static_cast<std::size_t>(range.file) < files.size()
                         ? files[static_cast<std::size_t>(range.file)]
                         : std::string("?");
  return file + ":" + std::to_string(range.line);
}

std::string Model::describe(NodeIndex n) const {
  if (n >= nodes.size()) {
    return "node ?";
  }
  const Node &node = nodes[n];
  std::string out =
      "node " + std::to_string(node.id) + " (" + std::string(node_kind_name(node.kind));
  if (node.kind == NodeKind::Communication) {
    out += " " + std::string(operation_info(node.op).name);
  }
  const std::string where = location(node.source);
  if (!where.empty()) {
    out += ", " + where;
  }
  return out + ")";
}

class ModelValidator {
public:
  explicit ModelValidator(Model &m) : m_(m) {}

  void run() {
    if (m_.functions.empty()) {
      fail_model("has no functions");
    }
    index_nodes();
    link_parents();
    assign_owners();
    collect_locals_and_comms();
    for (NodeIndex n = 0; n < m_.nodes.size(); ++n) {
      check_node(n);
    }
    check_globals();
    if (m_.function(m_.entry) == nullptr) {
      fail_model("entry function '" + m_.entry + "' is not defined");
    }
  }

private:
  [[noreturn]] void fail_model(const std::string &what) const {
    throw Error(ErrorKind::Model, "model '" + m_.name + "': " + what);
  }
  [[noreturn]] void fail(NodeIndex n, std::string_view field, const std::string &what) const {
    throw Error(ErrorKind::Model,
                "model '" + m_.name + "', " + m_.describe(n) +
                    (field.empty() ? "" : ", field '" + std::string(field) + "'") + ": " + what);
  }

  void index_nodes() {
    m_.index_.clear();
    for (NodeIndex i = 0; i < m_.nodes.size(); ++i) {
      const NodeId id = m_.nodes[i].id;
      if (id == kNoId) {
        fail_model("node at position " + std::to_string(i) + " has no id");
      }
      if (!m_.index_.emplace(id, i).second) {
        fail_model("duplicate node id " + std::to_string(id));
      }
    }
  }

  void link_parents() {
    m_.parents_.assign(m_.nodes.size(), kNoNode);
    for (NodeIndex i = 0; i < m_.nodes.size(); ++i) {
      for (NodeIndex c : m_.nodes[i].children) {
        if (c >= m_.nodes.size()) {
          fail(i, "children", "refers to a node that does not exist");
        }
        if (c == i) {
          fail(i, "children", "contains the node itself");
        }
        if (m_.parents_[c] != kNoNode) {
          fail(c, "",
               "is a child of both node " + std::to_string(m_.nodes[m_.parents_[c]].id) +
                   " and node " + std::to_string(m_.nodes[i].id) +
                   " (the control tree must be a tree)");
        }
        m_.parents_[c] = i;
      }
    }
  }

  void assign_owners() {
    m_.owner_.assign(m_.nodes.size(), std::string::npos);
    std::set<std::string> names;
    for (std::size_t f = 0; f < m_.functions.size(); ++f) {
      const Function &fn = m_.functions[f];
      if (!names.insert(fn.name).second) {
        fail_model("function '" + fn.name + "' is defined twice");
      }
      if (fn.body >= m_.nodes.size()) {
        fail_model("function '" + fn.name + "' has no body");
      }
      if (m_.parents_[fn.body] != kNoNode) {
        fail(fn.body, "",
             "is the body of function '" + fn.name + "' and also a child of node " +
                 std::to_string(m_.nodes[m_.parents_[fn.body]].id));
      }
      std::vector<NodeIndex> stack{fn.body};
      while (!stack.empty()) {
        const NodeIndex n = stack.back();
        stack.pop_back();
        if (m_.owner_[n] != std::string::npos) {
          fail(n, "", "belongs to two functions");
        }
        m_.owner_[n] = f;
        for (NodeIndex c : m_.nodes[n].children) {
          stack.push_back(c);
        }
      }
    }
    for (NodeIndex i = 0; i < m_.nodes.size(); ++i) {
      if (m_.owner_[i] == std::string::npos) {
        fail(i, "", "is not reachable from any function body");
      }
    }
  }

  void add_local(std::size_t f, NodeIndex n, std::string_view field, const std::string &name) {
    if (!is_valid_variable_name(name)) {
      fail(n, field, "'" + name + "' is not a valid variable name (or is a builtin)");
    }
    if (m_.parameter(name) != nullptr) {
      fail(n, field,
           "'" + name + "' is a program parameter, which is constant; assign a variable instead");
    }
    if (is_global(name)) {
      return; // assignments to a global update the process's copy
    }
    auto &locals = m_.locals_[f];
    if (std::find(locals.begin(), locals.end(), name) == locals.end()) {
      locals.push_back(name);
    }
  }

  bool is_global(std::string_view name) const {
    return std::any_of(m_.globals.begin(), m_.globals.end(),
                       [&](const GlobalVariable &g) { return g.name == name; });
  }

  void collect_locals_and_comms() {
    m_.locals_.assign(m_.functions.size(), {});
    m_.comms_.clear();
    m_.comm_arrays_.clear();
    for (std::size_t f = 0; f < m_.functions.size(); ++f) {
      for (const auto &p : m_.functions[f].params) {
        add_local(f, m_.functions[f].body, "params", p);
      }
    }
    for (NodeIndex n = 0; n < m_.nodes.size(); ++n) {
      const Node &node = m_.nodes[n];
      const std::size_t f = m_.owner_[n];
      for (const auto &a : node.init) {
        add_local(f, n, "init", a.variable);
      }
      for (const auto &a : node.update) {
        add_local(f, n, "update", a.variable);
      }
      for (const auto &a : node.assign) {
        add_local(f, n, "assign", a.variable);
      }
      if (node.kind == NodeKind::Communication) {
        for (const auto &a : node.op_args) {
          if (a.kind == ArgKind::Variable) {
            add_local(f, n, a.name, a.text);
          } else if (a.kind == ArgKind::Comm && a.name == "newcomm") {
            if (a.text == "world" || a.text == "self" || !is_valid_variable_name(a.text)) {
              fail(n, "newcomm", "'" + a.text + "' cannot name a new communicator");
            }
            if (std::find(m_.comms_.begin(), m_.comms_.end(), a.text) == m_.comms_.end()) {
              m_.comms_.push_back(a.text);
            }
            if (!a.expr.empty()) {
              m_.comm_arrays_.insert(a.text);
            }
          }
        }
      }
    }
  }

  bool resolves(std::size_t f, std::string_view name) const {
    if (is_builtin_name(name) || m_.parameter(name) != nullptr || is_global(name)) {
      return true;
    }
    const auto &locals = m_.locals_[f];
    return std::find(locals.begin(), locals.end(), name) != locals.end();
  }

  void check_expr(NodeIndex n, std::string_view field, const Expression &e, bool allow_peer) {
    for (const auto &name : e.names()) {
      if (name == "peer" && !allow_peer) {
        fail(n, field,
             "'peer' is only defined in the bytes of Gatherv, Scatterv, Allgatherv, Alltoallv "
             "and Reduce_scatter");
      }
      if (!resolves(m_.owner_[n], name)) {
        fail(n, field,
             "unknown name '" + name + "' in \"" + e.text() +
                 "\" (not a program parameter, global, variable of function '" +
                 m_.functions[m_.owner_[n]].name + "' or builtin)");
      }
    }
  }

  void check_time(NodeIndex n, std::string_view field, const TimeSpec &t) {
    switch (t.kind) {
    case TimeSpec::Kind::None:
      break;
    case TimeSpec::Kind::Constant:
      if (!(t.seconds >= 0.0) || !std::isfinite(t.seconds)) {
        fail(n, field, "time must be a finite number of seconds >= 0");
      }
      break;
    case TimeSpec::Kind::Expression:
      check_expr(n, field, t.expr, false);
      break;
    case TimeSpec::Kind::Measured:
      if (!(t.seconds >= 0.0) || !std::isfinite(t.seconds)) {
        fail(n, field, "measured mean must be a finite number of seconds >= 0");
      }
      if (!(t.sigma >= 0.0) || !std::isfinite(t.sigma)) {
        fail(n, field, "measured sigma must be >= 0");
      }
      if (t.samples == 0) {
        fail(n, field, "measured time needs samples >= 1");
      }
      break;
    }
  }

  void check_assignments(NodeIndex n, std::string_view field, const std::vector<Assignment> &as) {
    for (const auto &a : as) {
      check_expr(n, field, a.value, false);
    }
  }

  void check_children(NodeIndex n, std::size_t expected) {
    const Node &node = m_.nodes[n];
    if (node.children.size() != expected) {
      fail(n, "children",
           "a " + std::string(node_kind_name(node.kind)) + " node has " + std::to_string(expected) +
               " child" + (expected == 1 ? "" : "ren") + ", not " +
               std::to_string(node.children.size()));
    }
  }

  void check_opaque(NodeIndex n, bool allow_probability, bool allow_trips) {
    const Node &node = m_.nodes[n];
    const Opaque &o = node.opaque;
    const bool has_cond = !node.cond.empty();
    if (o.kind == Opaque::Kind::None) {
      if (!has_cond && node.kind != NodeKind::For) {
        fail(n, "cond",
             "missing: give an expression or opaque statistics (probability" +
                 std::string(allow_trips ? " or trips" : "") + ")");
      }
      return;
    }
    if (has_cond) {
      fail(n, "cond", "has both an expression and opaque statistics; give one");
    }
    if (o.kind == Opaque::Kind::Probability) {
      if (!allow_probability) {
        fail(n, "opaque",
             "a probability does not describe a " + std::string(node_kind_name(node.kind)) +
                 "; give trips");
      }
      if (!(o.probability >= 0.0 && o.probability <= 1.0)) {
        fail(n, "opaque.probability", "must be within [0, 1]");
      }
      if (is_loop(node.kind) && o.probability >= 1.0) {
        fail(n, "opaque.probability", "a loop that always continues never ends (use < 1)");
      }
    } else if (o.kind == Opaque::Kind::Trips) {
      if (!allow_trips) {
        fail(n, "opaque", "trip counts describe loops only; give a probability");
      }
      if (!(o.trips_mean >= 0.0) || !std::isfinite(o.trips_mean)) {
        fail(n, "opaque.trips", "mean must be a finite number >= 0");
      }
      double total = 0.0;
      for (const auto &[count, freq] : o.distribution) {
        if (count < 0 || !(freq >= 0.0)) {
          fail(n, "opaque.distribution", "counts and frequencies must be >= 0");
        }
        total += freq;
      }
      if (!o.distribution.empty() && !(total > 0.0)) {
        fail(n, "opaque.distribution", "frequencies sum to 0");
      }
    } else {
      fail(n, "opaque", "weights describe switch statements only");
    }
    check_by_rank(n);
  }

  // Per-rank statistics (docs/model-schema.md): the same rules as the pooled ones, for every
  // rank that evaluated the node.
  void check_by_rank(NodeIndex n) {
    const Node &node = m_.nodes[n];
    const Opaque &o = node.opaque;
    for (std::size_t r = 0; r < o.by_rank.size(); ++r) {
      const OpaqueRankStats &e = o.by_rank[r];
      const std::string field = "opaque.by_rank[" + std::to_string(r) + "]";
      if (e.samples == 0) {
        continue;
      }
      if (o.kind == Opaque::Kind::Probability) {
        if (!(e.probability >= 0.0 && e.probability <= 1.0)) {
          fail(n, field + ".probability", "must be within [0, 1]");
        }
        if (is_loop(node.kind) && e.probability >= 1.0) {
          fail(n, field + ".probability",
               "a loop that always continues never ends on rank " + std::to_string(r) +
                   " (use < 1)");
        }
      } else if (o.kind == Opaque::Kind::Trips) {
        if (!(e.trips_mean >= 0.0) || !std::isfinite(e.trips_mean)) {
          fail(n, field + ".trips", "mean must be a finite number >= 0");
        }
        double total = 0.0;
        for (const auto &[count, freq] : e.distribution) {
          if (count < 0 || !(freq >= 0.0)) {
            fail(n, field + ".distribution", "counts and frequencies must be >= 0");
          }
          total += freq;
        }
        if (!e.distribution.empty() && !(total > 0.0)) {
          fail(n, field + ".distribution", "frequencies sum to 0");
        }
      } else if (o.kind == Opaque::Kind::Weights) {
        if (e.weights.size() != node.cases.size()) {
          fail(n, "by_rank[" + std::to_string(r) + "].weights",
               "has " + std::to_string(e.weights.size()) + " weights for " +
                   std::to_string(node.cases.size()) + " cases");
        }
        double total = 0.0;
        for (double w : e.weights) {
          if (!(w >= 0.0)) {
            fail(n, "by_rank[" + std::to_string(r) + "].weights", "must be >= 0");
          }
          total += w;
        }
        if (!(total > 0.0)) {
          fail(n, "by_rank[" + std::to_string(r) + "].weights", "weights sum to 0");
        }
      }
    }
  }

  bool crosses_task_group(NodeIndex from, NodeIndex to) const {
    for (NodeIndex p = m_.parents_[from]; p != kNoNode && p != to; p = m_.parents_[p]) {
      if (m_.nodes[p].kind == NodeKind::TaskGroup) {
        return true;
      }
    }
    return false;
  }

  void check_jump(NodeIndex n) {
    const Node &node = m_.nodes[n];
    const bool is_break = node.kind == NodeKind::Break;
    if (!m_.index_.contains(node.target)) {
      fail(n, "target", "node " + std::to_string(node.target) + " does not exist");
    }
    const NodeIndex target = m_.index_.at(node.target);
    NodeIndex p = m_.parents_[n];
    while (p != kNoNode && p != target) {
      p = m_.parents_[p];
    }
    if (p == kNoNode) {
      fail(n, "target",
           "node " + std::to_string(node.target) + " does not enclose this " +
               (is_break ? "break" : "continue"));
    }
    const NodeKind tk = m_.nodes[target].kind;
    if (!is_break && !is_loop(tk)) {
      // notes 000 §3.2: continue with a switch's own id is "an error in the model"
      fail(n, "target",
           "continue must name an enclosing loop, not a " + std::string(node_kind_name(tk)) +
               " (error in the model)");
    }
    if (tk == NodeKind::TaskGroup) {
      fail(n, "target", "cannot leave a task group with break");
    }
    if (crosses_task_group(n, target)) {
      fail(n, "target", "cannot jump out of a task group");
    }
  }

  void check_operation(NodeIndex n) {
    const Node &node = m_.nodes[n];
    const OperationInfo &info = operation_info(node.op);
    std::set<std::string> seen;
    for (const auto &a : node.op_args) {
      const ArgSpec *spec = operation_arg(node.op, a.name);
      if (spec == nullptr) {
        std::string known;
        for (const auto &s : info.args) {
          known += (known.empty() ? "" : ", ") + std::string(s.name);
        }
        fail(n, "args." + a.name,
             std::string(info.name) + " takes no argument '" + a.name +
                 "' (it takes: " + (known.empty() ? "none" : known) + ")");
      }
      if (!seen.insert(a.name).second) {
        fail(n, "args." + a.name, "given twice");
      }
      if (spec->kind != a.kind) {
        fail(n, "args." + a.name, "has the wrong kind of value");
      }
      if (!a.by_rank.empty() && a.kind != ArgKind::Expr) {
        fail(n, "args." + a.name, "only expression arguments can be measured per rank");
      }
      switch (a.kind) {
      case ArgKind::Expr: {
        const bool peer_ok =
            (a.name == "bytes" &&
             (node.op == Operation::Gatherv || node.op == Operation::Scatterv ||
              node.op == Operation::Allgatherv || node.op == Operation::Alltoallv ||
              node.op == Operation::ReduceScatter)) ||
            (a.name == "rank" && node.op == Operation::GroupIncl);
        check_expr(n, "args." + a.name, a.expr, peer_ok);
        break;
      }
      case ArgKind::Comm: {
        const bool known = a.text == "world" || a.text == "self" ||
                           std::find(m_.comms_.begin(), m_.comms_.end(), a.text) != m_.comms_.end();
        if (a.name != "newcomm" && !known) {
          fail(n, "args." + a.name,
               "communicator '" + a.text +
                   "' is neither world, self nor created by a Comm_split, Comm_dup, "
                   "Comm_create, Group_incl or comm_assign of the model");
        }
        if (!a.expr.empty()) {
          if (a.text == "world" || a.text == "self") {
            fail(n, "args." + a.name, "'" + a.text + "' is not an array of communicators");
          }
          check_expr(n, "args." + a.name, a.expr, false);
        }
        // A name is an array of communicators everywhere or nowhere: the interpreter keeps one
        // slot per element of an array, one slot for a plain name.
        if (a.text != "world" && a.text != "self" &&
            m_.comm_arrays_.contains(a.text) != !a.expr.empty()) {
          fail(n, "args." + a.name,
               "communicator '" + a.text + "' is used " +
                   (a.expr.empty() ? "without an index" : "with an index") +
                   " here and the other way elsewhere in the model");
        }
        break;
      }
      case ArgKind::Choice:
        if (a.name == "sync_in" || a.name == "sync_out") {
          if (std::find(std::begin(kSyncModes), std::end(kSyncModes), a.text) ==
              std::end(kSyncModes)) {
            fail(n, "args." + a.name, "'" + a.text + "' is not one of nosync, mysync, allsync");
          }
        } else if (a.text.empty()) {
          fail(n, "args." + a.name, "is empty");
        }
        break;
      case ArgKind::Request:
      case ArgKind::Lock:
      case ArgKind::Variable:
        if (!is_valid_variable_name(a.text)) {
          fail(n, "args." + a.name, "'" + a.text + "' is not a valid name");
        }
        break;
      }
    }
    for (const auto &s : info.args) {
      if (s.required && !seen.contains(std::string(s.name))) {
        fail(n, "args." + std::string(s.name),
             std::string(info.name) + " needs this argument (" + std::string(s.doc) + ")");
      }
    }
  }

  void check_call(NodeIndex n) {
    const Node &node = m_.nodes[n];
    const Function *callee = m_.function(node.callee);
    if (callee == nullptr) {
      fail(n, "callee",
           "function '" + node.callee + "' is not in the model (an external call is an efc block)");
    }
    for (const auto &a : node.args) {
      check_expr(n, "args", a, false);
    }
    if (node.context >= 0) {
      const bool found =
          std::any_of(callee->contexts.begin(), callee->contexts.end(),
                      [&](const CallingContext &c) { return c.number == node.context; });
      if (!found) {
        fail(n, "context",
             "function '" + node.callee + "' has no calling context " +
                 std::to_string(node.context));
      }
      if (!node.args.empty()) {
        fail(n, "args", "give either args or a calling context, not both");
      }
    } else if (node.args.size() != callee->params.size()) {
      fail(n, "args",
           "function '" + node.callee + "' takes " + std::to_string(callee->params.size()) +
               " parameters, " + std::to_string(node.args.size()) + " given");
    }
  }

  void check_node(NodeIndex n) {
    const Node &node = m_.nodes[n];
    if (!is_leaf(node.kind)) {
      check_time(n, "cond_time", node.cond_time);
      if (!node.cond.empty()) {
        check_expr(n, "cond", node.cond, false);
      }
    } else if (!node.children.empty()) {
      fail(n, "children",
           "a " + std::string(node_kind_name(node.kind)) + " block is a leaf and has no children");
    }
    if (node.source.file >= 0 && static_cast<std::size_t>(node.source.file) >= m_.files.size()) {
      fail(n, "source.file",
           "index " + std::to_string(node.source.file) + " is outside the files list");
    }
    if (!node.trips_by_rank.empty()) {
      if (node.kind != NodeKind::For && node.kind != NodeKind::While &&
          node.kind != NodeKind::DoWhile) {
        fail(n, "trips_by_rank", "only loops have trip counts");
      }
      for (const auto &seq : node.trips_by_rank) {
        if (std::any_of(seq.begin(), seq.end(), [](std::int64_t t) { return t < 0; })) {
          fail(n, "trips_by_rank", "trip counts must be >= 0");
        }
      }
    }
    if (!node.taken_by_rank.empty()) {
      if (node.kind != NodeKind::If && node.kind != NodeKind::IfElse) {
        fail(n, "taken_by_rank", "only if statements have outcomes");
      }
      for (const auto &seq : node.taken_by_rank) {
        if (std::any_of(seq.begin(), seq.end(), [](std::int64_t t) { return t != 0 && t != 1; })) {
          fail(n, "taken_by_rank", "outcomes must be 0 or 1");
        }
      }
    }
    if (!node.trips_cycle.empty()) {
      if (node.kind != NodeKind::For && node.kind != NodeKind::While) {
        fail(n, "trips_cycle", "only for and while loops replay trip counts");
      }
      if (std::any_of(node.trips_cycle.begin(), node.trips_cycle.end(),
                      [](std::int64_t t) { return t < 0; })) {
        fail(n, "trips_cycle", "trip counts must be >= 0");
      }
    }
    if (node.trips_cap >= 0 && node.kind != NodeKind::For && node.kind != NodeKind::While) {
      fail(n, "trips_cap", "only for and while loops are capped");
    }
    if (!node.taken_cycle.empty()) {
      if (node.kind != NodeKind::If && node.kind != NodeKind::IfElse) {
        fail(n, "taken_cycle", "only if statements have outcomes");
      }
      if (std::any_of(node.taken_cycle.begin(), node.taken_cycle.end(),
                      [](std::int64_t t) { return t != 0 && t != 1; })) {
        fail(n, "taken_cycle", "outcomes must be 0 or 1");
      }
    }
    switch (node.kind) {
    case NodeKind::Sequence:
      break;
    case NodeKind::If:
      check_children(n, 1);
      check_opaque(n, true, false);
      break;
    case NodeKind::IfElse:
      check_children(n, 2);
      check_opaque(n, true, false);
      break;
    case NodeKind::While:
    case NodeKind::DoWhile:
      check_children(n, 1);
      check_opaque(n, true, true);
      break;
    case NodeKind::For:
      check_children(n, 1);
      check_opaque(n, false, true);
      check_assignments(n, "init", node.init);
      check_assignments(n, "update", node.update);
      break;
    case NodeKind::Switch: {
      check_children(n, node.cases.size());
      if (node.cases.empty()) {
        fail(n, "cases", "a switch needs at least one case");
      }
      std::set<std::int64_t> labels;
      int defaults = 0;
      for (const auto &c : node.cases) {
        defaults += c.is_default ? 1 : 0;
        if (!c.is_default && c.labels.empty()) {
          fail(n, "cases", "a case without labels must be the default");
        }
        for (auto l : c.labels) {
          if (!labels.insert(l).second) {
            fail(n, "cases", "label " + std::to_string(l) + " appears twice");
          }
        }
      }
      if (defaults > 1) {
        fail(n, "cases", "more than one default case");
      }
      if (node.opaque.kind == Opaque::Kind::Weights) {
        if (!node.value.empty()) {
          fail(n, "value", "has both a selector and opaque weights; give one");
        }
        double total = 0.0;
        for (const auto &c : node.cases) {
          if (!(c.weight >= 0.0)) {
            fail(n, "cases.weight", "must be >= 0");
          }
          total += c.weight;
        }
        if (!(total > 0.0)) {
          fail(n, "cases.weight", "weights sum to 0");
        }
        check_by_rank(n);
      } else if (node.opaque.kind != Opaque::Kind::None) {
        fail(n, "opaque", "a switch takes weights per case");
      } else if (node.value.empty()) {
        fail(n, "value", "missing: give a selector expression or weights per case");
      } else {
        check_expr(n, "value", node.value, false);
      }
      break;
    }
    case NodeKind::TaskGroup:
      check_children(n, 1);
      if (!node.tasks.empty()) {
        check_expr(n, "tasks", node.tasks, false);
      }
      for (NodeIndex p = m_.parents_[n]; p != kNoNode; p = m_.parents_[p]) {
        if (m_.nodes[p].kind == NodeKind::TaskGroup) {
          fail(n, "", "task groups cannot be nested (the thread pool is fixed, notes 000 §2.2)");
        }
      }
      break;
    case NodeKind::Compute:
    case NodeKind::Reduced:
    case NodeKind::ExternalCall:
      check_time(n, "time", node.time);
      check_assignments(n, "assign", node.assign);
      if (node.kind == NodeKind::Reduced && !node.time.given()) {
        fail(n, "time", "a reduced block needs its time");
      }
      break;
    case NodeKind::UserCall:
      check_call(n);
      break;
    case NodeKind::Communication:
      check_time(n, "time", node.time);
      check_operation(n);
      break;
    case NodeKind::Return:
      if (crosses_task_group(n, kNoNode)) {
        fail(n, "", "cannot return from inside a task group");
      }
      break;
    case NodeKind::Break:
    case NodeKind::Continue:
      check_jump(n);
      break;
    }
  }

  void check_globals() {
    std::set<std::string> names;
    for (const auto &p : m_.parameters) {
      if (!is_valid_variable_name(p.name)) {
        fail_model("parameter '" + p.name + "' is not a valid name");
      }
      if (!names.insert(p.name).second) {
        fail_model("parameter '" + p.name + "' is defined twice");
      }
    }
    for (const auto &g : m_.globals) {
      if (!is_valid_variable_name(g.name)) {
        fail_model("global '" + g.name + "' is not a valid name");
      }
      if (!names.insert(g.name).second) {
        fail_model("global '" + g.name + "' has the name of a parameter or another global");
      }
      for (const auto &name : g.init.names()) {
        if (m_.parameter(name) == nullptr && name != "rank" && name != "size" &&
            name != "nthreads") {
          fail_model("global '" + g.name +
                     "': its initial value may use only parameters, rank, "
                     "size and nthreads, not '" +
                     name + "'");
        }
      }
    }
  }

  Model &m_;
};

void Model::validate() { ModelValidator(*this).run(); }

} // namespace parjava::model
