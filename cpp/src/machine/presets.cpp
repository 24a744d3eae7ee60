#include "parjava/machine/presets.hpp"

#include <array>
#include <utility>

#include "parjava/error.hpp"

namespace parjava::machine {

namespace {

// --- Sources (also in docs/guide/machine.md, "Machine presets") ----------------------------------
//
// [OSU-SHM] open-mpi/ompi issue #5490 (2018), "Cross numa or not communication has same
//   latency": osu_latency between two cores of one NUMA node of a Xeon E5-2699 v3, Open MPI
//   3.0.1 (vader shared-memory transport), one-way latency in microseconds per size.
//   https://github.com/open-mpi/ompi/issues/5490
// [OMPI-MCA] Open MPI 4.1 default MCA parameters (`ompi_info --all`): btl_vader_eager_limit
//   4096 B, btl_openib_eager_limit 12288 B, btl_tcp_eager_limit 65536 B, each including the
//   PML header.
// [NETBENCH] this project's netbench (`parjava netbench --thorough`) on a 2-vCPU KVM guest
//   (AMD EPYC, Linux 6.18, glibc 2.36, GCC 12): the eager probe finds 4040 B for vader's
//   4096 B limit (56 B of headers), and the thread primitive costs below. No vendor publishes
//   thread creation or mutex costs, so these are measured and say where.
// [AZURE-HB] Microsoft, "HB-series virtual machine sizes" performance page (azure-docs,
//   articles/virtual-machines/hb-series-performance.md, 2020): OSU MPI latency 1.27 us and
//   bandwidth 99.1 Gb/s over 100 Gb/s Mellanox EDR InfiniBand.
// [LARSEN] S. Larsen, P. Sarangam, R. Huggahalli, "Architectural Breakdown of End-to-End
//   Latency in a TCP/IP Network", SBAC-PAD 2007 (also IJPP 37(6), 2009): application-level
//   one-way latency over 10GbE with a standard Linux TCP/IP stack as low as 10 us.
// [EDR-SWITCH] NVIDIA (Mellanox) SB7800 / Switch-IB 2 product brief: 36 ports of 100 Gb/s EDR
//   InfiniBand per switch, 90 ns port-to-port latency. A two-level non-blocking fat tree of such
//   switches uses 18 ports of each leaf for nodes and 18 for uplinks, one to each of 18 spines,
//   and 36 leaves per spine: at most 648 nodes (Mellanox, "InfiniBand Fabric Design / Fat-Tree
//   Topology" configurator rules; Zahavi, "Fat-tree routing and node ordering providing
//   contention free traffic for MPI global collectives", JPDC 2012, for D-mod-k routing).
// [IEEE-802.3] 10GBASE line rate 10 Gb/s; a 1500 B MTU frame carries 1448 B of TCP payload
//   (20 B IP, 32 B TCP with timestamps) in 1538 B on the wire (preamble 8, header 14, FCS 4,
//   inter-frame gap 12): 10 * 1448 / 1538 = 9.41 Gb/s of payload.

constexpr const char *osu_shm =
    "open-mpi/ompi#5490: osu_latency, Xeon E5-2699 v3, one NUMA node, "
    "Open MPI 3.0.1 vader (https://github.com/open-mpi/ompi/issues/5490)";
constexpr const char *ompi_mca = "Open MPI 4.1 default MCA parameters (ompi_info --all): "
                                 "btl_vader_eager_limit 4096, btl_openib_eager_limit 12288, "
                                 "btl_tcp_eager_limit 65536 (bytes, including the PML header)";
constexpr const char *netbench_source =
    "parjava netbench --thorough, 2-vCPU KVM guest (AMD EPYC, Linux 6.18, glibc 2.36): vader "
    "eager probe 4040 B; thread primitive costs";
constexpr const char *azure_hb =
    "Microsoft azure-docs, HB-series performance (hb-series-performance.md, 2020): OSU MPI "
    "latency 1.27 us, bandwidth 99.1 Gb/s over EDR InfiniBand";
constexpr const char *larsen =
    "Larsen, Sarangam, Huggahalli, Architectural Breakdown of End-to-End Latency in a TCP/IP "
    "Network, SBAC-PAD 2007: 10GbE one-way latency as low as 10 us with the Linux TCP/IP stack";
constexpr const char *edr_switch =
    "NVIDIA SB7800 / Switch-IB 2 product brief: 36 ports of 100 Gb/s EDR, 90 ns port to port; "
    "two-level fat tree of 36-port switches (18 nodes and 18 uplinks per leaf, 648 nodes), "
    "D-mod-k routing (Zahavi, JPDC 2012)";
constexpr const char *ieee_8023 = "IEEE 802.3 10GBASE framing: 1448 B TCP payload per 1538 B "
                                  "on the wire at MTU 1500 -> 9.41 Gb/s";

// The shared-memory ping-pong curve of [OSU-SHM], converted to seconds.
Network shared_memory_network() {
  constexpr std::array<std::pair<std::uint64_t, double>, 24> osu_latency_us{{
      {0, 0.52},       {1, 0.60},         {2, 0.60},         {4, 0.64},         {8, 0.63},
      {16, 0.69},      {32, 0.70},        {64, 0.70},        {128, 0.79},       {256, 0.84},
      {512, 1.04},     {1024, 1.21},      {2048, 1.43},      {4096, 2.70},      {8192, 2.97},
      {16384, 4.00},   {32768, 5.34},     {65536, 8.33},     {131072, 15.98},   {262144, 35.74},
      {524288, 70.56}, {1048576, 139.44}, {2097152, 286.12}, {4194304, 572.76},
  }};
  MeasuredTable table;
  for (const auto &[bytes, microseconds] : osu_latency_us) {
    table.points.push_back({bytes, microseconds * 1e-6});
  }
  table.eager_limit = 4040; // [OMPI-MCA] 4096 B with headers, [NETBENCH] 4040 B of payload
  return Network::table(std::move(table), "intra_node");
}

// [NETBENCH] median of the thorough runs' per-operation costs.
ThreadCosts measured_thread_costs() {
  ThreadCosts costs;
  costs.create = 28.2e-6;
  costs.start = 5.6e-6;
  costs.lock = 4.4e-9;
  costs.try_lock = 5.2e-9;
  costs.release = 5.0e-9;
  costs.atomic_create = 24e-9;
  costs.atomic_cas = 2.5e-9;
  costs.semaphore_create = 24e-9;
  costs.copy_per_byte = 0.111e-9; // 9.0 GB/s memcpy
  // libgomp 12 on the development VM (an empty `#pragma omp parallel for` 200,000 times): 0.39
  // us a region at one thread, 0.70-0.79 us at two.
  costs.team_start = 0.37e-6;
  return costs;
}

Machine infiniband_edr() {
  const Network inter = Network::hockney({1.27e-6, 99.1e9 / 8.0, 12288}, "inter_node");
  Machine machine("infiniband-edr", {16, 36, 36}, shared_memory_network(), inter,
                  measured_thread_costs(), 1.0);
  machine.set_description(
      "16 nodes of 36 cores on 100 Gb/s EDR InfiniBand: inter-node Hockney from Azure HB-series "
      "OSU figures (1.27 us, 99.1 Gb/s, Open MPI openib eager limit 12 KiB); a two-level fat "
      "tree of 36-port EDR switches (18 nodes per leaf, 18 spines, up to 648 nodes) whose links "
      "carry the NIC's 99.1 Gb/s and add no latency (the OSU latency already crossed the "
      "switches); the ranks of a node share its NIC; intra-node the measured osu_latency curve "
      "of a 2 x 18-core Xeon E5-2699 v3 node. Change the size with with_layout.");
  machine.set_sources({azure_hb, edr_switch, ompi_mca, osu_shm, netbench_source});
  // Link bandwidth 0: the inter-node network's, so one message alone takes exactly its
  // Hockney time; the links only add sharing.
  return machine.with_topology(
      Topology::k_ary_fat_tree(36, 2, 1.0, {0.0, 0.0, LinkSharing::SplitDuplex}));
}

Machine ethernet_10g() {
  const Network inter = Network::hockney({10e-6, 9.41e9 / 8.0, 65536}, "inter_node");
  Machine machine("ethernet-10g", {16, 36, 36}, shared_memory_network(), inter,
                  measured_thread_costs(), 1.0);
  machine.set_description(
      "16 nodes of 36 cores on 10 Gb/s Ethernet with TCP: inter-node Hockney with 10 us one-way "
      "latency (Larsen et al.), 9.41 Gb/s TCP payload rate (IEEE 802.3 framing at MTU 1500) and "
      "Open MPI's TCP eager limit 64 KiB; intra-node the measured osu_latency curve of a 2 x "
      "18-core Xeon E5-2699 v3 node.");
  machine.set_sources({larsen, ieee_8023, ompi_mca, osu_shm, netbench_source});
  return machine;
}

Machine shared_memory() {
  Machine machine("shared-memory", {1, 36, 36}, shared_memory_network(), std::nullopt,
                  measured_thread_costs(), 1.0);
  machine.set_description(
      "One 36-core node (2 x 18-core Xeon E5-2699 v3), ranks talking through Open MPI's "
      "shared-memory transport: the measured osu_latency curve as the network, eager limit "
      "4040 B.");
  machine.set_sources({osu_shm, ompi_mca, netbench_source});
  return machine;
}

} // namespace

std::vector<std::string> preset_names() {
  return {"infiniband-edr", "ethernet-10g", "shared-memory"};
}

Machine preset(std::string_view name) {
  if (name == "infiniband-edr") {
    return infiniband_edr();
  }
  if (name == "ethernet-10g") {
    return ethernet_10g();
  }
  if (name == "shared-memory") {
    return shared_memory();
  }
  std::string known;
  for (const std::string &candidate : preset_names()) {
    known += (known.empty() ? "" : ", ") + candidate;
  }
  throw Error(ErrorKind::Machine,
              "unknown machine preset \"" + std::string(name) + "\" (known: " + known + ")");
}

} // namespace parjava::machine
