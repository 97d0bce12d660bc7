"""Generals: command, reach, swaps, capture and release, XP, new arrivals (GEN-010..120, OPEN-40, OPEN-77)."""

from __future__ import annotations

import pytest

from kingdoms.engine.context import MonthContext, OrderFailed, rng_for
from kingdoms.engine.generals import (
    add_general_xp,
    city_fell,
    general_arrives,
    general_bonus,
    general_effect,
    general_position,
    lose_generals,
    new_general,
    new_generals_phase,
    release_general,
    run_assign_general,
    troop_destroyed,
)
from kingdoms.orders.models import AssignGeneral
from kingdoms.state import GameState, Unit
from tests import builders
from tests.builders import add, kingdom

WEI_CAPITAL = (2, 2)
SHU_CAPITAL = (9, 7)
FIELD = (6, 4)


def world(seed: int = 11, month: int = 5) -> GameState:
    """14 x 10 grassland; Wei's capital at (2,2), Shu's at (9,7); at war."""
    return builders.world(width=14, height=10, seed=seed, month=month, rotation=["shu", "wei"], capitals=True,
                          kingdoms=[kingdom("wei", "Wei", landing=WEI_CAPITAL, cities="{name} city {i}"),
                                    kingdom("shu", "Shu", landing=SHU_CAPITAL, cities="{name} city {i}")])


def troop(state: GameState, owner: str, tile: tuple[int, int], men: int = 2_000, type: str = "levy") -> Unit:
    """A troop without rations (the general tests never feed it)."""
    return add(state, owner, type, tile, men, months=0)


def capital(state: GameState, kid: str):
    return state.cities[state.kingdoms[kid].capital_id]


def assign(state: GameState, kingdom: str, general_id: int, unit_id: int) -> str:
    return run_assign_general(MonthContext(state), kingdom, AssignGeneral(general_id=general_id, unit_id=unit_id))


def capture_seed(*captured: bool, month: int = 5) -> int:
    """A game seed whose first 'general_capture' rolls this month fall below 0.40 (captured) or not, as listed (OPEN-74)."""
    for seed in range(1, 1_000):
        gen = rng_for(seed, month, "general_capture")
        if all((gen.random() < 0.40) == want for want in captured):
            return seed
    raise AssertionError("no seed found")


def check_links(state: GameState) -> None:
    """GEN-010, GEN-020: each general leads one troop (mirrored on the troop) or waits in a city, never both."""
    for g in state.generals.values():
        assert (g.unit_id is None) != (g.city_id is None)
        if g.unit_id is not None:
            assert state.units[g.unit_id].general_id == g.id
    for u in state.units.values():
        if u.general_id is not None:
            assert state.generals[u.general_id].unit_id == u.id


# --- command and reach (GEN-010..040) -----------------------------------------------------------------------


def test_gen_020_general_moves_only_with_his_troop_or_waits_in_a_city():
    """GEN-020: his position is his troop's tile (it moves, he moves) or the city he waits in."""
    state = world()
    unit = troop(state, "wei", FIELD)
    g = new_general(state, "wei", unit_id=unit.id)
    assert general_position(state, g) == FIELD
    unit.q, unit.r = 7, 4
    assert general_position(state, g) == (7, 4)
    h = new_general(state, "wei", city_id=capital(state, "wei").id)
    assert general_position(state, h) == WEI_CAPITAL
    check_links(state)


def test_gen_030_assign_reaches_troops_within_two_tiles_of_his_city():
    """GEN-030: from the capital (2,2) he takes a troop at (4,2) (2 tiles) at once; one at (5,2) (3 tiles) is refused,
    and the refusal names the troops he can reach."""
    state = world()
    g = new_general(state, "wei", city_id=capital(state, "wei").id)
    near = troop(state, "wei", (4, 2))
    far = troop(state, "wei", (5, 2))
    with pytest.raises(OrderFailed) as err:
        assign(state, "wei", g.id, far.id)
    assert err.value.code == "out_of_reach"
    assert f"#{near.id} levy (4,2)" in err.value.message
    assert "3 tiles" in err.value.message
    assign(state, "wei", g.id, near.id)
    assert near.general_id == g.id and g.city_id is None
    check_links(state)


