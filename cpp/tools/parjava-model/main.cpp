// parjava-model: build a program model from C/C++ MPI sources (issue 7).
//
//   parjava-model jacobi.c -o jacobi.json -- -O2 -DN=512
//   parjava-model -p build/ src/solver.cpp -o solver.json
//   parjava-model jacobi.c --structure -- -O2
//   parjava-model jacobi.c --instrument est/ -o jacobi.json -- -O2
//
// Exit status: 0 on success, 2 on errors (unreadable input, sources that do not compile).
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "parjava/error.hpp"
#include "parjava/frontend/instrument.hpp"
#include "parjava/frontend/model_builder.hpp"
#include "parjava/model/model_json.hpp"

namespace {

const char *kUsage =
    "usage: parjava-model [options] SOURCE... [-- COMPILER-FLAGS...]\n"
    "\n"
    "Build a parjava program model (docs/model-schema.md) from C/C++ MPI sources.\n"
    "\n"
    "options:\n"
    "  -o FILE            write the model JSON to FILE (default: standard output)\n"
    "  -p DIR|FILE        read compile commands from DIR/compile_commands.json\n"
    "  --entry NAME       function the program starts in (default: main)\n"
    "  --name NAME        model name (default: the first source's stem)\n"
    "  --argv ARG...      the program's command line (argv[0] first), ended by --\n"
    "                     or the end: default values of the parameters argc, argv1, ...\n"
    "  --diagnostics FILE write the diagnostics as JSON (they are always printed to stderr)\n"
    "  --plan FILE        write the estimation plan (probe slots -> model nodes) as JSON\n"
    "  --instrument DIR   also write the estimation code (probed copy + runtime) into DIR\n"
    "  --structure        print the control structure the builder understood\n"
    "  --no-mpi-includes  do not add Open MPI's include path (mpicc --showme:compile)\n"
    "  -q                 do not print diagnostics\n"
    "  -h, --help         show this help\n";

void write(const std::string &path, const std::string &text) {
  if (path.empty() || path == "-") {
    std::cout << text << "\n";
    return;
  }
  std::ofstream out(path);
  out << text << "\n";
  if (!out) {
    throw parjava::Error(parjava::ErrorKind::Run, "cannot write " + path);
  }
}

} // namespace

int main(int argc, char **argv) {
  parjava::frontend::BuildOptions options;
  std::string output;
  std::string diagnostics_file;
  std::string plan_file;
  std::string instrument_dir;
  bool structure = false;
  bool quiet = false;
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string &a = args[i];
      const auto value = [&]() -> std::string {
        if (i + 1 >= args.size()) {
          throw parjava::Error(parjava::ErrorKind::Usage, a + " needs a value");
        }
        return args[++i];
      };
      if (a == "--") {
        options.args.assign(args.begin() + static_cast<long>(i) + 1, args.end());
        break;
      }
      if (a == "-h" || a == "--help") {
        std::cout << kUsage;
        return 0;
      } else if (a == "-o") {
        output = value();
      } else if (a == "-p") {
        options.compile_commands = value();
      } else if (a == "--entry") {
        options.entry = value();
      } else if (a == "--name") {
        options.name = value();
      } else if (a == "--argv") {
        while (i + 1 < args.size() && args[i + 1] != "--") {
          options.argv.push_back(args[++i]);
        }
        if (i + 1 < args.size()) {
          ++i; // the -- that ends --argv
        }
      } else if (a == "--diagnostics") {
        diagnostics_file = value();
      } else if (a == "--plan") {
        plan_file = value();
      } else if (a == "--instrument") {
        instrument_dir = value();
      } else if (a == "--structure") {
        structure = true;
      } else if (a == "--no-mpi-includes") {
        options.find_mpi = false;
      } else if (a == "-q") {
        quiet = true;
      } else if (!a.empty() && a[0] == '-') {
        throw parjava::Error(parjava::ErrorKind::Usage,
                             "unknown option " + a + " (compiler flags go after --)");
      } else {
        options.sources.push_back(a);
      }
    }
    if (options.sources.empty() && options.compile_commands.empty()) {
      std::cerr << kUsage;
      return 2;
    }
    std::vector<parjava::frontend::Diagnostic> diagnostics;
    parjava::model::Model model;
    parjava::frontend::EstimationPlan plan;
    if (structure) {
      std::cout << parjava::frontend::describe_structure_of(options);
      return 0;
    }
    if (!instrument_dir.empty()) {
      auto inst = parjava::frontend::instrument(options, instrument_dir);
      model = std::move(inst.model);
      plan = std::move(inst.plan);
      diagnostics = std::move(inst.diagnostics);
      if (!quiet) {
        for (const auto &s : inst.sources) {
          std::cerr << "estimation code: " << s.instrumented << "\n";
        }
      }
    } else {
      auto result = parjava::frontend::build_model(options);
      model = std::move(result.model);
      plan = std::move(result.plan);
      diagnostics = std::move(result.diagnostics);
    }
    write(output, parjava::model::model_to_json(model, 1));
    if (!quiet) {
      for (const auto &d : diagnostics) {
        std::cerr << d.format() << "\n";
      }
    }
    if (!diagnostics_file.empty()) {
      write(diagnostics_file, parjava::frontend::diagnostics_to_json(diagnostics));
    }
    if (!plan_file.empty()) {
      write(plan_file, plan.to_json());
    }
    return 0;
  } catch (const parjava::Error &e) {
    std::cerr << "parjava-model: " << e.what() << "\n";
    return 2;
  }
}
