"""A new command line against the estimation run's (issue 13, never silently wrong).

`Model.arguments(argv)` warns when an argument differs from the estimation run's where no
model parameter reads it (HPCG's `--nx=64` parsed into an array the model does not keep). The
arguments no parameter reads are compared in order; options a parameter reads may be added,
dropped or moved without being taken for unread changes (a comparison by position said
"'-ny' dropped" when `-ny 30` was simply left out and `ny` took its default)."""

from __future__ import annotations

import warnings

import pytest

from parjava._arguments import arguments, unread_differences

# As the builder writes them for CoMD-like options (`-N`/`--nSteps`, `-x`), defaults included.
PARAMETERS = {
    "nSteps": {"value": 10, "options": ["-N", "--nSteps"], "default": 100},
    "nx": {"value": 20, "options": ["-x", "--nx"], "default": 20},
}
ESTIMATED = ["./comd", "-x", "20", "-N", "10", "--potDir", "pots", "-e"]


def test_read_options_added_dropped_or_moved_are_quiet() -> None:
    # Moved, changed in value, dropped (`-x 20`): every one is read by a parameter.
    for argv in (
        ["./comd", "-N", "100", "-x", "40", "--potDir", "pots", "-e"],
        ["./comd", "-N", "100", "--potDir", "pots", "-e"],
        ["./comd", "--nx=30", "-N100", "--potDir", "pots", "-e"],
    ):
        assert unread_differences(PARAMETERS, argv, ESTIMATED) is None, argv
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        params = arguments(PARAMETERS, ["./comd", "-N", "50", "--potDir", "pots", "-e"], ESTIMATED)
    assert params == {"nSteps": 50, "nx": 20}


def test_unread_arguments_that_change_are_named() -> None:
    said = unread_differences(PARAMETERS, ["./comd", "-N", "10", "--potDir", "other"], ESTIMATED)
    assert said is not None
    assert "'other' (was 'pots')" in said and "'-e' dropped" in said, said
    assert "no model parameter reads them" in said
    with pytest.warns(UserWarning, match=r"'-v' \(absent then\)"):
        arguments(PARAMETERS, [*ESTIMATED, "-v"], ESTIMATED)


def test_positions_read_as_argv_k_still_compare_by_position() -> None:
    positional = {"argc": {"value": 3}, "argv1": {"value": 600}, "argv2": {"value": 10}}
    assert unread_differences(positional, ["./p", "900", "30"], ["./p", "600", "10"]) is None
    said = unread_differences(positional, ["./p", "600", "10", "x"], ["./p", "600", "10"])
    assert said is not None and "'x' (absent then)" in said
