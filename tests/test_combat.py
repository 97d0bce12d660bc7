"""Field combat and the attack/pillage verbs (COMBAT-*, MOVE-100, MOVE-130, MOVE-140, MOVE-150, DIPLO-060..090, BUILD-150..190).

Every battle figure is worked by hand from the rules in a comment; rounding is half-up to whole men (OPEN-45).
Worlds are open grassland unless marked; neighbours of (q,r): the steps of kingdoms.hexgrid.DIRECTIONS (E +1,0; W -1,0; NE +1,-1; NW 0,-1; SE 0,+1; SW -1,+1).
"""

from __future__ import annotations

import pytest

from kingdoms.engine.attack import run_attack
from kingdoms.engine.combat import (
    Fighter,
    field_battle,
    fighter_for,
    flank_factor,
    melee,
    occupied,
    volley,
)
from kingdoms.engine.context import OrderFailed
from kingdoms.engine.generals import new_general
from kingdoms.engine.land import found_city
from kingdoms.engine.month import check_orders, resolve_month
from kingdoms.orders.models import Attack, Hold, Move, Pillage
from kingdoms.state import Camp, Improvement
from tests.builders import add, ctx_for, order, world

# --- the exchange: worked examples of the rules (COMBAT-040..080) -------------------------------------------


def test_combat_050_070_numbers_worked_example_1():
    """COMBAT-050, COMBAT-070: 6,000 levies attack 3,000 levies on open ground, untrained, full morale."""
    state = world()
    att = add(state, "wei", "levy", (3, 4), 6_000)
    dfn = add(state, "shu", "levy", (4, 4), 3_000)
    battle = field_battle(ctx_for(state), att, dfn)
    # weights: sqrt(6,000 x 3,000) = 4,242.6 and sqrt(3,000 x 3,000) = 3,000; equal quality 1 : 1
    # defenders lose 0.2 x 4,242.6 = 848.5 -> 849 (28.3%: they rout); attackers 0.2 x 3,000 = 600
    assert (battle.defender.lost, battle.attacker.lost) == (849, 600)
    assert battle.defender.broke and not battle.attacker.broke
    # morale: 100 - 0.75 x 28.3 = 78.775 (COMBAT-170); attackers 100 - 0.75 x 10 = 92.5
    assert dfn.morale == pytest.approx(100 - 0.75 * 849 / 3_000 * 100)
    assert att.morale == pytest.approx(92.5)


def test_combat_060_counter_against_cover_worked_example_2():
    """COMBAT-060, COMBAT-110, OPEN-9: 4,000 heavy infantry against 4,000 spearmen fortified in forest."""
    state = world({(4, 4): "F"})
    att = add(state, "wei", "heavy_infantry", (3, 4), 4_000)
    dfn = add(state, "shu", "spearman", (4, 4), 4_000, fortified=True)
    battle = field_battle(ctx_for(state), att, dfn)
    # attack 1.5 x counter 1.5 = 2.25; defence 1.3 x (1 + 0.25 forest + 0.25 fortified) = 1.95
    # weights both 4,000 -> 800 x sqrt(2.25/1.95) = 859.3 -> 859; 800 x sqrt(1.95/2.25) = 744.8 -> 745
    assert (battle.defender.lost, battle.attacker.lost) == (859, 745)


def test_combat_110_120_open_8_cavalry_against_spearmen_worked_example_3():
    """COMBAT-110, COMBAT-120, OPEN-8: 4,000 cavalry charge 4,000 spearmen on open plains: x0.75 and +50% both apply."""
    state = world(fill="P")
    att = add(state, "wei", "cavalry", (3, 4), 4_000)
    dfn = add(state, "shu", "spearman", (4, 4), 4_000)
    battle = field_battle(ctx_for(state), att, dfn)
    # 2 x 0.75 = 1.5 against 1.3 x (1 + 0.5) = 1.95 -> spearmen 800 x sqrt(1.5/1.95) = 701.6 -> 702,
    # cavalry 800 x sqrt(1.95/1.5) = 912.1 -> 912
    assert (battle.defender.lost, battle.attacker.lost) == (702, 912)


def test_combat_220_pursuit_cavalry_rides_down_archers_worked_example_3b():
    """COMBAT-110, COMBAT-180, COMBAT-220, OPEN-97: 4,000 cavalry against 4,000 archers; they rout and lose 20% of the rest."""
    state = world(fill="P")
    att = add(state, "wei", "cavalry", (3, 4), 4_000)
    dfn = add(state, "shu", "archer", (4, 4), 4_000)
    battle = field_battle(ctx_for(state), att, dfn)
    # 2 x 1.5 = 3 against 1: archers lose 800 x sqrt(3) = 1,385.6 -> 1,386 (34.7%: rout),
    # then 20% of the 2,614 left = 522.8 -> 523 to pursuit; cavalry lose 800 / sqrt(3) = 461.9 -> 462
    assert (battle.defender.lost, battle.attacker.lost) == (1_386, 462)
    assert dfn.men == 4_000 - 1_386 - 523
    assert "523 more to pursuing cavalry" in battle.defender.fate


def test_combat_brief_spearmen_fortified_on_hills_against_cavalry_with_level_2_general():
    """COMBAT-020, COMBAT-050, COMBAT-070, COMBAT-120, GEN-110, OPEN-8, OPEN-9: 10,000 cavalry (level-2 general) on 6,000 fortified spearmen on hills."""
    state = world({(4, 4): "H"})
    att = add(state, "wei", "cavalry", (3, 4), 10_000)
    general = new_general(state, "wei", unit_id=att.id)
    general.xp = 3  # level 2 at 3 XP (GEN-100)
    dfn = add(state, "shu", "spearman", (4, 4), 6_000, fortified=True)
    battle = field_battle(ctx_for(state), att, dfn)
    # cavalry: attack 2 x 0.75 (against spearmen) x (1 + 0.1 x 2) = 1.8
    # spearmen: 1.3 x (1 + 0.5 hills + 0.25 fortified + 0.5 against cavalry) = 1.3 x 2.25 = 2.925
    # weights: sqrt(10,000 x 6,000) = 7,745.97 and 6,000
    # spearmen lose 0.2 x 7,745.97 x sqrt(1.8/2.925) = 1,549.19 x 0.78446 = 1,215.29 -> 1,215
    # cavalry lose 0.2 x 6,000 x sqrt(2.925/1.8) = 1,200 x 1.27475 = 1,529.71 -> 1,530
    assert (battle.defender.lost, battle.attacker.lost) == (1_215, 1_530)
    # 20.25% and 15.3% lost: neither routs; morale 100 - 15.1875 and 100 - 11.475 (COMBAT-170, COMBAT-180)
    assert not battle.defender.broke and not battle.attacker.broke
    assert dfn.morale == pytest.approx(84.8125)
    assert att.morale == pytest.approx(88.525)
    # both gain 1 XP, and so does the general (COMBAT-260, GEN-100)
    assert (att.xp, dfn.xp, general.xp) == (1, 1, 4)


