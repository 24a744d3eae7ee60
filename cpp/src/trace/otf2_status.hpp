// OTF2 error handling for the reader and writer: the library reports problems through a
// callback (by default it prints them); Otf2ErrorScope collects them instead, so the Error we
// throw names the file and carries the library's own explanation. Messages are kept per
// thread: take_messages() returns those reported on the calling thread.
#pragma once

#include <otf2/otf2.h>

#include <string>

namespace parjava::trace::detail {

class Otf2ErrorScope {
public:
  Otf2ErrorScope();
  ~Otf2ErrorScope();
  Otf2ErrorScope(const Otf2ErrorScope &) = delete;
  Otf2ErrorScope &operator=(const Otf2ErrorScope &) = delete;

  // The messages OTF2 reported on this thread since the last call (most specific first), then
  // forget them.
  std::string take_messages();

private:
  OTF2_ErrorCallback previous_callback_;
  void *previous_data_;
};

// Throw Error(ErrorKind::Trace) "<file>: <what> failed: <OTF2 messages>" unless code is success.
void check_otf2(OTF2_ErrorCode code, Otf2ErrorScope &errors, const std::string &file,
                const std::string &what);
[[noreturn]] void throw_trace_error(const std::string &message);

} // namespace parjava::trace::detail
