// Interval identity (notes 004 §2.2): under one parent, an interval is its (file, line, id) —
// for markers the marker's call site and user id, for MPI_Pcontrol phases the call site of the
// MPI_Pcontrol that began the phase, for user regions the region itself. The first execution
// creates the node; later ones with the same identity find it and accumulate into it.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "parjava/analysis/intervals/interval_options.hpp"
#include "parjava/analysis/intervals/interval_tree.hpp"
#include "parjava/trace/trace.hpp"

namespace parjava::analysis::detail {

// Glob match with '*' (any run) and '?' (one character).
bool glob_match(std::string_view pattern, std::string_view text);

class NodeTable {
public:
  NodeTable(const trace::Trace &trace, const IntervalOptions &options,
            std::vector<IntervalNode> &nodes);

  // The root (level 0, the whole run), created by the constructor.
  static constexpr std::uint32_t kRoot = 0;

  // A walk of `process` begins: look-ups are counted from here (IntervalNode::first_lookup).
  void begin_process(std::uint32_t process) {
    process_ = process;
    lookups_ = 0;
  }

  // The child of `parent` for a marker (IntervalBegin event), a Pcontrol phase (call site) or
  // a user region (Enter event's region); created on first use.
  std::uint32_t marker(std::uint32_t parent, std::uint32_t region, std::uint32_t callsite,
                       std::int64_t user_id);
  std::uint32_t pcontrol(std::uint32_t parent, std::uint32_t callsite);
  std::uint32_t region(std::uint32_t parent, std::uint32_t region);

private:
  struct Key {
    std::uint32_t parent;
    IntervalSource source;
    std::uint32_t site; // interned (file, line), or the region for user regions
    std::int64_t id;
    bool operator==(const Key &o) const {
      return parent == o.parent && source == o.source && site == o.site && id == o.id;
    }
  };
  struct KeyHash {
    std::size_t operator()(const Key &k) const noexcept;
  };
  struct Site {
    std::string file;
    std::uint32_t line = 0;
  };

  std::uint32_t site_of_callsite(std::uint32_t callsite);
  std::uint32_t intern_site(const std::string &file, std::uint32_t line);
  std::uint32_t find_or_add(const Key &key, IntervalSource source, std::string name,
                            const Site &site, std::int64_t user_id, std::uint32_t region);

  const trace::Trace &trace_;
  const IntervalOptions &options_;
  std::vector<IntervalNode> &nodes_;
  std::unordered_map<Key, std::uint32_t, KeyHash> children_;
  std::vector<std::uint32_t> callsite_sites_; // callsite -> site (kNoRef: not yet interned)
  std::unordered_map<std::string, std::uint32_t> site_ids_;
  std::vector<Site> sites_;
  std::uint32_t process_ = 0;
  std::uint64_t lookups_ = 0;
};

} // namespace parjava::analysis::detail
