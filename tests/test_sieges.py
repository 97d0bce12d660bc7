"""Sieges: walls, towers, militia, bombardment, assaults, blockades and the fall (SIEGE-*, OPEN-11..14/22/23/59/60/100).

Worlds are built by hand on an all-plains map (no terrain bonus unless a test says so); every figure is worked
from the rules in a comment, never copied from the code's output.
"""

from __future__ import annotations

import math

import pytest

from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.generals import new_general
from kingdoms.engine.sieges import (
    assault_city,
    besiegers,
    blockade_threshold,
    full_militia,
    garrison,
    is_blockaded,
    militia_phase,
    shoot_city,
    standing_militia,
    towers_phase,
    units_near,
    walls_factor,
    walls_phase,
)
from kingdoms.state import City, GameState, StationedSpy
from tests import builders
from tests.builders import add, add_city, kingdom

WEI_CAPITAL = (2, 2)
SHU_CAPITAL = (14, 2)
WU_CAPITAL = (3, 9)
TOWN = (8, 6)  # a Shu town in the middle of the map
WEST = (7, 6)  # beside the town (its W neighbour, on its land)
EAST = (9, 6)  # beside the town (E)
NE = (9, 5)  # beside the town (NE)
TWO_WEST = (6, 6)  # 2 tiles west of the town, off its founding ring
THREE_WEST = (5, 6)


def world(*, wu: bool = False, month: int = 50, war: bool = True, rows: list[str] | None = None,
          town_people: int = 15_000) -> GameState:
    """20 x 12 plains; capitals of Wei (2,2), Shu (14,2) (and Wu (3,9)) with 15,000 people; a Shu town on (8,6).

    Month 50 by default, so capitals have no young-realm militia floor (SIEGE-070).
    """
    kds = [kingdom("wei", landing=WEI_CAPITAL), kingdom("shu", landing=SHU_CAPITAL)]
    if wu:
        kds.append(kingdom("wu", landing=WU_CAPITAL))
    state = builders.world(rows=rows, width=20, height=12, fill="P", kingdoms=kds, seed=3, month=month, war=war,
                           rotation=sorted(kd.id for kd in kds), capitals=True)
    add_city(state, "shu", TOWN, town_people, 200, name="Xiangyang")
    return state


def town(state: GameState) -> City:
    return next(c for c in state.cities.values() if c.name == "Xiangyang")


def end_of_month(state: GameState, ctx: MonthContext) -> None:
    """The siege phases of a month end, in their slot order: towers + blockade, walls, militia."""
    towers_phase(ctx)
    walls_phase(ctx)
    militia_phase(ctx)


# --- walls (SIEGE-010..030, OPEN-14) ----------------------------------------------------------------------


def test_siege_010_new_city_has_no_walls():
    """SIEGE-010: a new city has walls 0 and its defenders fight at x1."""
    state = world()
    city = town(state)
    assert city.walls == 0 and city.walls_max == 0
    assert walls_factor(city.walls) == 1.0


def test_siege_020_walls_multiplier():
    """SIEGE-020: defenders fight at x(1 + durability/200): palisade 40 -> x1.2, full walls 100 -> x1.5."""
    assert walls_factor(40) == pytest.approx(1.2)
    assert walls_factor(100) == pytest.approx(1.5)
    assert walls_factor(0) == 1.0


def test_siege_030_stone_walls_rise_5_a_month_to_100():
    """SIEGE-030, OPEN-14: stone walls on a palisade rise +5 a month from 40 to 100: 12 months, then they stay."""
    state = world()
    city = town(state)
    city.walls, city.walls_max = 40.0, 100.0
    seen = []
    for _ in range(13):
        walls_phase(MonthContext(state))
        seen.append(city.walls)
    # 40 + 5 = 45, 50, ... 40 + 12 x 5 = 100, then capped at 100.
    assert seen == [45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 100, 100]


def test_siege_140_open_14_no_repair_when_attacked_or_blockaded():
    """SIEGE-140, OPEN-14: +5 a month toward the ceiling, skipped in a month the city was attacked or blockaded."""
    state = world()
    city = town(state)
    city.walls, city.walls_max = 20.0, 40.0
    ctx = MonthContext(state)
    ctx.cities_attacked.add(city.id)
    walls_phase(ctx)
    assert city.walls == 20  # attacked: no repair
    ctx = MonthContext(state)
    walls_phase(ctx)
    assert city.walls == 25  # 20 + 5
    city.walls = 0.0
    walls_phase(MonthContext(state))
    assert city.walls == 5  # OPEN-14: walls at 0 come back (the palisade is never destroyed)


def test_open_14_palisade_ceiling_40():
    """OPEN-14: with a palisade only, repairs stop at 40."""
    state = world()
    city = town(state)
    city.walls, city.walls_max = 38.0, 40.0
    walls_phase(MonthContext(state))
    assert city.walls == 40  # min(40, 38 + 5)


