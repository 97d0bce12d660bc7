"""Attack previews under fog, and what standing attack orders are aimed at (COMBAT-320..420, INTEL-040..070, INTEL-220).

Previews (issue-time checks, `check_orders`) are exact only when a scout or spy watches the target (a city: a spy
report from this month or last); otherwise a RANGE over the size class's men (OPEN-49), the target taken as
untrained, at full morale, with no general (spearmen behind walls), against the attacker's true strength.
A standing attack follows the unit it was aimed at, not whatever stands on its old tile, and never strikes a city
that changed hands. Figures are worked by hand from the rules; rounding is half-up (OPEN-45).
Neighbours of (q,r): the steps of kingdoms.hexgrid.DIRECTIONS (E +1,0; W -1,0; NE +1,-1; NW 0,-1; SE 0,+1; SW -1,+1).
"""

from __future__ import annotations

import pytest

from kingdoms.engine.generals import new_general
from kingdoms.engine.land import found_city
from kingdoms.engine.month import check_orders, resolve_month
from kingdoms.orders.models import Attack, Move
from kingdoms.state import GameState, Unit
from tests.builders import add, world

# --- COMBAT-410 / INTEL-060: previews of unwatched field troops are ranges ----------------------------------


def _veteran_spearmen(men: int = 4_321, *, xp: float = 40.0, morale: float = 77.0, hunger: float = 0.0,
                      general: str = "Zhang Hidden", scout: bool = False) -> tuple[GameState, Unit, Unit]:
    """A Wei levy of 3,000 beside a level-6 Shu spearman troop led by a general, on open grassland."""
    state = world()
    levy = add(state, "wei", "levy", (3, 4), 3_000)
    spears = add(state, "shu", "spearman", (4, 4), men, xp=xp, morale=morale, hunger=hunger)
    new_general(state, "shu", unit_id=spears.id, name=general)
    if scout:
        add(state, "wei", "scout", (3, 2))  # 3 tiles from the spearmen: watched (INTEL-080)
    return state, levy, spears


def _preview(state: GameState, *orders: object) -> list[str]:
    res = check_orders(state, "wei", [], list(orders))
    assert all(r.ok for r in res), [r.message for r in res]
    return [r.message for r in res]


def test_combat_410_intel_060_unwatched_troop_preview_is_a_range():
    """COMBAT-410, INTEL-060, OPEN-49: no scout or spy watches the spearmen: the preview is a range over a medium
    troop (2,000-5,999 men), untrained, at full morale, with no general; no true figure shows.

    levy attack 1 against spearman defence 1.3 (no counter), open ground:
    2,000 men: weights sqrt(3,000 x 2,000) = 2,449.5 and 2,000; they lose 0.2 x 2,449.5 x sqrt(1/1.3) = 429.7
      -> 430, you lose 0.2 x 2,000 x sqrt(1.3) = 456.1 -> 456 (15%: you hold)
    5,999 men: weights 3,000 and sqrt(5,999 x 3,000) = 4,242.3; they lose 600 x sqrt(1/1.3) = 526.2 -> 526, you
      lose 0.2 x 4,242.3 x sqrt(1.3) = 967.4 -> 967 (32%: you break)
    """
    state, levy, spears = _veteran_spearmen()
    (text,) = _preview(state, Attack(unit_id=levy.id, to=(4, 4)))
    assert "medium" in text and "2,000" in text and "5,999" in text and "spearman" in text
    assert "they lose 430-526" in text and "you lose 456-967" in text, text
    assert "untrained" in text and "no general" in text and "can do better than the worst end" in text
    assert "you break" in text
    for hidden in ("4,321", "4321", "Zhang Hidden", "level 6", "77"):
        assert hidden not in text, (hidden, text)


