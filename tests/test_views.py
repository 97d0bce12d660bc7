"""Kingdom views: own things in full, public knowledge, fog applied to everything foreign (INTEL, VIC-130, VIC-140,
BUILD-060, DIPLO-130, OPEN-30, OPEN-50, OPEN-51, OPEN-90), and leak tests on the view's text and JSON.

`benchmark_views()` (not a test) times every kingdom's view of one month on a 48 x 36 map with 4 kingdoms:
    .venv/bin/python -m tests.test_views
"""

from __future__ import annotations

import json
import re
import time

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.engine.context import MonthContext
from kingdoms.engine.intel import memory_phase
from kingdoms.engine.land import found_city
from kingdoms.engine.sight import compute_sight
from kingdoms.engine.visibility import can_see_unit
from kingdoms.hexgrid import axial_q
from kingdoms.state import Camp, GameState, General, Improvement, QueueEntry, StationedSpy
from kingdoms.views import build_view, build_views, observe, visible_unit_ids

from .builders import add, add_city, ctx_for, kingdom, open_world, world


def scrub(view) -> str:
    """str(view) without the hex bitmasks (random hex digits could spell any number)."""
    return str(view).replace(view.explored, "").replace(view.visible, "")


def has_number(text: str, n: int | float) -> bool:
    """True when the number appears as a whole token in `text`."""
    return re.search(rf"(?<![\w.]){re.escape(str(n))}(?![\w])", text) is not None


def json_values(obj) -> list:
    """Every scalar value (and dict key) in a JSON structure."""
    out: list = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.append(k)
            out += json_values(v)
    elif isinstance(obj, list):
        for v in obj:
            out += json_values(v)
    else:
        out.append(obj)
    return out


def secret_world() -> tuple[GameState, dict]:
    """Wei in the west, Shu in the east with hidden troops, a hidden city with a queue and a full granary."""
    s = open_world()
    wei_cap = add_city(s, "wei", (2, 4), capital=True, name="Xuchang")
    shu_cap = add_city(s, "shu", (12, 8), capital=True, grain=187.25, name="Chengdu")
    shu_cap.queue = [QueueEntry("heavy_infantry", men=7777), QueueEntry("stable", paid=9.5)]
    s.next_id = 9101  # hidden things get ids no other number in the view resembles
    gid = s.new_id()
    s.generals[gid] = General(gid, "shu", "Zhao Yun", xp=7, unit_id=None)
    garrison = add(s, "shu", "spearman", (12, 8), men=4321, morale=77.0, general_id=gid, months=0)
    s.generals[gid].unit_id = garrison.id
    far = add(s, "shu", "heavy_infantry", (11, 5), men=7654, months=0)
    spy = add(s, "shu", "spy", (3, 4))  # a shu spy right next to wei's capital
    s.spies.append(StationedSpy("shu", wei_cap.id, 2))  # and one hidden inside it
    scout_target = add(s, "wei", "levy", (6, 4), men=3000, months=0)
    seen = add(s, "shu", "archer", (7, 5), men=3456, morale=55.0, months=0)
    camp = Camp(s.new_id(), "shu", 8, 4, grain=61.5)
    s.camps[camp.id] = camp
    return s, {"wei_cap": wei_cap, "shu_cap": shu_cap, "garrison": garrison, "far": far, "spy": spy,
               "levy": scout_target, "seen": seen, "camp": camp, "general": gid}


# --- leak tests -------------------------------------------------------------------------------------------


def test_intel_040_view_leaks_nothing_hidden():
    """INTEL-040, INTEL-050, INTEL-090: the view (str and JSON) holds no hidden unit id, exact men, queue, granary or general."""
    s, x = secret_world()
    view = build_view(s, "wei")
    text = scrub(view)
    blob = view.to_json()
    values = json_values(json.loads(blob))
    for hidden_id in (x["garrison"].id, x["far"].id, x["spy"].id):
        assert not has_number(text, hidden_id) or hidden_id in {u.id for u in view.units}
        assert hidden_id not in visible_unit_ids(view)
    for secret in (4321, 7654, 3456, 7777, 187.25, 61.5, 55.0, 77.0):
        assert secret not in values, secret
        assert not has_number(text, secret), secret
    for word in ("Chengdu", "Zhao Yun", "heavy_infantry", "stable"):
        assert word not in text and word not in blob, word
    assert x["seen"].id in visible_unit_ids(view)
    assert [(u.type, u.size, u.men) for u in view.foreign_units] == [("archer", "medium", None)]
    assert view.spies == []  # the shu spy inside Xuchang is not shown to wei
    assert view.cities[0].counter_spies == 0


