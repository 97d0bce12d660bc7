"""Set-up: which scenario a game plays and its month-one state, built through the engine's own founding code.

Above the engine and below storage: `scenario.py` and `mapgen.py` (world model) describe a scenario and
check it; this module turns a checked one into the first `GameState` (OPEN-69, OPEN-70, OPEN-73) with the
engine's `found_city` and the seeded rotation, and resolves a CLI/server argument ('random:SEED[:N]', a name,
a path) into a scenario. `found_ruin` is the one builder of the Ruin (the set-up and the tests use it).
"""

from __future__ import annotations

from pathlib import Path

from kingdoms import ruledata as rd
from kingdoms.engine.context import rng_for
from kingdoms.engine.land import found_city, founding_problem
from kingdoms.hexgrid import Tile
from kingdoms.mapgen import generate
from kingdoms.scenario import DEFAULT_SCENARIO, Scenario, ScenarioError, load_scenario
from kingdoms.state import City, GameState, General, Improvement, Kingdom, Unit

# --- which scenario ----------------------------------------------------------------------------------


def resolve_scenario(name_or_path: str | Path | None = None) -> Scenario:
    """The scenario for a CLI/server argument: None -> the default; 'random:SEED[:N]'; a name; a path."""
    if name_or_path is None or str(name_or_path).strip() == "":
        return load_scenario(DEFAULT_SCENARIO)
    text = str(name_or_path).strip()
    if not isinstance(name_or_path, Path) and text.startswith("random:"):
        parts = text.split(":")
        try:
            seed = int(parts[1])
            n = int(parts[2]) if len(parts) > 2 else 3
        except (IndexError, ValueError):
            raise ScenarioError(text, [("", "write random:SEED or random:SEED:KINGDOMS, e.g. random:42:3")]) from None
        return random_scenario(seed, n)
    return load_scenario(name_or_path)


def random_scenario(seed: int, n_kingdoms: int = 3) -> Scenario:
    """A seeded random map for 2..6 kingdoms (see kingdoms.mapgen)."""
    return generate(seed, n_kingdoms)


# --- the starting state ------------------------------------------------------------------------------


def build_state(scenario: Scenario, seed: int) -> GameState:
    """The month-one state of a checked scenario: capitals, starting troops, the Ruin, overrides, rotation."""
    scn = scenario.check()
    gm = scn.game_map()
    month = scn.start_month
    kingdoms = {
        kd.id: Kingdom(id=kd.id, name=kd.name, ruler=kd.ruler, landing=(int(kd.landing[0]), int(kd.landing[1])),
                       city_names=list(kd.city_names), general_names=list(kd.general_names))
        for kd in scn.kingdoms
    }
    state = GameState(seed=seed, month=month, kingdoms=kingdoms, map=gm, last_month=scn.months)
    for kd in kingdoms.values():  # OPEN-69: capital, levies and their general; no scout or spy (RECRUIT-240)
        capital = _found(state, scn.source, kd.id, kd.landing, rd.CAPITAL_PEOPLE, rd.START_GRAIN, capital=True)
        capital.militia = float(rd.full_militia(capital.people, True, month))
        troop = _add_unit(state, kd.id, rd.START_TROOP_TYPE, kd.landing, rd.START_TROOP_MEN,
                          ration_months=rd.START_RATION_MONTHS, home=capital.id)
        _add_general(state, kd, kd.general_names[0], troop)
    found_ruin(state, scn.map.ruin, scn.map.ruin_name, source=scn.source)
    _apply_overrides(state, scn)
    for a, b in scn.wars:  # every pair starts at peace unless the scenario says otherwise (DIPLO-010)
        pair = sorted((a, b))
        if pair not in state.wars:
            state.wars.append(pair)
    state.wars.sort()
    ids = [kd.id for kd in scn.kingdoms]
    order = rng_for(seed, 0, "rotation").permutation(len(ids))  # OPEN-73
    state.rotation = [ids[int(i)] for i in order]
    return state


def _found(state: GameState, source: str, owner: str, tile: Tile, people: int, grain: float, *,
           name: str | None = None, capital: bool = False, founder: str | None = None) -> City:
    """Found a city through the same code as the found_city order; refuses an illegal site (naming `source`)."""
    problem = founding_problem(state, *tile)
    if problem:
        raise ScenarioError(source, [("", f"cannot found {name or owner + ' capital'}: {problem}")])
    return found_city(state, owner, tile[0], tile[1], people, grain, name=name, founder=founder, capital=capital)


