#include "parjava/frontend/estimates.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "parjava/error.hpp"
#include "parjava/model/reduction.hpp"

namespace parjava::frontend {

namespace {

using model::Node;
using model::NodeId;
using model::NodeIndex;
using model::NodeKind;

std::string number(double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", value);
  std::string s(buf);
  if (s.find_first_of(".eEn") == std::string::npos) {
    s += ".0";
  }
  return s;
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%%", 100.0 * fraction);
  return buf;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g s", s);
  return buf;
}

} // namespace

void accumulate(SlotMeasurement &into, const SlotMeasurement &from) {
  if (from.count == 0) {
    return;
  }
  if (into.count == 0 || from.min < into.min) {
    into.min = from.min;
  }
  into.max = std::max(into.max, from.max);
  into.count += from.count;
  into.sum += from.sum;
  into.sumsq += from.sumsq;
  into.nested += from.nested;
  into.counters += from.counters;
  into.dsum += from.dsum;
  into.overflow += from.overflow;
  for (const auto &[v, c] : from.histogram) {
    auto it = std::find_if(into.histogram.begin(), into.histogram.end(),
                           [&](const auto &e) { return e.first == v; });
    if (it == into.histogram.end()) {
      into.histogram.emplace_back(v, c);
    } else {
      it->second += c;
    }
  }
}

Measurements load_estimates(const std::vector<std::string> &files, std::uint32_t slots) {
  if (files.empty()) {
    throw Error(ErrorKind::Run, "the estimation run wrote no estimates file (did the program "
                                "exit normally? probes are written at exit)");
  }
  Measurements m;
  m.slots.assign(slots, SlotMeasurement{});
  double tps = 0.0;
  double self = 0.0;
  double pair = 0.0;
  double counter = 0.0;
  for (const auto &path : files) {
    std::ifstream in(path);
    if (!in) {
      throw Error(ErrorKind::Run, "cannot read estimates file " + path);
    }
    std::string line;
    std::size_t lineno = 0;
    bool header = false;
    bool ended = false;
    bool clocked = false;
    int version = 0;
    const auto bad = [&](const std::string &what) {
      std::string message = path;
      message.append(":").append(std::to_string(lineno)).append(": ").append(what);
      return Error(ErrorKind::Run, message);
    };
    while (std::getline(in, line)) {
      ++lineno;
      std::istringstream ls(line);
      std::string key;
      ls >> key;
      if (key == "parjava-estimates") {
        ls >> version;
        if (version != 1 && version != 2) {
          throw bad("unsupported estimates version " + std::to_string(version));
        }
        header = true;
      } else if (key == "ticks_per_second") {
        double v = 0;
        // Any real clock ticks between once a second and 1e15 times a second; outside,
        // the times derived from it are not finite.
        if (!(ls >> v) || !(v >= 1.0 && v <= 1e15)) {
          throw bad("ticks_per_second must be a clock rate between 1 and 1e15 per second");
        }
        tps += v;
        clocked = true;
      } else if (key == "slots") {
        std::uint32_t n = 0;
        ls >> n;
        if (n != slots) {
          throw bad("written by estimation code with " + std::to_string(n) +
                    " probe slots, but the plan has " + std::to_string(slots) +
                    " (sources changed since instrumenting? instrument again)");
        }
      } else if (key == "calibration") {
        double s = 0;
        double p = 0;
        double c = 0;
        ls >> s >> p;
        if (version >= 2) {
          ls >> c;
        }
        if (!ls || !std::isfinite(s) || !std::isfinite(p) || !std::isfinite(c)) {
          throw bad("malformed calibration line");
        }
        self += s;
        pair += p;
        counter += c;
      } else if (key == "slot") {
        std::uint32_t k = 0;
        SlotMeasurement s;
        ls >> k >> s.count >> s.sum >> s.sumsq >> s.min >> s.max >> s.nested >> s.dsum >>
            s.overflow;
        if (version >= 2) {
          ls >> s.counters;
        }
        if (!ls || k >= slots || !std::isfinite(s.sumsq) || !std::isfinite(s.dsum)) {
          throw bad("malformed slot line");
        }
        std::string pair_text;
        while (ls >> pair_text) {
          // value:occurrences, both integers (from_chars: no exception, no locale)
          const auto colon = pair_text.find(':');
          std::int64_t value = 0;
          std::uint64_t occurrences = 0;
          const char *first = pair_text.data();
          const char *last = first + pair_text.size();
          const auto v = colon == std::string::npos
                             ? std::from_chars_result{first, std::errc::invalid_argument}
                             : std::from_chars(first, first + colon, value);
          const auto o = v.ec == std::errc() && v.ptr == first + colon
                             ? std::from_chars(first + colon + 1, last, occurrences)
                             : std::from_chars_result{first, std::errc::invalid_argument};
          if (o.ec != std::errc() || o.ptr != last) {
            throw bad("malformed histogram entry '" + pair_text + "' (value:occurrences)");
          }
          s.histogram.emplace_back(value, occurrences);
        }
        accumulate(m.slots[k], s);
      } else if (key == "end") {
        ended = true;
      }
    }
    if (!header) {
      throw Error(ErrorKind::Run, path + " is not a parjava estimates file");
    }
    if (!ended) {
      throw Error(ErrorKind::Run, path + " is truncated (the program did not finish writing "
                                         "it)");
    }
    if (!clocked) {
      throw Error(ErrorKind::Run, path + " gives no clock rate (no ticks_per_second line)");
    }
    ++m.files;
  }
  m.ticks_per_second = tps / static_cast<double>(m.files);
  m.self_ticks = self / static_cast<double>(m.files);
  m.pair_ticks = pair / static_cast<double>(m.files);
  m.counter_ticks = counter / static_cast<double>(m.files);
  if (!(m.ticks_per_second > 0.0)) {
    throw Error(ErrorKind::Run, "the estimates files give no clock rate");
  }
  return m;
}

namespace {

class Applier {
public:
  Applier(model::Model &m, const EstimationPlan &plan, const Measurements &ms,
          const ApplyOptions &options)
      : m_(m), plan_(plan), ms_(ms), options_(options) {}

