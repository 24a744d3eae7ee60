// Reading the global definitions of an OTF2 archive into a TraceBuilder.
#pragma once

#include <otf2/otf2.h>

#include "otf2_files.hpp"
#include "otf2_status.hpp"
#include "otf2_translation.hpp"
#include "parjava/trace/builder.hpp"

namespace parjava::trace::detail {

// Define the system tree, processes, locations, regions, communicators, windows, call sites,
// metrics and archive metadata in `builder`; return what the event reader needs.
EventTranslation read_definitions(OTF2_Reader *reader, const ArchiveFiles &files,
                                  Otf2ErrorScope &errors, TraceBuilder &builder);

} // namespace parjava::trace::detail
