"""Acceptance benchmark of issue 12/13: public MPI mini-apps, unmodified, through the pipeline.

Given checkouts of public mini-apps that you fetched yourself (this script never downloads
anything and no code of theirs is in this repository), it builds each app with its own flags,
runs parjava model -> estimate -> predict on the sources as they are, runs the real program,
and prints predicted against measured times:

    PYTHONPATH=python PARJAVA_BUILD_DIR=build/dev/package \\
        python3 benchmarks/real_apps.py /path/to/CoMD /path/to/miniAMR /path/to/LULESH

Recognised checkouts: ECP-copa/CoMD (src-mpi/), Mantevo/miniAMR (ref/), LLNL/LULESH (built
with MPI, without OpenMP), ParRes/Kernels (MPI1: the stencil, the transpose and the
Synch_p2p pipeline, see `parres_kernels`), Mantevo/miniFE
(ref/, header-only C++), lanl/PENNANT (its Sedov input), Mantevo/miniMD (ref/, MPI + OpenMP,
built as Makefile.openmpi builds it: each file preprocessed, then the output compiled; one
OpenMP thread, its default), sstsimulator/ember (the MPI communication motifs, see
`ember_motifs`), ECP-ExaGraph/miniVite (MPI + OpenMP graph clustering, one thread),
hpgmg/hpgmg (HPGMG-FV, see `hpgmg_fv`), Mantevo/HPCCG, ANL-CESAR/XSBench (see `xsbench`),
mrnorman/miniWeather (see `miniweather`: its inputs are -D flags, rebuilt per row),
UoB-HPC/CloverLeaf (see `cloverleaf`: the serial model with MPI, a keyword deck),
hpcg-benchmark/hpcg (see `hpcg`: its quick path, `--rt=0`), wdj/minisweep (see `minisweep`),
UoB-HPC/flow and UoB-HPC/hot placed inside a checkout of UoB-HPC/arch (see `flow`, `hot`;
OMP_NUM_THREADS=1).
For each app the rows are:

* np 1 at the estimation input (bar 15 %): the model and the estimation code, no scaling;
* np 1 on the full input, ten times the time steps, from the estimation on a tenth (bar 20 %);
* np 2 on the full input (bar 25 %; CoMD, miniAMR, the PRK kernels, miniFE, PENNANT, miniMD);
  the neighbours of miniAMR, miniFE and PENNANT come from their meshes (miniMD's from its
  atoms' positions), so their np-2 models are estimated at np 2 (partners measured per rank),
  with an np-2 row at the estimation input;
* LULESH at np 8 (a cube of ranks): predicted without error, and compared;
* an Ember motif: its estimation input at np 1 (np 2 for the two-sided ones; bar 15 %), the
  same per-rank input at np 4 with the process grid the command line gives (bar 25 %), and the
  sweep at np 8.

Rows with more ranks than this machine has CPUs (LULESH's cube, the motifs' sweeps) are also
predicted on its cores shared (``Machine.with_layout``: what the real run had), and their
error is that prediction's against the run.

Measured times are the wall time between MPI_Init and MPI_Finalize (benchmarks/mpi_span.c,
linked into the real program; the slowest rank), the mean of --repeat runs; predicted times
are the model's program time over the same span. Timings need a quiet machine: the script
prints the load average before and after, and --record FILE keeps every figure as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import parjava as pj

HERE = Path(__file__).resolve().parent


@dataclass
class App:
    """How to build and run one mini-app, and which inputs the rows use."""

    name: str
    directory: Path  # where its sources are and where it runs
    sources: list[str]
    flags: list[str]
    libraries: list[str]
    small: list[str]  # the estimation input
    full: list[str]  # ten times the time steps
    np2: list[str] = field(default_factory=list)  # extra arguments for the np-2 rows
    estimate_np2: bool = False  # estimate the np-2 model at np 2
    cube: list[str] = field(default_factory=list)  # LULESH: the np-8 input
    two_ranks: bool = False  # an np-2 row on the full input as it is (no extra arguments)
    cxx: bool = False
    full_label: str = "full input (10x steps)"
    # Build as `cc FLAGS -E f.cpp > f.2.cpp && cc FLAGS -c f.2.cpp` (miniMD's Makefiles: a
    # macro holding `#pragma omp for` only works that way).
    preprocess_first: bool = False
    # A header the app's Makefile generates before compiling (CoMD's CoMD_info.h): the command
    # that makes it, run in `directory` when the file is missing.
    generated: tuple[str, list[str]] | None = None
    # Settings an input file holds, by the file's argument (PENNANT's `cstop 200` in full.pnt):
    # a command line cannot set them, so the rows give them as `params=`, as a user would.
    file_params: dict[str, dict[str, float]] = field(default_factory=dict)
    # Inputs given on the compile line (miniWeather's -D_SIM_TIME): the full input's values of
    # the macros; its rows build the real program again with them and predict with them as
    # `params=` (the model has each number of the compile line as a parameter).
    full_defines: dict[str, int] = field(default_factory=dict)


MINIAMR_OBJECT = ["--num_objects", "1", "--object", "2", "0", "-1.10", "-1.10", "-1.10"]
MINIAMR_OBJECT += ["0.030", "0.030", "0.030", "1.5", "1.5", "1.5", "0.0", "0.0", "0.0"]
MINIAMR = ["--num_refine", "3", "--max_blocks", "2000", "--nx", "8", "--ny", "8", "--nz", "8"]
MINIAMR += [*MINIAMR_OBJECT, "--checksum_freq", "4", "--stages_per_ts", "16"]

# The PRK stencil as its Makefile builds it by default (radius 2, star, double, compact loops).
PRK_FLAGS = ["-O3", "-DMPI", "-DRADIUS=2", "-DSTAR=1", "-DDOUBLE=1", "-DLOOPGEN=0"]
PRK_FLAGS += ["-DRESTRICT_KEYWORD=0", "-DVERBOSE=0"]


def recognise(checkout: Path) -> App | list[Motif] | list[App]:
    """Return the App of a checkout (the motifs of an Ember checkout), by the files it holds."""
    if (checkout / "mpi" / "halo3d" / "halo3d.c").exists() and (
        checkout / "mpi" / "sweep3d"
    ).exists():
        return ember_motifs(checkout)
    if (checkout / "src-mpi" / "CoSP2.c").exists():
        return cosp2(checkout / "src-mpi")
    if (checkout / "src-mpi" / "CoMD.c").exists():
        d = checkout / "src-mpi"
        return App(
            "CoMD",
            d,
            sorted(str(p) for p in d.glob("*.c")),
            ["-std=c99", "-DDOUBLE", "-DDO_MPI", "-O3"],
            ["-lm"],
            ["-x", "20", "-y", "20", "-z", "20", "-N", "10", "-n", "10"],
            ["-x", "20", "-y", "20", "-z", "20", "-N", "100", "-n", "100"],
            np2=["-i", "2"],
            generated=(
                "CoMD_info.h",
                ["bash", "./generate_info_header", "CoMD-mpi", "mpicc", "-std=c99 -O3", "-lm"],
            ),
        )
    if (checkout / "ref" / "main.c").exists() and (checkout / "ref" / "refine.c").exists():
        d = checkout / "ref"
        return App(
            "miniAMR",
            d,
            sorted(str(p) for p in d.glob("*.c")),
            ["-I.", "-O3"],
            ["-lm"],
            [*MINIAMR, "--num_tsteps", "10"],
            [*MINIAMR, "--num_tsteps", "100"],
            np2=["--npx", "2"],
            estimate_np2=True,
        )
    if (checkout / "lulesh.cc").exists():
        names = ["lulesh.cc", "lulesh-comm.cc", "lulesh-viz.cc", "lulesh-util.cc", "lulesh-init.cc"]
        return App(
            "LULESH",
            checkout,
            [str(checkout / n) for n in names],
            ["-DUSE_MPI=1", "-I.", "-O3"],
            ["-lm"],
            ["-s", "15", "-i", "20", "-q"],
            ["-s", "15", "-i", "200", "-q"],
            cube=["-s", "12", "-i", "20", "-q"],
            cxx=True,
        )
    if (checkout / "MPI1" / "Stencil" / "stencil.c").exists():
        return parres_kernels(checkout)
    if (checkout / "omp3" / "flow.c").exists() and (checkout.parent / "comms.c").exists():
        return flow(checkout)
    if (checkout / "omp3" / "hot.c").exists() and (checkout.parent / "comms.c").exists():
        return hot(checkout)
    if (checkout / "ref" / "src" / "main.cpp").exists() and (checkout / "ref" / "utils").exists():
        return minife(checkout / "ref")
    if (checkout / "src" / "Hydro.cc").exists() and (checkout / "test" / "sedov").exists():
        return pennant(checkout)
    if (checkout / "ref" / "ljs.cpp").exists() and (checkout / "ref" / "in.lj.miniMD").exists():
        return minimd(checkout / "ref")
    if (checkout / "dspl.hpp").exists() and (checkout / "main.cpp").exists():
        return minivite(checkout)
    if (checkout / "finite-volume" / "source" / "hpgmg-fv.c").exists():
        return hpgmg_fv(checkout / "finite-volume" / "source")
    if (checkout / "HPCCG.cpp").exists() and (checkout / "exchange_externals.cpp").exists():
        return hpccg(checkout)
    if (checkout / "src" / "ComputeMG_ref.cpp").exists():
        return hpcg(checkout)
    if (checkout / "openmp-threading" / "XSbench_header.h").exists():
        return xsbench(checkout / "openmp-threading")
    if (checkout / "c" / "miniWeather_mpi.cpp").exists():
        return miniweather(checkout / "c")
    if (checkout / "driver" / "clover_leaf.cpp").exists() and (
        checkout / "src" / "serial"
    ).is_dir():
        return cloverleaf(checkout)
    if (checkout / "src" / "4_driver" / "sweep.c").exists():
        return minisweep(checkout / "src")
    raise SystemExit(
        f"{checkout}: not a checkout this benchmark knows (CoMD, miniAMR, LULESH, ParRes/Kernels, "
        "miniFE, PENNANT, miniMD, Ember, miniVite, HPGMG, HPCCG, HPCG, CoSP2, XSBench, "
        "miniWeather, CloverLeaf, minisweep)"
    )


MINIWEATHER_SIZE = ["-O3", "-D_NX=200", "-D_NZ=100", "-D_SIM_TIME=50"]


def miniweather(source: Path) -> App:
    """mrnorman/miniWeather (c/miniWeather_mpi.cpp): a 2-D stratified flow, decomposed in x,
    halo exchanges with both neighbours and an Allreduce. Its inputs are -D flags (the grid, the
    simulated time, the output interval), as its CMakeLists passes them; the output needs
    PnetCDF (`apt-get install -y libpnetcdf-dev`) but `-D_OUT_FREQ=-1` writes none. The thermal
    case on a 200 x 100 grid, 50 s simulated (150 steps); the full input simulates 500 s."""
    return App(
        "miniWeather",
        source,
        [str(source / "miniWeather_mpi.cpp")],
        [*MINIWEATHER_SIZE, "-D_OUT_FREQ=-1", "-D_DATA_SPEC=DATA_SPEC_THERMAL", "-DNO_INFORM"],
        ["-lpnetcdf"],
        [],
        [],
        two_ranks=True,
        cxx=True,
        full_label="10x the simulated time",
        full_defines={"_SIM_TIME": 500},
    )


def parres_kernels(checkout: Path) -> list[App]:
    """ParRes/Kernels MPI1: the stencil, the transpose and the pipeline (Synch_p2p), each with
    its Makefile's flags (`--only stencil`, `--only transpose`, `--only p2p` picks one). The
    transpose exchanges blocks with every other rank in np - 1 phases and the pipeline passes
    each row's last value to the next rank: neither communicates at np 1, so their np-2 models
    are estimated at np 2."""
    common = checkout / "common"
    flags = [*PRK_FLAGS, f"-I{checkout / 'include'}"]

    def kernel(name: str, directory: str, file: str, small: list[str], full: list[str]) -> App:
        d = checkout / "MPI1" / directory
        return App(
            name,
            d,
            [str(d / file), str(common / "MPI_bail_out.c"), str(common / "wtime.c")],
            flags,
            ["-lm"],
            small,
            full,
            two_ranks=True,
            estimate_np2=name != "stencil",
        )

    return [
        kernel("stencil", "Stencil", "stencil.c", ["10", "2000"], ["100", "2000"]),
        # iterations, matrix order, tile size
        kernel(
            "transpose", "Transpose", "transpose.c", ["10", "2000", "32"], ["100", "2000", "32"]
        ),
        # iterations, grid rows, grid columns
        kernel("p2p", "Synch_p2p", "p2p.c", ["10", "2000", "2000"], ["100", "2000", "2000"]),
    ]


def hpgmg_fv(source: Path) -> App:
    """HPGMG-FV (hpgmg/hpgmg, finite-volume/source): full multigrid (F-cycles of V-cycles,
    `MGVCycle` recursing over the levels, exchanging ghosts and restricting/interpolating
    between ranks at each) with a BiCGStab bottom solver, as `./configure` writes its Makefile
    by default (`-DUSE_MPI=1 -DUSE_BICGSTAB=1 -DUSE_SUBCOMM=1 -DUSE_FCYCLES=1 -DUSE_GSRB=1`,
    `-std=c99`, no OpenMP), plus `--CPPFLAGS=-DTEST_ERROR`: without it the benchmark times
    each of three grids for at least 60 s (`minSolves = minTime / timePerSolve`, a clock
    reading: the builder says so), which no estimation can be a tenth of. With it, the run is
    its Richardson error analysis: one F-cycle solve on each of the three grids. Its input is
    `log2(box size)` and boxes per rank; the grid is the largest cube of boxes not above
    boxes-per-rank * np, so `4 8` is 2^3 boxes of 16^3 cells at np 1 and at np 2 (4 each)."""
    names = ["timers.c", "level.c", "operators.fv4.c", "mg.c", "solvers.c", "hpgmg-fv.c"]
    flags = ["-std=c99", "-DUSE_MPI=1", "-DUSE_BICGSTAB=1", "-DUSE_SUBCOMM=1", "-DUSE_FCYCLES=1"]
    flags += ["-DUSE_GSRB=1", "-DTEST_ERROR", "-O3"]
    return App(
        "hpgmg-fv",
        source,
        [str(source / n) for n in names],
        flags,
        ["-lm"],
        ["4", "8"],
        ["5", "8"],
        estimate_np2=True,
        two_ranks=True,
        full_label="8x the cells (32^3 boxes)",
    )


def minimd(ref: Path) -> App:
    """Mantevo/miniMD's reference version: Lennard-Jones molecular dynamics, its input file
    `in.lj.miniMD` (read from the directory it runs in) with command-line overrides. The rows
    use a 20^3-cell box (32000 atoms): 20 time steps (one reneighbouring) and 200."""
    names = ["ljs", "input", "integrate", "atom", "force_lj", "force_eam", "neighbor", "thermo"]
    names += ["comm", "timer", "output", "setup"]
    # Makefile.openmpi's CCFLAGS with its defaults (AVX, SIMD, double precision).
    flags = ["-O3", "-DMPICH_IGNORE_CXX_SEEK", "-fopenmp", "-DNOCHUNK", "-mavx", "-DUSE_SIMD"]
    flags += ["-DPRECISION=2"]
    return App(
        "miniMD",
        ref,
        [str(ref / f"{n}.cpp") for n in names],
        flags,
        ["-fopenmp"],
        ["-s", "20", "-n", "20"],
        ["-s", "20", "-n", "200"],
        estimate_np2=True,
        two_ranks=True,
        cxx=True,
        preprocess_first=True,
    )


def minivite(checkout: Path) -> App:
    """ECP-ExaGraph/miniVite: one distributed Louvain phase on the random geometric graph it
    generates (`-n` vertices), built with its Makefile's flags; one OpenMP thread (the
    benchmark sets OMP_NUM_THREADS=1). Rows: 20000 vertices, and 2x the vertices (the
    generator's pairwise triangle makes it about 3.6x the time); its np-2 model is estimated
    at np 2 (the cross-rank edges are data)."""
    return App(
        "miniVite",
        checkout,
        [str(checkout / "main.cpp")],
        ["-std=c++11", "-O3", "-fopenmp", "-DPRINT_DIST_STATS"],
        ["-fopenmp"],
        ["-n", "20000"],
        ["-n", "40000"],
        estimate_np2=True,
        two_ranks=True,
        cxx=True,
        full_label="2x the vertices",
    )


@dataclass
class Motif:
    """One Ember motif: a C file built with its Makefile's flags, and its rows (label, np,
    arguments); the first row is the estimation input."""

    app: App
    rows: list[tuple[str, int, list[str]]]


# The process grids the motifs' command lines give for np ranks (pex * pey * pez = np).
HALO_GRIDS = {1: "1 1 1", 2: "2 1 1", 4: "2 2 1", 8: "2 2 2"}
SWEEP_GRIDS = {1: "1 1", 2: "2 1", 4: "2 2", 8: "4 2"}


def ember_motifs(checkout: Path) -> list[Motif]:
    """The MPI motifs of sstsimulator/ember, as their Makefiles build them (``-O3 -std=c99``;
    glibc declares nanosleep under -std=c99 only with a POSIX level, which the Makefiles leave
    to the system, so ``-D_POSIX_C_SOURCE=200809L`` is added; lqcd's CMakeLists gives no flags).
    The OpenSHMEM motifs (shmem/) have no rows: the model builder does not model OpenSHMEM."""
    run_dir = Path(tempfile.mkdtemp(prefix="parjava-ember-"))
    flags = ["-O3", "-std=c99", "-D_POSIX_C_SOURCE=200809L"]

    def motif(name: str, path: str, rows: list[tuple[str, int, str]], own: list[str]) -> Motif:
        app = App(name, run_dir, [str(checkout / path)], own, [], [], [])
        return Motif(app, [(label, np, args.split()) for label, np, args in rows])

    def halo(name: str) -> Motif:
        size = "-nx 20 -ny 20 -nz 20 -iterations 2000"
        grid = {np: "-pex {} -pey {} -pez {}".format(*g.split()) for np, g in HALO_GRIDS.items()}
        rows = [
            ("estimation input", 1, f"{grid[1]} {size}"),
            ("2x2x1 ranks", 4, f"{grid[4]} {size}"),
        ]
        rows.append(("2x2x2 ranks", 8, f"{grid[8]} {size}"))
        return motif(name, f"mpi/{name}/{name}.c", rows, flags)

    sweep = {
        np: "-pex {} -pey {} -iterations 40".format(*g.split()) for np, g in SWEEP_GRIDS.items()
    }
    lattice = "-nx 8 -ny 8 -nz 8 -nt 8 -iterations 200"
    incast = "-iterations 2000 -msgsize 1024"
    return [
        halo("halo3d"),
        halo("halo3d-26"),
        motif(
            "sweep3d",
            "mpi/sweep3d/sweep3d.c",
            [
                ("estimation input", 1, sweep[1]),
                ("2x2 ranks", 4, sweep[4]),
                ("4x2 ranks", 8, sweep[8]),
            ],
            flags,
        ),
        motif(
            "lqcd",
            "mpi/lqcd/lqcd.c",
            [("estimation input", 1, lattice), ("2 ranks", 2, lattice), ("4 ranks", 4, lattice)],
            [],
        ),
        motif(
            "incast",
            "mpi/incast/incast.c",
            [("estimation input", 2, incast), ("3 senders", 4, incast), ("7 senders", 8, incast)],
            flags,
        ),
        motif(
            "pingpong",
            "mpi/pingpong/pingpong.c",
            [
                ("estimation input", 2, "1024 20000"),
                ("4 KiB messages", 2, "4096 20000"),
                ("2 idle ranks", 4, "1024 20000"),
            ],
            flags,
        ),
    ]


def predict(
    model: pj.SourceModel, machine: Any, np: int, params: dict, said: list[str]
) -> tuple[float, float, str]:
    """The model's time at np on the machine, and on this machine's cores shared when np
    exceeds them (``Machine.with_layout``: what the real run had, so rows compare with it);
    the first clause of each warning the prediction gives is appended to ``said``. A failure
    is returned as text (reported in the row, never hidden), with NaN times."""
    cpus = os.cpu_count() or 1
    predicted = shared = float("nan")
    try:
        prediction = pj.interpret(model, machine, np=np, params=params)
        predicted = float(prediction.times[0])
        said += [w.split(":")[0][:80] for w in prediction.warnings]
        if np > cpus:
            on_cores = machine.with_layout(nodes=1, cores_per_node=cpus, ranks_per_node=np)
            shared = float(pj.interpret(model, on_cores, np=np, params=params).times[0])
    except pj.Error as exc:
        return predicted, shared, f"{type(exc).__name__}: {str(exc)[:300]}"
    return predicted, shared, ""


def run_motif(motif: Motif, machine: Any, args: argparse.Namespace, work: Path) -> list[dict]:
    """The rows of one Ember motif: estimated at its first row's np and input, predicted at
    every row's (on a core per rank, and on this machine's cores shared when np exceeds them)."""
    app = motif.app
    _, est_np, est_argv = motif.rows[0]
    t0 = time.monotonic()
    model = estimate(app, est_argv, est_np, args.estimate_repeat)
    diagnosed = [str(d) for d in model.diagnostics if d.severity in ("warning", "error")]
    exe = build_real(app, work)
    cpus = os.cpu_count() or 1
    print(
        f"{app.name}: model and estimation (np {est_np}) in {time.monotonic() - t0:.1f} s, "
        f"{len(diagnosed)} warnings; self-check: {(model.self_check or {}).get('message', '-')}",
        flush=True,
    )
    rows: list[dict] = []
    for i, (label, np, argv) in enumerate(motif.rows):
        bar = 0.15 if i == 0 else 0.25
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            params = model.arguments([f"./{app.name}", *argv])
        said: list[str] = [str(w.message).split(":")[0][:80] for w in caught]
        predicted, shared, failure = predict(model, machine, np, params, said)
        real = measure(exe, app, argv, np, args.repeat)
        compared = shared if np > cpus else predicted
        rows.append(
            {
                "app": app.name,
                "row": label,
                "np": np,
                "input": " ".join(argv),
                "measured": real,
                "predicted": predicted,
                "predicted_shared_cores": shared,
                "error": (compared - real) / real,
                "bar": bar,
                "failure": failure,
                "prediction_warnings": said,
                "warnings": len(diagnosed),
            }
        )
        print(
            f"  {label:18} np {np}  measured {real:8.4f} s  predicted {predicted:8.4f} s"
            + (f"  on {cpus} shared cores {shared:8.4f} s" if np > cpus else "")
            + f"  {100 * (compared - real) / real:+7.1f} %  (bar {100 * bar:.0f} %)"
            + (f"  {failure}" if failure else "")
            + (f"\n  {'':18} warned: {'; '.join(dict.fromkeys(said))}" if said else ""),
            flush=True,
        )
    return rows


def minife(ref: Path) -> App:
    """Mantevo/miniFE's reference version: a CG solve of a finite-element brick, all of its
    solver in header templates. Its size is the input (no time steps): the second row doubles
    each dimension, which its data-built partition makes unpredictable (the row must warn)."""
    src, utils = ref / "src", ref / "utils"
    names = [src / "main.cpp", src / "YAML_Doc.cpp", src / "YAML_Element.cpp"]
    helpers = ("BoxPartition.cpp", "param_utils.cpp", "utils.cpp", "mytimer.cpp")
    names += [utils / n for n in helpers]
    flags = ["-O3", f"-I{src}", f"-I{utils}", f"-I{ref / 'fem'}", "-DMINIFE_SCALAR=double"]
    flags += ["-DMINIFE_LOCAL_ORDINAL=int", "-DMINIFE_GLOBAL_ORDINAL=int", "-DMINIFE_CSR_MATRIX"]
    flags += ["-DHAVE_MPI", "-DMPICH_IGNORE_CXX_SEEK", "-DMINIFE_INFO=1", "-DMINIFE_KERNELS=0"]
    # It writes a YAML report per run: run it outside the checkout.
    run_dir = Path(tempfile.mkdtemp(prefix="parjava-minife-"))
    return App(
        "miniFE",
        run_dir,
        [str(n) for n in names],
        flags,
        [],
        ["-nx", "30", "-ny", "30", "-nz", "30"],
        ["-nx", "60", "-ny", "60", "-nz", "60"],
        estimate_np2=True,
        two_ranks=True,
        cxx=True,
        full_label="8x the elements",
    )


def pennant(checkout: Path) -> App:
    """LANL's PENNANT: unstructured-mesh hydrodynamics, its input a keyword file. The rows use
    the checkout's Sedov problem on an 80x80 mesh, 20 and 200 cycles."""
    sedov = (checkout / "test" / "sedov" / "sedov.pnt").read_text()
    run_dir = Path(tempfile.mkdtemp(prefix="parjava-pennant-"))
    for name, cycles in (("small.pnt", 20), ("full.pnt", 200)):
        text = re.sub(r"^cstop\s+\d+", f"cstop {cycles}", sedov, flags=re.M)
        text = re.sub(r"^meshparams\s+\d+\s+\d+", "meshparams 80 80", text, flags=re.M)
        text = re.sub(r"^writexy\s+\d+", "writexy 0", text, flags=re.M)
        (run_dir / name).write_text(text)
    return App(
        "PENNANT",
        run_dir,
        sorted(str(p) for p in (checkout / "src").glob("*.cc")),
        ["-O3", "-DUSE_MPI"],
        [],
        ["small.pnt"],
        ["full.pnt"],
        estimate_np2=True,
        two_ranks=True,
        cxx=True,
        file_params={"small.pnt": {"cstop": 20}, "full.pnt": {"cstop": 200}},
    )


