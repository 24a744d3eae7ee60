// Reading the events of every location of an OTF2 archive into a TraceBuilder.
#pragma once

#include <otf2/otf2.h>

#include <vector>

#include "otf2_files.hpp"
#include "otf2_status.hpp"
#include "otf2_translation.hpp"
#include "parjava/trace/builder.hpp"

namespace parjava::trace::detail {

// Read each location's local definitions (mapping tables, clock offsets) and events, location
// by location (OTF2_Reader_ReadAllLocalEvents: no merge by time across locations, which the
// global reader would do at a large cost). When the archive announces its event counts, the
// columns are presized and `threads` readers fill the locations in parallel (threads == 0:
// read sequentially, appending). Returns false when a location holds more events than
// announced (the builder is then unusable: read again with threads == 0). Throws TraceError
// for a missing or damaged file. With `keep`, only the locations l with keep[l] are read (the
// others get no events: a part of a parallel analysis, partition.hpp).
bool read_events(OTF2_Reader *reader, const ArchiveFiles &files, const EventTranslation &x,
                 Otf2ErrorScope &errors, TraceBuilder &builder, unsigned threads,
                 const std::vector<char> *keep = nullptr);

} // namespace parjava::trace::detail
