#include "estimates_trips.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace parjava::frontend {

namespace {

using model::Node;
using model::NodeIndex;
using model::NodeKind;
using model::Opaque;

// Did the run decide here: both outcomes of a branch, different counts of a loop, more than
// one case of a switch (pooled or on any rank)?
bool live(const Node &n) {
  const Opaque &o = n.opaque;
  const auto varied = [](const std::vector<std::pair<std::int64_t, double>> &d, double mean) {
    return d.size() > 1 ||
           (d.empty() && mean != static_cast<double>(static_cast<std::int64_t>(mean)));
  };
  switch (o.kind) {
  case Opaque::Kind::Probability:
    if (o.samples > 0 && o.probability > 0.0 && o.probability < 1.0) {
      return true;
    }
    return std::any_of(o.by_rank.begin(), o.by_rank.end(), [&](const auto &r) {
      return r.samples > 0 && r.probability != o.probability;
    });
  case Opaque::Kind::Trips:
    if (o.samples > 0 && varied(o.distribution, o.trips_mean)) {
      return true;
    }
    return std::any_of(o.by_rank.begin(), o.by_rank.end(), [&](const auto &r) {
      return r.samples > 0 &&
             (varied(r.distribution, r.trips_mean) || r.trips_mean != o.trips_mean);
    });
  case Opaque::Kind::Weights:
    return std::count_if(n.cases.begin(), n.cases.end(),
                         [](const auto &c) { return c.weight > 0.0; }) > 1;
  case Opaque::Kind::None:
    break;
  }
  if (!n.trips_by_rank.empty()) {
    std::set<std::int64_t> counts;
    for (const auto &seq : n.trips_by_rank) {
      counts.insert(seq.begin(), seq.end());
    }
    return counts.size() > 1;
  }
  return false;
}

class Decisions {
public:
  explicit Decisions(model::Model &m) : m_(m), fn_(m.functions.size(), false) {
    for (const auto &g : m.globals) {
      globals_.insert(g.name);
    }
    for (const auto &p : m.parameters) {
      globals_.insert(p.name);
      params_.insert(p.name);
    }
    // Through setters, to a fixed point: `set_num_iterations(num_iterations)` makes the
    // setter's parameter an input, and then the option its body stores (the OSU
    // micro-benchmarks' `options.loop = value;`). The set only grows.
    for (std::size_t known = 0;;) {
      written_.clear();
      for (std::size_t f = 0; f < m.functions.size(); ++f) {
        if (m.functions[f].body != model::kNoNode) {
          find_inputs(m.functions[f].body, f);
        }
      }
      inputs_.clear();
      for (const auto &[k, w] : written_) {
        if (w.param && !w.other) {
          inputs_.insert(k);
        }
      }
      if (inputs_.size() == known) {
        break;
      }
      known = inputs_.size();
    }
  }

  std::vector<model::NodeId> run() {
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t f = 0; f < m_.functions.size(); ++f) {
        if (m_.functions[f].body != model::kNoNode) {
          changed = walk(m_.functions[f].body, false, f) || changed;
        }
      }
      changed = propagate() || changed;
    }
    std::vector<model::NodeId> kept;
    for (std::size_t f = 0; f < m_.functions.size(); ++f) {
      if (m_.functions[f].body != model::kNoNode) {
        keep(m_.functions[f].body, f, kept);
      }
    }
    return kept;
  }

