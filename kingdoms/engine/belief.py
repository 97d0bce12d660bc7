"""The board as one kingdom knows it: the true state with everything it cannot see taken away.

Issue-time checks and previews run on this believed board (TURN-050, TURN-170), so a refusal, a route, a
preview or a "what would work" hint can only be built from what the kingdom may know (INTEL-050): a
hidden enemy never blocks, an unseen border never closes, an unknown city is not there. Land in sight shows
as its holder's, as inspect_tile shows it, even when its city is out of sight: such tiles carry the holder's
code (engine.land.holder_code) instead of a city id, so they close at peace and cannot be founded on.
Ground never explored is planned as open grassland (`believed_map`): no route, refusal or hint tells what it is.
The month-end run uses the true state and checks every order again (TURN-060).
"""

from __future__ import annotations

import weakref
from collections.abc import Set as AbstractSet

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.engine.land import FREE, holder_code
from kingdoms.engine.pathing import derived_map
from kingdoms.engine.sight import Sight, hex_to_mask, sight_of
from kingdoms.engine.visibility import (
    can_see_unit,
    cities_by_tile,
    has_fresh_report,
    inside_foreign_city,
    known_city_ids,
    watches_unit,
)
from kingdoms.gamemap import GameMap
from kingdoms.state import GameState, copy_city, copy_unit

#: Believed maps already made, per true map: explored mask -> map (a kingdom's explored map changes once a month).
_MAPS: weakref.WeakKeyDictionary[GameMap, dict[bytes, GameMap]] = weakref.WeakKeyDictionary()
_MAPS_KEPT = 8


