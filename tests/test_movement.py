"""Marches, standing orders, waits and swaps, stacking, merge, split, follow, hold, folding (MOVE-*, TURN-080..160).

`month` runs only the kingdoms' orders (and the folding phase), so no economy or hunger muddles the figures;
one test runs a whole month through resolve_month. Axial neighbours of (q,r): the steps of kingdoms.hexgrid.DIRECTIONS (E +1,0; W -1,0; NE +1,-1; NW 0,-1; SE 0,+1; SW -1,+1).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kingdoms import ruledata as rd
from kingdoms.engine.context import MonthContext, OrderFailed
from kingdoms.engine.generals import new_general
from kingdoms.engine.land import found_city
from kingdoms.engine.month import check_orders, resolve_month, run_kingdom
from kingdoms.engine.movement import fold_small_troops
from kingdoms.engine.pathing import slot_of
from kingdoms.hexgrid import axial_q
from kingdoms.orders.models import Attack, Follow, Hold, Merge, Move, Split
from tests.builders import add, corridor, ctx_for, order, world


def month(state, orders=None):
    """One month of orders only: each kingdom in rotation, then folding; returns the outcomes."""
    ctx = MonthContext(state)
    for k in state.rotation:
        run_kingdom(ctx, k, (orders or {}).get(k, []))
    fold_small_troops(ctx)
    state.month += 1
    return ctx.outcomes


def outcome(outcomes, pos, kingdom="wei"):
    return next(o for o in outcomes if o.kingdom == kingdom and o.position == pos)


# --- moves and standing marches (MOVE-010, MOVE-030, TURN-120..160) -----------------------------------------


def test_move_010_moves_per_month_by_type():
    """MOVE-010: on grass a month carries cavalry 5 tiles, scouts 7, spies 6, foot 3, catapults 2."""
    state = world(width=16)
    kinds = {"cavalry": 5, "scout": 7, "spy": 6, "levy": 3, "catapult": 2, "colonists": 3, "wagon": 3}
    units = {k: add(state, "wei", k, (0, r), 500 if k not in ("scout", "spy", "wagon") else 0)
             for r, k in enumerate(kinds)}
    month(state, {"wei": [Move(unit_id=u.id, to=(12, u.r)) for u in units.values()]})
    for kind, moves in kinds.items():
        assert units[kind].tile == (moves, units[kind].r), kind


def test_move_030_turn_120_standing_march_goes_on_and_a_new_order_replaces_it():
    """MOVE-030, TURN-120, TURN-130: an unfinished march stands and goes on next month; a new order replaces it."""
    state = world(width=16)
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    month(state, {"wei": [Move(unit_id=levy.id, to=(9, 4))]})
    assert levy.tile == (3, 4) and levy.standing == {"action": "move", "unit_id": levy.id, "to": [9, 4]}
    out = month(state)
    assert levy.tile == (6, 4) and out[0].position == 0 and out[0].result.startswith("standing:")
    month(state, {"wei": [Move(unit_id=levy.id, to=(6, 8))]})
    assert levy.standing is not None and levy.standing["to"] == [6, 8]
    month(state, {"wei": [Hold(unit_ids=[levy.id])]})
    assert levy.standing is None and levy.fortified


def test_turn_160_march_blocked_by_troops_waits_and_goes_on():
    """TURN-160: with enemy troops across the only lane the march walks up to them, waits, and stands."""
    state = world(corridor(), width=16)
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    enemy = add(state, "shu", "levy", (2, 4), 1_000)
    out = month(state, {"wei": [Move(unit_id=levy.id, to=(6, 4))]})
    assert levy.tile == (1, 4) and "blocked" in outcome(out, 1).result
    assert levy.standing is not None
    del state.units[enemy.id]
    month(state)
    assert levy.tile == (4, 4)


def test_diplo_030_march_into_closed_land_is_refused_with_the_nearest_tile():
    """DIPLO-030, MOVE-310: a move into the land of a kingdom at peace is refused, naming the nearest reachable tile."""
    state = world(war=False)
    found_city(state, "shu", 6, 4, people=10_000, grain=100, name="Chengdu")
    levy = add(state, "wei", "levy", (2, 4), 1_000)
    add(state, "wei", "scout", (4, 3))  # the border is known only where it is seen (INTEL-010)
    res = check_orders(state, "wei", [], [Move(unit_id=levy.id, to=(7, 4))])
    assert not res[0].ok and res[0].code == "closed_border"
    assert "nearest tile you can reach is" in res[0].message


def test_supply_090_march_beyond_rations_says_so():
    """SUPPLY-090: the reply warns when the march keeps the troop out of supply longer than its rations last."""
    state = world(width=16)
    levy = add(state, "wei", "levy", (0, 4), 2_000, rations=2.0)  # one month for 2,000 men
    res = check_orders(state, "wei", [], [Move(unit_id=levy.id, to=(9, 4))])
    # three month-ends out of supply on the way against one month of rations
    assert res[0].ok and "WARNING: 3 month-end(s) out of supply" in res[0].message


# --- own troops on the way (MOVE-040..070, TURN-100, TURN-110) ----------------------------------------------


def test_move_050_moves_run_out_on_own_troops_step_on():
    """MOVE-040, MOVE-050: passing own troops is free; a month ending on one steps on to the next free tile."""
    state = world(corridor(), width=16)
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    add(state, "wei", "spearman", (3, 4), 1_000)
    ctx = ctx_for(state)
    order(ctx, "wei", Move(unit_id=levy.id, to=(8, 4)))
    assert levy.tile == (4, 4) and ctx.moves(levy) == 0


def test_move_050_waits_before_own_troops_when_the_next_tile_is_taken_too():
    """MOVE-050, MOVE-060: two own troops in a row in a lane: the march waits at the last free tile before them."""
    state = world(corridor(), width=16)
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    add(state, "wei", "spearman", (3, 4), 1_000)
    add(state, "wei", "archer", (4, 4), 1_000)
    out = month(state, {"wei": [Move(unit_id=levy.id, to=(8, 4))]})
    assert levy.tile == (2, 4) and "held up" in outcome(out, 1).result
    month(state)
    assert levy.tile == (5, 4), "next month it passes both and stops beyond them"


def test_move_060_detour_round_own_troops_within_a_month():
    """MOVE-060: held up behind own troops, the march goes round them when that costs at most a month more."""
    state = world(width=16)
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    add(state, "wei", "spearman", (3, 4), 1_000)
    add(state, "wei", "archer", (4, 4), 1_000)
    month(state, {"wei": [Move(unit_id=levy.id, to=(8, 4))]})
    assert levy.tile not in {(3, 4), (4, 4)} and levy.tile != (2, 4)
    month(state)
    month(state)
    assert levy.tile == (8, 4)


def test_move_060_no_detour_costing_more_than_a_month():
    """MOVE-060: when the way round costs more than a month more, the march waits behind its own troops."""
    marks = corridor()
    marks.update({(0, 3): "G", (9, 3): "G"})  # gaps to row 2: a long loop round (5 months)
    state = world(marks, width=16)
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    add(state, "wei", "spearman", (3, 4), 1_000)
    add(state, "wei", "archer", (4, 4), 1_000)
    month(state, {"wei": [Move(unit_id=levy.id, to=(6, 4))]})
    assert levy.tile == (2, 4)


def test_move_070_destination_held_by_another_type_ends_beside():
    """MOVE-070: a move onto an own troop of another type ends on the nearest free tile beside it."""
    state = world()
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    add(state, "wei", "archer", (3, 4), 1_000)
    text = order(ctx_for(state), "wei", Move(unit_id=levy.id, to=(3, 4)))
    assert levy.tile == (2, 4) and "ends beside it" in text


def test_move_070_river_destination_ends_on_the_nearest_bank_and_own_tile_stays():
    """MOVE-070: sent onto a river, a troop stops on the closest free bank; sent to its own tile, it stays."""
    state = world({(5, r): "g" for r in range(10)})
    levy = add(state, "wei", "levy", (2, 2), 1_000)
    order(ctx_for(state), "wei", Move(unit_id=levy.id, to=(5, 2)))
    assert levy.tile == (4, 2)
    text = order(ctx_for(state), "wei", Move(unit_id=levy.id, to=(4, 2)))
    assert levy.tile == (4, 2) and "stays" in text


def test_turn_100_a_move_onto_a_tile_being_left_waits_for_that_order():
    """TURN-100: written first, the move onto the spearmen's tile waits for their order to leave."""
    state = world()
    levy = add(state, "wei", "levy", (1, 4), 1_000)
    spear = add(state, "wei", "spearman", (3, 4), 1_000)
    month(state, {"wei": [Move(unit_id=levy.id, to=(3, 4)), Move(unit_id=spear.id, to=(3, 2))]})
    assert spear.tile == (3, 2) and levy.tile == (3, 4)


