"""The turn model through the game service (TURN-010..210): orders given with Game.issue, months ended with
Game.end_month, the results read back from the game file.

The engine-level tests (test_movement, test_combat) run single orders on a board; these prove the same rules
hold end to end: parsed text, issue-time checks, the durable queue, the rotation, the month's resolution and the
outcomes the players are told. Worlds are open grassland (tests.builders.world) unless marked; axial neighbours of
(q,r): the steps of kingdoms.hexgrid.DIRECTIONS (E +1,0; W -1,0; NE +1,-1; NW 0,-1; SE 0,+1; SW -1,+1). Foot troops have 3 moves, cavalry 5
(MOVE-010); a grass step costs 1.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kingdoms import ruledata as rd
from kingdoms.engine.land import found_city
from kingdoms.game import Game, GameError, Verdict
from kingdoms.hexgrid import distance
from kingdoms.state import GameState
from kingdoms.storage import DiskFull
from tests.builders import add, corridor, kingdom, world

MakeGame = Callable[..., Game]


@pytest.fixture
def make_game(tmp_path: Path) -> Iterator[MakeGame]:
    """Game files made from hand-built states; every seat an agent unless told."""
    made: list[Game] = []

    def _make(state: GameState, controllers: dict[str, str] | None = None) -> Game:
        game, _ = Game.create(tmp_path / f"game{len(made)}.sqlite", state, scenario="test",
                              controllers=controllers or {k: "agent" for k in state.kingdoms})
        made.append(game)
        return game

    yield _make
    for game in made:
        game.close()


def issue(game: Game, kingdom: str, orders: Any, *, preview: bool = False) -> list[Verdict]:
    """Give orders that must all be accepted."""
    verdicts = game.issue(kingdom, orders, preview=preview)
    assert all(v.ok for v in verdicts), [(v.text, v.code, v.message) for v in verdicts if not v.ok]
    return verdicts


def end_month(game: Game) -> None:
    """Every seat still playing ends the open month; it resolves."""
    month = game.month
    for k in game.waiting_for():
        game.end_month(k)
    assert game.month == month + 1 or game.finished


def outcomes(game: Game, month: int, kingdom: str = "wei") -> list[dict[str, Any]]:
    return game.store.outcomes(month, kingdom)


def unit_at(game: Game, uid: int) -> tuple[int, int]:
    return game.state().units[uid].tile


# --- TURN-010..030: months, seats, the queue ----------------------------------------------------------------


def test_turn_010_one_month_a_turn_from_month_1_to_month_160(make_game: MakeGame) -> None:
    """TURN-010: a game opens at month 1, each resolution is one month, and the game ends with month 160."""
    assert rd.LAST_MONTH == 160 and GameState(seed=1, month=1, kingdoms={}).last_month == 160
    state = world()
    state.month = 1
    add(state, "wei", "levy", (1, 4), 1_000)
    game = make_game(state)
    assert game.month == 1
    end_month(game)
    assert game.month == 2 and game.store.month_hashes().keys() == {1, 2}
    last = world()
    last.month = rd.LAST_MONTH
    levy = add(last, "wei", "levy", (1, 4), 1_000)
    late = make_game(last)
    end_month(late)
    final = late.state()
    assert final.finished and final.end_reason == "time_limit" and final.month == rd.LAST_MONTH
    with pytest.raises(GameError, match="over"):
        late.issue("wei", f"hold unit={levy.id}")


def test_turn_010_a_finished_game_reports_month_160(make_game: MakeGame) -> None:
    """TURN-010: no month 161: once the game is over, the game's month is its last month."""
    last = world()
    last.month = rd.LAST_MONTH
    add(last, "wei", "levy", (1, 4), 1_000)
    game = make_game(last)
    end_month(game)
    assert game.state().finished
    assert game.month == rd.LAST_MONTH


def test_turn_020_all_seats_order_the_same_month_agents_and_ais_alike(make_game: MakeGame) -> None:
    """TURN-020: an agent seat and a scripted-AI seat give orders for the same month, in any interleaving; the
    month is carried out only once both have ended it, and both kingdoms' orders run in it."""
    state = world(war=False)
    a = add(state, "wei", "levy", (0, 2), 1_000)
    b = add(state, "shu", "levy", (0, 6), 1_000)
    game = make_game(state, {"wei": "agent", "shu": "ai:test"})
    game.ai_decider = lambda g, k, c: f"move unit={b.id} to=3,6"
    issue(game, "wei", f"move unit={a.id} to=3,2")
    game.play_ai_seats()  # the AI gives its orders and ends its month; the agent has not ended yet
    assert game.month == 5 and game.waiting_for() == ["wei"]
    assert [o.action for o in game.queued("shu")] == ["move"]
    issue(game, "wei", f"hold unit={a.id}")  # still the same month for the agent
    assert game.end_month("wei") is True
    assert game.month == 6
    assert unit_at(game, a.id) == (3, 2) and unit_at(game, b.id) == (3, 6)