def test_intel_040_unwatched_preview_does_not_depend_on_hidden_figures():
    """INTEL-040, INTEL-060: true men (within the class), XP, morale, hunger and the general change nothing shown."""
    texts = set()
    for men, xp, morale, hunger, name in ((4_321, 40.0, 77.0, 0.0, "Zhang Hidden"), (2_345, 0.0, 100.0, 0.6, "Li X"),
                                          (5_555, 12.0, 31.0, 0.2, "Ma Y")):
        state, levy, _ = _veteran_spearmen(men, xp=xp, morale=morale, hunger=hunger, general=name)
        texts.add(_preview(state, Attack(unit_id=levy.id, to=(4, 4)))[0])
    assert len(texts) == 1, texts


def test_combat_410_watched_troop_preview_is_exact():
    """COMBAT-410, INTEL-080: a scout watches the spearmen: the preview is the exact fight.

    spearmen: defence 1.3 x level 6 (1.36) x morale 77 (0.5 + 0.385 = 0.885) x general level 1 (1.1) = 1.7211;
    weights 3,000 and sqrt(4,321 x 3,000) = 3,600.4: they lose 600 x sqrt(1/1.7211) = 457.3 -> 457, you lose
    0.2 x 3,600.4 x sqrt(1.7211) = 944.7 -> 945.
    """
    state, levy, spears = _veteran_spearmen(scout=True)
    (text,) = _preview(state, Attack(unit_id=levy.id, to=(4, 4)))
    assert f"#{spears.id} spearman (4,321) at (4,4): they lose 457, you lose 945" in text, text
    assert "estimate" not in text.lower()


def test_combat_420_unwatched_chain_builds_on_the_top_of_the_range():
    """COMBAT-420: the second previewed attack meets what the first left of the target at the top of its range.

    Two Wei levies of 4,000 beside a medium Shu levy (true 4,321, unwatched). First attack, flanked by the other
    levy (x1.15), at the top of the range (5,999): they lose 0.2 x 4,000 x 1.15 = 920 (5,999 -> 5,079, morale
    100 - 0.75 x 15.34 = 88.50), you lose 0.2 x sqrt(5,999 x 4,000) = 979.7 -> 980.
    Second, flanked by the first: defence 0.5 + 88.50/200 = 0.9425; they lose 0.2 x 4,000 x sqrt(1/0.9425) x 1.15
    = 947.7 -> 948, you lose 0.2 x sqrt(5,079 x 4,000) x sqrt(0.9425) = 875.2 -> 875.
    """
    state = world()
    a = add(state, "wei", "levy", (3, 4), 4_000)
    b = add(state, "wei", "levy", (5, 4), 4_000)
    add(state, "shu", "levy", (4, 4), 4_321, xp=20.0)
    first, second = _preview(state, Attack(unit_id=a.id, to=(4, 4)), Attack(unit_id=b.id, to=(4, 4)))
    assert "they lose" in first and "-920" in first and "-980" in first, first
    assert "5,079" in second and "-948" in second and "-875" in second, second
    for text in (first, second):
        assert "4,321" not in text


def test_combat_420_watched_chain_is_exact():
    """COMBAT-420: watched, the second attack meets exactly what the first left (4,000 -> 3,080, see test_combat)."""
    state = world()
    a = add(state, "wei", "levy", (3, 4), 4_000)
    b = add(state, "wei", "levy", (5, 4), 4_000)
    add(state, "shu", "levy", (4, 4), 4_000)
    add(state, "wei", "scout", (4, 2))
    first, second = _preview(state, Attack(unit_id=a.id, to=(4, 4)), Attack(unit_id=b.id, to=(4, 4)))
    assert "levy (4,000) at (4,4): they lose 920" in first
    assert "levy (3,080) at (4,4)" in second


def test_combat_410_month_end_stays_exact():
    """COMBAT-410: only what is shown at issue time is estimated; the month-end fight uses the true troops."""
    state, levy, spears = _veteran_spearmen()
    out = resolve_month(state, {"wei": [Attack(unit_id=levy.id, to=(4, 4))]})
    # the exact fight of test_combat_410_watched_troop_preview_is_exact: 457 and 945
    assert out.state.units[spears.id].men == 4_321 - 457
    res = next(o for o in out.outcomes if o.kingdom == "wei")
    assert "they lose 457, you lose 945" in res.result, res.result


