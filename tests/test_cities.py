"""The cities' month phases: production and upkeep, queues and recruits, the granary, growth and land.

Figures are worked by hand from the rules in the comments. The reference capital (tests.test_economy) makes
13.75 dan, 12 production and grows 84 people a month with its 3,000 levies (upkeep 3 + 0.5 = 3.5).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kingdoms import ruledata as rd
from kingdoms.engine import cities
from kingdoms.engine import economy as eco
from kingdoms.engine.context import MonthContext
from kingdoms.engine.land import founding_problem
from kingdoms.gamemap import GameMap
from kingdoms.setup import found_ruin
from kingdoms.state import GameState, Improvement, QueueEntry

from .builders import add, add_city
from .test_economy import CENTRE, axial_map, make_state, reference_state


def run(state: GameState, *slots: str, blockaded: set[int] | None = None) -> MonthContext:
    """Run some of the economy's phases on `state` (in the order given) with one month context."""
    ctx = MonthContext(state)
    ctx.blockaded = set(blockaded or ())
    phases = {"production": cities.production_phase, "grain": cities.grain_phase, "growth": cities.growth_phase}
    for slot in slots:
        phases[slot](ctx)
    return ctx


ALL = ("production", "grain", "growth")


# --- the month of the reference capital ---------------------------------------------------------------------


def test_city_110_month_one_of_the_reference_capital() -> None:
    """CITY-110 in order, RECRUIT-190, BUILD-210, CITY-130.
    production: 12 - upkeep 3.5 = 8.5 -> empty queue -> store 8.5.
    grain: 150 + 13.75 = 163.75; levies eat 3 -> 160.75 (rations already full: 12 = 4 months); people eat 9 ->
    151.75; growth 0.35 dan -> 151.4 dan and 15,000 + 84 = 15,084 people; happiness stays 100.
    """
    state, city = reference_state()
    levy = next(iter(state.units.values()))
    ctx = run(state, *ALL)
    led = city.last
    assert led["production"] == 12 and led["upkeep_share"] == pytest.approx(3.5) and led["available"] == pytest.approx(8.5)
    assert city.store == pytest.approx(8.5)
    assert led["harvest"] == pytest.approx(13.75) and led["troops_ate"] == pytest.approx(3.0)
    assert led["rations"] == 0.0 and led["people_ate"] == pytest.approx(9.0) and led["net"] == pytest.approx(1.75)
    assert ctx.fed[levy.id] == pytest.approx(3.0)
    assert led["growth"] == 84 and led["growth_dan"] == pytest.approx(0.35)
    assert city.grain == pytest.approx(151.4)
    assert city.people == 15_084
    assert city.happiness == 100


def test_city_110_whole_month_through_resolve_month() -> None:
    """CITY-110: the same month through the engine's month (all areas loaded): store 8.5, 15,084 people, and
    151.4 dan in the granary (the levies in the city are fed from it, no other area touches it)."""
    from kingdoms.engine.month import resolve_month

    state, _ = reference_state()
    cid = next(iter(state.cities))
    res = resolve_month(state, {})
    city = res.state.cities[cid]
    assert city.store == pytest.approx(8.5)
    assert city.people == 15_084
    assert city.grain == pytest.approx(151.4)
    assert res.state.month == 2


def test_city_100_110_harvest_beyond_capacity_is_lost() -> None:
    """CITY-100, CITY-110: 295 + 13.75 -> capped at 300 (8.75 lost); -3 levies -> 297; -9 people -> 288; growth 0.35
    -> 287.65."""
    state, city = reference_state()
    city.grain = 295.0
    run(state, "grain", "growth")
    assert city.last["harvest_lost"] == pytest.approx(8.75)
    assert city.grain == pytest.approx(287.65)


def test_open_7_rations_refill_only_from_above_a_quarter_of_capacity() -> None:
    """SUPPLY-060, OPEN-7: blockaded (no harvest), 80 dan, levies with no rations: eat 3 -> 77; refill wants a
    month (3) but only 77 - 75 = 2 is above the reserve -> rations 2, 75 left; people eat 9 -> 66."""
    state, city = reference_state()
    levy = next(iter(state.units.values()))
    levy.rations = 0.0
    city.grain = 80.0
    run(state, "grain", blockaded={city.id})
    assert levy.rations == pytest.approx(2.0)
    assert city.last["rations"] == pytest.approx(2.0)
    assert city.grain == pytest.approx(66.0)


def test_open_99_short_granary_shares_in_proportion() -> None:
    """OPEN-99: 2 dan for 3,000 levies (need 3) and 1,000 on G(5,4) (need 1): half each -> 1.5 and 0.5; the people
    (need 9) get nothing: short 1 -> happiness 100 - 30 = 70, 5% x 15,000 = 750 die or flee (CITY-190)."""
    state, city = reference_state()
    big = next(iter(state.units.values()))
    small = add(state, "wei", "levy", (5, 4), 1_000, rations=4.0)
    city.grain = 2.0
    ctx = run(state, "grain", blockaded={city.id})
    assert ctx.fed[big.id] == pytest.approx(1.5) and ctx.fed[small.id] == pytest.approx(0.5)
    assert city.grain == 0.0
    assert city.happiness == pytest.approx(70.0)
    assert city.people == 14_250
    assert city.last["short"] == pytest.approx(1.0) and city.last["starved"] == 750


