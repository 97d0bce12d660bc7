"""Bandits: the Ruin, bandit cities and the garrison strike (BANDIT-010..080, VIC-090..120, OPEN-2, OPEN-70, OPEN-71).

Bandits are a side, not a kingdom (owner "bandits"), at war with everyone (BANDIT-020, GameState.at_war).
They hold the Ruin from the start, every city that revolts to them and the other cities of a fallen kingdom.
A bandit city never builds, recruits, grows or changes focus (the economy skips it, OPEN-71); its walls
repair and its militia regrows as any city's (sieges). Only the Ruin has a bandit garrison; it holds its
city for good (a standing hold: always fortified) and, each month right after the kingdoms' orders, strikes
ONE enemy fighting troop beside the city when a dry run of the exchange favours it (BANDIT-040): the
troop's losses come to at least 60% of the bandits' own, and the bandits are not routed. It never marches out,
never pillages and never strikes colonists, wagons, camps or cities (BANDIT-030, BANDIT-050, OPEN-2).
"""

from __future__ import annotations

from kingdoms import ruledata as rd
from kingdoms.engine.combat import field_battle, melee_exchange, morale_after, routs
from kingdoms.engine.context import MonthContext
from kingdoms.engine.registry import phase
from kingdoms.engine.sieges import garrison
from kingdoms.frozen import record
from kingdoms.hexgrid import distance
from kingdoms.state import City, GameState, Unit


def bandit_cities(state: GameState) -> list[City]:
    """Cities the bandits hold, in id order (BANDIT-010)."""
    return sorted((c for c in state.cities.values() if c.owner == rd.BANDITS), key=lambda c: c.id)


@record
class StrikeOdds:
    """A dry run of a bandit strike: what each side would lose and whether the bandits would break."""

    target_id: int
    target_loss: int
    bandit_loss: int
    bandits_rout: bool

    @property
    def favourable(self) -> bool:
        """The fight favours the bandits: troop loses >= 60% of what they lose, and they hold (BANDIT-040)."""
        return not self.bandits_rout and self.target_loss >= rd.BANDIT_FAVOUR_SHARE * self.bandit_loss


def strike_odds(state: GameState, gar: Unit, target: Unit) -> StrikeOdds:
    """Dry-run the exchange of the bandit garrison striking `target`; nothing changes.

    The same arithmetic as the strike itself (combat.melee_exchange, as combat.field_battle fights it): the
    garrison's attack (no walls on its blow, OPEN-98) against the troop's field defence (terrain, fortified,
    camp, spearmen against cavalry), with flanking and a burning camp; the rout test is COMBAT-180's.
    """
    _, _, _, res = melee_exchange(state, gar, target)
    rout = routs(gar.men, res.att_loss, morale_after(gar, res.att_loss))
    return StrikeOdds(target.id, res.dfn_loss, res.att_loss, rout)


def strike_targets(state: GameState, city: City) -> list[Unit]:
    """Enemy fighting troops beside the bandit city: never civilians, agents or camps (BANDIT-050, OPEN-2).

    A siege train sharing its tile with a troop of its side is covered by it (MOVE-150): only the troop is a target.
    """
    out = []
    for u in state.units.values():
        if not u.spec.fighting or u.men <= 0 or u.owner == rd.BANDITS or distance(u.tile, city.tile) != 1:
            continue
        if u.type == "catapult" and any(o.owner == u.owner and o.spec.fighting and o.type != "catapult"
                                        for o in state.units_at(u.q, u.r)):
            continue
        out.append(u)
    return sorted(out, key=lambda u: (u.r, u.q, u.id))


def choose_strike(state: GameState, city: City, gar: Unit) -> StrikeOdds | None:
    """The most favourable strike: highest ratio of their losses to ours, then most men killed, then lowest r, q."""
    best: tuple[float, int, int, int] | None = None
    pick: StrikeOdds | None = None
    for n, target in enumerate(strike_targets(state, city)):
        odds = strike_odds(state, gar, target)
        if not odds.favourable:
            continue
        ratio = odds.target_loss / odds.bandit_loss if odds.bandit_loss else float("inf")
        key = (-ratio, -odds.target_loss, n, target.id)
        if best is None or key < best:
            best, pick = key, odds
    return pick


def strike(ctx: MonthContext, city: City, gar: Unit, target: Unit) -> str:
    """The bandit garrison strikes from inside its city and stays at its post (COMBAT-150, COMBAT-210, BANDIT-030).

    combat.field_battle carries it out: the target may break, fall back or be destroyed; the garrison never
    breaks or advances; bandits take no civilians and capture no generals (OPEN-2, OPEN-40).
    """
    battle = field_battle(ctx, gar, target)
    text = f"The bandits of {city.name} strike out: " + battle.summary()
    if gar.id in ctx.state.units and gar.men < rd.BREAK_UP_BELOW:
        from kingdoms.engine.conquest import remove_unit

        remove_unit(ctx, gar, None)
        text += "; the bandit garrison is wiped out"
    return text


@phase("bandits")
def bandits_phase(ctx: MonthContext) -> None:
    """Each bandit garrison strikes one enemy troop beside its city when the fight favours it (BANDIT-040)."""
    state = ctx.state
    for city in bandit_cities(state):
        gar = garrison(state, city)
        if gar is None:
            continue
        odds = choose_strike(state, city, gar)
        if odds is not None:
            strike(ctx, city, gar, state.units[odds.target_id])
        if gar.id in state.units:
            gar.fortified = True  # it holds its city for good (BANDIT-030)
