// Communicator registry of the tracer runtime (communicators.hpp). Lookups are lock-free:
// slots are written under a mutex (creation and free are rare) and published by a release
// store of the key; the hot path probes with acquire loads.
#include "communicators.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "process.hpp"

namespace parjava::tracer::runtime {
namespace {

constexpr std::size_t kSlots = 16384; // power of two
constexpr std::uintptr_t kEmpty = 0;
constexpr std::uintptr_t kTombstone = 1;

template <typename Handle> std::uintptr_t handle_bits(Handle comm) {
  if constexpr (std::is_pointer_v<Handle>) {
    return reinterpret_cast<std::uintptr_t>(comm);
  } else {
    return static_cast<std::uintptr_t>(comm) + 2; // keep clear of kEmpty/kTombstone
  }
}

struct Slot {
  std::atomic<std::uintptr_t> key{kEmpty};
  std::uint32_t id = 0;
};

struct Entry {
  std::string key;
  std::uint32_t children = 0; // creation calls seen on this communicator
};

Slot g_slots[kSlots];
std::mutex g_mutex;
std::vector<Entry> g_entries; // by id
MPI_Group g_world_group = MPI_GROUP_NULL;
std::map<std::string, std::uint32_t> g_active_sets;
std::atomic<int> g_world_size{0};

std::size_t slot_of(std::uintptr_t key) {
  return static_cast<std::size_t>((key >> 4) * 0x9E3779B97F4A7C15ULL) & (kSlots - 1);
}

// Caller holds g_mutex.
void insert_slot(std::uintptr_t key, std::uint32_t id) {
  for (std::size_t i = slot_of(key), n = 0; n < kSlots; i = (i + 1) & (kSlots - 1), ++n) {
    const auto k = g_slots[i].key.load(std::memory_order_relaxed);
    if (k == kEmpty || k == kTombstone || k == key) {
      g_slots[i].id = id;
      g_slots[i].key.store(key, std::memory_order_release);
      return;
    }
  }
}

bool find_slot(std::uintptr_t key, std::uint32_t &id) {
  for (std::size_t i = slot_of(key), n = 0; n < kSlots; i = (i + 1) & (kSlots - 1), ++n) {
    const auto k = g_slots[i].key.load(std::memory_order_acquire);
    if (k == key) {
      id = g_slots[i].id;
      return true;
    }
    if (k == kEmpty) {
      return false;
    }
  }
  return false;
}

std::vector<int> world_members(MPI_Comm comm, int size) {
  std::vector<int> members(static_cast<std::size_t>(size));
  MPI_Group group = MPI_GROUP_NULL;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter != 0) {
    PMPI_Comm_remote_group(comm, &group);
  } else {
    PMPI_Comm_group(comm, &group);
  }
  std::vector<int> local(members.size());
  for (int i = 0; i < size; ++i) {
    local[static_cast<std::size_t>(i)] = i;
  }
  PMPI_Group_translate_ranks(group, size, local.data(), g_world_group, members.data());
  PMPI_Group_free(&group);
  return members;
}

// Define a new communicator (caller holds g_mutex): a definitions-log line
//   comm <id> <parent id or -1> <routine> <key> <size> <world ranks...>
std::uint32_t define(std::uintptr_t handle, const std::string &key, std::int64_t parent,
                     Routine how, const std::vector<int> &members) {
  const auto id = static_cast<std::uint32_t>(g_entries.size());
  g_entries.push_back({key, 0});
  if (handle != kEmpty) {
    insert_slot(handle, id);
  }
  // Member lists can be long (a line per communicator, written once): built as a string.
  std::string line = "comm " + std::to_string(id) + " " + std::to_string(parent) + " " +
                     std::string(how == Routine::None ? std::string_view("-") : routine_name(how)) +
                     " " + key + " " + std::to_string(members.size());
  for (const int m : members) {
    line += ' ';
    line += std::to_string(m);
  }
  line += '\n';
  defs_text(line);
  return id;
}

} // namespace

