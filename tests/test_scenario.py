"""Scenarios: the TOML format, the shipped scenarios, refusals of bad files, the starting state (OPEN-69, OPEN-70, OPEN-73)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kingdoms import ruledata as rd
from kingdoms.hexgrid import distance
from kingdoms.mapgen import fairness_problems
from kingdoms.scenario import (
    SCENARIO_DIR,
    Scenario,
    ScenarioError,
    dump_scenario,
    load_scenario,
    parse_scenario,
    scenario_from_dict,
    scenario_names,
)
from kingdoms.setup import build_state, resolve_scenario
from kingdoms.state import GameState


def _names(prefix: str, n: int) -> str:
    return "[" + ", ".join(f'"{prefix}{i}"' for i in range(n)) + "]"


# A small valid scenario (the README's example with full name lists). Tiles used below:
# river (1,1)..(1,7) with a bridge at (1,5); mountains (5,2), (5,3); a 3-tile lake (6,4), (5,5), (6,5).
BASE = f"""
title = "Ford of the Two Rivers"
months = 120
wars = [["wei", "shu"]]

[map]
rows = [
    "G G P P F F G G P P",
    " G p G P F H H G G P",
    "G G p G P P M H G G",
    " P G p G G P M P G G",
    "P G G p G G P P ~ G",
    " G P G p G G P ~ ~ G",
    "G G P G p G G G P G",
    " G G P G p P P G G G",
]
bridges = [[1, 5]]
ruin = [3, 4]
ruin_name = "Old Fort"

[[landmarks]]
name = "Ford River"
kind = "river"
tiles = [[1, 1], [1, 2], [1, 3], [1, 4], [1, 5], [1, 6], [1, 7]]

[[landmarks]]
name = "Mirror Lake"
kind = "lake"
tiles = [[6, 4], [5, 5], [6, 5]]

[[kingdoms]]
id = "wei"
name = "Cao Wei"
ruler = "Cao Cao"
landing = [1, 0]
city_names = {_names("Wei City ", 30)}
general_names = {_names("Wei General ", 12)}

[[kingdoms]]
id = "shu"
name = "Shu Han"
ruler = "Liu Bei"
landing = [2, 7]
city_names = {_names("Shu City ", 30)}
general_names = {_names("Shu General ", 12)}
"""


def _bad(text: str, source: str = "bad.toml") -> ScenarioError:
    """Parse `text`, expecting a refusal; returns the error."""
    with pytest.raises(ScenarioError) as info:
        parse_scenario(text, source=source)
    return info.value


# --- the shipped scenarios -----------------------------------------------------------------------------


def test_shipped_scenarios_listed_and_found_next_to_the_package() -> None:
    """Scenario names resolve to <project>/scenarios/NAME.toml."""
    assert {"duel", "three_kingdoms"} <= set(scenario_names())
    assert SCENARIO_DIR == Path(__file__).resolve().parent.parent / "scenarios"


@pytest.mark.parametrize(("name", "size", "ids"), [
    ("three_kingdoms", (40, 30), {"wei", "shu", "wu"}),
    ("duel", (32, 24), {"wei", "shu"}),
])
def test_shipped_scenario_loads_and_is_fair(name: str, size: tuple[int, int], ids: set[str]) -> None:
    """Shipped maps: size (OPEN-61), kingdoms, 30+/12+ names (OPEN-68), wet landings, central Ruin (VIC-090)."""
    scn = load_scenario(name)
    gm = scn.game_map()
    assert (gm.width, gm.height) == size
    assert {k.id for k in scn.kingdoms} == ids
    for k in scn.kingdoms:
        assert len(k.city_names) >= 30 and len(k.general_names) >= 12
        assert gm.water_class_at(*k.landing) in ("fresh", "coast")
    assert scn.map.bridges, "a designed map has some old bridges (MAP-120)"
    assert {"river", "range", "lake"} <= {m.kind for m in scn.landmarks}
    assert fairness_problems(gm, scn.landings(), tuple(scn.map.ruin)) == []


def test_open_68_three_kingdoms_names() -> None:
    """OPEN-68: the default scenario's kingdoms and rulers."""
    scn = load_scenario("three_kingdoms")
    assert [(k.id, k.name, k.ruler) for k in scn.kingdoms] == [
        ("wei", "Cao Wei", "Cao Cao"), ("shu", "Shu Han", "Liu Bei"), ("wu", "Eastern Wu", "Sun Quan")]


