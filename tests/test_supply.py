"""Supply: camps, rations, hunger, morale recovery, wagons and disbanding (SUPPLY-*, RECRUIT-210, OPEN-33, OPEN-36, OPEN-43, OPEN-44, OPEN-93).

Worlds are built by hand; every figure is worked from the rules in a comment.
"""

from __future__ import annotations

import pytest

from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.disband import run_disband
from kingdoms.engine.economy import carrying_capacity
from kingdoms.engine.generals import new_general
from kingdoms.engine.land import found_city
from kingdoms.engine.month import run_order
from kingdoms.engine.supply import (
    burn_camp,
    camp_limit,
    camps_phase,
    capture_wagon,
    hunger_phase,
    hunger_strength,
    in_own_camp,
    in_supply,
    march_outlasts_rations,
    monthly_need,
    morale_phase,
    on_enter_tile,
    ration_cap,
    ration_months_left,
    rations_warning,
    run_build,
    run_ship_grain,
    wagons_phase,
)
from kingdoms.orders.models import Build, Disband, ShipGrain
from kingdoms.state import GameState, Unit
from tests import builders
from tests.builders import add, camp, kingdom

WEI_CAPITAL = (2, 2)
SHU_CAPITAL = (9, 7)
FIELD = (6, 4)  # nobody's land: 4 tiles from Wei's capital, 4 from Shu's


def world(rows: list[str] | None = None, *, shu: bool = True, war: bool = True) -> GameState:
    """14 x 10 grassland with one river tile at (1,8); Wei's capital (2,2) and Shu's (9,7), 15,000 people, 150 dan."""
    if rows is None:
        rows = ["G" * 14 for _ in range(10)]
        rows[8] = "GGGGGgGGGGGGGG"  # row 8, column 5 -> q = 5 - 4 = 1: river tile (1,8)
    kds = [kingdom("wei", landing=WEI_CAPITAL)] + ([kingdom("shu", landing=SHU_CAPITAL)] if shu else [])
    return builders.world(rows=rows, kingdoms=kds, seed=11, month=5, war=war,
                          rotation=sorted(kd.id for kd in kds), capitals=True)


def troop(state: GameState, owner: str, tile: tuple[int, int], men: int, rations: float = 0.0,
          type: str = "levy", **kw) -> Unit:
    """A troop carrying `rations` dan (none unless given: these tests count every dan)."""
    return add(state, owner, type, tile, men, rations=rations, **kw)


def wagon(state: GameState, owner: str, tile: tuple[int, int], cargo: float, dest=None) -> Unit:
    """A wagon carrying `cargo` dan toward `dest`."""
    return add(state, owner, "wagon", tile, cargo=cargo, dest=dest)


def capital(state: GameState, kid: str):
    return state.cities[state.kingdoms[kid].capital_id]


def supply_month(state: GameState, ctx: MonthContext | None = None) -> MonthContext:
    """Run this module's month-end phases in slot order (camps, hunger, wagons, morale)."""
    ctx = ctx or MonthContext(state)
    camps_phase(ctx)
    hunger_phase(ctx)
    wagons_phase(ctx)
    morale_phase(ctx)
    return ctx


# --- needs and rations --------------------------------------------------------------------------------------


def test_supply_010_every_1000_soldiers_eat_1_dan():
    """SUPPLY-010: 3,000 levies eat 3 dan; 200 catapult crew 0.2; wagons and scouts eat nothing (OPEN-44)."""
    state = world()
    assert monthly_need(troop(state, "wei", FIELD, 3_000)) == pytest.approx(3.0)
    assert monthly_need(troop(state, "wei", (6, 5), 200, type="catapult")) == pytest.approx(0.2)
    assert monthly_need(wagon(state, "wei", (6, 6), 10)) == 0.0
    assert monthly_need(troop(state, "wei", (6, 7), 0, type="scout")) == 0.0


def test_supply_070_ration_cap_is_four_months():
    """SUPPLY-070: a 2,000-man troop carries at most 4 x 2 = 8 dan."""
    state = world()
    assert ration_cap(troop(state, "wei", FIELD, 2_000)) == pytest.approx(8.0)


def test_supply_070_rations_above_four_months_are_lost_after_battle_losses():
    """SUPPLY-070, COMBAT-130: 3,000 levies carrying 12 dan (4 months) attack 6,000 Shu levies on open ground and
    lose 0.2 x sqrt(3,000 x 6,000) = 848.5 -> 849 men: 2,151 are left, who carry at most 4 x 2.151 = 8.604 dan;
    the fallen men's share is lost with them. The preview's advance note never counts more than 4 months."""
    from kingdoms.engine.month import run_order
    from kingdoms.engine.registry import load_areas
    from kingdoms.orders.models import Attack

    load_areas()
    state = world()
    wei = troop(state, "wei", (5, 5), 3_000, rations=12.0)
    troop(state, "shu", (6, 5), 6_000, rations=24.0)
    run_order(MonthContext(state), "wei", Attack(unit_id=wei.id, to=(6, 5)))
    assert wei.men == 2_151
    assert wei.rations == pytest.approx(8.604)
    assert ration_months_left(wei) == pytest.approx(4.0)


def test_supply_070_merged_rations_are_capped_at_four_months_of_the_merged_men():
    """SUPPLY-070, MOVE-190: 2,000 men with 8 dan join 1,000 carrying 10 dan (more than the 4 they may carry, as a
    troop that lost men before this rule kept): the 3,000 carry at most 4 x 3 = 12 dan, not 18."""
    from kingdoms.engine.movement import merge_units

    state = world()
    a = troop(state, "wei", FIELD, 2_000, rations=8.0)
    b = troop(state, "wei", (6, 5), 1_000, rations=10.0)
    merge_units(MonthContext(state), a, b)
    assert b.men == 3_000 and b.rations == pytest.approx(12.0)


