"""Rule data: every constant, table and number of the game, in one place (no logic beyond lookups).

Numbers come from the rules (rules.md); the ID in each comment names the rule in the requirements index.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from typing import Final, Literal, get_args

from kingdoms.frozen import record

# --- Calendar (TURN-010) -------------------------------------------------------------------------------
LAST_MONTH: Final = 160

# --- Terrain (MAP-040..090) ----------------------------------------------------------------------------


@record
class Terrain:
    """One terrain type: its letter, yields, move cost (None = impassable) and defence bonus."""

    code: int
    letter: str
    name: str
    food: int
    prod: int
    move: int | None
    defence: float


TERRAINS: Final = (
    Terrain(0, "G", "grassland", 2, 0, 1, 0.0),
    Terrain(1, "P", "plains", 1, 1, 1, 0.0),
    Terrain(2, "F", "forest", 1, 2, 2, 0.25),
    Terrain(3, "H", "hills", 0, 2, 2, 0.50),
    Terrain(4, "M", "mountain", 0, 0, None, 0.0),
    Terrain(5, "~", "water", 1, 0, None, 0.0),
)
G, P, F, H, M, W = range(6)  # MAP-040, MAP-050, MAP-060, MAP-070, MAP-080, MAP-090 (the rows above)
TERRAIN_BY_LETTER: Final = {t.letter: t for t in TERRAINS}
RIVER_FOOD_BONUS: Final = 1  # MAP-110
FARM_FOOD_BONUS: Final = 1  # BUILD-080

# --- Site water (MAP-160, CITY-140) --------------------------------------------------------------------
WATER_GROWTH: Final = {"fresh": 1.0, "coast": 0.6, "dry": 0.2}
LAKE_MAX_TILES: Final = 12  # OPEN-63

# --- Cities (CITY-*) ----------------------------------------------------------------------------------
CAPITAL_PEOPLE: Final = 15_000  # CITY-010
PEOPLE_PER_WORKED_TILE: Final = 3_000
CENTRE_MIN_FOOD: Final = 2
CENTRE_MIN_PROD: Final = 1
HARVEST_BASE: Final = 3
GRANARY_HARVEST_BONUS: Final = 3
GRANARY_CAP: Final = 300
GRANARY_CAP_IMPROVED: Final = 600
RATION_RESERVE_SHARE: Final = 0.25  # OPEN-7: share of capacity kept back from ration refills
PEOPLE_EAT_PER_1000: Final = 0.6
SOLDIERS_EAT_PER_1000: Final = 1.0
PEOPLE_PER_DAN: Final = 240
GROWTH_CAP_FLAT: Final = 500
GROWTH_CAP_SHARE: Final = 0.03
HAPPY_START: Final = 100
HAPPY_FED: Final = 10
HAPPY_SHORT: Final = 30
STARVE_LOSS: Final = 0.05
REVOLT_HAPPINESS: Final = 20
MIN_CITY_PEOPLE: Final = 1_500  # RECRUIT-120
MAX_CITY_TILES: Final = 91
COURT_BONUS: Final = 8
PROD_FACTOR: Final = 1.5
SIZE_BONUS_PEOPLE: Final = 40_000
STORE_EMPTY_CAP: Final = 60
PROD_PER_DAN: Final = 4  # BUILD-210

Focus = Literal["food", "balanced", "production"]  # CITY-030: a city's focus
FOCUSES: Final[tuple[Focus, ...]] = get_args(Focus)
FOCUS_GROWTH: Final = {"food": 1.0, "balanced": 0.5, "production": 0.15}
FOCUS_PROD: Final = {"food": 0.5, "balanced": 0.8, "production": 1.0}

# Size tiers: (people, harvest multiplier, drill cap) anchors, linear between (OPEN-57).
SIZE_ANCHORS: Final = ((5_000, 1.0, 1_000), (15_000, 1.25, 2_000), (40_000, 1.6, 3_000), (75_000, 1.75, 4_000))
SIZE_TIERS: Final = ((75_000, "great city"), (40_000, "city"), (15_000, "town"), (0, "village"))

# Land follows people (OPEN-55).
LAND_STEP_PEOPLE: Final = 3_000
LAND_STEP_DIVISOR: Final = 30
LAND_REACH: Final = ((30_000, 2), (60_000, 3), (100_000, 4))  # below people -> reach; else 5
LAND_REACH_MAX: Final = 5

# Colonists (CITY-390..410, OPEN-24, OPEN-101).
COLONIST_PEOPLE: Final = 5_000
COLONIST_GRAIN: Final = 20
COLONIST_MIN_MONTHS: Final = 5

# --- Buildings and improvements (BUILD-010..110) -------------------------------------------------------
BUILDINGS: Final = {"palisade": 10, "walls": 25, "forge": 80, "stable": 60, "barracks": 25}  # BUILD-010
BUILDING_NEEDS: Final = {"walls": "palisade"}  # BUILD-030: stone walls rise only on a palisade
IMPROVEMENTS: Final = {"farm": 15, "granary": 20, "workshop": 20}
IMPROVEMENT_TERRAIN: Final = {"farm": (G, P), "granary": (G, P), "workshop": (F, H)}
UNIQUE_IMPROVEMENTS: Final = ("granary", "workshop")
MILITARY_BUILDINGS: Final = ("barracks", "stable", "forge", "workshop")  # BUILD-060
WORKSHOP_FLAT: Final = 1
WORKSHOP_SHARE: Final = 0.12
PALISADE_WALLS: Final = 40
STONE_WALLS_MAX: Final = 100

# --- Units (RECRUIT-010..100, MOVE-010) ----------------------------------------------------------------


@record
class UnitType:
    """A unit type's price, combat stats, moves and the building that unlocks it."""

    name: str
    cost: int  # production; per 1,000 men for fighting troops (per_1000=True)
    per_1000: bool
    attack: float
    defence: float
    ranged: float
    range: int
    moves: int
    requires: str | None
    kind: str  # "troop" (fighting), "civilian", "agent"
    min_men: int = 0

    @property
    def fighting(self) -> bool:
        return self.kind == "troop"

    @property
    def shooter(self) -> bool:
        return self.range > 0