def test_resolve_scenario() -> None:
    """None gives the default three_kingdoms; a name, a path and random:SEED:N all resolve."""
    assert resolve_scenario(None).name == "three_kingdoms"
    assert resolve_scenario("duel").name == "duel"
    assert resolve_scenario(SCENARIO_DIR / "duel.toml").name == "duel"
    assert resolve_scenario(str(SCENARIO_DIR / "duel.toml")).name == "duel"
    rnd = resolve_scenario("random:12:2")
    assert len(rnd.kingdoms) == 2 and rnd.name == "random-12-2"
    with pytest.raises(ScenarioError, match=r"no such scenario file.*three_kingdoms"):
        resolve_scenario("atlantis")
    with pytest.raises(ScenarioError, match="random:SEED"):
        resolve_scenario("random:x")


def test_readme_example_is_valid() -> None:
    """The example in scenarios/README.md is a working scenario once its name lists are filled in."""
    text = (SCENARIO_DIR / "README.md").read_text()
    example = re.search(r"```toml\n(.*?)```", text, re.S).group(1)
    for prefix, lists in (("W", ('["Xuchang", "Chenliu", "..."]', '["Xiahou Dun", "Cao Ren", "..."]')),
                          ("S", ('["Chengdu", "Mianzhu", "..."]', '["Guan Yu", "Zhang Fei", "..."]'))):
        cities = lists[0].replace('"..."', ", ".join(f'"{prefix}C{i}"' for i in range(30)))
        generals = lists[1].replace('"..."', ", ".join(f'"{prefix}G{i}"' for i in range(12)))
        example = example.replace(lists[0], cities).replace(lists[1], generals)
    state = build_state(parse_scenario(example, source="README"), seed=1)
    assert len(state.cities) == 4 and len(state.units) == 4


# --- the starting state (OPEN-69, OPEN-70, OPEN-73, OPEN-87) ---------------------------------------------


@pytest.fixture(scope="module")
def start() -> GameState:
    return build_state(load_scenario("three_kingdoms"), seed=2024)


def test_open_69_capitals(start: GameState) -> None:
    """OPEN-69, CITY-010: each capital on its landing: 15,000 people, 150/300 dan, balanced, happy 100, nothing built."""
    for kd in start.kingdoms.values():
        city = start.cities[kd.capital_id]
        assert city.tile == kd.landing and city.is_capital and not city.is_ruin
        assert city.owner == city.founder == kd.id
        assert city.name == kd.city_names[0] and kd.names_used == 1  # CITY-430
        assert city.people == 15_000 and city.grain == 150 and city.store == 0
        assert city.focus == "balanced" and city.happiness == 100
        assert city.buildings == [] and city.improvements == [] and city.walls == 0 and city.walls_max == 0
        # SIEGE-060, SIEGE-070: 20% of 15,000 = 3,000, capped at 1,500; before month 40 at least 3,000 -> 3,000.
        assert city.militia == 3_000
        # CITY-330: the founding ring is the centre and its 6 neighbours.
        assert set(start.city_tiles(city.id)) == {city.tile, *start.map.neighbours(*city.tile)}


def test_open_69_starting_troop_and_general(start: GameState) -> None:
    """OPEN-69, GEN-080, RECRUIT-240: one troop of 3,000 levies in the capital with 4 months of rations, led by a
    level-1 general; no kingdom starts with a scout or a spy (nor any other unit)."""
    for kd in start.kingdoms.values():
        units = [u for u in start.units.values() if u.owner == kd.id]
        assert len(units) == 1  # no scouts, spies, wagons or colonists
        troop = units[0]
        assert (troop.type, troop.men, troop.xp, troop.morale) == ("levy", 3_000, 0, 100)
        assert troop.tile == kd.landing
        assert troop.rations == 12  # 3,000 men eat 3 dan a month; 4 months = 12 dan
        gen = start.generals[troop.general_id]
        assert gen.owner == kd.id and gen.unit_id == troop.id and gen.city_id is None
        assert gen.name == kd.general_names[0] and gen.xp == 0 and gen.level == 1
        assert kd.generals_used == 1
    assert not start.camps and not start.spies