def test_turn_020_an_ai_seats_orders_note_and_month_end_are_written_together(make_game: MakeGame) -> None:
    """TURN-020: an AI seat's orders, its note and its month end are one write: when the note cannot be stored,
    neither its orders nor its month end are, and the seat still has the month to play."""
    from kingdoms.ai.common import Decision

    state = world(war=False)
    b = add(state, "shu", "levy", (0, 6), 1_000)
    game = make_game(state, {"wei": "agent", "shu": "ai:test"})
    game.ai_decider = lambda g, k, c: Decision(f"move unit={b.id} to=3,6", "marching east")

    def broken(*_args: Any) -> None:
        raise OSError(28, "No space left on device")

    real, game.store.add_note = game.store.add_note, broken  # type: ignore[method-assign]
    with pytest.raises(DiskFull):
        game.play_ai_seats()
    assert game.queued("shu") == [] and sorted(game.waiting_for()) == ["shu", "wei"]
    game.store.add_note = real  # type: ignore[method-assign]
    game.play_ai_seats()
    assert [o.action for o in game.queued("shu")] == ["move"] and game.waiting_for() == ["wei"]
    assert [n["text"] for n in game.store.notes("shu")] == ["marching east"]


def test_turn_020_ai_seats_and_the_resolution_are_one_write(make_game: MakeGame) -> None:
    """TURN-020: the AI seats' month (every seat's orders and month end, then the resolution) is one write: when the
    second seat's ruler fails, the first seat's orders and month end are not stored either, and the next call plays
    both seats and resolves the month."""
    state = world(war=False)
    a = add(state, "wei", "levy", (0, 2), 1_000)
    b = add(state, "shu", "levy", (0, 6), 1_000)
    game = make_game(state, {"wei": "ai:test", "shu": "ai:test"})
    moves = {"wei": f"move unit={a.id} to=3,2", "shu": f"move unit={b.id} to=3,6"}
    failing = ["shu"]

    def decide(g: Game, kingdom: str, controller: str) -> str:
        if kingdom in failing:
            raise RuntimeError("the ruler failed")
        return moves[kingdom]

    game.ai_decider = decide
    with pytest.raises(RuntimeError):
        game.play_ai_seats()
    assert game.month == 5 and game.queued("wei") == [] and sorted(game.waiting_for()) == ["shu", "wei"]
    failing.clear()
    game.play_ai_seats()
    assert game.month == 6 and unit_at(game, a.id) == (3, 2) and unit_at(game, b.id) == (3, 6)


def test_turn_030_orders_are_queued_and_carried_out_only_at_month_end(make_game: MakeGame) -> None:
    """TURN-030: an accepted order changes nothing on the board until the month ends; then it is carried out."""
    state = world()
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    game = make_game(state)
    before = game.state().state_hash()
    verdicts = issue(game, "wei", f"move unit={levy.id} to=3,4")
    assert "(0,4) -> (3,4)" in verdicts[0].message  # what it will do ...
    assert game.state().state_hash() == before and unit_at(game, levy.id) == (0, 4)  # ... not done yet
    reopened = Game.open(game.store.path)
    assert reopened.state().state_hash() == before and [o.action for o in reopened.queued("wei")] == ["move"]
    reopened.close()
    game.end_month("wei")
    assert game.month == 5 and unit_at(game, levy.id) == (0, 4), "shu has not ended the month yet"
    game.end_month("shu")
    assert unit_at(game, levy.id) == (3, 4)


# --- TURN-040: the rotation ---------------------------------------------------------------------------------


