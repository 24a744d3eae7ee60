// libFuzzer target: GOAL schedule text (loggp part). Any input parses or throws parjava::Error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parjava/error.hpp"
#include "parjava/loggp/goal_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  try {
    const auto schedule = parjava::loggp::parse_goal_text(text, "<fuzz>");
    (void)schedule.num_ops();
  } catch (const parjava::Error &) {
  }
  return 0;
}
