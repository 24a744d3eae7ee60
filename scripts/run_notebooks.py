"""Execute notebooks from a fresh kernel and fail if any cell raises (make test-notebooks).

Each notebook runs in its own directory (so ``Path.cwd().parent`` is the repository) with a
new kernel, as a reader who opens it in Jupyter and runs every cell would. Before anything
runs, every notebook is checked to be stored without outputs (``--strip`` removes them), so
the repository holds sources only. The cells assert what they show, so a broken pipeline
fails here. ``--executed DIR`` keeps the executed copies (with outputs) for reading.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Any

import nbformat

# Each notebook should run in this many seconds from a fresh kernel on the 2-core development
# machine; slower runs are reported (not failed: the machine is shared and its load varies).
BUDGET_SECONDS = 120.0


def dirty_cells(nb: Any) -> list[int]:
    """Return the indices of the code cells that carry outputs or an execution count."""
    return [
        i
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count"))
    ]


def strip(nb: Any) -> bool:
    """Remove outputs, execution counts and per-run metadata; True if something changed."""
    changed = False
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if cell.get("outputs") or cell.get("execution_count") is not None:
            changed = True
        cell.outputs = []
        cell.execution_count = None
        for key in ("execution", "collapsed", "scrolled"):
            if key in cell.metadata:
                del cell.metadata[key]
                changed = True
    return changed


def check_clean(paths: list[Path]) -> list[str]:
    """Return one message per notebook stored with outputs."""
    problems = []
    for path in paths:
        cells = dirty_cells(nbformat.read(path, as_version=4))
        if cells:
            shown = ", ".join(str(i) for i in cells[:8])
            problems.append(
                f"{path}: cells {shown} are stored with outputs; run "
                f"`python3 scripts/run_notebooks.py --strip {path}` before committing"
            )
    return problems


def execute(path: Path, executed_dir: Path | None) -> float:
    """Run every cell of `path` in a fresh kernel; return the seconds it took."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent.resolve())}},
    )
    start = time.monotonic()
    try:
        client.execute()
    finally:
        if executed_dir is not None:
            executed_dir.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, executed_dir / path.name)
    return time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    """Check, then run each notebook; return non-zero if one is dirty or fails."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--strip", action="store_true", help="strip outputs in place and exit")
    parser.add_argument("--check-only", action="store_true", help="only check for outputs")
    parser.add_argument(
        "--executed", type=Path, metavar="DIR", help="write executed copies (with outputs) here"
    )
    args = parser.parse_args(argv)
    if args.strip:
        for path in args.notebooks:
            nb = nbformat.read(path, as_version=4)
            if strip(nb):
                nbformat.write(nb, path)
                print(f"stripped {path}")
        return 0
    problems = check_clean(args.notebooks)
    for message in problems:
        print(f"FAILED {message}", file=sys.stderr)
    if problems or args.check_only:
        return 1 if problems else 0
    failed = 0
    for path in args.notebooks:
        try:
            seconds = execute(path, args.executed)
        except Exception as exc:  # report every notebook failure the same way
            failed += 1
            message = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
            print(f"FAILED {path}: {message}", file=sys.stderr)
            continue
        over = f" (over the {BUDGET_SECONDS:.0f} s budget)" if seconds > BUDGET_SECONDS else ""
        print(f"ok {path} ({seconds:.1f} s){over}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
