"""`pip install .` into a fresh venv, then use the installed parjava as an analyst would.

    python3 benchmarks/workflow_pip_install.py [--venv /tmp/pjvenv] [--editable] [--keep]

Creates the venv from scratch, installs the source tree (build isolation on: the build
requirements come from PyPI as for any user), and then, from a directory outside the source
tree so nothing is imported from it: `parjava --help` (the console script), `python -m parjava
--help`, `import parjava` with `_core`, the bundled tools, a prediction with a scaling fit, a
scan of a real OTF2 trace, and `parjava report`. Prints the time of each step and the size of
the installed package. Not run by `make test` (it rebuilds the whole project): the cheap layout
check is tests/python/test_workflow_packaging.py.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRACE = ROOT / "tests" / "data" / "otf2" / "pipit-ping-pong" / "traces.otf2"

CHECK = f"""
import pathlib, sys
import parjava as pj
from parjava import _core, _paths, tracing
sources = pathlib.Path(pj.__file__).parent  # the source tree for pip install -e
package = pathlib.Path(_core.__file__).parent  # the compiled parts: always site-packages
assert "site-packages" in str(package), package
print("parjava", pj.__version__, "from", sources)
print("  _core", pathlib.Path(_core.__file__).name)
for name, kind in (("netbench", "bin"), ("parjava-trace-assemble", "bin")):
    print("  tool", name, _paths.tool_path(name, kind).relative_to(package))
print("  tracer", tracing.tracer_library().relative_to(package))
print("  include", (tracing.include_dir() / "parjava" / "interval.h").relative_to(package))
assert (sources / "py.typed").exists() and (sources / "_core.pyi").exists()
model = pj.Model("ring", params={{"N": 4096}}, file="ring.c")
with model.loop("i", 0, 20, line=3):
    model.compute("1e-6 * N / size", line=4)
    model.sendrecv(dest="(rank + 1) % size", sendbytes=8, source="(rank - 1 + size) % size",
                   line=5)
pred = pj.interpret(model, pj.Machine.preset("infiniband-edr"), np=[1, 2, 4, 8, 16, 32])
fit = pred.fit("amdahl")
print("  predict np 1..32: speedup %.3g, Amdahl limit %.4g" % (pred.speedup()[-1], fit.limit))
findings = pj.scan(pj.Trace.open({str(TRACE)!r}))
print("  scan ping-pong:", len(findings), "occurrences")
"""


def step(
    title: str, command: list[str], cwd: Path, env: dict[str, str] | None = None, show: bool = True
) -> float:
    """Run `command`, fail loudly with its output, return the seconds it took."""
    start = time.monotonic()
    proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
        raise SystemExit(f"FAILED: {title} (exit {proc.returncode}): {' '.join(command)}")
    print(f"{seconds:8.1f} s  {title}")
    for line in proc.stdout.splitlines() if show else []:
        if line.startswith(("parjava ", "  ")) and len(line) < 160:
            print(f"            {line}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", type=Path, default=Path("/tmp/pjvenv"))
    parser.add_argument("--editable", action="store_true", help="pip install -e . instead")
    parser.add_argument("--keep", action="store_true", help="reuse an existing venv")
    args = parser.parse_args()

    venv = args.venv
    if venv.exists() and not args.keep:
        shutil.rmtree(venv)
    python = venv / "bin" / "python"
    outside = Path(tempfile.mkdtemp(prefix="pj-outside-"))
    # Nothing from the development setup may leak into the installed package's checks.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PARJAVA_BUILD_DIR")}
    env["PATH"] = f"{venv / 'bin'}:{env.get('PATH', '')}"

    times: dict[str, float] = {}
    if not python.exists():
        times["venv"] = step("python3 -m venv", [sys.executable, "-m", "venv", str(venv)], ROOT)
    install = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    install += ["-e", "."] if args.editable else ["."]
    times["install"] = step(f"pip install {'-e ' if args.editable else ''}.", install, ROOT, env)
    times["help"] = step(
        "parjava --help", [str(venv / "bin" / "parjava"), "--help"], outside, env, False
    )
    step("python -m parjava --help", [str(python), "-m", "parjava", "--help"], outside, env, False)
    predict_help = [str(python), "-m", "parjava", "predict", "-h"]
    step("python -m parjava predict --help", predict_help, outside, env, False)
    times["check"] = step("import, tools, predict, scan", [str(python), "-c", CHECK], outside, env)
    report = outside / "report.html"
    times["report"] = step(
        "parjava report (ping-pong trace)",
        [str(venv / "bin" / "parjava"), "report", str(TRACE), "-o", str(report)],
        outside,
        env,
    )
    site = next((venv / "lib").glob("python*/site-packages/parjava"))
    size = sum(f.stat().st_size for f in site.rglob("*") if f.is_file())
    print(f"installed package: {size / 1e6:.1f} MB in {site}")
    print(f"report: {report.stat().st_size / 1e3:.0f} kB")
    shutil.rmtree(outside)
    print(
        "figures: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
