"""Fog-of-war leak checking (INTEL-010..220, OPEN-30, OPEN-49, OPEN-50, OPEN-51, OPEN-90): the helpers of tests/test_leaks.py and
scripts/leak_campaign.py.

FOG IS A SECURITY BOUNDARY: nothing a seat reads may depend on what its kingdom cannot know. The method, for
every month of a played game and every kingdom K (the observer):

1. An ORACLE written from the rules, independent of kingdoms/engine/sight.py and kingdoms/views, works out what
   K may know: the tiles in its sight (INTEL-010: troops and civilians 2, scouts 4, travelling spies 1, cities
   2, own land and one tile beyond; a foreign city holding one of its spies 2, INTEL-150), the tiles it
   watches (scouts 4, travelling spies 1, stationed spies 2: INTEL-080, INTEL-090, INTEL-150), where a spy looks inside a
   city (INTEL-070, OPEN-30); hence, for every foreign unit, whether K sees nothing of it (HIDDEN), only the
   size class of the troops of the city it stands in (INSIDE), its type and size class (CLASS) or its exact
   numbers (EXACT); for every foreign city, whether K knows it and whether it sees it now.
2. Two CANARY copies of the true state, A and B, differ only in what K may not know. Every hidden number gets
   a distinctive value, different in A and B: a troop's men (within its size class, and the total of a
   city's troops within theirs), a city's people (within its size tier), grain, store, militia, happiness,
   queue, focus, walls (within what K sees of them: rounded to 5, their state), morale, XP, rations, hunger,
   cargo; every hidden name too (generals, unknown cities, the names kingdoms have not used yet). In B,
   moreover, everything K cannot see at all is gone: foreign units out of its sight, every foreign spy,
   foreign camps out of sight, generals of troops it does not watch (an estimate assumes none, INTEL-060),
   unknown cities whose land it cannot see either (with their land), the other kingdoms' memories. What K
   sees exactly gets a SHOWN canary common to A and B (a watched troop's men, the name of a city in sight),
   which must appear — so the check can fail for the right reason. A city K holds a report on from this
   month or last is left as it is: the report tells its figures (INTEL-140, COMBAT-410).
3. Everything K's tools can return is rendered on A and on B through the seat's Session (what the MCP server calls): the briefing,
   get_city for every id 1..max+1, the whole map and windows around foreign things, inspect_tile for every
   tile (or a sample), get_sites, issue_orders previews naming every id in every slot of every verb (an id
   K cannot know first, while the scratch board is untouched) and attacks, pillages and marches aimed at the
   tile of every foreign thing (each march on a fresh board), a committed batch of refusals (orders for
   everything not its own, none of which may be queued), wait_for_turn, get_history, get_game_record; and
   the AI ruler's decision for K.
4. Checks: A's and B's texts must be identical, character for character (non-interference: formatting cannot
   fool it); K's views built on A and B must be equal too (which tells a view leak from a render leak); no
   hidden canary of A shows in A's texts unless the same number shows in B's text (a coincidence), and the
   reverse; every shown canary shows; within A, an id K cannot see is answered exactly like an id that does
   not exist (texts compared with the id normalised); the oracle's sight equals the engine's.

During play the seats give their orders through a real in-memory MCP client, each with its own server and
token, so history, notes and events are checked to stay with their seat.
"""

from __future__ import annotations

import contextlib
import logging
import random
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.hexgrid import hex_lens
from kingdoms.state import City, GameState, QueueEntry, Unit

# =============================================================================================================
# The oracle: what a kingdom may know, from the rules (INTEL-010..150, OPEN-30), independent of sight.py
# =============================================================================================================

#: INTEL-010 / INTEL-080 / INTEL-090 / INTEL-150, written from the rules text, not read from ruledata.
SIGHT_TROOP, SIGHT_SCOUT, SIGHT_SPY, SIGHT_CITY, SIGHT_BORDER, SIGHT_STATIONED = 2, 4, 1, 2, 1, 2

HIDDEN, INSIDE, CLASS, EXACT = "hidden", "inside", "class", "exact"


@dataclass(slots=True)
class Knowledge:
    """What kingdom `kingdom` may know now, by the rules."""

    kingdom: str
    visible: np.ndarray  # bool per flat tile index
    watched: np.ndarray
    eye: np.ndarray
    unit_class: dict[int, str]  # foreign unit id -> HIDDEN | INSIDE | CLASS | EXACT
    known_cities: set[int]  # foreign cities it knows (own cities not included)
    cities_in_sight: set[int]
    reported: set[int]  # foreign cities with a report from this month or last (COMBAT-410, INTEL-220)

    def nameable(self) -> set[int]:
        """Foreign unit ids the kingdom may name in an order (INTEL-050)."""
        return {u for u, c in self.unit_class.items() if c in (CLASS, EXACT)}


def _disc(gm: Any, q: int, r: int, radius: int) -> np.ndarray:
    """Tiles within `radius` of (q, r), by the hex distance formula over every tile (MAP-030)."""
    dq = gm.q_of - q
    dr = gm.r_of - r
    return hex_lens(dq, dr) <= radius


def knowledge(state: GameState, kingdom: str) -> Knowledge:
    """The oracle: sight, watch and spy eye of `kingdom`, and what it may know of each foreign unit and city."""
    gm = state.map
    n = gm.size
    vis = np.zeros(n, bool)
    wat = np.zeros(n, bool)
    eye = np.zeros(n, bool)
    kd = state.kingdoms[kingdom]
    if not kd.eliminated:
        own = [c for c in state.cities.values() if c.owner == kingdom]
        own_ids = np.array([c.id for c in own], dtype=np.int64)
        land = np.isin(state.owner, own_ids) if own_ids.size else np.zeros(n, bool)
        for i in np.flatnonzero(land):
            vis |= _disc(gm, int(gm.q_of[i]), int(gm.r_of[i]), SIGHT_BORDER)
        for c in own:
            vis |= _disc(gm, c.q, c.r, SIGHT_CITY)
        for u in state.units.values():
            if u.owner != kingdom:
                continue
            if u.type == "scout":
                d = _disc(gm, u.q, u.r, SIGHT_SCOUT)
                vis |= d
                wat |= d
            elif u.type == "spy":
                d = _disc(gm, u.q, u.r, SIGHT_SPY)
                vis |= d
                wat |= d
                eye |= d
            else:
                vis |= _disc(gm, u.q, u.r, SIGHT_TROOP)
        for s in state.spies:
            city = state.cities.get(s.city_id)
            if s.owner != kingdom or city is None or city.owner == kingdom:
                continue
            d = _disc(gm, city.q, city.r, SIGHT_STATIONED)
            vis |= d
            wat |= d
            eye[gm.index(city.q, city.r)] = True
    reports = kd.memory.get("reports") or {}
    reported = {int(k) for k, rep in reports.items() if int(rep.get("month", -99)) >= state.month - 1}
    foreign_city_at = {(c.q, c.r): c for c in state.cities.values() if c.owner != kingdom}
    classes: dict[int, str] = {}
    for u in state.units.values():
        if u.owner == kingdom:
            continue
        i = gm.index(u.q, u.r)
        if u.type == "spy" or i < 0 or not vis[i]:
            classes[u.id] = HIDDEN  # INTEL-090: spies are invisible
        elif (u.q, u.r) in foreign_city_at:
            classes[u.id] = EXACT if eye[i] else INSIDE  # INTEL-070, OPEN-30
        else:
            classes[u.id] = EXACT if wat[i] else CLASS  # INTEL-020, INTEL-080
    memory = kd.memory.get("cities") or {}
    stationed = {s.city_id for s in state.spies if s.owner == kingdom}
    known: set[int] = set()
    in_sight: set[int] = set()
    for c in state.cities.values():
        if c.owner == kingdom:
            continue
        i = gm.index(c.q, c.r)
        if vis[i]:
            in_sight.add(c.id)
        if vis[i] or c.is_ruin or c.id in stationed or str(c.id) in memory:  # VIC-130, INTEL-130, MAP-190
            known.add(c.id)
    return Knowledge(kingdom, vis, wat, eye, classes, known, in_sight, reported)