def test_turn_040_open_73_kingdoms_run_one_after_another_in_a_rotation_shifted_each_month(make_game: MakeGame) -> None:
    """TURN-040, OPEN-73: all of a kingdom's orders run before the next kingdom's, and the order of kingdoms shifts
    by one place each month. Each month three rivals (at peace) race onto one free tile from three tiles away: the
    kingdom first in that month's rotation takes it, though its racer's order is its second one and the others'
    their first (orders are not interleaved by position); the others stop beside the tile."""
    state = world(width=26, height=10, war=False)
    state.kingdoms["wu"] = kingdom("wu", "Wu")
    state.rotation = ["wei", "shu", "wu"]
    spare = {k: add(state, k, "scout", (2 * n, 9)) for n, k in enumerate(state.rotation)}
    races = []
    for tq, tr in [(4, 4), (12, 4), (20, 4)]:
        racers = {"wei": add(state, "wei", "levy", (tq - 3, tr), 1_000),     # 3 tiles W
                  "shu": add(state, "shu", "levy", (tq + 3, tr - 3), 1_000),  # 3 tiles NE
                  "wu": add(state, "wu", "levy", (tq, tr + 3), 1_000)}        # 3 tiles SE
        races.append(((tq, tr), racers))
    game = make_game(state)
    for month, (goal, racers) in enumerate(races):
        rotation = game.state().rotation
        assert rotation == (["wei", "shu", "wu"] * 2)[month:month + 3]
        first = rotation[0]
        for k, unit in racers.items():
            before = f"hold unit={spare[k].id}; " if k == first else ""
            issue(game, k, f"{before}move unit={unit.id} to={goal[0]},{goal[1]}")
        end_month(game)
        assert unit_at(game, racers[first].id) == goal, (month, rotation)
        for k, unit in racers.items():
            if k != first:
                assert distance(unit_at(game, unit.id), goal) == 1
    assert game.state().rotation == ["wei", "shu", "wu"]


# --- TURN-050, TURN-060: checked twice ----------------------------------------------------------------------


def test_turn_050_a_refused_order_is_not_queued_and_can_be_fixed_the_same_month(make_game: MakeGame) -> None:
    """TURN-050: each order is checked against the board when given; a failing one is not queued, the reply
    says why, and the corrected order is accepted in the same month."""
    state = world({(4, 4): "M"})
    levy = add(state, "wei", "levy", (2, 4), 1_000)
    game = make_game(state)
    bad = game.issue("wei", f"move unit={levy.id} to=4,4; hold unit=999")
    assert [(v.ok, v.code) for v in bad] == [(False, "impassable"), (False, "unknown_unit")]
    assert game.queued("wei") == []
    # the reply names a tile that would work: send the order again with it
    match = re.search(r"nearest tile you can reach is \((-?\d+),(-?\d+)\)", bad[0].message)
    assert match is not None, bad[0].message
    fixed = (int(match[1]), int(match[2]))
    issue(game, "wei", f"move unit={levy.id} to={fixed[0]},{fixed[1]}")
    assert [(o.action, tuple(o.to)) for o in game.queued("wei")] == [("move", fixed)]
    end_month(game)
    assert unit_at(game, levy.id) == fixed


def test_turn_060_execution_time_check_fails_a_target_that_vanished(make_game: MakeGame) -> None:
    """TURN-060: checked again when carried out. Shu runs first this month and disbands the troop Wei's queued
    attack aims at: the attack fails at month end with a code and a reason, and the result is stored."""
    state = world()
    state.rotation = ["shu", "wei"]
    levy = add(state, "wei", "levy", (2, 4), 3_000)
    target = add(state, "shu", "levy", (3, 4), 1_000)
    game = make_game(state)
    issue(game, "wei", f"attack unit={levy.id} to=3,4")
    issue(game, "shu", f"disband unit={target.id}")
    end_month(game)
    [out] = outcomes(game, 5)
    assert out["ok"] == 0 and out["code"] == "no_target" and "(3,4)" in out["result"]
    assert game.state().units[levy.id].men == 3_000 and unit_at(game, levy.id) == (2, 4)


def test_turn_060_execution_time_attack_follows_a_target_that_moved_first(make_game: MakeGame) -> None:
    """TURN-060, COMBAT-320: the target stepped away first (Shu's slot comes first) but stays in sight: the attack
    adapts and follows it instead of failing."""
    state = world()
    state.rotation = ["shu", "wei"]
    levy = add(state, "wei", "levy", (2, 4), 3_000)
    target = add(state, "shu", "levy", (3, 4), 1_000)
    game = make_game(state)
    issue(game, "wei", f"attack unit={levy.id} to=3,4")
    issue(game, "shu", f"move unit={target.id} to=4,4")
    end_month(game)
    [out] = outcomes(game, 5)
    assert out["ok"] == 1 and "attacks" in out["result"]
    after = game.state()
    assert target.id not in after.units or after.units[target.id].men < 1_000


# --- TURN-070, TURN-080, TURN-090: several calls, several orders for one troop ------------------------------


