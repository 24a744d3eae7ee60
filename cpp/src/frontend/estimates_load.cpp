// Reading the estimates files of the estimation runs (format written by probe_runtime.cpp): the
// slots of every rank merged, each rank kept for per-rank statistics, the program's own time and
// the machine's state around it; and what the probes cost and what each timed node took.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "parjava/error.hpp"
#include "parjava/frontend/estimates.hpp"

namespace parjava::frontend {

void accumulate(SlotMeasurement &into, const SlotMeasurement &from) {
  if (from.count == 0) {
    return;
  }
  if (into.count == 0 || from.min < into.min) {
    into.min = from.min;
  }
  into.max = std::max(into.max, from.max);
  into.executions = executions_of(into) + executions_of(from);
  into.count += from.count;
  into.sum += from.sum;
  into.sumsq += from.sumsq;
  into.nested += from.nested;
  into.counters += from.counters;
  into.skips += from.skips;
  into.counter_skips += from.counter_skips;
  into.live += from.live;
  into.trend += from.trend;
  into.team += from.team;
  into.watched += from.watched;
  into.watched_ticks += from.watched_ticks;
  into.removed_ticks += from.removed_ticks;
  for (const auto &[bin, values] : from.sizes) {
    auto &target = into.sizes[bin];
    for (std::size_t f = 0; f < 3; ++f) {
      target[f] += values[f];
    }
  }
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
  double skip = 0.0;
  double branch = 0.0;
  double uncounted = 0.0;
  double iteration = 0.0;
  std::vector<RankRun> ranks;
  for (const auto &path : files) {
    std::ifstream in(path);
    if (!in) {
      throw Error(ErrorKind::Run, "cannot read estimates file " + path);
    }
    RankRun rank;
    rank.rank = static_cast<int>(ranks.size());
    rank.slots.assign(slots, SlotMeasurement{});
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
        if (version < 1 || version > 4) {
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
        double k = 0;
        double b = -1.0; // before v4 a branch was priced as a trip counter
        double u = 0;
        ls >> s >> p;
        if (version >= 2) {
          ls >> c;
        }
        if (version >= 3) {
          ls >> k;
        }
        if (version >= 4) {
          ls >> b >> u;
        }
        if (!ls || !std::isfinite(s) || !std::isfinite(p) || !std::isfinite(c) ||
            !std::isfinite(k) || !std::isfinite(b) || !std::isfinite(u)) {
          throw bad("malformed calibration line");
        }
        branch += b < 0 ? c : b;
        uncounted += u;
        double it = 0;
        if (!(ls >> it) || !std::isfinite(it) || it < 0.0) {
          it = 0.0; // written before the iteration calibration: none
        }
        self += s;
        pair += p;
        counter += c;
        skip += k;
        iteration += it;
      } else if (key == "slot") {
        std::uint32_t k = 0;
        SlotMeasurement s;
        ls >> k >> s.count >> s.sum >> s.sumsq >> s.min >> s.max >> s.nested >> s.dsum >>
            s.overflow;
        if (version >= 2) {
          ls >> s.counters;
        }
        if (version >= 3) {
          ls >> s.executions >> s.skips;
        }
        if (version >= 4) {
          ls >> s.counter_skips;
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
        rank.slots[k] = std::move(s);
      } else if (key == "rank") {
        ls >> rank.rank >> rank.size;
        if (!ls || rank.rank < 0 || rank.size < 1) {
          throw bad("malformed rank line");
        }
      } else if (key == "cpus") {
        ls >> m.cpus;
      } else if (key == "omp_team") {
        ls >> rank.omp_team;
        if (!ls || rank.omp_team < 1) {
          throw bad("malformed omp_team line");
        }
      } else if (key == "mpi_constants") {
        ls >> rank.any_source >> rank.proc_null;
      } else if (key == "program") {
        ls >> rank.program_seconds >> rank.program_cpu_seconds >> rank.load_begin >>
            rank.load_end >> rank.steal_seconds >> rank.busy_seconds;
        if (!ls) {
          throw bad("malformed program line");
        }
        // The main thread's scheduler times came later (files without them: unknown).
        if (!(ls >> rank.run_seconds >> rank.wait_seconds) || !std::isfinite(rank.run_seconds) ||
            !std::isfinite(rank.wait_seconds)) {
          rank.run_seconds = -1.0;
          rank.wait_seconds = -1.0;
        }
        rank.has_program = true;
      } else if (key == "live") {
        std::uint32_t k = 0;
        double v = 0.0;
        ls >> k >> v;
        if (!ls || k >= slots) {
          throw bad("malformed live line");
        }
        rank.slots[k].live = v;
        m.slots[k].live += v;
      } else if (key == "trend") {
        std::uint32_t k = 0;
        double v = 0.0;
        ls >> k >> v;
        if (!ls || k >= slots || !std::isfinite(v)) {
          throw bad("malformed trend line");
        }
        rank.slots[k].trend = v;
        m.slots[k].trend += v;
      } else if (key == "team") {
        std::uint32_t k = 0;
        double v = 0.0;
        ls >> k >> v;
        if (!ls || k >= slots || !std::isfinite(v) || v < 0.0) {
          throw bad("malformed team line");
        }
        rank.slots[k].team = v;
        m.slots[k].team += v;
      } else if (key == "waited") {
        std::uint32_t k = 0;
        SlotMeasurement w;
        ls >> k >> w.watched >> w.watched_ticks >> w.removed_ticks;
        if (!ls || k >= slots || w.watched_ticks > rank.slots[k].sum) {
          throw bad("malformed waited line");
        }
        for (auto *target : {&rank.slots[k], &m.slots[k]}) {
          target->watched += w.watched;
          target->watched_ticks += w.watched_ticks;
          target->removed_ticks += w.removed_ticks;
        }
      } else if (key == "sizes") {
        std::uint32_t k = 0;
        ls >> k;
        if (!ls || k >= slots) {
          throw bad("malformed sizes line");
        }
        std::string entry;
        while (ls >> entry) {
          std::array<double, 3> bin{};
          if (std::sscanf(entry.c_str(), "%lf:%lf:%lf", &bin[0], &bin[1], &bin[2]) != 3 ||
              !(bin[0] > 0.0) || !std::isfinite(bin[0]) || !std::isfinite(bin[1]) ||
              !std::isfinite(bin[2])) {
            throw bad("malformed sizes entry '" + entry + "'");
          }
          const int index =
              bin[1] / bin[0] >= 1.0 ? static_cast<int>(std::log2(bin[1] / bin[0])) : 0;
          for (auto *target : {&rank.slots[k].sizes, &m.slots[k].sizes}) {
            auto &into = (*target)[index];
            for (int f = 0; f < 3; ++f) {
              into[static_cast<std::size_t>(f)] += bin[static_cast<std::size_t>(f)];
            }
          }
        }
      } else if (key == "values") {
        std::uint32_t k = 0;
        std::size_t n = 0;
        ls >> k >> n;
        if (!ls || k >= slots) {
          throw bad("malformed values line");
        }
        std::vector<double> &values = rank.values[k];
        // n is announced by the file: reserve no more than the line can hold
        values.reserve(std::min(n, line.size() / 2 + 1));
        double v = 0.0;
        while (values.size() < n && ls >> v) {
          values.push_back(v);
        }
        if (values.size() != n) {
          throw bad("values line with fewer values than announced");
        }
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
    ranks.push_back(std::move(rank));
  }
  std::sort(ranks.begin(), ranks.end(),
            [](const RankRun &a, const RankRun &b) { return a.rank < b.rank; });
  for (std::size_t i = 1; i < ranks.size(); ++i) {
    if (ranks[i].rank == ranks[i - 1].rank) {
      throw Error(ErrorKind::Run, "two estimates files of rank " + std::to_string(ranks[i].rank) +
                                      " in one run (files of two runs mixed in one directory?)");
    }
  }
  m.runs.push_back(std::move(ranks));
  m.ticks_per_second = tps / static_cast<double>(m.files);
  m.self_ticks = self / static_cast<double>(m.files);
  m.pair_ticks = pair / static_cast<double>(m.files);
  m.counter_ticks = counter / static_cast<double>(m.files);
  m.skip_ticks = skip / static_cast<double>(m.files);
  m.branch_ticks = branch / static_cast<double>(m.files);
  m.uncounted_ticks = uncounted / static_cast<double>(m.files);
  m.iteration_ticks = iteration / static_cast<double>(m.files);
  if (!(m.ticks_per_second > 0.0)) {
    throw Error(ErrorKind::Run, "the estimates files give no clock rate");
  }
  return m;
}

double total_seconds(const SlotMeasurement &s, const Measurements &m) {
  const double ticks = static_cast<double>(s.sum) - static_cast<double>(s.count) * m.self_ticks -
                       static_cast<double>(s.nested) * m.pair_ticks -
                       static_cast<double>(s.counters) * m.counter_ticks -
                       static_cast<double>(s.skips) * m.skip_ticks -
                       static_cast<double>(s.counter_skips) * m.uncounted_ticks;
  const double executions = static_cast<double>(executions_of(s));
  const double count = static_cast<double>(s.count);
  // A sampled probe's samples stand for executions / count executions each, but an
  // interruption (the process preempted on a shared machine, a page-fault storm) is an event
  // in time, not one per execution: scaled by the sampling stride, one 8 ms preemption among
  // 38k samples of a 15-ns malloc made it 0.87 s. The largest sample, when it is over 100 times
  // the others' mean, is counted once.
  if (executions > count && s.count > 1) {
    const double max = static_cast<double>(s.max);
    const double rest = (static_cast<double>(s.sum) - max) / (count - 1.0);
    if (max > 100.0 * std::max(rest, 1.0) && ticks > max) {
      return ((ticks - max) * (executions - 1.0) / (count - 1.0) + max) / m.ticks_per_second;
    }
  }
  const double scale = s.count > 0 ? executions / count : 1.0;
  return std::max(0.0, ticks) * scale / m.ticks_per_second;
}

double probe_seconds(const RankRun &rank, const Measurements &m, const EstimationPlan &plan) {
  double ticks = 0.0;
  for (const Probe &p : plan.probes) {
    if (p.slot >= rank.slots.size()) {
      continue;
    }
    const SlotMeasurement &s = rank.slots[p.slot];
    switch (p.kind) {
    case ProbeKind::Block:
    case ProbeKind::Fragment:
    case ProbeKind::Function:
    case ProbeKind::Prologue:
      ticks += static_cast<double>(s.count) * m.pair_ticks +
               static_cast<double>(executions_of(s) - s.count) * m.skip_ticks;
      break;
    case ProbeKind::Iterations: {
      const PlannedLoop *loop = plan.loop(p.node);
      if (loop == nullptr || !loop->by_iterations || loop->by_construct) {
        // A fragment's single timed iterations, or an OpenMP loop's executions timed whole: a
        // probe pair each.
        ticks += static_cast<double>(s.count) * m.pair_ticks;
        break;
      }
      // Every iteration pays the probe (iteration_ticks); a sample stands for a stretch of
      // kIterationSpan of them. The threads
      // of a team pay theirs at the same time: the run's time carries a team's share.
      double share = 1.0;
      const Probe *trips = plan.find(p.node, ProbeKind::Trips);
      if (trips != nullptr && trips->slot < rank.slots.size()) {
        const SlotMeasurement &t = rank.slots[trips->slot];
        if (t.count > 0 && t.team > static_cast<double>(t.count)) {
          share = static_cast<double>(t.count) / t.team;
        }
      }
      ticks += static_cast<double>(s.count) * Measurements::kIterationSpan *
               m.iteration_sample_ticks() * share;
      break;
    }
    case ProbeKind::Trips:
    case ProbeKind::Switch:
      ticks += static_cast<double>(s.count) * m.counter_ticks +
               static_cast<double>(executions_of(s) - s.count) * m.uncounted_ticks;
      break;
    case ProbeKind::Branch:
    case ProbeKind::Value:
    case ProbeKind::Input:
      ticks += static_cast<double>(s.count) * m.branch_ticks +
               static_cast<double>(executions_of(s) - s.count) * m.uncounted_ticks;
      break;
    case ProbeKind::Sized:
      ticks += static_cast<double>(s.count) * m.counter_ticks;
      break;
    }
  }
  return ticks / m.ticks_per_second;
}

std::vector<NodeTotal> node_totals(const EstimationPlan &plan, const Measurements &m) {
  std::vector<NodeTotal> out;
  if (m.runs.empty()) {
    return out;
  }
  const double runs = static_cast<double>(m.runs.size());
  for (const Probe &p : plan.probes) {
    const bool timed = p.kind == ProbeKind::Block || p.kind == ProbeKind::Fragment ||
                       p.kind == ProbeKind::Function;
    if (!timed && p.kind != ProbeKind::Trips && p.kind != ProbeKind::Branch) {
      continue;
    }
    NodeTotal t;
    t.node = p.node;
    t.kind = p.kind;
    for (const auto &run : m.runs) {
      for (const RankRun &rank : run) {
        if (p.slot >= rank.slots.size() || rank.slots[p.slot].count == 0) {
          continue;
        }
        const SlotMeasurement &s = rank.slots[p.slot];
        t.executions += static_cast<double>(executions_of(s)) / runs;
        if (timed) {
          t.seconds += total_seconds(s, m) / runs;
        } else if (p.kind == ProbeKind::Trips) {
          t.outcomes += total_of(s) / runs;
        } else {
          // Every true outcome is counted (probe_runtime.cpp: pj_branch).
          t.outcomes += static_cast<double>(s.sum) / runs;
        }
      }
    }
    out.push_back(t);
  }
  return out;
}

} // namespace parjava::frontend
