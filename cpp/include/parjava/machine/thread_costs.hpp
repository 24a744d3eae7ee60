// Costs of the thread primitives the interpreter charges (ParJava, notes 000 §2.7 and §3.6,
// thesis §4.1.2). All in seconds; copy_per_byte in seconds per byte.
#pragma once

#include <array>
#include <string_view>

namespace parjava::machine {

struct ThreadCosts {
  double create = 0.0;           // time_tCreate: create one thread (pool of n: n * create)
  double start = 0.0;            // time_tStart: hand a task to a waiting pool thread
  double lock = 0.0;             // time_lock part that is not waiting: an uncontended lock
  double try_lock = 0.0;         // time_tryLock
  double release = 0.0;          // time_release (unlock)
  double atomic_create = 0.0;    // time_aCreate
  double atomic_cas = 0.0;       // time_aCAS
  double semaphore_create = 0.0; // time_sCreate
  double copy_per_byte = 0.0;    // time_copy: copy one byte within a node (pr_Copy(n) = n * this)
  // An OpenMP parallel region's fork and join, per thread of its team. A team's threads wait
  // for work spinning (libgomp: GOMP_SPINCOUNT), not on a condition variable as a task pool's
  // idle thread does (`start`): 0.39 us a region at one thread and 0.70-0.79 us at two on the
  // development VM, where `start` is 5.6 us. Optional in JSON (absent: `start`, the cost every
  // team paid before it was measured apart).
  double team_start = 0.0;

  bool operator==(const ThreadCosts &) const = default;

  // Field names in JSON order, and access by name, so the JSON reader, the validation and the
  // Python binding share one list instead of three.
  static constexpr std::array<std::string_view, 10> field_names{
      "create",        "start",         "lock",       "try_lock",
      "release",       "atomic_create", "atomic_cas", "semaphore_create",
      "copy_per_byte", "team_start"};
  [[nodiscard]] double get(std::string_view name) const;
  void set(std::string_view name, double seconds);

  // Throws parjava::Error(ErrorKind::Machine) naming the first negative or non-finite field,
  // prefixed by `field` (e.g. "threads.lock").
  void validate(std::string_view field = "threads") const;
};

} // namespace parjava::machine
