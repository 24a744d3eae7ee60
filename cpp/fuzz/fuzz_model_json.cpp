// libFuzzer target: program model JSON (model part). Any input loads (and serialises back) or
// throws parjava::Error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parjava/error.hpp"
#include "parjava/model/model_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  try {
    const auto model = parjava::model::model_from_json(text, "<fuzz>");
    (void)parjava::model::model_to_json(model, -1);
  } catch (const parjava::Error &) {
  }
  return 0;
}
