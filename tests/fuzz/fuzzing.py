"""The harness of the reader fuzzers: how many cases, from which seed, and what must hold.

``PARJAVA_FUZZ_CASES`` (default 300 per reader) and ``PARJAVA_FUZZ_SEED`` (default 16) make a
run reproducible or longer; ``PARJAVA_FUZZ_VERBOSE=1`` prints each case before it runs (to find
one that crashes the process).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from mutations import case_rng

REPO = Path(__file__).resolve().parents[2]
CASES = int(os.environ.get("PARJAVA_FUZZ_CASES", "300"))
SEED = int(os.environ.get("PARJAVA_FUZZ_SEED", "16"))
VERBOSE = os.environ.get("PARJAVA_FUZZ_VERBOSE") == "1"


def run_cases(
    name: str,
    make_case: Callable[[object, int], Path],
    read: Callable[[Path], object],
    errors: tuple[type[BaseException], ...],
    must_name: Callable[[Path], Iterable[str]] = lambda path: [path.name],
) -> dict[str, int]:
    """Run CASES mutated inputs through ``read``; every one must give a result or one of
    ``errors`` whose message names the input (``must_name``). Returns counts by outcome."""
    outcomes = {"read": 0, "refused": 0}
    failures: list[str] = []
    for case in range(CASES):
        rng = case_rng(SEED, case)
        path = make_case(rng, case)
        if VERBOSE:
            print(f"{name} case {case}: {path}", flush=True)
        try:
            read(path)
            outcomes["read"] += 1
        except errors as exc:
            outcomes["refused"] += 1
            message = str(exc)
            missing = [text for text in must_name(path) if text not in message]
            if missing:
                failures.append(
                    f"case {case}: {type(exc).__name__} does not name {missing}: {message}"
                )
        except Exception as exc:  # any other type is the defect looked for
            failures.append(f"case {case}: {type(exc).__name__}: {exc}")
    read, refused = outcomes["read"], outcomes["refused"]
    print(f"{name}: {read} read, {refused} refused of {CASES} (seed {SEED})")
    assert not failures, (
        f"{name}: {len(failures)} of {CASES} mutated inputs (seed {SEED}) were not read or "
        "refused with the reader's own error naming the file:\n" + "\n".join(failures[:20])
    )
    return outcomes