def test_supply_070_month_end_leaves_no_troop_carrying_more_than_four_months():
    """SUPPLY-070: a troop of 1,000 that carries 11.1 dan (11.1 months) in the field eats 1 and ends the month with
    4 dan, 4 months' worth; ration_months_left never reports more than 4."""
    from kingdoms.engine.month import resolve_month

    state = world()
    unit = troop(state, "wei", FIELD, 1_000, rations=11.1)
    assert ration_months_left(unit) == pytest.approx(4.0)
    after = resolve_month(state, {}).state.units[unit.id]
    assert after.rations == pytest.approx(4.0)


def test_supply_090_ration_months_and_warning_helpers():
    """SUPPLY-090: 6 dan for 3,000 men last 6 / 3 = 2 months; a 3-month march beyond supply outlasts them."""
    state = world()
    unit = troop(state, "wei", FIELD, 3_000, rations=6.0)
    assert ration_months_left(unit) == pytest.approx(2.0)
    assert march_outlasts_rations(unit, 3)
    assert not march_outlasts_rations(unit, 2)
    assert rations_warning(unit, 2) is None
    assert "last 2.0" in rations_warning(unit, 3)
    # In supply on own land (the capital's ring), out of it in the field, in it within 2 tiles of a stocked camp.
    assert in_supply(state, "wei", (3, 2))
    assert not in_supply(state, "wei", FIELD)
    camp(state, "wei", (6, 6), 10)
    assert in_supply(state, "wei", FIELD)  # distance (6,4)-(6,6) = 2


# --- camps feed first (SUPPLY-040, SUPPLY-060, SUPPLY-250, OPEN-43) -----------------------------------------


def test_supply_040_troop_within_two_tiles_eats_from_camp_and_refills():
    """SUPPLY-040, SUPPLY-060: 3,000 men 2 tiles from a 20-dan camp eat 3 (20 -> 17), then refill one month: 5 -> 8 (17 -> 14)."""
    state = world()
    c = camp(state, "wei", (6, 6), 20)
    unit = troop(state, "wei", FIELD, 3_000, rations=5.0)
    ctx = MonthContext(state)
    camps_phase(ctx)
    assert ctx.fed[unit.id] == pytest.approx(3.0)
    assert unit.rations == pytest.approx(8.0)
    assert c.grain == pytest.approx(14.0)
    hunger_phase(ctx)
    assert unit.rations == pytest.approx(8.0)  # fed in full by the camp: rations untouched
    assert unit.hunger == 0.0


def test_supply_040_camp_three_tiles_away_feeds_nothing():
    """SUPPLY-040: reach is 2 tiles; at 3 the troop eats its own rations (12 - 3 = 9)."""
    state = world()
    c = camp(state, "wei", (6, 7), 20)  # distance (6,4)-(6,7) = 3
    unit = troop(state, "wei", FIELD, 3_000, rations=12.0)
    ctx = supply_month(state)
    assert c.grain == 20
    assert unit.rations == pytest.approx(9.0)
    assert ctx.fed[unit.id] == pytest.approx(3.0)


def test_supply_040_rival_camp_feeds_nobody():
    """SUPPLY-040: only a camp of the troop's own kingdom feeds it."""
    state = world()
    c = camp(state, "shu", (6, 5), 20)
    unit = troop(state, "wei", FIELD, 3_000, rations=12.0)
    supply_month(state)
    assert c.grain == 20
    assert unit.rations == pytest.approx(9.0)


def test_supply_060_refill_is_at_most_one_month_and_stops_at_the_cap():
    """SUPPLY-060, SUPPLY-070: 2,000 men, camp 80: eat 2 and refill 2 a month: rations 0 -> 2 -> 4; with 7.5 only 0.5 fits."""
    state = world()
    c = camp(state, "wei", (6, 5), 80)
    unit = troop(state, "wei", FIELD, 2_000, rations=0.0)
    supply_month(state)
    assert unit.rations == pytest.approx(2.0) and c.grain == pytest.approx(76.0)  # 80 - 2 eaten - 2 refilled
    supply_month(state)
    assert unit.rations == pytest.approx(4.0) and c.grain == pytest.approx(72.0)
    unit.rations = 7.5
    supply_month(state)
    assert unit.rations == pytest.approx(8.0)  # cap 4 x 2 = 8: room 0.5
    assert c.grain == pytest.approx(72.0 - 2.0 - 0.5)


def test_supply_250_short_camp_is_shared_in_proportion_and_rations_cover_the_rest():
    """SUPPLY-250, OPEN-93, OPEN-99: a 6-dan camp, needs 3 + 6 = 9 -> each gets 6/9: 2 and 4 dan; the rest from rations.

    3,000 men: 2 from camp, 1 from rations (4 -> 3). 6,000 men: 4 from camp, 2 from rations (0 -> 0: hungry, 2/6 missing).
    """
    state = world()
    c = camp(state, "wei", (6, 5), 6)
    a = troop(state, "wei", FIELD, 3_000, rations=4.0)
    b = troop(state, "wei", (7, 5), 6_000, rations=0.0)
    ctx = MonthContext(state)
    camps_phase(ctx)
    assert ctx.fed[a.id] == pytest.approx(2.0) and ctx.fed[b.id] == pytest.approx(4.0)
    assert c.grain == 0.0
    assert any(e.kind == "camp_empty" for e in ctx.events)
    hunger_phase(ctx)
    assert a.rations == pytest.approx(3.0) and a.hunger == 0.0
    assert b.hunger == pytest.approx(2 / 6)  # 2 of 6 dan missing
    assert b.men == 6_000 - round(6_000 * 0.10 * (2 / 6))  # 10% x hunger of the men: 200 lost -> 5,800
    assert b.morale == pytest.approx(100 - 15 * (2 / 6))  # -5 -> 95


