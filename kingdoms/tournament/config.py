"""The tournament file: a TOML document naming the entrants, the maps, the rounds and the clocks.

The format is documented in tournaments/README.md. `load_config(path)` reads and checks a file; anything
wrong raises `ConfigError` naming the file, the field and what would work (an unknown AI level names the
levels that exist). Unknown keys are refused, as in scenario files: a misspelt key must not pass silently.
"""

from __future__ import annotations

import shlex
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

#: Share of a seat's months its deadline may end for it before the game is void (the issue's 10 %).
DEFAULT_VOID_SHARE = 0.10
DEFAULT_DEADLINE_S = 600.0


class ConfigError(ValueError):
    """A tournament file that cannot be used; the message names the file and each problem."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        if len(problems) == 1:
            text = f"{source}: {problems[0]}"
        else:
            text = f"{source}: {len(problems)} problems:\n" + "\n".join(f"  - {p}" for p in problems)
        super().__init__(text)


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Entrant(_Spec):
    """[[entrants]]: one contestant: an AI level, a command, the built-in model seat or an HTTP agent."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
    ai: str | None = None
    command: list[str] | None = None
    model: str | None = None
    http: bool = False
    model_args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    max_concurrent: int | None = Field(default=None, ge=1)
    anchor: float | None = None

    @field_validator("command", mode="before")
    @classmethod
    def _split_command(cls, value: Any) -> Any:
        """A command may be one string (split like a shell would) or a list of arguments."""
        if isinstance(value, str):
            return shlex.split(value)
        return value

    @model_validator(mode="after")
    def _one_kind(self) -> Entrant:
        kinds = [k for k, v in (("ai", self.ai), ("command", self.command), ("model", self.model),
                                ("http", self.http or None)) if v]
        if len(kinds) != 1:
            raise ValueError("give exactly one of ai = \"LEVEL\", command = [...], model = \"PROVIDER:MODEL\" or "
                             f"http = true (found {', '.join(kinds) or 'none'})")
        if self.command is not None and not self.command:
            raise ValueError("command is empty: give the program and its arguments")
        if self.model is not None and ":" not in self.model:
            raise ValueError(f"model {self.model!r}: write PROVIDER:MODEL, e.g. anthropic:claude-sonnet-4-5")
        if self.model_args and self.model is None:
            raise ValueError("model_args only go with model = \"PROVIDER:MODEL\"")
        return self

    @property
    def kind(self) -> Literal["ai", "command", "model", "http"]:
        if self.ai:
            return "ai"
        if self.command:
            return "command"
        if self.model:
            return "model"
        return "http"

    @property
    def controller(self) -> str:
        """The game file's controller for this entrant's seats: ai:LEVEL, or agent for everything external."""
        return f"ai:{self.ai}" if self.ai else "agent"

    @property
    def external(self) -> bool:
        return self.kind != "ai"


class ScenarioEntry(_Spec):
    """[[scenarios]]: a shipped scenario by name, or a path to a .toml file (relative to this file)."""

    name: str = Field(min_length=1)


class RandomMaps(_Spec):
    """[[random_maps]]: generated maps for `kingdoms` kingdoms: `maps` new ones each round, or fixed `seeds`."""

    kingdoms: int = Field(default=3, ge=2, le=6)
    maps: int = Field(default=1, ge=1, le=1000)
    seeds: list[int] = Field(default_factory=list)


class TournamentConfig(_Spec):
    """The whole tournament file."""

    name: str = Field(default="", pattern=r"^$|^[A-Za-z0-9][A-Za-z0-9_.-]{0,59}$")
    seed: int = 1
    rounds: int = Field(default=1, ge=1, le=10_000)
    months: int | None = Field(default=None, ge=1)
    deadline_s: float = Field(default=DEFAULT_DEADLINE_S, gt=0)
    void_share: float = Field(default=DEFAULT_VOID_SHARE, ge=0, le=1)
    seating: Literal["rotate", "permute"] = "rotate"
    fill: str | None = None
    bootstrap: int = Field(default=1000, ge=50, le=100_000)
    entrants: list[Entrant] = Field(min_length=1)
    scenarios: list[ScenarioEntry] = Field(default_factory=list)
    random_maps: list[RandomMaps] = Field(default_factory=list)
    _source: str = "<config>"
    _base: Path = Path(".")

    @property
    def source(self) -> str:
        return self._source

    @property
    def base(self) -> Path:
        """The folder relative paths in the file (scenario paths, commands' working folder) start from."""
        return self._base

    def entrant(self, name: str) -> Entrant:
        for e in self.entrants:
            if e.name == name:
                return e
        raise KeyError(name)

    def scenario_source(self, entry: ScenarioEntry) -> str:
        """What kingdoms.setup.resolve_scenario takes for this entry: a shipped name as is, a path made
        absolute (relative paths start from the tournament file's folder)."""
        text = entry.name
        if text.startswith("random:") or not ("/" in text or "\\" in text or text.endswith(".toml")):
            return text
        path = Path(text)
        return str(path if path.is_absolute() else (self._base / path).resolve())


def _problems(cfg: TournamentConfig) -> list[str]:
    """Checks beyond the field types: names unique, AI levels known, maps present and loadable."""
    from kingdoms.ai import LEVELS

    problems: list[str] = []
    names = [e.name for e in cfg.entrants]
    for dup in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"entrants: the name {dup!r} is used more than once (names must be unique)")
    levels = ", ".join(sorted(LEVELS))
    for i, e in enumerate(cfg.entrants):
        if e.ai is not None and e.ai not in LEVELS:
            problems.append(f"entrants[{i}] ({e.name}): unknown AI level {e.ai!r}; the levels that exist are: {levels}")
    if cfg.fill is not None:
        level = cfg.fill.removeprefix("ai:")
        if level not in LEVELS:
            problems.append(f"fill: unknown AI level {level!r}; the levels that exist are: {levels}")
    if not cfg.scenarios and not cfg.random_maps:
        problems.append("no maps: add [[scenarios]] name = \"three_kingdoms\" or [[random_maps]] kingdoms = 3")
    return problems


def config_from_text(text: str, *, source: str = "<string>", base: Path | None = None) -> TournamentConfig:
    """Parse and check tournament TOML text; raises ConfigError listing every problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, [f"not valid TOML: {exc}"]) from exc
    try:
        cfg = TournamentConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(source, [_message(err) for err in exc.errors()]) from None
    cfg._source = source
    cfg._base = (base or Path(".")).resolve()
    if not cfg.name:
        cfg.name = Path(source).stem if source.endswith(".toml") else "tournament"
    problems = _problems(cfg)
    if problems:
        raise ConfigError(source, problems)
    return cfg


def load_config(path: str | Path) -> TournamentConfig:
    """Read and check a tournament file; paths inside it are relative to the file's folder."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), [f"cannot read the file: {exc}"]) from exc
    return config_from_text(text, source=str(path), base=path.resolve().parent)


def _message(err: Any) -> str:
    loc = ""
    for part in err["loc"]:
        loc += f"[{part}]" if isinstance(part, int) else (f".{part}" if loc else str(part))
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        msg = "unknown key (see tournaments/README.md for the keys)"
    return f"{loc}: {msg}" if loc else msg
