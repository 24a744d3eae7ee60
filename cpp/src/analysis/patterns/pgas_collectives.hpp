// The collective PGAS patterns of seed 001 (notes §3, P2-P12), on every completed instance of a
// blocking OpenSHMEM collective (and of MPI collectives when PgasOptions::include_mpi_collectives
// is set). Following the paper a collective is one Enter and one exit (CExit) per thread:
// entries e_k are the Enter times of the call, exits x_k its Leave times. Each summand of the
// paper's `wasted` is one finding, charged to its thread at the collective's call site (notes
// §3 "natural choice"), reported when it is >= eps (in absolute value: literal P8 terms can be
// negative).
//
// Dispatch (notes §4.3) by collective shape and the assumed UPC flags:
//   barrier ...................... P4 wait at barrier, P5 barrier completion
//   any, IN_ALLSYNC .............. P2 entry sync;  OUT_ALLSYNC: P3 exit sync
//   one-to-many, IN_MYSYNC ....... P6 late broadcast, P11 wait inside the collective
//   gathering, IN_MYSYNC ......... P7 early gather, P11
//   prefix, IN_MYSYNC ............ P8 early prefix reduction
//   many-to-many, IN_MYSYNC ...... P9 entry sync (suspected);  OUT_MYSYNC: P10 (suspected)
//   collective allocation ........ P12 (root = PgasOptions::allocation_root)
// Formulas (E = entries, X = exits of the instance, r = the root's entry):
//   P2, P4, P9:  max(E) - e_k                (fails when all entries are equal)
//   P3, P5, P10: max(X) - x_k    (literal)   or x_k - min(X) (Completion::FromFirstExit)
//   P6, P12:     r - e_k  for e_k < r
//   P7:          r - e_k  for e_k < r (late root, literal) or, GatherRoot::Early,
//                max(E) - r on the root when positive (EXPERT's Early Reduce)
//   P8:          max{e_j : j < k} - e_k  for k > 0 (thread 0: 0; fails without an inversion);
//                negative terms kept unless prefix_clamp
//   P11:         |[s_root, x_root]| - |[s_root, x_root] ∩ ∪_{k≠root} [s_k, x_k]|, for the root
//                (literal) or every thread (Alone::Every)
#pragma once

#include "../scan_context.hpp"
#include "collective_members.hpp"

namespace parjava::analysis {

void scan_pgas_collectives(ScanContext &ctx, CollectiveMembers &gatherer);

// The time a member is alone in the collective: its interval minus the union of the others'.
std::int64_t alone_time(const std::vector<CollectiveMember> &members, std::size_t who);

} // namespace parjava::analysis
