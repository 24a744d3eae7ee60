// Eager-limit presets and their sources.
//
// Open MPI 4.1 (pml ob1): a message goes eagerly when `bytes <= btl_eager_limit -
// sizeof(mca_pml_ob1_hdr_t)` (ompi/mca/pml/ob1/pml_ob1_sendreq.h,
// mca_pml_ob1_send_request_start_btl). `ompi_info --param btl all --level 9` on Open MPI 4.1.4
// gives btl_vader_eager_limit = 4096 and btl_tcp_eager_limit = 65536; a blocking MPI_Send
// against a receiver 20 ms late returns at once up to 65480 bytes over tcp and waits from 65484
// on, so the ob1 header is 56 bytes: 4040 B intra-node (vader), 65480 B inter-node (tcp).
//
// MPICH 4.1 ch4: the shared-memory eager path sends whole messages in iqueue cells of
// MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE = 69632 bytes (4 KiB x 17; 16384 in MPICH 3.4/4.0)
// minus the cell header (src/mpid/ch4/shm/posix/eager/iqueue); over ch4:ofi
// MPIR_CVAR_CH4_OFI_EAGER_THRESHOLD = -1 means MPICH itself never switches to rendezvous below
// the provider's max_msg_size, so the preset is unlimited inter-node (a libfabric provider may
// still use its own rendezvous; pass bytes or a Machine measured by netbench to be exact).
//
// MVAPICH2: seed 000 notes §5.5/§5.6, "in MVAPICH2-1.7 with default settings the upper bound
// for small messages is 64 KB".
#include "parjava/analysis/eager_limit.hpp"

#include <limits>

#include "parjava/error.hpp"

namespace parjava::analysis {

EagerLimit eager_limit_bytes(std::uint64_t bytes) {
  return {bytes, bytes, std::to_string(bytes) + " B"};
}

std::vector<std::string> eager_limit_preset_names() { return {"openmpi", "mpich", "mvapich2"}; }

EagerLimit eager_limit_preset(std::string_view name) {
  if (name == "openmpi") {
    return {4040, 65480, "openmpi (Open MPI 4.1 ob1: vader 4040 B, tcp 65480 B)"};
  }
  if (name == "mpich") {
    return {69632, std::numeric_limits<std::uint64_t>::max(),
            "mpich (MPICH 4.1 ch4: posix 69632 B, ofi unlimited)"};
  }
  if (name == "mvapich2") {
    return {65536, 65536, "mvapich2 (MVAPICH2-1.7 defaults: 64 KiB, seed 000 §5.6)"};
  }
  std::string known;
  for (const auto &n : eager_limit_preset_names()) {
    known += (known.empty() ? "" : ", ") + n;
  }
  throw Error(ErrorKind::Usage, "eager_limit: unknown preset '" + std::string(name) +
                                    "'; use a number of bytes, a Machine, or one of: " + known);
}

EagerLimit eager_limit_from_machine(const machine::Machine &machine) {
  const auto intra = machine.eager_limit(true);
  const auto inter = machine.has_inter_node() ? machine.eager_limit(false) : intra;
  return {intra, inter, "machine '" + machine.name() + "'"};
}

} // namespace parjava::analysis
