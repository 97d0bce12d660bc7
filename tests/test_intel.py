"""Intelligence: sight, spies, counter-spies, catches, reports, sabotage and memory (INTEL-010..220).

Figures are worked by hand from the rules: sight radii 2/4/1/2 (+1 beyond the border), 1% + 3% + 5% per
counter-spy catch chance, 20% per counter-spy unmasking up to 60%, half the granary, 12% panic desertion.
"""

from __future__ import annotations

import numpy as np
import pytest

from kingdoms import ruledata as rd
from kingdoms.engine.context import OrderFailed
from kingdoms.engine.intel import (
    catch_chance,
    memory_phase,
    run_sabotage,
    run_station_spy,
    spies_captured,
    spies_phase,
    unmask_chance,
)
from kingdoms.engine.month import check_orders, resolve_month, run_kingdom
from kingdoms.engine.sight import (
    compute_sight,
    hex_to_mask,
    mask_to_hex,
    neighbourhood,
    sight_of,
    watched_tiles,
)
from kingdoms.engine.visibility import (
    can_see_unit,
    estimate_range,
    has_fresh_report,
    known_city_tile,
    knows_city,
    require_known_city,
    require_own_unit,
    watches_unit,
)
from kingdoms.hexgrid import distance, offset_col
from kingdoms.orders.models import Sabotage, StationSpy
from kingdoms.state import QueueEntry, StationedSpy
from kingdoms.views import build_view

from .builders import FixedRoll, add, add_city, ctx_for, kingdom, open_world, reveal


def visible_tiles(state, kingdom_id):
    """Set of tiles in the kingdom's sight."""
    gm = state.map
    return {gm.tile(int(i)) for i in np.flatnonzero(sight_of(state, kingdom_id).visible)}


def within(centre, radius):
    """Tiles of the open test map within `radius` of `centre` (the test centres are far from the edges)."""
    q0, r0 = centre
    return {(q, r) for q in range(q0 - radius, q0 + radius + 1) for r in range(r0 - radius, r0 + radius + 1)
            if distance((q, r), centre) <= radius}


# --- INTEL-010: sight radii ---------------------------------------------------------------------------


def test_intel_010_troop_sees_two_tiles():
    """INTEL-010: a troop sees exactly the 19 tiles within 2 (1 + 6 + 12)."""
    s = open_world()
    add(s, "wei", "levy", (8, 6), men=3000, months=0)
    seen = visible_tiles(s, "wei")
    assert seen == within((8, 6), 2)
    assert len(seen) == 19
    assert (10, 6) in seen and (11, 6) not in seen


def test_intel_010_scout_sees_four_tiles_spy_one():
    """INTEL-010: a scout sees the 61 tiles within 4, a travelling spy the 7 within 1."""
    s = open_world()
    add(s, "wei", "scout", (8, 6))
    assert visible_tiles(s, "wei") == within((8, 6), 4)
    assert len(within((8, 6), 4)) == 61
    s2 = open_world()
    add(s2, "wei", "spy", (8, 6))
    assert visible_tiles(s2, "wei") == within((8, 6), 1)


def test_intel_010_civilians_see_like_troops():
    """INTEL-010: colonists and wagons are not agents, so they see 2 tiles like troops (our reading)."""
    s = open_world()
    add(s, "wei", "colonists", (8, 6), men=5000, months=0)
    assert visible_tiles(s, "wei") == within((8, 6), 2)


def test_intel_010_city_sight_and_land_plus_one_beyond_border():
    """INTEL-010: a city sees 2 tiles; all own land is seen plus one tile beyond it, however far it reaches."""
    s = open_world()
    c = add_city(s, "wei", (6, 6))
    assert visible_tiles(s, "wei") == within((6, 6), 2)
    far_land = (10, 6)  # distance 4 from the centre
    s.owner[s.map.index(*far_land)] = c.id
    seen = visible_tiles(s, "wei")
    assert within(far_land, 1) <= seen
    assert (11, 6) in seen and (12, 6) not in seen  # one tile beyond the border, not two
    assert (9, 6) in seen and (9, 7) in seen


def test_intel_010_sight_is_per_kingdom():
    """INTEL-010 / MAP-190: one kingdom's units give no sight to another."""
    s = open_world()
    add(s, "wei", "scout", (8, 6))
    assert visible_tiles(s, "shu") == set()


def test_intel_010_neighbourhood_tables_cached_and_exact():
    """INTEL-010: the precomputed distance-k tables list exactly the on-map tiles within k (off-map = n)."""
    s = open_world()
    gm = s.map
    t2 = neighbourhood(gm, 2)
    assert neighbourhood(gm, 2) is t2  # cached per map
    i = gm.index(8, 6)
    assert {gm.tile(int(j)) for j in t2[i]} == within((8, 6), 2)
    corner = gm.index(*gm.tile(0))
    on_map = [int(j) for j in t2[corner] if j < gm.size]
    assert all(distance(gm.tile(j), gm.tile(corner)) <= 2 for j in on_map)
    assert (t2[corner] == gm.size).sum() == 19 - len(on_map)


def test_intel_010_mask_hex_round_trip():
    """MAP-190: the explored mask is stored compactly and read back unchanged."""
    mask = np.zeros(280, dtype=bool)
    mask[[0, 7, 8, 100, 279]] = True
    assert (hex_to_mask(mask_to_hex(mask), 280) == mask).all()
    assert not hex_to_mask("", 280).any()
    back = hex_to_mask(mask_to_hex(mask), 280)
    assert back.dtype == bool and back.shape == (280,) and back.flags.writeable
    short = hex_to_mask(mask_to_hex(mask[:16]), 280)  # a text shorter than the map: the rest unexplored
    assert short.shape == (280,) and list(np.flatnonzero(short)) == [0, 7, 8]
    assert list(np.flatnonzero(hex_to_mask(mask_to_hex(mask), 9))) == [0, 7, 8]  # a longer one: cut to the map