def test_combat_080_arrows_worked_example_4():
    """COMBAT-080, COMBAT-090, COMBAT-110: 3,000 archers shoot 4,000 levies two tiles away; the levies cannot reply."""
    state = world()
    archers = add(state, "wei", "archer", (2, 4), 3_000)
    levies = add(state, "shu", "levy", (4, 4), 4_000)
    text = order(ctx_for(state), "wei", Attack(unit_id=archers.id, to=(4, 4)))
    # weight 3,000 (the smaller side), quality 1 x 1.5 (archers vs levy) against 1:
    # 0.12 x 3,000 x sqrt(1.5) = 440.9 -> 441; no return fire at 2 tiles
    assert levies.men == 4_000 - 441 and archers.men == 3_000
    assert archers.tile == (2, 4), "shooters never advance"
    assert "they lose 441" in text


def test_combat_090_return_fire_between_archers_open_96():
    """COMBAT-090, OPEN-96: archers on hills shoot back with their terrain; the shooters' defence is plain."""
    state = world({(4, 4): "H"})
    a = add(state, "wei", "archer", (2, 4), 3_000)
    d = add(state, "shu", "archer", (4, 4), 2_000)
    battle = field_battle(ctx_for(state), a, d)
    # target defence 1 x 1.5 (hills); shooters' weight sqrt(3,000 x 2,000) = 2,449.5
    # target loses 0.12 x 2,449.5 x sqrt(1/1.5) = 240.0 -> 240
    # return fire 1 x 1.5 (hills) against plain defence 1: 0.12 x 2,000 x sqrt(1.5) = 293.9 -> 294
    assert (battle.defender.lost, battle.attacker.lost) == (240, 294)
    assert battle.reply == "return fire"


def test_combat_190_open_27_94_melee_strike_back_and_shooters_never_break():
    """COMBAT-090, COMBAT-190, OPEN-27, OPEN-94: levies beside archers strike back in melee; the archers lose no morale."""
    state = world()
    a = add(state, "wei", "archer", (3, 4), 1_000)
    d = add(state, "shu", "levy", (4, 4), 8_000)
    battle = field_battle(ctx_for(state), a, d)
    # volley: weight 1,000, 1 x 1.5 against 1 -> 0.12 x 1,000 x 1.2247 = 146.97 -> 147
    # strike back: levy weight sqrt(8,000 x 1,000) = 2,828.4, defence 1 against the archers' defence 1:
    # 0.2 x 2,828.4 = 565.7 -> 566 (56.6% of the archers)
    assert (battle.defender.lost, battle.attacker.lost) == (147, 566)
    assert battle.reply == "strike back"
    assert not battle.attacker.broke and a.morale == 100 and a.tile == (3, 4)


def test_combat_090_melee_target_out_of_reach_does_no_harm():
    """COMBAT-090: a melee troop two tiles away cannot reply to a volley."""
    res = volley(Fighter(3_000, 1.5), Fighter(4_000, 1.0))
    assert res.att_loss == 0 and res.dfn_loss == 441  # 0.12 x 3,000 x sqrt(1.5) = 440.9


def test_combat_040_both_strike_from_strength_before_the_clash():
    """COMBAT-040: the losses of both sides come from the strengths before the exchange (order-free)."""
    a, d = Fighter(5_000, 1.2), Fighter(3_000, 1.0)
    res = melee(a, d)
    # weights sqrt(5,000 x 3,000) = 3,873.0 and 3,000; d loses 0.2 x 3,873 x sqrt(1.2) = 848.5 -> 849 (half up);
    # a loses 0.2 x 3,000 / sqrt(1.2) = 547.7 -> 548
    assert (res.dfn_loss, res.att_loss) == (849, 548)


# --- quality (COMBAT-020, OPEN-9, OPEN-10, OPEN-95, OPEN-98, OPEN-102) --------------------------------------


def test_combat_020_open_9_training_morale_hunger_multiply():
    """COMBAT-020, SUPPLY-190: level 2 (7 XP) x1.12, morale 60 x0.8, hunger 2 x0.6 all multiply."""
    state = world(fill="P")
    levy = add(state, "shu", "levy", (4, 4), 3_000, xp=7, morale=60, hunger=2)
    # defence 1 x 1.12 x (0.5 + 60/200) x (1 - 0.2 x 2) = 1.12 x 0.8 x 0.6 = 0.5376
    assert fighter_for(state, levy, "defend", "levy").quality == pytest.approx(0.5376)
    levy.hunger = 5  # 1 - 0.2 x 5 = 0 -> at least 0.2
    assert fighter_for(state, levy, "defend", "levy").quality == pytest.approx(1.12 * 0.8 * 0.2)


def test_combat_030_open_9_field_bonuses_add_up():
    """COMBAT-030, OPEN-9: hills + fortified = x1.75 (summed, not 1.5 x 1.25); fortify ends with an attack."""
    state = world({(4, 4): "H"})
    spear = add(state, "shu", "spearman", (4, 4), 3_000, fortified=True)
    assert fighter_for(state, spear, "defend", "levy").quality == pytest.approx(1.3 * 1.75)
    enemy = add(state, "wei", "levy", (6, 4), 500)
    # the spearmen strike (beside it first): fortification ends with their own attack
    enemy.q = 5
    field_battle(ctx_for(state), spear, enemy)
    assert spear.fortified is False


def test_combat_120_spearmen_in_a_city_multiply_by_1_5():
    """COMBAT-120, SIEGE-020, OPEN-8: in a city x1.5 (not +50%), times walls x(1 + 40/200)."""
    state = world({(4, 4): "H"})
    city = found_city(state, "shu", 4, 4, people=10_000, grain=100, name="Hanzhong")
    city.walls = 40
    spear = add(state, "shu", "spearman", (4, 4), 3_000, fortified=True)
    inside = fighter_for(state, spear, "defend", "cavalry", in_city_defence=True, walls=city.walls)
    # 1.3 x (1 + 0.5 hills + 0.25 fortified) x 1.5 x 1.2 = 4.095
    assert inside.quality == pytest.approx(4.095)
    # the same troop in the field: 1.3 x (1 + 0.5 + 0.25 + 0.5) = 2.925
    state.cities.clear()
    assert fighter_for(state, spear, "defend", "cavalry").quality == pytest.approx(2.925)