def test_turn_110_open_41_two_troops_swap_places():
    """TURN-110, OPEN-41: neighbours ordered onto each other's tiles swap (same type: swap, not merge)."""
    state = world({(4, 4): "F"})
    a = add(state, "wei", "levy", (3, 4), 1_000)
    b = add(state, "wei", "levy", (4, 4), 2_000)
    out = month(state, {"wei": [Move(unit_id=a.id, to=(4, 4)), Move(unit_id=b.id, to=(3, 4))]})
    assert a.tile == (4, 4) and b.tile == (3, 4) and (a.men, b.men) == (1_000, 2_000)
    assert "swaps places" in outcome(out, 1).result and "swaps places" in outcome(out, 2).result


def test_turn_110_no_swap_without_the_moves():
    """TURN-110: a swap needs the moves for each step; without them the first order ends beside."""
    state = world({(4, 4): "F"})
    a = add(state, "wei", "levy", (3, 4), 1_000)
    b = add(state, "wei", "archer", (4, 4), 1_000)
    ctx = MonthContext(state)
    ctx.moves_left[a.id] = 1.0  # forest (4,4) costs 2
    run_kingdom(ctx, "wei", [Move(unit_id=a.id, to=(4, 4)), Move(unit_id=b.id, to=(3, 4))])
    assert a.tile != (4, 4)


