#include <gtest/gtest.h>

#include "helpers.hpp"

using namespace parjava::interp;
using namespace parjava::interp::testing;

TEST(Smoke, RingUnderHockney) {
  // niter iterations of compute (1 us) then Sendrecv to the right neighbour of 1000 bytes.
  const auto m = model_of(R"({"niter": 3})", R"(
    {"id": 1, "kind": "seq", "children": [2]},
    {"id": 2, "kind": "for", "init": [["i", "0"]], "cond": "i < niter", "update": [["i", "i+1"]],
     "children": [3]},
    {"id": 3, "kind": "seq", "children": [4, 5]},
    {"id": 4, "kind": "cb", "time": 1e-6},
    {"id": 5, "kind": "cfc", "op": "MPI_Sendrecv", "source": {"file": 0, "line": 7},
     "args": {"dest": "(rank+1)%size", "sendbytes": 1000, "source": "(rank-1+size)%size"}})");
  const auto pred = run(m, hockney(1e-6, 1e9), 4);
  // per iteration: 1 us compute + alpha (1 us) + 1000 B / 1 GB/s (1 us)
  EXPECT_NEAR(pred.program_time, 3 * 3e-6, 1e-12);
  EXPECT_EQ(pred.end_times.size(), 4U);
}
