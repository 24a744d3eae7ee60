"""Seeded mutations of valid inputs, for the reader fuzzers of this directory.

Each case is reproducible from ``(seed, case)``: :func:`mutate` applies one to three
operators to a valid file's bytes - bit flips, bytes that are special for parsers (0x00,
0xFF, a lone UTF-8 continuation byte, an overlong or surrogate sequence), truncation, chunks
deleted, duplicated or overwritten with random bytes, numbers swapped for extreme ones, lines
deleted or duplicated - and :func:`mutate_json` also changes a JSON document's structure
(a value of the wrong type, a key removed, an extreme number) before the byte operators.
"""

from __future__ import annotations

import copy
import json
import random
import re
from typing import Any

# Byte strings parsers trip over: NUL, 0xFF, a lone continuation byte, an invalid lead byte
# pair, an overlong '/', a UTF-16 surrogate encoded in UTF-8, a truncated 3-byte sequence.
SPECIAL = [b"\x00", b"\xff", b"\x80", b"\xc3\x28", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82"]
EXTREME_NUMBERS = [
    b"0",
    b"-1",
    b"-0",
    b"4294967295",
    b"4294967296",
    b"9223372036854775807",
    b"9223372036854775808",
    b"18446744073709551616",
    b"-9223372036854775809",
    b"1e308",
    b"1e309",
    b"-1e309",
    b"nan",
    b"inf",
    b"1e-320",
    b"99999999999999999999999999999999",
]
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _flip(rng: random.Random, data: bytearray) -> None:
    if data:
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)


def _special(rng: random.Random, data: bytearray) -> None:
    i = rng.randrange(len(data) + 1)
    piece = rng.choice(SPECIAL)
    if rng.random() < 0.5:
        data[i:i] = piece
    else:
        data[i : i + len(piece)] = piece


def _truncate(rng: random.Random, data: bytearray) -> None:
    del data[rng.randrange(len(data) + 1) :]


def _delete(rng: random.Random, data: bytearray) -> None:
    if data:
        i = rng.randrange(len(data))
        del data[i : i + rng.randint(1, 64)]


def _duplicate(rng: random.Random, data: bytearray) -> None:
    if data:
        i = rng.randrange(len(data))
        chunk = data[i : i + rng.randint(1, 64)]
        j = rng.randrange(len(data) + 1)
        data[j:j] = chunk


def _random_bytes(rng: random.Random, data: bytearray) -> None:
    if data:
        i = rng.randrange(len(data))
        n = rng.randint(1, 16)
        data[i : i + n] = bytes(rng.randrange(256) for _ in range(n))


def _number(rng: random.Random, data: bytearray) -> None:
    numbers = list(_NUMBER.finditer(bytes(data)))
    if numbers:
        m = rng.choice(numbers)
        data[m.start() : m.end()] = rng.choice(EXTREME_NUMBERS)
    else:
        _flip(rng, data)


def _lines(rng: random.Random, data: bytearray) -> None:
    lines = bytes(data).split(b"\n")
    if len(lines) < 2:
        _delete(rng, data)
        return
    i = rng.randrange(len(lines))
    if rng.random() < 0.5:
        del lines[i]
    else:
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
    data[:] = b"\n".join(lines)


BYTE_OPERATORS = [_flip, _special, _truncate, _delete, _duplicate, _random_bytes]
# Text formats reject most byte damage at once; changed numbers and lines keep the syntax and
# reach the checks behind it, so they are drawn as often as all byte operators together.
TEXT_OPERATORS = [*BYTE_OPERATORS, *[_number] * 4, *[_lines] * 2]


def case_rng(seed: int, case: int) -> random.Random:
    """The generator of one case: reproducible, independent of the other cases."""
    return random.Random(seed * 1_000_003 + case)


def mutate(rng: random.Random, data: bytes, text: bool = False) -> bytes:
    """Apply one to three mutation operators to ``data`` (mostly one)."""
    out = bytearray(data)
    operators = TEXT_OPERATORS if text else BYTE_OPERATORS
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        rng.choice(operators)(rng, out)
    return bytes(out)


_WRONG_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    2**64,
    -(2**63) - 1,
    1.5,
    1e308,
    "",
    "x",
    "1 GB/s",
    "-3 us",
    [],
    {},
    [None],
    {"": None},
]


def _paths(document: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(document, dict):
        for key, value in document.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            out += _paths(value, (*prefix, index))
    return out


def mutate_json(rng: random.Random, data: bytes) -> bytes:
    """Change a JSON document's structure (half the cases), then maybe its bytes."""
    if rng.random() < 0.5:
        return mutate(rng, data, text=True)
    document = json.loads(data)
    for _ in range(rng.choice((1, 1, 2))):
        paths = _paths(document)
        path = rng.choice(paths[1:] or paths)
        if not path:
            document = copy.deepcopy(rng.choice(_WRONG_VALUES))
            continue
        parent = document
        for step in path[:-1]:
            parent = parent[step]
        if isinstance(parent, dict) and rng.random() < 0.3:
            del parent[path[-1]]
        elif isinstance(parent, list) and rng.random() < 0.2:
            parent.insert(path[-1], copy.deepcopy(parent[path[-1]]))
        else:
            parent[path[-1]] = copy.deepcopy(rng.choice(_WRONG_VALUES))
    text = json.dumps(document).encode()
    return mutate(rng, text, text=True) if rng.random() < 0.15 else text