def test_open_70_the_ruin(start: GameState) -> None:
    """OPEN-70, VIC-090, VIC-100: the Ruin is a bandit city of 10,000 behind walls 50 with 1,500 fortified spearmen."""
    ruins = [c for c in start.cities.values() if c.is_ruin]
    assert len(ruins) == 1
    ruin = ruins[0]
    assert ruin.owner == rd.BANDITS and ruin.founder is None and not ruin.is_capital
    assert ruin.name == "Ruins of Luoyang"
    assert ruin.people == 10_000 and ruin.grain == 150
    assert ruin.walls == 50 and ruin.walls_max == 50
    assert ruin.militia == 1_000  # 10% of 10,000 = 1,000, at the 1,000 cap
    assert set(start.city_tiles(ruin.id)) == {ruin.tile, *start.map.neighbours(*ruin.tile)}
    garrison = start.units_at(*ruin.tile)
    assert len(garrison) == 1
    g = garrison[0]
    assert (g.owner, g.type, g.men, g.morale, g.fortified) == (rd.BANDITS, "spearman", 1_500, 100, True)
    assert g.general_id is None
    assert distance(ruin.tile, start.map.centre()) <= 3


def test_open_73_rotation_seeded(start: GameState) -> None:
    """OPEN-73: the first month's order is a seeded random order of the kingdoms."""
    assert sorted(start.rotation) == ["shu", "wei", "wu"]
    scn = load_scenario("three_kingdoms")
    assert build_state(scn, seed=2024).rotation == start.rotation
    orders = {tuple(build_state(scn, seed=s).rotation) for s in range(12)}
    assert len(orders) > 1


def test_open_87_ids_and_month(start: GameState) -> None:
    """OPEN-87: city, unit and general ids are one increasing sequence; the game starts at start_month, at peace."""
    ids = sorted([*start.cities, *start.units, *start.generals])
    assert ids == list(range(1, len(ids) + 1))
    assert start.next_id == len(ids) + 1
    assert start.month == 1 and start.wars == []  # DIPLO-010
    assert start.kingdoms.keys() == {"wei", "shu", "wu"}


def test_state_round_trip(start: GameState) -> None:
    """The built state stores and reloads with the same hash."""
    back = GameState.from_dict(start.to_dict(), start.map)
    assert back.state_hash() == start.state_hash()


def test_build_is_deterministic() -> None:
    """Same scenario and seed -> the same state hash."""
    scn = load_scenario("duel")
    assert build_state(scn, 7).state_hash() == build_state(scn, 7).state_hash()


# --- overrides ---------------------------------------------------------------------------------------


OVERRIDES = BASE.replace('months = 120', 'months = 120\nstart_month = 5') + """
[[cities]]
owner = "wei"
tile = [1, 0]
name = "Xuchang"
people = 20000
buildings = ["palisade", "barracks"]

[[cities]]
owner = "wei"
tile = [6, 1]
people = 8000
focus = "production"
grain = 500
buildings = ["palisade", "walls"]
walls = 60

[[cities.improvements]]
kind = "granary"
tile = [7, 1]

[[cities.improvements]]
kind = "workshop"
tile = [5, 1]

[[cities]]
owner = "bandits"
name = "Bandit Camp"
founder = "shu"
tile = [6, 7]
people = 3000
happiness = 40

[[troops]]
owner = "shu"
type = "cavalry"
men = 1200
tile = [3, 2]
xp = 7
morale = 80
fortified = true
general = "Shu General 5"
general_xp = 3

[[troops]]
owner = "bandits"
type = "archer"
men = 600
tile = [6, 7]

[[troops]]
owner = "wei"
type = "colonists"
tile = [0, 3]
"""


