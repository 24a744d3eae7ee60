// Versioned JSON form of the program model (schema: docs/model-schema.md). Reading is strict:
// unknown fields, wrong types and invalid values are errors naming the node id and the field,
// and the result is validated (Model::validate) before it is returned.
#pragma once

#include <string>
#include <string_view>

#include "parjava/model/model.hpp"

namespace parjava::model {

// Parse a model from JSON text. `origin` (a file name or "<string>") prefixes messages.
Model model_from_json(std::string_view text, std::string_view origin = "<string>");
// Serialise; `indent` < 0 gives the compact form.
std::string model_to_json(const Model &model, int indent = 1);

Model load_model(const std::string &path);
void save_model(const Model &model, const std::string &path);

} // namespace parjava::model
