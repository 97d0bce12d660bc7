"""Routes: move costs, months, rivers, closed land, blocking and tie-breaks (MOVE-020..090, 270..320, OPEN-65, OPEN-66).

Axial neighbours of (q,r): the steps of kingdoms.hexgrid.DIRECTIONS (E +1,0; W -1,0; NE +1,-1; NW 0,-1; SE 0,+1; SW -1,+1).
"""

from __future__ import annotations

import heapq

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kingdoms.engine.belief import believed_map
from kingdoms.engine.land import found_city
from kingdoms.engine.pathing import (
    CROSS,
    OVERFLOW,
    Ground,
    find_route,
    months_to_reach,
    nearest_reachable,
    net_of,
    reachable,
)
from kingdoms.mapgen import generate
from kingdoms.setup import build_state
from kingdoms.state import Camp
from tests.builders import add, corridor, world


def route(state, unit, to, **kw):
    g = Ground(state, unit, **{k: v for k, v in kw.items() if k in ("mode", "ignore_foreign")})
    return find_route(g, {state.map.index(*to)}, moves_left=kw.get("moves_left"), ghost=kw.get("ghost", False))


def tiles(r):
    return [s.tile for s in r.steps]


# --- costs and months (MOVE-010, MOVE-020, OPEN-66) ---------------------------------------------------------


def test_move_020_grass_one_move_per_tile_and_three_a_month():
    """MOVE-010, MOVE-020: a levy (3 moves) crosses 9 grass tiles in 3 months."""
    state = world()
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    r = route(state, levy, (9, 4))
    assert r.months == 3
    assert [state.map.tile(i) for i in r.month_ends()] == [(3, 4), (6, 4), (9, 4)]


def test_move_020_forest_and_hills_cost_two_mountains_never():
    """MOVE-020: forest and hills cost 2; mountains and water are never entered."""
    state = world({**corridor(), (1, 4): "F", (2, 4): "H", (3, 4): "M", (3, 2): "~"})
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    r = route(state, levy, (2, 4))
    # along the lane: (1,4) forest 2 moves, 1 left; the hills need 2: the next month
    assert [s.cost for s in r.steps] == [2, 2] and r.months == 2
    assert route(state, levy, (3, 4)) is None
    g = Ground(state, levy)
    assert not g.enterable(state.map.index(3, 2)) and not g.enterable(state.map.index(3, 3))


def test_open_66_routes_count_months_not_just_moves():
    """OPEN-66: of two lanes of equal move cost (5), the one that arrives a month sooner is taken."""
    marks = {(0, 2): "P", (3, 2): "P",
             (1, 1): "F", (2, 1): "F", (3, 1): "P",  # lane A (lower r): F F P
             (0, 3): "P", (1, 3): "F", (2, 3): "F"}  # lane B: P F F
    state = world(marks, fill="M")
    levy = add(state, "wei", "levy", (0, 2), 1_000)
    r = route(state, levy, (3, 2))
    # A: month 1 forest (2), forest needs 2 with 1 left -> month 2 forest + plains -> month 3 the goal: 3 months
    # B: month 1 plains + forest (3) -> month 2 forest + goal (3): 2 months
    assert tiles(r) == [(0, 3), (1, 3), (2, 3), (3, 2)]
    assert r.months == 2


def test_open_66_ties_go_to_lowest_r_then_q():
    """OPEN-66, OPEN-74: (2,4) to (4,3) is 2 steps either E then NE or NE then E: the lower r predecessor wins."""
    state = world()
    levy = add(state, "wei", "levy", (2, 4), 1_000)
    assert tiles(route(state, levy, (4, 3))) == [(3, 3), (4, 3)]


def test_open_66_partly_spent_month():
    """OPEN-66: with 1 move left a forest step waits for next month; with all moves unspent any step is allowed."""
    state = world({**corridor(), (3, 4): "F"})
    levy = add(state, "wei", "levy", (2, 4), 1_000)
    assert route(state, levy, (3, 4), moves_left=1).steps[0].month == 1
    assert route(state, levy, (3, 4), moves_left=2).steps[0].month == 0
    engines = add(state, "wei", "catapult", (1, 4), 200)  # 2 moves: a forest step is its whole month
    assert route(state, engines, (3, 4)).months == 2


# --- rivers (MOVE-270..300, OPEN-65) ------------------------------------------------------------------------