def test_combat_100_open_95_archers_into_a_city_halve_their_quality():
    """COMBAT-100, OPEN-95: archers shooting into a city x0.5 on their quality; catapults unaffected."""
    state = world()
    archers = add(state, "wei", "archer", (3, 4), 2_000)
    engines = add(state, "wei", "catapult", (2, 4), 500)
    assert fighter_for(state, archers, "shoot", None, into_city=True).quality == pytest.approx(0.5)
    assert fighter_for(state, engines, "shoot", None, into_city=True).quality == pytest.approx(0.3)
    # losses go with sqrt(quality): x0.5 cuts them by sqrt(0.5) = 0.707, not by half
    full = volley(Fighter(2_000, 1.0), Fighter(2_000, 1.0)).dfn_loss  # 0.12 x 2,000 = 240
    half = volley(Fighter(2_000, 0.5), Fighter(2_000, 1.0)).dfn_loss  # 240 x 0.7071 = 169.7 -> 170
    assert (full, half) == (240, 170)


def test_open_102_counters_only_on_the_attacking_side():
    """COMBAT-110, OPEN-102: archers defending get no counter; return fire carries none either."""
    state = world()
    archers = add(state, "shu", "archer", (4, 4), 2_000)
    cav = add(state, "wei", "cavalry", (3, 4), 2_000)
    levy = add(state, "wei", "levy", (2, 4), 2_000)
    assert fighter_for(state, cav, "attack", archers).quality == pytest.approx(3.0)  # 2 x 1.5
    assert fighter_for(state, archers, "defend", cav).quality == pytest.approx(1.0)
    # return fire on levies: ranged 1 x (1 + 0 terrain), no x1.5 against levy
    assert fighter_for(state, archers, "return_fire", levy).quality == pytest.approx(1.0)
    assert fighter_for(state, archers, "shoot", levy).quality == pytest.approx(1.5)


def test_gen_110_garrison_general_and_no_walls_on_a_sortie_open_98():
    """GEN-110, OPEN-98: a garrison's general counts x(1 + 0.15 x level); striking out it gets no walls."""
    state = world()
    city = found_city(state, "wei", 4, 4, people=10_000, grain=100, name="Xuchang")
    city.walls = 100
    gar = add(state, "wei", "levy", (4, 4), 3_000)
    general = new_general(state, "wei", unit_id=gar.id)
    general.xp = 7  # level 3
    target = add(state, "shu", "levy", (5, 4), 3_000)
    # attack 1 x (1 + 0.15 x 3) = 1.45: no walls factor on its blow
    assert fighter_for(state, gar, "attack", target).quality == pytest.approx(1.45)
    # in the field the same general gives x1.3
    field = add(state, "wei", "levy", (2, 2), 3_000)
    general.unit_id, gar.general_id, field.general_id = field.id, None, general.id
    assert fighter_for(state, field, "attack", target).quality == pytest.approx(1.3)


# --- flanking (COMBAT-130, COMBAT-140, OPEN-37) -------------------------------------------------------------


def test_combat_130_flanking_multiplies_the_targets_losses_only():
    """COMBAT-130, OPEN-37: two more own troops beside the target: x1.3 on its losses; the strike back unchanged."""
    state = world()
    att = add(state, "wei", "levy", (3, 4), 4_000)
    dfn = add(state, "shu", "levy", (4, 4), 4_000)
    add(state, "wei", "levy", (5, 4), 1_000)
    add(state, "wei", "levy", (4, 3), 1_000)
    add(state, "wei", "catapult", (4, 5), 300)  # siege trains do not flank
    battle = field_battle(ctx_for(state), att, dfn)
    # 800 x 1.3 = 1,040 for the target; the attackers still lose 800
    assert (battle.defender.lost, battle.attacker.lost) == (1_040, 800)


def test_combat_130_cavalry_flank_harder_and_the_cap_is_50_percent():
    """COMBAT-130: cavalry beside the target +25%; at most +50% in all."""
    state = world()
    att = add(state, "wei", "levy", (3, 4), 4_000)
    add(state, "shu", "levy", (4, 4), 4_000)
    add(state, "wei", "cavalry", (5, 4), 1_000)
    assert flank_factor(state, att, (4, 4)) == pytest.approx(1.25)
    add(state, "wei", "levy", (4, 3), 1_000)
    add(state, "wei", "levy", (4, 5), 1_000)
    add(state, "wei", "levy", (5, 3), 1_000)
    # 0.25 + 0.15 x 3 = 0.70 -> capped at 0.50
    assert flank_factor(state, att, (4, 4)) == pytest.approx(1.5)


def test_combat_140_walls_of_40_shield_a_city_from_flanking():
    """COMBAT-140: a city's defenders cannot be flanked at walls >= 40; below 40 they are."""
    state = world()
    att = add(state, "wei", "levy", (3, 4), 4_000)
    add(state, "wei", "levy", (5, 4), 1_000)
    assert flank_factor(state, att, (4, 4), walls=40) == 1.0
    assert flank_factor(state, att, (4, 4), walls=39) == pytest.approx(1.15)


# --- after the blow (COMBAT-150..260) -----------------------------------------------------------------------


def test_combat_150_advance_into_the_cleared_tile_and_200_fall_back_away():
    """COMBAT-150, COMBAT-200, OPEN-75: the routed defender falls back away (farther first, then lowest r); the attacker
    advances at no cost."""
    state = world()
    att = add(state, "wei", "levy", (3, 4), 6_000)
    dfn = add(state, "shu", "levy", (4, 4), 3_000)
    ctx = ctx_for(state)
    battle = field_battle(ctx, att, dfn)
    # options not nearer (3,4): (5,4) and (5,3) at 2, (4,3) (4,5) (3,5) at 1 -> farther first, then lowest r: (5,3)
    assert dfn.tile == (5, 3)
    assert battle.advanced_to == (4, 4) and att.tile == (4, 4)
    assert ctx.moves(att) == 3, "the advance costs no moves"
    assert ctx.moves(dfn) == 0 and dfn.standing is None


