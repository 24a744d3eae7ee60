// JSON load/save of the model: round trip, strict validation with node ids and fields.
#include <gtest/gtest.h>

#include <string>

#include "parjava/error.hpp"
#include "parjava/model/model_json.hpp"
#include "parjava/model/reduction.hpp"

using namespace parjava::model;

namespace {

const char *kRing = R"({
  "format": "parjava-model", "version": 1, "name": "ring", "files": ["ring.c"],
  "parameters": {"niter": 10, "N": {"value": 1024, "doc": "doubles per message"}},
  "entry": "main",
  "functions": [{"name": "main", "params": [], "body": 1}],
  "nodes": [
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "for", "init": [["i", "0"]], "cond": "i < niter", "update": [["i", "i + 1"]],
     "source": {"file": 0, "line": 10}, "children": [3]},
    {"id": 3, "kind": "seq", "children": [4, 5, 6]},
    {"id": 4, "kind": "cb", "time": "2e-9 * N", "source": {"file": 0, "line": 11}},
    {"id": 5, "kind": "cfc", "op": "MPI_Sendrecv", "source": {"file": 0, "line": 12},
     "args": {"dest": "(rank + 1) % size", "sendbytes": "8 * N", "source": "(rank - 1 + size) % size"}},
    {"id": 6, "kind": "cb", "time": {"mean": 1e-6, "sigma": 1e-8, "samples": 100}}
  ]
})";

std::string error_of(const std::string &text) {
  try {
    model_from_json(text, "m.json");
  } catch (const parjava::Error &e) {
    return e.what();
  }
  return "";
}

std::string replace(std::string s, const std::string &from, const std::string &to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

} // namespace

TEST(ModelJson, LoadsAndRoundTrips) {
  const Model m = model_from_json(kRing, "ring.json");
  EXPECT_EQ(m.name, "ring");
  EXPECT_EQ(m.nodes.size(), 6U);
  EXPECT_EQ(m.node(5).op, Operation::Sendrecv);
  EXPECT_EQ(m.node(6).time.kind, TimeSpec::Kind::Measured);
  EXPECT_DOUBLE_EQ(m.node(6).time.error_bound(), 3 * 1e-8 / 10);
  EXPECT_EQ(m.parameter("N")->doc, "doubles per message");
  EXPECT_EQ(m.locals(0), std::vector<std::string>{"i"});
  EXPECT_EQ(m.describe(m.index_of(5)), "node 5 (cfc MPI_Sendrecv, ring.c:12)");
  const std::string once = model_to_json(m);
  const Model again = model_from_json(once);
  EXPECT_EQ(model_to_json(again), once);
}