def _river(bridges=None, extra=None):
    marks = {(5, r): "g" for r in range(8)}  # a river line (5,r): crossed E-W or NE-SW
    marks.update(extra or {})
    return world(marks, bridges=bridges)


def test_move_270_300_river_crossed_straight_in_one_move_ending_the_month():
    """MOVE-270, MOVE-300, OPEN-65: (4,2) -> over (5,2) -> (6,2) for one move; the crossing ends the month's march."""
    state = _river()
    levy = add(state, "wei", "levy", (3, 2), 1_000)
    r = route(state, levy, (7, 2))
    assert [(s.tile, s.kind, s.month) for s in r.steps] == [((4, 2), "step", 0), ((6, 2), CROSS, 0),
                                                             ((7, 2), "step", 1)]
    assert r.steps[1].via == state.map.index(5, 2)
    assert r.months == 2


def test_move_300_no_move_left_no_crossing():
    """MOVE-300, OPEN-65: a crossing needs at least one move: with none left it waits a month."""
    state = _river()
    levy = add(state, "wei", "levy", (4, 2), 1_000)
    r = route(state, levy, (6, 2), moves_left=0)
    assert r.steps[0].kind == CROSS and r.steps[0].month == 1


def test_move_290_never_stop_in_or_march_along_a_river():
    """MOVE-290: no route ends in an unbridged river tile; colonists may go there to found a city."""
    state = _river()
    levy = add(state, "wei", "levy", (4, 2), 1_000)
    assert route(state, levy, (5, 3)) is None
    colonists = add(state, "wei", "colonists", (4, 4), men=5_000)
    r = route(state, colonists, (5, 4))
    assert tiles(r) == [(5, 4)]


def test_open_65_far_bank_must_be_open_land():
    """OPEN-65: no crossing onto a mountain, or onto a second river tile (a wide river needs a bridge)."""
    state = _river(extra={(6, 2): "M"})
    levy = add(state, "wei", "levy", (4, 2), 1_000)
    r = route(state, levy, (7, 2))
    assert all(s.tile != (6, 2) for s in r.steps) and r.steps[0].kind == "step"  # crosses elsewhere
    wide = world({**{(5, r): "g" for r in range(10)}, **{(6, r): "g" for r in range(10)}})
    levy2 = add(wide, "wei", "levy", (4, 2), 1_000)
    assert route(wide, levy2, (8, 2)) is None
    bridged = world({**{(5, r): "g" for r in range(10)}, **{(6, r): "g" for r in range(10)}},
                    bridges=[(5, 2), (6, 2)])
    levy3 = add(bridged, "wei", "levy", (4, 2), 1_000)
    r3 = route(bridged, levy3, (7, 2))
    # MAP-120: bridged tiles are ordinary: 3 grass steps in one month
    assert tiles(r3) == [(5, 2), (6, 2), (7, 2)] and r3.months == 1


def test_open_65_city_on_a_river_tile_is_an_ordinary_tile():
    """OPEN-65: a city founded on a river tile can be entered and held."""
    state = _river()
    found_city(state, "wei", 5, 4, people=5_000, grain=20, name="Ford")
    levy = add(state, "wei", "levy", (3, 4), 1_000)
    assert tiles(route(state, levy, (5, 4))) == [(4, 4), (5, 4)]


# --- closed land and foreign units (DIPLO-020, DIPLO-030, MOVE-080..100, MOVE-310, MOVE-320) ----------------


def test_diplo_020_closed_land_at_peace_scouts_cross():
    """DIPLO-020, DIPLO-030, MOVE-310, INTEL-210: at peace Shu's land and camps are closed to Wei's troops, not its scouts."""
    state = world(war=False)
    found_city(state, "shu", 5, 4, people=10_000, grain=100, name="Chengdu")
    levy = add(state, "wei", "levy", (3, 4), 1_000)
    scout = add(state, "wei", "scout", (3, 5))
    assert route(state, levy, (6, 4)) is None  # (6,4) is in Shu's founding ring
    assert route(state, scout, (6, 4)) is not None
    r = route(state, levy, (8, 4))
    assert all(state.owner[state.map.index(*s.tile)] < 0 for s in r.steps), "the march goes round their land"
    state.camps[7] = Camp(7, "shu", 3, 7, 5.0)
    assert route(state, levy, (3, 7)) is None
    state.wars = [["shu", "wei"]]
    assert route(state, levy, (6, 4)) is not None
    assert route(state, levy, (3, 7)) is not None