# --- COMBAT-410 / INTEL-070 / INTEL-220: city previews without a fresh spy report ---------------------------


def _walled_city(*, gar_type: str = "heavy_infantry", men: int = 3_456, walls: float = 43.0, militia: float = 900.0,
                 people: int = 10_000, report: bool = False) -> tuple[GameState, Unit, Unit]:
    state = world()
    city = found_city(state, "shu", 6, 4, people=people, grain=50, name="Chengdu")
    city.walls, city.walls_max, city.militia = walls, 100.0, militia
    gar = add(state, "shu", gar_type, (6, 4), men, xp=30.0, morale=90.0)
    new_general(state, "shu", unit_id=gar.id, name="Guan Secret")
    levy = add(state, "wei", "levy", (5, 4), 4_000)
    if report:
        state.kingdoms["wei"].memory.setdefault("reports", {})[str(city.id)] = {"month": state.month - 1}
    return state, levy, gar


def test_combat_410_intel_070_city_assault_without_report_is_a_range():
    """COMBAT-410, INTEL-070, OPEN-30: the garrison shows only as "troops" of a size class: it is taken as
    2,000-5,999 spearmen, untrained, full morale, no general, behind the walls as seen (43 -> about 45).

    walls x(1 + 45/200) = 1.225: spearman defence 1.3 x 1.225 = 1.5925; no flanking at walls 40+ (COMBAT-140).
    2,000: they lose 0.2 x sqrt(4,000 x 2,000) x sqrt(1/1.5925) = 448.3 -> 448; you lose 0.2 x 2,000 x
      sqrt(1.5925) = 504.8 -> 505.
    5,999: they lose 0.2 x 4,000 x sqrt(1/1.5925) = 633.9 -> 634; you lose 0.2 x sqrt(5,999 x 4,000) x
      sqrt(1.5925) = 1,236.3 -> 1,236 (31%: the assault breaks).
    Battering: 5 per 1,000 men = 20: walls about 45 -> 25.
    """
    state, levy, gar = _walled_city()
    (text,) = _preview(state, Attack(unit_id=levy.id, to=(6, 4)))
    assert "Chengdu" in text and "medium" in text and "spearm" in text and "2,000-5,999" in text, text
    assert "they lose 448-634" in text and "you lose 505-1,236" in text, text
    assert "45 -> 25" in text
    for hidden in (f"#{gar.id}", "heavy", "3,456", "Guan Secret", "43", "900"):
        assert hidden not in text, (hidden, text)


def test_intel_220_city_preview_does_not_depend_on_hidden_figures():
    """INTEL-040, INTEL-220: the garrison's type, men within the class, walls within what is seen, militia and people
    within the size tier change nothing shown."""
    texts = set()
    for kw in ({}, {"gar_type": "levy", "men": 5_900, "walls": 47.0, "militia": 300.0, "people": 12_000},
               {"gar_type": "archer", "men": 2_001, "walls": 42.6, "militia": 1_000.0, "people": 8_000}):
        state, levy, _ = _walled_city(**kw)
        texts.add(_preview(state, Attack(unit_id=levy.id, to=(6, 4)))[0])
    assert len(texts) == 1, texts


def test_intel_220_city_preview_with_fresh_report_is_exact():
    """INTEL-220: with a spy report from last month the assault preview is exact (the garrison by id and type)."""
    state, levy, gar = _walled_city(report=True)
    (text,) = _preview(state, Attack(unit_id=levy.id, to=(6, 4)))
    assert f"garrison #{gar.id} heavy_infantry loses" in text, text


# --- COMBAT-320 / 350: a standing attack follows its unit, not its old tile ---------------------------------


def _standing_on_levy() -> tuple[GameState, Unit, Unit]:
    """Month 1: a Wei levy at (0,4) attacks a Shu levy at (6,4), 6 tiles off: it marches 3 and the order stands."""
    state = world(width=20)
    state.rotation = ["wei", "shu"]
    levy = add(state, "wei", "levy", (0, 4), 3_000)
    target = add(state, "shu", "levy", (6, 4), 3_000)
    add(state, "wei", "scout", (6, 2))  # watches 4 tiles around (6,2)
    return state, levy, target