def test_overrides_applied() -> None:
    """[[cities]] changes a capital and adds cities; [[troops]] adds units and generals; wars and start month apply."""
    state = build_state(parse_scenario(OVERRIDES, source="overrides.toml"), seed=3)
    assert state.month == 5 and state.wars == [["shu", "wei"]]
    wei = state.kingdoms["wei"]
    cap = state.cities[wei.capital_id]
    assert cap.name == "Xuchang" and cap.people == 20_000 and cap.buildings == ["palisade", "barracks"]
    assert cap.walls == cap.walls_max == 40  # a palisade gives durability 40 (BUILD-020)
    assert cap.militia == 3_000  # 20% of 20,000 = 4,000 -> cap 1,500 -> young realm 3,000 (month 5 < 40)
    second = state.city_at(6, 1)
    assert second.owner == second.founder == "wei" and second.name == "Wei City 1"  # next on the list
    assert second.walls_max == 100 and second.walls == 60  # stone walls lift the ceiling to 100
    assert second.grain == 500 and second.focus == "production" and not second.is_capital
    assert {(i.kind, (i.q, i.r)) for i in second.improvements} == {("granary", (7, 1)), ("workshop", (5, 1))}
    assert second.militia == 800  # 10% of 8,000 = 800, under the 1,000 cap
    camp = state.city_at(6, 7)
    assert camp.owner == rd.BANDITS and camp.founder == "shu" and camp.happiness == 40 and camp.militia == 300
    cav = next(u for u in state.units.values() if u.type == "cavalry")
    assert (cav.owner, cav.men, cav.xp, cav.morale, cav.fortified, cav.rations) == ("shu", 1200, 7, 80, True, 4.8)
    gen = state.generals[cav.general_id]
    assert gen.name == "Shu General 5" and gen.xp == 3 and gen.level == 2  # level 2 from 3 XP (GEN-100)
    shu = state.kingdoms["shu"]
    assert shu.generals_used == 2 and shu.general_names[:2] == ["Shu General 0", "Shu General 5"]
    assert len(shu.general_names) == 12
    archers = [u for u in state.units.values() if u.type == "archer"]
    assert archers[0].owner == rd.BANDITS and archers[0].tile == (6, 7)
    colonists = next(u for u in state.units.values() if u.type == "colonists")
    assert colonists.men == 5_000 and colonists.cargo == 20 and colonists.rations == 0


# --- refusals ----------------------------------------------------------------------------------------


def test_base_scenario_is_valid() -> None:
    """The base text used by the refusal tests is itself accepted."""
    scn = parse_scenario(BASE, source="base.toml")
    assert scn.name == "scenario" and scn.months == 120
    assert scenario_from_dict({**scn.model_dump()}, source="again").map.ruin == (3, 4)