def test_turn_070_several_calls_append_to_the_month_queue(make_game: MakeGame) -> None:
    """TURN-070: each issue_orders call adds its accepted orders after those already queued; a later call is
    judged after the earlier calls' orders, and they all run in the order given."""
    state = world(width=16)
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    game = make_game(state)
    issue(game, "wei", f"move unit={levy.id} to=1,4")
    second = issue(game, "wei", f"move unit={levy.id} to=9,4")
    assert "(1,4) -> (3,4)" in second[0].message  # judged from where the first call's move leaves it
    issue(game, "wei", [{"action": "hold", "unit_ids": [levy.id]}])
    assert [o.action for o in game.queued("wei")] == ["move", "move", "hold"]
    end_month(game)
    unit = game.state().units[levy.id]
    assert unit.tile == (3, 4) and unit.fortified and unit.standing is None  # the hold ended the march (TURN-150)
    assert [o["position"] for o in outcomes(game, 5)] == [1, 2, 3]  # numbered in the month's queue


def test_turn_080_one_troops_orders_run_in_written_order_with_the_moves_left(make_game: MakeGame) -> None:
    """TURN-080: one troop's orders run in the order written, each with the moves the earlier ones left: out to
    (2,4) and back toward (0,4) is not the same as staying at (0,4) and then going out."""
    results = {}
    for orders in (["to=2,4", "to=0,4"], ["to=0,4", "to=2,4"]):
        state = world()
        levy = add(state, "wei", "levy", (0, 4), 1_000)
        game = make_game(state)
        issue(game, "wei", "; ".join(f"move unit={levy.id} {o}" for o in orders))
        end_month(game)
        unit = game.state().units[levy.id]
        results[tuple(orders)] = (unit.tile, unit.standing)
    # out 2 tiles (2 moves), back with the 1 move left: one step toward (0,4), the rest stands for next month
    tile, standing = results[("to=2,4", "to=0,4")]
    assert tile == (1, 4) and standing["to"] == [0, 4]
    # "move to where it stands" first, then out with all 3 moves: it arrives at (2,4)
    tile, standing = results[("to=0,4", "to=2,4")]
    assert tile == (2, 4) and standing is None


def test_turn_090_any_troop_moves_then_attacks(make_game: MakeGame) -> None:
    """TURN-090: a levy moves one tile, then attacks with its 2 moves left: it marches beside the target and strikes."""
    state = world()
    levy = add(state, "wei", "levy", (0, 4), 3_000)
    target = add(state, "shu", "levy", (3, 4), 1_000)
    add(state, "wei", "scout", (3, 2))  # the target must be in sight to be named (INTEL-050)
    game = make_game(state)
    issue(game, "wei", f"move unit={levy.id} to=1,4; attack unit={levy.id} to=3,4")
    end_month(game)
    moved, struck = outcomes(game, 5)
    assert moved["ok"] and struck["ok"] and "attacks" in struck["result"]
    after = game.state()
    assert target.id not in after.units or after.units[target.id].men < 1_000


def test_turn_090_cavalry_attack_then_ride_off_but_foot_cannot(make_game: MakeGame) -> None:
    """TURN-090, COMBAT-290: cavalry attack for 2 of their 5 moves and ride off with the 3 left; a levy's attack
    takes all its moves, so its move after the attack gets no farther this month (it stands for next month)."""
    state = world()
    cav = add(state, "wei", "cavalry", (2, 4), 2_000)
    add(state, "shu", "levy", (3, 4), 6_000)
    levy = add(state, "wei", "levy", (2, 6), 3_000)
    add(state, "shu", "levy", (3, 6), 2_500)  # the levy loses 0.2 x 2,500 = 500 (17%): it does not break
    game = make_game(state)
    issue(game, "wei", f"attack unit={cav.id} to=3,4; move unit={cav.id} to=0,4; "
                       f"attack unit={levy.id} to=3,6; move unit={levy.id} to=0,6")
    end_month(game)
    after = game.state()
    assert after.units[cav.id].tile == (0, 4)
    assert after.units[levy.id].tile != (0, 6)
    assert after.units[levy.id].standing == {"action": "move", "unit_id": levy.id, "to": [0, 6]}


# --- TURN-100, TURN-110: between troops ---------------------------------------------------------------------


def test_turn_100_written_order_between_troops_is_irrelevant(make_game: MakeGame) -> None:
    """TURN-100: a chain of moves, each onto the tile the next own troop is leaving, gives the same board in
    every written order: each waits for the troop ahead of it."""
    hashes = set()
    for perm in itertools.permutations(range(3)):
        state = world(width=16)
        a = add(state, "wei", "levy", (1, 4), 1_000)
        b = add(state, "wei", "spearman", (3, 4), 1_000)
        c = add(state, "wei", "archer", (5, 4), 1_000)
        orders = [f"move unit={a.id} to=3,4", f"move unit={b.id} to=5,4", f"move unit={c.id} to=7,4"]
        game = make_game(state)
        issue(game, "wei", "; ".join(orders[i] for i in perm))
        end_month(game)
        after = game.state()
        assert [after.units[u.id].tile for u in (a, b, c)] == [(3, 4), (5, 4), (7, 4)], perm
        assert all(o["ok"] for o in outcomes(game, 5))
        hashes.add(after.state_hash())
    assert len(hashes) == 1


