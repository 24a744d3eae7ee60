// open(): an OTF2 archive -> Trace. Definitions first (they say how to read the events and
// how many to expect), then events location by location, then finish() (matching).
#include <memory>

#include "otf2_definitions_reader.hpp"
#include "otf2_events_reader.hpp"
#include "parjava/trace/otf2.hpp"

namespace parjava::trace {

namespace {
struct ReaderCloser {
  void operator()(OTF2_Reader *reader) const { OTF2_Reader_Close(reader); }
};
} // namespace

Trace open(const std::string &path) {
  detail::Otf2ErrorScope errors;
  const auto files = detail::find_archive(path);
  const std::unique_ptr<OTF2_Reader, ReaderCloser> reader(OTF2_Reader_Open(files.anchor.c_str()));
  if (!reader) {
    auto details = errors.take_messages();
    detail::throw_trace_error(files.anchor + ": not a readable OTF2 archive" +
                              (details.empty() ? std::string() : ": " + details));
  }
  detail::check_otf2(OTF2_Reader_SetSerialCollectiveCallbacks(reader.get()), errors, files.anchor,
                     "setting up the reader");
  bool global_reader = false;
  OTF2_Reader_SetHint(reader.get(), OTF2_HINT_GLOBAL_READER, &global_reader);
  errors.take_messages();

  TraceBuilder builder;
  builder.metadata().path = files.anchor;
  const auto translation = detail::read_definitions(reader.get(), files, errors, builder);
  detail::read_events(reader.get(), files, translation, errors, builder);
  return builder.finish();
}

} // namespace parjava::trace