def test_gen_030_assign_from_his_troop_within_two_tiles():
    """GEN-030, GEN-010: leading a troop at (6,4) he moves to a leaderless troop at (8,4) (2 tiles); his old troop is left
    without a general."""
    state = world()
    old = troop(state, "wei", FIELD)
    new = troop(state, "wei", (8, 4))
    g = new_general(state, "wei", unit_id=old.id)
    text = assign(state, "wei", g.id, new.id)
    assert new.general_id == g.id and old.general_id is None
    assert "takes command" in text
    check_links(state)


def test_gen_040_swap_between_troops():
    """GEN-040: G1 leads A, G2 leads B (beside it): G1 assigned to B -> G1 leads B, G2 takes A."""
    state = world()
    a, b = troop(state, "wei", FIELD), troop(state, "wei", (7, 4))
    g1 = new_general(state, "wei", unit_id=a.id)
    g2 = new_general(state, "wei", unit_id=b.id)
    assign(state, "wei", g1.id, b.id)
    assert b.general_id == g1.id and a.general_id == g2.id
    check_links(state)


def test_gen_040_swap_with_a_general_waiting_in_a_city():
    """GEN-040: G1 waits in the capital, G2 leads B at (3,2): G1 takes B and G2 waits in the capital."""
    state = world()
    city = capital(state, "wei")
    b = troop(state, "wei", (3, 2))
    g1 = new_general(state, "wei", city_id=city.id)
    g2 = new_general(state, "wei", unit_id=b.id)
    assign(state, "wei", g1.id, b.id)
    assert b.general_id == g1.id
    assert g2.city_id == city.id and g2.unit_id is None
    check_links(state)


def test_gen_010_assign_refusals():
    """GEN-010: a rival's general is unknown (the refusal lists your own); a wagon cannot be led; a rival's troop is
    unknown; assigning him to the troop he leads is a harmless repeat."""
    state = world()
    mine = troop(state, "wei", FIELD)
    g = new_general(state, "wei", unit_id=mine.id)
    theirs = new_general(state, "shu", city_id=capital(state, "shu").id)
    with pytest.raises(OrderFailed) as err:
        assign(state, "wei", theirs.id, mine.id)
    assert err.value.code == "unknown_general" and f"#{g.id} {g.name}" in err.value.message
    wagon = Unit(state.new_id(), "wei", "wagon", 7, 4, cargo=5)
    state.units[wagon.id] = wagon
    with pytest.raises(OrderFailed) as err:
        assign(state, "wei", g.id, wagon.id)
    assert err.value.code == "not_a_troop"
    with pytest.raises(OrderFailed) as err:
        assign(state, "wei", g.id, troop(state, "shu", (7, 3)).id)
    assert err.value.code == "not_your_unit"  # a rival's troop in sight; an unseen one is unknown_unit
    assert "already leads" in assign(state, "wei", g.id, mine.id)


# --- capture and release (GEN-050, GEN-060, GEN-090, OPEN-40) -----------------------------------------------


def test_gen_050_destroyed_by_a_kingdom_general_defects_on_a_capture_roll():
    """GEN-050, OPEN-40: roll < 0.40: the general defects and leads the destroying (leaderless) Shu troop."""
    state = world(seed=capture_seed(True))
    lost = troop(state, "wei", FIELD)
    killer = troop(state, "shu", (7, 4))
    g = new_general(state, "wei", unit_id=lost.id)
    ctx = MonthContext(state)
    assert troop_destroyed(ctx, lost, "shu", by_unit=killer) == "defected"
    assert g.owner == "shu" and killer.general_id == g.id
    assert {tuple(e.audience) for e in ctx.events if e.kind == "general_defected"} == {("wei",), ("shu",)}


def test_gen_050_no_capture_roll_general_escapes_to_a_troop_within_two_tiles():
    """GEN-050, GEN-060: roll >= 0.40: he escapes to Wei's leaderless troop 2 tiles away."""
    state = world(seed=capture_seed(False))
    lost = troop(state, "wei", FIELD)
    killer = troop(state, "shu", (7, 4))
    friend = troop(state, "wei", (6, 6))
    g = new_general(state, "wei", unit_id=lost.id)
    troop_destroyed(MonthContext(state), lost, "shu", by_unit=killer)
    assert g.owner == "wei" and friend.general_id == g.id


def test_gen_050_capture_chance_is_forty_percent():
    """GEN-050: over 2,000 seeded games about 40% of the generals are captured (binomial sd ~1.1%; allow 3.5%)."""
    captured = 0
    for seed in range(2_000):
        state = world(seed=seed)
        lost = troop(state, "wei", FIELD)
        new_general(state, "wei", unit_id=lost.id)
        captured += troop_destroyed(MonthContext(state), lost, "shu") == "defected"
    assert abs(captured / 2_000 - 0.40) < 0.035


