/* A worksharing directive kept in a macro, as miniMD's types.h keeps OMPFORSCHEDULE. Only a
 * build that preprocesses first (`mpicc -E md.c > md.2.c && mpicc -c md.2.c`) makes the
 * expansion a directive; a compiler run on md.c itself sees a stray '#'. */
#ifndef SCHEDULE_H
#define SCHEDULE_H

#define OMP_FOR_STATIC  #pragma omp for schedule(static)

#endif
