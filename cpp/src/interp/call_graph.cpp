// Call-graph analysis for the compiler: recursive cycles (Tarjan's strongly connected
// components), the static check that every cycle has a depth the model can compute, the depth
// of non-recursive call chains, and which nodes have communication below them.
#include "call_graph.hpp"

#include <algorithm>
#include <functional>
#include <string>

#include "parjava/error.hpp"

namespace parjava::interp {

using model::Model;
using model::Node;
using model::NodeIndex;
using model::NodeKind;

namespace {

struct Call {
  std::size_t caller = 0;
  std::size_t callee = 0;
  NodeIndex site = 0;
};

// How the conditions on the way to a call inside one activation decide whether it happens.
enum class Guard : std::uint8_t {
  Computed, // some condition the model computes can keep control from reaching the call
  Opaque,   // only opaque (profiled) conditions can
  None,     // nothing can: every activation makes the call
};

class Analysis {
public:
  Analysis(const Model &m, const InterpretOptions &o) : m_(m), options_(o) {}

  CallGraph run() {
    const std::size_t nf = m_.functions.size();
    calls_.assign(nf, {});
    for (NodeIndex n = 0; n < m_.nodes.size(); ++n) {
      if (m_.nodes[n].kind == NodeKind::UserCall) {
        const std::size_t f = m_.function_of(n);
        calls_[f].push_back({f, m_.function_index(m_.nodes[n].callee), n});
      }
    }
    out_.in_cycle.assign(nf, 0);
    out_.recursive_call.assign(m_.nodes.size(), 0);
    components();
    communication();
    if (out_.recursive) {
      check_depths();
    } else {
      static_depth();
    }
    return std::move(out_);
  }

private:
  // ---- strongly connected components (Tarjan) -------------------------------------------

  void components() {
    const std::size_t nf = m_.functions.size();
    scc_.assign(nf, kUnvisited);
    std::vector<std::size_t> index(nf, kUnvisited), low(nf, 0), stack;
    std::vector<bool> on_stack(nf, false);
    std::size_t counter = 0, components = 0;
    std::function<void(std::size_t)> visit = [&](std::size_t f) {
      index[f] = low[f] = counter++;
      stack.push_back(f);
      on_stack[f] = true;
      for (const Call &c : calls_[f]) {
        if (index[c.callee] == kUnvisited) {
          visit(c.callee);
          low[f] = std::min(low[f], low[c.callee]);
        } else if (on_stack[c.callee]) {
          low[f] = std::min(low[f], index[c.callee]);
        }
      }
      if (low[f] == index[f]) {
        std::size_t g = 0;
        do {
          g = stack.back();
          stack.pop_back();
          on_stack[g] = false;
          scc_[g] = components;
        } while (g != f);
        ++components;
      }
    };
    for (std::size_t f = 0; f < nf; ++f) {
      if (index[f] == kUnvisited) {
        visit(f);
      }
    }
    std::vector<std::size_t> sizes(components, 0);
    for (std::size_t f = 0; f < nf; ++f) {
      ++sizes[scc_[f]];
    }
    for (std::size_t f = 0; f < nf; ++f) {
      for (const Call &c : calls_[f]) {
        if (scc_[c.callee] == scc_[f] && (sizes[scc_[f]] > 1 || c.callee == f)) {
          out_.in_cycle[f] = 1;
          out_.recursive_call[c.site] = 1;
          out_.recursive = true;
        }
      }
    }
  }

  // ---- communication below each node ----------------------------------------------------

  void communication() {
    const std::size_t nf = m_.functions.size();
    out_.communicates.assign(m_.nodes.size(), 0);
    std::vector<std::uint8_t> function_communicates(nf, 0);
    // A function communicates when its body does; calls make this a fixpoint over the graph.
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t f = 0; f < nf; ++f) {
        const bool c = mark(m_.functions[f].body, function_communicates);
        if (c && function_communicates[f] == 0) {
          function_communicates[f] = 1;
          changed = true;
        }
      }
    }
  }

  bool mark(NodeIndex n, const std::vector<std::uint8_t> &function_communicates) {
    const Node &node = m_.nodes[n];
    bool c = false;
    if (node.kind == NodeKind::Communication) {
      const auto family = model::operation_info(node.op).family;
      c = family == model::OperationFamily::Mpi || family == model::OperationFamily::Pgas;
    } else if (node.kind == NodeKind::UserCall) {
      c = function_communicates[m_.function_index(node.callee)] != 0;
    }
    for (NodeIndex child : node.children) {
      c = mark(child, function_communicates) || c;
    }
    out_.communicates[n] = c ? 1 : 0;
    return c;
  }