def test_supply_040_troops_fed_by_a_camp_take_only_the_rest_and_do_not_refill_here() -> None:
    """SUPPLY-040, CITY-110: a camp already gave the levies 2 of their 3 dan: the granary gives 1 and no refill."""
    state, city = reference_state()
    levy = next(iter(state.units.values()))
    levy.rations = 0.0
    ctx = MonthContext(state)
    ctx.fed[levy.id] = 2.0
    cities.grain_phase(ctx)
    assert ctx.fed[levy.id] == pytest.approx(3.0)
    assert city.last["troops_ate"] == pytest.approx(1.0)
    assert levy.rations == 0.0


def test_city_190_people_short_lose_happiness_and_people() -> None:
    """CITY-190: blockaded, 4.5 dan for 9 needed: short 0.5 -> happiness 100 - 15 = 85; 5% x 0.5 x 15,000 = 375
    people die or flee."""
    state, city = reference_state(levies=False)
    city.grain = 4.5
    run(state, "grain", blockaded={city.id})
    assert city.happiness == pytest.approx(85.0)
    assert city.people == 14_625
    assert city.last["people_ate"] == pytest.approx(4.5)


def test_city_180_happiness_rises_10_when_fed_up_to_100() -> None:
    """CITY-180, OPEN-58: fed in full: 50 -> 60; 95 -> 100 (capped)."""
    state, city = reference_state()
    city.happiness = 50.0
    run(state, "grain")
    assert city.happiness == 60.0
    city.happiness = 95.0
    city.last["month"] = -1  # a new month's ledger
    run(state, "grain")
    assert city.happiness == 100.0


def test_city_200_unhappy_city_revolts_to_bandits_and_troops_inside_are_lost() -> None:
    """CITY-200, OPEN-15, OPEN-16: happiness 30, nothing to eat (short 1): 30 - 30 = 0 <= 20 -> bandits; the wei levies
    inside are lost; a capital in the same plight starves but stays."""
    state = make_state(axial_map({(2, 2): "G", (3, 6): "G"}))
    capital = add_city(state, "wei", (3, 6), 15_000, grain=0, capital=True)
    town = add_city(state, "wei", (2, 2), 10_000, grain=0)
    inside = add(state, "wei", "levy", (2, 2), 2_000, months=0)
    for c in (capital, town):
        c.happiness = 30.0
    run(state, "grain", blockaded={capital.id, town.id})
    assert town.owner == rd.BANDITS and town.last["revolted"]
    assert inside.id not in state.units
    assert capital.owner == "wei" and capital.happiness == 0.0
    assert capital.people == 15_000 - 750  # CITY-200: it starves the same (5% x 1 x 15,000)


def test_city_200_the_owner_is_told_of_the_revolt_once() -> None:
    """CITY-200, OPEN-19: the revolt is told once to its owner ("goes over to the bandits" appears in one of the
    events it sees); the second event lists only what is lost with the city (the levies, the burned grain)."""
    state = make_state(axial_map({(2, 2): "G", (3, 6): "G"}))
    add_city(state, "wei", (3, 6), 15_000, grain=0, capital=True)
    town = add_city(state, "wei", (2, 2), 10_000, grain=0)
    add(state, "wei", "levy", (2, 2), 2_000, months=0)
    town.happiness = 30.0
    ctx = run(state, "grain", blockaded={town.id})
    told = [e.text for e in ctx.events if e.seen_by("wei")]
    assert sum(t.count("goes over to the bandits") for t in told) == 1, told
    (lost,) = [e.text for e in ctx.events if e.kind == "city_lost"]
    assert "levy 2,000" in lost and town.name in lost


def test_city_220_blockaded_city_harvests_nothing() -> None:
    """CITY-220, SIEGE-160: blockaded: harvest 0 (13.75 unharvested); 150 - 3 levies - 9 people = 138; no growth."""
    state, city = reference_state()
    run(state, "grain", "growth", blockaded={city.id})
    assert city.last["harvest"] == 0.0 and city.last["harvest_full"] == pytest.approx(13.75)
    assert city.grain == pytest.approx(138.0)
    assert city.people == 15_000 and city.last["no_growth"] == "blockaded"


def test_conq_030_restless_city_makes_nothing_and_harvests_half() -> None:
    """CONQ-030, BUILD-220: restless: no production (so no upkeep share), half harvest 6.875:
    150 + 6.875 - 9 = 147.875; no growth. Its kingdom's only city making 0, the levies' upkeep 3.5 is all
    unpaid: 3,500 > 3,000 men desert (RECRUIT-200), so none is left to eat."""
    state, city = reference_state()
    city.restless = True
    ctx = run(state, *ALL)
    assert city.last["production"] == 0 and city.last["available"] == 0.0 and city.store == 0.0
    assert city.last["harvest"] == pytest.approx(6.875)
    assert not state.units and [e.data["men"] for e in ctx.events if e.kind == "desertion"] == [3_000]
    assert city.grain == pytest.approx(147.875)
    assert city.people == 15_000


# --- production, upkeep, desertion --------------------------------------------------------------------------