def test_open_43_camp_grain_has_no_reserve():
    """OPEN-43: a camp's last dan can be eaten: 3 dan feed 3,000 men in full, the camp is left empty (and stays)."""
    state = world()
    c = camp(state, "wei", (6, 5), 3)
    unit = troop(state, "wei", FIELD, 3_000)
    supply_month(state)
    assert unit.hunger == 0.0
    assert c.grain == 0.0
    assert c.id in state.camps


def test_supply_040_camp_eaten_before_the_granary_on_own_land():
    """SUPPLY-040: a troop on own land 2 tiles from a stocked camp is fed by the camp first (ledger 3 before "grain")."""
    state = world()
    camp(state, "wei", (4, 2), 10)
    unit = troop(state, "wei", (3, 2), 3_000)  # on the capital's ring, 1 tile from the camp
    ctx = MonthContext(state)
    camps_phase(ctx)
    assert ctx.fed[unit.id] == pytest.approx(3.0)
    assert capital(state, "wei").grain == 150  # the granary is the economy's, and it was not needed


def test_supply_240_camp_stores_only():
    """SUPPLY-240: a camp with no troops in reach neither grows nor feeds another camp within reach of a troop."""
    state = world()
    far = camp(state, "wei", (10, 1), 30)
    near = camp(state, "wei", (6, 5), 0)
    unit = troop(state, "wei", FIELD, 3_000, rations=12.0)
    supply_month(state)
    assert far.grain == 30 and near.grain == 0
    assert unit.rations == pytest.approx(9.0)


# --- rations out of supply and hunger (SUPPLY-080, SUPPLY-180..200, OPEN-93) --------------------------------


def test_supply_080_out_of_supply_troop_eats_its_rations():
    """SUPPLY-080: 3,000 men in the field, 12 dan carried: 12 - 3 = 9, no hunger."""
    state = world()
    unit = troop(state, "wei", FIELD, 3_000, rations=12.0)
    ctx = supply_month(state)
    assert unit.rations == pytest.approx(9.0)
    assert unit.hunger == 0.0
    assert ctx.fed[unit.id] == pytest.approx(3.0)


def test_open_93_rations_cover_what_the_granary_could_not():
    """OPEN-93: the granary fed 1 of 3 dan (ledger 1.0): the other 2 come from rations (5 -> 3); no hunger."""
    state = world()
    unit = troop(state, "wei", (3, 2), 3_000, rations=5.0)
    ctx = MonthContext(state)
    ctx.fed[unit.id] = 1.0  # what the economy's grain phase gave it
    hunger_phase(ctx)
    assert unit.rations == pytest.approx(3.0)
    assert unit.hunger == 0.0
    assert ctx.fed[unit.id] == pytest.approx(3.0)


def test_supply_030_fed_by_granary_keeps_its_rations():
    """SUPPLY-030 (ledger): a troop the granary fed in full (3 of 3) does not touch its rations."""
    state = world()
    unit = troop(state, "wei", (3, 2), 3_000, rations=5.0)
    ctx = MonthContext(state)
    ctx.fed[unit.id] = 3.0
    hunger_phase(ctx)
    assert unit.rations == pytest.approx(5.0)


def test_supply_180_hunger_rises_by_share_missing_and_resets_when_fed():
    """SUPPLY-180, SUPPLY-190: 3,000 men with 1.5 dan eat half: hunger +0.5, 150 men lost (3,000 x 10% x 0.5),
    morale -7.5 (15 x 0.5). Next month fed in full (12 dan): hunger back to 0."""
    state = world()
    unit = troop(state, "wei", FIELD, 3_000, rations=1.5)
    ctx = MonthContext(state)
    hunger_phase(ctx)
    assert unit.hunger == pytest.approx(0.5)
    assert unit.men == 2_850
    assert unit.morale == pytest.approx(92.5)
    assert unit.rations == 0.0
    ev = [e for e in ctx.events if e.kind == "troop_hungry"]
    assert ev and ev[0].audience == ["wei"]
    unit.rations = 12.0
    hunger_phase(MonthContext(state))
    assert unit.hunger == 0.0


def test_supply_180_a_tenth_short():
    """SUPPLY-180: 1,000 men with 0.9 dan: hunger +0.1; 1,000 x 10% x 0.1 = 10 men lost; morale 100 - 1.5 = 98.5."""
    state = world()
    unit = troop(state, "wei", FIELD, 1_000, rations=0.9)
    hunger_phase(MonthContext(state))
    assert unit.hunger == pytest.approx(0.1)
    assert unit.men == 990
    assert unit.morale == pytest.approx(98.5)


def test_supply_200_troop_without_food_collapses_in_three_to_four_months():
    """SUPPLY-190, SUPPLY-200: 3,000 men, morale 100, nothing to eat; month by month (new hunger drives losses, OPEN-102):
    M1 hunger 1: lose 10% of 3,000 = 300 -> 2,700; morale 85; strength x0.8
    M2 hunger 2: lose 20% of 2,700 = 540 -> 2,160; morale 70; strength x0.6
    M3 hunger 3: lose 30% of 2,160 = 648 -> 1,512; morale 55; strength x0.4
    M4 hunger 4: lose 40% of 1,512 = 604.8 -> 605 -> 907; morale 40; strength x0.2 (the floor)
    Hungry troops recover no morale (OPEN-36)."""
    state = world()
    unit = troop(state, "wei", FIELD, 3_000)
    expected = [(1, 2_700, 85, 0.8), (2, 2_160, 70, 0.6), (3, 1_512, 55, 0.4), (4, 907, 40, 0.2)]
    for hunger, men, morale, strength in expected:
        supply_month(state)
        assert unit.hunger == pytest.approx(hunger)
        assert unit.men == men
        assert unit.morale == pytest.approx(morale)
        assert hunger_strength(unit.hunger) == pytest.approx(strength)
    assert hunger_strength(5) == pytest.approx(0.2)  # never below 0.2


