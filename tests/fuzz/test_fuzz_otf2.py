"""OTF2 archives with one file mutated (anchor, global or local definitions, events): each
opens as a trace whose tables read back, or raises parjava.TraceError naming the archive."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fuzzing import REPO, run_cases
from mutations import mutate

import parjava as pj

# Two small archives from two OTF2 versions (2.3 and 3.0) and Score-P releases.
SEEDS = [REPO / "tests" / "data" / "otf2" / name for name in ("pipit-ping-pong", "sst-ember-otf2")]
ARCHIVE_FILES = ("traces.otf2", "traces.def", "traces")


def _use(trace: pj.Trace) -> None:
    """Touch everything a user reads off a trace, strings included."""
    repr(trace)
    trace._repr_html_()
    for table in (trace.locations, trace.regions, trace.communicators, trace.callsites):
        for row in table:
            str(row)
    trace.metadata  # noqa: B018 - decodes the warnings and properties
    trace.clock_violations  # noqa: B018
    trace.summary()


def test_mutated_archives(tmp_path: Path) -> None:
    def make_case(rng: object, case: int) -> Path:
        seed = SEEDS[case % len(SEEDS)]
        archive = tmp_path / f"case-{case}"
        for name in ARCHIVE_FILES:
            source = seed / name
            if source.is_dir():
                shutil.copytree(source, archive / name)
            else:
                archive.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, archive / name)
        files = sorted(p for p in archive.rglob("*") if p.is_file())
        victim = rng.choice(files)  # type: ignore[attr-defined]
        victim.write_bytes(mutate(rng, victim.read_bytes()))  # type: ignore[arg-type]
        return archive / "traces.otf2"

    def read(anchor: Path) -> None:
        try:
            _use(pj.Trace.open(anchor, threads=1))
        finally:
            shutil.rmtree(anchor.parent, ignore_errors=True)

    outcomes = run_cases(
        "OTF2", make_case, read, (pj.TraceError,), must_name=lambda anchor: [anchor.parent.name]
    )
    # Both outcomes occur: the mutations reach past the checks and also break archives.
    assert outcomes["read"] > 0 and outcomes["refused"] > 0, outcomes


@pytest.mark.parametrize("what", ["empty", "directory", "garbage"])
def test_not_an_archive(tmp_path: Path, what: str) -> None:
    anchor = tmp_path / "traces.otf2"
    if what == "empty":
        anchor.write_bytes(b"")
    elif what == "garbage":
        anchor.write_bytes(b"\xff\xfe not an \xc3\x28 anchor file\n" * 10)
    with pytest.raises(pj.TraceError, match=r"traces\.otf2|tmp"):
        pj.Trace.open(anchor if what != "directory" else tmp_path)
