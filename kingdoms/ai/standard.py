"""The standard AI: a ruler that expands, arms, takes the Ruin and goes to war for captures.

Everything is decided afresh each month from the kingdom's own picture (kingdoms.ai.common.Picture, built from
its Observation): no memory between months, so the same observation always gives the same orders. A game's
`Temperament` (margins, growth appetite, city count, war budget) is drawn from the public game seed and the
kingdom, for variety between games. The month, in order:

1. **Aim.** The target is the Ruin while anyone else holds it (worth more when a rival holds it), else, when
   not strictly ahead on captures, the cheapest known rival city (a capital counting extra). Its cost is the
   march plus the army it needs, worked out from what is seen: walls, the garrison's size class, militia.
   Stone walls (over 60) need catapult engines (10 walls each a month); a palisade or the Ruin's 50 are
   battered down by the assaults (5 per 1,000 men). A target production could not keep an army for is left
   alone; a target the army is already marching on or standing by is kept.
2. **Army.** Garrisons (a capital relies on its militia early; conquests, the Ruin and threatened cities get
   more) hold fortified. Recruits follow the upkeep budget (a share of output): siege engines, then a melee
   core (heavy infantry once there is a forge, else spearmen, else levies) with a spearman escort, archers
   and a few cavalry against rival kingdoms. The field army (troops outside cities, and every siege train)
   musters on the land of the rally city, merges small troops, leaves fed and strong, marches as a convoy
   with its siege trains to a staging tile three hops from the target, declares war on a rival when it
   sets out, then shoots (engines first) and assaults every month; the attacks stop where the month's fight
   would already have taken the city. It strikes enemy troops on or beside its land when it clearly
   outfights them, and reinforces conquests and threatened cities. Off its land it is supplied: a camp
   beside the staging tile and wagons of grain (ship_grain) to the camp or the convoy. Waiting generals take
   the biggest troop.
3. **Cities.** A focus by worth (production now against people gained, never starving the city); queues
   refilled in order of need: recruits, scout, palisade, barracks, workshop, granary, farms on worked tiles,
   walls, forge, stable; colonists from a productive city of 12,500+ people (it keeps 6,500+) when a good
   site is known, the first one a forward base toward the Ruin.
4. **Scouts** explore (the tile in sight opening most unknown ground), then watch the target; colonists
   march by tiles in sight to the chosen site and found the city.
5. A chronicle note: what it does and why, naming cities and generals.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field

import numpy as np

from kingdoms import ruledata as rd
from kingdoms.ai.common import (
    INF,
    Decision,
    Picture,
    available_verbs,
    distance_field,
    entry_item,
    picture_for,
    ration_months,
    size_men,
    spec_key,
)
from kingdoms.ai.passive import keep_head
from kingdoms.engine.pathing import slot_of_type
from kingdoms.engine.sight import neighbourhood
from kingdoms.frozen import record
from kingdoms.gamemap import WATER_CLASSES
from kingdoms.orders.models import (
    AssignGeneral,
    Attack,
    Build,
    DeclareWar,
    FoundCity,
    Hold,
    Merge,
    Move,
    OrderModel,
    QueueItem,
    SetFocus,
    SetProduction,
    ShipGrain,
    Split,
)
from kingdoms.views.kingdom_view import OwnCity, OwnUnit, SeenCity
from kingdoms.views.observation import Observation

QUEUE_AHEAD = 3
#: Share of the kingdom's output its army's upkeep may take: at peace, and while a siege is planned or on.
UPKEEP_SHARE_PEACE = 0.45
#: Engines beyond what the walls need.
SPARE_ENGINES = 1
#: Effective melee strength per man of each type against a city's (usually spearman) defenders.
MELEE_WORTH = {"levy": 0.85, "spearman": 1.0, "heavy_infantry": 1.6, "cavalry": 1.0, "archer": 0.5}
STAGING_DISTANCE = 3
#: A site's worth: the people its land feeds (thousands), its production at full land, its water's growth.
SITE_FEEDS = 0.6
SITE_PROD = 2.0
SITE_WATER = 5.0
SITE_MIN_SCORE = 9.0
#: Growth by site water (rd.WATER_GROWTH), indexed by a map's water class code (gamemap.WATER_CLASSES)
WATER_GROWTH_BY_CLASS = np.array([rd.WATER_GROWTH[w] for w in WATER_CLASSES])


@record
class Temperament:
    """A ruler's leanings for one game, drawn from the game's seed and the kingdom (the same all game long)."""

    margin: float  # army raised beyond what a target needs
    growth: float  # worth of a thousand new people against a point of production, early on
    cities: int  # how many cities it aims to hold
    war_share: float  # share of output its army's upkeep may take on campaign

    @classmethod
    def of(cls, seed: int, kingdom: str) -> Temperament:
        h = zlib.crc32(f"{seed}/{kingdom}".encode())
        a, b, c, d = (h & 0xFF) / 255, ((h >> 8) & 0xFF) / 255, (h >> 16) & 0xFF, ((h >> 24) & 0xFF) / 255
        return cls(margin=1.05 + 0.2 * a, growth=2.0 + 1.0 * b, cities=4 + c % 3, war_share=0.72 + 0.12 * d)


def decide(obs: Observation) -> Decision:
    """The standard ruler's month, from its kingdom's observation."""
    return Ruler(picture_for(obs)).decide()


@dataclass(slots=True)
class Target:
    """A city to take and what taking it needs."""

    city_id: int
    name: str
    owner: str
    idx: int
    q: int
    r: int
    ruin: bool
    capital: bool
    walls: float
    garrison: int
    militia: int
    need_melee: int = 0
    need_engines: int = 0
    staging: int = -1


@dataclass(slots=True)
class Army:
    """The field army this month: troops outside cities and every siege train."""

    units: list[OwnUnit] = field(default_factory=list)

    @property
    def melee(self) -> list[OwnUnit]:
        return [u for u in self.units if u.type not in ("catapult", "archer")]


class _Reach:
    """Membership test `dest in reach` for one unit's reachable ground."""

    def __init__(self, pic: Picture, here: int, slot: str) -> None:
        self.lab = pic.area(slot)
        self.labels = pic.reach_labels(here, slot)

    def __contains__(self, dest: int) -> bool:
        return bool(self.lab[dest] >= 0 and int(self.lab[dest]) in self.labels)


def melee_worth(units: list[OwnUnit]) -> float:
    return sum(MELEE_WORTH.get(u.type, 1.0) * u.men * (rd.MORALE_FACTOR_BASE + u.morale / rd.MORALE_FACTOR_DIVISOR) for u in units)


def engines_of(units: list[OwnUnit]) -> float:
    return sum(u.men / rd.ENGINE_CREW for u in units if u.type == "catapult")


