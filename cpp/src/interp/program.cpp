// Compilation of a model into a Program: parameter binding, slot allocation with static type
// inference, call-graph checks, flattening of the control trees and decoding of operations.
#include "program.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

#include "call_graph.hpp"
#include "opaque_classes.hpp"

#include "parjava/error.hpp"
#include "parjava/interp/collective_algorithm.hpp"

namespace parjava::interp {

using model::Model;
using model::Node;
using model::NodeIndex;
using model::NodeKind;
using model::Operation;
using model::Value;
using model::ValueType;

namespace {

std::optional<Arg> arg_by_name(std::string_view name) {
  static const std::map<std::string_view, Arg> table = {{"dest", Arg::Dest},
                                                        {"source", Arg::Source},
                                                        {"tag", Arg::Tag},
                                                        {"bytes", Arg::Bytes},
                                                        {"root", Arg::Root},
                                                        {"index", Arg::Index},
                                                        {"color", Arg::Color},
                                                        {"key", Arg::Key},
                                                        {"permits", Arg::Permits},
                                                        {"count", Arg::Count},
                                                        {"threads", Arg::Threads},
                                                        {"target", Arg::Target},
                                                        {"home", Arg::Home},
                                                        {"sendbytes", Arg::SendBytes},
                                                        {"sendtag", Arg::SendTag},
                                                        {"recvtag", Arg::RecvTag},
                                                        {"recvbytes", Arg::RecvBytes},
                                                        {"rank", Arg::Member}};
  const auto it = table.find(name);
  if (it == table.end()) {
    return std::nullopt;
  }
  return it->second;
}

class Compiler {
public:
  Compiler(const Model &m, const InterpretOptions &o, double scale)
      : m_(m), options_(o), scale_(scale) {}

  Program run(NodeIndex entry_node) {
    p_.processes = options_.processes;
    p_.threads = options_.threads;
    bind_parameters();
    allocate_slots();
    graph_ = analyse_call_graph(m_, options_);
    p_.recursive = graph_.recursive;
    p_.max_call_depth = graph_.max_static_depth;
    p_.recursive_site = graph_.recursive_call;
    counters_.assign(m_.functions.size(), {});
    p_.comm_names = {"world", "self"};
    for (const auto &c : m_.communicator_names()) {
      p_.comm_names.push_back(c);
    }
    p_.world_until_assigned.assign(p_.comm_names.size(), false);
    for (const auto &field : m_.field_communicators) {
      const auto it = std::find(p_.comm_names.begin(), p_.comm_names.end(), field);
      if (it != p_.comm_names.end()) {
        p_.world_until_assigned[static_cast<std::size_t>(it - p_.comm_names.begin())] = true;
      }
    }
    p_.request_names.emplace_back(""); // id 0: "no name"
    p_.lock_names.emplace_back("");
    p_.function_entry.assign(m_.functions.size(), 0);
    for (std::size_t f = 0; f < m_.functions.size(); ++f) {
      function_ = f;
      p_.function_entry[f] = pc();
      emit(m_.functions[f].body);
      add(Code::Return, m_.functions[f].body);
    }
    if (entry_node != model::kNoNode) {
      function_ = m_.function_of(entry_node);
      p_.entry_pc = pc();
      emit(entry_node);
      add(Code::End, entry_node);
    } else {
      p_.entry_pc = p_.function_entry[m_.function_index(entry_name())];
    }
    for (auto &call : pending_calls_) {
      p_.code[call.first].a = static_cast<std::uint32_t>(call.second);
    }
    frames_of_recursive_functions();
    // A node emitted twice (partial interpretation) must not warn twice.
    std::vector<std::string> unique;
    for (auto &w : p_.warnings) {
      if (std::find(unique.begin(), unique.end(), w) == unique.end()) {
        unique.push_back(std::move(w));
      }
    }
    p_.warnings = std::move(unique);
    p_.rng_slot = hidden(ValueType::Int);
    p_.frame_slots = static_cast<std::uint32_t>(p_.slot_types.size());
    global_inits();
    p_.local_slots = local_slots_;
    p_.global_slots_by_name = global_slot_;
    return std::move(p_);
  }

private:
  [[noreturn]] void fail(NodeIndex n, const std::string &field, const std::string &what) const {
    throw Error(ErrorKind::Model, "model '" + m_.name + "', " + m_.describe(n) +
                                      (field.empty() ? "" : ", field '" + field + "'") + ": " +
                                      what);
  }

  std::string entry_name() const { return options_.entry.empty() ? m_.entry : options_.entry; }

  // ---- parameters and slots -----------------------------------------------------------------

  void bind_parameters() {
    for (const auto &p : m_.parameters) {
      params_[p.name] = p.value;
    }
    for (const auto &[name, value] : options_.params) {
      if (!params_.contains(name)) {
        std::string known;
        for (const auto &p : m_.parameters) {
          known += (known.empty() ? "" : ", ") + p.name;
        }
        throw Error(ErrorKind::Usage, "model '" + m_.name + "' has no parameter '" + name +
                                          "' (its parameters: " + (known.empty() ? "none" : known) +
                                          ")");
      }
      params_[name] = value;
    }
  }

  std::uint32_t hidden(ValueType t) {
    p_.slot_types.push_back(t);
    return static_cast<std::uint32_t>(p_.slot_types.size() - 1);
  }