def flow(checkout: Path) -> App:
    """UoB-HPC/flow, a hydrodynamics mini-app of UoB-HPC's arch framework (its checkout inside
    one of UoB-HPC/arch, whose sources it builds with), as its Makefile builds it with
    `KERNELS=omp3 MPI=yes` and GCC (OpenMP kept, run on one thread). Its settings are keys of a
    parameter file (`nx 512`), read by `get_int_parameter("nx", file)`; the rows use its own
    file at 512^2 cells, 20 and 200 iterations, and it reads `../arch.params` from where it
    runs. It returns from main without MPI_Finalize."""
    return _arch_app(checkout, "flow", 512, 20, ["flow.tests"])  # flow.tests: its validation


def hot(checkout: Path) -> App:
    """UoB-HPC/hot, arch's heat diffusion mini-app: an unpreconditioned CG solve per time step
    whose iterations a convergence test ends (`if (fabs(global_new_r2) < EPS) break;`), built
    and run as `flow` is; its own parameter file at 256^2 cells, 10 and 100 iterations. The
    solves need fewer iterations as the run goes on (209 down to 109 in the first 10 steps):
    the 10x row keeps the first steps' mean, and its prediction says so."""
    return _arch_app(checkout, "hot", 256, 10, [])


def _arch_app(checkout: Path, name: str, cells: int, iterations: int, extra: list[str]) -> App:
    """An app of UoB-HPC's arch framework: `<name>.params` at `cells`^2, `iterations` steps
    (ten times that on the full input), run where `../arch.params` is."""
    arch = checkout.parent
    base = (checkout / f"{name}.params").read_text()
    run_root = Path(tempfile.mkdtemp(prefix=f"parjava-{name}-"))
    shutil.copy(arch / "arch.params", run_root / "arch.params")
    run_dir = run_root / "run"
    run_dir.mkdir()
    for file in extra:
        shutil.copy(checkout / file, run_dir / file)
    steps = {"small.params": iterations, "full.params": 10 * iterations}
    for file, count in steps.items():
        text = re.sub(r"^nx\s+\d+", f"nx {cells}", base, flags=re.M)
        text = re.sub(r"^ny\s+\d+", f"ny {cells}", text, flags=re.M)
        text = re.sub(r"^iterations\s+\d+", f"iterations {count}", text, flags=re.M)
        (run_dir / file).write_text(text)
    sources = [str(checkout / "main.c"), str(checkout / f"{name}_data.c")]
    sources += sorted(str(p) for p in (checkout / "omp3").glob("*.c"))
    sources += sorted(str(p) for p in (arch / "omp3").glob("*.c"))
    sources += sorted(str(p) for p in arch.glob("*.c") if p.name != "main.c")
    return App(
        name,
        run_dir,
        sources,
        ["-O3", "-fopenmp", "-std=gnu99", "-DMPI", "-DTILES"],
        ["-fopenmp", "-lm"],
        ["small.params"],
        ["full.params"],
        estimate_np2=True,  # the halos' pack loops run only where a neighbour is
        two_ranks=True,
        file_params={k: {"iterations": v} for k, v in steps.items()},
    )