  std::vector<Diagnostic> run() {
    m_.validate();
    for (const Probe &p : plan_.probes) {
      if (!m_.has_node(p.node)) {
        continue;
      }
      const SlotMeasurement &s = slot(p);
      switch (p.kind) {
      case ProbeKind::Block:
      case ProbeKind::Function:
        block(p, s);
        break;
      case ProbeKind::Branch:
        branch(p, s);
        break;
      case ProbeKind::Switch:
        selector(p, s);
        break;
      case ProbeKind::Trips:
        trips(p, s);
        break;
      case ProbeKind::Value:
        value(p, s);
        break;
      case ProbeKind::Fragment:
      case ProbeKind::Iterations:
        break;
      }
    }
    m_.validate();
    if (options_.reduce_loops) {
      reduce_loops();
    }
    m_.validate();
    return std::move(diagnostics_);
  }

private:
  const SlotMeasurement &slot(const Probe &p) const {
    static const SlotMeasurement none;
    return p.slot < ms_.slots.size() ? ms_.slots[p.slot] : none;
  }

  // Overhead-corrected total seconds of a timed slot (seed 003 notes §6.5, correction).
  double total_seconds(const SlotMeasurement &s) const {
    const double ticks = static_cast<double>(s.sum) -
                         static_cast<double>(s.count) * ms_.self_ticks -
                         static_cast<double>(s.nested) * ms_.pair_ticks -
                         static_cast<double>(s.counters) * ms_.counter_ticks;
    return std::max(0.0, ticks) / ms_.ticks_per_second;
  }
  double sigma_seconds(const SlotMeasurement &s) const {
    if (s.count < 2) {
      return 0.0;
    }
    const double n = static_cast<double>(s.count);
    const double mean = static_cast<double>(s.sum) / n;
    const double var = std::max(0.0, s.sumsq / n - mean * mean);
    return std::sqrt(var) / ms_.ticks_per_second;
  }

