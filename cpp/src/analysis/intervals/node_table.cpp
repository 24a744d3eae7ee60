// Interval nodes by identity (see node_table.hpp).
#include "node_table.hpp"

#include <utility>

namespace parjava::analysis::detail {

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative matcher with backtracking to the last '*': linear for patterns with one '*'.
  std::size_t p = 0;
  std::size_t t = 0;
  std::size_t star = std::string_view::npos;
  std::size_t resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') {
    ++p;
  }
  return p == pattern.size();
}

std::size_t NodeTable::KeyHash::operator()(const Key &k) const noexcept {
  std::uint64_t h = k.parent;
  h = h * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(k.source);
  h = h * 0x9E3779B97F4A7C15ULL + k.site;
  h = h * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(k.id);
  return static_cast<std::size_t>(h ^ (h >> 29U));
}

NodeTable::NodeTable(const trace::Trace &trace, const IntervalOptions &options,
                     std::vector<IntervalNode> &nodes)
    : trace_(trace), options_(options), nodes_(nodes),
      callsite_sites_(trace.callsites.size(), trace::kNoRef) {
  nodes_.clear();
  IntervalNode root;
  root.id = kRoot;
  root.source = IntervalSource::Root;
  root.name = "whole program";
  nodes_.push_back(std::move(root));
}

std::uint32_t NodeTable::intern_site(const std::string &file, std::uint32_t line) {
  auto key = file;
  key.push_back('\0');
  key += std::to_string(line);
  const auto [it, inserted] = site_ids_.try_emplace(std::move(key), 0);
  if (inserted) {
    it->second = static_cast<std::uint32_t>(sites_.size());
    sites_.push_back({file, line});
  }
  return it->second;
}

std::uint32_t NodeTable::site_of_callsite(std::uint32_t callsite) {
  if (callsite >= trace_.callsites.size()) {
    return intern_site({}, 0);
  }
  auto &cached = callsite_sites_[callsite];
  if (cached == trace::kNoRef) {
    const auto &cs = trace_.callsites[callsite];
    cached = intern_site(cs.file, cs.line);
  }
  return cached;
}

std::uint32_t NodeTable::find_or_add(const Key &key, IntervalSource source, std::string name,
                                     const Site &site, std::int64_t user_id, std::uint32_t region) {
  const auto found = children_.find(key);
  if (found != children_.end()) {
    return found->second;
  }
  const auto id = static_cast<std::uint32_t>(nodes_.size());
  IntervalNode node;
  node.id = id;
  node.parent = key.parent;
  node.level = nodes_[key.parent].level + 1;
  node.source = source;
  node.name = std::move(name);
  node.file = site.file;
  node.line = site.line;
  node.user_id = user_id;
  node.region = region;
  node.sequential = false;
  node.first_process = process_;
  node.first_lookup = lookups_;
  for (const auto &pattern : options_.sequential) {
    if (glob_match(pattern, node.name)) {
      node.sequential = true;
      break;
    }
  }
  nodes_.push_back(std::move(node));
  nodes_[key.parent].children.push_back(id);
  children_.emplace(key, id);
  return id;
}

std::uint32_t NodeTable::marker(std::uint32_t parent, std::uint32_t region, std::uint32_t callsite,
                                std::int64_t user_id) {
  ++lookups_;
  // The marker's call site is its identity; without one, the interval region's source
  // location (docs/otf2-conventions.md: the region carries the marker's file and line).
  std::uint32_t site = 0;
  if (callsite < trace_.callsites.size()) {
    site = site_of_callsite(callsite);
  } else if (region < trace_.regions.size()) {
    site = intern_site(trace_.regions[region].file, trace_.regions[region].line_begin);
  } else {
    site = intern_site({}, 0);
  }
  const Key key{parent, IntervalSource::Marker, site, user_id};
  if (const auto found = children_.find(key); found != children_.end()) {
    return found->second;
  }
  auto name = region < trace_.regions.size() ? trace_.regions[region].name : std::string();
  if (name.empty()) {
    name = "interval " + std::to_string(user_id);
  }
  return find_or_add(key, IntervalSource::Marker, std::move(name), sites_[site], user_id, region);
}

std::uint32_t NodeTable::pcontrol(std::uint32_t parent, std::uint32_t callsite) {
  ++lookups_;
  const auto site = site_of_callsite(callsite);
  const Key key{parent, IntervalSource::Pcontrol, site, 0};
  if (const auto found = children_.find(key); found != children_.end()) {
    return found->second;
  }
  return find_or_add(key, IntervalSource::Pcontrol, "MPI_Pcontrol phase", sites_[site], 0,
                     trace::kNoRef);
}

std::uint32_t NodeTable::region(std::uint32_t parent, std::uint32_t region) {
  ++lookups_;
  const Key key{parent, IntervalSource::Region, region, 0};
  if (const auto found = children_.find(key); found != children_.end()) {
    return found->second;
  }
  const auto &r = trace_.regions[region];
  return find_or_add(key, IntervalSource::Region, r.name, Site{r.file, r.line_begin}, 0, region);
}

} // namespace parjava::analysis::detail
