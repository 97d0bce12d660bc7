"""Every file that cannot be used gets one line: which file, what is wrong, what to do; exit status 2, no
traceback, nothing written. Read-only commands (info, replay) work on read-only files and directories; a full
disk says "disk full" and leaves the game as it was; `kingdoms new` leaves no partial file; game files are
readable by their owner only."""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kingdoms import cli
from kingdoms.cli import main
from kingdoms.game import Game
from kingdoms.scenario import load_scenario
from kingdoms.setup import build_state
from kingdoms.storage import DiskFull, GameStore, StorageError

from .conftest import tiny_state

COMMANDS = ("info", "replay", "tick", "serve")


def _duel_game(path: Path, months: int = 3) -> Path:
    """A small duel game file (both seats AI) with a few months played."""
    state = build_state(load_scenario("duel"), 3)
    game, _ = Game.create(path, state, scenario="duel", controllers={"wei": "ai:passive", "shu": "ai:passive"})
    for _ in range(months):
        game.play_ai_seats()
    game.close()
    return path


def _sql(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path)
    for st in statements:
        conn.execute(st)
    conn.commit()
    conn.close()


def _truncated(p: Path) -> None:
    data = _duel_game(p).read_bytes()
    p.write_bytes(data[: len(data) // 3])


def _random_bytes(p: Path) -> None:
    p.write_bytes(random.Random(1).randbytes(64 * 1024))


def _directory(p: Path) -> None:
    p.mkdir()


def _empty(p: Path) -> None:
    p.write_bytes(b"")


def _schema_abc(p: Path) -> None:
    _sql(_duel_game(p), "UPDATE meta SET value = 'abc' WHERE key = 'schema_version'")


def _schema_newer(p: Path) -> None:
    _sql(_duel_game(p), "UPDATE meta SET value = '2' WHERE key = 'schema_version'")


def _not_a_game(p: Path) -> None:
    _sql(p, "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)", "INSERT INTO photos VALUES (1, 'cat')")


def _no_months(p: Path) -> None:
    _sql(_duel_game(p), "DELETE FROM months")


def _corrupt_blob(p: Path) -> None:
    _sql(_duel_game(p), "UPDATE months SET state = x'78da0011223344' WHERE month = (SELECT MAX(month) FROM months)")


def _killed_during_creation(p: Path) -> None:
    GameStore(p, create=True).close()  # the schema written, then the process died: no map, seats or months


def _random_8k_inside(p: Path) -> None:
    data = bytearray(_duel_game(p, months=8).read_bytes())
    at = len(data) // 2
    data[at : at + 8192] = random.Random(8).randbytes(8192)
    p.write_bytes(bytes(data))


BAD_FILES: dict[str, tuple[Callable[[Path], None], str]] = {
    "truncated": (_truncated, "damaged"),
    "random bytes": (_random_bytes, "not a Kingdoms game"),
    "a directory": (_directory, "is a directory"),
    "empty": (_empty, "empty"),
    "schema abc": (_schema_abc, "unreadable schema version 'abc'"),
    "newer schema": (_schema_newer, "newer Kingdoms"),
    "not a game": (_not_a_game, "not a Kingdoms game"),
    "no months": (_no_months, "no months"),
    "corrupt state blob": (_corrupt_blob, "damaged"),
    "killed during creation": (_killed_during_creation, "creation was interrupted"),
    "8 KiB of random bytes inside": (_random_8k_inside, "damaged"),
}


def _fingerprint(path: Path) -> dict[str, str]:
    """Every file in the directory with its content digest (a directory as such): what 'nothing written' means.

    SQLite's own -shm, and an empty -wal, are left out: any reader in a writable directory may leave them.
    """
    out = {}
    for p in sorted(path.parent.iterdir()):
        if p.name.endswith("-shm") or (p.name.endswith("-wal") and p.stat().st_size == 0):
            continue
        out[p.name] = "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_every_bad_file_gets_one_line_and_is_not_written(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         case: str) -> None:
    """serve, info, replay and tick on a bad file: one line naming the file and the problem, exit 2, nothing
    written (the directory holds the same files with the same bytes afterwards)."""
    make, expect = BAD_FILES[case]
    path = tmp_path / "g.sqlite"
    make(path)
    before = _fingerprint(path)
    for command in COMMANDS:
        code, out, err = _run(capsys, command, str(path))
        assert code == 2, (command, out, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in err, (command, err)
        assert str(path) in lines[0] and expect in lines[0], (command, lines[0])
        assert _fingerprint(path) == before, f"{command} wrote to the {case} file"


def test_a_missing_file_gets_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for command in COMMANDS:
        code, _, err = _run(capsys, command, str(tmp_path / "nope.sqlite"))
        assert code == 2 and "no game file at" in err and len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


_HOLD_LOCK = textwrap.dedent("""
    import sqlite3, sys
    holder = sqlite3.connect(sys.argv[1], isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO notes (month, kingdom, kind, text, at) VALUES (1, 'wei', 'note', 'x', 0)")
    print("held", flush=True)
    sys.stdin.readline()
    holder.execute("ROLLBACK")
""")


def test_a_locked_file_gets_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process holding the file's exclusive lock in the middle of a write: every command says so (after
    a short wait) in one line, and works again once the lock is gone."""
    path = _duel_game(tmp_path / "g.sqlite")
    monkeypatch.setattr(cli, "CLI_BUSY_TIMEOUT_S", 0.1)
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_LOCK, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        for command in COMMANDS:
            code, _, err = _run(capsys, command, str(path))
            assert code == 2 and "is locked by another process" in err and len(err.strip().splitlines()) == 1, err
    finally:
        holder.communicate("\n", timeout=30)
    assert _run(capsys, "info", str(path))[0] == 0


def test_a_file_killed_while_being_created_leaves_nothing_at_its_path(tmp_path: Path) -> None:
    """Game.create writes under a temporary name and renames when done: a kill in the middle leaves no game."""
    script = textwrap.dedent("""
        import os, signal, sys
        from kingdoms.game import Game
        from kingdoms.storage import GameStore
        from tests.conftest import tiny_state
        real = GameStore.save_month
        def die(self, *a, **k):
            real(self, *a, **k)
            os.kill(os.getpid(), signal.SIGKILL)  # after the month is written, before the rename
        GameStore.save_month = die
        Game.create(sys.argv[1], tiny_state(), scenario="tiny", controllers={})
    """)
    path = tmp_path / "g.sqlite"
    proc = subprocess.run([sys.executable, "-c", script, str(path)], cwd=Path(__file__).resolve().parent.parent,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert not path.exists()
    game, _ = Game.create(path, tiny_state(), scenario="tiny", controllers={})  # the name is still free
    game.close()


# --- read-only files, directories and file systems ---------------------------------------------------------

ROOT = os.geteuid() == 0


@contextlib.contextmanager
def read_only(path: Path, how: str) -> Iterator[Path]:
    """The game at `path` made unwritable, yielding the path to use: "file" (the file alone, chmod: not for
    root, whom permissions do not stop) or "file system" (a read-only bind mount of its directory as root,
    else the directory and file made read-only by chmod)."""
    if how == "file":
        if ROOT:
            pytest.skip("root ignores file permissions; the read-only file system case covers root")
        path.chmod(0o444)
        try:
            yield path
        finally:
            path.chmod(0o600)
        return
    if not ROOT:
        for p in path.parent.iterdir():
            p.chmod(0o444)
        path.parent.chmod(0o555)
        try:
            yield path
        finally:
            path.parent.chmod(0o755)
        return
    mount = path.parent.parent / f"{path.parent.name}-ro"
    mount.mkdir()
    done = subprocess.run(["mount", "--bind", str(path.parent), str(mount)], capture_output=True)
    if done.returncode != 0:
        mount.rmdir()
        pytest.skip("cannot bind-mount a read-only view here: " + done.stderr.decode(errors="replace")[:100])
    try:
        ro = subprocess.run(["mount", "-o", "remount,ro,bind", str(mount)], capture_output=True)
        if ro.returncode != 0:
            pytest.skip("cannot remount read-only here")
        yield mount / path.name
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True)
        mount.rmdir()


@pytest.mark.parametrize("how", ["file", "file system"])
def test_info_and_replay_work_on_a_read_only_game(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  how: str) -> None:
    """info and replay --verify read a game the user cannot write (the file, or the file system it is on) and
    write nothing; tick and serve refuse it in one line, exit 2."""
    (tmp_path / "d").mkdir()
    src = _duel_game(tmp_path / "d" / "g.sqlite")
    with read_only(src, how) as path:
        before = _fingerprint(path)
        code, out, err = _run(capsys, "info", str(path), "--json")
        assert code == 0 and '"month": 4' in out, err
        code, out, err = _run(capsys, "replay", str(path), "--verify")
        assert code == 0 and "replay ok" in out, out + err
        for command in ("tick", "serve"):
            code, out, err = _run(capsys, command, str(path))
            assert code == 2, (command, out, err)
            assert len(err.strip().splitlines()) == 1 and "cannot be written" in err, err
        assert _fingerprint(path) == before


def test_info_reads_a_wal_left_by_a_crash_on_a_read_only_file_system(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A crash leaves the latest months in the -wal (with no -shm): info on a read-only copy still sees them."""
    src = _duel_game(tmp_path / "src.sqlite", months=1)
    writer = Game.open(src)
    writer.play_ai_seats()  # month 2 -> 3 lives only in the -wal while the writer is open
    (tmp_path / "d").mkdir()
    dest = tmp_path / "d" / "g.sqlite"
    shutil.copyfile(src, dest)
    shutil.copyfile(f"{src}-wal", f"{dest}-wal")
    writer.close()
    with read_only(dest, "file system") as path:
        before = _fingerprint(path)
        code, out, err = _run(capsys, "info", str(path), "--json")
        assert code == 0 and '"month": 3' in out, err
        assert _fingerprint(path) == before


def test_info_never_applies_the_deadline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """info only reads: a month past its deadline stays open until a server or `kingdoms tick` applies it."""
    path = tmp_path / "g.sqlite"
    game, _ = Game.create(path, tiny_state(), scenario="tiny", controllers={"wei": "agent", "shu": "agent"},
                          deadline_s=0.0)
    game.close()
    before = _fingerprint(path)
    code, out, _ = _run(capsys, "info", str(path))
    assert code == 0 and "month 1 open" in out
    assert _fingerprint(path) == before
    code, out, _ = _run(capsys, "tick", str(path))
    assert code == 0 and "deadline ended it for wei, shu; 1 month(s) resolved; month 2 is open" in out
    code, out, _ = _run(capsys, "info", str(path))
    assert "month 2 open" in out


def test_tick_lets_ai_seats_play(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """tick on an all-AI game with its AI seats not yet played resolves the month (they play and end it)."""
    path = tmp_path / "g.sqlite"
    state = build_state(load_scenario("duel"), 3)
    game, _ = Game.create(path, state, scenario="duel", controllers={"wei": "ai:passive", "shu": "ai:passive"})
    game.close()
    code, out, _ = _run(capsys, "tick", str(path), "--json")
    assert code == 0 and '"resolved": 1' in out and '"now": 2' in out


# --- full disks and partial files ---------------------------------------------------------------------------


def test_a_full_disk_says_disk_full_and_leaves_the_game_as_it_was(tmp_path: Path) -> None:
    """A write that finds the disk full (here: the file may not grow) raises DiskFull ('disk full') and is
    rolled back: a refused issue queues nothing, a month that cannot be stored stays open; with room again
    the game goes on from where it was."""
    path = tmp_path / "g.sqlite"
    game, _ = Game.create(path, tiny_state(), scenario="tiny", controllers={"wei": "agent", "shu": "agent"})
    conn = game.store.db.conn
    conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0]}")
    rows = lambda: conn.execute("SELECT COUNT(*) FROM orders").fetchone()[0]  # noqa: E731
    with pytest.raises(DiskFull, match="disk full"):
        for _ in range(5000):  # each call adds a row, until the orders' last page is full
            before = rows()
            game.issue("shu", "disband unit=99999")
    assert rows() == before
    with pytest.raises(DiskFull, match="disk full"):
        for _ in range(500):  # months go on until one does not fit
            month = game.month
            game.end_month("wei")
            game.end_month("shu")
    assert game.month == month and Game.open(path).month == month
    conn.execute("PRAGMA max_page_count = 1073741823")
    for kingdom in game.waiting_for():  # the ends that were stored before the disk filled are kept
        game.mark_ended(kingdom)
    assert game.try_resolve() and game.month == month + 1
    assert game.replay().ok
    game.close()


def test_new_removes_its_partial_file_on_a_full_disk(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`kingdoms new` that meets a full disk (while writing the month, or when its AI seats play) says disk full
    in one line, exit 2, and leaves no file behind."""
    out = tmp_path / "g.sqlite"

    def full(*_: object, **__: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    with monkeypatch.context() as m:
        m.setattr(GameStore, "save_month", lambda self, *a: full())
        code, _, err = _run(capsys, "new", "--scenario", "duel", "--seed", "1", "--out", str(out))
    assert code == 2 and "disk full" in err and len(err.strip().splitlines()) == 1, err
    assert str(out) in err and "creating" not in err  # the file asked for, not its temporary name
    assert list(tmp_path.iterdir()) == []
    with monkeypatch.context() as m:
        m.setattr(GameStore, "mark_ended", lambda self, *a: full())
        code, _, err = _run(capsys, "new", "--scenario", "duel", "--seed", "1", "--seat", "shu=ai:passive",
                            "--out", str(out))
    assert code == 2 and "disk full" in err, err
    assert list(tmp_path.iterdir()) == []


def test_game_files_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    """A game file (seat digests, every order) and its -wal and -shm are created 0600."""
    path = tmp_path / "g.sqlite"
    game, _ = Game.create(path, tiny_state(), scenario="tiny", controllers={"wei": "agent", "shu": "agent"})
    game.issue("wei", "declare_war to=shu")
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
    game.close()


def test_storage_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="no game file at"):
        Game.open(tmp_path / "missing.sqlite")
