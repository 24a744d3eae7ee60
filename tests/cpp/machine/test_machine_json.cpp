// JSON round trip and every validation error of the machine description reader.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

#include "parjava/error.hpp"
#include "parjava/machine/machine_json.hpp"

using namespace parjava::machine;

namespace {

Machine full_machine() {
  ThreadCosts threads;
  double value = 1e-8;
  for (std::string_view name : ThreadCosts::field_names) {
    threads.set(name, value);
    value *= 1.7;
  }
  Machine m("test cluster", {4, 8, 2},
            Network::table({{{0, 0.4e-6}, {8, 0.45e-6}, {4096, 1.9e-6}, {65536, 9.3e-6}}, 3072}),
            Network::loggp({1.1e-6, 0.3e-6, 0.4e-6, 0.08e-9, 0.01e-9, 12288}), threads, 1.25);
  m.set_description("a machine with every kind of field");
  m.set_sources({"made up for the test"});
  Measurement measurement;
  measurement.tool = "netbench 0.1.0";
  measurement.mode = "quick";
  measurement.host = "node01";
  measurement.mpi_library = "Open MPI v4.1.4";
  measurement.date = "2026-01-02T03:04:05Z";
  measurement.ranks = 2;
  measurement.duration_seconds = 12.5;
  measurement.target_relative_ci = 0.05;
  PingPongSeries series;
  series.pair = "intra_node";
  series.rank_a = 0;
  series.rank_b = 1;
  series.points = {{0, 0.4e-6, 0.01e-6, 20, 1, 64}, {8, 0.45e-6, 0.02e-6, 21, 0, 64}};
  series.send_overhead = {{8, 0.2e-6, 0.01e-6, 10, 0, 1}};
  series.gap = 0.25e-6;
  series.hockney = {{0.41e-6, 5e9, 3072}, {0.02, 0.05, 8, 2}, false};
  series.loggp =
      LogGPFit{{0.1e-6, 0.15e-6, 0.25e-6, 0.2e-9, 0.1e-9, 3072}, {0.03, 0.06, 0, 2}, true};
  series.eager_detection = {true, 3072, 4096, 0.7e-6, 0.45};
  series.eager_bisection = {{3584, 2.2e-6, 0.05e-6, 10, 0, 32}};
  series.eager_probes = {{4096, 2.1e-3, true}, {2048, 1e-6, false}};
  series.eager_limit = 3072;
  series.eager_limit_source = "detected";
  measurement.ping_pong.push_back(series);
  measurement.sendrecv = {{1024, 1.1e-6, 0.02e-6, 30, 2, 16}};
  measurement.collectives.push_back({"allreduce", 2, {8, 2e-6, 0.1e-6, 12, 0, 100}});
  measurement.configured["btl_vader_eager_limit"] = 4096;
  measurement.notes = {"a note"};
  m.set_measurement(measurement);
  return m;
}

std::string valid_text() { return machine_to_json(full_machine()); }

// The error message when `text` is read, or "no error".
std::string error_of(const std::string &text) {
  try {
    (void)machine_from_json(text, "m.json");
  } catch (const parjava::Error &error) {
    EXPECT_EQ(error.kind(), parjava::ErrorKind::Machine) << error.what();
    return error.what();
  }
  return "no error";
}

// A minimal machine in JSON with `replace` applied (regex -> replacement) to it.
std::string minimal(const std::string &pattern = "", const std::string &replacement = "") {
  std::string text = R"({
  "schema_version": 1,
  "name": "small",
  "nodes": 2,
  "cores_per_node": 4,
  "ranks_per_node": 4,
  "power": 1.0,
  "intra_node": {"kind": "hockney", "latency": "0.3 us", "bandwidth": "8 GB/s", "eager_limit": "4 KiB"},
  "inter_node": {"kind": "hockney", "latency": 1.3e-6, "bandwidth": 12e9, "eager_limit": 12288},
  "threads": {"create": "20 us", "start": "5 us", "lock": "20 ns", "try_lock": "15 ns",
              "release": "15 ns", "atomic_create": "20 ns", "atomic_cas": "10 ns",
              "semaphore_create": "30 ns", "copy_per_byte": "0.1 ns/B"}
})";
  if (!pattern.empty()) {
    text = std::regex_replace(text, std::regex(pattern), replacement);
  }
  return text;
}

} // namespace