# --- INTEL-020 / 030 / 040: what foreign things look like -----------------------------------------------


def test_intel_020_enemy_troop_shown_as_type_and_size_class():
    """INTEL-020: an unwatched enemy troop shows its type and size class, never its men."""
    s = open_world()
    add(s, "wei", "levy", (8, 6), men=3000, months=0)
    enemy = add(s, "shu", "cavalry", (9, 7), men=6500, months=0)
    view = build_view(s, "wei")
    (seen,) = view.foreign_units
    assert (seen.id, seen.type, seen.size, seen.men, seen.exact) == (enemy.id, "cavalry", "large", None, False)


def test_intel_030_enemy_city_name_size_walls_troops():
    """INTEL-030: a foreign city shows name, rough size, walls and the size class of its troops only."""
    s = open_world()
    add(s, "wei", "levy", (9, 6), men=3000, months=0)
    c = add_city(s, "shu", (11, 6), people=42_000, grain=222.0, name="Chengdu")
    c.walls, c.walls_max = 40.0, 40.0
    add(s, "shu", "spearman", (11, 6), men=2500, morale=61.0, months=0)
    view = build_view(s, "wei")
    (sc,) = view.foreign_cities
    assert (sc.name, sc.owner, sc.size, sc.walls, sc.walls_state, sc.troops) == (
        "Chengdu", "shu", "city", 40, "palisade, intact", "medium")
    assert sc.garrison is None
    assert view.foreign_units == []  # the garrison is not listed as a field troop


def test_intel_040_hidden_fields_of_enemies():
    """INTEL-040: exact men, types inside cities, morale, generals, granaries and queues stay hidden."""
    s = open_world()
    add(s, "wei", "levy", (9, 6), men=3000, months=0)
    c = add_city(s, "shu", (11, 6), grain=187.25, name="Chengdu")
    c.queue = [QueueEntry("heavy_infantry", men=7777)]
    g = add(s, "shu", "heavy_infantry", (11, 6), men=4321, morale=66.0, months=0)
    field = add(s, "shu", "archer", (9, 8), men=3456, morale=55.0, months=0)
    text = build_view(s, "wei").to_json()
    for secret in ("4321", "3456", "7777", "187.25", "heavy_infantry", "66.0", "55.0", f'"id":{g.id},'):
        assert secret not in text
    assert f'"id":{field.id},' in text


# --- INTEL-050: unseen targets are refused like missing ones --------------------------------------------


def test_intel_050_unseen_unit_refused_like_missing():
    """INTEL-050: a foreign unit out of sight is `unknown_unit` exactly like an id that does not exist."""
    s = open_world()
    hidden = add(s, "shu", "levy", (13, 10), men=3000, months=0)
    with pytest.raises(OrderFailed) as missing:
        require_own_unit(s, "wei", 999)
    with pytest.raises(OrderFailed) as unseen:
        require_own_unit(s, "wei", hidden.id)
    assert missing.value.code == unseen.value.code == "unknown_unit"
    assert unseen.value.message == missing.value.message.replace("#999", f"#{hidden.id}")
    add(s, "wei", "levy", (11, 10), men=3000, months=0)
    with pytest.raises(OrderFailed) as seen:
        require_own_unit(s, "wei", hidden.id)
    assert seen.value.code == "not_your_unit"


def test_intel_050_unknown_city_refused_known_city_from_memory():
    """INTEL-050, COMBAT-380: an unseen city is unknown; one recorded on the map stays known out of sight."""
    s = open_world()
    c = add_city(s, "shu", (12, 6))
    assert not knows_city(s, "wei", c)
    with pytest.raises(OrderFailed) as exc:
        require_known_city(s, "wei", c.id)
    assert exc.value.code == "unknown_city"
    scout = add(s, "wei", "scout", (9, 6))
    assert knows_city(s, "wei", c)
    memory_phase(ctx_for(s))
    del s.units[scout.id]
    assert knows_city(s, "wei", c)
    assert known_city_tile(s, "wei", c.id) == (12, 6)


def test_intel_050_station_spy_on_unknown_city_refused():
    """INTEL-050: station_spy and sabotage naming an unknown city are refused as `unknown_city`."""
    s = open_world()
    spy = add(s, "wei", "spy", (2, 6))
    c = add_city(s, "shu", (12, 6))
    res = check_orders(s, "wei", [], [StationSpy(unit_id=spy.id, city_id=c.id), Sabotage(city_id=c.id, target="granary"),
                                      StationSpy(unit_id=spy.id, city_id=4242)])
    assert [r.code for r in res] == ["unknown_city", "unknown_city", "unknown_city"]


def test_intel_050_foreign_spy_cannot_be_named():
    """INTEL-050, INTEL-090: a foreign spy in plain sight still cannot be named (it is invisible)."""
    s = open_world()
    add(s, "wei", "levy", (8, 6), men=3000, months=0)
    spy = add(s, "shu", "spy", (9, 6))
    assert not can_see_unit(s, "wei", spy)
    with pytest.raises(OrderFailed) as exc:
        require_own_unit(s, "wei", spy.id)
    assert exc.value.code == "unknown_unit"


