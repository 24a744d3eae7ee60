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


# Which requirement of pyproject.toml provides a third-party module the notebooks import.
# IPython comes with ipykernel; jinja2 is imported by pandas' Styler (``DataFrame.style``).
_PROVIDERS = {
    "numpy": "numpy",
    "matplotlib": "matplotlib",
    "pandas": "pandas",
    "scipy": "scipy",
    "IPython": "ipykernel",
    "nbformat": "nbformat",
    "nbclient": "nbclient",
    "jinja2": "jinja2",
}


def _requirement_names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in requirements}


def _notebook_modules() -> set[str]:
    """Top-level modules imported by the notebooks and their runner (and jinja2 for Styler)."""
    import ast
    import sys

    sources = [
        c.source
        for path in NOTEBOOKS
        for c in nbformat.read(path, as_version=4).cells
        if c.cell_type == "code"
    ]
    sources.append((REPO / "scripts" / "run_notebooks.py").read_text(encoding="utf-8"))
    modules: set[str] = set()
    for source in sources:
        text = "\n".join(line for line in source.splitlines() if not line.startswith(("%", "!")))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                modules |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                modules.add(node.module.split(".")[0])
        if re.search(r"\.style\b", source):
            modules.add("jinja2")
    stdlib = getattr(sys, "stdlib_module_names", set())
    return {m for m in modules if m not in stdlib and m != "parjava"}


def test_notebooks_extra_declares_what_the_notebooks_import() -> None:
    # `pip install .[notebooks]` must be enough to run every notebook (issue 16 item 6).
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = _requirement_names(
        project["dependencies"] + project["optional-dependencies"]["notebooks"]
    )
    modules = _notebook_modules()
    assert {"numpy", "IPython", "nbclient"} <= modules  # the scan sees real imports
    for module in sorted(modules):
        assert module in _PROVIDERS, f"notebooks import {module}: add it to _PROVIDERS"
        assert _PROVIDERS[module] in declared, (
            f"notebooks import {module}, but the `notebooks` extra does not declare "
            f"{_PROVIDERS[module]}"
        )
    assert {"nbclient", "nbformat", "ipykernel", "jinja2"} <= declared