def test_turn_080_several_orders_for_one_troop_run_in_order():
    """TURN-080: two moves for one troop in a month use the moves left after the first."""
    state = world()
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    out = month(state, {"wei": [Move(unit_id=levy.id, to=(2, 4)), Move(unit_id=levy.id, to=(5, 4))]})
    assert levy.tile == (3, 4) and levy.standing["to"] == [5, 4]
    assert outcome(out, 1).ok and outcome(out, 2).ok


# --- stacking (MOVE-110, MOVE-120) --------------------------------------------------------------------------


def test_move_110_120_one_troop_per_tile_garrison_keeps_other_types_out():
    """MOVE-110, MOVE-120: a garrisoned city keeps out troops of other types, except siege trains."""
    state = world()
    found_city(state, "wei", 4, 4, people=10_000, grain=100, name="Xuchang")
    add(state, "wei", "spearman", (4, 4), 3_000)
    levy = add(state, "wei", "levy", (1, 4), 1_000)
    engines = add(state, "wei", "catapult", (3, 5), 300)
    order(ctx_for(state), "wei", Move(unit_id=levy.id, to=(4, 4)))
    order(ctx_for(state), "wei", Move(unit_id=engines.id, to=(4, 4)))
    assert levy.tile == (3, 4) and engines.tile == (4, 4)
    wagon = add(state, "wei", "wagon", (3, 3), cargo=10)
    order(ctx_for(state), "wei", Move(unit_id=wagon.id, to=(4, 4)))
    assert wagon.tile == (4, 4) and wagon.dest == (4, 4), "a civilian has its own slot (SUPPLY-150: new destination)"


# --- merge (MOVE-180..230, OPEN-4) --------------------------------------------------------------------------


def test_move_180_220_merge_averages_xp_and_keeps_the_joined_general():
    """MOVE-180, MOVE-200, MOVE-210, MOVE-220, COMBAT-270, OPEN-4: XP by men; the joiner's general leaves;
    no moves after, and the merged troop has attacked if the joiner had."""
    state = world()
    a = add(state, "wei", "levy", (3, 4), 2_000, xp=10)
    b = add(state, "wei", "levy", (4, 4), 6_000, xp=2)
    ga = new_general(state, "wei", unit_id=a.id)
    gb = new_general(state, "wei", unit_id=b.id)
    spare = add(state, "wei", "archer", (5, 3), 1_000)
    ctx = ctx_for(state)
    ctx.attacked.add(a.id)
    text = order(ctx, "wei", Merge(unit_id=a.id, target_id=b.id))
    # (2,000 x 10 + 6,000 x 2) / 8,000 = 4 XP -> level 1 (3..6)
    assert b.men == 8_000 and b.xp == pytest.approx(4.0) and "level 1" in text
    assert a.id not in state.units and b.general_id == gb.id
    # the joiner's general goes to the nearest own troop without one within 2 tiles (GEN-060)
    assert ga.unit_id == spare.id
    assert ctx.moves(b) == 0 and b.id in ctx.attacked


