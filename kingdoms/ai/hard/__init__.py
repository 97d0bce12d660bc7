"""The hard AI: a ruler built from planners, a client of the engine, that plays the whole rule set.

It sees only its kingdom's Observation and acts only through the order language. Every estimate it makes is
the engine's, run on its believed board through the observation's services: field fights and sieges
(Observation.fight, .siege, .threat, .city_defence: views.forecast runs combat.field_battle and
sieges.assault_city/shoot_city on a copy), routes (Observation.months_to), supply (.in_supply,
.ration_months), city figures and sites (.outlooks, .free_sites, .sites), prices and upkeep (.price,
.upkeep_of); its orders are order models (kingdoms.orders.models), checked with the issue-time check
(Observation.check_orders) before they are given and written by orders.syntax.format_order.

The month is a pipeline of planners, each a function with explicit inputs and outputs (no shared state, no
call order beyond the arguments they take):

    an = analysis.analyse(obs)                       # what the kingdom knows, sorted for the planners
    dp = defence.plan(an)                            # garrisons to the threat seen; the troops it keeps
    st = strategy.plan(an, dp.reserved)              # diplomacy and endgame: the aim, the race for captures
    fp = field.plan(an, st, dp.reserved, dp.wanted)  # the field army: muster, march with its grain, skirmish
    sp = sieges.plan(an, st, fp)                     # the strike: when, with what, declaration and sabotage
    ip = intelligence.plan(an, st, fp)               # scouts, spies, counter-spies
    ep = economy.plan(an, st)                        # focus, buildings, colonists
    orders = arbiter.settle(an, st.share, all of them)
    note = chronicle.note(an, st, fp, notes)

Deterministic: the same observation gives the same orders (no clock, no unseeded randomness, sorted
iteration; the game's public seed is the only source of variety a ruler may use, and this one uses none).
"""

from __future__ import annotations

from kingdoms.ai.common import Decision
from kingdoms.ai.hard import arbiter, chronicle, defence, economy, field, intelligence, sieges, strategy
from kingdoms.ai.hard.analysis import analyse
from kingdoms.ai.hard.plan import Proposals
from kingdoms.views.observation import Observation


def decide(obs: Observation) -> Decision:
    """The hard ruler's month, from its kingdom's observation."""
    if not obs.view.cities or obs.eliminated or obs.finished:
        return Decision("")
    an = analyse(obs)
    dp = defence.plan(an)
    st = strategy.plan(an, dp.reserved)
    fp = field.plan(an, st, dp.reserved, dp.wanted)
    sp = sieges.plan(an, st, fp)
    ip = intelligence.plan(an, st, fp)
    ep = economy.plan(an, st)
    props = Proposals()
    for part in (sp, dp.proposals, fp.proposals, ip, ep):
        props.extend(part)
    orders = arbiter.settle(an, st.share, props)
    note = chronicle.note(an, st, fp, props.notes)
    return Decision.of(orders, note)


__all__ = ["decide"]
