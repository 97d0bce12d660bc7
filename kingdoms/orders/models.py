"""Typed order models: one frozen pydantic model per issue_orders verb (TOOLS-220..380, OPEN-81).

Pure data: nothing here knows the board; issue-time validation against the game state lives elsewhere.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Final, Literal, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    model_validator,
)

from kingdoms import ruledata as rd


def _no_bool(value: object) -> object:
    """Reject booleans where a number is meant (pydantic would otherwise read True as 1)."""
    if isinstance(value, bool):
        raise ValueError("a number is required, not true/false")
    return value


def _strip(value: object) -> object:
    """Trim text with Python's str.strip (the parser uses the same rule, so round trips agree)."""
    return value.strip() if isinstance(value, str) else value


#: A unit, city or general id (non-negative, fits a 64-bit database column).
Id = Annotated[int, BeforeValidator(_no_bool), Field(ge=0, lt=2**63)]
#: One axial hex coordinate; bounded only to keep absurd numbers out.
Coord = Annotated[int, BeforeValidator(_no_bool), Field(ge=-1_000_000, le=1_000_000)]
#: A hex tile as (q, r).
Tile = tuple[Coord, Coord]

# --- set_production items (TOOLS-320, OPEN-80, RECRUIT): every list and limit read from ruledata ----------
BUILDINGS: Final[tuple[str, ...]] = tuple(rd.BUILDINGS)
IMPROVEMENTS: Final[tuple[str, ...]] = tuple(rd.IMPROVEMENTS)
TROOPS: Final[tuple[str, ...]] = rd.FIGHTING_TYPES
CIVILIANS: Final[tuple[str, ...]] = tuple(t for t in rd.RECRUITABLE if not rd.UNITS[t].fighting)
QUEUE_ITEMS: Final[tuple[str, ...]] = BUILDINGS + IMPROVEMENTS + TROOPS + CIVILIANS
#: Recruit size limits (men; catapults count crew): each type's least, at most 20,000 (RECRUIT-230).
MAX_MEN: Final = rd.MAX_TROOP_MEN
MIN_MEN: Final[dict[str, int]] = {t: rd.UNITS[t].min_men for t in TROOPS}
#: A supply wagon carries 1..60 dan (SUPPLY-100).
MAX_DAN: Final = rd.WAGON_CAP
FOCUSES: Final[tuple[str, ...]] = rd.FOCUSES
SABOTAGE_TARGETS: Final[tuple[str, ...]] = rd.SABOTAGE_TARGETS
BuildWhat = Literal["camp"]
BUILD_WHAT: Final[tuple[str, ...]] = get_args(BuildWhat)


def men_range(item: str) -> tuple[int, int]:
    """Allowed recruit size (min, max) for a troop item."""
    return MIN_MEN[item], MAX_MEN


class QueueItem(BaseModel):
    """One set_production queue entry: a building, improvement (optionally on a tile), troop with men, or civilian."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item: str
    men: Annotated[int, BeforeValidator(_no_bool)] | None = None
    tile: Tile | None = None

    @model_validator(mode="after")
    def _check(self) -> QueueItem:
        """Enforce the item list, the men counts troops need and the tiles only improvements take."""
        if self.item not in QUEUE_ITEMS:
            raise ValueError(f"unknown queue item {self.item!r}; items: {', '.join(QUEUE_ITEMS)}")
        if self.item in TROOPS:
            lo, hi = men_range(self.item)
            if self.men is None:
                raise ValueError(f"{self.item} needs a size, e.g. {self.item}:{max(lo, 2000)}")
            if not lo <= self.men <= hi:
                raise ValueError(f"{self.item} size must be {lo}..{hi} men")
        elif self.men is not None:
            raise ValueError(f"{self.item} takes no men count")
        if self.tile is not None and self.item not in IMPROVEMENTS:
            raise ValueError(f"only {', '.join(IMPROVEMENTS)} take a tile")
        return self


class _OrderBase(BaseModel):
    """Common config and help metadata; KEYS maps each short-syntax key to its field (TOOLS-170, TOOLS-210)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    USAGE: ClassVar[str] = ""
    EXAMPLE: ClassVar[str] = ""
    KEYS: ClassVar[dict[str, str]] = {}
    FLAGS: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def short_keys(cls) -> tuple[str, ...]:
        """The short-syntax keys this verb takes, for help text and suggestions."""
        return tuple(cls.KEYS)

    @classmethod
    def required_fields(cls) -> tuple[str, ...]:
        """Field names that must be given (everything without a default, except action)."""
        return tuple(n for n, f in cls.model_fields.items() if n != "action" and f.is_required())


