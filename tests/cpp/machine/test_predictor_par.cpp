// The DVM Predictor.par reader on the verbatim example of seed 002 §1.3.2 and its variations.
#include <gtest/gtest.h>

#include "parjava/error.hpp"
#include "parjava/machine/predictor_par.hpp"

using namespace parjava::machine;

namespace {

// Verbatim from seed 002 §1.3.2.
constexpr const char *seed_example = R"(// System type = network | transputer
type = network;
// Communication characteristics (mks)
start time = 75;
send byte time = 0.2;
// Comparative processors performance
power = 1.00;
// Topology - optional
topology = {2, 2};
)";

std::string error_of(const std::string &text) {
  try {
    (void)machine_from_predictor_par(text, "Predictor.par");
  } catch (const parjava::Error &error) {
    EXPECT_EQ(error.kind(), parjava::ErrorKind::Machine);
    return error.what();
  }
  return "no error";
}

} // namespace

TEST(PredictorPar, ReadsTheSeedExample) {
  const Machine m = machine_from_predictor_par(seed_example, "Predictor.par");
  ASSERT_NE(m.intra_node().as_hockney(), nullptr);
  EXPECT_DOUBLE_EQ(m.intra_node().as_hockney()->latency, 75e-6);
  EXPECT_DOUBLE_EQ(m.intra_node().as_hockney()->bandwidth, 5e6);
  // seed 002 §8 formula 1: T = start_time + n * send_byte_time.
  EXPECT_NEAR(m.p2p_time(1000, false), 75e-6 + 1000 * 0.2e-6, 1e-15);
  EXPECT_EQ(m.power(), 1.0);
  EXPECT_EQ(m.nodes(), 4);
  EXPECT_EQ(m.ranks_per_node(), 1);
  EXPECT_FALSE(m.same_node(0, 1));
  EXPECT_EQ(m.eager_limit(false), unlimited_eager);
  EXPECT_NE(m.description().find("type network, topology 2 x 2"), std::string::npos);
}

TEST(PredictorPar, AcceptsAnyOrderSpacingCaseAndMultiLineStatements) {
  const Machine m =
      machine_from_predictor_par("power=2.5;   SEND   Byte time =\n 0.0125 ;// comment after\n"
                                 "start  time = 9; type = transputer;",
                                 "x.par");
  EXPECT_DOUBLE_EQ(m.power(), 2.5);
  EXPECT_DOUBLE_EQ(m.intra_node().as_hockney()->latency, 9e-6);
  EXPECT_DOUBLE_EQ(m.intra_node().as_hockney()->bandwidth, 1.0 / 0.0125e-6);
  EXPECT_EQ(m.nodes(), 1);
  EXPECT_FALSE(m.has_inter_node());
}

TEST(PredictorPar, ErrorsNameTheLineAndTheParameter) {
  EXPECT_EQ(error_of("start time = 75;\nsend byte time = 0.2;\n"),
            "Predictor.par: missing required parameter `power`");
  EXPECT_EQ(error_of("start time = 75;\nsend byte time = 0.2;\npower = 1;\nstart time = 5;"),
            "Predictor.par:4: `start time` is given twice (first on line 1)");
  EXPECT_EQ(error_of("start time = 75;\nsend byte tim = 0.2;\npower = 1;"),
            "Predictor.par:2: unknown parameter `send byte tim` (Predictor.par knows: type, "
            "start time, send byte time, power, topology)");
  EXPECT_EQ(error_of("start time = fast;\nsend byte time = 0.2;\npower = 1;"),
            "Predictor.par:1: `start time` must be a finite number, got \"fast\"");
  EXPECT_EQ(error_of("start time = nan;\nsend byte time = 0.2;\npower = 1;"),
            "Predictor.par:1: `start time` must be a finite number, got \"nan\"");
  EXPECT_EQ(error_of("start time = 1;\nsend byte time = 1e-320;\npower = 1;"),
            "Predictor.par:2: `send byte time` must be > 0 microseconds (and above 1e-302)");
  EXPECT_EQ(error_of("start time = 75;\nsend byte time = 0.2;\npower = 1;\ntopology = {2, 0};"),
            "Predictor.par:4: `topology` extents must be whole numbers >= 1, got \"0\"");
  EXPECT_EQ(error_of("start time = 75;\nsend byte time = 0.2;\npower = 1;\ntype = torus;"),
            "Predictor.par:4: `type` must be network or transputer, got \"torus\"");
  EXPECT_EQ(error_of("start time = 75;\nsend byte time = 0.2;\npower = 1"),
            "Predictor.par:3: statement \"power = 1\" is not ended by `;`");
  EXPECT_EQ(error_of("start time = -1;\nsend byte time = 0.2;\npower = 1;"),
            "Predictor.par:1: `start time` must be >= 0 microseconds");
}

TEST(PredictorPar, UnreadableFileIsAMachineError) {
  EXPECT_THROW((void)read_predictor_par("/nonexistent/Predictor.par"), parjava::Error);
}