def test_turn_110_two_neighbours_swap_places_in_either_written_order(make_game: MakeGame) -> None:
    """TURN-110: two adjacent own troops ordered onto each other's tiles trade places, whichever is written first."""
    for first in (0, 1):
        state = world()
        a = add(state, "wei", "levy", (3, 4), 1_000)
        b = add(state, "wei", "archer", (4, 4), 1_000)
        orders = [f"move unit={a.id} to=4,4", f"move unit={b.id} to=3,4"]
        game = make_game(state)
        issue(game, "wei", "; ".join(orders[first:] + orders[:first]))
        end_month(game)
        assert (unit_at(game, a.id), unit_at(game, b.id)) == ((4, 4), (3, 4))
        assert all("swaps places" in o["result"] for o in outcomes(game, 5))


# --- TURN-120..160: standing orders -------------------------------------------------------------------------


def test_turn_120_standing_orders_run_after_new_orders_and_only_for_troops_without_one(make_game: MakeGame) -> None:
    """TURN-120: month 2 of a march: the standing order runs after the kingdom's new orders (an archer ordered
    onto the march's goal this month gets there first and the levy ends beside it), and a troop given a new order
    runs no standing order."""
    state = world(width=16)
    levy = add(state, "wei", "levy", (0, 4), 1_000)      # marches to (6,4): 2 months
    other = add(state, "wei", "spearman", (0, 6), 1_000)  # marches to (9,6), then gets a new order
    archer = add(state, "wei", "archer", (6, 6), 1_000)   # 2 tiles from (6,4)
    game = make_game(state)
    issue(game, "wei", f"move unit={levy.id} to=6,4; move unit={other.id} to=9,6")
    end_month(game)
    assert unit_at(game, levy.id) == (3, 4) and unit_at(game, other.id) == (3, 6)
    issue(game, "wei", f"move unit={archer.id} to=6,4; hold unit={other.id}")
    end_month(game)
    after = game.state()
    assert after.units[archer.id].tile == (6, 4)
    assert distance(after.units[levy.id].tile, (6, 4)) == 1
    assert after.units[other.id].tile == (3, 6) and after.units[other.id].standing is None
    rows = outcomes(game, 6)
    assert [o["position"] for o in rows] == [1, 2, 0], "new orders first, then the one standing order"
    assert rows[2]["result"].startswith(f"standing: #{levy.id} ")


def test_turn_120_follow_repeats_every_month(make_game: MakeGame) -> None:
    """TURN-120, MOVE-170: a follow order stands and runs again each month after the followed troop's orders."""
    state = world(width=16)
    levy = add(state, "wei", "levy", (0, 4), 3_000)
    engines = add(state, "wei", "catapult", (0, 5), 300)
    game = make_game(state)
    issue(game, "wei", f"follow unit={engines.id} target={levy.id}; move unit={levy.id} to=2,4")
    end_month(game)
    assert unit_at(game, engines.id) == (2, 4)
    issue(game, "wei", f"move unit={levy.id} to=4,4")
    end_month(game)
    assert unit_at(game, engines.id) == (4, 4)
    assert game.state().units[engines.id].standing["action"] == "follow"


@pytest.mark.parametrize("new_order", ["hold unit={u}", "move unit={u} to=3,2", "attack unit={u} to=4,4",
                                       "build unit={u} what=camp"])
def test_turn_130_a_new_order_replaces_a_standing_march(make_game: MakeGame, new_order: str) -> None:
    """TURN-130: a hold, a move, an attack or a camp ends a troop's standing march: the new order runs and the
    march neither runs that month nor stands afterwards."""
    state = world(width=16)
    levy = add(state, "wei", "levy", (0, 4), 3_000)
    add(state, "shu", "levy", (4, 4), 500)
    add(state, "wei", "scout", (4, 2))  # keeps the enemy in sight
    game = make_game(state)
    issue(game, "wei", f"move unit={levy.id} to=12,4")
    end_month(game)
    assert game.state().units[levy.id].standing == {"action": "move", "unit_id": levy.id, "to": [12, 4]}
    issue(game, "wei", new_order.format(u=levy.id))
    end_month(game)
    [row] = outcomes(game, 6)
    assert row["position"] == 1 and row["ok"] == 1, row
    after = game.state()
    unit = after.units[levy.id]
    assert unit.standing is None
    verb = new_order.split()[0]
    if verb == "hold":
        assert unit.fortified
    elif verb == "move":
        assert unit.tile == (3, 2)
    elif verb == "attack":
        assert "attacks" in row["result"]
    else:
        assert [(c.q, c.r) for c in after.camps.values()] == [unit.tile]