# --- INTEL-060 / 220: estimates and exactness -----------------------------------------------------------


def test_intel_060_estimate_range_from_size_class():
    """INTEL-060, OPEN-49: ranges are the class's min..max men, untrained; spearmen assumed behind walls."""
    assert estimate_range("small", "cavalry", False) == (1, 1999, "cavalry")
    assert estimate_range("medium", "levy", False) == (2000, 5999, "levy")
    assert estimate_range("large", None, True) == (6000, 11999, "spearman")
    assert estimate_range("huge", "troops", True) == (12000, 20000, "spearman")
    with pytest.raises(ValueError):
        estimate_range("enormous", None, False)


def test_intel_220_fresh_report_this_month_or_last():
    """INTEL-220, COMBAT-410: a city preview is exact only with a spy report from this month or last."""
    s = open_world(month=10)
    c = add_city(s, "shu", (12, 6))
    assert not has_fresh_report(s, "wei", c.id)
    reports = s.kingdoms["wei"].memory.setdefault("reports", {})
    reports[str(c.id)] = {"month": 9}
    assert has_fresh_report(s, "wei", c.id)
    reports[str(c.id)] = {"month": 10}
    assert has_fresh_report(s, "wei", c.id)
    reports[str(c.id)] = {"month": 8}
    assert not has_fresh_report(s, "wei", c.id)


# --- INTEL-070 / 080 / 090: watched tiles ---------------------------------------------------------------


def test_intel_070_scout_watches_field_troops_not_city_garrison():
    """INTEL-070: a scout knows field troops exactly; a city's own troops show as "troops" + size class only."""
    s = open_world()
    add(s, "wei", "scout", (8, 6))
    field = add(s, "shu", "levy", (10, 6), men=3210, months=0)
    c = add_city(s, "shu", (11, 7))
    c.walls, c.walls_max = 100.0, 100.0
    garrison = add(s, "shu", "spearman", (11, 7), men=8000, months=0)
    assert watches_unit(s, "wei", field)
    assert can_see_unit(s, "wei", garrison) is False
    assert not watches_unit(s, "wei", garrison)
    view = build_view(s, "wei")
    (fu,) = view.foreign_units
    assert (fu.men, fu.exact) == (3210, True)
    (fc,) = view.foreign_cities
    assert (fc.troops, fc.garrison) == ("large", None)


def test_intel_070_spy_beside_city_sees_garrison_exactly():
    """INTEL-070: a spy beside the city sees the type and numbers of its troops."""
    s = open_world()
    add(s, "wei", "spy", (10, 7))
    c = add_city(s, "shu", (11, 7))
    garrison = add(s, "shu", "spearman", (11, 7), men=8000, months=0)
    assert can_see_unit(s, "wei", garrison) and watches_unit(s, "wei", garrison)
    (fc,) = build_view(s, "wei").foreign_cities
    assert fc.id == c.id
    assert [(g.id, g.type, g.men) for g in fc.garrison] == [(garrison.id, "spearman", 8000)]


def test_intel_080_scout_watches_4_tiles_and_is_seen_by_rivals():
    """INTEL-080: a scout watches the 61 tiles within 4; rivals (and bandits) can see the scout itself."""
    s = open_world()
    scout = add(s, "wei", "scout", (8, 6))
    assert set(watched_tiles(s, "wei")) == within((8, 6), 4)
    add(s, "shu", "levy", (9, 7), men=3000, months=0)
    assert can_see_unit(s, "shu", scout)
    assert [u.type for u in build_view(s, "shu").foreign_units] == ["scout"]


def test_intel_090_travelling_spy_sees_one_tile_exactly():
    """INTEL-090: a travelling spy sees 1 tile and the troops there exactly, and is invisible to the enemy."""
    s = open_world()
    spy = add(s, "wei", "spy", (8, 6))
    near = add(s, "shu", "levy", (9, 6), men=2345, months=0)
    far = add(s, "shu", "levy", (10, 6), men=2345, months=0)
    assert watches_unit(s, "wei", near)
    assert not can_see_unit(s, "wei", far)
    assert set(watched_tiles(s, "wei")) == within((8, 6), 1)
    assert not can_see_unit(s, "shu", spy)
    assert build_view(s, "shu").foreign_units == []


# --- INTEL-100 / 140: reports ----------------------------------------------------------------------------


def test_intel_100_travelling_spy_beside_city_gets_report():
    """INTEL-100: a travelling spy beside an enemy city receives its report each month; two tiles off, none."""
    s = open_world()
    c = add_city(s, "shu", (12, 6))
    add(s, "wei", "spy", (11, 6))
    other = add_city(s, "shu", (12, 10))
    add(s, "wei", "spy", (10, 10))  # distance 2 from `other`
    spies_phase(ctx_for(s))
    reports = s.kingdoms["wei"].memory["reports"]
    assert set(reports) == {str(c.id)}
    assert reports[str(c.id)]["source"] == "travelling spy beside it"
    assert str(other.id) not in reports