def test_combat_200_fall_back_out_of_other_enemies_reach_then_toward_home():
    """COMBAT-200, OPEN-75: out of other enemies' reach first, then nearest its own camps and cities, then farther."""

    def rout(other_enemy: bool):
        state = world()
        att = add(state, "wei", "levy", (3, 4), 6_000)
        dfn = add(state, "shu", "levy", (4, 4), 3_000)
        state.camps[99] = Camp(99, "shu", 6, 5, 10.0)
        if other_enemy:
            add(state, "wei", "levy", (6, 4), 1_000)  # (5,4) is beside it: in its reach
        field_battle(ctx_for(state), att, dfn)
        return dfn.tile

    # candidates not nearer (3,4): (5,4) and (5,3) at 2, (4,3) (4,5) (3,5) at 1; camp (6,5) is 2 from (5,4) and
    # (4,5), 3 from (5,3) and (3,5), 4 from (4,3). Alone: (5,4) and (4,5) tie on the camp, (5,4) is farther.
    assert rout(False) == (5, 4)
    # with an enemy at (6,4), (5,4) is in its reach: (4,5) is the nearest the camp out of reach
    assert rout(True) == (4, 5)


def test_combat_180_rout_at_morale_20():
    """COMBAT-180: ending a fight at morale <= 20 breaks a troop even with small losses."""
    state = world()
    att = add(state, "wei", "levy", (3, 4), 1_000)
    dfn = add(state, "shu", "levy", (4, 4), 5_000, morale=24)
    battle = field_battle(ctx_for(state), att, dfn)
    # defence 1 x (0.5 + 24/200) = 0.62; loss 0.2 x 1,000 x sqrt(1/0.62) = 254.0 -> 254 (5.1%): morale
    # 24 - 0.75 x 5.08 = 20.19 ... still above 20 -> holds
    assert battle.defender.lost == 254 and not battle.defender.broke
    dfn2 = add(state, "shu", "levy", (4, 6), 5_000, morale=23)
    att2 = add(state, "wei", "levy", (3, 6), 1_000)
    battle2 = field_battle(ctx_for(state), att2, dfn2)
    # quality 0.5 + 23/200 = 0.615; loss 0.2 x 1,000 x sqrt(1/0.615) = 255.0 -> 255 (5.1%): 23 - 3.825 = 19.2 -> breaks
    assert battle2.defender.lost == 255 and battle2.defender.broke


def test_combat_230_encircled_troop_surrenders():
    """COMBAT-230: a routed troop with nowhere to flee is destroyed."""
    marks = {t: "M" for t in [(5, 4), (5, 3), (4, 3), (3, 5), (4, 5)]}
    state = world(marks)
    att = add(state, "wei", "levy", (3, 4), 6_000)
    dfn = add(state, "shu", "levy", (4, 4), 3_000)
    battle = field_battle(ctx_for(state), att, dfn)
    assert battle.defender.destroyed and dfn.id not in state.units
    assert "encircled" in battle.defender.fate
    assert att.tile == (4, 4)


def test_combat_240_defeat_shock_within_3_tiles_between_kingdoms():
    """COMBAT-240: other troops of the routed side within 3 tiles lose 10 morale; farther ones do not."""
    state = world(width=14)
    att = add(state, "wei", "levy", (3, 4), 6_000)
    dfn = add(state, "shu", "levy", (4, 4), 3_000)
    near = add(state, "shu", "levy", (7, 4), 1_000)  # 3 tiles from (4,4)
    far = add(state, "shu", "levy", (8, 4), 1_000)  # 4 tiles
    field_battle(ctx_for(state), att, dfn)
    assert near.morale == 90 and far.morale == 100


def test_combat_240_no_defeat_shock_from_a_volley():
    """COMBAT-240: the shock comes from melee only."""
    state = world()
    a = add(state, "wei", "archer", (2, 4), 8_000)
    d = add(state, "shu", "levy", (4, 4), 500)
    other = add(state, "shu", "levy", (5, 5), 1_000)
    battle = field_battle(ctx_for(state), a, d)
    assert battle.defender.broke or battle.defender.destroyed
    assert other.morale == 100


def test_combat_250_break_up_under_100_men():
    """COMBAT-250: a troop left with fewer than 100 men is destroyed."""
    state = world()
    att = add(state, "wei", "levy", (3, 4), 5_000)
    dfn = add(state, "shu", "levy", (4, 4), 150)
    battle = field_battle(ctx_for(state), att, dfn)
    # weight sqrt(5,000 x 150) = 866.0 -> 0.2 x 866 = 173.2: all 150 die
    assert battle.defender.lost == 150 and battle.defender.destroyed and dfn.id not in state.units


def test_combat_280_occupied_tile_yields_nothing():
    """COMBAT-280, OPEN-42: an enemy fighting troop on a tile occupies it; own troops, civilians or peace do not."""
    state = world()
    add(state, "wei", "levy", (4, 4), 500)
    add(state, "wei", "wagon", (5, 4), cargo=10)
    assert occupied(state, 4, 4, "shu") is True
    assert occupied(state, 4, 4, "wei") is False
    assert occupied(state, 5, 4, "shu") is False
    state.wars = []
    assert occupied(state, 4, 4, "shu") is False
    assert occupied(state, 4, 4, "bandits") is True


# --- the attack verb (COMBAT-010, 290..400) -----------------------------------------------------------------


def test_combat_290_cavalry_hit_and_run_turn_080():
    """COMBAT-290, TURN-080, TURN-090: cavalry spend 2 of 5 moves on an attack, then ride off with the rest."""
    state = world()
    cav = add(state, "wei", "cavalry", (3, 4), 2_000)
    add(state, "shu", "levy", (4, 4), 6_000)
    ctx = ctx_for(state)
    order(ctx, "wei", Attack(unit_id=cav.id, to=(4, 4)))
    assert ctx.moves(cav) == 3
    order(ctx, "wei", Move(unit_id=cav.id, to=(0, 4)))
    assert cav.tile == (0, 4) and ctx.moves(cav) == 0