  void note(NodeId id, Severity severity, const std::string &message) {
    Diagnostic d;
    d.kind = DiagnosticKind::Estimation;
    d.severity = severity;
    d.node = id;
    if (m_.has_node(id)) {
      const Node &n = m_.node(id);
      if (n.source.file >= 0 && static_cast<std::size_t>(n.source.file) < m_.files.size()) {
        d.file = m_.files[static_cast<std::size_t>(n.source.file)];
        d.line = n.source.line;
        d.column = n.source.column;
      }
      d.function = m_.functions[m_.function_of(m_.index_of(id))].name;
    }
    d.message = message;
    diagnostics_.push_back(std::move(d));
  }

  std::string label(NodeId id) const {
    const Node &n = m_.node(id);
    return n.label.empty() ? std::string(model::node_kind_name(n.kind)) : "'" + n.label + "'";
  }

  void block(const Probe &p, const SlotMeasurement &s) {
    Node &n = m_.nodes[m_.index_of(p.node)];
    if (s.count == 0) {
      note(p.node, Severity::Note,
           label(p.node) + " never ran during the estimation run; its time is 0");
      return;
    }
    const double mean = total_seconds(s) / static_cast<double>(s.count);
    const double sigma = sigma_seconds(s);
    n.time = model::TimeSpec::measured(mean, sigma, s.count);
    measured_[p.node] = total_seconds(s);
  }

  void branch(const Probe &p, const SlotMeasurement &s) {
    Node &n = m_.nodes[m_.index_of(p.node)];
    if (s.count == 0 || n.opaque.kind != model::Opaque::Kind::Probability) {
      if (s.count == 0) {
        note(p.node, Severity::Note,
             label(p.node) + " was never evaluated; its branch probability stays 0.5");
      }
      return;
    }
    n.opaque.probability = static_cast<double>(s.sum) / static_cast<double>(s.count);
    n.opaque.samples = s.count;
  }

  void selector(const Probe &p, const SlotMeasurement &s) {
    Node &n = m_.nodes[m_.index_of(p.node)];
    if (s.count == 0 || n.opaque.kind != model::Opaque::Kind::Weights) {
      return;
    }
    std::uint64_t matched = 0;
    std::size_t default_case = n.cases.size();
    for (std::size_t c = 0; c < n.cases.size(); ++c) {
      auto &sc = n.cases[c];
      sc.weight = 0.0;
      if (sc.is_default) {
        default_case = c;
      }
      for (const auto &[v, count] : s.histogram) {
        if (std::find(sc.labels.begin(), sc.labels.end(), v) != sc.labels.end()) {
          sc.weight += static_cast<double>(count);
          matched += count;
        }
      }
    }
    const std::uint64_t rest = s.count - matched;
    if (default_case < n.cases.size()) {
      n.cases[default_case].weight += static_cast<double>(rest);
    }
    double total = 0.0;
    for (const auto &sc : n.cases) {
      total += sc.weight;
    }
    if (!(total > 0.0)) {
      for (auto &sc : n.cases) {
        sc.weight = 1.0; // only values without a case were seen: keep it uniform
      }
    }
    n.opaque.samples = s.count;
  }

  void trips(const Probe &p, const SlotMeasurement &s) {
    trips_[p.node] = s;
    Node &n = m_.nodes[m_.index_of(p.node)];
    if (n.opaque.kind != model::Opaque::Kind::Trips) {
      return;
    }
    if (s.count == 0) {
      note(p.node, Severity::Note,
           label(p.node) + " never ran; its trip count stays at the placeholder 1");
      return;
    }
    n.opaque.trips_mean = static_cast<double>(s.sum) / static_cast<double>(s.count);
    n.opaque.samples = s.count;
    n.opaque.distribution.clear();
    if (s.overflow == 0) {
      for (const auto &[v, c] : s.histogram) {
        n.opaque.distribution.emplace_back(v,
                                           static_cast<double>(c) / static_cast<double>(s.count));
      }
    }
    note(p.node, Severity::Note,
         label(p.node) + ": " + number(n.opaque.trips_mean) + " iterations per execution on " +
             "average (opaque, measured over " + std::to_string(s.count) + " executions)");
  }