def test_recruit_190_upkeep_taken_as_the_same_share_of_every_city() -> None:
    """RECRUIT-190: output 12 + 1 = 13, upkeep 3.5: capital keeps 12 x 9.5/13 = 8.769, village 9.5/13 = 0.731."""
    state, city = reference_state()
    village = add_city(state, "wei", (1, 1), 1_500)
    run(state, "production")
    assert city.store == pytest.approx(12 * 9.5 / 13)
    assert village.store == pytest.approx(9.5 / 13)
    assert village.last["upkeep_share"] == pytest.approx(3.5 / 13)


def test_build_220_blockade_halves_what_is_left_after_upkeep() -> None:
    """BUILD-220, SIEGE-160: (12 - 3.5) / 2 = 4.25 reaches the queue; 4.25 is lost to the blockade."""
    state, city = reference_state()
    run(state, "production", blockaded={city.id})
    assert city.last["available"] == pytest.approx(4.25) and city.last["blockade_loss"] == pytest.approx(4.25)
    assert city.store == pytest.approx(4.25)


def test_recruit_200_unpaid_soldiers_desert_in_proportion() -> None:
    """RECRUIT-200, OPEN-32: output 12; 8,000 + 4,000 levies cost 12 + 1 = 13: shortfall 1 -> 1,000 men desert,
    8,000 x 1/12 = 666.7 -> 667 and 4,000 x 1/12 = 333.3 -> 333; nothing is left to build with."""
    state, city = reference_state(levies=False)
    a = add(state, "wei", "levy", CENTRE, 8_000, rations=32.0)
    b = add(state, "wei", "levy", (5, 4), 4_000, rations=16.0)
    ctx = run(state, "production")
    assert (a.men, b.men) == (7_333, 3_667)
    assert city.store == 0.0
    assert [e for e in ctx.events if e.kind == "desertion"][0].data["men"] == 1_000


def test_recruit_200_open_32_deserters_add_up_exactly_by_largest_remainder() -> None:
    """RECRUIT-200, OPEN-32: 1,000 + 1,500 + 8,500 levies cost 11 + 1.5 = 12.5 against an output of 12: 500 men
    desert. Shares of 500 x men / 11,000: 45.45, 68.18, 386.36. Rounded one by one they make 45 + 68 + 386 = 499;
    by largest remainder the floors (499) get the one man left on the biggest remainder (.45): 46 + 68 + 386."""
    state, _city = reference_state(levies=False)
    a = add(state, "wei", "levy", CENTRE, 1_000, rations=4.0)
    b = add(state, "wei", "levy", (5, 4), 1_500, rations=6.0)
    c = add(state, "wei", "levy", (3, 4), 8_500, rations=34.0)
    ctx = run(state, "production")
    assert (1_000 - a.men, 1_500 - b.men, 8_500 - c.men) == (46, 68, 386)
    assert [e for e in ctx.events if e.kind == "desertion"][0].data["men"] == 500


def test_build_020_030_palisade_gives_walls_40_and_stone_walls_raise_the_ceiling() -> None:
    """BUILD-020, BUILD-030: store 10 + 8.5 pays the palisade (10): walls 40, ceiling 40, 8.5 stored; then 25 more in
    store pays the walls: ceiling 100, walls still 40 (they rise +5 a month in the sieges' repairs)."""
    state, city = reference_state()
    city.store = 10.0
    city.queue = [QueueEntry("palisade")]
    run(state, "production")
    assert (city.walls, city.walls_max) == (40.0, 40.0) and "palisade" in city.buildings
    assert city.store == pytest.approx(8.5)
    city.store = 25.0
    city.queue = [QueueEntry("walls")]
    city.last["month"] = -1
    run(state, "production")
    assert (city.walls, city.walls_max) == (40.0, 100.0) and "walls" in city.buildings



def test_build_020_030_open_70_the_ceiling_follows_the_buildings_and_the_ruin() -> None:
    """BUILD-020, BUILD-030, OPEN-70: the wall ceiling is read from the buildings: none 0, a palisade 40, stone walls
    100; the Ruin's is 50 with no building, stays 50 when a captor adds a palisade and rises to 100 with stone walls."""
    assert (rd.walls_ceiling([]), rd.walls_ceiling(["palisade"]), rd.walls_ceiling(["palisade", "walls"])) == (0, 40, 100)
    state = make_state(axial_map({(4, 4): "G"}))
    ruin = found_ruin(state, (4, 4))
    assert (ruin.walls, ruin.walls_max) == (50.0, 50.0)
    ruin.owner, ruin.store = "wei", 10.0
    ruin.queue = [QueueEntry("palisade")]
    run(state, "production")
    assert ruin.buildings == ["palisade"] and (ruin.walls, ruin.walls_max) == (50.0, 50.0)
    ruin.store, ruin.queue = 25.0, [QueueEntry("walls")]
    ruin.last["month"] = -1
    run(state, "production")
    assert ruin.buildings == ["palisade", "walls"] and (ruin.walls, ruin.walls_max) == (50.0, 100.0)

def test_build_060_military_buildings_are_public_news() -> None:
    """BUILD-060: a finished barracks is told to every kingdom (audience None); a palisade only to its owner."""
    state, city = reference_state()
    city.store = 40.0
    city.queue = [QueueEntry("palisade"), QueueEntry("barracks")]
    ctx = run(state, "production")
    news = {e.data.get("item"): e for e in ctx.events if e.data.get("item")}
    assert news["barracks"].audience is None and news["barracks"].kind == "military_building"
    assert news["palisade"].audience == ["wei"]
    assert city.buildings == ["palisade", "barracks"]