def test_move_190_merge_is_all_or_nothing():
    """MOVE-190: two troops over 20,000 together are refused; split first."""
    state = world()
    a = add(state, "wei", "levy", (3, 4), 12_000)
    b = add(state, "wei", "levy", (4, 4), 9_000)
    with pytest.raises(OrderFailed) as err:
        order(ctx_for(state), "wei", Merge(unit_id=a.id, target_id=b.id))
    assert err.value.code == "over_cap" and "11,000 can join" in err.value.message
    res = check_orders(state, "wei", [], [Move(unit_id=a.id, to=(4, 4))])
    assert not res[0].ok and res[0].code == "over_cap"


def test_move_180_merge_marches_to_the_target_and_joins_on_arrival():
    """MOVE-180: a troop far from the other marches to it and joins on arrival (with a move left)."""
    state = world(width=16)
    a = add(state, "wei", "levy", (0, 4), 1_000)
    b = add(state, "wei", "levy", (6, 4), 1_000)
    month(state, {"wei": [Merge(unit_id=a.id, target_id=b.id)]})
    assert a.id in state.units and a.standing["action"] == "merge"
    month(state)
    assert a.id not in state.units and b.men == 2_000


def test_move_230_move_onto_a_same_type_troop_merges():
    """MOVE-230: a move ending on an own same-type troop merges the two; the reply says so."""
    state = world()
    a = add(state, "wei", "spearman", (1, 4), 1_000)
    b = add(state, "wei", "spearman", (3, 4), 2_500)
    text = order(ctx_for(state), "wei", Move(unit_id=a.id, to=(3, 4)))
    assert a.id not in state.units and b.men == 3_500 and "merges into" in text


def test_open_53_merging_into_a_garrison_on_entering_the_city():
    """OPEN-53, SIEGE-090: a same-type troop merges with the garrison as it enters the city."""
    state = world()
    found_city(state, "wei", 4, 4, people=10_000, grain=100, name="Xuchang")
    gar = add(state, "wei", "spearman", (4, 4), 3_000)
    joiner = add(state, "wei", "spearman", (2, 4), 1_000)
    order(ctx_for(state), "wei", Move(unit_id=joiner.id, to=(4, 4)))
    assert gar.men == 4_000 and joiner.id not in state.units


def test_move_280_a_crossing_lands_on_an_own_troop_only_to_join_it():
    """MOVE-280, OPEN-65: over the river onto an own same-type troop: it joins; another type: it lands beside."""
    state = world({(5, r): "g" for r in range(10)})
    held = add(state, "wei", "levy", (6, 2), 2_000)
    joiner = add(state, "wei", "levy", (4, 2), 1_000)
    text = order(ctx_for(state), "wei", Move(unit_id=joiner.id, to=(6, 2)))
    assert joiner.id not in state.units and held.men == 3_000 and "merges into" in text
    held.type = "spearman"
    other = add(state, "wei", "levy", (4, 2), 1_000)
    order(ctx_for(state), "wei", Move(unit_id=other.id, to=(6, 2)))
    # it cannot land on the spearmen: up to (4,1), over (5,1) to (6,1), beside them; the crossing ends its move
    assert other.tile == (6, 1) and held.men == 3_000


# --- split (MOVE-240, MOVE-250, TURN-140) -------------------------------------------------------------------


def test_move_240_split_off_beside_then_march_on():
    """MOVE-240, COMBAT-270: the new troop forms on the free tile nearest the target and marches on; both keep XP."""
    state = world(width=16)
    a = add(state, "wei", "levy", (2, 4), 5_000, xp=8, rations=20.0)
    ctx = ctx_for(state)
    text = order(ctx, "wei", Split(unit_id=a.id, men=2_000, to=(8, 4)))
    new = next(u for u in state.units.values() if u.id != a.id)
    assert a.men == 3_000 and new.men == 2_000 and new.xp == 8
    assert new.rations == pytest.approx(8.0) and a.rations == pytest.approx(12.0)
    # it splits onto (3,4), the free tile beside nearest (8,4), then marches on with the moves left (3): (6,4)
    assert new.tile == (6, 4) and new.standing["to"] == [8, 4] and f"#{new.id}" in text