def test_combat_320_350_standing_attack_follows_the_unit_not_the_tile():
    """COMBAT-320, COMBAT-350: the target leaves (6,4) after Wei's slot and another Shu levy steps onto it; next month the
    standing order follows the levy it was aimed at (still in sight) and leaves the newcomer alone."""
    state, levy, target = _standing_on_levy()
    other = add(state, "shu", "levy", (7, 5), 2_000)
    s1 = resolve_month(state, {"wei": [Attack(unit_id=levy.id, to=(6, 4))],
                               "shu": [Move(unit_id=target.id, to=(8, 3)), Move(unit_id=other.id, to=(6, 4))]}).state
    assert s1.units[levy.id].standing is not None and s1.units[levy.id].tile == (3, 4)
    assert s1.units[target.id].tile == (8, 3) and s1.units[other.id].tile == (6, 4)
    out = resolve_month(s1, {})
    s2 = out.state
    assert s2.units[other.id].men == 2_000, "the newcomer on the old tile is not the target"
    res = next(o for o in out.outcomes if o.kingdom == "wei")
    assert res.ok and f"#{target.id}" in res.result, res.result
    unit = s2.units[levy.id]
    assert unit.standing is not None and tuple(unit.standing["to"]) == (8, 3)


def test_combat_370_standing_attack_on_a_unit_ends_when_it_is_out_of_sight():
    """COMBAT-370: the target left the sight of every Wei unit: the order ends, without saying where it went."""
    state, levy, target = _standing_on_levy()
    s1 = resolve_month(state, {"wei": [Attack(unit_id=levy.id, to=(6, 4))],
                               "shu": [Move(unit_id=target.id, to=(9, 4))]}).state
    scout = next(u for u in s1.units.values() if u.type == "scout")
    del s1.units[scout.id]  # nothing of Wei sees (9,4) now
    out = resolve_month(s1, {})
    res = next(o for o in out.outcomes if o.kingdom == "wei")
    assert not res.ok and res.code == "target_lost" and "(9,4)" not in res.result
    assert out.state.units[levy.id].standing is None


# --- COMBAT-370 / 380: a standing attack on a city ends when it changes hands -------------------------------


def _standing_on_city() -> tuple[GameState, Unit, int]:
    state = world(width=20)
    state.rotation = ["wei", "shu"]
    city = found_city(state, "shu", 9, 4, people=8_000, grain=50, name="Chengdu")
    levy = add(state, "wei", "levy", (0, 4), 3_000)
    add(state, "wei", "scout", (8, 2))  # keeps the city in sight
    s1 = resolve_month(state, {"wei": [Attack(unit_id=levy.id, to=(9, 4))]}).state
    assert s1.units[levy.id].standing is not None
    return s1, s1.units[levy.id], city.id


def test_combat_370_standing_attack_ends_when_the_city_changes_hands():
    """COMBAT-370: the city passes to the bandits; seen, the order ends: the troop never attacks the new owner."""
    s1, levy, cid = _standing_on_city()
    s1.cities[cid].owner = "bandits"
    out = resolve_month(s1, {})
    res = next(o for o in out.outcomes if o.kingdom == "wei")
    assert not res.ok and res.code == "target_changed_hands", res.result
    unit = out.state.units[levy.id]
    assert unit.standing is None and unit.tile == levy.tile, "it neither marches on nor strikes"


