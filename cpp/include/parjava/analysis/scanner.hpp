// The pattern scanner: one pass over a matched trace (per location, in time order) finds every
// point-to-point pattern; one pass over the collective instances and one over the lock events
// find the rest. The trace is read, never copied or changed, so one trace can be scanned again
// with other thresholds at no reading cost (ScanResult keeps it alive through shared_ptr).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "parjava/analysis/finding.hpp"
#include "parjava/analysis/scan_options.hpp"
#include "parjava/trace/trace.hpp"

namespace parjava::analysis {

// What a scan produced, and everything needed to explain it.
struct ScanResult {
  std::shared_ptr<const trace::Trace> trace;
  ScanOptions options;
  std::vector<Finding> findings; // sorted by time, then location, then pattern
  std::uint64_t events_scanned = 0;
  double seconds = 0.0;           // wall time of the scan
  std::vector<std::string> notes; // facts the reader of the report must know (T_send source, ...)
};

// Scan `trace` (matched: built by TraceBuilder or read from OTF2). Throws parjava::Error(Usage)
// for invalid options.
std::vector<Finding> scan(const trace::Trace &trace, const ScanOptions &options);
ScanResult scan(std::shared_ptr<const trace::Trace> trace, const ScanOptions &options);

} // namespace parjava::analysis
