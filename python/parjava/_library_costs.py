"""What memory operations cost on this machine, by size: measured once and cached.

Private to :mod:`parjava.frontend`. The estimation prices ``malloc``/``calloc``/``free``/
``memcpy``/``memmove``/``memset`` by the bytes they touch (issue 13 item 4): a call site is
measured at the estimation input's sizes, and the machine's curve, measured here at 1 KiB ...
256 MiB, carries its cost to the sizes of another input (``free`` of a large block is an
``munmap`` whose cost follows the pages, ``memcpy`` leaves the caches at their sizes). The
same program measures the cost per byte of a stencil-like sweep over a working set of each
size: a loop nest measured with its arrays in one cache level and predicted with them in
another is scaled by it. The cache sizes come from sysfs.

The result is cached in ``$PARJAVA_CACHE_DIR`` (default ``~/.cache/parjava``) under a key of
the host, the CPU model and the cache sizes, so it is measured once per machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from .errors import MissingDependencyError, RunError

VERSION = 7  # 7: sweep trials without the CPU the benchmark waited for
SIZES = [1024 * 4**k for k in range(10)]  # 1 KiB ... 256 MiB

_BENCHMARK = r"""
#define _GNU_SOURCE
#ifdef WITH_MPI
#include <mpi.h>
#endif
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The cycle counter where there is one (a call of 1 KiB takes less than the clock's
   resolution), converted to seconds with a rate measured against the clock. */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static double seconds_per_tick;
static double now(void) { return (double)__rdtsc() * seconds_per_tick; }
static void calibrate(void) {
  double c0 = clock_now();
  unsigned long long r0 = __rdtsc();
  while (clock_now() - c0 < 0.05) {
  }
  seconds_per_tick = (clock_now() - c0) / (double)(__rdtsc() - r0);
}
#else
static double now(void) { return clock_now(); }
static void calibrate(void) {}
#endif

static volatile double sink;

/* Seconds this thread has been runnable but waiting for a CPU (/proc/thread-self/schedstat,
   the second number; 0 when the kernel does not say). A sweep over 256 MiB takes tens of
   milliseconds, so on a shared machine nearly every trial of it was preempted, and the lower
   quartile of the trials kept the neighbours' time: taken out of each trial here. */
#include <fcntl.h>
#include <unistd.h>
static int schedstat_fd = -2;
static double wait_seconds(void) {
  char text[96];
  unsigned long long run = 0, wait = 0;
  ssize_t n;
  if (schedstat_fd == -2) schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY);
  if (schedstat_fd < 0) return 0.0;
  n = pread(schedstat_fd, text, sizeof(text) - 1, 0);
  if (n <= 0) return 0.0;
  text[n] = 0;
  if (sscanf(text, "%llu %llu", &run, &wait) != 2) return 0.0;
  return 1e-9 * (double)wait;
}