def test_supply_190_starved_troop_under_100_men_breaks_up_and_its_general_leaves():
    """SUPPLY-190, COMBAT-250, OPEN-40: 150 men at hunger 4, no food: hunger 5, lose 50% = 75 -> 75 < 100: gone.
    Its general goes to the leaderless troop 1 tile away (starvation never captures)."""
    state = world()
    unit = troop(state, "wei", FIELD, 150, hunger=4.0)
    other = troop(state, "wei", (7, 4), 3_000, rations=12.0)
    g = new_general(state, "wei", unit_id=unit.id)
    ctx = MonthContext(state)
    hunger_phase(ctx)
    assert unit.id not in state.units
    assert other.general_id == g.id and g.unit_id == other.id
    assert any(e.kind == "troop_starved" for e in ctx.events)


# --- morale recovery (OPEN-36) ------------------------------------------------------------------------------


def test_open_36_morale_recovery_fed_camp_hungry_and_cap():
    """OPEN-36: fed +10 (50 -> 60); fed in its own camp +20 (50 -> 70); hungry nothing (50 -> 50 - 15 = 35); max 100."""
    state = world()
    fed = troop(state, "wei", FIELD, 1_000, rations=4.0, morale=50.0)
    camp(state, "wei", (10, 1), 40)
    in_camp = troop(state, "wei", (10, 1), 1_000, morale=50.0)
    hungry = troop(state, "wei", (6, 8), 1_000, morale=50.0)
    high = troop(state, "wei", (7, 8), 1_000, rations=4.0, morale=95.0)
    supply_month(state)
    assert fed.morale == pytest.approx(60)
    assert in_own_camp(state, in_camp) and in_camp.morale == pytest.approx(70)
    assert hungry.morale == pytest.approx(35)  # -15 x 1 for the empty month, no recovery
    assert high.morale == 100


# --- pitching camps (SUPPLY-220..270) -----------------------------------------------------------------------


def test_supply_230_camp_pitched_at_once_with_half_the_rations_and_ends_the_move():
    """SUPPLY-220, SUPPLY-230: after marching (1 move spent), 3,000 men with 12 dan pitch a camp: stock 6, troop keeps 6,
    moves left 0; the order replaces a standing march (TURN-130)."""
    state = world()
    unit = troop(state, "wei", FIELD, 3_000, rations=12.0,
                 standing={"action": "move", "unit_id": 0, "to": [8, 4]})
    unit.standing["unit_id"] = unit.id
    ctx = MonthContext(state)
    ctx.spend(unit, 1)
    result = run_order(ctx, "wei", Build(unit_id=unit.id, what="camp"))
    camps = [c for c in state.camps.values() if (c.q, c.r) == FIELD]
    assert len(camps) == 1 and camps[0].owner == "wei"
    assert camps[0].grain == pytest.approx(6.0)
    assert unit.rations == pytest.approx(6.0)
    assert ctx.moves(unit) == 0
    assert unit.standing is None
    assert "camp" in result


@pytest.mark.parametrize("setup, code", [
    (lambda s: troop(s, "wei", FIELD, 400), "too_few_men"),
    (lambda s: troop(s, "wei", WEI_CAPITAL, 3_000), "in_city"),
    (lambda s: troop(s, "wei", (1, 8), 3_000), "river_tile"),
    (lambda s: (camp(s, "shu", (6, 6), 0), troop(s, "wei", FIELD, 3_000))[1], "camp_too_close"),
    (lambda s: wagon(s, "wei", FIELD, 10), "not_a_troop"),
])
def test_supply_220_camp_refusals(setup, code):
    """SUPPLY-220, SUPPLY-270, OPEN-43: under 500 men, in a city, on a river, 2 tiles from a rival camp, not a troop: refused."""
    state = world()
    unit = setup(state)
    with pytest.raises(OrderFailed) as err:
        run_build(MonthContext(state), "wei", Build(unit_id=unit.id, what="camp"))
    assert err.value.code == code
    assert not any(c.owner == "wei" for c in state.camps.values())


def test_supply_220_refuses_a_foreign_troop_as_unknown():
    """A rival's troop is refused like one that does not exist (unknown_unit)."""
    state = world()
    unit = troop(state, "shu", FIELD, 3_000)
    with pytest.raises(OrderFailed) as err:
        run_build(MonthContext(state), "wei", Build(unit_id=unit.id, what="camp"))
    assert err.value.code == "unknown_unit"


def test_supply_270_camp_limit_and_spacing():
    """SUPPLY-270: Wei holds 1 city -> at most 1 + 1 = 2 camps; a camp exactly 3 tiles from another is allowed."""
    state = world()
    assert camp_limit(state, "wei") == 2
    camp(state, "wei", (6, 7), 5)  # 3 tiles from FIELD (6,4)
    first = troop(state, "wei", FIELD, 3_000, rations=4)
    run_build(MonthContext(state), "wei", Build(unit_id=first.id, what="camp"))
    third = troop(state, "wei", (11, 1), 3_000, rations=4)
    with pytest.raises(OrderFailed) as err:
        run_build(MonthContext(state), "wei", Build(unit_id=third.id, what="camp"))
    assert err.value.code == "camp_limit"
    found_city(state, "wei", 11, 4, people=5_000, grain=20)
    assert camp_limit(state, "wei") == 3
    run_build(MonthContext(state), "wei", Build(unit_id=third.id, what="camp"))
    assert sum(1 for c in state.camps.values() if c.owner == "wei") == 3


