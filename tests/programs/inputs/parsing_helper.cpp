// miniXyce's option parser (Mantevo miniXyce, mX_parms.cpp, reproduced): main's argv copied into a
// std::vector<std::string>, each name's dashes stripped and compared with `==`, the value read
// by atof(argv[i].data()) into a reference parameter; the same parser then reads defaults for
// every option the command line left out. The time loop steps a double up to t_stop.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace {

void parse_command_line(int argc, std::vector<std::string> &argv, double &t_step, double &t_stop,
                        int &n, std::set<int> &specified) {
  int i = 1;
  while (i < argc) {
    std::string parm_name = argv[i];
    i++;
    const std::size_t first = parm_name.find_first_not_of('-');
    parm_name = parm_name.substr(first);
    if ((parm_name == "h") || (parm_name == "tstep")) {
      if (specified.find(0) == specified.end()) {
        specified.insert(0);
        t_step = atof(argv[i].data());
      }
      i++;
    }
    if ((parm_name == "tf") || (parm_name == "tstop")) {
      if (specified.find(1) == specified.end()) {
        specified.insert(1);
        t_stop = atof(argv[i].data());
      }
      i++;
    }
    if (parm_name == "n") {
      if (specified.find(2) == specified.end()) {
        specified.insert(2);
        n = atoi(argv[i].data());
      }
      i++;
    }
    if (parm_name == "init") {
      // Initial values up to the next option, counted in a local of the loop's body: no flag.
      int values = 0;
      while (i < argc && argv[i][0] != '-') {
        i++;
        values++;
      }
      for (int k = 0; k < values; ++k) {
        std::printf("initial value %d: %s\n", k, argv[i - values + k].c_str());
      }
    }
  }
}

void get_parms(int argc, char *argv[], double &t_step, double &t_stop, int &n) {
  std::set<int> specified;
  std::vector<std::string> argv_strings;
  for (int i = 0; i < argc; i++) {
    argv_strings.push_back(static_cast<std::string>(argv[i]));
  }
  parse_command_line(argc, argv_strings, t_step, t_stop, n, specified);
  std::vector<std::string> defaults = {"defaults", "-tstep", "1e-8", "-tstop",
                                       "1e-6",     "-n",     "1000"};
  parse_command_line(static_cast<int>(defaults.size()), defaults, t_step, t_stop, n, specified);
}

double relax(std::vector<double> &u) {
  double s = 0.0;
  for (std::size_t i = 1; i + 1 < u.size(); ++i) {
    u[i] = 0.5 * (u[i - 1] + u[i + 1]);
    s += u[i];
  }
  return s;
}

} // namespace

int main(int argc, char *argv[]) {
  MPI_Init(&argc, &argv);
  double t_step = 0.0;
  double t_stop = 0.0;
  int n = 0;
  get_parms(argc, argv, t_step, t_stop, n);
  std::vector<double> u(static_cast<std::size_t>(n), 1.0);
  double t = t_step;
  int steps = 0;
  double sum = 0.0;
  while (t < t_stop) {
    steps++;
    double s = relax(u);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    sum += s;
    t += t_step;
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::printf("%d steps, sum %g\n", steps, sum);
  }
  MPI_Finalize();
  return 0;
}
