"""Scenarios: the designers' TOML format, loading and checking it, and writing it back.

A scenario file (scenarios/NAME.toml, format documented in scenarios/README.md) holds the map as rows of
terrain letters, its bridges, landmarks and Ruin, the kingdoms with their landings and name lists, game
settings and optional starting-state overrides (extra cities, troops, wars). `load_scenario` reads and
checks a file; anything wrong raises `ScenarioError` naming the file, the field and the problem.
World model: it imports no engine code; `kingdoms.setup.build_state` turns a checked scenario into the
month-one `GameState` (OPEN-69, OPEN-70, OPEN-73).
"""

from __future__ import annotations

import heapq
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError
from pydantic_core import ErrorDetails

from kingdoms import ruledata as rd
from kingdoms.gamemap import GameMap, Landmark
from kingdoms.hexgrid import Tile, distance, fmt_tile

#: Where the shipped scenarios live: <project root>/scenarios.
SCENARIO_DIR = Path(__file__).resolve().parent.parent / "scenarios"
DEFAULT_SCENARIO = "three_kingdoms"
MIN_KINGDOMS = 2
MAX_KINGDOMS = 6
MIN_CITY_NAMES = 30  # OPEN-68
MIN_GENERAL_NAMES = 12  # OPEN-68
#: Two city sites closer than this would share or touch founding rings (CITY-320, CITY-330).
MIN_SITE_GAP = 3
LANDMARK_KINDS = ("river", "range", "lake", "sea")


class ScenarioError(ValueError):
    """A scenario that cannot be used; the message names the file, each bad field and what is wrong."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.source = source
        self.problems = problems
        if len(problems) == 1:
            where, what = problems[0]
            text = f"{source}: {where}: {what}" if where else f"{source}: {what}"
        else:
            lines = [f"  - {where}: {what}" if where else f"  - {what}" for where, what in problems]
            text = f"{source}: {len(problems)} problems:\n" + "\n".join(lines)
        super().__init__(text)


# --- the format --------------------------------------------------------------------------------------


class _Spec(BaseModel):
    """Base of every scenario table: unknown keys are refused (a typo must not pass silently)."""

    model_config = ConfigDict(extra="forbid")


class MapSpec(_Spec):
    """[map]: terrain rows (lower case = river), old bridges and the Ruin's tile and name."""

    rows: list[str] = Field(min_length=1)
    bridges: list[Tile] = Field(default_factory=list)
    ruin: Tile
    ruin_name: str = Field(default=rd.RUIN_NAME, min_length=1)


class LandmarkSpec(_Spec):
    """[[landmarks]]: a named river, mountain range, lake or sea and its tiles (MAP-140)."""

    name: str = Field(min_length=1)
    kind: Literal["river", "range", "lake", "sea"]
    tiles: list[Tile] = Field(min_length=1)


class KingdomSpec(_Spec):
    """[[kingdoms]]: one kingdom, its landing (capital site) and its name lists (OPEN-68)."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]{0,19}$")
    name: str = Field(min_length=1)
    ruler: str = Field(min_length=1)
    landing: Tile
    city_names: list[str] = Field(min_length=MIN_CITY_NAMES)
    general_names: list[str] = Field(min_length=MIN_GENERAL_NAMES)


class ImprovementSpec(_Spec):
    """An improvement already standing on a tile of a city's founding ring (BUILD-070..100)."""

    kind: Literal["farm", "granary", "workshop"]
    tile: Tile


class CitySpec(_Spec):
    """[[cities]]: an extra city at the start, or changes to a kingdom's capital when on its landing."""

    owner: str
    tile: Tile
    name: str | None = None
    founder: str | None = None
    people: int = Field(default=rd.COLONIST_PEOPLE, ge=rd.MIN_CITY_PEOPLE, le=1_000_000)
    focus: Literal["food", "balanced", "production"] = "balanced"
    grain: float = Field(default=float(rd.START_GRAIN), ge=0)
    happiness: float = Field(default=float(rd.HAPPY_START), ge=0, le=100)
    buildings: list[str] = Field(default_factory=list)
    walls: float | None = Field(default=None, ge=0)
    improvements: list[ImprovementSpec] = Field(default_factory=list)