def test_move_240_both_parts_keep_the_minimum():
    """MOVE-240, RECRUIT-230: both parts keep at least 500 men (100 crew for catapults)."""
    state = world()
    a = add(state, "wei", "levy", (2, 4), 900)
    with pytest.raises(OrderFailed) as err:
        order(ctx_for(state), "wei", Split(unit_id=a.id, men=500, to=(3, 4)))
    assert err.value.code == "split_too_small"
    engines = add(state, "wei", "catapult", (5, 5), 300)
    order(ctx_for(state), "wei", Split(unit_id=engines.id, men=100, to=(6, 5)))
    assert engines.men == 200


def test_turn_140_split_keeps_the_standing_order():
    """TURN-140, MOVE-250: the troop split from keeps (and follows) its standing march."""
    state = world(width=16)
    a = add(state, "wei", "levy", (0, 4), 4_000)
    month(state, {"wei": [Move(unit_id=a.id, to=(9, 4))]})
    assert a.tile == (3, 4)
    month(state, {"wei": [Split(unit_id=a.id, men=1_000, to=(3, 6))]})
    assert a.standing is not None and a.standing["to"] == [9, 4]
    assert a.tile == (6, 4)


# --- follow (MOVE-170) --------------------------------------------------------------------------------------


def test_move_170_follow_shares_the_tile_after_the_target_moved():
    """MOVE-170, TURN-100: written first, a siege train's follow waits for its escort's move, then shares its tile."""
    state = world(width=16)
    levy = add(state, "wei", "levy", (0, 4), 3_000)
    engines = add(state, "wei", "catapult", (0, 5), 300)
    month(state, {"wei": [Follow(unit_id=engines.id, target_id=levy.id), Move(unit_id=levy.id, to=(2, 4))]})
    assert levy.tile == (2, 4) and engines.tile == (2, 4)
    assert engines.standing["action"] == "follow"
    month(state, {"wei": [Move(unit_id=levy.id, to=(4, 4))]})
    assert engines.tile == (4, 4), "it follows every month at its own pace (2 moves)"


def test_move_170_a_troop_following_a_troop_stops_beside():
    """MOVE-170: two troops cannot share a tile: the follower stops beside."""
    state = world(width=16)
    levy = add(state, "wei", "levy", (5, 4), 3_000)
    cav = add(state, "wei", "cavalry", (0, 4), 1_000)
    month(state, {"wei": [Follow(unit_id=cav.id, target_id=levy.id)]})
    assert cav.tile == (4, 4)


# --- hold and folding (RECRUIT-220, MOVE-260) ---------------------------------------------------------------


def test_recruit_220_hold_fortifies_troops_others_just_stay():
    """RECRUIT-220: hold fortifies a fighting troop (+25%); a scout simply stays."""
    state = world()
    levy = add(state, "wei", "levy", (3, 4), 1_000)
    scout = add(state, "wei", "scout", (5, 4))
    text = order(ctx_for(state), "wei", Hold(unit_ids=[levy.id, scout.id]))
    assert levy.fortified and not scout.fortified and "stays" in text
    order(ctx_for(state), "wei", Move(unit_id=levy.id, to=(4, 4)))
    assert not levy.fortified, "moving ends the fortification (COMBAT-030)"


def test_move_260_worn_down_troops_fold_into_a_neighbour_of_their_type():
    """MOVE-260: under 300 men beside a same-type troop outside a city: folded in at month end."""
    state = world()
    small = add(state, "wei", "levy", (3, 4), 250, xp=0)
    big = add(state, "wei", "levy", (4, 4), 3_000, xp=10)
    other_type = add(state, "wei", "archer", (2, 4), 200)
    found_city(state, "wei", 7, 7, people=5_000, grain=10, name="Fort")
    in_city = add(state, "wei", "levy", (7, 7), 150)
    add(state, "wei", "levy", (8, 7), 2_000)
    fold_small_troops(ctx_for(state))
    assert small.id not in state.units and big.men == 3_250
    assert big.xp == pytest.approx(3_000 * 10 / 3_250)
    assert other_type.id in state.units and in_city.id in state.units


# --- a whole month through the engine -----------------------------------------------------------------------


