// parjava-trace-assemble: turn the fragments of a traced run into an OTF2 archive.
// `parjava trace` runs it after the program ends; users who launch the program with the tracer
// themselves (batch jobs) run it, or `parjava trace --assemble`, on the fragment directory.
// Prints the assembly report as JSON on stdout; errors go to stderr with exit status 2.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#include "parjava/error.hpp"
#include "parjava/tracer/archive_assembler.hpp"

int main(int argc, char **argv) {
  parjava::tracer::AssembleOptions options;
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == "--name" && i + 1 < argc) {
      options.archive_name = argv[++i];
    } else if (arg == "-h" || arg == "--help") {
      std::cout << "usage: parjava-trace-assemble FRAGMENT_DIR OUTPUT_DIR [--name NAME]\n"
                   "Writes OUTPUT_DIR/NAME.otf2 (NAME defaults to 'traces') from the fragments a "
                   "run under libparjava_tracer.so left in FRAGMENT_DIR, and prints a JSON "
                   "report.\n";
      return 0;
    } else if (positional == 0) {
      options.fragments = argv[i];
      ++positional;
    } else if (positional == 1) {
      options.output = argv[i];
      ++positional;
    } else {
      std::cerr << "parjava-trace-assemble: unexpected argument '" << arg << "'\n";
      return 2;
    }
  }
  if (positional != 2) {
    std::cerr << "usage: parjava-trace-assemble FRAGMENT_DIR OUTPUT_DIR [--name NAME]\n";
    return 2;
  }
  try {
    const auto report = parjava::tracer::assemble_archive(options);
    std::cout << report.to_json() << "\n";
    return 0;
  } catch (const parjava::Error &e) {
    std::cerr << "parjava-trace-assemble: " << e.what() << "\n";
    return 2;
  } catch (const std::exception &e) {
    std::cerr << "parjava-trace-assemble: internal error: " << e.what() << "\n";
    return 3;
  }
}