def test_combat_290_open_29_cavalry_approach_then_strike():
    """OPEN-29: moves = approach + 2; a levy spends all its moves on an attack."""
    state = world()
    cav = add(state, "wei", "cavalry", (1, 4), 2_000)
    add(state, "shu", "levy", (4, 4), 6_000)
    add(state, "wei", "scout", (4, 2))  # sight on the target (a troop sees 2 tiles, INTEL-010)
    ctx = ctx_for(state)
    text = order(ctx, "wei", Attack(unit_id=cav.id, to=(4, 4)))
    # 2 steps to (3,4), then 2 for the attack: 5 - 4 = 1 left
    assert "marches (1,4) -> (3,4)" in text and ctx.moves(cav) == 1
    levy = add(state, "wei", "levy", (1, 6), 2_000)
    add(state, "shu", "levy", (3, 6), 500)
    order(ctx, "wei", Attack(unit_id=levy.id, to=(3, 6)))
    assert ctx.moves(levy) == 0


def test_combat_010_one_attack_a_month():
    """COMBAT-010: a troop attacks at most once a month; scouts do not attack at all."""
    state = world()
    cav = add(state, "wei", "cavalry", (3, 4), 2_000)
    add(state, "shu", "levy", (4, 4), 6_000)
    add(state, "shu", "levy", (3, 5), 6_000)
    ctx = ctx_for(state)
    order(ctx, "wei", Attack(unit_id=cav.id, to=(4, 4)))
    with pytest.raises(OrderFailed) as err:
        order(ctx, "wei", Attack(unit_id=cav.id, to=(3, 5)))
    assert err.value.code == "already_attacked"
    scout = add(state, "wei", "scout", (2, 5))
    with pytest.raises(OrderFailed) as err:
        order(ctx, "wei", Attack(unit_id=scout.id, to=(3, 5)))
    assert err.value.code == "not_a_fighter"


def test_combat_300_move_and_attack_melee_strikes_on_its_own_march():
    """COMBAT-300, COMBAT-310: a melee troop two tiles off marches beside the target and strikes with its moves spent."""
    state = world({(3, 4): "F"})
    levy = add(state, "wei", "levy", (1, 4), 3_000)
    target = add(state, "shu", "levy", (4, 4), 3_000)
    add(state, "wei", "scout", (4, 2))
    ctx = ctx_for(state)
    text = order(ctx, "wei", Attack(unit_id=levy.id, to=(4, 4)))
    # tiles beside (4,4): (3,4) forest (1 + 2 = 3 moves), (4,3) and (3,5) 3 grass steps each: all spend the
    # whole month; the tie goes to the lowest r (OPEN-66): (4,3). Arrived with no moves, it still strikes.
    assert "marches (1,4) -> (4,3)" in text and "attacks" in text
    assert target.men < 3_000 and ctx.moves(levy) == 0


def test_combat_310_moves_spent_on_an_earlier_move_forbid_the_attack():
    """COMBAT-310: a troop that spent its moves on a move order cannot attack that month."""
    state = world()
    levy = add(state, "wei", "levy", (0, 4), 3_000)
    add(state, "shu", "levy", (4, 4), 3_000)
    ctx = ctx_for(state)
    order(ctx, "wei", Move(unit_id=levy.id, to=(3, 4)))
    assert levy.tile == (3, 4) and ctx.moves(levy) == 0
    with pytest.raises(OrderFailed) as err:
        order(ctx, "wei", Attack(unit_id=levy.id, to=(4, 4)))
    assert err.value.code == "no_moves"


def test_combat_300_shooters_take_the_nearest_tile_at_full_range():
    """COMBAT-300: archers march to the nearest free tile at distance 2 and shoot with a move left."""
    state = world()
    archers = add(state, "wei", "archer", (0, 4), 3_000)
    levies = add(state, "shu", "levy", (4, 4), 4_000)
    add(state, "wei", "scout", (3, 3))  # sight on the target
    ctx = ctx_for(state)
    order(ctx, "wei", Attack(unit_id=archers.id, to=(4, 4)))
    # (2,4) is at distance 2, two moves away: one move left to shoot (441 as in worked example 4)
    assert archers.tile == (2, 4) and levies.men == 4_000 - 441


def test_combat_310_shooters_need_a_move_left():
    """COMBAT-310: archers that reach range with no move left shoot next month (the order stands)."""
    state = world({(1, 4): "F", (2, 4): "F", (1, 5): "F", (2, 3): "F", (1, 3): "F", (2, 5): "F"})
    archers = add(state, "wei", "archer", (0, 4), 3_000)
    levies = add(state, "shu", "levy", (4, 4), 4_000)
    add(state, "wei", "scout", (3, 3))
    ctx = ctx_for(state)
    text = order(ctx, "wei", Attack(unit_id=archers.id, to=(4, 4)))
    assert levies.men == 4_000
    assert archers.standing is not None and archers.standing["action"] == "attack", text


def test_combat_320_attack_follows_a_target_that_moved_first():
    """COMBAT-320, TURN-040: Shu moves first; Wei's attack follows the levy while it is in sight and strikes it."""
    state = world()
    state.rotation = ["shu", "wei"]
    att = add(state, "wei", "levy", (3, 4), 3_000)
    target = add(state, "shu", "levy", (4, 4), 3_000)
    out = resolve_month(state, {"shu": [Move(unit_id=target.id, to=(5, 3))],
                                "wei": [Attack(unit_id=att.id, to=(4, 4))]})
    res = {o.kingdom: o for o in out.outcomes}
    # (5,3) is 2 tiles from (3,4): still in sight; the levy steps beside it, only as far as needed, and strikes
    assert res["wei"].ok and "at (5,3)" in res["wei"].result, res["wei"].result
    assert out.state.units[att.id].tile in {(4, 3), (4, 4)}
    assert out.state.units[target.id].men < 3_000


def test_combat_330_target_into_a_city_calls_the_attack_off():
    """COMBAT-330: a target that moved into a city is not followed (that would be an assault)."""
    state = world()
    state.rotation = ["shu", "wei"]
    found_city(state, "shu", 5, 4, people=8_000, grain=50, name="Chengdu")
    att = add(state, "wei", "levy", (3, 4), 3_000)
    target = add(state, "shu", "levy", (4, 4), 3_000)
    out = resolve_month(state, {"shu": [Move(unit_id=target.id, to=(5, 4))],
                                "wei": [Attack(unit_id=att.id, to=(4, 4))]})
    wei = next(o for o in out.outcomes if o.kingdom == "wei")
    assert not wei.ok and wei.code == "target_escaped"