UNITS: Final = {
    u.name: u
    for u in (
        UnitType("levy", 5, True, 1.0, 1.0, 0.0, 0, 3, None, "troop", 500),  # RECRUIT-030
        UnitType("spearman", 8, True, 1.0, 1.3, 0.0, 0, 3, "barracks", "troop", 500),  # RECRUIT-040
        UnitType("archer", 7, True, 0.6, 1.0, 1.0, 2, 3, "barracks", "troop", 500),  # RECRUIT-050, OPEN-28
        UnitType("cavalry", 16, True, 2.0, 1.2, 0.0, 0, 5, "stable", "troop", 500),  # RECRUIT-060
        UnitType("heavy_infantry", 14, True, 1.5, 1.5, 0.0, 0, 3, "forge", "troop", 500),  # RECRUIT-070
        UnitType("catapult", 80, True, 0.3, 0.7, 0.3, 3, 2, "workshop", "troop", 100),  # RECRUIT-100, OPEN-28
        UnitType("colonists", 100, False, 0.0, 0.0, 0.0, 0, 3, None, "civilian"),  # RECRUIT-010
        UnitType("wagon", 0, False, 0.0, 0.0, 0.0, 0, 3, None, "civilian"),  # RECRUIT-020
        UnitType("scout", 10, False, 0.0, 0.0, 0.0, 0, 7, None, "agent"),  # RECRUIT-080
        UnitType("spy", 10, False, 0.0, 0.0, 0.0, 0, 6, None, "agent"),  # RECRUIT-090
    )
}
FIGHTING_TYPES: Final = tuple(n for n, u in UNITS.items() if u.fighting)
RECRUITABLE: Final = FIGHTING_TYPES + ("colonists", "scout", "spy")
MAX_TROOP_MEN: Final = 20_000  # RECRUIT-230 (and each type's min_men)
FOLD_BELOW: Final = 300  # MOVE-260
BREAK_UP_BELOW: Final = 100  # COMBAT-250
ENGINE_CREW: Final = 100

