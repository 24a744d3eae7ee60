// The critical path and delay costs in parts (cause_parts.hpp): K parts of a hand-built trace,
// each owning a block of its processes, walk the path with the token handed from part to part
// and propagate the delay costs with the waiting sides handed to the causes' parts (here in
// one process; parjava.parallel sends both over MPI); the merge equals the serial analysis'
// path, profile, rows, activity numbering, imbalance and delay costs exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "parjava/analysis/causes/cause_parts.hpp"
#include "parjava/analysis/causes/causes.hpp"
#include "parjava/error.hpp"
#include "scenario.hpp"

namespace {

using parjava::analysis::ActivityTime;
using parjava::analysis::analyze_causes;
using parjava::analysis::CauseAnalysis;
using parjava::analysis::CausePart;
using parjava::trace::Timestamp;
using scan_test::Scenario;

// Process p of P belongs to part p * K / P, as parjava.parallel splits them.
std::vector<std::uint8_t> owned_by(const parjava::trace::Trace &t, std::uint32_t part,
                                   std::uint32_t parts) {
  std::int32_t processes = 0;
  for (const auto &loc : t.locations) {
    processes = std::max(processes, loc.rank + 1);
  }
  std::vector<std::uint8_t> owned(t.locations.size(), 0);
  for (std::size_t l = 0; l < t.locations.size(); ++l) {
    const auto rank = static_cast<std::uint32_t>(t.locations[l].rank);
    owned[l] = rank * parts / static_cast<std::uint32_t>(processes) == part ? 1 : 0;
  }
  return owned;
}

// The delay costs' propagation of `part`, the parts' messages delivered here; `budget` wait
// states per step (small: the parts interleave as on several processes).
void propagate(const parjava::trace::Trace &t, std::vector<std::unique_ptr<CausePart>> &part,
               const std::vector<std::uint32_t> &owner, std::size_t budget) {
  const auto parts = part.size();
  std::vector<std::uint8_t> owned_any(t.locations.size(), 1);
  const auto init = parjava::analysis::init_entries(t, owned_any);
  const bool init_all = init.entered == owner.size();
  // Step 1: each part's wait states caused elsewhere go to the causes' parts.
  std::vector<std::vector<std::string>> caused(parts);
  for (const auto &p : part) {
    const auto bytes = p->caused_elsewhere(owner, parts);
    EXPECT_EQ(bytes.size(), parts);
    for (std::size_t k = 0; k < parts; ++k) {
      caused[k].push_back(bytes[k]);
    }
  }
  for (std::size_t k = 0; k < parts; ++k) {
    part[k]->start_delays(t, owner, caused[k], init.latest, init_all);
  }
  std::vector<std::vector<std::string>> inbox(parts);
  std::vector<bool> done(parts, false);
  for (std::size_t round = 0; std::count(done.begin(), done.end(), true) < std::ptrdiff_t(parts);
       ++round) {
    ASSERT_LT(round, 100000U) << "the propagation does not end";
    for (std::size_t k = 0; k < parts; ++k) {
      if (done[k]) {
        continue;
      }
      std::vector<std::string> outgoing(parts);
      const auto status = part[k]->propagate_delays(inbox[k], outgoing, budget);
      inbox[k].clear();
      for (std::size_t to = 0; to < parts; ++to) {
        if (!outgoing[to].empty()) {
          ASSERT_FALSE(done[to]) << "a finished part was sent a waiting side";
          inbox[to].push_back(outgoing[to]);
        }
      }
      done[k] = status == CausePart::Propagation::Done;
    }
  }
}

CauseAnalysis in_parts(const parjava::trace::Trace &t, std::uint32_t parts,
                       std::size_t budget = 0) {
  const auto locations = parjava::analysis::analysed_locations(t);
  const auto n = locations.size();
  // The reductions parjava.parallel does over MPI.
  std::vector<Timestamp> entry(n, std::numeric_limits<Timestamp>::min());
  std::uint32_t entered = 0;
  for (std::uint32_t k = 0; k < parts; ++k) {
    const auto e = parjava::analysis::finalize_entries(t, owned_by(t, k, parts));
    entered += e.entered;
    for (std::size_t l = 0; l < n; ++l) {
      entry[l] = std::max(entry[l], e.entry[l]);
    }
  }
  std::uint32_t latest = parjava::trace::kNoRef;
  Timestamp latest_entry = 0;
  if (entered == n) {
    latest =
        static_cast<std::uint32_t>(std::max_element(entry.begin(), entry.end()) - entry.begin());
    latest_entry = entry[latest];
  }
  std::vector<std::unique_ptr<CausePart>> part;
  std::vector<Timestamp> begins(n, std::numeric_limits<Timestamp>::max());
  std::vector<Timestamp> ends(n, std::numeric_limits<Timestamp>::min());
  std::vector<std::uint32_t> owner(n, 0);
  for (std::uint32_t k = 0; k < parts; ++k) {
    const auto owned = owned_by(t, k, parts);
    part.push_back(std::make_unique<CausePart>(t, owned, latest, latest_entry));
    const auto b = part.back()->begins();
    const auto e = part.back()->ends();
    for (std::size_t l = 0; l < n; ++l) {
      begins[l] = std::min(begins[l], b[l]);
      ends[l] = std::max(ends[l], e[l]);
      if (owned[locations[l]] != 0) {
        owner[l] = k;
      }
    }
  }
  const auto start =
      static_cast<std::uint32_t>(std::max_element(ends.begin(), ends.end()) - ends.begin());
  CausePart::Step step{start, ends[start], 0, false};
  const Timestamp first = *std::min_element(begins.begin(), begins.end());
  std::size_t hops = 0;
  while (!step.done) {
    step = part[owner[step.location]]->walk(step.location, step.time, first, step.step);
    ++hops;
  }
  EXPECT_GE(hops, 1U);
  if (budget != 0) {
    propagate(t, part, owner, budget);
  }
  std::vector<std::string> bytes;
  bytes.reserve(part.size());
  for (const auto &p : part) {
    bytes.push_back(p->result_bytes());
  }
  return parjava::analysis::merge_cause_parts(t, bytes, 0.0);
}

// Bit for bit: the parts' sums must not differ in the last digit.
bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

bool same_rows(const std::vector<ActivityTime> &a, const std::vector<ActivityTime> &b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].location != b[i].location || a[i].activity != b[i].activity ||
        !same_bits(a[i].ns, b[i].ns)) {
      return false;
    }
  }
  return true;
}