def test_intel_040_view_ids_only_of_visible_units():
    """INTEL-050: visible_unit_ids equals exactly the units can_see_unit allows."""
    s, _ = secret_world()
    view = build_view(s, "wei")
    assert visible_unit_ids(view) == {u.id for u in s.units.values() if can_see_unit(s, "wei", u)}


def test_intel_070_garrison_leaks_nothing_without_spy():
    """INTEL-070, OPEN-30: a scout beside a rival city sees only "troops" + size class: no id, type or men."""
    s, x = secret_world()
    add(s, "wei", "scout", (11, 8))
    view = build_view(s, "wei")
    (c,) = [c for c in view.foreign_cities if c.id == x["shu_cap"].id]
    assert (c.troops, c.garrison) == ("medium", None)
    text = scrub(view)
    assert not has_number(text, 4321) and not has_number(text, x["garrison"].id)
    assert "Zhao Yun" not in text and "spearman" not in text


def test_intel_140_spy_view_shows_report_only_with_spy():
    """INTEL-140: with a spy inside, the queue, granary and garrison appear (in the report), no sooner."""
    s, x = secret_world()
    s.spies.append(StationedSpy("wei", x["shu_cap"].id, 4))
    ctx = MonthContext(s)
    from kingdoms.engine.intel import spies_phase

    spies_phase(ctx)
    view = build_view(s, "wei")
    rep = view.report(x["shu_cap"].id)
    assert rep is not None and rep.grain == 187.25
    assert [q["item"] for q in rep.queue] == ["heavy_infantry", "stable"]
    assert rep.garrison[0]["general"] == "Zhao Yun" and rep.garrison[0]["men"] == 4321
    (c,) = [c for c in view.foreign_cities if c.id == x["shu_cap"].id]
    assert [g.men for g in c.garrison] == [4321]  # INTEL-150: the spy's eye is on the garrison
    assert [r.city_id for r in build_view(s, "shu").reports] == [x["wei_cap"].id]  # shu's own spy, on Xuchang


# --- own things in full ----------------------------------------------------------------------------------


def test_open_51_own_cities_and_units_in_full():
    """OPEN-51: the view lists every own city and unit with all its facts (grain, queue, morale, general)."""
    s, x = secret_world()
    view = build_view(s, "shu")
    (cap,) = view.cities
    assert (cap.name, cap.grain, cap.size) == ("Chengdu", 187.25, "town")
    assert [q["item"] for q in cap.queue] == ["heavy_infantry", "stable"]
    assert cap.garrison == [x["garrison"].id]
    g = next(u for u in view.units if u.id == x["garrison"].id)
    assert (g.men, g.morale, g.general, g.in_city) == (4321, 77.0, "Zhao Yun", cap.id)
    assert {u.id for u in view.units} == {u.id for u in s.units.values() if u.owner == "shu"}
    assert [(sp.city_id, sp.role) for sp in view.spies] == [(x["wei_cap"].id, "spy")]
    assert [(c.id, c.grain) for c in view.camps] == [(x["camp"].id, 61.5)]
    assert [(g.name, g.unit_id) for g in view.generals] == [("Zhao Yun", x["garrison"].id)]


# --- public knowledge ------------------------------------------------------------------------------------


def test_vic_130_ruin_known_to_all_from_month_one():
    """VIC-130: every kingdom knows where the Ruin is and who holds it, whatever its sight."""
    s = open_world(month=1)
    ruin = found_city(s, rd.BANDITS, 9, 7, people=10_000, grain=150, name="The Ruin")
    ruin.is_ruin = True
    view = build_view(s, "wei")
    assert view.ruin is not None
    assert (view.ruin.city_id, view.ruin.q, view.ruin.r, view.ruin.holder) == (ruin.id, 9, 7, "bandits")
    assert observe(s, "wei").known_city(ruin.id) is not None
    assert view.foreign_cities == []  # its walls and troops still need sight