@pytest.mark.parametrize(("old", "new", "where", "what"), [
    # ragged row
    ('"P G G p G G P P ~ G",', '"P G G p G G P P ~",', r"map\.rows\[4\]", "ragged row: 9 tiles where row 0 has 10"),
    # unknown terrain letter
    ('"G G P P F F G G P P",', '"G G P X F F G G P P",', r"map\.rows\[0\], column 3", "unknown terrain letter 'X'"),
    # a river through a mountain
    ('"G G p G P P M H G G",', '"G G p G P P m H G G",', r"map\.rows\[2\], column 6", "river cannot run through mountain"),
    # landing on water
    ('landing = [2, 7]', 'landing = [6, 4]', r"kingdoms\[1\]\.landing", "is water"),
    # landing on a mountain
    ('landing = [2, 7]', 'landing = [5, 3]', r"kingdoms\[1\]\.landing", "is mountain"),
    # landing off the map
    ('landing = [2, 7]', 'landing = [20, 0]', r"kingdoms\[1\]\.landing", "off the map"),
    # two kingdoms too close to share founding rings
    ('landing = [2, 7]', 'landing = [2, 0]', r"kingdoms\[1\]\.landing", "too close to share founding rings"),
    # a dry landing
    ('landing = [2, 7]', 'landing = [8, 0]', r"kingdoms\[1\]\.landing", "dry site"),
    # duplicate kingdom ids
    ('id = "shu"', 'id = "wei"', r"kingdoms\[1\]\.id", "already used by kingdoms[0]"),
    # a ruler named twice
    ('ruler = "Liu Bei"', 'ruler = "cao cao"', r"kingdoms\[1\]\.ruler", "already used"),
    # too few city names
    (f'city_names = {_names("Shu City ", 30)}', f'city_names = {_names("Shu City ", 29)}',
     r"kingdoms\[1\]\.city_names", "too few names: 29 given, at least 30 needed"),
    # too few general names
    (f'general_names = {_names("Wei General ", 12)}', '["Cao Ren"]'.join(["general_names = ", ""]),
     r"kingdoms\[0\]\.general_names", "too few names"),
    # a misspelt key
    ('ruler = "Cao Cao"', 'ruler = "Cao Cao"\ncolour = "blue"', r"kingdoms\[0\]\.colour", "unknown key"),
    # a bridge off the river
    ('bridges = [[1, 5]]', 'bridges = [[2, 5]]', r"map\.bridges\[0\]", "not a river tile"),
    # the Ruin on a mountain
    ('ruin = [3, 4]', 'ruin = [5, 2]', r"map\.ruin", "mountain"),
    # a war with nobody
    ('wars = [["wei", "shu"]]', 'wars = [["wei", "jin"]]', r"wars\[0\]", "unknown kingdom 'jin'"),
    # a landmark of the wrong kind
    ('kind = "lake"', 'kind = "sea"', r"landmarks\[1\]\.tiles\[0\]", "lies in a lake, not a sea"),
    # a type error
    ('months = 120', 'months = "many"', r"months", "valid integer"),
])
def test_bad_file_refused_naming_file_field_and_problem(old: str, new: str, where: str, what: str) -> None:
    """A bad scenario is refused; the message names the file, the field or row/column, and the problem."""
    assert old in BASE
    err = _bad(BASE.replace(old, new, 1), source="scenarios/broken.toml")
    text = str(err)
    assert text.startswith("scenarios/broken.toml: ")
    assert re.search(where, text), text
    assert what in text, text


@pytest.mark.parametrize(("extra", "where", "what"), [
    ('[[cities]]\nowner = "jin"\ntile = [6, 1]\nname = "Ye"\n', r"cities\[0\]\.owner", "unknown owner 'jin'"),
    ('[[cities]]\nowner = "wei"\ntile = [2, 4]\n', r"cities\[0\]\.tile", "from the Ruin"),
    ('[[cities]]\nowner = "bandits"\ntile = [6, 1]\n', r"cities\[0\]\.name", "needs a name"),
    ('[[cities]]\nowner = "wei"\ntile = [6, 1]\nbuildings = ["walls"]\n', r"cities\[0\]\.buildings", "palisade"),
    ('[[cities]]\nowner = "wei"\ntile = [6, 1]\nbuildings = ["palisade"]\nwalls = 70\n', r"cities\[0\]\.walls", "above the 40"),
    ('[[cities]]\nowner = "wei"\ntile = [6, 1]\n[[cities.improvements]]\nkind = "farm"\ntile = [0, 5]\n',
     r"cities\[0\]\.improvements\[0\]\.tile", "not on the city's starting land"),
    ('[[cities]]\nowner = "wei"\ntile = [6, 1]\ngrain = 400\n', r"cities\[0\]\.grain", "more than the granary holds (300)"),
    ('[[troops]]\nowner = "wei"\ntype = "levy"\nmen = 1000\ntile = [5, 2]\n', r"troops\[0\]\.tile", "impassable"),
    ('[[troops]]\nowner = "wei"\ntype = "levy"\nmen = 1000\ntile = [1, 3]\n', r"troops\[0\]\.tile", "unbridged river"),
    ('[[troops]]\nowner = "wei"\ntype = "levy"\nmen = 1000\ntile = [1, 0]\n', r"troops\[0\]\.tile", "two troops cannot share"),
    ('[[troops]]\nowner = "wei"\ntype = "levy"\nmen = 100\ntile = [3, 1]\n', r"troops\[0\]\.men", "below the 500"),
    ('[[troops]]\nowner = "wei"\ntype = "elephant"\nmen = 1000\ntile = [3, 1]\n', r"troops\[0\]\.type", "unknown unit type"),
    ('[[troops]]\nowner = "ming"\ntype = "levy"\nmen = 1000\ntile = [3, 1]\n', r"troops\[0\]\.owner", "unknown owner"),
    ('[[troops]]\nowner = "wei"\ntype = "levy"\nmen = 1000\ntile = [3, 1]\ngeneral = "Lu Bu"\n',
     r"troops\[0\]\.general", "not on wei's general_names"),
    ('[[troops]]\nowner = "wei"\ntype = "levy"\nmen = 1000\ntile = [3, 1]\ngeneral = "Wei General 0"\n',
     r"troops\[0\]\.general", "already leads"),
    ('[[troops]]\nowner = "bandits"\ntype = "levy"\nmen = 1000\ntile = [3, 1]\n', r"troops\[0\]\.tile", "bandit troops only"),
])
def test_bad_override_refused(extra: str, where: str, what: str) -> None:
    """Bad [[cities]] and [[troops]] entries are refused naming the entry's field."""
    text = str(_bad(BASE + "\n" + extra, source="over.toml"))
    assert text.startswith("over.toml: ")
    assert re.search(where, text), text
    assert what in text, text


