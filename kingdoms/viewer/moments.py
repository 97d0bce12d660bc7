"""The key moments of a game as one audience knew them: first cities, wars, the Ruin changing hands, captures,
cities lost to the bandits, eliminations, lead changes and the end, each with its month (the page jumps there)."""

from __future__ import annotations

from dataclasses import dataclass

from kingdoms import ruledata as rd
from kingdoms.viewer.frames import Record
from kingdoms.viewer.words import capital


@dataclass(slots=True)
class Moment:
    """One key moment: the month it happened in, its kind (the page's colour) and a sentence."""

    month: int
    kind: str
    text: str


def ruin_ids(record: Record) -> set[int]:
    """Ids of the Ruin as the record shows it."""
    return {c.id for f in record.frames[:1] + record.frames[-1:] for c in f.cities if c.ruin}


def city_names(record: Record) -> dict[int, str]:
    """Every city name the record knows, by id (the latest wins)."""
    out: dict[int, str] = {}
    for f in record.frames:
        for c in f.cities:
            out[c.id] = c.name
    return out


def key_moments(record: Record) -> list[Moment]:
    """The record's key moments in month order."""
    name = record.name
    ruins = ruin_ids(record)
    cities = city_names(record)
    founded: set[str] = set()
    out: list[Moment] = []
    for e in record.events:
        d = e.data
        city = cities.get(int(d["city_id"]), "a city") if d.get("city_id") is not None else "a city"
        if e.kind == "city_founded":
            owner = _owner_at(record, e.month, int(d.get("city_id", -1)))
            if owner and owner not in founded:
                founded.add(owner)
                out.append(Moment(e.month, "found", f"{name(owner)} founds its first new city, {city}"))
        elif e.kind == "war":
            out.append(Moment(e.month, "war", f"{name(d.get('attacker'))} declares war on {name(d.get('defender'))}"))
        elif e.kind == "city_captured":
            captor, loser = d.get("captor"), d.get("loser")
            if int(d.get("city_id", -1)) in ruins:
                out.append(Moment(e.month, "ruin", f"{name(captor)} takes the Ruin, {city}, from {name(loser)}"))
            else:
                what = " (a capture)" if d.get("capture") else ""
                out.append(Moment(e.month, "capture", f"{name(captor)} takes {city} from {name(loser)}{what}"))
        elif e.kind == "city_to_bandits":
            out.append(Moment(e.month, "capture", f"{city} goes over to the bandits"))
        elif e.kind == "city_returned":
            out.append(Moment(e.month, "capture", f"{city} rises and returns to its founder"))
        elif e.kind == "kingdom_eliminated":
            by = d.get("by")
            tail = f" to {name(by)}" if by and by != rd.BANDITS else ""
            out.append(Moment(e.month, "end", f"{name(d.get('kingdom'))} falls{tail}"))
        elif e.kind == "lead_started":
            out.append(Moment(e.month, "lead", f"{name(d.get('kingdom'))} takes the lead on captures"))
        elif e.kind == "lead_cancelled":
            out.append(Moment(e.month, "lead", f"{name(d.get('kingdom'))} loses the lead: a rival draws level"))
        elif e.kind == "game_end":
            out.append(Moment(e.month, "end", capital(end_sentence(record, d))))
    return out


def _owner_at(record: Record, month: int, city_id: int) -> str | None:
    """Who held city `city_id` at the end of `month`, as the record shows it."""
    frame = record.frame_for(month)
    for c in frame.cities if frame else []:
        if c.id == city_id:
            return c.side
    return None


def end_sentence(record: Record, data: dict) -> str:
    """How the game ended, from the game_end event's data."""
    winners = [record.name(k) for k in data.get("winners") or []]
    reason = data.get("reason")
    if not winners:
        return "the game ends with no kingdom left standing"
    names = " and ".join(winners)
    if data.get("draw"):
        return f"the game ends in a draw between {names}, level on captures"
    why = {"lead": f"after holding the lead on captures for {rd.LEAD_MONTHS} months",
           "last_standing": "as the last kingdom standing",
           "time_limit": "with the most captures when time ran out"}.get(str(reason), "")
    return f"{names} wins the game {why}".strip()
