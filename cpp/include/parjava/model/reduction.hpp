// Model reduction (seed 000 notes §3.4, §3.7.2; seed 003 notes §4.1): replacing a subtree by a
// reduced block (rb) whose time is known, and the analysis that marks "simple" fragments, whose
// time does not depend on the inputs of their function and which therefore can be reduced.
#pragma once

#include <vector>

#include "parjava/model/model.hpp"

namespace parjava::model {

// Why a node can or cannot be reduced.
struct Reducibility {
  bool simple = false;
  std::string reason; // empty when simple; otherwise the first obstacle found, for the user
};

// A node is simple when its subtree (i) contains no communication (cfc), user call (ufc) or task
// group, (ii) contains no break/continue/return that leaves the subtree, and (iii) reads no
// variable defined outside it other than program parameters, globals that the subtree does not
// depend on, size and nthreads: then its time is the same on every process and every execution
// (notes 000 §3.7.2: "a fragment whose time does not depend on the method's parameters").
// Loop nests without MPI are the typical simple fragments.
Reducibility reducibility(const Model &model, NodeIndex node);

// Set Node::simple on every node (leaves included) and return the ids of the maximal simple
// internal nodes (simple statements whose parent is not simple): the candidates for reduction.
std::vector<NodeId> mark_simple(Model &model);

// Replace the subtree rooted at `id` by a reduced block with the same id and source range,
// the given time, and the given assignments (the control variables the subtree defines that are
// used after it, notes 000 §2.5 Def. 3.1.13: O_C = O ∩ C). Throws Error(Model) if the subtree
// contains a jump that leaves it, or if it assigns a variable read outside it that `assign` does
// not define (the reduced model would lose a control value). The model is re-validated.
void reduce(Model &model, NodeId id, const TimeSpec &time, std::vector<Assignment> assign = {});

} // namespace parjava::model