def test_intel_140_report_contents():
    """INTEL-140: people, focus, production, grain, walls, buildings, queue, every unit inside, militia, counter-spies."""
    s = open_world(month=7)
    c = add_city(s, "shu", (12, 6), people=21_000, grain=140.5, name="Chengdu")
    c.focus = "production"
    c.walls, c.walls_max = 35.0, 40.0
    c.buildings = ["palisade", "barracks"]
    c.queue = [QueueEntry("stable", paid=12.0, months=2), QueueEntry("spearman", men=2000)]
    c.militia = 873.0
    gid = s.new_id()
    from kingdoms.state import General

    s.generals[gid] = General(gid, "shu", "Zhao Yun", xp=7)
    garrison = add(s, "shu", "spearman", (12, 6), men=4321, morale=77.0, hunger=0.5, general_id=gid, months=0)
    settlers = add(s, "shu", "colonists", (12, 6), men=5000, cargo=20.0, months=0)
    s.spies += [StationedSpy("wei", c.id, 6), StationedSpy("shu", c.id, 3)]
    ctx = ctx_for(s)
    ctx.rng = lambda purpose: FixedRoll(0.99)  # the counter-spy fails to unmask
    spies_phase(ctx)
    rep = s.kingdoms["wei"].memory["reports"][str(c.id)]
    assert rep["month"] == 7 and rep["source"] == "stationed"
    assert (rep["people"], rep["focus"], rep["grain"], rep["walls"], rep["militia"], rep["counter_spies"]) == (
        21_000, "production", 140.5, 35.0, 873, 1)
    assert rep["buildings"] == ["palisade", "barracks"]
    assert [q["item"] for q in rep["queue"]] == ["stable", "spearman"]
    assert rep["garrison"] == [{"id": garrison.id, "type": "spearman", "men": 4321, "morale": 77.0, "hunger": 0.5,
                                "level": 0, "general": "Zhao Yun", "general_level": 3}]
    assert rep["civilians"] == [{"id": settlers.id, "type": "colonists", "men": 5000, "cargo": 20.0}]
    assert isinstance(rep["production"], int) and rep["production"] >= 1
    assert "shu" not in {k for k, kd in s.kingdoms.items() if kd.memory.get("reports")}  # counter-spies report nothing
    view = build_view(s, "wei")
    assert view.report(c.id).garrison[0]["men"] == 4321


# --- INTEL-110 / 120 / 130 / 210: station_spy -------------------------------------------------------------


def test_intel_110_spy_beside_city_goes_inside_at_once():
    """INTEL-110, INTEL-130, OPEN-39: a spy on or beside the city slips in at once (at peace too, no war)."""
    s = open_world()
    c = add_city(s, "shu", (12, 6))
    spy = add(s, "wei", "spy", (11, 6))
    ctx = ctx_for(s)
    text = run_station_spy(ctx, "wei", StationSpy(unit_id=spy.id, city_id=c.id))
    assert "slips into" in text
    assert spy.id not in s.units
    assert s.spies == [StationedSpy("wei", c.id, s.month)]
    on_tile = add(s, "wei", "spy", (12, 6))
    run_station_spy(ctx, "wei", StationSpy(unit_id=on_tile.id, city_id=c.id))
    assert len(s.spies) == 2 and on_tile.id not in s.units
    assert s.wars == [] and ctx.events == []  # unseen: shu is not told, and no war starts


def test_intel_110_spy_further_away_marches_then_slips_in():
    """INTEL-110: a spy 12 tiles off marches 6 (grass) a month as a standing order and slips in on arrival."""
    s = open_world()
    c = add_city(s, "shu", (12, 6))
    spy = add(s, "wei", "spy", (0, 6))
    reveal(s, "wei")
    ctx = ctx_for(s)
    run_kingdom(ctx, "wei", [StationSpy(unit_id=spy.id, city_id=c.id)])
    assert distance(spy.tile, c.tile) == 6
    assert spy.standing == {"action": "station_spy", "unit_id": spy.id, "city_id": c.id}
    assert ctx.outcomes[0].ok and "1 more month" in ctx.outcomes[0].result
    run_kingdom(ctx_for(s), "wei", [])  # next month: the standing order runs
    assert spy.id not in s.units
    assert [(x.owner, x.city_id) for x in s.spies] == [("wei", c.id)]


def test_intel_110_station_through_resolve_month():
    """INTEL-110, TURN-120: through whole months the standing march carries on and the spy ends up inside."""
    s = open_world()
    add_city(s, "wei", (0, 6), capital=True)
    c = add_city(s, "shu", (14, 6), capital=True)
    spy = add(s, "wei", "spy", (1, 6))
    reveal(s, "wei")
    res = resolve_month(s, {"wei": [StationSpy(unit_id=spy.id, city_id=c.id)]})
    moved = res.state.units[spy.id]
    assert distance(moved.tile, c.tile) == 7
    res = resolve_month(res.state, {})
    assert spy.id not in res.state.units
    assert any(x.owner == "wei" and x.city_id == c.id for x in res.state.spies)
    assert str(c.id) in res.state.kingdoms["wei"].memory["reports"]


def test_intel_110_only_spies_can_be_stationed():
    """INTEL-090, INTEL-110: only spies can be stationed; a scout is refused."""
    s = open_world()
    c = add_city(s, "shu", (12, 6))
    scout = add(s, "wei", "scout", (11, 6))
    (res,) = check_orders(s, "wei", [], [StationSpy(unit_id=scout.id, city_id=c.id)])
    assert (res.ok, res.code) == (False, "not_a_spy")


def test_intel_120_210_spy_slips_past_troops_and_closed_borders():
    """INTEL-120, INTEL-210: troops on the road and a closed border at peace never stop a spy."""
    s = open_world()
    target = add_city(s, "shu", (12, 6))
    add_city(s, "shu", (6, 6))  # shu land straddles the road (closed to wei at peace)
    for q in range(3, 10):
        add(s, "shu", "spearman", (q, 6), men=5000, months=0)
    spy = add(s, "wei", "spy", (1, 6))
    reveal(s, "wei")
    assert not s.at_war("wei", "shu")
    run_station_spy(ctx_for(s), "wei", StationSpy(unit_id=spy.id, city_id=target.id))
    assert distance(spy.tile, target.tile) == 5  # 6 grass steps straight on, through the troops and the border


