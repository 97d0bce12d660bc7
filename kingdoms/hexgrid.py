"""Axial hex coordinates on pointy-top hexes, r growing downward (MAP-010, MAP-020, MAP-030).

Pure functions on (q, r) tuples; the rectangular map layout lives in gamemap.py.
"""

from __future__ import annotations

from collections.abc import Iterator

Tile = tuple[int, int]

#: The six neighbour offsets in the rules' order: E, W, NE, NW, SE, SW (MAP-020).
DIRECTIONS: tuple[Tile, ...] = ((1, 0), (-1, 0), (1, -1), (0, -1), (0, 1), (-1, 1))
DIRECTION_NAMES: tuple[str, ...] = ("E", "W", "NE", "NW", "SE", "SW")


def neighbours(q: int, r: int) -> list[Tile]:
    """The six neighbours of (q, r) in the rules' order, on an unbounded plane."""
    return [(q + dq, r + dr) for dq, dr in DIRECTIONS]


def distance(a: Tile, b: Tile) -> int:
    """Hex distance = (|dq| + |dr| + |dq + dr|) / 2 (MAP-030)."""
    dq = a[0] - b[0]
    dr = a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


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