  void value(const Probe &p, const SlotMeasurement &s) {
    Node &n = m_.nodes[m_.index_of(p.node)];
    if (s.count == 0) {
      return;
    }
    const double mean = s.dsum / static_cast<double>(s.count);
    double unit = 1.0;
    try {
      unit = std::stod(p.unit.empty() ? "1" : p.unit);
    } catch (const std::exception &) {
      unit = 1.0;
    }
    const auto v = static_cast<long long>(std::llround(mean * unit));
    for (auto &arg : n.op_args) {
      if (arg.name == p.argument) {
        arg.expr = model::Expression::constant(static_cast<std::int64_t>(v));
      }
    }
    note(p.node, Severity::Note,
         "argument '" + p.argument + "' of " + label(p.node) + " is " + std::to_string(v) +
             " on average (measured over " + std::to_string(s.count) + " calls)");
  }

  // --- loops without communication (notes 000 §3.7.2-§3.7.4) -----------------------------

  const Probe *probe(NodeId node, ProbeKind kind) const { return plan_.find(node, kind); }

  // Names assigned anywhere in the subtree (loop variables, assignments, operation outputs).
  void assigned(NodeIndex n, std::set<std::string> &out) const {
    const Node &node = m_.nodes[n];
    for (const auto *list : {&node.init, &node.update, &node.assign}) {
      for (const auto &a : *list) {
        out.insert(a.variable);
      }
    }
    for (const auto &a : node.op_args) {
      if (a.kind == model::ArgKind::Variable) {
        out.insert(a.text);
      }
    }
    for (NodeIndex c : node.children) {
      assigned(c, out);
    }
  }

  static bool reads_any(const std::string &expr, const std::set<std::string> &names) {
    if (expr.empty()) {
      return false;
    }
    for (const auto &n : model::Expression::parse(expr).names()) {
      if (names.contains(n)) {
        return true;
      }
    }
    return false;
  }

  struct LoopResult {
    std::string expr;   // time per execution, model syntax
    double total = 0.0; // measured seconds, corrected
    std::uint64_t executions = 0;
  };

  // The single loop a loop's body consists of, if any.
  NodeIndex perfect_child(NodeIndex loop) const {
    const Node &l = m_.nodes[loop];
    if (l.children.empty()) {
      return model::kNoNode;
    }
    const Node &body = m_.nodes[l.children.front()];
    if (body.kind == NodeKind::Sequence && body.children.size() == 1 &&
        model::is_loop(m_.nodes[body.children.front()].kind)) {
      return body.children.front();
    }
    return model::kNoNode;
  }

  // Collect, under `n` (not entering loops with their own fragment probe), the measured blocks
  // and the timed loops.
  void components(NodeIndex n, std::vector<NodeId> &blocks, std::vector<NodeId> &loops) const {
    for (NodeIndex c : m_.nodes[n].children) {
      const Node &child = m_.nodes[c];
      if (results_.contains(child.id) ||
          (model::is_loop(child.kind) && probe(child.id, ProbeKind::Fragment) != nullptr)) {
        loops.push_back(child.id);
        continue;
      }
      if (probe(child.id, ProbeKind::Block) != nullptr) {
        blocks.push_back(child.id);
      }
      components(c, blocks, loops);
    }
  }

  std::string trips_text(NodeId loop, const std::set<std::string> &assigned_outside) const {
    const PlannedLoop *planned = plan_.loop(loop);
    const NodeIndex idx = m_.index_of(loop);
    std::set<std::string> inside;
    assigned(idx, inside);
    const Node &l = m_.nodes[idx];
    for (const auto &a : l.init) {
      inside.insert(a.variable);
    }
    if (planned != nullptr && !planned->trips.empty() && !reads_any(planned->trips, inside) &&
        !reads_any(planned->trips, assigned_outside)) {
      return planned->trips;
    }
    const auto it = trips_.find(loop);
    if (it == trips_.end() || it->second.count == 0) {
      return "";
    }
    return number(static_cast<double>(it->second.sum) / static_cast<double>(it->second.count));
  }

  std::uint64_t iterations(NodeId loop) const {
    const auto it = trips_.find(loop);
    return it == trips_.end() ? 0 : it->second.sum;
  }