def test_combat_330_target_under_escort_calls_the_attack_off():
    """COMBAT-330: a siege train that moved under the cover of its own troop is not followed."""
    state = world()
    state.rotation = ["shu", "wei"]
    att = add(state, "wei", "levy", (3, 4), 3_000)
    engines = add(state, "shu", "catapult", (4, 4), 400)
    add(state, "shu", "spearman", (5, 4), 3_000)
    out = resolve_month(state, {"shu": [Move(unit_id=engines.id, to=(5, 4))],
                                "wei": [Attack(unit_id=att.id, to=(4, 4))]})
    wei = next(o for o in out.outcomes if o.kingdom == "wei")
    assert not wei.ok and wei.code == "target_escaped"


def test_combat_340_hold_strikes_only_from_where_it_stands():
    """COMBAT-340: with hold an out-of-reach target is not followed; nothing moves and no order stands."""
    state = world()
    levy = add(state, "wei", "levy", (2, 4), 3_000)
    add(state, "shu", "levy", (4, 4), 3_000)
    ctx = ctx_for(state)
    with pytest.raises(OrderFailed) as err:
        order(ctx, "wei", Attack(unit_id=levy.id, to=(4, 4), hold=True))
    assert err.value.code == "out_of_reach"
    assert levy.tile == (2, 4) and levy.standing is None


def test_combat_350_standing_attack_marches_and_strikes_later():
    """COMBAT-350, COMBAT-370: an attack out of this month's reach stands, aimed at the target's tile, and strikes once in reach."""
    state = world(width=16)
    levy = add(state, "wei", "levy", (0, 4), 3_000)
    target = add(state, "shu", "levy", (6, 4), 3_000)
    add(state, "wei", "scout", (6, 2))  # keeps the target in sight
    out = resolve_month(state, {"wei": [Attack(unit_id=levy.id, to=(6, 4))]})
    s1 = out.state
    assert s1.units[levy.id].tile == (3, 4)
    assert s1.units[levy.id].standing["action"] == "attack"
    out2 = resolve_month(s1, {})
    s2 = out2.state
    assert s2.units[target.id].men < 3_000 if target.id in s2.units else True
    assert s2.units[levy.id].standing is None
    assert any(o.result.startswith("standing:") and "attacks" in o.result for o in out2.outcomes)


def test_turn_150_hold_after_an_unreachable_attack_ends_it():
    """TURN-130, TURN-150, COMBAT-370: an attack that must stand, then hold in the same month: no attack order remains."""
    state = world(width=16)
    levy = add(state, "wei", "levy", (0, 4), 3_000)
    add(state, "shu", "levy", (6, 4), 3_000)
    add(state, "wei", "scout", (6, 2))
    out = resolve_month(state, {"wei": [Attack(unit_id=levy.id, to=(6, 4)), Hold(unit_ids=[levy.id])]})
    unit = out.state.units[levy.id]
    assert unit.standing is None and unit.fortified


def test_combat_390_garrison_holds_its_city_unless_pursue():
    """COMBAT-390, OPEN-53: a garrison strikes what it reaches from inside and stays; pursue marches it out."""
    state = world()
    found_city(state, "wei", 3, 4, people=10_000, grain=100, name="Xuchang")
    gar = add(state, "wei", "levy", (3, 4), 6_000)
    add(state, "shu", "levy", (4, 4), 1_000)
    far = add(state, "shu", "levy", (5, 3), 1_000)
    ctx = ctx_for(state)
    order(ctx, "wei", Attack(unit_id=gar.id, to=(4, 4)))
    assert gar.tile == (3, 4), "a garrison strikes and stays at its post (COMBAT-150)"
    ctx2 = ctx_for(state)
    with pytest.raises(OrderFailed) as err:
        order(ctx2, "wei", Attack(unit_id=gar.id, to=(5, 3)))
    assert err.value.code == "out_of_reach"
    order(ctx2, "wei", Attack(unit_id=gar.id, to=(5, 3), pursue=True))
    assert gar.tile != (3, 4) and (far.men < 1_000 or far.id not in state.units)


def test_combat_390_garrison_never_breaks_when_striking_out():
    """COMBAT-210: a garrison striking from its own city does not break, whatever it loses."""
    state = world()
    found_city(state, "wei", 3, 4, people=10_000, grain=100, name="Xuchang")
    gar = add(state, "wei", "levy", (3, 4), 1_000)
    add(state, "shu", "heavy_infantry", (4, 4), 9_000)
    battle = field_battle(ctx_for(state), gar, state.units_at(4, 4)[0])
    assert battle.attacker.lost / 1_000 >= 0.25 and not battle.attacker.broke and gar.tile == (3, 4)


def test_combat_400_lone_scout_slips_away_and_cavalry_ride_it_down():
    """COMBAT-400, OPEN-75: attacked alone a scout slips 2 tiles away from the attacker; cavalry destroy it."""
    state = world()
    levy = add(state, "wei", "levy", (3, 4), 2_000)
    scout = add(state, "shu", "scout", (4, 4))
    text = order(ctx_for(state), "wei", Attack(unit_id=levy.id, to=(4, 4)))
    # tiles at distance 2 from (4,4), farthest from (3,4) (distance 3): (6,3), (6,2)... lowest r first -> (6,2)
    assert scout.tile == (6, 2) and "slips away" in text
    assert levy.tile == (4, 4), "the attacker moves into the tile it cleared"
    cav = add(state, "wei", "cavalry", (5, 2), 2_000)
    order(ctx_for(state), "wei", Attack(unit_id=cav.id, to=(6, 2)))
    assert scout.id not in state.units


def test_move_100_140_lone_wagon_captured_and_colonists_destroyed():
    """MOVE-100, MOVE-140, SUPPLY-170: an attack captures a lone wagon with its grain and destroys lone colonists."""
    state = world()
    levy = add(state, "wei", "levy", (3, 4), 2_000)
    wagon = add(state, "shu", "wagon", (4, 4), cargo=30.0)
    ctx = ctx_for(state)
    text = order(ctx, "wei", Attack(unit_id=levy.id, to=(4, 4)))
    assert wagon.owner == "wei" and wagon.cargo == 30.0 and "captured" in text
    assert levy.id in ctx.attacked, "capturing a wagon is the troop's attack of the month"
    other = add(state, "wei", "levy", (5, 6), 2_000)
    colonists = add(state, "shu", "colonists", (6, 6), men=5_000)
    order(ctx, "wei", Attack(unit_id=other.id, to=(6, 6)))
    assert colonists.id not in state.units


