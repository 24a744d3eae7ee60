#include <stdlib.h>

#include "sim.h"

typedef struct MorsePotential {
  double cutoff;
  double lat;
  int (*force)(struct Sim *s);
  double depth;
} MorsePotential;

static int morseForce(Sim *s) {
  for (int iBox = 0; iBox < s->nLocalBoxes; iBox++) {
    s->work[iBox % 16] += 1.0;
  }
  return 0;
}

BasePotential *initMorsePot(void) {
  MorsePotential *pot = malloc(sizeof(MorsePotential));
  pot->depth = 1.0;
  pot->cutoff = 3.0;
  pot->lat = 4.0;
  pot->force = morseForce;
  return (BasePotential *)pot;
}
