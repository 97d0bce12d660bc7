"""The board a kingdom believes in (engine/belief.py) agrees with what its tools show it (TURN-050, INTEL-050).

Issue-time checks and previews run on the believed board; inspect_tile, get_city and the briefing are built from
the view. Where the two could disagree — land in sight whose city is not, the Ruin's holder, terrain never
explored, the waiting between troops — an order must be judged on exactly what the kingdom is shown.
Neighbours of (q,r): the steps of kingdoms.hexgrid.DIRECTIONS (E +1,0; W -1,0; NE +1,-1; NW 0,-1; SE 0,+1; SW -1,+1).
"""

from __future__ import annotations

import pytest

from kingdoms.engine.belief import believed_state
from kingdoms.engine.land import found_city
from kingdoms.engine.month import check_orders
from kingdoms.orders.models import Attack, Move
from kingdoms.state import QueueEntry
from kingdoms.views import observe
from tests.builders import add, corridor, world


def _explored_everywhere(state, kingdom):
    """The kingdom has explored every tile (its terrain is known; who holds what out of sight is not)."""
    import numpy as np

    from kingdoms.engine.sight import mask_to_hex

    state.kingdoms[kingdom].memory["explored"] = mask_to_hex(np.ones(state.map.size, bool))


# --- DIPLO-020, DIPLO-080: land in sight shows, and closes, as its owner's even when its city is out of sight ---


def _lane_at_peace():
    """A lane along row 4 (mountains above and below), all explored. Shu's city at (8,4) holds (7,4) and (9,4).
    Wei's levy at (5,4) sees (7,4) but not the city (3 tiles off); Wei's scout at (13,4) sees (9,4) and Shu's
    troop at (10,4), not the city (5 tiles off). Wei and Shu are at peace."""
    state = world(corridor(4), width=20, war=False)
    _explored_everywhere(state, "wei")
    city = found_city(state, "shu", 8, 4, people=15_000, grain=100, name="Chengdu")
    levy = add(state, "wei", "levy", (5, 4), 3_000)
    add(state, "wei", "scout", (13, 4))
    target = add(state, "shu", "levy", (10, 4), 2_000)
    return state, city, levy, target


def test_diplo_020_visible_land_of_an_unseen_city_shows_and_closes_as_its_owners():
    """DIPLO-020, INTEL-050, TURN-050: inspect_tile shows (7,4) as Shu's land; the believed board holds it as Shu's
    too, so a move onto it at peace is refused at once as closed land (not accepted and failed at month end). The
    city itself, out of sight, stays unknown: its tile is not on the believed board."""
    state, city, levy, _target = _lane_at_peace()
    obs = observe(state, "wei")
    assert obs.tile(7, 4).holder == "shu"
    assert obs.tile(8, 4).holder is None  # out of sight
    board = believed_state(state, "wei")
    assert board.city_at(8, 4) is None
    (verdict,) = check_orders(state, "wei", [], [Move(unit_id=levy.id, to=(7, 4))])
    assert not verdict.ok and verdict.code == "closed_border", verdict
    assert "Chengdu" not in verdict.message and "(8,4)" not in verdict.message


def test_diplo_080_surprise_attack_whose_way_runs_through_visible_land_is_refused_at_once():
    """DIPLO-080, TURN-050: the only way from (5,4) to Shu's troop at (10,4) runs through (7,4) and (9,4), land of
    Shu that Wei sees: a surprise attack on it by cavalry (5 moves: in reach this month over unknown ground) is
    refused when given."""
    state, _city, _levy, target = _lane_at_peace()
    rider = add(state, "wei", "cavalry", (4, 4), 2_000)
    (verdict,) = check_orders(state, "wei", [], [Attack(unit_id=rider.id, to=target.tile, surprise=True)])
    assert not verdict.ok and verdict.code == "no_route", verdict
    assert "Chengdu" not in verdict.message


# --- VIC-130: the Ruin's holder is public and current on the believed board ---------------------------------


def _ruin_taken_by_shu(*, war: bool):
    """The Ruin at (12,4) on the lane, taken by Shu since Wei last saw it (Wei's map says bandits, month 3).
    Wei's cavalry at (5,4) is 7 tiles off: out of sight of the Ruin."""
    from kingdoms.engine.visibility import city_record
    from kingdoms.setup import found_ruin

    state = world(corridor(4), width=20, war=war)
    ruin = found_ruin(state, (12, 4))
    state.kingdoms["wei"].memory["cities"] = {str(ruin.id): city_record(ruin, [], False, 3)}
    for u in [u for u in state.units.values() if u.tile == ruin.tile]:
        del state.units[u.id]
    ruin.owner = "shu"
    add(state, "shu", "spearman", ruin.tile, 2_000)
    rider = add(state, "wei", "cavalry", (5, 4), 3_000)
    return state, ruin, rider


