// Per-rank opaque statistics (interfaces §1): at the np they were measured at, rank r uses
// entry r; at another np, rank 0 uses the first entry, rank np-1 the last and the ranks between
// the samples-weighted pool of the entries between (the pooled statistics when there are fewer
// than three). Entries with no samples use the pooled statistics.
#include "opaque_classes.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace parjava::interp {

using model::Node;
using model::NodeIndex;
using model::Opaque;
using model::OpaqueRankStats;

namespace {

void set_distribution(OpaqueStats &s, const std::vector<std::pair<std::int64_t, double>> &raw) {
  s.distribution.clear();
  double total = 0.0;
  for (const auto &[count, freq] : raw) {
    total += freq;
  }
  if (!(total > 0.0)) {
    return;
  }
  double cumulative = 0.0;
  for (const auto &[count, freq] : raw) {
    cumulative += freq / total;
    s.distribution.emplace_back(count, cumulative);
  }
}

void set_weights(OpaqueStats &s, const std::vector<double> &raw) {
  double total = 0.0;
  for (double w : raw) {
    total += w;
  }
  s.weights.clear();
  for (double w : raw) {
    s.weights.push_back(total > 0.0 ? w / total : 0.0);
  }
}

OpaqueStats entry_stats(const OpaqueRankStats &e, Opaque::Kind kind, const OpaqueStats &base) {
  if (e.samples == 0) {
    return base;
  }
  OpaqueStats s;
  s.probability = e.probability;
  s.trips_mean = e.trips_mean;
  set_distribution(s, e.distribution);
  if (kind == Opaque::Kind::Weights) {
    set_weights(s, e.weights);
  }
  return s;
}

// The samples-weighted pool of entries [from, to).
OpaqueStats pool(const Opaque &o, std::size_t from, std::size_t to, const OpaqueStats &base) {
  double total = 0.0;
  bool all_distributions = true;
  for (std::size_t i = from; i < to; ++i) {
    const auto &e = o.by_rank[i];
    if (e.samples != 0) {
      total += static_cast<double>(e.samples);
      all_distributions = all_distributions && !e.distribution.empty();
    }
  }
  if (!(total > 0.0)) {
    return base;
  }
  OpaqueStats s;
  std::map<std::int64_t, double> merged;
  std::vector<double> weights;
  for (std::size_t i = from; i < to; ++i) {
    const auto &e = o.by_rank[i];
    if (e.samples == 0) {
      continue;
    }
    const double share = static_cast<double>(e.samples) / total;
    s.probability += share * e.probability;
    s.trips_mean += share * e.trips_mean;
    if (all_distributions) {
      double sum = 0.0;
      for (const auto &[count, freq] : e.distribution) {
        sum += freq;
      }
      for (const auto &[count, freq] : e.distribution) {
        merged[count] += sum > 0.0 ? share * freq / sum : 0.0;
      }
    }
    if (o.kind == Opaque::Kind::Weights) {
      double sum = 0.0;
      for (double w : e.weights) {
        sum += w;
      }
      weights.resize(e.weights.size(), 0.0);
      for (std::size_t c = 0; c < e.weights.size(); ++c) {
        weights[c] += sum > 0.0 ? share * e.weights[c] / sum : 0.0;
      }
    }
  }
  if (all_distributions) {
    set_distribution(s, {merged.begin(), merged.end()});
  }
  if (o.kind == Opaque::Kind::Weights) {
    set_weights(s, weights);
  }
  return s;
}

// The spread of the measured entries when they differ by more than the bar of interfaces §1
// (0.05 in probability or case weight, 5 % in mean trips); empty when they agree.
std::string spread(const Opaque &o) {
  double lo = INFINITY;
  double hi = -INFINITY;
  double worst = 0.0; // weights: the largest spread of one case
  std::size_t measured = 0;
  for (const auto &e : o.by_rank) {
    if (e.samples == 0) {
      continue;
    }
    ++measured;
    const double v = o.kind == Opaque::Kind::Probability ? e.probability : e.trips_mean;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (measured < 2) {
    return {};
  }
  std::ostringstream text;
  if (o.kind == Opaque::Kind::Probability) {
    if (hi - lo <= 0.05) {
      return {};
    }
    text << "probability " << lo << " to " << hi;
  } else if (o.kind == Opaque::Kind::Trips) {
    if (hi - lo <= 0.05 * std::max(hi, 1e-12)) {
      return {};
    }
    text << "mean trips " << lo << " to " << hi;
  } else {
    std::size_t cases = 0;
    for (const auto &e : o.by_rank) {
      cases = std::max(cases, e.weights.size());
    }
    for (std::size_t c = 0; c < cases; ++c) {
      double clo = INFINITY;
      double chi = -INFINITY;
      for (const auto &e : o.by_rank) {
        if (e.samples == 0 || c >= e.weights.size()) {
          continue;
        }
        double sum = 0.0;
        for (double w : e.weights) {
          sum += w;
        }
        const double v = sum > 0.0 ? e.weights[c] / sum : 0.0;
        clo = std::min(clo, v);
        chi = std::max(chi, v);
      }
      worst = std::max(worst, chi - clo);
    }
    if (worst <= 0.05) {
      return {};
    }
    text << "case weights differ by up to " << worst;
  }
  return text.str();
}

} // namespace

void opaque_statistics(const model::Model &model, NodeIndex n, std::int64_t np, OpaqueInfo &out,
                       std::vector<std::string> &warnings) {
  const Node &node = model.nodes[n];
  const Opaque &o = node.opaque;
  out.kind = o.kind;
  out.base.probability = o.probability;
  out.base.trips_mean = o.trips_mean;
  set_distribution(out.base, o.distribution);
  if (o.kind == Opaque::Kind::Weights) {
    std::vector<double> raw;
    raw.reserve(node.cases.size());
    for (const auto &c : node.cases) {
      raw.push_back(c.weight);
    }
    set_weights(out.base, raw);
  }
  out.classes.clear();
  out.per_rank = false;
  const std::size_t len = o.by_rank.size();
  if (len == 0) {
    return;
  }
  out.unmeasured.clear();
  if (static_cast<std::size_t>(np) == len) {
    out.per_rank = true;
    for (const auto &e : o.by_rank) {
      out.classes.push_back(entry_stats(e, o.kind, out.base));
      out.unmeasured.push_back(e.samples == 0 ? 1 : 0);
    }
    return;
  }
  std::uint64_t between = 0;
  for (std::size_t i = 1; i + 1 < len; ++i) {
    between += o.by_rank[i].samples;
  }
  out.classes.push_back(entry_stats(o.by_rank.front(), o.kind, out.base));
  out.classes.push_back(len >= 3 ? pool(o, 1, len - 1, out.base) : out.base);
  out.classes.push_back(entry_stats(o.by_rank.back(), o.kind, out.base));
  out.unmeasured = {static_cast<std::uint8_t>(o.by_rank.front().samples == 0 ? 1 : 0),
                    static_cast<std::uint8_t>(len >= 3 && between == 0 ? 1 : 0),
                    static_cast<std::uint8_t>(o.by_rank.back().samples == 0 ? 1 : 0)};
  const std::string differ = spread(o);
  if (!differ.empty()) {
    const std::string middle = len >= 3
                                   ? "the pool of estimation ranks 1.." + std::to_string(len - 2)
                                   : "the statistics pooled over all ranks";
    warnings.push_back("model '" + model.name + "', " + model.describe(n) +
                       ": opaque statistics measured per rank at np " + std::to_string(len) +
                       " differ across ranks (" + differ + "); at np " + std::to_string(np) +
                       " they are applied by rank class: rank 0 uses estimation rank 0's, rank " +
                       std::to_string(np - 1) + " estimation rank " + std::to_string(len - 1) +
                       "'s, the ranks between " + middle);
  }
}

} // namespace parjava::interp
