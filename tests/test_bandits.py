"""Bandits: the Ruin, bandit cities, the garrison strike (BANDIT-010..080, OPEN-2, OPEN-70, OPEN-71).

The Ruin stands on (8,10) of tests.test_sieges.world's plains map: 1,500 fortified spearmen, walls 50, militia
1,000. Every figure is worked from the rules in a comment.
"""

from __future__ import annotations

from kingdoms import ruledata as rd
from kingdoms.engine.bandits import bandits_phase, choose_strike, strike_odds
from kingdoms.engine.conquest import pass_to_bandits
from kingdoms.engine.context import MonthContext
from kingdoms.engine.sieges import garrison, militia_phase, towers_phase, walls_phase
from kingdoms.hexgrid import distance, offset_col
from kingdoms.setup import found_ruin
from tests.builders import add
from tests.test_sieges import town, world

RUIN = (8, 10)
RUIN_W = (7, 10)
RUIN_E = (9, 10)


def ruin_world(hill_west: bool = False):
    rows = ["P" * 20 for _ in range(12)]
    if hill_west:
        row = list(rows[10])
        row[offset_col(*RUIN_W)] = "H"  # (7,10): column 7 + 5 = 12
        rows[10] = "".join(row)
    state = world(rows=rows)
    ruin = found_ruin(state, RUIN)
    return state, ruin, garrison(state, ruin)


def test_bandit_040_strikes_when_the_fight_favours_it():
    """BANDIT-040: 1,500 bandit spearmen (attack 1) strike 1,000 levies (defence 1) on plains beside the Ruin.

    weights sqrt(1,500 x 1,000) = 1,224.7 vs 1,000. Levies lose 0.2 x 1,224.7 = 244.9 -> 245; bandits lose
    0.2 x 1,000 = 200 (13.3%: no rout). 245 >= 0.6 x 200 = 120: it strikes.
    """
    state, ruin, gar = ruin_world()
    levy = add(state, "wei", "levy", RUIN_W, 1_000)
    ctx = MonthContext(state)
    bandits_phase(ctx)
    assert levy.men == 755
    assert gar.men == 1_300
    assert levy.morale == 100 - 0.75 * 24.5  # 24.5% lost: it holds (under 25%)
    assert levy.tile == RUIN_W
    assert [e.audience for e in ctx.events if e.kind == "field"] == [["wei"]]  # Wei is told of the fight


def test_bandit_040_no_strike_when_the_troop_would_lose_too_little():
    """BANDIT-040: 1,000 heavy infantry fortified on hills: defence 1.5 x (1 + 0.5 + 0.25) = 2.625.

    Troop would lose 0.2 x 1,224.7 x sqrt(1 / 2.625) = 244.95 x 0.617213 = 151.2 -> 151; bandits
    0.2 x 1,000 x sqrt(2.625) = 200 x 1.620185 = 324.0 -> 324 (21.6%: no rout). 151 < 0.6 x 324 = 194.4: no strike.
    """
    state, ruin, gar = ruin_world(hill_west=True)
    heavy = add(state, "wei", "heavy_infantry", RUIN_W, 1_000, fortified=True)
    odds = strike_odds(state, gar, heavy)
    assert (odds.target_loss, odds.bandit_loss, odds.bandits_rout) == (151, 324, False)
    bandits_phase(MonthContext(state))
    assert heavy.men == 1_000 and gar.men == 1_500


def test_bandit_040_no_strike_when_the_bandits_would_rout():
    """BANDIT-040: 6,000 heavy infantry fortified on hills: bandits would lose
    0.2 x sqrt(6,000 x 1,500) x sqrt(2.625) = 600 x 1.620185 = 972.1 -> 972 (65%: rout): no strike."""
    state, ruin, gar = ruin_world(hill_west=True)
    heavy = add(state, "wei", "heavy_infantry", RUIN_W, 6_000, fortified=True)
    odds = strike_odds(state, gar, heavy)
    assert odds.bandit_loss == 972 and odds.bandits_rout and not odds.favourable
    bandits_phase(MonthContext(state))
    assert heavy.men == 6_000


def test_bandit_040_picks_the_most_favourable_target():
    """BANDIT-040: one strike a month, at the best odds: 300 catapult crew (defence 0.7) beat 1,000 levies.

    Crews would lose 0.2 x sqrt(1,500 x 300) x sqrt(1 / 0.7) = 134.16 x 1.195229 = 160.4 -> 160; bandits
    0.2 x 300 x sqrt(0.7) = 50.2 -> 50 (ratio 3.2, against the levies' 245 / 200 = 1.2).
    The crews lose 53%: they break and fall back out of the Ruin's reach, nearest Wei's capital (2,2):
    of (10,10), (10,9), (9,11) at 2 from the Ruin, (10,9) is 15 from it, the others 16.
    """
    state, ruin, gar = ruin_world()
    levy = add(state, "wei", "levy", RUIN_W, 1_000)
    cats = add(state, "shu", "catapult", RUIN_E, 300)
    assert choose_strike(state, ruin, gar).target_id == cats.id
    bandits_phase(MonthContext(state))
    assert levy.men == 1_000
    assert cats.men == 140 and gar.men == 1_450
    assert cats.tile == (10, 9)


