// A second unit including the same headers: one mirrored copy must serve both.
#include "solver.hpp"

double setup_check(int n) {
  Grid<double> g;
  g.x.assign(static_cast<std::size_t>(n) + 2, 1.0);
  std::vector<int> ids;
  collect_ids(n, 2, ids);
  return kern::sweep(g.x, ids, 3);
}
