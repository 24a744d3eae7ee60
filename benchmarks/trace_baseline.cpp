// trace_baseline: the physical limit of the OTF2 format on this machine. Reads an archive with
// the OTF2 library exactly as parjava's reader does (global definitions, then each location's
// local definitions and events with OTF2_Reader_ReadAllLocalEvents), but with an empty callback
// for every event record. Prints seconds and events per second.
//
// With `skip-empty`, a location's local definition file is not handed to the library when it
// holds no record (20 bytes: the chunk header and the end marks), as parjava's reader does
// since it was found to cost a 4 MiB chunk allocated and cleared per location; the default is
// what any OTF2 reader does, reading every local definition file.
//
//   trace_baseline /tmp/big/traces.otf2 [repetitions] [skip-empty]
#include <otf2/otf2.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "parjava/trace/otf2_records.hpp"

namespace {

template <typename Setter> struct EmptyCallback;
template <typename Callbacks, typename... Args>
struct EmptyCallback<OTF2_ErrorCode (*)(Callbacks *, OTF2_CallbackCode (*)(Args...))> {
  static OTF2_CallbackCode call(Args...) { return OTF2_CALLBACK_SUCCESS; }
};

struct Locations {
  std::vector<OTF2_LocationRef> ids;
};

OTF2_CallbackCode on_location(void *data, OTF2_LocationRef self, OTF2_StringRef, OTF2_LocationType,
                              uint64_t, OTF2_LocationGroupRef) {
  static_cast<Locations *>(data)->ids.push_back(self);
  return OTF2_CALLBACK_SUCCESS;
}

void check(OTF2_ErrorCode code, const char *what) {
  if (code != OTF2_SUCCESS) {
    std::fprintf(stderr, "trace_baseline: %s: %s\n", what, OTF2_Error_GetName(code));
    std::exit(2);
  }
}

// The local definition file of `location` holds no record (see the top of this file).
bool empty_local_definitions(const std::string &anchor, OTF2_LocationRef location) {
  const auto dot = anchor.rfind(".otf2");
  const auto path = anchor.substr(0, dot) + "/" + std::to_string(location) + ".def";
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return false;
  }
  unsigned char bytes[21] = {};
  const auto n = std::fread(bytes, 1, sizeof bytes, file);
  std::fclose(file);
  return n == 20 && bytes[0] == 3 && bytes[18] == 2 && bytes[19] == 1;
}

std::uint64_t read_once(const char *anchor, bool skip_empty) {
  OTF2_Reader *reader = OTF2_Reader_Open(anchor);
  if (reader == nullptr) {
    std::fprintf(stderr, "trace_baseline: cannot open %s\n", anchor);
    std::exit(2);
  }
  check(OTF2_Reader_SetSerialCollectiveCallbacks(reader), "collective callbacks");
  Locations locations;
  OTF2_GlobalDefReader *global = OTF2_Reader_GetGlobalDefReader(reader);
  OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, on_location);
  check(OTF2_Reader_RegisterGlobalDefCallbacks(reader, global, gcb, &locations), "register");
  OTF2_GlobalDefReaderCallbacks_Delete(gcb);
  uint64_t defs = 0;
  check(OTF2_Reader_ReadAllGlobalDefinitions(reader, global, &defs), "global definitions");
  check(OTF2_Reader_CloseGlobalDefReader(reader, global), "close global definitions");

  for (auto id : locations.ids) {
    check(OTF2_Reader_SelectLocation(reader, id), "select");
  }
  const bool have_defs = OTF2_Reader_OpenDefFiles(reader) == OTF2_SUCCESS;
  check(OTF2_Reader_OpenEvtFiles(reader), "open event files");
  OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
#define PARJAVA_SET_EMPTY(Name, NAME, ID)                                                          \
  OTF2_EvtReaderCallbacks_Set##Name##Callback(                                                     \
      cb, &EmptyCallback<decltype(&OTF2_EvtReaderCallbacks_Set##Name##Callback)>::call);
  PARJAVA_OTF2_EVENT_RECORDS(PARJAVA_SET_EMPTY)
#undef PARJAVA_SET_EMPTY
  std::uint64_t total = 0;
  for (auto id : locations.ids) {
    if (have_defs && !(skip_empty && empty_local_definitions(anchor, id))) {
      OTF2_DefReader *local = OTF2_Reader_GetDefReader(reader, id);
      if (local != nullptr) {
        uint64_t n = 0;
        OTF2_Reader_ReadAllLocalDefinitions(reader, local, &n);
        OTF2_Reader_CloseDefReader(reader, local);
      }
    }
    OTF2_EvtReader *events = OTF2_Reader_GetEvtReader(reader, id);
    check(OTF2_Reader_RegisterEvtCallbacks(reader, events, cb, nullptr), "register events");
    uint64_t n = 0;
    check(OTF2_Reader_ReadAllLocalEvents(reader, events, &n), "read events");
    total += n;
    check(OTF2_Reader_CloseEvtReader(reader, events), "close events");
  }
  OTF2_EvtReaderCallbacks_Delete(cb);
  if (have_defs) {
    OTF2_Reader_CloseDefFiles(reader);
  }
  check(OTF2_Reader_CloseEvtFiles(reader), "close event files");
  check(OTF2_Reader_Close(reader), "close");
  return total;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: trace_baseline ARCHIVE/traces.otf2 [repetitions]\n");
    return 2;
  }
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  const bool skip_empty = argc > 3 && std::string(argv[3]) == "skip-empty";
  double best = 1e30;
  double first = 0;
  std::uint64_t events = 0;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    events = read_once(argv[1], skip_empty);
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    best = std::min(best, dt.count());
    if (r == 0) {
      first = dt.count();
    }
  }
  std::printf("first read in this process: %.3f s\n", first);
  std::printf("baseline (OTF2 library, empty callbacks%s): %llu events, best of %d: %.3f s, "
              "%.1f M events/s\n",
              skip_empty ? ", empty local definition files skipped" : "",
              static_cast<unsigned long long>(events), reps, best, events / best / 1e6);
  return 0;
}