def test_troop_on_peaceful_neighbours_land_refused() -> None:
    """A troop may not start on the land of a kingdom it is at peace with (closed borders)."""
    text = BASE.replace('wars = [["wei", "shu"]]', "") + '\n[[troops]]\nowner = "shu"\ntype = "levy"\nmen = 900\ntile = [2, 0]\n'
    assert "at peace" in str(_bad(text))


def test_bad_toml_and_missing_file() -> None:
    """Broken TOML and a missing file are refused with the file named."""
    assert "not valid TOML" in str(_bad("rows = [", source="x.toml"))
    with pytest.raises(ScenarioError, match=r"nope\.toml: no such scenario file"):
        load_scenario("/tmp/definitely/nope.toml")


def test_every_problem_listed_at_once() -> None:
    """Several problems come back together, each on its own line."""
    text = BASE.replace("landing = [2, 7]", "landing = [6, 4]").replace('ruler = "Liu Bei"', 'ruler = "Cao Cao"')
    err = _bad(text)
    assert len(err.problems) == 2 and "2 problems" in str(err)


def test_nothing_built_from_a_bad_scenario() -> None:
    """build_state checks the scenario first: an unchecked bad Scenario raises before any state exists."""
    scn = parse_scenario(BASE, source="ok.toml")
    bad = Scenario.model_validate({**scn.model_dump(), "wars": [["wei", "qin"]]}).with_source("made.toml")
    with pytest.raises(ScenarioError, match="made.toml"):
        build_state(bad, seed=1)


def test_dump_and_parse_round_trip() -> None:
    """dump_scenario writes TOML that parses back to the same scenario (used to write the shipped files)."""
    for scn in (load_scenario("three_kingdoms"), parse_scenario(OVERRIDES, source="o.toml")):
        back = parse_scenario(dump_scenario(scn), source="dumped.toml", name=scn.name)
        assert back.model_dump(exclude={"name"}) == scn.model_dump(exclude={"name"})
        assert back.game_map().rows() == scn.game_map().rows()


def test_names_unique_across_kingdoms_and_ruin() -> None:
    """OPEN-68: a city name on two lists, or equal to the Ruin's name, is refused."""
    text = BASE.replace('"Shu City 3"', '"Wei City 7"')
    assert "kingdoms[1].city_names[3]: 'Wei City 7' is also on the list of kingdoms[0]" in str(_bad(text))
    text = BASE.replace('ruin_name = "Old Fort"', 'ruin_name = "Shu City 0"')
    assert "the Ruin's name" in str(_bad(text))
