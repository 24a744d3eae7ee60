"""trace.timeline(): the figure is drawn, one row per process, coloured by category."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import matplotlib.image as mpimg
import numpy as np
import pytest
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.colors import to_hex

import parjava as pj
from parjava.timeline import CATEGORY_COLORS
from parjava.trace import Category

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def stencil(otf2_data: Path) -> pj.Trace:
    return pj.Trace.open(otf2_data / "tracer-stencil4d-64")


def polygons_by_colour(ax) -> dict[str, int]:
    out: dict[str, int] = {}
    for coll in ax.collections:
        if isinstance(coll, PolyCollection):
            colour = to_hex(coll.get_facecolor()[0])
            out[colour] = out.get(colour, 0) + len(coll.get_paths())
    return out


def test_png_has_one_row_per_process(stencil: pj.Trace, tmp_path: Path) -> None:
    fig = stencil.timeline()
    path = tmp_path / "timeline.png"
    fig.savefig(path, dpi=60)
    assert path.stat().st_size > 10_000
    pixels = mpimg.imread(path)
    assert pixels.std() > 0.05  # not a blank image
    ax = fig.axes[0]
    counts = polygons_by_colour(ax)
    # user code: one bar per process, each on its own row
    assert counts[CATEGORY_COLORS[Category.USER_CODE]] == 64
    assert ax.get_ylim() == pytest.approx((63.6, -0.7))
    assert len(ax.get_yticks()) == 32  # every other rank is labelled at 64 rows
    # the MPI_Init calls (other MPI) are drawn on every row
    assert counts[CATEGORY_COLORS[Category.OTHER]] >= 64
    assert len(fig.axes[0].collections) <= 12  # collections, not one artist per event


def test_zoom_shows_categories_messages_and_interval_boundaries(stencil: pj.Trace) -> None:
    fig = stencil.timeline(interval="MPI_Pcontrol phase/TRACER_Loop")
    ax = fig.axes[0]
    counts = polygons_by_colour(ax)
    for category in (
        Category.COLLECTIVE,
        Category.BLOCKING_SEND,
        Category.BLOCKING_RECEIVE_WAIT,
        Category.NONBLOCKING_RECEIVE_TEST,
    ):
        assert counts.get(CATEGORY_COLORS[category], 0) > 0, category
    lines = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert len(lines) == 2  # messages and interval boundaries
    assert sum(len(c.get_segments()) for c in lines) > 1024
    tree = stencil.intervals()
    ex = tree["MPI_Pcontrol phase/TRACER_Loop"].executions
    lo, hi = ax.get_xlim()
    assert lo <= ex["begin"].min() and hi >= ex["end"].max()
    assert hi - lo < 0.02  # the loop, not the whole 1.6 s run


def test_window_and_options(stencil: pj.Trace) -> None:
    fig = stencil.timeline(start=1.5565, end=1.5570, intervals=False, messages=False)
    ax = fig.axes[0]
    assert ax.get_xlim() == pytest.approx((1.5565, 1.5570))
    assert not [c for c in ax.collections if isinstance(c, LineCollection)]
    fig = stencil.timeline(max_bars_per_row=5)
    assert "binned" in fig.axes[0].get_title()
    with pytest.raises(pj.UsageError, match="window is empty"):
        stencil.timeline(start=2.0, end=1.0)
    with pytest.raises(pj.UsageError):
        stencil.timeline(max_bars_per_row=0)


def test_draws_into_given_axes(otf2_data: Path) -> None:
    import matplotlib.pyplot as plt

    trace = pj.Trace.open(otf2_data / "pipit-ping-pong")
    fig, ax = plt.subplots()
    assert trace.timeline(ax=ax) is fig
    assert polygons_by_colour(ax)[CATEGORY_COLORS[Category.USER_CODE]] == 2
    data = np.asarray(ax.get_yticks())
    assert list(data) == [0, 1]
