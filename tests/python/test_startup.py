"""Start-up stays light (issue 18): `import parjava`, `parjava --help` and `parjava predict --goal`
import neither NumPy, pandas, SciPy nor matplotlib, and `--help` not even the C++ extension;
the public names still resolve, and `parjava.scan` / `parjava.trace` stay the functions.

Each check runs in a fresh interpreter, since this test process has imported everything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HEAVY = ("numpy", "pandas", "scipy", "matplotlib", "parjava._core")

SMALL_GOAL = """num_ranks 2
rank 0 {
l1: send 8b to 1 tag 0
}
rank 1 {
l1: recv 8b from 0 tag 0
}
"""


def _loaded_after(code: str) -> tuple[list[str], str]:
    """Run ``code`` in a fresh interpreter; the heavy modules it loaded, and its stdout."""
    probe = (
        "import sys, json\n"
        f"{code}\n"
        f"print('LOADED', json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ),
    )
    lines = done.stdout.splitlines()
    loaded = json.loads(next(x for x in lines if x.startswith("LOADED "))[len("LOADED ") :])
    return loaded, done.stdout


def test_import_parjava_loads_nothing_heavy() -> None:
    loaded, _ = _loaded_after("import parjava")
    assert loaded == []


def test_help_loads_nothing_heavy() -> None:
    loaded, out = _loaded_after(
        "from parjava.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert loaded == []
    for verb in ("predict", "scan", "intervals", "report", "trace", "model"):
        assert verb in out  # every verb is still listed


def test_predict_goal_needs_only_the_engine(tmp_path: Path) -> None:
    goal = tmp_path / "small.goal"
    goal.write_text(SMALL_GOAL)
    loaded, out = _loaded_after(
        f"from parjava.cli import main\nmain(['predict', '--goal', {str(goal)!r}])"
    )
    assert loaded == ["parjava._core"]
    assert "Host 1: " in out  # LogGOPSim's per-host report, without NumPy


def test_lazy_names_resolve_and_functions_win_over_modules() -> None:
    _, out = _loaded_after(
        "import parjava as pj\n"
        "import parjava.scan, parjava.trace\n"
        "print('KINDS', type(pj.scan).__name__, type(pj.trace).__name__, pj.Trace.__name__, "
        "pj.goal.__name__, 'Findings' in dir(pj))"
    )
    kinds = next(x for x in out.splitlines() if x.startswith("KINDS ")).split()[1:]
    assert kinds == ["function", "function", "Trace", "parjava.goal", "True"]