def test_vic_130_diplo_060_attack_on_the_ruin_held_by_a_kingdom_at_peace_needs_surprise():
    """VIC-130, DIPLO-060: the Ruin's holder is public: held by Shu (at peace), an attack on it without surprise is
    refused when given, whatever Wei's map remembers of it (bandits, month 3)."""
    state, ruin, rider = _ruin_taken_by_shu(war=False)
    assert believed_state(state, "wei").cities[ruin.id].owner == "shu"
    (verdict,) = check_orders(state, "wei", [], [Attack(unit_id=rider.id, to=ruin.tile)])
    assert not verdict.ok and verdict.code == "at_peace", verdict


def test_vic_130_combat_370_attack_on_the_ruin_is_aimed_at_its_current_holder():
    """VIC-130, COMBAT-370: at war with Shu, an attack on the Ruin is aimed at its holder now (Shu), not the one
    Wei's map remembers (bandits): the cavalry rides 5 tiles to (10,4), sees the Ruin still Shu's, and the attack
    order stands (it does not end as `target_changed_hands`)."""
    from kingdoms.engine.month import resolve_month

    state, ruin, rider = _ruin_taken_by_shu(war=True)
    (verdict,) = check_orders(state, "wei", [], [Attack(unit_id=rider.id, to=ruin.tile)])
    assert verdict.ok and "bandits" not in verdict.message, verdict
    res = resolve_month(state, {"wei": [Attack(unit_id=rider.id, to=ruin.tile)]})
    (out,) = [o for o in res.outcomes if o.kingdom == "wei"]
    assert out.ok and "the attack order stands" in out.result, out
    assert res.state.units[rider.id].standing_meta["owner"] == "shu"


# --- DIPLO-030: a march at peace stops at the closed border it could not see when ordered -------------------


def _unseen_border():
    """The lane along row 4; Shu's city at (10,4) holds (9,4) and (11,4) of it, far out of Wei's sight (a unit at
    (0,4) sees 2 tiles). Wei and Shu are at peace."""
    state = world(corridor(4), width=20, war=False)
    found_city(state, "shu", 10, 4, people=15_000, grain=100, name="Chengdu")
    return state


@pytest.mark.parametrize("kind, men", [("levy", 3_000), ("colonists", 5_000)])
@pytest.mark.parametrize("to", [(15, 4), (11, 4)])
def test_diplo_030_march_at_peace_stops_at_the_closed_border(kind, men, to):
    """DIPLO-030, TURN-060, INTEL-050: a march to (15,4) (past Shu's land) or to (11,4) (inside it), accepted when
    given (Wei has never seen that land), goes on month by month, 3 tiles a month, and stops at (8,4), the last
    tile before the border: it is not cancelled at the start. Until it gets there no reply speaks of the closed
    land (Wei has not seen it); at the border the reply says why it stops and that the order ends."""
    from kingdoms.engine.month import resolve_month

    state = _unseen_border()
    unit = add(state, "wei", kind, (0, 4), men)
    (verdict,) = check_orders(state, "wei", [], [Move(unit_id=unit.id, to=to)])
    assert verdict.ok, verdict
    orders = {"wei": [Move(unit_id=unit.id, to=to)]}
    tiles, texts = [], []
    for _ in range(3):
        res = resolve_month(state, orders)
        state, orders = res.state, {}
        (out,) = [o for o in res.outcomes if o.kingdom == "wei"]
        assert out.ok, out
        tiles.append(state.units[unit.id].tile)
        texts.append(out.result)
    assert tiles == [(3, 4), (6, 4), (8, 4)]
    for text in texts[:2]:
        assert "Shu" not in text and "Chengdu" not in text and "closed" not in text, text
    assert state.units[unit.id].standing is None
    assert "(9,4)" in texts[2] and "Shu" in texts[2] and "closed" in texts[2] and "ends" in texts[2], texts[2]


# --- TURN-100: the check when given waits for the troop leaving a tile, as the month end does ---------------


def _river_lane():
    """The lane along row 4 with an unbridged river tile at (4,4): Wei's levy at (3,4) crosses it to (5,4), the
    far bank, where Wei's spearmen stand, ordered on to (7,4). At war (no border anywhere)."""
    marks = corridor(4)
    marks[(4, 4)] = "g"
    state = world(marks, width=20)
    levy = add(state, "wei", "levy", (3, 4), 3_000)
    spears = add(state, "wei", "spearman", (5, 4), 2_000)
    return state, levy, spears


def test_turn_100_issue_time_check_does_not_depend_on_the_written_order():
    """TURN-100, TURN-050, MOVE-280: the crossing onto the bank the spearmen are leaving waits for their order, both
    at month end and when given: written first or second, both orders are accepted and say the same, and the month
    end puts the levy on (5,4) and the spearmen on (7,4)."""
    from kingdoms.engine.month import resolve_month

    state, levy, spears = _river_lane()
    cross, leave = Move(unit_id=levy.id, to=(5, 4)), Move(unit_id=spears.id, to=(7, 4))
    first = check_orders(state, "wei", [], [cross, leave])
    second = check_orders(state, "wei", [], [leave, cross])
    assert all(v.ok for v in first + second), [v.message for v in first + second]
    assert [first[0].message, first[1].message] == [second[1].message, second[0].message]
    for orders in ([cross, leave], [leave, cross]):
        after = resolve_month(state, {"wei": orders}).state
        assert (after.units[levy.id].tile, after.units[spears.id].tile) == ((5, 4), (7, 4))