class TroopSpec(_Spec):
    """[[troops]]: an extra unit at the start, optionally led by a named general."""

    owner: str
    type: str
    tile: Tile
    men: int | None = Field(default=None, ge=1, le=rd.MAX_TROOP_MEN)
    xp: float = Field(default=0.0, ge=0)
    morale: float = Field(default=100.0, ge=0, le=100)
    ration_months: float = Field(default=float(rd.START_RATION_MONTHS), ge=0, le=rd.MAX_RATION_MONTHS)
    fortified: bool = False
    cargo: float = Field(default=0.0, ge=0)
    general: str | None = None
    general_xp: int = Field(default=0, ge=0)


class Scenario(_Spec):
    """A whole scenario as read from TOML (or made by mapgen); check it with `check()` before use."""

    name: str = ""
    title: str = ""
    description: str = ""
    months: int = Field(default=rd.LAST_MONTH, ge=1)
    start_month: int = Field(default=1, ge=1)
    wars: list[tuple[str, str]] = Field(default_factory=list)
    map: MapSpec
    landmarks: list[LandmarkSpec] = Field(default_factory=list)
    kingdoms: list[KingdomSpec]
    cities: list[CitySpec] = Field(default_factory=list)
    troops: list[TroopSpec] = Field(default_factory=list)
    _map: GameMap | None = PrivateAttr(default=None)
    _source: str = PrivateAttr(default="<scenario>")
    _checked: bool = PrivateAttr(default=False)

    @property
    def source(self) -> str:
        """The file (or label) the scenario came from, used in error messages."""
        return self._source

    def game_map(self) -> GameMap:
        """The scenario's map, built once; raises ScenarioError when the map section is bad."""
        if self._map is None:
            gm, problems = _build_map(self)
            if gm is None:
                raise ScenarioError(self._source, problems)
            self._map = gm
        return self._map

    def check(self) -> Scenario:
        """Check every rule of the format; raises ScenarioError listing all problems found. Returns self."""
        if not self._checked:
            problems = _problems(self)
            if problems:
                raise ScenarioError(self._source, problems)
            self._checked = True
        return self

    def with_source(self, source: str) -> Scenario:
        """Set the label used in error messages (file path or 'random:SEED:N'); returns self."""
        self._source = source
        return self

    def landings(self) -> list[Tile]:
        """Every kingdom's landing, in scenario order."""
        return [tuple(k.landing) for k in self.kingdoms]  # type: ignore[misc]


# --- loading -----------------------------------------------------------------------------------------


def scenario_names() -> list[str]:
    """Names of the shipped scenarios (files in scenarios/)."""
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.toml"))


def scenario_path(name_or_path: str | Path) -> Path:
    """The file a scenario name or path stands for: NAME -> scenarios/NAME.toml; a path is taken as is."""
    text = str(name_or_path)
    if isinstance(name_or_path, Path) or "/" in text or "\\" in text or text.endswith(".toml"):
        return Path(name_or_path)
    return SCENARIO_DIR / f"{text}.toml"


def load_scenario(name_or_path: str | Path) -> Scenario:
    """Read and check a scenario by shipped name or file path; raises ScenarioError on any problem."""
    path = scenario_path(name_or_path)
    source = str(path)
    if not path.is_file():
        names = ", ".join(scenario_names()) or "none"
        raise ScenarioError(source, [("", f"no such scenario file (shipped scenarios: {names}; or give a path to a .toml file)")])
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(source, [("", f"cannot read the file: {exc}")]) from exc
    return parse_scenario(text, source=source, name=path.stem)


def parse_scenario(text: str, *, source: str = "<string>", name: str = "") -> Scenario:
    """Parse and check scenario TOML text; `name` is used when the file sets none."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(source, [("", f"not valid TOML: {exc}")]) from exc
    return scenario_from_dict(data, source=source, name=name)


def scenario_from_dict(data: dict[str, Any], *, source: str = "<dict>", name: str = "") -> Scenario:
    """Validate plain data (as read from TOML) into a checked Scenario; raises ScenarioError."""
    try:
        scn = Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(source, [(_loc(err["loc"]), _pydantic_msg(err)) for err in exc.errors()]) from None
    if not scn.name:
        scn.name = name or "scenario"
    scn.with_source(source)
    return scn.check()


def _loc(loc: Iterable[Any]) -> str:
    """Pydantic error location -> dotted path with indices, e.g. kingdoms[1].landing."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _pydantic_msg(err: ErrorDetails) -> str:
    """A plain message for one pydantic error."""
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        return "unknown key (check the spelling; see scenarios/README.md for the fields)"
    if kind == "missing":
        return "required field is missing"
    if kind == "too_short" and err["loc"] and err["loc"][-1] in ("city_names", "general_names"):
        need = MIN_CITY_NAMES if err["loc"][-1] == "city_names" else MIN_GENERAL_NAMES
        got = len(err.get("input") or [])
        return f"too few names: {got} given, at least {need} needed"
    return f"{err.get('msg', 'invalid value')} (got {err.get('input')!r})"


