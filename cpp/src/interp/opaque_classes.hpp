// The statistics each rank uses for an opaque condition (docs/model-schema.md "Opaque
// conditions", "Per-rank statistics"): the pooled ones, or the rank classes of per-rank
// statistics measured at one np and applied at this interpretation's np.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "program.hpp"

#include "parjava/model/model.hpp"

namespace parjava::interp {

// Fill out.kind, out.base, out.classes and out.per_rank for opaque node `n` interpreted at `np`
// processes. Appends a warning (node and line) when per-rank statistics that differ across
// ranks are applied at another np than the one they were measured at.
void opaque_statistics(const model::Model &model, model::NodeIndex n, std::int64_t np,
                       OpaqueInfo &out, std::vector<std::string> &warnings);

} // namespace parjava::interp