  // Slot of `name` in function f (locals first, then globals); -1 if none.
  std::int32_t slot_of(std::size_t f, std::string_view name) const {
    const auto &map = local_slots_[f];
    if (const auto it = map.find(std::string(name)); it != map.end()) {
      return static_cast<std::int32_t>(it->second);
    }
    if (const auto it = global_slot_.find(std::string(name)); it != global_slot_.end()) {
      return static_cast<std::int32_t>(it->second);
    }
    return -1;
  }

  std::optional<model::Symbol> resolve(std::size_t f, std::string_view name,
                                       bool allow_peer) const {
    using model::Symbol;
    if (const auto it = params_.find(std::string(name)); it != params_.end()) {
      return Symbol{Symbol::Kind::Constant, it->second, it->second.type, 0};
    }
    const std::int32_t slot = slot_of(f, name);
    if (slot >= 0) {
      return Symbol{Symbol::Kind::Slot,
                    {},
                    p_.slot_types[static_cast<std::size_t>(slot)],
                    static_cast<std::uint32_t>(slot)};
    }
    if (name == "rank") {
      return Symbol{Symbol::Kind::Rank, {}, ValueType::Int, 0};
    }
    if (name == "thread") {
      return Symbol{Symbol::Kind::Thread, {}, ValueType::Int, 0};
    }
    if (name == "size") {
      return Symbol{Symbol::Kind::Constant, Value::of_int(options_.processes), ValueType::Int, 0};
    }
    if (name == "nthreads") {
      return Symbol{Symbol::Kind::Constant, Value::of_int(options_.threads), ValueType::Int, 0};
    }
    if (name == "task") {
      return Symbol{Symbol::Kind::Slot, {}, ValueType::Int, task_slot_};
    }
    if (name == "ntasks") {
      return Symbol{Symbol::Kind::Slot, {}, ValueType::Int, ntasks_slot_};
    }
    if (name == "peer" && allow_peer) {
      return Symbol{Symbol::Kind::Peer, {}, ValueType::Int, 0};
    }
    if (name == "ANY_SOURCE") {
      return Symbol{Symbol::Kind::Constant, Value::of_int(model::kAnySource), ValueType::Int, 0};
    }
    if (name == "ANY_TAG") {
      return Symbol{Symbol::Kind::Constant, Value::of_int(model::kAnyTag), ValueType::Int, 0};
    }
    if (name == "PROC_NULL") {
      return Symbol{Symbol::Kind::Constant, Value::of_int(model::kProcNull), ValueType::Int, 0};
    }
    return std::nullopt;
  }

  // Static types of variables: the join (int < float) of everything assigned to them,
  // iterated to a fixpoint because assignments read other variables.
  void allocate_slots() {
    const std::size_t nf = m_.functions.size();
    local_slots_.assign(nf, {});
    for (const auto &g : m_.globals) {
      global_slot_[g.name] = hidden(ValueType::Int);
      p_.global_slots.push_back(global_slot_[g.name]);
    }
    for (std::size_t f = 0; f < nf; ++f) {
      for (const auto &name : m_.locals(f)) {
        local_slots_[f][name] = hidden(ValueType::Int);
      }
    }
    task_slot_ = hidden(ValueType::Int);
    ntasks_slot_ = hidden(ValueType::Int);
    p_.task_slot = task_slot_;
    p_.ntasks_slot = ntasks_slot_;
    // Every (slot, expression, function of the expression) that writes a slot.
    struct Write {
      std::uint32_t slot;
      const model::Expression *expr;
      std::size_t function;
    };
    std::vector<Write> writes;
    for (std::size_t i = 0; i < m_.globals.size(); ++i) {
      writes.push_back({p_.global_slots[i], &m_.globals[i].init, 0});
    }
    for (NodeIndex n = 0; n < m_.nodes.size(); ++n) {
      const Node &node = m_.nodes[n];
      const std::size_t f = m_.function_of(n);
      for (const auto *list : {&node.init, &node.update, &node.assign}) {
        for (const auto &a : *list) {
          writes.push_back({static_cast<std::uint32_t>(slot_of(f, a.variable)), &a.value, f});
        }
      }
      if (node.kind == NodeKind::UserCall) {
        const std::size_t callee = m_.function_index(node.callee);
        const auto &params = m_.functions[callee].params;
        const std::vector<model::Expression> *args = &node.args;
        if (node.context >= 0) {
          for (const auto &c : m_.functions[callee].contexts) {
            if (c.number == node.context) {
              args = &c.args;
            }
          }
        }
        for (std::size_t i = 0; i < params.size() && i < args->size(); ++i) {
          writes.push_back(
              {static_cast<std::uint32_t>(slot_of(callee, params[i])), &(*args)[i], f});
        }
      }
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto &w : writes) {
        const auto t = model::infer_type(*w.expr, [&](std::string_view name) {
          const auto s = resolve(w.function, name, true);
          return s ? std::optional<ValueType>(
                         s->kind == model::Symbol::Kind::Constant ? s->constant.type : s->type)
                   : std::nullopt;
        });
        if (t == ValueType::Float && p_.slot_types[w.slot] != ValueType::Float) {
          p_.slot_types[w.slot] = ValueType::Float;
          changed = true;
        }
      }
    }
  }

  void global_inits() {
    for (const auto &g : m_.globals) {
      p_.global_init.push_back(expr(0, g.init, "global '" + g.name + "'", model::kNoNode));
    }
  }

