#include "sim.h"

/* The local grid from the global extent, passed as an array (real3 decays to a pointer). */
void initDecomposition(Sim *s, int nproc, real3 globalExtent) {
  for (int i = 0; i < 3; i++) {
    s->gridSize[i] = (int)(globalExtent[i] / s->pot->cutoff);
  }
  s->gridSize[0] /= nproc;
  s->nLocalBoxes = s->gridSize[0] * s->gridSize[1] * s->gridSize[2];
}
