// Clock correction (linear drift between the init and finalize offsets) and the routine table.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "parjava/trace/functions.hpp"
#include "parjava/tracer/clock_anchor.hpp"
#include "parjava/tracer/clock_correction.hpp"
#include "parjava/tracer/routines.hpp"

namespace parjava::tracer {
namespace {

TEST(ClockCorrection, InterpolatesTheOffsetLinearly) {
  // Local clock 1000 ns ahead at t=1e9, 3000 ns ahead at t=3e9: drift of 1 ppm.
  const ClockCorrection c(ClockSample{1'000'000'000, 1000, 500},
                          ClockSample{3'000'000'000, 3000, 500});
  EXPECT_EQ(c.mode(), ClockMode::Linear);
  EXPECT_EQ(c.to_reference(1'000'000'000), 999'999'000);
  EXPECT_EQ(c.to_reference(2'000'000'000), 1'999'998'000);
  EXPECT_EQ(c.to_reference(3'000'000'000), 2'999'997'000);
  EXPECT_EQ(c.to_reference(0), 0); // extrapolated: offset 0 at local time 0
}

TEST(ClockAnchor, KeepsThePairWithTheShortestBracket) {
  // A 3 GHz tick counter and a ns clock that advance together; the first reading is preempted
  // for 50 us between the tick read and the ns read, the third takes 30 ns.
  std::uint64_t now_ns = 1'000'000;
  int tick_reads = 0;
  auto ticks = [&] {
    ++tick_reads;
    return now_ns * 3;
  };
  int ns_reads = 0;
  const std::uint64_t costs[] = {50'000, 100, 30, 100, 100};
  auto ns = [&] {
    now_ns += costs[ns_reads++];
    const auto read = now_ns;
    now_ns += 10;
    return read;
  };
  const auto anchor = closest_clock_anchor(ticks, ns);
  EXPECT_EQ(tick_reads, 2 * kClockAnchorReads);
  EXPECT_EQ(anchor.gap, 3U * 40U); // the 30 ns reading plus its 10 ns
  // Its tick lies within 20 ns (60 ticks) of the ns time read: no 50 us skew.
  const auto tick_as_ns = anchor.tick / 3;
  EXPECT_LE(tick_as_ns > anchor.ns ? tick_as_ns - anchor.ns : anchor.ns - tick_as_ns, 20U);
}

TEST(ClockAnchor, ATickCounterGoingBackIsReadAgain) {
  std::uint64_t values[] = {100, 90, 200, 210, 300, 305, 400, 410, 500, 510, 600, 610};
  int next = 0;
  auto ticks = [&] { return values[next++]; };
  auto ns = [] { return std::uint64_t{7}; };
  const auto anchor = closest_clock_anchor(ticks, ns);
  EXPECT_EQ(anchor.gap, 5U);
  EXPECT_EQ(anchor.tick, 302U);
}

TEST(ClockCorrection, FallsBackToOffsetThenNothing) {
  const ClockCorrection offset(ClockSample{5000, -250, 100}, std::nullopt);
  EXPECT_EQ(offset.mode(), ClockMode::Offset);
  EXPECT_EQ(offset.to_reference(10'000), 10'250);
  const ClockCorrection none;
  EXPECT_EQ(none.mode(), ClockMode::None);
  EXPECT_EQ(none.to_reference(777), 777);
  EXPECT_EQ(clock_mode_name(ClockMode::Linear), "linear");
}

TEST(TickConverter, MapsTicksToNanosecondsThroughAnchors) {
  // A 3 GHz TSC whose rate changes slightly after the second anchor.
  const TickConverter c({{3'000'000'000, 1'000'000'000},
                         {9'000'000'000, 3'000'000'000},
                         {6'000'000'000, 2'000'000'000}, // out of order: sorted
                         {9'000'000'000, 3'000'000'000}, // duplicate: dropped
                         {15'000'006'000, 5'000'000'000}});
  ASSERT_TRUE(c.usable());
  EXPECT_EQ(c.to_ns(3'000'000'000), 1'000'000'000U);
  EXPECT_EQ(c.to_ns(4'500'000'000), 1'500'000'000U);
  EXPECT_EQ(c.to_ns(12'000'003'000), 4'000'000'000U); // the last segment's own rate
  EXPECT_EQ(c.to_ns(0), 0U);                          // first segment extended backwards
  EXPECT_EQ(c.to_ns(18'000'009'000), 6'000'000'000U); // last segment extended forwards
  EXPECT_FALSE(TickConverter({{5, 5}}).usable());
  EXPECT_EQ(TickConverter().to_ns(123), 123U); // the monotonic timer: identity
  ProcessFragment monotonic;
  monotonic.tick_anchors = {{1, 2}, {3, 4}};
  EXPECT_EQ(TickConverter::for_process(monotonic).to_ns(77), 77U);
  ProcessFragment tsc = monotonic;
  tsc.timer = "tsc";
  EXPECT_EQ(TickConverter::for_process(tsc).to_ns(5), 6U);
}

TEST(Routines, EveryWrappedRoutineHasItsFunctionIdentity) {
  std::set<std::string> names;
  for (std::size_t r = 1; r < kRoutineCount; ++r) {
    const auto routine = static_cast<Routine>(r);
    const auto name = std::string(routine_name(routine));
    EXPECT_TRUE(names.insert(name).second) << "duplicate routine " << name;
    const auto f = routine_function(routine);
    EXPECT_NE(f, trace::Function::None) << name << " is not in the trace function table";
    const auto &info = trace::function_info(f);
    EXPECT_NE(info.group, trace::Group::None) << name;
    const bool shmem = name.rfind("shmem", 0) == 0 || name == "start_pes" || name == "shmalloc" ||
                       name == "shfree" || name == "shmemalign";
    EXPECT_EQ(info.paradigm, shmem ? trace::Paradigm::Shmem : trace::Paradigm::Mpi) << name;
  }
  EXPECT_EQ(routine_function(Routine::shmem_double_g), trace::Function::ShmemGet);
  EXPECT_EQ(routine_function(Routine::shmem_longlong_xor_to_all), trace::Function::ShmemReduce);
  EXPECT_EQ(routine_function(Routine::shmalloc), trace::Function::ShmemMalloc);
  EXPECT_EQ(routine_name(Routine::None), "");
  EXPECT_EQ(routine_name(std::uint16_t{60000}), "");
  EXPECT_EQ(routine_table_hash(), routine_table_hash());
}

} // namespace
} // namespace parjava::tracer
