"""The seat's month without MCP (kingdoms.session): fast_forward kept in the game file, the history digest within
its budget, call arguments stored cut, and each reply's size kept with its call.

TURN-200, OPEN-85, TOOLS-130: see also tests/test_server.py for the same tools through an MCP client.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kingdoms import history
from kingdoms.game import Game
from kingdoms.session import Session, SessionError

from .test_server import ROOT, call, duel, new_game, seat


def test_session_plays_a_month_without_mcp(tmp_path: Path) -> None:
    """TURN-190: a Session alone gives the briefing, queues orders, ends the month against an AI and hands over
    the next briefing; importing it loads no MCP module (a second interface needs none)."""
    path = tmp_path / "g.sqlite"
    new_game(path, {"wei": "agent", "shu": "ai:passive"})
    s = Session(path)
    try:
        brief, month = s.get_briefing("wei")
        assert month == 1 and "Cao Wei (Cao Cao) — MONTH 1 of 160" in brief
        reply, ended, m = s.issue("wei", "set_production city=1 queue=palisade", note="Walls.", goal=None,
                                  verbose=False, preview=False, end_turn=True, fast_forward=0)
        assert ended and m == 1 and "Month 1: 1 of 1 order queued." in reply and "Month 1 ended for you." in reply
        kind, text, m = s.turn_status("wei")
        assert (kind, m) == ("turn", 2) and "MONTH 2 of 160" in text
        with pytest.raises(SessionError, match="No city #99"):
            s.get_city("wei", 99)
    finally:
        s.close()
    code = ("import sys, kingdoms.session; bad = [m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')]; "
            "print(bad); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_turn_200_fast_forward_survives_a_restart(tmp_path: Path) -> None:
    """TURN-200: fast_forward is kept in the game file: a new Session on the same file (a restarted server) goes
    on ending the quiet months for the seat, and the count runs out where it would have."""
    path = tmp_path / "g.sqlite"
    new_game(path, {"wei": "agent", "shu": "ai:passive"})
    first = Session(path)
    reply, ended, _ = first.issue("wei", "set_production city=1 queue=palisade,levy:1000,walls", note=None, goal=None,
                                  verbose=False, preview=False, end_turn=True, fast_forward=3)
    assert ended and "up to 3 more months" in reply
    first.close()
    second = Session(path)  # the restart: nothing carried over but the file
    try:
        statuses = [second.turn_status("wei")[::2] for _ in range(4)]
    finally:
        second.close()
    assert statuses == [("wait", 2), ("wait", 3), ("wait", 4), ("turn", 5)]
    game = Game.open(path)
    assert [game.store.ended(m).get("wei") for m in (1, 2, 3, 4, 5)] == ["ended", "fast_forward", "fast_forward",
                                                                         "fast_forward", None]
    assert game.store.fast_forward("wei") == 0
    game.close()


def test_turn_210_a_stop_clears_the_stored_fast_forward(tmp_path: Path) -> None:
    """TURN-210, OPEN-91: when a troop without orders stops fast_forward, the stored count is cleared, so a later
    session does not start skipping again."""
    path = tmp_path / "g.sqlite"
    new_game(path, {"wei": "agent", "shu": "ai:passive"})
    s = Session(path)
    s.issue("wei", "move unit=2 to=17,4", note=None, goal=None, verbose=False, preview=False, end_turn=True,
            fast_forward=5)
    kind, text, month = s.turn_status("wei")
    s.close()
    assert (kind, month) == ("turn", 2) and "fast_forward stopped" in text
    again = Session(path)
    try:
        assert again.game.store.fast_forward("wei") == 0
        assert again.turn_status("wei")[0] == "turn"
    finally:
        again.close()


def _play(path: Path, months: int) -> None:
    """`months` months for wei through a Session: a long note and an order every month, a refusal every 7th."""
    s = Session(path)
    try:
        for m in range(1, months + 1):
            orders = "set_focus city=1 focus=food" + ("; move unit=99 to=1,1" if m % 7 == 0 else "")
            s.record_call("wei", "issue_orders", {"orders": orders, "end_turn": True})
            reply, _, month = s.issue("wei", orders, note=f"Month {m}: " + "we hold the river line. " * 20,
                                      goal="Hold by M200: walls" if m % 25 == 1 else None, verbose=False,
                                      preview=False, end_turn=True, fast_forward=0)
            s.record("wei", "reply", reply, month)
            if m % 7 == 0:  # the refused order kept the month open: end it with a second call
                assert reply.startswith(f"1 order REFUSED, month {m} NOT ended"), reply
                s.record_call("wei", "issue_orders", {"end_turn": True})
                reply, _, month = s.issue("wei", "", note=None, goal=None, verbose=False, preview=False,
                                          end_turn=True, fast_forward=0)
                s.record("wei", "reply", reply, month)
            kind, text, month = s.turn_status("wei")
            assert kind == "turn", text
            s.record("wei", "briefing", text, month)
    finally:
        s.close()


def test_open_85_history_stays_within_its_budget_and_pages_back(tmp_path: Path) -> None:
    """OPEN-85, TOOLS-130: after 110 months the digest is within 12,000 characters, newest month first; paging
    with before= walks back to month 1 with every month shown exactly once; month= gives one month in full,
    also within the budget."""
    path = tmp_path / "g.sqlite"
    new_game(path, {"wei": "agent", "shu": "ai:passive"})
    _play(path, 110)
    s = Session(path)
    try:
        text = s.get_history("wei")
        assert len(text) <= history.HISTORY_BUDGET
        assert text.startswith("HISTORY of Cao Wei: month 111 of 160 is open.")
        assert "GOAL (set M101): Hold by M200: walls" in text and "LAST NOTES: M110:" in text
        seen: list[int] = []
        page = text
        pages = 1
        while True:
            months = [int(x) for x in re.findall(r"^M(\d+): ", page, flags=re.M)]
            assert months == sorted(months, reverse=True) and months
            seen += months
            nxt = re.search(r"get_history before=(\d+) goes on", page)
            if nxt is None:
                assert "That is every month since M1." in page
                break
            page = s.get_history("wei", before=int(nxt.group(1)))
            assert len(page) <= history.HISTORY_BUDGET
            pages += 1
        assert pages > 1 and seen == list(range(111, 0, -1))
        assert "M105: 2 orders given, 1 refused (unknown_unit); you ended it; 1 order carried out." in \
            s.get_history("wei", before=106)
        full = s.get_history("wei", month=105)
        assert len(full) <= history.HISTORY_BUDGET
        assert full.startswith("HISTORY of Cao Wei, month 105 in full") and "REFUSED [unknown_unit]" in full
        small = s.get_history("wei", month=105, budget=1_500)  # a briefing that does not fit is cut to a line
        assert len(small) <= 1_500 and "omitted" in small
        for bad in ({"month": 0}, {"month": 112}, {"before": 1}, {"before": 113}):
            with pytest.raises(SessionError, match="outside this game"):
                s.get_history("wei", **bad)
    finally:
        s.close()


@pytest.mark.anyio
async def test_huge_arguments_are_stored_cut_and_reply_sizes_kept(tmp_path: Path) -> None:
    """A 3 MB report is kept as a 20,000-character dispatch and stored as such in the call; 1,000 orders (or one
    1 MB order text) are stored as at most 200 orders / a few thousand characters; every call keeps the size
    of its reply (characters and chars/4 tokens), a refusal's too (its message, without the SDK's prefix)."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    huge = "x" * 3_000_000
    async with seat(path, tokens["wei"]) as c:
        err, dispatch = await call(c, "submit_dispatch", {"report": huge, "final": False})
        assert not err and "20,000 characters" in dispatch
        await call(c, "issue_orders", {"orders": ["hold unit=2"] * 1_000, "preview": True})
        await call(c, "issue_orders", {"orders": "set_focus city=1 focus=" + "y" * 1_000_000, "preview": True})
        err, refused = await call(c, "submit_dispatch", {"report": "   ", "final": False})
        assert err
    game = Game.open(path)
    rows = game.store.history("wei")
    game.close()
    calls = [r for r in rows if r["kind"] == "call"]
    assert len(calls) == 4
    bound = history.DISPATCH_CHARS + 200
    assert all(len(r["text"]) < bound for r in calls), [len(r["text"]) for r in calls]
    stored = json.loads(calls[0]["text"].split(" ", 1)[1])
    assert stored["report"].startswith("x" * history.DISPATCH_CHARS) and "3,000,000 characters" in stored["report"]
    listed = json.loads(calls[1]["text"].split(" ", 1)[1])["orders"]
    assert len(listed) == history.CALL_ORDERS + 1 and "1,000 orders" in listed[-1]
    assert len(calls[2]["text"]) < history.CALL_ORDERS_CHARS + 200
    assert calls[0]["reply_chars"] == len(dispatch) and calls[0]["reply_tokens"] == (len(dispatch) + 3) // 4
    error = rows[-1]
    assert error["kind"] == "error" and refused.endswith(error["text"])  # the SDK puts the tool's name before it
    assert calls[3]["reply_chars"] == len(error["text"]) and all(r["reply_chars"] for r in calls)


