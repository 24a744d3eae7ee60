"""The installed package's layout, checked without a pip build.

scikit-build-core makes the wheel from two things: the CMake install rules (the compiled
parts: ``_core``, the tools in ``bin/`` and ``lib/``, ``include/``) and ``wheel.packages`` in
pyproject.toml (the Python sources). ``cmake --install`` of the development build into a
temporary prefix, plus those Python sources, is therefore the wheel's content; these tests
import parjava from there in a clean environment (no PYTHONPATH into the source tree, no
PARJAVA_BUILD_DIR), as a pip user would. The full ``pip install .`` into a fresh venv is
benchmarks/workflow_pip_install.py (it rebuilds everything, so it is not part of make test).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_BUILD = Path(os.environ.get("PARJAVA_BUILD_DIR", "")) / "parjava"
BUILD = PACKAGE_BUILD.parent.parent
COMPILED = ("bin", "lib", "include")


def _wheel_packages() -> list[str]:
    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python < 3.11
        pytest.skip("reading pyproject.toml needs Python 3.11 (tomllib)")
    doc = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return list(doc["tool"]["scikit-build"]["wheel"]["packages"])


def _install(prefix: Path) -> Path:
    """Install the build's compiled parts and the wheel's Python packages under ``prefix``."""
    if not (BUILD / "cmake_install.cmake").exists():
        pytest.skip("needs a development build (make build; PARJAVA_BUILD_DIR=<build>/package)")
    proc = subprocess.run(
        ["cmake", "--install", str(BUILD), "--prefix", str(prefix)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for package in _wheel_packages():
        source = ROOT / package
        shutil.copytree(
            source,
            prefix / source.name,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    return prefix / "parjava"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _install(tmp_path_factory.mktemp("site")).parent


def _clean_env(site: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARJAVA_")}
    env["PYTHONPATH"] = str(site)
    return env


def _python(site: Path, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=_clean_env(site),
        capture_output=True,
        text=True,
        check=False,
    )


def _relative_files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_the_wheel_holds_every_compiled_part_of_the_build(site: Path) -> None:
    installed = site / "parjava"
    # Everything the development build puts beside the package (what `make test` runs
    # against) is installed: extension modules, tools, libraries, headers.
    built = {
        f
        for f in _relative_files(PACKAGE_BUILD)
        if f.split("/")[0] in COMPILED or f.endswith(".so")
    }
    assert any(f.startswith("_core.") and f.endswith(".so") for f in built)
    missing = built - _relative_files(installed)
    assert not missing, f"built but not installed (add an install rule): {sorted(missing)}"
    # Typing: PEP 561 marker and the stubs of the extension module.
    assert (installed / "py.typed").exists() and (installed / "_core.pyi").exists()
    assert (installed / "include" / "parjava" / "interval.h").exists()
    # `parjava demo` after pip install compiles the example it ships.
    assert (installed / "examples" / "jacobi2d.c").exists()
    # Installed modules, programs and libraries find their shared libraries (OTF2, MPI,
    # libclang-cpp) outside the build tree.
    binaries = [*installed.glob("_*.so"), *installed.glob("bin/*"), *installed.glob("lib/*")]
    assert len(binaries) >= 3
    for binary in binaries:
        ldd = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=False)
        assert ldd.returncode == 0 and "not found" not in ldd.stdout, ldd.stdout


def test_installed_parjava_imports_and_runs_outside_the_source_tree(
    site: Path, tmp_path: Path
) -> None:
    code = """
import pathlib, parjava as pj
from parjava import _core, _paths, tracing
root = pathlib.Path(pj.__file__).parent
assert pathlib.Path(_core.__file__).parent == root, _core.__file__
assert len(pj.__path__) == 1, pj.__path__
assert tracing.include_dir().parent == root
for tool in sorted((root / "bin").iterdir()):
    assert _paths.tool_path(tool.name, "bin") == tool
print(pj.__version__, pj.Machine.preset("infiniband-edr").name)
"""
    proc = _python(site, code, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0.1.0", "infiniband-edr"]
    cli = subprocess.run(
        [sys.executable, "-m", "parjava", "--help"],
        cwd=tmp_path,
        env=_clean_env(site),
        capture_output=True,
        text=True,
        check=False,
    )
    assert cli.returncode == 0, cli.stderr
    for verb in ("netbench", "predict", "trace", "scan", "intervals", "report"):
        assert verb in cli.stdout


def test_without_mpi_and_clang_import_works_and_their_use_names_what_is_missing(
    tmp_path: Path,
) -> None:
    # A build without MPI has no netbench and no tracer library, one without Clang no
    # _frontend and no parjava-model: remove them from an install.
    package = _install(tmp_path / "site")
    for tool in ("bin/netbench", "lib/libparjava_tracer.so", "bin/parjava-model"):
        (package / tool).unlink(missing_ok=True)
    for frontend in package.glob("_frontend*"):
        frontend.unlink()
    (tmp_path / "x.c").write_text("int main(void) { return 0; }\n", encoding="utf-8")
    trace = ROOT / "tests" / "data" / "otf2" / "pipit-ping-pong" / "traces.otf2"
    code = f"""
import parjava as pj
from parjava import _paths
print(len(pj.Trace.open({str(trace)!r})))  # the analysis side works
for call in (lambda: pj.Machine.measure(np=2),
             lambda: pj.trace(["./a.out"], np=2, output="t"),
             lambda: pj.build_model("x.c"),
             lambda: _paths.tool_path("parjava-model")):
    try:
        call()
    except pj.MissingDependencyError as exc:
        print(exc)
    else:
        raise SystemExit("no error")
"""
    proc = _python(package.parent, code, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    events, netbench, tracer, frontend, model_tool = proc.stdout.strip().splitlines()
    assert int(events) > 0
    assert "netbench is not built" in netbench and "MPI" in netbench
    assert "libparjava_tracer.so is not built" in tracer and "MPI" in tracer
    assert "model builder (parjava._frontend) is not built" in frontend and "Clang" in frontend
    assert "parjava-model is not built" in model_tool and "Clang 16" in model_tool


def _stub_names(stub: Path) -> dict[str, set[str]]:
    """Top-level names (key "") and each class's members as the stub declares them."""
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    names: dict[str, set[str]] = {"": set()}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names[""].add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[""].add(node.target.id)
        elif isinstance(node, ast.Assign):
            names[""].update(t.id for t in node.targets if isinstance(t, ast.Name))
        if isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    members.add(item.target.id)
                elif isinstance(item, ast.Assign):
                    members.update(t.id for t in item.targets if isinstance(t, ast.Name))
            names[node.name] = members
    return names


def test_core_stubs_match_the_extension_module() -> None:
    from parjava import _core

    stub = _stub_names(ROOT / "python" / "parjava" / "_core.pyi")
    public = {n for n in dir(_core) if not n.startswith("_")}
    hint = "; regenerate the stubs with `make stubs`"
    assert public - stub[""] == set(), f"missing from _core.pyi{hint}"
    declared = {n for n in stub[""] if not n.startswith("_")}
    assert declared - public == set(), f"gone from _core{hint}"
    for name in sorted(public):
        value = getattr(_core, name)
        if isinstance(value, type) and name in stub:
            own = {n for n in vars(value) if not n.startswith("_")}
            assert own - stub[name] == set(), f"{name} members missing from _core.pyi{hint}"
