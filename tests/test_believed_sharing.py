"""The believed board shares what it takes unchanged from the true state (GameState.clone's `share`).

An Observation's believed board (engine.belief.believed_state with `shared=True`) holds the kingdom's own record,
cities, units and camps and the generals and stationed spies as the true state's very objects, not copies. That is
safe only while nothing writes through the board: these tests play seeded games and check that the true state is
unchanged byte for byte after AI decisions (standard and hard), briefings, issue-time checks (attacks included:
a previewed fight writes to the board it runs on) and the forecasts, and that the shared board equals the copied one.
"""

from __future__ import annotations

import contextlib
import pickle
from pathlib import Path

import pytest

from kingdoms.ai import LEVELS
from kingdoms.engine.belief import believed_state
from kingdoms.engine.month import check_orders
from kingdoms.game import Game
from kingdoms.hexgrid import distance
from kingdoms.orders.models import Attack, Move
from kingdoms.setup import build_state, resolve_scenario
from kingdoms.state import GameState, copy_city, copy_unit
from kingdoms.views import observe, render

KEEP = (4, 12, 20, 28, 36)


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory) -> dict[int, GameState]:
    """True states of a seeded default game (a hard seat and two standard ones), kept at the months in KEEP."""
    state = build_state(resolve_scenario(None), 5)
    levels = ("ai:hard", "ai:standard", "ai:standard")
    controllers = {k: levels[n % 3] for n, k in enumerate(state.kingdoms)}
    path = Path(tmp_path_factory.mktemp("sharing")) / "g.sqlite"
    game, _ = Game.create(path, state, scenario="three_kingdoms", controllers=controllers)
    kept: dict[int, GameState] = {}
    try:
        while game.month <= max(KEEP) and not game.finished:
            if game.month in KEEP:
                kept[game.month] = game.state().clone()
            game.play_ai_seats()
    finally:
        game.close()
    assert len(kept) == len(KEEP)
    return kept


def _bytes(state: GameState) -> bytes:
    """Every fact of the state as bytes: its stored form (hash and JSON) and a pickle of its fields but the map."""
    digest, body = state.stored_form()
    fields = {k: v for k, v in state.__dict__.items() if k != "map"}
    return digest.encode() + body + pickle.dumps(fields, protocol=pickle.HIGHEST_PROTOCOL)


def _attacks(board: GameState, kingdom: str) -> list[Attack | Move]:
    """Attacks of every own fighting troop on each foreign troop and city near it on the believed board (each
    previewed fight runs on the check's board), and a march next to each target."""
    out: list[Attack | Move] = []
    own = [u for u in board.units.values() if u.owner == kingdom and u.spec.fighting]
    targets = [u.tile for u in board.units.values() if u.owner != kingdom]
    targets += [c.tile for c in board.cities.values() if c.owner != kingdom]
    for unit in own:
        for to in targets:
            if distance(unit.tile, to) <= 8:
                out.append(Attack(unit_id=unit.id, to=to))
                out.append(Attack(unit_id=unit.id, to=to, surprise=True))
                out.append(Move(unit_id=unit.id, to=(to[0] + 1, to[1])))
    return out


def _use_everything(state: GameState, kingdom: str) -> int:
    """Decide, brief, check and forecast for `kingdom` on one observation of `state`; the checks run (a count)."""
    obs = observe(state, kingdom)
    board = obs.believed
    before = _bytes(board)
    checks = 0
    for level in ("standard", "hard"):
        decision = LEVELS[level](obs)
        obs.check_orders([], list(decision.parsed))
        checks += 1
    attacks = _attacks(board, kingdom)
    if attacks:
        obs.check_orders([], attacks)
        for order in attacks:
            obs.check_orders([], [order])
            checks += 1
    render.briefing(obs.view, render.briefing_data(obs, full_rows=True))
    others = [k for k in state.kingdoms if k != kingdom]
    for unit in [u for u in board.units.values() if u.owner == kingdom]:
        obs.months_to(unit.id, [c.tile for c in board.cities.values()], at_war_with=others)
        obs.reach(unit.id)
        for foe in [u for u in board.units.values() if u.owner != kingdom][:3]:
            with contextlib.suppress(KeyError, ValueError):
                obs.fight(unit.id, foe.id)
    for city in [c for c in board.cities.values() if c.owner != kingdom]:
        force = [u.id for u in board.units.values() if u.owner == kingdom and u.spec.fighting]
        with contextlib.suppress(KeyError, ValueError):
            obs.siege(city.id, force, months=2)
    assert _bytes(board) == before, f"{kingdom} month {state.month}: the believed board was changed"
    return checks