# --- checking ----------------------------------------------------------------------------------------


def _build_map(scn: Scenario) -> tuple[GameMap | None, list[tuple[str, str]]]:
    """Build the GameMap from [map] and [[landmarks]], or return the problems found in the rows."""
    problems: list[tuple[str, str]] = []
    rows = [row.replace(" ", "") for row in scn.map.rows]
    width = len(rows[0])
    if width == 0:
        problems.append(("map.rows[0]", "the row is empty"))
    for r, row in enumerate(rows):
        if len(row) != width:
            problems.append((f"map.rows[{r}]", f"ragged row: {len(row)} tiles where row 0 has {width}; every row needs the same width"))
        for c, ch in enumerate(row):
            t = rd.TERRAIN_BY_LETTER.get(ch.upper())
            if t is None:
                problems.append((f"map.rows[{r}], column {c}", f"unknown terrain letter {ch!r} (use G P F H M ~; lower case for a river)"))
            elif ch.islower() and t.code in (rd.M, rd.W):
                problems.append((f"map.rows[{r}], column {c}", f"a river cannot run through {t.name} ({ch!r}); rivers run through G P F H"))
        if len(problems) >= 12:
            break
    if problems:
        return None, problems
    marks = [Landmark(m.name, m.kind, tuple(tuple(t) for t in m.tiles)) for m in scn.landmarks]  # type: ignore[misc]
    gm = GameMap.from_rows(scn.map.rows, None, marks)
    for k, (q, r) in enumerate(scn.map.bridges):
        i = gm.index(q, r)
        if i < 0:
            problems.append((f"map.bridges[{k}]", f"({q},{r}) is off the map ({_extent(gm)})"))
        elif not gm.river[i]:
            problems.append((f"map.bridges[{k}]", f"({q},{r}) is not a river tile (bridges span rivers: lower-case letters)"))
    if len(set(scn.map.bridges)) != len(scn.map.bridges):
        problems.append(("map.bridges", "the same tile is listed twice"))
    if problems:
        return None, problems
    return GameMap.from_rows(scn.map.rows, [tuple(b) for b in scn.map.bridges], marks), []  # type: ignore[misc]


def _extent(gm: GameMap) -> str:
    return f"the map has rows 0..{gm.height - 1}, and row r holds q = -(r//2) .. {gm.width - 1} - r//2"


def _site_problem(gm: GameMap, tile: Tile, what: str) -> str | None:
    """Why `tile` cannot hold a city (off map, mountain, water), or None."""
    i = gm.index(*tile)
    if i < 0:
        return f"{fmt_tile(tile)} is off the map ({_extent(gm)})"
    terrain = rd.TERRAINS[int(gm.terrain[i])]
    if terrain.code in (rd.M, rd.W):
        return f"{what} {fmt_tile(tile)} is {terrain.name}: cities stand on grassland, plains, forest or hills"
    return None


def _problems(scn: Scenario) -> list[tuple[str, str]]:
    """Every problem of a scenario, as (field path, message) pairs; empty when it is usable."""
    gm, problems = _build_map(scn)
    if gm is None:
        return problems
    scn._map = gm
    p: list[tuple[str, str]] = []
    if scn.start_month > scn.months:
        p.append(("start_month", f"start_month {scn.start_month} is after the last month {scn.months}"))
    ruin = tuple(scn.map.ruin)
    bad_ruin = _site_problem(gm, ruin, "the Ruin at")  # type: ignore[arg-type]
    if bad_ruin:
        p.append(("map.ruin", bad_ruin))
    p += _landmark_problems(scn, gm)
    p += _kingdom_problems(scn, gm, ruin_ok=bad_ruin is None)
    if not p:
        p += _city_problems(scn, gm)
    if not p:
        p += _troop_problems(scn, gm)
    return p


