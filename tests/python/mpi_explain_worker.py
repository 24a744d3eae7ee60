"""Run under mpirun by test_parallel_explain.py: for each archive given on the command line,
the POP metrics (parjava.parallel.pop, with the per-interval and per-region tables, for the
main window, the whole trace and a window in seconds), the critical path
(parjava.parallel.critical_path) and the delay costs (parjava.parallel.root_causes) of one
part, and the POP scaling table of all archives with
MPI processes; rank 0 pickles what the serial analyses are compared with to OUT/<k>.pickle and
OUT/scaling.pickle (an error's message where the analysis fails, as on a trace without MPI
processes)."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path
from typing import Any

from mpi4py import MPI

from explain_records import critical_path_record, pop_record, root_causes_record
from parjava import parallel
from parjava.errors import Error

out = Path(sys.argv[1])
comm = MPI.COMM_WORLD
with_processes = []
for k, archive in enumerate(sys.argv[2:]):
    part = parallel.open_part(archive, comm)
    record: dict[str, Any] = {}
    for name, window in (("main", "main"), ("all", "all"), ("seconds", (0.0, 1.3))):
        try:
            metrics = parallel.pop(part, comm, window=window, tables=name == "main")
            record[f"pop.{name}"] = pop_record(metrics, tables=name == "main")
        except Error as exc:
            record[f"pop.{name}"] = {"error": str(exc)}
    try:
        record["critical_path"] = critical_path_record(parallel.critical_path(part, comm))
        with_processes.append(archive)
    except Error as exc:
        record["critical_path"] = {"error": str(exc)}
    try:
        record["root_causes"] = root_causes_record(parallel.root_causes(part, comm))
    except Error as exc:
        record["root_causes"] = {"error": str(exc)}
    if comm.rank == 0:
        (out / f"{k}.pickle").write_bytes(pickle.dumps(record))
scaling = parallel.pop(with_processes, comm, transfer=False)
if comm.rank == 0:
    (out / "scaling.pickle").write_bytes(pickle.dumps(scaling.to_dict()))
