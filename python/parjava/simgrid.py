"""SimGrid platform files as parjava machines (``Machine.from_simgrid``).

One file then drives both tools: ``smpirun -platform cluster.xml ...`` and
``parjava.Machine.from_simgrid("cluster.xml")``. What is read (docs/networks.md "SimGrid
platforms"):

* ``<cluster>`` (at the top or alone in a ``<zone>``): hosts ``prefix + radical + suffix``,
  ``bw``/``lat``/``sharing_policy`` of every link, ``bb_bw``/``bb_lat``/``bb_sharing_policy``
  of a flat cluster's backbone, ``limiter_link``, ``loopback_bw``/``loopback_lat``, ``core``,
  and ``topology="FAT_TREE|DRAGONFLY|TORUS"`` with its ``topo_parameters``;
* a ``<zone routing="Full">`` of ``<host>``, ``<link>`` and ``<route>`` (``link_ctn`` with
  ``direction`` for split-duplex links, ``symmetrical``);
* ``<config>`` properties of the network model: ``network/model`` (SMPI, the default under
  smpirun, LV08 or CM02), ``smpi/bw-factor``, ``smpi/lat-factor`` (and their
  ``network/bandwidth-factor``, ``network/latency-factor`` names), ``network/weight-S``,
  ``network/TCP-gamma``, ``network/crosstraffic``, ``network/loopback-bw``/``-lat``,
  ``smpi/async-small-thresh``, ``smpi/send-is-detached-thresh``. What the file does not set
  takes SimGrid 3.32's default for that model.

A message then takes SimGrid's time: the route's latency times the latency factor, then the
bytes at the bandwidth factor times the max-min share of every link of the route.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union
from xml.parsers import expat

from .errors import MachineError
from .topology import Topology

PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["SMPI_BANDWIDTH_FACTOR", "SMPI_LATENCY_FACTOR", "machine_document"]

# SimGrid 3.32, src/kernel/resource/models/network_cm02.cpp: the SMPI network model's defaults.
SMPI_BANDWIDTH_FACTOR = (
    "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;"
    "1426:0.608902;732:0.341987;257:0.338112;0:0.812084"
)
SMPI_LATENCY_FACTOR = (
    "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;"
    "1426:1.61075;732:1.9503;257:1.95341;0:2.01467"
)
# (latency factor, bandwidth factor, weight-S) per network/model.
_MODELS = {
    "SMPI": (SMPI_LATENCY_FACTOR, SMPI_BANDWIDTH_FACTOR, 8775.0),
    "LV08": ("13.01", "0.97", 20537.0),
    "CM02": ("1", "1", 0.0),
}
_TCP_GAMMA = 4194304.0  # network/TCP-gamma
_LOOPBACK_BW = 10e9  # network/loopback-bw, bytes/s
_DETACHED = 65536  # smpi/send-is-detached-thresh
# SimGrid models no thread primitives: all of the machine's thread costs are 0.
_THREAD_COSTS = (
    "create",
    "start",
    "lock",
    "try_lock",
    "release",
    "atomic_create",
    "atomic_cas",
    "semaphore_create",
    "copy_per_byte",
    "team_start",
)

_NUMBER = r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z/]*)\s*$"
_PREFIX = {
    "": 1.0,
    "k": 1e3,
    "K": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "E": 1e18,
    "Ki": 2.0**10,
    "Mi": 2.0**20,
    "Gi": 2.0**30,
    "Ti": 2.0**40,
    "Pi": 2.0**50,
}
_TIME = {
    "": 1.0,
    "s": 1.0,
    "ms": 1e-3,
    "us": 1e-6,
    "ns": 1e-9,
    "ps": 1e-12,
    "m": 60.0,
    "h": 3600.0,
    "d": 86400.0,
    "w": 604800.0,
}


@dataclass
class _Element:
    tag: str
    attrs: dict[str, str]
    line: int
    children: list[_Element] = field(default_factory=list)


def _parse(path: Path) -> _Element:
    data = path.read_bytes()
    root = _Element("#document", {}, 0)
    stack = [root]
    parser = expat.ParserCreate()

    def start(tag: str, attrs: dict[str, str]) -> None:
        element = _Element(tag, attrs, parser.CurrentLineNumber)
        stack[-1].children.append(element)
        stack.append(element)

    def end(_tag: str) -> None:
        stack.pop()

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(data, True)
    except expat.ExpatError as error:
        raise MachineError(f"{path}:{error.lineno}: not well-formed XML ({error})") from None
    return root


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, element: _Element | None, message: str) -> MachineError:
        where = f"{self.path}:{element.line}" if element is not None else str(self.path)
        return MachineError(f"{where}: {message}")

    def attr(self, element: _Element, name: str, default: str | None = None) -> str:
        value = element.attrs.get(name, default)
        if value is None:
            raise self.fail(element, f"<{element.tag}> needs the attribute {name}=")
        return value

    def number(self, element: _Element, name: str, text: str, units: str) -> float:
        match = re.match(_NUMBER, text)
        if match is None:
            raise self.fail(element, f"{name}={text!r} is not a number with a unit")
        value, unit = float(match.group(1)), match.group(2)
        if units == "time":
            if unit not in _TIME:
                raise self.fail(element, f"{name}={text!r}: unknown time unit {unit!r}")
            result = value * _TIME[unit]
        elif units == "bandwidth":
            bits = unit.endswith("bps")
            if not (unit.endswith("Bps") or bits) and unit != "":
                raise self.fail(element, f"{name}={text!r}: unknown bandwidth unit {unit!r}")
            prefix = unit[:-3] if unit else ""
            if prefix not in _PREFIX:
                raise self.fail(element, f"{name}={text!r}: unknown bandwidth unit {unit!r}")
            result = value * _PREFIX[prefix] / (8.0 if bits else 1.0)
        else:  # speed, flops
            prefix = unit[:-1] if unit.endswith("f") else unit
            if prefix not in _PREFIX:
                raise self.fail(element, f"{name}={text!r}: unknown speed unit {unit!r}")
            result = value * _PREFIX[prefix]
        if not result >= 0.0 or result != result or result == float("inf"):
            raise self.fail(element, f"{name}={text!r} must be finite and >= 0")
        return result

    def sharing(self, element: _Element, name: str, default: str) -> str:
        text = element.attrs.get(name, default).upper()
        mapping = {
            "SHARED": "shared",
            "SPLITDUPLEX": "splitduplex",
            "FULLDUPLEX": "splitduplex",
            "FATPIPE": "fatpipe",
        }
        if text not in mapping:
            raise self.fail(element, f"{name}={text!r}: expected SHARED, SPLITDUPLEX or FATPIPE")
        return mapping[text]


def _radicals(reader: _Reader, element: _Element, text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        match = re.fullmatch(r"(\d+)(?:\s*-\s*(\d+))?", part)
        if match is None:
            raise reader.fail(element, f"radical={text!r}: expected numbers and ranges like 0-255")
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) else first
        if last < first:
            raise reader.fail(element, f"radical={text!r}: the range {part} is empty")
        out.extend(range(first, last + 1))
    return out


def _walk(element: _Element) -> list[_Element]:
    out = [element]
    for child in element.children:
        out.extend(_walk(child))
    return out


def machine_document(
    path: PathLike,
    *,
    ranks_per_node: int = 1,
    smpi_defaults: bool = True,
    name: str | None = None,
) -> dict[str, Any]:
    """Read a SimGrid platform file into machine JSON (``Machine.from_simgrid`` loads it).

    ``ranks_per_node``: ranks per host (SMPI places rank i on the i-th host of its host file).
    ``smpi_defaults``: apply the SMPI network model's factors and weights when the file does
    not set them (what ``smpirun`` does); False keeps SimGrid's bare CM02 model.
    """
    platform_path = Path(path)
    if not platform_path.is_file():
        raise MachineError(f"{platform_path}: no such SimGrid platform file")
    reader = _Reader(platform_path)
    document = _parse(platform_path)
    platforms = [c for c in document.children if c.tag == "platform"]
    if not platforms:
        raise reader.fail(None, "not a SimGrid platform (no <platform> element)")
    platform = platforms[0]
    version = platform.attrs.get("version", "4")
    if not version.startswith("4"):
        raise reader.fail(platform, f"platform version {version}: parjava reads version 4.x")

    config: dict[str, tuple[str, _Element]] = {}
    for element in _walk(platform):
        if element.tag == "config":
            for prop in element.children:
                if prop.tag == "prop":
                    config[reader.attr(prop, "id")] = (reader.attr(prop, "value"), prop)

    def setting(*keys: str) -> tuple[str, _Element] | None:
        for key in keys:
            if key in config:
                return config[key]
        return None

    model_entry = setting("network/model")
    model = model_entry[0] if model_entry else ("SMPI" if smpi_defaults else "CM02")
    if model not in _MODELS:
        raise reader.fail(
            model_entry[1] if model_entry else None,
            f"network/model {model!r}: parjava reads SMPI, LV08 and CM02 (flow-level models)",
        )
    lat_default, bw_default, weight_default = _MODELS[model]
    lat_entry = setting("smpi/lat-factor", "network/latency-factor")
    bw_entry = setting("smpi/bw-factor", "network/bandwidth-factor")
    weight_entry = setting("network/weight-S")
    gamma_entry = setting("network/TCP-gamma", "network/TCP_gamma")
    cross_entry = setting("network/crosstraffic")

    def config_number(entry: tuple[str, _Element] | None, default: float, what: str) -> float:
        if entry is None:
            return default
        try:
            value = float(entry[0])
        except ValueError:
            raise reader.fail(entry[1], f"{what}={entry[0]!r} is not a number") from None
        if not value >= 0.0:
            raise reader.fail(entry[1], f"{what} must be >= 0")
        return value

    flow: dict[str, Any] = {
        "latency_factor": lat_entry[0] if lat_entry else lat_default,
        "bandwidth_factor": bw_entry[0] if bw_entry else bw_default,
        "weight_s": config_number(weight_entry, weight_default, "network/weight-S"),
        "tcp_gamma": config_number(gamma_entry, _TCP_GAMMA, "network/TCP-gamma"),
        "crosstraffic": (cross_entry[0].lower() in ("1", "yes", "true", "on"))
        if cross_entry
        else True,
    }
    async_small = int(config_number(setting("smpi/async-small-thresh"), 0, "async-small-thresh"))
    detached = int(
        config_number(setting("smpi/send-is-detached-thresh"), _DETACHED, "detached-thresh")
    )
    eager_limit = max(async_small, detached) - 1 if max(async_small, detached) > 0 else 0
    loopback_bw = config_number(
        _bandwidth_setting(reader, setting("network/loopback-bw")), _LOOPBACK_BW, "loopback-bw"
    )
    loopback_lat = config_number(
        _time_setting(reader, setting("network/loopback-lat")), 0.0, "loopback-lat"
    )

    clusters = [e for e in _walk(platform) if e.tag == "cluster"]
    hosts = [e for e in _walk(platform) if e.tag == "host"]
    notes: list[str] = []
    if async_small < detached:
        notes.append(
            f"SMPI starts messages below smpi/async-small-thresh ({async_small} B) only when "
            f"matched; parjava sends messages up to {eager_limit} B eagerly (SMPI detaches them)"
        )
    if clusters:
        if len(clusters) > 1 or hosts:
            raise reader.fail(
                clusters[1] if len(clusters) > 1 else hosts[0],
                "parjava reads one <cluster>, or hosts, links and routes in one zone, per "
                "platform (several clusters or zones connected by zone routes are not read)",
            )
        machine_parts = _cluster(reader, clusters[0], flow)
    else:
        machine_parts = _full_zone(reader, platform, flow)
    topology, host_names, cores, link_bw, loop, description = machine_parts
    if loop is not None:
        loopback_bw, loopback_lat = loop

    def hockney(latency: float, bandwidth: float) -> dict[str, Any]:
        return {
            "kind": "hockney",
            "latency": latency,
            "bandwidth": bandwidth,
            "eager_limit": eager_limit,
        }

    nodes = len(host_names)
    document: dict[str, Any] = {
        "schema_version": 1,
        "name": name or platform_path.stem,
        "description": (
            f"SimGrid platform {platform_path.name} ({model} network model): {description}"
            + "".join(f"; {n}" for n in notes)
        ),
        "sources": [f"SimGrid platform file {platform_path}"],
        "nodes": nodes,
        "cores_per_node": max(cores, ranks_per_node),
        "ranks_per_node": ranks_per_node,
        "power": 1.0,
        "intra_node": hockney(loopback_lat, loopback_bw),
        "inter_node": hockney(0.0, link_bw) if nodes > 1 else None,
        "threads": dict.fromkeys(_THREAD_COSTS, 0.0),
        "node_names": host_names,
    }
    if nodes > 1:
        document["topology"] = topology.to_dict()
    return document


def _bandwidth_setting(
    reader: _Reader, entry: tuple[str, _Element] | None
) -> tuple[str, _Element] | None:
    if entry is None:
        return None
    return (repr(reader.number(entry[1], "network/loopback-bw", entry[0], "bandwidth")), entry[1])


def _time_setting(
    reader: _Reader, entry: tuple[str, _Element] | None
) -> tuple[str, _Element] | None:
    if entry is None:
        return None
    return (repr(reader.number(entry[1], "network/loopback-lat", entry[0], "time")), entry[1])


def _cluster(
    reader: _Reader, cluster: _Element, flow: dict[str, Any]
) -> tuple[Topology, list[str], int, float, tuple[float, float] | None, str]:
    prefix = cluster.attrs.get("prefix", "")
    suffix = cluster.attrs.get("suffix", "")
    radicals = _radicals(reader, cluster, reader.attr(cluster, "radical"))
    names = [f"{prefix}{r}{suffix}" for r in radicals]
    bw = reader.number(cluster, "bw", reader.attr(cluster, "bw"), "bandwidth")
    lat = reader.number(cluster, "lat", reader.attr(cluster, "lat"), "time")
    if bw <= 0.0:
        raise reader.fail(cluster, "bw must be > 0")
    sharing = reader.sharing(cluster, "sharing_policy", "SPLITDUPLEX")
    cores = int(cluster.attrs.get("core", "1"))
    speed = reader.attr(cluster, "speed", "1f")
    link = {"bandwidth": bw, "latency": lat, "sharing": sharing}
    limiter = 0.0
    if "limiter_link" in cluster.attrs:
        limiter = reader.number(cluster, "limiter_link", cluster.attrs["limiter_link"], "bandwidth")
    loop = None
    if "loopback_bw" in cluster.attrs or "loopback_lat" in cluster.attrs:
        loop = (
            reader.number(
                cluster, "loopback_bw", cluster.attrs.get("loopback_bw", "0"), "bandwidth"
            ),
            reader.number(cluster, "loopback_lat", cluster.attrs.get("loopback_lat", "0"), "time"),
        )
        if loop[0] <= 0.0:
            loop = (_LOOPBACK_BW, loop[1])
    kind = cluster.attrs.get("topology", "FLAT").upper()
    document: dict[str, Any]
    if kind == "FLAT":
        document = {"kind": "star", "link": link, "limiter": limiter, "flow": flow}
        bb_bw = cluster.attrs.get("bb_bw")
        bb_lat = cluster.attrs.get("bb_lat")
        if bb_bw is not None or bb_lat is not None:
            document["backbone"] = {
                "bandwidth": reader.number(cluster, "bb_bw", bb_bw or "0", "bandwidth"),
                "latency": reader.number(cluster, "bb_lat", bb_lat or "0", "time"),
                "sharing": reader.sharing(cluster, "bb_sharing_policy", "SHARED"),
            }
            if document["backbone"]["bandwidth"] <= 0.0:
                raise reader.fail(cluster, "bb_bw must be > 0 when a backbone is given")
    elif kind in ("FAT_TREE", "DRAGONFLY", "TORUS"):
        parameters = reader.attr(cluster, "topo_parameters")
        document = {
            "kind": kind.lower(),
            "parameters": parameters,
            "link": link,
            "limiter": limiter,
            "flow": flow,
        }
    else:
        raise reader.fail(
            cluster, f"topology={kind!r}: expected FLAT, FAT_TREE, DRAGONFLY or TORUS"
        )
    try:
        topology = Topology.from_dict(document)
    except MachineError as error:
        raise reader.fail(
            cluster, f"<cluster id={cluster.attrs.get('id', '')!r}>: {error}"
        ) from None
    capacity = topology.capacity
    if capacity and capacity != len(names):
        raise reader.fail(
            cluster,
            f"the {kind} topology {cluster.attrs.get('topo_parameters')} connects {capacity} "
            f"hosts but radical gives {len(names)} (SimGrid needs them equal)",
        )
    description = (
        f"cluster {cluster.attrs.get('id', '')!r} of {len(names)} hosts of {speed}, "
        f"{topology.describe()}"
    )
    return topology, names, cores, bw, loop, description


def _full_zone(
    reader: _Reader, platform: _Element, flow: dict[str, Any]
) -> tuple[Topology, list[str], int, float, tuple[float, float] | None, str]:
    zones = [e for e in _walk(platform) if e.tag == "zone" or e.tag == "AS"]
    if not zones:
        raise reader.fail(platform, "no <cluster> and no <zone>: nothing to read")
    for zone in zones:
        routing = zone.attrs.get("routing", "")
        if any(c.tag in ("zone", "AS") for c in zone.children):
            raise reader.fail(zone, "nested zones are not read by parjava (one zone per file)")
        if routing != "Full" and any(c.tag == "route" for c in zone.children):
            raise reader.fail(
                zone, f'routing={routing!r}: parjava reads explicit routes of routing="Full"'
            )
    hosts = [e for e in _walk(platform) if e.tag == "host"]
    if not hosts:
        raise reader.fail(zones[0], "the zone has no <host>")
    names = [reader.attr(h, "id") for h in hosts]
    index = {n: i for i, n in enumerate(names)}
    links: list[dict[str, Any]] = []
    link_index: dict[str, int] = {}
    for element in _walk(platform):
        if element.tag != "link":
            continue
        link_id = reader.attr(element, "id")
        bw = reader.number(element, "bandwidth", reader.attr(element, "bandwidth"), "bandwidth")
        if bw <= 0.0:
            raise reader.fail(element, "bandwidth must be > 0")
        lat = reader.number(element, "latency", element.attrs.get("latency", "0"), "time")
        link_index[link_id] = len(links)
        links.append(
            {
                "name": link_id,
                "bandwidth": bw,
                "latency": lat,
                "sharing": reader.sharing(element, "sharing_policy", "SHARED"),
            }
        )
    routes: dict[tuple[int, int], list[list[Any]]] = {}
    for element in _walk(platform):
        if element.tag != "route":
            continue
        src, dst = reader.attr(element, "src"), reader.attr(element, "dst")
        for end in (src, dst):
            if end not in index:
                raise reader.fail(element, f"route end {end!r} is not a <host> of the zone")
        hops: list[list[Any]] = []
        for ctn in element.children:
            if ctn.tag != "link_ctn":
                continue
            link_id = reader.attr(ctn, "id")
            if link_id not in link_index:
                raise reader.fail(ctn, f"unknown link {link_id!r}")
            direction = ctn.attrs.get("direction", "UP").upper()
            if direction not in ("UP", "DOWN", "NONE"):
                raise reader.fail(ctn, f"direction={direction!r}: expected UP, DOWN or NONE")
            hops.append([link_index[link_id], "down" if direction == "DOWN" else "up"])
        a, b = index[src], index[dst]
        routes[(a, b)] = hops
        if element.attrs.get("symmetrical", "YES").upper() in ("YES", "TRUE", "1"):
            back = [[h[0], "up" if h[1] == "down" else "down"] for h in reversed(hops)]
            for link_number, hop in zip([h[0] for h in reversed(hops)], back):
                if links[link_number]["sharing"] != "splitduplex":
                    hop[1] = "up"
            routes.setdefault((b, a), back)
    document = {
        "kind": "routes",
        "nodes": len(names),
        "links": links,
        "routes": [{"source": a, "destination": b, "links": h} for (a, b), h in routes.items()],
        "flow": flow,
    }
    topology = Topology.from_dict(document)
    cores = max(int(h.attrs.get("core", "1")) for h in hosts)
    link_bw = max((link["bandwidth"] for link in links), default=1e9)
    description = f"{len(names)} hosts, {len(links)} links, {len(routes)} routes (Full routing)"
    return topology, names, cores, link_bw, None, description
