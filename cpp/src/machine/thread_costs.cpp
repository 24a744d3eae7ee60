#include "parjava/machine/thread_costs.hpp"

#include "parjava/error.hpp"
#include "validation.hpp"

namespace parjava::machine {

namespace {

// One place maps names to members, so get/set/validate cannot disagree.
template <typename Costs> auto *member(Costs &costs, std::string_view name) {
  if (name == "create") {
    return &costs.create;
  }
  if (name == "start") {
    return &costs.start;
  }
  if (name == "lock") {
    return &costs.lock;
  }
  if (name == "try_lock") {
    return &costs.try_lock;
  }
  if (name == "release") {
    return &costs.release;
  }
  if (name == "atomic_create") {
    return &costs.atomic_create;
  }
  if (name == "atomic_cas") {
    return &costs.atomic_cas;
  }
  if (name == "semaphore_create") {
    return &costs.semaphore_create;
  }
  if (name == "copy_per_byte") {
    return &costs.copy_per_byte;
  }
  if (name == "team_start") {
    return &costs.team_start;
  }
  throw Error(ErrorKind::Usage, "unknown thread cost \"" + std::string(name) + "\"");
}

} // namespace

double ThreadCosts::get(std::string_view name) const { return *member(*this, name); }

void ThreadCosts::set(std::string_view name, double seconds) { *member(*this, name) = seconds; }

void ThreadCosts::validate(std::string_view field) const {
  for (std::string_view name : field_names) {
    detail::require_non_negative(get(name), detail::field_path(field, name));
  }
}

} // namespace parjava::machine