TEST(MachineJson, RoundTripKeepsEverything) {
  const Machine original = full_machine();
  const Machine again = machine_from_json(machine_to_json(original));
  EXPECT_EQ(again, original);
  EXPECT_EQ(machine_to_json(again), machine_to_json(original));
}

TEST(MachineJson, SaveAndLoadThroughAFile) {
  const auto path = std::filesystem::temp_directory_path() / "parjava_test_machine.json";
  save_machine(full_machine(), path.string());
  EXPECT_EQ(load_machine(path.string()), full_machine());
  std::filesystem::remove(path);
}

TEST(MachineJson, ReadsUnitsAndSiNumbers) {
  const Machine m = machine_from_json(minimal());
  EXPECT_DOUBLE_EQ(m.intra_node().as_hockney()->latency, 0.3e-6);
  EXPECT_DOUBLE_EQ(m.intra_node().as_hockney()->bandwidth, 8e9);
  EXPECT_EQ(m.eager_limit(true), 4096u);
  EXPECT_DOUBLE_EQ(m.threads().create, 20e-6);
  EXPECT_DOUBLE_EQ(m.threads().copy_per_byte, 0.1e-9);
  EXPECT_FALSE(m.measurement().has_value());
}

TEST(MachineJson, ANumberNoDoubleHoldsIsAnErrorOfTheFile) {
  // nlohmann/json parses 1e309 as out of range; that used to escape as its own exception.
  const std::string message = error_of("{\"schema_version\": 1e309}");
  EXPECT_NE(message.find("m.json"), std::string::npos) << message;
  EXPECT_NE(message.find("not valid JSON"), std::string::npos) << message;
}

TEST(MachineJson, MissingFieldIsNamed) {
  EXPECT_EQ(error_of(minimal(R"("power": 1.0,)", "")), "m.json: power: missing required field");
  EXPECT_EQ(error_of(minimal(R"("latency": 1.3e-6, )", "")),
            "m.json: inter_node.latency: missing required field");
  EXPECT_EQ(error_of(minimal(R"("try_lock": "15 ns",)", "")),
            "m.json: threads.try_lock: missing required field");
  EXPECT_NE(error_of(minimal(R"("schema_version": 1,)", "")).find("schema_version: missing"),
            std::string::npos);
}

TEST(MachineJson, NegativeValueIsNamed) {
  EXPECT_EQ(error_of(minimal("1.3e-6", "-1.3e-6")),
            "m.json: inter_node.latency: must be >= 0 (got -1.3e-06)");
  EXPECT_EQ(error_of(minimal(R"("lock": "20 ns")", R"("lock": "-20 ns")")),
            "m.json: threads.lock: must be >= 0 (got -2e-08)");
  EXPECT_EQ(error_of(minimal(R"("nodes": 2)", R"("nodes": -2)")),
            "m.json: nodes: must be a count >= 0 (got -2)");
  EXPECT_EQ(error_of(minimal(R"("power": 1.0)", R"("power": 0)")),
            "m.json: power: must be > 0 (got 0)");
  EXPECT_EQ(error_of(minimal(R"("eager_limit": 12288)", R"("eager_limit": -1)")),
            "m.json: inter_node.eager_limit: a size must be >= 0 bytes (got -1)");
}

TEST(MachineJson, WrongTypeIsNamed) {
  EXPECT_EQ(error_of(minimal(R"("nodes": 2)", R"("nodes": "two")")),
            "m.json: nodes: expected a whole number, got a string");
  EXPECT_EQ(error_of(minimal(R"("nodes": 2)", R"("nodes": 2.5)")),
            "m.json: nodes: expected a whole number, got 2.5");
  EXPECT_EQ(error_of(minimal(R"("name": "small")", R"("name": 7)")),
            "m.json: name: expected a string, got a number");
  EXPECT_EQ(error_of(minimal(R"("bandwidth": 12e9)", R"("bandwidth": [12e9])")),
            "m.json: inter_node.bandwidth: expected a bandwidth (a number in SI units or a "
            "string such as \"1.5 us\"), got an array");
  EXPECT_EQ(error_of(minimal(R"("threads": \{[^}]*\})", R"("threads": 5)")),
            "m.json: threads: expected an object, got a number");
}

TEST(MachineJson, UnknownNetworkKindIsNamed) {
  EXPECT_EQ(error_of(minimal(R"("kind": "hockney", "latency": 1.3e-6)",
                             R"("kind": "torus", "latency": 1.3e-6)")),
            "m.json: inter_node.kind: unknown network kind \"torus\" (expected hockney, loggp "
            "or table)");
}

