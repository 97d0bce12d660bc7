"""One SQLite file per game (sqlite-utils, WAL): metadata, seats, every month's state and hash, every order
as given with its verdict, outcomes, events, notes, goals, dispatches, the per-seat history (each call with
the size of its reply) and each seat's fast_forward.

Crash safety: every acknowledged write is committed before the caller answers. Several processes may
open one file (one stdio server per seat): writes that must not interleave (resolving a month) run in
`BEGIN IMMEDIATE` transactions and re-check their precondition inside, so a month resolves once.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import sqlite3
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sqlite_utils

SCHEMA_VERSION = 1


class StorageError(Exception):
    """The file is not a Kingdoms game, or was written by an incompatible schema."""


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
    (the hash is over the canonical sort_keys JSON, GameState.state_hash, so it does not depend on this)."""
    return zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 6)


def _unpack(blob: bytes) -> Any:
    return json.loads(zlib.decompress(blob))


class GameStore:
    """Typed access to one game file; every method is one short transaction."""

    def __init__(self, path: str | Path, *, create: bool = False) -> None:
        self.path = Path(path)
        if not create and not self.path.exists():
            raise StorageError(f"no game file at {self.path}")
        conn = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 30000")
        self.db = sqlite_utils.Database(conn)
        if create:
            self.db.enable_wal()
            self._create_schema()
        else:
            version = self.meta().get("schema_version")
            if version is None:
                raise StorageError(f"{self.path} is not a Kingdoms game file")
            if int(version) != SCHEMA_VERSION:
                raise StorageError(f"{self.path} has schema {version}; this Kingdoms reads schema {SCHEMA_VERSION}")
        conn.execute("PRAGMA synchronous = NORMAL")

    def close(self) -> None:
        self.db.conn.close()

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
    def _create_seat_tables(db: sqlite_utils.Database) -> None:
        """Tables added after schema 1 was first written; made on demand in older files (inside a write)."""
        db["fast_forward"].create({"kingdom": str, "months": int, "at": float}, pk="kingdom", if_not_exists=True)
        columns = {row[1] for row in db.execute("PRAGMA table_info(history)")}
        for column in ("reply_chars", "reply_tokens"):
            if column not in columns:
                db.execute(f"ALTER TABLE history ADD COLUMN {column} INTEGER")

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite_utils.Database]:
        """An IMMEDIATE write transaction: taken at once, so a check inside it holds until commit."""
        conn = self.db.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")

    # --- metadata and seats -------------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        if "meta" not in self.db.table_names():
            return {}
        return {row["key"]: json.loads(row["value"]) if row["key"] != "schema_version" else row["value"]
                for row in self.db["meta"].rows}

    def meta_value(self, key: str, default: Any = None) -> Any:
        """One metadata value, read fresh from the file (another process may have changed it)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return json.loads(row[0]) if row else default

    def set_meta(self, **values: Any) -> None:
        with self.write() as db:
            for key, value in values.items():
                db["meta"].insert({"key": key, "value": json.dumps(value)}, replace=True)

    def add_seat(self, kingdom: str, ruler: str, name: str, controller: str, token: str) -> None:
        with self.write() as db:
            db["seats"].insert({"kingdom": kingdom, "ruler": ruler, "name": name, "controller": controller,
                                "token_digest": token_digest(token)}, replace=True)

    def seats(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db["seats"].rows_where(order_by="rowid")]

    def seat_digests(self) -> dict[str, str]:
        """Each seat's token digest, by kingdom."""
        return {r["kingdom"]: r["token_digest"] for r in self.db["seats"].rows}

    def seat_for_token(self, token: str) -> str | None:
        return match_token(token, self.seat_digests())

    # --- months -------------------------------------------------------------------------------------

    def save_month(self, month: int, state: dict[str, Any], state_hash: str) -> None:
        with self.write() as db:
            db["months"].insert({"month": month, "state": _pack(state), "hash": state_hash})

    def latest_month(self) -> int:
        row = self.db.execute("SELECT MAX(month) FROM months").fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def month_state(self, month: int) -> tuple[dict[str, Any], str]:
        row = self.db.execute("SELECT state, hash FROM months WHERE month = ?", [month]).fetchone()
        if row is None:
            raise StorageError(f"month {month} is not in {self.path}")
        return _unpack(row[0]), row[1]

    def month_hashes(self) -> dict[int, str]:
        return {m: h for m, h in self.db.execute("SELECT month, hash FROM months ORDER BY month")}

    # --- ending months ------------------------------------------------------------------------------

    def mark_ended(self, month: int, kingdom: str, how: str, at: float) -> None:
        with self.write() as db:
            db["ended"].insert({"month": month, "kingdom": kingdom, "how": how, "at": at}, ignore=True)

    def ended(self, month: int) -> dict[str, str]:
        return {r["kingdom"]: r["how"] for r in self.db["ended"].rows_where("month = ?", [month])}

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
            for r in rows:
                db["orders"].insert({"month": month, "kingdom": kingdom, "call": call, **r})

    def accepted_orders(self, month: int, kingdom: str | None = None) -> list[dict[str, Any]]:
        where = "month = ? AND accepted = 1" + (" AND kingdom = ?" if kingdom else "")
        args: list[Any] = [month] + ([kingdom] if kingdom else [])
        return [dict(r) for r in self.db["orders"].rows_where(where, args, order_by="id")]

    def all_orders(self, kingdom: str) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db["orders"].rows_where("kingdom = ?", [kingdom], order_by="id")]

    # --- results of a month (written with the next month's state, in one transaction) -----------------

    def commit_resolution(self, month: int, next_state: dict[str, Any], next_hash: str, events: list[dict[str, Any]],
                          outcomes: list[dict[str, Any]], meta: dict[str, Any] | None = None) -> bool:
        """Store month `month`'s results and the state of month+1, unless another process already did.

        Returns False (and writes nothing) when the next month already exists: a month resolves once.
        """
        with self.write() as db:
            exists = db.execute("SELECT 1 FROM months WHERE month = ?", [month + 1]).fetchone()
            if exists:
                return False
            db["months"].insert({"month": month + 1, "state": _pack(next_state), "hash": next_hash})
            for ev in events:
                db["events"].insert({"month": month, "kind": ev["kind"], "text": ev["text"],
                                     "audience": json.dumps(ev["audience"]), "data": json.dumps(ev["data"])})
            for oc in outcomes:
                db["outcomes"].insert({"month": month, **oc})
            for key, value in (meta or {}).items():
                db["meta"].insert({"key": key, "value": json.dumps(value)}, replace=True)
        return True

    def events(self, month: int | None = None) -> list[dict[str, Any]]:
        rows = self.db["events"].rows_where("month = ?", [month], order_by="id") if month is not None else \
            self.db["events"].rows_where(order_by="id")
        return [{**dict(r), "audience": json.loads(r["audience"]), "data": json.loads(r["data"])} for r in rows]

    def outcomes(self, month: int, kingdom: str) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db["outcomes"].rows_where("month = ? AND kingdom = ?", [month, kingdom],
                                                                order_by="rowid")]

    def battles(self, kingdom: str) -> list[tuple[int, str]]:
        """(month, result) of the kingdom's attack orders that were carried out, for the chronicle."""
        rows = self.db.execute("SELECT month, result FROM outcomes WHERE kingdom = ? AND ok = 1 AND text LIKE 'attack %'"
                               " ORDER BY rowid", [kingdom])
        return [(int(m), r) for m, r in rows]

    # --- notes, goals, dispatches, history ----------------------------------------------------------

    def add_note(self, month: int, kingdom: str, kind: str, text: str, at: float) -> None:
        with self.write() as db:
            db["notes"].insert({"month": month, "kingdom": kingdom, "kind": kind, "text": text, "at": at})

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
            return int(db["history"].insert({"month": month, "kingdom": kingdom, "kind": kind, "text": text,
                                             "at": at}).last_pk)

    def set_reply_size(self, history_id: int, chars: int, tokens: int) -> None:
        """Store the size of the reply a call got (characters, estimated tokens) on the call's history entry."""
        with self.write() as db:
            self._create_seat_tables(db)
            db.execute("UPDATE history SET reply_chars = ?, reply_tokens = ? WHERE id = ?", [chars, tokens, history_id])

    def history_of_month(self, kingdom: str, month: int) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db["history"].rows_where("kingdom = ? AND month = ?", [kingdom, month],
                                                               order_by="id")]

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

        False (and nothing written) when the seat has no months left to skip or already ended the month.
        """
        with self.write() as db:
            self._create_seat_tables(db)
            row = db.execute("SELECT months FROM fast_forward WHERE kingdom = ?", [kingdom]).fetchone()
            ended = db.execute("SELECT 1 FROM ended WHERE month = ? AND kingdom = ?", [month, kingdom]).fetchone()
            if not row or int(row[0]) <= 0 or ended:
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
