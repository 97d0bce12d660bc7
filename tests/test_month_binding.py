"""Orders and month ends are bound to their month: a reply that says "queued" is true, a month end ends the
month the seat saw, the deadline ends the month whose time ran out. The races are played out deterministically:
a controllable clock, and the other process's moves injected at the exact point of the interleaving."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

import kingdoms.game as game_module
from kingdoms.game import Game, MonthClosed
from kingdoms.server import build_server
from kingdoms.storage import StorageError
from kingdoms.views.observation import Observation

from .conftest import tiny_state


class Clock:
    """A clock that moves only when told."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _new(path: Path, clock: Clock, deadline_s: float = 100.0) -> Game:
    game, _ = Game.create(path, tiny_state(), scenario="tiny", controllers={"wei": "agent", "shu": "agent"},
                          deadline_s=deadline_s, clock=clock)
    return game


def _other_process_resolves(path: Path, clock: Clock, **open_kw: Any) -> Callable[[], None]:
    """What another process (shu's server) does at the injected moment: shu ends its month, the deadline has
    passed, so wei's month is ended for it and the month resolves."""

    def run() -> None:
        other = Game.open(path, clock=clock, **open_kw)
        try:
            other.end_month("shu")
            clock.now += 1_000
            assert other.apply_deadline() == ["wei"]
            assert other.try_resolve()
        finally:
            other.close()

    return run


def test_turn_050_orders_for_a_month_resolved_meanwhile_are_not_queued(tmp_game_path: Path) -> None:
    """TURN-050: wei reads month 1; before its orders arrive the deadline ends and resolves month 1 in another
    process. The orders, bound to month 1, are refused (MonthClosed says month 2 is open); nothing is queued
    in month 1 or month 2."""
    clock = Clock()
    game = _new(tmp_game_path, clock)
    seen = game.month
    _other_process_resolves(tmp_game_path, clock)()
    with pytest.raises(MonthClosed) as info:
        game.issue("wei", "declare_war to=shu", month=seen)
    assert info.value.month == 1 and info.value.open_month == 2
    assert "month 1 has been resolved; month 2 is open now" in str(info.value)
    assert game.store.all_orders("wei") == []
    game.close()