class Move(_OrderBase):
    """TOOLS-220: march a troop to a tile."""

    USAGE: ClassVar[str] = "move unit=ID to=q,r"
    EXAMPLE: ClassVar[str] = "move unit=12 to=5,7"
    KEYS: ClassVar[dict[str, str]] = {"unit": "unit_id", "to": "to"}

    action: Literal["move"] = "move"
    unit_id: Id
    to: Tile


class Attack(_OrderBase):
    """TOOLS-230: attack whatever stands on a tile; flags hold, pursue, surprise."""

    USAGE: ClassVar[str] = "attack unit=ID to=q,r [hold] [pursue] [surprise]"
    EXAMPLE: ClassVar[str] = "attack unit=7 to=4,13 hold"
    KEYS: ClassVar[dict[str, str]] = {
        "unit": "unit_id",
        "to": "to",
        "hold": "hold",
        "pursue": "pursue",
        "surprise": "surprise",
    }
    FLAGS: ClassVar[tuple[str, ...]] = ("hold", "pursue", "surprise")

    action: Literal["attack"] = "attack"
    unit_id: Id
    to: Tile
    hold: bool = False
    pursue: bool = False
    surprise: bool = False


class Pillage(_OrderBase):
    """TOOLS-240: destroy an enemy improvement on or beside the troop's tile."""

    USAGE: ClassVar[str] = "pillage unit=ID to=q,r"
    EXAMPLE: ClassVar[str] = "pillage unit=9 to=6,8"
    KEYS: ClassVar[dict[str, str]] = {"unit": "unit_id", "to": "to"}

    action: Literal["pillage"] = "pillage"
    unit_id: Id
    to: Tile


class Hold(_OrderBase):
    """TOOLS-250: one or more troops stay and fortify."""

    USAGE: ClassVar[str] = "hold unit=ID (or units=ID,ID)"
    EXAMPLE: ClassVar[str] = "hold units=3,4"
    KEYS: ClassVar[dict[str, str]] = {"unit": "unit_ids", "units": "unit_ids"}

    action: Literal["hold"] = "hold"
    unit_ids: list[Id] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> Hold:
        """A troop listed twice is almost surely a typo; refuse it rather than guess."""
        if len(set(self.unit_ids)) != len(self.unit_ids):
            raise ValueError("unit_ids must not repeat")
        return self


class Merge(_OrderBase):
    """TOOLS-260: join a troop into another of the same type."""

    USAGE: ClassVar[str] = "merge unit=ID target=ID"
    EXAMPLE: ClassVar[str] = "merge unit=5 target=6"
    KEYS: ClassVar[dict[str, str]] = {"unit": "unit_id", "target": "target_id"}

    action: Literal["merge"] = "merge"
    unit_id: Id
    target_id: Id


class Follow(_OrderBase):
    """TOOLS-270: keep a unit with another every month."""

    USAGE: ClassVar[str] = "follow unit=ID target=ID"
    EXAMPLE: ClassVar[str] = "follow unit=14 target=13"
    KEYS: ClassVar[dict[str, str]] = {"unit": "unit_id", "target": "target_id"}

    action: Literal["follow"] = "follow"
    unit_id: Id
    target_id: Id


class Split(_OrderBase):
    """TOOLS-280: split men off a troop and send them to a tile."""

    USAGE: ClassVar[str] = "split unit=ID men=N to=q,r"
    EXAMPLE: ClassVar[str] = "split unit=5 men=2000 to=6,7"
    KEYS: ClassVar[dict[str, str]] = {"unit": "unit_id", "men": "men", "to": "to"}

    action: Literal["split"] = "split"
    unit_id: Id
    men: Annotated[int, BeforeValidator(_no_bool), Field(ge=1, le=MAX_MEN)]
    to: Tile


class Disband(_OrderBase):
    """TOOLS-290: send a troop home (or scatter it)."""

    USAGE: ClassVar[str] = "disband unit=ID"
    EXAMPLE: ClassVar[str] = "disband unit=8"
    KEYS: ClassVar[dict[str, str]] = {"unit": "unit_id"}

    action: Literal["disband"] = "disband"
    unit_id: Id


class Build(_OrderBase):
    """TOOLS-300: a troop pitches an army camp where it stands."""

    USAGE: ClassVar[str] = "build unit=ID what=camp"
    EXAMPLE: ClassVar[str] = "build unit=5 what=camp"
    KEYS: ClassVar[dict[str, str]] = {"unit": "unit_id", "what": "what"}

    action: Literal["build"] = "build"
    unit_id: Id
    what: BuildWhat


class AssignGeneral(_OrderBase):
    """TOOLS-310: put a general in command of a troop."""

    USAGE: ClassVar[str] = "assign_general general=ID unit=ID"
    EXAMPLE: ClassVar[str] = "assign_general general=2 unit=12"
    KEYS: ClassVar[dict[str, str]] = {"general": "general_id", "unit": "unit_id"}

    action: Literal["assign_general"] = "assign_general"
    general_id: Id
    unit_id: Id