  // One activation of a function in a recursive cycle: its variables and the remaining-trip
  // counters of its opaque loops (a recursive call inside such a loop must not reset it).
  // Globals, error-diffusion accumulators and shared-draw counters stay one per thread: they
  // describe the program, not an activation.
  void frames_of_recursive_functions() {
    p_.save_slots.assign(m_.functions.size(), {});
    for (std::size_t f = 0; f < m_.functions.size(); ++f) {
      if (graph_.in_cycle[f] == 0) {
        continue;
      }
      auto &slots = p_.save_slots[f];
      for (const auto &[name, slot] : local_slots_[f]) {
        slots.push_back(slot);
      }
      slots.insert(slots.end(), counters_[f].begin(), counters_[f].end());
      std::sort(slots.begin(), slots.end());
    }
  }

  // ---- expressions and times ----------------------------------------------------------------

  std::int32_t expr(std::size_t f, const model::Expression &e, const std::string &where,
                    NodeIndex n, bool allow_peer = false) {
    const std::string place = n == model::kNoNode ? where : m_.describe(n) + ", " + where;
    auto compiled = model::CompiledExpression::compile(
        e, [&](std::string_view name) { return resolve(f, name, allow_peer); },
        "model '" + m_.name + "', " + place);
    p_.exprs.push_back(std::move(compiled));
    return static_cast<std::int32_t>(p_.exprs.size() - 1);
  }

  std::uint32_t time_source(NodeIndex n, const model::TimeSpec &t, const std::string &field) {
    TimeSource s;
    switch (t.kind) {
    case model::TimeSpec::Kind::None:
      break;
    case model::TimeSpec::Kind::Constant:
      s.seconds = t.seconds * scale_;
      break;
    case model::TimeSpec::Kind::Measured:
      s.seconds = t.seconds * scale_;
      s.error = t.error_bound() * scale_;
      break;
    case model::TimeSpec::Kind::Expression: {
      s.expr = expr(function_, t.expr, field, n);
      const auto &c = p_.exprs[static_cast<std::size_t>(s.expr)];
      if (c.is_constant()) {
        s.seconds = c.constant().number() * scale_;
        s.expr = -1;
        if (!(s.seconds >= 0.0) || !std::isfinite(s.seconds)) {
          fail(n, field,
               "evaluates to " + std::to_string(s.seconds) + " s; a time must be finite and >= 0");
        }
      } else {
        s.seconds = scale_; // multiplier applied to the evaluated expression
      }
      break;
    }
    }
    p_.times.push_back(s);
    return static_cast<std::uint32_t>(p_.times.size() - 1);
  }

  std::uint32_t opaque(NodeIndex n) {
    const Node &node = m_.nodes[n];
    OpaqueInfo o;
    opaque_statistics(m_, n, options_.processes, o, p_.warnings);
    o.key = node.id;
    if (!loops_open_.empty() && (node.kind == NodeKind::If || node.kind == NodeKind::IfElse) &&
        leaves_loop(node.children[0])) {
      last_trip(node, o);
    }
    o.index = static_cast<std::uint32_t>(p_.opaques.size());
    // Sampled decisions with communication below are shared by all ranks (docs/interpreter.md
    // "Node rules"): a per-rank draw could make ranks disagree about a collective.
    o.shared = options_.opaque == OpaqueMode::Sampled && graph_.communicates[n] != 0;
    if (o.shared) {
      o.count_slot = hidden(ValueType::Int);
    }
    if (o.kind == model::Opaque::Kind::Weights) {
      o.state_slot = hidden(ValueType::Float);
      for (std::size_t i = 1; i < node.cases.size(); ++i) {
        hidden(ValueType::Float);
      }
    } else {
      o.state_slot = hidden(ValueType::Float);
    }
    o.counter_slot = hidden(ValueType::Int);
    counters_[function_].push_back(o.counter_slot);
    p_.opaques.push_back(std::move(o));
    return static_cast<std::uint32_t>(p_.opaques.size() - 1);
  }

  // ---- code emission ------------------------------------------------------------------------

  std::uint32_t pc() const { return static_cast<std::uint32_t>(p_.code.size()); }

  std::uint32_t add(Code c, NodeIndex node, std::uint32_t a = 0, std::uint32_t b = 0) {
    p_.code.push_back({c, node, a, b});
    return pc() - 1;
  }

  void cond_time(NodeIndex n) {
    const Node &node = m_.nodes[n];
    if (node.cond_time.given()) {
      add(Code::CondTime, n, time_source(n, node.cond_time, "cond_time"));
    }
  }

  void assignments(NodeIndex n, const std::vector<model::Assignment> &as,
                   const std::string &field) {
    for (const auto &a : as) {
      const std::int32_t slot = slot_of(function_, a.variable);
      add(Code::Assign, n, static_cast<std::uint32_t>(slot),
          static_cast<std::uint32_t>(expr(function_, a.value, field, n)));
    }
  }

  // Jump targets of enclosing statements, for break/continue.
  struct Target {
    NodeIndex node;
    std::vector<std::uint32_t> breaks;
    std::vector<std::uint32_t> continues;
    std::uint32_t continue_pc = 0; // known for while loops at emission start
    bool continue_known = false;
  };
  std::vector<Target> targets_;

  Target *target_of(NodeIndex node) {
    for (auto it = targets_.rbegin(); it != targets_.rend(); ++it) {
      if (it->node == node) {
        return &*it;
      }
    }
    return nullptr;
  }

  void open_target(NodeIndex n) { targets_.push_back({n, {}, {}, 0, false}); }

  void close_target(std::uint32_t break_pc, std::uint32_t continue_pc) {
    Target &t = targets_.back();
    for (auto at : t.breaks) {
      p_.code[at].b = break_pc;
    }
    for (auto at : t.continues) {
      p_.code[at].b = continue_pc;
    }
    targets_.pop_back();
  }