def _landmark_problems(scn: Scenario, gm: GameMap) -> list[tuple[str, str]]:
    """Landmarks: unique names, tiles on the map and of the right kind, no tile in two landmarks."""
    p: list[tuple[str, str]] = []
    seen_names: set[str] = set()
    seen_tiles: dict[Tile, str] = {}
    for k, mark in enumerate(scn.landmarks):
        where = f"landmarks[{k}]"
        if mark.name.casefold() in seen_names:
            p.append((f"{where}.name", f"two landmarks are called {mark.name!r}"))
        seen_names.add(mark.name.casefold())
        for j, t in enumerate(mark.tiles):
            tile: Tile = (int(t[0]), int(t[1]))
            i = gm.index(*tile)
            if i < 0:
                p.append((f"{where}.tiles[{j}]", f"{fmt_tile(tile)} is off the map ({_extent(gm)})"))
                continue
            if tile in seen_tiles:
                p.append((f"{where}.tiles[{j}]", f"{fmt_tile(tile)} is already part of {seen_tiles[tile]}"))
            seen_tiles[tile] = mark.name
            letter = gm.letter(i)
            if mark.kind == "river" and not gm.river[i]:
                p.append((f"{where}.tiles[{j}]", f"{fmt_tile(tile)} ({letter!r}) is not a river tile (lower-case letter)"))
            elif mark.kind == "range" and int(gm.terrain[i]) not in (rd.M, rd.H):
                p.append((f"{where}.tiles[{j}]", f"{fmt_tile(tile)} ({letter!r}) is not mountain or hills"))
            elif mark.kind in ("lake", "sea"):
                if gm.is_land[i]:
                    p.append((f"{where}.tiles[{j}]", f"{fmt_tile(tile)} ({letter!r}) is not water"))
                else:
                    lake = gm.body_is_lake[int(gm.body[i])]
                    if lake != (mark.kind == "lake"):
                        p.append((f"{where}.tiles[{j}]", f"{fmt_tile(tile)} lies in a {'lake' if lake else 'sea'}, not a "
                                  f"{mark.kind} (a lake is at most {rd.LAKE_MAX_TILES} tiles of water away from the map "
                                  f"edge, OPEN-63)"))
    return p


def _casefold_owner(names: dict[str, str], key: str, owner: str) -> str | None:
    """Record `key` for `owner`; return the other owner when the key is taken."""
    k = key.strip().casefold()
    other = names.get(k)
    if other is not None and other != owner:
        return other
    names[k] = owner
    return None


def _kingdom_problems(scn: Scenario, gm: GameMap, *, ruin_ok: bool) -> list[tuple[str, str]]:
    """Kingdoms: count, unique ids/names/rulers and name lists, legal and well-spaced landings, wars."""
    p: list[tuple[str, str]] = []
    n = len(scn.kingdoms)
    if not MIN_KINGDOMS <= n <= MAX_KINGDOMS:
        p.append(("kingdoms", f"{n} kingdoms given; a scenario needs {MIN_KINGDOMS} to {MAX_KINGDOMS}"))
    idents: dict[str, str] = {}
    city_names: dict[str, str] = {scn.map.ruin_name.casefold(): "the Ruin"}
    general_names: dict[str, str] = {}
    ruin: Tile = (int(scn.map.ruin[0]), int(scn.map.ruin[1]))
    for k, kd in enumerate(scn.kingdoms):
        where = f"kingdoms[{k}]"
        if kd.id == rd.BANDITS:
            p.append((f"{where}.id", f"{rd.BANDITS!r} is reserved for the bandits"))
        for field, value in (("id", kd.id), ("name", kd.name), ("ruler", kd.ruler)):
            other = _casefold_owner(idents, value, where)
            if other is not None:
                p.append((f"{where}.{field}", f"{value!r} is already used by {other} (duplicate ids, names or "
                          f"rulers make declare_war ambiguous)"))
        for field, names, table in (("city_names", kd.city_names, city_names),
                                    ("general_names", kd.general_names, general_names)):
            for j, nm in enumerate(names):
                if not nm.strip():
                    p.append((f"{where}.{field}[{j}]", "empty name"))
                    continue
                if nm.casefold() in {x.casefold() for x in names[:j]}:
                    p.append((f"{where}.{field}[{j}]", f"{nm!r} appears twice in the list"))
                    continue
                other = _casefold_owner(table, nm, where)
                if other is not None:
                    who = "the Ruin's name" if other == "the Ruin" else f"on the list of {other}"
                    p.append((f"{where}.{field}[{j}]", f"{nm!r} is also {who}: names must be unique"))
        landing: Tile = (int(kd.landing[0]), int(kd.landing[1]))
        bad = _site_problem(gm, landing, "landing")
        if bad:
            p.append((f"{where}.landing", bad))
            continue
        if gm.water_class_at(*landing) == "dry":
            p.append((f"{where}.landing", f"{fmt_tile(landing)} is a dry site (no river or lake within a step, no sea "
                      f"beside it): a capital needs fresh water or the coast (MAP-160)"))
        if ruin_ok and distance(landing, ruin) < MIN_SITE_GAP:
            p.append((f"{where}.landing", f"{fmt_tile(landing)} is {distance(landing, ruin)} tiles from the Ruin at "
                      f"{fmt_tile(ruin)}: their founding rings would touch (keep cities {MIN_SITE_GAP}+ tiles apart)"))
        for j, other_kd in enumerate(scn.kingdoms[:k]):
            o: Tile = (int(other_kd.landing[0]), int(other_kd.landing[1]))
            if distance(landing, o) < MIN_SITE_GAP:
                p.append((f"{where}.landing", f"{fmt_tile(landing)} is {distance(landing, o)} tiles from kingdoms[{j}] "
                          f"({other_kd.id}) at {fmt_tile(o)}: two kingdoms too close to share founding rings "
                          f"(keep landings {MIN_SITE_GAP}+ tiles apart)"))
    ids = {kd.id for kd in scn.kingdoms}
    for k, (a, b) in enumerate(scn.wars):
        for x in (a, b):
            if x not in ids:
                p.append((f"wars[{k}]", f"unknown kingdom {x!r}; kingdoms: {', '.join(sorted(ids))}"))
        if a == b:
            p.append((f"wars[{k}]", f"a kingdom cannot be at war with itself ({a!r})"))
    if not p and ruin_ok:
        cost = march_costs(gm, ruin)
        for k, kd in enumerate(scn.kingdoms):
            if not np.isfinite(cost[gm.index(*kd.landing)]):
                p.append((f"kingdoms[{k}].landing", f"{fmt_tile((int(kd.landing[0]), int(kd.landing[1])))} cannot reach the Ruin by land: every "
                          f"landing must be reachable from every other and from the Ruin"))
    return p