def test_build_080_improvement_is_placed_on_its_tile() -> None:
    """BUILD-080: a queued farm on (5,3) paid in full becomes an improvement there."""
    state, city = reference_state()
    city.store = 15.0
    city.queue = [QueueEntry("farm", tile=(5, 3))]
    run(state, "production")
    assert [(i.q, i.r, i.kind) for i in city.improvements] == [(5, 3, "farm")]


def test_build_210_empty_queue_turns_overflow_into_grain() -> None:
    """BUILD-210: store 58 + 8.5 = 66.5: keep 60, 6.5 / 4 = 1.625 dan into the granary (150 -> 151.625); with a
    full granary the overflow is lost."""
    state, city = reference_state()
    city.store = 58.0
    run(state, "production")
    assert city.store == 60.0 and city.grain == pytest.approx(151.625)
    assert city.last["to_grain"] == pytest.approx(1.625)
    state2, city2 = reference_state()
    city2.store, city2.grain = 58.0, 300.0
    run(state2, "production")
    assert city2.grain == 300.0 and city2.last["store_lost"] == pytest.approx(6.5)


def test_city_270_store_kept_up_to_the_cap() -> None:
    """CITY-270, OPEN-34: store 100 + 8.5; levy:5000 raises its first batch of 2,000 for 10 -> 98.5 left; the next
    batch at 13,000 people is 1,800 men = 9, so the cap is max(2 x 12, 9) = 24: store 24, 74.5 lost."""
    state, city = reference_state()
    city.store = 100.0
    city.queue = [QueueEntry("levy", men=5_000)]
    run(state, "production")
    assert city.store == pytest.approx(24.0)
    assert city.last["store_lost"] == pytest.approx(74.5)


# --- recruits -----------------------------------------------------------------------------------------------


def test_recruit_140_batches_within_the_drill_cap_joining_the_garrison() -> None:
    """RECRUIT-140, RECRUIT-150, RECRUIT-160: levy:5000 in a 15,000 town (drill 2,000): month 1 raises 2,000 for 2 x 5 = 10 out of
    store 20 + 8.5; they join the 3,000 levies in the city (5,000 men) bringing 2 months = 4 dan from above the
    reserve (150 - 75): rations 12 -> 16, granary 146; people 13,000; 3,000 still to raise."""
    state, city = reference_state()
    levy = next(iter(state.units.values()))
    city.store = 20.0
    city.queue = [QueueEntry("levy", men=5_000)]
    run(state, "production")
    assert levy.men == 5_000 and levy.rations == pytest.approx(16.0)
    assert city.grain == pytest.approx(146.0) and city.people == 13_000
    assert city.queue[0].men == 3_000
    assert city.store == pytest.approx(18.5)  # 28.5 - 10, under the cap max(24, 9)
    assert len(state.units) == 1


def test_build_050_recruit_160_barracks_xp_is_averaged_into_the_troop() -> None:
    """BUILD-050, OPEN-25, RECRUIT-160: with a barracks recruits have XP 3 (level 1); 2,000 of them joining 3,000 at
    XP 0 make (0 x 3,000 + 3 x 2,000) / 5,000 = 1.2 XP: the troop's level stays 0."""
    state, city = reference_state()
    levy = next(iter(state.units.values()))
    city.buildings.append("barracks")
    city.store = 20.0
    city.queue = [QueueEntry("levy", men=2_000)]
    run(state, "production")
    assert levy.xp == pytest.approx(1.2) and rd.troop_level(levy.xp) == 0
    assert city.queue == []


def test_recruit_150_170_new_troop_in_an_empty_city_draws_four_months() -> None:
    """RECRUIT-150, RECRUIT-170, OPEN-26: no troop in the city: 2,000 spearmen (barracks) form a troop there at XP 3, morale
    100, with 4 months = 8 dan (150 - 75 above the reserve covers it): granary 142; price 2 x 8 = 16."""
    state, city = reference_state(levies=False)
    city.buildings.append("barracks")
    city.store = 16.0
    city.queue = [QueueEntry("spearman", men=2_000)]
    run(state, "production")
    (unit,) = state.units.values()
    assert (unit.type, unit.tile, unit.men, unit.xp, unit.morale) == ("spearman", CENTRE, 2_000, 3.0, 100.0)
    assert unit.rations == pytest.approx(8.0) and city.grain == pytest.approx(142.0)


@pytest.mark.parametrize(("grain", "rations"), [(80.0, 5.0), (77.0, 4.0), (3.0, 3.0)])
def test_open_26_new_troop_rations_at_least_two_months(grain: float, rations: float) -> None:
    """OPEN-26: 2,000 men want 8 dan from above the 75 reserve: 80 -> 5 (5 >= the 4 of 2 months); 77 -> only 2 above,
    so 2 months = 4 from below the reserve; 3 dan in store -> all 3."""
    state, city = reference_state(levies=False)
    city.grain = grain
    city.store = 10.0
    city.queue = [QueueEntry("levy", men=2_000)]
    run(state, "production")
    (unit,) = state.units.values()
    assert unit.rations == pytest.approx(rations)
    assert city.grain == pytest.approx(grain - rations)


