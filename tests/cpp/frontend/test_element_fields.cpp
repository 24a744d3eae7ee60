// Fields written through an element at a run-time index (shared_fields.hpp): the model keeps one
// value per field for every element, so a warning names the fields and the container wherever
// such a field is a control variable. CloverLeaf's tiles of unequal sizes took the last tile's
// bounds without a word. A constant index, or a field the model does not keep, says nothing.
#include <gtest/gtest.h>

#include "support.hpp"

namespace parjava::frontend::testing {
namespace {

constexpr const char *kTiles = R"(
#include <mpi.h>
#include <stdlib.h>
#include <vector>
struct tile_info { int t_xmin, t_xmax; double weight; };
struct box { int lo, hi; };
struct chunk { std::vector<tile_info> tiles; };
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int tiles = argc > 1 ? atoi(argv[1]) : 2;
  int cells = argc > 2 ? atoi(argv[2]) : 101;
  chunk c;
  c.tiles.resize(tiles);
  box boxes[4], whole[1];
  for (int t = 0; t < tiles; t++) {
    c.tiles[t].t_xmin = t * (cells / tiles);
    c.tiles[t].t_xmax = t + 1 == tiles ? cells : (t + 1) * (cells / tiles);
    c.tiles[t].weight = 0.5 * t;
  }
  for (int k = 0; k < 4; k++) {
    boxes[k].lo = k;
    boxes[k].hi = k + cells;
  }
  whole[0].lo = 0;
  whole[0].hi = cells;
  double s = 0;
  for (int t = 0; t < tiles; t++)
    for (int i = c.tiles[t].t_xmin; i < c.tiles[t].t_xmax; i++)
      s += i * c.tiles[t].weight;
  for (int k = 0; k < 4; k++)
    for (int i = boxes[k].lo; i < boxes[k].hi; i++)
      for (int j = whole[0].lo; j < whole[0].hi; j++) s += i * j;
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
)";

TEST(ElementFields, FieldsWrittenAtARunTimeIndexWarnOncePerContainer) {
  const BuildResult r = build(write_source("tiles.cpp", kTiles), {"-std=c++17"});
  std::vector<const Diagnostic *> said;
  for (const Diagnostic &d : r.diagnostics) {
    if (d.message.find("of the elements of") != std::string::npos) {
      said.push_back(&d);
    }
  }
  ASSERT_EQ(said.size(), 2U);
  // One per container, in the order of the containers' names.
  const Diagnostic &boxes = *said[0];
  const Diagnostic &tiles = *said[1];
  // The vector's two bounds, at the first write's line; not `weight` (data, no loop bound).
  EXPECT_EQ(tiles.line, 16);
  EXPECT_NE(tiles.message.find("'tile_info::t_xmin' and 'tile_info::t_xmax' of the elements of "
                               "'c.tiles'"),
            std::string::npos)
      << tiles.message;
  EXPECT_EQ(tiles.message.find("weight"), std::string::npos) << tiles.message;
  EXPECT_EQ(tiles.severity, Severity::Warning);
  EXPECT_EQ(tiles.kind, DiagnosticKind::Approximation);
  // The C array at run-time indices; `whole[0]` (a constant index) is one element, exact.
  EXPECT_EQ(boxes.line, 21);
  EXPECT_NE(boxes.message.find("'box::lo' and 'box::hi' of the elements of 'boxes'"),
            std::string::npos)
      << boxes.message;
  for (const Diagnostic *d : said) {
    EXPECT_EQ(d->message.find("whole"), std::string::npos) << d->message;
  }
}

} // namespace
} // namespace parjava::frontend::testing
