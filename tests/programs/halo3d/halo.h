/* halo3d: a small 3-D halo-exchange mini-app written the way public mini-apps are (CoMD,
 * miniGhost): options registered in a table and parsed with getopt_long, state in structs
 * reached through pointers, the process grid and the neighbour ranks in small arrays, globals
 * shared between files, loop indices reused. The parjava tests build its model from these
 * sources unchanged and compare predictions with real runs. */
#ifndef HALO3D_H
#define HALO3D_H

typedef struct {
  int nx, ny, nz; /* cells per process */
  int px, py, pz; /* process grid */
  int nSteps;     /* time steps */
  int printRate;
} Params;

typedef struct {
  int procGrid[3];
  int procCoord[3];
  int nbr[6]; /* -x +x -y +y -z +z */
} Domain;

extern int nVars; /* fields exchanged per cell, defined in main.c */

int addOption(const char *longName, char shortName, int hasArg, void *target, const char *help);
void parseOptions(int argc, char **argv);
void initDomain(Domain *d, const Params *p);
void exchangeHalos(const Domain *d, const Params *p, double *send, double *recv);
double relax(double *u, double *v, const Params *p);

#endif