def test_move_150_escorted_siege_train_is_covered():
    """MOVE-150: a siege train sharing a tile with its side's troop is not itself a target."""
    state, ruin, gar = ruin_world()
    add(state, "shu", "catapult", RUIN_E, 300)
    levy = add(state, "shu", "levy", RUIN_E, 1_000)
    assert choose_strike(state, ruin, gar).target_id == levy.id


def test_bandit_030_garrison_never_leaves():
    """BANDIT-030, COMBAT-150: the bandits destroy 150 levies (they lose 0.2 x sqrt(1,500 x 150) = 94.9 -> 95,
    leaving 55 < 100: destroyed) and stay in the Ruin; they stay fortified (a standing hold)."""
    state, ruin, gar = ruin_world()
    levy = add(state, "wei", "levy", RUIN_W, 150)
    bandits_phase(MonthContext(state))
    assert levy.id not in state.units
    assert gar.tile == RUIN and gar.fortified


def test_bandit_050_open_2_never_strike_civilians():
    """BANDIT-050, OPEN-2: colonists, wagons and scouts beside the Ruin are never struck."""
    state, ruin, gar = ruin_world()
    cols = add(state, "wei", "colonists", RUIN_W, 5_000, cargo=20)
    wagon = add(state, "wei", "wagon", RUIN_E, 0, cargo=30)
    scout = add(state, "wei", "scout", (8, 9), 0)
    ctx = MonthContext(state)
    bandits_phase(ctx)
    assert {cols.id, wagon.id, scout.id} <= set(state.units)
    assert not ctx.events


def test_bandit_060_intel_080_bandits_see_scouts_but_never_spies():
    """BANDIT-060, INTEL-080, INTEL-090: a Wei scout beside the Ruin, or far from any bandit, is seen by the bandits
    (they have no fog); a Wei spy beside the Ruin is not (spies are invisible to everyone)."""
    from kingdoms.engine.visibility import can_see_unit

    state, _ruin, _gar = ruin_world()
    near = add(state, "wei", "scout", RUIN_W, 0)
    far = add(state, "wei", "scout", (0, 0), 0)
    spy = add(state, "wei", "spy", RUIN_E, 0)
    assert can_see_unit(state, rd.BANDITS, near) and can_see_unit(state, rd.BANDITS, far)
    assert not can_see_unit(state, rd.BANDITS, spy)


def test_bandit_010_who_holds_bandit_cities():
    """BANDIT-010: the Ruin at start, a revolted city, and the other cities of a fallen kingdom."""
    state, ruin, _ = ruin_world()
    assert ruin.owner == rd.BANDITS
    city = town(state)
    pass_to_bandits(MonthContext(state), city, "its people starve")
    assert city.owner == rd.BANDITS


def test_bandit_020_ruin_towers_strike_kingdom_troops():
    """BANDIT-020, SIEGE-100: the Ruin's towers (walls 50) kill 1% of an adjacent troop of any kingdom, at peace or not."""
    state, ruin, _ = ruin_world()
    state.wars.clear()
    levy = add(state, "wei", "levy", RUIN_W, 2_000)
    towers_phase(MonthContext(state))
    assert levy.men == 1_980  # 2% x 50/100 = 1% of 2,000


def test_open_71_bandit_city_defended_by_walls_and_militia_only():
    """OPEN-71: a city passing to the bandits keeps no garrison; its walls repair and its militia regrows."""
    state = world()
    city = town(state)
    add(state, "shu", "spearman", city.tile, 2_000)
    city.walls, city.walls_max, city.militia = 20.0, 40.0, 400.0
    ctx = MonthContext(state)
    pass_to_bandits(ctx, city, "test")
    assert garrison(state, city) is None
    walls_phase(ctx)
    militia_phase(ctx)
    assert city.walls == 25  # +5 repair
    assert city.militia == 600  # 400 + 20% of 1,000
    assert city.queue == []


def test_bandit_080_bandits_burn_grain_and_store():
    """BANDIT-080, OPEN-19: where bandits would take a city's assets they burn them: grain and store to 0."""
    state = world()
    city = town(state)
    city.store = 44.0
    pass_to_bandits(MonthContext(state), city, "test")
    assert (city.grain, city.store) == (0, 0)


def test_bandit_strike_only_beside_the_city():
    """BANDIT-040: a troop two tiles from the Ruin is out of its garrison's reach."""
    state, ruin, gar = ruin_world()
    levy = add(state, "wei", "levy", (6, 10), 1_000)
    assert distance(levy.tile, RUIN) == 2
    bandits_phase(MonthContext(state))
    assert levy.men == 1_000
