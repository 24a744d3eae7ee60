// The one-line diagnosis of a finding: who lost how much where, because of whom, and the fix
// to try (seed 000 §5.2: the report is a list of <type, node, process, file, line, comment>).
#pragma once

#include <string>
#include <vector>

#include "parjava/analysis/finding.hpp"
#include "parjava/trace/trace.hpp"

namespace parjava::analysis {

// "rank 1 waited 20.0 ms in MPI_Recv at solver.c:42 for rank 0 (MPI_Send started 20.0 ms
// later); try: ..."
std::string diagnose(const Finding &finding, const trace::Trace &trace);
std::vector<std::string> diagnose_all(const std::vector<Finding> &findings,
                                      const trace::Trace &trace);

// "solver.c:42", or the caller region ("in exchange()") when the trace has no call site.
std::string callsite_text(const Finding &finding, const trace::Trace &trace);

// Seconds in a readable unit: "20.0 ms", "3.10 us".
std::string format_duration(double seconds);

} // namespace parjava::analysis
