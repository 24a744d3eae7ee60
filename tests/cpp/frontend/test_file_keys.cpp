// Values an input file sets by keyword (file_keys.hpp): inside the loop over the file, a number
// converted under a test of a word against a key literal is a parameter read from the file,
// named after the variable it sets; before, it was "read ... inside a loop (data that changes,
// not a program input)" and nothing of the input could be predicted (UoB-HPC/CloverLeaf's
// clover.in: `if (words[0] == "x_cells") globals.grid.x_cells = std::stoi(words[1]);`), also
// through arithmetic on the number (`std::stoi(words[1]) / parallel.max_task`).
#include <gtest/gtest.h>

#include "support.hpp"

namespace parjava::frontend::testing {
namespace {

constexpr const char *kC = R"(
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
  int steps = 10, cells = 100, rank;
  char key[64], value[64];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  FILE *f = fopen("deck.in", "r");
  while (f != NULL && fscanf(f, "%63s %63s", key, value) == 2) {
    if (strcmp(key, "steps") == 0)
      steps = atoi(value);
    else if (!strcmp(key, "cells"))
      cells = atoi(value);
  }
  for (int s = 0; s < steps; ++s)
    MPI_Bcast(value, cells, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
)";

constexpr const char *kCpp = R"(
#include <mpi.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
struct grid_type { int x_cells; int y_cells; };
struct config_type { grid_type grid; int end_step; int tiles; };
static void read_input(std::istream &in, config_type &config, int ranks) {
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words_of(line);
    std::vector<std::string> words;
    for (std::string w; words_of >> w;) words.push_back(w);
    if (words.size() < 2) continue;
    if (words[0] == "x_cells") {
      config.grid.x_cells = std::stoi(words[1]);
    } else if (words[0] == "end_step") {
      config.end_step = std::stoi(words[1]);
    } else if (words[0] == "tiles_per_chunk") {
      config.tiles = std::stoi(words[1]);
    } else if (words[0] == "tiles_per_problem") {
      config.tiles = std::stoi(words[1]) / ranks;
    }
  }
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  config_type config{};
  std::ifstream in("clover.in");
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  read_input(in, config, ranks);
  double row[64];
  for (int step = 0; step < config.end_step; ++step)
    for (int tile = 0; tile < config.tiles; ++tile)
      MPI_Allreduce(MPI_IN_PLACE, row, config.grid.x_cells, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
)";

TEST(FileKeys, CValuesSetByKeywordAreFileParameters) {
  const BuildResult r = build(write_source("deck.c", kC));
  for (const char *name : {"steps", "cells"}) {
    const model::Parameter *p = parameter(r.model, name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(p->origin, "file") << name;
  }
  const model::Parameter *cells = parameter(r.model, "cells");
  ASSERT_NE(cells, nullptr);
  EXPECT_NE(cells->doc.find("'cells' read from an input file"), std::string::npos) << cells->doc;
  // A deck without the key leaves the program's own value.
  ASSERT_TRUE(cells->program_default.has_value());
  EXPECT_EQ(cells->program_default->as_int(), 100);
  // The loop and the message read the locals the parameters set (`steps_2 = steps`), not
  // counts measured at the estimation input.
  const model::Node *loop = labelled(r.model, "for s < steps");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->cond.text(), "(s < steps_2)");
  const auto bcasts = operations(r.model, model::Operation::Bcast);
  ASSERT_EQ(bcasts.size(), 1U);
  EXPECT_EQ(arg(*bcasts[0], "bytes"), "cells_2");
  for (const auto &d : r.diagnostics) {
    const bool step_loop = d.line == loop->source.line || d.line == bcasts[0]->source.line;
    EXPECT_FALSE(step_loop && d.kind == DiagnosticKind::Opaque) << d.message;
  }
}

TEST(FileKeys, CppWordsComparedWithKeysAreFileParameters) {
  const BuildResult r = build(write_source("clover.cpp", kCpp), {"-std=c++17"});
  for (const char *name : {"x_cells", "end_step"}) {
    const model::Parameter *p = parameter(r.model, name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(p->origin, "file") << name;
  }
  for (const auto &d : r.diagnostics) {
    EXPECT_EQ(d.message.find("inside a loop (data that changes"), std::string::npos) << d.message;
  }
  // The keyed reads hold after the loop over the file, whichever line set them: they are set
  // there, on every path, not under the key's test that the model would draw by its frequency
  // (CloverLeaf's y_cells branch never ran in the model: chunks of the default 10 cells).
  const model::Node *after = labelled(r.model, "inputs set by the input file's loop");
  ASSERT_NE(after, nullptr);
  EXPECT_TRUE(has_assignment(*after, "grid_type_x_cells"));
  EXPECT_TRUE(has_assignment(*after, "config_type_end_step"));
  // Set by either key, once through arithmetic on the number (CloverLeaf's tiles_per_problem):
  // one parameter, the value the variable has after the loop; the tile loop is counted.
  const model::Parameter *tiles = parameter(r.model, "tiles");
  ASSERT_NE(tiles, nullptr);
  EXPECT_EQ(tiles->origin, "file");
  const model::Node *loop = labelled(r.model, "for tile < config.tiles");
  ASSERT_NE(loop, nullptr);
  EXPECT_FALSE(loop->cond.empty());
  for (const auto &d : r.diagnostics) {
    EXPECT_FALSE(d.kind == DiagnosticKind::Opaque && d.line == loop->source.line) << d.message;
  }
}

} // namespace
} // namespace parjava::frontend::testing
