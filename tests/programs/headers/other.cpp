// A second unit including the same headers: one mirrored copy must serve both.
#include "solver.hpp"

static std::vector<int> make_ids(int n, int stride) {
  std::vector<int> ids;
  collect_ids(n, stride, ids);
  return ids;
}

double setup_check(int n) {
  Grid<double> g;
  g.x.assign(static_cast<std::size_t>(n) + 2, 1.0);
  // Built in place from a call (PENNANT's `vector<double> params = inp->getDoubleList(...)`):
  // its size is data, not a variable nobody assigns.
  std::vector<int> ids = make_ids(n, 2);
  if (ids.size() > 4) {
    return kern::sweep(g.x, ids, 3);
  }
  return 0.0;
}