  // D over the iteration times. With the runtime's quarter-octave histogram, the 1% slowest
  // and fastest iterations (page faults, interrupts, the cold first iteration) are left out, so
  // D describes the loop rather than the machine's noise; without it, D is max |T_i - T_mean|.
  std::string balance_verdict(const SlotMeasurement &s) const {
    if (s.count < 2) {
      return {};
    }
    const double mean = static_cast<double>(s.sum) / static_cast<double>(s.count);
    double lo = static_cast<double>(s.min);
    double hi = static_cast<double>(s.max);
    bool trimmed = false;
    if (!s.histogram.empty() && s.overflow * 50 < s.count) {
      auto buckets = s.histogram;
      std::sort(buckets.begin(), buckets.end());
      const auto value = [](std::int64_t b) {
        if (b < 4) {
          return static_cast<double>(b);
        }
        const int msb = static_cast<int>(b / 4);
        return static_cast<double>(4 + (b % 4)) * std::ldexp(1.0, msb - 2) +
               std::ldexp(0.5, msb - 2); // middle of the bucket
      };
      const double cut = 0.01 * static_cast<double>(s.count);
      double seen = 0.0;
      lo = -1.0;
      for (const auto &[b, c] : buckets) {
        seen += static_cast<double>(c);
        if (lo < 0.0 && seen > cut) {
          lo = value(b);
        }
        if (seen >= static_cast<double>(s.count) - cut) {
          hi = value(b);
          break;
        }
      }
      trimmed = true;
    }
    const double d = std::max(hi - mean, mean - lo);
    const bool balanced = d <= options_.balance_alpha * mean;
    return std::string(balanced ? "balanced" : "unbalanced") + " (D = " + percent(d / mean) +
           " of the mean iteration time" + (trimmed ? " over the central 98% of iterations" : "") +
           (balanced ? ")" : "; the body time is the frequency-weighted mean, §3.7.4)");
  }

  void reduce_loops() {
    // Innermost first: post-order over every timed loop without communication.
    std::vector<NodeId> order;
    std::function<void(NodeIndex)> post = [&](NodeIndex n) {
      for (NodeIndex c : m_.nodes[n].children) {
        post(c);
      }
      const Node &node = m_.nodes[n];
      const PlannedLoop *planned = plan_.loop(node.id);
      if (model::is_loop(node.kind) && planned != nullptr && planned->timed &&
          !planned->communicates &&
          (probe(node.id, ProbeKind::Fragment) != nullptr || planned->by_iterations)) {
        order.push_back(node.id);
      }
    };
    for (const auto &f : m_.functions) {
      if (f.body != model::kNoNode) {
        post(f.body);
      }
    }
    for (NodeId id : order) {
      if (m_.has_node(id)) {
        reduce_loop(id);
      }
    }
  }

  // A loop timed by its iterations alone (OpenMP): trips × the mean iteration time, each
  // sample less the cost of the probe that took it.
  void reduce_by_iterations(NodeId id) {
    const Probe *it = probe(id, ProbeKind::Iterations);
    static const SlotMeasurement none;
    const SlotMeasurement &s = it != nullptr ? slot(*it) : none;
    if (s.count == 0) {
      note(id, Severity::Warning,
           "loop " + label(id) + ": no iteration was timed (each thread needs two iterations)");
      return;
    }
    const double ticks = static_cast<double>(s.sum) - static_cast<double>(s.count) * ms_.pair_ticks;
    const double per = std::max(0.0, ticks) / static_cast<double>(s.count) / ms_.ticks_per_second;
    const std::string trips = trips_text(id, {});
    if (trips.empty()) {
      note(id, Severity::Warning, "loop " + label(id) + " has no trip count; not reduced");
      return;
    }
    const std::string expr = trips + " * (" + number(per) + ")";
    std::string message = "loop " + label(id) + ": " + seconds(per) + " per iteration over " +
                          std::to_string(s.count) + " timed iterations";
    const std::string balance = balance_verdict(s);
    if (!balance.empty()) {
      message += ", " + balance;
    }
    try {
      model::reduce(m_, id, model::TimeSpec::expression(model::Expression::parse(expr)));
      note(id, Severity::Note, message + "; reduced to a block of time " + expr);
    } catch (const Error &e) {
      note(id, Severity::Warning, message + "; not reduced (" + e.what() + ")");
    }
  }

