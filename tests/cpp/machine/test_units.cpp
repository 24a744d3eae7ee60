#include <gtest/gtest.h>

#include "parjava/error.hpp"
#include "parjava/machine/units.hpp"

using namespace parjava::machine;

TEST(Units, ParsesTimes) {
  EXPECT_DOUBLE_EQ(parse_quantity("1.27 us", Dimension::Time, "f"), 1.27e-6);
  EXPECT_DOUBLE_EQ(parse_quantity("1.27µs", Dimension::Time, "f"), 1.27e-6);
  EXPECT_DOUBLE_EQ(parse_quantity("75", Dimension::Time, "f"), 75.0);
  EXPECT_DOUBLE_EQ(parse_quantity(" 3 ms ", Dimension::Time, "f"), 3e-3);
}

TEST(Units, ParsesSizesDecimalAndBinary) {
  EXPECT_DOUBLE_EQ(parse_quantity("4 KiB", Dimension::Size, "f"), 4096.0);
  EXPECT_DOUBLE_EQ(parse_quantity("4KB", Dimension::Size, "f"), 4000.0);
  EXPECT_DOUBLE_EQ(parse_quantity("1 MiB", Dimension::Size, "f"), 1048576.0);
}

TEST(Units, ParsesBandwidthsInBytesAndBits) {
  EXPECT_DOUBLE_EQ(parse_quantity("12.5 GB/s", Dimension::Bandwidth, "f"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_quantity("100 Gb/s", Dimension::Bandwidth, "f"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_quantity("10 Gbit/s", Dimension::Bandwidth, "f"), 1.25e9);
}

TEST(Units, ParsesTimePerByte) {
  EXPECT_DOUBLE_EQ(parse_quantity("0.2 us/B", Dimension::TimePerByte, "f"), 0.2e-6);
  EXPECT_DOUBLE_EQ(parse_quantity("6 ns", Dimension::TimePerByte, "f"), 6e-9);
}

TEST(Units, RejectsUnknownAndMismatchedUnits) {
  try {
    (void)parse_quantity("3 furlongs", Dimension::Time, "inter_node.latency");
    FAIL() << "no error";
  } catch (const parjava::Error &error) {
    EXPECT_EQ(error.kind(), parjava::ErrorKind::Usage);
    const std::string message = error.what();
    EXPECT_NE(message.find("inter_node.latency: unknown unit \"furlongs\" for a time"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("us"), std::string::npos);
  }
  EXPECT_THROW((void)parse_quantity("12 GB/s", Dimension::Time, "f"), parjava::Error);
  EXPECT_THROW((void)parse_quantity("fast", Dimension::Bandwidth, "f"), parjava::Error);
  EXPECT_DOUBLE_EQ(parse_quantity("1.5", Dimension::Ratio, "f"), 1.5);
  EXPECT_THROW((void)parse_quantity("1 s", Dimension::Ratio, "f"), parjava::Error);
}

TEST(Units, FormatsWithThreeSignificantDigits) {
  EXPECT_EQ(format_time(1.27e-6), "1.27 us");
  EXPECT_EQ(format_time(0.0), "0 s");
  EXPECT_EQ(format_time(2.5e-3), "2.5 ms");
  EXPECT_EQ(format_bandwidth(12.3875e9), "12.4 GB/s");
  EXPECT_EQ(format_size(4096), "4 KiB");
  EXPECT_EQ(format_size(3072), "3 KiB");
  EXPECT_EQ(format_size(4000), "4000 B");
  EXPECT_EQ(format_size(4u << 20), "4 MiB");
}