def test_vic_130_ruin_holder_is_current_where_the_map_remembers_another():
    """VIC-130: Wei saw the Ruin held by bandits (month 3); Shu has taken it since, out of Wei's sight. After the
    month's memory update every tool tells Wei the holder now: the view's city record, get_city and inspect_tile
    say Shu Han (as the briefing's Ruin line does), never bandits."""
    from kingdoms.views import render

    s = open_world()
    ruin = found_city(s, rd.BANDITS, 9, 7, people=10_000, grain=150, name="The Ruin")
    ruin.is_ruin = True
    add(s, "wei", "scout", (9, 4))  # the Ruin in sight (3 tiles): Wei's map records it as the bandits'
    memory_phase(ctx_for(s))
    s.units.clear()
    ruin.owner = "shu"
    memory_phase(ctx_for(s))
    obs = observe(s, "wei")
    view = obs.view
    (rec,) = [c for c in view.foreign_cities if c.id == ruin.id]
    assert rec.owner == "shu" and view.ruin.holder == "shu"
    assert obs.known_city(ruin.id).owner == "shu"
    got = render.rival_city_text(view, obs.known_city(ruin.id))
    tile = render.tile_text(obs, obs.tile(9, 7))
    for text in (got, tile):
        assert "Shu Han" in text and "bandits" not in text, text


def test_vic_130_inspect_tile_on_the_ruin_in_month_one_is_not_unexplored():
    """VIC-130, TOOLS-110: in month 1 the Ruin's tile is unexplored, but where it is and who holds it are known:
    inspect_tile says so instead of "unexplored" (its terrain stays unknown)."""
    from kingdoms.views import render

    s = open_world(month=1)
    ruin = found_city(s, rd.BANDITS, 9, 7, people=10_000, grain=150, name="The Ruin")
    ruin.is_ruin = True
    obs = observe(s, "wei")
    tv = obs.tile(9, 7)
    assert not tv.explored
    text = render.tile_text(obs, tv)
    assert "unexplored" not in text.split("\n")[0] and "The Ruin" in text and "bandits" in text, text
    assert "grassland" not in text


def test_vic_140_capture_counts_and_lead_public():
    """VIC-140, VIC-160: every kingdom's capture count and the lead counter are in every view."""
    s = open_world()
    taken = add_city(s, "wei", (12, 8))
    taken.founder, taken.captured_by = "shu", "wei"
    s.lead = {"kingdom": "wei", "months": 4}
    view = build_view(s, "shu")
    assert {k.id: k.captures for k in view.kingdoms} == {"wei": 1, "shu": 0}
    assert view.lead == {"kingdom": "wei", "months": 4}


def test_build_060_military_buildings_public():
    """BUILD-060: every kingdom's barracks, stables, forges and workshops by city are public; queues are not."""
    s, x = secret_world()
    x["shu_cap"].buildings = ["palisade", "barracks", "forge"]
    x["shu_cap"].improvements = [Improvement(13, 8, "workshop"), Improvement(12, 9, "farm")]
    view = build_view(s, "wei")
    assert [(m.kingdom, m.city, m.buildings) for m in view.military_buildings] == [
        ("shu", "Chengdu", ["barracks", "forge", "workshop"])]
    assert "stable" not in view.to_json()  # still in the queue: only a spy report shows it


def test_diplo_130_wars_public():
    """DIPLO-130: every war is public."""
    s = open_world()
    s.kingdoms["wu"] = kingdom("wu", "Sun Wu", "Sun Quan", (18, 2), generals="{ruler} G{i}")
    s.wars = [["shu", "wu"]]
    assert build_view(s, "wei").wars == [["shu", "wu"]]


# --- foreign things ----------------------------------------------------------------------------------------