def test_recruit_150_new_troop_of_another_type_forms_beside_the_city() -> None:
    """RECRUIT-150: the city holds levies, so 1,000 archers form outside on a free tile; with no foreign troop
    about, the first by lowest r then q is (4,3); a shu troop at (4,2) (beside (4,3), not (5,3)) sends them to (5,3)."""
    for foreign, expect in ((False, (4, 3)), (True, (5, 3))):
        state, city = reference_state()
        if foreign:
            add(state, "shu", "levy", (4, 2), 1_000, months=0)
        city.buildings.append("barracks")
        city.store = 7.0
        city.queue = [QueueEntry("archer", men=1_000)]
        run(state, "production")
        archers = [u for u in state.units.values() if u.type == "archer"]
        assert len(archers) == 1 and archers[0].tile == expect


def test_open_54_a_troop_ordered_away_does_not_take_recruits() -> None:
    """OPEN-54: levies with a standing march out of the city receive no recruits: the new levies form beside it."""
    state, city = reference_state()
    levy = next(iter(state.units.values()))
    levy.standing = {"action": "move", "unit_id": levy.id, "to": [0, 0]}
    city.store = 10.0
    city.queue = [QueueEntry("levy", men=1_000)]
    run(state, "production")
    assert levy.men == 3_000
    assert [u.tile for u in state.units.values() if u.id != levy.id] == [(4, 3)]


def test_open_35_recruits_fill_the_garrison_to_20000_and_the_rest_forms_a_troop() -> None:
    """OPEN-35: 19,000 levies in the city + 2,000 recruits: 1,000 join (20,000), 1,000 form a troop at (4,3).
    (The queue is run with 10 production directly: 19,000 levies' upkeep would eat the capital's output.)"""
    state, city = reference_state()
    levy = next(iter(state.units.values()))
    levy.men = 19_000
    city.queue = [QueueEntry("levy", men=2_000)]
    cities.run_queue(MonthContext(state), city, 10.0, 12)
    assert levy.men == 20_000
    (other,) = [u for u in state.units.values() if u.id != levy.id]
    assert other.men == 1_000 and other.tile == (4, 3)


def test_open_34_batch_waits_for_price_people_and_a_tile() -> None:
    """OPEN-34: a batch waits unpaid when the store cannot cover it, when it would leave the city under 1,500
    people, or when there is no tile for it."""
    state, city = reference_state()
    city.queue = [QueueEntry("levy", men=2_000)]  # 8.5 < 10
    run(state, "production")
    assert city.queue[0].men == 2_000 and "need 10.0 production" in city.last["waiting"]
    assert city.store == pytest.approx(8.5)

    state, city = reference_state(levies=False)
    city.people, city.store = 2_000, 50.0  # drill 1,000: 2,000 - 1,000 < 1,500
    city.queue = [QueueEntry("levy", men=1_000)]
    run(state, "production")
    assert city.queue and "under 1,500 people" in city.last["waiting"] and city.people == 2_000

    state = make_state(axial_map({(4, 4): "G"}))  # mountains all round
    city = add_city(state, "wei", (4, 4), 15_000)
    add(state, "wei", "spearman", (4, 4), 1_000, months=0)
    city.store = 50.0
    city.queue = [QueueEntry("levy", men=1_000)]
    run(state, "production")
    assert city.queue and "no free tile" in city.last["waiting"]


def test_recruit_120_men_come_from_the_people() -> None:
    """RECRUIT-120: 1,000 levies from a 15,000 city leave 14,000."""
    state, city = reference_state()
    city.store = 5.0
    city.queue = [QueueEntry("levy", men=1_000)]
    run(state, "production")
    assert city.people == 14_000


def test_open_88_scout_and_spy_cost_production_only() -> None:
    """OPEN-88: a scout and a spy (10 each) from store 20 + 8.5 appear in the city; no people or grain taken."""
    state, city = reference_state()
    city.store = 20.0
    city.queue = [QueueEntry("scout"), QueueEntry("spy")]
    run(state, "production")
    assert sorted(u.type for u in state.units.values() if u.tile == CENTRE) == ["levy", "scout", "spy"]
    assert city.people == 15_000 and city.grain == 150.0


# --- colonists (CITY-390..410, OPEN-24, OPEN-101) -----------------------------------------------------------


def test_city_390_400_colonists_take_five_months_and_100_production() -> None:
    """CITY-390, CITY-400, OPEN-24: store 100 pays them in month 1, but they are ready only in month 5 (counting the month
    they reached the head); then the city gives 5,000 people and 20 dan, and colonists (5,000, cargo 20) stand in it.
    Meanwhile the city does not grow (CITY-170); nor in the month they are finished (OPEN-101)."""
    state, city = reference_state()
    city.store = 100.0
    city.queue = [QueueEntry("colonists")]
    for month in range(1, 6):
        state.month = month
        run(state, *ALL)
        if month < 5:
            assert city.queue and city.last["growth"] == 0 and city.last["no_growth"] == "raising colonists"
    assert not city.queue
    assert city.last["no_growth"] == "colonists finished this month"
    col = [u for u in state.units.values() if u.type == "colonists"]
    assert len(col) == 1 and col[0].men == 5_000 and col[0].cargo == 20.0 and col[0].tile == CENTRE
    assert city.people == 10_000
    assert city.last["colonists_grain"] == 20.0


