"""Axial hex coordinates on pointy-top hexes, r growing downward (MAP-010, MAP-020, MAP-030).

Pure functions on (q, r) tuples, and the one home of the hex distance and of the conversion between axial q and
the column of an "odd-r" offset row (the rectangular map of gamemap.py): column c = q + (r - (r & 1)) // 2.
The functions ending in s take numpy integer arrays (whole-map work); the others take ints.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

Tile = tuple[int, int]
IntArray = npt.NDArray[np.integer]

#: The six neighbour offsets in the rules' order: E, W, NE, NW, SE, SW (MAP-020).
DIRECTIONS: tuple[Tile, ...] = ((1, 0), (-1, 0), (1, -1), (0, -1), (0, 1), (-1, 1))
DIRECTION_NAMES: tuple[str, ...] = ("E", "W", "NE", "NW", "SE", "SW")


def neighbours(q: int, r: int) -> list[Tile]:
    """The six neighbours of (q, r) in the rules' order, on an unbounded plane."""
    return [(q + dq, r + dr) for dq, dr in DIRECTIONS]


def distance(a: Tile, b: Tile) -> int:
    """Hex distance = (|dq| + |dr| + |dq + dr|) / 2 (MAP-030)."""
    return hex_len(a[0] - b[0], a[1] - b[1])


def hex_len(dq: int, dr: int) -> int:
    """Hex distance covered by the axial step (dq, dr): (|dq| + |dr| + |dq + dr|) / 2 (MAP-030)."""
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def hex_lens(dq: IntArray, dr: IntArray) -> IntArray:
    """`hex_len` of every pair of two numpy integer arrays (same dtype as the input)."""
    return (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2


def offset_col(q: int, r: int) -> int:
    """Column of the tile (q, r) in its odd-r offset row: q + (r - (r & 1)) // 2."""
    return q + (r - (r & 1)) // 2


def axial_q(col: int, r: int) -> int:
    """Axial q of column `col` of row r (odd-r offset rows): the inverse of `offset_col`."""
    return col - (r - (r & 1)) // 2


def flat_index(q: int, r: int, width: int, height: int) -> int:
    """Index r * width + column of (q, r) on a width x height map of odd-r rows, -1 when off it."""
    c = q + (r - (r & 1)) // 2
    if not (0 <= r < height and 0 <= c < width):
        return -1
    return r * width + c


def offset_cols(q: IntArray, r: IntArray) -> IntArray:
    """`offset_col` of numpy integer arrays."""
    return q + (r - (r & 1)) // 2


def axial_qs(col: IntArray, r: IntArray) -> IntArray:
    """`axial_q` of numpy integer arrays."""
    return col - (r - (r & 1)) // 2


def ring(centre: Tile, radius: int) -> list[Tile]:
    """Tiles at exactly `radius` from `centre`, walking round from the SW corner."""
    if radius == 0:
        return [centre]
    q, r = centre[0] + DIRECTIONS[5][0] * radius, centre[1] + DIRECTIONS[5][1] * radius
    out: list[Tile] = []
    # Walk E, NE, NW, W, SW, SE sides.
    for dq, dr in ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)):
        for _ in range(radius):
            out.append((q, r))
            q, r = q + dq, r + dr
    return out


def spiral(centre: Tile, radius: int) -> Iterator[Tile]:
    """Every tile within `radius` of `centre`, nearest first."""
    for k in range(radius + 1):
        yield from ring(centre, k)


def direction_to(a: Tile, b: Tile) -> Tile:
    """The step (dq, dr) from neighbour `a` to neighbour `b`."""
    return (b[0] - a[0], b[1] - a[1])


def parse_tile(text: str) -> Tile:
    """Parse 'q,r' (spaces and parentheses tolerated) into a tile; raises ValueError."""
    parts = text.strip().strip("()[]").replace(" ", "").split(",")
    if len(parts) != 2:
        raise ValueError(f"not a tile: {text!r} (write q,r)")
    return int(parts[0]), int(parts[1])


def fmt_tile(t: Tile) -> str:
    """Format a tile as '(q,r)' for texts."""
    return f"({t[0]},{t[1]})"
