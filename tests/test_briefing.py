"""The briefing, rendered from a kingdom's view on a fixed month-50 scenario, against a stored golden text.

Regenerate the golden files after an intended change with:  KINGDOMS_REGEN_GOLDEN=1 pytest tests/test_briefing.py
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from kingdoms import ruledata as rd
from kingdoms.engine.intel import city_report, update_memory
from kingdoms.engine.land import found_city, founding_problem
from kingdoms.engine.sight import mask_to_hex
from kingdoms.gamemap import Landmark
from kingdoms.hexgrid import axial_q, offset_cols
from kingdoms.orders.models import ORDER_ADAPTER
from kingdoms.orders.syntax import parse_order
from kingdoms.state import Camp, GameState, General, Improvement, QueueEntry, StationedSpy, Unit
from kingdoms.views import build_view, observe, render
from tests.builders import kingdom, world

GOLDEN = Path(__file__).parent / "golden"
REGEN = bool(os.environ.get("KINGDOMS_REGEN_GOLDEN"))

#: 24 x 16: grass and plains, forest and hills, a river down the middle, a lake in the south-east.
ROWS = [
    "GGPPFFGGPPGGHHMMGGPPFFGG",
    "GGPgPFFGPPGGHHMGGPPFFGGP",
    "GPPgGFHHGPGGGPPGGPPGGPPG",
    "GPPPgGH~~GGPPGGFFGGPPGGG",
    "GGPPgGG~PPGGPPHHGGGPPGGP",
    "PGGPgPFFGGPPGGPPFFGGPPGG",
    "PPGGgGGFGPPGGPPGGHHGPPGG",
    "GGGPgPPPGGGGPPGGFFGGPPGG",
    "GGPPgGGPPFFGGPPgGGPPGGPP",
    "PPGGPgGGPPHHGGPgPPGGHHGG",
    "GGPPPgGGFFGGPPGgGGPPGGPP",
    "GGFFPPgGGPPGGPPgPPGG~~GG",
    "PPGGHHgGGPPFFGGgGGPP~~GG",
    "GGPPGGPgPPGGHHGgPPGGGGPP",
    "GGGPPGGgGGPPGGPgGGPPFFGG",
    "PPGGPPGgGGPPGGGgGGPPGGPP",
]


def _ax(col: int, row: int) -> tuple[int, int]:
    """Axial (q, r) of an offset (column, row) position."""
    return axial_q(col, row), row


def _standing(text: str) -> dict:
    return ORDER_ADAPTER.dump_python(parse_order(text), mode="json")


def golden_state() -> GameState:
    """Month 50: Cao Wei with 6 cities (one taken from Shu Han, restless) and 12 troops, at war with Shu Han."""
    river_marks = [t for t in ((_ax(c, r)) for r, row in enumerate(ROWS) for c, ch in enumerate(row) if ch == "g")]
    lake = [_ax(c, r) for r, row in enumerate(ROWS) for c, ch in enumerate(row) if ch == "~"]
    wei = kingdom("wei", "Cao Wei", "Cao Cao", _ax(3, 3),
                  cities=["Xuchang", "Yingchuan", "Chenliu", "Runan", "Qiao"] + [f"Wei {i}" for i in range(30)],
                  generals=["Xiahou Dun", "Xu Huang", "Zhang Liao"] + [f"Wei General {i}" for i in range(12)])
    shu = kingdom("shu", "Shu Han", "Liu Bei", _ax(19, 8),
                  cities=["Chengdu", "Xinye", "Jiangling"] + [f"Shu {i}" for i in range(30)],
                  generals=["Guan Yu", "Zhang Fei"] + [f"Shu General {i}" for i in range(12)])
    state = world(rows=ROWS, landmarks=[Landmark("Han River", "river", tuple(river_marks)),
                                        Landmark("Dongting Lake", "lake", tuple(lake))],
                  kingdoms=[wei, shu], seed=2024, month=50, war=False)
    gm = state.map

    def city(owner: str, col: int, row: int, people: int, *, capital: bool = False, name: str | None = None,
             founder: str | None = None):
        q, r = _ax(col, row)
        assert founding_problem(state, q, r) is None, (q, r, founding_problem(state, q, r))
        return found_city(state, owner, q, r, people, 150, capital=capital, name=name, founder=founder)

    xuchang = city("wei", 3, 3, 42_000, capital=True)
    yingchuan = city("wei", 9, 2, 18_000)
    chenliu = city("wei", 3, 7, 9_000)
    runan = city("wei", 8, 6, 16_000)
    qiao = city("wei", 4, 11, 7_000)
    xinye = city("wei", 9, 10, 12_000, name="Xinye", founder="shu")
    chengdu = city("shu", 19, 8, 30_000, capital=True, name="Chengdu")
    jiangling = city("shu", 17, 13, 11_000, name="Jiangling")
    ruin = city(rd.BANDITS, 13, 5, 10_000, name="Luoyang")
    ruin.founder, ruin.is_ruin, ruin.walls, ruin.walls_max = None, True, 50.0, 50.0

    # The capital has grown onto its second ring.
    for q, r in [(4, 1), (1, 2), (4, 2), (0, 4), (3, 4), (1, 5), (2, 5), (0, 3)]:
        i = gm.index(q, r)
        if i >= 0 and state.owner[i] < 0:
            state.owner[i] = xuchang.id
    xuchang.buildings = ["palisade", "barracks", "walls", "stable"]
    xuchang.walls, xuchang.walls_max = 85.0, 100.0
    xuchang.improvements = [Improvement(3, 2, "farm"), Improvement(1, 3, "granary")]
    xuchang.queue = [QueueEntry("spearman", men=2_000), QueueEntry("cavalry", men=1_000)]
    xuchang.grain, xuchang.store, xuchang.focus = 412.0, 12.0, "balanced"
    xuchang.militia = 1_500.0
    yingchuan.buildings = ["palisade", "barracks"]
    yingchuan.walls = yingchuan.walls_max = 40.0
    yingchuan.queue = [QueueEntry("farm", tile=(8, 1), paid=6.0)]
    yingchuan.grain, yingchuan.militia, yingchuan.focus = 180.0, 1_000.0, "food"
    chenliu.grain, chenliu.militia, chenliu.store = 300.0, 900.0, 60.0
    runan.buildings = ["palisade"]
    runan.walls = runan.walls_max = 40.0
    runan.improvements = [Improvement(3, 7, "workshop")] if gm.terrain[gm.index(3, 7)] in (2, 3) else []
    runan.queue = [QueueEntry("palisade")] if not runan.buildings else [QueueEntry("scout")]
    runan.grain, runan.militia, runan.focus = 95.0, 1_000.0, "production"
    qiao.queue = [QueueEntry("colonists", paid=40.0, months=2)]
    qiao.grain, qiao.militia = 60.0, 700.0
    xinye.restless, xinye.unrest_months, xinye.captured_by = True, 2, "wei"
    xinye.grain, xinye.militia, xinye.happiness = 40.0, 300.0, 100.0
    xinye.last = {"month": 49, "attacked": True}
    chengdu.buildings = ["palisade", "barracks", "stable"]
    chengdu.walls = chengdu.walls_max = 40.0

    gens = []
    for gid_name, xp in (("Xiahou Dun", 8), ("Xu Huang", 3), ("Zhang Liao", 0)):
        g = General(state.new_id(), "wei", gid_name, xp=xp)
        state.generals[g.id] = g
        gens.append(g)
    wei.generals_used = 3

    def unit(kind: str, col_row: tuple[int, int] | None, men: int, *, q_r: tuple[int, int] | None = None,
             owner: str = "wei", **kw) -> Unit:
        q, r = q_r if q_r is not None else _ax(*col_row)  # type: ignore[misc]
        rations = kw.pop("rations", men / 1000 * 3 if rd.UNITS[kind].fighting else 0.0)
        u = Unit(state.new_id(), owner, kind, q, r, men=men, rations=rations, **kw)
        state.units[u.id] = u
        return u

    g1 = unit("spearman", None, 3_000, q_r=xuchang.tile, xp=8.0, fortified=True)
    unit("levy", None, 1_000, q_r=yingchuan.tile)
    unit("archer", None, 1_000, q_r=chenliu.tile, xp=3.0)
    unit("spearman", None, 1_000, q_r=runan.tile, xp=3.0)
    unit("levy", None, 500, q_r=qiao.tile)
    unit("heavy_infantry", None, 1_500, q_r=xinye.tile, xp=4.0, morale=80.0)
    cav = unit("cavalry", (12, 9), 1_500, xp=7.0, morale=90.0)
    spear = unit("spearman", (11, 7), 2_500, xp=3.0)
    arch = unit("archer", (11, 11), 1_000, xp=3.0, fortified=True)
    unit("catapult", (11, 7), 300, xp=0.0)
    unit("levy", (6, 8), 1_000)
    unit("heavy_infantry", (12, 12), 2_000, xp=12.0, hunger=0.5, morale=70.0, rations=0.0)
    cav.standing = _standing(f"attack unit={cav.id} to={chengdu.q},{chengdu.r}")
    spear.standing = _standing(f"move unit={spear.id} to={_ax(14, 8)[0]},{_ax(14, 8)[1]}")
    del arch
    gens[0].unit_id = g1.id
    g1.general_id = gens[0].id
    gens[1].unit_id = cav.id
    cav.general_id = gens[1].id
    gens[2].city_id = xuchang.id
    col = unit("colonists", (6, 12), 5_000, cargo=20.0)
    col.standing = None
    unit("scout", (16, 10), 0)
    wag = unit("wagon", (8, 8), 0, cargo=45.0)
    wag.dest = _ax(12, 9)
    state.camps[state.new_id()] = Camp(state.new_id(), "wei", *_ax(11, 9), grain=52.5)

    # Shu Han in the field: cavalry beside Xinye, spearmen at home, a camp; bandits in the Ruin.
    unit("cavalry", (10, 11), 3_000, owner="shu")
    unit("spearman", (16, 9), 7_000, owner="shu")
    unit("spearman", None, 1_500, q_r=ruin.tile, owner=rd.BANDITS, fortified=True)
    unit("spearman", None, 6_000, q_r=chengdu.tile, owner="shu")
    unit("levy", None, 1_000, q_r=jiangling.tile, owner="shu")
    state.wars = [["shu", "wei"]]
    state.spies.append(StationedSpy("wei", jiangling.id, 46))
    wei.memory.setdefault("reports", {})[str(jiangling.id)] = city_report(state, jiangling, 49, "spy inside")
    state.lead = {"kingdom": "wei", "months": 5}

    # What Cao Wei has explored: the western two thirds of the map.
    wei.memory["explored"] = mask_to_hex(offset_cols(gm.q_of, gm.r_of) <= 16)
    update_memory(state, "wei")
    update_memory(state, "shu")
    return state


def golden_results() -> list[render.MonthResults]:
    """Month 49 as Cao Wei was told it: a few orders, a battle, news."""
    return [render.MonthResults(49, [
        {"position": 1, "text": "set_production city=1 queue=spearman:2000,cavalry:1000", "ok": 1,
         "result": "queue set", "code": ""},
        {"position": 2, "text": "attack unit=17 to=15,8", "ok": 1,
         "result": "marches toward Chengdu (standing attack)", "code": ""},
        {"position": 3, "text": "move unit=19 to=9,15", "ok": 0,
         "result": "(9,15) is out of reach this month for a catapult", "code": "out_of_reach"},
        {"position": 0, "text": "move unit=18 to=12,8", "ok": 1, "result": "standing: 3 tiles on", "code": ""},
    ], [
        {"kind": "city_attacked", "text": "Shu Han cavalry (medium) struck Xinye (4,10): militia lost 120 men.",
         "data": {"city_id": 6}},
        {"kind": "military_building", "text": "Shu Han has finished a stable in Chengdu.", "data": {}},
        {"kind": "land_claimed", "text": "Xuchang has grown onto plains at (3,4).", "data": {}},
        {"kind": "recruited", "text": "Xuchang raised 2,000 spearman for 16 production.", "data": {}},
    ])]


def golden_briefing(state: GameState, *, full_rows: bool = True, prev=None) -> str:
    results = golden_results()
    obs = observe(state, "wei", results[-1].events)
    data = render.briefing_data(
        obs, full_rows=full_rows, prev_view=prev, goal=(
            "Lead on captures by M90: hold Xinye with Xu Huang's heavy foot, catapults and spearmen breach "
            "Chengdu's palisade; then station spies in Jiangling."), goal_month=35, goal_review=None,
        results=results)
    return render.briefing(obs.view, data)


def _check_golden(name: str, text: str) -> None:
    """The text equals tests/golden/NAME byte for byte; a missing file fails (KINGDOMS_REGEN_GOLDEN=1 writes it)."""
    path = GOLDEN / name
    if REGEN:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
    if not path.exists():
        pytest.fail(f"golden file tests/golden/{name} is missing: write it with KINGDOMS_REGEN_GOLDEN=1 and review it")
    assert text + "\n" == path.read_text(encoding="utf-8"), (
        f"briefing differs from tests/golden/{name}; if intended, regenerate with KINGDOMS_REGEN_GOLDEN=1")


@pytest.fixture(scope="module")
def state() -> GameState:
    return golden_state()


def test_golden_briefing_month_50(state: GameState) -> None:
    """TOOLS-020, TOOLS-030, TOOLS-040, TOOLS-050: the month-50 briefing of a 6-city, 12-troop kingdom matches the golden text."""
    text = golden_briefing(state)
    _check_golden("briefing_m50.txt", text)


def test_briefing_size_budget(state: GameState) -> None:
    """A 6-city 12-troop kingdom's month-50 briefing stays under 6,050 characters (about 1,500 tokens)."""
    view = build_view(state, "wei")
    assert len(view.cities) == 6
    assert sum(1 for u in view.units if rd.UNITS[u.type].fighting) == 12
    text = golden_briefing(state)
    assert len(text) < 6_050, len(text)