def test_move_080_090_armed_block_unarmed_passed_on_a_move_only():
    """MOVE-080, MOVE-090, MOVE-100, OPEN-67: enemy troops block; a wagon is passed on a move (not stopped on)
    and blocks an attack; a lone siege train blocks."""
    state = world(corridor())  # a lane along r = 4
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    wagon = add(state, "shu", "wagon", (2, 4), cargo=5)
    r = route(state, levy, (5, 4))
    assert (2, 4) in tiles(r) and r.months == 2
    assert route(state, levy, (5, 4), mode="attack") is None
    assert route(state, levy, (2, 4)) is None, "it cannot stop on the wagon's tile"
    wagon.type = "catapult"  # a lone siege train is armed (OPEN-67)
    wagon.men = 200
    assert route(state, levy, (5, 4)) is None


def test_move_320_spies_slip_past_everything_scouts_keep_out_of_cities():
    """MOVE-320, INTEL-080, INTEL-120: spies pass troops and cities; scouts cannot enter a foreign city."""
    state = world(corridor())
    add(state, "shu", "levy", (2, 4), 3_000)
    spy = add(state, "wei", "spy", (0, 4))
    scout = add(state, "wei", "scout", (0, 4))
    assert route(state, spy, (5, 4)) is not None
    assert route(state, scout, (5, 4)) is None
    found_city(state, "shu", 7, 4, people=5_000, grain=10, name="Fort")
    assert route(state, spy, (8, 4)) is not None and route(state, spy, (7, 4)) is None


def test_move_040_050_own_troops_passed_never_stopped_on():
    """MOVE-040, MOVE-050: a march passes own troops but a month may not end on one: it steps on to the next free tile."""
    state = world()
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    add(state, "wei", "spearman", (3, 4), 1_000)
    r = route(state, levy, (6, 4))
    # 3 moves bring it onto (3,4), held by its own spearmen: one more step to (4,4) ends the month
    assert [(s.tile, s.kind, s.month) for s in r.steps][:4] == [((1, 4), "step", 0), ((2, 4), "step", 0),
                                                                ((3, 4), "step", 0), ((4, 4), OVERFLOW, 0)]
    assert r.months == 2
    ghost = route(state, levy, (6, 4), ghost=True)
    assert [state.map.tile(i) for i in ghost.month_ends()] == [(3, 4), (6, 4)]


def test_months_to_reach_and_nearest_reachable():
    """Previews: months a march takes; the nearest reachable tile to an unreachable one."""
    state = world({(6, 4): "M"})
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    assert months_to_reach(state, levy, (5, 4)) == 2
    assert months_to_reach(state, levy, (6, 4)) is None
    g = Ground(state, levy)
    tile, months = nearest_reachable(g, state.map.index(6, 4))
    # every neighbour of (6,4) is 1 away; (5,4) (5 steps), (6,3) and (5,5) (6 steps) take 2 months, (7,x) 3:
    # the tie goes to the lowest r -> (6,3)
    assert (tile, months) == ((6, 3), 2)
    assert reachable(g)[state.map.index(0, 4)] == 0


# --- month-optimality against a plain exhaustive reference (property) ---------------------------------------


def _reference_months(state, unit, goal):
    """Fewest months to `goal` by the rules, exhaustively over (tile, month, moves used) — no own/foreign units.
    None when no way leads there (the search ends: a tile with the same moves used is visited once)."""
    gm = state.map
    full = unit.spec.moves
    start = gm.index(unit.q, unit.r)
    goal_i = gm.index(*goal)
    seen = set()  # (tile, moves used): the heap pops each first at its fewest months, and later is never better
    heap = [(0, 0, start)]
    while heap:
        m, s, i = heapq.heappop(heap)
        if (i, s) in seen:
            continue
        seen.add((i, s))
        if i == goal_i:
            return m + (1 if s > 0 or i != start else 0)
        for k in range(6):
            j = int(gm.nbr[i][k])
            if j < 0 or gm.move_cost[j] <= 0:
                continue
            if gm.is_crossing(j):
                far = int(gm.nbr[j][k])
                if far < 0 or gm.move_cost[far] <= 0 or gm.is_crossing(far):
                    continue
                # the crossing needs a move and ends the month; it lands in this month (or the next)
                heapq.heappush(heap, (m if s < full else m + 1, full, far))
                continue
            c = int(gm.move_cost[j])
            if s + c <= full or s == 0:
                heapq.heappush(heap, (m, min(full, s + c), j))
            else:
                heapq.heappush(heap, (m + 1, c, j))
    return None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from("GGGPPFHMg"), min_size=48, max_size=48), st.sampled_from(["levy", "cavalry",
                                                                                            "catapult"]),
       st.integers(0, 47), st.integers(0, 47))
