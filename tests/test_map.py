"""The hex map (MAP-010..180): coordinates, neighbours, distance, terrain, rivers, bridges, water, landmarks.

Fog of war (MAP-190) is per kingdom and tested with the views, not here.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kingdoms import ruledata as rd
from kingdoms.engine.land import founding_ring
from kingdoms.gamemap import GameMap, Landmark
from kingdoms.hexgrid import (
    axial_q,
    axial_qs,
    distance,
    flat_index,
    hex_len,
    hex_lens,
    neighbours,
    offset_col,
    offset_cols,
    ring,
    spiral,
)
from kingdoms.mapgen import fairness_problems, generate
from kingdoms.scenario import load_scenario
from kingdoms.setup import build_state
from kingdoms.state import GameState
from tests.builders import kingdom, world


def _state(gm: GameMap) -> GameState:
    """A bare state on `gm` with one kingdom and no cities."""
    kd = kingdom("wei", "Cao Wei", "Cao Cao", cities=[f"C{i}" for i in range(30)], generals=[f"G{i}" for i in range(12)])
    return world(rows=gm, kingdoms=[kd], seed=1, month=1, war=False, rotation=[])


# --- MAP-010..030: coordinates ----------------------------------------------------------------------


def test_map_010_axial_coordinates_rows_grow_downward() -> None:
    """MAP-010: tiles are axial (q, r); r is the row, counted downward; odd-r rows map columns to q."""
    gm = GameMap.from_rows(["GGGG"] * 4)
    # Row r, column c -> q = c - (r - (r & 1)) // 2: row 0 and 1 start at q 0, rows 2 and 3 at q -1.
    assert gm.tile(0) == (0, 0)
    assert gm.tile(1 * 4 + 0) == (0, 1)
    assert gm.tile(2 * 4 + 0) == (-1, 2)
    assert gm.tile(3 * 4 + 3) == (2, 3)
    assert gm.index(-1, 2) == 8
    assert gm.index(4, 0) == -1 and gm.index(0, -1) == -1 and gm.index(0, 4) == -1
    # The south-east neighbour of (0, 0) is (0, 1): one row further down the map.
    assert gm.r_of[gm.index(0, 1)] == gm.r_of[gm.index(0, 0)] + 1


def test_map_020_neighbours_in_rules_order() -> None:
    """MAP-020: the six neighbours come east, west, north-east, north-west, south-east, south-west."""
    assert neighbours(5, 5) == [(6, 5), (4, 5), (6, 4), (5, 4), (5, 6), (4, 6)]
    gm = GameMap.from_rows(["GGGGG"] * 5)
    i = gm.index(1, 2)  # an inner tile: all six on the map, same order
    assert [gm.tile(int(j)) for j in gm.nbr[i]] == neighbours(1, 2)
    corner = gm.index(0, 0)  # W, NE, NW and SW fall off the map
    assert [int(j) >= 0 for j in gm.nbr[corner]] == [True, False, False, False, True, False]
    assert gm.neighbours(0, 0) == [(1, 0), (0, 1)]


def test_map_030_distance_formula() -> None:
    """MAP-030: distance = (|dq| + |dr| + |dq + dr|) / 2."""
    # (2,3) to (5,1): dq = 3, dr = -2, dq + dr = 1 -> (3 + 2 + 1) / 2 = 3.
    assert distance((2, 3), (5, 1)) == 3
    # (0,0) to (-2,4): dq = -2, dr = 4, dq + dr = 2 -> (2 + 4 + 2) / 2 = 4.
    assert distance((0, 0), (-2, 4)) == 4
    assert distance((7, -3), (7, -3)) == 0
    for k in range(1, 5):
        tiles = ring((3, 3), k)
        assert len(tiles) == len(set(tiles)) == 6 * k
        assert all(distance((3, 3), t) == k for t in tiles)
    # Radius 4 holds 1 + 3*4*5 = 61 tiles.
    assert len(set(spiral((0, 0), 4))) == 61


def test_map_010_offset_conversion_for_tiles_and_arrays() -> None:
    """MAP-010: column c of row r holds q = c - (r - (r & 1)) // 2 (rows 0, 1 from q 0; rows 2, 3 from q -1;
    rows -2, -1 from q 1); the tuple and numpy forms agree, and flat_index is -1 off a 4 x 4 map."""
    assert [axial_q(0, r) for r in (-2, -1, 0, 1, 2, 3)] == [1, 1, 0, 0, -1, -1]
    assert all(offset_col(axial_q(c, r), r) == c for c in range(-3, 6) for r in range(-4, 7))
    rows = np.repeat(np.arange(-4, 7), 9)
    cols = np.tile(np.arange(-3, 6), 11)
    assert (offset_cols(axial_qs(cols, rows), rows) == cols).all()
    assert axial_qs(cols, rows).tolist() == [axial_q(int(c), int(r)) for c, r in zip(cols, rows, strict=True)]
    assert flat_index(-1, 2, 4, 4) == 8 and flat_index(2, 3, 4, 4) == 15
    assert flat_index(4, 0, 4, 4) == flat_index(0, -1, 4, 4) == flat_index(0, 4, 4, 4) == flat_index(-2, 2, 4, 4) == -1


def test_map_030_hex_length_of_steps_and_arrays() -> None:
    """MAP-030: hex_len(3, -2) = (3 + 2 + 1) / 2 = 3 and hex_len(-2, 4) = (2 + 4 + 2) / 2 = 4; hex_lens gives the
    same figures over numpy arrays, and a step to any tile of ring k measures k."""
    assert hex_len(3, -2) == 3 and hex_len(-2, 4) == 4 and hex_len(0, 0) == 0
    dq = np.array([3, -2, 0, 1, -1])
    dr = np.array([-2, 4, 0, -1, 1])
    assert hex_lens(dq, dr).tolist() == [3, 4, 0, 1, 1]
    steps = ring((0, 0), 3)
    assert hex_lens(np.array([t[0] for t in steps]), np.array([t[1] for t in steps])).tolist() == [3] * 18


# --- MAP-040..090: terrain ---------------------------------------------------------------------------


@pytest.mark.parametrize(("rule", "letter", "food", "prod", "move", "defence"), [
    ("MAP-040", "G", 2, 0, 1, 0.0),
    ("MAP-050", "P", 1, 1, 1, 0.0),
    ("MAP-060", "F", 1, 2, 2, 0.25),
    ("MAP-070", "H", 0, 2, 2, 0.50),
    ("MAP-080", "M", 0, 0, 0, 0.0),  # move 0 = impassable
    ("MAP-090", "~", 1, 0, 0, 0.0),
])
def test_map_040_to_090_terrain_yields_moves_defence(rule: str, letter: str, food: int, prod: int, move: int,
                                                     defence: float) -> None:
    """MAP-040..090: each terrain's food, production, move cost (0 = impassable) and defence bonus."""
    gm = GameMap.from_rows([f"G{letter}G", "GGG", "GGG"])
    i = gm.index(1, 0)
    assert (int(gm.food[i]), int(gm.prod[i]), int(gm.move_cost[i]), float(gm.defence[i])) == (food, prod, move, defence), rule
    assert gm.terrain_at(1, 0).letter == letter


