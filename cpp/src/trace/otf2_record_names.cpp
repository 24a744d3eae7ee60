// Names of OTF2 event records, for Generic events (EventKind::Generic, aux = record id).
#include "parjava/trace/otf2.hpp"
#include "parjava/trace/otf2_records.hpp"

namespace parjava::trace {

std::string_view otf2_record_name(std::uint64_t record) {
  switch (record) {
#define PARJAVA_NAME(Name, NAME, ID)                                                               \
  case ID:                                                                                         \
    return #NAME;
    PARJAVA_OTF2_EVENT_RECORDS(PARJAVA_NAME)
#undef PARJAVA_NAME
  default:
    return "UNKNOWN";
  }
}

} // namespace parjava::trace