def test_city_410_colonists_wait_for_the_grain() -> None:
    """CITY-410: paid and 5 months old, they wait while the granary holds under 20 dan."""
    state, city = reference_state(levies=False)
    city.grain = 10.0
    city.queue = [QueueEntry("colonists", paid=100.0, months=4)]
    run(state, "production")
    assert city.queue and "20 dan" in city.last["waiting"]


def test_open_101_colonists_wait_for_6500_people_and_the_city_grows_toward_it() -> None:
    """OPEN-24, OPEN-101: a 6,000-people city holds its colonists until it has 6,500, and grows meanwhile (at most to
    6,500)."""
    state, city = reference_state(levies=False)
    city.people = 6_000
    city.queue = [QueueEntry("colonists", paid=100.0, months=4)]
    run(state, *ALL)
    assert city.queue and "6,500 people" in city.last["waiting"]
    assert 6_000 < city.people <= 6_500


# --- growth and land ----------------------------------------------------------------------------------------


LAND_TILES = {**{(4, 4): "p", (5, 4): "G", (3, 4): "G", (5, 3): "P", (4, 3): "P", (4, 5): "F", (3, 5): "H"},
              (6, 4): "G", (4, 6): "F"}


def test_city_340_050_land_grows_onto_the_best_free_tile_by_focus() -> None:
    """CITY-340, CITY-050, OPEN-55: 21,600 people with 6 land tiles reach the next threshold; free tiles in reach 2
    beside its land: G(6,4) (food 2), F(4,6) (prod 2), mountains. food -> G(6,4); production -> F(4,6); balanced
    with 6 (even) land tiles takes the food pick G(6,4)."""
    for focus, expect in (("food", (6, 4)), ("production", (4, 6)), ("balanced", (6, 4))):
        state = make_state(axial_map(LAND_TILES))
        city = add_city(state, "wei", CENTRE, 21_600, focus=focus)
        ctx = run(state, "growth")
        assert tuple(city.last["claimed"]) == expect
        assert state.tile_owner_city(*expect) is city
        assert [e.kind for e in ctx.events].count("land_claimed") == 1


def test_city_350_no_tile_below_the_threshold_and_at_most_91() -> None:
    """CITY-350: 21,599 people (< 21,600) claim nothing; 91 tiles held -> no next tile at all."""
    state = make_state(axial_map(LAND_TILES))
    city = add_city(state, "wei", CENTRE, 21_500)
    city.focus = "production"  # growth 0.15 x ... keeps it under the threshold
    run(state, "growth")
    assert city.people < 21_600 and city.last["claimed"] is None
    assert eco.next_tile_at(state, range(91), 0) is None


def test_city_370_hemmed_in_city_claims_nothing() -> None:
    """CITY-370: every free tile in reach is water (not land) or held by another city: hemmed in."""
    tiles = {(4, 4): "G", **{t: "G" for t in ((5, 4), (3, 4), (5, 3), (4, 3), (4, 5), (3, 5))}}
    gm = axial_map(tiles, fill="~")
    state = make_state(gm)
    city = add_city(state, "wei", CENTRE, 30_000)
    run(state, "growth")
    assert city.last["hemmed_in"] and city.last["claimed"] is None
    assert len(state.city_tiles(city.id)) == 7


def test_city_380_a_shrinking_city_keeps_its_land() -> None:
    """CITY-380: people fall to 2,000 (starvation or recruits): every tile stays with the city."""
    state, city = reference_state()
    before = state.city_tiles(city.id)
    city.people = 2_000
    run(state, *ALL)
    assert state.city_tiles(city.id) == before


def test_city_170_restless_city_claims_no_land() -> None:
    """CITY-170: a restless city does not grow, and its land does not follow."""
    state = make_state(axial_map(LAND_TILES))
    city = add_city(state, "wei", CENTRE, 30_000)
    city.restless = True
    run(state, "growth")
    assert city.last["claimed"] is None


# --- conservation over random months (property) -------------------------------------------------------------

LETTERS = "GGGPPFFHMwgpf~"
SPOTS = ((2, 2), (8, 2), (3, 7), (9, 7))
ITEMS = [("levy", 1_500), ("levy", 6_000), ("spearman", 2_000), ("archer", 700), ("colonists", 0), ("palisade", 0),
         ("barracks", 0), ("farm", 0), ("granary", 0), ("scout", 0), ("spy", 0), ("cavalry", 600)]