def _city_sites(scn: Scenario) -> dict[Tile, str]:
    """Tiles already taken by a city site (landings and the Ruin) -> what stands there."""
    sites: dict[Tile, str] = {(int(scn.map.ruin[0]), int(scn.map.ruin[1])): "the Ruin"}
    for kd in scn.kingdoms:
        sites[(int(kd.landing[0]), int(kd.landing[1]))] = f"{kd.id}'s landing"
    return sites


def _city_problems(scn: Scenario, gm: GameMap) -> list[tuple[str, str]]:
    """Extra cities and capital changes: owner, site, spacing, name, buildings, walls, grain, improvements."""
    p: list[tuple[str, str]] = []
    kingdoms = {kd.id: kd for kd in scn.kingdoms}
    landings = {(int(kd.landing[0]), int(kd.landing[1])): kd.id for kd in scn.kingdoms}
    sites = _city_sites(scn)
    names = {scn.map.ruin_name.casefold()} | {kd.city_names[0].casefold() for kd in scn.kingdoms}
    owners = ", ".join(sorted(kingdoms)) + f" or {rd.BANDITS}"
    overridden: set[Tile] = set()
    for k, city in enumerate(scn.cities):
        where = f"cities[{k}]"
        tile: Tile = (int(city.tile[0]), int(city.tile[1]))
        if city.owner != rd.BANDITS and city.owner not in kingdoms:
            p.append((f"{where}.owner", f"unknown owner {city.owner!r}; owners: {owners}"))
            continue
        if city.founder is not None and city.founder not in kingdoms:
            p.append((f"{where}.founder", f"unknown kingdom {city.founder!r}; kingdoms: {', '.join(sorted(kingdoms))}"))
        bad = _site_problem(gm, tile, "the city at")
        if bad:
            p.append((f"{where}.tile", bad))
            continue
        capital = tile in landings
        if capital:
            if landings[tile] != city.owner:
                p.append((f"{where}.tile", f"{fmt_tile(tile)} is {landings[tile]}'s landing: a [[cities]] entry there "
                          f"changes that capital and must have owner = {landings[tile]!r}"))
                continue
            if tile in overridden:
                p.append((f"{where}.tile", f"{fmt_tile(tile)}: the capital is changed by two entries"))
            overridden.add(tile)
            if city.founder is not None:
                p.append((f"{where}.founder", "a capital is always founded by its own kingdom"))
        else:
            for other, what in sites.items():
                if other == tile:
                    p.append((f"{where}.tile", f"{fmt_tile(tile)} is {what}: pick another tile"))
                    break
                if distance(other, tile) < MIN_SITE_GAP:
                    p.append((f"{where}.tile", f"{fmt_tile(tile)} is {distance(other, tile)} tiles from {what} at "
                              f"{fmt_tile(other)}: their founding rings would touch (keep cities {MIN_SITE_GAP}+ apart)"))
                    break
            sites[tile] = f"cities[{k}]"
        if city.name is not None:
            if city.name.casefold() in names and not (capital and city.name.casefold() == kingdoms[city.owner].city_names[0].casefold()):
                p.append((f"{where}.name", f"another city is already called {city.name!r}"))
            names.add(city.name.casefold())
        elif city.owner == rd.BANDITS:
            p.append((f"{where}.name", "a bandit city needs a name (bandits have no list of city names)"))
        p += _building_problems(city, where, gm, tile)
    return p