def test_supply_240_pitched_stock_capped_at_80():
    """SUPPLY-240: a camp holds at most 80 dan (a troop's half share never exceeds 40 under the 4-month cap;
    an over-full troop of 20,000 carrying 200 gives 80, not 100, and keeps 120)."""
    state = world()
    unit = troop(state, "wei", FIELD, 20_000, rations=200.0)
    run_build(MonthContext(state), "wei", Build(unit_id=unit.id, what="camp"))
    (c,) = state.camps.values()
    assert c.grain == pytest.approx(80.0)
    assert unit.rations == pytest.approx(120.0)


# --- seizing and burning (SUPPLY-280, SUPPLY-290) -----------------------------------------------------------


def test_supply_280_walking_into_an_undefended_enemy_camp_seizes_it():
    """SUPPLY-280: a Shu troop stepping onto Wei's empty camp at war takes it with its 25 dan."""
    state = world()
    c = camp(state, "wei", FIELD, 25)
    raider = troop(state, "shu", FIELD, 2_000)
    ctx = MonthContext(state)
    assert on_enter_tile(ctx, raider) is c
    assert c.owner == "shu" and c.grain == 25
    kinds = {(e.kind, tuple(e.audience)) for e in ctx.events}
    assert ("camp_seized", ("wei",)) in kinds and ("camp_seized", ("shu",)) in kinds


def test_supply_280_seized_camp_counts_toward_the_seizers_limit():
    """SUPPLY-280, SUPPLY-270: Shu (1 city, limit 2) seizes one camp and pitches one: a third is refused."""
    state = world()
    c = camp(state, "wei", FIELD, 25)
    on_enter_tile(MonthContext(state), troop(state, "shu", FIELD, 2_000))
    assert c.owner == "shu"
    second = troop(state, "shu", (11, 1), 3_000)
    run_build(MonthContext(state), "shu", Build(unit_id=second.id, what="camp"))
    third = troop(state, "shu", (2, 7), 3_000)
    with pytest.raises(OrderFailed) as err:
        run_build(MonthContext(state), "shu", Build(unit_id=third.id, what="camp"))
    assert err.value.code == "camp_limit"


def test_supply_280_defended_or_peaceful_camps_are_not_seized():
    """SUPPLY-280, OPEN-43: a camp with its owner's troop on it is defended; at peace camps are closed (no seizure);
    wagons never seize."""
    state = world(war=False)
    c = camp(state, "wei", FIELD, 25)
    assert on_enter_tile(MonthContext(state), troop(state, "shu", FIELD, 2_000)) is None
    state.wars.append(["shu", "wei"])
    troop(state, "wei", FIELD, 200, type="catapult")
    assert on_enter_tile(MonthContext(state), troop(state, "shu", FIELD, 2_000)) is None
    assert on_enter_tile(MonthContext(state), wagon(state, "shu", (6, 5), 5)) is None
    assert c.owner == "wei"


def test_supply_290_burning_destroys_camp_and_grain():
    """SUPPLY-290, OPEN-43: a burned camp and its grain are gone; owner and burner are told."""
    state = world()
    c = camp(state, "wei", FIELD, 40)
    ctx = MonthContext(state)
    burn_camp(ctx, c, "shu")
    assert c.id not in state.camps
    assert {tuple(e.audience) for e in ctx.events if e.kind == "camp_burned"} == {("wei",), ("shu",)}


# --- ship_grain and wagons (SUPPLY-100..170, OPEN-44) -------------------------------------------------------


def test_supply_100_ship_grain_loads_a_wagon_on_the_city_tile():
    """SUPPLY-100, OPEN-44: 40 dan leave the 150-dan granary at once (-> 110); the wagon carries 40, marches to (6,4)."""
    state = world()
    city = capital(state, "wei")
    result = run_ship_grain(MonthContext(state), "wei", ShipGrain(city_id=city.id, dan=40, to=(6, 4)))
    (w,) = [u for u in state.units.values() if u.type == "wagon"]
    assert city.grain == pytest.approx(110.0)
    assert w.tile == WEI_CAPITAL and w.cargo == 40 and w.owner == "wei"
    assert w.dest == (6, 4)
    assert w.standing == {"action": "move", "unit_id": w.id, "to": [6, 4]}
    assert "40 dan" in result


def test_open_44_wagon_appears_beside_the_city_when_the_civilian_slot_is_taken():
    """OPEN-44: colonists hold the capital's civilian slot, so the wagon appears on the free neighbour nearest (6,4).
    Distances from (6,4), (|dq| + |dr| + |dq+dr|) / 2: (3,2) (3+2+5)/2 = 5; (2,3) (4+1+5)/2 = 5; (3,1) 6; (1,3) 6;
    (2,1) 7; (1,2) 7. Tie at 5: lowest r wins -> (3,2)."""
    state = world()
    city = capital(state, "wei")
    troop(state, "wei", WEI_CAPITAL, 5_000, type="colonists")
    run_ship_grain(MonthContext(state), "wei", ShipGrain(city_id=city.id, dan=10, to=(6, 4)))
    (w,) = [u for u in state.units.values() if u.type == "wagon"]
    assert w.tile == (3, 2)


