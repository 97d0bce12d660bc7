"""What a kingdom may know of other sides' units and cities: the engine's fog checks (INTEL-020..080, OPEN-30).

Verbs call these so an order naming an unseen unit or unknown city is refused exactly like one naming
something that does not exist (INTEL-050, COMBAT-380). `seen_now` is the one description of what a
kingdom sees of foreign things this instant; the memory phase (intel.py) and the views (kingdoms.views)
both build on it, so a briefing can never show more than the rules allow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kingdoms import ruledata as rd
from kingdoms.engine.context import OrderFailed
from kingdoms.engine.sight import Sight, sight_of
from kingdoms.hexgrid import Tile, distance, fmt_tile
from kingdoms.state import City, GameState, Unit

Json = dict[str, Any]


# --- what can be seen --------------------------------------------------------------------------------


def cities_by_tile(state: GameState) -> dict[Tile, City]:
    """The city of each city tile, the first in the state's order (as state.city_at finds it): for a caller that
    asks about many units at once (the believed board), instead of a pass over the cities per unit."""
    out: dict[Tile, City] = {}
    for city in state.cities.values():
        out.setdefault((city.q, city.r), city)
    return out


def inside_foreign_city(state: GameState, kingdom: str, unit: Unit,
                        cities_at: dict[Tile, City] | None = None) -> City | None:
    """The foreign city whose tile `unit` stands on (its garrison, OPEN-30), else None. `cities_at`: the
    state's `cities_by_tile`, when the caller has it."""
    city = state.city_at(unit.q, unit.r) if cities_at is None else cities_at.get((unit.q, unit.r))
    if city is None or city.owner == kingdom:
        return None
    return city


def can_see_unit(state: GameState, kingdom: str, unit: Unit, sight: Sight | None = None,
                 cities_at: dict[Tile, City] | None = None) -> bool:
    """True when `kingdom` sees `unit` now and may name it in an order (INTEL-050, INTEL-070, INTEL-090).

    Own units always; foreign spies never (they are invisible); troops inside a foreign city only through a
    spy beside the city or stationed in it (OPEN-30); anything else when its tile is in sight. The bandits,
    a side with no fog, see every unit but a spy: scouts included (BANDIT-060, INTEL-080).
    """
    if unit.owner == kingdom:
        return True
    if unit.type == "spy":
        return False
    if kingdom == rd.BANDITS:
        return True
    sight = sight or sight_of(state, kingdom)
    gm = state.map
    i = gm.index(unit.q, unit.r)
    if i < 0 or not sight.visible[i]:
        return False
    if inside_foreign_city(state, kingdom, unit, cities_at) is not None:
        return bool(sight.spy_eye[i])
    return True


def watches_unit(state: GameState, kingdom: str, unit: Unit, sight: Sight | None = None) -> bool:
    """True when `kingdom` knows `unit`'s numbers exactly: a preview against it is exact (INTEL-070, COMBAT-410).

    Field units: within a scout's 4 tiles, a travelling spy's 1 or a stationed spy's 2 (INTEL-150).
    A foreign city's own troops: only a spy beside the city or inside it (INTEL-070, OPEN-30).
    """
    if unit.owner == kingdom:
        return True
    if unit.type == "spy":
        return False
    sight = sight or sight_of(state, kingdom)
    i = state.map.index(unit.q, unit.r)
    if i < 0:
        return False
    if inside_foreign_city(state, kingdom, unit) is not None:
        return bool(sight.spy_eye[i])
    return bool(sight.watched[i])


def tile_in_sight(state: GameState, kingdom: str, q: int, r: int, sight: Sight | None = None) -> bool:
    """True when tile (q, r) is in the kingdom's sight now (INTEL-010)."""
    sight = sight or sight_of(state, kingdom)
    return sight.sees(state.map, q, r)


def _in_view(state: GameState, kingdom: str, city: City, spied: set[int], sight: Sight | None) -> bool:
    """Whether `kingdom` knows `city` as it stands now: its own, the Ruin (VIC-130), holding one of the kingdom's
    stationed spies (`spied`: their cities' ids) or in sight (worked out only then, when not given). A city it does
    not see may still be on its map."""
    if city.owner == kingdom or city.is_ruin or city.id in spied:
        return True
    return (sight or sight_of(state, kingdom)).sees(state.map, city.q, city.r)