# Upkeep (RECRUIT-180).
UPKEEP_PER_1000: Final = 1.0
UPKEEP_PER_TROOP: Final = 0.5

# Rations (SUPPLY-070, RECRUIT-160, RECRUIT-170).
MAX_RATION_MONTHS: Final = 4
NEW_TROOP_MIN_RATION_MONTHS: Final = 2
JOIN_RATION_MONTHS: Final = 2

# --- Combat (COMBAT-*) ---------------------------------------------------------------------------------
MELEE_RATE: Final = 0.20
RANGED_RATE: Final = 0.12
FORTIFY_BONUS: Final = 0.25
CAMP_BONUS: Final = 0.25
SPEAR_VS_CAVALRY_FIELD: Final = 0.50
SPEAR_VS_CAVALRY_CITY: Final = 1.5
TRAINING_PER_LEVEL: Final = 0.06
MORALE_FACTOR_BASE: Final = 0.5  # COMBAT-020: strength x(0.5 + morale / 200)
MORALE_FACTOR_DIVISOR: Final = 200.0
XP_LEVELS: Final = (3, 7, 12, 18, 25, 33)  # troop levels 1..6
GENERAL_XP_LEVELS: Final = (3, 7, 12, 18)  # general levels 2..5 (level 1 from 0 XP)
GENERAL_FIELD: Final = 0.10
GENERAL_CITY: Final = 0.15
COUNTERS: Final = {
    ("cavalry", "archer"): 1.5,
    ("cavalry", "catapult"): 1.5,
    ("cavalry", "spearman"): 0.75,
    ("archer", "levy"): 1.5,
    ("archer", "spearman"): 1.5,
    ("heavy_infantry", "spearman"): 1.5,
    ("heavy_infantry", "levy"): 1.5,
}
ARCHERS_INTO_CITY: Final = 0.5
FLANK_PER_TROOP: Final = 0.15
FLANK_PER_CAVALRY: Final = 0.25
FLANK_MAX: Final = 0.50
FLANK_WALLS_MIN: Final = 40
MORALE_PER_PCT_LOST: Final = 0.75
MORALE_RECOVERY: Final = 10
MORALE_RECOVERY_CAMP: Final = 20
ROUT_LOSS_SHARE: Final = 0.25
ROUT_MORALE: Final = 20
PURSUIT_LOSS: Final = 0.20
DEFEAT_SHOCK: Final = 10
DEFEAT_SHOCK_RADIUS: Final = 3
CAVALRY_ATTACK_MOVES: Final = 2
HUNGER_STRENGTH: Final = 0.2
HUNGER_STRENGTH_MIN: Final = 0.2
HUNGER_MORALE: Final = 15
HUNGER_DESERT: Final = 0.10

# --- Sieges (SIEGE-*) ----------------------------------------------------------------------------------
MILITIA_SHARE: Final = 0.10
MILITIA_CAP: Final = 1_000
CAPITAL_MILITIA_SHARE: Final = 0.20
CAPITAL_MILITIA_CAP: Final = 1_500
YOUNG_REALM_MILITIA: Final = 3_000
YOUNG_REALM_UNTIL: Final = 40  # months 1..39 (OPEN-22)
MILITIA_QUALITY: Final = 0.6
MILITIA_REGEN: Final = 0.20
TOWER_RATE: Final = 0.02
ENGINE_WALL_DAMAGE: Final = 10
ENGINE_KILLS: Final = 15
BATTER_PER_1000: Final = 5
WALL_REPAIR: Final = 5
WALLS_FACTOR_DIVISOR: Final = 200.0  # SIEGE-020: defenders x(1 + durability / 200)
BLOCKADE_CRUMBLE: Final = 5
BLOCKADE_RADIUS: Final = 2
VOLLEY_PEOPLE_FLOOR: Final = 1_000  # OPEN-59

