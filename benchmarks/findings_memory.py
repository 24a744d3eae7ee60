"""Memory of scan findings (issue 18, item 1): bytes per finding and the scan's peak.

Opens an OTF2 trace (by default the 10-million-event archive of trace_benchmark.py, generated
with build/dev/benchmarks/trace_generate if missing), scans it, and prints

- the trace's own memory (Trace.memory_bytes) and the process's resident set around each step,
- Findings.memory_bytes per finding right after the scan, after count()/total(), report() and
  Findings.array (target: at most 100 bytes; the findings keep only their C++ rows),
- the DataFrame of to_pandas() (categorical text columns) and the size of Findings.array (made
  on demand, text columns as references to shared strings),
- the peak resident set of the scan relative to the trace's memory (target: at most 1.2x).

    python3 benchmarks/findings_memory.py [--trace ARCHIVE] [--record FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def resident() -> tuple[float, float]:
    """(VmRSS, VmHWM) of this process in bytes."""
    rss = hwm = 0.0
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) * 1024.0
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) * 1024.0
    return rss, hwm


def reset_peak() -> None:
    """Start VmHWM afresh at the current resident set, so each step's peak is its own."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:  # pragma: no cover - not Linux, or not allowed: peaks accumulate
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path, default=None)
    parser.add_argument("--build", type=Path, default=REPO / "build" / "dev")
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--record", type=Path, help="also write the figures as JSON")
    args = parser.parse_args()
    trace_path = args.trace
    if trace_path is None:
        directory = Path("/tmp/parjava-trace-benchmark")
        trace_path = directory / "traces.otf2"
        if not trace_path.exists():
            subprocess.run(
                [
                    str(args.build / "benchmarks" / "trace_generate"),
                    "-o",
                    str(directory),
                    "--ranks",
                    "64",
                    "--events",
                    str(args.events),
                ],
                check=True,
            )
    sys.path.insert(0, str(REPO / "python"))
    os.environ.setdefault("PARJAVA_BUILD_DIR", str(args.build / "package"))
    import parjava as pj

    pj.patterns()  # load the extension and NumPy before the baseline
    import pandas  # noqa: F401 -- its ~40 MB of code are not the findings' memory

    base_rss, _ = resident()
    trace = pj.Trace.open(str(trace_path))
    trace_bytes = trace.memory_bytes
    after_open, peak_open = resident()
    reset_peak()  # the scan's own peak, not the one of reading the trace
    start = time.perf_counter()
    findings = pj.scan(trace)
    seconds = time.perf_counter() - start
    after_scan, peak = resident()
    n = len(findings)
    scanned = findings.memory_bytes
    counts = findings.count(), findings.total()
    aggregated = findings.memory_bytes
    reset_peak()
    frame = findings.to_pandas()
    frame_bytes = int(frame.memory_usage(deep=True).sum())
    _, peak_frame = resident()
    del frame
    reset_peak()
    report = findings.report()
    _, peak_report = resident()
    after_report = findings.memory_bytes
    reset_peak()
    array = findings.array  # made on demand, not kept by the findings
    array_bytes = int(array.nbytes)
    _, peak_array = resident()
    del array
    with_array = findings.memory_bytes
    figures = {
        "trace": str(trace_path),
        "events": len(trace),
        "findings": n,
        "scan_seconds": seconds,
        "trace_memory_bytes": trace_bytes,
        "bytes_per_finding_after_scan": scanned / n,
        "bytes_per_finding_after_count_total": aggregated / n,
        "bytes_per_finding_after_report": after_report / n,
        "bytes_per_finding_after_array": with_array / n,
        "array_bytes_per_finding": array_bytes / n,
        "report_characters": len(report),
        "peak_over_trace_memory_report": (peak_report - base_rss) / trace_bytes,
        "to_pandas_bytes_per_finding": frame_bytes / n,
        "peak_over_trace_memory_to_pandas": (peak_frame - base_rss) / trace_bytes,
        "rss_growth_open": after_open - base_rss,
        "peak_over_trace_memory_open": (peak_open - base_rss) / trace_bytes,
        "rss_growth_scan": after_scan - after_open,
        "peak_over_trace_memory_scan": (peak - base_rss) / trace_bytes,
        "peak_over_trace_memory_with_array": (peak_array - base_rss) / trace_bytes,
        "total_seconds_lost": counts[1],
        "load_average": os.getloadavg(),
    }
    print(f"trace {trace_path}: {len(trace)} events, memory_bytes {trace_bytes / 1e6:.1f} MB")
    print(f"open: peak {(peak_open - base_rss) / trace_bytes:.2f}x the trace's memory")
    print(f"scan: {n} findings in {seconds:.2f} s; RSS +{(after_scan - after_open) / 1e6:.1f} MB")
    print(
        f"bytes per finding: {scanned / n:.1f} after the scan, {aggregated / n:.1f} after "
        f"count()/total(), {after_report / n:.1f} after report(), {with_array / n:.1f} after "
        f"Findings.array (target <= 100)"
    )
    print(f"to_pandas(): {frame_bytes / n:.1f} bytes per finding (deep), categorical text")
    print(f"Findings.array (made on demand, not kept): {array_bytes / n:.1f} bytes per finding")
    print(
        f"peak RSS over the trace's memory: {(peak - base_rss) / trace_bytes:.2f}x after the "
        f"scan, {(peak_frame - base_rss) / trace_bytes:.2f}x after to_pandas(), "
        f"{(peak_report - base_rss) / trace_bytes:.2f}x after report(), "
        f"{(peak_array - base_rss) / trace_bytes:.2f}x after Findings.array (target <= 1.2)"
    )
    if args.record:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        args.record.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