TEST(MachineJson, UnknownUnitIsNamed) {
  EXPECT_EQ(error_of(minimal("0.3 us", "0.3 fortnights")),
            "m.json: intra_node.latency: unknown unit \"fortnights\" for a time (accepted: s, "
            "ms, us, µs, ns, ps; a plain number is taken as SI)");
  EXPECT_NE(error_of(minimal("8 GB/s", "8 GB")).find("intra_node.bandwidth: unknown unit \"GB\""),
            std::string::npos);
}

TEST(MachineJson, UnknownFieldIsAnError) {
  EXPECT_EQ(error_of(minimal(R"("power": 1.0,)", R"("power": 1.0, "powr": 2,)")),
            "m.json: powr: unknown field (expected one of: schema_version, name, description, "
            "sources, nodes, cores_per_node, ranks_per_node, power, intra_node, inter_node, "
            "threads, measurement, topology, placement, endpoint_contention, node_names)");
  EXPECT_NE(error_of(minimal(R"("eager_limit": 12288)", R"("eager_limit": 12288, "S": 5)"))
                .find("inter_node.S: unknown field"),
            std::string::npos);
  EXPECT_NE(error_of(minimal(R"("create": "20 us")", R"("create": "20 us", "fork": 1)"))
                .find("threads.fork: unknown thread cost"),
            std::string::npos);
}

TEST(MachineJson, WrongSchemaVersionSaysWhichIsRead) {
  EXPECT_EQ(error_of(minimal(R"("schema_version": 1)", R"("schema_version": 7)")),
            "m.json: schema_version: this file has schema_version 7 but this parjava reads "
            "version 1; re-measure with `parjava netbench` or convert the file");
}

TEST(MachineJson, InterNodeNullOnlyForOneNode) {
  EXPECT_NE(error_of(minimal(R"("inter_node": \{[^}]*\})", R"("inter_node": null)"))
                .find("m.json: inter_node: is required when the machine has more than one node"),
            std::string::npos);
  std::string one_node = minimal(R"("inter_node": \{[^}]*\})", R"("inter_node": null)");
  one_node = std::regex_replace(one_node, std::regex(R"("nodes": 2)"), R"("nodes": 1)");
  const Machine one = machine_from_json(one_node);
  EXPECT_FALSE(one.has_inter_node());
}

TEST(MachineJson, TableAndLogGPForms) {
  const Machine m = machine_from_json(minimal(
      R"("inter_node": \{[^}]*\})",
      R"("inter_node": {"kind": "loggp", "L": "2.5 us", "o": "1.5 us", "g": "1 us", "G": "6 ns", "O": 0, "S": 65535})"));
  EXPECT_NEAR(m.p2p_time(8, false), 5542e-9, 1e-18);
  EXPECT_NE(
      error_of(
          minimal(
              R"("inter_node": \{[^}]*\})",
              R"("inter_node": {"kind": "table", "points": [[0, 1e-6], [8]], "eager_limit": 0})"))
          .find("inter_node.points[1]: expected a pair [bytes, seconds], got an array of 1"),
      std::string::npos);
  EXPECT_NE(
      error_of(
          minimal(
              R"("inter_node": \{[^}]*\})",
              R"("inter_node": {"kind": "table", "points": [[8, 1e-6], [0, 2e-6]], "eager_limit": 0})"))
          .find("inter_node.points[1].bytes: sizes must be strictly increasing"),
      std::string::npos);
}

TEST(MachineJson, NotJsonAndUnreadableFile) {
  EXPECT_EQ(error_of("{ nodes: 2").substr(0, 26), "m.json: not valid JSON: [j");
  EXPECT_EQ(error_of("[1, 2]"), "m.json: expected an object, got an array");
  try {
    (void)load_machine("/nonexistent/dir/machine.json");
    FAIL();
  } catch (const parjava::Error &error) {
    EXPECT_EQ(std::string(error.what()),
              "/nonexistent/dir/machine.json: cannot open the machine description (No such file "
              "or directory)");
  }
}

TEST(MachineJson, MeasurementIsValidatedToo) {
  const std::string text = valid_text();
  const std::string broken =
      std::regex_replace(text, std::regex(R"("samples": 20)"), R"("samples": -20)");
  EXPECT_NE(error_of(broken).find("measurement.ping_pong[0].points[0].samples: must be a count"),
            std::string::npos);
}