def test_map_080_mountain_is_land_but_impassable() -> None:
    """MAP-080, OPEN-64: mountains are land (claimable) yet no unit enters them; water is neither."""
    gm = GameMap.from_rows(["GM~"])
    assert gm.is_land.tolist() == [True, True, False]
    assert gm.move_cost.tolist() == [1, 0, 0]


def test_map_090_cities_hold_water_tiles() -> None:
    """MAP-090, CITY-330, CITY-360: a city's founding ring takes the water beside it; water yields 1 food."""
    gm = GameMap.from_rows(["GGGG", "GG~G", "GGGG"])
    state = _state(gm)
    centre = gm.index(1, 1)  # (1,1) is row 1 column 1; its E neighbour (2,1) is the water tile
    taken = {gm.tile(i) for i in founding_ring(state, 1, 1)}
    assert (2, 1) in taken and len(taken) == 7
    assert int(gm.food[gm.index(2, 1)]) == 1
    assert centre in founding_ring(state, 1, 1)


# --- MAP-100..120: rivers and bridges ----------------------------------------------------------------


def test_map_100_lower_case_letter_is_a_river_tile() -> None:
    """MAP-100: a river runs through a land tile written in lower case; the map writes it back that way."""
    gm = GameMap.from_rows(["GgPp", "FfHh"])
    assert gm.river.tolist() == [False, True, False, True, False, True, False, True]
    assert gm.rows() == ["GgPp", "FfHh"]
    assert gm.letter(gm.index(1, 0)) == "g"


