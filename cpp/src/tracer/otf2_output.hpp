// A thin owner of an OTF2 archive being written: opening with the conventions' settings
// (POSIX, uncompressed, serial), error checks that name the failing call, string definitions
// written on first use, and closing. Internal to the assembler.
#pragma once

#include <filesystem>
#include <map>
#include <otf2/otf2.h>
#include <string>
#include <vector>

namespace parjava::tracer {

class Otf2Output {
public:
  Otf2Output(const std::filesystem::path &directory, const std::string &name);
  ~Otf2Output();
  Otf2Output(const Otf2Output &) = delete;
  Otf2Output &operator=(const Otf2Output &) = delete;

  // Throws parjava::Error(Trace) naming `what` when `code` is not OTF2_SUCCESS.
  void check(OTF2_ErrorCode code, const char *what) const;

  [[nodiscard]] OTF2_Archive *archive() const { return archive_; }
  OTF2_EvtWriter *event_writer(OTF2_LocationRef location);
  void close_event_writer(OTF2_EvtWriter *writer);
  // Switch from events to definitions (also writes the empty local definition files).
  void finish_events(const std::vector<OTF2_LocationRef> &locations);
  OTF2_GlobalDefWriter *global_definitions();
  // The id of a string. Its definition is written when the global definitions are open
  // (strings named while events are written wait until then).
  OTF2_StringRef string(const std::string &text);
  void set_property(const std::string &name, const std::string &value);
  void close();

private:
  OTF2_Archive *archive_ = nullptr;
  OTF2_GlobalDefWriter *global_ = nullptr;
  std::map<std::string, OTF2_StringRef> strings_;
  std::vector<const std::string *> pending_strings_; // named before the definitions were open
  std::filesystem::path path_;
};

} // namespace parjava::tracer
