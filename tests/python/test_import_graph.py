"""No import cycles in python/parjava: modules depend on each other in one direction.

Every ``import`` counts, also those inside functions (a lazy import only hides a cycle), except
those under ``if TYPE_CHECKING:`` (annotations only) and a submodule's imports from its own
package (``from . import EXIT_OK`` in ``parjava.cli.scan``), whose ``__init__`` Python runs
first anyway.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import parjava

PACKAGE = Path(parjava.__file__).resolve().parent


def _modules() -> dict[str, tuple[Path, bool]]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _targets(module: str, is_package: bool, node: ast.AST, known: set[str]) -> set[str]:
    """The parjava modules an import statement loads."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names if a.name in known}
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    out = set()
    for alias in node.names:
        name = f"{source}.{alias.name}"
        if name in known:
            out.add(name)
        elif source in known and not _is_extension(name):
            out.add(source)  # a name defined in `source`
    return out


def _is_extension(name: str) -> bool:
    """Whether ``name`` is a compiled submodule (``parjava._core``): it imports no Python."""
    package, _, _ = name.rpartition(".")
    parent = importlib.import_module(package)
    if not hasattr(parent, "__path__"):
        return False
    spec = importlib.util.find_spec(name)
    return spec is not None and not str(spec.origin).endswith(".py")


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST, module: str, is_package: bool, known: set[str]) -> set[str]:
    edges: set[str] = set()
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child):
            orelse = ast.Module(body=child.orelse, type_ignores=[])
            edges |= _imports(orelse, module, is_package, known)
            continue
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            edges |= _targets(module, is_package, child, known)
        edges |= _imports(child, module, is_package, known)
    return edges


def import_graph() -> dict[str, set[str]]:
    """Module -> the parjava modules it imports (see the module docstring for what counts)."""
    modules = _modules()
    known = set(modules)
    graph: dict[str, set[str]] = {}
    for module, (path, is_package) in modules.items():
        edges = _imports(ast.parse(path.read_text(encoding="utf-8")), module, is_package, known)
        own_packages = {m for m in known if modules[m][1] and module.startswith(m + ".")}
        graph[module] = edges - own_packages - {module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_no_import_cycles() -> None:
    graph = import_graph()
    assert "parjava.intervals" in graph["parjava.trace"]  # the graph sees real imports
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = import_graph()
    graph["parjava._trace_data"] = graph["parjava._trace_data"] | {"parjava.trace"}
    found = cycles(graph)
    assert len(found) == 1 and {"parjava._trace_data", "parjava.trace"} <= set(found[0])