def found_ruin(state: GameState, tile: Tile, name: str = rd.RUIN_NAME, *, source: str = "<set-up>") -> City:
    """The Ruin: a bandit city of 10,000 behind walls 50 with 1,500 fortified spearmen (VIC-090, VIC-100, OPEN-70).

    The one builder of the Ruin: `build_state` places it where the scenario says, tests wherever they need it.
    """
    ruin: Tile = (int(tile[0]), int(tile[1]))
    city = _found(state, source, rd.BANDITS, ruin, rd.RUIN_PEOPLE, rd.START_GRAIN, name=name)
    city.founder = None
    city.is_ruin = True
    city.update_walls_max()
    city.walls = city.walls_max
    city.militia = float(rd.full_militia(city.people, False, state.month))
    _add_unit(state, rd.BANDITS, "spearman", ruin, rd.RUIN_GARRISON, ration_months=rd.START_RATION_MONTHS,
              fortified=True, home=city.id)
    return city


def _add_unit(state: GameState, owner: str, kind: str, tile: Tile, men: int, *, ration_months: float = 0.0,
              xp: float = 0.0, morale: float = 100.0, fortified: bool = False, cargo: float = 0.0,
              home: int | None = None) -> Unit:
    """Create a unit; fighting troops carry `ration_months` of rations for their men."""
    spec = rd.UNITS[kind]
    rations = men / 1000 * ration_months if spec.fighting else 0.0
    unit = Unit(id=state.new_id(), owner=owner, type=kind, q=int(tile[0]), r=int(tile[1]), men=men, xp=xp,
                morale=morale, rations=rations, cargo=cargo, fortified=fortified, home_city=home)
    state.units[unit.id] = unit
    return unit


def _add_general(state: GameState, kd: Kingdom, name: str, troop: Unit, xp: int = 0) -> General:
    """A named general leading `troop`; the kingdom's list keeps used names first (generals_used)."""
    gen = General(id=state.new_id(), owner=kd.id, name=name, xp=xp, unit_id=troop.id)
    state.generals[gen.id] = gen
    troop.general_id = gen.id
    names = kd.general_names
    names.remove(name)
    names.insert(kd.generals_used, name)
    kd.generals_used += 1
    return gen


def _apply_overrides(state: GameState, scn: Scenario) -> None:
    """[[cities]] then [[troops]] on top of the standard start."""
    month = state.month
    for spec in scn.cities:
        tile: Tile = (int(spec.tile[0]), int(spec.tile[1]))
        city = state.city_at(*tile)
        if city is not None:  # a capital, changed in place
            if spec.name is not None:
                city.name = spec.name
            city.people = spec.people
        else:
            founder = spec.founder if spec.founder is not None else (spec.owner if spec.owner != rd.BANDITS else None)
            city = _found(state, scn.source, spec.owner, tile, spec.people, spec.grain, name=spec.name, founder=founder)
            city.founder = founder
        city.focus = spec.focus
        city.grain = float(spec.grain)
        city.happiness = float(spec.happiness)
        city.buildings = list(spec.buildings)
        city.update_walls_max()
        city.walls = float(spec.walls) if spec.walls is not None else city.walls_max
        city.improvements = [Improvement(int(i.tile[0]), int(i.tile[1]), i.kind) for i in spec.improvements]
        city.militia = float(rd.full_militia(city.people, city.is_capital, month))
    for spec_t in scn.troops:
        tile = (int(spec_t.tile[0]), int(spec_t.tile[1]))
        kind = rd.UNITS[spec_t.type]
        if kind.fighting:
            men = int(spec_t.men or 0)
        else:
            men = rd.COLONIST_PEOPLE if spec_t.type == "colonists" else 0
        cargo = spec_t.cargo if spec_t.cargo or spec_t.type != "colonists" else float(rd.COLONIST_GRAIN)
        here = state.city_at(*tile)
        home: int | None = here.id if here is not None and here.owner == spec_t.owner else None
        if home is None and spec_t.owner in state.kingdoms:
            home = state.kingdoms[spec_t.owner].capital_id
        unit = _add_unit(state, spec_t.owner, spec_t.type, tile, men, ration_months=spec_t.ration_months,
                         xp=spec_t.xp, morale=spec_t.morale, fortified=spec_t.fortified, cargo=cargo, home=home)
        if spec_t.general is not None:
            _add_general(state, state.kingdoms[spec_t.owner], spec_t.general, unit, spec_t.general_xp)