# --- militia (SIEGE-050..080, OPEN-22) ----------------------------------------------------------------------


def test_siege_060_full_militia():
    """SIEGE-060: 10% of people up to 1,000; a capital 20% up to 1,500."""
    state = world(month=50)
    city = town(state)
    assert full_militia(state, city) == 1_000  # 10% of 15,000 = 1,500 -> capped at 1,000
    city.people = 8_000
    assert full_militia(state, city) == 800  # 10% of 8,000
    capital = state.cities[state.kingdoms["shu"].capital_id]
    assert full_militia(state, capital) == 1_500  # 20% of 15,000 = 3,000 -> capped at 1,500
    capital.people = 5_000
    assert full_militia(state, capital) == 1_000  # 20% of 5,000


def test_siege_070_open_22_young_realm_rally():
    """SIEGE-070, OPEN-22: before month 40 (months 1-39) a capital's full militia never drops below 3,000."""
    state = world(month=39)
    capital = state.cities[state.kingdoms["shu"].capital_id]
    assert full_militia(state, capital) == 3_000
    state.month = 40
    assert full_militia(state, capital) == 1_500  # 20% of 15,000 capped at 1,500
    assert full_militia(state, town(state)) == 1_000  # the floor is for capitals only


def test_siege_080_militia_comes_back_20_percent_a_month():
    """SIEGE-080: lost militia regrows at 20% of the full militia a month, never above it."""
    state = world()
    city = town(state)
    city.militia = 0.0
    seen = []
    for _ in range(6):
        militia_phase(MonthContext(state))
        seen.append(city.militia)
    # full 1,000: +200 a month -> 200, 400, 600, 800, 1,000, then it stays at 1,000.
    assert seen == [200, 400, 600, 800, 1_000, 1_000]
    assert city.last["militia_standing"] == 1_000 and city.last["militia_full"] == 1_000


def test_open_22_capital_floor_regrows_600_a_month():
    """OPEN-22: during the floor a capital's militia regrows 20% of 3,000 = 600 a month."""
    state = world(month=10)
    capital = state.cities[state.kingdoms["shu"].capital_id]
    capital.militia = 0.0
    militia_phase(MonthContext(state))
    assert capital.militia == 600
    militia_phase(MonthContext(state))
    assert capital.militia == 1_200


def test_siege_080_militia_follows_a_shrinking_city():
    """SIEGE-080: the militia standing never exceeds the full militia when the people shrink."""
    state = world()
    city = town(state)
    assert city.militia == 1_000
    city.people = 6_000  # full militia now 600
    assert standing_militia(state, city) == 600
    militia_phase(MonthContext(state))
    assert city.militia == 600


def test_siege_050_garrison_is_the_troop_not_the_siege_train():
    """SIEGE-050, MOVE-120: the garrison is the owner's troop in the city; a siege train there is not the garrison."""
    state = world()
    city = town(state)
    add(state, "shu", "catapult", TOWN, 300)
    assert garrison(state, city) is None
    spears = add(state, "shu", "spearman", TOWN, 2_000)
    assert garrison(state, city) is spears


# --- towers (SIEGE-040, SIEGE-100, SIEGE-220, OPEN-100) -----------------------------------------------------


def test_siege_100_towers_kill_2_percent_at_full_walls():
    """SIEGE-100: each month towers take 2% x durability/100 off each enemy troop next to the city."""
    state = world()
    city = town(state)
    city.walls, city.walls_max = 100.0, 100.0
    near = add(state, "wei", "levy", WEST, 5_000)
    half = add(state, "wei", "spearman", EAST, 3_000)
    far = add(state, "wei", "levy", THREE_WEST, 5_000)
    towers_phase(MonthContext(state))
    assert near.men == 4_900  # 2% x 100/100 = 2% of 5,000 = 100
    assert half.men == 2_940  # 2% of 3,000 = 60
    assert far.men == 5_000  # 3 tiles away: out of the towers' reach
    city.walls = 50.0
    towers_phase(MonthContext(state))
    assert near.men == 4_851  # 2% x 50/100 = 1% of 4,900 = 49


def test_siege_100_towers_strike_shooters_that_shot_at_the_city():
    """SIEGE-100: troops that shot at the city from range are struck too; OPEN-100: at the walls left after volleys."""
    state = world()
    city = town(state)
    city.walls, city.walls_max = 100.0, 100.0
    cats = add(state, "wei", "catapult", (5, 6), 300)  # 3 tiles west
    ctx = MonthContext(state)
    shoot_city(ctx, cats, city)
    assert city.walls == 70  # 3 engines x 10
    towers_phase(ctx)
    assert cats.men == 296  # 2% x 70/100 = 1.4% of 300 = 4.2 -> 4


def test_siege_040_no_walls_no_towers():
    """SIEGE-040: towers strike only where there are walls (durability above 0)."""
    state = world()
    add(state, "wei", "levy", WEST, 5_000)
    towers_phase(MonthContext(state))
    assert state.units[max(state.units)].men == 5_000


