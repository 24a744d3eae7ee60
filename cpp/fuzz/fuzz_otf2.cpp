// libFuzzer target: OTF2 archives (trace part, through the OTF2 library). A copy of a small
// real archive is made once per process; each input replaces one of its files (the first byte
// chooses which: anchor, global definitions, then each location's definitions and events) and
// the archive is opened. Any input gives a trace or throws parjava::Error.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "parjava/error.hpp"
#include "parjava/trace/otf2.hpp"

namespace fs = std::filesystem;

namespace {

struct Archive {
  fs::path anchor;
  std::vector<fs::path> files;        // in a fixed order
  std::vector<std::string> originals; // their contents
};

std::string read(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write(const fs::path &path, const char *data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data, static_cast<std::streamsize>(size));
}

Archive &archive() {
  static Archive a = [] {
    const char *seed = std::getenv("PARJAVA_FUZZ_OTF2_SEED");
    const fs::path source = seed != nullptr ? fs::path(seed)
                                            : fs::path(PARJAVA_SOURCE_DIR) / "tests" / "data" /
                                                  "otf2" / "pipit-ping-pong";
    const auto copy = fs::temp_directory_path() / ("parjava-fuzz-otf2." + std::to_string(getpid()));
    fs::remove_all(copy);
    fs::create_directories(copy);
    Archive out;
    out.anchor = copy / "traces.otf2";
    fs::copy_file(source / "traces.otf2", out.anchor);
    fs::copy_file(source / "traces.def", copy / "traces.def");
    fs::copy(source / "traces", copy / "traces", fs::copy_options::recursive);
    out.files = {out.anchor, copy / "traces.def"};
    std::vector<fs::path> locals;
    for (const auto &entry : fs::directory_iterator(copy / "traces")) {
      locals.push_back(entry.path());
    }
    std::sort(locals.begin(), locals.end());
    out.files.insert(out.files.end(), locals.begin(), locals.end());
    for (const auto &f : out.files) {
      out.originals.push_back(read(f));
    }
    return out;
  }();
  return a;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  auto &a = archive();
  const auto which = data[0] % a.files.size();
  write(a.files[which], reinterpret_cast<const char *>(data + 1), size - 1);
  try {
    const auto trace = parjava::trace::open(a.anchor.string(), 1);
    (void)trace.clock_violations.total();
  } catch (const parjava::Error &) {
  }
  write(a.files[which], a.originals[which].data(), a.originals[which].size());
  return 0;
}
