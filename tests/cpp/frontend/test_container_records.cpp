// Records kept in a standard container (hidden_writes.hpp, container_element): `tiles[t]`,
// `tiles.at(t)`, `tiles.front()` and `*it` return a reference to an element whose fields hold
// what the program wrote into them (a field is one variable whatever the object). Before, the
// reference an external operator[] returned made every field of the record data, as for a
// record a library returns: UoB-HPC/CloverLeaf's loops over its tile bounds (a
// std::vector<tile_info>) were all timed as constants.
#include <gtest/gtest.h>

#include "support.hpp"

namespace parjava::frontend::testing {
namespace {

constexpr const char *kTiles = R"(
#include <cstdlib>
#include <mpi.h>
#include <vector>
struct tile_info { int xmin, xmax; };
struct tile_type {
  tile_info info;
  double *field;
  explicit tile_type(const tile_info &i) : info(i), field(nullptr) {}
};
static std::vector<tile_info> decompose(int cells, int tiles) {
  std::vector<tile_info> out(tiles);
  for (int t = 0; t < tiles; ++t) {
    out[t].xmin = 1;
    out[t].xmax = cells / tiles;
  }
  return out;
}
static void kernel(int xmin, int xmax, double *u) {
  for (int i = xmin; i <= xmax; ++i) u[i] *= 0.5;
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int cells = argc > 1 ? atoi(argv[1]) : 1000;
  std::vector<tile_type> tiles;
  for (const tile_info &ti : decompose(cells, 1)) tiles.push_back(tile_type(ti));
  double u[64];
  for (int t = 0; t < 1; ++t) {
    tile_type &tile = tiles[t];
    kernel(tile.info.xmin, tile.info.xmax, u);
  }
  kernel(tiles.front().info.xmin, tiles.at(0).info.xmax, u);
  MPI_Send(u, tiles[0].info.xmax, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
)";

TEST(ContainerRecords, ElementFieldsAreTheProgramsFields) {
  const BuildResult r = build(write_source("tiles.cpp", kTiles), {"-std=c++17"});
  const auto sends = operations(r.model, model::Operation::Send);
  ASSERT_EQ(sends.size(), 1U);
  EXPECT_EQ(arg(*sends[0], "bytes"), "tile_info_xmax * 8");
  std::vector<std::string> flagged;
  for (const auto &d : r.diagnostics) {
    if (d.severity != Severity::Note) {
      flagged.push_back(d.message);
    }
  }
  // The range-for over what decompose() returns is counted by the estimation run, not a field;
  // the tiles' bounds written at out[t] are one value for every tile (test_element_fields.cpp).
  ASSERT_EQ(flagged.size(), 2U) << ::testing::PrintToString(flagged);
  EXPECT_NE(flagged[0].find("for decompose(cells, 1)"), std::string::npos) << flagged[0];
  EXPECT_NE(flagged[1].find("of the elements of 'out'"), std::string::npos) << flagged[1];
}

// A container a library function returns holds the library's values: its records' fields are
// data, with the reason (one variable per field: the program's own tiles too); a message size
// from data is measured by the estimation run, with a warning.
constexpr const char *kLibraryTiles = R"(
#include <mpi.h>
#include <vector>
struct tile_info { int xmin, xmax; };
std::vector<tile_info> from_a_library(int n);
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  std::vector<tile_info> tiles = from_a_library(2);
  double u[64];
  MPI_Send(u, tiles[0].xmax, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
)";

TEST(ContainerRecords, ALibrarysContainerHoldsData) {
  const BuildResult r = build(write_source("library_tiles.cpp", kLibraryTiles), {"-std=c++17"});
  std::vector<std::string> flagged;
  for (const auto &d : r.diagnostics) {
    if (d.severity != Severity::Note) {
      flagged.push_back(d.message);
    }
  }
  ASSERT_EQ(flagged.size(), 1U) << ::testing::PrintToString(flagged);
  EXPECT_NE(flagged[0].find("argument 'bytes' of MPI_Send depends on 'tile_info::xmax' is "
                            "returned in a std::vector<tile_info> by from_a_library()"),
            std::string::npos)
      << flagged[0];
}

} // namespace
} // namespace parjava::frontend::testing
