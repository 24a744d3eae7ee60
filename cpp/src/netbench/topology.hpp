// Which ranks share a node, found with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED).
#pragma once

#include <string>
#include <vector>

#include <mpi.h>

namespace parjava::netbench {

struct Topology {
  int ranks = 0;
  int nodes = 0;
  int ranks_per_node = 0;      // the largest number of ranks on one node
  int cores_per_node = 0;      // hardware threads of rank 0's node
  bool block_placement = true; // ranks of each node are consecutive
  std::vector<int> node_of_rank;
  int intra_partner = -1; // the lowest rank other than 0 on rank 0's node, or -1
  int inter_partner = -1; // the lowest rank on another node, or -1
  std::string host;       // rank 0's host name
};

// Collective over `comm`.
Topology discover_topology(MPI_Comm comm);

} // namespace parjava::netbench
