// What the estimation says about a rewritten bound (docs/model-schema.md "Rewritten bounds";
// the builder's rewritten_bounds.hpp): how the loop's trip count behaved during the run, so a
// prediction that runs the loop far more often can tell a count that held still while its data
// was rewritten from one that drifted or never moved.
#pragma once

#include <cstdint>

#include "parjava/frontend/estimates.hpp"
#include "parjava/model/model.hpp"

namespace parjava::frontend {

// Fills b's measured fields from the loop's trip probe (`slot`, merged measurement `merged`).
void measure_rewritten_bound(model::RewrittenBound &b, const Measurements &ms, std::uint32_t slot,
                             const SlotMeasurement &merged);

} // namespace parjava::frontend
