// Inputs set from the command line and, when one is given, from an input file's blocks, the
// LLNL/Quicksilver way: `-N 10` sets nSteps, and `parseInputFile` scans every "Simulation"
// block of the file with keyed reads (`block.getValue<int>("nSteps", sp.nSteps)`) in a loop
// over the blocks. Without a file the loop runs no block; the keyed reads are the program's
// inputs all the same, not data that changes from one iteration to the next.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

// Defaults in a constructor's member initializer list too, as Quicksilver's Parameters has them
// (`nBatches(10), balanceTallyReplications(1), ...`).
struct SimulationParameters {
  SimulationParameters() : sweeps(2) {}
  int nSteps = 10;
  int nx = 100000;
  int sweeps;
  std::string inputFile;
};

class InputBlock {
public:
  explicit InputBlock(std::string name) : name_(std::move(name)) {}
  const std::string &name() const { return name_; }
  void add(const std::string &key, const std::string &value) { pairs_[key] = value; }
  template <typename T> void getValue(const std::string &key, T &value) const {
    auto here = pairs_.find(key);
    if (here == pairs_.end()) {
      return;
    }
    std::istringstream in(here->second);
    in >> value;
  }

private:
  std::string name_;
  std::map<std::string, std::string> pairs_;
};

static void scanSimulationBlock(const InputBlock &block, SimulationParameters &sp) {
  block.getValue<int>("nSteps", sp.nSteps);
  block.getValue<int>("nx", sp.nx);
}

static void parseInputFile(const std::string &filename, SimulationParameters &sp) {
  std::vector<InputBlock> tree;
  std::ifstream in(filename.c_str());
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Block:", 0) == 0) {
      tree.emplace_back(line.substr(7));
    } else if (!tree.empty() && line.find(':') != std::string::npos) {
      const auto colon = line.find(':');
      tree.back().add(line.substr(0, colon), line.substr(colon + 1));
    }
  }
  for (unsigned ii = 0; ii < tree.size(); ++ii) {
    if (tree[ii].name() == "Simulation") {
      scanSimulationBlock(tree[ii], sp);
    }
  }
}

static double relax(double *u, int n) {
  for (int i = 1; i + 1 < n; ++i) {
    u[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
  }
  return u[n / 2];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  SimulationParameters sp;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-N") == 0 && i + 1 < argc) {
      sp.nSteps = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "-x") == 0 && i + 1 < argc) {
      sp.nx = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
      sp.sweeps = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "-i") == 0 && i + 1 < argc) {
      sp.inputFile = argv[++i];
    }
  }
  if (!sp.inputFile.empty()) {
    parseInputFile(sp.inputFile, sp);
  }
  std::vector<double> u(static_cast<std::size_t>(sp.nx), 1.0);
  double s = 0.0;
  const double t0 = MPI_Wtime();
  for (int step = 0; step < sp.nSteps; ++step) {
    for (int sweep = 0; sweep < sp.sweeps; ++sweep) {
      s += relax(u.data(), sp.nx);
    }
  }
  double total = 0.0;
  MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::printf("time %.6f sum %g\n", MPI_Wtime() - t0, total);
  }
  MPI_Finalize();
  return 0;
}