class SetProduction(_OrderBase):
    """TOOLS-320 / OPEN-80: replace a city's build queue (an empty list clears it)."""

    USAGE: ClassVar[str] = "set_production city=ID queue=ITEM,ITEM,..."
    EXAMPLE: ClassVar[str] = "set_production city=57 queue=barracks,spearman:2000,palisade,farm@3,4"
    KEYS: ClassVar[dict[str, str]] = {"city": "city_id", "queue": "queue"}

    action: Literal["set_production"] = "set_production"
    city_id: Id
    queue: list[QueueItem]


class SetFocus(_OrderBase):
    """TOOLS-330: choose a city's focus."""

    USAGE: ClassVar[str] = "set_focus city=ID focus=food|balanced|production"
    EXAMPLE: ClassVar[str] = "set_focus city=3 focus=production"
    KEYS: ClassVar[dict[str, str]] = {"city": "city_id", "focus": "focus"}

    action: Literal["set_focus"] = "set_focus"
    city_id: Id
    focus: rd.Focus


class ShipGrain(_OrderBase):
    """TOOLS-340: send a wagon with 1..60 dan from a city to a tile."""

    USAGE: ClassVar[str] = "ship_grain city=ID dan=N to=q,r"
    EXAMPLE: ClassVar[str] = "ship_grain city=3 dan=20 to=8,9"
    KEYS: ClassVar[dict[str, str]] = {"city": "city_id", "dan": "dan", "to": "to"}

    action: Literal["ship_grain"] = "ship_grain"
    city_id: Id
    dan: Annotated[int, BeforeValidator(_no_bool), Field(ge=1, le=MAX_DAN)]
    to: Tile


class FoundCity(_OrderBase):
    """TOOLS-350: colonists found a city where they stand."""

    USAGE: ClassVar[str] = "found_city unit=ID"
    EXAMPLE: ClassVar[str] = "found_city unit=21"
    KEYS: ClassVar[dict[str, str]] = {"unit": "unit_id"}

    action: Literal["found_city"] = "found_city"
    unit_id: Id


class StationSpy(_OrderBase):
    """TOOLS-360: a spy goes into a city and stays there."""

    USAGE: ClassVar[str] = "station_spy unit=ID city=ID"
    EXAMPLE: ClassVar[str] = "station_spy unit=30 city=4"
    KEYS: ClassVar[dict[str, str]] = {"unit": "unit_id", "city": "city_id"}

    action: Literal["station_spy"] = "station_spy"
    unit_id: Id
    city_id: Id


class Sabotage(_OrderBase):
    """TOOLS-370: a stationed spy burns the granary or spreads panic."""

    USAGE: ClassVar[str] = "sabotage city=ID target=granary|panic"
    EXAMPLE: ClassVar[str] = "sabotage city=4 target=granary"
    KEYS: ClassVar[dict[str, str]] = {"city": "city_id", "target": "target"}

    action: Literal["sabotage"] = "sabotage"
    city_id: Id
    target: rd.SabotageTarget


class DeclareWar(_OrderBase):
    """TOOLS-380: declare war on a ruler or kingdom, named as free text (case kept)."""

    USAGE: ClassVar[str] = "declare_war to=<ruler or kingdom name>"
    EXAMPLE: ClassVar[str] = 'declare_war to="Cao Wei"'
    KEYS: ClassVar[dict[str, str]] = {"to": "to"}

    action: Literal["declare_war"] = "declare_war"
    to: Annotated[str, BeforeValidator(_strip), Field(min_length=1, max_length=200)]


OrderModel = (
    Move
    | Attack
    | Pillage
    | Hold
    | Merge
    | Follow
    | Split
    | Disband
    | Build
    | AssignGeneral
    | SetProduction
    | SetFocus
    | ShipGrain
    | FoundCity
    | StationSpy
    | Sabotage
    | DeclareWar
)
#: Any order, discriminated on its "action" field.
Order = Annotated[OrderModel, Field(discriminator="action")]

#: verb -> model class, in the order the rules list them.
ORDER_MODELS: Final[dict[str, type[_OrderBase]]] = {
    m.model_fields["action"].default: m
    for m in (
        Move,
        Attack,
        Pillage,
        Hold,
        Merge,
        Follow,
        Split,
        Disband,
        Build,
        AssignGeneral,
        SetProduction,
        SetFocus,
        ShipGrain,
        FoundCity,
        StationSpy,
        Sabotage,
        DeclareWar,
    )
}
#: Every verb name.
VERBS: Final[tuple[str, ...]] = tuple(ORDER_MODELS)

#: Validates a dict in the OPEN-81 model shape (already normalised: "to" as [q,r]) into an Order.
ORDER_ADAPTER: Final[TypeAdapter[Order]] = TypeAdapter(Order)