def test_intel_120_spy_march_pays_terrain_and_river_hop():
    """INTEL-120, MOVE-020, MOVE-270..300: spies pay terrain (forest 2 a tile) and a river crossing ends their month."""
    s = open_world(["FFFFFFFFFF"] * 4)
    c = add_city(s, "shu", (8, 1))
    spy = add(s, "wei", "spy", (0, 1))
    reveal(s, "wei")
    ctx = ctx_for(s)
    text = run_station_spy(ctx, "wei", StationSpy(unit_id=spy.id, city_id=c.id))
    assert spy.tile == (3, 1)  # 6 moves buy 3 forest tiles
    assert ctx.moves(spy) == 0.0 and "2 more months" in text  # 4 forest tiles (8 moves) still to (7,1)
    r = open_world(["GGGgGGGG"] * 4)  # column 3 is river in every row: a barrier hopped straight across
    target = add_city(r, "shu", (6, 2))
    hopper = add(r, "wei", "spy", (0, 2))
    reveal(r, "wei")
    ctx = ctx_for(r)
    run_station_spy(ctx, "wei", StationSpy(unit_id=hopper.id, city_id=target.id))
    assert r.map.is_crossing(r.map.index(2, 2))
    assert offset_col(*hopper.tile) == 4  # landed on the far bank (column 4) ...
    assert ctx.moves(hopper) == 0.0  # ... and the crossing ended its move
    assert hopper.id in r.units and hopper.standing is not None


def test_intel_130_stationed_spy_has_no_unit_and_no_orders():
    """INTEL-130: once inside, the spy has no unit id; orders naming its old id are refused as unknown."""
    s = open_world()
    c = add_city(s, "shu", (12, 6))
    spy = add(s, "wei", "spy", (11, 6))
    run_station_spy(ctx_for(s), "wei", StationSpy(unit_id=spy.id, city_id=c.id))
    (res,) = check_orders(s, "wei", [], [StationSpy(unit_id=spy.id, city_id=c.id)])
    assert res.code == "unknown_unit"
    view = build_view(s, "wei")
    assert [(x.city_id, x.role) for x in view.spies] == [(c.id, "spy")]


# --- INTEL-150: a stationed spy lifts the fog ---------------------------------------------------------------


def test_intel_150_stationed_spy_lifts_fog_two_tiles():
    """INTEL-150: from the month the spy gets in, troops up to 2 tiles from the city show exact figures."""
    s = open_world()
    c = add_city(s, "shu", (10, 6))
    near = add(s, "shu", "cavalry", (12, 6), men=4444, months=0)
    far = add(s, "shu", "cavalry", (13, 6), men=5555, months=0)
    assert not can_see_unit(s, "wei", near)
    spy = add(s, "wei", "spy", (9, 6))
    run_station_spy(ctx_for(s), "wei", StationSpy(unit_id=spy.id, city_id=c.id))
    assert watches_unit(s, "wei", near) and can_see_unit(s, "wei", near)
    assert not can_see_unit(s, "wei", far)
    (fu,) = build_view(s, "wei").foreign_units
    assert (fu.id, fu.men) == (near.id, 4444)


# --- INTEL-160 / 170: sabotage ------------------------------------------------------------------------------


def _spy_in(s, owner, c):
    s.spies.append(StationedSpy(owner, c.id, s.month - 1))


def test_intel_160_sabotage_granary_burns_half():
    """INTEL-160, OPEN-39: burning the granary destroys 50% of the current stock (120 -> 60); the spy is lost."""
    s = open_world()
    c = add_city(s, "shu", (12, 6), grain=120.0)
    _spy_in(s, "wei", c)
    ctx = ctx_for(s)
    text = run_sabotage(ctx, "wei", Sabotage(city_id=c.id, target="granary"))
    assert c.grain == 60.0
    assert s.spies == []
    assert "60.0 dan" in text
    assert [e.audience for e in ctx.events] == [["shu"]]
    assert s.wars == []  # OPEN-39: sabotage never starts a war


def test_intel_160_sabotage_granary_preview_uses_the_spy_report():
    """INTEL-160, INTEL-140, TURN-170: the preview of burning a granary is built from what the kingdom knows: its
    spy's last report showed 204.6 dan, so half of it, 102.3 dan, would burn. Without a report the amount is said
    to be unknown (the true grain never shows). The month end burns half of the true stock."""
    from kingdoms.engine.intel import city_report

    s = open_world()
    c = add_city(s, "shu", (12, 6), grain=204.6)
    _spy_in(s, "wei", c)
    (blind,) = check_orders(s, "wei", [], [Sabotage(city_id=c.id, target="granary")])
    assert blind.ok and "unknown" in blind.message and "0.0 dan" not in blind.message, blind.message
    assert "204.6" not in blind.message and "102.3" not in blind.message
    s.kingdoms["wei"].memory["reports"] = {str(c.id): city_report(s, c, s.month - 1, "stationed")}
    (seen,) = check_orders(s, "wei", [], [Sabotage(city_id=c.id, target="granary")])
    assert seen.ok and "102.3 dan" in seen.message and "204.6" in seen.message, seen.message
    assert f"M{s.month - 1}" in seen.message
    res = resolve_month(s, {"wei": [Sabotage(city_id=c.id, target="granary")]})
    assert [o.result for o in res.outcomes if o.kingdom == "wei"] == [
        f"your spy in {c.name} burned 102.3 dan, half its granary, and is lost"]