def _building_problems(city: CitySpec, where: str, gm: GameMap, tile: Tile) -> list[tuple[str, str]]:
    """Buildings known and once each, walls on a palisade, walls within the ceiling, grain, improvements."""
    p: list[tuple[str, str]] = []
    for j, b in enumerate(city.buildings):
        if b not in rd.BUILDINGS:
            p.append((f"{where}.buildings[{j}]", f"unknown building {b!r}; buildings: {', '.join(rd.BUILDINGS)}"))
        elif b in city.buildings[:j]:
            p.append((f"{where}.buildings[{j}]", f"{b!r} is listed twice"))
    if "walls" in city.buildings and "palisade" not in city.buildings:
        p.append((f"{where}.buildings", "stone walls stand on a palisade: list 'palisade' too (BUILD-030)"))
    top = rd.walls_ceiling(city.buildings)
    if city.walls is not None and city.walls > top:
        p.append((f"{where}.walls", f"walls {city.walls:g} above the {top:g} its buildings allow (palisade 40, stone "
                  f"walls 100, none 0)"))
    ring = {gm.tile(int(j)) for j in gm.nbr[gm.index(*tile)] if j >= 0}
    kinds: list[str] = []
    used: set[Tile] = set()
    for j, imp in enumerate(city.improvements):
        t: Tile = (int(imp.tile[0]), int(imp.tile[1]))
        w = f"{where}.improvements[{j}]"
        if t not in ring:
            p.append((f"{w}.tile", f"{fmt_tile(t)} is not on the city's starting land (the 6 tiles around "
                      f"{fmt_tile(tile)}; never the centre)"))
            continue
        terrain = gm.terrain_at(*t)
        if terrain.code not in rd.IMPROVEMENT_TERRAIN[imp.kind]:
            allowed = " or ".join(rd.TERRAINS[c].name for c in rd.IMPROVEMENT_TERRAIN[imp.kind])
            p.append((f"{w}.tile", f"a {imp.kind} needs {allowed}; {fmt_tile(t)} is {terrain.name}"))
        if t in used:
            p.append((f"{w}.tile", f"{fmt_tile(t)} already has an improvement (one per tile)"))
        if imp.kind in rd.UNIQUE_IMPROVEMENTS and imp.kind in kinds:
            p.append((f"{w}.kind", f"a city has at most one {imp.kind}"))
        used.add(t)
        kinds.append(imp.kind)
    cap = rd.GRANARY_CAP_IMPROVED if "granary" in kinds else rd.GRANARY_CAP
    if city.grain > cap:
        p.append((f"{where}.grain", f"grain {city.grain:g} is more than the granary holds ({cap})"))
    return p