def cloverleaf(checkout: Path) -> App:
    """UoB-HPC/CloverLeaf's serial model with MPI (`cmake -DMODEL=serial -DENABLE_MPI=ON`, a
    Release build: `-O3 -DUSE_SERIAL`), on its benchmark deck shortened: 240^2 cells, 40 steps
    (`clover_bm_short.in` without its test-problem check). Its settings are keywords of the
    deck (`x_cells=240`), set with `--file`; the full row has 4x the cells. Its kernels loop
    over per-tile bounds kept in a vector of structs (data), so the np-2 model is estimated at
    np 2."""
    deck = (checkout / "InputDecks" / "clover_bm_short.in").read_text()
    deck = re.sub(r"^\s*test_problem.*$", "", deck, flags=re.M)
    run_dir = Path(tempfile.mkdtemp(prefix="parjava-cloverleaf-"))
    for name, cells in (("small.in", 240), ("full.in", 480)):
        text = re.sub(r"x_cells=\d+", f"x_cells={cells}", deck)
        text = re.sub(r"y_cells=\d+", f"y_cells={cells}", text)
        (run_dir / name).write_text(re.sub(r"end_step=\d+", "end_step=40", text))
    sources = sorted(str(p) for p in (checkout / "driver").glob("*.cpp"))
    sources += sorted(str(p) for p in (checkout / "src" / "serial").glob("*.cpp"))
    include = ["-I", str(checkout / "driver"), "-I", str(checkout / "src" / "serial")]
    cells = {"small.in": 240, "full.in": 480}
    return App(
        "CloverLeaf",
        run_dir,
        sources,
        ["-std=c++17", "-O3", "-DNDEBUG", "-DUSE_SERIAL", *include],
        [],
        ["--file", "small.in"],
        ["--file", "full.in"],
        estimate_np2=True,
        two_ranks=True,
        cxx=True,
        full_label="4x the cells (480^2)",
        file_params={k: {"x_cells": v, "y_cells": v} for k, v in cells.items()},
    )


