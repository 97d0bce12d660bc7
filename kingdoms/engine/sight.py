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

from dataclasses import dataclass

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.gamemap import GameMap
from kingdoms.hexgrid import flat_index, hex_len, offset_cols, spiral
from kingdoms.state import GameState

#: Cache of neighbourhood tables by map layout: (width, height) -> {radius: (n, m) int32 table}. A table reads
#: only the layout (every map of that size, a kingdom's believed maps included, shares it), so it never
#: changes a game's outcome; a handful of sizes a process ever meets.
_TABLES: dict[tuple[int, int], dict[int, np.ndarray]] = {}


@dataclass(frozen=True, slots=True)
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


def _around(gm: GameMap, sources: list[int] | np.ndarray, radius: int) -> np.ndarray:
    """The flat indices within `radius` of every one of `sources` (off-map ones as the sentinel n), as one array."""
    at = np.asarray(sources, dtype=np.int64)
    if radius == 0 or at.size == 0:
        return at
    return neighbourhood(gm, radius)[at].ravel()


def _city_kingdom_table(state: GameState, kingdoms: list[str]) -> np.ndarray:
    """Array city id -> position of its owner in `kingdoms` (-1 for bandits, other sides and unused ids)."""
    pos = {k: n for n, k in enumerate(kingdoms)}
    top = max(state.cities, default=0) + 1
    table = np.full(top + 1, -1, dtype=np.int32)  # last slot: a free tile (owner -1 indexes it)
    for cid, city in state.cities.items():
        table[cid] = pos.get(city.owner, -1)
    return table


def _sources(state: GameState, names: list[str]) -> tuple[list[list[int]], ...]:
    """Per kingdom of `names` (by position), the flat tiles its sight starts from, by kind: near (troops,
    civilians and own cities: sight 2), far (scouts: 4), spy (travelling spies: 1), lifted (foreign cities
    holding one of its stationed spies: 2). The one list of sight sources compute_sight and SightProbe read."""
    gm = state.map
    pos = {k: x for x, k in enumerate(names)}
    near: list[list[int]] = [[] for _ in names]
    far: list[list[int]] = [[] for _ in names]
    spy: list[list[int]] = [[] for _ in names]
    lifted: list[list[int]] = [[] for _ in names]
    for unit in state.units.values():
        x = pos.get(unit.owner)
        if x is None:
            continue
        i = gm.index(unit.q, unit.r)
        if i < 0:
            continue
        if unit.type == "scout":
            far[x].append(i)
        elif unit.type == "spy":
            spy[x].append(i)
        else:
            near[x].append(i)
    for city in state.cities.values():
        x = pos.get(city.owner)
        if x is not None:
            near[x].append(gm.index(city.q, city.r))
    for agent in state.spies:
        x = pos.get(agent.owner)
        inside = state.cities.get(agent.city_id)
        if x is None or inside is None or inside.owner == agent.owner:
            continue  # a counter-spy in an own city adds nothing to the city's own sight
        lifted[x].append(gm.index(inside.q, inside.r))
    return near, far, spy, lifted


def compute_sight(state: GameState, kingdoms: list[str] | None = None) -> dict[str, Sight]:
    """Sight of each kingdom in `kingdoms` (default: every kingdom of the game), from the true state."""
    gm = state.map
    n = gm.size
    names = list(state.kingdoms) if kingdoms is None else list(kingdoms)
    pos = {k: x for x, k in enumerate(names)}
    near, far, spy, lifted = _sources(state, names)
    land_of = _city_kingdom_table(state, names)[state.owner]  # kingdom position per tile, -1 none
    out: dict[str, Sight] = {}
    for k, x in pos.items():
        kd = state.kingdoms.get(k)
        visible = np.zeros(n + 1, dtype=bool)
        watched = np.zeros(n + 1, dtype=bool)
        eye = np.zeros(n + 1, dtype=bool)
        if kd is not None and not kd.eliminated:
            # each mask marked in one write: the tiles around every source of each kind, joined
            scouts = _around(gm, far[x], rd.SIGHT["scout"])
            agents = _around(gm, spy[x], rd.SIGHT["spy"])
            lift = _around(gm, lifted[x], rd.SIGHT["city"])
            visible[np.concatenate((_around(gm, np.flatnonzero(land_of == x), rd.SIGHT["border"]),
                                    _around(gm, near[x], rd.SIGHT["troop"]), scouts, agents, lift))] = True
            watched[np.concatenate((scouts, agents, lift))] = True
            eye[np.concatenate((agents, np.asarray(lifted[x], dtype=np.int64)))] = True
        out[k] = Sight(k, visible[:n], watched[:n], eye[:n])
    return out


class SightProbe:
    """One kingdom's `visible` (compute_sight's, INTEL-010) on a board as it stands when this is made, asked a
    tile at a time: an issue-time check asks of a few tiles, and a whole mask costs more than they do.

    Keeps each sight source's tile and radius, and what its own land is made of (the ownership array, copied,
    and which cities are its own), when made, so later changes of the board change no answer (as a mask made
    now would not change). The own land's mask is worked out only when a tile no source sees is asked of.
    """

    __slots__ = ("_spots", "_held", "_table", "_land", "_border")

    def __init__(self, state: GameState, kingdom: str) -> None:
        gm = state.map
        kd = state.kingdoms.get(kingdom)
        self._spots: list[tuple[int, int, int]] = []  # (q, r, radius): a tile is in sight within radius of one
        self._held: np.ndarray | None = None  # the ownership array and the city table when made (no land: None)
        self._table: np.ndarray | None = None
        self._land: np.ndarray | None = None  # the own land, made from those on first need (+1: off the map)
        self._border = rd.SIGHT["border"]
        if kd is None or kd.eliminated:
            return
        # the sources _sources lists, by their tiles: a unit off the map is none, a city's or a spy's host city's
        # tile is its own (gm.tile of its flat index), each with its kind's radius
        add = self._spots.append
        width, height = gm.width, gm.height
        troop, scout, agent = rd.SIGHT["troop"], rd.SIGHT["scout"], rd.SIGHT["spy"]
        for unit in state.units.values():
            if unit.owner != kingdom:
                continue
            q, r = unit.q, unit.r
            if flat_index(q, r, width, height) < 0:
                continue
            kind = unit.type
            add((q, r, scout if kind == "scout" else agent if kind == "spy" else troop))
        for city in state.cities.values():
            if city.owner == kingdom:
                add(_on_map(gm, city.q, city.r, troop))
        lifted = rd.SIGHT["city"]
        for spy in state.spies:
            if spy.owner != kingdom:
                continue
            inside = state.cities.get(spy.city_id)
            if inside is None or inside.owner == spy.owner:
                continue  # a counter-spy in an own city adds nothing to the city's own sight
            add(_on_map(gm, inside.q, inside.r, lifted))
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


def _on_map(gm: GameMap, q: int, r: int, radius: int) -> tuple[int, int, int]:
    """(q, r, radius) for a source at (q, r): the tile gm.tile gives of its flat index (itself, on the map)."""
    i = gm.index(q, r)
    return (q, r, radius) if i >= 0 else (*gm.tile(i), radius)


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
