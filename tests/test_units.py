"""Each unit type as the rules list it: price, strength, moves, sight and the building it needs (RECRUIT-010..100).

The figures are the rules' own, written here by hand; each test also checks one thing the engine does with them
(a price charged, a building asked for, a wagon's load, a cavalry strike's moves, an engine's count).
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from kingdoms import ruledata as rd
from kingdoms.engine import economy as eco
from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.month import run_order
from kingdoms.engine.registry import load_areas
from kingdoms.orders.models import QueueItem, SetProduction, ShipGrain

from .builders import add_city
from .test_economy import CENTRE, axial_map, make_state, reference_state

#: (type, production price, per 1,000 men, attack, defence, ranged, range, moves, building) from the rules' unit list
TABLE = [
    ("colonists", 100, False, 0.0, 0.0, 0.0, 0, 3, None),
    ("wagon", 0, False, 0.0, 0.0, 0.0, 0, 3, None),
    ("levy", 5, True, 1.0, 1.0, 0.0, 0, 3, None),
    ("spearman", 8, True, 1.0, 1.3, 0.0, 0, 3, "barracks"),
    ("archer", 7, True, 0.6, 1.0, 1.0, 2, 3, "barracks"),
    ("cavalry", 16, True, 2.0, 1.2, 0.0, 0, 5, "stable"),
    ("heavy_infantry", 14, True, 1.5, 1.5, 0.0, 0, 3, "forge"),
    ("scout", 10, False, 0.0, 0.0, 0.0, 0, 7, None),
    ("spy", 10, False, 0.0, 0.0, 0.0, 0, 6, None),
    ("catapult", 80, True, 0.3, 0.7, 0.3, 3, 2, "workshop"),
]


def _row(kind: str) -> tuple:
    spec = rd.UNITS[kind]
    return (spec.name, spec.cost, spec.per_1000, spec.attack, spec.defence, spec.ranged, spec.range, spec.moves,
            spec.requires)


def _queue(state, city, item: str, men: int | None = None) -> str:
    """set_production city=.. queue=item[:men], checked and run as at month end."""
    load_areas()
    order = SetProduction(city_id=city.id, queue=[QueueItem(item=item, men=men)])
    return run_order(MonthContext(state), city.owner, order)


def _needs(item: str, building: str, men: int) -> None:
    """Without `building` the city may not raise `item` (needs_building); with it, it may."""
    state, city = reference_state()
    with pytest.raises(OrderFailed) as err:
        _queue(state, city, item, men)
    assert err.value.code == "needs_building" and building in err.value.message
    city.buildings.append(building)
    _queue(state, city, item, men)
    assert [(e.item, e.men) for e in city.queue] == [(item, men)]


def test_recruit_010_colonists():
    """RECRUIT-010: colonists cost 100 production, move 3 and found cities (a civilian unit, not a troop)."""
    assert _row("colonists") == TABLE[0]
    assert not rd.UNITS["colonists"].fighting and eco.item_price("colonists") == 100.0


def test_recruit_020_wagon():
    """RECRUIT-020, SUPPLY-100: a wagon costs nothing and moves 3; ship_grain makes one carrying at most 60 dan
    (61 is refused), and the grain leaves the granary (150 - 60 = 90)."""
    assert _row("wagon") == TABLE[1] and rd.WAGON_CAP == 60
    state, city = reference_state()
    city.grain = 150.0
    ctx = MonthContext(state)
    load_areas()
    with pytest.raises(ValidationError):
        ShipGrain(city_id=city.id, dan=61, to=(4, 5))
    run_order(ctx, "wei", ShipGrain(city_id=city.id, dan=60, to=(4, 5)))
    (wagon,) = [u for u in state.units.values() if u.type == "wagon"]
    assert wagon.cargo == 60.0 and city.grain == pytest.approx(90.0)


def test_recruit_030_levy():
    """RECRUIT-030: levies cost 5 a 1,000 men, attack 1, defence 1, move 3, and any city raises them: a city with
    no building queues 2,000 (price 10)."""
    assert _row("levy") == TABLE[2]
    state, city = reference_state()
    assert city.buildings == []
    _queue(state, city, "levy", 2_000)
    assert [e.item for e in city.queue] == ["levy"] and eco.item_price("levy", 2_000) == 10.0


def test_recruit_040_spearman():
    """RECRUIT-040: spearmen cost 8 a 1,000, attack 1, defence 1.3, move 3, +50% defending against cavalry (x1.5 in
    a city), and need a barracks."""
    assert _row("spearman") == TABLE[3]
    assert (rd.SPEAR_VS_CAVALRY_FIELD, rd.SPEAR_VS_CAVALRY_CITY) == (0.5, 1.5)
    _needs("spearman", "barracks", 1_000)


def test_recruit_050_archer():
    """RECRUIT-050: archers cost 7 a 1,000, attack 0.6, defence 1, shoot with 1 at range 2, move 3, beat levies and
    spearmen (x1.5) but not heavy infantry, and need a barracks."""
    assert _row("archer") == TABLE[4]
    assert rd.COUNTERS[("archer", "levy")] == rd.COUNTERS[("archer", "spearman")] == 1.5
    assert ("archer", "heavy_infantry") not in rd.COUNTERS
    _needs("archer", "barracks", 1_000)


def test_recruit_060_cavalry():
    """RECRUIT-060: cavalry cost 16 a 1,000, attack 2, defence 1.2, move 5, strike for 2 moves, ride down archers and
    catapults (x1.5), attack spearmen at x0.75, pursue for +20%, flank for +25%, and need a stable."""
    assert _row("cavalry") == TABLE[5] and rd.CAVALRY_ATTACK_MOVES == 2
    assert rd.COUNTERS[("cavalry", "archer")] == rd.COUNTERS[("cavalry", "catapult")] == 1.5
    assert rd.COUNTERS[("cavalry", "spearman")] == 0.75
    assert (rd.PURSUIT_LOSS, rd.FLANK_PER_CAVALRY) == (0.2, 0.25)
    _needs("cavalry", "stable", 1_000)


def test_recruit_070_heavy_infantry():
    """RECRUIT-070: heavy infantry cost 14 a 1,000, attack 1.5, defence 1.5, move 3, beat spearmen and levies (x1.5)
    and need a forge."""
    assert _row("heavy_infantry") == TABLE[6]
    assert rd.COUNTERS[("heavy_infantry", "spearman")] == rd.COUNTERS[("heavy_infantry", "levy")] == 1.5
    _needs("heavy_infantry", "forge", 1_000)


def test_recruit_080_scout():
    """RECRUIT-080: a scout costs 10 production, moves 7 and sees 4 tiles; any city raises one."""
    assert _row("scout") == TABLE[7] and rd.SIGHT["scout"] == 4
    state, city = reference_state()
    _queue(state, city, "scout")
    assert [e.item for e in city.queue] == ["scout"] and eco.item_price("scout") == 10.0


def test_recruit_090_spy():
    """RECRUIT-090: a spy costs 10 production, moves 6 and sees 1 tile; any city raises one."""
    assert _row("spy") == TABLE[8] and rd.SIGHT["spy"] == 1
    state, city = reference_state()
    _queue(state, city, "spy")
    assert [e.item for e in city.queue] == ["spy"] and eco.item_price("spy") == 10.0


def test_recruit_100_catapult():
    """RECRUIT-100: catapults cost 80 a 1,000 crew (600 crew: 48), attack 0.3, defence 0.7, shoot 0.3 at range 3,
    move 2, 100 crew work one engine (600 crew = 6 engines), each engine knocks 10 off walls and kills 15, troops
    start from 100 crew, and they need a workshop (on forest or hills of the city's land)."""
    assert _row("catapult") == TABLE[9]
    assert (rd.ENGINE_CREW, rd.ENGINE_WALL_DAMAGE, rd.ENGINE_KILLS, rd.UNITS["catapult"].min_men) == (100, 10, 15, 100)
    assert eco.item_price("catapult", 600) == 48.0 and 600 / rd.ENGINE_CREW == 6
    gm = axial_map({CENTRE: "G", (5, 4): "H"})
    state = make_state(gm)
    city = add_city(state, "wei", CENTRE, 15_000, capital=True)
    with pytest.raises(OrderFailed) as err:
        _queue(state, city, "catapult", 600)
    assert err.value.code == "needs_building" and "workshop" in err.value.message


def test_recruit_130_troop_prices_are_per_1000_men():
    """RECRUIT-130: a troop's price scales with the men ordered: spearman:3,000 = 3 x 8 = 24, levy:500 = 2.5,
    cavalry:20,000 = 320; the flat-priced items do not scale."""
    assert eco.item_price("spearman", 3_000) == 24.0
    assert eco.item_price("levy", 500) == 2.5
    assert eco.item_price("cavalry", 20_000) == 320.0
    assert eco.item_price("colonists", 5_000) == 100.0 and eco.item_price("scout") == 10.0