def test_open_50_rough_city_size():
    """OPEN-50: a rival city's rough size is its tier: village < 15,000 <= town < 40,000 <= city < 75,000."""
    s = open_world()
    add(s, "wei", "scout", (9, 6))
    for people, q in ((14_999, 7), (15_000, 9), (40_000, 11)):
        add_city(s, "shu", (q, 4), people=people)
    view = build_view(s, "wei")
    assert sorted((c.q, c.size) for c in view.foreign_cities) == [(7, "village"), (9, "town"), (11, "city")]


def test_open_49_size_class_boundaries():
    """OPEN-49: small < 2,000; medium 2,000-5,999; large 6,000-11,999; huge >= 12,000."""
    cases = {1999: "small", 2000: "medium", 5999: "medium", 6000: "large", 11_999: "large", 12_000: "huge"}
    assert {men: rd.size_class(men) for men in cases} == cases


def test_open_90_camps_wagons_colonists_in_sight():
    """OPEN-90: enemy camps, wagons and colonists in sight show their type; grain only when watched."""
    s = open_world()
    add(s, "wei", "levy", (8, 6), men=3000, months=0)
    wagon = add(s, "shu", "wagon", (9, 6), cargo=40.0)
    settlers = add(s, "shu", "colonists", (9, 7), men=5000, cargo=20.0, months=0)
    camp = Camp(s.new_id(), "shu", 10, 6, grain=70.0)
    s.camps[camp.id] = camp
    view = build_view(s, "wei")
    assert [(u.type, u.cargo, u.men) for u in view.foreign_units] == [("wagon", None, None), ("colonists", None, None)]
    assert [(c.id, c.grain) for c in view.foreign_camps] == [(camp.id, None)]
    add(s, "wei", "scout", (7, 6))
    view = build_view(s, "wei")
    assert [(u.id, u.cargo) for u in view.foreign_units] == [(wagon.id, 40.0), (settlers.id, 20.0)]
    assert [c.grain for c in view.foreign_camps] == [70.0]


def test_map_190_explored_terrain_rows():
    """MAP-190: the explored map shows terrain letters (lower case on rivers), blank where never seen."""
    rows = ["GGGGGGGG", "GGGgGGGG", "GGGGGGGG", "GGGGGGGG"]
    s = open_world(rows)
    add(s, "wei", "spy", (2, 1))
    view = build_view(s, "wei")
    assert view.terrain_rows[0] == "  GG    "
    assert view.terrain_rows[1] == " GGg    "
    assert view.terrain_rows[3] == "        "
    info = observe(s, "wei").tile(3, 1)
    assert (info.explored, info.visible, info.terrain, info.river) == (True, True, "grassland", True)
    assert observe(s, "wei").tile(6, 3).terrain is None


def test_map_190_terrain_rows_are_each_explored_tiles_letter():
    """MAP-190: on a whole scenario map, every row of the explored map holds each explored tile's terrain letter
    (GameMap.letter) and a blank elsewhere, for any explored mask (none, some, all)."""
    from kingdoms.setup import build_state, resolve_scenario
    from kingdoms.views.kingdom_view import _terrain_rows

    gm = build_state(resolve_scenario("three_kingdoms"), 7).map
    rng = np.random.default_rng(3)
    for share in (0.0, 0.3, 0.8, 1.0):
        explored = rng.random(gm.size) < share
        text = "".join(gm.letter(i) if explored[i] else " " for i in range(gm.size))
        assert _terrain_rows(gm, explored) == [text[k:k + gm.width] for k in range(0, gm.size, gm.width)]


def test_intel_050_known_city_for_orders():
    """INTEL-050, COMBAT-380: Observation.known_city gives the view's record of a city, None for an unknown one."""
    s, x = secret_world()
    assert observe(s, "wei").known_city(x["shu_cap"].id) is None
    own = observe(s, "wei").known_city(x["wei_cap"].id)
    assert own is not None and own.name == "Xuchang"
    add(s, "wei", "scout", (10, 8))
    rec = observe(s, "wei").known_city(x["shu_cap"].id)
    assert rec is not None and rec.in_sight and rec.troops == "medium"


