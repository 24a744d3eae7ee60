"""Where the programs parjava launches live (netbench, the tracer library, parjava-model).

A pip install puts them under ``parjava/bin`` and ``parjava/lib``; a development build
(``make build``) puts them at the same place in the source tree. Environment variables
``PARJAVA_<NAME>`` (e.g. ``PARJAVA_NETBENCH``) override the location.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .errors import MissingDependencyError

PACKAGE_DIR = Path(__file__).resolve().parent


def _package_dirs() -> list[Path]:
    """Return the package directory and any build directory added by PARJAVA_BUILD_DIR."""
    from . import __path__ as package_path

    return [Path(p) for p in package_path]


def tool_path(name: str, kind: str = "bin") -> Path:
    """Return the path of a bundled tool, or raise :class:`MissingDependencyError`.

    ``kind`` is ``"bin"`` for executables and ``"lib"`` for shared libraries.
    """
    override = os.environ.get("PARJAVA_" + name.upper().replace("-", "_").replace(".", "_"))
    if override:
        path = Path(override)
        if not path.exists():
            raise MissingDependencyError(f"{name}: the override path {path} does not exist")
        return path
    for directory in _package_dirs():
        path = directory / kind / name
        if path.exists():
            return path
    raise MissingDependencyError(
        f"{name} is not built (no {kind}/{name} in {PACKAGE_DIR}): parjava was built without "
        "it; install "
        "MPI (`apt-get install -y libopenmpi-dev openmpi-bin`) and rebuild with `make build` "
        "or `pip install .`"
    )


def external_program(name: str, hint: str) -> str:
    """Return the absolute path of a program on PATH, or raise with an install ``hint``."""
    found = shutil.which(name)
    if found is None:
        raise MissingDependencyError(f"{name} was not found on PATH: {hint}")
    return found