def hpccg(checkout: Path) -> App:
    """Mantevo/HPCCG: 150 conjugate-gradient iterations on a 27-point brick of nx*ny*nz rows
    per rank (weak scaling: np 2 doubles the problem), built as its Makefile builds it with MPI
    (`-O3 -ftree-vectorize -DUSING_MPI`). Its neighbours come from the matrix's column
    indices (data), so the np-2 model is estimated at np 2. It writes a YAML report per run:
    run it outside the checkout."""
    run_dir = Path(tempfile.mkdtemp(prefix="parjava-hpccg-"))
    return App(
        "HPCCG",
        run_dir,
        sorted(str(p) for p in checkout.glob("*.cpp")),
        ["-O3", "-ftree-vectorize", "-DUSING_MPI"],
        [],
        ["20", "20", "20"],
        ["40", "40", "40"],
        estimate_np2=True,
        two_ranks=True,
        cxx=True,
        full_label="8x the rows (40^3)",
    )


def hpcg(checkout: Path) -> App:
    """hpcg-benchmark/hpcg 3.1: a multigrid-preconditioned CG on a 27-point brick of nx^3 rows
    per rank (weak scaling), built as setup/Make.Linux_MPI builds it without OpenMP
    (`-O3 -DHPCG_NO_OPENMP`). `--rt=0` is its quick path: one set of 50 iterations, whatever
    the machine's speed (a run time instead sets the number of sets from measured times). Its
    levels are objects of one type (`*A.Ac`), whose fields the model keeps once per type, and
    its neighbours come from the matrix's columns, so the np-2 model is estimated at np 2. It
    writes two report files per run: run it outside the checkout."""
    run_dir = Path(tempfile.mkdtemp(prefix="parjava-hpcg-"))
    src = checkout / "src"
    return App(
        "HPCG",
        run_dir,
        sorted(str(p) for p in src.glob("*.cpp")),
        ["-O3", "-DHPCG_NO_OPENMP", "-I", str(src)],
        [],
        ["--nx=32", "--ny=32", "--nz=32", "--rt=0"],
        ["--nx=64", "--ny=64", "--nz=64", "--rt=0"],
        estimate_np2=True,
        two_ranks=True,
        cxx=True,
        full_label="8x the rows (64^3)",
    )


