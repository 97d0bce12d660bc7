"""The viewer's one door to a game file: each audience's Record, built month by month from observations.

A kingdom's record comes from `observe(state_M, kingdom, the events it was told in month M-1)` for every stored
month M, the events told to it, its own order results and its own notes; the spectator's from
`observe_all(state_M)` and everything stored, and only for a finished game (or, with `live`, for the /watch page
behind the spectator token, whose stored months are all over). Nothing else under kingdoms/viewer reads the
game, its states or its storage (tests/test_viewer.py checks the imports).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kingdoms import ruledata as rd
from kingdoms.viewer.chronicle import write_history
from kingdoms.viewer.frames import (
    Frame,
    MapPicture,
    Note,
    Record,
    Result,
    Side,
    Told,
    frame_of_observation,
    frame_of_spectator,
    full_map,
    known_map,
)
from kingdoms.viewer.page import write_page
from kingdoms.views.observation import events_seen_by, observe, observe_all

if TYPE_CHECKING:
    import numpy as np

    from kingdoms.game import Game
    from kingdoms.state import GameState

#: Note kinds a chronicle may quote (goals are a seat's private planning).
NOTE_KINDS = ("note", "dispatch", "final")


class SpectatorRefused(ValueError):
    """A spectator's record of a game that is still running (without the live spectator's leave)."""


def sides_of(state: GameState) -> list[Side]:
    """Every kingdom in the game's order, then the bandits."""
    return [Side(k, kd.name, kd.ruler) for k, kd in state.kingdoms.items()] + [Side(rd.BANDITS, "Bandits", "")]


def title_of(scenario: str) -> str:
    """A scenario label as a title: three_kingdoms -> Three Kingdoms; random:5:3 -> Random map 5 (3 kingdoms)."""
    if scenario.startswith("random:"):
        parts = scenario.split(":")
        return f"Random map {parts[1]}" + (f" ({parts[2]} kingdoms)" if len(parts) > 2 else "")
    return scenario.replace("_", " ").replace("-", " ").title()


class RecordBuilder:
    """Builds one audience's Record of a game and keeps its frames, so a live page adds only new months."""

    def __init__(self, game: Game, audience: str | None, *, live: bool = False) -> None:
        state = game.state()
        if audience is not None and audience not in state.kingdoms:
            raise KeyError(f"no kingdom {audience!r} in this game; kingdoms: {', '.join(state.kingdoms)}")
        if audience is None and not state.finished and not live:
            raise SpectatorRefused(f"the game is still running (month {state.month}): the spectator's view is only "
                                   "for a finished game; give a kingdom for that kingdom's view so far")
        self.game = game
        self.audience = audience
        self.live = live
        self.sides = sides_of(state)
        self._ids = [s.id for s in self.sides]
        self._frames: dict[int, Frame] = {}
        self._explored: np.ndarray | None = None

    def record(self) -> Record:
        """The record of every stored month so far."""
        game = self.game
        keys = sorted(game.store.month_hashes())
        for key in keys:
            self.add(key)
        state = game.state()
        events = self._events()
        outcome = next((e.data for e in events if e.kind == "game_end"), {})
        scenario = str(game.meta.get("scenario") or "")
        return Record(
            audience=self.audience, title=title_of(scenario), scenario=scenario, seed=game.meta.get("seed"),
            map=self._map(), sides=list(self.sides), frames=[self._frames[k] for k in keys], events=events,
            results=self._results(keys), notes=self._notes(), finished=state.finished, end_reason=state.end_reason,
            outcome=outcome, live=self.live and not state.finished,
        )

    # --- parts --------------------------------------------------------------------------------------------

    def add(self, key: int, state: GameState | None = None) -> None:
        """Make the frame of stored month `key` (from `state` when the caller has loaded it already)."""
        if key not in self._frames:
            self._frames[key] = self._frame(key, state if state is not None else self.game.state(key))

    def _frame(self, key: int, state: GameState) -> Frame:
        """One stored month's frame: the kingdom's observation, or the spectator's whole view."""
        if self.audience is None:
            return frame_of_spectator(observe_all(state, live=True, kingdom_views=False), key, self._ids)
        told = self.game.store.events(key - 1) if key > 1 else []
        obs = observe(state, self.audience, told)
        self._explored = obs.explored if self._explored is None else (self._explored | obs.explored)
        return frame_of_observation(obs, key, self._ids)

    def _map(self) -> MapPicture:
        """The map as the audience knows it: whole for the spectator, explored for a kingdom."""
        if self.audience is None:
            return full_map(self.game.map)
        assert self._explored is not None
        return known_map(self.game.map, self._explored)

    def _events(self) -> list[Told]:
        """The events told to the audience (the spectator: every one, each report once)."""
        rows = self.game.store.events()
        if self.audience is not None:
            rows = events_seen_by(rows, self.audience)
        out: list[Told] = []
        seen: set[tuple[int, str]] = set()
        for e in rows:
            key = (int(e["month"]), e["text"])
            if key in seen:  # the spectator hears both sides' copies of one report
                continue
            seen.add(key)
            to = e.get("audience")
            out.append(Told(int(e["month"]), e["kind"], e["text"], dict(e.get("data") or {}),
                            tuple(to) if to is not None else None))
        return out

    def _results(self, keys: list[int]) -> list[Result]:
        """The audience's carried-out attack orders and their results (the spectator: every kingdom's)."""
        kingdoms = [self.audience] if self.audience is not None else [s.id for s in self.sides if s.id != rd.BANDITS]
        out = []
        for month in keys[:-1] if keys else []:
            for k in kingdoms:
                for row in self.game.store.outcomes(month, k):
                    if row["ok"] and str(row["text"]).startswith("attack"):
                        out.append(Result(month, k, str(row["text"]), str(row["result"])))
        return out

    def _notes(self) -> list[Note]:
        """The audience's own notes (a kingdom), or every ruler's (the spectator): of a running game only those of
        the months that are over, never the open month's (what a ruler wrote as it ended a month still in play)."""
        rows = self.game.store.notes(self.audience) if self.audience is not None else self.game.store.notes()
        state = self.game.state()
        open_month = None if state.finished or self.audience is not None else state.month
        return [Note(int(n["month"]), n["kingdom"], n["kind"], n["text"]) for n in rows
                if n["kind"] in NOTE_KINDS and (open_month is None or int(n["month"]) < open_month)]


