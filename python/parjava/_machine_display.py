"""Text and HTML views of a :class:`parjava.Machine` (its repr, summary and ping-pong table)."""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING

from ._core_loader import load_core

if TYPE_CHECKING:
    from .machine import Machine, Network

_core = load_core()
format_time = _core.format_time
format_bandwidth = _core.format_bandwidth
format_size = _core.format_size


def _network_line(network: Network | None) -> str:
    if network is None:
        return "none (single node)"
    return str(network._core.describe())


def _fit_lines(machine: Machine) -> list[str]:
    measurement = machine.measurement
    if measurement is None:
        return []
    lines = []
    for series in measurement["ping_pong"]:
        pair = series["pair"].replace("_", "-")
        h = series["hockney"]
        if h["bandwidth"] > 0:
            lines.append(
                f"  {pair} Hockney fit: latency {format_time(h['latency'])}, bandwidth "
                f"{format_bandwidth(h['bandwidth'])} (relative error rms "
                f"{h['error']['rms_relative']:.0%}, max {h['error']['max_relative']:.0%} at "
                f"{format_size(h['error']['worst_bytes'])})"
            )
        g = series["loggp"]
        if g is not None:
            lines.append(
                f"  {pair} LogGP fit: L {format_time(g['L'])}, o {format_time(g['o'])}, "
                f"g {format_time(g['g'])}, G {format_time(g['G'])}/B, O {format_time(g['O'])}/B"
                f" (rms {g['error']['rms_relative']:.0%})"
            )
        lines.append(
            f"  {pair} eager limit: {format_size(series['eager_limit'])} "
            f"({series['eager_limit_source']})"
        )
    return lines


def _point_rows(machine: Machine) -> list[tuple[str, str, str, str, str]]:
    measurement = machine.measurement
    if measurement is None:
        return []
    rows = []
    for series in measurement["ping_pong"]:
        for point in series["points"]:
            seconds = point["seconds"]
            rows.append(
                (
                    series["pair"].replace("_", "-"),
                    format_size(point["bytes"]),
                    format_time(seconds),
                    f"±{point['ci95'] / seconds:.1%}" if seconds > 0 else "",
                    format_bandwidth(point["bytes"] / seconds) if point["bytes"] else "",
                )
            )
    return rows


def _summary_text(machine: Machine) -> str:
    lines = [
        f"Machine {machine.name!r}: {machine.nodes} node(s) x {machine.cores_per_node} cores, "
        f"{machine.ranks_per_node} ranks per node, power {machine.power:g}",
    ]
    measurement = machine.measurement
    if machine.description and measurement is None:
        lines.append(f"  {machine.description}")
    lines.append(f"  intra-node: {_network_line(machine.intra_node)}")
    lines.append(f"  inter-node: {_network_line(machine.inter_node)}")
    lines.append(
        f"  topology: {machine._core.topology_description}; placement "
        f"{json.loads(machine._core.placement_json)['kind']}; "
        + ("NICs shared by a node's ranks" if machine.endpoint_contention else "NICs not shared")
    )
    t = machine.threads.to_dict()
    lines.append(
        "  threads: create {create}, start {start}, lock {lock}, try_lock {try_lock}, "
        "release {release}, atomic create {atomic_create}, CAS {atomic_cas}, semaphore "
        "{semaphore_create}, copy {copy}/B, OpenMP region {team_start} per thread".format(
            **{k: format_time(v) for k, v in t.items() if k != "copy_per_byte"},
            copy=format_time(t["copy_per_byte"]),
        )
    )
    lines += _fit_lines(machine)
    if measurement is not None:
        lines.append(
            f"  measured by {measurement['tool']} ({measurement['mode']}) on "
            f"{measurement['host']}, {measurement['ranks']} ranks, {measurement['mpi_library']}, "
            f"{measurement['date']}, {measurement['duration_seconds']:.1f} s"
        )
        for note in measurement["notes"]:
            lines.append(f"  note: {note}")
    elif machine.sources:
        lines.append("  sources: " + "; ".join(machine.sources))
    return "\n".join(lines)


def ping_pong_text(machine: Machine) -> str:
    """Return the measured ping-pong table as aligned text (empty when not measured)."""
    rows = _point_rows(machine)
    if not rows:
        return ""
    header = ("network", "size", "one-way", "95% CI", "bandwidth")
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))]
    out = ["  ".join(h.rjust(w) for h, w in zip(header, widths))]
    out += ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in rows]
    return "\n".join(out)


def _summary_html(machine: Machine) -> str:
    esc = html.escape
    rows = "".join(
        f"<tr><th style='text-align:left'>{esc(k)}</th>"
        f"<td style='text-align:left'>{esc(v)}</td></tr>"
        for k, v in [
            (
                "layout",
                f"{machine.nodes} node(s) x {machine.cores_per_node} cores, "
                f"{machine.ranks_per_node} ranks per node",
            ),
            ("intra-node", _network_line(machine.intra_node)),
            ("inter-node", _network_line(machine.inter_node)),
            ("threads", repr(machine.threads)),
            ("power", f"{machine.power:g}"),
        ]
    )
    fits = "".join(f"<li>{esc(line.strip())}</li>" for line in _fit_lines(machine))
    points = _point_rows(machine)
    table = ""
    if points:
        body = "".join(
            "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in points
        )
        table = (
            "<details><summary>measured ping-pong table</summary><table>"
            "<tr><th>network</th><th>size</th><th>one-way</th><th>95% CI</th>"
            f"<th>bandwidth</th></tr>{body}</table></details>"
        )
    description = f"<p>{esc(machine.description)}</p>" if machine.description else ""
    return (
        f"<div><strong>Machine {esc(machine.name)}</strong>{description}"
        f"<table>{rows}</table>{'<ul>' + fits + '</ul>' if fits else ''}{table}</div>"
    )
