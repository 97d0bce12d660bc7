"""The game file: orders survive a crash, a month resolves exactly once, replays reproduce every hash."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kingdoms.game import Game, GameError
from kingdoms.storage import GameStore, StorageError

from .conftest import tiny_state


def _new(path: Path) -> tuple[Game, dict[str, str]]:
    return Game.create(path, tiny_state(), scenario="tiny", controllers={"wei": "agent", "shu": "agent"})


def test_create_writes_month_one_and_tokens(tmp_game_path: Path) -> None:
    """TURN-010: a new game opens at month 1; each seat gets its own secret token, stored only as a digest."""
    game, tokens = _new(tmp_game_path)
    assert game.month == 1
    assert set(tokens) == {"wei", "shu"} and tokens["wei"] != tokens["shu"]
    assert game.kingdom_for_token(tokens["shu"]) == "shu"
    assert game.kingdom_for_token("not-a-token") is None
    raw = tmp_game_path.read_bytes() + Path(str(tmp_game_path) + "-wal").read_bytes()
    assert tokens["wei"].encode() not in raw


def test_tokens_never_start_with_a_dash(tmp_game_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A token is pasted after `--seat` on a command line: one starting with "-" (1 in 64 of token_urlsafe's)
    would be read as an option, so such draws are thrown back."""
    draws = iter(["-dash1", "-dash2", "seat-one", "-dash3", "seat-two"])
    monkeypatch.setattr("kingdoms.storage.secrets.token_urlsafe", lambda n: next(draws))
    game, tokens = _new(tmp_game_path)
    assert sorted(tokens.values()) == ["seat-one", "seat-two"]
    assert game.kingdom_for_token("seat-two") in {"wei", "shu"}


def test_refuses_existing_path_and_non_game_files(tmp_path: Path) -> None:
    game, _ = _new(tmp_path / "g.sqlite")
    game.close()
    with pytest.raises(GameError, match="already exists"):
        _new(tmp_path / "g.sqlite")
    (tmp_path / "junk.sqlite").write_bytes(b"")
    with pytest.raises(StorageError):
        Game.open(tmp_path / "junk.sqlite")
    with pytest.raises(StorageError, match="no game file"):
        Game.open(tmp_path / "missing.sqlite")


def test_turn_070_orders_append_and_month_resolves_when_all_ended(tmp_game_path: Path) -> None:
    """TURN-030, TURN-070: accepted orders queue in the order given; the month resolves once every seat ends it."""
    game, _ = _new(tmp_game_path)
    v1 = game.issue("wei", "declare_war to=shu")
    v2 = game.issue("wei", "declare_war to=Nobody")
    assert v1[0].ok and not v2[0].ok and v2[0].code == "unknown_kingdom"
    assert [o.to for o in game.queued("wei")] == ["shu"]
    assert game.end_month("wei") is False
    assert game.waiting_for() == ["shu"]
    assert game.end_month("shu") is True
    assert game.month == 2
    assert game.state().at_war("wei", "shu")
    wars = [e for e in game.store.events(1) if e["kind"] == "war"]
    assert len(wars) == 1 and wars[0]["audience"] is None  # DIPLO-130: public


def test_preview_queues_nothing(tmp_game_path: Path) -> None:
    """TURN-170: a preview answers and queues nothing; the state hash is unchanged."""
    game, _ = _new(tmp_game_path)
    before = game.state().state_hash()
    verdicts = game.issue("wei", "declare_war to=Liu Bei", preview=True)
    assert verdicts[0].ok
    assert game.queued("wei") == []
    assert game.state().state_hash() == before


def test_orders_after_ending_are_refused(tmp_game_path: Path) -> None:
    game, _ = _new(tmp_game_path)
    game.end_month("wei")
    with pytest.raises(GameError, match="already ended"):
        game.issue("wei", "declare_war to=shu")


def test_replay_verify_passes_and_detects_tampering(tmp_game_path: Path) -> None:
    """A game is a function of its inputs: replaying stored orders reproduces every stored hash."""
    game, _ = _new(tmp_game_path)
    for month in range(3):
        if month == 1:
            game.issue("shu", "declare_war to=wei")
        game.end_month("wei")
        game.end_month("shu")
    assert game.month == 4
    report = game.replay()
    assert report.ok and report.months == 3 and report.first_mismatch is None and len(report.hashes) == 4
    with game.store.write() as db:
        db.execute("UPDATE months SET hash = 'x' WHERE month = 3")
    report = game.replay()
    assert not report.ok and report.first_mismatch == 3
    assert "stored hash is wrong" in report.differences[0]


