#include "parjava/machine/placement.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "parjava/error.hpp"

namespace parjava::machine {

std::string_view placement_kind_name(PlacementKind kind) {
  switch (kind) {
  case PlacementKind::Block:
    return "block";
  case PlacementKind::RoundRobin:
    return "round_robin";
  case PlacementKind::Explicit:
    return "explicit";
  }
  return "unknown";
}

Placement Placement::explicit_nodes(std::vector<int> nodes, std::string source) {
  for (std::size_t r = 0; r < nodes.size(); ++r) {
    if (nodes[r] < 0) {
      throw Error(ErrorKind::Machine, "placement.nodes[" + std::to_string(r) +
                                          "]: a node index must be >= 0 (got " +
                                          std::to_string(nodes[r]) + ")");
    }
  }
  return {PlacementKind::Explicit, std::move(nodes), std::move(source)};
}

namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}
} // namespace

Placement parse_placement(std::string_view text, const std::vector<std::string> &node_names,
                          std::string_view origin) {
  std::unordered_map<std::string_view, int> by_name;
  for (std::size_t i = 0; i < node_names.size(); ++i) {
    by_name.emplace(node_names[i], static_cast<int>(i));
  }
  std::vector<int> nodes;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    ++line_number;
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    line = trim(line);
    if (line.empty()) {
      continue;
    }
    const auto where = [&] {
      return std::string(origin) + ":" + std::to_string(line_number) + ": ";
    };
    std::string_view node_text = line;
    long long count = 1;
    if (const std::size_t colon = line.rfind(':'); colon != std::string_view::npos) {
      node_text = trim(line.substr(0, colon));
      const std::string_view count_text = trim(line.substr(colon + 1));
      const auto [p, ec] =
          std::from_chars(count_text.data(), count_text.data() + count_text.size(), count);
      if (ec != std::errc{} || p != count_text.data() + count_text.size() || count < 1 ||
          count > (1LL << 31)) {
        throw Error(ErrorKind::Machine,
                    where() + "\"" + std::string(count_text) + "\" is not a rank count >= 1");
      }
    }
    int node = -1;
    if (const auto found = by_name.find(node_text); found != by_name.end()) {
      node = found->second;
    } else {
      int index = 0;
      const auto [p, ec] =
          std::from_chars(node_text.data(), node_text.data() + node_text.size(), index);
      if (ec != std::errc{} || p != node_text.data() + node_text.size() || index < 0) {
        throw Error(ErrorKind::Machine,
                    where() + "\"" + std::string(node_text) +
                        "\" is neither a node index >= 0 nor a node name of the machine" +
                        (node_names.empty() ? std::string(" (it has no node names)")
                                            : " (e.g. \"" + node_names.front() + "\")"));
      }
      node = index;
    }
    if (nodes.size() + static_cast<std::size_t>(count) > (std::size_t{1} << 31)) {
      throw Error(ErrorKind::Machine, where() + "more than 2^31 ranks");
    }
    nodes.insert(nodes.end(), static_cast<std::size_t>(count), node);
  }
  if (nodes.empty()) {
    throw Error(ErrorKind::Machine, std::string(origin) + ": the placement file names no rank");
  }
  return {PlacementKind::Explicit, std::move(nodes), std::string(origin)};
}

Placement read_placement(const std::string &path, const std::vector<std::string> &node_names) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw Error(ErrorKind::Machine,
                path + ": cannot open the placement file (" + std::strerror(errno) + ")");
  }
  std::ostringstream text;
  text << file.rdbuf();
  return parse_placement(text.str(), node_names, path);
}

std::vector<std::int32_t> place_ranks(const Placement &placement, std::int64_t ranks, int nodes,
                                      int ranks_per_node, std::int64_t limit) {
  const std::int64_t per_node = std::max(1, ranks_per_node);
  std::int64_t used = std::max<std::int64_t>(nodes, (ranks + per_node - 1) / per_node);
  std::vector<std::int32_t> out(static_cast<std::size_t>(ranks));
  switch (placement.kind) {
  case PlacementKind::Block:
    for (std::int64_t r = 0; r < ranks; ++r) {
      out[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(r / per_node);
    }
    used = (ranks + per_node - 1) / per_node;
    break;
  case PlacementKind::RoundRobin:
    if (limit > 0) {
      used = std::min(used, std::max(limit, (ranks + per_node - 1) / per_node));
    }
    for (std::int64_t r = 0; r < ranks; ++r) {
      out[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(r % used);
    }
    used = std::min(used, ranks);
    break;
  case PlacementKind::Explicit: {
    if (static_cast<std::int64_t>(placement.nodes.size()) < ranks) {
      throw Error(ErrorKind::Usage,
                  "the placement" +
                      (placement.source.empty() ? std::string() : " from " + placement.source) +
                      " places " + std::to_string(placement.nodes.size()) + " ranks, but " +
                      std::to_string(ranks) + " were asked for; give a node for every rank");
    }
    std::vector<std::int64_t> count;
    used = 0;
    for (std::int64_t r = 0; r < ranks; ++r) {
      const int node = placement.nodes[static_cast<std::size_t>(r)];
      out[static_cast<std::size_t>(r)] = node;
      used = std::max<std::int64_t>(used, node + 1);
      if (static_cast<std::size_t>(node) >= count.size()) {
        count.resize(static_cast<std::size_t>(node) + 1, 0);
      }
      ++count[static_cast<std::size_t>(node)];
    }
    break;
  }
  }
  if (limit > 0 && used > limit) {
    throw Error(ErrorKind::Usage, std::to_string(ranks) + " ranks need " + std::to_string(used) +
                                      " nodes, but the machine's topology connects " +
                                      std::to_string(limit) +
                                      " (use more ranks per node, or a larger topology)");
  }
  return out;
}

} // namespace parjava::machine