def test_intel_160_sabotage_panic_preview_uses_the_spy_report():
    """INTEL-160, INTEL-140: the panic preview counts deserters from the spy's fresh report (12% of 5,000 = 600);
    the garrison's true men today (4,000, after the report) do not show."""
    from kingdoms.engine.intel import city_report

    s = open_world()
    c = add_city(s, "shu", (12, 6))
    troop = add(s, "shu", "spearman", (12, 6), men=5_000, months=0)
    _spy_in(s, "wei", c)
    s.kingdoms["wei"].memory["reports"] = {str(c.id): city_report(s, c, s.month - 1, "stationed")}
    troop.men = 4_000
    (res,) = check_orders(s, "wei", [], [Sabotage(city_id=c.id, target="panic")])
    assert res.ok and f"#{troop.id} spearman would lose about 600 of 5,000 men" in res.message, res.message
    assert "4,000" not in res.message and "480" not in res.message


def test_intel_160_sabotage_panic():
    """INTEL-160: panic - 12% of the garrison deserts (5,000 -> 4,400) and the rest lose 20 morale (90 -> 70)."""
    s = open_world()
    c = add_city(s, "shu", (12, 6))
    troop = add(s, "shu", "spearman", (12, 6), men=5000, morale=90.0, months=0)
    _spy_in(s, "wei", c)
    run_sabotage(ctx_for(s), "wei", Sabotage(city_id=c.id, target="panic"))
    assert (troop.men, troop.morale) == (4400, 70.0)


def test_intel_160_sabotage_needs_own_spy_in_foreign_city():
    """INTEL-160: sabotage needs one of your spies inside; never your own city; panic needs a garrison."""
    s = open_world()
    mine = add_city(s, "wei", (3, 6))
    theirs = add_city(s, "shu", (12, 6))
    add(s, "wei", "scout", (10, 6))  # wei knows the shu city
    res = check_orders(s, "wei", [], [Sabotage(city_id=mine.id, target="granary"),
                                      Sabotage(city_id=theirs.id, target="granary")])
    assert [r.code for r in res] == ["own_city", "no_spy_in_city"]
    _spy_in(s, "wei", theirs)
    (res,) = check_orders(s, "wei", [], [Sabotage(city_id=theirs.id, target="panic")])
    assert res.code == "no_garrison"


def test_intel_170_one_sabotage_per_city_per_month():
    """INTEL-170, OPEN-39: one sabotage per city per month, counting every kingdom."""
    s = open_world()
    s.kingdoms["wu"] = kingdom("wu", "Sun Wu", "Sun Quan", (18, 2), generals="{ruler} G{i}")
    c = add_city(s, "shu", (12, 6), grain=200.0)
    _spy_in(s, "wei", c)
    _spy_in(s, "wei", c)
    _spy_in(s, "wu", c)
    res = check_orders(s, "wei", [], [Sabotage(city_id=c.id, target="granary"), Sabotage(city_id=c.id, target="granary")])
    assert [r.code for r in res] == [None, "already_sabotaged"]
    ctx = ctx_for(s)
    run_sabotage(ctx, "wu", Sabotage(city_id=c.id, target="granary"))
    with pytest.raises(OrderFailed) as exc:
        run_sabotage(ctx, "wei", Sabotage(city_id=c.id, target="granary"))
    assert exc.value.code == "already_sabotaged"
    assert c.grain == 100.0
    assert sum(1 for x in s.spies if x.owner == "wei") == 2  # the refused saboteur stays hidden


# --- INTEL-180: counter-spies -------------------------------------------------------------------------------


def test_intel_180_unmask_chance_per_counter_spy():
    """INTEL-180: 20% per counter-spy, at most 60%; none, no risk."""
    assert [unmask_chance(n) for n in range(5)] == pytest.approx([0.0, 0.2, 0.4, 0.6, 0.6])


@pytest.mark.parametrize(("counters", "roll", "unmasked"), [
    (3, 0.59, True), (3, 0.60, False), (4, 0.61, False), (1, 0.19, True), (1, 0.21, False)])
def test_intel_180_unmask_rolls(counters, roll, unmasked):
    """INTEL-180: a foreign spy is unmasked when the roll falls under 20% x counter-spies (capped at 60%)."""
    s = open_world()
    c = add_city(s, "shu", (12, 6))
    _spy_in(s, "wei", c)
    for _ in range(counters):
        _spy_in(s, "shu", c)
    ctx = ctx_for(s)
    ctx.rng = lambda purpose: FixedRoll(roll)
    spies_phase(ctx)
    assert any(x.owner == "wei" for x in s.spies) is not unmasked
    assert sum(1 for x in s.spies if x.owner == "shu") == counters
    if unmasked:
        assert {tuple(e.audience) for e in ctx.events} == {("wei",), ("shu",)}


def test_intel_180_no_counter_spies_no_roll():
    """INTEL-180: with no counter-spies foreign spies are safe (no roll is made)."""
    s = open_world()
    c = add_city(s, "shu", (12, 6))
    _spy_in(s, "wei", c)
    roll = FixedRoll(0.0)
    ctx = ctx_for(s)
    ctx.rng = lambda purpose: roll
    spies_phase(ctx)
    assert roll.calls == 0 and len(s.spies) == 1


# --- INTEL-190 / OPEN-38: catching travelling spies ---------------------------------------------------------


