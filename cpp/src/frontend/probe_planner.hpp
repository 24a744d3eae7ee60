// Where the estimation code measures (seed 000 notes §3.7; seed 003 notes §6.5): every
// computational block and external call outside loop nests without communication; each such
// loop nest as a fragment (its outer loop and every loop of an imperfect nest level), with the
// per-iteration times of nests for the balanced-loop test; trip counters in every loop the
// model may reduce or cannot count; branch and selector counters for opaque conditions that
// survive reduction; the values of MPI arguments the model cannot compute; and unstructured
// functions as a whole. Blocks inside the innermost loops are not probed: their loop is
// measured as a whole, which is both cheaper and closer to the optimised code.
#pragma once

#include "parjava/frontend/estimation_plan.hpp"
#include "parjava/model/model.hpp"
#include "source_analysis.hpp"

namespace parjava::frontend {

EstimationPlan plan_probes(AnalysedSources &sources, const model::Model &model);

} // namespace parjava::frontend