def cosp2(source: Path) -> App:
    """exmatex/CoSP2 (src-mpi): the SP2 density-matrix iteration on a generated banded sparse
    Hamiltonian of N rows (M non-zeroes per row), built as Makefile.vanilla builds it with MPI
    (`-std=c99 -fopenmp -DPOS1 -DCONTIG_MATRIX -DDOUBLE -DDO_MPI -O5`, here -O3), one OpenMP
    thread (the benchmark sets OMP_NUM_THREADS=1). The SP2 loop stops on convergence (25
    iterations from N = 4096 up, 45 at 1024): data the estimation measures. Rows: N = 4096,
    twice the rows; np 2 splits the rows (estimated at np 2: its halo peers are data)."""
    return App(
        "CoSP2",
        source,
        sorted(str(p) for p in source.glob("*.c")),
        ["-std=c99", "-fopenmp", "-DPOS1", "-DCONTIG_MATRIX", "-DDOUBLE", "-DDO_MPI", "-O3"],
        ["-lm", "-fopenmp"],
        ["--N", "4096", "--M", "64"],
        ["--N", "8192", "--M", "64"],
        estimate_np2=True,
        two_ranks=True,
        full_label="2x the rows (N 8192)",
    )


def xsbench(source: Path) -> App:
    """ANL-CESAR/XSBench (openmp-threading/): Monte Carlo cross-section lookups, built as its
    Makefile builds it with `MPI=yes CC=mpicc` (`-std=gnu99 -O3 -DMPI`, no OpenMP: the Makefile
    adds -fopenmp only for gcc or clang by name). Event-based lookups on the small problem
    (`-s small -m event`); every rank does all of them (the MPI version runs independent
    copies). It returns 1 from main when it does not know the checksum of an input, which is
    every input here. Rows: 200,000 lookups, ten times as many, and np 2."""
    run_dir = Path(tempfile.mkdtemp(prefix="parjava-xsbench-"))
    names = ["Main.c", "io.c", "Simulation.c", "GridInit.c", "XSutils.c", "Materials.c"]
    common = ["-t", "1", "-s", "small", "-m", "event", "-l"]
    return App(
        "XSBench",
        run_dir,
        [str(source / n) for n in names],
        ["-std=gnu99", "-O3", "-DMPI", f"-I{source}"],
        ["-lm"],
        [*common, "200000"],
        [*common, "2000000"],
        two_ranks=True,
        full_label="10x the lookups",
    )


