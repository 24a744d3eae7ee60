// std::array as a fixed-size array (subscripts.hpp, array_copies.hpp): its elements are
// variables like an int[N]'s, read and written through operator[] and at(); a copy of a whole
// one, also of what a program function returns by value, copies them; anything else that uses
// one as a whole leaves it data, with the reason. Before, every element read was "the value
// operator[]() returns (an external function)", and a peer kept in one was rank 0.
#include <gtest/gtest.h>

#include "parjava/model/model_json.hpp"
#include "support.hpp"

namespace parjava::frontend::testing {
namespace {

constexpr const char *kNeighbours = R"(
#include <array>
#include <cstring>
#include <mpi.h>
enum { left = 0, right = 1 };
static std::array<int, 2> decompose(int rank, int size) {
  std::array<int, 2> nbr{};
  nbr[left] = rank - 1;
  nbr.at(right) = rank + 1;
  if (rank == 0) nbr[left] = MPI_PROC_NULL;
  if (rank == size - 1) nbr[right] = MPI_PROC_NULL;
  return nbr;
}
std::array<int, 2> from_a_library(int rank);
int main(int argc, char **argv) {
  int rank, size;
  double a[8], b[8];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::array<int, 2> peers = decompose(rank, size);
  std::array<int, 2> copied;
  copied = peers;
  std::array<int, 2> foreign = from_a_library(rank);
  std::array<int, 2> filled{};
  memset(filled.data(), 0, sizeof filled);
  MPI_Request r[4];
  MPI_Isend(a, 8, MPI_DOUBLE, peers[left], 0, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(b, 8, MPI_DOUBLE, copied.at(right), 0, MPI_COMM_WORLD, &r[1]);
  MPI_Isend(a, 8, MPI_DOUBLE, foreign[0], 1, MPI_COMM_WORLD, &r[2]);
  MPI_Irecv(b, 8, MPI_DOUBLE, filled[1], 1, MPI_COMM_WORLD, &r[3]);
  MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  MPI_Finalize();
  return 0;
}
)";

TEST(StdArrays, ElementsAreVariablesAndWholeCopiesCopyThem) {
  const BuildResult r = build(write_source("neighbours.cpp", kNeighbours), {"-std=c++17"});
  const auto sends = operations(r.model, model::Operation::Isend);
  const auto recvs = operations(r.model, model::Operation::Irecv);
  ASSERT_EQ(sends.size(), 2U);
  ASSERT_EQ(recvs.size(), 2U);
  // decompose()'s local, returned by value into `peers`, copied by assignment into `copied`.
  EXPECT_EQ(arg(*sends[0], "dest"), "peers_0");
  EXPECT_EQ(arg(*recvs[0], "source"), "copied_1");
  // The return cell holds what decompose() computed, per rank.
  const std::string json = model::model_to_json(r.model, -1);
  EXPECT_NE(json.find(R"x(["decompose_0","nbr_0"])x"), std::string::npos) << json;
  EXPECT_NE(json.find(R"x(["nbr_1","(rank_ + 1)"])x"), std::string::npos) << json;
  // A library's array and one handed to memset as a whole are data: errors, not rank 0.
  std::vector<std::string> errors;
  for (const auto &d : r.diagnostics) {
    if (d.severity == Severity::Error) {
      errors.push_back(d.message);
    }
  }
  ASSERT_EQ(errors.size(), 2U) << ::testing::PrintToString(errors);
  EXPECT_NE(errors[0].find("set from 'from_a_library(rank)', a whole array the model does not "
                           "follow"),
            std::string::npos)
      << errors[0];
  EXPECT_NE(errors[1].find("'filled' is used as a whole"), std::string::npos) << errors[1];
}

// CloverLeaf's chain: decompose() returns the neighbours, start() hands them by const reference
// to a constructor that copies them into a const member, and the exchange reads the member of
// the object start() returned. The constructor is defined in another file, with `const int`
// parameters its declaration does not spell (a different USR: it was an external call).
constexpr const char *kChunkHeader = R"(
#include <array>
#include <vector>
struct chunk_type {
  const std::array<int, 2> nbr;
  const int task;
  std::vector<double> tiles;
  chunk_type(const std::array<int, 2> &neighbours, int t);
};
)";

constexpr const char *kChunkConstructor = R"(
#include "chunk.h"
chunk_type::chunk_type(const std::array<int, 2> &neighbours, const int t)
    : nbr(neighbours), task(t) {}
)";

constexpr const char *kChunkMain = R"(
#include <mpi.h>
#include "chunk.h"
enum { left = 0, right = 1 };
struct globals_t {
  chunk_type chunk;
  explicit globals_t(chunk_type c) : chunk(c) {}
};
static std::array<int, 2> decompose(int rank, int size) {
  std::array<int, 2> n{};
  n[left] = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  n[right] = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  return n;
}
static globals_t start(int rank, int size) {
  auto neighbours = decompose(rank, size);
  int flags[3];
  for (int &f : flags) f = 1;
  globals_t g(chunk_type(neighbours, rank));
  if (flags[1] == 1) MPI_Barrier(MPI_COMM_WORLD);
  return g;
}
int main(int argc, char **argv) {
  int rank, size;
  double a[8] = {0}, b[8];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  globals_t g = start(rank, size);
  MPI_Request r[2];
  MPI_Isend(a, 8, MPI_DOUBLE, g.chunk.nbr[right], 0, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(b, 8, MPI_DOUBLE, g.chunk.nbr[left], 0, MPI_COMM_WORLD, &r[1]);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  MPI_Finalize();
  return 0;
}
)";

TEST(StdArrays, ConstReferenceParametersAndMembersKeepTheNeighbours) {
  write_source("chunk.h", kChunkHeader);
  BuildOptions options;
  options.sources = {write_source("chunk_main.cpp", kChunkMain),
                     write_source("chunk.cpp", kChunkConstructor)};
  options.args = {"-std=c++17"};
  const BuildResult r = build_model(options);
  // The constructor is a call of the program, not a library's.
  EXPECT_NE(labelled(r.model, "chunk_type::chunk_type"), nullptr);
  const auto sends = operations(r.model, model::Operation::Isend);
  const auto recvs = operations(r.model, model::Operation::Irecv);
  ASSERT_EQ(sends.size(), 1U);
  ASSERT_EQ(recvs.size(), 1U);
  EXPECT_EQ(arg(*sends[0], "dest"), "chunk_type_nbr_1");
  EXPECT_EQ(arg(*recvs[0], "source"), "chunk_type_nbr_0");
  for (const auto &d : r.diagnostics) {
    EXPECT_NE(d.severity, Severity::Error) << d.message;
  }
  // `for (int &f : flags) f = 1;` writes through a reference: the flags are data (measured),
  // not the zero an uninitialised array starts at in the model.
  bool flags_data = false;
  for (const auto &d : r.diagnostics) {
    flags_data =
        flags_data || d.message.find("'flags' is written through the reference of a range-for") !=
                          std::string::npos;
  }
  EXPECT_TRUE(flags_data);
}

} // namespace
} // namespace parjava::frontend::testing