# --- Conquest (CONQ-*) ---------------------------------------------------------------------------------
HOLD_DOWN_SHARE: Final = 0.10
HOLD_DOWN_MIN: Final = 500
HOLD_DOWN_MAX: Final = 3_000
UNREST_MONTHS: Final = 6
SETTLE_LEAVE_SHARE: Final = 0.5
UNREST_REVOLT_CHANCE: Final = 0.15

# --- Supply (SUPPLY-*) ---------------------------------------------------------------------------------
CAMP_CAP: Final = 80
CAMP_REACH: Final = 2
CAMP_SPACING: Final = 3
CAMP_MIN_MEN: Final = 500
WAGON_CAP: Final = 60
CAMP_BURN_EXTRA_LOSS: Final = 0.10

# --- Intelligence (INTEL-*) ----------------------------------------------------------------------------
SIGHT: Final = {"troop": 2, "scout": 4, "spy": 1, "city": 2, "border": 1}
SIZE_CLASSES: Final = ((12_000, "huge"), (6_000, "large"), (2_000, "medium"), (0, "small"))
SIZE_CLASS_RANGE: Final = {"small": (1, 1_999), "medium": (2_000, 5_999), "large": (6_000, 11_999), "huge": (12_000, 20_000)}
SPY_UNMASK_PER_COUNTER: Final = 0.20
SPY_UNMASK_MAX: Final = 0.60
SPY_CATCH_BASE: Final = 0.01
SPY_CATCH_NEAR_TROOP: Final = 0.03
SPY_CATCH_PER_COUNTER: Final = 0.05
SabotageTarget = Literal["granary", "panic"]  # INTEL-160
SABOTAGE_TARGETS: Final[tuple[SabotageTarget, ...]] = get_args(SabotageTarget)
SABOTAGE_GRANARY_SHARE: Final = 0.5
PANIC_DESERT: Final = 0.12
PANIC_MORALE: Final = 20
#: How a rival's walls look from outside (INTEL-030; the shares are ours, the spec names no figure): durability
#: at least this share of the ceiling is "intact", at least the second "damaged", below it "crumbling".
WALLS_INTACT_SHARE: Final = 0.9
WALLS_DAMAGED_SHARE: Final = 0.5
#: Months a sighting of a foreign field unit is remembered once out of sight (MAP-190; troops move, older news
#: misleads). Cities and camps stay until their tile is seen again.
UNIT_MEMORY_MONTHS: Final = 12

# --- Generals (GEN-*) ----------------------------------------------------------------------------------
GENERAL_REACH: Final = 2
GENERAL_DEFECT_CHANCE: Final = 0.40
NEW_GENERAL_EVERY: Final = 18

# --- Victory (VIC-*) -----------------------------------------------------------------------------------
LEAD_MONTHS: Final = 36
RUIN_PEOPLE: Final = 10_000  # OPEN-70
RUIN_WALLS: Final = 50
RUIN_GARRISON: Final = 1_500
BANDITS: Final = "bandits"
RUIN_NAME: Final = "the Ruin"  # its name when a scenario gives none

# --- Bandits (BANDIT-*) --------------------------------------------------------------------------------
BANDIT_FAVOUR_SHARE: Final = 0.6  # BANDIT-040: a strike needs the troop to lose this share of the bandits' loss

# --- Starting position (OPEN-69) -----------------------------------------------------------------------
START_GRAIN: Final = 150
START_TROOP_TYPE: Final = "levy"
START_TROOP_MEN: Final = 3_000
START_RATION_MONTHS: Final = 4


def size_class(men: int) -> str:
    """Size class shown to rivals (INTEL-020, OPEN-49)."""
    for floor, name in SIZE_CLASSES:
        if men >= floor:
            return name
    return "small"


def size_tier(people: int) -> str:
    """Rough size of a city as rivals see it (OPEN-50)."""
    for floor, name in SIZE_TIERS:
        if people >= floor:
            return name
    return "village"


