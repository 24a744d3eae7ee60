// The second half of the frontend pipeline: the analysed structure becomes a parjava::model::Model
// through the model part's API (never a second representation). Kept control assignments are the
// reduced bodies of blocks (Def. 3.1.13), non-control arguments become constants and constant
// call shapes become calling contexts (Def. 3.1.14), opaque conditions carry placeholder
// statistics that the estimation run replaces.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "parjava/frontend/estimation_plan.hpp"
#include "parjava/model/model.hpp"
#include "source_analysis.hpp"

namespace parjava::frontend {

struct EmittedModel {
  model::Model model;
  EstimationPlan plan;
};

// Emit the model (validated) and the plan of where the estimation code measures what.
EmittedModel emit_model(AnalysedSources &sources);

} // namespace parjava::frontend
