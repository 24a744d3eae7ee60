// libFuzzer target: machine descriptions, as JSON or as a DVM Predictor.par file (machine part;
// the first byte chooses). Any input gives a machine (serialisable back to JSON) or throws
// parjava::Error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parjava/error.hpp"
#include "parjava/machine/machine_json.hpp"
#include "parjava/machine/predictor_par.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const std::string_view text(reinterpret_cast<const char *>(data + 1), size - 1);
  try {
    const auto machine = (data[0] & 1U) == 0
                             ? parjava::machine::machine_from_json(text, "<fuzz>")
                             : parjava::machine::machine_from_predictor_par(text, "<fuzz>");
    (void)parjava::machine::machine_to_json(machine, -1);
  } catch (const parjava::Error &) {
  }
  return 0;
}
