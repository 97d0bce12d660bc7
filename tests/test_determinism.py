"""A game does not depend on the process that resolves its months: a state read back from the file is the
very structure that was saved, the engine iterates ids in one canonical order, and resolving every month
from the file (a fresh Game.open, or a fresh process, per month) gives the hashes of playing it in memory."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kingdoms.engine.month import resolve_month
from kingdoms.game import Game
from kingdoms.setup import build_state, random_scenario, resolve_scenario
from kingdoms.state import GameState, Unit
from kingdoms.storage import _unpack

from .conftest import tiny_state

pytestmark = pytest.mark.long  # whole games and processes: out of the inner loop (pyproject markers)

#: (map seed, kingdoms, game seed) of the property test's games, drawn once from a seeded generator.
_RNG = random.Random(20240612)
GAMES = [(_RNG.randrange(1, 10_000), _RNG.choice((2, 3)), _RNG.randrange(1, 10_000)) for _ in range(3)]
MONTHS = 24


def structure_diff(a: Any, b: Any, path: str = "state", out: list[str] | None = None) -> list[str]:
    """Where two values differ in content, type or the order of their keys (dataclasses walked field by field)."""
    out = [] if out is None else out
    if len(out) >= 10:
        return out
    if type(a) is not type(b):
        out.append(f"{path}: {type(a).__name__} != {type(b).__name__}")
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            if f.name != "map":
                structure_diff(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}", out)
    elif isinstance(a, dict):
        if list(a) != list(b):
            out.append(f"{path}: keys {list(a)[:8]} != {list(b)[:8]}")
        for k in a:
            if k in b:
                structure_diff(a[k], b[k], f"{path}[{k!r}]", out)
    elif isinstance(a, list | tuple):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} items != {len(b)}")
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            structure_diff(x, y, f"{path}[{i}]", out)
    elif isinstance(a, np.ndarray):
        if a.dtype != b.dtype or not np.array_equal(a, b):
            out.append(f"{path}: arrays differ")
    elif a != b:
        out.append(f"{path}: {a!r} != {b!r}")
    return out


def _create(path: Path, map_seed: int, n: int, seed: int) -> tuple[Game, GameState]:
    state = build_state(random_scenario(map_seed, n), seed)
    game, _ = Game.create(path, state, scenario=f"random:{map_seed}:{n}",
                          controllers={k: "ai:standard" for k in state.kingdoms})
    return game, state


def _hashes(path: Path) -> list[str]:
    game = Game.open(path)
    hashes = game.store.month_hashes()
    game.close()
    return [hashes[m] for m in sorted(hashes)]


@pytest.mark.parametrize(("map_seed", "kingdoms", "seed"), GAMES)
def test_a_month_resolved_from_the_file_matches_memory(tmp_path: Path, map_seed: int, kingdoms: int,
                                                       seed: int) -> None:
    """Property: for seeded random games, resolving each month from a state loaded from the file (a fresh
    Game.open per month) gives the same hash month by month as playing every month in memory; and every
    state loaded from the file is structurally identical (keys, their order, types) to the one in memory."""
    memory, _ = _create(tmp_path / "memory.sqlite", map_seed, kingdoms, seed)
    fresh, _ = _create(tmp_path / "fresh.sqlite", map_seed, kingdoms, seed)
    fresh.close()
    for _ in range(MONTHS):
        if memory.finished:
            break
        month = memory.month
        blob = memory.store.db.execute("SELECT state FROM months WHERE month = ?", [month]).fetchone()[0]
        loaded = GameState.from_dict(_unpack(blob), memory.map)
        assert structure_diff(memory.state(), loaded) == [], f"month {month} loads differently"
        memory.play_ai_seats()
        other = Game.open(tmp_path / "fresh.sqlite")
        other.play_ai_seats()
        other.close()
    mem_hashes = _hashes(tmp_path / "memory.sqlite")
    assert len(mem_hashes) > 10
    assert _hashes(tmp_path / "fresh.sqlite") == mem_hashes
    memory.close()


_MONTH_SCRIPT = textwrap.dedent("""
    import sys
    from kingdoms.game import Game
    game = Game.open(sys.argv[1])
    game.play_ai_seats()
    game.close()
""")


def test_each_month_in_a_fresh_process_matches_memory(tmp_path: Path) -> None:
    """A month resolved by another process (one server per seat, a restart) continues the same game: 13 months
    in memory, then one real fresh process per month (each with its own PYTHONHASHSEED, so no set of strings
    iterates alike), give the hashes of playing it all in memory. (With ids loaded in text order this duel
    diverged at month 17.)"""
    made = []
    for name in ("memory.sqlite", "mixed.sqlite"):
        state = build_state(resolve_scenario("duel"), 1)
        made.append(Game.create(tmp_path / name, state, scenario="duel",
                                controllers={k: "ai:standard" for k in state.kingdoms})[0])
    memory, mixed = made
    for _ in range(13):
        memory.play_ai_seats()
        mixed.play_ai_seats()
    mixed.close()
    for i in range(5):
        memory.play_ai_seats()
        env = {**os.environ, "PYTHONHASHSEED": str(1000 + i)}  # each process its own string-hash order
        proc = subprocess.run([sys.executable, "-c", _MONTH_SCRIPT, str(tmp_path / "mixed.sqlite")],
                              capture_output=True, text=True, timeout=120, env=env)
        assert proc.returncode == 0, proc.stderr
    memory.close()
    assert _hashes(tmp_path / "mixed.sqlite") == _hashes(tmp_path / "memory.sqlite")


def test_ids_iterate_in_ascending_order_however_the_state_was_built() -> None:
    """Units, cities, generals and camps come in ascending numeric id order after loading (even from a file
    whose JSON keys were sorted as text: 1, 10, 2) and after resolving a hand-built state given out of order."""
    state = tiny_state()
    for uid in (12, 3, 10):
        state.units[uid] = Unit(uid, "wei", "levy", 1, 1, men=1_000)
    state.next_id = 13
    assert list(state.units) != sorted(state.units)
    old_style = json.loads(json.dumps(state.to_dict(), sort_keys=True))  # how older versions stored a state
    assert list(old_style["units"]) == sorted(old_style["units"])  # text order: "1", "10", "12", "2", ...
    loaded = GameState.from_dict(old_style, state.map)
    assert list(loaded.units) == sorted(loaded.units) and list(loaded.cities) == sorted(loaded.cities)
    assert loaded.state_hash() == state.state_hash()
    after = resolve_month(state, {}).state
    assert list(after.units) == sorted(after.units)
    assert resolve_month(loaded, {}).state.state_hash() == after.state_hash()


def test_stored_state_keeps_key_order(tmp_game_path: Path) -> None:
    """Storage packs a state without reordering it: memory and reports dicts come back in the order saved,
    while the stored hash is still the canonical (sorted-key) one."""
    state = tiny_state()
    state.kingdoms["wei"].memory = {"reports": {"10": {"a": 1}, "2": {"b": 2}}, "explored": ""}
    game, _ = Game.create(tmp_game_path, state, scenario="tiny", controllers={"wei": "agent", "shu": "agent"})
    blob = game.store.db.execute("SELECT state, hash FROM months WHERE month = 1").fetchone()
    data = json.loads(zlib.decompress(blob[0]))
    assert list(data["kingdoms"]["wei"]["memory"]) == ["reports", "explored"]
    assert list(data["kingdoms"]["wei"]["memory"]["reports"]) == ["10", "2"]
    assert blob[1] == state.state_hash()
    game.close()
