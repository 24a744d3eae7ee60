// Loops that communicate and whose trip count follows data decisions (issue 13, consistent
// communication): miniAMR counts its neighbours with `num_comm_partners[dir]++` inside
// `if (partner not yet listed)` tests on block data, then sends one message per neighbour.
// The model keeps the counter (its bound is an expression), but every increment sits under an
// opaque decision the interpreter draws per rank, so two ranks come to disagree about how many
// messages they exchange and the model deadlocks where the program cannot. Such a loop gets a
// trip-count probe that keeps the sequence of counts per rank; an estimation at np >= 2 puts it
// in the model (`trips_by_rank`), where each rank replays its own counts at that np.
#pragma once

#include <vector>

#include "program.hpp"

namespace parjava::frontend {

// The loops (For, While) with communication in their body, whose condition or initial value
// reads a variable set under an opaque condition (in an opaque if/switch/loop, or in a function
// called from one), directly or through assignments, arguments and returned values. Program
// inputs are not decisions: an option parser's `nx = atoi(argv[i + 1])` under `strcmp` keeps the
// time-step loop counted from its parameter.
std::vector<bool> steered_loops(const Program &program);

} // namespace parjava::frontend
