"""Read an OTF2 archive through `otf2-print` (the OTF2 library's own reader) for tests.

Independent of parjava's reader: the tracer tests check what the OTF2 library itself sees.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

_EVENT = re.compile(r"^([A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$")
_SITE = re.compile(r'SOURCE_CODE_LOCATION; "(.*):(\d+)"')
_FIELD = re.compile(
    r"(Region|Communicator|Window|Operation|Receiver|Sender|Tag|Length|Request|"
    r"Lock|Root|Sent|Received|Exit status|Remote|Level of Synchronicity): "
    r'("[^"]*"(?: <\d+>)?|\{[^}]*\}|[^,]+)'
)


@dataclass
class Event:
    kind: str
    location: int
    time: int
    text: str
    fields: dict[str, str] = field(default_factory=dict)
    callsite: tuple[str, int] | None = None

    @property
    def region(self) -> str:
        value = self.fields.get("Region", "")
        return value.split('"')[1] if '"' in value else value

    def number(self, name: str) -> int:
        return int(self.fields[name].split()[0])


@dataclass
class Archive:
    events: list[Event]
    definitions: str
    stderr: str

    def of(self, kind: str, location: int | None = None) -> list[Event]:
        return [
            e
            for e in self.events
            if e.kind == kind and (location is None or e.location == location)
        ]

    def enters(self, region: str, location: int | None = None) -> list[Event]:
        return [e for e in self.of("ENTER", location) if e.region == region]

    def enter_counts(self) -> Counter[tuple[int, str]]:
        return Counter((e.location, e.region) for e in self.of("ENTER"))


def otf2_print() -> str:
    found = shutil.which("otf2-print")
    if found is None:
        raise RuntimeError("otf2-print is not installed (apt-get install otf2-tools)")
    return found


def read(archive: Path) -> Archive:
    """Events and definitions of `archive` as otf2-print shows them."""
    proc = subprocess.run(
        [otf2_print(), "-A", str(archive)], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise AssertionError(f"otf2-print failed on {archive}:\n{proc.stderr}")
    head, _, body = proc.stdout.partition("=== Events ===")
    events: list[Event] = []
    for line in body.splitlines():
        match = _EVENT.match(line)
        if match:
            kind, loc, time, rest = match.groups()
            fields = {k: v.strip() for k, v in _FIELD.findall(rest)}
            events.append(Event(kind, int(loc), int(time), rest, fields))
        elif "ADDITIONAL ATTRIBUTES" in line and events:
            site = _SITE.search(line)
            if site:
                events[-1].callsite = (site.group(1), int(site.group(2)))
    return Archive(events, head, proc.stderr)


def marker_line(source: Path, name: str) -> int:
    """Line of the call after the comment `callsite: <name>` in an example source."""
    for number, line in enumerate(source.read_text().splitlines(), start=1):
        if re.search(rf"callsite: {re.escape(name)}\b", line):
            return number + 1
    raise AssertionError(f"no 'callsite: {name}' marker in {source}")