def test_siege_220_diplo_110_towers_spare_kingdoms_at_peace():
    """SIEGE-220, DIPLO-110: towers act only against empires at war with the owner (and bandits)."""
    state = world(war=False)
    city = town(state)
    city.walls, city.walls_max = 100.0, 100.0
    levy = add(state, "wei", "levy", WEST, 5_000)
    towers_phase(MonthContext(state))
    assert levy.men == 5_000
    bandit = add(state, "bandits", "spearman", EAST, 1_000)
    towers_phase(MonthContext(state))
    assert bandit.men == 980  # bandits are at war with everyone: 2% of 1,000


# --- catapults and archers (SIEGE-110, SIEGE-130, OPEN-11, OPEN-59, OPEN-100) -------------------------------


def test_siege_110_catapults_per_engine_effects():
    """SIEGE-110, OPEN-11: 418 crew = 4.18 engines: walls -41.8, 15 x 4.18 = 62.7 -> 63 of the garrison killed."""
    state = world()
    city = town(state)
    city.walls, city.walls_max = 100.0, 100.0
    spears = add(state, "shu", "spearman", TOWN, 2_000)
    cats = add(state, "wei", "catapult", TWO_WEST, 418)
    ctx = MonthContext(state)
    shoot_city(ctx, cats, city)
    assert city.walls == pytest.approx(58.2)  # 100 - 41.8
    assert spears.men == 1_937  # 2,000 - 63
    assert city.militia == 1_000  # the garrison takes the volley, not the militia
    assert cats.men == 418  # spearmen 2 tiles away cannot hit back (COMBAT-090)
    assert city.id in ctx.cities_attacked and cats.id in ctx.shot_at_city[city.id]


def test_open_100_catapult_kills_beyond_the_garrison_fall_on_the_militia():
    """OPEN-100: 8 engines kill 120; a garrison of 110 takes 110 (destroyed), the militia the other 10."""
    state = world()
    city = town(state)
    add(state, "shu", "levy", TOWN, 110)
    cats = add(state, "wei", "catapult", TWO_WEST, 800)
    shoot_city(MonthContext(state), cats, city)
    assert garrison(state, city) is None
    assert city.militia == 990  # 1,000 - 10
    assert city.people == 14_990  # militia losses come off the people (SIEGE-200)


def test_open_59_volleys_never_take_people_below_1000():
    """OPEN-59: militia and catapult kills cannot take a city's people below 1,000."""
    state = world(town_people=1_050)
    city = town(state)  # full militia 105
    cats = add(state, "wei", "catapult", TWO_WEST, 800)
    shoot_city(MonthContext(state), cats, city)
    # 120 kills: the militia loses all 105; the people lose only 50 (1,050 -> floor 1,000)
    assert city.militia == 0
    assert city.people == 1_000


def test_siege_130_archers_shoot_at_half_and_never_harm_walls():
    """SIEGE-130, COMBAT-100, OPEN-95: archers into a city deal x0.5 on their quality and leave the walls alone.

    3,000 archers at 2 tiles vs 1,000 militia behind walls 40: archer quality 1 x 0.5 = 0.5; militia 0.6 x 1.2 = 0.72.
    weight = sqrt(3,000 x 1,000) = 1,732.05; loss = 0.12 x 1,732.05 x sqrt(0.5 / 0.72) = 207.85 x 0.8333 = 173.2 -> 173.
    """
    state = world()
    city = town(state)
    city.walls, city.walls_max = 40.0, 40.0
    archers = add(state, "wei", "archer", TWO_WEST, 3_000)
    shoot_city(MonthContext(state), archers, city)
    assert city.walls == 40
    assert city.militia == 827  # 1,000 - 173
    assert archers.men == 3_000  # militia cannot reach 2 tiles
    assert archers.morale == 100  # COMBAT-190: shooters lose no morale from their own volley


def test_combat_090_return_fire_from_a_garrison_beside_a_siege_train():
    """COMBAT-090, MOVE-160, OPEN-94: a melee garrison strikes back at catapults on the next tile, on their defence.

    500 crew (5 engines) vs 2,000 levies behind no walls: levies' defence 1.0 vs crews' 0.7.
    weights: smaller 500 -> levies sqrt(2,000 x 500) = 1,000. Catapults lose 0.2 x 1,000 x sqrt(1.0 / 0.7) = 239.0 -> 239.
    The volley itself: 5 engines x 15 = 75 levies.
    """
    state = world()
    city = town(state)
    levies = add(state, "shu", "levy", TOWN, 2_000)
    cats = add(state, "wei", "catapult", WEST, 500)
    shoot_city(MonthContext(state), cats, city)
    assert levies.men == 1_925
    assert cats.men == 261  # 500 - 239


