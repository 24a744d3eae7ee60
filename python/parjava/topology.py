"""How the nodes of a machine are wired (``parjava.Topology``), and where ranks run.

A topology other than the crossbar has links that the messages crossing them share max-min
fairly (SimGrid's flow-level model; docs/networks.md)::

    import parjava as pj
    edr = pj.Machine.preset("infiniband-edr")            # a two-level fat tree of 36-port switches
    tapered = edr.with_topology(pj.Topology.fat_tree(radix=36, levels=2, taper=2))
    torus = edr.with_layout(nodes=512).with_topology(pj.Topology.torus([8, 8, 8], latency="100 ns"))
    pj.Topology.torus([4, 4]).route(0, 10)               # the links a message crosses
    spread = edr.with_placement("round_robin")            # or with_placement(file="hosts.txt")

Bandwidths and latencies take units (``"100 Gb/s"``, ``"90 ns"``); a link bandwidth of 0 (the
default) means the machine's inter-node network bandwidth.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Union

from ._core_loader import load_core
from .errors import UsageError

_core = load_core()

Quantity = Union[float, int, str]

__all__ = ["Topology"]

_SHARING = ("shared", "splitduplex", "fatpipe")


def _link(bandwidth: Quantity, latency: Quantity, sharing: str) -> dict[str, Any]:
    if sharing not in _SHARING:
        raise UsageError(f"sharing must be one of {', '.join(_SHARING)}, got {sharing!r}")
    return {"bandwidth": bandwidth, "latency": latency, "sharing": sharing}


class Topology:
    """A topology: crossbar, flat cluster (star), fat tree, dragonfly, torus or explicit routes.

    Build one with the class methods; ``to_dict()`` gives its JSON form (the ``topology`` member
    of a machine file, docs/guide/machine.md, "Machine JSON").
    """

    def __init__(self, document: dict[str, Any]) -> None:
        # Validated (and normalised: units to SI, shorthands expanded) by the C++ reader.
        self._json = str(_core.topology_normalize(json.dumps(document)))
        self._document: dict[str, Any] = json.loads(self._json)

    # ------------------------------------------------------------------ constructors

    @classmethod
    def crossbar(cls) -> Topology:
        """Every node reaches every other at its NIC's rate; only the NICs are shared."""
        return cls({"kind": "crossbar"})

    @classmethod
    def star(
        cls,
        bandwidth: Quantity = 0,
        latency: Quantity = 0,
        *,
        sharing: str = "splitduplex",
        backbone_bandwidth: Quantity | None = None,
        backbone_latency: Quantity = 0,
        backbone_sharing: str = "shared",
        limiter: Quantity = 0,
    ) -> Topology:
        """Return a flat cluster (SimGrid's ``<cluster>``): private links, optional backbone."""
        document: dict[str, Any] = {
            "kind": "star",
            "link": _link(bandwidth, latency, sharing),
            "limiter": limiter,
        }
        if backbone_bandwidth is not None:
            document["backbone"] = _link(backbone_bandwidth, backbone_latency, backbone_sharing)
        return cls(document)

    @classmethod
    def fat_tree(
        cls,
        radix: int | None = None,
        levels: int | None = None,
        taper: float = 1.0,
        *,
        down: Sequence[int] | None = None,
        up: Sequence[int] | None = None,
        parallel: Sequence[int] | None = None,
        bandwidth: Quantity = 0,
        latency: Quantity = 0,
        sharing: str = "splitduplex",
    ) -> Topology:
        """Return a fat tree of ``radix``-port switches in ``levels`` levels.

        ``taper`` >= 1 thins the uplinks (2: 2:1 oversubscribed); or give the PGFT vectors
        ``down``, ``up``, ``parallel`` of SimGrid's FAT_TREE. Routed D-mod-k like SimGrid.
        """
        link = _link(bandwidth, latency, sharing)
        if radix is not None:
            if levels is None:
                raise UsageError("fat_tree(radix=...) needs levels=")
            return cls(
                {"kind": "fat_tree", "radix": radix, "levels": levels, "taper": taper, "link": link}
            )
        if down is None or up is None:
            raise UsageError("fat_tree needs radix= and levels=, or down=, up= (and parallel=)")
        par = list(parallel) if parallel is not None else [1] * len(down)
        return cls(
            {"kind": "fat_tree", "down": list(down), "up": list(up), "parallel": par, "link": link}
        )

    @classmethod
    def dragonfly(
        cls,
        groups: int,
        chassis: int,
        routers: int,
        nodes: int,
        *,
        group_links: int = 1,
        chassis_links: int = 1,
        router_links: int = 1,
        routing: str = "minimal",
        bandwidth: Quantity = 0,
        latency: Quantity = 0,
        sharing: str = "splitduplex",
    ) -> Topology:
        """Return a dragonfly in SimGrid's shape (groups of chassis of routers of nodes).

        Routing ``"minimal"`` or ``"valiant"``.
        """
        return cls(
            {
                "kind": "dragonfly",
                "groups": groups,
                "group_links": group_links,
                "chassis": chassis,
                "chassis_links": chassis_links,
                "routers": routers,
                "router_links": router_links,
                "nodes": nodes,
                "routing": routing,
                "link": _link(bandwidth, latency, sharing),
            }
        )

    @classmethod
    def torus(
        cls,
        dimensions: Sequence[int],
        *,
        bandwidth: Quantity = 0,
        latency: Quantity = 0,
        sharing: str = "splitduplex",
    ) -> Topology:
        """Return a 1-D, 2-D or 3-D (or more) torus with dimension-order routing."""
        return cls(
            {
                "kind": "torus",
                "dimensions": list(dimensions),
                "link": _link(bandwidth, latency, sharing),
            }
        )

    @classmethod
    def from_dict(cls, document: dict[str, Any]) -> Topology:
        """Return a topology from its JSON form (docs/guide/machine.md, "Machine JSON")."""
        return cls(dict(document))

    # ------------------------------------------------------------------ queries

    @property
    def kind(self) -> str:
        """``crossbar``, ``star``, ``fat_tree``, ``dragonfly``, ``torus`` or ``routes``."""
        return str(self._document["kind"])

    @property
    def capacity(self) -> int:
        """The most nodes it connects (0: unlimited)."""
        kind = self.kind
        d = self._document
        if kind == "fat_tree":
            result = 1
            for count in d["down"]:
                result *= int(count)
            return result
        if kind == "dragonfly":
            return int(d["groups"]) * int(d["chassis"]) * int(d["routers"]) * int(d["nodes"])
        if kind == "torus":
            result = 1
            for count in d["dimensions"]:
                result *= int(count)
            return result
        if kind == "routes":
            return int(d["nodes"])
        return 0

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form, in SI units."""
        return json.loads(self._json)

    def route(
        self, a: int, b: int, nodes: int | None = None, bandwidth: Quantity = 1e9, salt: int = 0
    ) -> list[tuple[str, float, float]]:
        """Return the links from node ``a`` to ``b``: (name, bandwidth B/s, latency s) each.

        ``nodes`` defaults to the capacity (or ``max(a, b) + 1``); ``bandwidth`` stands for
        links given as 0 (the network's); ``salt`` picks Valiant's intermediate group.
        """
        count = nodes if nodes is not None else (self.capacity or max(a, b) + 1)
        bw = float(_core.parse_quantity(str(bandwidth), _core.Dimension.Bandwidth, "bandwidth"))
        return [
            (str(n), float(w), float(t))
            for n, w, t in _core.topology_route(self._json, count, bw, a, b, salt)
        ]

    def describe(self) -> str:
        """One line, e.g. ``2-level fat tree of 36-port switches (2;18,36;1,18;1,1, 648 nodes)``."""
        return str(_core.topology_describe(self._json))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Topology) and self._document == other._document

    def __hash__(self) -> int:
        return hash(self._json)

    def __repr__(self) -> str:
        return f"Topology({self.describe()})"