def member_mask(values: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Per element of the int array `values`: whether it is one of `ids` (np.isin's answer, by a lookup table over
    the span of both, many times cheaper for the small ids of cities and holder codes)."""
    if ids.size == 0 or values.size == 0:
        return np.zeros(values.shape, dtype=bool)
    lo = min(int(values.min()), int(ids.min()))
    hi = max(int(values.max()), int(ids.max()))
    table = np.zeros(hi - lo + 1, dtype=bool)
    table[ids.astype(np.int64) - lo] = True
    return table[values.astype(np.int64) - lo]


def believed_map(gm: GameMap, explored: np.ndarray) -> GameMap:
    """The map as a kingdom knows it: tiles it never explored are planned as open grassland, no river or bridge.

    Issue-time routes and refusals then never show what the unexplored ground is (INTEL-050); the month end
    finds it out on the true map. The true map itself when everything is explored.
    """
    if bool(explored.all()):
        return gm
    key = explored.tobytes()
    kept = _MAPS.setdefault(gm, {})
    out = kept.get(key)
    if out is None:
        unknown = ~explored
        terrain = gm.terrain.copy()
        terrain[unknown] = rd.G
        out = gm.with_ground(terrain, gm.river & explored, gm.bridge & explored)
        derived_map(out, gm)
        if len(kept) >= _MAPS_KEPT:
            del kept[next(iter(kept))]
        kept[key] = out
    return out


def believed_state(state: GameState, kingdom: str, sight: Sight | None = None,
                   explored: np.ndarray | None = None, known_ids: AbstractSet[int] | None = None, *,
                   shared: bool = False) -> GameState:
    """A scratch copy of `state` holding only what `kingdom` knows now (its own affairs in full).

    `sight`: the kingdom's sight of `state`, `explored` its explored map (the remembered mask joined with what it
    sees) and `known_ids` the cities it knows (visibility.known_city_ids with that sight), when the caller has
    them already (views.observation shares one of each). `shared`: the board is read only, so what it takes
    unchanged (the kingdom's own record, cities, units and camps, and the generals and stationed spies it keeps)
    is `state`'s own objects, not copies (GameState.clone's `share`); a check runs on a clone of it.
    """
    sight = sight or sight_of(state, kingdom)
    if explored is None:
        explored = hex_to_mask(state.kingdoms[kingdom].memory.get("explored", ""), state.map.size) | sight.visible
    gm = believed_map(state.map, explored)
    # Foreign units: only those in sight; what is not watched keeps only what a rival sees (INTEL-020, INTEL-040).
    # Decided on the true state first, so the copy leaves out what the kingdom cannot know.
    seen: list[int] = []  # in sight: kept, their books closed
    behind_walls: list[int] = []  # troops in a rival's city in sight: kept as "troops" of a size class
    kept: set[int] = set()
    cities_at = cities_by_tile(state)  # one table for every unit's question below
    for uid, unit in state.units.items():
        if unit.owner == kingdom:
            kept.add(uid)
            continue
        if not can_see_unit(state, kingdom, unit, sight, cities_at):
            inside = inside_foreign_city(state, kingdom, unit, cities_at) if unit.spec.fighting else None
            if inside is not None and has_fresh_report(state, kingdom, inside.id):
                kept.add(uid)  # a spy report from this month or last shows the garrison as it is (INTEL-220)
            elif inside is not None and sight.sees(gm, unit.q, unit.r):
                kept.add(uid)
                behind_walls.append(uid)
            continue
        kept.add(uid)
        seen.append(uid)
    # Foreign cities: the known ones, as the kingdom's map shows them (below).
    if known_ids is None:
        known_ids = known_city_ids(state, kingdom, sight)
    board = state.clone(memory_of=kingdom, units=(), cities=(), share=kingdom if shared else None)
    board.map = gm
    # Own cities and units in full (shared when the board is), the rest copied without their books and orders.
    board.units = {uid: unit if shared and unit.owner == kingdom else copy_unit(unit, orders=unit.owner == kingdom)
                   for uid, unit in state.units.items() if uid in kept}
    board.cities = {cid: city if shared and city.owner == kingdom else copy_city(city, books=city.owner == kingdom)
                    for cid, city in state.cities.items() if cid in known_ids}
    for uid in behind_walls:
        # Troops behind a rival's walls show only as "troops" of a size class (OPEN-30): taken as the estimate
        # takes them (spearmen, untrained, no general).
        mine = board.units[uid]
        mine.type, mine.xp, mine.morale, mine.hunger, mine.general_id = "spearman", 0.0, 100.0, 0.0, None
    for uid in seen:  # copied without home city and orders (above)
        mine = board.units[uid]
        if not watches_unit(state, kingdom, state.units[uid], sight):
            mine.xp, mine.morale, mine.hunger, mine.general_id = 0.0, 100.0, 0.0, None
    board.generals = {gid: g for gid, g in board.generals.items()
                      if g.owner == kingdom or (g.unit_id is not None and g.unit_id in board.units
                                                and board.units[g.unit_id].general_id == gid)}
    board.spies = [s for s in board.spies if s.owner == kingdom]
    # Foreign cities: the known ones, as the kingdom's map shows them; their books closed when copied (INTEL-040).
    memory = (state.kingdoms[kingdom].memory.get("cities") or {})
    keep_centres: list[int] = []
    for cid, city in board.cities.items():
        if city.owner == kingdom:
            continue
        if not sight.sees(gm, city.q, city.r) and city.owner != kingdom and not city.is_ruin:
            # out of sight, a city is held by whom the map last saw; the Ruin's holder is public (VIC-130)
            rec = memory.get(str(cid))
            if rec is not None and rec.get("owner"):
                city.owner = rec["owner"]
        keep_centres.append(gm.index(city.q, city.r))
    # Land: the kingdom knows who holds its own land and the tiles in its sight; elsewhere it cannot tell. A tile
    # keeps its holder only when that city is on the board: own land everywhere, a known foreign city's land in
    # sight and its centre (the map shows where the city stands). One lookup table by city id decides every tile.
    true_owner = state.owner
    lo = min(int(true_owner.min()), FREE)
    hi = max(int(true_owner.max()), max(state.cities, default=0))
    board_city = np.zeros(hi - lo + 1, dtype=np.int8)  # 1: a foreign city on the board, 2: an own city
    for cid, city in board.cities.items():
        board_city[cid - lo] = 2 if city.owner == kingdom else 1
    code = board_city[true_owner - lo]
    keep = (code + sight.visible) >= 2  # an own city's land (2), or a foreign one's (1) in sight (+1)
    if keep_centres:
        keep[keep_centres] = code[keep_centres] != 0
    owner = np.where(keep, true_owner, FREE).astype(np.int32, copy=False)
    # Land in sight shows as its holder's, as inspect_tile shows it (DIPLO-020, INTEL-050): where the city is not
    # on the board (unknown) or the board remembers it in other hands, the tile carries the holder's code.
    in_sight = np.zeros(hi - lo + 1, dtype=bool)
    in_sight[true_owner[sight.visible] - lo] = True
    for cid, true in state.cities.items():
        if cid < 0 or not in_sight[cid - lo]:
            continue
        on_board = board.cities.get(cid)
        if on_board is None or on_board.owner != true.owner:
            tiles = sight.visible & (true_owner == cid)
            if on_board is not None:
                tiles[gm.index(on_board.q, on_board.r)] = False  # the centre of a known city stays that city's
            owner[tiles] = holder_code(state, true.owner)
    board.owner = owner
    board.camps = {cid: c for cid, c in board.camps.items()
                   if c.owner == kingdom or sight.sees(gm, c.q, c.r)
                   or str(cid) in (state.kingdoms[kingdom].memory.get("camps") or {})}
    for camp in board.camps.values():
        if camp.owner != kingdom and not sight.watches(gm, camp.q, camp.r):
            camp.grain = 0.0
    return board  # the other kingdoms' memory is left empty by the clone (memory_of)