@pytest.mark.parametrize("standing", ["merge", "attack"])
def test_turn_130_hold_ends_a_standing_merge_or_attack(make_game: MakeGame, standing: str) -> None:
    """TURN-130: a new hold ends a standing merge or attack order as well."""
    state = world(width=16)
    levy = add(state, "wei", "levy", (0, 4), 3_000)
    other = add(state, "wei" if standing == "merge" else "shu", "levy", (9, 4), 1_000)
    add(state, "wei", "scout", (9, 2))  # keeps the enemy in sight
    game = make_game(state)
    first = f"merge unit={levy.id} target={other.id}" if standing == "merge" else f"attack unit={levy.id} to=9,4"
    issue(game, "wei", first)
    end_month(game)
    assert game.state().units[levy.id].standing["action"] == standing
    issue(game, "wei", f"hold unit={levy.id}")
    end_month(game)
    unit = game.state().units[levy.id]
    assert unit.standing is None and unit.fortified and unit.tile == (3, 4)
    assert [o["position"] for o in outcomes(game, 6)] == [1]


def test_turn_140_a_split_keeps_the_standing_order_and_numbers_the_new_troop_when_carried_out(
        make_game: MakeGame) -> None:
    """TURN-140: the troop split from keeps its standing march (and marches on); the preview cannot name the
    new troop, the month's result does."""
    state = world(width=16)
    levy = add(state, "wei", "levy", (0, 4), 4_000)
    game = make_game(state)
    issue(game, "wei", f"move unit={levy.id} to=9,4")
    end_month(game)
    verdicts = issue(game, "wei", f"split unit={levy.id} men=1000 to=3,6")
    assert "its number is given when the split is carried out" in verdicts[0].message
    next_id = game.state().next_id
    end_month(game)
    after = game.state()
    assert after.units[levy.id].tile == (6, 4) and after.units[levy.id].standing["to"] == [9, 4]
    assert after.units[next_id].men == 1_000 and after.units[next_id].tile == (3, 6)
    split_row = next(o for o in outcomes(game, 6) if o["position"] == 1)
    assert f"#{next_id}" in split_row["result"]


def test_turn_150_same_month_orders_run_in_sequence_but_a_later_hold_ends_a_standing_attack(
        make_game: MakeGame) -> None:
    """TURN-150: an attack that cannot reach its target this month, then hold: both run (the troop marches 3
    tiles, then fortifies) and no attack order stands; a move then hold likewise leaves no march standing."""
    state = world(width=16)
    levy = add(state, "wei", "levy", (0, 4), 3_000)
    add(state, "shu", "levy", (6, 4), 3_000)
    add(state, "wei", "scout", (6, 2))
    spear = add(state, "wei", "spearman", (0, 6), 1_000)
    game = make_game(state)
    issue(game, "wei", f"attack unit={levy.id} to=6,4; hold unit={levy.id}; move unit={spear.id} to=9,6; "
                       f"hold unit={spear.id}")
    end_month(game)
    after = game.state()
    for uid, tile in ((levy.id, (3, 4)), (spear.id, (3, 6))):
        unit = after.units[uid]
        assert unit.tile == tile and unit.standing is None and unit.fortified
    assert all(o["ok"] for o in outcomes(game, 5)) and len(outcomes(game, 5)) == 4
    end_month(game)
    assert unit_at(game, levy.id) == (3, 4) and unit_at(game, spear.id) == (3, 6)


def test_turn_160_a_blocked_march_waits_and_goes_on_when_the_way_clears(make_game: MakeGame) -> None:
    """TURN-160: enemy troops across the only lane: the march walks up to them and waits; while they stay it
    waits again each month, standing; the month after Shu disbands them (Shu's slot comes after Wei's in
    month 7) the standing march goes on."""
    state = world(corridor(), width=16)
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    enemy = add(state, "shu", "levy", (3, 4), 1_000)
    game = make_game(state)
    issue(game, "wei", f"move unit={levy.id} to=8,4")
    end_month(game)
    unit = game.state().units[levy.id]
    assert unit.tile == (2, 4) and unit.standing == {"action": "move", "unit_id": levy.id, "to": [8, 4]}
    assert "blocked" in outcomes(game, 5)[0]["result"]
    end_month(game)
    unit = game.state().units[levy.id]
    assert unit.tile == (2, 4) and unit.standing is not None
    [row] = outcomes(game, 6)
    assert row["position"] == 0 and row["ok"] and "blocked" in row["result"]
    assert game.state().rotation == ["wei", "shu"]
    issue(game, "shu", f"disband unit={enemy.id}")
    end_month(game)
    assert unit_at(game, levy.id) == (2, 4)
    end_month(game)
    assert unit_at(game, levy.id) == (5, 4)
    assert game.state().units[levy.id].standing is not None