def _troop_problems(scn: Scenario, gm: GameMap) -> list[tuple[str, str]]:
    """Troops: owner and type, men, a tile they may stand on, one fighting troop a tile, generals."""
    p: list[tuple[str, str]] = []
    kingdoms = {kd.id: kd for kd in scn.kingdoms}
    owners = ", ".join(sorted(kingdoms)) + f" or {rd.BANDITS}"
    wars = {tuple(sorted(w)) for w in scn.wars}
    city_at: dict[Tile, str] = {(int(scn.map.ruin[0]), int(scn.map.ruin[1])): rd.BANDITS}
    for kd in scn.kingdoms:
        city_at[(int(kd.landing[0]), int(kd.landing[1]))] = kd.id
    for c in scn.cities:
        city_at[(int(c.tile[0]), int(c.tile[1]))] = c.owner
    land_of: dict[Tile, tuple[str, Tile]] = {}
    for centre, owner in city_at.items():
        land_of[centre] = (owner, centre)
        for j in gm.nbr[gm.index(*centre)]:
            if j >= 0:
                land_of[gm.tile(int(j))] = (owner, centre)
    fighting_at: dict[Tile, str] = {(int(kd.landing[0]), int(kd.landing[1])): f"{kd.id}'s starting troop"
                                    for kd in scn.kingdoms}
    fighting_at[(int(scn.map.ruin[0]), int(scn.map.ruin[1]))] = "the Ruin's garrison"
    generals: dict[str, int] = {}
    for k, tr in enumerate(scn.troops):
        where = f"troops[{k}]"
        if tr.owner != rd.BANDITS and tr.owner not in kingdoms:
            p.append((f"{where}.owner", f"unknown owner {tr.owner!r}; owners: {owners}"))
            continue
        spec = rd.UNITS.get(tr.type)
        if spec is None:
            p.append((f"{where}.type", f"unknown unit type {tr.type!r}; types: {', '.join(rd.UNITS)}"))
            continue
        if spec.fighting:
            if tr.men is None:
                p.append((f"{where}.men", f"a {tr.type} troop needs men ({spec.min_men:,} to {rd.MAX_TROOP_MEN:,})"))
            elif tr.men < spec.min_men:
                p.append((f"{where}.men", f"{tr.men:,} men is below the {spec.min_men:,} a {tr.type} troop needs"))
        elif tr.men is not None:
            p.append((f"{where}.men", f"{tr.type} carry no soldiers: leave men out"))
        if tr.owner == rd.BANDITS and spec.kind != "troop":
            p.append((f"{where}.type", "bandits field only fighting garrisons"))
        if tr.cargo and tr.type not in ("wagon", "colonists"):
            p.append((f"{where}.cargo", "only wagons and colonists carry grain"))
        if tr.type == "wagon" and tr.cargo > rd.WAGON_CAP:
            p.append((f"{where}.cargo", f"a wagon carries at most {rd.WAGON_CAP} dan"))
        tile: Tile = (int(tr.tile[0]), int(tr.tile[1]))
        i = gm.index(*tile)
        if i < 0:
            p.append((f"{where}.tile", f"{fmt_tile(tile)} is off the map ({_extent(gm)})"))
            continue
        if gm.move_cost[i] == 0:
            p.append((f"{where}.tile", f"{fmt_tile(tile)} is {gm.terrain_at(*tile).name}: impassable, no unit can stand there"))
            continue
        if gm.is_crossing(i) and tile not in city_at and tr.type != "colonists":
            p.append((f"{where}.tile", f"{fmt_tile(tile)} is an unbridged river tile: troops cannot stop there (MOVE-290)"))
        holder = city_at.get(tile)
        if holder is not None and holder != tr.owner:
            p.append((f"{where}.tile", f"{fmt_tile(tile)} is a city of {holder}: a unit can only start inside its own city"))
        if tr.owner == rd.BANDITS and holder != rd.BANDITS:
            p.append((f"{where}.tile", f"bandit troops only garrison bandit cities (BANDIT-030); {fmt_tile(tile)} is not one"))
        land = land_of.get(tile)
        if land is not None and tr.owner != rd.BANDITS and land[0] not in (tr.owner, rd.BANDITS) \
                and tuple(sorted((tr.owner, land[0]))) not in wars:
            p.append((f"{where}.tile", f"{fmt_tile(tile)} is land of {land[0]}'s city at {fmt_tile(land[1])} and "
                      f"{tr.owner} is at peace with {land[0]}: start outside it or list the pair in wars"))
        if spec.fighting:
            if tile in fighting_at:
                p.append((f"{where}.tile", f"{fmt_tile(tile)} already holds {fighting_at[tile]}: two troops cannot "
                          f"share a tile"))
            fighting_at[tile] = f"troops[{k}]"
        if tr.general is not None:
            if tr.owner == rd.BANDITS or not spec.fighting:
                p.append((f"{where}.general", "generals lead only fighting troops of a kingdom"))
                continue
            kd = kingdoms[tr.owner]
            if tr.general not in kd.general_names:
                p.append((f"{where}.general", f"{tr.general!r} is not on {kd.id}'s general_names"))
            elif tr.general == kd.general_names[0]:
                p.append((f"{where}.general", f"{tr.general!r} (first on the list) already leads {kd.id}'s starting troop"))
            elif tr.general in generals:
                p.append((f"{where}.general", f"{tr.general!r} already leads troops[{generals[tr.general]}]"))
            generals[tr.general] = k
    return p