@example(list("GGGGGGGG" + "MMMMMMMM" + "G" * 32), "levy", 0, 40)  # walled off by mountains: no route at all
def test_open_66_route_months_match_an_exhaustive_reference(letters, kind, a, b):
    """OPEN-66, MOVE-020, MOVE-270: find_route's months equal the fewest months found by brute force (no units),
    and its route is the same whether the search is guided by the month-aware landmark bound or by the plain
    hex distance (the heuristic changes only the work done: pathing module docstring)."""
    from kingdoms.engine import pathing
    from kingdoms.gamemap import GameMap

    rows = ["".join(letters[r * 8:(r + 1) * 8]) for r in range(6)]
    gm = GameMap.from_rows(rows)
    if gm.move_cost[a] <= 0 or gm.move_cost[b] <= 0 or gm.is_crossing(a) or gm.is_crossing(b):
        return
    state = world(rows=gm, kingdoms=["wei"], seed=1, month=1, war=False, rotation=[])
    unit = add(state, "wei", kind, gm.tile(a), 1_000)
    found = []
    saved = pathing._MONTHLY_FROM
    try:
        for far in (0, 10**6):  # the landmark bound on every search it may guide, then on none
            pathing._MONTHLY_FROM = far
            net_of(gm).routes.clear()
            found.append(find_route(Ground(state, unit), {b}))
    finally:
        pathing._MONTHLY_FROM = saved
    expected = _reference_months(state, unit, gm.tile(b))
    assert (found[0].months if found[0] is not None else None) == expected
    assert (found[0] is None) == (found[1] is None)
    assert found[0] is None or found[1] is None or found[0].steps == found[1].steps


# --- a believed map's net (engine.belief) ---------------------------------------------------------------------


def test_intel_050_a_believed_maps_rows_are_those_of_the_same_ground_built_afresh():
    """INTEL-050: a believed map's search rows (made on first use, the true map's reused where the ground around
    a tile is the same) equal the rows of a map of that very ground built on its own, for every tile, with the
    river crossings as they stand and with cities taken off them."""
    gm = build_state(generate(5, 3, size=(40, 30)), 1).map
    rng = np.random.default_rng(5)
    for share in (0.3, 0.7, 0.95):
        explored = rng.random(gm.size) < share
        bm = believed_map(gm, explored)
        fresh = gm.with_ground(bm.terrain.copy(), bm.river.copy(), bm.bridge.copy())  # no derived_map: full rows
        got, want = net_of(bm), net_of(fresh)
        assert got.plain and not want.plain
        river = bytearray(want.river)
        towns = bytearray(river)
        for i in np.flatnonzero(np.frombuffer(want.river, dtype=np.uint8))[::3].tolist():
            towns[i] = 0  # a city on a river tile is an ordinary tile (OPEN-65)
        for crossing in (river, towns):
            (plain, rivers), (plain0, rivers0) = got.split(crossing), want.split(crossing)
            for u in range(gm.size):
                assert got.ways[u] == want.ways[u], u
                assert plain[u] == plain0[u] and rivers[u] == rivers0[u], u