  // ---- depth of non-recursive call chains -----------------------------------------------

  void static_depth() {
    const std::size_t nf = m_.functions.size();
    std::vector<std::uint32_t> depth(nf, 0);
    std::vector<bool> done(nf, false);
    std::function<std::uint32_t(std::size_t)> visit = [&](std::size_t f) {
      if (!done[f]) {
        for (const Call &c : calls_[f]) {
          depth[f] = std::max(depth[f], visit(c.callee) + 1);
        }
        done[f] = true;
      }
      return depth[f];
    };
    std::uint32_t deepest = 0;
    for (std::size_t f = 0; f < nf; ++f) {
      deepest = std::max(deepest, visit(f));
    }
    out_.max_static_depth = deepest + 1;
  }

  // ---- the static depth check -----------------------------------------------------------

  // A condition of `c` that decides whether control passes (a do-while's body runs once
  // whatever its condition; a `for` without a condition is left only by a jump).
  // An opaque if that replays measured outcomes with a "not taken" in every period (HPCG's
  // V-cycle: taken 3 times, then not) bounds the recursion it guards as a computed test does:
  // the depth is the measured one.
  // An opaque if without an else that the estimation run evaluated and never took (hypre's
  // `if (amg) hypre_BoomerAMGDestroy(amg);` on a solver with no nested one) bounds it too: the
  // measured depth is that of the run, where the call never happened.
  bool replays_an_end(const Node &node) const {
    if (node.kind == NodeKind::If && node.opaque.kind == model::Opaque::Kind::Probability &&
        node.opaque.samples > 0 && node.opaque.probability == 0.0 && node.taken_by_rank.empty() &&
        node.taken_cycle.empty()) {
      return true;
    }
    if (node.kind != NodeKind::If && node.kind != NodeKind::IfElse) {
      return false;
    }
    const auto ends = [](const std::vector<std::int64_t> &seq) {
      return std::find(seq.begin(), seq.end(), 0) != seq.end();
    };
    if (node.taken_by_rank.size() == static_cast<std::size_t>(options_.processes)) {
      return std::all_of(node.taken_by_rank.begin(), node.taken_by_rank.end(), ends);
    }
    return !node.taken_cycle.empty() && ends(node.taken_cycle);
  }

  void consider(NodeIndex c, bool &computed, std::vector<NodeIndex> &opaque) const {
    const Node &node = m_.nodes[c];
    const bool is_opaque = node.opaque.kind != model::Opaque::Kind::None;
    switch (node.kind) {
    case NodeKind::If:
    case NodeKind::IfElse:
    case NodeKind::While:
    case NodeKind::For:
    case NodeKind::Switch:
      if (is_opaque && !replays_an_end(node)) {
        opaque.push_back(c);
      } else if (is_opaque || !node.cond.empty() || !node.value.empty()) {
        computed = true;
      }
      break;
    default:
      break;
    }
  }

  bool encloses(NodeIndex outer, NodeIndex n) const {
    for (NodeIndex p = n; p != model::kNoNode; p = m_.parent(p)) {
      if (p == outer) {
        return true;
      }
    }
    return false;
  }

  Guard guard_of(NodeIndex site, std::vector<NodeIndex> &opaque) {
    bool computed = false;
    bool unreachable = false;
    NodeIndex child = site;
    for (NodeIndex a = m_.parent(site); a != model::kNoNode; child = a, a = m_.parent(a)) {
      const Node &an = m_.nodes[a];
      if (an.kind == NodeKind::Sequence) {
        for (NodeIndex sib : an.children) {
          if (sib == child) {
            break;
          }
          escapes_from(sib, sib, site, computed, unreachable, opaque);
        }
      } else {
        consider(a, computed, opaque);
      }
    }
    if (computed || unreachable) {
      return Guard::Computed;
    }
    return opaque.empty() ? Guard::None : Guard::Opaque;
  }

  // Jumps in `n`, inside the statement `top` that comes before the call in an enclosing
  // sequence, that skip the call: returns, and breaks/continues of statements around it. Their
  // conditions within `top` are guards; an unconditional one makes the call unreachable.
  void escapes_from(NodeIndex n, NodeIndex top, NodeIndex site, bool &computed, bool &unreachable,
                    std::vector<NodeIndex> &opaque) const {
    const Node &node = m_.nodes[n];
    for (NodeIndex child : node.children) {
      escapes_from(child, top, site, computed, unreachable, opaque);
    }
    bool skips = node.kind == NodeKind::Return;
    if ((node.kind == NodeKind::Break || node.kind == NodeKind::Continue) &&
        m_.has_node(node.target)) {
      skips = encloses(m_.index_of(node.target), site);
    }
    if (!skips) {
      return;
    }
    // The conditions between the jump and `top` decide whether it is taken.
    bool conditional = false;
    for (NodeIndex p = n;; p = m_.parent(p)) {
      const std::size_t before = opaque.size();
      const bool was = computed;
      consider(p, computed, opaque);
      conditional = conditional || opaque.size() != before || computed != was;
      if (p == top) {
        break;
      }
    }
    if (!conditional) {
      unreachable = true;
    }
  }