def test_tools_030_contents(state: GameState) -> None:
    """TOOLS-030, TOOLS-050, VIC-140, VIC-160, VIC-130, DIPLO-130, BUILD-060, GEN-120, CITY-070, CITY-160, CITY-350, CONQ-040, OPEN-82, OPEN-83."""
    text = golden_briefing(state)
    assert "Captures: Cao Wei (you) 1 · Shu Han 0 — lead: Cao Wei strictly ahead 5/36 mo" in text
    assert "The Ruin: Luoyang" in text and "held by bandits" in text
    assert "Wars: you vs Shu Han" in text
    assert "MILITARY BUILDINGS: Cao Wei: Xuchang stable+barracks" in text or "Xuchang barracks+stable" in text
    assert "Chengdu barracks+stable" in text
    # Every city row: people, land feeds, growth, land tiles, next tile, focus, building, grain, garrison, walls.
    for name in ("Xuchang", "Yingchuan", "Chenliu", "Runan", "Qiao", "Xinye"):
        row = next(line for line in text.splitlines() if f" {name} (" in line and line.startswith("#"))
        assert "land feeds" in row and "land tiles (next at" in row and "grain " in row and "militia" in row
    assert text.count("\n   food") == 6 and text.count("production/grain/new people a month by focus") == 1
    assert "queue EMPTY" in text
    xinye = next(line for line in text.splitlines() if " Xinye (" in line and line.startswith("#"))
    assert "RESTLESS 2/6 mo, hold-down 1,200 men" in xinye and "ALERT" in xinye
    # Generals: level, XP and effect.
    assert "Xiahou Dun L3 XP 8" in text and "x1.3 field, x1.45 in a city" in text
    assert "WAITING in Xuchang" in text
    # Troop rows (OPEN-82) and the hungry one flagged.
    assert "HUNGER 0.5" in text
    assert "(medium)" in text and "L3 XP 12" in text
    assert "GOAL (set M35): Lead on captures by M90" in text
    assert "LANDMARKS: Han River (river)" in text
    assert "CITY SITES" in text and "colonists #" in text