def sight_mismatches(state: GameState, know: Knowledge) -> list[str]:
    """Where the engine's sight masks (engine/sight.py) differ from the oracle's."""
    from kingdoms.engine.sight import sight_of

    s = sight_of(state, know.kingdom)
    out = []
    for name, mine, theirs in (("visible", know.visible, s.visible), ("watched", know.watched, s.watched),
                               ("spy_eye", know.eye, s.spy_eye)):
        diff = np.flatnonzero(mine != theirs)
        if diff.size:
            tiles = [state.map.tile(int(i)) for i in diff[:6]]
            out.append(f"{name}: {diff.size} tiles differ, e.g. {tiles} (oracle {bool(mine[diff[0]])}, engine "
                       f"{bool(theirs[diff[0]])})")
    return out


# =============================================================================================================
# Canaries
# =============================================================================================================

FOCUSES = ("food", "balanced", "production")


@dataclass(slots=True)
class Canary:
    """A planted value: `text` forms to search for, what it stands for."""

    what: str
    value: Any
    keys: frozenset[str]  # normalised number tokens or a name


@dataclass(slots=True)
class Planted:
    """A canary copy of the state for one observer, and what was planted in it."""

    state: GameState
    hidden: list[Canary] = field(default_factory=list)  # must not show
    shown_men: dict[int, int] = field(default_factory=dict)  # exact foreign troops: unit id -> men that must show
    shown_names: dict[int, str] = field(default_factory=dict)  # foreign cities in sight: id -> name that must show
    deleted: Counter = field(default_factory=Counter)
    skipped: int = 0


def number_keys(value: float) -> frozenset[str]:
    """Normalised tokens a rendered number may take: the integer (truncated and rounded) and one decimal."""
    keys = {str(int(value)), str(int(round(value)))}
    if isinstance(value, float) and abs(value - round(value)) > 1e-9:
        keys.add(f"{value:.1f}")
        keys.add(f"{value:.2f}")
    return frozenset(keys)


_NUMBER = re.compile(r"(?<![\d.])(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?")


def number_tokens(text: str) -> set[str]:
    """Every number in a text, thousands separators removed, with its integer part as well as its decimals."""
    out: set[str] = set()
    for m in _NUMBER.finditer(text):
        tok = m.group(0).replace(",", "")
        out.add(tok)
        if "." in tok:
            whole, frac = tok.split(".", 1)
            out.add(whole)
            out.add(f"{whole}.{frac[:1]}")
            out.add(f"{whole}.{frac[:2]}")
    return out


NAME_MARK = "Qx"  # every canary name starts with it
_NAME = re.compile(NAME_MARK + r"[A-Za-z0-9]+")


def name_tokens(text: str) -> set[str]:
    return set(_NAME.findall(text))