# --- TURN-170, TURN-180: preview and outcomes ---------------------------------------------------------------


def test_turn_170_preview_changes_nothing_and_judges_after_the_queued_orders(make_game: MakeGame) -> None:
    """TURN-170: a preview answers each order as it would fare after the orders already queued, queues nothing,
    leaves the state (hash) as it was and does not end the month."""
    state = world()
    levy = add(state, "wei", "levy", (0, 4), 1_000)
    archer = add(state, "wei", "archer", (1, 6), 1_000)
    game = make_game(state)
    h0 = game.state().state_hash()
    alone = issue(game, "wei", f"move unit={archer.id} to=3,4", preview=True)
    assert "arrives" in alone[0].message and "ends beside" not in alone[0].message
    issue(game, "wei", f"move unit={levy.id} to=3,4")
    queued = game.queued("wei")
    after_queue = game.issue("wei", f"move unit={archer.id} to=3,4; disband unit={levy.id}; "
                                    f"move unit={levy.id} to=1,4", preview=True)
    assert f"#{levy.id} levy holds (3,4)" in after_queue[0].message  # the levy is there after the queued move
    assert after_queue[1].ok and not after_queue[2].ok and after_queue[2].code == "unknown_unit"
    assert game.queued("wei") == queued
    assert game.state().state_hash() == h0
    assert Game.open(game.store.path).state().state_hash() == h0
    assert game.month == 5 and "wei" in game.waiting_for()
    assert len(game.store.accepted_orders(5, "wei")) == 1


def test_turn_180_outcomes_come_after_the_resolution_in_the_next_briefing(make_game: MakeGame) -> None:
    """TURN-180: nothing is reported before the month is carried out; then each kingdom gets its own orders'
    outcomes (a failure with its code and reason) in its next briefing, and not the rival's."""
    from kingdoms.session import Session

    state = world(width=16, war=False)
    found_city(state, "wei", 1, 1, people=15_000, grain=100, name="Ye", capital=True)
    found_city(state, "shu", 12, 8, people=15_000, grain=100, name="Chengdu", capital=True)
    levy = add(state, "wei", "levy", (2, 4), 3_000)
    target = add(state, "shu", "levy", (4, 4), 1_000)
    state.rotation = ["shu", "wei"]
    game = make_game(state)
    issue(game, "wei", f"move unit={levy.id} to=3,4; declare_war to=Shu; attack unit={levy.id} to=4,4")
    issue(game, "shu", f"move unit={target.id} to=9,4")  # out of Wei's sight before Wei's slot
    assert outcomes(game, 5) == []
    end_month(game)
    rows = outcomes(game, 5)
    assert [(o["position"], o["ok"]) for o in rows] == [(1, 1), (2, 1), (3, 0)]
    assert rows[2]["code"] == "target_lost"
    assert [o["position"] for o in outcomes(game, 5, "shu")] == [1]
    desk = Session(game.store.path)
    try:
        text = desk.briefing_text("wei", explicit=True)
        rival = desk.briefing_text("shu", explicit=True)
    finally:
        desk.close()
    assert "M5: 2 orders carried out, 1 failed." in text
    assert f"FAILED #3 attack unit={levy.id} to=4,4 [target_lost]" in text
    assert "M5: 1 order carried out." in rival and "target_lost" not in rival


# --- TURN-190..210: end_turn and fast_forward through the MCP tools -----------------------------------------


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_turn_200_fast_forward_needs_end_turn_and_stops_at_the_last_month(tmp_path: Path) -> None:
    """TURN-200, TURN-210, TOOLS-450: fast_forward without end_turn is ignored and ends nothing; with end_turn it ends
    the quiet months for the seat (standing orders and queues run on) and stops at the game's last month."""
    from tests.test_server import call, duel, new_game, seat

    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"}, state=duel(rd.LAST_MONTH - 3))
    async with seat(path, tokens["wei"], wait_s=20, poll_s=0.02) as c:
        err, text = await call(c, "issue_orders", {"orders": "hold unit=2", "fast_forward": 5})
        assert not err and "fast_forward ignored" in text and f"Month {rd.LAST_MONTH - 3} stays open" in text
        err, text = await call(c, "issue_orders", {"orders": "set_production city=1 queue=palisade,barracks,walls",
                                                   "end_turn": True, "fast_forward": 5})
    assert not err
    assert f"MONTH {rd.LAST_MONTH} of {rd.LAST_MONTH}" in text, text[:600]
    assert "fast_forward stopped" in text and f"month {rd.LAST_MONTH} is the last month" in text
    game = Game.open(path)
    ended = [game.store.ended(m).get("wei") for m in range(rd.LAST_MONTH - 3, rd.LAST_MONTH + 1)]
    assert ended == ["ended", "fast_forward", "fast_forward", None]
    assert game.state().cities[1].queue[0].item != "palisade" or game.state().cities[1].queue[0].paid > 0
    game.close()