def test_move_270_a_maps_split_rows_are_its_ways_split_by_the_crossings():
    """MOVE-270, OPEN-65: a true map's rows split by the board's crossings (made whole only beside a crossing, the
    rest its ordinary rows) are every neighbour that is not a crossing as a step and every one that is as a
    crossing, in its ways' order: first made for the bare river, or first for cities taken off it."""
    gm = build_state(generate(5, 3, size=(40, 30)), 1).map
    river = bytearray(net_of(gm).river)
    towns = bytearray(river)
    for i in np.flatnonzero(np.frombuffer(bytes(river), dtype=np.uint8))[::3].tolist():
        towns[i] = 0
    assert river != towns
    net = net_of(gm)  # its layout and ways rows (made on first use): each neighbour, the tile beyond, its cost
    for u in range(gm.size):
        on = [k for k in range(6) if gm.nbr[u, k] >= 0]
        far = [int(gm.nbr[gm.nbr[u, k], k]) for k in on]
        assert net.beyond[u] == tuple(zip([int(gm.nbr[u, k]) for k in on], far, strict=True)), u
        assert net.ways[u] == tuple((v, b, max(int(gm.move_cost[v]), 0)) for v, b in net.beyond[u]), u
        assert net.steps_all[u] == tuple((v, c) for v, _b, c in net.ways[u]), u
    for first in ((river, towns), (towns, river)):
        net = net_of(gm.with_ground(gm.terrain.copy(), gm.river.copy(), gm.bridge.copy()))
        for crossing in first:
            plain, rivers = net.split(crossing)
            for u in range(gm.size):
                assert plain[u] == tuple((v, c) for v, _b, c in net.ways[u] if not crossing[v]), u
                assert rivers[u] == tuple((v, b, c) for v, b, c in net.ways[u] if crossing[v]), u


# --- per-map tables (the search's heuristic and rows) --------------------------------------------------------


def _bucket_distances(edges: list[list[tuple[int, int]]], source: int, far: int) -> list[int]:
    """Plain Dijkstra over small integer weights: the reference for the landmark tables."""
    dist = [far] * len(edges)
    dist[source] = 0
    heap = [(0, source)]
    while heap:
        d, u = heapq.heappop(heap)
        if d != dist[u]:
            continue
        for v, w in edges[u]:
            if d + w < dist[v]:
                dist[v] = d + w
                heapq.heappush(heap, (d + w, v))
    return dist


def test_move_270_landmark_tables_are_the_relaxed_boards_exact_distances():
    """MOVE-020, MOVE-270: the landmark rows (-d(L, v), then d(v, L)) are the exact distances on the relaxed board
    (a step at the tile's cost, a crossing over an unbridged river tile at 1), unreachable tiles far away."""
    from kingdoms.engine import pathing

    gm = build_state(generate(3, 3, size=(40, 30)), 1).map
    assert bool(gm.river.any()) and bool((gm.move_cost <= 0).any())
    net = net_of(gm)
    rows = pathing._landmarks(net)
    n = gm.size
    out: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    into: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    river = (gm.river & ~gm.bridge).tolist()
    for u in range(n):
        for k, v in enumerate(gm.nbr[u].tolist()):
            if v < 0:
                continue
            if gm.move_cost[v] > 0:
                out[u].append((v, int(gm.move_cost[v])))
                into[v].append((u, int(gm.move_cost[v])))
            b = int(gm.nbr[v, k])
            if river[v] and b >= 0 and gm.move_cost[b] > 0:
                out[u].append((b, 1))
                into[b].append((u, 1))
    half = len(rows) // 2
    landmarks = [int(np.flatnonzero(rows[k] == 0)[0]) for k in range(half)]  # d(L, L) = 0 only there on land
    assert len(landmarks) == pathing._LANDMARKS
    for k, lm in enumerate(landmarks):
        assert rows[k].tolist() == [-d for d in _bucket_distances(out, lm, pathing._FAR)]
        assert rows[half + k].tolist() == _bucket_distances(into, lm, pathing._FAR)


def test_map_030_neighbours_are_mutual():
    """MAP-030: a tile is beside each of its neighbours (the believed rows mark the tiles beside a changed one
    through the changed one's neighbours)."""
    for gm in (build_state(generate(3, 3, size=(40, 30)), 1).map, world().map):
        for u, row in enumerate(gm.nbr.tolist()):
            for v in row:
                assert v < 0 or u in gm.nbr[v].tolist()


def test_intel_050_ring_weights_shared_with_believed_maps_equal_their_own():
    """INTEL-050: the hex-distance weights a believed map borrows from its true map (same layout) equal the ones
    worked out on a map of that ground made on its own."""
    from kingdoms.engine import pathing

    gm = build_state(generate(5, 3, size=(40, 30)), 1).map
    bm = believed_map(gm, np.random.default_rng(2).random(gm.size) < 0.5)
    fresh = gm.with_ground(bm.terrain.copy(), bm.river.copy(), bm.bridge.copy())
    for centre, radius in ((0, 0), (517, 1), (gm.size - 1, 3)):
        assert pathing._ring_weights(net_of(gm), centre, radius) == pathing._ring_weights(net_of(fresh), centre, radius)
        assert pathing._ring_weights(net_of(bm), centre, radius) == pathing._ring_weights(net_of(fresh), centre, radius)
    assert net_of(bm).rings is net_of(gm).rings and net_of(fresh).rings is not net_of(gm).rings