def _spied(state: GameState, kingdom: str) -> set[int]:
    """Ids of the cities holding one of the kingdom's stationed spies."""
    return {s.city_id for s in state.spies if s.owner == kingdom}


def _city_memory(state: GameState, kingdom: str) -> dict[str, Any]:
    """The cities recorded on the kingdom's map (its memory), by id as text."""
    kd = state.kingdoms.get(kingdom)
    return (kd.memory.get("cities") or {}) if kd is not None else {}


def known_city_tile(state: GameState, kingdom: str, city_id: int, sight: Sight | None = None) -> Tile | None:
    """Where `kingdom` believes city `city_id` stands, or None when it does not know the city (COMBAT-380).

    Known: its own cities, the Ruin (VIC-130), a city in sight or holding one of its stationed spies, and a
    city recorded on its map (memory) — even one since burned, whose loss it learns only on seeing the tile.
    """
    city = state.cities.get(city_id)
    if city is not None and _in_view(state, kingdom, city, _spied(state, kingdom), sight):
        return city.tile
    rec = _city_memory(state, kingdom).get(str(city_id))
    if rec is not None:
        return int(rec["q"]), int(rec["r"])
    return None


def known_city_ids(state: GameState, kingdom: str, sight: Sight | None = None) -> set[int]:
    """Ids of the cities of `state` that `kingdom` knows (those `known_city_tile` places), in one pass over the
    cities and spies instead of a pass over the spies per city (the believed board asks of every city)."""
    sight = sight or sight_of(state, kingdom)
    spied, memory = _spied(state, kingdom), _city_memory(state, kingdom)
    return {cid for cid, city in state.cities.items()
            if _in_view(state, kingdom, city, spied, sight) or memory.get(str(cid)) is not None}


def knows_city(state: GameState, kingdom: str, city: City, sight: Sight | None = None) -> bool:
    """True when `kingdom` knows `city` and may name it in an order (INTEL-050, COMBAT-380)."""
    return known_city_tile(state, kingdom, city.id, sight) is not None


def has_fresh_report(state: GameState, kingdom: str, city_id: int) -> bool:
    """True when the kingdom holds a spy report on the city from this month or last (COMBAT-410, INTEL-220)."""
    kd = state.kingdoms.get(kingdom)
    rep = (kd.memory.get("reports") or {}).get(str(city_id)) if kd is not None else None
    return rep is not None and int(rep.get("month", -99)) >= state.month - 1


# --- figures the kingdom was told in fights and reports (issue-time previews, COMBAT-410) --------------------
#
# A fight's report tells the attacker exact figures: a field battle the enemy troop's men left (its type and men
# before, and its losses), a volley or an assault on a city the militia left. They are kept in the kingdom's
# memory ("told"), with the month, so a later preview can start from them rather than from a size class.


def note_told_unit(state: GameState, kingdom: str, unit: Unit, men: int) -> None:
    """Keep what a fight's report told `kingdom` of a foreign troop: its type and the `men` it said were left."""
    kd = state.kingdoms.get(kingdom)
    if kd is None or unit.owner == kingdom:
        return
    told = kd.memory.setdefault("told", {}).setdefault("units", {})
    told[str(unit.id)] = {"type": unit.type, "men": int(men), "month": int(state.month)}


def note_told_militia(state: GameState, kingdom: str, city: City, militia: int) -> None:
    """Keep what a volley's or an assault's report told `kingdom` of a foreign city's militia left."""
    kd = state.kingdoms.get(kingdom)
    if kd is None or city.owner == kingdom:
        return
    told = kd.memory.setdefault("told", {}).setdefault("cities", {})
    told[str(city.id)] = {"militia": int(militia), "month": int(state.month)}


def reported_troop(state: GameState, kingdom: str, unit: Unit) -> Json | None:
    """The latest figures `kingdom` was told of a foreign troop ({"men", "type", "month", "source"}), if they still
    fit what it sees (the same type and size class); None otherwise."""
    kd = state.kingdoms.get(kingdom)
    rec = ((kd.memory.get("told") or {}).get("units") or {}).get(str(unit.id)) if kd is not None else None
    if rec is None or rec.get("type") != unit.type or troops_class(int(rec["men"])) != troops_class(unit.men):
        return None
    return {**rec, "source": "battle report"}