void expect_same_path(const CauseAnalysis &serial, const CauseAnalysis &merged) {
  EXPECT_EQ(merged.activities, serial.activities);
  EXPECT_EQ(merged.locations, serial.locations);
  EXPECT_TRUE(same_rows(merged.time, serial.time));
  EXPECT_TRUE(same_rows(merged.waiting, serial.waiting));
  const auto &a = serial.critical_path;
  const auto &b = merged.critical_path;
  ASSERT_EQ(b.segments.size(), a.segments.size());
  for (std::size_t i = 0; i < a.segments.size(); ++i) {
    EXPECT_EQ(b.segments[i].location, a.segments[i].location) << i;
    EXPECT_EQ(b.segments[i].begin, a.segments[i].begin) << i;
    EXPECT_EQ(b.segments[i].end, a.segments[i].end) << i;
  }
  EXPECT_EQ(b.begin, a.begin);
  EXPECT_EQ(b.end, a.end);
  EXPECT_EQ(b.length, a.length);
  EXPECT_TRUE(same_rows(b.profile, a.profile));
  ASSERT_EQ(b.imbalance.size(), a.imbalance.size());
  for (std::size_t i = 0; i < a.imbalance.size(); ++i) {
    EXPECT_TRUE(same_bits(b.imbalance[i], a.imbalance[i])) << i;
  }
  EXPECT_TRUE(same_bits(b.imbalance_total, a.imbalance_total));
}

void expect_same_costs(const CauseAnalysis &serial, const CauseAnalysis &merged) {
  const auto &a = serial.delays;
  const auto &b = merged.delays;
  EXPECT_EQ(b.wait_states, a.wait_states);
  EXPECT_TRUE(same_bits(b.total_wait, a.total_wait));
  EXPECT_TRUE(same_bits(b.unattributed, a.unattributed));
  ASSERT_EQ(b.costs.size(), a.costs.size());
  for (std::size_t i = 0; i < a.costs.size(); ++i) {
    EXPECT_EQ(b.costs[i].location, a.costs[i].location) << i;
    EXPECT_EQ(b.costs[i].activity, a.costs[i].activity) << i;
    EXPECT_TRUE(same_bits(b.costs[i].short_term, a.costs[i].short_term)) << i;
    EXPECT_TRUE(same_bits(b.costs[i].long_term, a.costs[i].long_term)) << i;
  }
}

