#include "trace_recorder.hpp"

#include <cmath>

#include "program.hpp"

namespace parjava::interp {

using model::Operation;

std::string trace_function_name(Operation op) {
  switch (op) {
  case Operation::ThreadPoolCreate:
    return "pthread_create";
  case Operation::SemaphoreCreate:
    return "sem_init";
  case Operation::Lock:
    return "pthread_mutex_lock";
  case Operation::TryLock:
    return "pthread_mutex_trylock";
  case Operation::Unlock:
    return "pthread_mutex_unlock";
  case Operation::AtomicCreate:
    return "atomic_init";
  case Operation::AtomicCas:
    return "atomic_compare_exchange";
  case Operation::Copy:
    return "memcpy";
  case Operation::SetTeam:
    return "omp_set_num_threads";
  case Operation::PgasBarrier:
    return "shmem_barrier_all";
  case Operation::PgasNotify:
    return "upc_notify";
  case Operation::PgasWait:
    return "upc_wait";
  case Operation::PgasBroadcast:
    return "shmem_broadcast";
  case Operation::PgasScatter:
    return "upc_all_scatter";
  case Operation::PgasGather:
    return "upc_all_gather";
  case Operation::PgasGatherAll:
    return "shmem_fcollect";
  case Operation::PgasExchange:
    return "shmem_alltoall";
  case Operation::PgasPermute:
    return "upc_all_permute";
  case Operation::PgasReduce:
    return "shmem_sum_to_all";
  case Operation::PgasPrefixReduce:
    return "upc_all_prefix_reduce";
  case Operation::PgasLock:
    return "shmem_set_lock";
  case Operation::PgasUnlock:
    return "shmem_clear_lock";
  case Operation::PgasAlloc:
    return "shmem_malloc";
  case Operation::PgasFree:
    return "shmem_free";
  case Operation::PgasPut:
    return "shmem_putmem";
  case Operation::PgasGet:
    return "shmem_getmem";
  default:
    return std::string(model::operation_info(op).name);
  }
}

void TraceRecorder::start(const model::Model &model, std::int64_t processes,
                          std::int64_t contexts_per_process, std::int64_t ranks_per_node) {
  model_ = &model;
  auto &meta = builder_.metadata();
  meta.creator = "parjava model interpreter";
  meta.is_model = true;
  meta.path = "model:" + model.name;
  // System tree: nodes by placement, then one location per logical thread.
  const std::int64_t nodes = (processes + ranks_per_node - 1) / ranks_per_node;
  std::vector<std::uint32_t> node_ids;
  node_ids.reserve(static_cast<std::size_t>(nodes));
  for (std::int64_t n = 0; n < nodes; ++n) {
    node_ids.push_back(builder_.add_system_node("node " + std::to_string(n), "node"));
  }
  for (std::int64_t r = 0; r < processes; ++r) {
    const std::uint32_t group =
        builder_.add_location_group("MPI Rank " + std::to_string(r), static_cast<std::int32_t>(r),
                                    node_ids[static_cast<std::size_t>(r / ranks_per_node)]);
    for (std::int64_t t = 0; t < contexts_per_process; ++t) {
      builder_.add_location(static_cast<std::int32_t>(r), static_cast<std::int32_t>(t), {},
                            trace::LocationType::CpuThread, group);
    }
  }
  world_ = builder_.world_communicator();
  op_regions_.assign(static_cast<std::size_t>(Operation::Count_), trace::kNoRef);
  function_regions_.assign(model.functions.size(), trace::kNoRef);
}

trace::Timestamp TraceRecorder::ns(double t) {
  return static_cast<trace::Timestamp>(std::llround(t));
}

std::uint32_t TraceRecorder::op_region(Operation op) {
  auto &r = op_regions_[static_cast<std::size_t>(op)];
  if (r == trace::kNoRef) {
    r = builder_.region(trace_function_name(op));
  }
  return r;
}

std::uint32_t TraceRecorder::function_region(std::size_t function) {
  auto &r = function_regions_[function];
  if (r == trace::kNoRef) {
    const auto &f = model_->functions[function];
    const std::string file =
        f.source.file >= 0 ? model_->files[static_cast<std::size_t>(f.source.file)] : "";
    r = builder_.add_region(f.name, trace::RegionRole::Function, file, f.source.line,
                            f.source.end_line);
  }
  return r;
}

std::uint32_t TraceRecorder::interval_region(std::size_t function) {
  auto &r = function_regions_[function];
  if (r == trace::kNoRef) {
    const auto &f = model_->functions[function];
    const std::string file =
        f.source.file >= 0 ? model_->files[static_cast<std::size_t>(f.source.file)] : "";
    r = builder_.add_region(f.name, trace::RegionRole::Interval, file, f.source.line,
                            f.source.end_line);
  }
  return r;
}

std::uint32_t TraceRecorder::named_region(const Program &program, std::uint32_t index) {
  if (named_regions_.size() <= index) {
    named_regions_.resize(program.trace_names.size(), trace::kNoRef);
  }
  auto &r = named_regions_[index];
  if (r == trace::kNoRef) {
    r = builder_.region(program.trace_names[index]);
  }
  return r;
}

std::uint32_t TraceRecorder::callsite(model::NodeIndex node) {
  const auto it = callsites_.find(node);
  if (it != callsites_.end()) {
    return it->second;
  }
  const auto &src = model_->nodes[node].source;
  std::uint32_t id = trace::kNoRef;
  if (src.line != 0) {
    const std::string file =
        src.file >= 0 ? model_->files[static_cast<std::size_t>(src.file)] : std::string("?");
    id = builder_.add_callsite(file, src.line, model_->functions[model_->function_of(node)].name);
  }
  callsites_.emplace(node, id);
  return id;
}

std::uint32_t TraceRecorder::add_communicator(std::string name, std::vector<std::int32_t> members) {
  return builder_.add_communicator(std::move(name), std::move(members), world_);
}

std::uint32_t TraceRecorder::self(std::int64_t rank) {
  const auto it = self_comms_.find(rank);
  if (it != self_comms_.end()) {
    return it->second;
  }
  const std::uint32_t id = builder_.add_communicator(
      "MPI_COMM_SELF of rank " + std::to_string(rank), {static_cast<std::int32_t>(rank)}, world_);
  self_comms_.emplace(rank, id);
  return id;
}

std::shared_ptr<trace::Trace> TraceRecorder::finish() {
  return std::make_shared<trace::Trace>(builder_.finish());
}

} // namespace parjava::interp