# --- marching distance -------------------------------------------------------------------------------


def march_costs(gm: GameMap, target: Tile, *, river_cost: float = 1.0) -> np.ndarray:
    """Cheapest march cost from every tile to `target` (np.inf where unreachable).

    Entering a tile costs its terrain move (1 or 2); an unbridged river tile counts as `river_cost`
    (a crossing takes one move); mountains and water are impassable. Used for the Ruin's fairness
    (VIC-090, MAP-180) and reachability checks.
    """
    cost = gm.move_cost.astype(np.float64)
    cost[gm.river & ~gm.bridge & (gm.move_cost > 0)] = river_cost
    cost_l = cost.tolist()
    nbr = gm.nbr.tolist()
    dist = [np.inf] * gm.size
    start = gm.index(*target)
    if start < 0 or cost_l[start] == 0:
        return np.asarray(dist)
    dist[start] = 0.0
    heap = [(0.0, start)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        step = d + cost_l[u]  # a march from v into u pays u's cost
        for v in nbr[u]:
            if v >= 0 and cost_l[v] > 0 and step < dist[v]:
                dist[v] = step
                heapq.heappush(heap, (step, v))
    return np.asarray(dist)


# --- writing -----------------------------------------------------------------------------------------


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_tiles(tiles: Iterable[Tile], per_line: int = 12) -> str:
    items = [f"[{int(q)}, {int(r)}]" for q, r in tiles]
    if len(items) <= per_line:
        return "[" + ", ".join(items) + "]"
    lines = [", ".join(items[k:k + per_line]) for k in range(0, len(items), per_line)]
    return "[\n    " + ",\n    ".join(lines) + ",\n]"


def _toml_names(names: list[str], per_line: int = 8) -> str:
    lines = [", ".join(_toml_str(n) for n in names[k:k + per_line]) for k in range(0, len(names), per_line)]
    return "[\n    " + ",\n    ".join(lines) + ",\n]"


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, float):
        return f"{v:g}" if v != int(v) else f"{int(v)}.0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {v!r} as TOML")


def hex_rows(gm: GameMap) -> list[str]:
    """Map rows written for people: letters spaced, odd rows indented half a hex (spaces are ignored)."""
    return [(" " if r % 2 else "") + " ".join(row) for r, row in enumerate(gm.rows())]


def dump_scenario(scn: Scenario) -> str:
    """The scenario as TOML text in the documented layout (inverse of `parse_scenario`)."""
    out: list[str] = []
    if scn.title:
        out.append(f"title = {_toml_str(scn.title)}")
    if scn.description:
        out.append(f"description = {_toml_str(scn.description)}")
    out.append(f"months = {scn.months}")
    out.append(f"start_month = {scn.start_month}")
    if scn.wars:
        out.append(f"wars = {_toml_value([list(w) for w in scn.wars])}")
    gm = scn.game_map()
    out += ["", "[map]", "rows = ["]
    out += [f"    {_toml_str(row)}," for row in hex_rows(gm)]
    out.append("]")
    out.append(f"bridges = {_toml_tiles(scn.map.bridges)}")
    out.append(f"ruin = [{scn.map.ruin[0]}, {scn.map.ruin[1]}]")
    out.append(f"ruin_name = {_toml_str(scn.map.ruin_name)}")
    for m in scn.landmarks:
        out += ["", "[[landmarks]]", f"name = {_toml_str(m.name)}", f"kind = {_toml_str(m.kind)}",
                f"tiles = {_toml_tiles(m.tiles)}"]
    for kd in scn.kingdoms:
        out += ["", "[[kingdoms]]", f"id = {_toml_str(kd.id)}", f"name = {_toml_str(kd.name)}",
                f"ruler = {_toml_str(kd.ruler)}", f"landing = [{kd.landing[0]}, {kd.landing[1]}]",
                f"city_names = {_toml_names(kd.city_names)}", f"general_names = {_toml_names(kd.general_names)}"]
    for section, items in (("cities", scn.cities), ("troops", scn.troops)):
        for item in items:
            out += ["", f"[[{section}]]"]
            for key, value in item.model_dump(exclude_defaults=True).items():
                if key == "improvements":
                    continue
                out.append(f"{key} = {_toml_value(value)}")
            for imp in getattr(item, "improvements", []):
                out += ["", f"[[{section}.improvements]]", f"kind = {_toml_str(imp.kind)}",
                        f"tile = [{imp.tile[0]}, {imp.tile[1]}]"]
    return "\n".join(out) + "\n"
