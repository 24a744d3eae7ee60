"""Run under mpirun by test_parallel_scan.py: scan each archive given on the command line in
parallel (parjava.parallel.scan) and, on rank 0, write what the serial scan is compared with:
OUT/<k>.npy (the raw rows), OUT/<k>.csv, OUT/<k>.json, OUT/<k>.txt (the text report),
OUT/<k>.part.json (per-rank events read and received, and received without the
collective reduction), OUT/<k>.pgas.npy (the rows with
pgas_mpi_collectives, from a part opened with the collectives' calls, gathered in chunks of 7
rows), OUT/<k>.merged.csv (parallel.scan_csv, chunks of 7 rows), OUT/<k>.merged.json (the
count it returned) and OUT/<k>.report.{json,text,html} (parallel.scan_write, chunks of 64 rows,
top 10, 20 and 5); then the interval
analysis of the first part (parjava.parallel.intervals) under each option set of
INTERVAL_VARIANTS, written as OUT/<k>.intervals.<v>.json (every interval characteristic,
executions, the text report)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from mpi4py import MPI

from interval_records import INTERVAL_VARIANTS, interval_record
from parjava import parallel
from parjava.errors import Error

out = Path(sys.argv[1])
comm = MPI.COMM_WORLD
for k, archive in enumerate(sys.argv[2:]):
    part = parallel.open_part(archive, comm)
    # What the replay would receive with every collective member shipped: the reduction's gain.
    whole = parallel.open_part(archive, comm, reduce_collectives=False).received_events
    shares = comm.gather((part.owned_events, part.received_events, whole), root=0)
    findings = parallel.scan(part, comm, eps=1e-7)
    if comm.rank == 0:
        np.save(out / f"{k}.npy", findings.raw)
        (out / f"{k}.csv").write_text(findings.to_csv())
        (out / f"{k}.json").write_text(findings.to_json())
        (out / f"{k}.txt").write_text(findings.report(top=20))
        (out / f"{k}.part.json").write_text(json.dumps(shares))
    # The PGAS patterns on MPI collectives read the members' calls: a part of its own. Its
    # rows reach rank 0 in chunks of 7, so the merge of the ranks' chunks is exercised.
    parallel._GATHER_CHUNK, default = 7, parallel._GATHER_CHUNK
    pgas = parallel.scan(archive, comm, eps=1e-7, pgas_mpi_collectives=True)
    # The CSV written by rank 0 as the chunks are merged, without holding the findings.
    written = parallel.scan_csv(part, out / f"{k}.merged.csv", comm, eps=1e-7)
    # The other reports likewise: JSON rows per merged block, text and HTML from a summary
    # (chunks of 64 rows: still several blocks per archive, at less cost per block).
    parallel._GATHER_CHUNK = 64
    for fmt, top in (("json", 10), ("text", 20), ("html", 5)):
        parallel.scan_write(part, out / f"{k}.report.{fmt}", fmt, comm, top=top, eps=1e-7)
    parallel._GATHER_CHUNK = default
    if comm.rank == 0:
        np.save(out / f"{k}.pgas.npy", pgas.raw)
        (out / f"{k}.merged.json").write_text(json.dumps(written))
    for v, options in enumerate(INTERVAL_VARIANTS):
        try:
            record = interval_record(parallel.intervals(part, comm, **options))
        except Error as exc:  # on rank 0 only: a trace without processes
            record = {"error": str(exc)}
        if comm.rank == 0:
            (out / f"{k}.intervals.{v}.json").write_text(json.dumps(record))