def reported_city(state: GameState, kingdom: str, city: City) -> Json:
    """The latest figures `kingdom` was told of a foreign city: {"militia", "militia_month", "garrison": [...],
    "garrison_month"} from its fights' reports and its spies' reports, each with the month told (missing keys:
    never told)."""
    kd = state.kingdoms.get(kingdom)
    out: Json = {}
    if kd is None:
        return out
    rep = (kd.memory.get("reports") or {}).get(str(city.id))
    if rep is not None and rep.get("owner") == city.owner:
        out.update(militia=int(rep.get("militia") or 0), militia_month=int(rep["month"]),
                   garrison=list(rep.get("garrison") or []), garrison_month=int(rep["month"]))
    told = ((kd.memory.get("told") or {}).get("cities") or {}).get(str(city.id))
    if told is not None and int(told["month"]) >= int(out.get("militia_month", -1)):
        out.update(militia=int(told["militia"]), militia_month=int(told["month"]))
    return out


# --- refusals for verbs ------------------------------------------------------------------------------

#: At most this many candidates are named in a refusal; the briefing lists the rest (TOOLS-410).
HINT_CAP = 12


def own_units_text(state: GameState, kingdom: str, *, accept: Callable[[Unit], bool] | None = None,
                   near: Tile | None = None, what: str = "units", cap: int = HINT_CAP) -> str:
    """The kingdom's own units for a refusal ("your troops: #3 levy (4,4), ..."), only those `accept` takes.

    Nearest `near` first when given, else fighting troops before the others; then by id. Own units only, so
    the text is the same whatever unit the refused order named (INTEL-050).
    """
    units = [u for u in state.units.values() if u.owner == kingdom and (accept is None or accept(u))]
    if not units:
        return f"you have no {what}"
    units.sort(key=lambda u: (distance(near, u.tile) if near is not None else 0, not u.spec.fighting, u.id))
    shown = ", ".join(f"#{u.id} {u.type} {fmt_tile(u.tile)}" for u in units[:cap])
    more = len(units) - cap
    return f"your {what}: {shown}" + (f" and {more} more (see your briefing)" if more > 0 else "")


def require_own_unit(state: GameState, kingdom: str, unit_id: int, sight: Sight | None = None, *,
                     accept: Callable[[Unit], bool] | None = None, near: Tile | None = None,
                     what: str = "units") -> Unit:
    """The kingdom's unit `unit_id`; refuses `unknown_unit` (absent or unseen) or `not_your_unit` (INTEL-050).

    Both refusals list the kingdom's own units that would work (`accept`, nearest `near` first, called `what`);
    an unseen unit gets the very text a missing one gets.
    """
    unit = state.units.get(unit_id)
    if unit is None or not can_see_unit(state, kingdom, unit, sight):
        listing = own_units_text(state, kingdom, accept=accept, near=near, what=what)
        raise OrderFailed("unknown_unit", f"there is no unit #{unit_id} that you can see; {listing}")
    if unit.owner != kingdom:
        listing = own_units_text(state, kingdom, accept=accept, near=near or unit.tile, what=what)
        raise OrderFailed("not_your_unit", f"unit #{unit_id} (a {unit.type} at {fmt_tile(unit.tile)}) is not yours: "
                                           f"give orders to your own units; {listing}")
    return unit


def known_cities(state: GameState, kingdom: str, sight: Sight | None = None) -> list[tuple[int, str, Tile]]:
    """(id, name, tile) of every foreign city on the kingdom's map: known now or remembered (COMBAT-380)."""
    sight = sight or sight_of(state, kingdom)
    kd = state.kingdoms.get(kingdom)
    memory = (kd.memory.get("cities") or {}) if kd is not None else {}
    out: list[tuple[int, str, Tile]] = []
    for cid in sorted(set(state.cities) | {int(k) for k in memory}):
        city = state.cities.get(cid)
        if city is not None and city.owner == kingdom:
            continue
        tile = known_city_tile(state, kingdom, cid, sight)
        if tile is None:
            continue
        rec = memory.get(str(cid)) or {}
        name = city.name if city is not None else str(rec.get("name") or "a city")
        out.append((cid, name, tile))
    return out