def test_intel_190_catch_chance():
    """INTEL-190, OPEN-38: 1% on another kingdom's land, +3% next to its troop, +5% per counter-spy within 2."""
    s = open_world()
    c = add_city(s, "shu", (8, 6))
    spy = add(s, "wei", "spy", (9, 6))  # on shu's founding ring
    assert catch_chance(s, spy) == (pytest.approx(0.01), "shu")
    add(s, "shu", "levy", (10, 6), men=3000, months=0)
    assert catch_chance(s, spy)[0] == pytest.approx(0.04)
    _spy_in(s, "shu", c)
    _spy_in(s, "shu", c)
    assert catch_chance(s, spy)[0] == pytest.approx(0.14)
    far = add_city(s, "shu", (14, 6))  # distance 5: its counter-spies do not count
    _spy_in(s, "shu", far)
    assert catch_chance(s, spy)[0] == pytest.approx(0.14)


def test_intel_190_no_catch_off_foreign_land():
    """INTEL-190, OPEN-38: free land, own land and bandit land carry no catch risk."""
    s = open_world()
    free = add(s, "wei", "spy", (5, 6))
    assert catch_chance(s, free) == (0.0, None)
    add_city(s, "wei", (2, 6))
    own = add(s, "wei", "spy", (3, 6))
    assert catch_chance(s, own) == (0.0, None)
    add_city(s, rd.BANDITS, (12, 6), name="Old Fort")
    banditland = add(s, "wei", "spy", (13, 6))
    assert catch_chance(s, banditland) == (0.0, None)


@pytest.mark.parametrize(("roll", "caught"), [(0.0099, True), (0.01, False)])
def test_intel_190_catch_roll_and_both_told(roll, caught):
    """INTEL-190, OPEN-38: a caught spy is destroyed and both sides are told (at war or at peace)."""
    s = open_world()
    add_city(s, "shu", (8, 6))
    spy = add(s, "wei", "spy", (9, 6))
    ctx = ctx_for(s)
    ctx.rng = lambda purpose: FixedRoll(roll)
    spies_phase(ctx)
    assert (spy.id not in s.units) is caught
    if caught:
        assert sorted(e.audience[0] for e in ctx.events if e.kind == "spy_caught") == ["shu", "wei"]


# --- INTEL-200 ----------------------------------------------------------------------------------------------


def test_intel_200_loser_spies_captured_when_city_falls():
    """INTEL-200: the loser's spies in a fallen city are captured; other kingdoms' spies stay."""
    s = open_world()
    s.kingdoms["wu"] = kingdom("wu", "Sun Wu", "Sun Quan", (18, 2), generals="{ruler} G{i}")
    c = add_city(s, "shu", (12, 6))
    _spy_in(s, "shu", c)
    _spy_in(s, "shu", c)
    _spy_in(s, "wu", c)
    c.owner = "wei"
    ctx = ctx_for(s)
    assert spies_captured(ctx, c, "shu") == 2
    assert [x.owner for x in s.spies] == ["wu"]
    assert sorted(e.audience[0] for e in ctx.events) == ["shu", "wei"]


# --- memory (MAP-190) and determinism -----------------------------------------------------------------------


def test_map_190_memory_keeps_last_seen_and_explored():
    """MAP-190: out of sight, foreign troops and cities stay on the map as last seen, with the month seen."""
    s = open_world(month=4)
    scout = add(s, "wei", "scout", (8, 6))
    enemy = add(s, "shu", "levy", (11, 6), men=2500, months=0)
    c = add_city(s, "shu", (11, 7), name="Chengdu")
    memory_phase(ctx_for(s))
    s.month = 5
    scout.q = 1
    view = build_view(s, "wei")
    (fu,) = view.foreign_units
    assert (fu.id, fu.q, fu.r, fu.men, fu.month, fu.in_sight) == (enemy.id, 11, 6, 2500, 4, False)
    (fc,) = view.foreign_cities
    assert (fc.id, fc.month, fc.in_sight) == (c.id, 4, False)
    assert view.is_explored(12, 6) and not view.is_visible(12, 6)
    assert view.terrain_rows[6][12 + 3] == "G"
    # Seen again without the troop there: it drops from memory.
    enemy.q = 16
    scout.q = 10
    memory_phase(ctx_for(s))
    assert str(enemy.id) not in s.kingdoms["wei"].memory["units"]


def test_map_190_memory_forgets_old_troop_sightings():
    """MAP-190: troop sightings older than UNIT_MEMORY_MONTHS are forgotten; cities are kept."""
    from kingdoms.ruledata import UNIT_MEMORY_MONTHS

    s = open_world(month=3)
    scout = add(s, "wei", "scout", (8, 6))
    add(s, "shu", "levy", (11, 6), men=2500, months=0)
    memory_phase(ctx_for(s))
    del s.units[scout.id]
    s.month = 3 + UNIT_MEMORY_MONTHS + 1
    memory_phase(ctx_for(s))
    assert s.kingdoms["wei"].memory["units"] == {}


def test_open_74_spies_phase_is_deterministic():
    """OPEN-74: the same state resolves the same catches and unmaskings."""
    s = open_world()
    c = add_city(s, "shu", (8, 6))
    for q in range(9, 11):
        add(s, "wei", "spy", (q, 6))
    for _ in range(3):
        _spy_in(s, "shu", c)
    for _ in range(6):
        _spy_in(s, "wei", c)
    a, b = s.clone(), s.clone()
    spies_phase(ctx_for(a))
    spies_phase(ctx_for(b))
    assert a.state_hash() == b.state_hash()


