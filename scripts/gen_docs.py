"""Stage the documentation site for MkDocs (make docs): pages, generated references, notebooks.

``python3 scripts/gen_docs.py --out DIR`` writes ``DIR/mkdocs.yml`` and ``DIR/docs/``:

- ``docs/*.md`` and ``docs/guide/*.md`` as they are, and ``README.md`` as the home page;
- ``reference/api.md``: the public names of ``parjava`` (``parjava.__init__``) with their
  signatures and docstrings, read from the sources (no build needed);
- ``reference/core.md``: the classes and functions of the extension, from ``_core.pyi``;
- ``reference/cli.md``: ``parjava VERB --help`` of every verb, from the argparse definitions;
- ``notebooks/*.md``: the notebooks rendered (prose, code, and the outputs of the executed
  copies when ``--executed DIR`` holds them, as ``make test-notebooks`` leaves them).

Every relative link of a page is resolved against the repository: a link to a page stays a link,
one to a notebook points at its rendered page, one to another file of the repository (an example,
a benchmark table) points at a copy under ``repo/``, and one to nothing is an error. So
``--check`` (no MkDocs needed) fails on a broken link or a missing nav page, and
``mkdocs build --strict`` on the staged site fails on a broken anchor too.
"""

from __future__ import annotations

import argparse
import ast
import base64
import json
import os
import posixpath
import re
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINK = re.compile(r"(!?\[[^\]]*\])\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)


class DocsError(Exception):
    """A broken link or a missing page, named with the file it is in."""


def _relink(text: str, source: str, page: str, extra: dict[str, str], errors: list[str]) -> str:
    """Rewrite the relative links of ``text`` (from repository file ``source``) for ``page``.

    ``page`` is the page's path inside the staged docs directory. Files outside docs/ that
    are linked are recorded in ``extra`` (repository path -> staged path) to be copied.
    """

    def replace(match: re.Match[str]) -> str:
        label, target = match.group(1), match.group(2)
        if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("#"):
            return match.group(0)
        path, _, anchor = target.partition("#")
        repo_path = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
        if repo_path.startswith("..") or not (REPO / repo_path).exists():
            errors.append(f"{source}: link to {target}: no such file {repo_path}")
            return match.group(0)
        if repo_path.startswith("docs/"):
            staged = repo_path[len("docs/") :]
        elif repo_path.startswith("notebooks/") and repo_path.endswith(".ipynb"):
            staged = f"notebooks/{Path(repo_path).stem}.md"
        elif repo_path == "README.md":
            staged = "index.md"
        else:
            staged = f"repo/{repo_path}"
            extra[repo_path] = staged
        rel = posixpath.relpath(staged, posixpath.dirname(page) or ".")
        return f"{label}({rel}{'#' + anchor if anchor else ''})"

    def outside_spans(match: re.Match[str]) -> str:
        spans = [m.span() for m in CODE_SPAN.finditer(match.string)]
        if any(a <= match.start() < b for a, b in spans):
            return match.group(0)  # `[x](y)` in code is not a link
        return replace(match)

    out, fence = [], False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("```"):
            fence = not fence
        out.append(line if fence else LINK.sub(outside_spans, line))
    return "".join(out)


def _outside_code(text: str, change) -> str:
    """Apply ``change`` to the parts of ``text`` outside code spans."""
    parts, last = [], 0
    for m in CODE_SPAN.finditer(text):
        parts += [change(text[last : m.start()]), m.group(0)]
        last = m.end()
    return "".join([*parts, change(text[last:])])


def _markdown_text(doc: str) -> str:
    """Return a docstring as Markdown (``<`` outside code spans would start an HTML tag)."""
    return _outside_code(doc, lambda s: s.replace("<", "&lt;"))


# --- API reference ---------------------------------------------------------------------------


def _public_names() -> list[tuple[str, str, str]]:
    """(public name, module, attribute or '') from ``parjava/__init__.py`` (_LAZY, errors)."""
    tree = ast.parse((REPO / "python/parjava/__init__.py").read_text(encoding="utf-8"))
    names: list[tuple[str, str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "errors" and node.level == 1:
            names += [(a.name, "errors", a.name) for a in node.names]
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "_LAZY":
            lazy = ast.literal_eval(node.value)
            names += [(n, m.lstrip("."), a or "") for n, (m, a) in lazy.items()]
    return names


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> str:
    args = ast.unparse(node.args)
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"{name}({args}){returns}"


def _find(module: str, name: str, depth: int = 0) -> tuple[str, ast.AST | None]:
    """Return (defining module, definition) of ``name`` in ``parjava.<module>``, via re-exports."""
    path = REPO / "python/parjava" / f"{module.replace('.', '/')}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name == name:
            return module, node
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module and depth < 3:
            if any(a.name == name and a.asname is None for a in node.names):
                return _find(node.module, name, depth + 1)
    return module, None


def _member_kind(node: ast.FunctionDef) -> str:
    decorators = {ast.unparse(d) for d in node.decorator_list}
    if "property" in decorators:
        return "property"
    if "classmethod" in decorators or "staticmethod" in decorators:
        return "classmethod" if "classmethod" in decorators else "staticmethod"
    return "method"


def _api_page() -> str:
    lines = [
        "# API reference",
        "",
        "The public names of `parjava` (`import parjava as pj`), generated from their docstrings"
        " by `scripts/gen_docs.py`. The compiled classes they wrap are listed in"
        " [the `_core` reference](core.md).",
        "",
    ]
    for public, module, attribute in _public_names():
        lines.append(f"## `pj.{public}`")
        lines.append("")
        if not attribute:
            path = REPO / "python/parjava" / f"{module.replace('.', '/')}.py"
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
            lines += [f"Module `parjava.{module}`.", "", _markdown_text(doc), ""]
            continue
        module, node = _find(module, attribute)
        if node is None:  # re-exported from the extension, e.g. ``EventKind = _core.EventKind``
            lines += [
                f"`parjava.{module}.{attribute}`: the extension's `{attribute}`, see"
                f" [`_core`](core.md#{attribute.lower()}).",
                "",
            ]
            continue
        if isinstance(node, ast.FunctionDef):
            lines += ["```python", _signature(node, f"pj.{public}"), "```", ""]
        else:
            bases = ", ".join(ast.unparse(b) for b in node.bases)
            lines += [
                "```python",
                f"class {attribute}({bases})" if bases else f"class {attribute}",
                "```",
                "",
            ]
        lines += [f"Defined in `parjava.{module}`.", ""]
        lines += [_markdown_text(ast.get_docstring(node) or "(no docstring)"), ""]
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                if not isinstance(member, ast.FunctionDef) or member.name.startswith("_"):
                    continue
                kind = _member_kind(member)
                title = member.name if kind == "property" else _signature(member, member.name)
                lines += [f"### `{attribute}.{member.name}`", ""]
                lines += ["```python", f"{title}  # {kind}", "```", ""]
                doc = ast.get_docstring(member)
                if doc:
                    lines += [_markdown_text(doc), ""]
    return "\n".join(lines).rstrip() + "\n"


def _core_page() -> str:
    tree = ast.parse((REPO / "python/parjava/_core.pyi").read_text(encoding="utf-8"))
    lines = [
        "# `parjava._core`: the extension",
        "",
        "The classes and functions of the compiled extension, from its type stubs"
        " (`python/parjava/_core.pyi`, regenerated by `make stubs`). The Python modules of the"
        " [API reference](api.md) wrap them; the stubs carry signatures, not docstrings.",
        "",
    ]
    constants = [n for n in tree.body if isinstance(n, ast.AnnAssign)]
    if constants:
        lines += ["## Constants", "", "```python"]
        lines += [ast.unparse(n) for n in constants]
        lines += ["```", ""]
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if functions:
        lines += ["## Functions", "", "```python"]
        lines += [_signature(n, n.name) for n in functions]
        lines += ["```", ""]
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        lines += [f"## {node.name}", "", "```python"]
        for member in node.body:
            if isinstance(member, ast.FunctionDef) and (
                not member.name.startswith("_") or member.name == "__init__"
            ):
                kind = _member_kind(member)
                sig = member.name if kind == "property" else _signature(member, member.name)
                if kind == "property" and member.returns is not None:
                    sig += f": {ast.unparse(member.returns)}"
                lines.append(f"{sig}  # {kind}" if kind != "method" else sig)
            elif isinstance(member, ast.AnnAssign) and not ast.unparse(member.target).startswith(
                "_"
            ):
                lines.append(ast.unparse(member.target))
        lines += ["```", ""]
    return "\n".join(lines).rstrip() + "\n"


# --- CLI reference ---------------------------------------------------------------------------


def _cli_page() -> str:
    os.environ["COLUMNS"] = "100"  # argparse wraps help at the terminal width
    sys.path.insert(0, str(REPO / "python"))
    from parjava.cli import VERBS, build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    lines = [
        "# Command-line reference",
        "",
        "`parjava VERB --help` for every verb, generated from the argparse definitions in"
        " `python/parjava/cli/` by `scripts/gen_docs.py`. Exit status: 0 success, 1 a check"
        " the user asked for failed (`--fail-on`, `--expect-speedup`), 2 usage or input errors.",
        "",
        "## parjava",
        "",
        "```text",
        parser.format_help().rstrip(),
        "```",
        "",
    ]
    for verb in VERBS:
        if verb in sub.choices:
            lines += [f"## parjava {verb}", "", "```text"]
            lines += [sub.choices[verb].format_help().rstrip(), "```", ""]
    return "\n".join(lines).rstrip() + "\n"


# --- notebooks -------------------------------------------------------------------------------


def _notebook_page(path: Path, executed: Path | None, out_dir: Path, relink) -> str:
    source = f"notebooks/{path.name}"
    run = executed / path.name if executed else None
    nb = json.loads((run if run and run.exists() else path).read_text(encoding="utf-8"))
    page = f"notebooks/{path.stem}.md"
    lines: list[str] = []
    for i, cell in enumerate(nb["cells"]):
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            lines += [relink(text, source, page), ""]
            continue
        if cell["cell_type"] != "code":
            continue
        lines += ["```python", text.rstrip(), "```", ""]
        for j, output in enumerate(cell.get("outputs", [])):
            data = output.get("data", {})
            if "image/png" in data:
                name = f"{path.stem}-{i}-{j}.png"
                (out_dir / name).write_bytes(base64.b64decode(data["image/png"]))
                lines += [f"![output]({name})", ""]
                continue
            text_out = output.get("text") or data.get("text/plain")
            if text_out:
                lines += ["```text", "".join(text_out).rstrip(), "```", ""]
    if not lines or not lines[0].startswith("# "):
        lines.insert(0, f"# {path.stem}\n")
    lines.insert(1, f"\nSource: [`{source}`](../repo/{source}).\n")
    return "\n".join(lines).rstrip() + "\n"


# --- staging ---------------------------------------------------------------------------------


def _nav_pages(config: str) -> list[str]:
    """Return the pages the nav of ``mkdocs.yml`` names (``- Title: page.md`` or ``- page.md``)."""
    return re.findall(r"^\s*-\s+(?:[^:\n]+:\s+)?([\w./-]+\.md)\s*$", config, re.M)


def stage(out: Path, executed: Path | None = None) -> list[str]:
    """Write the site's sources under ``out``; return the problems found (broken links...)."""
    errors: list[str] = []
    extra: dict[str, str] = {}
    docs = out / "docs"
    if docs.exists():
        shutil.rmtree(docs)
    docs.mkdir(parents=True)

    def relink(text: str, source: str, page: str) -> str:
        return _relink(text, source, page, extra, errors)

    for md in sorted((REPO / "docs").rglob("*.md")):
        rel = md.relative_to(REPO / "docs").as_posix()
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        text = md.read_text(encoding="utf-8")
        (docs / rel).write_text(relink(text, f"docs/{rel}", rel), encoding="utf-8")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    (docs / "index.md").write_text(relink(readme, "README.md", "index.md"), encoding="utf-8")

    (docs / "reference").mkdir()
    (docs / "reference/api.md").write_text(_api_page(), encoding="utf-8")
    (docs / "reference/core.md").write_text(_core_page(), encoding="utf-8")
    (docs / "reference/cli.md").write_text(_cli_page(), encoding="utf-8")

    (docs / "notebooks").mkdir()
    for nb in sorted((REPO / "notebooks").glob("*.ipynb")):
        extra[f"notebooks/{nb.name}"] = f"repo/notebooks/{nb.name}"
        page = _notebook_page(nb, executed, docs / "notebooks", relink)
        (docs / f"notebooks/{nb.stem}.md").write_text(page, encoding="utf-8")

    for repo_path, staged in sorted(extra.items()):
        (docs / staged).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / repo_path, docs / staged)

    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    (out / "mkdocs.yml").write_text(config, encoding="utf-8")
    for page in _nav_pages(config):
        if not (docs / page).exists():
            errors.append(f"mkdocs.yml: nav page {page} does not exist")
    for nb in sorted((REPO / "notebooks").glob("*.ipynb")):
        if f"notebooks/{nb.stem}.md" not in _nav_pages(config):
            errors.append(f"mkdocs.yml: the nav does not list notebooks/{nb.stem}.md")
    return errors


def main(argv: list[str] | None = None) -> int:
    """Stage the site; exit 1 naming every broken link or missing page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="directory to stage the site in")
    parser.add_argument("--executed", type=Path, help="executed notebooks (make test-notebooks)")
    args = parser.parse_args(argv)
    errors = stage(args.out, args.executed if args.executed and args.executed.is_dir() else None)
    for error in errors:
        print(f"gen_docs: {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
