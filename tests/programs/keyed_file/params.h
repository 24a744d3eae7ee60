#ifndef KEYED_FILE_PARAMS_H
#define KEYED_FILE_PARAMS_H

#define MAX_LINE 256

int get_int_parameter(const char *key, const char *filename);
double get_double_parameter(const char *key, const char *filename);

#endif