def test_ai_briefing_and_checks_leave_the_true_state_unchanged_byte_for_byte(states: dict[int, GameState]) -> None:
    """TURN-050: AI decisions, a briefing, issue-time checks (fights previewed) and forecasts on the believed board,
    whose own records are the true state's objects, change nothing of the true state (nor of the believed board)."""
    checks = 0
    for state in states.values():
        for kingdom in state.kingdoms:
            before = _bytes(state)
            checks += _use_everything(state, kingdom)
            assert _bytes(state) == before, f"{kingdom} month {state.month}: the true state was changed"
    assert checks > 3 * len(states) * 2  # attacks were checked too


def test_the_shared_board_is_the_copied_board(states: dict[int, GameState]) -> None:
    """The believed board with its own records shared equals the one made of copies (INTEL-050: the same facts),
    its own cities and units are the true state's objects, the rest are copies, and a check on it gives the
    verdicts a check on a copied board gives."""
    for state in states.values():
        for kingdom in state.kingdoms:
            shared = believed_state(state, kingdom, shared=True)
            copied = believed_state(state, kingdom)
            assert _bytes(shared) == _bytes(copied)
            assert list(shared.cities) == list(copied.cities) and list(shared.units) == list(copied.units)
            for cid, city in shared.cities.items():
                assert (city is state.cities[cid]) == (city.owner == kingdom)
                assert copied.cities[cid] is not state.cities[cid]
            for uid, unit in shared.units.items():
                assert (unit is state.units[uid]) == (unit.owner == kingdom)
            assert shared.kingdoms[kingdom] is state.kingdoms[kingdom]
            assert all(kd is not state.kingdoms[k] for k, kd in shared.kingdoms.items() if k != kingdom)
            attacks = _attacks(shared, kingdom)
            obs = observe(state, kingdom)
            assert obs.check_orders([], attacks) == check_orders(state, kingdom, [], attacks)


def test_clone_with_share_copies_all_but_the_kingdoms_records(states: dict[int, GameState]) -> None:
    """GameState.clone(share=k): k's record, cities, units and camps and all generals and spies are the original's
    objects; every other record and every container is new, and the copy equals a full clone."""
    state = states[max(states)]
    for kingdom in state.kingdoms:
        twin = state.clone(share=kingdom)
        assert _bytes(twin) == _bytes(state.clone())
        assert twin.cities is not state.cities and twin.units is not state.units and twin.spies is not state.spies
        assert twin.generals is not state.generals and twin.camps is not state.camps
        assert all((c is state.cities[k]) == (c.owner == kingdom) for k, c in twin.cities.items())
        assert all((u is state.units[k]) == (u.owner == kingdom) for k, u in twin.units.items())
        assert all((c is state.camps[k]) == (c.owner == kingdom) for k, c in twin.camps.items())
        assert all(g is state.generals[k] for k, g in twin.generals.items())
        assert all((kd is state.kingdoms[k]) == (k == kingdom) for k, kd in twin.kingdoms.items())
        assert twin.owner is not state.owner


def test_copies_without_books_or_orders_leave_out_only_those(states: dict[int, GameState]) -> None:
    """INTEL-040: copy_city(books=False) is the full copy with an empty queue and ledger and no store or grain;
    copy_unit(orders=False) the full copy without standing order, its aim or home city; neither shares a
    mutable object with the original."""
    state = states[max(states)]
    assert any(c.queue and c.last for c in state.cities.values()) and any(u.standing for u in state.units.values())
    for city in state.cities.values():
        full, closed = copy_city(city), copy_city(city, books=False)
        full.queue, full.store, full.grain, full.last = [], 0.0, 0.0, {}
        assert closed == full
        assert closed.buildings is not city.buildings and closed.improvements is not city.improvements
        assert all(a is not b for a, b in zip(closed.improvements, city.improvements, strict=True))
    for unit in state.units.values():
        full, bare = copy_unit(unit), copy_unit(unit, orders=False)
        full.standing, full.standing_meta, full.home_city = None, None, None
        assert bare == full and bare is not unit
