// domain_cpp: a C++ mini-app written as LULESH is: a Domain class whose accessors return
// references to its fields, options parsed by a helper that writes through a pointer
// (StrToInt(argv[i + 1], &opts.its)), the process grid side from cbrt(size), neighbours at
// rank +-1, +-tp, +-tp*tp, and a time loop `while (time < stoptime && cycle < its)`.
#pragma once

struct Options {
  int its = 9999999;
  int nx = 30;
  int cost = 1;
};

int StrToInt(const char *token, int *value);
void ParseCommandLineOptions(int argc, char **argv, Options *opts);

class Domain {
public:
  Domain(int numRanks, int rank, int nx);
  int &tp() { return m_tp; }
  int &cycle() { return m_cycle; }
  double &time() { return m_time; }
  double &stoptime() { return m_stoptime; }
  int sizeX() const { return m_sizeX; }
  int planeLoc() const { return m_planeLoc; }
  int rowLoc() const { return m_rowLoc; }
  int colLoc() const { return m_colLoc; }
  double *field;

private:
  int m_tp;
  int m_cycle = 0;
  double m_time = 0.0;
  double m_stoptime = 1.0e20;
  int m_sizeX;
  int m_planeLoc, m_rowLoc, m_colLoc;
};

void Exchange(Domain &domain, int rank);
void Advance(Domain &domain, int cost);