def test_turn_100_turn_070_a_queued_order_waits_for_one_given_in_a_later_call():
    """TURN-100, TURN-070, TURN-080: the crossing was queued in an earlier call; the spearmen's move, given now,
    runs before it (the crossing waits for it), so a second order for the levy given now is judged from the far
    bank (5,4), where the crossing left it with no moves: it marches on next month."""
    state, levy, spears = _river_lane()
    cross, leave = Move(unit_id=levy.id, to=(5, 4)), Move(unit_id=spears.id, to=(7, 4))
    on = Move(unit_id=levy.id, to=(6, 4))
    got = check_orders(state, "wei", [cross], [leave, on])
    assert all(v.ok for v in got), [v.message for v in got]
    assert got[1].message.startswith(f"#{levy.id} levy (5,4) -> (5,4)"), got[1].message


# --- INTEL-050, MOVE-020: terrain never explored is planned as passable, and never named --------------------


def _mountain_out_of_sight():
    """Open ground with a mountain at (9,4) and a lake at (9,6), both far from Wei's levy at (2,4) (it sees 2
    tiles) and never explored; a mountain at (3,2) in its sight."""
    from kingdoms.engine.intel import update_memory

    state = world({(9, 4): "M", (9, 6): "~", (3, 2): "M"}, width=14)
    levy = add(state, "wei", "levy", (2, 4), 3_000)
    update_memory(state, "wei")  # Wei's map: what the levy sees
    return state, levy


def test_intel_050_move_020_a_move_to_unexplored_terrain_is_planned_as_passable():
    """INTEL-050, MOVE-020, TURN-050: a move to (9,4), a mountain Wei has never seen, is accepted when given (the
    tile is planned as passable ground) and the reply does not name its terrain; so is one to the unseen lake.
    A move to the mountain at (3,2), in sight, is refused as impassable. At month end the mountain is found out."""
    from kingdoms.engine.month import resolve_month

    state, levy = _mountain_out_of_sight()
    for to in ((9, 4), (9, 6)):
        (verdict,) = check_orders(state, "wei", [], [Move(unit_id=levy.id, to=to)])
        assert verdict.ok, verdict
        assert "mountain" not in verdict.message and "water" not in verdict.message, verdict.message
    (seen,) = check_orders(state, "wei", [], [Move(unit_id=levy.id, to=(3, 2))])
    assert not seen.ok and seen.code == "impassable" and "mountain" in seen.message
    res = resolve_month(state, {"wei": [Move(unit_id=levy.id, to=(9, 4))]})
    (out,) = [o for o in res.outcomes if o.kingdom == "wei"]
    assert not out.ok and out.code == "impassable"


def test_intel_050_a_route_through_unexplored_ground_is_planned_at_one_move_a_tile():
    """INTEL-050, MOVE-020: beyond sight the ground is planned as open (1 move a tile): a march from (2,4) to
    (11,4) is planned as the 9 tiles of the straight row, 3 months for 3 moves a month, whatever the unseen ground
    holds (on the true map the mountain at (9,4) makes it 10 tiles, 4 months: that is found out on the way)."""
    state, levy = _mountain_out_of_sight()
    (verdict,) = check_orders(state, "wei", [], [Move(unit_id=levy.id, to=(11, 4))])
    assert verdict.ok and "3 months in all" in verdict.message, verdict.message



# --- INTEL-040: a rival city's books stay closed on the believed board -------------------------------------


def test_intel_040_a_rival_citys_ledger_queue_and_stores_are_not_on_the_believed_board():
    """INTEL-040: Wei's scout beside Shu's city sees it; the believed board keeps the city (its tile and holder)
    but not its books: no queue, store or grain, and none of last month's ledger (production, militia standing,
    whether it was blockaded), which the economy and the checks could otherwise read on Wei's behalf. Wei's own
    city keeps its ledger."""
    state, city, _levy, _target = _lane_at_peace()
    add(state, "wei", "scout", (7, 4))
    city.queue = [QueueEntry(item="spearman", men=1_000)]
    city.store, city.grain = 40.0, 300.0
    city.last.update({"production": 55, "militia_standing": 1_200, "blockaded": True})
    own = found_city(state, "wei", 2, 4, people=15_000, grain=100, name="Luoyang")
    own.last.update({"production": 12})
    board = believed_state(state, "wei")
    seen = board.cities[city.id]
    assert (seen.q, seen.r, seen.owner) == (8, 4, "shu")
    assert seen.queue == [] and seen.store == 0.0 and seen.grain == 0.0
    assert seen.last == {}
    assert city.last["production"] == 55  # the true state is untouched
    assert board.cities[own.id].last["production"] == 12