void register_world_communicators(int world_rank, int world_size) {
  const std::lock_guard lock(g_mutex);
  if (!g_entries.empty()) {
    return;
  }
  g_world_size.store(world_size);
  PMPI_Comm_group(MPI_COMM_WORLD, &g_world_group);
  std::vector<int> all(static_cast<std::size_t>(world_size));
  for (int i = 0; i < world_size; ++i) {
    all[static_cast<std::size_t>(i)] = i;
  }
  define(handle_bits(MPI_COMM_WORLD), "world", -1, Routine::None, all);
  define(handle_bits(MPI_COMM_SELF), "self:" + std::to_string(world_rank), -1, Routine::None,
         {world_rank});
}

void register_world_without_mpi(int world_rank, int world_size) {
  const std::lock_guard lock(g_mutex);
  if (!g_entries.empty()) {
    return;
  }
  g_world_size.store(world_size);
  std::vector<int> all(static_cast<std::size_t>(world_size));
  for (int i = 0; i < world_size; ++i) {
    all[static_cast<std::size_t>(i)] = i;
  }
  define(kEmpty, "world", -1, Routine::None, all);
  define(kEmpty, "self:" + std::to_string(world_rank), -1, Routine::None, {world_rank});
}

std::uint32_t active_set_comm(int start, int log_stride, int size) {
  const int world = g_world_size.load(std::memory_order_relaxed);
  if (start == 0 && size == world && (log_stride == 0 || size <= 1)) {
    return kWorldComm;
  }
  const std::string key = "shmem:" + std::to_string(start) + ":" + std::to_string(log_stride) +
                          ":" + std::to_string(size);
  const std::lock_guard lock(g_mutex);
  if (const auto it = g_active_sets.find(key); it != g_active_sets.end()) {
    return it->second;
  }
  std::vector<int> members(static_cast<std::size_t>(size > 0 ? size : 0));
  for (int i = 0; i < size; ++i) {
    members[static_cast<std::size_t>(i)] = start + (i << log_stride);
  }
  const auto id = define(kEmpty, key, kWorldComm, Routine::None, members);
  g_active_sets.emplace(key, id);
  return id;
}

std::uint32_t comm_id(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) {
    return kWorldComm;
  }
  const auto key = handle_bits(comm);
  std::uint32_t id = 0;
  if (find_slot(key, id)) {
    return id;
  }
  if (comm == MPI_COMM_NULL) {
    return kWorldComm;
  }
  // Not seen created: define it from its members (the key cannot be agreed across processes
  // without communication; equal member lists are taken to be the same communicator).
  int size = 0;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter != 0) {
    PMPI_Comm_remote_size(comm, &size);
  } else {
    PMPI_Comm_size(comm, &size);
  }
  const auto members = world_members(comm, size);
  std::string name = "members";
  for (const int m : members) {
    name += ":" + std::to_string(m);
  }
  const std::lock_guard lock(g_mutex);
  if (find_slot(key, id)) {
    return id;
  }
  return define(key, name, -1, Routine::None, members);
}

void comm_created(MPI_Comm parent, MPI_Comm child, Routine how) {
  const auto parent_id = comm_id(parent);
  std::vector<int> members;
  int size = 0;
  if (child != MPI_COMM_NULL) {
    PMPI_Comm_size(child, &size);
    members = world_members(child, size);
  }
  const std::lock_guard lock(g_mutex);
  if (parent_id >= g_entries.size()) {
    return;
  }
  const auto seq = g_entries[parent_id].children++;
  if (child == MPI_COMM_NULL) {
    return;
  }
  const int lowest = members.empty() ? -1 : *std::min_element(members.begin(), members.end());
  const std::string key =
      g_entries[parent_id].key + "/" + std::to_string(seq) + "." + std::to_string(lowest);
  define(handle_bits(child), key, parent_id, how, members);
}

void comm_freed(MPI_Comm comm) {
  const auto key = handle_bits(comm);
  const std::lock_guard lock(g_mutex);
  for (std::size_t i = slot_of(key), n = 0; n < kSlots; i = (i + 1) & (kSlots - 1), ++n) {
    const auto k = g_slots[i].key.load(std::memory_order_relaxed);
    if (k == key) {
      g_slots[i].key.store(kTombstone, std::memory_order_release);
      return;
    }
    if (k == kEmpty) {
      return;
    }
  }
}

} // namespace parjava::tracer::runtime