def test_open_40_defector_goes_to_a_leaderless_troop_else_the_captors_nearest_city():
    """OPEN-40: the destroying troop already has a general -> the captor's leaderless troop within 2 tiles; with none,
    the captor's nearest city at any distance (Shu's capital)."""
    seed = capture_seed(True)
    state = world(seed=seed)
    lost = troop(state, "wei", FIELD)
    killer = troop(state, "shu", (7, 4))
    spare = troop(state, "shu", (8, 4))  # 2 tiles from (6,4)
    new_general(state, "shu", unit_id=killer.id)
    g = new_general(state, "wei", unit_id=lost.id)
    troop_destroyed(MonthContext(state), lost, "shu", by_unit=killer)
    assert spare.general_id == g.id
    state = world(seed=seed)
    lost = troop(state, "wei", FIELD)
    g = new_general(state, "wei", unit_id=lost.id)
    troop_destroyed(MonthContext(state), lost, "shu")
    assert g.owner == "shu" and g.city_id == capital(state, "shu").id


def test_open_40_bandits_and_hunger_never_capture():
    """OPEN-40: destroyed by bandits (or starvation, by_kingdom None) even on a capturing roll, the general is released."""
    state = world(seed=capture_seed(True))
    lost = troop(state, "wei", FIELD)
    friend = troop(state, "wei", (7, 4))
    g = new_general(state, "wei", unit_id=lost.id)
    troop_destroyed(MonthContext(state), lost, "bandits")
    assert g.owner == "wei" and friend.general_id == g.id


def test_gen_060_release_to_nearest_leaderless_troop_then_city_else_lost():
    """GEN-060, OPEN-74: from (6,4): troops at (7,3) and (5,5) are both 1 tile away -> lowest r: (7,3); a led troop
    is skipped. From (4,2) with no troop: the capital (2,2) 2 tiles away. From (10,1): nothing within 2 -> lost."""
    state = world()
    led = troop(state, "wei", (6, 3))
    new_general(state, "wei", unit_id=led.id)
    a, b = troop(state, "wei", (7, 3)), troop(state, "wei", (5, 5))
    g = new_general(state, "wei", city_id=capital(state, "wei").id)
    ctx = MonthContext(state)
    assert release_general(ctx, g.id, FIELD).startswith(f"leads #{a.id}")
    assert a.general_id == g.id and b.general_id is None
    assert release_general(ctx, g.id, (4, 2)) == f"waits in {capital(state, 'wei').name}"
    assert a.general_id is None and g.city_id == capital(state, "wei").id
    assert release_general(ctx, g.id, (10, 1)) == "lost"
    assert g.id not in state.generals
    assert any(e.kind == "general_lost" and e.audience == ["wei"] for e in ctx.events)
    check_links(state)


def test_gen_060_general_dropped_by_a_merge_does_not_rejoin_his_old_troop():
    """GEN-060, MOVE-210: the joining troop's general leaves it (still on the board) for another leaderless troop."""
    state = world()
    joiner = troop(state, "wei", FIELD)
    other = troop(state, "wei", (6, 6))
    g = new_general(state, "wei", unit_id=joiner.id)
    release_general(MonthContext(state), g.id, joiner.tile)
    assert joiner.general_id is None and other.general_id == g.id


def test_gen_090_general_in_a_fallen_city_is_captured_or_escapes():
    """GEN-090, CONQ-090, OPEN-40: captured (roll < 0.40) he waits in the fallen city for its captor (no Shu troop
    near; the city counts as the captor's whether its owner changed yet or not); escaping he goes to a Wei troop
    within 2 tiles of the city; with none there he is lost."""
    for owner_changed_first in (False, True):
        state = world(seed=capture_seed(True))
        city = capital(state, "wei")
        g = new_general(state, "wei", city_id=city.id)
        if owner_changed_first:
            city.owner = "shu"
        assert city_fell(MonthContext(state), city, "wei", "shu") == ["defected"]
        assert g.owner == "shu" and g.city_id == city.id
    state = world(seed=capture_seed(False, False))
    city = capital(state, "wei")
    g = new_general(state, "wei", city_id=city.id)
    h = new_general(state, "wei", city_id=city.id)
    friend = troop(state, "wei", (4, 2))
    city_fell(MonthContext(state), city, "wei", "shu")
    assert friend.general_id == g.id
    assert h.id not in state.generals  # the one troop is taken; no other Wei city within 2 tiles


