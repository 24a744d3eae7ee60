"""Assertions on how a model's predicted time grows with one program input.

A prediction is the sum of fragments measured once: the ones a parameter repeats or sizes, and
one-off set-up (opening a file, first touch of a large array) whose measured cost differs by up
to 3x between runs on the shared VMs the suite runs on (page faults 2.7x slower on a CI machine
than here). A total ratio ("4x the steps, 4x the time within 15 %") is decided by that noise.
What the model must get right is deterministic: every added unit costs the same, and the units
are a real part of the run.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest


def assert_linear(counts: Sequence[float], times: Sequence[float], share: float) -> None:
    """Assert that ``times`` (predicted at ``counts`` of one input) lie on a line.

    The cost per unit is the same between every pair of points (1 %), positive, and the
    units' part of the first prediction is at least ``share`` of it: the input reaches the
    fragments that do the work, and they are not a rounding error beside the set-up.
    """
    assert len(counts) == len(times) >= 3, (counts, times)
    slopes = [
        (times[i + 1] - times[i]) / (counts[i + 1] - counts[i]) for i in range(len(times) - 1)
    ]
    assert slopes[0] > 0, (counts, times)
    for slope in slopes[1:]:
        assert slope == pytest.approx(slopes[0], rel=0.01), (counts, times)
    assert slopes[0] * counts[0] >= share * times[0], (counts, times, share)