/* Cycles per size: ~40 MiB of traffic, at least 7. */
static long cycles_for(long bytes) {
  long n = (40L << 20) / bytes;
  return n < 7 ? 7 : (n > 400 ? 400 : n);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The lower quartile: a shared machine only slows a measurement down, and the lowest value
   alone is one lucky run. */
static double median(double *v, long n) {
  qsort(v, (size_t)n, sizeof(double), cmp);
  return v[n / 4];
}

/* Steady state of a program that allocates, fills, copies and frees a block of one size over
   and over (after the first cycle, glibc has adapted its mmap threshold to the size, as the
   program's allocator has); each operation's median over the cycles. */
int main(int argc, char **argv) {
#ifdef WITH_MPI
  MPI_Init(&argc, &argv);
#endif
  long sizes[] = {SIZES};
  int nsizes = (int)(sizeof(sizes) / sizeof(sizes[0]));
  double empty[101], overhead;
  calibrate();
  for (int k = 0; k < 101; ++k) {
    double t0 = now();
    empty[k] = now() - t0;
  }
  overhead = median(empty, 101); /* what an empty interval reports */
  if (argc > 1 && strcmp(argv[1], "sweep") == 0) {
    /* The cost per byte of a stencil sweep over two arrays of b bytes together (the working
       set is b), sizes interleaved round by round: this VM has phases 1.4x slower lasting
       50-500 ms, which would otherwise fall on one size's trials. */
    enum { ROUNDS = 15 };
    static double per[ROUNDS][64];
    long maxb = sizes[nsizes - 1];
    double *x = malloc(maxb), *y = malloc(maxb);
    for (long i = 0; i < maxb / 8; ++i) x[i] = y[i] = (double)i;
    for (int r = 0; r < ROUNDS; ++r) {
      for (int s = 0; s < nsizes; ++s) {
        long b = sizes[s], m = b / 16, passes = b >= (1L << 20) ? 1 : (1L << 20) / b;
        double *u = x, *v = y;
        for (long i = 1; i + 1 < m; ++i) v[i] = 0.25 * (u[i - 1] + u[i + 1]) + 0.5 * u[i];
        double w0 = wait_seconds(), t0 = now(), t1, waited;
        for (long q = 0; q < passes; ++q) {
          for (long i = 1; i + 1 < m; ++i) v[i] = 0.25 * (u[i - 1] + u[i + 1]) + 0.5 * u[i];
          double *z = u;
          u = v;
          v = z;
        }
        t1 = now();
        waited = wait_seconds() - w0;
        per[r][s] = (t1 - t0 - overhead - (waited > 0 ? waited : 0)) / (double)passes / (double)b;
        sink += u[m / 2];
      }
    }
    printf("{\n");
    for (int s = 0; s < nsizes; ++s) {
      double v[ROUNDS];
      for (int r = 0; r < ROUNDS; ++r) v[r] = per[r][s];
      printf("%s\"%ld\": {\"sweep_per_byte\": %.6g}\n", s ? "," : "", sizes[s],
             median(v, ROUNDS));
    }
    printf("}\n");
    free(x);
    free(y);
#ifdef WITH_MPI
    MPI_Finalize();
#endif
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "once") == 0) {
    /* Arrays allocated once and freed once (the usual HPC pattern): glibc's mmap threshold
       fixed at its initial 128 KiB, as in a program that has not freed a large block yet, so
       every large free is an munmap whose cost follows the pages. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
    printf("{\n");
    for (int s = 0; s < nsizes; ++s) {
      long b = sizes[s], B = b >= 65536 ? 1 : 65536 / b, n = b >= (64L << 20) ? 7 : 9;
      double tm[9], tf[9];
      char **p = malloc(sizeof(char *) * B);
      for (long c = 0; c < n; ++c) {
        double t0 = now();
        for (long q = 0; q < B; ++q) p[q] = malloc(b);
        double t1 = now();
        for (long q = 0; q < B; ++q) memset(p[q], 3, b);
        double t2 = now();
        for (long q = 0; q < B; ++q) free(p[q]);
        double t3 = now();
        tm[c] = (t1 - t0 - overhead) / B;
        tf[c] = (t3 - t2 - overhead) / B;
      }
      free(p);
      printf("%s\"%ld\": {\"malloc_once\": %.6g, \"free_once\": %.6g}\n", s ? "," : "", b,
             median(tm, n), median(tf, n));
    }
    printf("}\n");
#ifdef WITH_MPI
    MPI_Finalize();
#endif
    return 0;
  }
  printf("{\n");
  for (int s = 0; s < nsizes; ++s) {
    long b = sizes[s], n = cycles_for(b);
    double *t[7];
    char *src = malloc(b), *dst = malloc(b);
    for (int k = 0; k < 7; ++k) t[k] = malloc(sizeof(double) * n);
    memset(src, 1, b);
    memset(dst, 2, b);
    /* A batch of B calls per timing where one call is shorter than the clock's resolution
       (this VM's cycle counter moves in steps of 10 ns). */
    long B = b >= 65536 ? 1 : 65536 / b;
    char **p = malloc(sizeof(char *) * B);
    for (long c = 0; c < n; ++c) {
      double t0 = now();
      for (long q = 0; q < B; ++q) p[q] = malloc(b);
      double t1 = now();
      for (long q = 0; q < B; ++q) memset(p[q], 3, b); /* touched, as programs do */
      double t2 = now();
      for (long q = 0; q < B; ++q) memcpy(dst, p[q], b);
      double t3 = now();
      for (long q = 0; q < B; ++q) memmove(dst, src, b);
      double t4 = now();
      for (long q = 0; q < B; ++q) memset(dst, (int)(c + q), b);
      double t5 = now();
      sink += dst[c % b] + p[0][c % b];
      for (long q = 0; q < B; ++q) free(p[q]);
      double t6 = now();
      for (long q = 0; q < B; ++q) p[q] = calloc(1, b);
      double t7 = now();
      for (long q = 0; q < B; ++q) {
        sink += p[q][b - 1];
        free(p[q]);
      }
      t[0][c] = (t1 - t0 - overhead) / B;
      t[1][c] = (t6 - t5 - overhead) / B;
      t[2][c] = (t3 - t2 - overhead) / B;
      t[3][c] = (t4 - t3 - overhead) / B;
      t[4][c] = (t5 - t4 - overhead) / B;
      t[5][c] = (t7 - t6 - overhead) / B;
    }
    free(p);
    printf("%s\"%ld\": {\"malloc\": %.6g, \"free\": %.6g, \"memcpy\": %.6g, "
           "\"memmove\": %.6g, \"memset\": %.6g, \"calloc\": %.6g}\n",
           s ? "," : "", b, median(t[0], n), median(t[1], n), median(t[2], n), median(t[3], n),
           median(t[4], n), median(t[5], n));
    for (int k = 0; k < 7; ++k) free(t[k]);
    free(src);
    free(dst);
  }
  printf("}\n");
#ifdef WITH_MPI
  MPI_Finalize();
#endif
  (void)argc;
  (void)argv;
  return 0;
}
"""


def cache_sizes() -> list[dict[str, Any]]:
    """Return the data and unified caches of CPU 0 from sysfs (level, bytes), smallest first."""
    out = []
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    for index in sorted(base.glob("index*")):
        try:
            kind = (index / "type").read_text().strip()
            level = int((index / "level").read_text())
            size = (index / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        if kind == "Instruction":
            continue
        scale = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(size[-1:], 1)
        number = size[:-1] if size[-1:] in "KMG" else size
        try:
            out.append({"level": level, "bytes": int(number) * scale})
        except ValueError:
            continue
    return sorted(out, key=lambda c: c["bytes"])


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _cache_file() -> Path:
    root = Path(os.environ.get("PARJAVA_CACHE_DIR") or Path.home() / ".cache" / "parjava")
    key = json.dumps([VERSION, platform.node(), _cpu_model(), cache_sizes(), SIZES])
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return root / f"library-costs-{digest}.json"


def _run_benchmark(tmp: Path, compiler: str, flags: list[str]) -> str | None:
    src = tmp / "costs.c"
    exe = tmp / "costs"
    src.write_text(_BENCHMARK.replace("{SIZES}", "{" + ", ".join(map(str, SIZES)) + "}"))
    build = subprocess.run(
        [compiler, "-O2", *flags, str(src), "-o", str(exe)],
        capture_output=True,
        text=True,
        check=False,
    )
    if build.returncode != 0:
        return None
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    outputs = []
    for mode in ([], ["once"], ["sweep"]):
        run = subprocess.run(
            [str(exe), *mode], capture_output=True, text=True, check=False, timeout=300, env=env
        )
        if run.returncode != 0:
            return None
        outputs.append(json.loads(run.stdout))
    merged = outputs[0]
    for more in outputs[1:]:
        for size, values in more.items():
            merged.setdefault(size, {}).update(values)
    return json.dumps(merged)


def measure() -> dict[str, Any]:
    """Run the benchmark now (a few seconds) and return its result.

    It is an MPI program when mpicc is there: an MPI library hooks the allocator (Open MPI
    watches munmap for its registration cache), so a free in an MPI program costs what it
    costs there, not in a plain C program.
    """
    with tempfile.TemporaryDirectory(prefix="parjava-costs-") as tmp:
        output = None
        if shutil.which("mpicc"):
            output = _run_benchmark(Path(tmp), "mpicc", ["-DWITH_MPI"])
        if output is None:
            cc = shutil.which("cc") or shutil.which("gcc")
            if cc is None:
                raise MissingDependencyError(
                    "no C compiler (mpicc or cc) to measure the machine's memory costs"
                )
            output = _run_benchmark(Path(tmp), cc, [])
        if output is None:
            raise RunError("the memory-cost benchmark did not compile or run")
    by_size = json.loads(output)
    curves: dict[str, list[list[float]]] = {}
    for size, values in sorted(by_size.items(), key=lambda kv: int(kv[0])):
        for name, seconds in values.items():
            curves.setdefault(name, []).append([float(size), float(seconds)])
    return {
        "version": VERSION,
        "host": platform.node(),
        "cpu": _cpu_model(),
        "caches": cache_sizes(),
        "curves": curves,
    }


def _busy() -> bool:
    """Return whether the machine is loaded beyond its CPUs (a measurement would show it)."""
    try:
        load = float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return False
    return load > (os.cpu_count() or 1)


def library_costs(refresh: bool = False) -> dict[str, Any]:
    """Return this machine's memory-operation costs, measuring them the first time.

    A result measured on a busy machine is kept (flagged ``busy``) until the machine is quiet
    at an estimation, which measures again: memory bandwidth shared with neighbours makes a
    64 MiB copy 2-10x slower.
    """
    path = _cache_file()
    if not refresh and path.exists():
        try:
            doc = json.loads(path.read_text())
            if doc.get("version") == VERSION and (not doc.get("busy") or _busy()):
                return dict(doc)
        except (OSError, ValueError):
            pass
    busy = _busy()
    doc = measure()
    doc["busy"] = busy or _busy()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc, indent=1))
        tmp.replace(path)
    except OSError:
        pass  # an unwritable cache only costs the next estimation a few seconds
    return doc
