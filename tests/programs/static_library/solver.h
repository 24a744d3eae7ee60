/* A library the way LLNL/AMG's hypre subset is one: its build archives every file into a static
 * library, so a file the program never calls may reference a function no file defines. */
#ifndef SOLVER_H
#define SOLVER_H

double relax(double *x, int n, int sweeps);
/* Declared in the library's header; its definition was left out of this library. */
int grid_map(int ix, int iy, int nx);
double legacy_generate(int nx, int ny);

#endif