def test_shoot_city_refusals():
    """The shot needs a shooter, war and range: refusals raise OrderFailed with a stable code."""
    state = world()
    city = town(state)
    levy = add(state, "wei", "levy", WEST, 1_000)
    with pytest.raises(OrderFailed) as exc:
        shoot_city(MonthContext(state), levy, city)
    assert exc.value.code == "not_a_shooter"
    archers = add(state, "wei", "archer", THREE_WEST, 1_000)
    with pytest.raises(OrderFailed) as exc:
        shoot_city(MonthContext(state), archers, city)
    assert exc.value.code == "out_of_range"  # archers reach 2 tiles
    state.wars.clear()
    cats = add(state, "wei", "catapult", THREE_WEST, 300)
    with pytest.raises(OrderFailed) as exc:
        shoot_city(MonthContext(state), cats, city)
    assert exc.value.code == "not_at_war"


# --- battering and the assault (SIEGE-120, SIEGE-180..200, OPEN-12, OPEN-13, OPEN-100) ----------------------


def test_siege_120_open_13_battering_5_per_1000_men():
    """SIEGE-120, OPEN-13: an assault batters -5 per 1,000 men; hunger 0.5 scales it by (1 - 0.2 x 0.5) = 0.9."""
    state = world()
    city = town(state)
    city.walls, city.walls_max = 100.0, 100.0
    heavy = add(state, "wei", "heavy_infantry", WEST, 6_000)
    assault_city(MonthContext(state), heavy, city)
    assert city.walls == 70  # 100 - 5 x 6
    hungry = add(state, "wei", "heavy_infantry", EAST, 6_000, hunger=0.5)
    assault_city(MonthContext(state), hungry, city)
    assert city.walls == pytest.approx(43)  # 70 - 5 x 6 x 0.9 = 70 - 27


def test_open_100_battering_applies_with_no_defender():
    """OPEN-100: with no garrison and no militia standing the walls are still battered (and stand if above 0)."""
    state = world()
    city = town(state)
    city.walls, city.walls_max = 40.0, 40.0
    city.militia = 0.0
    levy = add(state, "wei", "levy", WEST, 4_000)
    result = assault_city(MonthContext(state), levy, city)
    assert city.walls == 20  # 40 - 5 x 4
    assert city.owner == "shu" and "still stand" in result


def test_open_12_one_assault_fights_the_garrison_only():
    """OPEN-12, SIEGE-050, COMBAT-210: the garrison fights first; the militia behind it is untouched; it never breaks.

    4,000 levies vs 1,000 levies in the town, no walls, all quality 1:
    weights sqrt(4,000 x 1,000) = 2,000 vs 1,000; garrison loses 0.2 x 2,000 = 400 (40%, yet it holds);
    attackers lose 0.2 x 1,000 = 200.
    """
    state = world()
    city = town(state)
    gar = add(state, "shu", "levy", TOWN, 1_000)
    attackers = add(state, "wei", "levy", WEST, 4_000)
    assault_city(MonthContext(state), attackers, city)
    assert gar.men == 600 and gar.tile == TOWN
    assert attackers.men == 3_800
    assert city.militia == 1_000
    assert city.owner == "shu"  # SIEGE-180: beating a garrison never takes the city


def test_siege_020_open_13_defenders_fight_at_walls_before_the_assault():
    """SIEGE-020, OPEN-13: the garrison fights at the walls from before the battering.

    4,000 levies vs 1,000 levies behind walls 100 (x1.5): the assault batters 20 (walls 80 after) but the
    garrison fights at 1.5. Garrison loses 0.2 x 2,000 x sqrt(1 / 1.5) = 400 x 0.8165 = 326.6 -> 327;
    attackers lose 0.2 x 1,000 x sqrt(1.5) = 244.9 -> 245.
    """
    state = world()
    city = town(state)
    city.walls, city.walls_max = 100.0, 100.0
    gar = add(state, "shu", "levy", TOWN, 1_000)
    attackers = add(state, "wei", "levy", WEST, 4_000)
    assault_city(MonthContext(state), attackers, city)
    assert city.walls == 80
    assert gar.men == 673
    assert attackers.men == 3_755


def test_gen_110_general_of_a_garrison_holding_its_city():
    """GEN-110: a general leading the garrison of a city it holds: x(1 + 0.15 x level).

    Level 1 general (x1.15) with 1,000 levies vs 1,000 levies, no walls:
    garrison loses 0.2 x 1,000 x sqrt(1 / 1.15) = 200 x 0.932505 = 186.501 -> 187;
    attackers lose 0.2 x 1,000 x sqrt(1.15) = 200 x 1.072381 = 214.48 -> 214.
    """
    state = world()
    city = town(state)
    gar = add(state, "shu", "levy", TOWN, 1_000)
    new_general(state, "shu", unit_id=gar.id)
    attackers = add(state, "wei", "levy", WEST, 1_000)
    assault_city(MonthContext(state), attackers, city)
    assert gar.men == 1_000 - 187
    assert attackers.men == 1_000 - 214