  // A test whose taken branch leaves the loop around it (a `break` of a loop, a `return`): the
  // data decide how many iterations each entry runs (a convergence check).
  [[nodiscard]] bool leaves_loop(NodeIndex branch) const {
    std::vector<NodeIndex> stack{branch};
    while (!stack.empty()) {
      const Node &c = m_.nodes[stack.back()];
      stack.pop_back();
      if (c.kind == NodeKind::Return ||
          (c.kind == NodeKind::Break && is_loop(m_.node(c.target).kind))) {
        return true;
      }
      if (!is_loop(c.kind) && c.kind != NodeKind::TaskGroup) {
        stack.insert(stack.end(), c.children.begin(), c.children.end());
      }
    }
    return false;
  }

  // A test that leaves the innermost loop (`leaves_loop`). In a loop of measured trips (a search
  // `while (fgets(...)) { if (match) return 1; }`), the trips already count the iteration that
  // left: the test is taken on the last trip only, in the share of entries that left by it,
  // rather than by its own frequency (drawn apart, the two ended lookups where the run never
  // did: UoB-HPC/hot's parameter file "not found", then TERMINATE). Elsewhere (`for (ii = 0; ii
  // < max_inners; ++ii)` with a convergence `break`) each entry runs 1/p iterations.
  void last_trip(const Node &test, OpaqueInfo &o) const {
    const auto [loop, trips] = loops_open_.back();
    const model::Opaque &l = m_.nodes[loop].opaque;
    if (trips >= 0 && l.samples > 0 && test.opaque.samples > 0) {
      const double taken = test.opaque.probability * static_cast<double>(test.opaque.samples);
      o.last_trip_of = trips;
      o.last_trip_share = std::clamp(taken / static_cast<double>(l.samples), 0.0, 1.0);
    } else {
      o.leaves_loop = true;
    }
  }

  void emit_loop(NodeIndex n) {
    const Node &node = m_.nodes[n];
    loops_open_.emplace_back(n, -1);
    const struct Close {
      std::vector<std::pair<NodeIndex, std::int32_t>> &open;
      ~Close() { open.pop_back(); }
    } close{loops_open_};
    add(Code::Enter, n);
    open_target(n);
    const bool trips = node.opaque.kind == model::Opaque::Kind::Trips;
    const bool probability = node.opaque.kind == model::Opaque::Kind::Probability;
    std::uint32_t op = 0;
    if (trips || probability) {
      op = opaque(n);
    }
    if (node.kind == NodeKind::For) {
      assignments(n, node.init, "init");
    }
    const std::int32_t measured =
        node.kind == NodeKind::DoWhile
            ? -1
            : capped(measured_or_cycle(n, node.trips_by_rank, node.trips_cycle, "trips"), node);
    if (trips && measured < 0) {
      loops_open_.back().second = static_cast<std::int32_t>(op);
    }
    if (measured >= 0) {
      add(Code::MeasuredTripsStart, n, static_cast<std::uint32_t>(measured));
      if (!trips) {
        add(Code::Jump, n, 0, pc() + 1); // the skipped slot: nothing to draw
      }
    }
    if (trips) {
      add(Code::TripsStart, n, op);
    }
    const NodeIndex body = node.children[0];
    if (node.kind == NodeKind::DoWhile && !trips) {
      const std::uint32_t body_pc = pc();
      emit(body);
      const std::uint32_t cont = pc();
      cond_time(n);
      const std::uint32_t test =
          probability ? add(Code::OpaqueBranch, n, op)
                      : add(Code::JumpIfFalse, n,
                            static_cast<std::uint32_t>(expr(function_, node.cond, "cond", n)));
      add(Code::Jump, n, 0, body_pc);
      p_.code[test].b = pc();
      close_target(pc(), cont);
      return;
    }
    // Seed 000 notes §3.5 keeps a loop of compute blocks for its trip count: when that count
    // has a closed form, the whole loop runs at once (the loop's own code stays as the fallback).
    std::optional<CountedLoop> counted;
    std::uint32_t counted_at = UINT32_MAX;
    if (node.kind == NodeKind::For && !trips && !probability && measured < 0) {
      counted = counted_shape(n);
      if (counted) {
        counted_at = add(Code::CountedLoop, n);
      }
    }
    const std::uint32_t head = pc();
    cond_time(n);
    if (counted && node.cond_time.given()) {
      counted->cond_time = static_cast<std::int32_t>(p_.code[head].a);
    }
    std::uint32_t test = UINT32_MAX;
    std::uint32_t measured_test = UINT32_MAX;
    if (measured >= 0) {
      measured_test = add(Code::MeasuredTripsTest, n, static_cast<std::uint32_t>(measured));
      if (!trips && !probability && node.cond.empty()) {
        add(Code::Jump, n, 0, pc() + 1); // no test of its own to fall through to
      }
    }
    if (trips) {
      test = add(Code::TripsTest, n, op);
    } else if (probability) {
      test = add(Code::OpaqueBranch, n, op);
    } else if (!node.cond.empty()) {
      test = add(Code::JumpIfFalse, n,
                 static_cast<std::uint32_t>(expr(function_, node.cond, "cond", n)));
    }
    const std::uint32_t body_pc = pc();
    emit(body);
    const std::uint32_t cont = pc();
    if (node.kind == NodeKind::For) {
      assignments(n, node.update, "update");
    }
    add(Code::Jump, n, 0, head);
    if (test != UINT32_MAX) {
      p_.code[test].b = pc();
    }
    if (counted.has_value()) {
      if (only_computes(counted.value(), n, body_pc, cont, node.init[0].variable)) {
        p_.code[counted_at].a = static_cast<std::uint32_t>(p_.counted_loops.size());
        p_.code[counted_at].b = pc();
        p_.counted_loops.push_back(std::move(counted.value()));
      } else {
        p_.code[counted_at] = {Code::Jump, n, 0, counted_at + 1};
      }
    }
    if (measured_test != UINT32_MAX) {
      p_.code[measured_test].b = pc();
    }
    close_target(pc(), cont);
  }

