// The wrapped-routine table behind routines.hpp.
#include "parjava/tracer/routines.hpp"

#include <array>

namespace parjava::tracer {
namespace {

constexpr std::array<std::string_view, kRoutineCount> kNames = {"",
#define X(name) #name,
                                                                PARJAVA_TRACER_MPI_ROUTINES(X)
#undef X
#define X_ROUTINE(name) #name,
                                                                    PARJAVA_TRACER_SHMEM_ROUTINES
#undef X_ROUTINE
};

// FNV-1a over the names and their order.
constexpr std::uint64_t table_hash() {
  std::uint64_t h = 14695981039346656037ULL;
  for (const auto name : kNames) {
    for (const char c : name) {
      h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    }
    h = (h ^ 0xffU) * 1099511628211ULL;
  }
  return h;
}

} // namespace

std::string_view routine_name(Routine r) { return routine_name(static_cast<std::uint16_t>(r)); }

std::string_view routine_name(std::uint16_t r) {
  return r < kNames.size() ? kNames[r] : std::string_view{};
}

trace::Function routine_function(Routine r) {
  const auto name = routine_name(r);
  return name.empty() ? trace::Function::None : trace::function_by_name(name);
}

std::uint64_t routine_table_hash() { return table_hash(); }

} // namespace parjava::tracer
