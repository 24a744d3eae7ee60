// Which measured trip counts a model keeps (issue 13, consistent communication). The builder
// probes every loop that communicates and whose count might follow data decisions
// (steered_loops.hpp); once the estimation has measured the decisions, only the loops whose
// count does follow a decision the run actually made keep their counts per rank. The rest
// are counted by the model, so that they follow its inputs: miniAMR's time-step loop ends on
// `done`, which the program sets under `sim_time >= end_time` too, a decision this run never
// evaluated; replaying its 10 steps would predict 10 steps of a 100-step input.
#pragma once

#include <vector>

#include "parjava/model/model.hpp"

namespace parjava::frontend {

// Clears Node::trips_by_rank where the count follows no live decision (an opaque condition
// evaluated with both outcomes, an opaque count that varied, a loop whose measured counts
// varied); returns the ids of the loops that keep theirs.
std::vector<model::NodeId> keep_decided_trips(model::Model &m);

} // namespace parjava::frontend
