"""The tournament's state: one SQLite file (tournament.sqlite) in the output folder.

It holds the config text, the entrants, the schedule and, per game, its file, status, attempts and
result. Status moves pending -> running -> done | void | failed, each move one transaction that checks
the status it moves from, so a result is recorded once per game even if a killed runner's worker and a
new one both finish it. A game's `seq` is its place in the order results were recorded (the live
ratings replay that order).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kingdoms.storage import Database
from kingdoms.tournament.schedule import GameTask

FILE_NAME = "tournament.sqlite"
SCHEMA_VERSION = 1
FINAL = ("done", "void", "failed")


class TournamentStoreError(Exception):
    """The folder holds no tournament, or another one than the config given."""


class TournamentStore:
    """Typed access to tournament.sqlite; every method is one short transaction."""

    def __init__(self, folder: str | Path, *, create: bool = False) -> None:
        self.folder = Path(folder)
        self.path = self.folder / FILE_NAME
        if not create and not self.path.exists():
            raise TournamentStoreError(f"no tournament in {self.folder} (no {FILE_NAME}); start one with "
                                       "`kingdoms tournament run CONFIG.toml --out DIR`")
        self.folder.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 30000")
        self.db = Database(conn)
        if create:
            self.db.enable_wal()
            with self.write() as db:
                db["meta"].create({"key": str, "value": str}, pk="key", if_not_exists=True)
                db["entrants"].create({"name": str, "kind": str, "spec": str}, pk="name", if_not_exists=True)
                db["games"].create({"id": str, "idx": int, "round": int, "map": str, "source": str, "seed": int,
                                    "seats": str, "months": int, "file": str, "status": str, "attempt": int,
                                    "started_at": float, "finished_at": float, "seq": int, "result": str,
                                    "error": str}, pk="id", if_not_exists=True)
                db["games"].create_index(["status"], if_not_exists=True)
                db["transitions"].create({"id": int, "game": str, "status": str, "attempt": int, "at": float,
                                          "note": str}, pk="id", if_not_exists=True)
                db["meta"].insert({"key": "schema_version", "value": json.dumps(SCHEMA_VERSION)}, replace=True)
        conn.execute("PRAGMA synchronous = NORMAL")

    def close(self) -> None:
        self.db.conn.close()

    @contextlib.contextmanager
    def write(self) -> Iterator[Database]:
        conn = self.db.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")

    # --- set-up -------------------------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        return {r["key"]: json.loads(r["value"]) for r in self.db["meta"].rows}

    def set_meta(self, **values: Any) -> None:
        with self.write() as db:
            for key, value in values.items():
                db["meta"].insert({"key": key, "value": json.dumps(value)}, replace=True)

    def initialise(self, *, config_text: str, config_source: str, base: str, digest: str, name: str,
                   entrants: list[dict[str, Any]], tasks: list[GameTask]) -> None:
        """Write config, entrants and schedule once (one transaction): a half-written schedule never exists."""
        with self.write() as db:
            if db.execute("SELECT 1 FROM meta WHERE key = 'digest'").fetchone():
                return
            for key, value in {"config_text": config_text, "config_source": config_source, "base": base,
                               "digest": digest, "name": name, "created_at": time.time()}.items():
                db["meta"].insert({"key": key, "value": json.dumps(value)}, replace=True)
            for e in entrants:
                db["entrants"].insert({"name": e["name"], "kind": e["kind"], "spec": json.dumps(e)}, replace=True)
            for t in tasks:
                db["games"].insert({"id": t.id, "idx": t.index, "round": t.round, "map": t.map_label,
                                    "source": t.source, "seed": t.seed, "seats": json.dumps(t.seats),
                                    "months": t.months, "file": f"games/{t.id}.sqlite", "status": "pending",
                                    "attempt": 0, "started_at": None, "finished_at": None, "seq": None,
                                    "result": None, "error": None})

    def update_entrants(self, entrants: list[dict[str, Any]]) -> None:
        """Take the config's current entrant settings (limits, commands, anchors) on a resumed run."""
        with self.write() as db:
            for e in entrants:
                db["entrants"].insert({"name": e["name"], "kind": e["kind"], "spec": json.dumps(e)}, replace=True)

    def entrants(self) -> list[dict[str, Any]]:
        return [json.loads(r["spec"]) for r in self.db["entrants"].rows_where(order_by="rowid")]

    # --- games --------------------------------------------------------------------------------------

    @staticmethod
    def task(row: dict[str, Any]) -> GameTask:
        """The scheduled game of a row from `games()`."""
        seats = row["seats"] if isinstance(row["seats"], dict) else json.loads(row["seats"])
        return GameTask(id=row["id"], index=row["idx"], round=row["round"], map_label=row["map"],
                        source=row["source"], seed=row["seed"], seats=seats, months=row["months"])

    def games(self, status: str | None = None) -> list[dict[str, Any]]:
        where, args = ("status = ?", [status]) if status else (None, [])
        rows = []
        for r in self.db["games"].rows_where(where, args, order_by="idx"):
            row = dict(r)
            row["seats"] = json.loads(row["seats"])
            row["result"] = json.loads(row["result"]) if row["result"] else None
            rows.append(row)
        return rows

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in ("pending", "running", *FINAL)}
        for status, n in self.db.execute("SELECT status, COUNT(*) FROM games GROUP BY status"):
            out[status] = int(n)
        return out

    def _log(self, db: Database, game: str, status: str, attempt: int, note: str = "") -> None:
        db["transitions"].insert({"game": game, "status": status, "attempt": attempt, "at": time.time(),
                                  "note": note})

    def start(self, game: str) -> int | None:
        """pending -> running; returns the attempt number, or None when the game was not pending."""
        with self.write() as db:
            row = db.execute("SELECT status, attempt FROM games WHERE id = ?", [game]).fetchone()
            if row is None or row[0] != "pending":
                return None
            attempt = int(row[1]) + 1
            db.execute("UPDATE games SET status = 'running', attempt = ?, started_at = ?, error = NULL WHERE id = ?",
                       [attempt, time.time(), game])
            self._log(db, game, "running", attempt)
        return attempt

    def finish(self, game: str, attempt: int, status: str, result: dict[str, Any] | None,
               error: str | None = None) -> bool:
        """running (this attempt) -> done | void | failed, with the result; False if already recorded."""
        if status not in FINAL:
            raise ValueError(f"not a final status: {status}")
        with self.write() as db:
            row = db.execute("SELECT status, attempt FROM games WHERE id = ?", [game]).fetchone()
            if row is None or row[0] != "running" or int(row[1]) != attempt:
                return False
            seq = (db.execute("SELECT MAX(seq) FROM games").fetchone()[0] or 0) + 1
            db.execute("UPDATE games SET status = ?, result = ?, error = ?, finished_at = ?, seq = ? WHERE id = ?",
                       [status, json.dumps(result) if result is not None else None, error, time.time(), seq, game])
            self._log(db, game, status, attempt, error or "")
        return True

    def give_back(self, game: str, attempt: int, note: str) -> bool:
        """running (this attempt) -> pending: the game could not be played now (it resumes from its file)."""
        with self.write() as db:
            row = db.execute("SELECT status, attempt FROM games WHERE id = ?", [game]).fetchone()
            if row is None or row[0] != "running" or int(row[1]) != attempt:
                return False
            db.execute("UPDATE games SET status = 'pending', error = ? WHERE id = ?", [note, game])
            self._log(db, game, "pending", attempt, note)
        return True

    def recover(self) -> list[str]:
        """Games left `running` by a runner that died go back to pending (their files resume them)."""
        with self.write() as db:
            ids = [r[0] for r in db.execute("SELECT id FROM games WHERE status = 'running'")]
            for game in ids:
                attempt = db.execute("SELECT attempt FROM games WHERE id = ?", [game]).fetchone()[0]
                db.execute("UPDATE games SET status = 'pending' WHERE id = ?", [game])
                self._log(db, game, "pending", int(attempt), "the runner stopped while it was running")
        return ids

    def retry_failed(self) -> list[str]:
        """failed -> pending (on --retry-failed): a crashed seat's game resumes from its file."""
        with self.write() as db:
            ids = [r[0] for r in db.execute("SELECT id FROM games WHERE status = 'failed'")]
            for game in ids:
                attempt = db.execute("SELECT attempt FROM games WHERE id = ?", [game]).fetchone()[0]
                db.execute("UPDATE games SET status = 'pending', result = NULL, seq = NULL WHERE id = ?", [game])
                self._log(db, game, "pending", int(attempt), "retry of a failed game")
        return ids

    def transitions(self, game: str | None = None) -> list[dict[str, Any]]:
        where, args = ("game = ?", [game]) if game else (None, [])
        return [dict(r) for r in self.db["transitions"].rows_where(where, args, order_by="id")]
