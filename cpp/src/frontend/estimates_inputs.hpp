// Program inputs measured by the estimation run (issue 12 item 3): each named input parameter
// takes the value the program read where it reads it, so the model predicts the run that was
// measured rather than a default or 0.
#pragma once

#include <vector>

#include "parjava/frontend/diagnostic.hpp"
#include "parjava/frontend/estimates.hpp"
#include "parjava/model/model.hpp"

namespace parjava::frontend {

// Sets the parameters of the plan's Input probes; the diagnostics say what was set, and warn
// where the run never read an input or its ranks or reads disagreed.
std::vector<Diagnostic> apply_inputs(model::Model &m, const EstimationPlan &plan,
                                     const Measurements &ms);

} // namespace parjava::frontend
