"""The documentation site (make docs): every page and link resolves, and MkDocs builds it strictly.

scripts/gen_docs.py stages the site (README as home page, docs/, the generated API, extension
and CLI references, the rendered notebooks) and reports broken relative links and missing nav
pages; with MkDocs installed, ``mkdocs build --strict`` also fails on a broken anchor.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", REPO / "scripts" / "gen_docs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("docs-src")
    errors = _gen_docs().stage(out)
    assert errors == [], "\n".join(errors)
    return out


def test_readme_opens_with_the_two_commands() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    first_block = readme.split("```")[1]
    assert first_block.startswith("sh\nmake demo") and "\nmake test" in first_block
    assert readme.index("```") < readme.index("\n## ")  # before any section
    assert len(readme) < 12_000, "the README is a front page; reference goes to docs/guide"


def test_every_page_and_link_resolves(staged: Path) -> None:
    docs = staged / "docs"
    config = (staged / "mkdocs.yml").read_text(encoding="utf-8")
    nav = _gen_docs()._nav_pages(config)
    assert len(nav) >= 30 and all((docs / page).is_file() for page in nav)
    # every user-guide page and design note is in the nav
    for md in [*(REPO / "docs").glob("*.md"), *(REPO / "docs" / "guide").glob("*.md")]:
        assert md.relative_to(REPO / "docs").as_posix() in nav, f"{md.name} is not in the nav"


def test_references_cover_every_verb_and_public_name(staged: Path) -> None:
    gen = _gen_docs()
    sys.path.insert(0, str(REPO / "python"))
    from parjava.cli import VERBS

    cli = (staged / "docs/reference/cli.md").read_text(encoding="utf-8")
    assert [v for v in VERBS if f"## parjava {v}\n" not in cli] == []
    assert "--fail-on" in cli and "usage: parjava scan" in cli
    api = (staged / "docs/reference/api.md").read_text(encoding="utf-8")
    names = [name for name, _, _ in gen._public_names()]
    assert {"Trace", "scan", "interpret", "Machine", "TraceError"} <= set(names)
    assert [n for n in names if f"## `pj.{n}`" not in api] == []
    assert "(no docstring)" not in api  # public API carries docstrings (house rule)
    core = (staged / "docs/reference/core.md").read_text(encoding="utf-8")
    assert re.search(r"^## \w+", core, re.M)


def test_broken_links_are_reported() -> None:
    gen = _gen_docs()
    errors: list[str] = []
    extra: dict[str, str] = {}
    text = (
        "[ok](../networks.md#nics) [nb](../../notebooks/01_quickstart.ipynb) "
        "[ex](../../examples) `[code](nowhere.md)` [bad](../nowhere.md) [web](https://x.org)"
    )
    out = gen._relink(text, "docs/guide/page.md", "guide/page.md", extra, errors)
    assert "(../networks.md#nics)" in out and "(../notebooks/01_quickstart.md)" in out
    assert "(../repo/examples)" in out and extra == {"examples": "repo/examples"}
    assert errors == ["docs/guide/page.md: link to ../nowhere.md: no such file docs/nowhere.md"]


def test_mkdocs_builds_strictly(staged: Path, tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="MkDocs is not installed (make docs installs it)")
    site = tmp_path / "site"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(staged / "mkdocs.yml"),
            "-d",
            str(site),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "make demo" in (site / "index.html").read_text(encoding="utf-8")
    assert "usage: parjava predict" in (site / "reference/cli.html").read_text(encoding="utf-8")
    assert (site / "notebooks/01_quickstart.html").is_file()
