// LANL PENNANT's input file (InputFile.cc, Driver.cc:54): the file is read into a table of
// key -> text, and each setting is looked up by a const method with a key literal and a
// default, `cstop = inp->getInt("cstop", 999999);`. The time-step loop runs while
// `cycle < cstop && time < tstop`; its count is the file's `cstop`, measured by the estimation
// run and set by `params=` in a prediction.
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

class Settings {
public:
  explicit Settings(const char *path) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      std::string key;
      words >> key;
      if (key.empty() || key[0] == '#') {
        continue;
      }
      std::string value;
      std::getline(words, value);
      pairs_[key] = value;
    }
  }
  int getInt(const std::string &key, int fallback) const { return get(key, fallback); }
  double getDouble(const std::string &key, double fallback) const { return get(key, fallback); }

private:
  template <typename T> T get(const std::string &key, T fallback) const {
    const auto it = pairs_.find(key);
    if (it == pairs_.end()) {
      return fallback;
    }
    std::istringstream words(it->second);
    T value = fallback;
    words >> value;
    return value;
  }
  std::map<std::string, std::string> pairs_;
};

class Driver {
public:
  explicit Driver(const Settings *inp) {
    cstop = inp->getInt("cstop", 999999);
    tstop = inp->getDouble("tstop", 1.e99);
    work = inp->getInt("work", 1000);
  }
  void run() {
    int cycle = 0;
    double time = 0.0;
    while (cycle < cstop && time < tstop) {
      cycle += 1;
      // Not live across the reduction: GCC spilled such an x to the stack in every iteration
      // of the program's loop and not in the estimation code's, which ran 2.4x faster.
      double x = 1.0 + 1e-3 * cycle;
      for (int i = 0; i < work; ++i) {
        x = x * 0.999999 + 1e-9;
      }
      double dt = 1e-3 * x;
      MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
      time += dt;
    }
    std::printf("%d cycles, time %g\n", cycle, time);
  }

private:
  int cstop;
  double tstop;
  int work;
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  Settings settings(argv[1]);
  Driver driver(&settings);
  driver.run();
  MPI_Finalize();
  return 0;
}