def test_tools_070_short_rows_name_unchanged_cities(state: GameState) -> None:
    """TOOLS-070, OPEN-5: after a seen month, unchanged cities are only named; ALERT rows stay full."""
    prev = build_view(state, "wei")
    text = golden_briefing(state, full_rows=False, prev=prev)
    assert "unchanged since last month:" in text
    xinye = next(line for line in text.splitlines() if " Xinye (" in line and line.startswith("#"))
    assert "ALERT" in xinye and "land feeds" in xinye  # full even in a short briefing
    assert len(text) < len(golden_briefing(state))


def test_briefing_is_rendered_from_the_view_only(state: GameState) -> None:
    """Fog: Shu Han's garrison in Chengdu (6,000 spearmen) is never shown in exact numbers without a spy."""
    text = golden_briefing(state)
    assert "6,000 spearman" not in text and "#spearman 6,000" not in text
    chengdu = next(line for line in text.splitlines() if "Chengdu (Shu Han)" in line)
    assert "spied" not in chengdu


def _rows_under(text: str, header: str, end: str) -> list[str]:
    """The lines starting with "#" between the line starting `header` and the next line starting `end`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    stop = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(end))
    return [line for line in lines[start + 1:stop] if line.startswith("#")]


def test_tools_030_open_82_section_counts_match_their_rows(state: GameState, capsys: pytest.CaptureFixture[str]) -> None:
    """TOOLS-030, OPEN-82: "CITIES (6)" and "TROOPS (12)" count the rows under them: each of Cao Wei's 6 cities and
    12 fighting troops has exactly one row, its id first, in id order; civilians and agents are under OTHER UNITS."""
    text = golden_briefing(state)
    view = build_view(state, "wei")
    cities = _rows_under(text, "CITIES (6)", "TROOPS (")
    assert [int(row.split()[0][1:]) for row in cities] == sorted(c.id for c in view.cities)
    troops = _rows_under(text, "TROOPS (12)", "OTHER UNITS")
    fighting = sorted(u.id for u in view.units if rd.UNITS[u.type].fighting)
    assert len(fighting) == 12 and [int(row.split()[0][1:]) for row in troops] == fighting
    others = _rows_under(text, "OTHER UNITS", "CAMPS")
    assert [int(row.split()[0][1:]) for row in others] == sorted(u.id for u in view.units if u.id not in fighting)
    with capsys.disabled():
        print(f"\n[briefing month 50, 6 cities, 12 troops: {len(text):,} chars, ~{len(text) // 4:,} tokens]")


def test_tools_120_get_city_own_and_rival(state: GameState) -> None:
    """TOOLS-120: an own city in full with build options and months; a rival city as known, with the spy report."""
    obs = observe(state, "wei")
    view = obs.view
    xuchang = view.cities[0]
    text = render.own_city_text(obs, xuchang, obs.figures.cities[xuchang.id])
    assert text.startswith("#1 Xuchang (2,3) [capital] — 42,000 people")
    assert "QUEUE\n1. spearman:2,000\n2. cavalry:1,000" in text
    assert "forge 80 prod" in text and "cavalry 16 prod per 1,000 men (stable)" in text
    assert "IMPROVEMENTS: farm (3,2), granary (1,3)" in text
    jiangling = next(c for c in view.foreign_cities if c.name == "Jiangling")
    text = render.rival_city_text(view, jiangling)
    assert "SPY REPORT from month 49 (spy inside)" in text and "levy 1,000" in text
    chengdu = next(c for c in view.foreign_cities if c.name == "Chengdu")
    text = render.rival_city_text(view, chengdu)
    assert "No spy report" in text and "6,000" not in text and "at war with you" in text


def test_tools_100_110_090_map_tile_and_sites(state: GameState) -> None:
    """TOOLS-090, TOOLS-100, TOOLS-110, OPEN-89: the map marks own and foreign things; a tile tells what is known; sites rank."""
    obs = observe(state, "wei")
    text = render.map_text(obs.view, (4, 10), 2)
    assert "* #6 Xinye (4,10) (yours)" in text and "x #30 Shu Han cavalry medium (5,11)" in text
    row10 = next(line for line in text.splitlines() if line.startswith("r 10"))
    assert "*" in row10
    text = render.tile_text(obs, obs.tile(5, 11))
    assert "Units: #30 Shu Han cavalry medium" in text
    far = render.tile_text(obs, obs.tile(20, 1))
    assert "unexplored" in far
    sites = obs.sites(limit=50)
    feeds = [s.feeds for s in sites]
    assert feeds == sorted(feeds, reverse=True) and len(sites) > 3
    text = render.sites_text(obs, 5)
    assert text.count("\n") >= 6 and "1. (" in text


def test_tools_400_results_count_new_and_standing_orders_apart() -> None:
    """TOOLS-400, TURN-120: last month's results count the orders given (2 carried out, 1 failed) apart from the
    standing orders (1 ran on, 1 ended), so "carried out" never counts more orders than were given."""
    outcomes = [o for o in golden_results()[0].outcomes]
    outcomes.append({"position": 0, "text": "attack unit=20 to=3,3", "ok": 0,
                     "result": "standing order ended: #9 is no longer in sight", "code": "target_lost"})
    lines = render.results_lines([render.MonthResults(49, outcomes, [])])
    assert lines[0] == "M49: 2 orders carried out, 1 failed; 1 standing order ran on, 1 ended.", lines[0]


def test_open_51_the_ruin_remembered_out_of_sight_is_a_known_place_not_a_village() -> None:
    """OPEN-51, VIC-130, OPEN-50: Wei's scout saw the Ruin (10,000 people) and left: the Ruin is called the Ruin,
    never by the size name of a village, and out of sight its remembered row still stands under KNOWN ENEMIES
    (never "none in sight or remembered")."""
    state = golden_state()
    ruin_city = next(c for c in state.cities.values() if c.is_ruin)
    scout = Unit(state.new_id(), "wei", "scout", ruin_city.q - 1, ruin_city.r)
    state.units[scout.id] = scout
    update_memory(state, "wei")
    del state.units[scout.id]
    obs = observe(state, "wei")
    view = obs.view
    ruin = next(c for c in view.foreign_cities if c.ruin)
    assert not ruin.in_sight and ruin.size == "village"
    row = render.seen_city_row(view, ruin, render.kingdom_names(view))
    assert "village" not in row and "the Ruin" in row, row
    alone = dataclasses.replace(view, foreign_cities=[ruin], foreign_units=[], foreign_camps=[], reports=[])
    text = render.briefing(alone, render.BriefingInput(figures=obs.figures))
    known = text.split("KNOWN ENEMIES", 1)[1].split("\n\n", 1)[0]
    assert "none in sight or remembered" not in known and ruin.name in known, known
