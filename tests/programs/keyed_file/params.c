// A settings file read by key, as UoB-HPC's arch mini-apps (flow, hot, neutral) read theirs:
// `mesh.global_nx = get_int_parameter("nx", params_file)` opens the file, finds the line that
// starts with the key and converts the rest with sscanf. The value every call returns is the
// one local `value`; the key literal at each call says which setting it is.
#include "params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int find_line(const char *key, const char *filename, char *line) {
  FILE *fp = fopen(filename, "r");
  if (fp == NULL) {
    fprintf(stderr, "could not open %s\n", filename);
    exit(EXIT_FAILURE);
  }
  const size_t len = strlen(key);
  while (fgets(line, MAX_LINE, fp)) {
    if (strncmp(line, key, len) == 0 && (line[len] == ' ' || line[len] == '\t')) {
      fclose(fp);
      memmove(line, line + len, strlen(line + len) + 1);
      return 1;
    }
  }
  fclose(fp);
  return 0;
}

int get_int_parameter(const char *key, const char *filename) {
  char line[MAX_LINE];
  if (!find_line(key, filename, line)) {
    fprintf(stderr, "no parameter %s in %s\n", key, filename);
    exit(EXIT_FAILURE);
  }
  int value;
  sscanf(line, "%d", &value);
  return value;
}

double get_double_parameter(const char *key, const char *filename) {
  char line[MAX_LINE];
  if (!find_line(key, filename, line)) {
    fprintf(stderr, "no parameter %s in %s\n", key, filename);
    exit(EXIT_FAILURE);
  }
  double value;
  sscanf(line, "%lf", &value);
  return value;
}
