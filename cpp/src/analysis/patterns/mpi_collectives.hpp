// Scalasca's MPI collective wait states (anchors §3; Scalasca 2.6 MPI.pattern and
// MpiCommunicationHandler.cpp, cb_pre_mpi_collend and the cb_pre_coll_* handlers). Per blocking
// MPI collective instance on a communicator of two or more processes, with B_p/X_p the
// collective begin/end of process p, T a reference begin and Emin an earliest end, each value
// restricted to the time spent in the operation:
//     T'   = min(T, X_p),  E' = max(Emin, T')
//     Wait = [T' - B_p]+,  Completion = [X_p - E']+
//
// Barrier (MPI_Barrier): T = max B, Emin = min X over all; Wait at Barrier and Barrier
//   Completion on every process.
// N x N (Allgather(v), Allreduce, Alltoall, Reduce_scatter(_block); Alltoallv/w are ignored):
//   processes that send and receive 0 bytes take no part. Full overlap (min X > max B): all
//   synchronise with T = max B, Emin = min X. Otherwise T = latest begin among processes that
//   send > 0 bytes (lowest rank on ties); the synchronising set is the receivers (> 0 bytes)
//   that began before T plus that latest sender, and Emin is the earliest end in the set.
//   Wait at NxN and NxN Completion on the set.
// 1-to-N (Bcast, Scatter(v)): skipped when the root sends 0 bytes; a process waits when it
//   receives > 0 bytes and B_p < B_root; Late Broadcast = [min(B_root, X_p) - B_p]+.
// N-to-1 (Reduce, Gather(v)): skipped when the root receives 0 bytes; T = latest begin among
//   senders (> 0 bytes); when B_root < T, Early Reduce = [min(T, X_root) - B_root]+ on the root.
// Prefix (Scan, Exscan): T_p = latest begin among senders with communicator rank <= p;
//   Early Scan = [min(T_p, X_p) - B_p]+ when B_p < T_p.
// Values are reported when > 0 and >= eps.
#pragma once

#include "../scan_context.hpp"
#include "collective_members.hpp"

namespace parjava::analysis {

void scan_mpi_collectives(ScanContext &ctx, CollectiveMembers &gatherer);

} // namespace parjava::analysis
