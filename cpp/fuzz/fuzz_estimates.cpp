// libFuzzer target: estimates files of the estimation run (frontend's reader, which needs no
// Clang). The first byte gives the number of probe slots the plan expects (1-16), the rest is
// the file. Any input loads or throws parjava::Error.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "parjava/error.hpp"
#include "parjava/frontend/estimates.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  static const std::string path =
      "/tmp/parjava-fuzz-estimates." + std::to_string(getpid()) + ".txt";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(data + 1), static_cast<std::streamsize>(size - 1));
  }
  try {
    (void)parjava::frontend::load_estimates({path}, 1U + (data[0] & 15U));
  } catch (const parjava::Error &) {
  }
  return 0;
}
