"""Shared fixtures: paths to the repository, example programs and real OTF2 test archives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OTF2_DATA = REPO / "tests" / "data" / "otf2"

# Real MPI runs as root need these (Open MPI refuses otherwise).
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
os.environ.setdefault("PARJAVA_NO_PROGRESS", "1")


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def otf2_data() -> Path:
    return OTF2_DATA


@pytest.fixture(scope="session")
def examples_bin() -> Path:
    """Directory of the built example programs (<build>/examples); skip if not built."""
    build = os.environ.get("PARJAVA_BUILD_DIR")
    directory = Path(build).parent / "examples" if build else REPO / "build" / "dev" / "examples"
    if not (directory / "pingpong").exists():
        pytest.skip(f"example programs are not built ({directory}); run `make build` with MPI")
    return directory