@st.composite
def worlds(draw: st.DrawFn) -> tuple[GameState, set[int]]:
    """A random 12 x 10 world with up to 4 cities of wei, shu and the bandits, troops anywhere, wars and blockades."""
    letters = draw(st.lists(st.sampled_from(LETTERS), min_size=120, max_size=120))
    rows = ["".join(letters[r * 12:(r + 1) * 12]) for r in range(10)]
    rows = [row.replace("w", "g") for row in rows]
    gm = GameMap.from_rows(rows)
    state = make_state(gm, ("wei", "shu"), month=draw(st.integers(1, 60)))
    if draw(st.booleans()):
        state.wars.append(["shu", "wei"])
    for q, r in SPOTS:
        if founding_problem(state, q, r) is not None or not draw(st.booleans()):
            continue
        owner = draw(st.sampled_from(["wei", "wei", "shu", rd.BANDITS]))
        people = draw(st.integers(1_500, 60_000))
        city = add_city(state, owner, (q, r), people, grain=0, capital=owner != rd.BANDITS and
                        state.kingdoms[owner].capital_id is None and draw(st.booleans()), focus=draw(
                            st.sampled_from(rd.FOCUSES))) if owner != rd.BANDITS else None
        if city is None:
            from kingdoms.engine.land import found_city
            city = found_city(state, rd.BANDITS, q, r, people=people, grain=0, name=f"Bandit {q},{r}")
        if draw(st.booleans()):
            sites = eco.free_sites(state, city, "granary")
            if sites:
                city.improvements.append(Improvement(*sites[0], "granary"))
        city.grain = draw(st.floats(0, eco.granary_capacity(city)))
        city.store = draw(st.floats(0, 150))
        city.happiness = draw(st.floats(0, 100))
        city.restless = owner != rd.BANDITS and draw(st.integers(0, 4)) == 0
        if draw(st.booleans()):
            city.buildings.append("barracks")
        for item, men in draw(st.lists(st.sampled_from(ITEMS), max_size=4)):
            if item in ("farm", "granary"):
                sites = eco.free_sites(state, city, item)
                if not sites or (item == "granary" and any(i.kind == "granary" for i in city.improvements)):
                    continue
                city.queue.append(QueueEntry(item, tile=sites[0]))
            elif item in ("palisade", "barracks") and (item in city.buildings or any(e.item == item for e in city.queue)):
                continue
            else:
                city.queue.append(QueueEntry(item, men=men, paid=draw(st.sampled_from([0.0, 50.0, 100.0])),
                                             months=draw(st.integers(0, 6))))
    if not state.cities:
        return state, set()
    tiles = [t for c in state.cities.values() for t in state.city_tiles(c.id)]
    for _ in range(draw(st.integers(0, 8))):
        q, r = draw(st.sampled_from(tiles))
        owner = draw(st.sampled_from(["wei", "shu", rd.BANDITS]))
        utype = draw(st.sampled_from(["levy", "spearman", "archer", "catapult", "colonists", "scout"]))
        men = draw(st.integers(100, 20_000)) if rd.UNITS[utype].kind != "agent" else 0
        add(state, owner, utype, (q, r), men, rations=draw(st.floats(0, 4 * men / 1000)))
    blockaded = {cid for cid in state.cities if draw(st.integers(0, 4)) == 0}
    return state, blockaded


def _totals(state: GameState) -> tuple[int, float]:
    fighting = [u for u in state.units.values() if u.spec.fighting]
    return sum(u.men for u in fighting), sum(u.rations for u in fighting)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds())
def test_conservation_of_grain_people_and_production(world: tuple[GameState, set[int]]) -> None:
    """CITY-110..270, RECRUIT-110..200: over a random month nothing is created or lost except by a stated rule.

    For every city: people, granary and store change by exactly the flows its ledger records; the grain the
    troops ate equals what the granaries gave; soldiers and rations change by exactly the recruits, their
    rations, the refills and the men who deserted or were lost in a revolt.
    """
    state, blockaded = world
    before = {c.id: (c.people, c.grain, c.store) for c in state.cities.values()}
    men0, _ = _totals(state)
    ctx = MonthContext(state)
    ctx.blockaded = set(blockaded)
    cities.production_phase(ctx)
    deserted = sum(e.data["men"] for e in ctx.events if e.kind == "desertion")
    broken = {uid for e in ctx.events if e.kind == "desertion" for uid in e.data["broken"]}
    men1, rations1 = _totals(state)
    recruited = sum(c.last["recruited"] for c in state.cities.values())
    assert men1 == men0 + recruited - deserted
    assert not broken & set(state.units)
    units1 = {u.id: (u.men, u.rations) for u in state.units.values() if u.spec.fighting}
    fed0 = dict(ctx.fed)
    cities.grain_phase(ctx)
    cities.growth_phase(ctx)
    for cid, (people, grain, store) in before.items():
        c = state.cities[cid]
        led = c.last
        assert c.people == people - led["recruited"] - led["colonists_people"] - led["starved"] + led["growth"]
        assert c.grain == pytest.approx(
            grain - led["recruit_rations"] - led["colonists_grain"] + led["to_grain"] + led["harvest"]
            - led["harvest_lost"] - led["troops_ate"] - led["rations"] - led["people_ate"] - led["grain_burned"]
            - led["growth_dan"], abs=1e-6)
        if not led["revolted"]:
            assert c.store == pytest.approx(store + led["available"] - led["spent"] - led["store_lost"]
                                            - led["to_grain_prod"], abs=1e-6)
        assert led["available"] == pytest.approx(led["production"] - led["upkeep_share"] - led["blockade_loss"])
        assert c.grain >= -1e-9 and c.store >= -1e-9 and c.people >= 0
        assert c.grain <= eco.granary_capacity(c) + 1e-6
    eaten = sum(ctx.fed.values()) - sum(fed0.values())
    assert eaten == pytest.approx(sum(c.last["troops_ate"] for c in state.cities.values()), abs=1e-6)
    survivors = {uid: v for uid, v in units1.items() if uid in state.units}
    lost_men = sum(v[0] for uid, v in units1.items() if uid not in state.units)
    men2, _ = _totals(state)
    assert men2 == men1 - lost_men
    gained = sum(state.units[uid].rations - r for uid, (_, r) in survivors.items())
    refills = sum(c.last["rations"] for c in state.cities.values())
    if not any(c.last["revolted"] for c in state.cities.values()):
        assert gained == pytest.approx(refills, abs=1e-6)
    else:
        assert gained <= refills + 1e-6
    colonists = [u for u in state.units.values() if u.type == "colonists" and u.home_city is not None]
    # colonists standing in a city that then revolted are lost with it (CITY-200)
    assert len(colonists) == sum(1 for c in state.cities.values()
                                 if c.last["colonists_done"] == ctx.month and not c.last["revolted"])


