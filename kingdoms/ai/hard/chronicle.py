"""The hard ruler's chronicle note: one or two plain sentences a month that say what is new.

Built from what changed — last month's events the kingdom was told (battles, cities taken or lost, cities
founded, wars, the lead) — and from the month's plan, naming cities, generals and the size of the army, with the
month's figures (men, months to go), so no two months read the same while anything moves.
"""

from __future__ import annotations

import re

from kingdoms import ruledata as rd
from kingdoms.ai.hard.analysis import Analysis
from kingdoms.ai.hard.field import FieldPlan
from kingdoms.ai.hard.strategy import Strategy

#: Event kinds worth a line, most telling first.
NEWS = ("kingdom_eliminated", "city_captured", "city_lost", "city_taken", "city_founded", "war", "lead_started",
        "lead_cancelled", "city_to_bandits", "city_settled", "blockade", "sabotage", "spy_caught")


def _news(an: Analysis) -> str | None:
    """The most telling of last month's events, in its own words (shortened to its first clause)."""
    events = an.obs.events
    for kind in NEWS:
        for e in events:
            if e.get("kind") == kind and e.get("text"):
                text = re.sub(r" ?\(-?\d+, ?-?\d+\)", "", str(e["text"])).rstrip(".")  # places by name, not (q,r)
                return text.split(": ")[0] if len(text) > 120 else text
    return None


def _army_name(an: Analysis, fp: FieldPlan) -> str:
    """The army by its general (the best leading one of its troops), else by its size."""
    men = sum(u.men for u in fp.army if rd.UNITS[u.type].fighting)
    led = sorted((u for u in fp.army if u.general), key=lambda u: (-u.men, u.id))
    if led:
        return f"{led[0].general}'s {men:,} men"
    return f"our {men:,} men"


def _works(an: Analysis) -> str | None:
    """What the capital is building, and how far along it is (it moves every month while anything is queued)."""
    c = an.capital
    head = an.obs.queue_head(c.id)
    if head is None:
        return None
    what = head.item.replace("_", " ")
    if head.men:
        what = f"{head.men:,} {what}"
    done = f"{head.paid:.0f} of {head.price:.0f}" if head.price and not head.men else ""
    when = f", done in {head.months} month{'s' if head.months != 1 else ''}" if head.months else ""
    return f"{c.name} works on {what} ({done}{when})" if done else f"{c.name} works on {what}{when}"


def note(an: Analysis, strategy: Strategy, fp: FieldPlan, notes: list[str]) -> str:
    """The month's note."""
    parts: list[str] = []
    news = _news(an)
    if news:
        parts.append(news)
    aim = strategy.aim
    if aim is not None and fp.army:
        who = "the bandits" if aim.owner == rd.BANDITS else an.rivals[aim.owner].name if aim.owner in an.rivals \
            else aim.owner
        if fp.phase == "siege":
            parts.append(f"{_army_name(an, fp)} stand before {aim.name} ({who})")
        elif fp.phase == "march":
            lead = max(fp.army, key=lambda u: (u.men, -u.id))
            d = max(0, abs(lead.q - aim.tile[0]) + abs(lead.r - aim.tile[1]) + abs(lead.q + lead.r - aim.tile[0]
                                                                                     - aim.tile[1])) // 2
            parts.append(f"{_army_name(an, fp)} march on {aim.name} ({who}), {d} tiles off")
        else:
            recruits = sum(t.men for t in aim.size.recruits)
            more = f", raising {recruits:,} more" if recruits else ""
            parts.append(f"{_army_name(an, fp)} muster at {fp.rally.name if fp.rally else 'home'} for "
                         f"{aim.name} ({who}){more}")
    elif fp.army:
        parts.append(f"{_army_name(an, fp)} stand guard at {fp.rally.name if fp.rally else 'home'}")
    extra = [n for n in dict.fromkeys(notes) if n]
    if extra:
        parts.append(extra[0])
    parts.extend(strategy.notes[:1])
    if len(parts) < 3:
        works = _works(an)
        if works:
            parts.append(works)
    text = "; ".join(parts[:4]) if parts else f"Month {an.month}: {len(an.cities)} cities hold"
    return f"M{an.month}: " + text[0].upper() + text[1:] + "."