def build_record(game: Game, audience: str | None = None, *, live: bool = False) -> Record:
    """One audience's record of a game: a kingdom's (its observations), or the spectator's (audience None)."""
    return RecordBuilder(game, audience, live=live).record()


def build_records(game: Game, audiences: list[str | None]) -> list[Record]:
    """Several audiences' records, each stored month loaded once for all of them."""
    builders = [RecordBuilder(game, a) for a in audiences]
    for key in sorted(game.store.month_hashes()):
        state = game.state(key)
        for b in builders:
            b.add(key, state)
    return [b.record() for b in builders]


def preview_record(state: GameState, scenario: str) -> Record:
    """A scenario's month 1 seen whole (`kingdoms scenario check`): no game, no seats, nothing hidden yet."""
    sides = sides_of(state)
    frame = frame_of_spectator(observe_all(state, live=True, kingdom_views=False), state.month, [s.id for s in sides])
    return Record(audience=None, title=title_of(scenario), scenario=scenario, seed=state.seed,
                  map=full_map(state.map), sides=sides, frames=[frame], events=[], results=[], notes=[],
                  finished=False, end_reason=None)


@dataclass(slots=True)
class Written:
    """A file the viewer wrote: its path, its size in bytes, the seconds it took, and words for a chronicle."""

    path: Path
    size: int
    seconds: float
    words: int = 0


def write_view(game: Game, out: Path, kingdom: str | None = None) -> Written:
    """`kingdoms view`: the replay page of a game. Without `kingdom` the spectator's view and every kingdom's
    (a finished game only: SpectatorRefused before the end); with it that kingdom's view alone."""
    started = time.perf_counter()
    audiences: list[str | None] = [kingdom] if kingdom else [None, *game.state().kingdoms]
    records = build_records(game, audiences)
    size = write_page(records, out)
    return Written(out, size, time.perf_counter() - started)


def write_chronicle(game: Game, out: Path, kingdom: str | None = None, *, live: bool = False) -> Written:
    """A chronicle as Markdown: the spectator's (a finished game only, unless `live`) or one kingdom's."""
    started = time.perf_counter()
    history = write_history(build_record(game, kingdom, live=live))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(history.to_markdown(), encoding="utf-8")
    return Written(out, out.stat().st_size, time.perf_counter() - started, history.words())
