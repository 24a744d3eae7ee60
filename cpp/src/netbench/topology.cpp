#include "topology.hpp"

#include <algorithm>
#include <array>
#include <thread>

namespace parjava::netbench {

Topology discover_topology(MPI_Comm comm) {
  Topology topology;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &topology.ranks);

  // Each node is named by the lowest world rank on it.
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  int leader = rank;
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, local);
  MPI_Comm_free(&local);
  std::vector<int> leaders(static_cast<std::size_t>(topology.ranks));
  MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm);

  std::vector<int> distinct = leaders;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  topology.nodes = static_cast<int>(distinct.size());
  for (int r = 0; r < topology.ranks; ++r) {
    const auto node = std::lower_bound(distinct.begin(), distinct.end(), leaders[r]);
    topology.node_of_rank.push_back(static_cast<int>(node - distinct.begin()));
  }
  for (int node = 0; node < topology.nodes; ++node) {
    const int count = static_cast<int>(
        std::count(topology.node_of_rank.begin(), topology.node_of_rank.end(), node));
    topology.ranks_per_node = std::max(topology.ranks_per_node, count);
  }
  for (int r = 1; r < topology.ranks; ++r) {
    if (topology.node_of_rank[r] < topology.node_of_rank[r - 1]) {
      topology.block_placement = false;
    }
    // A node whose ranks are not consecutive also breaks block placement.
    if (topology.node_of_rank[r] != topology.node_of_rank[r - 1] &&
        std::find(topology.node_of_rank.begin(), topology.node_of_rank.begin() + r,
                  topology.node_of_rank[r]) != topology.node_of_rank.begin() + r) {
      topology.block_placement = false;
    }
  }
  for (int r = 1; r < topology.ranks; ++r) {
    if (topology.node_of_rank[r] == topology.node_of_rank[0] && topology.intra_partner < 0) {
      topology.intra_partner = r;
    }
    if (topology.node_of_rank[r] != topology.node_of_rank[0] && topology.inter_partner < 0) {
      topology.inter_partner = r;
    }
  }

  int cores = static_cast<int>(std::thread::hardware_concurrency());
  MPI_Bcast(&cores, 1, MPI_INT, 0, comm);
  topology.cores_per_node = std::max(cores, 1);

  std::array<char, MPI_MAX_PROCESSOR_NAME> name{};
  int length = 0;
  MPI_Get_processor_name(name.data(), &length);
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  MPI_Bcast(name.data(), length, MPI_CHAR, 0, comm);
  topology.host.assign(name.data(), static_cast<std::size_t>(length));
  return topology;
}

} // namespace parjava::netbench
