// Reading and writing traces as OTF2 archives (ARCHITECTURE §3: OTF2 is parjava's trace file
// format) with the OTF2 library. Conventions: docs/otf2-conventions.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "parjava/trace/trace.hpp"

namespace parjava::trace {

// Read any OTF2 archive (parjava's tracer, Score-P, OTF2 2.x and 3.x): `path` is the anchor
// file (traces.otf2) or the archive directory holding exactly one anchor. Timestamps become
// nanoseconds since the archive's global offset; peers and roots become world ranks; records
// parjava does not interpret are kept as EventKind::Generic and counted in
// metadata.unknown_events. Matching is computed (matching.hpp).
// Throws Error(ErrorKind::Trace) naming the file and the defect for a missing, empty,
// truncated or non-OTF2 archive, a missing global definition file or a missing event file.
// `threads`: readers and matchers working at once (0: the machine's cores, at most 8); the
// result does not depend on it.
Trace open(const std::string &path, unsigned threads = 0);

// Write `trace` as an OTF2 archive: `path` is the archive directory (created; it must not
// exist or be empty) or the anchor path DIR/NAME.otf2. open(path) gives back the same columns
// and definitions. Throws Error(ErrorKind::Trace) when the archive cannot be written.
void write(const Trace &trace, const std::string &path);

// "ENTER", "MPI_ISEND", "COMM_CREATE", ... for an OTF2 event record id (Generic events' aux);
// "UNKNOWN" for ids OTF2 3.0 does not define.
std::string_view otf2_record_name(std::uint64_t record);

} // namespace parjava::trace