  // The closed form of a `for` (CountedLoop): `v = ...; v <op> bound; v = v +/- c` with v an
  // integer slot, c a nonzero constant whose sign moves v towards the bound, and a bound that
  // does not read v. The body is checked once emitted (only_computes).
  std::optional<CountedLoop> counted_shape(NodeIndex n) {
    using model::ExprKind;
    using model::ExprOp;
    const Node &node = m_.nodes[n];
    if (node.init.size() != 1 || node.update.size() != 1 || node.cond.empty() ||
        node.update[0].variable != node.init[0].variable) {
      return std::nullopt;
    }
    const std::string &v = node.init[0].variable;
    const std::int32_t slot = slot_of(function_, v);
    if (slot < 0 || p_.slot_types[static_cast<std::size_t>(slot)] != model::ValueType::Int) {
      return std::nullopt;
    }
    const auto is_v = [&](const model::ExprNode &e) {
      return e.kind == ExprKind::Name && e.name == v;
    };
    const model::ExprNode &u = node.update[0].value.root();
    std::int64_t step = 0;
    if (u.kind == ExprKind::Binary && u.args.size() == 2) {
      if (u.op == ExprOp::Add && is_v(u.args[0]) && u.args[1].kind == ExprKind::IntLiteral) {
        step = u.args[1].int_value;
      } else if (u.op == ExprOp::Add && is_v(u.args[1]) && u.args[0].kind == ExprKind::IntLiteral) {
        step = u.args[0].int_value;
      } else if (u.op == ExprOp::Subtract && is_v(u.args[0]) &&
                 u.args[1].kind == ExprKind::IntLiteral) {
        step = -u.args[1].int_value;
      }
    }
    const model::ExprNode &c = node.cond.root();
    if (step == 0 || c.kind != ExprKind::Binary || c.args.size() != 2 || !is_v(c.args[0]) ||
        reads_name(c.args[1], v)) {
      return std::nullopt;
    }
    const bool up = (c.op == ExprOp::Less || c.op == ExprOp::LessEqual) && step > 0;
    const bool down = (c.op == ExprOp::Greater || c.op == ExprOp::GreaterEqual) && step < 0;
    const bool unit = c.op == ExprOp::NotEqual && (step == 1 || step == -1);
    if (!up && !down && !unit) {
      return std::nullopt;
    }
    CountedLoop loop;
    loop.slot = static_cast<std::uint32_t>(slot);
    loop.step = step;
    loop.test = c.op;
    loop.bound = static_cast<std::uint32_t>(
        expr(function_, model::Expression::of_tree(c.args[1], node.cond.text()), "cond", n));
    return loop;
  }

  static bool reads_name(const model::ExprNode &e, const std::string &name) {
    if (e.kind == model::ExprKind::Name && e.name == name) {
      return true;
    }
    return std::any_of(e.args.begin(), e.args.end(),
                       [&](const model::ExprNode &a) { return reads_name(a, name); });
  }

  // Whether the body emitted at [begin, end) only enters nodes and computes, with times that do
  // not read the loop variable `v` (an assignment, call, jump, test or communication needs the
  // iterations one by one); fills the loop's lists when it does.
  bool only_computes(CountedLoop &loop, NodeIndex n, std::uint32_t begin, std::uint32_t end,
                     const std::string &v) const {
    const auto reads_v = [&](const model::TimeSpec &t) {
      return t.kind == model::TimeSpec::Kind::Expression && reads_name(t.expr.root(), v);
    };
    if (loop.cond_time >= 0 && reads_v(m_.nodes[n].cond_time)) {
      return false;
    }
    for (std::uint32_t pc = begin; pc < end; ++pc) {
      const Instruction &ins = p_.code[pc];
      if (ins.code == Code::Enter) {
        loop.entered.push_back(ins.node);
      } else if (ins.code == Code::Compute && !reads_v(m_.nodes[ins.node].time)) {
        loop.computes.emplace_back(ins.node, ins.a);
      } else {
        return false;
      }
    }
    return true;
  }

  // A loop's trip counts or an if's outcomes measured per rank (docs/model-schema.md "Measured
  // decisions"): at the np they were measured at, each rank replays its own sequence (index
  // into Program::measured_sequences); at another np the model decides, with a warning when the
  // ranks' sequences differ (they follow data decisions the model draws).
  std::int32_t measured_sequence(NodeIndex n, const std::vector<std::vector<std::int64_t>> &seqs,
                                 const char *what) {
    if (seqs.empty()) {
      return -1;
    }
    if (static_cast<std::size_t>(options_.processes) != seqs.size()) {
      if (std::adjacent_find(seqs.begin(), seqs.end(), std::not_equal_to<>()) != seqs.end()) {
        p_.warnings.push_back(
            "model '" + m_.name + "', " + m_.describe(n) + ": its " + what +
            " follow data decisions and were measured per rank at np " +
            std::to_string(seqs.size()) + ", where the ranks' " + what + " differ; at np " +
            std::to_string(options_.processes) +
            " the model draws them, so ranks may disagree about the messages they exchange "
            "(estimate at this np to measure them)");
      }
      return -1;
    }
    return replayed(seqs);
  }

