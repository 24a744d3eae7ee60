#include <stdlib.h>

#include "sim.h"

typedef struct LjPotential {
  double cutoff;
  double lat;
  int (*force)(struct Sim *s);
  double sigma;
} LjPotential;

static int ljForce(Sim *s);

BasePotential *initLjPot(void) {
  LjPotential *pot = malloc(sizeof(LjPotential));
  pot->sigma = 1.0;
  pot->cutoff = 2.5 * pot->sigma;
  pot->lat = 5.0;
  pot->force = ljForce;
  return (BasePotential *)pot;
}

/* The force loop over the local boxes: its work is divided among the ranks. */
static int ljForce(Sim *s) {
  for (int iBox = 0; iBox < s->nLocalBoxes; iBox++) {
    double acc = 0.0;
    for (int k = 0; k < 4000; k++) {
      acc += (double)(k % 7) * 1e-3;
    }
    s->work[iBox % 16] += acc;
  }
  return 0;
}