def known_cities_text(state: GameState, kingdom: str, sight: Sight | None = None, near: Tile | None = None,
                      cap: int = HINT_CAP) -> str:
    """The cities a kingdom may name, for a refusal: foreign ones on its map (nearest `near` first), then its own."""
    foreign = known_cities(state, kingdom, sight)
    if near is not None:
        foreign.sort(key=lambda c: (distance(near, c[2]), c[0]))
    parts = [f"#{cid} {name} {fmt_tile(tile)}" for cid, name, tile in foreign[:cap]]
    more = len(foreign) - cap
    text = ("cities on your map: " + ", ".join(parts) + (f" and {more} more (see your briefing)" if more > 0 else "")
            if parts else "you know of no foreign city yet")
    own = sorted((c for c in state.cities.values() if c.owner == kingdom), key=lambda c: c.id)
    if own:
        text += "; your own: " + ", ".join(f"#{c.id} {c.name} {fmt_tile(c.tile)}" for c in own[:cap])
    return text


def require_known_city(state: GameState, kingdom: str, city_id: int, sight: Sight | None = None, *,
                       near: Tile | None = None) -> Tile:
    """The tile of a city the kingdom knows (possibly from memory); refuses `unknown_city` otherwise (INTEL-050).

    The refusal lists the cities it does know (the foreign ones nearest `near` first, then its own).
    """
    tile = known_city_tile(state, kingdom, city_id, sight)
    if tile is None:
        raise OrderFailed("unknown_city", f"there is no city #{city_id} on your map; "
                                          f"{known_cities_text(state, kingdom, sight, near)}")
    return tile


# --- descriptions of foreign things --------------------------------------------------------------------


def walls_state(city: City) -> str:
    """The visible state of a city's walls (INTEL-030): none, a palisade or stone walls, and their repair."""
    if city.walls_max <= 0 and city.walls <= 0:
        return "no walls"
    kind = "palisade" if city.walls_max <= rd.PALISADE_WALLS else "stone walls"
    if city.walls <= 0:
        return f"{kind}, breached"
    share = city.walls / max(city.walls_max, 1.0)
    if share >= rd.WALLS_INTACT_SHARE:
        return f"{kind}, intact"
    if share >= rd.WALLS_DAMAGED_SHARE:
        return f"{kind}, damaged"
    return f"{kind}, crumbling"


def shown_walls(city: City) -> int:
    """Wall durability as seen from outside: rounded to the nearest 5 (INTEL-030)."""
    return int(5 * round(city.walls / 5))


def city_troops(state: GameState, city: City) -> list[Unit]:
    """The owner's fighting troops standing in a city (its garrison and siege trains), by id."""
    return sorted((u for u in state.units.values()
                   if u.q == city.q and u.r == city.r and u.owner == city.owner and u.spec.fighting),
                  key=lambda u: u.id)


def troops_class(men: int) -> str | None:
    """Size class of a force (INTEL-020, OPEN-49), None when there is none."""
    return rd.size_class(men) if men > 0 else None


def _unit_size(unit: Unit) -> str | None:
    """Size class shown for a foreign unit: troops and colonists by men, none for wagons and scouts."""
    if unit.spec.fighting or unit.type == "colonists":
        return troops_class(unit.men)
    return None


def unit_record(unit: Unit, exact: bool, month: int) -> Json:
    """A foreign unit as a kingdom may see it: type, size class, exact men and cargo only when watched."""
    return {
        "id": unit.id,
        "owner": unit.owner,
        "type": unit.type,
        "q": unit.q,
        "r": unit.r,
        "size": _unit_size(unit),
        "men": unit.men if exact and unit.type not in ("scout", "wagon") else None,
        "cargo": round(unit.cargo, 1) if exact and unit.type in ("wagon", "colonists") else None,
        "exact": exact,
        "month": month,
    }


def city_record(city: City, inside: list[Unit], spied: bool, month: int) -> Json:
    """A foreign city as seen from outside (INTEL-030, OPEN-50): name, size tier, walls, troops size class.

    `inside` are the units standing in it (spies excluded); with a spy's eye on it (`spied`) they are listed
    exactly (INTEL-070), otherwise only the size class of its troops shows (OPEN-30).
    """
    troops = sum(u.men for u in inside if u.spec.fighting)
    return {
        "id": city.id,
        "name": city.name,
        "owner": city.owner,
        "q": city.q,
        "r": city.r,
        "size": rd.size_tier(city.people),
        "walls": shown_walls(city),
        "walls_state": walls_state(city),
        "troops": troops_class(troops),
        "ruin": city.is_ruin,
        "garrison": [unit_record(u, True, month) for u in sorted(inside, key=lambda u: u.id)] if spied else None,
        "month": month,
    }