def test_build_views_matches_build_view():
    """INTEL-010: views built together equal views built one by one."""
    s, _ = secret_world()
    every = build_views(s)
    for k in s.kingdoms:
        assert every[k].to_json() == build_view(s, k).to_json()


# --- benchmark (not a test) ------------------------------------------------------------------------------


def benchmark_world(seed: int = 3) -> GameState:
    """A 48 x 36 map, 4 kingdoms with 5 cities, ~24 troops, 3 scouts, 3 spies and 2 stationed spies each."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("GGGPPPFFHM~"))
    rows = ["".join(rng.choice(letters, 48)) for _ in range(36)]
    names = [("wei", (4, 4)), ("shu", (36, 4)), ("wu", (4, 30)), ("jin", (30, 30))]
    s = world(rows=rows, seed=seed, month=20, war=False,
              kingdoms=[kingdom(k, k.title(), f"{k} ruler", t, generals="{ruler} G{i}") for k, t in names])
    gm = s.map
    cities = []
    for k, (q0, r0) in names:
        for dq, dr in ((0, 0), (5, 0), (0, 5), (5, 5), (-4, 4)):
            q, r = axial_q(q0 + dq, r0 + dr), r0 + dr  # (q0 + dq) read as a column of row r0 + dr
            i = gm.index(q, r)
            if i >= 0 and gm.is_land[i] and s.owner[i] < 0 and all(s.owner[j] < 0 for j in gm.nbr[i] if j >= 0):
                cities.append(add_city(s, k, (q, r), 20_000, 100))
    land = np.flatnonzero(gm.move_cost > 0)
    for k, _ in names:
        for n in range(30):
            i = int(rng.choice(land))
            q, r = gm.tile(i)
            kind = "scout" if n < 3 else "spy" if n < 6 else str(rng.choice(["levy", "spearman", "archer", "cavalry"]))
            add(s, k, kind, (q, r), men=0 if n < 6 else int(rng.integers(500, 15_000)), months=0)
        for c in rng.choice(len(cities), 2, replace=False):
            s.spies.append(StationedSpy(k, cities[int(c)].id, 10))
    for c in cities[::3]:
        add(s, c.owner, "spearman", (c.q, c.r), men=3000, months=0)
    for _ in range(3):
        memory_phase(ctx_for(s))
    return s


def benchmark_views(repeats: int = 50) -> dict[str, float]:
    """Milliseconds per month for every kingdom's view (and for the sight masks alone) on the benchmark world."""
    s = benchmark_world()
    build_views(s)  # warm the per-map tables
    t0 = time.perf_counter()
    for _ in range(repeats):
        compute_sight(s)
    sight_ms = (time.perf_counter() - t0) * 1000 / repeats
    t0 = time.perf_counter()
    for _ in range(repeats):
        build_views(s)
    views_ms = (time.perf_counter() - t0) * 1000 / repeats
    t0 = time.perf_counter()
    for _ in range(repeats):
        memory_phase(ctx_for(s))
    memory_ms = (time.perf_counter() - t0) * 1000 / repeats
    return {"sight_4_kingdoms_ms": round(sight_ms, 3), "views_4_kingdoms_ms": round(views_ms, 3),
            "memory_phase_ms": round(memory_ms, 3), "units": len(s.units), "cities": len(s.cities)}


def test_benchmark_world_builds():
    """INTEL-010: the benchmark world builds valid views for its 4 kingdoms (timing is in benchmark_views)."""
    s = benchmark_world()
    views = build_views(s)
    assert len(views) == 4 and all(v.width == 48 and v.height == 36 for v in views.values())


def test_intel_020_own_ledger_hides_exact_besiegers():
    """INTEL-020: an own city's ledger shows besiegers by size class, not their exact men."""
    s, x = secret_world()
    x["wei_cap"].last = {"besieging_men": 6789, "blockaded": False}
    (cap,) = build_view(s, "wei").cities
    assert cap.last == {"besieging_size": "large", "blockaded": False}
    assert not has_number(scrub(build_view(s, "wei")), 6789)


if __name__ == "__main__":
    print(benchmark_views())
