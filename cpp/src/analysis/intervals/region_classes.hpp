// What the interval walk needs to know about each region, computed once per trace: whether
// entering it starts a runtime (MPI/SHMEM) call and into which MPI-time bucket its time goes
// (notes 004 §4.3, §5), or whether it is a user-code region that can be an interval.
#pragma once

#include <cstdint>
#include <vector>

#include "parjava/analysis/intervals/characteristic.hpp"
#include "parjava/trace/trace.hpp"

namespace parjava::analysis::detail {

struct RegionClass {
  bool runtime_call = false;                        // time inside it is MPI time
  bool user_interval = false;                       // a user-code region (IntervalSources::regions)
  Characteristic bucket = Characteristic::OtherMpi; // PointToPoint, Collective, AllToAll, OtherMpi
  Characteristic category = Characteristic::CategoryOther; // seed-004 category 1-6 column
  bool starts_nonblocking = false;                         // time counts as Time of Start (F12)
  bool blocking_send = false; // may wait for a late receiver (MPI_Send, Ssend, Sendrecv*)
};

std::vector<RegionClass> classify_regions(const trace::Trace &trace);

} // namespace parjava::analysis::detail
