"""Run under mpirun by test_parallel_scan.py: scan each archive given on the command line in
parallel (parjava.parallel.scan) and, on rank 0, write what the serial scan is compared with:
OUT/<k>.npy (the raw rows), OUT/<k>.csv, OUT/<k>.json, OUT/<k>.txt (the text report),
OUT/<k>.part.json (per-rank events read and received)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from mpi4py import MPI

from parjava import parallel

out = Path(sys.argv[1])
comm = MPI.COMM_WORLD
for k, archive in enumerate(sys.argv[2:]):
    part = parallel.open_part(archive, comm)
    shares = comm.gather((part.owned_events, part.received_events), root=0)
    findings = parallel.scan(part, comm, eps=1e-7)
    if comm.rank == 0:
        np.save(out / f"{k}.npy", findings.raw)
        (out / f"{k}.csv").write_text(findings.to_csv())
        (out / f"{k}.json").write_text(findings.to_json())
        (out / f"{k}.txt").write_text(findings.report(top=20))
        (out / f"{k}.part.json").write_text(json.dumps(shares))