def test_intel_memory_round_trips_through_storage():
    """MAP-190: the memory is plain JSON and survives to_dict / from_dict unchanged."""
    from kingdoms.state import GameState

    s = open_world()
    add(s, "wei", "scout", (8, 6))
    add(s, "shu", "levy", (11, 6), men=2500, months=0)
    add_city(s, "shu", (12, 7))
    memory_phase(ctx_for(s))
    back = GameState.from_dict(s.to_dict(), s.map)
    assert back.state_hash() == s.state_hash()
    assert back.kingdoms["wei"].memory == s.kingdoms["wei"].memory


def test_compute_sight_all_kingdoms_matches_single():
    """INTEL-010: sight computed for all kingdoms at once equals each kingdom's alone."""
    s = open_world()
    add_city(s, "wei", (2, 6))
    add_city(s, "shu", (14, 6))
    add(s, "wei", "scout", (8, 6))
    add(s, "shu", "spy", (9, 6))
    every = compute_sight(s)
    for k in ("wei", "shu"):
        one = sight_of(s, k)
        assert (every[k].visible == one.visible).all() and (every[k].watched == one.watched).all()


def test_intel_010_sight_of_many_kingdoms_at_once_is_each_sources_tiles():
    """INTEL-010, INTEL-080, INTEL-090, INTEL-150: compute_sight marks every kingdom's masks at once; each is exactly
    the tiles within reach of its own sources (land + 1, troops and cities 2, scouts 4, travelling spies 1, a foreign
    city holding a stationed spy 2), a fallen kingdom and an unknown name see nothing, a name given twice once."""
    s = open_world()
    wei_city = add_city(s, "wei", (2, 6))
    shu_city = add_city(s, "shu", (14, 6))
    add(s, "wei", "scout", (8, 3))
    add(s, "wei", "spearman", (5, 9))
    add(s, "shu", "spy", (9, 6))
    s.spies.append(StationedSpy("wei", shu_city.id, 0))
    s.spies.append(StationedSpy("shu", shu_city.id, 0))  # a counter-spy: nothing beyond the city's own sight
    gm = s.map
    tiles = [gm.tile(i) for i in range(gm.size)]

    def reach(sources: list[tuple[tuple[int, int], int]]) -> np.ndarray:
        return np.array([any(distance(t, c) <= r for c, r in sources) for t in tiles])

    def land(city) -> list[tuple[tuple[int, int], int]]:
        return [(gm.tile(int(i)), rd.SIGHT["border"]) for i in np.flatnonzero(s.owner == city.id)]

    wei_visible = reach(land(wei_city) + [(wei_city.tile, 2), ((8, 3), 4), ((5, 9), 2), (shu_city.tile, 2)])
    wei_watched = reach([((8, 3), 4), (shu_city.tile, 2)])
    shu_visible = reach(land(shu_city) + [(shu_city.tile, 2), ((9, 6), 1)])
    shu_watched = reach([((9, 6), 1)])
    shu_eye = reach([((9, 6), 1)])
    for names in (None, ["wei", "shu"], ["shu", "nobody", "wei", "shu"]):
        got = compute_sight(s, names)
        assert (got["wei"].visible == wei_visible).all() and (got["wei"].watched == wei_watched).all()
        assert got["wei"].spy_eye.sum() == 1 and got["wei"].spies_on(gm, *shu_city.tile)
        assert (got["shu"].visible == shu_visible).all() and (got["shu"].watched == shu_watched).all()
        assert (got["shu"].spy_eye == shu_eye).all()
        if names is not None and "nobody" in names:
            assert not got["nobody"].visible.any() and list(got) == ["shu", "nobody", "wei"]
    s.kingdoms["shu"].eliminated = True
    fallen = compute_sight(s)["shu"]
    assert not (fallen.visible.any() or fallen.watched.any() or fallen.spy_eye.any())
    assert (compute_sight(s)["wei"].visible == wei_visible).all()


def test_intel_050_burned_city_judged_only_when_seen_again():
    """INTEL-050, COMBAT-380: a remembered city that is gone out of sight is still accepted as a target; the
    loss shows only once its tile is seen (no refusal text may betray it earlier)."""
    s = open_world()
    c = add_city(s, "shu", (12, 6))
    spy = add(s, "wei", "spy", (1, 6))
    reveal(s, "wei")
    del s.cities[c.id]
    s.owner[s.owner == c.id] = -1
    res = check_orders(s, "wei", [], [StationSpy(unit_id=spy.id, city_id=c.id), Sabotage(city_id=c.id, target="granary")])
    assert (res[0].ok, res[1].code) == (True, "no_spy_in_city")
    assert "marches" in res[0].message
    spy.q = 10  # 2 tiles off: the tile is not in sight, so the order is accepted ...
    assert check_orders(s, "wei", [], [StationSpy(unit_id=spy.id, city_id=c.id)])[0].ok
    with pytest.raises(OrderFailed) as exc:  # ... and fails only when carried out, on arrival
        run_station_spy(ctx_for(s.clone()), "wei", StationSpy(unit_id=spy.id, city_id=c.id))
    assert exc.value.code == "unknown_city"
    spy.q = 11  # beside the tile: the ruin of the city is in sight
    (res,) = check_orders(s, "wei", [], [StationSpy(unit_id=spy.id, city_id=c.id)])
    assert res.code == "unknown_city"
    memory_phase(ctx_for(s))
    assert known_city_tile(s, "wei", c.id) is None