private:
  std::string key(std::size_t f, const std::string &name) const {
    return globals_.contains(name) ? name : std::to_string(f) + ":" + name;
  }

  // A variable the model only ever sets to constants or to parameters holds a program input
  // (`opts.its = 9999999;` ... `if (strcmp(argv[i], "-i") == 0) opts.its = its;`): the
  // decisions it is written under read the command line, not data. LULESH's time-step loop
  // `while (time < stoptime && cycle < opts.its)` was kept at the 20 steps of its estimation
  // run because the option parser's strcmp branches had both outcomes, so `-i 200` predicted
  // 20 steps. (The builder now moves that read after the parser loop, input_options.cpp; this
  // holds for the reads it cannot move.)
  void find_inputs(NodeIndex n, std::size_t f) {
    const Node &node = m_.nodes[n];
    for (const auto *list : {&node.assign, &node.init, &node.update}) {
      for (const auto &a : *list) {
        written(f, a.value, key(f, a.variable));
      }
    }
    if (node.kind == NodeKind::UserCall) {
      const std::size_t c = m_.function_index(node.callee);
      if (c != std::string::npos) {
        const auto &params = m_.functions[c].params;
        for (std::size_t i = 0; i < node.args.size() && i < params.size(); ++i) {
          written(f, node.args[i], key(c, params[i]));
        }
      }
    }
    for (NodeIndex c : node.children) {
      find_inputs(c, f);
    }
  }

  // `to` is given `value` (read in function f): only parameters and inputs, or something else.
  void written(std::size_t f, const model::Expression &value, const std::string &to) {
    bool only_inputs = true; // a constant reads none
    bool param = false;
    for (const auto &v : value.names()) {
      const bool in = params_.contains(v) || inputs_.contains(key(f, v));
      param = param || in;
      only_inputs = only_inputs && in;
    }
    Written &w = written_[to];
    w.other = w.other || !only_inputs;
    w.param = w.param || param;
  }

  bool input(std::size_t f, const std::string &name) const {
    return inputs_.contains(key(f, name));
  }

  bool mark(std::size_t f, const std::string &name, bool all) {
    if (!all && !globals_.contains(name)) {
      return false; // a local written unconditionally in a function called under a decision
    }
    if (input(f, name)) {
      return false;
    }
    return steered_.insert(key(f, name)).second;
  }

  bool reads(std::size_t f, const model::Expression &e) const {
    if (e.empty()) {
      return false;
    }
    const auto names = e.names();
    return std::any_of(names.begin(), names.end(),
                       [&](const std::string &v) { return steered_.contains(key(f, v)); });
  }

  bool walk(NodeIndex n, bool local, std::size_t f) {
    const Node &node = m_.nodes[n];
    bool changed = false;
    const bool under = local || fn_[f];
    if (under) {
      for (const auto &a : node.assign) {
        changed = mark(f, a.variable, local) || changed;
      }
      if (node.kind == NodeKind::UserCall) {
        const std::size_t c = m_.function_index(node.callee);
        if (c != std::string::npos && !fn_[c]) {
          fn_[c] = true;
          changed = true;
        }
      }
    }
    const bool decides = live(node);
    if (is_loop(node.kind) && (decides || under)) {
      for (const auto &a : node.update) {
        changed = mark(f, a.variable, decides || local) || changed;
      }
    }
    for (NodeIndex c : node.children) {
      changed = walk(c, local || decides, f) || changed;
    }
    return changed;
  }

  bool propagate() {
    bool changed = false;
    for (std::size_t f = 0; f < m_.functions.size(); ++f) {
      if (m_.functions[f].body != model::kNoNode) {
        changed = propagate(m_.functions[f].body, f) || changed;
      }
    }
    return changed;
  }

  bool propagate(NodeIndex n, std::size_t f) {
    const Node &node = m_.nodes[n];
    bool changed = false;
    for (const auto *list : {&node.assign, &node.init, &node.update}) {
      for (const auto &a : *list) {
        if (reads(f, a.value)) {
          changed = steered_.insert(key(f, a.variable)).second || changed;
        }
      }
    }
    if (node.kind == NodeKind::UserCall) {
      const std::size_t c = m_.function_index(node.callee);
      if (c != std::string::npos) {
        const auto &params = m_.functions[c].params;
        for (std::size_t i = 0; i < node.args.size() && i < params.size(); ++i) {
          if (reads(f, node.args[i])) {
            changed = steered_.insert(key(c, params[i])).second || changed;
          }
        }
      }
    }
    for (NodeIndex c : node.children) {
      changed = propagate(c, f) || changed;
    }
    return changed;
  }

  void keep(NodeIndex n, std::size_t f, std::vector<model::NodeId> &kept) {
    Node &node = m_.nodes[n];
    if (!node.taken_by_rank.empty()) {
      if (live(node)) {
        kept.push_back(node.id);
      } else {
        node.taken_by_rank.clear();
      }
    }
    if (!node.trips_by_rank.empty()) {
      bool decided = node.opaque.kind == Opaque::Kind::Trips ? live(node) : reads(f, node.cond);
      for (const auto &a : node.init) {
        decided = decided || reads(f, a.value);
      }
      if (decided) {
        kept.push_back(node.id);
      } else {
        node.trips_by_rank.clear();
      }
    }
    for (NodeIndex c : node.children) {
      keep(c, f, kept);
    }
  }

  model::Model &m_;
  std::vector<bool> fn_;
  std::set<std::string> globals_;
  std::set<std::string> steered_;
  std::set<std::string> params_;
  struct Written {
    bool param = false; // some write reads a parameter
    bool other = false; // some write reads a variable that is not a parameter
  };
  std::map<std::string, Written> written_;
  std::set<std::string> inputs_; // keys of the variables that hold program inputs
};

} // namespace

std::vector<model::NodeId> keep_decided_trips(model::Model &m) { return Decisions(m).run(); }

} // namespace parjava::frontend
