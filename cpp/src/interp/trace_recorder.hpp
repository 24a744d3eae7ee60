// Writing the model trace (notes 000 §5.3: "for every terminal node that can produce a pattern
// ... write an event into the trace"): the same Trace a real run gives, built through the
// trace part's TraceBuilder, so scan() and intervals() run on predicted executions.
//
// Each communication leaf becomes Enter(region of its MPI / thread / SHMEM function, call site =
// the node's source line) ... Leave, with Send / Recv / IsendPost / IrecvPost / *Complete /
// CollectiveBegin / CollectiveEnd / lock / RMA events inside, as a PMPI tracer records them;
// calls of model functions become Enter/Leave of their region.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "parjava/model/model.hpp"
#include "parjava/trace/builder.hpp"

namespace parjava::interp {

struct Program;

class TraceRecorder {
public:
  void start(const model::Model &model, std::int64_t processes, std::int64_t contexts_per_process,
             std::int64_t ranks_per_node);

  [[nodiscard]] static trace::Timestamp ns(double t);
  [[nodiscard]] std::uint32_t location(std::uint32_t ctx) const { return ctx; }
  std::uint32_t op_region(model::Operation op);
  std::uint32_t function_region(std::size_t function);
  // The interval region standing for a function of a replayed sequence program.
  std::uint32_t interval_region(std::size_t function);
  // The region of a replayed MPI call named program.trace_names[index].
  std::uint32_t named_region(const Program &program, std::uint32_t index);
  std::uint32_t callsite(model::NodeIndex node);
  std::uint32_t add_communicator(std::string name, std::vector<std::int32_t> members);
  [[nodiscard]] std::uint32_t world() const { return world_; }
  [[nodiscard]] std::uint32_t self(std::int64_t rank);

  trace::TraceBuilder &builder() { return builder_; }
  std::shared_ptr<trace::Trace> finish();

private:
  const model::Model *model_ = nullptr;
  trace::TraceBuilder builder_;
  std::vector<std::uint32_t> op_regions_;
  std::vector<std::uint32_t> function_regions_;
  std::vector<std::uint32_t> named_regions_;
  std::unordered_map<model::NodeIndex, std::uint32_t> callsites_;
  std::unordered_map<std::int64_t, std::uint32_t> self_comms_;
  std::uint32_t world_ = trace::kNoRef;
};

// The runtime function a model operation stands for in a trace ("MPI_Send", "shmem_broadcast").
std::string trace_function_name(model::Operation op);

} // namespace parjava::interp
