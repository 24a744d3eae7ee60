// The estimation runtime written next to the instrumented sources (see probe_runtime.cpp).
#pragma once

#include <string_view>

namespace parjava::frontend {

// parjava_probes.h: the probes every instrumented source includes first.
std::string_view probe_runtime_header();
// parjava_probes.c: slot storage, thread registration, calibration and the estimates file;
// compiled with -DPJ_SLOTS=<number of slots>.
std::string_view probe_runtime_source();
// Its end: the count of the program's live heap at the allocator (probe_runtime_heap.cpp).
std::string_view probe_runtime_heap_source();

} // namespace parjava::frontend