def test_turn_040_resolve_month_runs_standing_marches_after_new_orders():
    """TURN-040, TURN-120: in a full month, a standing march runs after the kingdom's new orders."""
    state = world(width=16)
    a = add(state, "wei", "levy", (0, 4), 1_000)
    b = add(state, "wei", "levy", (0, 6), 1_000)
    s1 = resolve_month(state, {"wei": [Move(unit_id=a.id, to=(9, 4))]}).state
    res = resolve_month(s1, {"wei": [Move(unit_id=b.id, to=(2, 6))]})
    positions = [o.position for o in res.outcomes if o.kingdom == "wei"]
    assert positions == [1, 0]
    assert res.state.units[a.id].tile == (6, 4)


# --- property: legal boards, men kept (MOVE-110, RECRUIT-230) -----------------------------------------------


def _legal(state):
    """No two units in one slot on a tile, nobody on impassable ground, a river or a foreign city, <= 20,000 men."""
    gm = state.map
    seen = {}
    for u in state.units.values():
        i = gm.index(u.q, u.r)
        assert i >= 0 and gm.move_cost[i] > 0, f"#{u.id} on impassable {u.tile}"
        city = state.city_at(*u.tile)
        if city is None:
            assert not gm.is_crossing(i) or u.type == "colonists", f"#{u.id} in a river at {u.tile}"
        else:
            assert city.owner == u.owner or u.type == "spy"
        assert u.men <= rd.MAX_TROOP_MEN
        slot = slot_of(u)
        if slot != "agent":
            key = (u.tile, slot)
            assert key not in seen, f"#{u.id} and #{seen[key]} share {u.tile} ({slot})"
            seen[key] = u.id


_ORDER = st.tuples(st.sampled_from(["move", "merge", "split", "follow", "hold", "attack"]), st.integers(0, 7),
                   st.integers(0, 7), st.integers(0, 9), st.integers(0, 7), st.integers(100, 4_000))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from("GGGPFHMg"), min_size=80, max_size=80),
       st.lists(st.tuples(st.sampled_from(["levy", "levy", "spearman", "cavalry", "catapult", "wagon", "scout"]),
                          st.integers(0, 79), st.integers(300, 12_000)), min_size=2, max_size=8),
       st.lists(st.lists(_ORDER, max_size=6), min_size=1, max_size=3), st.booleans())
def test_move_110_property_boards_stay_legal_and_men_are_kept(letters, units, months, fights):
    """MOVE-110, RECRUIT-230: random orders never leave a troop on an illegal tile or above 20,000 men; without
    attacks no man is lost (marches, merges, splits, follows and folds keep every man)."""
    from kingdoms.state import Unit

    rows = ["".join(letters[r * 10:(r + 1) * 10]) for r in range(8)]
    state = world(rows=rows, seed=2, month=1)
    gm = state.map
    for n, (kind, i, men) in enumerate(units):
        probe = Unit(0, "wei" if n % 2 == 0 else "shu", kind, *gm.tile(i))
        from kingdoms.engine.pathing import Ground

        if not Ground(state, probe).endable(i):
            continue
        spec = rd.UNITS[kind]
        add(state, probe.owner, kind, gm.tile(i), men if spec.fighting else 0, cargo=5.0 if kind == "wagon" else 0.0)
    _legal(state)
    men0 = sum(u.men for u in state.units.values())
    for batch in months:
        ids = sorted(state.units)
        orders: dict[str, list] = {"wei": [], "shu": []}
        for verb, a, b, q, r, men in batch:
            if not ids:
                break
            unit = state.units[ids[a % len(ids)]]
            mates = [i for i in ids if state.units[i].owner == unit.owner and i != unit.id] or ids
            foes = [i for i in ids if state.units[i].owner != unit.owner] or ids
            other = (foes if verb == "attack" else mates)[b % len(foes if verb == "attack" else mates)]
            to = (axial_q(q, r), r)  # q drawn as a column of row r
            if verb == "move":
                o = Move(unit_id=unit.id, to=to)
            elif verb == "merge":
                o = Merge(unit_id=unit.id, target_id=other)
            elif verb == "split":
                o = Split(unit_id=unit.id, men=men, to=to)
            elif verb == "follow":
                o = Follow(unit_id=unit.id, target_id=other)
            elif verb == "attack" and fights:
                o = Attack(unit_id=unit.id, to=state.units[other].tile)
            else:
                o = Hold(unit_ids=[unit.id])
            orders[unit.owner].append(o)
        month(state, orders)
        _legal(state)
    if not fights:
        assert sum(u.men for u in state.units.values()) == men0
