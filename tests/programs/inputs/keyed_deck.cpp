// An input deck read by keyword (issue 12, values read from an input file), as UoB-HPC/CloverLeaf
// reads clover.in: `tiles` is set by either of two keys, once through arithmetic on the number
// (`tiles_per_problem`, divided by the ranks), and a deck may leave it out, when the program
// keeps the value it set before reading the file.
//
//   mpirun -np 1 ./keyed_deck deck.txt
#include <mpi.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <cstdio>
#include <cstdlib>
struct Config { int cells = 100; int tiles = 1; int steps = 10; };
static void read_input(const char *path, Config &c, int ranks) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::vector<std::string> words;
    std::string w;
    while (ss >> w) words.push_back(w);
    if (words.size() < 2) continue;
    if (words[0] == "cells") {
      c.cells = std::stoi(words[1]);
    } else if (words[0] == "tiles") {
      c.tiles = std::stoi(words[1]);
    } else if (words[0] == "tiles_per_problem") {
      c.tiles = std::stoi(words[1]) / ranks;
    } else if (words[0] == "steps") {
      c.steps = std::stoi(words[1]);
    }
  }
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Config c;
  read_input(argc > 1 ? argv[1] : "in.txt", c, size);
  double s = 0;
  for (int t = 0; t < c.steps; ++t)
    for (int k = 0; k < c.tiles; ++k)
      for (int i = 0; i < c.cells / c.tiles; ++i) s += i * 1e-9;
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  std::printf("%g\n", s);
  MPI_Finalize();
}