  void reduce_loop(NodeId id) {
    const PlannedLoop *planned = plan_.loop(id);
    if (planned != nullptr && planned->by_iterations) {
      reduce_by_iterations(id);
      return;
    }
    const SlotMeasurement &frag = slot(*probe(id, ProbeKind::Fragment));
    if (frag.count == 0) {
      note(id, Severity::Note, "loop " + label(id) + " never ran during the estimation run");
      return;
    }
    // The perfect chain L1 ⊃ L2 ⊃ ... ⊃ Lk of loops measured by L1's probe.
    std::vector<NodeIndex> chain{m_.index_of(id)};
    for (NodeIndex c = perfect_child(chain.back());
         c != model::kNoNode && probe(m_.nodes[c].id, ProbeKind::Fragment) == nullptr;
         c = perfect_child(chain.back())) {
      chain.push_back(c);
    }
    const NodeIndex deepest = chain.back();
    const std::uint64_t deep_iterations = iterations(m_.nodes[deepest].id);
    std::vector<NodeId> blocks;
    std::vector<NodeId> loops;
    components(m_.nodes[deepest].children.front(), blocks, loops);
    double known = 0.0;
    for (NodeId b : blocks) {
      known += measured_.contains(b) ? measured_[b] : 0.0;
    }
    for (NodeId l : loops) {
      known += results_.contains(l) ? results_[l].total : 0.0;
    }
    const double total = total_seconds(frag);
    const double own = std::max(0.0, total - known);
    const double per = static_cast<double>(deep_iterations > 0 ? deep_iterations : frag.count);
    // Body time per iteration of the deepest loop (§3.7.4: frequency-weighted parts).
    std::string body = number(own / per);
    for (NodeId b : blocks) {
      if (measured_.contains(b) && measured_[b] > 0.0) {
        body += " + " + number(measured_[b] / per);
      }
    }
    for (NodeId l : loops) {
      if (!results_.contains(l)) {
        continue;
      }
      const LoopResult &r = results_[l];
      const double freq = static_cast<double>(r.executions) / per;
      body += " + " + (std::fabs(freq - 1.0) < 1e-9 ? std::string() : number(freq) + " * ") + "(" +
              r.expr + ")";
    }
    // Multiply by the trip counts of the chain, innermost first.
    std::set<std::string> assigned_outside;
    std::string per_execution = "(" + body + ")";
    std::vector<std::string> trip_texts;
    for (std::size_t i = 0; i < chain.size(); ++i) {
      std::set<std::string> enclosing;
      for (std::size_t j = 0; j < i; ++j) {
        for (const auto &a : m_.nodes[chain[j]].init) {
          enclosing.insert(a.variable);
        }
        for (const auto &a : m_.nodes[chain[j]].update) {
          enclosing.insert(a.variable);
        }
      }
      trip_texts.push_back(trips_text(m_.nodes[chain[i]].id, enclosing));
    }
    for (std::size_t i = chain.size(); i-- > 0;) {
      if (trip_texts[i].empty()) {
        note(id, Severity::Warning,
             "loop " + label(m_.nodes[chain[i]].id) + " has no trip count; not reduced");
        return;
      }
      per_execution.insert(0, trip_texts[i] + " * ");
    }
    // Balanced-loop test (§3.7.3): D = max |T_i - T_mean| <= alpha * T_mean.
    std::string balance;
    if (const Probe *it = probe(id, ProbeKind::Iterations)) {
      balance = balance_verdict(slot(*it));
    }
    const double error =
        frag.count > 1 ? 3.0 * sigma_seconds(frag) / std::sqrt(static_cast<double>(frag.count))
                       : 0.0;
    LoopResult result;
    result.expr = per_execution;
    result.total = total;
    result.executions = frag.count;
    results_[id] = result;
    // Reduce the loop to a block when its time does not read what it changes.
    const NodeIndex loop = m_.index_of(id);
    std::set<std::string> inside;
    assigned(loop, inside);
    const std::string where = label(id);
    std::string message = "loop " + where + ": " +
                          seconds(total / static_cast<double>(frag.count)) +
                          " per execution over " + std::to_string(frag.count) + " executions (±" +
                          seconds(error) + ", 3σ/√N)";
    if (!balance.empty()) {
      message += ", " + balance;
    }
    if (!reads_any(per_execution, inside)) {
      // The loop variables of the chain keep their final values for code after the loop.
      std::vector<model::Assignment> finals;
      for (NodeIndex c : chain) {
        const PlannedLoop *level = plan_.loop(m_.nodes[c].id);
        if (level != nullptr && !level->variable.empty() && !level->final_value.empty() &&
            !reads_any(level->final_value, inside)) {
          finals.push_back({level->variable, model::Expression::parse(level->final_value)});
        }
      }
      for (bool with_finals : {false, true}) {
        if (with_finals && finals.empty()) {
          break;
        }
        try {
          model::reduce(m_, id,
                        model::TimeSpec::expression(model::Expression::parse(per_execution)),
                        with_finals ? finals : std::vector<model::Assignment>{});
          m_.nodes[m_.index_of(id)].simple = true;
          message.append("; reduced to a block of time ").append(per_execution);
          note(id, Severity::Note, message);
          return;
        } catch (const Error &e) {
          if (with_finals || finals.empty()) {
            message += "; not reduced (" + std::string(e.what()) + ")";
          }
        }
      }
    }
    // The time depends on the enclosing iteration (e.g. a triangular nest): keep the loop and
    // reduce its body to one block per iteration.
    const NodeIndex body_index = m_.nodes[chain.front()].children.front();
    std::string per_iteration = "(" + body + ")";
    for (std::size_t i = chain.size(); i-- > 1;) {
      per_iteration.insert(0, trip_texts[i] + " * ");
    }
    // The body sets control variables the loop reads, or its time reads what the body sets
    // (an FFT stage's width): keep it, and charge the loop's own time (what its measured parts
    // do not account for) to each evaluation of the deepest loop's condition (B_CE, notes 000
    // §3.2); the nested loops keep their own reduced times.
    const auto keep_loop = [&](const std::string &why) {
      const std::uint64_t evaluations = deep_iterations + iterations_executions(deepest);
      Node &d = m_.nodes[m_.index_of(m_.nodes[deepest].id)];
      d.cond_time =
          model::TimeSpec::constant(own / static_cast<double>(evaluations > 0 ? evaluations : 1));
      note(id, Severity::Warning,
           message + "; not reducible (" + why + "), its own time goes to its condition: " +
               seconds(d.cond_time.seconds) + " per evaluation");
    };
    std::set<std::string> set_in_body;
    assigned(body_index, set_in_body);
    if (reads_any(per_iteration, set_in_body)) {
      keep_loop("its time per iteration reads variables its body sets");
      return;
    }
    try {
      model::reduce(m_, m_.nodes[body_index].id,
                    model::TimeSpec::expression(model::Expression::parse(per_iteration)));
      note(id, Severity::Note,
           message + "; its body is reduced to a block of time " + per_iteration);
    } catch (const Error &e) {
      keep_loop(e.what());
    }
  }

  std::uint64_t iterations_executions(NodeIndex loop) const {
    const auto it = trips_.find(m_.nodes[loop].id);
    return it == trips_.end() ? 0 : it->second.count;
  }

  model::Model &m_;
  const EstimationPlan &plan_;
  const Measurements &ms_;
  const ApplyOptions &options_;
  std::vector<Diagnostic> diagnostics_;
  std::map<NodeId, double> measured_;
  std::map<NodeId, SlotMeasurement> trips_;
  std::map<NodeId, LoopResult> results_;
};

} // namespace

std::vector<Diagnostic> apply_estimates(model::Model &model, const EstimationPlan &plan,
                                        const Measurements &measurements,
                                        const ApplyOptions &options) {
  return Applier(model, plan, measurements, options).run();
}

} // namespace parjava::frontend