@pytest.mark.anyio
async def test_turn_210_fast_forward_stops_at_an_alarm_war(tmp_path: Path) -> None:
    """TURN-210: fast_forward stops, returning the briefing, at the first month with an alarm: here the AI rival
    declares war in month 3, so months 2 and 3 are ended for the seat and month 4 is its turn again."""
    from mcp import Client

    from kingdoms.server import build_server
    from tests.test_server import call, new_game

    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"})
    server = build_server(path, token=tokens["wei"], wait_s=20, poll_s=0.02)
    server.session.game.ai_decider = lambda g, k, c: "declare_war to=wei" if g.month == 3 else ""  # type: ignore[attr-defined]
    try:
        async with Client(server) as c:
            err, text = await call(c, "issue_orders", {"orders": "hold unit=2; set_production city=1 "
                                                                 "queue=palisade,barracks,walls",
                                                       "end_turn": True, "fast_forward": 6})
    finally:
        server.session.close()  # type: ignore[attr-defined]
    assert not err
    assert "MONTH 4 of" in text and "fast_forward stopped" in text and "WAR" in text, text[:600]
    game = Game.open(path)
    assert [game.store.ended(m).get("wei") for m in (1, 2, 3, 4)] == ["ended", "fast_forward", "fast_forward", None]
    assert game.state().at_war("wei", "shu")
    game.close()


# --- OPEN-79: nothing takes a queued order back -------------------------------------------------------------------


def test_open_79_turn_070_a_queued_order_cannot_be_cancelled_a_later_one_runs_after_it(make_game: MakeGame) -> None:
    """OPEN-79, TURN-070, TURN-150: there is no cancel verb; a hold given in a later call joins the queue after the
    move already queued (which stays): at month end the levy marches its 3 tiles, then fortifies, and no march
    stands."""
    state = world(width=16)
    levy = add(state, "wei", "levy", (0, 4), 3_000)
    game = make_game(state)
    issue(game, "wei", f"move unit={levy.id} to=9,4")
    (refused,) = game.issue("wei", f"cancel unit={levy.id}")
    assert not refused.ok and refused.code == "unknown_verb"
    issue(game, "wei", f"hold unit={levy.id}")
    assert [o.action for o in game.queued("wei")] == ["move", "hold"]
    end_month(game)
    unit = game.state().units[levy.id]
    assert unit.tile == (3, 4) and unit.fortified and unit.standing is None


# --- OPEN-72: the month end's order -----------------------------------------------------------------------------


def test_open_72_turn_040_kingdoms_in_rotation_then_the_phases_in_the_default_order(monkeypatch) -> None:
    """OPEN-72, TURN-040: each kingdom's slot in the month's rotation (its new then standing orders) comes first;
    then, once each: the bandit garrison's strike, towers, production (upkeep, desertion, queues), camps and
    granaries (troops eat, rations, people eat, happiness), growth and land, hunger, blockades and repairs,
    militia, unrest, spies, wagons, border expulsion, folding, morale, new generals, victory, map memory."""
    from kingdoms.engine import month as mon
    from kingdoms.engine.registry import PHASE_SLOTS, PHASES, load_areas

    load_areas()
    expected = ("bandits", "towers", "production", "camps", "grain", "growth", "hunger", "blockade", "militia",
                "unrest", "spies", "wagons", "borders", "folding", "morale", "generals", "victory", "memory")
    assert PHASE_SLOTS == expected
    calls: list[str] = []
    real_kingdom = mon.run_kingdom
    monkeypatch.setattr(mon, "run_kingdom", lambda ctx, k, orders: (calls.append(k), real_kingdom(ctx, k, orders)))
    for slot in PHASE_SLOTS:
        wrapped = [lambda ctx, fn=fn, slot=slot: (calls.append(slot), fn(ctx)) for fn in PHASES[slot]]
        monkeypatch.setitem(PHASES, slot, wrapped)
    state = world()
    state.rotation = ["shu", "wei"]
    mon.resolve_month(state, {})
    assert calls[:2] == ["shu", "wei"]
    assert list(dict.fromkeys(calls[2:])) == list(expected)