def test_map_100_no_river_through_mountain_or_unknown_letters() -> None:
    """MAP-100: rivers run through land, never mountains; a bad letter is refused naming row and column."""
    with pytest.raises(ValueError, match=r"row 1, column 2.*mountain"):
        GameMap.from_rows(["GGG", "GGm"])
    with pytest.raises(ValueError, match=r"row 0, column 1.*'X'"):
        GameMap.from_rows(["GXG"])
    with pytest.raises(ValueError, match="same width"):
        GameMap.from_rows(["GGG", "GG"])


def test_map_110_river_tiles_give_one_more_food() -> None:
    """MAP-110: a river tile yields its terrain's food + 1 (g 3, p 2, f 2, h 1)."""
    gm = GameMap.from_rows(["gpfh", "GPFH"])
    assert gm.food.tolist() == [3, 2, 2, 1, 2, 1, 1, 0]
    assert gm.prod.tolist() == [0, 1, 2, 2, 0, 1, 2, 2]  # production unchanged


def test_map_120_bridges_lie_on_river_tiles_and_end_the_crossing() -> None:
    """MAP-120: a bridged river tile has no river penalties; a bridge must stand on a river."""
    gm = GameMap.from_rows(["GgG", "GgG"], bridges=[(1, 0)])
    assert gm.bridge[gm.index(1, 0)] and not gm.is_crossing(gm.index(1, 0))
    assert gm.is_crossing(gm.index(1, 1))  # the unbridged river tile
    with pytest.raises(ValueError, match="not on a river"):
        GameMap.from_rows(["GgG"], bridges=[(0, 0)])


def test_map_120_designed_maps_have_bridges_random_maps_none() -> None:
    """MAP-120: the shipped designed maps carry old bridges; random maps never do."""
    for name in ("three_kingdoms", "duel"):
        gm = load_scenario(name).game_map()
        assert gm.bridge.any(), name
        assert (gm.river[gm.bridge]).all(), name
    for seed in range(5):
        assert not generate(seed, 3).game_map().bridge.any()


def test_map_130_random_and_designed_maps_both_supported() -> None:
    """MAP-130: both a designed scenario and a random map give a playable starting state."""
    for scn in (load_scenario("three_kingdoms"), generate(77, 3)):
        state = build_state(scn, seed=1)
        assert len([c for c in state.cities.values() if c.is_capital]) == 3
        assert state.map.size == 40 * 30


# --- MAP-140..160: landmarks, lakes and sea, site water -----------------------------------------------


def test_map_140_landmarks_have_names() -> None:
    """MAP-140: rivers, ranges and lakes are named and found by tile."""
    marks = [Landmark("Han River", "river", ((1, 0), (1, 1))), Landmark("Qinling", "range", ((3, 0),))]
    gm = GameMap.from_rows(["GgGM", "GgGG"], landmarks=marks)
    assert gm.landmark_at(1, 1).name == "Han River"
    assert gm.landmark_at(3, 0).kind == "range"
    assert gm.landmark_at(0, 0) is None
    scn = load_scenario("three_kingdoms")
    kinds = {m.kind for m in scn.landmarks}
    assert {"river", "range", "lake"} <= kinds
    named = scn.game_map().landmark_of >= 0
    gm3 = scn.game_map()
    assert (named[gm3.river]).all()  # every river tile of the shipped map belongs to a named river


def _water_map(extra: list[tuple[int, int]]) -> GameMap:
    """An 8x8 grassland map with water on the given (row, column) cells."""
    grid = [["G"] * 8 for _ in range(8)]
    for r, c in extra:
        grid[r][c] = "~"
    return GameMap.from_rows(["".join(row) for row in grid])


def test_map_150_open_63_lake_or_sea() -> None:
    """MAP-150, OPEN-63: a body of at most 12 water tiles off the map edge is a lake; larger or on the edge is sea."""
    twelve = [(3, c) for c in range(1, 7)] + [(4, c) for c in range(1, 7)]  # rows 3-4, columns 1-6: 12 tiles
    gm = _water_map(twelve)
    assert gm.body_is_lake == (True,)
    gm = _water_map(twelve + [(5, 3)])  # 13 tiles
    assert gm.body_is_lake == (False,)
    gm = _water_map([(3, 0), (3, 1), (3, 2)])  # 3 tiles touching the west edge
    assert gm.body_is_lake == (False,)
    gm = _water_map([(1, 1)] + [(6, 5), (6, 6)])  # two separate small lakes
    assert gm.body_is_lake == (True, True)
    assert gm.body[gm.index(*gm.tile(1 * 8 + 1))] != gm.body[gm.index(*gm.tile(6 * 8 + 5))]


