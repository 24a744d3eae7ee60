#include "parjava/analysis/scan_options.hpp"

#include <cctype>
#include <cmath>

#include "parjava/error.hpp"

namespace parjava::analysis {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto &c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

} // namespace

PatternSet select_patterns(const std::vector<std::string> &names) {
  PatternSet set;
  for (const auto &name : names) {
    const auto key = lower(name);
    bool family = false;
    for (const auto f : {PatternFamily::ParJava, PatternFamily::Scalasca, PatternFamily::Pgas}) {
      if (key == family_key(f)) {
        family = true;
        for (const auto &info : all_patterns()) {
          if (info.family == f) {
            set.set(static_cast<std::size_t>(info.id));
          }
        }
      }
    }
    if (family) {
      continue;
    }
    if (key == "all") {
      set.set();
      continue;
    }
    const auto id = pattern_by_name(key);
    if (!id) {
      throw Error(ErrorKind::Usage,
                  "patterns: unknown pattern '" + name +
                      "'; give a family (parjava, scalasca, pgas), a key such as late_sender, or "
                      "a code such as B1, N2, P6, mpi_latesender (parjava.patterns() lists them)");
    }
    set.set(static_cast<std::size_t>(*id));
  }
  return set;
}

trace::Timestamp seconds_to_ns(double seconds, std::string_view parameter) {
  if (!std::isfinite(seconds) || seconds < 0.0 || seconds > 1e9) {
    throw Error(ErrorKind::Usage, std::string(parameter) +
                                      " must be a number of seconds >= 0, got " +
                                      std::to_string(seconds));
  }
  return static_cast<trace::Timestamp>(std::llround(seconds * 1e9));
}

void validate(const ScanOptions &options) {
  if (options.eps < 0) {
    throw Error(ErrorKind::Usage, "eps must be >= 0 seconds");
  }
  if (options.send_recv_delta < 0) {
    throw Error(ErrorKind::Usage, "send_recv_delta must be >= 0 seconds");
  }
  if (options.wrong_order_window == 0) {
    throw Error(ErrorKind::Usage, "wrong_order_window must be >= 1 (Scalasca uses 100)");
  }
  if (options.pgas.allocation_root < 0) {
    throw Error(ErrorKind::Usage, "pgas allocation_root must be a thread/PE number >= 0");
  }
}

} // namespace parjava::analysis
