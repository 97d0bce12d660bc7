"""One SQLite file per game (sqlite-utils, WAL): metadata, seats, every month's state and hash, every order
as given with its verdict, outcomes, events, notes, goals, dispatches, the per-seat history (each call with
the size of its reply) and each seat's fast_forward.

Crash safety: every acknowledged write is committed before the caller answers. Several processes may
open one file (one stdio server per seat): writes that must not interleave (queuing orders, ending or
resolving a month) run in `BEGIN IMMEDIATE` transactions that re-check their precondition inside, so a
month resolves once and no order is queued for a month that has closed. `write()` nests: a caller may
group several store writes (and the reads that justify them) into one transaction.

Every failure of the file reaches callers as a StorageError whose message names the file, what is wrong
and what to do (a damaged, foreign, newer or half-created file, a locked or read-only one, a full disk);
a failed write is rolled back, so the game stays as it was. Read-only opens (`readonly=True`) never
write to the file, work on a read-only file or file system, and `check()` runs SQLite's integrity check.
Game files are created readable and writable by their owner only (0600; SQLite gives -wal/-shm the same).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import operator
import os
import secrets
import shutil
import sqlite3
import stat
import tempfile
import urllib.parse
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import sqlite_utils

SCHEMA_VERSION = 1
DEFAULT_BUSY_TIMEOUT_S = 30.0  # how long a write waits for another process's transaction
TABLES = ("meta", "seats", "months", "ended", "orders", "outcomes", "events", "notes", "history")

_F = TypeVar("_F", bound=Callable[..., Any])


class Database(sqlite_utils.Database):
    """sqlite-utils' Database over a file of tables only (no SQL views here): `db[name]` is typed as the Table
    it always is, so its insert and create type-check."""

    def __getitem__(self, table_name: str) -> sqlite_utils.db.Table:
        return self.table(table_name)


class StorageError(Exception):
    """The game file cannot be used as asked; the message names the file, what is wrong and what to do.

    `kind` sorts the cause for interfaces: missing, not_game, damaged, newer, older, incomplete, locked,
    readonly, disk_full, io.
    """

    def __init__(self, message: str, kind: str = "io") -> None:
        super().__init__(message)
        self.kind = kind


class DiskFull(StorageError):
    """A write failed because the disk (or the file's size limit) is full; it was rolled back."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "disk_full")


def new_token() -> str:
    """A fresh credential (seat or spectator): 144 random bits, URL-safe, and never starting with "-" so that
    `kingdoms serve GAME --seat TOKEN` cannot mistake it for an option."""
    while True:
        token = secrets.token_urlsafe(18)
        if not token.startswith("-"):
            return token


def token_digest(token: str) -> str:
    """Seat tokens are stored only as digests: the file never holds a usable credential."""
    return hashlib.sha256(token.encode()).hexdigest()


def match_token(token: str, digests: dict[str, str]) -> str | None:
    """The key (a kingdom) whose digest is the token's, comparing every digest in constant time."""
    wanted = token_digest(token)
    found = None
    for key, digest in digests.items():
        if hmac.compare_digest(wanted, digest):
            found = key
    return found


def _pack(data: Any) -> bytes:
    """A state as compressed JSON, keys in the order the state holds them: loading gives back the very structure
    (the hash is over the canonical sort_keys JSON, GameState.state_hash, so it does not depend on this).

    `data` is the state's `to_dict()`, or JSON bytes already made from it (GameState.stored_form). zlib level 1:
    several times faster than 6 for a state a fifth larger; any level reads back the same.
    """
    text = data if isinstance(data, bytes) else json.dumps(data, separators=(",", ":")).encode()
    return zlib.compress(text, 1)


def _unpack(blob: bytes) -> Any:
    return json.loads(zlib.decompress(blob))


def _insert(db: sqlite_utils.Database, table: str, rows: list[dict[str, Any]], verb: str = "INSERT") -> None:
    """Insert rows of plain values with one prepared statement per set of columns (executemany): sqlite-utils'
    insert checks the table and opens a savepoint for every row, which a month's many rows pay for."""
    batch: list[dict[str, Any]] = []
    for row in rows:
        if batch and row.keys() != batch[0].keys():
            _insert_batch(db, table, batch, verb)
            batch = []
        batch.append(row)
    if batch:
        _insert_batch(db, table, batch, verb)


def _insert_batch(db: sqlite_utils.Database, table: str, rows: list[dict[str, Any]], verb: str) -> None:
    columns = list(rows[0])
    sql = (f"{verb} INTO [{table}] ({', '.join(f'[{c}]' for c in columns)}) "
           f"VALUES ({', '.join('?' for _ in columns)})")
    if len(columns) == 1:
        db.conn.executemany(sql, [(r[columns[0]],) for r in rows])
    else:
        values = operator.itemgetter(*columns)  # by name: a batch's rows share keys, not always their order
        db.conn.executemany(sql, [values(r) for r in rows])


def _select(db: sqlite_utils.Database, sql: str, args: list[Any] | tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    """Rows of a query as dicts keyed by column name (as sqlite-utils' rows_where gives them)."""
    cursor = db.conn.execute(sql, args)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor]


def side_files(path: str | Path) -> list[Path]:
    """The files SQLite keeps beside a game file in WAL mode (-wal, -shm)."""
    return [Path(f"{path}-wal"), Path(f"{path}-shm")]


def remove_game_file(path: str | Path) -> None:
    """Delete a game file and its -wal/-shm, if they exist (a failed `kingdoms new` leaves nothing)."""
    for p in (Path(path), *side_files(path)):
        with contextlib.suppress(FileNotFoundError):
            p.unlink()


def sqlite_problem(path: Path, exc: BaseException, *, writing: bool = True) -> StorageError:
    """One clear StorageError for an sqlite3 or OS error met on the file `path`."""
    if isinstance(exc, StorageError):
        return exc
    text = str(exc) if isinstance(exc, sqlite3.Error) else (getattr(exc, "strerror", None) or str(exc))
    low = str(exc).lower()
    said = "SQLite" if isinstance(exc, sqlite3.Error) else "the system"
    if "disk is full" in low or "database or disk is full" in low or getattr(exc, "errno", None) == 28:
        return DiskFull(f"disk full: {path} could not be written ({said}: {text}); the write was undone and the "
                        "game is as it was: free some disk space and try again")
    if "locked" in low or "busy" in low:
        return StorageError(f"{path} is locked by another process ({said}: {text}): wait until it is done (or "
                            "stop it) and try again", "locked")
    denied = "readonly" in low or "read-only" in low or "permission denied" in low or \
        getattr(exc, "errno", None) in (1, 13, 30)  # EPERM, EACCES, EROFS
    if denied or (writing and "unable to open" in low):
        return StorageError(f"{path} cannot be written (a read-only file, directory or file system; {said}: "
                            f"{text}): this command needs write access: copy the game somewhere writable or "
                            "fix the permissions", "readonly")
    if "not a database" in low:
        return StorageError(f"{path} is not a Kingdoms game file (not an SQLite database, or damaged past "
                            "reading): check the path, or restore the file from a backup", "not_game")
    if "malformed" in low or "corrupt" in low:
        return StorageError(f"{path} is damaged ({said}: {text}): restore it from a backup; nothing was "
                            "written to it", "damaged")
    if "unable to open" in low:
        return StorageError(f"{path} cannot be opened ({said}: {text}): check that it exists and you may read "
                            "it and its directory", "io")
    return StorageError(f"{path}: the game file failed ({said}: {text}); nothing was changed; try again, or "
                        "check the disk", "io")


def _guarded(fn: _F) -> _F:
    """Turn any sqlite3/OS error of a store method into one clear StorageError."""

    @functools.wraps(fn)
    def wrapper(self: GameStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, *args, **kwargs)
        except StorageError:
            raise
        except (sqlite3.Error, OSError) as exc:
            raise sqlite_problem(self.path, exc, writing=not self.readonly) from exc

    return wrapper  # type: ignore[return-value]


def _guard_methods(cls: type) -> type:
    """Apply _guarded to every public method (and write(), which is a generator context manager)."""
    for name, value in list(vars(cls).items()):
        if callable(value) and not name.startswith("_") and name not in ("write",):
            setattr(cls, name, _guarded(value))
    return cls


def _precheck(path: Path) -> None:
    """Refuse, with a one-line reason, a path that cannot be a game file before SQLite touches it.

    Only stat(): opening and closing the file from Python would drop the POSIX locks SQLite connections of
    this process hold on it.
    """
    try:
        info = path.stat()
    except FileNotFoundError:
        raise StorageError(f"no game file at {path}: check the path, or create a game with `kingdoms new`",
                           "missing") from None
    except OSError as exc:
        raise StorageError(f"{path} cannot be read ({exc.strerror or exc}): check its permissions", "io") from exc
    if stat.S_ISDIR(info.st_mode):
        raise StorageError(f"{path} is a directory, not a game file: give the path of a game's .sqlite file",
                           "not_game")
    if info.st_size == 0:
        raise StorageError(f"{path} is empty (0 bytes), not a game: delete it and create the game again with "
                           "`kingdoms new`", "incomplete")


@_guard_methods
class GameStore:
    """Typed access to one game file; every method is one short transaction (or part of an open write())."""

    def __init__(self, path: str | Path, *, create: bool = False, readonly: bool = False,
                 busy_timeout: float = DEFAULT_BUSY_TIMEOUT_S) -> None:
        self.path = Path(path)
        self.readonly = readonly and not create
        self._depth = 0
        self._seat_tables = False  # made (or found) by this connection: set_reply_size checks only once
        #: latest_month as read inside the open write transaction: while it holds the write lock only this store's
        #: own month writes (save_month, commit_resolution: they reset it) can change it; forgotten when it ends
        self._latest: int | None = None
        self._snapshot: Path | None = None
        try:
            if create:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)  # owner only (-wal/-shm too)
                os.close(fd)
                conn = self._connect(str(self.path), busy_timeout)
            else:
                _precheck(self.path)
                conn = self._connect_readonly(busy_timeout) if self.readonly else \
                    self._connect(str(self.path), busy_timeout)
        except StorageError:
            raise
        except (sqlite3.Error, OSError) as exc:
            raise sqlite_problem(self.path, exc, writing=not self.readonly) from exc
        self.db = Database(conn)
        try:
            if create:
                self.db.enable_wal()
                self._create_schema()
            else:
                self._check_game()
            if not self.readonly:
                conn.execute("PRAGMA synchronous = NORMAL")
        except BaseException as exc:
            self.close()
            if isinstance(exc, (sqlite3.Error, OSError)):
                raise sqlite_problem(self.path, exc, writing=not self.readonly) from exc
            raise

    @staticmethod
    def _connect(target: str, busy_timeout: float, *, uri: bool = False) -> sqlite3.Connection:
        conn = sqlite3.connect(target, timeout=busy_timeout, isolation_level=None, check_same_thread=False,
                               uri=uri)
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        return conn

    def _connect_readonly(self, busy_timeout: float) -> sqlite3.Connection:
        """Open without ever writing the file: SQLite's read-only mode, which still honours other processes'
        locks (in a writable directory SQLite may leave its -wal/-shm beside the file, empty, as any reader).

        Where SQLite cannot set those up (a read-only directory or file system): with no -wal beside the file
        nothing is pending, so it is read as immutable; with a -wal left by a crash, a private snapshot copy of
        file and -wal is read instead, so the latest months are not missed.
        """
        quoted = urllib.parse.quote(str(self.path.resolve()))
        try:
            return self._first_read(self._connect(f"file:{quoted}?mode=ro", busy_timeout, uri=True))
        except sqlite3.OperationalError as exc:
            low = str(exc).lower()
            if not ("unable to open" in low or "readonly" in low or "read-only" in low):
                raise
        wal = side_files(self.path)[0]
        if not (wal.exists() and wal.stat().st_size > 0):
            return self._first_read(self._connect(f"file:{quoted}?mode=ro&immutable=1", busy_timeout, uri=True))
        tmp = Path(tempfile.mkdtemp(prefix="kingdoms-ro-"))
        self._snapshot = tmp
        shutil.copyfile(self.path, tmp / "game.sqlite")
        shutil.copyfile(wal, tmp / "game.sqlite-wal")
        return self._first_read(self._connect(str(tmp / "game.sqlite"), busy_timeout))

    @staticmethod
    def _first_read(conn: sqlite3.Connection) -> sqlite3.Connection:
        """SQLite opens lazily: read once so a file it cannot read fails here (the connection closed)."""
        try:
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except BaseException:
            conn.close()
            raise
        return conn

    def _check_game(self) -> None:
        """Refuse a file that is not a complete game of this schema, with a one-line reason."""
        names = set(self.db.table_names())
        if "meta" not in names:
            raise StorageError(f"{self.path} is an SQLite database but not a Kingdoms game (it has no meta table): "
                               "check the path", "not_game")
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            raise StorageError(f"{self.path} is an SQLite database but not a Kingdoms game (no schema version): "
                               "check the path", "not_game")
        try:
            version = int(str(row[0]))
        except ValueError:
            raise StorageError(f"{self.path} has an unreadable schema version {str(row[0])[:40]!r}: it is damaged "
                               "or not a Kingdoms game; restore it from a backup", "damaged") from None
        if version > SCHEMA_VERSION:
            raise StorageError(f"{self.path} was written by a newer Kingdoms (schema {version}; this one reads "
                               f"schema {SCHEMA_VERSION}): upgrade Kingdoms to open it", "newer")
        if version < SCHEMA_VERSION:
            raise StorageError(f"{self.path} has schema {version}, which this Kingdoms (schema {SCHEMA_VERSION}) "
                               "cannot read: open it with the Kingdoms version that wrote it", "older")
        missing = [t for t in TABLES if t not in names]
        if missing:
            raise StorageError(f"{self.path} is an incomplete game file (no {', '.join(missing)} table): delete it "
                               "and create the game again with `kingdoms new`", "incomplete")
        has_map = self.db.execute("SELECT 1 FROM meta WHERE key = 'map'").fetchone()
        has_month = self.db.execute("SELECT 1 FROM months LIMIT 1").fetchone()
        has_seat = self.db.execute("SELECT 1 FROM seats LIMIT 1").fetchone()
        if not (has_map and has_month and has_seat):
            what = "no months" if not has_month else ("no map" if not has_map else "no seats")
            raise StorageError(f"{self.path} holds {what}: its creation was interrupted; delete it and create the "
                               "game again with `kingdoms new`", "incomplete")

    def check(self) -> None:
        """SQLite's integrity check plus every stored state's checksum: a damaged file raises StorageError."""
        rows = [r[0] for r in self.db.execute("PRAGMA integrity_check(20)").fetchall()]
        if rows != ["ok"]:
            first = "; ".join(str(r) for r in rows[:3])
            raise StorageError(f"{self.path} is damaged (SQLite integrity check: {first[:300]}): restore it from a "
                               "backup", "damaged")
        for month, blob in self.db.execute("SELECT month, state FROM months ORDER BY month"):
            try:
                zlib.decompress(blob)
            except (zlib.error, TypeError) as exc:
                raise StorageError(f"{self.path} is damaged: the stored state of month {month} is unreadable "
                                   f"({exc}): restore the file from a backup", "damaged") from None

    def probe_write(self) -> None:
        """Take and release the write lock: raises StorageError now if the file cannot be written or is locked."""
        if self.readonly:
            raise StorageError(f"{self.path} is open read-only", "readonly")
        with self.write():
            self.db.execute("SELECT 1 FROM meta LIMIT 1").fetchone()

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.db.conn.close()
        if self._snapshot is not None:
            shutil.rmtree(self._snapshot, ignore_errors=True)
            self._snapshot = None

    # --- schema -------------------------------------------------------------------------------------

    def _create_schema(self) -> None:
        db = self.db
        with self.write():
            db["meta"].create({"key": str, "value": str}, pk="key", if_not_exists=True)
            db["seats"].create({"kingdom": str, "ruler": str, "name": str, "controller": str, "token_digest": str},
                               pk="kingdom", if_not_exists=True)
            db["months"].create({"month": int, "state": bytes, "hash": str}, pk="month", if_not_exists=True)
            db["ended"].create({"month": int, "kingdom": str, "how": str, "at": float}, pk=("month", "kingdom"),
                               if_not_exists=True)
            db["orders"].create({"id": int, "month": int, "kingdom": str, "call": int, "position": int, "raw": str,
                                 "parsed": str, "accepted": int, "code": str, "message": str}, pk="id",
                                if_not_exists=True)
            db["orders"].create_index(["month", "kingdom"], if_not_exists=True)
            db["outcomes"].create({"month": int, "kingdom": str, "position": int, "text": str, "ok": int,
                                   "result": str, "code": str}, if_not_exists=True)
            db["outcomes"].create_index(["month", "kingdom"], if_not_exists=True)
            db["events"].create({"id": int, "month": int, "kind": str, "text": str, "audience": str, "data": str},
                                pk="id", if_not_exists=True)
            db["events"].create_index(["month"], if_not_exists=True)
            db["notes"].create({"month": int, "kingdom": str, "kind": str, "text": str, "at": float},
                               if_not_exists=True)
            db["history"].create({"id": int, "month": int, "kingdom": str, "kind": str, "text": str, "at": float,
                                  "reply_chars": int, "reply_tokens": int}, pk="id", if_not_exists=True)
            db["history"].create_index(["kingdom"], if_not_exists=True)
            self._create_seat_tables(db)
            db["meta"].insert({"key": "schema_version", "value": str(SCHEMA_VERSION)}, replace=True)

    @staticmethod
    def _create_seat_tables(db: Database) -> bool:
        """Tables added after schema 1 was first written; made on demand in older files (inside a write).
        True when something had to be made."""
        made = not db["fast_forward"].exists()
        db["fast_forward"].create({"kingdom": str, "months": int, "at": float}, pk="kingdom", if_not_exists=True)
        columns = {row[1] for row in db.execute("PRAGMA table_info(history)")}
        for column in ("reply_chars", "reply_tokens"):
            if column not in columns:
                db.execute(f"ALTER TABLE history ADD COLUMN {column} INTEGER")
                made = True
        return made

    @contextlib.contextmanager
    def write(self) -> Iterator[Database]:
        """An IMMEDIATE write transaction: taken at once, so a check inside it holds until commit.

        Nested calls join the outermost transaction. Any failure rolls everything back; sqlite3 and OS errors
        leave as one StorageError (a full disk as DiskFull).
        """
        if self._depth:
            self._depth += 1
            try:
                yield self.db
            finally:
                self._depth -= 1
            return
        if self.readonly:
            raise StorageError(f"{self.path} was opened read-only: nothing can be written to it", "readonly")
        conn = self.db.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise sqlite_problem(self.path, exc) from exc
        self._depth = 1
        self._latest = None
        try:
            yield self.db
            conn.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            if isinstance(exc, (sqlite3.Error, OSError)):
                raise sqlite_problem(self.path, exc) from exc
            raise
        finally:
            self._depth = 0
            self._latest = None

    # --- metadata and seats -------------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        if "meta" not in self.db.table_names():
            return {}
        try:
            return {row["key"]: json.loads(row["value"]) if row["key"] != "schema_version" else row["value"]
                    for row in self.db["meta"].rows}
        except (ValueError, TypeError) as exc:
            raise StorageError(f"{self.path} is damaged: its metadata cannot be read ({exc}): restore it from a "
                               "backup", "damaged") from None

    def meta_value(self, key: str, default: Any = None) -> Any:
        """One metadata value, read fresh from the file (another process may have changed it)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return json.loads(row[0]) if row else default

    def set_meta(self, **values: Any) -> None:
        with self.write() as db:
            _insert(db, "meta", [{"key": key, "value": json.dumps(value)} for key, value in values.items()],
                    "INSERT OR REPLACE")

    def add_seat(self, kingdom: str, ruler: str, name: str, controller: str, token: str) -> None:
        with self.write() as db:
            db["seats"].insert({"kingdom": kingdom, "ruler": ruler, "name": name, "controller": controller,
                                "token_digest": token_digest(token)}, replace=True)

    def seats(self) -> list[dict[str, Any]]:
        return _select(self.db, "SELECT * FROM seats ORDER BY rowid")

    def seat_digests(self) -> dict[str, str]:
        """Each seat's token digest, by kingdom."""
        return {r["kingdom"]: r["token_digest"] for r in self.db["seats"].rows}

    def seat_for_token(self, token: str) -> str | None:
        return match_token(token, self.seat_digests())

    # --- months -------------------------------------------------------------------------------------

    def save_month(self, month: int, state: dict[str, Any] | bytes, state_hash: str) -> None:
        """Store a month's state (its `to_dict()`, or the JSON bytes of it) with its hash."""
        with self.write() as db:
            _insert(db, "months", [{"month": month, "state": _pack(state), "hash": state_hash}])
            self._latest = None

    def latest_month(self) -> int:
        """The latest stored month (0 when none); read once per write transaction, in which nobody else can store
        one."""
        if self._depth and self._latest is not None:
            return self._latest
        row = self.db.execute("SELECT MAX(month) FROM months").fetchone()
        latest = int(row[0]) if row and row[0] is not None else 0
        if self._depth:
            self._latest = latest
        return latest

    def month_state(self, month: int) -> tuple[dict[str, Any], str]:
        row = self.db.execute("SELECT state, hash FROM months WHERE month = ?", [month]).fetchone()
        if row is None:
            raise StorageError(f"month {month} is not in {self.path}", "missing")
        try:
            return _unpack(row[0]), row[1]
        except (zlib.error, TypeError, ValueError) as exc:
            raise StorageError(f"{self.path} is damaged: the stored state of month {month} is unreadable ({exc}): "
                               "restore the file from a backup", "damaged") from None

    def month_hashes(self) -> dict[int, str]:
        return {m: h for m, h in self.db.execute("SELECT month, hash FROM months ORDER BY month")}

    # --- ending months ------------------------------------------------------------------------------

    def mark_ended(self, month: int, kingdom: str, how: str, at: float) -> None:
        with self.write() as db:
            _insert(db, "ended", [{"month": month, "kingdom": kingdom, "how": how, "at": at}], "INSERT OR IGNORE")

    def ended(self, month: int) -> dict[str, str]:
        return {r["kingdom"]: r["how"] for r in _select(self.db, "SELECT * FROM ended WHERE month = ?", [month])}

    def ended_by(self, kingdom: str) -> dict[int, str]:
        """{month: how} for every month the seat has ended (ended, deadline, fast_forward, ai)."""
        return {int(r["month"]): r["how"] for r in self.db["ended"].rows_where("kingdom = ?", [kingdom])}

    def ended_at(self, month: int) -> dict[str, float]:
        return {r["kingdom"]: r["at"] for r in self.db["ended"].rows_where("month = ?", [month])}

    # --- orders -------------------------------------------------------------------------------------

    def next_call(self, month: int, kingdom: str) -> int:
        row = self.db.execute("SELECT MAX(call) FROM orders WHERE month = ? AND kingdom = ?", [month, kingdom]).fetchone()
        return (int(row[0]) if row and row[0] is not None else 0) + 1

    def add_orders(self, month: int, kingdom: str, rows: list[dict[str, Any]]) -> None:
        """Record one issue_orders call: every order as given, accepted or not (one transaction)."""
        with self.write() as db:
            row = db.execute("SELECT MAX(call) FROM orders WHERE month = ? AND kingdom = ?", [month, kingdom]).fetchone()
            call = (int(row[0]) if row and row[0] is not None else 0) + 1
            _insert(db, "orders", [{"month": month, "kingdom": kingdom, "call": call, **r} for r in rows])

    def accepted_orders(self, month: int, kingdom: str | None = None) -> list[dict[str, Any]]:
        where = "month = ? AND accepted = 1" + (" AND kingdom = ?" if kingdom else "")
        args: list[Any] = [month] + ([kingdom] if kingdom else [])
        return _select(self.db, f"SELECT * FROM orders WHERE {where} ORDER BY id", args)

    def all_orders(self, kingdom: str) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db["orders"].rows_where("kingdom = ?", [kingdom], order_by="id")]

    # --- results of a month (written with the next month's state, in one transaction) -----------------

    def commit_resolution(self, month: int, next_state: dict[str, Any] | bytes, next_hash: str,
                          events: list[dict[str, Any]], outcomes: list[dict[str, Any]],
                          meta: dict[str, Any] | None = None) -> bool:
        """Store month `month`'s results and the state of month+1 (its `to_dict()` or the JSON bytes of it,
        GameState.stored_form), unless another process already did.

        Returns False (and writes nothing) when the next month already exists: a month resolves once.
        """
        with self.write() as db:
            exists = db.execute("SELECT 1 FROM months WHERE month = ?", [month + 1]).fetchone()
            if exists:
                return False
            _insert(db, "months", [{"month": month + 1, "state": _pack(next_state), "hash": next_hash}])
            self._latest = None
            _insert(db, "events", [{"month": month, "kind": ev["kind"], "text": ev["text"],
                                    "audience": json.dumps(ev["audience"]), "data": json.dumps(ev["data"])}
                                   for ev in events])
            _insert(db, "outcomes", [{"month": month, **oc} for oc in outcomes])
            _insert(db, "meta", [{"key": key, "value": json.dumps(value)} for key, value in (meta or {}).items()],
                    "INSERT OR REPLACE")
        return True

    def events(self, month: int | None = None) -> list[dict[str, Any]]:
        rows = _select(self.db, "SELECT * FROM events WHERE month = ? ORDER BY id", [month]) if month is not None \
            else _select(self.db, "SELECT * FROM events ORDER BY id")
        return [{**dict(r), "audience": json.loads(r["audience"]), "data": json.loads(r["data"])} for r in rows]

    def outcomes(self, month: int, kingdom: str) -> list[dict[str, Any]]:
        return _select(self.db, "SELECT * FROM outcomes WHERE month = ? AND kingdom = ? ORDER BY rowid",
                       [month, kingdom])

    def battles(self, kingdom: str) -> list[tuple[int, str]]:
        """(month, result) of the kingdom's attack orders that were carried out, for the chronicle."""
        rows = self.db.execute("SELECT month, result FROM outcomes WHERE kingdom = ? AND ok = 1 AND text LIKE 'attack %'"
                               " ORDER BY rowid", [kingdom])
        return [(int(m), r) for m, r in rows]

    # --- notes, goals, dispatches, history ----------------------------------------------------------

    def add_note(self, month: int, kingdom: str, kind: str, text: str, at: float) -> None:
        with self.write() as db:
            _insert(db, "notes", [{"month": month, "kingdom": kingdom, "kind": kind, "text": text, "at": at}])

    def notes(self, kingdom: str | None = None, kind: str | None = None) -> list[dict[str, Any]]:
        clauses, args = [], []
        if kingdom:
            clauses.append("kingdom = ?")
            args.append(kingdom)
        if kind:
            clauses.append("kind = ?")
            args.append(kind)
        return [dict(r) for r in self.db["notes"].rows_where(" AND ".join(clauses) or None, args, order_by="rowid")]

    def add_history(self, month: int, kingdom: str, kind: str, text: str, at: float) -> int:
        """Append one entry of the seat's history; returns its id."""
        with self.write() as db:
            cursor = db.conn.execute("INSERT INTO history (month, kingdom, kind, text, at) VALUES (?, ?, ?, ?, ?)",
                                     [month, kingdom, kind, text, at])
            return int(cursor.lastrowid or 0)

    def set_reply_size(self, history_id: int, chars: int, tokens: int) -> None:
        """Store the size of the reply a call got (characters, estimated tokens) on the call's history entry."""
        with self.write() as db:
            if not self._seat_tables:  # found complete, not just made: a made table could still roll back
                self._seat_tables = not self._create_seat_tables(db)
            db.execute("UPDATE history SET reply_chars = ?, reply_tokens = ? WHERE id = ?", [chars, tokens, history_id])

    def history_of_month(self, kingdom: str, month: int) -> list[dict[str, Any]]:
        return _select(self.db, "SELECT * FROM history WHERE kingdom = ? AND month = ? ORDER BY id", [kingdom, month])

    # --- fast_forward: months a seat wants ended for it while nothing needs it (TURN-200) -------------

    def fast_forward(self, kingdom: str) -> int:
        """Months the seat still wants skipped (0 when none, or in a file made before this table existed)."""
        if not self.db["fast_forward"].exists():
            return 0
        row = self.db.execute("SELECT months FROM fast_forward WHERE kingdom = ?", [kingdom]).fetchone()
        return int(row[0]) if row else 0

    def set_fast_forward(self, kingdom: str, months: int, at: float) -> None:
        with self.write() as db:
            self._create_seat_tables(db)
            db["fast_forward"].insert({"kingdom": kingdom, "months": max(0, months), "at": at}, replace=True)

    def skip_month(self, month: int, kingdom: str, at: float) -> bool:
        """End `month` for the seat by fast_forward and count one skipped month, in one transaction.

        False (and nothing written) when the seat has no months left to skip, already ended the month, or the
        month has closed meanwhile (resolved by another process).
        """
        with self.write() as db:
            self._create_seat_tables(db)
            row = db.execute("SELECT months FROM fast_forward WHERE kingdom = ?", [kingdom]).fetchone()
            ended = db.execute("SELECT 1 FROM ended WHERE month = ? AND kingdom = ?", [month, kingdom]).fetchone()
            closed = db.execute("SELECT 1 FROM months WHERE month = ?", [month + 1]).fetchone()
            if not row or int(row[0]) <= 0 or ended or closed:  # only the month still open (issue 12)
                return False
            db["ended"].insert({"month": month, "kingdom": kingdom, "how": "fast_forward", "at": at})
            db.execute("UPDATE fast_forward SET months = months - 1, at = ? WHERE kingdom = ?", [at, kingdom])
        return True

    def history_months(self, kingdom: str, kind: str) -> set[int]:
        """Months in which the seat was sent something of `kind` (e.g. which briefings it has seen)."""
        rows = self.db.execute("SELECT DISTINCT month FROM history WHERE kingdom = ? AND kind = ?", [kingdom, kind])
        return {int(r[0]) for r in rows}

    def history(self, kingdom: str) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db["history"].rows_where("kingdom = ?", [kingdom], order_by="id")]

    # --- model usage (what a model seat's calls cost; kingdoms.modelseat reports it) -------------------

    USAGE_COLUMNS: dict[str, type] = {
        "id": int, "month": int, "kingdom": str, "kind": str, "model": str, "input_tokens": int,
        "cached_input_tokens": int, "cache_write_tokens": int, "output_tokens": int, "latency_s": float,
        "cost_usd": float, "retries": int, "note": str, "at": float,
    }

    def add_usage(self, month: int, kingdom: str, row: dict[str, Any]) -> None:
        """Store one usage row (a model call, a retried failure, an outage...) for a seat; the table is made on
        first use, so game files written before it existed take it too."""
        with self.write() as db:
            if "usage" not in db.table_names():
                db["usage"].create(self.USAGE_COLUMNS, pk="id")
                db["usage"].create_index(["kingdom"])
            known = {k: row[k] for k in self.USAGE_COLUMNS if k in row and k not in ("id", "month", "kingdom")}
            db["usage"].insert({"month": month, "kingdom": kingdom, **known})

    def usage(self, kingdom: str | None = None) -> list[dict[str, Any]]:
        """Usage rows, oldest first (all seats, or one)."""
        if "usage" not in self.db.table_names():
            return []
        where, args = ("kingdom = ?", [kingdom]) if kingdom else (None, [])
        return [dict(r) for r in self.db["usage"].rows_where(where, args, order_by="id")]

    def usage_totals(self) -> dict[str, dict[str, Any]]:
        """Per seat: model calls, tokens, cost, latency, retried failures, outages and months a harness ended."""
        out: dict[str, dict[str, Any]] = {}
        for r in self.usage():
            t = out.setdefault(r["kingdom"], {
                "calls": 0, "input_tokens": 0, "cached_input_tokens": 0, "cache_write_tokens": 0,
                "output_tokens": 0, "cost_usd": 0.0, "unpriced_calls": 0, "latency_s": 0.0, "retries": 0,
                "outages": 0, "harness_ended": 0, "budget_reached": False, "models": []})
            kind = r["kind"]
            if r.get("model") and r["model"] not in t["models"]:
                t["models"].append(r["model"])
            if kind == "call":
                t["calls"] += 1
                for key in ("input_tokens", "cached_input_tokens", "cache_write_tokens", "output_tokens"):
                    t[key] += int(r.get(key) or 0)
                t["latency_s"] += float(r.get("latency_s") or 0.0)
                if r.get("cost_usd") is None:
                    t["unpriced_calls"] += 1
                else:
                    t["cost_usd"] += float(r["cost_usd"])
            elif kind == "retry":
                t["retries"] += 1
            elif kind == "outage":
                t["outages"] += 1
            elif kind == "month_ended":
                t["harness_ended"] += 1
            elif kind == "budget":
                t["budget_reached"] = True
        for t in out.values():
            t["cost_usd"] = round(t["cost_usd"], 6)
            t["latency_s"] = round(t["latency_s"], 3)
        return out
