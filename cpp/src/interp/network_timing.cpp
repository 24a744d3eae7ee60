#include "network_timing.hpp"

#include <cmath>

namespace parjava::interp {

namespace {
double to_ns(double seconds) { return std::round(seconds * 1e12) / 1e3; }
} // namespace

NetworkTiming timing_of(const machine::Network &network) {
  NetworkTiming t;
  t.network = &network;
  t.eager_limit = network.eager_limit();
  if (const auto *p = network.as_loggp()) {
    t.loggp = true;
    t.L = to_ns(p->L);
    t.o = to_ns(p->o);
    t.g = to_ns(p->g);
    t.G = to_ns(p->G);
    t.O = to_ns(p->O);
  }
  return t;
}

} // namespace parjava::interp