MINISWEEP = ["--ncell_x", "16", "--ncell_y", "16", "--ncell_z", "16", "--ne", "8", "--na", "16"]


def minisweep(source: Path) -> App:
    """wdj/minisweep (src/): a KBA wavefront sweep of discrete ordinates, decomposed in x and y,
    built as its CMake build builds `sweep` with MPI (`-DUSE_MPI -DNM_VALUE=4 -ansi -Dinline=
    -O3`; tester.c is the other program of the build). Which faces go to which neighbour at
    each step comes from StepInfo structs returned by value; the np-2 model is estimated at
    np 2 (`--nproc_x 2`: the program requires nproc_x * nproc_y processes). Rows: 2 iterations
    of a 16^3 grid, 16 angles and 8 groups; ten times the iterations."""
    dirs = [source / d for d in ("1_base", "2_sweeper_base", "3_sweeper", "4_driver")]
    return App(
        "minisweep",
        source / "4_driver",
        sorted(str(p) for d in dirs for p in d.glob("*.c") if p.name != "tester.c"),
        [*(f"-I{d}" for d in dirs), "-DNM_VALUE=4", "-DUSE_MPI", "-ansi", "-Dinline=", "-O3"],
        ["-lm"],
        [*MINISWEEP, "--niterations", "2"],
        [*MINISWEEP, "--niterations", "20"],
        np2=["--nproc_x", "2"],
        estimate_np2=True,
        full_label="10x the iterations",
    )