def troop_level(xp: float) -> int:
    """Troop level 0..6 from XP (COMBAT-260): the thresholds reached, by bisection of the ascending XP_LEVELS (the
    count of `xp >= t`; NaN reaches none). Read for every fighter of every fight and forecast."""
    return bisect_right(XP_LEVELS, xp) if xp == xp else 0


def general_level(xp: int) -> int:
    """General level 1..5 from XP (GEN-100)."""
    return 1 + sum(1 for t in GENERAL_XP_LEVELS if xp >= t)


#: SIZE_ANCHORS as spans between neighbouring anchors: (people from, people to, the two anchor rows).
_SPANS: Final = tuple((a[0], b[0], a, b) for a, b in zip(SIZE_ANCHORS, SIZE_ANCHORS[1:], strict=False))


def _interp(people: float, col: int) -> float:
    """Column `col` of SIZE_ANCHORS at `people`, straight between the anchors around it (flat beyond the ends)."""
    anchors = SIZE_ANCHORS
    if people <= anchors[0][0]:
        return float(anchors[0][col])
    for p0, p1, a, b in _SPANS:
        if people <= p1:
            t = (people - p0) / (p1 - p0)
            v0 = a[col]
            return v0 + t * (b[col] - v0)
    return float(anchors[-1][col])


def harvest_multiplier(people: float) -> float:
    """Harvest multiplier of a city's size, smooth between tiers (CITY-300, CITY-310, OPEN-57)."""
    return _interp(people, 1)


def drill_cap(people: float) -> float:
    """Recruits a city can drill in a month, smooth between tiers (CITY-300, CITY-310, OPEN-57)."""
    return _interp(people, 2)


def size_bonus(people: float) -> float:
    """Production size bonus = (people / 40,000) ** 0.5 (CITY-240)."""
    return (max(people, 0) / SIZE_BONUS_PEOPLE) ** 0.5


def next_tile_people(land_tiles: int) -> int:
    """People a city needs to claim its next land tile when it holds `land_tiles` (OPEN-55)."""
    return round(LAND_STEP_PEOPLE * land_tiles * (1 + land_tiles / LAND_STEP_DIVISOR))


def land_reach(people: float) -> int:
    """How far from its centre a city may claim land (OPEN-55)."""
    for below, reach in LAND_REACH:
        if people < below:
            return reach
    return LAND_REACH_MAX


def full_militia(people: int, capital: bool, month: int) -> int:
    """A city's full militia: 10% of people up to 1,000; capital 20% up to 1,500, at least 3,000 before month 40.

    SIEGE-060, SIEGE-070, OPEN-22; rounded half-up (OPEN-102).
    """
    if capital:
        full = min(CAPITAL_MILITIA_CAP, int(people * CAPITAL_MILITIA_SHARE + 0.5))
        if month < YOUNG_REALM_UNTIL:
            full = max(full, YOUNG_REALM_MILITIA)
        return full
    return min(MILITIA_CAP, int(people * MILITIA_SHARE + 0.5))


def missing_need(building: str, have: set[str], planned: set[str]) -> str | None:
    """The building `building` waits for that the city neither has nor queues before it (BUILD-030), else None."""
    need = BUILDING_NEEDS.get(building)
    return need if need is not None and need not in have and need not in planned else None


def walls_ceiling(buildings: Iterable[str], ruin: bool = False) -> float:
    """The most a city's walls repair to: stone walls 100, a palisade 40, none 0; the Ruin at least its 50.

    BUILD-020, BUILD-030, SIEGE-030, OPEN-70. `City.walls_max` holds it (set by `City.update_walls_max` only).
    """
    have = set(buildings)
    top = float(RUIN_WALLS) if ruin else 0.0
    if "walls" in have:
        top = max(top, float(STONE_WALLS_MAX))
    if "palisade" in have:
        top = max(top, float(PALISADE_WALLS))
    return top