def test_move_130_escorted_wagon_lost_only_when_the_escort_is_beaten_off():
    """MOVE-130: the attacker fights the escort; the wagon falls when the escort is beaten off the tile."""
    state = world()
    att = add(state, "wei", "levy", (3, 4), 8_000)
    escort = add(state, "shu", "levy", (4, 4), 2_000)
    wagon = add(state, "shu", "wagon", (4, 4), cargo=20.0)
    battle = field_battle(ctx_for(state), att, escort)
    assert battle.defender.broke or battle.defender.destroyed
    assert wagon.owner == "wei" and any("wagon" in s for s in battle.spoils)


def test_move_160_a_shooting_siege_train_takes_the_strike_back_itself():
    """MOVE-160, COMBAT-090, OPEN-94: when an escorted siege train shoots, the strike back hits it, not its escort."""
    state = world()
    engines = add(state, "wei", "catapult", (3, 4), 500)
    escort = add(state, "wei", "levy", (3, 4), 3_000)
    target = add(state, "shu", "levy", (4, 4), 2_000)
    order(ctx_for(state), "wei", Attack(unit_id=engines.id, to=(4, 4)))
    # volley: weight 500, ranged 0.3 against defence 1: 0.12 x 500 x sqrt(0.3) = 32.9 -> 33
    # strike back from the next tile: weight sqrt(2,000 x 500) = 1,000, defence 1 against the crew's 0.7:
    # 0.2 x 1,000 x sqrt(1/0.7) = 239.0 -> 239
    assert target.men == 2_000 - 33 and engines.men == 500 - 239 and escort.men == 3_000


def test_move_150_siege_train_escorted_attack_strikes_the_troop():
    """MOVE-150, OPEN-52: an attack on a tile with a troop and a siege train strikes the troop."""
    state = world()
    att = add(state, "wei", "levy", (3, 4), 2_000)
    troop = add(state, "shu", "levy", (4, 4), 2_000)
    engines = add(state, "shu", "catapult", (4, 4), 400)
    order(ctx_for(state), "wei", Attack(unit_id=att.id, to=(4, 4)))
    assert troop.men < 2_000 and engines.men == 400


def test_supply_290_cavalry_burn_a_defended_camp_for_10_percent_more():
    """SUPPLY-290: cavalry attacking a levy in its camp burn it; the defenders lose 10% more."""
    state = world(fill="P")
    state.camps[50] = Camp(50, "shu", 4, 4, 40.0)
    cav = add(state, "wei", "cavalry", (3, 4), 4_000)
    dfn = add(state, "shu", "levy", (4, 4), 4_000)
    battle = field_battle(ctx_for(state), cav, dfn)
    # levy in its camp: 1 x (1 + 0.25) = 1.25 against 2: 800 x sqrt(2/1.25) = 1,011.9, x1.1 = 1,113.1 -> 1,113
    # cavalry lose 800 x sqrt(1.25/2) = 632.5 -> 632
    assert (battle.defender.lost, battle.attacker.lost) == (1_113, 632)
    assert battle.burned_camp and 50 not in state.camps


def test_combat_410_preview_is_a_dry_run():
    """COMBAT-410, COMBAT-420, TURN-170: a previewed attack reports the outcome and changes nothing."""
    state = world()
    cav = add(state, "wei", "cavalry", (3, 4), 4_000)
    add(state, "shu", "spearman", (4, 4), 4_000)
    before = state.state_hash()
    res = check_orders(state, "wei", [], [Attack(unit_id=cav.id, to=(4, 4))])
    assert res[0].ok and res[0].message.startswith("would:") and "they lose" in res[0].message
    assert state.state_hash() == before


def test_combat_160_preview_warns_when_an_advance_leaves_the_troop_short():
    """COMBAT-160: the preview says when an advance off its land leaves the troop on short rations."""
    state = world()
    levy = add(state, "wei", "levy", (3, 4), 6_000, rations=3.0)  # half a month for 6,000 men
    add(state, "shu", "levy", (4, 4), 1_000)
    res = check_orders(state, "wei", [], [Attack(unit_id=levy.id, to=(4, 4))])
    assert "out of supply" in res[0].message and "SHORT" in res[0].message


# --- peace and surprise (DIPLO-060..090) --------------------------------------------------------------------


def test_combat_420_previewed_attacks_build_on_each_other():
    """COMBAT-420: in one preview the second attack meets what the first left of the target (watched: exact)."""
    state = world()
    a = add(state, "wei", "levy", (3, 4), 4_000)
    b = add(state, "wei", "levy", (5, 4), 4_000)
    add(state, "shu", "levy", (4, 4), 4_000)
    add(state, "wei", "scout", (4, 2))  # a scout watches the target, so the preview is exact (COMBAT-410)
    res = check_orders(state, "wei", [], [Attack(unit_id=a.id, to=(4, 4)), Attack(unit_id=b.id, to=(4, 4))])
    # first: 800 each, x1.15 for #b beside the target -> 920: 4,000 -> 3,080 (23%, no rout)
    assert "levy (4,000) at (4,4): they lose 920" in res[0].message
    assert "levy (3,080) at (4,4)" in res[1].message


def test_diplo_060_attack_at_peace_needs_surprise_and_starts_the_war():
    """DIPLO-060, DIPLO-090: refused without surprise; with it the war starts when the attack is carried out."""
    state = world(war=False)
    att = add(state, "wei", "levy", (3, 4), 3_000)
    add(state, "shu", "levy", (4, 4), 3_000)
    with pytest.raises(OrderFailed) as err:
        order(ctx_for(state), "wei", Attack(unit_id=att.id, to=(4, 4)))
    assert err.value.code == "at_peace"
    ctx = ctx_for(state)
    order(ctx, "wei", Attack(unit_id=att.id, to=(4, 4), surprise=True))
    assert state.at_war("wei", "shu")
    assert any(e.kind == "war" and e.audience is None for e in ctx.events)


def test_diplo_070_surprise_strikes_only_from_outside_their_land():
    """DIPLO-070: a target reachable only through the other's land is refused while at peace."""
    state = world(war=False)
    found_city(state, "shu", 6, 4, people=10_000, grain=100, name="Chengdu")
    att = add(state, "wei", "levy", (3, 4), 3_000)
    deep = add(state, "shu", "levy", (7, 4), 3_000)  # inside Shu's founding ring, beside its city
    add(state, "wei", "scout", (7, 3))
    with pytest.raises(OrderFailed) as err:
        order(ctx_for(state), "wei", Attack(unit_id=att.id, to=deep.tile, surprise=True))
    assert err.value.code in ("no_room", "no_route", "surprise_out_of_reach")
    assert not state.at_war("wei", "shu")