def test_combat_120_spearmen_in_a_city_x1_5_against_cavalry():
    """COMBAT-120, COMBAT-110: cavalry attack spearmen at x0.75, and spearmen in a city defend x1.5 against them.

    2,000 cavalry (2 x 0.75 = 1.5) vs 2,000 spearmen (1.3 x 1.5 = 1.95), no walls:
    spearmen lose 0.2 x 2,000 x sqrt(1.5 / 1.95) = 400 x 0.877058 = 350.8 -> 351;
    cavalry lose 400 x sqrt(1.95 / 1.5) = 400 x 1.140175 = 456.07 -> 456.
    """
    state = world()
    city = town(state)
    spears = add(state, "shu", "spearman", TOWN, 2_000)
    horse = add(state, "wei", "cavalry", WEST, 2_000)
    assault_city(MonthContext(state), horse, city)
    assert spears.men == 1_649
    assert horse.men == 1_544


def test_combat_140_flanking_only_when_walls_under_40():
    """COMBAT-130, COMBAT-140: a city's defenders are flanked only while the walls are under 40.

    4,000 levies assault 1,000 levies; another Wei troop stands beside the city (+15%).
    Walls 40: no flanking -> garrison loses 0.2 x 2,000 x sqrt(1 / 1.2) = 400 x 0.912871 = 365.1 -> 365.
    Walls 0: flanked x1.15 -> 0.2 x 2,000 x 1.15 = 460.
    """
    state = world()
    city = town(state)
    city.walls, city.walls_max = 40.0, 40.0
    gar = add(state, "shu", "levy", TOWN, 1_000)
    attackers = add(state, "wei", "levy", WEST, 4_000)
    add(state, "wei", "levy", EAST, 1_000)
    assault_city(MonthContext(state), attackers, city)
    assert gar.men == 635
    state2 = world()
    city2 = town(state2)
    gar2 = add(state2, "shu", "levy", TOWN, 1_000)
    attackers2 = add(state2, "wei", "levy", WEST, 4_000)
    add(state2, "wei", "levy", EAST, 1_000)
    assault_city(MonthContext(state2), attackers2, city2)
    assert gar2.men == 540


def test_siege_180_walls_standing_no_fall():
    """SIEGE-180: no assault captures the city while its walls stand, no matter what it does to the militia.

    6,000 levies vs 1,000 militia behind walls 40 (x1.2): battering 30 leaves walls 10.
    Militia quality 0.6 x 1.2 = 0.72 vs levies 1.0; weights sqrt(6,000 x 1,000) = 2,449.5 vs 1,000.
    Militia loses 0.2 x 2,449.5 x sqrt(1 / 0.72) = 489.9 x 1.178511 = 577.3 -> 577 (57.7%: beaten).
    """
    state = world()
    city = town(state)
    city.walls, city.walls_max = 40.0, 40.0
    attackers = add(state, "wei", "levy", WEST, 6_000)
    result = assault_city(MonthContext(state), attackers, city)
    assert city.walls == 10
    assert city.militia == 423
    assert city.owner == "shu" and "still stand" in result


def test_siege_180_falls_when_walls_down_and_militia_beaten():
    """SIEGE-180, OPEN-12: walls 0 (after this assault's battering) and the militia beaten: the city falls.

    Walls 20, 6,000 levies: battering 30 -> 0. Defenders fight at walls 20 (x1.1): militia 0.6 x 1.1 = 0.66.
    Militia loses 0.2 x 2,449.5 x sqrt(1 / 0.66) = 489.9 x 1.230915 = 603.0 -> 603 (>= 25% of 1,000).
    Attackers lose 0.2 x 1,000 x sqrt(0.66) = 200 x 0.812404 = 162.5 -> 162 (162.48).
    """
    state = world()
    city = town(state)
    city.walls, city.walls_max = 20.0, 40.0
    attackers = add(state, "wei", "levy", WEST, 6_000)
    assault_city(MonthContext(state), attackers, city)
    assert city.walls == 0
    assert city.owner == "wei"
    assert city.militia == 397
    assert city.people == 15_000 - 603
    assert attackers.men == 5_838 and attackers.tile == TOWN  # it advances into the city it took


def test_siege_180_militia_holding_keeps_the_city():
    """SIEGE-180: walls 0 but the militia loses under 25% -> not beaten, no fall.

    600 levies vs 1,000 militia (0.6), no walls: weights 600 vs sqrt(1,000 x 600) = 774.6.
    Militia loses 0.2 x 600 x sqrt(1 / 0.6) = 120 x 1.290994 = 154.9 -> 155 (15.5%: holds).
    Levies lose 0.2 x 774.6 x sqrt(0.6) = 154.92 x 0.774597 = 120.0 -> 120.
    """
    state = world()
    city = town(state)
    attackers = add(state, "wei", "levy", WEST, 600)
    assault_city(MonthContext(state), attackers, city)
    assert city.owner == "shu"
    assert city.militia == 845
    assert attackers.men == 480


