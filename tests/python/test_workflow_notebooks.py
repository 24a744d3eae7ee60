"""The notebooks are stored as sources: no outputs, valid, and each one checks what it shows.

Running them is `make test-notebooks` (scripts/run_notebooks.py); this test is the cheap part
that keeps the repository clean and the notebooks honest.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


def _runner():
    path = REPO / "scripts" / "run_notebooks.py"
    spec = importlib.util.spec_from_file_location("run_notebooks", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "notebooks/ holds no notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stored_without_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert _runner().dirty_cells(nb) == [], (
        f"{path.name} has outputs: python3 scripts/run_notebooks.py --strip {path}"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_a_walkthrough_that_asserts(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    prose = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    assert len(prose) >= len(code) // 3, "explain what the cells show"
    asserting = sum(1 for source in code if re.search(r"^\s*assert\b", source, re.M))
    assert asserting >= len(code) // 2, "cells should assert what they show"


def test_runner_detects_and_strips_outputs(tmp_path: Path) -> None:
    runner = _runner()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    nb.cells[0].outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "2"})]
    nb.cells[0].execution_count = 1
    path = tmp_path / "dirty.ipynb"
    nbformat.write(nb, path)
    assert runner.check_clean([path])
    assert runner.main(["--check-only", str(path)]) == 1
    assert runner.main(["--strip", str(path)]) == 0
    assert runner.check_clean([path]) == []
    assert runner.main(["--check-only", str(path)]) == 0


def test_readme_links_every_notebook() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        assert f"notebooks/{path.name}" in readme, f"README.md does not link {path.name}"
