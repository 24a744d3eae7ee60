// open(): an OTF2 archive -> Trace. Definitions first (they say how to read the events and
// how many to expect), then the events of every location (in parallel into presized columns
// when their counts are announced), then finish() (matching, its per-location part parallel).
#include <memory>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "otf2_definitions_reader.hpp"
#include "otf2_events_reader.hpp"
#include "parallel.hpp"
#include "parjava/error.hpp"
#include "parjava/trace/otf2.hpp"
#include "parjava/trace/partition.hpp"

namespace parjava::trace {

namespace {
struct ReaderCloser {
  void operator()(OTF2_Reader *reader) const { OTF2_Reader_Close(reader); }
};
struct CountsDisagree {};
} // namespace

namespace {

// `parts` == 0: every location; else only the events of the locations `part` owns.
Trace read_archive(const std::string &path, unsigned threads, bool trust_announced_counts,
                   std::uint32_t part = 0, std::uint32_t parts = 0) {
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
  std::vector<char> keep;
  if (parts > 0) {
    const PartitionPlan plan(builder.locations(), parts);
    for (const auto &location : builder.locations()) {
      keep.push_back(plan.owner(location) == part ? 1 : 0);
    }
  }
  if (!detail::read_events(reader.get(), files, translation, errors, builder,
                           trust_announced_counts ? threads : 0, parts > 0 ? &keep : nullptr)) {
    throw CountsDisagree{};
  }
  return builder.finish(threads);
}

} // namespace

namespace {

Trace open_archive(const std::string &path, unsigned threads, std::uint32_t part,
                   std::uint32_t parts) {
  if (threads == 0) {
    threads = detail::default_threads();
  }
  try {
    auto trace = read_archive(path, threads, true, part, parts);
#if defined(__GLIBC__)
    // Give back the reading and matching scratch memory that the allocator's per-thread
    // arenas would otherwise keep resident next to the trace.
    malloc_trim(0);
#endif
    return trace;
  } catch (const CountsDisagree &) {
    // A location holds more events than its definition announces: read again, appending.
    auto trace = read_archive(path, threads, false, part, parts);
    trace.metadata.warnings.insert(trace.metadata.warnings.begin(),
                                   "the archive announces fewer events than some locations "
                                   "hold; it was read without the announced counts");
    return trace;
  }
}

} // namespace

Trace open(const std::string &path, unsigned threads) { return open_archive(path, threads, 0, 0); }

Trace open_part(const std::string &path, std::uint32_t part, std::uint32_t parts,
                unsigned threads) {
  if (parts == 0 || part >= parts) {
    throw Error(ErrorKind::Usage, "open_part: part " + std::to_string(part) + " of " +
                                      std::to_string(parts) + " does not exist");
  }
  return open_archive(path, threads, part, parts);
}

} // namespace parjava::trace
