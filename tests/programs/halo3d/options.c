#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "halo.h"

/* A table-driven option parser: addOption registers a variable's address, parseOptions fills it
 * with getopt_long, as CoMD's cmdLineParser does. */
typedef struct {
  const char *name;
  char shortName;
  int hasArg;
  int *target;
} Option;

static Option table[32];
static int nOptions = 0;

int addOption(const char *longName, char shortName, int hasArg, void *target, const char *help) {
  (void)help;
  if (nOptions >= 32) {
    return 1;
  }
  table[nOptions].name = longName;
  table[nOptions].shortName = shortName;
  table[nOptions].hasArg = hasArg;
  table[nOptions].target = (int *)target;
  nOptions++;
  return 0;
}

void parseOptions(int argc, char **argv) {
  struct option longs[33];
  char shorts[100];
  int k = 0;
  memset(longs, 0, sizeof(longs));
  for (int i = 0; i < nOptions; i++) {
    longs[i].name = table[i].name;
    longs[i].has_arg = table[i].hasArg;
    longs[i].val = table[i].shortName;
    shorts[k++] = table[i].shortName;
    if (table[i].hasArg) {
      shorts[k++] = ':';
    }
  }
  shorts[k] = '\0';
  int c;
  while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
    for (int i = 0; i < nOptions; i++) {
      if (table[i].shortName == c) {
        *table[i].target = table[i].hasArg ? atoi(optarg) : 1;
      }
    }
  }
}