def test_sizes_and_fast_forward_work_on_a_file_made_before_their_columns(tmp_path: Path) -> None:
    """A game file written before the history kept reply sizes and before fast_forward had its table still
    serves: the first write adds what is missing, and reading an absent fast_forward gives 0."""
    path = tmp_path / "g.sqlite"
    new_game(path, {"wei": "agent", "shu": "ai:passive"}, state=duel())
    game = Game.open(path)
    db = game.store.db
    db.execute("DROP TABLE fast_forward")
    db.execute("ALTER TABLE history DROP COLUMN reply_chars")
    db.execute("ALTER TABLE history DROP COLUMN reply_tokens")
    assert game.store.fast_forward("wei") == 0
    game.close()
    s = Session(path)
    try:
        call_id = s.record_call("wei", "get_briefing", {})
        s.record_reply_size(call_id, "abcde")
        s.issue("wei", "", note=None, goal=None, verbose=False, preview=False, end_turn=True, fast_forward=2)
        assert s.game.store.fast_forward("wei") == 2
        assert s.game.store.history("wei")[0]["reply_chars"] == 5
    finally:
        s.close()


def test_open_85_a_reply_and_its_size_are_one_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """record_reply keeps the answer and its size on the call together (one transaction: a failed size write
    leaves no reply row and does not fail the call); record_failure keeps the error, cut, and the answer's size."""
    from kingdoms.storage import StorageError

    path = tmp_path / "g.sqlite"
    new_game(path, {"wei": "agent", "shu": "ai:passive"}, state=duel())
    s = Session(path)
    try:
        call_id = s.record_call("wei", "get_briefing", {})
        s.record_reply("wei", "briefing", "the briefing", 1, call_id=call_id, reply="the briefing")
        rows = s.game.store.history("wei")
        assert [(r["kind"], r["text"]) for r in rows] == [("call", "get_briefing {}"), ("briefing", "the briefing")]
        assert rows[0]["reply_chars"] == len("the briefing")

        def broken(*_a: object) -> None:
            raise StorageError("disk full", "disk_full")

        monkeypatch.setattr(s.game.store, "set_reply_size", broken)
        second = s.record_call("wei", "get_map", {})
        s.record_reply("wei", "reply", "a map", call_id=second, reply="a map")  # logged, not raised
        assert [r["kind"] for r in s.game.store.history("wei")] == ["call", "briefing", "call"]
        monkeypatch.undo()

        third = s.record_call("wei", "get_city", {"city_id": 99})
        long_error = "No city #99 on your map. " + "x" * (history.ERROR_CHARS + 50)
        s.record_failure("wei", third, long_error, reply="the answer the seat got")
        last = s.game.store.history("wei")
        assert last[-1]["kind"] == "error" and last[-1]["text"] == history.cut(long_error, history.ERROR_CHARS)
        assert last[-1]["text"] != long_error
        assert last[-2]["reply_chars"] == len("the answer the seat got")
    finally:
        s.close()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_tools_130_history_counts_given_and_standing_orders_apart(tmp_path: Path) -> None:
    """TOOLS-130, TURN-120: month 1 the levy is sent on a long march (one order given); in month 2 nothing is given
    and the march runs on as a standing order: the digest says so, never "1 carried out" for month 2."""
    path = tmp_path / "g.sqlite"
    new_game(path, {"wei": "agent", "shu": "ai:passive"})
    s = Session(path)
    try:
        for orders in ("move unit=2 to=16,15", ""):
            s.issue("wei", orders, note=None, goal=None, verbose=False, preview=False, end_turn=True, fast_forward=0)
            s.turn_status("wei")
        text = s.get_history("wei")
    finally:
        s.close()
    m1 = next(line for line in text.splitlines() if line.startswith("M1: "))
    m2 = next(line for line in text.splitlines() if line.startswith("M2: "))
    assert "1 order given" in m1 and "1 order carried out" in m1
    assert "no orders" in m2 and "carried out" not in m2 and "1 standing order ran on" in m2, m2