TEST(ModelJson, ErrorsNameNodeAndField) {
  const auto expect = [](const std::string &text, std::initializer_list<const char *> parts) {
    const std::string message = error_of(text);
    ASSERT_FALSE(message.empty()) << "no error";
    for (const char *part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << message << "\n  lacks: " << part;
    }
  };
  expect(replace(kRing, "\"2e-9 * N\"", "\"2e-9 * M\""), {"node 4", "'time'", "unknown name 'M'"});
  expect(replace(kRing, "\"sendbytes\"", "\"sendbyte\""),
         {"node 5", "args.sendbyte", "takes no argument"});
  expect(replace(kRing, ", \"sendbytes\": \"8 * N\"", ""),
         {"node 5", "args.sendbytes", "needs this argument"});
  expect(replace(kRing, "\"MPI_Sendrecv\"", "\"MPI_Sendrecvv\""), {"node 5", "unknown operation"});
  expect(replace(kRing, "\"kind\": \"cb\", \"time\": \"2e-9", "\"kind\": \"cb\", \"tme\": \"2e-9"),
         {"node 4", "'tme'", "unknown field"});
  expect(replace(kRing, "\"version\": 1", "\"version\": 7"), {"version", "not supported"});
  expect(replace(kRing, "\"children\": [4, 5, 6]", "\"children\": [4, 5, 9]"),
         {"node 3", "children", "node 9 does not exist"});
  expect(replace(kRing, "\"children\": [4, 5, 6]", "\"children\": [4, 5, 4]"),
         {"node 4", "child of both"});
  expect(replace(kRing, "\"sigma\": 1e-8", "\"sigma\": -1e-8"), {"node 6", "sigma"});
  expect(replace(kRing, "\"cond\": \"i < niter\"",
                 "\"cond\": \"i < niter\", \"opaque\": {\"trips\": 3}"),
         {"node 2", "both an expression and opaque"});
  expect(replace(kRing, "\"format\": \"parjava-model\", ", ""), {"format"});
  expect(replace(kRing, "[[\"i\", \"0\"]]", "[[\"niter\", \"0\"]]"),
         {"node 2", "program parameter"});
  expect(std::string(kRing).substr(0, 40), {"not valid JSON", "line"});
  // Every error names the file, those below a node too; a number no double holds is an error
  // of the file, not an escaping JSON library exception (found by tests/fuzz).
  const auto unknown = error_of(replace(kRing, "\"2e-9 * N\"", "\"2e-9 * M\""));
  EXPECT_EQ(unknown.rfind("m.json: ", 0), 0U) << unknown;
  expect(replace(kRing, "\"sigma\": 1e-8", "\"sigma\": 1e309"), {"m.json", "not valid JSON"});
}

TEST(ModelJson, SelfCheckRoundTripsAndIsValidated) {
  const std::string check =
      R"("self_check": {"passed": false, "np": 2, "measured": 1.5, "predicted": 0.3, )"
      R"("error": -0.8, "coverage": 0.2, "message": "self-check: ...", )"
      R"("baseline": "unmodified", "overhead": 1.25, )"
      R"("fragments": [{"node": 4, "cause": "reduced away"}]},)";
  const std::string with = replace(kRing, "\"entry\": \"main\",", check + " \"entry\": \"main\",");
  const Model m = model_from_json(with, "m.json");
  EXPECT_NE(m.self_check.find("\"passed\":false"), std::string::npos);
  const Model again = model_from_json(model_to_json(m, -1), "again.json");
  EXPECT_EQ(again.self_check, m.self_check);
  EXPECT_TRUE(model_from_json(kRing, "m.json").self_check.empty());
  EXPECT_NE(error_of(replace(with, "\"np\": 2", "\"np\": 0")).find("self_check"),
            std::string::npos);
  EXPECT_NE(error_of(replace(with, "\"passed\": false", "\"pased\": false")).find("pased"),
            std::string::npos);
  EXPECT_NE(error_of(replace(with, "\"coverage\": 0.2", "\"coverage\": \"high\"")).find("number"),
            std::string::npos);
  EXPECT_NE(error_of(replace(with, "\"unmodified\"", "\"instrumented\"")).find("baseline"),
            std::string::npos);
  EXPECT_NE(error_of(replace(with, "\"overhead\": 1.25", "\"overhead\": 0")).find("overhead"),
            std::string::npos);
}