  // A sequence per rank to replay, with its slots: the index into Program::measured_sequences.
  std::int32_t replayed(std::vector<std::vector<std::int64_t>> values) {
    MeasuredSequence t;
    t.values = std::move(values);
    t.count_slot = hidden(ValueType::Int);
    t.counter_slot = hidden(ValueType::Int);
    counters_[function_].push_back(t.counter_slot); // per activation; the count is per thread
    p_.measured_sequences.push_back(std::move(t));
    return static_cast<std::int32_t>(p_.measured_sequences.size() - 1);
  }

  // A loop without measured counts but with a cap (Node::trips_cap): the cap, every entry, as a
  // bound beside the condition.
  std::int32_t capped(std::int32_t measured, const Node &node) {
    if (measured >= 0 || node.trips_cap < 0 || node.cond.empty()) {
      return measured;
    }
    const std::int32_t id = replayed(std::vector<std::vector<std::int64_t>>(
        static_cast<std::size_t>(options_.processes), std::vector<std::int64_t>{node.trips_cap}));
    p_.measured_sequences[static_cast<std::size_t>(id)].cap = true;
    return id;
  }

  // The per-rank sequences at their np; elsewhere the period every rank repeated, if any, for
  // every rank (docs/model-schema.md "Measured decisions").
  std::int32_t measured_or_cycle(NodeIndex n, const std::vector<std::vector<std::int64_t>> &seqs,
                                 const std::vector<std::int64_t> &cycle, const char *what) {
    const std::int32_t measured = measured_sequence(n, seqs, what);
    if (measured >= 0 || cycle.empty()) {
      return measured;
    }
    return replayed(std::vector<std::vector<std::int64_t>>(
        static_cast<std::size_t>(options_.processes), cycle));
  }

  void emit_switch(NodeIndex n) {
    const Node &node = m_.nodes[n];
    add(Code::Enter, n);
    open_target(n);
    cond_time(n);
    SwitchTable table;
    if (node.opaque.kind == model::Opaque::Kind::Weights) {
      table.opaque = opaque(n);
    } else {
      table.value_expr = expr(function_, node.value, "value", n);
      if (p_.exprs[static_cast<std::size_t>(table.value_expr)].type() != ValueType::Int) {
        fail(n, "value", "a switch selector must be an integer expression");
      }
    }
    const std::uint32_t index = static_cast<std::uint32_t>(p_.switches.size());
    p_.switches.push_back({});
    add(Code::Switch, n, index);
    bool has_default = false;
    for (std::size_t i = 0; i < node.children.size(); ++i) {
      const std::uint32_t at = pc();
      table.case_pcs.push_back(at);
      for (auto label : node.cases[i].labels) {
        table.labels.emplace_back(label, at);
      }
      if (node.cases[i].is_default) {
        table.default_pc = at;
        has_default = true;
      }
      emit(node.children[i]);
    }
    if (!has_default) {
      table.default_pc = pc();
    }
    std::sort(table.labels.begin(), table.labels.end());
    p_.switches[index] = std::move(table);
    close_target(pc(), pc());
  }

  void emit_call(NodeIndex n) {
    const Node &node = m_.nodes[n];
    const std::size_t callee = m_.function_index(node.callee);
    const auto &params = m_.functions[callee].params;
    const std::vector<model::Expression> *args = &node.args;
    if (node.context >= 0) {
      for (const auto &c : m_.functions[callee].contexts) {
        if (c.number == node.context) {
          args = &c.args;
        }
      }
    }
    if (graph_.recursive_call[n] != 0) {
      // Arguments are evaluated in the caller's activation before the callee's frame is saved
      // (they may read the very variables the call rebinds, as in f(n - 1)).
      RecursiveCall rc;
      rc.callee = static_cast<std::uint32_t>(callee);
      rc.site = recursive_sites_++;
      for (std::size_t i = 0; i < params.size(); ++i) {
        const auto slot = static_cast<std::uint32_t>(slot_of(callee, params[i]));
        const std::uint32_t temp = hidden(p_.slot_types[slot]);
        add(Code::Assign, n, temp,
            static_cast<std::uint32_t>(expr(function_, (*args)[i], "args", n)));
        rc.params.emplace_back(slot, temp);
      }
      p_.recursive_calls.push_back(std::move(rc));
      pending_calls_.emplace_back(
          add(Code::CallRec, n, 0, static_cast<std::uint32_t>(p_.recursive_calls.size() - 1)),
          callee);
      return;
    }
    for (std::size_t i = 0; i < params.size(); ++i) {
      const std::int32_t slot = slot_of(callee, params[i]);
      add(Code::Assign, n, static_cast<std::uint32_t>(slot),
          static_cast<std::uint32_t>(expr(function_, (*args)[i], "args", n)));
    }
    pending_calls_.emplace_back(add(Code::Call, n), callee);
  }