def _reference_water(gm: GameMap) -> tuple[list[int], list[bool], list[int]]:
    """Water bodies, lake flags and site water classes of `gm` by a plain flood fill over hexgrid tiles.

    Bodies are numbered in the order of their smallest flat index; a lake has at most LAKE_MAX_TILES tiles and
    none with a neighbour off the map; a tile is fresh with a river or lake among its 7 tiles, else coast by sea.
    """
    n = gm.size
    wet = [not bool(gm.is_land[i]) for i in range(n)]
    body = [-1] * n
    lakes: list[bool] = []
    for start in range(n):
        if not wet[start] or body[start] >= 0:
            continue
        bid, todo, members = len(lakes), [start], []
        body[start] = bid
        while todo:
            i = todo.pop()
            members.append(i)
            for q, r in neighbours(*gm.tile(i)):
                j = gm.index(q, r)
                if j >= 0 and wet[j] and body[j] < 0:
                    body[j] = bid
                    todo.append(j)
        on_edge = any(not gm.contains(q, r) for i in members for q, r in neighbours(*gm.tile(i)))
        lakes.append(len(members) <= rd.LAKE_MAX_TILES and not on_edge)
    classes = []
    for i in range(n):
        near = [i] + [gm.index(q, r) for q, r in neighbours(*gm.tile(i)) if gm.contains(q, r)]
        fresh = any(bool(gm.river[j]) or (body[j] >= 0 and lakes[body[j]]) for j in near)
        sea = any(body[j] >= 0 and not lakes[body[j]] for j in near)
        classes.append(0 if fresh else 1 if sea else 2)
    return body, lakes, classes


@st.composite
def _grounds(draw: st.DrawFn) -> list[str]:
    """Rows of a small random map: grassland, hills, rivers and water in a drawn mix (few or many water tiles)."""
    width, height = draw(st.integers(1, 16)), draw(st.integers(1, 14))
    letters = draw(st.sampled_from(["GGGG~", "G~", "G~~~", "GgH~", "~"]))
    cells = draw(st.lists(st.sampled_from(letters), min_size=width * height, max_size=width * height))
    return ["".join(cells[r * width:(r + 1) * width]) for r in range(height)]


_LAKES_EXAMPLE = [  # an inner 12-tile lake, an inner 13-tile sea, a 1-tile lake and water on the edges
    "~GGGGGGGGGGGGG~",
    "G~~~~~~GGGGGGGG",
    "G~~~~~~GG~~~~GG",
    "GGGGGGGGG~~~~GG",
    "GGGGGGGGG~~~~~G",
    "GGG~GGGGGGGGGGG",
    "GGGGGGGGGGGGGG~",
    "~~GGGGGGGGGGGGG",
]


@settings(max_examples=150, deadline=None)
@given(rows=_grounds())
@example(rows=_LAKES_EXAMPLE)
def test_map_150_open_63_map_160_water_bodies_match_a_flood_fill(rows: list[str]) -> None:
    """MAP-150, OPEN-63, MAP-160: the vectorised water labelling gives what a plain flood fill gives: bodies in the
    order of their first tile, lakes (small, off the edge), site water classes; also for a believed map's ground."""
    gm = GameMap.from_rows(rows)
    body, lakes, classes = _reference_water(gm)
    assert gm.body.tolist() == body and gm.body_is_lake == tuple(lakes)
    assert gm.water_class.tolist() == classes
    assert gm.body.dtype == np.int32 and gm.water_class.dtype == np.int8
    assert not gm.body.flags.writeable and not gm.water_class.flags.writeable
    # the same ground given to another map of the layout (engine.belief's believed maps) reads the same
    other = GameMap.from_rows(["G" * gm.width] * gm.height).with_ground(gm.terrain.copy(), gm.river.copy(),
                                                                        gm.bridge.copy())
    assert other.body.tolist() == body and other.body_is_lake == tuple(lakes)
    assert other.water_class.tolist() == classes


