#include "otf2_status.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "parjava/error.hpp"

namespace parjava::trace::detail {
namespace {

// The library's callback is process-wide; each thread reading an archive keeps its own
// messages.
thread_local std::string t_messages; // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)

OTF2_ErrorCode collect(void * /*user_data*/, const char * /*file*/, uint64_t /*line*/,
                       const char * /*function*/, OTF2_ErrorCode code, const char *format,
                       va_list arguments) {
  auto &messages = t_messages;
  char text[512];
  // The format comes from the OTF2 library, which passes its own printf-style messages.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  std::vsnprintf(text, sizeof text, format, arguments);
#pragma GCC diagnostic pop
  // OTF2 reports the innermost cause first, then each caller's view of it; keep at most three.
  if (std::count(messages.begin(), messages.end(), ';') < 2) {
    if (!messages.empty()) {
      messages += "; ";
    }
    messages += std::string(OTF2_Error_GetDescription(code)) + ": " + text;
  }
  return code;
}

} // namespace

Otf2ErrorScope::Otf2ErrorScope() {
  previous_callback_ = OTF2_Error_RegisterCallback(collect, nullptr);
  previous_data_ = nullptr;
  t_messages.clear();
}

Otf2ErrorScope::~Otf2ErrorScope() {
  OTF2_Error_RegisterCallback(previous_callback_, previous_data_);
}

std::string
Otf2ErrorScope::take_messages() { // NOLINT(readability-convert-member-functions-to-static)
  std::string out;
  out.swap(t_messages);
  return out;
}

void throw_trace_error(const std::string &message) { throw Error(ErrorKind::Trace, message); }

void check_otf2(OTF2_ErrorCode code, Otf2ErrorScope &errors, const std::string &file,
                const std::string &what) {
  if (code == OTF2_SUCCESS) {
    return;
  }
  auto details = errors.take_messages();
  if (details.empty()) {
    details = OTF2_Error_GetDescription(code);
  }
  throw_trace_error(file + ": " + what + " failed: " + details);
}

} // namespace parjava::trace::detail