@pytest.mark.parametrize("kwargs, grain, code", [
    ({"dan": 40, "to": (6, 4)}, 30.0, "not_enough_grain"),
    ({"dan": 10, "to": (40, 4)}, 150.0, "off_map"),
])
def test_open_44_ship_grain_refusals(kwargs, grain, code):
    """OPEN-44: more dan than the stock (40 > 30) or a tile off the map is refused and nothing leaves."""
    state = world()
    city = capital(state, "wei")
    city.grain = grain
    with pytest.raises(OrderFailed) as err:
        run_ship_grain(MonthContext(state), "wei", ShipGrain(city_id=city.id, **kwargs))
    assert err.value.code == code
    assert city.grain == grain
    assert not any(u.type == "wagon" for u in state.units.values())


def test_supply_100_ship_grain_refuses_a_rival_city_and_water():
    """SUPPLY-100: only an own city ships grain; a wagon cannot be sent onto water."""
    state = world(["G" * 14] * 4 + ["GGGGGGG~GGGGGG"] + ["G" * 14] * 5)
    with pytest.raises(OrderFailed) as err:
        run_ship_grain(MonthContext(state), "wei", ShipGrain(city_id=capital(state, "shu").id, dan=5, to=(6, 4)))
    assert err.value.code == "unknown_city"
    with pytest.raises(OrderFailed) as err:
        # row 4, column 7 -> q = 7 - 2 = 5: water at (5,4)
        run_ship_grain(MonthContext(state), "wei", ShipGrain(city_id=capital(state, "wei").id, dan=5, to=(5, 4)))
    assert err.value.code == "impassable"


def test_supply_110_marching_wagon_does_not_unload_but_a_held_up_one_does():
    """SUPPLY-110: a wagon that marched this month with march left keeps its cargo; one that stood still all month in
    front of a blocked tile (standing march, all 3 moves unused) unloads as rations to the troop beside it."""
    state = world()
    moving = wagon(state, "wei", (6, 5), 10, dest=(6, 9))
    moving.standing = {"action": "move", "unit_id": moving.id, "to": [6, 9]}
    stuck = wagon(state, "wei", (11, 2), 10, dest=(11, 6))
    stuck.standing = {"action": "move", "unit_id": stuck.id, "to": [11, 6]}
    beside_moving = troop(state, "wei", FIELD, 2_000)
    beside_stuck = troop(state, "wei", (11, 3), 2_000)
    ctx = MonthContext(state)
    ctx.spend(moving, 3)
    wagons_phase(ctx)
    assert moving.cargo == 10 and beside_moving.rations == 0
    assert beside_stuck.rations == pytest.approx(8.0)  # room 4 x 2 = 8 of the 10
    assert stuck.cargo == pytest.approx(2.0)


def test_supply_120_wagon_sent_to_a_city_fills_it_first_then_the_camp():
    """SUPPLY-120: 30 dan to the capital (290/300): 10 into the granary, the other 20 into the camp 1 tile from the wagon."""
    state = world()
    city = capital(state, "wei")
    city.grain = 290
    c = camp(state, "wei", (4, 2), 0)
    w = wagon(state, "wei", (3, 2), 30, dest=WEI_CAPITAL)
    wagons_phase(MonthContext(state))
    assert city.grain == pytest.approx(300)
    assert c.grain == pytest.approx(20)
    assert w.id not in state.units  # emptied: it disappears


def test_supply_130_wagon_sent_elsewhere_stocks_the_camp_first_then_city_then_troops():
    """SUPPLY-130, SUPPLY-140: 30 dan to the camp tile (4,2): camp 70 -> 80 takes 10; then the city beside the wagon
    290 -> 300 takes 10; then a 2,000-man troop beside it with 4 dan takes 4 (cap 8); 6 dan wait on the wagon."""
    state = world()
    city = capital(state, "wei")
    city.grain = 290
    c = camp(state, "wei", (4, 2), 70)
    w = wagon(state, "wei", (3, 2), 30, dest=(4, 2))
    t = troop(state, "wei", (4, 1), 2_000, rations=4.0)  # beside the wagon: dist((3,2),(4,1)) = 1
    ctx = MonthContext(state)
    wagons_phase(ctx)
    assert c.grain == pytest.approx(80)
    assert city.grain == pytest.approx(300)
    assert t.rations == pytest.approx(8)
    assert w.cargo == pytest.approx(6) and w.id in state.units
    assert any(e.kind == "wagon_unloaded" for e in ctx.events)


def test_open_44_rations_go_to_troops_on_and_beside_the_wagon_in_proportion_to_room():
    """SUPPLY-140, OPEN-44: 6 dan; troop on the wagon's tile 1,000 men/0 dan (room 4), beside 2,000 men/4 dan
    (room 4): 6 / 8 = 0.75 of each room -> 3 and 3; the wagon is empty and disappears."""
    state = world()
    w = wagon(state, "wei", FIELD, 6, dest=FIELD)
    a = troop(state, "wei", FIELD, 1_000)
    b = troop(state, "wei", (7, 4), 2_000, rations=4.0)
    wagons_phase(MonthContext(state))
    assert a.rations == pytest.approx(3.0) and b.rations == pytest.approx(7.0)
    assert w.id not in state.units


def test_supply_140_wagon_with_nothing_to_unload_into_waits():
    """SUPPLY-140: no city, camp or troop of its own beside it: the wagon keeps its 20 dan."""
    state = world()
    w = wagon(state, "wei", FIELD, 20, dest=FIELD)
    troop(state, "shu", (7, 4), 2_000)
    wagons_phase(MonthContext(state))
    assert w.cargo == 20 and w.id in state.units


