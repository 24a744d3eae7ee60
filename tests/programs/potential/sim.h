/* A CoMD-like layout: a base potential whose force routine is a function pointer, and a
 * derived potential that shares its first fields (C-style inheritance by layout). */
#ifndef SIM_H
#define SIM_H

struct Sim;

typedef struct BasePotential {
  double cutoff;
  double lat;
  int (*force)(struct Sim *s);
} BasePotential;

typedef struct Sim {
  BasePotential *pot;
  int gridSize[3];
  int nLocalBoxes;
  double *work;
} Sim;

typedef double real3[3];

BasePotential *initLjPot(void);
BasePotential *initMorsePot(void);
void initDecomposition(Sim *s, int nproc, real3 globalExtent);
void timestep(Sim *s, int nSteps);

#endif