class _Values:
    """Distinctive canary values: never round, never reused within a month's pair of copies."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[int] = set()

    def integer(self, lo: int, hi: int) -> int:
        lo = max(lo, 1001)
        for _ in range(200):
            v = self.rng.randint(lo, max(lo, hi))
            if v % 10 and v not in self.used and str(v)[-2:] != "00":
                self.used.add(v)
                return v
        return lo

    def decimal(self, lo: float, hi: float) -> float:
        """A value with two decimals whose first decimal is not 0 (so it shows as x.y), unused so far."""
        for _ in range(200):
            v = round(self.rng.uniform(lo, hi), 2)
            key = int(round(v * 100))
            if key % 100 >= 10 and key % 10 and key not in self.used:
                self.used.add(key)
                return v
        return round(lo + 0.37, 2)


def _class_range(men: int) -> tuple[int, int]:
    cls = rd.size_class(men) if men > 0 else "small"
    lo, hi = rd.SIZE_CLASS_RANGE[cls]
    if cls == "huge":
        hi = max(hi, men)
    return lo, hi


_TIERS = sorted(f for f, _ in rd.SIZE_TIERS)


def _tier_range(people: int) -> tuple[int, int]:
    lo = max(f for f in _TIERS if people >= f) if people >= 0 else 0
    higher = [f for f in _TIERS if f > lo]
    hi = (higher[0] - 1) if higher else max(people, lo) + 20_000
    return lo, hi


def _walls_like(city: City, vals: _Values) -> float | None:
    """Another wall durability that looks the same from outside (rounded to 5, same state, INTEL-030)."""
    from kingdoms.engine.visibility import shown_walls, walls_state

    shown, state_txt = shown_walls(city), walls_state(city)
    orig = city.walls
    for _ in range(40):
        cand = round(orig + vals.rng.uniform(-2.4, 2.4), 2)
        if cand < 0 or cand > city.walls_max or abs(cand - orig) < 0.05:
            continue
        city.walls = cand
        ok = shown_walls(city) == shown and walls_state(city) == state_txt
        city.walls = orig
        if ok:
            return cand
    return None


def _fighting(u: Unit) -> bool:
    return rd.UNITS[u.type].fighting


def plant(state: GameState, know: Knowledge, variant: int, seed: int, shown_seed: int) -> Planted:
    """A canary copy of `state` for observer `know.kingdom`: variant 0 is A, 1 is B (see the module docstring).

    `seed` differs between A and B (hidden canaries differ); `shown_seed` is common (shown canaries agree).
    """
    k = know.kingdom
    s = state.clone()
    out = Planted(s)
    vals = _Values(random.Random(seed))
    shown_vals = _Values(random.Random(shown_seed))
    tag = "AB"[variant]
    drop = variant == 1
    gm = s.map
    city_at = {(c.q, c.r): c for c in s.cities.values()}

    def hide(what: str, value: Any) -> None:
        if isinstance(value, str):
            out.hidden.append(Canary(what, value, frozenset([value])))
        elif value is not None and abs(float(value)) >= 1000:
            out.hidden.append(Canary(what, value, number_keys(value)))

    # --- foreign units --------------------------------------------------------------------------------------
    inside_by_city: dict[int, list[Unit]] = {}
    for uid in sorted(s.units):
        u = s.units[uid]
        if u.owner == k:
            continue
        cls = know.unit_class[uid]
        city = city_at.get((u.q, u.r))
        if cls == HIDDEN and drop:
            del s.units[uid]
            for g in list(s.generals.values()):
                if g.unit_id == uid:
                    del s.generals[g.id]
            out.deleted["units"] += 1
            continue
        if cls == EXACT:
            if _fighting(u) or u.type == "colonists":  # exact men shown (INTEL-070, INTEL-080), not for scouts, wagons
                lo, hi = _class_range(u.men)
                u.men = shown_vals.integer(lo, hi)
                out.shown_men[uid] = u.men
            continue  # morale, XP, general: an exact preview may use them (COMBAT-410)
        if cls == INSIDE and city is not None and city.id in know.reported:
            continue  # a fresh spy report: its figures are known (COMBAT-410, INTEL-140)
        if cls == INSIDE and city is not None:
            inside_by_city.setdefault(city.id, []).append(u)
        lo, hi = _class_range(u.men)
        if u.men > 0 or cls == HIDDEN:
            u.men = vals.integer(lo, hi)
            hide(f"men of #{uid} {u.owner} {u.type} ({cls})", u.men)
        u.morale = vals.decimal(40.0, 99.0)
        u.xp = vals.decimal(0.5, 60.0)
        u.hunger = vals.decimal(0.1, 0.9) if u.hunger == 0 else u.hunger
        u.rations = vals.decimal(1001.0, 4999.0)
        hide(f"rations of #{uid}", u.rations)
        if u.type in ("wagon", "colonists"):
            u.cargo = vals.decimal(1001.0, 4999.0)
            hide(f"cargo of #{uid}", u.cargo)
        if u.general_id is not None and u.general_id in s.generals:
            if drop and cls in (CLASS, INSIDE, HIDDEN):
                del s.generals[u.general_id]  # INTEL-060: an estimate assumes no general
                u.general_id = None
                out.deleted["generals"] += 1
    # The troops inside a foreign city show as one size class (OPEN-30): keep it.
    for units in inside_by_city.values():
        orig = sum(state.units[u.id].men for u in units if _fighting(state.units[u.id]))
        new = sum(u.men for u in units if _fighting(u))
        if orig > 0 and rd.size_class(orig) != rd.size_class(new):
            for u in units:
                u.men = state.units[u.id].men
            out.hidden = [c for c in out.hidden if not any(c.what.startswith(f"men of #{u.id} ") for u in units)]
            out.skipped += 1
    # --- foreign generals (INTEL-040) -----------------------------------------------------------------------
    for gid in sorted(s.generals):
        g = s.generals[gid]
        if g.owner == k:
            continue
        u = s.units.get(g.unit_id) if g.unit_id is not None else None
        if u is not None and know.unit_class.get(u.id) == EXACT:
            continue  # an exact preview may count him
        if u is not None and (u.q, u.r) in city_at and city_at[(u.q, u.r)].id in know.reported:
            continue
        g.name = f"{NAME_MARK}gen{gid}{tag}"
        g.xp = vals.integer(1001, 4999)
        hide(f"general #{gid} of {g.owner}", g.name)
    # --- foreign cities -------------------------------------------------------------------------------------
    public_names = _public_city_names(s)
    for cid in sorted(s.cities):
        c = s.cities[cid]
        if c.owner == k:
            continue
        if cid in know.cities_in_sight and not c.is_ruin and cid not in public_names:
            c.name = f"{NAME_MARK}seen{cid}"  # shown: common to A and B
            out.shown_names[cid] = c.name
        elif cid not in know.known_cities and not c.is_ruin and cid not in public_names:
            c.name = f"{NAME_MARK}city{cid}{tag}"
            hide(f"name of unknown city #{cid}", c.name)
        if cid in know.reported:
            continue  # its last report tells the lot (INTEL-140)
        lo, hi = _tier_range(c.people)
        c.people = vals.integer(lo, hi)
        hide(f"people of #{cid}", c.people)
        c.grain = vals.decimal(1001.0, 9999.0)
        hide(f"grain of #{cid}", c.grain)
        c.store = vals.decimal(1001.0, 9999.0)
        hide(f"store of #{cid}", c.store)
        c.militia = float(vals.integer(1001, 9999))
        hide(f"militia of #{cid}", c.militia)
        c.happiness = vals.decimal(41.0, 99.0)
        c.focus = FOCUSES[(FOCUSES.index(c.focus) + 1 + variant) % 3] if c.focus in FOCUSES else c.focus
        men = vals.integer(1001, 9999)
        c.queue = [QueueEntry("spearman", men=men, paid=vals.decimal(1.0, 9.0)),
                   QueueEntry(("palisade", "granary")[variant], paid=vals.decimal(1.0, 9.0))]
        hide(f"queued men of #{cid}", men)
        c.unrest_months = variant + 1 if c.restless else 0
        w = _walls_like(c, vals)
        if w is not None:
            c.walls = w
    # --- unknown cities whose land it cannot see either: gone in B (their land with them) -------------------
    if drop:
        from kingdoms.engine.victory import counts_as_capture

        capitals = {kd.capital_id for kd in s.kingdoms.values()}
        for cid in sorted(s.cities):
            c = s.cities[cid]
            if (c.owner == k or cid in know.known_cities or c.is_ruin or cid in capitals or cid in public_names
                    or counts_as_capture(c, c.owner)):
                continue
            land = s.owner == cid
            if (land & know.visible).any():
                continue  # its land in sight shows whose it is
            s.owner = np.where(land, -1, s.owner).astype(s.owner.dtype)
            del s.cities[cid]
            out.deleted["cities"] += 1
    # --- foreign camps (OPEN-90) ----------------------------------------------------------------------------
    for cid in sorted(s.camps):
        camp = s.camps[cid]
        if camp.owner == k:
            continue
        i = gm.index(camp.q, camp.r)
        if not know.visible[i] and drop:
            del s.camps[cid]
            out.deleted["camps"] += 1
            continue
        if not know.watched[i]:
            camp.grain = vals.decimal(1001.0, 4999.0)
            hide(f"grain of camp #{cid}", camp.grain)
    # --- foreign spies, other kingdoms' private knowledge and names -----------------------------------------
    if drop:
        before = len(s.spies)
        s.spies = [sp for sp in s.spies if sp.owner == k]
        out.deleted["stationed spies"] += before - len(s.spies)
    for kid, kd in s.kingdoms.items():
        if kid == k:
            continue
        if drop:
            kd.memory = {}
        kd.city_names = kd.city_names[:kd.names_used] + [f"{NAME_MARK}fut{kid}{n}{tag}" for n in range(30)]
        kd.general_names = kd.general_names[:kd.generals_used] + [f"{NAME_MARK}fgen{kid}{n}{tag}" for n in range(12)]
    return out


def _public_city_names(state: GameState) -> set[int]:
    """Cities whose names every kingdom reads: those with a military building (BUILD-060) and the Ruin (VIC-130)."""
    out = set()
    for c in state.cities.values():
        if c.is_ruin:
            out.add(c.id)
        kinds = set(c.buildings) | {imp.kind for imp in c.improvements}
        if kinds & set(rd.MILITARY_BUILDINGS):
            out.add(c.id)
    return out


# =============================================================================================================
# Rendering everything a seat's tools return
# =============================================================================================================


@dataclass(slots=True)
class Plan:
    """What to ask, the same for both canary copies."""

    ids: list[int]  # ids probed: those the kingdom cannot know first, then the ones it knows
    nx: int  # an id that exists nowhere
    home: tuple[int, int]  # a tile of the kingdom's (its capital, or anything of its own)
    near: tuple[int, int]  # a tile beside it
    troops: list[int]  # own fighting units acting in tile probes
    actor: int  # own fighting unit for target probes (or an absent id)
    spy: int  # own spy (or an absent id)
    general: int  # own general (or an absent id)
    known_city: int  # a city the kingdom knows (own or foreign), for station_spy probes
    windows: list[tuple[tuple[int, int], int]]
    tiles: list[tuple[int, int]]
    attack_tiles: list[tuple[int, int]]
    templates: list[str]  # names of the id probes sent this month
    sites: bool = True


@dataclass(slots=True)
class Depth:
    """How much to ask each month: `quick` for the normal test run, `full` for the campaign."""

    templates_per_month: int = 99  # id-probe templates a month (rotating), all of them by default
    windows: int = 10
    attack_tiles: int = 12
    tile_sample: int = 30  # random tiles besides those around foreign things
    all_tiles_every: int = 10  # inspect every tile every this many months (and in the first)
    sites_every: int = 1
    commit_every: int = 4


QUICK = Depth(templates_per_month=9, windows=4, attack_tiles=4, tile_sample=6, all_tiles_every=0, sites_every=3,
              commit_every=6)
FULL = Depth()


#: Probes naming an id in every slot an order has; {i} is the id probed. Kind: which ids must answer alike.
UNIT, CITY, GENERAL = "unit", "city", "general"


def probe_templates(p: Plan | None) -> list[tuple[str, str, str]]:
    """(name, kind, template) of the id probes (with p None: only the names and kinds are meaningful)."""
    if p is None:
        p = Plan([], 0, (0, 0), (0, 0), [], 0, 0, 0, 0, [], [], [], [])
    hq, hr = p.home
    nq, nr = p.near
    return [
        ("move", UNIT, f"move unit={{i}} to={nq},{nr}"),
        ("hold", UNIT, "hold unit={i}"),
        ("disband", UNIT, "disband unit={i}"),
        ("split", UNIT, f"split unit={{i}} men=100 to={nq},{nr}"),
        ("found", UNIT, "found_city unit={i}"),
        ("camp", UNIT, "build unit={i} what=camp"),
        ("attack_by", UNIT, f"attack unit={{i}} to={nq},{nr}"),
        ("pillage_by", UNIT, f"pillage unit={{i}} to={nq},{nr}"),
        ("follow", UNIT, f"follow unit={p.actor} target={{i}}"),
        ("merge", UNIT, f"merge unit={p.actor} target={{i}}"),
        ("assign_to", UNIT, f"assign_general general={p.general} unit={{i}}"),
        ("spy_as", UNIT, f"station_spy unit={{i}} city={p.known_city}"),
        ("assign", GENERAL, f"assign_general general={{i}} unit={p.actor}"),
        ("focus", CITY, "set_focus city={i} focus=food"),
        ("production", CITY, "set_production city={i} queue=palisade"),
        ("ship", CITY, f"ship_grain city={{i}} dan=1 to={hq},{hr}"),
        ("sabotage", CITY, "sabotage city={i} target=granary"),
        ("station", CITY, f"station_spy unit={p.spy} city={{i}}"),
    ]


_LINE = re.compile(r"^  (\d+)\. ", re.M)


def split_reply(reply: str) -> dict[int, str]:
    """An issue_orders reply cut into its per-order lines (position -> text after the position)."""
    out: dict[int, str] = {}
    marks = list(_LINE.finditer(reply))
    for n, m in enumerate(marks):
        end = marks[n + 1].start() if n + 1 < len(marks) else len(reply)
        body = reply[m.end():end]
        # A trailing summary line of the reply is not part of the order's answer.
        out[int(m.group(1))] = body.split("\n  routine, queued")[0].rstrip("\n")
    return out


_ID_SLOTS = r"(?:#|\b(?:unit|units|target|city|general)=)"


def normalise(text: str, ident: int) -> str:
    """The text with the probed id written as ID wherever it stands as an id (#12, unit=12, city=12...)."""
    return re.sub(rf"(?<![\w#])({_ID_SLOTS}){ident}(?![\d,])", r"\1ID", text)


class Renderer:
    """Renders every tool answer of one seat through a Session whose game reads an injected state."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def use(self, state: GameState) -> None:
        """Make the session's game read `state` as the open month."""
        self.session.game._cache.clear()
        self.session.game._cache[state.month] = state

    def _call(self, fn: Callable[..., Any], *args: Any, **kw: Any) -> str:
        from kingdoms.session import SessionError

        try:
            res = fn(*args, **kw)
        except SessionError as exc:
            return f"TOOL ERROR: {exc}"
        if isinstance(res, tuple):
            res = res[0]
        return str(res)

    def render_all(self, kingdom: str, plan: Plan, counts: Counts) -> tuple[dict[str, str], dict[str, dict[int, str]]]:
        """Every text the seat's tools return for `plan`: {render name: text}, and per-order probe answers."""
        d = self.session
        texts: dict[str, str] = {}
        probes: dict[str, dict[int, str]] = {}
        texts["get_briefing"] = self._call(d.get_briefing, kingdom)
        for cid in plan.ids:
            texts[f"get_city {cid}"] = self._call(d.get_city, kingdom, cid)
        counts.city_ids += len(plan.ids)
        texts["get_map"] = self._call(d.get_map, kingdom, None, None)
        texts["get_map supply"] = self._call(d.get_map, kingdom, None, None, "supply")
        for centre, radius in plan.windows:
            texts[f"get_map {centre} r{radius}"] = self._call(d.get_map, kingdom, centre, radius)
        counts.map_windows += len(plan.windows) + 1
        if plan.sites:
            texts["get_sites"] = self._call(d.get_sites, kingdom, 200)
        texts.update(self._tiles(kingdom, plan.tiles))
        counts.tiles += len(plan.tiles)
        # Orders: previews of the id probes, then tile probes, each tile on a fresh board.
        for name, _kind, tpl in probe_templates(plan):
            if name not in plan.templates:
                continue
            lines = [tpl.format(i=i) for i in plan.ids]
            reply = self._preview(kingdom, lines)
            texts[f"preview {name}"] = reply
            probes[name] = {plan.ids[pos - 1]: body for pos, body in split_reply(reply).items()
                            if 0 < pos <= len(plan.ids)}
            counts.orders += len(lines)
        for t in plan.attack_tiles:
            at = f"{t[0]},{t[1]}"
            # Previews build on each other (TURN-170): what marches goes last, and each march on its own board.
            still = [f"attack unit={u} to={at} hold" for u in plan.troops]
            still += [f"pillage unit={u} to={at}" for u in plan.troops]
            batches = {"strike": still + [f"attack unit={plan.troops[0]} to={at}"] if plan.troops else [],
                       "move": [f"move unit={plan.troops[0]} to={at}"] if plan.troops else [],
                       "spy": [f"move unit={plan.spy} to={at}", f"station_spy unit={plan.spy} city={plan.known_city}"]}
            for what, lines in batches.items():
                if lines:
                    texts[f"preview tile {what} {at}"] = self._preview(kingdom, lines)
                    counts.orders += len(lines)
        texts["wait_for_turn"] = self._call(lambda k: d.turn_status(k)[1], kingdom)
        texts["get_history"] = self._call(d.get_history, kingdom)
        texts["get_game_record"] = self._call(d.get_game_record, kingdom)
        counts.renders += len(texts)
        counts.chars += sum(len(t) for t in texts.values())
        return texts, probes

    def _preview(self, kingdom: str, lines: list[str]) -> str:
        return self._call(self.session.issue, kingdom, "\n".join(lines), note=None, goal=None, verbose=True,
                          preview=True, end_turn=False, fast_forward=0)

    def _tiles(self, kingdom: str, tiles: list[tuple[int, int]]) -> dict[str, str]:
        """inspect_tile for each tile: the Session's own method for a few, the same code through the seat's one
        Observation for the rest."""
        from kingdoms.views import render

        d = self.session
        out: dict[str, str] = {}
        obs = d.game.observation(kingdom)
        for n, (q, r) in enumerate(tiles):
            if n < 8:
                out[f"inspect_tile {q},{r}"] = self._call(d.inspect_tile, kingdom, q, r)
            else:
                out[f"inspect_tile {q},{r}"] = render.tile_text(obs, obs.tile(q, r))
        return out

    def commit_refusals(self, kingdom: str, state: GameState, ids: list[int], counts: Counts) -> tuple[str, int]:
        """Orders for every id that is not the seat's own unit or city, sent for real: each must be refused."""
        own_units = {u.id for u in state.units.values() if u.owner == kingdom}
        own_cities = {c.id for c in state.cities.values() if c.owner == kingdom}
        lines = []
        for i in ids:
            if i not in own_units:
                lines += [f"move unit={i} to=0,0", f"hold unit={i}", f"disband unit={i}"]
            if i not in own_cities:
                lines += [f"set_focus city={i} focus=food", f"set_production city={i} queue=palisade"]
        before = len(self.session.game.queued(kingdom))
        reply = self._call(self.session.issue, kingdom, "\n".join(lines), note=None, goal=None, verbose=True,
                           preview=False, end_turn=False, fast_forward=0)
        counts.committed_refusals += len(lines)
        accepted = len(self.session.game.queued(kingdom)) - before
        return reply, accepted


# =============================================================================================================
# Counting and findings
# =============================================================================================================


@dataclass(slots=True)
class Counts:
    games: int = 0
    months: int = 0
    observations: int = 0  # kingdom-months checked
    renders: int = 0  # texts rendered (both copies)
    chars: int = 0
    tiles: int = 0  # inspect_tile calls
    city_ids: int = 0  # get_city calls
    map_windows: int = 0
    orders: int = 0  # order lines previewed
    committed_refusals: int = 0
    hidden_canaries: int = 0
    canary_searches: int = 0  # hidden canaries x texts searched
    coincidences: int = 0
    shown_canaries: int = 0  # shown canaries verified present
    deleted: Counter = field(default_factory=Counter)
    unit_classes: Counter = field(default_factory=Counter)
    unseen_vs_nonexistent: int = 0  # normalised text comparisons
    text_pairs: int = 0  # A/B texts compared
    view_pairs: int = 0
    sight_tiles: int = 0
    ai_decisions: int = 0
    mcp_calls: int = 0
    foreign_texts: int = 0  # other seats' events, results, notes checked absent
    seconds: float = 0.0

    def add(self, other: Counts) -> None:
        for f in self.__slots__:
            v = getattr(other, f)
            if isinstance(v, Counter):
                getattr(self, f).update(v)
            else:
                setattr(self, f, getattr(self, f) + v)

    def lines(self) -> list[str]:
        return [
            f"games {self.games}, months {self.months}, kingdom-months observed {self.observations}",
            f"texts rendered {self.renders:,} ({self.chars:,} characters), A/B pairs compared {self.text_pairs:,}, "
            f"views compared {self.view_pairs:,}",
            f"get_city ids {self.city_ids:,}, inspect_tile {self.tiles:,}, map renders {self.map_windows:,}, "
            f"order lines previewed {self.orders:,}, refusals committed {self.committed_refusals:,}",
            f"hidden canaries planted {self.hidden_canaries:,} (searched in {self.canary_searches:,} canary-texts, "
            f"coincidences {self.coincidences}), shown canaries verified {self.shown_canaries:,}",
            f"unseen-vs-nonexistent comparisons {self.unseen_vs_nonexistent:,}; deleted in B: "
            + ", ".join(f"{k} {v:,}" for k, v in sorted(self.deleted.items())),
            "foreign units by what the observer may know: "
            + ", ".join(f"{k} {v:,}" for k, v in sorted(self.unit_classes.items())),
            f"sight tiles checked against the oracle {self.sight_tiles:,}; AI decisions compared {self.ai_decisions:,}",
            f"MCP calls {self.mcp_calls:,}; other seats' texts checked absent {self.foreign_texts:,}",
            f"time {self.seconds:.1f} s",
        ]


#: The surfaces findings are reported by: what a seat reads, what its orders answer, the seats' separation,
#: and the AI rulers' inputs.
SURFACES = ("read", "orders", "seat", "ai")


def surface_of(kind: str, render: str = "") -> str:
    """The surface of a finding of `kind` in render `render` (e.g. 'get_city 12', 'preview move')."""
    if kind in ("ai", "seat", "commit", "play"):
        return "ai" if kind == "ai" else "seat"
    if render.startswith("preview") or render.startswith("probe"):
        return "orders"
    return "read"


@dataclass(slots=True)
class Finding:
    surface: str
    kind: str  # diff, view, canary, unseen, shown, sight, error (read/orders); commit, seat, play (seat); ai
    where: str
    detail: str
    key: str = ""

    def __str__(self) -> str:
        return f"[{self.kind}] {self.where}: {self.detail}"


class Findings:
    """Findings, at most a few per (surface, kind, key), the rest counted."""

    def __init__(self, per_key: int = 2) -> None:
        self.items: list[Finding] = []
        self.counts: Counter = Counter()
        self.per_key = per_key

    def add(self, kind: str, key: str, where: str, detail: str, *, render: str = "") -> None:
        surface = surface_of(kind, render)
        self.counts[(surface, kind, key)] += 1
        if self.counts[(surface, kind, key)] <= self.per_key:
            self.items.append(Finding(surface, kind, where, detail, key))

    def of(self, *kinds: str, surface: str | None = None) -> list[Finding]:
        return [f for f in self.items if (not kinds or f.kind in kinds) and (surface is None or f.surface == surface)]

    def total(self, *kinds: str, surface: str | None = None) -> int:
        return sum(n for (s, k, _), n in self.counts.items()
                   if (not kinds or k in kinds) and (surface is None or s == surface))

    def report(self, surface: str | None = None, limit: int = 40) -> str:
        """Groups by size, then the first example of each group, then more examples up to `limit`."""
        groups = sorted(((n, s, k, key) for (s, k, key), n in self.counts.items() if surface in (None, s)),
                        reverse=True)
        out = [f"{self.total(surface=surface)} findings" + (f" on the {surface} surface" if surface else "")
               + f" in {len(groups)} groups:"]
        out += [f"  {n:>6}  [{k}] {key}" + ("" if surface else f" ({s})") for n, s, k, key in groups]
        mine = self.of(surface=surface)
        firsts = []
        for _n, s, k, key in groups:
            first = next((f for f in mine if (f.surface, f.kind, f.key) == (s, k, key)), None)
            if first is not None:
                firsts.append(first)
        rest = [f for f in mine if f not in firsts]
        items = [str(f)[:900] for f in (firsts + rest)[:max(limit, len(firsts))]]
        return "\n".join(out + (["examples (the first of each group first):"] + items if items else []))


def first_difference(a: str, b: str, width: int = 160) -> str:
    """The first differing line of two texts, both sides."""
    la, lb = a.splitlines(), b.splitlines()
    for n in range(max(len(la), len(lb))):
        x = la[n] if n < len(la) else "<none>"
        y = lb[n] if n < len(lb) else "<none>"
        if x != y:
            return f"line {n + 1}: A={x[:width]!r} B={y[:width]!r}"
    return "texts differ in whitespace only"


def first_view_difference(a: Any, b: Any, path: str = "view") -> str | None:
    """The first path where two plain-data views differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}.{key}: only in {'A' if key in a else 'B'}"
            got = first_view_difference(a[key], b[key], f"{path}.{key}")
            if got:
                return got
        return None
    if isinstance(a, list) and isinstance(b, list):
        for n, (x, y) in enumerate(zip(a, b, strict=False)):
            got = first_view_difference(x, y, f"{path}[{n}]")
            if got:
                return got
        if len(a) != len(b):
            return f"{path}: {len(a)} items in A, {len(b)} in B"
        return None
    if a != b:
        return f"{path}: A={str(a)[:120]!r} B={str(b)[:120]!r}"
    return None


def render_kind(name: str) -> str:
    """A render's kind, for grouping findings: 'get_city 17' -> 'get_city'."""
    parts = name.split(" ")
    if parts[0] == "preview" and len(parts) > 1:
        return f"preview {parts[1]}"
    return parts[0]


# =============================================================================================================
# Checking one kingdom in one month
# =============================================================================================================


def make_plan(state: GameState, kingdom: str, know: Knowledge, rng: random.Random, depth: Depth, *,
              month_index: int) -> Plan:
    """What to ask for `kingdom` this month, from the true state (the same for A and B)."""
    from kingdoms.views import build_view

    gm = state.map
    nx = state.next_id + 1
    absent = nx + 1  # stands in for an actor the kingdom does not have (never probed)
    # Previews build on each other (TURN-170): ids the kingdom cannot know go first, while the board is untouched
    # by accepted probes (a spy stationed, a troop merged away); then the other ids it knows; its own units last.
    told = view_ids(build_view(state, kingdom))
    mine = {u.id for u in state.units.values() if u.owner == kingdom}
    ids = [i for i in range(1, nx + 1) if i not in told]
    ids += sorted(i for i in told if i < nx and i not in mine) + sorted(i for i in told if i < nx and i in mine)
    own_cities = sorted((c for c in state.cities.values() if c.owner == kingdom), key=lambda c: c.id)
    own_units = sorted((u for u in state.units.values() if u.owner == kingdom), key=lambda u: u.id)
    kd = state.kingdoms[kingdom]
    cap = state.cities.get(kd.capital_id) if kd.capital_id is not None else None
    if cap is None or cap.owner != kingdom:
        cap = own_cities[0] if own_cities else None
    if cap is not None:
        home = (cap.q, cap.r)
    elif own_units:
        home = (own_units[0].q, own_units[0].r)
    else:
        home = gm.centre()
    near = next(((q, r) for q, r in gm.neighbours(*home) if gm.index(q, r) >= 0 and gm.is_land[gm.index(q, r)]),
                home)
    city_tiles = {(c.q, c.r) for c in own_cities}
    troops = [u for u in own_units if _fighting(u)]
    field = [u.id for u in troops if (u.q, u.r) not in city_tiles]
    chosen = field[:2] + [u.id for u in troops if u.id not in field][:1]
    spies = [u.id for u in own_units if u.type == "spy"]
    gens = sorted(g.id for g in state.generals.values() if g.owner == kingdom)
    known = sorted(know.known_cities) or [c.id for c in own_cities] or [absent]
    foreign_tiles: list[tuple[int, int]] = []
    for u in sorted(state.units.values(), key=lambda u: u.id):
        if u.owner != kingdom:
            foreign_tiles.append((u.q, u.r))
    for c in sorted(state.cities.values(), key=lambda c: c.id):
        if c.owner != kingdom:
            foreign_tiles.append((c.q, c.r))
    for c in sorted(state.camps.values(), key=lambda c: c.id):
        if c.owner != kingdom:
            foreign_tiles.append((c.q, c.r))
    foreign_tiles = list(dict.fromkeys(foreign_tiles))

    def some(items: list[tuple[int, int]], n: int) -> list[tuple[int, int]]:
        return list(items) if len(items) <= n else rng.sample(items, n)

    windows: list[tuple[tuple[int, int], int]] = [(home, 6), ((-3, -3), 2)]
    windows += [(t, 2) for t in some(foreign_tiles, depth.windows)]
    full = month_index == 0 or (depth.all_tiles_every and month_index % depth.all_tiles_every == 0)
    if full:
        tiles = [gm.tile(i) for i in range(gm.size)]
    else:
        around = set()
        for t in foreign_tiles:
            around.add(t)
            around.update(gm.neighbours(*t))
        rand = {gm.tile(rng.randrange(gm.size)) for _ in range(depth.tile_sample)}
        tiles = sorted(around | rand, key=lambda t: (t[1], t[0]))
    tiles.append((-4, gm.height + 3))  # off the map
    names = [name for name, _k, _t in probe_templates(None)]
    per = max(1, min(depth.templates_per_month, len(names)))
    start = (month_index * per) % len(names)
    templates = [names[(start + n) % len(names)] for n in range(per)]
    return Plan(ids=ids, nx=nx, home=home, near=near, troops=chosen, actor=chosen[0] if chosen else absent,
                spy=spies[0] if spies else absent, general=gens[0] if gens else absent, known_city=known[0],
                windows=windows, tiles=tiles, attack_tiles=some(foreign_tiles, depth.attack_tiles),
                templates=templates, sites=month_index % max(1, depth.sites_every) == 0)


def view_ids(view: Any) -> set[int]:
    """Ids the view tells its kingdom about as anything but a remembered, unseen unit."""
    ids = {u.id for u in view.units} | {c.id for c in view.cities} | {g.id for g in view.generals}
    ids |= {c.id for c in view.camps} | {c.id for c in view.foreign_cities} | {c.id for c in view.foreign_camps}
    ids |= {u.id for u in view.foreign_units if u.in_sight}
    ids |= {s.city_id for s in view.spies} | {r.city_id for r in view.reports}
    for c in view.foreign_cities:
        ids |= {g.id for g in c.garrison or ()}
    if view.ruin is not None:
        ids.add(view.ruin.city_id)
    return ids


def check_observer(renderer: Renderer, state: GameState, kingdom: str, *, rng: random.Random, depth: Depth,
                   month_index: int, counts: Counts, findings: Findings, label: str,
                   ai: Callable[[str], str] | None = None) -> None:
    """Every check of the module docstring for one kingdom in one month; `state` is the true state."""
    from kingdoms.views import build_view

    where = f"{label} M{state.month} {kingdom}"
    know = knowledge(state, kingdom)
    for problem in sight_mismatches(state, know):
        findings.add("sight", problem.split(":")[0], where, problem)
    counts.sight_tiles += state.map.size * 3
    counts.unit_classes.update(know.unit_class.values())
    plan = make_plan(state, kingdom, know, rng, depth, month_index=month_index)
    commit = bool(depth.commit_every) and month_index % depth.commit_every == 1
    seed = rng.randrange(1 << 30)
    a = plant(state, know, 0, seed, seed + 7)
    b = plant(state, know, 1, seed + 1, seed + 7)
    counts.hidden_canaries += len(a.hidden) + len(b.hidden)
    counts.deleted.update(b.deleted)
    results = []
    views = []
    for planted in (a, b):
        renderer.use(planted.state)
        views.append(build_view(planted.state, kingdom).to_dict())
        texts, probes = renderer.render_all(kingdom, plan, counts)
        if ai is not None:
            texts["ai decision"] = ai(kingdom)
            counts.ai_decisions += 1
        results.append((texts, probes))
    (ta, pa), (tb, pb) = results
    # 1. Non-interference: views and texts equal.
    counts.view_pairs += 1
    vd = first_view_difference(views[0], views[1])
    if vd:
        findings.add("view", vd.split(":")[0].split("[")[0], where, vd)
    for name in ta:
        counts.text_pairs += 1
        if ta[name] == tb.get(name):
            continue
        if name.startswith("preview"):  # one finding per differing order, grouped by verb and answer code
            la, lb = split_reply(ta[name]), split_reply(tb.get(name, ""))
            for pos in sorted(set(la) | set(lb)):
                x, y = la.get(pos, "<none>"), lb.get(pos, "<none>")
                if x != y:
                    findings.add("diff", f"{render_kind(name)}/{_verb_code(x)}", f"{where} {name} #{pos}",
                                 f"A={x[:400]!r} B={y[:400]!r}", render=name)
            continue
        kind = "ai" if name == "ai decision" else "diff"
        findings.add(kind, render_kind(name), f"{where} {name}", first_difference(ta[name], tb.get(name, "")),
                     render=name)
    # 2. Hidden canaries.
    cache: dict[str, tuple[set[str], set[str]]] = {}

    def tokens(text: str) -> tuple[set[str], set[str]]:
        got = cache.get(text)
        if got is None:
            got = cache[text] = (number_tokens(text), name_tokens(text))
        return got

    for mine, other_texts, texts in ((a, tb, ta), (b, ta, tb)):
        toks = {name: tokens(t) for name, t in texts.items()}
        other = {name: tokens(t) for name, t in other_texts.items()}
        for can in mine.hidden:
            counts.canary_searches += len(toks)
            for name, (nums, names) in toks.items():
                if can.keys & nums or can.keys & names:
                    o_nums, o_names = other.get(name, (set(), set()))
                    if can.keys & o_nums or can.keys & o_names:
                        counts.coincidences += 1
                        continue
                    kind = "ai" if name == "ai decision" else "canary"
                    findings.add(kind, f"{render_kind(name)}/{can.what.split(' of ')[0]}", f"{where} {name}",
                                 f"{can.what} = {can.value} shows: {_context(texts[name], can)}", render=name)
    # 3. Shown canaries must show.
    brief = ta["get_briefing"]
    for uid, men in a.shown_men.items():
        counts.shown_canaries += 1
        if f"#{uid} " not in brief or f"{men:,}" not in brief:
            findings.add("shown", "exact men", where, f"watched foreign unit #{uid}: {men:,} men not in the briefing")
    for cid, name in a.shown_names.items():
        counts.shown_canaries += 1
        if name not in brief:
            findings.add("shown", "city name", where, f"foreign city #{cid} in sight: its name {name} not in the "
                                                       "briefing")
    for uid in know.nameable():
        counts.shown_canaries += 1
        if f"#{uid} " not in brief:
            findings.add("shown", "unit id", where, f"foreign unit #{uid} in sight is not in the briefing")
    # 4. Unseen ids answered like ids that do not exist.
    view = build_view(a.state, kingdom)
    told = view_ids(view)
    nx = plan.nx
    unknown = [i for i in plan.ids if i not in told and i != nx]
    for name, _kind, _tpl in probe_templates(plan):
        if name not in plan.templates:
            continue
        answers = pa.get(name, {})
        ref = answers.get(nx)
        if ref is None:
            findings.add("error", f"probe {name}", where, "no answer for the nonexistent id", render="probe")
            continue
        ref_n = normalise(ref, nx)
        for i in unknown:
            got = answers.get(i)
            counts.unseen_vs_nonexistent += 1
            if got is None or normalise(got, i) != ref_n:
                why = _unseen_why(a.state, know, i)
                findings.add("unseen", f"{name}/{why.split(' of ')[0]}", f"{where} {name} id {i} ({why})",
                             f"answered {normalise(got or '', i)[:200]!r}, a nonexistent id {ref_n[:200]!r}",
                             render="probe")
    for i in unknown + [nx]:
        got = normalise(ta.get(f"get_city {i}", ""), i)
        ref = normalise(ta.get(f"get_city {nx}", ""), nx)
        counts.unseen_vs_nonexistent += 1
        if got != ref:
            why = _unseen_why(a.state, know, i)
            findings.add("unseen", f"get_city/{why.split(' of ')[0]}", f"{where} get_city {i} ({why})",
                         f"{got[:200]!r} vs {ref[:200]!r}")
    # 5. Refusals sent for real: nothing of another seat's may be queued (the true state, once).
    if commit:
        renderer.use(state)
        reply, accepted = renderer.commit_refusals(kingdom, state, plan.ids, counts)
        if accepted:
            findings.add("commit", "accepted", where, f"{accepted} orders for units or cities not its own were queued: "
                                                      f"{reply[:300]!r}")
    renderer.session.game._cache.clear()
    counts.observations += 1


def _verb_code(line: str) -> str:
    """'attack unit=5 to=3,4 → WOULD BE REFUSED [occupied]: ...' -> 'attack/occupied'."""
    verb = line.split(" ", 1)[0]
    m = re.search(r"\[([a-z_]+)\]", line)
    return f"{verb}/{m.group(1) if m else 'accepted'}"


def _unseen_why(state: GameState, know: Knowledge, i: int) -> str:
    if i in state.units:
        u = state.units[i]
        return f"{know.unit_class.get(i, 'own')} {u.type} of {u.owner}"
    if i in state.cities:
        return f"unknown city of {state.cities[i].owner}"
    if i in state.generals:
        return f"general of {state.generals[i].owner}"
    if i in state.camps:
        return f"camp of {state.camps[i].owner}"
    return "no such id"


def _context(text: str, can: Canary, width: int = 70) -> str:
    """The text around the first occurrence of a canary (by its thousands-separated or plain form)."""
    forms = []
    for key in can.keys:
        forms.append(key)
        if re.fullmatch(r"\d+(\.\d+)?", key):
            whole, _, frac = key.partition(".")
            forms.append(f"{int(whole):,}" + (f".{frac}" if frac else ""))
    for f in sorted(forms, key=len, reverse=True):
        pos = text.find(f)
        if pos >= 0:
            return repr(text[max(0, pos - width):pos + len(f) + width])
    return "(found as a number token)"


# =============================================================================================================
# Scripted rulers: an AI level plus spies and scouts, from the kingdom's own view only
# =============================================================================================================


def add_agents(state: GameState, spies: int = 3, scouts: int = 1) -> None:
    """Give every kingdom `spies` spies and `scouts` scouts at its capital (the AI rulers build few or none)."""
    for kid, kd in state.kingdoms.items():
        cap = state.cities.get(kd.capital_id) if kd.capital_id is not None else None
        if cap is None:
            continue
        for kind, n in (("spy", spies), ("scout", scouts)):
            for _ in range(n):
                uid = state.new_id()
                state.units[uid] = Unit(uid, kid, kind, cap.q, cap.r, men=0, home_city=cap.id)


def agent_orders(state_view: Any, kingdom: str, month: int, rng: random.Random, *, scouts: bool) -> list[str]:
    """Orders for the kingdom's spies (and scouts when the AI does not move them), from its view only."""
    from kingdoms.hexgrid import distance

    view = state_view
    cap = next((c for c in view.cities if c.id == view.capital_id), view.cities[0] if view.cities else None)
    if cap is None:
        return []
    foreign = sorted(view.foreign_cities, key=lambda c: (distance((c.q, c.r), (cap.q, cap.r)), c.id))
    rivals = [c for c in foreign if not c.ruin] or foreign
    orders: list[str] = []
    spies = sorted((u for u in view.units if u.type == "spy" and not u.standing), key=lambda u: u.id)
    counter = any(s.role == "counter-spy" for s in view.spies)
    for n, u in enumerate(spies):
        if not counter:
            orders.append(f"station_spy unit={u.id} city={cap.id}")  # INTEL-180: a counter-spy at home
            counter = True
        elif n % 2 == 0 and rivals:
            target = rivals[(month + n) % len(rivals)]
            orders.append(f"station_spy unit={u.id} city={target.id}")
        elif rivals:
            target = rivals[(month + n) % len(rivals)]
            if distance((u.q, u.r), (target.q, target.r)) > 1:  # INTEL-100: a travelling spy beside a city
                q, r = target.q + 1, target.r
                orders.append(f"move unit={u.id} to={q},{r}")
        elif view.ruin is not None:
            orders.append(f"station_spy unit={u.id} city={view.ruin.city_id}")
    if month % 5 == 0:
        for s in view.spies:
            if s.role == "spy":
                orders.append(f"sabotage city={s.city_id} target={'granary' if month % 10 else 'panic'}")
                break
    if scouts:
        for u in view.units:
            if u.type == "scout" and not u.standing:
                q = rng.randrange(view.width) - view.height // 2 + rng.randrange(view.height) // 2
                r = rng.randrange(view.height)
                orders.append(f"move unit={u.id} to={q},{r}")
    return orders


# =============================================================================================================
# A played game, checked month by month
# =============================================================================================================


@dataclass(slots=True)
class GameSpec:
    label: str
    scenario: str | None  # resolve_scenario argument: None = the default, "random:SEED:N"
    seed: int
    months: int
    levels: list[str]  # AI level per seat, cycled
    depth: Depth = field(default_factory=lambda: QUICK)
    war_month: int = 3  # the scripted rulers declare war on every rival this month (0: never)


async def play_and_check(spec: GameSpec, workdir: Path, *, counts: Counts, findings: Findings,
                         check_ai: bool = True, log: Callable[[str], None] | None = None) -> None:
    """Play one game with scripted rulers through in-memory MCP clients, checking every seat every month."""
    from mcp import Client

    from kingdoms.ai import LEVELS, decide_orders, level_of
    from kingdoms.game import Game
    from kingdoms.server import build_server
    from kingdoms.session import Session
    from kingdoms.setup import build_state, resolve_scenario
    from kingdoms.views import build_view

    t0 = time.perf_counter()
    logging.getLogger("mcp").setLevel(logging.ERROR)  # refusals are expected here by the thousand
    rng = random.Random(spec.seed * 7919 + 13)
    scen = resolve_scenario(spec.scenario)
    state = build_state(scen, spec.seed)
    add_agents(state)
    kingdoms = list(state.kingdoms)
    # Whatever AI levels exist; passive when a level is not (yet) there.
    levels = {k: spec.levels[n % len(spec.levels)] for n, k in enumerate(kingdoms)}
    levels = {k: lv if lv in LEVELS else "passive" for k, lv in levels.items()}
    for lv in levels.values():
        level_of(f"ai:{lv}")  # raises on an unknown level
    path = workdir / f"{spec.label}.sqlite"
    game, tokens = Game.create(path, state, scenario=scen.name or "scenario",
                               controllers={k: "agent" for k in kingdoms}, deadline_s=1e9)
    game.close()
    desk = Session(path)
    renderer = Renderer(desk)
    servers = {k: build_server(path, token=tokens[k], wait_s=0.0, poll_s=0.0) for k in kingdoms}
    secrets = {k: f"Qxsecret{k}X" for k in kingdoms}  # X ends it: no seat's secret starts another's
    received: dict[str, set[str]] = {}  # every text each seat was meant to get so far
    counts.games += 1

    def ai_for(k: str) -> str:
        d = decide_orders(desk.game.observation(k), f"ai:{levels[k]}")
        return d if isinstance(d, str) else d.orders

    def text_of(result: Any) -> tuple[bool, str]:
        return bool(result.is_error), "\n".join(getattr(c, "text", "") for c in result.content)

    clients: dict[str, Any] = {}
    stack = contextlib.AsyncExitStack()
    try:
        for k in kingdoms:
            clients[k] = await stack.enter_async_context(Client(servers[k]))
        for n in range(spec.months):
            true_state = desk.game.state()
            if true_state.finished:
                break
            m = true_state.month
            for k in kingdoms:
                check_observer(renderer, true_state, k, rng=rng, depth=spec.depth, month_index=n, counts=counts,
                               findings=findings, label=spec.label,
                               ai=ai_for if check_ai and not true_state.kingdoms[k].eliminated else None)
            desk.game._cache.clear()
            # Play: every living seat through its own MCP client, on the true state.
            told: dict[str, list[str]] = {}
            for k in kingdoms:
                st = desk.game.state()
                if st.finished or st.kingdoms[k].eliminated:
                    continue
                err, brief = text_of(await clients[k].call_tool("get_briefing", {}))
                if n > 0 and secrets[k] not in brief:  # its own goal shows (TOOLS-430): the check can fail
                    findings.add("play", "own goal", f"{spec.label} M{m} {k}", "its goal is not in its briefing")
                err2, nx_city = text_of(await clients[k].call_tool("get_city", {"city_id": st.next_id + 5}))
                hidden_city = next((c.id for c in st.cities.values() if c.owner != k and
                                    c.id not in knowledge(st, k).known_cities), None)
                counts.mcp_calls += 2
                if hidden_city is not None:
                    err3, hid = text_of(await clients[k].call_tool("get_city", {"city_id": hidden_city}))
                    counts.mcp_calls += 1
                    counts.unseen_vs_nonexistent += 1
                    if not (err2 and err3) or normalise(hid, hidden_city) != normalise(nx_city, st.next_id + 5):
                        findings.add("unseen", "mcp get_city", f"{spec.label} M{m} {k} get_city {hidden_city}",
                                     f"{hid[:200]!r} vs {nx_city[:200]!r}")
                orders = ai_for(k).splitlines()
                view = build_view(st, k)
                orders += agent_orders(view, k, m, rng, scouts=levels[k] == "passive")
                if m == spec.war_month:
                    orders += [f'declare_war to="{kd.name}"' for kd in view.kingdoms if kd.id != k and not kd.eliminated]
                args = {"orders": "\n".join(o for o in orders if o.strip()), "end_turn": True,
                        "force": True, "note": f"{secrets[k]}note{m}", "verbose": True}  # refusals end it too
                if m % 7 == 1:
                    args["goal"] = f"{secrets[k]}goal{m}: hold"
                err, reply = text_of(await clients[k].call_tool("issue_orders", args))
                counts.mcp_calls += 1
                if err:
                    findings.add("play", "issue_orders", f"{spec.label} M{m} {k}", reply[:300])
                if n % 5 == 0:
                    err, hist = text_of(await clients[k].call_tool("get_history", {}))
                    counts.mcp_calls += 1
                    told.setdefault(k, []).append(hist)
                told.setdefault(k, []).extend([brief, reply])
            # Nothing said to or by one seat reaches another (history, notes, goals, events, order results).
            after = desk.game.state()
            for k in kingdoms:
                if after.kingdoms[k].eliminated and k not in told:
                    continue
                for k2, texts in told.items():
                    if k2 == k:
                        continue
                    for t in texts:
                        counts.foreign_texts += 1
                        if secrets[k] in t:
                            findings.add("seat", "secret", f"{spec.label} M{m} {k2}",
                                         f"{k}'s note or goal reached {k2}: {_around(t, secrets[k])}")
            _check_month_texts(desk.game, m, told, counts, findings, spec.label, received)
            counts.months += 1
            if log:
                log(f"{spec.label} M{m} done ({time.perf_counter() - t0:.1f} s)")
            if desk.game.state().finished:
                break
            if desk.game.state().month == m:
                findings.add("play", "stalled", f"{spec.label} M{m}", "the month did not resolve")
                break
    finally:
        await stack.aclose()
        for s in servers.values():
            s.session.close()  # type: ignore[attr-defined]
        desk.close()
        counts.seconds += time.perf_counter() - t0


def _around(text: str, needle: str, width: int = 60) -> str:
    pos = text.find(needle)
    return repr(text[max(0, pos - width):pos + len(needle) + width])


def _check_month_texts(game: Any, month: int, told: dict[str, list[str]], counts: Counts, findings: Findings,
                       label: str, received: dict[str, set[str]]) -> None:
    """Events and order results of month `month` meant for others never show in a seat's texts.

    `received` accumulates, per seat, every text it was meant to get so far (events for it or for all, its
    own order results and verdicts): another seat's text that happens to be word for word one of those is no
    leak (a camp that ran dry, a tower volley told to both sides)."""
    events = game.store.events(month)
    seats = [row[0] for row in game.store.db.execute("SELECT DISTINCT kingdom FROM seats").fetchall()]
    for k in seats:
        got = received.setdefault(k, set())
        got |= {e["text"] for e in events if e["audience"] is None or k in e["audience"]}
        got |= {o.get("result", "") for o in game.store.outcomes(month, k)}
        got |= {o["message"] for o in game.store.all_orders(k) if int(o["month"]) == month}
    for k, texts in told.items():
        mine = received.get(k, set())
        foreign = [e["text"] for e in events if e["audience"] is not None and k not in e["audience"]]
        for other in seats:
            if other != k:
                foreign += [o.get("result", "") for o in game.store.outcomes(month, other)]
        for t in foreign:
            if len(t) < 30 or t in mine:
                continue
            counts.foreign_texts += 1
            for text in texts:
                if t in text:
                    findings.add("seat", "event", f"{label} M{month} {k}", f"a text meant for another seat: "
                                 f"{_around(text, t, 300)}")
                    break


def run_games(specs: Iterable[GameSpec], *, check_ai: bool = True, log: Callable[[str], None] | None = None,
              workdir: Path | None = None) -> tuple[Counts, Findings]:
    """Play and check every game; returns the counts and the findings."""
    import anyio

    counts = Counts()
    findings = Findings()

    async def main(where: Path) -> None:
        for spec in specs:
            await play_and_check(spec, where, counts=counts, findings=findings, check_ai=check_ai, log=log)

    if workdir is not None:
        anyio.run(main, workdir)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            anyio.run(main, Path(tmp))
    return counts, findings


__all__ = [
    "CLASS", "EXACT", "HIDDEN", "INSIDE", "Counts", "Findings", "GameSpec", "Knowledge", "Plan", "Planted",
    "Renderer", "add_agents", "check_observer", "knowledge", "make_plan", "normalise", "number_tokens", "plant",
    "play_and_check", "run_games", "sight_mismatches", "split_reply",
]