def test_same_inputs_same_hashes(tmp_path: Path) -> None:
    """Determinism: two games from the same state and orders store identical hashes month by month."""
    hashes = []
    for name in ("a.sqlite", "b.sqlite"):
        game, _ = _new(tmp_path / name)
        game.issue("wei", "declare_war to=shu")
        for _ in range(2):
            game.end_month("wei")
            game.end_month("shu")
        hashes.append(game.store.month_hashes())
    assert hashes[0] == hashes[1]


_KILL_SCRIPT = textwrap.dedent("""
    import os, signal, sys
    from kingdoms.game import Game
    game = Game.open(sys.argv[1])
    verdicts = game.issue("wei", "declare_war to=shu")
    print("ACK", verdicts[0].ok, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


def test_acknowledged_orders_survive_a_kill(tmp_game_path: Path) -> None:
    """A process killed right after acknowledging an order loses nothing: the order is still queued."""
    game, _ = _new(tmp_game_path)
    game.close()
    proc = subprocess.run([sys.executable, "-c", _KILL_SCRIPT, str(tmp_game_path)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == -signal.SIGKILL
    assert "ACK True" in proc.stdout
    again = Game.open(tmp_game_path)
    assert [o.to for o in again.queued("wei")] == ["shu"]


def _end(path: str, kingdom: str, barrier) -> None:  # type: ignore[no-untyped-def]
    game = Game.open(path)
    barrier.wait()
    game.end_month(kingdom)
    game.close()


@pytest.mark.long
def test_two_processes_ending_at_once_resolve_exactly_once(tmp_path: Path) -> None:
    """Two seats ending the month in two processes at the same moment: month 1 resolves once."""
    for attempt in range(3):
        path = tmp_path / f"race{attempt}.sqlite"
        game, _ = _new(path)
        game.issue("wei", "declare_war to=shu")
        game.close()
        ctx = mp.get_context("spawn")
        barrier = ctx.Barrier(2)
        procs = [ctx.Process(target=_end, args=(str(path), k, barrier)) for k in ("wei", "shu")]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
            assert p.exitcode == 0
        store = GameStore(path)
        assert store.latest_month() == 2
        assert len([e for e in store.events(1) if e["kind"] == "war"]) == 1
        store.close()


def test_concurrent_readers_and_writer(tmp_game_path: Path) -> None:
    """Several processes may hold the file open: WAL lets a reader see committed orders at once."""
    game, _ = _new(tmp_game_path)
    other = Game.open(tmp_game_path)
    game.issue("wei", "declare_war to=shu")
    assert [o.to for o in other.queued("wei")] == ["shu"]
    assert os.path.exists(str(tmp_game_path) + "-wal")


def test_latest_month_is_read_once_a_write_and_follows_the_months_it_stores(tmp_game_path: Path) -> None:
    """latest_month inside a write transaction is the file's (read once, as nobody else can store a month while it
    holds the lock), follows the months the store itself adds, is forgotten when the transaction rolls back, and
    outside a transaction sees another connection's new month at once."""
    game, _ = _new(tmp_game_path)
    store, other = game.store, GameStore(tmp_game_path)
    digest, body = game.state().stored_form()
    with store.write():
        assert store.latest_month() == 1
        store.commit_resolution(1, body, digest, [], [])
        assert store.latest_month() == 2
    assert store.latest_month() == other.latest_month() == 2
    with pytest.raises(RuntimeError), store.write():
        store.save_month(3, body, digest)
        assert store.latest_month() == 3
        raise RuntimeError("rolled back")
    assert store.latest_month() == 2
    other.save_month(3, body, digest)
    assert store.latest_month() == 3
    with store.write():
        assert store.latest_month() == 3
    other.close()


def test_a_seat_queues_at_most_max_queued_orders_a_month(tmp_game_path: Path) -> None:
    """Each new order is checked after the seat's queued ones (TURN-050), so a month takes at most MAX_QUEUED
    orders from a seat: beyond, orders are refused (queue_full) unchecked, and their text is echoed cut."""
    from kingdoms.game import MAX_QUEUED

    game, _ = _new(tmp_game_path)
    unit = next(u.id for u in game.state().units.values() if u.owner == "wei")
    for _ in range(MAX_QUEUED // 200):
        assert all(v.ok for v in game.issue("wei", "\n".join([f"hold unit={unit}"] * 200)))
    assert len(game.queued("wei")) == MAX_QUEUED
    (v,) = game.issue("wei", f"hold unit={unit}")
    assert not v.ok and v.code == "queue_full" and str(MAX_QUEUED) in v.message
    assert len(game.queued("wei")) == MAX_QUEUED
    refused = game.issue("shu", "declare_war to=" + "x" * 150 + "; hold units=" + ",".join(map(str, range(1, 150))))
    assert all(not r.ok and len(r.text) < 300 for r in refused)