def test_open_40_eliminated_kingdoms_generals_are_lost():
    """OPEN-40: an eliminated kingdom's generals are lost."""
    state = world()
    new_general(state, "wei", unit_id=troop(state, "wei", FIELD).id)
    new_general(state, "wei", city_id=capital(state, "wei").id)
    lose_generals(MonthContext(state), "wei")
    assert not any(g.owner == "wei" for g in state.generals.values())


# --- new generals (GEN-070, GEN-080, OPEN-77) ---------------------------------------------------------------


def test_open_77_new_general_months():
    """OPEN-77: arrivals at the start of months 19, 37, 55 (every 18 months), never at month 1."""
    assert [m for m in range(1, 80) if general_arrives(m)] == [19, 37, 55, 73]


def test_gen_070_new_general_arrives_in_the_capital():
    """GEN-070, OPEN-77: at the end of month 18 each kingdom gets a level-1, 0-XP general waiting in its capital,
    named from its list; at the end of month 17 nobody does."""
    state = world(month=17)
    new_generals_phase(MonthContext(state))
    assert not state.generals
    state.month = 18
    ctx = MonthContext(state)
    new_generals_phase(ctx)
    wei = [g for g in state.generals.values() if g.owner == "wei"]
    assert len(wei) == 1 and len(state.generals) == 2
    assert wei[0].city_id == capital(state, "wei").id and wei[0].xp == 0 and wei[0].level == 1
    assert wei[0].name == "Wei general 1"
    assert any(e.kind == "general_arrived" and e.audience == ["wei"] for e in ctx.events)


def test_gen_070_no_general_for_a_fallen_kingdom():
    """GEN-070: an eliminated kingdom gets none."""
    state = world(month=36)
    state.kingdoms["shu"].eliminated = True
    new_generals_phase(MonthContext(state))
    assert [g.owner for g in state.generals.values()] == ["wei"]


def test_gen_080_starting_general_leads_the_starting_troop():
    """GEN-080: the set-up general is level 1 with 0 XP at the head of the starting troop."""
    state = world()
    start = troop(state, "wei", WEI_CAPITAL, 3_000)
    g = new_general(state, "wei", unit_id=start.id)
    assert start.general_id == g.id and g.level == 1 and g.xp == 0
    check_links(state)


# --- XP, levels and strength (GEN-100..120) -----------------------------------------------------------------


def test_gen_100_xp_per_fight_and_levels():
    """GEN-100: +1 XP per fight; levels 2/3/4/5 at 3/7/12/18 XP; a leaderless troop's fight gives nobody XP."""
    state = world()
    unit = troop(state, "wei", FIELD)
    g = new_general(state, "wei", unit_id=unit.id)
    levels = []
    for _ in range(18):
        add_general_xp(state, unit)
        levels.append(g.level)
    assert g.xp == 18
    # XP 1..18 -> level: 1,1,2,2,2,2,3,3,3,3,3,4,4,4,4,4,4,5
    assert levels == [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 5]
    add_general_xp(state, troop(state, "wei", (8, 4)))  # no general: no error, nothing changes
    assert g.xp == 18


def test_gen_110_general_strength_factor():
    """GEN-110: level 1 x1.1 (x1.15 holding a city); level 5 (18 XP) x1.5 (x1.75); no general x1."""
    state = world()
    unit = troop(state, "wei", FIELD)
    assert general_bonus(state, unit, False) == 1.0
    g = new_general(state, "wei", unit_id=unit.id)
    assert general_bonus(state, unit, False) == pytest.approx(1.1)
    assert general_bonus(state, unit, True) == pytest.approx(1.15)
    g.xp = 18
    assert general_bonus(state, unit, False) == pytest.approx(1.5)
    assert general_bonus(state, unit, True) == pytest.approx(1.75)


def test_gen_120_briefing_line_shows_level_xp_and_effect():
    """GEN-120: level 2 at 4 XP (level 3 at 7): x1.20 in the field, x1.30 holding a city (1 + 0.15 x 2)."""
    state = world()
    g = new_general(state, "wei", unit_id=troop(state, "wei", FIELD).id)
    g.xp = 4
    text = general_effect(g)
    assert "level 2" in text and "XP 4" in text and "level 3 at 7 XP" in text
    assert "x1.20" in text and "x1.30" in text
