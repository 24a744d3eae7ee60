"""Execute notebooks from a fresh kernel and fail if any cell raises (make test-notebooks)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def main(paths: list[str]) -> int:
    """Run each notebook in its own directory; return non-zero if one fails."""
    failed = 0
    for name in paths:
        path = Path(name)
        start = time.monotonic()
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(
            nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
        )
        try:
            client.execute()
        except Exception as exc:  # noqa: BLE001 - report every notebook failure the same way
            failed += 1
            print(f"FAILED {path}: {exc}", file=sys.stderr)
            continue
        print(f"ok {path} ({time.monotonic() - start:.1f}s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