def test_move_020_ring_weights_from_offset_tables_equal_the_hex_distances():
    """MOVE-020, MAP-030: the A* weights read as a window of the per-layout offset tables are the clipped hex
    distance of every tile to the goal ring, worked out tile by tile, for centres on even and odd rows, every
    corner and radii up to beyond the weight cap (a long thin map has distances over it)."""
    from kingdoms.engine import pathing
    from kingdoms.hexgrid import hex_len

    for gm in (build_state(generate(5, 3, size=(40, 30)), 1).map, world(width=300, height=3).map):
        net = net_of(gm)
        q, r = gm.q_of.tolist(), gm.r_of.tolist()
        for centre in (0, 1, gm.width - 1, gm.width, gm.size // 2 + 3, gm.size - gm.width, gm.size - 1):
            for radius in (0, 1, 4, 60, 300):
                net.rings.clear()
                got = pathing._ring_weights(net, centre, radius)
                want = bytes(min(max(hex_len(q[i] - q[centre], r[i] - r[centre]) - radius, 0), 255)
                             for i in range(gm.size))
                assert got == want, (gm.width, centre, radius)


def test_move_090_a_route_kept_for_a_board_is_the_route_found_afresh():
    """MOVE-040, MOVE-090: find_route keeps its answers per map, keyed by what the board's arrays are made of: on
    boards that come back, change (troops and wagons moved about, own units in the way) and come back again, with
    other moves left or a join tile, each answer equals the one found with nothing kept."""
    from kingdoms.engine import pathing

    state = world({**corridor(), (4, 4): "F", (6, 2): "~"}, width=14, height=10)
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    other = add(state, "shu", "spearman", (11, 7), 1_000)
    wagon = add(state, "shu", "wagon", (11, 8))
    mate = add(state, "wei", "levy", (11, 6), 1_000)
    net = net_of(state.map)
    rng = np.random.default_rng(7)
    spots = [(q, r) for q in range(-2, 12) for r in range(10) if state.map.index(q, r) >= 0
             and state.map.move_cost[state.map.index(q, r)] > 0]
    seen: dict[tuple, bytes] = {}
    for k in range(60):
        if k % 3:
            for unit in (other, wagon, mate):
                unit.q, unit.r = spots[int(rng.integers(len(spots)))]
        goal = state.map.index(*spots[int(rng.integers(len(spots)))])
        left = float(rng.integers(0, 4))
        ghost = bool(k % 2)
        g = Ground(state, levy)
        kept = find_route(g, {goal}, moves_left=left, ghost=ghost)
        net.routes.clear()
        fresh = find_route(Ground(state, levy), {goal}, moves_left=left, ghost=ghost)
        assert (kept is None) == (fresh is None)
        if kept is not None and fresh is not None:
            assert kept.start == fresh.start and kept.steps == fresh.steps
            assert kept.steps is not find_route(g, {goal}, moves_left=left, ghost=ghost).steps  # a copy each time
        arrays = bytes(g.blocked + g.noend + g.own_mask + g.crossing + g.stops)
        assert seen.setdefault(g.board_key(), arrays) == arrays  # a key seen before: the very same arrays
    assert 20 < len(seen) < 60 and len(net.routes) <= pathing._ROUTES_KEPT
    # a board that comes back after another one: its kept route is read, and it is the one found afresh
    net.routes.clear()
    levy.q, levy.r, other.q, other.r, wagon.q, wagon.r = 0, 4, 5, 4, 6, 4  # a spearman across the lane
    goal = state.map.index(9, 4)
    assert find_route(Ground(state, levy), {goal}) is None and len(net.routes) == 1
    other.q, other.r = 11, 7  # it leaves: only the wagon, passed but not stopped on
    first = find_route(Ground(state, levy), {goal})
    assert first is not None and len(net.routes) == 2
    other.q, other.r = 5, 4
    assert find_route(Ground(state, levy), {goal}) is None and len(net.routes) == 2  # kept, not searched again
    other.q, other.r = 11, 7
    again = find_route(Ground(state, levy), {goal})
    assert again is not None and again.steps == first.steps and len(net.routes) == 2


def test_diplo_020_closed_land_kept_per_map_is_the_fresh_answer():
    """DIPLO-020, DIPLO-030: _closed_land's kept answers (keyed by the kingdoms at peace, their cities and camps and
    the ownership array) equal the answer made with nothing kept, on a true board and on a believed one marking
    land seen whose city it does not know with its holder's code, as peace, ownership and camps change."""
    from kingdoms.engine.land import holder_code
    from kingdoms.engine.pathing import _closed_land

    state = world(width=14, height=10, kingdoms=["wei", "shu", "wu"], war=False)
    for kid, tile in (("shu", (8, 3)), ("wu", (3, 7))):
        found_city(state, kid, *tile, people=5_000, grain=50.0)
    wu_city = next(c.id for c in state.cities.values() if c.owner == "wu")
    net = net_of(state.map)
    held0 = state.owner.copy()

    def expected(owner: str) -> bytes:
        peace = [k for k in state.kingdoms if k != owner and not state.at_war(owner, k)]
        ids = [c.id for c in state.cities.values() if c.owner in peace]
        closed = np.frombuffer(net.impassable, dtype=bool) | np.isin(state.owner, ids + [
            holder_code(state, k) for k in peace])
        for camp in state.camps.values():
            if camp.owner in peace:
                closed[state.map.index(camp.q, camp.r)] = True
        return bytes(closed.view(np.uint8))

    steps = [
        lambda: None,
        lambda: state.wars.append(["shu", "wei"]),
        lambda: state.camps.update({99: Camp(id=99, owner="wu", q=6, r=6)}),
        lambda: state.owner.__setitem__(state.map.index(1, 1), holder_code(state, "wu")),  # a believed board's code
        lambda: state.wars.clear(),
        lambda: state.camps.clear(),
        lambda: state.cities.pop(wu_city),  # a believed board that does not know wu's city: only the code closes
        lambda: state.wars.append(["wei", "wu"]),  # the same cities and camps, another peace
        lambda: state.owner.__setitem__(slice(None), held0),  # the same tiles again: a kept answer comes back
        lambda: state.owner.__setitem__(state.map.index(8, 3), -1),  # a city's own tile lost
    ]
    for step in steps:
        step()
        for owner in ("wei", "shu", "wu"):
            kept = _closed_land(state, owner, net)
            net.closed.clear()
            assert kept == _closed_land(state, owner, net) == expected(owner)


def test_move_020_a_searchs_spare_labels_come_back_clean():
    """MOVE-020, MOVE-040: find_route's searches fill spare (best, parent) lists kept per map and reset the
    entries they wrote: after every search each spare is all unreached again, and each route equals the one found
    with no spare kept (on boards that change as troops move about)."""
    from kingdoms.engine import pathing

    state = world({**corridor(), (4, 4): "F", (6, 2): "~"}, width=14, height=10)
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    others = [add(state, "shu", "spearman", (11, 7), 1_000), add(state, "shu", "wagon", (11, 8)),
              add(state, "wei", "levy", (11, 6), 1_000)]
    net = net_of(state.map)
    rng = np.random.default_rng(11)
    spots = [(q, r) for q in range(-2, 12) for r in range(10) if state.map.index(q, r) >= 0
             and state.map.move_cost[state.map.index(q, r)] > 0]
    n = state.map.size
    for k in range(60):
        for unit in [levy, *others]:
            unit.q, unit.r = spots[int(rng.integers(len(spots)))]
        goal = state.map.index(*spots[int(rng.integers(len(spots)))])
        left, ghost = float(rng.integers(0, 4)), bool(k % 2)
        net.routes.clear()
        kept = find_route(Ground(state, levy), {goal}, moves_left=left, ghost=ghost)
        assert net.labels and all(best == [pathing._INF] * n and parent == [-1] * n for best, parent in net.labels)
        net.routes.clear()
        net.labels.clear()
        fresh = find_route(Ground(state, levy), {goal}, moves_left=left, ghost=ghost)
        assert (kept is None) == (fresh is None)
        assert kept is None or fresh is None or (kept.start, kept.steps) == (fresh.start, fresh.steps)