def test_ledger_survives_storage_and_months_replay_identically() -> None:
    """The ledger in city.last is plain JSON (the state stores and reloads it) and a month replays to the same hash."""
    state, city = reference_state()
    city.store = 30.0
    city.queue = [QueueEntry("palisade"), QueueEntry("levy", men=1_000), QueueEntry("farm", tile=(5, 3))]
    twin = state.clone()
    run(state, *ALL)
    run(twin, *ALL)
    assert state.state_hash() == twin.state_hash()
    back = GameState.from_dict(state.to_dict(), state.map)
    assert back.cities[city.id].last == city.last
    assert back.cities[city.id].last["built"] == ["palisade", "levy", "farm"]


def test_build_180_catapults_without_a_workshop_are_dropped() -> None:
    """BUILD-180: a city whose workshop is gone cannot raise the catapults still queued: they leave the queue and
    the next item is built (palisade, 10 from store 10 + 8.5)."""
    state, city = reference_state()
    city.store = 10.0
    city.queue = [QueueEntry("catapult", men=200), QueueEntry("palisade")]
    ctx = run(state, "production")
    assert city.queue == [] and "palisade" in city.buildings
    assert any(e.kind == "build_dropped" for e in ctx.events)


def _grain_then_growth(state: GameState, blockaded: set[int], *, hand_over: bool) -> MonthContext:
    """Production, grain and growth on `state`; without `hand_over` the growth phase reads a board of its own."""
    ctx = MonthContext(state)
    ctx.blockaded = set(blockaded)
    cities.production_phase(ctx)
    cities.grain_phase(ctx)
    if not hand_over:
        ctx.after_grain = None
    cities.growth_phase(ctx)
    assert ctx.after_grain is None  # used once, by the growth phase right after
    return ctx


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds())
def test_growth_reading_the_grain_phase_board_grows_as_a_board_of_its_own(world: tuple[GameState, set[int]]) -> None:
    """CITY-130, CITY-340: the growth phase on the grain phase's board and frames (ctx.after_grain) leaves the very
    board, ledgers and events a board read afresh does, starved and revolted cities included."""
    state, blockaded = world
    twin = state.clone()
    ctx = _grain_then_growth(state, blockaded, hand_over=True)
    fresh = _grain_then_growth(twin, blockaded, hand_over=False)
    assert state.state_hash() == twin.state_hash()
    assert [(e.kind, e.text, e.data) for e in ctx.events] == [(e.kind, e.text, e.data) for e in fresh.events]


def test_city_190_a_starved_city_grows_from_its_new_people_after_the_grain_phase() -> None:
    """CITY-190, CITY-150: people lost in the grain phase change the land's capacity the growth phase reads (the
    grain phase's frame, of the old people, is not used), and a revolt hands nothing over (CITY-200)."""
    state, city = reference_state(levies=False)
    city.grain = 4.5
    twin = state.clone()
    ctx = MonthContext(state)
    ctx.blockaded = {city.id}
    cities.grain_phase(ctx)
    assert city.people == 14_625 and ctx.after_grain is not None
    assert ctx.after_grain[1][city.id].people == 15_000
    cities.growth_phase(ctx)
    fresh = MonthContext(twin)
    fresh.blockaded = {city.id}
    cities.grain_phase(fresh)
    fresh.after_grain = None
    cities.growth_phase(fresh)
    assert city.last["capacity"] == twin.cities[city.id].last["capacity"]
    assert state.state_hash() == twin.state_hash()
    rebels = make_state(axial_map({(2, 2): "G", (3, 6): "G"}))
    add_city(rebels, "wei", (3, 6), 15_000, grain=0, capital=True)
    town = add_city(rebels, "wei", (2, 2), 10_000, grain=0)
    town.happiness = 30.0
    revolt = MonthContext(rebels)
    revolt.blockaded = {town.id}
    cities.grain_phase(revolt)
    assert town.owner == rd.BANDITS and revolt.after_grain is None


def test_grain_and_growth_are_adjacent_phases() -> None:
    """OPEN-72: the growth phase runs right after the grain phase, the one in its slot: what ctx.after_grain hands
    over holds only so (cities.grain_phase)."""
    from kingdoms.engine.registry import PHASE_SLOTS, PHASES, load_areas

    load_areas()
    at = PHASE_SLOTS.index("grain")
    assert PHASE_SLOTS[at + 1] == "growth"
    assert PHASES["grain"] == [cities.grain_phase] and PHASES["growth"] == [cities.growth_phase]