def test_diplo_080_declaration_listed_first_opens_their_land():
    """DIPLO-080: declare_war before an attack in the same call opens the target to it (issue-time check)."""
    from kingdoms.orders.models import DeclareWar

    state = world(war=False)
    att = add(state, "wei", "levy", (3, 4), 3_000)
    add(state, "shu", "levy", (4, 4), 3_000)
    res = check_orders(state, "wei", [], [DeclareWar(to="Shu"), Attack(unit_id=att.id, to=(4, 4))])
    assert res[0].ok and res[1].ok


# --- pillage (BUILD-150..190) -------------------------------------------------------------------------------


def _farmland():
    state = world()
    city = found_city(state, "shu", 6, 4, people=10_000, grain=500, name="Chengdu")
    city.improvements = [Improvement(6, 5, "granary"), Improvement(7, 4, "workshop"), Improvement(5, 5, "farm")]
    return state, city


def test_build_150_180_190_pillage_a_granary_and_the_owner_is_told():
    """BUILD-150, BUILD-170, BUILD-180, BUILD-190: a fighting troop beside an enemy granary destroys it; grain above 300 is lost."""
    state, city = _farmland()
    levy = add(state, "wei", "levy", (5, 6), 2_000)
    ctx = ctx_for(state)
    text = order(ctx, "wei", Pillage(unit_id=levy.id, to=(6, 5)))
    assert all(i.kind != "granary" for i in city.improvements) and city.grain == 300
    assert "200.0 dan" in text
    assert levy.id in ctx.attacked and ctx.moves(levy) == 0
    assert any(e.kind == "pillage" and e.audience == ["shu"] for e in ctx.events)
    with pytest.raises(OrderFailed) as err:
        order(ctx, "wei", Pillage(unit_id=levy.id, to=(5, 5)))
    assert err.value.code == "already_attacked"


def test_build_180_pillaged_workshop_drops_queued_catapults():
    """BUILD-180: losing the workshop removes catapults from the queue."""
    from kingdoms.state import QueueEntry

    state, city = _farmland()
    city.queue = [QueueEntry("catapult", men=500), QueueEntry("palisade")]
    levy = add(state, "wei", "levy", (8, 4), 2_000)
    order(ctx_for(state), "wei", Pillage(unit_id=levy.id, to=(7, 4)))
    assert [e.item for e in city.queue] == ["palisade"]


def test_build_150_160_pillage_needs_war_and_an_unguarded_tile():
    """BUILD-150, BUILD-160, DIPLO-150: no pillage at peace, nor on a tile a troop of the owner guards."""
    state, city = _farmland()
    guard = add(state, "shu", "levy", (5, 5), 1_000)
    levy = add(state, "wei", "levy", (4, 5), 2_000)
    with pytest.raises(OrderFailed) as err:
        order(ctx_for(state), "wei", Pillage(unit_id=levy.id, to=(5, 5)))
    assert err.value.code == "guarded" and str(guard.id) in err.value.message
    state.wars = []
    with pytest.raises(OrderFailed) as err:
        order(ctx_for(state), "wei", Pillage(unit_id=levy.id, to=(6, 5)))
    assert err.value.code in ("at_peace", "out_of_reach")


def test_combat_city_target_goes_to_the_sieges_area():
    """COMBAT-360: an attack on a foreign city tile is an assault on the city (sieges.assault_city)."""
    state = world()
    city = found_city(state, "shu", 5, 4, people=8_000, grain=50, name="Chengdu")
    att = add(state, "wei", "levy", (4, 4), 5_000)
    text = order(ctx_for(state), "wei", Attack(unit_id=att.id, to=(5, 4)))
    assert "Chengdu" in text
    assert city.id in ctx_for(state).cities_attacked or "militia" in text or "taken" in text


def test_combat_ex_run_attack_refuses_own_and_empty_tiles():
    """COMBAT-380, INTEL-050: nothing seen on the tile, or only own units, is no target."""
    state = world()
    att = add(state, "wei", "levy", (3, 4), 2_000)
    add(state, "wei", "levy", (4, 4), 2_000)
    for to, code in (((4, 4), "own_target"), ((3, 5), "no_target"), ((9, 4), "no_target")):
        with pytest.raises(OrderFailed) as err:
            run_attack(ctx_for(state), "wei", Attack(unit_id=att.id, to=to))
        assert err.value.code == code


@pytest.mark.parametrize("kind, dist, shoots", [("archer", 1, True), ("archer", 2, True), ("archer", 3, False),
                                                ("catapult", 1, True), ("catapult", 3, True),
                                                ("catapult", 4, False)])
def test_open_28_archers_shoot_at_1_to_2_and_catapults_at_1_to_3(kind, dist, shoots):
    """OPEN-28, COMBAT-080: from where they stand (hold), archers reach a troop 1 or 2 tiles off, catapults 1 to 3;
    one tile farther is out of their reach. At distance 1 the melee target strikes back (COMBAT-090)."""
    state = world(width=14)
    shooter = add(state, "wei", kind, (2, 4), 1_000)
    target = add(state, "shu", "levy", (2 + dist, 4), 2_000)
    add(state, "wei", "scout", (4, 2))  # keeps the target in sight
    if not shoots:
        with pytest.raises(OrderFailed) as err:
            order(ctx_for(state), "wei", Attack(unit_id=shooter.id, to=target.tile, hold=True))
        assert err.value.code == "out_of_reach" and f"reach of {dist - 1}" in err.value.message
        return
    order(ctx_for(state), "wei", Attack(unit_id=shooter.id, to=target.tile, hold=True))
    assert target.men < 2_000
    assert (shooter.men < 1_000) is (dist == 1)  # only a melee troop beside the shooters strikes back


def test_combat_260_troop_level_counts_the_thresholds_reached() -> None:
    """COMBAT-260: a troop's level is the number of XP thresholds it has reached (3, 7, 12, 18, 25, 33), at and
    between them, below the first and past the last."""
    from kingdoms import ruledata as rd

    for xp in [x / 4 for x in range(-8, 160)] + [2.999, 3.0, 32.999, 33.0, 1e9]:
        assert rd.troop_level(xp) == sum(1 for t in rd.XP_LEVELS if xp >= t)
    assert [rd.troop_level(x) for x in (0, 3, 6.5, 7, 12, 18, 25, 33, 40)] == [0, 1, 1, 2, 3, 4, 5, 6, 6]