def test_supply_150_a_move_redirects_the_wagon():
    """SUPPLY-150, SUPPLY-120: a loaded wagon sent to (6,4) is given a move to Wei's new city at (11,4): its destination follows
    the move, so when it ends its march beside that city it fills the granary first (100 + 20 = 120)."""
    state = world()
    new = found_city(state, "wei", 11, 4, people=5_000, grain=100)
    w = wagon(state, "wei", (7, 4), 20, dest=(6, 4))
    w.standing = {"action": "move", "unit_id": w.id, "to": [11, 4]}
    ctx = MonthContext(state)
    ctx.spend(w, 3)
    wagons_phase(ctx)
    assert w.dest == (11, 4) and w.cargo == 20  # still marching
    w.q, w.r, w.standing = 10, 4, None  # arrived beside the city (the march ended there)
    wagons_phase(MonthContext(state))
    assert new.grain == pytest.approx(120)
    assert w.id not in state.units


def test_supply_160_several_wagons_unload_into_one_city_in_a_month():
    """SUPPLY-160: two 40-dan wagons on two tiles beside the capital (200/300): 200 + 40 + 40 = 280."""
    state = world()
    city = capital(state, "wei")
    city.grain = 200
    wagon(state, "wei", (3, 2), 40, dest=WEI_CAPITAL)
    wagon(state, "wei", (2, 3), 40, dest=WEI_CAPITAL)
    wagons_phase(MonthContext(state))
    assert city.grain == pytest.approx(280)
    assert not any(u.type == "wagon" for u in state.units.values())


def test_supply_170_captured_wagon_changes_hands_with_its_grain():
    """SUPPLY-170: Shu's troop catches Wei's lone 30-dan wagon: it is Shu's with 30 dan; at month end it hands its
    grain to the captor beside it as rations (2,000 men, room 8 -> 8; 22 dan wait)."""
    state = world()
    w = wagon(state, "wei", FIELD, 30, dest=(9, 4))
    w.standing = {"action": "move", "unit_id": w.id, "to": [9, 4]}
    captor = troop(state, "shu", (7, 4), 2_000)
    ctx = MonthContext(state)
    capture_wagon(ctx, w, captor)
    assert w.owner == "shu" and w.cargo == 30 and w.standing is None
    wagons_phase(ctx)
    assert captor.rations == pytest.approx(8)
    assert w.cargo == pytest.approx(22)


# --- disband (RECRUIT-210, OPEN-33) -------------------------------------------------------------------------


HILLS = ["H" * 14 for _ in range(10)]


def test_recruit_210_disband_in_city_all_men_go_home_when_the_land_has_room():
    """RECRUIT-210, OPEN-33, CITY-150: a 5,000-people city on grassland with its 7-tile ring: harvest with all land
    worked = 3 + 2 + 6 x 2 = 17 dan (x1.0 at 5,000 people) -> capacity 17 x 1,000 / 0.6 = 28,333; room 23,333:
    all 3,000 men go home -> 8,000 people."""
    state = world()
    city = found_city(state, "wei", 6, 4, people=5_000, grain=50)
    assert carrying_capacity(state, city) == 28_333
    unit = troop(state, "wei", (6, 4), 3_000)
    result = run_disband(MonthContext(state), "wei", Disband(unit_id=unit.id))
    assert city.people == 8_000
    assert unit.id not in state.units
    assert "3000 men go home" in result


def test_recruit_210_disband_beside_city_only_what_the_land_feeds_goes_home():
    """RECRUIT-210, OPEN-33: a hills city (centre 0 food -> 2; ring hills 0): 3 + 2 = 5 dan -> capacity
    5 x 1,000 / 0.6 = 8,333 people; 5,000 live there: room 3,333. Disbanding 5,000 men beside it: 3,333 home,
    1,667 scatter -> 8,333 people."""
    state = world(HILLS)
    city = found_city(state, "wei", 6, 4, people=5_000, grain=50)
    assert carrying_capacity(state, city) == 8_333
    unit = troop(state, "wei", (7, 4), 5_000)
    result = run_disband(MonthContext(state), "wei", Disband(unit_id=unit.id))
    assert city.people == 8_333
    assert "1667 scatter" in result


def test_recruit_210_disband_in_the_field_scatters_everyone_and_releases_the_general():
    """RECRUIT-210, GEN-060: far from any own city all 3,000 scatter; the general goes to the leaderless troop 2 tiles off."""
    state = world()
    unit = troop(state, "wei", FIELD, 3_000)
    other = troop(state, "wei", (6, 6), 1_000)
    g = new_general(state, "wei", unit_id=unit.id)
    people = capital(state, "wei").people
    result = run_disband(MonthContext(state), "wei", Disband(unit_id=unit.id))
    assert unit.id not in state.units
    assert capital(state, "wei").people == people
    assert other.general_id == g.id
    assert "all 3000 men scatter" in result


def test_recruit_210_disband_refusals():
    """RECRUIT-210: a rival's troop is unknown; a wagon is not a troop."""
    state = world()
    with pytest.raises(OrderFailed) as err:
        run_disband(MonthContext(state), "wei", Disband(unit_id=troop(state, "shu", FIELD, 1_000).id))
    assert err.value.code == "unknown_unit"
    with pytest.raises(OrderFailed) as err:
        run_disband(MonthContext(state), "wei", Disband(unit_id=wagon(state, "wei", FIELD, 5).id))
    assert err.value.code == "not_a_troop"


def test_supply_270_turn_060_month_end_refusal_says_a_new_rival_camp_was_not_in_sight():
    """SUPPLY-270, TURN-060: Shu acts first this month and pitches a camp at (6,6); Wei's camp at FIELD (6,4), 2 tiles
    off, was fine when ordered (no camp stood there then) and is refused when carried out. The refusal says the
    rival camp was not in sight when the order was given (orders are checked again when carried out)."""
    from kingdoms.engine.month import check_orders, resolve_month

    state = world()
    assert state.rotation[0] == "shu"
    shu = troop(state, "shu", (6, 6), 3_000, rations=12.0)
    wei = troop(state, "wei", FIELD, 3_000, rations=12.0)
    (verdict,) = check_orders(state, "wei", [], [Build(unit_id=wei.id, what="camp")])
    assert verdict.ok, verdict.message
    res = resolve_month(state, {"shu": [Build(unit_id=shu.id, what="camp")],
                                "wei": [Build(unit_id=wei.id, what="camp")]})
    (out,) = [o for o in res.outcomes if o.kingdom == "wei"]
    assert not out.ok and out.code == "camp_too_close"
    assert "not in your sight when you gave the order: it was pitched this month" in out.result, out.result