def test_map_160_site_water_class() -> None:
    """MAP-160: fresh with a river among the 7 tiles or a lake beside; else coast with sea beside; else dry."""
    rows = [
        "~~GGGGGGGG",
        "~GGGGGGGGG",
        "GGGGGGGGGG",
        "GGGGgGGGGG",
        "GGGGGGGGGG",
        "GGGGGGG~GG",
        "GGGGGGGGGG",
        "GGGGGGGGGG",
    ]
    gm = GameMap.from_rows(rows)
    assert gm.body_is_lake[int(gm.body[gm.index(*gm.tile(5 * 10 + 7))])]  # the 1-tile lake
    assert not gm.body_is_lake[int(gm.body[0])]  # the corner water touches the edge: sea
    river = gm.tile(3 * 10 + 4)
    lake = gm.tile(5 * 10 + 7)
    assert gm.water_class_at(*river) == "fresh"  # a river on the tile itself
    assert all(gm.water_class_at(*t) == "fresh" for t in gm.neighbours(*river))  # a river beside
    assert all(gm.water_class_at(*t) == "fresh" for t in gm.neighbours(*lake))  # a lake beside
    assert gm.water_class_at(*gm.tile(1 * 10 + 1)) == "coast"  # the sea beside, nothing fresh
    assert gm.water_class_at(*gm.tile(2 * 10 + 1)) == "coast"
    two_from_lake = (lake[0] + 2, lake[1])
    assert distance(two_from_lake, lake) == 2
    assert gm.water_class_at(*two_from_lake) == "dry"
    assert gm.water_class_at(*gm.tile(7 * 10 + 0)) == "dry"
    growth = {c: rd.WATER_GROWTH[c] for c in ("fresh", "coast", "dry")}
    assert growth == {"fresh": 1.0, "coast": 0.6, "dry": 0.2}  # CITY-140 multipliers the class selects


def test_map_160_fresh_beats_coast() -> None:
    """MAP-160: a site with both a lake and the sea beside it is fresh water."""
    gm = _water_map([(0, 3), (0, 4), (2, 4)])  # sea on the top edge, a 1-tile lake at row 2
    site = gm.tile(1 * 8 + 4)
    near = set(gm.neighbours(*site))
    assert gm.tile(0 * 8 + 4) in near and gm.tile(2 * 8 + 4) in near
    assert gm.water_class_at(*site) == "fresh"


# --- MAP-170..180: ownership and starting positions ----------------------------------------------------


def test_map_170_each_tile_belongs_to_at_most_one_city() -> None:
    """MAP-170: the owner array gives each tile one city; the starting rings do not overlap."""
    state = build_state(load_scenario("three_kingdoms"), seed=5)
    seen: set[tuple[int, int]] = set()
    for city in state.cities.values():
        tiles = set(state.city_tiles(city.id))
        assert tiles == {city.tile, *state.map.neighbours(*city.tile)}
        assert not tiles & seen
        seen |= tiles
    assert int((state.owner >= 0).sum()) == len(seen)


@pytest.mark.parametrize("name", ["three_kingdoms", "duel"])
def test_map_180_landings_and_central_ruin(name: str) -> None:
    """MAP-180, VIC-090: each kingdom starts on its landing; the Ruin is central and equally far by march."""
    scn = load_scenario(name)
    state = build_state(scn, seed=3)
    for kd in state.kingdoms.values():
        assert state.cities[kd.capital_id].tile == kd.landing
    ruin = next(c for c in state.cities.values() if c.is_ruin)
    assert distance(ruin.tile, state.map.centre()) <= 3
    assert fairness_problems(state.map, scn.landings(), ruin.tile) == []


# --- storage -----------------------------------------------------------------------------------------


def test_map_round_trip_to_dict_from_dict() -> None:
    """A map stored as plain data comes back identical (rows, bridges, landmarks, derived arrays)."""
    gm = load_scenario("three_kingdoms").game_map()
    back = GameMap.from_dict(gm.to_dict())
    assert back.rows() == gm.rows()
    assert back.landmarks == gm.landmarks
    for name in ("terrain", "river", "bridge", "food", "prod", "move_cost", "water_class", "body", "landmark_of"):
        assert np.array_equal(getattr(back, name), getattr(gm, name)), name
    assert back.to_dict() == gm.to_dict()