def camp_record(camp: Any, exact: bool, month: int) -> Json:
    """A foreign camp in sight (OPEN-90): where and whose; its grain only when watched."""
    return {"id": camp.id, "owner": camp.owner, "q": camp.q, "r": camp.r,
            "grain": round(camp.grain, 1) if exact else None, "month": month}


@dataclass(slots=True)
class Seen:
    """Everything foreign a kingdom sees this instant, as plain records (ids of seen things, exact where allowed)."""

    units: list[Json] = field(default_factory=list)
    cities: list[Json] = field(default_factory=list)
    camps: list[Json] = field(default_factory=list)


def seen_now(state: GameState, kingdom: str, sight: Sight | None = None) -> Seen:
    """Foreign units, cities and camps in the kingdom's sight now (INTEL-020..090, OPEN-30, OPEN-90)."""
    sight = sight or sight_of(state, kingdom)
    gm = state.map
    month = state.month
    out = Seen()
    foreign_city: dict[Tile, City] = {c.tile: c for c in state.cities.values() if c.owner != kingdom}
    inside: dict[Tile, list[Unit]] = {}
    for unit in sorted(state.units.values(), key=lambda u: u.id):
        if unit.owner == kingdom or unit.type == "spy":
            continue  # foreign spies are invisible (INTEL-090)
        i = gm.index(unit.q, unit.r)
        if i < 0 or not sight.visible[i]:
            continue
        if unit.tile in foreign_city:
            inside.setdefault(unit.tile, []).append(unit)  # part of the city's record (OPEN-30)
            continue
        out.units.append(unit_record(unit, bool(sight.watched[i]), month))
    for city in sorted(foreign_city.values(), key=lambda c: c.id):
        i = gm.index(city.q, city.r)
        if i >= 0 and sight.visible[i]:
            out.cities.append(city_record(city, inside.get(city.tile, []), bool(sight.spy_eye[i]), month))
    for camp in sorted(state.camps.values(), key=lambda c: c.id):
        if camp.owner == kingdom:
            continue
        i = gm.index(camp.q, camp.r)
        if i >= 0 and sight.visible[i]:
            out.camps.append(camp_record(camp, bool(sight.watched[i]), month))
    return out


# --- preview estimates -----------------------------------------------------------------------------------


def estimate_range(size_class: str, unit_type: str | None, behind_walls: bool) -> tuple[int, int, str]:
    """(min men, max men, assumed type) of an unwatched target (INTEL-060, COMBAT-410, COMBAT-420, OPEN-49).

    The men span is the size class's (huge up to 20,000); the target is taken as untrained, at full morale,
    with no general. Its type is the one seen; a force inside a city shows only as "troops" (OPEN-30) and is
    taken as spearmen when `behind_walls` (any troops inside a city), as levy otherwise. COMBAT-420 chains
    use the top of the span (`max men`).
    """
    if size_class not in rd.SIZE_CLASS_RANGE:
        raise ValueError(f"unknown size class {size_class!r}; classes: {', '.join(rd.SIZE_CLASS_RANGE)}")
    lo, hi = rd.SIZE_CLASS_RANGE[size_class]
    if unit_type is None or unit_type == "troops":
        assumed = "spearman" if behind_walls else "levy"
    else:
        if unit_type not in rd.UNITS:
            raise ValueError(f"unknown unit type {unit_type!r}")
        assumed = unit_type
    return lo, hi, assumed


def militia_estimate(size_tier: str, month: int) -> tuple[int, int]:
    """(low, high) full militia of a foreign city seen only by its size tier (INTEL-030, INTEL-060, SIEGE-060, OPEN-50).

    The span of a city of that tier at full strength that is not a capital (10% of its people, at most 1,000):
    from the tier's smallest city to its largest. A capital's militia can be larger, and one worn down by
    assaults smaller; neither is seen from outside. `month` is kept for the capital rule's callers.
    """
    floors = {name: floor for floor, name in rd.SIZE_TIERS}
    if size_tier not in floors:
        raise ValueError(f"unknown size tier {size_tier!r}; tiers: {', '.join(floors)}")
    floor = floors[size_tier]
    above = [f for f in floors.values() if f > floor]
    top = min(above) - 1 if above else 10 * rd.MILITIA_CAP * 10
    return rd.full_militia(floor, False, month), rd.full_militia(top, False, month)
