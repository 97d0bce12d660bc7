"""The schedule: every game of a tournament, made fair by construction and fixed before the first game.

For each round, each map (a scenario, or a random map with a new seed each round unless its seeds are
fixed) and each group of entrants as large as the map's seat count (every combination when there are more
entrants than seats; with fewer, the `fill` AI takes the spare seats), the group is seated once per
rotation of the seats (`seating = "rotate"`: every entrant plays every seat once) or once per ordering
(`"permute"`: every seat order). The games of one group on one map in one round share their game seed, so
each seat meets the same dice whoever sits in it. Seeds come from the tournament seed alone: the same file
always gives the same schedule.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from kingdoms.tournament.config import ConfigError, TournamentConfig

FILL = "~fill"  # the seat of a filler AI (not an entrant, never rated)


def derive_seed(*parts: Any) -> int:
    """A 31-bit seed from the tournament seed and a purpose (stable across Python versions and machines)."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@dataclass(frozen=True, slots=True)
class GameTask:
    """One scheduled game: which map, which seed, who sits in which kingdom, how long it may run."""

    id: str
    index: int
    round: int
    map_label: str
    source: str  # what kingdoms.setup.resolve_scenario takes
    seed: int
    seats: dict[str, str] = field(default_factory=dict)  # kingdom id -> entrant name (or FILL)
    months: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameTask:
        return cls(**data)

    def entrants(self) -> list[str]:
        """The entrants seated in this game (fillers left out)."""
        return [e for e in self.seats.values() if e != FILL]


def _maps(cfg: TournamentConfig, round_no: int) -> list[tuple[str, str, list[str]]]:
    """(label, source, kingdom ids) of every map played in a round."""
    from kingdoms.scenario import ScenarioError
    from kingdoms.setup import resolve_scenario

    out: list[tuple[str, str, list[str]]] = []
    problems: list[str] = []
    for i, entry in enumerate(cfg.scenarios):
        source = cfg.scenario_source(entry)
        try:
            scn = resolve_scenario(source)
        except ScenarioError as exc:
            problems.append(f"scenarios[{i}]: {exc}")
            continue
        out.append((scn.name, source, [k.id for k in scn.kingdoms]))
    for i, rm in enumerate(cfg.random_maps):
        seeds = rm.seeds or [derive_seed(cfg.seed, "map", round_no, i, j) for j in range(rm.maps)]
        for map_seed in seeds:
            source = f"random:{map_seed}:{rm.kingdoms}"
            try:
                scn = resolve_scenario(source)
            except ScenarioError as exc:
                problems.append(f"random_maps[{i}]: {exc}")
                continue
            out.append((source, source, [k.id for k in scn.kingdoms]))
    if problems:
        raise ConfigError(cfg.source, problems)
    return out


def _arrangements(group: list[str], seating: str) -> list[tuple[str, ...]]:
    """Seat orders of one group: its rotations, or every distinct ordering."""
    if seating == "permute":
        seen: dict[tuple[str, ...], None] = {}
        for perm in itertools.permutations(group):
            seen.setdefault(perm, None)
        return list(seen)
    k = len(group)
    return [tuple(group[(s + r) % k] for s in range(k)) for r in range(k)]


def build_schedule(cfg: TournamentConfig) -> list[GameTask]:
    """Every game of the tournament, in the order they are started."""
    names = [e.name for e in cfg.entrants]
    tasks: list[GameTask] = []
    map_cache: dict[int, list[tuple[str, str, list[str]]]] = {}
    for round_no in range(1, cfg.rounds + 1):
        fixed = all(rm.seeds for rm in cfg.random_maps)
        maps = map_cache.setdefault(1 if fixed else round_no, _maps(cfg, round_no))
        for map_i, (label, source, kingdoms) in enumerate(maps):
            k = len(kingdoms)
            if len(names) >= k:
                groups = [list(g) for g in itertools.combinations(names, k)]
            elif cfg.fill is None:
                raise ConfigError(cfg.source, [
                    f"{label} has {k} seats but there are only {len(names)} entrants: add entrants, or set "
                    "fill = \"ai:standard\" (or another level) to seat an unrated AI in the spare seats"])
            else:
                groups = [names + [FILL] * (k - len(names))]
            for group_i, group in enumerate(groups):
                seed = derive_seed(cfg.seed, "game", round_no, map_i, group_i)
                for arrangement in _arrangements(group, cfg.seating):
                    index = len(tasks) + 1
                    tasks.append(GameTask(id=f"g{index:04d}", index=index, round=round_no, map_label=label,
                                          source=source, seed=seed, seats=dict(zip(kingdoms, arrangement, strict=True)),
                                          months=cfg.months))
    return tasks


def schedule_digest(tasks: list[GameTask]) -> str:
    """A fingerprint of the schedule: a folder is resumed only by the tournament that made it."""
    data = json.dumps([t.to_dict() for t in tasks], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(data.encode()).hexdigest()[:16]
