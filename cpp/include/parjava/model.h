/* parjava/model.h: annotations for the parjava model builder (issue 12, program inputs).
 *
 * The builder finds a program's inputs by their idioms (options parsed from argv, getopt,
 * option tables, values read from files or broadcast by rank 0). Where no idiom fits, name one
 * yourself right after the program sets it:
 *
 *     #include <parjava/model.h>
 *     ...
 *     read_config(&cfg);
 *     PARJAVA_PARAM(cfg.nsteps);    // the model parameter `nsteps`, measured here
 *
 * Compiled normally this is an empty inline call that the optimiser removes. The model
 * builder and the estimation code find the header by themselves; to compile your own program
 * with it, add -I"$(python3 -c 'import parjava; print(parjava.include_dir())')" or copy this
 * file next to your sources.
 */
#ifndef PARJAVA_MODEL_H
#define PARJAVA_MODEL_H

static inline void parjava_param(const volatile void *variable, const char *name) {
  (void)variable;
  (void)name;
}

#define PARJAVA_PARAM(variable) parjava_param(&(variable), #variable)

#endif /* PARJAVA_MODEL_H */