def mpirun(np: int) -> list[str]:
    """Return the mpirun prefix for np processes (root and oversubscription allowed)."""
    return [shutil.which("mpirun") or "mpirun", "--oversubscribe", "-np", str(np)]


def build_real(app: App, work: Path, defines: dict[str, int] | None = None) -> Path:
    """Compile the app with its own flags and the MPI_Init..MPI_Finalize timer; `defines`
    replace the values of those -D flags."""
    compiler = "mpicxx" if app.cxx else "mpicc"
    objects = []
    given = dict(defines or {})
    tag = "".join(f"-{k}{v}" for k, v in given.items())
    app_flags = [
        f"-D{f[2:].split('=')[0]}={given[f[2:].split('=')[0]]}"
        if f.startswith("-D") and f[2:].split("=")[0] in given
        else f
        for f in app.flags
    ]
    for i, src in enumerate([*app.sources, str(HERE / "mpi_span.c")]):
        obj = work / f"{app.name}{tag}-{i}.o"
        cc = "mpicc" if src.endswith(".c") else compiler
        flags = [f for f in app_flags if f != "-std=c99" or cc == "mpicc"]
        if app.preprocess_first and src != str(HERE / "mpi_span.c"):
            expanded = work / f"{app.name}-{i}.2{Path(src).suffix}"
            with expanded.open("w") as out:
                subprocess.run([cc, *flags, "-E", src], cwd=app.directory, check=True, stdout=out)
            src = str(expanded)
        subprocess.run([cc, *flags, "-c", src, "-o", str(obj)], cwd=app.directory, check=True)
        objects.append(str(obj))
    exe = work / f"{app.name}{tag}"
    subprocess.run([compiler, *objects, "-o", str(exe), *app.libraries], check=True)
    return exe


def measure(exe: Path, app: App, args: list[str], np: int, repeat: int) -> float:
    """Mean over `repeat` runs of the slowest rank's MPI_Init..MPI_Finalize time."""
    times = []
    for _ in range(repeat):
        proc = subprocess.run(
            [*mpirun(np), str(exe), *args],
            cwd=app.directory,
            capture_output=True,
            text=True,
            check=False,  # XSBench returns 1 after MPI_Finalize: every rank's span decides
        )
        spans = [
            float(s) for s in re.findall(r"^parjava-span \d+ ([0-9.eE+-]+)$", proc.stderr, re.M)
        ]
        if len(spans) != np:
            raise RuntimeError(
                f"{app.name}: {len(spans)} span lines for {np} ranks (exit {proc.returncode})\n"
                f"{proc.stderr}"
            )
        times.append(max(spans))
    return statistics.fmean(times)


def estimate(app: App, argv: list[str], np: int, repeat: int) -> pj.SourceModel:
    """Build the model from the unmodified sources and estimate it on `argv` at `np`."""
    model = pj.build_model(app.sources, app.flags, argv=[f"./{app.name}", *argv])
    cwd = os.getcwd()
    os.chdir(app.directory)  # the app reads its inputs (potentials, ...) from there
    try:
        model.estimate(
            run=[f"./{app.name}", *argv],
            np=np,
            repeat=repeat,
            link_args=app.libraries,
        )
    finally:
        os.chdir(cwd)
    return model