  void emit_comm(NodeIndex n) {
    const Node &node = m_.nodes[n];
    CommOp c;
    c.op = node.op;
    c.node = n;
    c.expr.fill(-1);
    c.measured.fill(-1);
    const auto name_id = [](std::vector<std::string> &names, const std::string &name) {
      const auto it = std::find(names.begin(), names.end(), name);
      if (it != names.end()) {
        return static_cast<std::uint32_t>(it - names.begin());
      }
      names.push_back(name);
      return static_cast<std::uint32_t>(names.size() - 1);
    };
    const auto comm_slot = [&](const std::string &name) {
      const auto it = std::find(p_.comm_names.begin(), p_.comm_names.end(), name);
      return static_cast<std::uint32_t>(it - p_.comm_names.begin());
    };
    const bool v_collective = node.op == Operation::Gatherv || node.op == Operation::Scatterv ||
                              node.op == Operation::Allgatherv || node.op == Operation::Alltoallv ||
                              node.op == Operation::ReduceScatter;
    // Defaults of absent arguments, compiled like given ones.
    for (const auto &spec : model::operation_info(node.op).args) {
      if (spec.kind == model::ArgKind::Expr && !spec.default_text.empty() &&
          node.arg(spec.name) == nullptr) {
        const auto a = arg_by_name(spec.name);
        if (!a) {
          continue; // an argument the interpreter does not read
        }
        c.expr[static_cast<std::size_t>(*a)] =
            expr(function_, model::Expression::parse(spec.default_text), std::string(spec.name), n);
      }
    }
    for (const auto &a : node.op_args) {
      const std::string field = "args." + a.name;
      switch (a.kind) {
      case model::ArgKind::Expr: {
        const auto which = arg_by_name(a.name);
        if (!which) {
          fail(n, field, "argument not understood by the interpreter");
        }
        const bool peer = (v_collective && a.name == "bytes") ||
                          (node.op == Operation::GroupIncl && a.name == "rank");
        c.expr[static_cast<std::size_t>(*which)] = expr(function_, a.expr, field, n, peer);
        if (!a.by_rank.empty()) {
          measured_arg(n, a, c, *which);
        }
        break;
      }
      case model::ArgKind::Comm:
        if (a.name == "newcomm") {
          c.newcomm = comm_slot(a.text);
        } else if (a.name == "group") {
          c.group = comm_slot(a.text);
        } else {
          c.comm = comm_slot(a.text);
        }
        if (!a.expr.empty()) {
          const Arg which = a.name == "newcomm" ? Arg::NewcommIndex
                            : a.name == "group" ? Arg::GroupIndex
                                                : Arg::CommIndex;
          c.expr[static_cast<std::size_t>(which)] = expr(function_, a.expr, field, n);
        }
        break;
      case model::ArgKind::Request:
        c.request = name_id(p_.request_names, a.text);
        break;
      case model::ArgKind::Lock:
        c.lock = name_id(p_.lock_names, a.text);
        break;
      case model::ArgKind::Variable: {
        const std::int32_t slot = slot_of(function_, a.text);
        if (a.name == "status_source") {
          c.out_source = slot;
        } else if (a.name == "status_tag") {
          c.out_tag = slot;
        } else if (a.name == "status_bytes") {
          c.out_bytes = slot;
        } else if (a.name == "flag") {
          c.out_flag = slot;
        } else {
          c.out_index = slot;
        }
        break;
      }
      case model::ArgKind::Choice:
        if (a.name == "sync_in" || a.name == "sync_out") {
          const std::uint8_t mode = a.text == "nosync" ? 0 : a.text == "mysync" ? 1 : 2;
          (a.name == "sync_in" ? c.sync_in : c.sync_out) = mode;
        } else {
          const auto coll = collective_of(node.op);
          const auto alg = algorithm_by_name(a.text);
          if (!coll) {
            fail(n, field, "only MPI collectives take an algorithm");
          }
          if (!alg || !supports(*coll, *alg)) {
            std::string known;
            for (auto k : algorithms_for(*coll)) {
              known += (known.empty() ? "" : ", ") + std::string(algorithm_name(k));
            }
            fail(n, field,
                 "'" + a.text + "' is not an algorithm of " + std::string(collective_name(*coll)) +
                     " (known: " + known + ")");
          }
          c.algorithm = static_cast<std::uint8_t>(*alg);
        }
        break;
      }
    }
    c.approximate = !node.approximate.empty();
    if (node.time.given()) {
      c.has_local_time = true;
      c.local_time = p_.times[time_source(n, node.time, "time")];
    }
    const model::OperationFamily family = model::operation_info(node.op).family;
    p_.uses_pgas = p_.uses_pgas || family == model::OperationFamily::Pgas;
    p_.comms.push_back(c);
    add(Code::Comm, n, static_cast<std::uint32_t>(p_.comms.size() - 1));
  }

  // An argument measured per rank (interfaces §2): its values at the np they were measured at;
  // the fallback expression, with a warning, at any other np (and, warned by the engine when
  // it happens, for a rank that passed no value there).
  void measured_arg(NodeIndex n, const model::OperationArg &a, CommOp &c, Arg which) {
    const std::size_t len = a.by_rank.size();
    const std::string head = "model '" + m_.name + "', " + m_.describe(n) + ": argument '" +
                             a.name + "' was measured per rank at np " + std::to_string(len);
    if (static_cast<std::size_t>(options_.processes) != len) {
      const bool peer = a.name == "dest" || a.name == "source" || a.name == "root";
      if (peer) {
        p_.guessed_peers.push_back(m_.describe(n) + " ('" + a.name + "' measured at np " +
                                   std::to_string(len) + ", '" + a.expr.text() + "' here)");
      }
      p_.warnings.push_back(
          head + "; at np " + std::to_string(options_.processes) +
          " every rank uses its fallback expression '" + a.expr.text() + "'" +
          (peer ? ", so the model's messages there need not go where the program's go (estimate "
                  "at np " +
                      std::to_string(options_.processes) + " to measure them)"
                : ""));
      return;
    }
    p_.measured.push_back({a.by_rank, a.name, a.expr.text()});
    c.measured[static_cast<std::size_t>(which)] = static_cast<std::int32_t>(p_.measured.size() - 1);
    if (!c.counted) {
      c.counted = true;
      c.count_slot = hidden(ValueType::Int);
    }
  }

