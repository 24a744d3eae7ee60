#include "parjava/analysis/diagnosis.hpp"

#include <cmath>
#include <cstdio>

namespace parjava::analysis {

using trace::kNoRef;

namespace {

std::string who(const trace::Trace &trace, std::uint32_t location) {
  if (location == kNoRef || location >= trace.location_count()) {
    return "?";
  }
  const auto &l = trace.locations[location];
  if (l.rank < 0) {
    return l.name.empty() ? "location " + std::to_string(location) : l.name;
  }
  std::string s = "rank " + std::to_string(l.rank);
  if (l.thread != 0) {
    s += " thread " + std::to_string(l.thread);
  }
  return s;
}

std::string region_name(const trace::Trace &trace, std::uint32_t region) {
  if (region == kNoRef || region >= trace.regions.size()) {
    return "?";
  }
  return trace.regions[region].name;
}

std::string bytes_text(std::uint64_t bytes) {
  char buffer[32];
  if (bytes >= std::uint64_t{1024} * 1024) {
    std::snprintf(buffer, sizeof buffer, "%.1f MiB", static_cast<double>(bytes) / 1048576.0);
  } else if (bytes >= 1024) {
    std::snprintf(buffer, sizeof buffer, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  } else {
    std::snprintf(buffer, sizeof buffer, "%llu B", static_cast<unsigned long long>(bytes));
  }
  return buffer;
}

} // namespace

std::string format_duration(double seconds) {
  char buffer[32];
  const double a = std::fabs(seconds);
  if (a >= 1.0) {
    std::snprintf(buffer, sizeof buffer, "%.3g s", seconds);
  } else if (a >= 1e-3) {
    std::snprintf(buffer, sizeof buffer, "%.3g ms", seconds * 1e3);
  } else if (a >= 1e-6) {
    std::snprintf(buffer, sizeof buffer, "%.3g us", seconds * 1e6);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.3g ns", seconds * 1e9);
  }
  return buffer;
}

std::string callsite_text(const Finding &finding, const trace::Trace &trace) {
  if (finding.callsite != kNoRef && finding.callsite < trace.callsites.size()) {
    const auto &site = trace.callsites[finding.callsite];
    return site.file + ":" + std::to_string(site.line);
  }
  if (finding.caller != kNoRef) {
    const auto name = region_name(trace, finding.caller);
    return "in " + name + (name.find('(') == std::string::npos ? "()" : "");
  }
  return "unknown call site";
}

std::string diagnose(const Finding &f, const trace::Trace &trace) {
  const auto &info = pattern_info(f.pattern);
  std::string s(info.code);
  s += ": ";
  s += who(trace, f.location);
  if (f.pattern == PatternId::CloseSendRecv) {
    s += " could save ";
  } else {
    s += f.idle < 0 ? " gained " : " lost ";
  }
  s += format_duration(static_cast<double>(std::llabs(f.idle)) * 1e-9);
  s += " in " + region_name(trace, f.region) + " at " + callsite_text(f, trace) + ": ";
  s += info.meaning;
  if (f.peer_location != kNoRef) {
    s += " (partner " + who(trace, f.peer_location) + ")";
  }
  if (f.bytes > 0) {
    s += ", " + bytes_text(f.bytes);
  }
  if (f.optimal_distance >= 0) {
    s += "; optimal distance O_D = " +
         format_duration(static_cast<double>(f.optimal_distance) * 1e-9);
    if ((f.flags & kNoTransferTime) != 0) {
      s += " without T_send (no machine given)";
    }
  }
  if ((f.flags & kSuspected) != 0) {
    s += "; suspected (upper bound)";
  }
  if ((f.flags & kNegativeTerm) != 0) {
    s += "; negative term of the literal formula";
  }
  s += "; try: ";
  s += info.fix;
  return s;
}

std::vector<std::string> diagnose_all(const std::vector<Finding> &findings,
                                      const trace::Trace &trace) {
  std::vector<std::string> out;
  out.reserve(findings.size());
  for (const auto &f : findings) {
    out.push_back(diagnose(f, trace));
  }
  return out;
}

} // namespace parjava::analysis