def test_turn_050_deadline_between_reading_and_queuing_loses_nothing(tmp_game_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The race that lost acknowledged orders: the deadline resolves the month after issue() has started but
    before it stores. Now the check happens inside the write transaction, so the call is refused, not
    acknowledged-and-dropped."""
    clock = Clock()
    game = _new(tmp_game_path, clock)
    real_parse = game_module.parse_orders
    injected = _other_process_resolves(tmp_game_path, clock)

    def parse_then_race(orders: Any) -> Any:
        injected()  # the other process moves right here, before issue() takes the write lock
        return real_parse(orders)

    monkeypatch.setattr(game_module, "parse_orders", parse_then_race)
    with pytest.raises(MonthClosed, match="month 2 is open now"):
        game.issue("wei", "declare_war to=shu", month=1)
    assert game.store.all_orders("wei") == []
    game.close()


def test_turn_070_a_queued_order_is_carried_out_even_if_the_deadline_comes_during_its_check(
        tmp_game_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """TURN-070: while issue() checks the orders it holds the write lock, so the deadline cannot end the month in
    the middle (the other process is told the file is busy); the orders are queued, and the month, resolved
    right after, carries them out."""
    clock = Clock()
    game = _new(tmp_game_path, clock)
    real_check = Observation.check_orders
    blocked: list[str] = []

    def check_while_other_tries(self: Observation, *args: Any) -> Any:
        try:
            _other_process_resolves(tmp_game_path, clock, busy_timeout=0.0)()
        except StorageError as exc:
            blocked.append(exc.kind)
        return real_check(self, *args)

    monkeypatch.setattr(Observation, "check_orders", check_while_other_tries)
    verdicts = game.issue("wei", "declare_war to=shu", month=1)
    assert verdicts[0].ok and blocked == ["locked"]
    monkeypatch.setattr(Observation, "check_orders", real_check)
    _other_process_resolves(tmp_game_path, clock)()  # the deadline, once the issue has committed
    assert game.month == 2
    assert game.state().at_war("wei", "shu")
    assert [o["ok"] for o in game.store.outcomes(1, "wei")] == [1]
    game.close()


def test_turn_030_end_month_never_ends_the_next_month(tmp_game_path: Path) -> None:
    """TURN-030: a seat that ends month 1 after the deadline already resolved it is told month 2 is open, and
    month 2 is not ended for it (it used to be, so the seat silently lost a month)."""
    clock = Clock()
    game = _new(tmp_game_path, clock)
    _other_process_resolves(tmp_game_path, clock)()
    with pytest.raises(MonthClosed) as info:
        game.end_month("wei", month=1)
    assert info.value.open_month == 2
    assert game.store.ended(2) == {}
    assert game.end_month("wei", month=2) is False and game.store.ended(2) == {"wei": "ended"}
    game.close()


def test_open_78_deadline_with_a_controllable_clock(tmp_game_path: Path) -> None:
    """OPEN-78: the deadline ends the month for late seats only once it has passed, counted from the month's
    opening; the month that opens at resolution gets its own full deadline, even in another process."""
    clock = Clock()
    game = _new(tmp_game_path, clock, deadline_s=100.0)
    game.end_month("shu")
    clock.now += 99.9
    assert game.apply_deadline() == []
    clock.now += 0.1
    assert game.apply_deadline() == ["wei"] and game.store.ended(1) == {"shu": "ended", "wei": "deadline"}
    assert game.try_resolve() and game.month == 2
    other = Game.open(tmp_game_path, clock=clock)
    assert other.apply_deadline() == [] and other.store.ended(2) == {}
    clock.now += 100.0
    assert sorted(other.apply_deadline()) == ["shu", "wei"]
    other.close()
    game.close()


def test_already_ended_and_finished_months_refuse_orders(tmp_game_path: Path) -> None:
    """A seat whose month the deadline ended gets MonthClosed with how it was ended; a month not open yet too."""
    clock = Clock()
    game = _new(tmp_game_path, clock)
    clock.now += 1_000
    game.apply_deadline()
    with pytest.raises(MonthClosed) as info:
        game.issue("wei", "declare_war to=shu")
    assert info.value.ended_by == "deadline" and "deadline ended it" in str(info.value)
    with pytest.raises(MonthClosed, match="has not opened yet"):
        game.issue("wei", "declare_war to=shu", month=5, preview=True)
    game.close()


# --- through the MCP server ----------------------------------------------------------------------------------


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _call(client: Client, tool: str, args: dict[str, Any]) -> tuple[bool, str]:
    result = await client.call_tool(tool, args)
    return bool(result.is_error), "\n".join(getattr(c, "text", "") for c in result.content)


@pytest.mark.anyio
async def test_issue_orders_says_when_its_month_closed_under_it(tmp_game_path: Path) -> None:
    """The server binds issue_orders to the month it read: if another process resolves that month in between,
    the tool answers with an error naming the open month and queues nothing."""
    clock = Clock(1e12)  # far in the future: the server's own deadline check (real time) never fires
    game, tokens = Game.create(tmp_game_path, tiny_state(), scenario="tiny",
                               controllers={"wei": "agent", "shu": "agent"}, clock=clock)
    game.close()
    server = build_server(tmp_game_path, token=tokens["wei"])
    session = server.session  # type: ignore[attr-defined]
    real_issue = session.game.issue

    def issue_after_race(*args: Any, **kw: Any) -> Any:
        _other_process_resolves(tmp_game_path, clock)()
        return real_issue(*args, **kw)

    session.game.issue = issue_after_race
    try:
        async with Client(server) as client:
            err, text = await _call(client, "issue_orders", {"orders": "declare_war to=shu"})
    finally:
        session.close()
    assert err and "month 1 has been resolved; month 2 is open now" in text and "get_briefing" in text
    check = Game.open(tmp_game_path)
    assert check.store.all_orders("wei") == []
    check.close()


@pytest.mark.anyio
async def test_a_full_disk_reaches_the_client_as_disk_full(tmp_game_path: Path) -> None:
    """The disk fills while a seat plays (the file may not grow): issue_orders answers 'disk full' (even though
    the server cannot store that line in the history either), the refused call queued nothing, and once there
    is room again the same call is queued."""
    game, tokens = Game.create(tmp_game_path, tiny_state(), scenario="tiny",
                               controllers={"wei": "agent", "shu": "agent"})
    game.close()
    server = build_server(tmp_game_path, token=tokens["wei"])
    session = server.session  # type: ignore[attr-defined]
    conn = session.game.store.db.conn
    orders = lambda: conn.execute("SELECT COUNT(*) FROM orders").fetchone()[0]  # noqa: E731
    try:
        async with Client(server) as client:
            conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0]}")
            for _ in range(500):
                before = orders()
                err, text = await _call(client, "issue_orders", {"orders": "disband unit=9999"})
                if err:
                    break
            assert err and "disk full" in text and "Traceback" not in text, text
            assert orders() == before
            conn.execute("PRAGMA max_page_count = 1073741823")
            err, text = await _call(client, "issue_orders", {"orders": "declare_war to=shu"})
            assert not err and "1 of 1 order queued" in text
    finally:
        session.close()