class Ruler:
    """One month of the standard ruler's reasoning over its kingdom's picture."""

    def __init__(self, pic: Picture) -> None:
        self.p = pic
        self.mi = pic.mi
        self.temper = Temperament.of(pic.seed, pic.kingdom)
        self.verbs = available_verbs()
        self.war_orders: list[OrderModel] = []
        self.city_orders: list[OrderModel] = []
        self.unit_orders: list[OrderModel] = []
        self.notes: list[str] = []
        self.taken: dict[str, set[int]] = {"troop": set(), "siege": set(), "civilian": set()}
        self.requests: dict[int, list[tuple[int, QueueItem]]] = {}  # city id -> (priority, item)
        self.target: Target | None = None
        self.go = False
        self.colonist_city: int | None = None
        self.budget_men = self.budget0 = 0.0
        self.debug: dict = {}  # the army's figures this month, for tracing a game
        self.rally: OwnCity | None = None
        self.campaign = False
        self.anchor = -1
        self.scout_claims: np.ndarray | None = None
        self.wagon_dest: dict[int, tuple[int, int]] = {}  # wagons sent somewhere new this month
        self.site: int | None = None

    # ------------------------------------------------------------------------------------------------------------
    def decide(self) -> Decision:
        p = self.p
        if not p.cities:
            return Decision("")
        self.analyse()
        self.choose_target()
        self.plan_army()
        self.plan_colonists()
        self.order_units()
        self.order_cities()
        orders = self.war_orders + self.city_orders + self.short_marches_first(self.unit_orders)
        return Decision.of(orders, self.note())

    def short_marches_first(self, orders: list[OrderModel]) -> list[OrderModel]:
        """Troop moves that end this month are written before long marches (in the slots moves already hold),
        so a long march's stop for the month can never be a tile another troop was just sent to."""
        mi = self.mi
        slots = []
        keyed = []
        for k, o in enumerate(orders):
            if not isinstance(o, Move):
                continue
            u = self.p.unit_by_id.get(o.unit_id)
            if u is None or not rd.UNITS[u.type].fighting:
                continue
            slots.append(k)
            keyed.append((mi.dist(mi.index(u.q, u.r), mi.index(*o.to)), k, o))
        out = list(orders)
        for k, (_, _, o) in zip(slots, sorted(keyed, key=lambda x: (x[0], x[1])), strict=True):
            out[k] = o
        return out

    # --- analysis ------------------------------------------------------------------------------------------------
    def analyse(self) -> None:
        p, mi = self.p, self.mi
        self.cap = p.capital or p.cities[0]
        self.cap_idx = mi.index(self.cap.q, self.cap.r)
        self.city_idx = {c.id: mi.index(c.q, c.r) for c in p.cities}
        self.beside_cities = {j for i in self.city_idx.values() for j in mi.nbr_list[i]}
        self.costs = p.troop_costs()
        self.home = distance_field(mi, list(self.city_idx.values()), self.costs)
        self.output = p.output_total()
        self.upkeep = p.upkeep()
        self.garrison: dict[int, OwnUnit] = {}
        self.army = Army()
        self.scouts: list[OwnUnit] = []
        self.colonists: list[OwnUnit] = []
        self.queued: dict[str, int] = {}
        self.queued_items: dict[str, int] = {}
        for c in p.cities:
            for e in c.queue:
                self.queued_items[e["item"]] = self.queued_items.get(e["item"], 0) + 1
                if e["item"] in rd.FIGHTING_TYPES:
                    self.queued[e["item"]] = self.queued.get(e["item"], 0) + int(e.get("men") or 0)
        # Enemy troops in sight near each city (kingdoms at war with us).
        self.threat: dict[int, int] = {}
        for c in p.cities:
            ci = self.city_idx[c.id]
            men = 0
            for fu in p.foreign_units:
                if not rd.UNITS[fu.type].fighting or fu.owner == rd.BANDITS:
                    continue
                d = mi.dist(ci, mi.index(fu.q, fu.r))
                if d <= 4 and (fu.owner in p.enemies or d <= 2):
                    men += size_men(fu.size, fu.men)
            self.threat[c.id] = men
        for u in p.units:
            if u.type == "scout":
                self.scouts.append(u)
            elif u.type == "colonists":
                self.colonists.append(u)
            elif rd.UNITS[u.type].fighting:
                # the troop in a city is its garrison, unless the city wants none (an early capital, guarded by
                # its militia): then it marches with the field army
                if u.in_city is not None and u.type != "catapult" and self.garrison_target(p.city_by_id[u.in_city]) > 0:
                    self.garrison[u.in_city] = u
                else:
                    self.army.units.append(u)
        self.my_caps = p.captures.get(p.kingdom, 0)
        rivals = [p.captures.get(k, 0) for k in p.living_rivals]
        self.best_rival = max(rivals) if rivals else 0
        self.leading = self.my_caps > self.best_rival
        self.buildings_any: set[str] = set()
        for c in p.cities:
            self.buildings_any |= set(c.buildings) | {imp["kind"] for imp in c.improvements}

    # --- aim -------------------------------------------------------------------------------------------------------
    def choose_target(self) -> None:
        p, mi = self.p, self.mi
        if "attack" not in self.verbs:
            return
        cands: list[tuple[float, Target]] = []
        ruin = p.view.ruin
        seen_by_id = {c.id: c for c in p.foreign_cities}
        if ruin is not None and ruin.holder != p.kingdom:
            seen = seen_by_id.get(ruin.city_id)
            t = self.make_target(ruin.city_id, ruin.name, ruin.holder, ruin.q, ruin.r, True, seen)
            # the Ruin counts for whoever holds it: taking it from a rival is worth two captures in the race
            cands.append((self.target_cost(t) - (3.0 if ruin.holder == rd.BANDITS else 4.0), t))
        want_war = (not self.leading) or (p.month >= 70 and melee_worth(self.army.melee) > 15000)
        if want_war:
            first_city: dict[str, int] = {}
            for c in sorted(p.foreign_cities, key=lambda x: x.id):
                if c.owner in p.living_rivals:
                    first_city.setdefault(c.owner, c.id)
            for c in p.foreign_cities:
                if c.ruin or c.owner not in p.living_rivals:
                    continue
                capital = first_city.get(c.owner) == c.id
                t = self.make_target(c.id, c.name, c.owner, c.q, c.r, False, c, capital=capital)
                bonus = 3.0 if capital else 1.5
                if c.owner in p.enemies:
                    bonus += 1.0
                lead = p.captures.get(c.owner, 0)
                bonus += 1.5 * max(0, lead - self.my_caps)
                cands.append((self.target_cost(t) - bonus, t))
        if not cands:
            return
        # Stay on a target the army is already committed to: standing attacks on it, marches to its staging
        # tile, or the army beside it (so that a glimpse of something new does not turn the army round).
        attacks = {tuple(u.standing.get("to") or ()) for u in self.army.units
                   if u.standing and u.standing.get("action") in ("attack",)}
        marches = [mi.index(*u.standing["to"]) for u in self.army.units
                   if u.standing and u.standing.get("action") == "move" and u.standing.get("to")]
        best = None
        for cost, t in cands:
            if (t.q, t.r) in attacks:
                cost -= 6.0
            if any(mi.dist(j, t.idx) <= STAGING_DISTANCE + 1 for j in marches):
                cost -= 4.0
            near = [u for u in self.army.units if mi.dist(mi.index(u.q, u.r), t.idx) <= STAGING_DISTANCE + 1]
            if near and melee_worth(near) > 0.3 * t.need_melee:
                cost -= 4.0
            key = (cost, t.city_id)
            if best is None or key < best[0]:
                best = (key, t)
        if best is None or best[0][0] >= INF / 2:
            return
        self.target = best[1]
        self.target.staging = self.staging_tile(self.target)
        if self.target.staging < 0:
            self.target = None

    def make_target(self, city_id: int, name: str, owner: str, q: int, r: int, ruin: bool, seen: SeenCity | None,
                    capital: bool = False) -> Target:
        mi = self.mi
        idx = mi.index(q, r)
        if ruin and owner == rd.BANDITS:
            walls = float(seen.walls) if seen is not None and seen.walls is not None else float(rd.RUIN_WALLS)
            gar = size_men(seen.troops, None) if seen is not None and seen.in_sight and seen.troops else (
                0 if seen is not None and seen.in_sight else rd.RUIN_GARRISON)
            gar = min(gar, rd.RUIN_GARRISON) if seen is None or not seen.in_sight else gar
            militia = rd.MILITIA_CAP
        else:
            walls = float(seen.walls) if seen is not None and seen.walls is not None else 100.0
            if seen is not None and seen.troops:
                gar = size_men(seen.troops, None)
            elif seen is not None and seen.in_sight:
                gar = 0
            else:
                gar = 3000
            size = seen.size if seen is not None else None
            if capital:
                militia = rd.YOUNG_REALM_MILITIA if self.p.month < rd.YOUNG_REALM_UNTIL else rd.CAPITAL_MILITIA_CAP
            else:
                militia = 600 if size == "village" else rd.MILITIA_CAP
            if seen is not None and seen.garrison:
                gar = sum(int(g.men or 0) for g in seen.garrison if rd.UNITS[g.type].fighting)
        t = Target(city_id, name, owner, idx, q, r, ruin, capital, walls, gar, militia)
        can_engines = "workshop" in self.buildings_any or any(u.type == "catapult" for u in self.army.units)
        base = 2000 + 2.0 * gar + 1.0 * militia
        if walls > 60 and can_engines:
            # stone walls: siege engines bring them down (10 a month each), the assault does the rest
            t.need_engines = int(math.ceil(walls / rd.ENGINE_WALL_DAMAGE)) + SPARE_ENGINES
        else:
            # a palisade or the Ruin's walls: the assaults batter them down (5 per 1,000 men), two months at most
            base = max(base + 1000, walls / rd.BATTER_PER_1000 * 1000 / 2 + 2000)
        t.need_melee = int(min(45000, base))
        return t

    def target_cost(self, t: Target) -> float:
        """Months of marching plus the size of the army it needs; a target beyond what production can keep in
        the field is left alone."""
        d = self.home[t.idx] if self.home[t.idx] < INF / 2 else self.mi.dist(self.cap_idx, t.idx) * 1.6
        cost = d / 3.0 + t.need_melee / 3000.0 + t.need_engines / 4.0
        garrisons = sum(self.garrison_target(c) for c in self.p.cities)
        affordable = (self.temper.war_share * self.output - 0.5 * 6) * 1000 - garrisons
        if t.need_melee + t.need_engines * rd.ENGINE_CREW > affordable:
            cost += 50.0
        return cost

    def staging_tile(self, t: Target) -> int:
        """A tile about three hops from the target, nearest home, outside land closed to us (a rival's land opens
        only when we declare war, which we do when the army strikes); -1 if none is known."""
        p, mi = self.p, self.mi
        d_t = mi.dist_from(t.idx)
        closed = p.closed_land()
        reach = p.reachable_mask(self.cap_idx, "troop")
        best = None
        for radius in (STAGING_DISTANCE, STAGING_DISTANCE + 1, 2, STAGING_DISTANCE + 2):
            for i in np.flatnonzero((d_t == radius) & reach).tolist():
                if not p.can_stop(i) or closed[i]:
                    continue
                key = (self.home[i], mi.rs[i], mi.qs[i])
                if best is None or key < best[0]:
                    best = (key, i)
            if best is not None:
                return best[1]
        return -1

    # --- army sizing and recruits ------------------------------------------------------------------------------------
    def garrison_target(self, c: OwnCity) -> int:
        p = self.p
        threat = self.threat.get(c.id, 0)
        at_war = bool(p.enemies)
        if c.is_capital:
            want = 0 if p.month < 30 and not at_war else 1000
        else:
            want = 1000
        if at_war:
            want += 1000
        if c.restless or c.captured_by == p.kingdom or c.is_ruin:
            want = max(want, min(rd.HOLD_DOWN_MAX, max(rd.HOLD_DOWN_MIN, c.people // 10)) + 500)
        if threat:
            want = max(want, int(threat * 0.8))
        return int(min(12000, want))

    def garrison_type(self, c: OwnCity) -> str:
        gar = self.garrison.get(c.id)
        have = set(c.buildings)
        if gar is not None and (rd.UNITS[gar.type].requires is None or rd.UNITS[gar.type].requires in have):
            return gar.type
        return "spearman" if "barracks" in have else "levy"

    def plan_army(self) -> None:
        """Recruit requests: garrisons first, then the field army the target needs, within the upkeep budget."""
        p = self.p
        at_war = bool(p.enemies)
        share = self.temper.war_share if (self.target is not None or at_war) else UPKEEP_SHARE_PEACE
        budget_men = (share * self.output - self.upkeep) * 1000 - sum(self.queued.values())
        self.budget_men = self.budget0 = budget_men
        # Garrisons.
        for c in sorted(p.cities, key=lambda x: (not x.is_capital, x.id)):
            if c.restless and not c.is_capital:
                continue
            want = self.garrison_target(c)
            gar = self.garrison.get(c.id)
            have = gar.men if gar is not None else 0
            typ = self.garrison_type(c)
            queued = sum(int(e.get("men") or 0) for e in c.queue if e["item"] == typ)
            need = want - have - queued
            urgent = self.threat.get(c.id, 0) > have
            if need >= 500 and (budget_men >= 500 or urgent):
                men = int(min(need, max(budget_men, 1000) if not urgent else need) // 500 * 500)
                men = min(men, max(0, c.people - rd.MIN_CITY_PEOPLE - 1000) // 500 * 500)
                if men >= 500:
                    self.request(c.id, 0 if urgent else 3, QueueItem(item=typ, men=min(men, rd.MAX_TROOP_MEN)))
                    budget_men -= men
        t = self.target
        if t is None or budget_men < 500:
            return
        # The field army.
        army = self.army.units
        have_melee = melee_worth([u for u in army if u.type not in ("catapult", "archer")])
        have_engines = engines_of(army)
        raiser = self.best_raiser()
        if raiser is None:
            return
        have_b = set(raiser.buildings) | {imp["kind"] for imp in raiser.improvements}
        queued_worth = sum(MELEE_WORTH.get(k, 1.0) * v for k, v in self.queued.items() if k not in ("catapult", "archer"))
        need_worth = t.need_melee * self.temper.margin - have_melee - queued_worth
        # Siege engines first (walls must come down), then the melee core, spearmen escort, archers, cavalry.
        q_eng = self.queued.get("catapult", 0) / rd.ENGINE_CREW
        need_eng = t.need_engines - have_engines - q_eng
        if need_eng >= 1 and "workshop" in have_b:
            crew = int(math.ceil(need_eng) * rd.ENGINE_CREW)
            crew = min(crew, int(budget_men))
            if crew >= 100:
                self.request(raiser.id, 4, QueueItem(item="catapult", men=crew))
                budget_men -= crew
        if need_worth > 300 and budget_men >= 500:
            core = "heavy_infantry" if "forge" in have_b else ("spearman" if "barracks" in have_b else "levy")
            worth_men = need_worth / MELEE_WORTH[core]
            spear_share = 0.3 if core == "heavy_infantry" else 0.0
            core_men = worth_men * (1 - spear_share)
            chunks = [(core, core_men)]
            if spear_share:
                chunks.append(("spearman", worth_men * spear_share))
            for typ, m in chunks:
                m = int(math.ceil(min(m, budget_men, 12000) / 500) * 500)
                if m >= 500 and budget_men >= 500:
                    self.request(raiser.id, 5, QueueItem(item=typ, men=m))
                    budget_men -= m
        if "barracks" in have_b and t.owner in p.living_rivals and budget_men >= 1000:
            archers = sum(u.men for u in army if u.type == "archer") + self.queued.get("archer", 0)
            want = int(0.15 * t.need_melee) // 500 * 500
            if archers < want - 500:
                m = int(min(want - archers, budget_men) // 500 * 500)
                if m >= 500:
                    self.request(raiser.id, 6, QueueItem(item="archer", men=m))
                    budget_men -= m
        if "stable" in have_b and t.owner in p.living_rivals and budget_men >= 1000:
            cav = sum(u.men for u in army if u.type == "cavalry") + self.queued.get("cavalry", 0)
            if cav < 1000:
                self.request(raiser.id, 6, QueueItem(item="cavalry", men=1500))
                budget_men -= 1500
        self.budget_men = budget_men

    def best_raiser(self) -> OwnCity | None:
        """The city that raises the field army: the most populous with the most military buildings."""
        best = None
        for c in self.p.cities:
            if c.restless or c.people < 7000:
                continue
            have = set(c.buildings) | {imp["kind"] for imp in c.improvements}
            key = (len(have & set(rd.MILITARY_BUILDINGS)), c.people, -c.id)
            if best is None or key > best[0]:
                best = (key, c)
        return best[1] if best else None

    def request(self, city_id: int, priority: int, item: QueueItem) -> None:
        self.requests.setdefault(city_id, []).append((priority, item))

    # --- colonists ------------------------------------------------------------------------------------------------------
    def plan_colonists(self) -> None:
        p = self.p
        if "found_city" not in self.verbs or "move" not in self.verbs:
            return
        n_cities = len([c for c in p.cities if not c.is_ruin])
        if self.colonists or self.queued_items.get("colonists"):
            if self.colonists:
                self.site = self.best_site(self.colonists[0])
            return
        if n_cities >= min(self.temper.cities, 2 + p.month // 20):
            return
        if n_cities >= 2 and self.target is not None and p.month < 60 and not self.army_ready_soon():
            return
        site = self.best_site(None)
        if site is None:
            return
        best = None
        for c in p.cities:
            if c.restless or c.people < 12_500 or self.threat.get(c.id, 0):
                continue
            # colonists cost 100 production: a city that makes little would block its queue for a year
            key = (p.output(c.id).production >= 8, p.output(c.id).production, c.people, -c.id)
            if best is None or key > best[0]:
                best = (key, c)
        if best is None:
            return
        self.colonist_city = best[1].id
        self.request(best[1].id, 2, QueueItem(item="colonists"))

    def army_ready_soon(self) -> bool:
        t = self.target
        if t is None:
            return True
        return melee_worth(self.army.melee) >= t.need_melee and (
            engines_of(self.army.units) + SPARE_ENGINES + 0.01 >= t.need_engines)

    def best_site(self, colonist: OwnUnit | None) -> int | None:
        """The best city site known: ring food and production, fresh water, not too far, not near rivals."""
        p, mi = self.p, self.mi
        owned = p.own_land | p.foreign_land
        near_owned = owned.copy()
        nb = mi.nbr
        ext = np.append(owned, False)
        near_owned |= ext[nb].any(axis=1)
        ok = p.explored & mi.land & mi.passable & ~near_owned
        ruin = p.view.ruin
        if ruin is not None:  # (the tiles within 2 of the Ruin, 3 of a foreign city, cleared: a row of a table each)
            ok[mi.within(mi.index(ruin.q, ruin.r), 2)] = False
        for c in p.foreign_cities:
            ok[mi.within(mi.index(c.q, c.r), 3)] = False
        for u in p.foreign_units:
            ok[mi.index(u.q, u.r)] = False
        origin = mi.index(colonist.q, colonist.r) if colonist is not None else self.cap_idx
        ok &= p.reachable_mask(origin, "civilian")
        cands = np.flatnonzero(ok)
        if cands.size == 0:
            return None
        dist = self.home if colonist is None else distance_field(mi, [origin], self.costs)
        far = 12
        forward = False
        if ruin is not None:
            ri = mi.index(ruin.q, ruin.r)
            # a forward base for the march on the Ruin: troops muster, eat and refill there
            forward = ruin.holder != p.kingdom and not any(mi.dist(self.city_idx[c.id], ri) <= 6 for c in p.cities)
            if forward:
                far = 15
        # only the tiles a march reaches within `far` of the capital are weighed (the figures worked out for them)
        cands = cands[(dist[cands] < INF / 2) & (mi.dist_from(self.cap_idx)[cands] <= far)]
        unknown = (~np.append(p.explored, True)[nb[cands]]).sum(axis=1)
        months = dist[cands] / 3.0
        score = -0.5 * unknown - 0.8 * months
        if ruin is not None:
            dr = mi.dist_from(ri)[cands]
            if forward:
                score = score + np.where((dr >= 3) & (dr <= 5), 9.0, np.where(dr == 6, 5.0, 0.0))
            else:
                score = score + np.where((dr >= 3) & (dr <= 5), 2.0, 0.0)
        # the candidates by the most a site there could be worth, best first: once that cannot reach the best
        # found (nor the least worth taking), no later one can, so their reports are never made
        # (a site's water is its centre's water class on the believed map, as the site report reads it: exact)
        feeds_cap, prod_cap = p.obs.site_ceilings(cands)
        water = WATER_GROWTH_BY_CLASS[p.obs.believed.map.water_class[cands]]
        ceiling = score + SITE_FEEDS * feeds_cap / 1000.0 + SITE_PROD * prod_cap + SITE_WATER * water
        order = np.argsort(-ceiling, kind="stable")
        best = None
        for i, cap, base in zip(cands[order].tolist(), ceiling[order].tolist(), score[order].tolist(), strict=True):
            top = cap + 1e-6
            if top < SITE_MIN_SCORE or (best is not None and top < -best[0][0]):
                break
            # what a city there would make, by the engine's site report (CITY-450): the people its land feeds
            # and its production at full land, and the growth its water allows
            rep = p.obs.site_report_at(i)  # what Observation.site shows there
            if rep is None:
                continue
            worth = (SITE_FEEDS * rep.people_fed / 1000.0 + SITE_PROD * rep.full.production
                     + SITE_WATER * rd.WATER_GROWTH[rep.water])
            s = base + worth
            if s < SITE_MIN_SCORE:
                continue
            key = (-s, mi.rs[i], mi.qs[i])
            if best is None or key < best[0]:
                best = (key, i)
        return best[1] if best else None

    # --- units -------------------------------------------------------------------------------------------------------------
    def order_units(self) -> None:
        if "move" not in self.verbs:
            return
        for u in self.colonists:
            self.order_colonists(u)
        for u in self.scouts:
            self.order_scout(u)
        self.order_garrisons()
        self.order_army()
        self.supply()
        self.assign_generals()

    def assign_generals(self) -> None:
        """A general waiting in a city takes the biggest troop within two tiles that has none (field troops
        first: they fight most)."""
        p, mi = self.p, self.mi
        if "assign_general" not in self.verbs:
            return
        led = {g.unit_id for g in p.view.generals if g.unit_id is not None}
        # troops merging into others this month would hand the general on: leave them out
        joining = {o.unit_id for o in self.unit_orders if isinstance(o, Merge)}
        given: set[int] = set(joining)
        orders: list[OrderModel] = []
        for g in p.view.generals:
            if g.city_id is None or g.city_id not in self.city_idx:
                continue
            ci = self.city_idx[g.city_id]
            cands = [u for u in p.units if rd.UNITS[u.type].fighting and u.type != "catapult" and u.id not in led
                     and u.id not in given and mi.dist(mi.index(u.q, u.r), ci) <= rd.GENERAL_REACH]
            if not cands:
                continue
            u = max(cands, key=lambda x: (x.in_city is None, x.men, -x.id))
            given.add(u.id)
            orders.append(AssignGeneral(general_id=g.id, unit_id=u.id))
        # given before any troop marches this month, while the two still stand within reach
        self.unit_orders = orders + self.unit_orders

    def say(self, order: OrderModel) -> None:
        self.unit_orders.append(order)

    def order_colonists(self, u: OwnUnit) -> None:
        mi = self.mi
        here = mi.index(u.q, u.r)
        site = self.site
        if site is None:
            return
        if here == site:
            if self.site_legal(here):
                self.say(FoundCity(unit_id=u.id))
            return
        # A short hop onto the site still leaves a move for founding.
        if mi.dist(here, site) == 1 and mi.move_cost[site] == 1 and not mi.crossing[site] and self.site_legal(site):
            self.say(Move(unit_id=u.id, to=mi.tile(site)))
            self.say(FoundCity(unit_id=u.id))
            return
        dest = site if self.p.visible[site] else self.waypoint(here, site, "civilian")
        if dest is None or dest == here:
            return
        st = u.standing
        if st and st.get("action") == "move" and tuple(st.get("to", ())) == mi.tile(dest):
            return
        self.say(Move(unit_id=u.id, to=mi.tile(dest)))

    def waypoint(self, here: int, goal: int, slot: str) -> int | None:
        """The tile in sight on the way to `goal` (out of sight): a march never ends where it cannot see, so
        it cannot be sent onto a city or troop founded or camped there unseen."""
        p, mi = self.p, self.mi
        field = self.home_from(goal)
        cands = np.flatnonzero(p.visible & p.explored & mi.passable & ~mi.crossing
                               & (mi.dist_from(here) <= 6) & p.reachable_mask(here, slot))
        best = None
        for j in cands.tolist():
            if j != here and not p.can_stop(j, slot):
                continue
            key = (float(field[j]), mi.dist(here, j), j)
            if best is None or key < best[0]:
                best = (key, j)
        return best[1] if best else None

    def site_legal(self, i: int) -> bool:
        p, mi = self.p, self.mi
        if not mi.land[i] or not mi.passable[i]:
            return False
        for j in [i, *mi.nbr_list[i]]:
            if p.own_land[j] or p.foreign_land[j]:
                return False
        ruin = p.view.ruin
        return not (ruin is not None and mi.index(ruin.q, ruin.r) == i)

    def order_scout(self, u: OwnUnit) -> None:
        """Explore: the tile in sight that opens most unknown ground within a scout's sight (others' aims left to
        them); once all is known, watch the target from three tiles. Destinations are always tiles in sight now,
        so a scout never walks onto a troop it could not see."""
        p, mi = self.p, self.mi
        here = mi.index(u.q, u.r)
        if self.scout_claims is None:
            self.scout_claims = np.zeros(mi.n + 1, dtype=bool)
        unexplored = np.append(~p.explored, False) & ~self.scout_claims
        table = neighbourhood(mi.gm, 4)
        d = mi.dist_from(here)
        ok = p.explored & p.visible & mi.passable & ~mi.crossing
        for i in list(p.foreign_at) + list(p.remembered_at):
            ok[i] = False
        for c in p.foreign_cities:
            ok[mi.index(c.q, c.r)] = False
        ok[here] = False
        ok &= p.reachable_mask(here, "agent")
        # the tiles it may go to where some unknown ground lies within a scout's sight, and their worth: that ground
        # over the way there, doubled near the Ruin early on (worked out for those tiles only: every other tile
        # would score nothing)
        at = np.flatnonzero(ok)
        if not unexplored.any():  # (none left: nothing to gain anywhere)
            at = at[:0]
        gain = np.count_nonzero(unexplored[table[at]], axis=1)
        at, gain = at[gain > 0], gain[gain > 0]
        score = gain / (1.0 + d[at] / 7.0)
        ruin = p.view.ruin
        if ruin is not None and p.month < 24:
            score = score * np.where(mi.dist_from(mi.index(ruin.q, ruin.r))[at] <= 6, 2.0, 1.0)
        if at.size == 0:
            # nothing left to find nearby: watch the target, or the nearest rival city, from three tiles
            goal = -1
            if self.target is not None:
                goal = self.target.idx
            elif p.foreign_cities:
                goal = min((mi.index(c.q, c.r) for c in p.foreign_cities), key=lambda j: (mi.dist(here, j), j))
            if goal < 0 or mi.dist(here, goal) == 3:
                return
            dg = mi.dist_from(goal)
            cands = np.flatnonzero(ok & (dg >= 3))
            if cands.size == 0:
                return
            dest = min(zip((dg[cands] - 3).tolist(), d[cands].tolist(), cands.tolist(), strict=True))[2]
            if int(dg[dest]) >= int(dg[here]):
                return
        else:
            dest = int(at[np.argmax(score)])  # the first of the best, in map order
            self.scout_claims[table[dest]] = True
        st = u.standing
        if st and st.get("action") == "move" and tuple(st.get("to", ())) == mi.tile(dest):
            return
        self.say(Move(unit_id=u.id, to=mi.tile(dest)))

    def order_garrisons(self) -> None:
        p = self.p
        for c in p.cities:
            gar = self.garrison.get(c.id)
            if gar is None:
                continue
            want = self.garrison_target(c)
            excess = gar.men - want
            if (self.target is not None and excess >= 500 and gar.men - excess >= 500 and not self.threat.get(c.id)
                    and gar.standing is None and "split" in self.verbs):
                # the part split off steps onto a free tile beside the city (MOVE-240)
                dest = self.free_tile_near(self.city_idx[c.id], "troop", radius=1)
                if dest is not None:
                    men = min(excess, gar.men - max(500, want)) // 500 * 500
                    if men >= 500:
                        self.say(Split(unit_id=gar.id, men=int(men), to=self.mi.tile(dest)))
                        self.taken["troop"].add(dest)
                        continue
            if not gar.fortified and gar.standing is None and "hold" in self.verbs:
                self.say(Hold(unit_ids=[gar.id]))

    def free_tile_near(self, centre: int, slot: str, avoid: set[int] | None = None, radius: int = 2) -> int | None:
        p, mi = self.p, self.mi
        cands = [j for j in mi.within(centre, radius).tolist() if j != centre]
        cands.sort(key=lambda j: (mi.dist(centre, j), self.home[j], mi.rs[j], mi.qs[j]))
        for j in cands:
            if j in self.taken[slot] or (avoid and j in avoid):
                continue
            if p.can_stop(j, slot) and p.own_land[j]:
                return j
        return None

    # --- the field army -------------------------------------------------------------------------------------------------
    def order_army(self) -> None:
        """The field army: gather at the rally city, march out when strong enough, strike, come home to eat."""
        mi = self.mi
        army = sorted(self.army.units, key=lambda u: u.id)
        if not army:
            return
        t = self.target
        army = self.intercept(army, t)
        army = self.reinforce(army, t)
        rally = self.rally = self.rally_city(t)
        if not army:
            return
        if t is None:
            self.gather(army, rally, None)
            return
        dist_t = {u.id: mi.dist(mi.index(u.q, u.r), t.idx) for u in army}
        arrived = [u for u in army if dist_t[u.id] <= STAGING_DISTANCE
                   or mi.dist(mi.index(u.q, u.r), t.staging) <= 2]
        arrived_melee = [u for u in arrived if u.type not in ("catapult", "archer")]
        worth_arrived = melee_worth(arrived_melee)
        eng_arrived = engines_of(arrived)
        close_melee = [u for u in army if dist_t[u.id] <= STAGING_DISTANCE + 1 and u.type not in ("catapult", "archer")]
        total_worth = melee_worth([u for u in army if u.type not in ("catapult", "archer")])
        total_eng = engines_of(army)
        need_eng = max(0.0, t.need_engines - SPARE_ENGINES)
        engaged = any(dist_t[u.id] <= 1 for u in close_melee)
        self.go = (worth_arrived >= 0.75 * t.need_melee and eng_arrived + 0.01 >= need_eng) or (
            engaged and melee_worth(close_melee) >= 0.4 * t.need_melee)
        # an army that production cannot grow any more goes at nine tenths of what the target needs
        capped = self.budget0 < 500 and not any(self.queued.get(k) for k in rd.FIGHTING_TYPES)
        strong = total_worth >= (0.9 if capped else 1.0) * t.need_melee and total_eng + 0.01 >= need_eng
        ri = self.city_idx[rally.id]
        gathered = [u for u in army if mi.dist(mi.index(u.q, u.r), ri) <= 2]
        reserve = rd.RATION_RESERVE_SHARE * (600 if any(i["kind"] == "granary" for i in rally.improvements) else 300)
        refill = rally.grain > reserve + 20
        fed = all(ration_months(u) >= (2.5 if refill else 1.0) for u in gathered)
        ready = strong and fed and melee_worth([u for u in gathered if u.type not in ("catapult", "archer")]) >= \
            (0.8 if capped else 0.9) * t.need_melee and engines_of(gathered) + 0.01 >= need_eng
        underway = any(u not in gathered and dist_t[u.id] < mi.dist(ri, t.idx) for u in army)
        marching = ready or (strong and underway)
        self.debug = dict(worth_arrived=round(worth_arrived), eng_arrived=eng_arrived, total=round(total_worth),
                          eng=total_eng, strong=strong, ready=ready, rally=rally.name, staging=mi.tile(t.staging))
        self.campaign = self.go or marching
        if self.go:
            strikers = arrived + [u for u in army if u not in arrived and dist_t[u.id] <= STAGING_DISTANCE + 1]
            self.attack(t, strikers)
            rest = [u for u in army if u not in strikers]
            if strong or marching:
                self.convoy(t, rest)
            else:
                self.gather(rest, rally, t)
        elif marching:
            if self.p.closed_land()[t.staging] or self.p.settled_closed()[t.staging]:
                self.declare_on(t)  # the staging tile lies in their land, closed to us while at peace
            self.convoy(t, army)
        else:
            self.gather(army, rally, t)
        if self.campaign:
            self.camp(t, army)

    def convoy(self, t: Target, units: list[OwnUnit]) -> None:
        """March on the staging tile; troops keep beside the slowest siege train so that it arrives escorted."""
        mi = self.mi
        if not units:
            return
        lagging = [u for u in units if u.type == "catapult" and mi.dist(mi.index(u.q, u.r), t.staging) > 2]
        self.anchor = t.staging
        if not lagging:
            self.place(units, t.staging)
            return
        slow = max(lagging, key=lambda u: (self.home_from(t.staging)[mi.index(u.q, u.r)], u.id))
        si = mi.index(slow.q, slow.r)
        self.anchor = si
        trains = [u for u in units if u.type == "catapult"]
        others = [u for u in units if u.type != "catapult"]
        self.place(trains, t.staging)
        ahead = [u for u in others if self.home_from(t.staging)[mi.index(u.q, u.r)] <
                 self.home_from(t.staging)[si] - 3]
        self.place([u for u in others if u not in ahead], si)
        self.place(ahead, t.staging)

    def home_from(self, i: int) -> np.ndarray:
        """Move costs from flat index i over the known map (memoised)."""
        return distance_field(self.mi, [i], self.costs)

    def intercept(self, army: list[OwnUnit], t: Target | None) -> list[OwnUnit]:
        """Enemy troops (at war with us) on or beside our land are struck by nearby field troops that clearly
        outfight them, the counters in mind (cavalry on archers and siege trains, heavy infantry on spearmen
        and levies, spearmen on cavalry); returns the units left for other work."""
        p, mi = self.p, self.mi
        if "attack" not in self.verbs or not p.enemies:
            return army
        near_land = p.own_land.copy()
        near_land |= np.append(p.own_land, False)[mi.nbr].any(axis=1)
        threats = [e for e in p.foreign_units if e.owner in p.enemies and rd.UNITS[e.type].fighting
                   and near_land[mi.index(e.q, e.r)]]
        left = list(army)
        for e in sorted(threats, key=lambda e: (-size_men(e.size, e.men), e.id)):
            ei = mi.index(e.q, e.r)
            strikers: list[OwnUnit] = []
            # a melee troop not yet beside the enemy needs a free tile beside it to strike from
            free_beside = sum(1 for j in mi.nbr_list[ei]
                              if p.visible[j] and p.can_stop(j, "troop") and j not in self.taken["troop"])
            for u in sorted(left, key=lambda x: (mi.dist(mi.index(x.q, x.r), ei), x.id)):
                d = mi.dist(mi.index(u.q, u.r), ei)
                us = rd.UNITS[u.type]
                if d > us.moves or u.men < 500 or u.type == "catapult":
                    continue
                if not us.shooter and d > 1 and free_beside <= 0:
                    continue
                # the engine's forecast of the fight (the enemy at the top of its size class unless watched):
                # strike when the enemy clearly loses more and we do not break (the counters are in it)
                try:
                    worst = p.obs.fight(u.id, e.id).high
                except (KeyError, ValueError):
                    continue
                if worst.att_broke or worst.att_destroyed:
                    continue
                if not (worst.def_broke or worst.def_destroyed or worst.def_lost >= 1.6 * max(1, worst.att_lost)):
                    continue
                if not us.shooter and d > 1:
                    free_beside -= 1
                strikers.append(u)
                break
            if not strikers:
                continue
            for u in strikers:
                self.say(Attack(unit_id=u.id, to=(e.q, e.r)))
                left.remove(u)
            near = min(p.cities, key=lambda c: (mi.dist(self.city_idx[c.id], ei), c.id))
            self.notes.append(f"our troops fall on {p.names[e.owner].name}'s {e.type.replace('_', ' ')} near "
                              f"{near.name}")
        return left

    def reinforce(self, army: list[OwnUnit], t: Target | None) -> list[OwnUnit]:
        """Field troops march into cities that cannot raise their own garrison in time (a conquest, the Ruin, a
        threatened city); returns the units left for the field army."""
        p, mi = self.p, self.mi
        left = list(army)
        for c in sorted(p.cities, key=lambda x: (-self.threat.get(x.id, 0), x.id)):
            gar = self.garrison.get(c.id)
            have = gar.men if gar is not None else 0
            deficit = self.garrison_target(c) - have
            if deficit < 500:
                continue
            if not (c.restless or c.is_ruin or c.captured_by == p.kingdom or self.threat.get(c.id, 0) > have):
                continue
            ci = self.city_idx[c.id]
            cands = []
            for u in left:
                if u.type in ("catapult", "archer") or u.men < 500:
                    continue
                i = mi.index(u.q, u.r)
                if t is not None and mi.dist(i, t.idx) <= STAGING_DISTANCE + 1 and not self.threat.get(c.id):
                    continue  # the siege goes on
                if gar is not None and (u.type != gar.type or gar.men + u.men > rd.MAX_TROOP_MEN):
                    if mi.dist(i, ci) <= 1:
                        continue  # already on its land beside it
                if not self.reachable(i, "troop", ci).__contains__(ci) and mi.dist(i, ci) > 1:
                    continue
                same = gar is None or u.type == gar.type
                cands.append(((not same, mi.dist(i, ci), u.id), u))
            if not cands:
                continue
            cands.sort(key=lambda x: x[0])
            u = cands[0][1]
            dest = ci
            if gar is not None and (u.type != gar.type or gar.men + u.men > rd.MAX_TROOP_MEN):
                spot = self.free_tile_near(ci, "troop")
                if spot is None:
                    continue
                dest = spot
            self.move(u, dest)
            left.remove(u)
        return left

    def rally_city(self, t: Target | None) -> OwnCity:
        """Where the army gathers and eats: the own city nearest the target that can feed it (else the capital)."""
        p, mi = self.p, self.mi
        if t is None:
            # with nothing to take, the army stands by the Ruin while we hold it (rivals will come for it)
            ruin = next((c for c in p.cities if c.is_ruin), None)
            return ruin if ruin is not None and (self.leading or p.enemies) else self.cap
        best = None
        for c in p.cities:
            if c.restless and not c.is_capital:
                continue
            if not c.is_capital and (c.people < 15000 or c.grain < 150):
                continue
            key = (mi.dist(self.city_idx[c.id], t.idx), c.id)
            if best is None or key < best[0]:
                best = (key, c)
        return best[1] if best else self.cap

    def gather(self, units: list[OwnUnit], rally: OwnCity, t: Target | None) -> None:
        """Units gather on the rally city's land beside it (on the target's side), small troops merging."""
        p, mi = self.p, self.mi
        if not units:
            return
        ci = self.city_idx[rally.id]
        centre = ci
        if t is not None:
            ring = [j for j in mi.nbr_list[ci] if p.own_land[j] and p.can_stop(j)]
            if ring:
                centre = min(ring, key=lambda j: (mi.dist(j, t.idx), j))
        units = self.merge_small(units)
        self.place(units, centre, own_land_only=True)

    def in_supply(self, i: int) -> bool:
        p, mi = self.p, self.mi
        if p.own_land[i]:
            return True
        return any(c.grain > 5 and mi.dist(i, mi.index(c.q, c.r)) <= rd.CAMP_REACH for c in p.view.camps)

    def move(self, u: OwnUnit, dest: int) -> None:
        mi = self.mi
        slot = slot_of_type(u.type)
        self.taken.setdefault(slot, set()).add(dest)
        if mi.index(u.q, u.r) == dest:
            if not u.fortified and u.standing is None and rd.UNITS[u.type].fighting:
                self.say(Hold(unit_ids=[u.id]))
            elif u.standing is not None:
                self.say(Hold(unit_ids=[u.id]))
            return
        st = u.standing
        if st and st.get("action") == "move" and tuple(st.get("to", ())) == mi.tile(dest):
            return
        self.say(Move(unit_id=u.id, to=mi.tile(dest)))

    def place(self, units: list[OwnUnit], centre: int, *, own_land_only: bool = False) -> None:
        """Spread units over free tiles around `centre` (troops one a tile, siege trains with a troop)."""
        p, mi = self.p, self.mi
        if not units:
            return
        beside_city = self.beside_cities
        # tiles beside an own city are left free for its recruits and garrison splits where possible
        # tiles in sight first: a march sent where we cannot see may find a troop standing there unseen
        # (sorted by (beside a city, distance + 1 out of sight, cost from home, r, q), as one lexsort)
        near = [j for j in mi.within(centre, 3).tolist() if j not in p.city_at]
        at = np.array(near, dtype=np.int64)
        beside = np.array([j in beside_city for j in near], dtype=bool)
        steps = mi.dist_from(centre)[at] + (~p.visible[at]).astype(np.int32)
        area = at[np.lexsort((mi.q[at], mi.r[at], self.home[at], steps, beside))].tolist() if near else []
        troops = [u for u in units if slot_of_type(u.type) == "troop"]
        sieges = [u for u in units if slot_of_type(u.type) == "siege"]
        troops.sort(key=lambda u: (-u.men, u.id))
        spots: list[int] = []
        for u in troops:
            here = mi.index(u.q, u.r)
            reach = self.reachable(here, "troop", centre)
            pick = None
            if here in area and here not in self.taken["troop"] and mi.dist(here, centre) <= 2 \
                    and (here not in self.beside_cities or here == centre) \
                    and (not own_land_only or p.own_land[here]) and p.can_stop(here, "troop", me=u.id):
                pick = here
            else:
                for j in area:
                    if j in self.taken["troop"] or (own_land_only and not p.own_land[j]) or j not in reach:
                        continue
                    if p.can_stop(j, "troop", me=u.id):
                        pick = j
                        break
            if pick is None:
                continue
            spots.append(pick)
            self.move(u, pick)
        for u in sieges:
            here = mi.index(u.q, u.r)
            reach = self.reachable(here, "siege", centre)
            pick = None
            if here in spots and here not in self.taken["siege"]:
                pick = here
            else:
                for j in spots + area:
                    if j in self.taken["siege"] or (own_land_only and not p.own_land[j]) or j not in reach:
                        continue
                    if p.can_stop(j, "siege", me=u.id):
                        pick = j
                        break
            if pick is None:
                continue
            self.move(u, pick)

    def reachable(self, here: int, slot: str, centre: int) -> _Reach:
        """Where a unit on `here` can march: tiles in an area its tile opens onto."""
        return _Reach(self.p, here, slot)

    def merge_small(self, units: list[OwnUnit]) -> list[OwnUnit]:
        """Merge neighbouring troops of one type (cutting upkeep); returns the units still to place."""
        mi = self.mi
        if "merge" not in self.verbs:
            return units
        left: list[OwnUnit] = []
        merged: set[int] = set()
        by_type: dict[str, list[OwnUnit]] = {}
        for u in units:
            by_type.setdefault(u.type, []).append(u)
        for typ, group in by_type.items():
            group.sort(key=lambda u: (-u.men, u.id))
            for k, a in enumerate(group):
                if a.id in merged:
                    continue
                men = a.men  # what `a` will hold after this month's merges (the observation is not touched)
                for b in group[k + 1:]:
                    if b.id in merged or men + b.men > (8000 if typ != "catapult" else 3000):
                        continue
                    if mi.dist(mi.index(a.q, a.r), mi.index(b.q, b.r)) <= 2 and b.standing is None:
                        self.say(Merge(unit_id=b.id, target_id=a.id))
                        merged.add(b.id)
                        men += b.men
        for u in units:
            if u.id not in merged:
                left.append(u)
        return left

    def march_to_staging(self, t: Target, units: list[OwnUnit]) -> None:
        self.place(units, t.staging)

    def camp_allowed(self, i: int) -> bool:
        p, mi = self.p, self.mi
        if mi.crossing[i] or i in p.city_at:
            return False
        camps = p.view.camps
        if len(camps) >= len(p.cities) + 1:
            return False
        for c in list(camps) + list(p.view.foreign_camps):
            if mi.dist(i, mi.index(c.q, c.r)) < rd.CAMP_SPACING:
                return False
        return True

    def attack(self, t: Target, units: list[OwnUnit]) -> None:
        """Declare war if needed, then every unit near the target strikes it: siege engines first."""
        if "attack" not in self.verbs or not self.declare_on(t):
            return
        seen = next((c for c in self.p.foreign_cities if c.id == t.city_id), None)
        if seen is not None and not seen.in_sight and seen.owner != t.owner:
            # out of sight, an attack is aimed at the city as our map last showed it, and that record has another
            # holder: close in first (the march brings it into sight)
            self.convoy(t, units)
            return
        mi = self.mi
        first = [u for u in units if u.type == "catapult"] + [u for u in units if u.type == "archer"]
        melee = sorted((u for u in units if u.type not in ("catapult", "archer")), key=lambda u: (-u.men, u.id))
        # Every troop in reach strikes, engines first (an attack after an earlier one took the city is still
        # accepted, in case that one fails: COMBAT-420).
        waiting: list[OwnUnit] = []  # melee troops with no free tile in sight beside the city: they close in
        # melee troops not yet beside the city need a free tile beside it to strike from
        # (counting tiles in sight only: one out of sight may hold a troop we cannot see)
        free_beside = sum(1 for j in mi.nbr_list[t.idx]
                          if self.p.visible[j] and self.p.can_stop(j, "troop") and j not in self.taken["troop"])
        striking: list[int] = []
        for u in first + melee:
            if u.men < 300 and u.type != "catapult":
                continue
            d = mi.dist(mi.index(u.q, u.r), t.idx)
            if u.type not in ("catapult", "archer") and d > 1:
                if free_beside <= 0:
                    waiting.append(u)
                    continue
                free_beside -= 1
            strikes = d <= (rd.UNITS[u.type].range or 1) + rd.UNITS[u.type].moves  # (erring on striking)
            st = u.standing
            if not (st and st.get("action") == "attack" and tuple(st.get("to", ())) == (t.q, t.r)) or strikes:
                self.say(Attack(unit_id=u.id, to=(t.q, t.r)))
            if strikes:
                striking.append(u.id)
        if waiting:
            # the engine's forecast of this month's strikes (the city at the low end of what it may hold): if they
            # take it anyway, the troops waiting for a free tile need not close in
            taken = False
            if striking:
                try:
                    taken = self.p.obs.siege(t.city_id, striking, months=1, end=0.0).taken_in == 1
                except KeyError:
                    taken = False
            if not taken:
                self.place(waiting, t.idx)

    def declare_on(self, t: Target) -> bool:
        """Be at war with the target's holder (a rival kingdom): declare it, once; False if we cannot."""
        p = self.p
        if t.owner not in p.living_rivals or t.owner in p.enemies:
            return True
        if "declare_war" not in self.verbs:
            return False
        name = p.names[t.owner].name
        order = DeclareWar(to=name)
        if order not in self.war_orders:
            self.war_orders.append(order)
            self.notes.append(f"we declare war on {name} to take {t.name}")
        return True

    def camp(self, t: Target, army: list[OwnUnit]) -> None:
        """A campaign off own land: a camp on (or beside) the staging tile, where wagons bring grain and troops
        within two tiles eat and refill their rations."""
        p, mi = self.p, self.mi
        if "build" not in self.verbs or p.own_land[t.staging]:
            return
        if any(mi.dist(mi.index(c.q, c.r), t.staging) <= 1 for c in p.view.camps):
            return
        cands = []
        for u in army:
            i = mi.index(u.q, u.r)
            if slot_of_type(u.type) != "troop" or u.men < rd.CAMP_MIN_MEN or mi.dist(i, t.staging) > 1:
                continue
            if p.own_land[i] or mi.dist(i, t.idx) < 2 or not self.camp_allowed(i):
                continue
            cands.append(((mi.dist(i, t.staging), u.men, u.id), u))
        if not cands:
            return
        u = min(cands, key=lambda x: x[0])[1]
        self.unit_orders = [o for o in self.unit_orders if isinstance(o, AssignGeneral) or (
            getattr(o, "unit_id", None) != u.id and getattr(o, "unit_ids", None) != [u.id])]
        self.say(Build(unit_id=u.id, what="camp"))

    def supply(self) -> None:
        """Grain follows the army: wagons to the rally city while troops muster there, and to the troops (or their
        camp) once they are off their own land and their rations run down."""
        p, mi = self.p, self.mi
        if "ship_grain" not in self.verbs or not self.army.units or self.rally is None:
            return
        wagons = [u for u in p.units if u.type == "wagon" and u.cargo > 0.5]
        tasks: list[tuple[int, float]] = []
        rally = self.rally
        ri = self.city_idx[rally.id]
        mustering = [u for u in self.army.units if mi.dist(mi.index(u.q, u.r), ri) <= 2]
        if not rally.is_capital and mustering:
            men = sum(u.men for u in mustering)
            want = min(250.0, 6 * men / 1000 + 40)
            if rally.grain < want and self.inflight(wagons, ri, 1) < 30:
                tasks.append((ri, want - rally.grain))
        t = self.target
        if self.campaign and t is not None and t.staging >= 0:
            camps = [c for c in p.view.camps if mi.dist(mi.index(c.q, c.r), t.staging) <= 1]
            dest = t.staging if self.anchor < 0 else self.anchor
            if camps and (self.anchor < 0 or self.anchor == t.staging):
                dest = mi.index(camps[0].q, camps[0].r)
            for w in wagons:  # loaded wagons go where the army camps (or to the convoy on its way)
                if w.dest is not None and mi.dist(mi.index(*w.dest), dest) > 1 and not p.own_land[
                        mi.index(*w.dest)] and "move" in self.verbs:
                    self.say(Move(unit_id=w.id, to=mi.tile(dest)))
                    self.wagon_dest[w.id] = mi.tile(dest)
            men = sum(u.men for u in self.army.units)
            off = [u for u in self.army.units if not self.in_supply(mi.index(u.q, u.r))]
            room = sum(max(0.0, rd.MAX_RATION_MONTHS * u.men / 1000 - u.rations) for u in off)
            have = sum(c.grain for c in camps) + self.inflight(wagons, dest, 2)
            want = max(3.0 * men / 1000, room) - have
            while want >= 10 and len(tasks) < 2:
                tasks.append((dest, min(float(rd.WAGON_CAP), want)))
                want -= rd.WAGON_CAP
        used: set[int] = set()
        for dest, dan in tasks:
            self.ship(dest, dan, used)

    def inflight(self, wagons: list[OwnUnit], i: int, radius: int) -> float:
        """Grain aboard own wagons heading within `radius` of flat index i (where this month's orders send them)."""
        mi = self.mi
        total = 0.0
        for w in wagons:
            dest = self.wagon_dest.get(w.id, w.dest)
            if dest is not None and mi.dist(mi.index(*dest), i) <= radius:
                total += w.cargo
        return total

    def ship(self, dest: int, dan: float, used: set[int]) -> None:
        """A wagon of up to 60 dan from the city with grain to spare nearest `dest`."""
        p, mi = self.p, self.mi
        best = None
        for c in p.cities:
            if c.restless or self.threat.get(c.id):
                continue
            reserve = rd.RATION_RESERVE_SHARE * (600 if any(i["kind"] == "granary" for i in c.improvements) else 300)
            spare = c.grain - reserve - 25
            ci = self.city_idx[c.id]
            if spare < 15 or ci == dest or c.id in used:
                continue
            key = (mi.dist(ci, dest) - spare / 40.0, c.id)
            if best is None or key < best[0]:
                best = (key, c, spare)
        if best is None:
            return
        _, c, spare = best
        amount = int(min(rd.WAGON_CAP, spare, max(10.0, dan)))
        if amount >= 10:
            used.add(c.id)
            self.say(ShipGrain(city_id=c.id, dan=amount, to=mi.tile(dest)))

    # --- cities ------------------------------------------------------------------------------------------------------------
    def order_cities(self) -> None:
        p = self.p
        for c in sorted(p.cities, key=lambda x: x.id):
            if c.restless:
                continue
            focus = self.focus_for(c)
            if focus is not None and focus != c.focus:
                self.city_orders.append(SetFocus(city_id=c.id, focus=focus))
            want, urgent = self.desired_queue(c)
            order = self.refill(c, want, urgent)
            if order:
                self.city_orders.append(order)

    def focus_for(self, c: OwnCity) -> rd.Focus | None:
        """The focus worth most this month: production now against people gained (worth less as the game ages)."""
        p = self.p
        if (p.month + c.id) % 3 and p.output(c.id).net >= 0.5:
            return None  # focus is weighed every third month (staggered by city), or at once when food runs short
        w = max(0.0, self.temper.growth * (1.0 - p.month / 140.0))
        if c.people < 9000 and not c.is_capital:
            w *= 2.0  # small cities grow first: colonists, recruits and land
        best: tuple[tuple[float, bool], rd.Focus] | None = None
        for focus in rd.FOCUSES:
            o = p.output(c.id, focus)
            value = o.production + w * o.growth / 1000.0 + (0.15 if focus == c.focus else 0.0)
            if o.net < 0.5:  # never starve the city (or the troops eating from it) for production
                value -= 100.0 + 10.0 * max(0.0, -o.net)
            key = (value, focus == c.focus)
            if best is None or key > best[0]:
                best = (key, focus)
        return best[1] if best else None

    def desired_queue(self, c: OwnCity) -> tuple[list[QueueItem], bool]:
        """What a city should build next, in order, and whether the head must replace the current one now."""
        p = self.p
        have = set(c.buildings) | {imp["kind"] for imp in c.improvements}
        queued = [e["item"] for e in c.queue]
        farm_sites = p.free_sites(c.id, "farm")
        gp = len(farm_sites)
        worked = set(p.output(c.id).worked)
        worked_farms = [t for t in farm_sites if t in worked]
        shop_sites = p.free_sites(c.id, "workshop")
        reqs = sorted(self.requests.get(c.id, []), key=lambda x: (x[0], spec_key(x[1])))
        items: list[tuple[float, QueueItem]] = []
        urgent = any(pr == 0 for pr, _ in reqs)
        for pr, it in reqs:
            items.append((pr * 10.0 + 5, it))
        month = p.month
        at_war = bool(p.enemies)
        n_scouts = len(self.scouts) + self.queued_items.get("scout", 0)
        if c.id == self.cap.id and n_scouts < (2 if (at_war or month > 40) else 1):
            items.append((12, QueueItem(item="scout")))
        if "palisade" not in have:
            items.append((15 if (c.is_capital or month > 6) else 45, QueueItem(item="palisade")))
        if "barracks" not in have and (c.is_capital or c.people >= 12000):
            items.append((18 if c.is_capital else 60, QueueItem(item="barracks")))
        used_gp = 0
        if "granary" not in have and used_gp < gp:
            items.append((25, QueueItem(item="granary")))
            used_gp += 1
        if worked_farms and used_gp < gp:
            items.append((28, QueueItem(item="farm")))
            used_gp += 1
        if "workshop" not in have and shop_sites and (c.id == self.cap.id or c.people >= 20000):
            items.append((22 if c.id == self.cap.id and "workshop" not in self.buildings_any else 70, QueueItem(item="workshop")))
        if "walls" not in have and ("palisade" in have or "palisade" in queued) and (month >= 25 or at_war
                                                                                      or self.threat.get(c.id)):
            items.append((35 if (at_war or self.threat.get(c.id)) else 65, QueueItem(item="walls")))
        if "forge" not in have and c.id == self.cap.id and month >= 24 and self.output >= 16 and "barracks" in have:
            items.append((48, QueueItem(item="forge")))
        if "stable" not in have and c.id == self.cap.id and month >= 48 and self.output >= 22 and "forge" in have:
            items.append((75, QueueItem(item="stable")))
        if "barracks" not in have and not c.is_capital and c.people < 12000 and month >= 30:
            items.append((85, QueueItem(item="barracks")))
        while used_gp < gp and len([x for x in items if x[1].item == "farm"]) < 2:
            items.append((55 + 10 * used_gp, QueueItem(item="farm")))
            used_gp += 1
        items.sort(key=lambda x: (x[0], spec_key(x[1])))
        out: list[QueueItem] = []
        for _, it in items:
            if it.item in rd.BUILDINGS and it.item in [o.item for o in out]:
                continue
            out.append(it)
        # Prerequisites must come before what needs them (a refused queue is worse than a slow one).
        out = self.order_prereqs(c, out)
        return out, urgent

    def order_prereqs(self, c: OwnCity, items: list[QueueItem]) -> list[QueueItem]:
        have = set(c.buildings) | {imp["kind"] for imp in c.improvements}
        queued_now = {e["item"] for e in c.queue}
        out: list[QueueItem] = []
        held: set[tuple[str, int | None, tuple[int, int] | None]] = set()  # what `out` holds, by its fields (equality)
        seen: set[str] = set()
        for it in items:
            name = it.item
            need = rd.UNITS[name].requires if name in rd.UNITS else ("palisade" if name == "walls" else None)
            if need and need not in have and need not in seen and need not in queued_now:
                if need in [x.item for x in items]:
                    # pull the prerequisite forward
                    pre = next(x for x in items if x.item == need)
                    key = (pre.item, pre.men, pre.tile)
                    if key not in held:
                        out.append(pre)
                        held.add(key)
                        seen.add(need)
                else:
                    continue  # cannot build it here yet
            key = (name, it.men, it.tile)
            if key not in held:
                out.append(it)
                held.add(key)
                seen.add(name)
        return out

    def refill(self, c: OwnCity, desired: list[QueueItem], urgent: bool) -> SetProduction | None:
        current = [entry_item(e) for e in c.queue]
        if not desired:
            return None
        head_paid = c.queue[0]["paid"] if c.queue else 0.0
        head_name = current[0].item if current else None
        if urgent and current and head_name != desired[0].item and (
                head_paid <= 0.5 or head_name in rd.FIGHTING_TYPES):
            queue = desired[:QUEUE_AHEAD]
        elif len(current) >= 2:
            # keep what is queued unless the head is something the kingdom no longer wants at all
            return None
        else:
            queue = keep_head(current, desired)[:QUEUE_AHEAD]
        queue = self.valid_queue(c, queue)
        if not queue or queue == current:
            return None
        return SetProduction(city_id=c.id, queue=queue)

    def valid_queue(self, c: OwnCity, queue: list[QueueItem]) -> list[QueueItem]:
        """Drop what the queue check would refuse: doubles, missing prerequisites, too many improvements."""
        p = self.p
        have = set(c.buildings)
        kinds = {imp["kind"] for imp in c.improvements}
        gp = len(p.free_sites(c.id, "farm"))
        shops = len(p.free_sites(c.id, "workshop"))
        out: list[QueueItem] = []
        planned: set[str] = set()
        used_gp = used_shop = 0
        for it in queue:
            name = it.item
            if name in rd.BUILDINGS:
                if name in have or name in planned:
                    continue
                if rd.missing_need(name, have, planned):
                    continue
            elif name in rd.IMPROVEMENTS:
                if name in rd.UNIQUE_IMPROVEMENTS and (name in kinds or name in planned):
                    continue
                if it.tile is not None:
                    pass
                elif name == "workshop":
                    if used_shop >= shops:
                        continue
                    used_shop += 1
                else:
                    if used_gp >= gp:
                        continue
                    used_gp += 1
            elif name in rd.UNITS and rd.UNITS[name].fighting:
                need = rd.UNITS[name].requires
                if need is not None and need not in have and need not in kinds and need not in planned:
                    continue
            planned.add(name)
            out.append(it)
        return out

    # --- the chronicle -------------------------------------------------------------------------------------------------------
    def note(self) -> str:
        """One or two plain sentences for the chronicle: what the ruler does and why, naming cities and generals."""
        p = self.p
        bits: list[str] = []
        t = self.target
        men = sum(u.men for u in p.units if rd.UNITS[u.type].fighting)
        army_ids = {u.id for u in self.army.units}
        leader = next((g for g in sorted(p.view.generals, key=lambda g: (-g.level, g.id))
                       if g.unit_id in army_ids), None)
        army = f"General {leader.name}'s army" if leader is not None else "Our army"
        if self.notes:
            text = "; ".join(dict.fromkeys(self.notes))
            bits.append(text[0].upper() + text[1:])
        if t is not None:
            who = "the bandits" if t.owner == rd.BANDITS else p.names[t.owner].name
            if self.go:
                bits.append(f"{army} lays siege to {t.name}, held by {who}")
            elif self.campaign:
                bits.append(f"{army} marches on {t.name}, held by {who}")
            else:
                bits.append(f"We gather troops to take {t.name} from {who}")
        elif self.leading:
            held = "the Ruin and " if any(c.is_ruin for c in p.cities) else ""
            bits.append(f"We hold {held}the lead with {self.my_caps} capture{'s' if self.my_caps != 1 else ''} and stand guard")
        else:
            bits.append("We build up our cities")
        raising = [c.name for c in p.cities if c.queue and c.queue[0]["item"] == "colonists"]
        if self.colonist_city is not None and not raising:
            raising = [p.city_by_id[self.colonist_city].name]
        if raising:
            bits.append(f"{raising[0]} raises colonists for new land")
        elif self.colonists:
            bits.append("Our colonists march to found a new city")
        n = len(p.cities)
        bits.append(f"{n} {'city' if n == 1 else 'cities'}, {sum(c.people for c in p.cities):,} people, "
                    f"{men:,} men under arms")
        return ". ".join(bits) + "."