def test_open_100_a_broken_attacker_does_not_take_the_city():
    """OPEN-100: an attacker that breaks does not take the city even though it beat the militia.

    1,600 levies at morale 28 vs 1,000 militia (0.6), no walls. Levy quality 1 x (0.5 + 28/200) = 0.64.
    weights sqrt(1,600 x 1,000) = 1,264.9 vs 1,000.
    militia loses 0.2 x 1,264.9 x sqrt(0.64 / 0.6) = 252.98 x 1.032796 = 261.3 -> 261 (26%: beaten);
    levies lose 0.2 x 1,000 x sqrt(0.6 / 0.64) = 200 x 0.968246 = 193.6 -> 194 (12.1%),
    morale 28 - 0.75 x 12.125 = 18.9 <= 20: the levies break, and the town stays Shu's.
    """
    state = world()
    city = town(state)
    attackers = add(state, "wei", "levy", WEST, 1_600, morale=28.0)
    result = assault_city(MonthContext(state), attackers, city)
    assert city.militia == 739  # 1,000 - 261
    assert attackers.men == 1_406  # 1,600 - 194
    assert city.owner == "shu"
    assert "breaks" in result and attackers.tile != WEST and attackers.tile != TOWN


def test_siege_190_garrison_destroyed_townspeople_still_hold():
    """SIEGE-190: with the garrison destroyed the city still stands; the next assault must beat the militia."""
    state = world()
    city = town(state)
    gar = add(state, "shu", "levy", TOWN, 150)
    attackers = add(state, "wei", "levy", WEST, 6_000)
    result = assault_city(MonthContext(state), attackers, city)
    assert gar.id not in state.units  # 0.2 x sqrt(6,000 x 150) = 189.7 > 150: destroyed
    assert city.owner == "shu" and city.militia == 1_000
    assert "townspeople" in result
    assault_city(MonthContext(state), attackers, city)  # next month: walls 0, militia beaten
    assert city.owner == "wei"


def test_assault_refusals():
    """An assault needs a melee troop beside an enemy city at war: OrderFailed with a stable code otherwise."""
    state = world()
    city = town(state)
    archers = add(state, "wei", "archer", WEST, 1_000)
    with pytest.raises(OrderFailed) as exc:
        assault_city(MonthContext(state), archers, city)
    assert exc.value.code == "not_melee"
    far = add(state, "wei", "levy", TWO_WEST, 1_000)
    with pytest.raises(OrderFailed) as exc:
        assault_city(MonthContext(state), far, city)
    assert exc.value.code == "out_of_reach"
    own = add(state, "shu", "levy", EAST, 1_000)
    with pytest.raises(OrderFailed) as exc:
        assault_city(MonthContext(state), own, city)
    assert exc.value.code == "own_city"


# --- blockade (SIEGE-150..170, OPEN-23, OPEN-42, OPEN-100) --------------------------------------------------


def test_siege_150_blockade_needs_garrison_plus_militia_on_its_land():
    """SIEGE-150, OPEN-23: enemy men on the city's land within 2 >= garrison + standing militia blockade it."""
    state = world()
    city = town(state)
    add(state, "shu", "spearman", TOWN, 1_000)
    west = add(state, "wei", "levy", WEST, 1_500)
    assert not is_blockaded(state, city)  # 1,500 < 1,000 + 1,000
    add(state, "wei", "catapult", EAST, 500)  # siege trains count (SIEGE-150)
    assert is_blockaded(state, city)  # 2,000 >= 2,000
    city.militia = 600.0  # OPEN-23: the militia standing now counts, not the full militia
    west.men = 1_100
    assert is_blockaded(state, city)  # 1,600 >= 1,600


def test_siege_150_blockade_with_the_units_by_tile_index_is_the_full_scan():
    """SIEGE-150, OPEN-23: besiegers, the threshold and the blockade read through units_near (the phases' index of
    units by tile) equal the scan of every unit, for every city, also after troops move, grow, change or leave."""
    state = world(wu=True)
    city = town(state)
    add(state, "shu", "spearman", TOWN, 1_000)
    add(state, "shu", "levy", TOWN, 2_000)
    west = add(state, "wei", "levy", WEST, 1_500)
    add(state, "wu", "catapult", EAST, 500)
    add(state, "wei", "levy", TWO_WEST, 900)
    add(state, "wei", "scout", NE)

    def agree() -> None:
        near = units_near(state)
        for c in state.cities.values():
            assert besiegers(state, c, near) == besiegers(state, c)
            assert blockade_threshold(state, c, near) == blockade_threshold(state, c)
            assert is_blockaded(state, c, near) == is_blockaded(state, c)

    agree()
    assert [u.id for u in besiegers(state, city, units_near(state))] == sorted(u.id for u in besiegers(state, city))
    west.q, west.r = NE
    west.men = 4_000
    agree()
    state.owner[state.map.index(*TWO_WEST)] = city.id
    del state.units[min(u.id for u in state.units.values() if u.tile == TOWN)]
    agree()
    assert is_blockaded(state, city, units_near(state))


