// The builder behind build_sequences() (sequence_builder.hpp), shared by the files that hold its
// parts (each named below). Private to the replay.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "call_overheads.hpp"
#include "parjava/analysis/replay/replay.hpp"
#include "parjava/trace/functions.hpp"

namespace parjava::analysis {

using interp::kNoSequenceRef;
using interp::SequenceCall;
using interp::SequenceProgram;
using interp::StepKind;
using model::Operation;
using trace::EventIndex;
using trace::EventKind;
using trace::Function;
using trace::kNoEvent;
using trace::kNoRef;
using trace::Timestamp;

// The engine collective an OTF2 collective operation is replayed as; nullopt for the others
// (sequence_survey.cpp).
std::optional<Operation> collective_operation(trace::CollectiveOp op);

// Calls that synchronise every rank (replayed as a barrier when every rank makes them).
bool synchronising_management(Function f);

class SequenceBuilder {
public:
  SequenceBuilder(const trace::Trace &t, const ReplayOptions &o, const machine::Machine *machine,
                  std::vector<std::string> &notes)
      : t_(t), ev_(t.events), o_(o), machine_(machine), notes_(notes),
        minimum_(o.call_overhead == CallOverhead::Minimum) {}

  SequenceProgram build();

  [[nodiscard]] std::uint64_t events() const { return events_; }
  [[nodiscard]] Timestamp origin() const { return origin_; }
  [[nodiscard]] const std::vector<std::uint32_t> &main_locations() const { return main_; }

private:
  // sequence_builder.cpp: the program, its processes and communicators, what-ifs, notes
  void reserve_steps();
  void find_processes();
  void map_communicators();
  [[nodiscard]] std::vector<std::uint8_t> runtime_regions() const;
  void balance();
  void write_notes();

  // sequence_survey.cpp: synchronising management calls, collective sizes
  void survey();
  std::uint64_t collective_bytes(const trace::CollectiveInstance &inst) const;

  // sequence_walk.cpp: one process's main location, event by event, into steps
  void index_completions(std::uint32_t l);
  std::uint32_t group_for(std::uint32_t completing);
  void compute_until(Timestamp t);
  void process(std::uint32_t l);
  EventIndex runtime_call(EventIndex enter, EventIndex end, std::uint32_t ordinal);
  [[nodiscard]] bool is_world_collective(Function f, const std::vector<EventIndex> &actions) const;
  void completion(EventIndex enter, EventIndex leave, std::uint32_t ordinal, std::uint32_t name,
                  std::uint32_t site);
  void action(EventIndex a, Function f, std::uint32_t name, std::uint32_t site);
  void flush_pending_send();
  void local_duration(Function f, double duration);
  std::uint32_t function_name(std::uint32_t region);
  std::uint32_t sequence_region(std::uint32_t region, std::uint64_t interval_id = 0);
  std::uint32_t sequence_callsite(std::uint32_t site);
  std::uint32_t call(const SequenceCall &c);
  void grow_call_slots();

  // Looked up per event (inline: every file above runs them).
  // Communicator rank of world rank `w` in trace communicator `c`, or -1.
  [[nodiscard]] std::int32_t local_rank(std::uint32_t c, std::int32_t w) const {
    if (slot_[c] == 0) {
      return w;
    }
    if (slot_[c] == 1) {
      return 0;
    }
    const auto &local = local_[c];
    return w >= 0 && static_cast<std::size_t>(w) < local.size() ? local[static_cast<std::size_t>(w)]
                                                                : -1;
  }
  [[nodiscard]] Function function_of(std::uint32_t region) const {
    return region < t_.regions.size() ? t_.regions[region].function : Function::None;
  }
  // Asked for every Enter and Leave in three passes over the events: one byte per region,
  // not a bounds check and two fields of a Region record (with its strings) each time.
  [[nodiscard]] bool is_runtime_call(std::uint32_t region) const {
    return region < runtime_region_.size() && runtime_region_[region] != 0;
  }

  const trace::Trace &t_;
  const trace::EventColumns &ev_;
  const ReplayOptions &o_;
  const machine::Machine *machine_; // call overheads: network times (nullptr: none)
  std::vector<std::string> &notes_;
  bool minimum_;
  SequenceProgram sp_;

  std::vector<std::uint8_t> runtime_region_ = runtime_regions(); // per trace region
  std::vector<std::uint32_t> main_;                              // per rank: its main location
  Timestamp origin_ = 0;
  std::vector<std::uint32_t> slot_;              // per trace communicator: engine slot
  std::vector<std::vector<std::int32_t>> local_; // per trace communicator: world -> local
  std::vector<std::uint32_t> function_names_ =   // per trace region: index into sp_.functions
      std::vector<std::uint32_t>(t_.regions.size(), kNoRef);
  std::vector<std::uint32_t> regions_ = // per trace region: index into sp_.regions
      std::vector<std::uint32_t>(t_.regions.size(), kNoRef);
  std::vector<std::uint32_t> sequence_region_trace_;
  std::vector<std::uint32_t> callsites_ = // per trace call site: index into sp_.callsites
      std::vector<std::uint32_t>(t_.callsites.size(), kNoRef);
  std::vector<std::uint32_t> call_slots_; // call(): open-addressing table into sp_.calls
  std::vector<Function> function_kind_;   // per sp_.functions entry
  CallOverheads overheads_;               // call_overhead="minimum"
  std::uint64_t cost_failures_ = 0;
  std::unordered_map<std::size_t, std::vector<Timestamp>> sync_enters_;
  std::vector<std::uint32_t> sync_seen_ =
      std::vector<std::uint32_t>(static_cast<std::size_t>(Function::Count_), 0);
  std::vector<std::uint64_t> instance_bytes_;
  std::vector<std::uint8_t> instance_complete_;

  // the process being walked
  std::int32_t rank_ = 0;
  Timestamp cursor_ = 0;
  std::vector<std::uint32_t> stack_;
  std::vector<std::uint32_t> completing_call_;
  std::vector<std::uint32_t> group_of_call_; // per call ordinal of the location: its group
  std::vector<std::uint32_t> free_groups_;
  std::uint32_t groups_ = 0;
  std::vector<EventIndex> actions_;
  SequenceCall pending_send_;
  bool has_pending_send_ = false;
  std::uint32_t phase_ = 0;
  std::vector<std::uint32_t> step_phase_;
  std::uint32_t balance_phases_ = 0;

  std::uint64_t events_ = 0, mpi_calls_ = 0, other_threads_ = 0, dropped_ = 0;
  std::uint64_t incomplete_collectives_ = 0, nonblocking_collectives_ = 0, shmem_calls_ = 0;
  std::uint64_t unclosed_calls_ = 0, outside_calls_ = 0, unbalanceable_ = 0;
};

} // namespace parjava::analysis
