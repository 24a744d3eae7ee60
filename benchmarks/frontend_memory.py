"""Memory of a reduced model (issue 7): a program with a 1 GiB array per process.

examples/model/big_array.c sweeps n doubles (n = 134217728 is 1 GiB per process). The model
builder removes the array (it decides no control flow), the estimation run at a small n
measures the sweep per element, and the reduced model predicts the 1 GiB run. This script
builds and estimates the model, then loads and interprets it at n = 2^27 for np = 1, 2, 4, 8 in
a fresh process and prints that process's peak memory (the bar: under 50 MB), next to what the
real program would need.

    PYTHONPATH=python PARJAVA_BUILD_DIR=build/dev/package python3 benchmarks/frontend_memory.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import parjava as pj

ROOT = Path(__file__).resolve().parents[1]
N_LARGE = 134217728  # doubles: 1 GiB

CHILD = textwrap.dedent(
    """
    import json, resource, sys, time
    def rss_mb():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    base = rss_mb()
    import parjava as pj
    imported = rss_mb()
    t0 = time.monotonic()
    model = pj.Model.load(sys.argv[1])
    machine = pj.Machine.preset("shared-memory")
    pred = pj.interpret(model, machine, np=[1, 2, 4, 8],
                        params={"argc": 3, "argv1": int(sys.argv[2]), "argv2": 4})
    seconds = time.monotonic() - t0
    print(json.dumps({"python_mb": base, "after_import_mb": imported, "peak_mb": rss_mb(),
                      "seconds": seconds, "times": [float(t) for t in pred.times]}))
    """
)


def main() -> int:
    """Build, estimate, then measure the interpreting process."""
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        model = pj.build_model(ROOT / "examples" / "model" / "big_array.c", ["-O2"])
        model.estimate(run=["./big_array", str(1 << 20), "4"], np=1)
        path = Path(tmp) / "big_array.json"
        model.save(path)
        build = time.monotonic() - t0
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(path), str(N_LARGE)],
            capture_output=True,
            text=True,
            check=True,
        )
        child = json.loads(proc.stdout)
        size = path.stat().st_size
    print(f"model: {len(model)} nodes, {size} bytes of JSON (built and estimated in {build:.1f} s)")
    print(f"real program at n = {N_LARGE}: {8 * N_LARGE / 2**20:.0f} MiB of data per process")
    print(
        f"interpreting it at np = 1, 2, 4, 8: peak {child['peak_mb']:.1f} MB for the whole "
        f"process (Python {child['python_mb']:.1f} MB, after `import parjava` "
        f"{child['after_import_mb']:.1f} MB), {child['seconds']:.2f} s"
    )
    print("predicted times: " + ", ".join(f"{t:.3f} s" for t in child["times"]))
    ok = child["peak_mb"] < 50.0
    print(f"bar (< 50 MB): {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