  // A cycle of the call graph using only the calls `allowed`; empty if none.
  std::vector<Call> find_cycle(const std::vector<std::uint8_t> &allowed) const {
    const std::size_t nf = m_.functions.size();
    std::vector<int> state(nf, 0); // 0 new, 1 on the path, 2 done
    std::vector<Call> path;
    std::vector<Call> found;
    std::function<bool(std::size_t)> visit = [&](std::size_t f) {
      state[f] = 1;
      for (const Call &c : calls_[f]) {
        if (allowed[c.site] == 0) {
          continue;
        }
        path.push_back(c);
        if (state[c.callee] == 1) {
          const auto from = std::find_if(path.begin(), path.end(),
                                         [&](const Call &p) { return p.caller == c.callee; });
          found.assign(from, path.end());
          return true;
        }
        if (state[c.callee] == 0 && visit(c.callee)) {
          return true;
        }
        path.pop_back();
      }
      state[f] = 2;
      return false;
    };
    for (std::size_t f = 0; f < nf; ++f) {
      if (state[f] == 0 && visit(f)) {
        return found;
      }
    }
    return {};
  }

  std::string chain_text(const std::vector<Call> &cycle) const {
    std::string text = m_.functions[cycle.front().caller].name;
    for (const Call &c : cycle) {
      text += " -> " + m_.functions[c.callee].name;
    }
    return text;
  }

  void check_depths() {
    std::vector<std::uint8_t> unguarded(m_.nodes.size(), 0);  // no condition at all
    std::vector<std::uint8_t> uncomputed(m_.nodes.size(), 0); // no computed condition
    std::vector<std::vector<NodeIndex>> opaque_guards(m_.nodes.size());
    for (const auto &calls : calls_) {
      for (const Call &c : calls) {
        if (out_.recursive_call[c.site] == 0) {
          continue;
        }
        const Guard g = guard_of(c.site, opaque_guards[c.site]);
        unguarded[c.site] = g == Guard::None ? 1 : 0;
        uncomputed[c.site] = g != Guard::Computed ? 1 : 0;
      }
    }
    const std::string head = "model '" + m_.name + "': the recursive call chain ";
    if (const auto cycle = find_cycle(unguarded); !cycle.empty()) {
      std::string calls;
      for (const Call &c : cycle) {
        calls += (calls.empty() ? "" : ", ") + m_.describe(c.site);
      }
      throw Error(ErrorKind::Model, head + chain_text(cycle) +
                                        " never ends: no condition can keep control from its "
                                        "calls (" +
                                        calls +
                                        "); guard a call with a condition, or replace it by a "
                                        "reduced block (rb) with a measured time");
    }
    if (options_.allow_opaque_recursion) {
      return;
    }
    if (const auto cycle = find_cycle(uncomputed); !cycle.empty()) {
      std::string calls;
      for (const Call &c : cycle) {
        std::string guards;
        for (NodeIndex g : opaque_guards[c.site]) {
          guards += (guards.empty() ? "" : ", ") + m_.describe(g);
        }
        calls += (calls.empty() ? "" : "; ") + m_.describe(c.site) +
                 (guards.empty() ? " runs unconditionally" : " is guarded only by " + guards);
      }
      throw Error(ErrorKind::Model,
                  head + chain_text(cycle) +
                      " has no depth the model can compute: its conditions are opaque "
                      "(data-dependent, profiled): " +
                      calls +
                      ". Interpret with opaque_recursion=True (parjava predict "
                      "--opaque-recursion) to run it with the profiled statistics, bounded by "
                      "max_depth (" +
                      std::to_string(options_.max_depth) + ")");
    }
  }

  static constexpr std::size_t kUnvisited = static_cast<std::size_t>(-1);
  const Model &m_;
  const InterpretOptions &options_;
  std::vector<std::vector<Call>> calls_;
  std::vector<std::size_t> scc_;
  CallGraph out_;
};

} // namespace

CallGraph analyse_call_graph(const Model &model, const InterpretOptions &options) {
  return Analysis(model, options).run();
}

} // namespace parjava::interp
