"""Sight masks per kingdom, vectorised over the flat map arrays (INTEL-010, INTEL-070, INTEL-080, INTEL-090, INTEL-150).

Three boolean masks over the map's flat indices describe what a kingdom sees this instant:

- `visible`: tiles in sight — troops and civilians 2 tiles, scouts 4, travelling spies 1, cities 2, all own
  land plus one tile beyond the border (INTEL-010), and 2 tiles around every foreign city one of its spies is
  stationed in (INTEL-150).
- `watched`: tiles whose troops it knows exactly — within 4 of a scout (INTEL-080), 1 of a travelling spy
  (INTEL-090), 2 of a foreign city holding one of its stationed spies (INTEL-150).
- `spy_eye`: tiles a spy sees into, the only way to know the troops inside a foreign city (INTEL-070, OPEN-30):
  within 1 of a travelling spy, and the tile of a foreign city holding one of its stationed spies.

Distance-k neighbourhoods are precomputed once per map as (n, 3k(k+1)+1) index tables (off-map = n, a
sentinel slot) and cached against the map object, so a mask is a handful of numpy fancy-index writes.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.frozen import record
from kingdoms.gamemap import GameMap
from kingdoms.hexgrid import flat_index, hex_len, offset_cols, spiral
from kingdoms.state import GameState

#: Cache of neighbourhood tables by map layout: (width, height) -> {radius: (n, m) int32 table}. A table reads
#: only the layout (every map of that size, a kingdom's believed maps included, shares it), so it never
#: changes a game's outcome; a handful of sizes a process ever meets.
_TABLES: dict[tuple[int, int], dict[int, np.ndarray]] = {}


@record
class Sight:
    """What one kingdom sees now: `visible`, `watched` (exact numbers) and `spy_eye` masks over flat indices."""

    kingdom: str
    visible: np.ndarray
    watched: np.ndarray
    spy_eye: np.ndarray

    def sees(self, gm: GameMap, q: int, r: int) -> bool:
        """True when tile (q, r) is in sight."""
        i = gm.index(q, r)
        return i >= 0 and bool(self.visible[i])

    def watches(self, gm: GameMap, q: int, r: int) -> bool:
        """True when the troops on tile (q, r) are known exactly (outside foreign cities)."""
        i = gm.index(q, r)
        return i >= 0 and bool(self.watched[i])

    def spies_on(self, gm: GameMap, q: int, r: int) -> bool:
        """True when a spy of the kingdom sees into tile (q, r) (a foreign city's garrison)."""
        i = gm.index(q, r)
        return i >= 0 and bool(self.spy_eye[i])


def neighbourhood(gm: GameMap, radius: int) -> np.ndarray:
    """(n, m) table of the flat indices within `radius` of each tile (nearest first); off-map entries = n."""
    layout = (gm.width, gm.height)
    per_map = _TABLES.get(layout)
    if per_map is None:
        per_map = _TABLES[layout] = {}
    table = per_map.get(radius)
    if table is None:
        n = gm.size
        offsets = list(spiral((0, 0), radius))
        table = np.full((n, len(offsets)), n, dtype=np.int32)
        for k, (dq, dr) in enumerate(offsets):
            q2 = gm.q_of + dq
            r2 = gm.r_of + dr
            c2 = offset_cols(q2, r2)
            ok = (r2 >= 0) & (r2 < gm.height) & (c2 >= 0) & (c2 < gm.width)
            table[ok, k] = r2[ok] * gm.width + c2[ok]
        table.flags.writeable = False
        per_map[radius] = table
    return table


def _city_kingdom_table(state: GameState, kingdoms: list[str]) -> np.ndarray:
    """Array city id -> position of its owner in `kingdoms` (-1 for bandits, other sides and unused ids)."""
    pos = {k: n for n, k in enumerate(kingdoms)}
    top = max(state.cities, default=0) + 1
    table = [-1] * (top + 1)  # last slot: a free tile (owner -1 indexes it)
    for cid, city in state.cities.items():
        table[cid] = pos.get(city.owner, -1)
    return np.array(table, dtype=np.int32)


def _each_source(state: GameState, pos: dict[str, int]) -> Iterator[tuple[int, int, int, str]]:
    """Every sight source of the kingdoms in `pos` (name -> position) on the map: (position, q, r, kind), the kind
    naming its rd.SIGHT radius: "troop" (troops, civilians and own cities), "scout", "spy" (a travelling spy) or
    "city" (a foreign city holding one of its stationed spies). The one list compute_sight and SightProbe read."""
    gm = state.map
    width, height = gm.width, gm.height
    for unit in state.units.values():
        x = pos.get(unit.owner)
        if x is not None and flat_index(unit.q, unit.r, width, height) >= 0:
            kind = unit.type
            yield x, unit.q, unit.r, kind if kind in ("scout", "spy") else "troop"
    for city in state.cities.values():
        x = pos.get(city.owner)
        if x is not None:
            yield x, city.q, city.r, "troop"
    for agent in state.spies:
        x = pos.get(agent.owner)
        inside = state.cities.get(agent.city_id)
        if x is None or inside is None or inside.owner == agent.owner:
            continue  # a counter-spy in an own city adds nothing to the city's own sight
        yield x, inside.q, inside.r, "city"


def _sources(state: GameState, names: list[str]) -> tuple[list[list[int]], ...]:
    """Per kingdom of `names` (by position), the flat tiles its sight starts from, by kind (_each_source): near
    (sight 2), far (scouts: 4), spy (travelling spies: 1), lifted (foreign cities holding a stationed spy: 2)."""
    gm = state.map
    width, height = gm.width, gm.height
    lists: dict[str, list[list[int]]] = {kind: [[] for _ in names] for kind in ("troop", "scout", "spy", "city")}
    for x, q, r, kind in _each_source(state, {k: x for x, k in enumerate(names)}):
        lists[kind][x].append(flat_index(q, r, width, height))
    return lists["troop"], lists["scout"], lists["spy"], lists["city"]


def _mark(masks: tuple[np.ndarray, ...], gm: GameMap, per_kingdom: list[list[int]], live: list[int],
          radius: int) -> None:
    """Mark in each of `masks` (kingdom position x tile) the tiles within `radius` of every source tile of the
    live kingdoms' lists (an off-map neighbour lands in the last, sentinel column)."""
    rows = [x for x in live for _ in per_kingdom[x]]
    if not rows:
        return
    tiles = [i for x in live for i in per_kingdom[x]]
    at = np.array(tiles, dtype=np.int64)
    cols = neighbourhood(gm, radius)[at] if radius else at[:, None]
    where = np.array(rows, dtype=np.int64)[:, None]
    for mask in masks:
        mask[where, cols] = True


def compute_sight(state: GameState, kingdoms: list[str] | None = None) -> dict[str, Sight]:
    """Sight of each kingdom in `kingdoms` (default: every kingdom of the game), from the true state.

    Every kingdom's masks are rows of one (kingdom x tile) array each, marked kind by kind for all of them at once
    (a handful of numpy writes for the whole call, not per kingdom); a fallen or unknown kingdom sees nothing."""
    gm = state.map
    n = gm.size
    names = list(state.kingdoms) if kingdoms is None else list(kingdoms)
    pos = {k: x for x, k in enumerate(names)}
    live = [x for k, x in pos.items() if (kd := state.kingdoms.get(k)) is not None and not kd.eliminated]
    near, far, spy, lifted = _sources(state, names)
    masks = np.zeros((3, len(names), n + 1), dtype=bool)
    visible, watched, eye = masks[0], masks[1], masks[2]
    if live:
        alive = set(live)
        land_of = _city_kingdom_table(state, [k if x in alive else "" for x, k in enumerate(names)])[state.owner]
        held = np.flatnonzero(land_of >= 0)  # every live kingdom's own land, with its position per tile
        if held.size:
            visible[land_of[held][:, None], neighbourhood(gm, rd.SIGHT["border"])[held]] = True
        _mark((visible,), gm, near, live, rd.SIGHT["troop"])
        _mark((visible, watched), gm, far, live, rd.SIGHT["scout"])
        _mark((visible, watched, eye), gm, spy, live, rd.SIGHT["spy"])
        _mark((visible, watched), gm, lifted, live, rd.SIGHT["city"])
        _mark((eye,), gm, lifted, live, 0)
    return {k: Sight(k, visible[x, :n], watched[x, :n], eye[x, :n]) for k, x in pos.items()}


class SightProbe:
    """One kingdom's `visible` (compute_sight's, INTEL-010) on a board as it stands when this is made, asked a
    tile at a time: an issue-time check asks of a few tiles, and a whole mask costs more than they do.

    Keeps each sight source's tile and radius, and what its own land is made of (the ownership array, copied,
    and which cities are its own), when made, so later changes of the board change no answer (as a mask made
    now would not change). The own land's mask is worked out only when a tile no source sees is asked of.
    """

    __slots__ = ("_spots", "_held", "_table", "_land", "_border")

    def __init__(self, state: GameState, kingdom: str) -> None:
        kd = state.kingdoms.get(kingdom)
        self._spots: list[tuple[int, int, int]] = []  # (q, r, radius): a tile is in sight within radius of one
        self._held: np.ndarray | None = None  # the ownership array and the city table when made (no land: None)
        self._table: np.ndarray | None = None
        self._land: np.ndarray | None = None  # the own land, made from those on first need (+1: off the map)
        self._border = rd.SIGHT["border"]
        if kd is None or kd.eliminated:
            return
        self._spots.extend((q, r, rd.SIGHT[kind]) for _x, q, r, kind in _each_source(state, {kingdom: 0}))
        self._held = state.owner.copy()
        self._table = _city_kingdom_table(state, [kingdom])

    def sees(self, gm: GameMap, q: int, r: int) -> bool:
        """True when tile (q, r) is in sight (Sight.sees)."""
        i = gm.index(q, r)
        if i < 0:
            return False
        if any(hex_len(q - sq, r - sr) <= radius for sq, sr, radius in self._spots):
            return True
        land = self._land
        if land is None:
            land = self._land = np.zeros(gm.size + 1, dtype=bool)  # the last: where an off-the-map neighbour lands
            if self._held is not None and self._table is not None:
                land[:-1] = self._table[self._held] == 0
        return bool(land[neighbourhood(gm, self._border)[i]].any())


def sight_of(state: GameState, kingdom: str) -> Sight:
    """Sight of one kingdom now (INTEL-010)."""
    return compute_sight(state, [kingdom])[kingdom]


def watched_tiles(state: GameState, kingdom: str) -> list[tuple[int, int]]:
    """Tiles whose troops the kingdom knows exactly (a scout's 4, a spy's 1, a stationed spy's 2), in map order."""
    gm = state.map
    return [gm.tile(int(i)) for i in np.flatnonzero(sight_of(state, kingdom).watched)]


def mask_to_hex(mask: np.ndarray) -> str:
    """A boolean tile mask as a compact hex string (packed bits, map order)."""
    return np.packbits(mask.astype(bool)).tobytes().hex()


def hex_to_mask(text: str, size: int) -> np.ndarray:
    """Inverse of `mask_to_hex` for a map of `size` tiles; an empty or short text gives False tiles."""
    if not text:
        return np.zeros(size, dtype=bool)
    # unpackbits pads a short text's missing bits with 0 (count=size); the 0/1 bytes read as bools as they are
    return np.unpackbits(np.frombuffer(bytes.fromhex(text), dtype=np.uint8), count=size).view(bool)