def test_siege_150_only_its_own_land_within_2_counts():
    """SIEGE-150: troops off the city's land, or in their own city, press nothing."""
    state = world()
    city = town(state)
    city.militia = 500.0
    add(state, "wei", "levy", TWO_WEST, 5_000)  # 2 tiles away but not the town's land
    assert not is_blockaded(state, city)
    i = state.map.index(*TWO_WEST)
    state.owner[i] = city.id  # now it is the town's land
    assert is_blockaded(state, city)


def test_open_42_civilians_do_not_blockade():
    """OPEN-42: only fighting troops count toward a blockade (a wagon does not)."""
    state = world()
    city = town(state)
    city.militia = 10.0
    add(state, "wei", "wagon", WEST, 0, cargo=60)
    assert not is_blockaded(state, city)


def test_open_100_blockade_needs_at_least_one_man():
    """OPEN-100: a city with no garrison and no militia is not blockaded by nobody."""
    state = world()
    city = town(state)
    city.militia = 0.0
    assert not is_blockaded(state, city)


def test_siege_160_blockade_effects_on_walls_and_flag():
    """SIEGE-160: a blockaded city is named in ctx.blockaded (before production) and its walls lose 5 a month."""
    state = world()
    city = town(state)
    city.walls, city.walls_max = 40.0, 40.0
    city.militia = 100.0
    add(state, "wei", "levy", WEST, 2_000)
    ctx = MonthContext(state)
    towers_phase(ctx)
    assert city.id in ctx.blockaded
    walls_phase(ctx)
    militia_phase(ctx)
    # towers: 2% x 40/100 = 0.8% of 2,000 = 16 killed; walls 40 - 5 = 35
    assert city.walls == 35
    assert city.last["blockaded"] is True
    assert state.units[max(state.units)].men == 1_984


def test_siege_170_too_few_do_nothing():
    """SIEGE-170: fewer enemy men than the threshold do nothing to the city: walls repair, no blockade."""
    state = world()
    city = town(state)
    city.walls, city.walls_max = 30.0, 40.0
    add(state, "wei", "levy", WEST, 500)
    ctx = MonthContext(state)
    end_of_month(state, ctx)
    assert city.id not in ctx.blockaded
    assert city.walls == 35


def test_siege_220_no_blockade_at_peace():
    """SIEGE-220, DIPLO-110: blockades act only against empires at war with the owner."""
    state = world(war=False)
    city = town(state)
    i = state.map.index(*WEST)
    assert int(state.owner[i]) == city.id
    add(state, "wei", "levy", WEST, 9_000)
    assert not is_blockaded(state, city)


# --- capture (SIEGE-210, CONQ-090, OPEN-1, OPEN-60) ---------------------------------------------------------


def test_siege_210_open_1_open_60_capture_takes_grain_and_store():
    """SIEGE-210, OPEN-1, OPEN-60, CONQ-090: grain stays for the captor; the store goes to the captor's capital.

    Spies of the loser inside are captured, its siege trains and colonists destroyed, its wagons taken.
    """
    state = world()
    city = town(state)
    city.store = 37.0
    city.queue = []
    wei_capital = state.cities[state.kingdoms["wei"].capital_id]
    cats = add(state, "shu", "catapult", TOWN, 300)
    cols = add(state, "shu", "colonists", TOWN, 5_000, cargo=20)
    state.spies.append(StationedSpy("shu", city.id, 3))
    state.spies.append(StationedSpy("wei", city.id, 3))
    city.militia = 0.0
    attackers = add(state, "wei", "levy", WEST, 2_000)
    assault_city(MonthContext(state), attackers, city)
    assert city.owner == "wei"
    assert city.grain == 200  # the granary stays with the city
    assert city.store == 0 and wei_capital.store == 37
    assert cats.id not in state.units and cols.id not in state.units
    assert [s.owner for s in state.spies if s.city_id == city.id] == ["wei"]


def test_open_60_wagon_in_a_falling_city_is_taken():
    """OPEN-60: a wagon inside a falling city is captured with its grain."""
    state = world()
    city = town(state)
    city.militia = 0.0
    wagon = add(state, "shu", "wagon", TOWN, 0, cargo=45.0)
    attackers = add(state, "wei", "levy", WEST, 2_000)
    assault_city(MonthContext(state), attackers, city)
    assert wagon.owner == "wei" and wagon.cargo == 45


# --- the whole siege, month by month ------------------------------------------------------------------------