  void emit(NodeIndex n) {
    const Node &node = m_.nodes[n];
    switch (node.kind) {
    case NodeKind::Sequence:
      add(Code::Enter, n);
      open_target(n);
      for (NodeIndex c : node.children) {
        emit(c);
      }
      close_target(pc(), pc());
      break;
    case NodeKind::If:
    case NodeKind::IfElse: {
      add(Code::Enter, n);
      open_target(n);
      cond_time(n);
      const std::int32_t measured =
          measured_or_cycle(n, node.taken_by_rank, node.taken_cycle, "outcomes");
      const std::uint32_t measured_test =
          measured >= 0 ? add(Code::MeasuredBranch, n, static_cast<std::uint32_t>(measured))
                        : UINT32_MAX;
      const std::uint32_t test =
          node.opaque.kind == model::Opaque::Kind::Probability
              ? add(Code::OpaqueBranch, n, opaque(n))
              : add(Code::JumpIfFalse, n,
                    static_cast<std::uint32_t>(expr(function_, node.cond, "cond", n)));
      emit(node.children[0]);
      if (node.kind == NodeKind::IfElse) {
        const std::uint32_t skip = add(Code::Jump, n);
        p_.code[test].b = pc();
        emit(node.children[1]);
        p_.code[skip].b = pc();
      } else {
        p_.code[test].b = pc();
      }
      if (measured_test != UINT32_MAX) {
        p_.code[measured_test].b = p_.code[test].b;
      }
      close_target(pc(), pc());
      break;
    }
    case NodeKind::For:
    case NodeKind::While:
    case NodeKind::DoWhile:
      emit_loop(n);
      break;
    case NodeKind::Switch:
      emit_switch(n);
      break;
    case NodeKind::TaskGroup: {
      add(Code::Enter, n);
      p_.uses_task_groups = true;
      TaskGroupInfo g;
      if (!node.tasks.empty()) {
        g.tasks_expr = expr(function_, node.tasks, "tasks", n);
      }
      g.team = node.team;
      g.fork_timed = node.fork_timed;
      g.task_slot = task_slot_;
      g.ntasks_slot = ntasks_slot_;
      const auto index = static_cast<std::uint32_t>(p_.task_groups.size());
      p_.task_groups.push_back(g);
      const std::uint32_t fork = add(Code::TaskGroup, n, index);
      p_.task_groups[index].body_pc = pc();
      emit(node.children[0]);
      add(Code::TaskEnd, n);
      p_.code[fork].b = pc();
      break;
    }
    case NodeKind::Compute:
    case NodeKind::Reduced:
    case NodeKind::ExternalCall:
      add(Code::Compute, n, time_source(n, node.time, "time"));
      assignments(n, node.assign, "assign");
      break;
    case NodeKind::UserCall:
      emit_call(n);
      break;
    case NodeKind::Communication:
      emit_comm(n);
      break;
    case NodeKind::Return:
      add(Code::Enter, n);
      add(Code::Return, n);
      break;
    case NodeKind::Break:
    case NodeKind::Continue: {
      add(Code::Enter, n);
      Target *t = target_of(m_.index_of(node.target));
      if (t == nullptr) {
        fail(n, "target", "the target does not enclose this jump");
      }
      const std::uint32_t at = add(Code::Jump, n);
      (node.kind == NodeKind::Break ? t->breaks : t->continues).push_back(at);
      break;
    }
    }
  }

  const Model &m_;
  const InterpretOptions &options_;
  double scale_;
  Program p_;
  std::unordered_map<std::string, Value> params_;
  std::unordered_map<std::string, std::uint32_t> global_slot_;
  std::vector<std::unordered_map<std::string, std::uint32_t>> local_slots_;
  std::uint32_t task_slot_ = 0;
  std::uint32_t ntasks_slot_ = 0;
  std::size_t function_ = 0;
  // The loops whose bodies are being emitted around the current node, innermost last, each with
  // its measured trips (index in Program::opaques, -1: none).
  std::vector<std::pair<NodeIndex, std::int32_t>> loops_open_;
  std::vector<std::pair<std::uint32_t, std::size_t>> pending_calls_;
  CallGraph graph_;
  std::vector<std::vector<std::uint32_t>> counters_; // per function: opaque trip counters
  std::uint32_t recursive_sites_ = 0;
};

} // namespace

Program compile_program(const model::Model &model, const InterpretOptions &options,
                        double compute_scale, model::NodeIndex entry_node) {
  if (options.processes < 1) {
    throw Error(ErrorKind::Usage,
                "the number of processes must be >= 1, not " + std::to_string(options.processes));
  }
  if (options.threads < 1) {
    throw Error(ErrorKind::Usage, "the number of threads per process must be >= 1, not " +
                                      std::to_string(options.threads));
  }
  if (entry_node == model::kNoNode && !options.entry.empty() &&
      model.function(options.entry) == nullptr) {
    throw Error(ErrorKind::Usage,
                "model '" + model.name + "' has no function '" + options.entry + "' to start from");
  }
  return Compiler(model, options, compute_scale).run(entry_node);
}

} // namespace parjava::interp
