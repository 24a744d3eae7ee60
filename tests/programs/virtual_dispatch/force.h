// The force field behind a base-class pointer, chosen at run time (miniMD's Force / ForceLJ /
// ForceEAM): the base class's compute() is an empty body, the work is in the overriders.
#pragma once

class Force {
public:
  virtual ~Force() {}
  virtual void compute(double *f, const double *x, int n) {}
  int evaluations = 0;
};

Force *make_force(int style);