def test_combat_380_city_change_is_judged_only_when_seen_again():
    """COMBAT-380: out of sight, the troop marches on the city as the map shows it; the change of hands ends the
    order once the troop sees the city."""
    s1, levy, cid = _standing_on_city()
    scout = next(u for u in s1.units.values() if u.type == "scout")
    del s1.units[scout.id]
    s1.cities[cid].owner = "bandits"
    out = resolve_month(s1, {})  # (3,4) -> (6,4): the city at (9,4) is 3 tiles off, out of the levy's sight
    res = next(o for o in out.outcomes if o.kingdom == "wei")
    assert res.ok and "Chengdu" in res.result and "bandits" not in res.result.lower(), res.result
    s2 = out.state
    assert s2.units[levy.id].tile == (6, 4) and s2.units[levy.id].standing is not None
    out3 = resolve_month(s2, {})
    res3 = next(o for o in out3.outcomes if o.kingdom == "wei")
    assert not res3.ok and res3.code == "target_changed_hands", res3.result
    assert out3.state.cities[cid].owner == "bandits" and out3.state.units[levy.id].men == 3_000


def test_combat_380_out_of_sight_city_is_taken_as_the_map_shows_it():
    """COMBAT-380, INTEL-050: a known city out of sight is attacked as the map last showed it (Shu's): neither its
    change of hands (to the bandits) nor its loss shows when the order is given; both are judged when seen."""
    for gone in (False, True):
        state = world(width=20)
        city = found_city(state, "shu", 12, 4, people=8_000, grain=50, name="Chengdu")
        state.kingdoms["wei"].memory["cities"] = {str(city.id): {"id": city.id, "name": "Chengdu", "owner": "shu",
                                                                 "q": 12, "r": 4, "month": 2}}
        city.owner = "bandits"
        if gone:
            del state.cities[city.id]
            state.owner[state.owner == city.id] = -1
        levy = add(state, "wei", "levy", (0, 4), 3_000)
        (text,) = _preview(state, Attack(unit_id=levy.id, to=(12, 4)))
        assert "Chengdu (12,4)" in text and "bandit" not in text.lower() and "attack order stands" in text, text


def test_combat_420_attack_on_a_target_an_earlier_one_cleared_stays_queued():
    """COMBAT-420: the first previewed attack destroys the watched levy (150 men); the second, on the same tile,
    is still accepted, in case the first fails."""
    state = world()
    a = add(state, "wei", "levy", (3, 4), 8_000)
    b = add(state, "wei", "levy", (5, 4), 4_000)
    add(state, "shu", "levy", (4, 4), 150)
    add(state, "wei", "scout", (4, 2))
    res = check_orders(state, "wei", [], [Attack(unit_id=a.id, to=(4, 4)), Attack(unit_id=b.id, to=(4, 4))])
    assert res[0].ok and "destroyed" in res[0].message, res[0].message
    assert res[1].ok and "queued in case" in res[1].message, res[1].message


# --- COMBAT-200: a troop broken earlier in the month is yours to move again next month ----------------------


@pytest.mark.parametrize("aim", [(3, 4), (8, 4)])
def test_combat_200_turn_060_a_troop_broken_earlier_in_the_month_runs_no_order_of_its_own(aim):
    """COMBAT-200, TURN-060: Wei acts first; its 3,000 levies strike Shu's 1,000 at (4,4), which lose
    0.2 x sqrt(3,000 x 1,000) = 346 (35%: they break) and fall back one tile. Shu's own attack order for that troop,
    carried out later the same month (on the troop that struck it, or on one farther off that it would march
    toward), does not run: it fails saying the troop broke, and no attack order stands."""
    state = world()
    wei = add(state, "wei", "levy", (3, 4), 3_000)
    add(state, "wei", "levy", (8, 4), 2_000)
    shu = add(state, "shu", "levy", (4, 4), 1_000)
    add(state, "shu", "scout", (8, 2))  # keeps (8,4) in Shu's sight
    res = resolve_month(state, {"wei": [Attack(unit_id=wei.id, to=(4, 4))],
                                "shu": [Attack(unit_id=shu.id, to=aim)]})
    after = res.state.units[shu.id]
    assert after.men == 1_000 - 346 and after.tile != (4, 4)
    (out,) = [o for o in res.outcomes if o.kingdom == "shu"]
    assert not out.ok and out.code == "broken", out
    assert "broke" in out.result and "next month" in out.result
    assert after.standing is None and after.standing_meta is None