// Measured nests and their working sets (docs/model-schema.md "Unscaled nests"): both lists
// round-trip, and a nest that names no node of the model, or a negative size, is an error that
// names the list.
TEST(ModelJson, MeasuredNestsRoundTripAndAreValidated) {
  const std::string nests =
      R"("unscaled_nests": [{"node": 2, "seconds": 1e-05, "working_set": 0, "holds_to": 0}], )"
      R"("scaled_nests": [{"node": 2, "seconds": 2e-05, "working_set": 1.5e6, )"
      R"("holds_to": 6e7}],)";
  const std::string with = replace(kRing, "\"entry\": \"main\",", nests + " \"entry\": \"main\",");
  const Model m = model_from_json(with, "m.json");
  ASSERT_EQ(m.unscaled_nests.size(), 1U);
  ASSERT_EQ(m.scaled_nests.size(), 1U);
  EXPECT_DOUBLE_EQ(m.scaled_nests[0].working_set, 1.5e6);
  const Model again = model_from_json(model_to_json(m, -1), "again.json");
  ASSERT_EQ(again.scaled_nests.size(), 1U);
  EXPECT_DOUBLE_EQ(again.scaled_nests[0].holds_to, 6e7);
  EXPECT_EQ(again.scaled_nests[0].node, 2U);
  const std::string missing = error_of(replace(with, "\"seconds\": 2e-05, \"working_set\": 1.5e6",
                                               "\"seconds\": 2e-05, \"working_set\": -1"));
  EXPECT_NE(missing.find("scaled_nests"), std::string::npos) << missing;
  const std::string absent = error_of(
      replace(with, "\"scaled_nests\": [{\"node\": 2", "\"scaled_nests\": [{\"node\": 42"));
  EXPECT_NE(absent.find("node 42 is not in the model"), std::string::npos) << absent;
}

TEST(ModelJson, BreakContinueTargets) {
  std::string with_break = replace(kRing, "\"children\": [4, 5, 6]", "\"children\": [4, 5, 6, 7]");
  with_break = replace(with_break, "\n  ]\n}",
                       ",\n {\"id\": 7, \"kind\": \"break\", \"target\": 2}\n  ]\n}");
  EXPECT_NO_THROW(model_from_json(with_break));
  const std::string bad = replace(with_break, "\"kind\": \"break\", \"target\": 2",
                                  "\"kind\": \"continue\", \"target\": 3");
  EXPECT_NE(error_of(bad).find("continue must name an enclosing loop"), std::string::npos);
  const std::string outside = replace(with_break, "\"target\": 2", "\"target\": 4");
  EXPECT_NE(error_of(outside).find("does not enclose"), std::string::npos);
}

TEST(Reduction, SimpleFragmentsAndReduce) {
  const std::string nest = R"({
    "format": "parjava-model", "version": 1, "name": "nest", "parameters": {"N": 10},
    "functions": [{"name": "main", "body": 1}],
    "nodes": [
      {"id": 1, "kind": "seq", "children": [2, 5, 6]},
      {"id": 2, "kind": "for", "init": [["i", "0"]], "cond": "i < N", "update": [["i", "i+1"]], "children": [3]},
      {"id": 3, "kind": "for", "init": [["j", "0"]], "cond": "j < i", "update": [["j", "j+1"]], "children": [4]},
      {"id": 4, "kind": "cb", "time": 1e-9},
      {"id": 5, "kind": "cfc", "op": "MPI_Barrier"},
      {"id": 6, "kind": "for", "init": [["k", "0"]], "cond": "k < rank", "update": [["k", "k+1"]], "children": [7]},
      {"id": 7, "kind": "cb", "time": 1e-9}
    ]})";
  Model m = model_from_json(nest);
  const auto maximal = mark_simple(m);
  EXPECT_EQ(maximal, std::vector<NodeId>{2});
  EXPECT_FALSE(m.node(3).simple); // its trip count depends on i, set by the outer loop
  EXPECT_TRUE(m.node(4).simple);
  EXPECT_FALSE(m.node(1).simple);
  EXPECT_FALSE(m.node(6).simple); // depends on rank
  EXPECT_NE(reducibility(m, m.index_of(6)).reason.find("'rank'"), std::string::npos);
  reduce(m, 2, TimeSpec::constant(45e-9));
  EXPECT_EQ(m.nodes.size(), 5U);
  EXPECT_EQ(m.node(2).kind, NodeKind::Reduced);
  EXPECT_EQ(m.node(2).replaces, 2U);
  EXPECT_DOUBLE_EQ(m.node(2).time.seconds, 45e-9);
  EXPECT_NO_THROW(model_from_json(model_to_json(m)));
}