def machine_for(args: argparse.Namespace) -> object:
    """The machine description: a JSON file, a preset, or measured now by netbench."""
    if args.machine:
        return pj.Machine.load(args.machine)
    if args.preset:
        return pj.Machine.preset(args.preset)
    return pj.Machine.measure(np=2)


def file_settings(app: App, argv: list[str], model: pj.SourceModel) -> dict[str, float]:
    """The settings of the input files on `argv` that the model has as parameters."""
    known = json.loads(model.to_json()).get("parameters", {})
    out: dict[str, float] = {}
    for a in argv:
        out.update({k: v for k, v in app.file_params.get(a, {}).items() if k in known})
    return out


def run_app(app: App, machine: object, args: argparse.Namespace, work: Path) -> list[dict]:
    """The rows of one app."""
    rows: list[dict] = []
    t0 = time.monotonic()
    if app.generated and not (app.directory / app.generated[0]).exists():
        # What `make` does first; a new user builds the app before modelling it.
        subprocess.run(app.generated[1], cwd=app.directory, check=True)
    model = estimate(app, app.small, 1, args.estimate_repeat)
    diagnosed = [str(d) for d in model.diagnostics if d.severity in ("warning", "error")]
    cpus = os.cpu_count() or 1
    exe = build_real(app, work)
    full_exe = build_real(app, work, app.full_defines) if app.full_defines else exe

    def row(
        label: str,
        np: int,
        argv: list[str],
        mdl: pj.SourceModel,
        bar: float | None,
        defines: dict[str, int] | None = None,
    ) -> None:
        # What the command line itself draws a warning for (an argument no parameter reads).
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            params = mdl.arguments([f"./{app.name}", *argv])
        params.update(file_settings(app, argv, mdl))
        params.update(defines or {})
        said: list[str] = [str(w.message).split(":")[0][:80] for w in caught]
        predicted, shared, failure = predict(mdl, machine, np, params, said)
        real = measure(full_exe if defines else exe, app, argv, np, args.repeat)
        err = ((shared if np > cpus else predicted) - real) / real
        rows.append(
            {
                "app": app.name,
                "row": label,
                "np": np,
                "input": " ".join(argv),
                "measured": real,
                "predicted": predicted,
                "predicted_shared_cores": shared,
                "error": err,
                "bar": bar,
                "failure": failure,
                "prediction_warnings": said,
            }
        )
        print(
            f"  {label:28} np {np}  measured {real:9.4f} s  predicted {predicted:9.4f} s  "
            + (f"on {cpus} shared cores {shared:9.4f} s  " if np > cpus else "")
            + f"{100 * err:+7.1f} %"
            + (f"  (bar {100 * bar:.0f} %)" if bar else "")
            + (f"  {failure}" if failure else "")
            + (f"\n  {'':28} warned: {'; '.join(said)}" if said else ""),
            flush=True,
        )

    print(
        f"{app.name}: model and estimation in {time.monotonic() - t0:.1f} s, "
        f"{len(diagnosed)} warnings",
        flush=True,
    )
    row("estimation input", 1, app.small, model, 0.15)
    row(app.full_label, 1, app.full, model, 0.20, app.full_defines)
    if app.np2 or app.two_ranks:
        np2_model = model
        if app.estimate_np2:
            np2_model = estimate(app, [*app.small, *app.np2], 2, args.estimate_repeat)
            row("estimation input", 2, [*app.small, *app.np2], np2_model, 0.15)
        row("full input", 2, [*app.full, *app.np2], np2_model, 0.25, app.full_defines)
    if app.cube:
        row("np 8 (2x2x2)", 8, app.cube, model, None)
    for r in rows:
        r["warnings"] = len(diagnosed)
    return rows


def main() -> int:
    """Print the table of every app given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+", type=Path, help="checkouts of the mini-apps")
    parser.add_argument("--machine", help="machine JSON (default: measure with netbench)")
    parser.add_argument("--preset", help="use a machine preset instead of netbench")
    parser.add_argument("--repeat", type=int, default=5, help="real runs per row (mean)")
    parser.add_argument("--estimate-repeat", type=int, default=3, help="pooled estimation runs")
    parser.add_argument("--record", help="write every row as JSON to this file")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        help="only this Ember motif or ParRes kernel (repeatable)",
    )
    args = parser.parse_args()
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    # OpenMP apps (miniMD, miniVite) run one thread, as the rows' models are estimated.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    apps = [recognise(c.resolve()) for c in args.checkouts]
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    machine = machine_for(args)
    work = Path(tempfile.mkdtemp(prefix="parjava-real-apps-"))
    rows: list[dict] = []
    try:
        for app in apps:
            if isinstance(app, list):
                for item in app:
                    if isinstance(item, App):
                        if not args.only or item.name in args.only:
                            rows += run_app(item, machine, args, work)
                    elif not args.only or item.app.name in args.only:
                        rows += run_motif(item, machine, args, work)
            else:
                rows += run_app(app, machine, args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    failed = [r for r in rows if r["failure"] or (r["bar"] and abs(r["error"]) > r["bar"])]
    print(f"\n{len(rows) - len(failed)} of {len(rows)} rows within their bars")
    # Never silently wrong: a row outside its bar must have said something about itself.
    silent = [r for r in failed if not r["failure"] and not r["prediction_warnings"]]
    names = ", ".join(f"{r['app']} {r['row']} np {r['np']}" for r in silent)
    print(
        f"{len(failed) - len(silent)} of {len(failed)} rows outside their bars warned"
        + (f"; silent: {names}" if silent else "")
    )
    if args.record:
        Path(args.record).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