// A chain of late senders over four processes, a barrier the last one reaches late, more
// messages in the other direction, and MPI_Finalize entered at different times: the path
// jumps between every pair of parts and ends in a Wait at Finalize.
Scenario chain() {
  Scenario s(4);
  s.compute(0, 0, 300);
  s.send(0, "MPI_Send", 300, 310, 1, 8);
  s.compute(1, 0, 100);
  s.recv(1, 100, 320, 0, 8);
  s.send(1, "MPI_Send", 320, 330, 2, 8);
  s.compute(2, 0, 100);
  s.recv(2, 100, 340, 1, 8);
  s.compute(2, 340, 500);
  s.send(2, "MPI_Send", 500, 510, 3, 8);
  s.compute(3, 0, 50);
  s.recv(3, 50, 520, 2, 8);
  const Timestamp arrive[] = {530, 560, 900, 700};
  for (std::uint32_t r = 0; r < 4; ++r) {
    s.compute(r, arrive[r] - 10, arrive[r]);
    s.collective(r, "MPI_Barrier", arrive[r], 910);
  }
  s.compute(3, 910, 1200);
  s.send(3, "MPI_Send", 1200, 1210, 0, 8);
  s.recv(0, 910, 1220, 3, 8);
  const Timestamp finalize[] = {1230, 1300, 1250, 1400};
  for (std::uint32_t r = 0; r < 4; ++r) {
    s.compute(r, finalize[r] - 5, finalize[r]);
    s.b.enter(r, finalize[r], s.b.region("MPI_Finalize"), s.site);
    s.b.leave(r, 1410);
  }
  return s;
}

TEST(CauseParts, EveryPartitionGivesTheSerialCriticalPath) {
  Scenario s = chain();
  s.trace = s.b.finish();
  s.built = true;
  const CauseAnalysis serial = analyze_causes(s.trace);
  ASSERT_GE(serial.critical_path.segments.size(), 4U);
  EXPECT_EQ(serial.critical_path.length, 1410);
  for (std::uint32_t parts = 1; parts <= 4; ++parts) {
    SCOPED_TRACE(parts);
    expect_same_path(serial, in_parts(s.trace, parts));
  }
}

TEST(CauseParts, EveryPartitionGivesTheSerialDelayCosts) {
  Scenario s = chain();
  s.trace = s.b.finish();
  s.built = true;
  const CauseAnalysis serial = analyze_causes(s.trace);
  // Long-term costs: the barrier's waiting propagates back along the chain of late senders.
  double long_term = 0.0;
  for (const auto &c : serial.delays.costs) {
    long_term += c.long_term;
  }
  ASSERT_GE(serial.delays.costs.size(), 4U);
  EXPECT_GT(long_term, 0.0);
  for (std::uint32_t parts = 1; parts <= 4; ++parts) {
    for (const std::size_t budget : {std::size_t{1}, std::size_t{2}, std::size_t{1000}}) {
      SCOPED_TRACE(std::to_string(parts) + " parts, budget " + std::to_string(budget));
      const auto merged = in_parts(s.trace, parts, budget);
      expect_same_path(serial, merged);
      expect_same_costs(serial, merged);
    }
  }
}

TEST(CauseParts, DelayCostsRefuseAPartThatDidNotPropagate) {
  Scenario s = chain();
  s.trace = s.b.finish();
  s.built = true;
  CausePart part(s.trace, owned_by(s.trace, 0, 1), parjava::trace::kNoRef, 0);
  const std::vector<std::uint32_t> owner(4, 0);
  std::vector<std::string> outgoing(1);
  EXPECT_THROW((void)part.propagate_delays({}, outgoing, 10), parjava::Error);
  part.start_delays(s.trace, owner, part.caused_elsewhere(owner, 1), 0, false);
  ASSERT_EQ(part.propagate_delays({}, outgoing, 1), CausePart::Propagation::More);
  EXPECT_THROW((void)part.result_bytes(), parjava::Error); // not finished
  EXPECT_THROW((void)part.propagate_delays({"damaged"}, outgoing, 10), parjava::Error);
}

TEST(CauseParts, WalkRefusesAnotherPartsProcess) {
  Scenario s = chain();
  s.trace = s.b.finish();
  s.built = true;
  CausePart part(s.trace, owned_by(s.trace, 0, 2), parjava::trace::kNoRef, 0);
  EXPECT_THROW((void)part.walk(3, 1000, 0, 0), parjava::Error);
}

TEST(CauseParts, DamagedBytesAreAnError) {
  Scenario s = chain();
  s.trace = s.b.finish();
  s.built = true;
  CausePart part(s.trace, owned_by(s.trace, 0, 1), parjava::trace::kNoRef, 0);
  auto bytes = part.result_bytes();
  bytes.resize(bytes.size() / 2);
  EXPECT_THROW((void)parjava::analysis::merge_cause_parts(s.trace, {bytes}, 0.0), parjava::Error);
}

} // namespace