def test_supply_270_turn_060_month_end_refusal_says_an_unseen_rival_camp_was_not_in_sight():
    """SUPPLY-270, TURN-060: Shu's camp at (9,2) is 3 tiles from Wei's troop at FIELD (6,4), beyond its sight of 2.
    Wei moves the troop to (8,4), 2 tiles from the camp, and pitches a camp there: accepted when given (the camp
    is not on Wei's board), refused at month end, saying the camp was not in sight when the order was given."""
    from kingdoms.engine.month import check_orders, resolve_month
    from kingdoms.orders.models import Move

    state = world()
    camp(state, "shu", (9, 2), 0)
    wei = troop(state, "wei", FIELD, 3_000, rations=12.0)
    orders = [Move(unit_id=wei.id, to=(8, 4)), Build(unit_id=wei.id, what="camp")]
    assert all(v.ok for v in check_orders(state, "wei", [], orders))
    res = resolve_month(state, {"wei": orders})
    out = [o for o in res.outcomes if o.kingdom == "wei"][1]
    assert not out.ok and out.code == "camp_too_close"
    assert "not in your sight when you gave the order; orders are checked again" in out.result, out.result


# --- separate granaries, and grain between cities only by wagon (SUPPLY-020, SUPPLY-050, SUPPLY-260, SUPPLY-300) ----


def _second_city(state: GameState, grain: float = 0.0):
    """Wei's second city at (5,2), 3 tiles from the capital (2,2): its ring touches none of the capital's land."""
    return found_city(state, "wei", 5, 2, people=5_000, grain=grain)


def test_supply_020_each_city_feeds_only_the_troops_on_its_own_land():
    """SUPPLY-020, SUPPLY-030: 8,000 men stand on the land of Wei's second city (empty granary) while the capital
    holds 150 dan: what they eat comes from the second city's harvest alone, they go short of the rest, and the
    capital's granary ends exactly as it would with no second city at all."""
    from kingdoms.engine import cities

    def month(with_second: bool):
        state = world(shu=False)
        if with_second:
            _second_city(state)
            troop(state, "wei", (6, 2), 8_000)
        ctx = MonthContext(state)
        cities.grain_phase(ctx)
        return state, ctx

    alone, _ = month(False)
    both, ctx = month(True)
    (men,) = [u for u in both.units.values() if u.owner == "wei"]
    second = next(c for c in both.cities.values() if not c.is_capital)
    assert ctx.fed[men.id] == pytest.approx(second.last["troops_ate"]) and ctx.fed[men.id] < 8.0
    assert capital(both, "wei").last["troops_ate"] == 0.0
    assert capital(both, "wei").grain == pytest.approx(capital(alone, "wei").grain)


def test_supply_050_grain_reaches_another_city_only_by_wagon():
    """SUPPLY-050, SUPPLY-100, SUPPLY-120: over a month nothing moves Wei's capital's grain into its second city by
    itself; a wagon of 30 dan shipped to it adds exactly 30 to that city's granary at month end (it unloads after
    the people have eaten)."""
    from kingdoms.engine.month import resolve_month

    def month(ship: bool):
        state = world(shu=False)
        second = _second_city(state, grain=10.0)
        orders = [ShipGrain(city_id=capital(state, "wei").id, dan=30, to=second.tile)] if ship else []
        return resolve_month(state, {"wei": orders}).state.cities[second.id].grain

    without, shipped = month(False), month(True)
    assert shipped == pytest.approx(without + 30.0)


def test_supply_260_a_camp_is_stocked_by_a_wagon_sent_to_its_tile():
    """SUPPLY-260, SUPPLY-130: ship_grain 20 dan to the tile of Wei's empty camp at (4,3), 3 tiles from the capital:
    the wagon reaches it this month and the camp holds 20 dan at month end."""
    from kingdoms.engine.month import resolve_month

    state = world(shu=False)
    c = camp(state, "wei", (4, 3), 0)
    res = resolve_month(state, {"wei": [ShipGrain(city_id=capital(state, "wei").id, dan=20, to=(4, 3))]})
    assert res.state.camps[c.id].grain == pytest.approx(20.0)


def test_supply_300_a_blockaded_city_feeds_its_troops_from_its_own_granary_and_a_wagon_refills_it():
    """SUPPLY-300, CITY-220, SIEGE-170: blockaded, the capital harvests nothing; its 3,000-man garrison still eats
    3 dan from its granary (150 -> 147 before the people eat); a wagon with 40 dan that got through to the city
    then unloads into it."""
    from kingdoms.engine import cities

    state = world(shu=False)
    city = capital(state, "wei")
    gar = troop(state, "wei", WEI_CAPITAL, 3_000, rations=12.0)
    ctx = MonthContext(state)
    ctx.blockaded = {city.id}
    cities.grain_phase(ctx)
    assert ctx.fed[gar.id] == pytest.approx(3.0)
    assert city.last["troops_ate"] == pytest.approx(3.0) and city.last.get("harvest", 0.0) == 0.0
    before = city.grain
    wagon(state, "wei", (3, 2), 40, dest=WEI_CAPITAL)
    wagons_phase(ctx)
    assert city.grain == pytest.approx(before + 40.0)
