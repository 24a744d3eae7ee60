// The presets carry the numbers of their cited sources and survive a JSON round trip.
#include <gtest/gtest.h>

#include "parjava/error.hpp"
#include "parjava/machine/machine_json.hpp"
#include "parjava/machine/presets.hpp"

using namespace parjava::machine;

TEST(Presets, EveryPresetIsValidCitedAndRoundTrips) {
  for (const std::string &name : preset_names()) {
    const Machine m = preset(name);
    EXPECT_EQ(m.name(), name);
    EXPECT_FALSE(m.sources().empty()) << name;
    EXPECT_FALSE(m.description().empty()) << name;
    EXPECT_EQ(machine_from_json(machine_to_json(m)), m) << name;
  }
}

TEST(Presets, InfinibandEdrUsesTheAzureHbFigures) {
  const Machine m = preset("infiniband-edr");
  EXPECT_DOUBLE_EQ(m.p2p_time(0, false), 1.27e-6);
  // 99.1 Gb/s: 1 MiB takes 1.27 us + 1048576 * 8 / 99.1e9 s.
  EXPECT_NEAR(m.p2p_time(1 << 20, false), 1.27e-6 + 1048576.0 * 8 / 99.1e9, 1e-12);
  EXPECT_EQ(m.eager_limit(false), 12288u);
  EXPECT_FALSE(m.same_node(35, 36));
}

TEST(Presets, SharedMemoryReproducesTheOsuCurve) {
  const Machine m = preset("shared-memory");
  EXPECT_DOUBLE_EQ(m.p2p_time(0, true), 0.52e-6);
  EXPECT_DOUBLE_EQ(m.p2p_time(4194304, true), 572.76e-6);
  EXPECT_EQ(m.eager_limit(true), 4040u);
  EXPECT_FALSE(m.has_inter_node());
}

TEST(Presets, EthernetIsSlowerThanInfiniband) {
  const Machine ethernet = preset("ethernet-10g");
  const Machine infiniband = preset("infiniband-edr");
  for (std::uint64_t bytes : {0ull, 1024ull, 1ull << 20}) {
    EXPECT_GT(ethernet.p2p_time(bytes, false), 5 * infiniband.p2p_time(bytes, false));
  }
  EXPECT_EQ(ethernet.eager_limit(false), 65536u);
}

TEST(Presets, UnknownNameListsTheKnownOnes) {
  try {
    (void)preset("myrinet");
    FAIL();
  } catch (const parjava::Error &error) {
    EXPECT_EQ(std::string(error.what()),
              "unknown machine preset \"myrinet\" (known: infiniband-edr, ethernet-10g, "
              "shared-memory)");
  }
}