def test_siege_worked_example_8_catapults_6000_heavy_infantry():
    """SIEGE-110, SIEGE-120, SIEGE-180, OPEN-11, OPEN-12, OPEN-13: 8 catapults and 6,000 heavy infantry against a walls-100 town.

    Shu's town: 15,000 people, walls 100, 2,000 spearmen (untrained, morale 100, no general) and full militia
    1,000. Wei: 800 crew (8 engines) two tiles west, 6,000 heavy infantry beside the town. Each month the
    engines shoot, then the infantry assault (heavy infantry vs spearmen x1.5: attack 1.5 x 1.5 = 2.25).

    Month 1. Volley: walls 100 - 80 = 20; 8 x 15 = 120 spearmen killed -> 1,880 (6% lost: morale 100 - 4.5 = 95.5).
      Assault: battering 5 x 6 = 30 -> walls 0; the garrison fights at walls 20 (x1.1):
      q_def = 1.3 x 1.1 x (0.5 + 95.5/200 = 0.9775) = 1.397825; q_att = 2.25.
      weights: sqrt(6,000 x 1,880) = 3,358.57 vs 1,880.
      spearmen lose 0.2 x 3,358.57 x sqrt(2.25 / 1.397825) = 671.71 x 1.268717 = 852.2 -> 852 -> 1,028 left;
        morale 95.5 - 0.75 x 45.32 = 61.51 (a garrison never breaks).
      infantry lose 0.2 x 1,880 x sqrt(1.397825 / 2.25) = 376 x 0.788198 = 296.4 -> 296 -> 5,704; morale 96.3.
      Towers: walls 0, none. Blockade: 5,704 on its land >= 1,028 + 1,000: blockaded, walls stay 0.
    Month 2. Volley: 120 more -> 908; morale 61.51 - 0.75 x 11.67 = 52.76; XP 3 -> level 1 (x1.06).
      Assault at walls 0: q_def = 1.3 x 1.06 x (0.5 + 0.2638) = 1.052487; q_att = 2.25 x (0.5 + 96.3/200) = 2.208375.
      weights sqrt(5,704 x 908) = 2,275.79 vs 908.
      spearmen lose 0.2 x 2,275.79 x sqrt(2.208375 / 1.052487) = 455.16 x 1.448534 = 659.3 -> 659 -> 249.
      infantry lose 0.2 x 908 x sqrt(1.052487 / 2.208375) = 181.6 x 0.690351 = 125.4 -> 125 -> 5,579.
    Month 3. Volley: 120 -> 129 left; assault: the garrison can lose no more than its 129 men -> destroyed.
      infantry: morale after month 2: 96.3 - 0.75 x 2.19 = 94.66; q_att = 2.25 x 0.97328 = 2.18988;
      garrison 129 at morale 0 (clamped), level 1: q_def = 1.3 x 1.06 x 0.5 = 0.689;
      infantry lose 0.2 x 129 x sqrt(0.689 / 2.18988) = 25.8 x 0.560916 = 14.47 -> 14 -> 5,565.
    Month 4. Volley on the militia: 1,000 - 120 = 880 (people 15,000 - 120 = 14,880).
      Assault: infantry XP 3 -> level 1; morale 94.66 - 0.75 x 0.251 = 94.47; no counter against militia:
      q_att = 1.5 x 1.06 x 0.97234 = 1.54602. weights sqrt(5,565 x 880) = 2,212.96 vs 880; militia 0.6.
      militia loses 0.2 x 2,212.96 x sqrt(1.54602 / 0.6) = 442.59 x 1.605193 = 710.5 -> 710 (80%: beaten) -> 170;
      walls 0: THE TOWN FALLS (people 14,880 - 710 = 14,170).
      Infantry lose 0.2 x 880 x sqrt(0.6 / 1.54602) = 176 x 0.622971 = 109.6 -> 110 -> 5,455.
      Month end: the militia regrows 20% of its full 1,000: 170 + 200 = 370.
    """
    state = world()
    city = town(state)
    city.walls, city.walls_max = 100.0, 100.0
    spears = add(state, "shu", "spearman", TOWN, 2_000)
    heavy = add(state, "wei", "heavy_infantry", WEST, 6_000)
    cats = add(state, "wei", "catapult", TWO_WEST, 800)

    def month() -> MonthContext:
        ctx = MonthContext(state)
        shoot_city(ctx, cats, city)
        assault_city(ctx, heavy, city)
        end_of_month(state, ctx)
        state.month += 1
        return ctx

    ctx = month()
    assert spears.men == 1_028 and heavy.men == 5_704
    assert spears.morale == pytest.approx(61.51, abs=0.01)
    assert city.walls == 0 and city.id in ctx.blockaded and city.militia == 1_000
    ctx = month()
    assert spears.men == 249 and heavy.men == 5_579
    ctx = month()
    assert spears.id not in state.units and heavy.men == 5_565
    assert city.owner == "shu" and city.militia == 1_000
    ctx = month()
    assert city.owner == "wei" and heavy.tile == TOWN
    assert city.militia == 370 and city.people == 14_170
    assert heavy.men == 5_455
    assert cats.men == 800  # towers never fired: the walls were down each time they would have
    assert math.isclose(city.walls, 0)
