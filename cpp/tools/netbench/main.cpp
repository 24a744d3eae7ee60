// netbench: measure this machine and write its description as JSON.
//
//   mpirun -np 2 netbench [--quick | --thorough] [-o machine.json] [--name NAME]
//          [--max-bytes BYTES] [--ci FRACTION] [--progress]
//
// Usually launched by `parjava netbench` or parjava.Machine.measure(), which add mpirun.
#include <cstdio>
#include <string>
#include <string_view>

#include <mpi.h>

#include "parjava/error.hpp"
#include "parjava/machine/machine_json.hpp"
#include "parjava/machine/units.hpp"
#include "parjava/netbench/netbench.hpp"

namespace {

constexpr int exit_usage = 2;
constexpr int exit_failure = 3;

constexpr const char *usage_text =
    "usage: netbench [--quick | --thorough] [-o FILE] [--name NAME] [--max-bytes SIZE]\n"
    "                [--ci FRACTION] [--progress]\n"
    "Measures ping-pong, Sendrecv, collectives and thread costs; writes the machine JSON.\n"
    "  --quick        >= 6 samples per point, 95% CI under 5% or 0.1 s (default; seconds)\n"
    "  --thorough     >= 20 samples per point, 95% CI under 2% or 2 s (about a minute)\n"
    "  -o, --output   where to write the JSON (default machine.json)\n"
    "  --name         the machine's name (default measured-<host>)\n"
    "  --max-bytes    largest ping-pong size, e.g. 4MiB (default 4 MiB)\n"
    "  --ci           target relative 95% confidence half-width (quick 0.05, thorough 0.02)\n"
    "  --progress     print `progress DONE TOTAL LABEL` lines on stderr\n";

struct Arguments {
  parjava::netbench::NetbenchOptions options = parjava::netbench::NetbenchOptions::quick();
  std::string output = "machine.json";
  bool progress = false;
  bool help = false;
};

// Throws parjava::Error(Usage) with a message for a bad command line.
Arguments parse(int argc, char **argv) {
  Arguments arguments;
  std::string name;
  double ci = -1.0;
  double max_bytes = -1.0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        throw parjava::Error(parjava::ErrorKind::Usage, std::string(argument) + " needs a value");
      }
      return argv[++i];
    };
    if (argument == "--quick") {
      arguments.options = parjava::netbench::NetbenchOptions::quick();
    } else if (argument == "--thorough") {
      arguments.options = parjava::netbench::NetbenchOptions::thorough();
    } else if (argument == "-o" || argument == "--output") {
      arguments.output = value();
    } else if (argument == "--name") {
      name = value();
    } else if (argument == "--max-bytes") {
      max_bytes = parjava::machine::parse_quantity(value(), parjava::machine::Dimension::Size,
                                                   "--max-bytes");
    } else if (argument == "--ci") {
      ci = parjava::machine::parse_quantity(value(), parjava::machine::Dimension::Ratio, "--ci");
    } else if (argument == "--progress") {
      arguments.progress = true;
    } else if (argument == "-h" || argument == "--help") {
      arguments.help = true;
    } else {
      throw parjava::Error(parjava::ErrorKind::Usage,
                           "unknown argument " + std::string(argument) + "\n" + usage_text);
    }
  }
  // Options given with a mode apply whatever their order on the line.
  arguments.options.name = name;
  if (ci >= 0.0) {
    if (!(ci > 0.0 && ci < 1.0)) {
      throw parjava::Error(parjava::ErrorKind::Usage, "--ci must be between 0 and 1");
    }
    arguments.options.point.target_relative_ci = ci;
  }
  if (max_bytes >= 0.0) {
    if (max_bytes < 64.0 || max_bytes > 1024.0 * 1024 * 1024) {
      throw parjava::Error(parjava::ErrorKind::Usage, "--max-bytes must be between 64 B and 1 GiB");
    }
    arguments.options.max_bytes = static_cast<std::uint64_t>(max_bytes);
  }
  return arguments;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int status = 0;
  try {
    const Arguments arguments = parse(argc, argv);
    if (arguments.help) {
      if (rank == 0) {
        std::fputs(usage_text, stdout);
      }
      MPI_Finalize();
      return 0;
    }
    parjava::netbench::ProgressCallback progress;
    if (arguments.progress) {
      progress = [](int done, int total, const std::string &label) {
        std::fprintf(stderr, "progress %d %d %s\n", done, total, label.c_str());
        std::fflush(stderr);
      };
    }
    const auto machine =
        parjava::netbench::run_netbench(MPI_COMM_WORLD, arguments.options, progress);
    if (machine) {
      try {
        parjava::machine::save_machine(*machine, arguments.output);
        if (const auto &m = machine->measurement(); m.has_value()) {
          std::printf("netbench: wrote %s (%s mode, %d ranks, %.1f s)\n", arguments.output.c_str(),
                      m->mode.c_str(), m->ranks, m->duration_seconds);
        }
      } catch (const parjava::Error &error) {
        std::fprintf(stderr, "netbench: %s\n", error.what());
        status = exit_failure;
      }
    }
  } catch (const parjava::Error &error) {
    // Argument and layout errors are raised identically on every rank; report once.
    if (rank == 0) {
      std::fprintf(stderr, "netbench: %s\n", error.what());
    }
    status = error.kind() == parjava::ErrorKind::Usage ? exit_usage : exit_failure;
  }
  // Every rank leaves with rank 0's status, so mpirun reports one outcome.
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
