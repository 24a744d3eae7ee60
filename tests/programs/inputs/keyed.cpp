// Inputs looked up by name in the command line's text, the Mantevo way (miniFE's utils/):
// argv joined into one string, each value found by its key ("nx=40", "nx 40", "-nx 40"), the
// values broadcast from rank 0 in an array and copied back into a struct.
#include <mpi.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

void read_args_into_string(int argc, char **argv, std::string &text) {
  for (int i = 0; i < argc; ++i) {
    text += argv[i];
    text += ' ';
  }
}

template <typename T>
T parse_parameter(const std::string &text, const std::string &name, const T &fallback) {
  std::string::size_type pos = text.find(name);
  if (pos == std::string::npos) {
    return fallback;
  }
  pos += name.size();
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '=' || text[pos] == ':')) {
    ++pos;
  }
  std::istringstream in(text.substr(pos));
  T value = fallback;
  in >> value;
  return in ? value : fallback;
}

struct Parameters {
  int nx = 0;
  int steps = 0;
};

void get_parameters(int argc, char **argv, Parameters &params) {
  std::string argstring;
  read_args_into_string(argc, argv, argstring);
  params.nx = parse_parameter<int>(argstring, "nx", 10);
  params.steps = parse_parameter<int>(argstring, "steps", 5);
}

void broadcast_parameters(Parameters &params) {
  int values[2] = {params.nx, params.steps};
  MPI_Bcast(&values[0], 2, MPI_INT, 0, MPI_COMM_WORLD);
  params.nx = values[0];
  params.steps = values[1];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Parameters params;
  get_parameters(argc, argv, params);
  broadcast_parameters(params);
  std::vector<double> x(static_cast<std::size_t>(params.nx), 1.0);
  std::vector<double> sum(x.size());
  for (int s = 0; s < params.steps; ++s) {
    for (int i = 0; i < params.nx; ++i) {
      x[i] = x[i] * 0.5 + 1.0;
    }
    MPI_Allreduce(x.data(), sum.data(), params.nx, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  std::printf("%g\n", sum[0]);
  MPI_Finalize();
  return 0;
}
