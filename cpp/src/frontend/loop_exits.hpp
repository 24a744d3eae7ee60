// Branches whose outcomes decide how many rounds a communicating loop runs (issue 13, honest
// predictions). Their outcomes are kept in order by the estimation code (pj_branch_seq) and
// replayed by the model, instead of drawn from their frequency: drawn, a test that ends a loop
// once in 14 rounds made miniVite's Louvain loop run 7 rounds in one prediction and any number
// in another.
#pragma once

#include <vector>

#include "program.hpp"

namespace parjava::frontend {

class LoopExits {
public:
  explicit LoopExits(const Program &program);

  // Whether `branch` leaves a communicating loop: a break to it in its subtree (miniVite's
  // `if (currMod - prevMod < thresh) break;`), or a variable it sets that a test with such a
  // break reads (a convergence flag: hypre's PCG sets `tentatively_converged` under `if (i_prod /
  // bi_prod < eps)` and leaves under `if (tentatively_converged) break;`).
  [[nodiscard]] bool ends_communicating_loop(StructIndex branch) const;

private:
  // Does a break to `loop` lie in `n`'s subtree, outside the loops nested in it?
  [[nodiscard]] bool breaks_to(StructIndex n, StructIndex loop, bool any_communicating) const;

  const Program &program_;
  std::vector<StructIndex> parent_;
};

} // namespace parjava::frontend
