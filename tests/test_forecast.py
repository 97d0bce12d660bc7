"""Forecasts an observation offers (views.forecast, Observation.fight / .siege / .threat / .city_defence /
.months_to): the engine's own exchange on a copy of the believed board, exact where the kingdom may know the
numbers, and blind to what it may not."""

from __future__ import annotations

from kingdoms import ruledata as rd
from kingdoms.engine.combat import field_battle
from kingdoms.engine.context import MonthContext
from kingdoms.engine.intel import city_report
from kingdoms.engine.sieges import assault_city
from kingdoms.state import GameState
from kingdoms.views import observe
from kingdoms.views.forecast import Troop

from .builders import add, add_city, open_world, reveal


def _two_cities() -> GameState:
    """wei at (3,3) and shu at (12,8), at war, on open grassland."""
    state = open_world()
    add_city(state, "wei", (3, 3), capital=True)
    add_city(state, "shu", (12, 8), capital=True)
    state.kingdoms["wei"].capital_id = min(c.id for c in state.cities.values() if c.owner == "wei")
    state.kingdoms["shu"].capital_id = min(c.id for c in state.cities.values() if c.owner == "shu")
    state.wars.append(["shu", "wei"])
    return state


def test_combat_040_watched_fight_forecast_is_the_engines_battle() -> None:
    """COMBAT-040, COMBAT-070, INTEL-080: with a scout watching the enemy troop, the forecast of a melee is exact and gives
    the very losses and fates combat.field_battle gives on the true board."""
    state = _two_cities()
    mine = add(state, "wei", "heavy_infantry", (7, 5), men=4000, months=0)
    add(state, "wei", "scout", (6, 5))
    foe = add(state, "shu", "spearman", (8, 5), men=3200, xp=8.0, morale=80.0, months=0)
    got = observe(state, "wei").fight(mine.id, foe.id)
    assert got.exact and got.kind == "melee" and got.low == got.high
    true = state.clone()
    battle = field_battle(MonthContext(true, scratch=True), true.units[mine.id], true.units[foe.id])
    assert (got.high.att_lost, got.high.def_lost) == (battle.attacker.lost, battle.defender.lost)
    assert (got.high.def_broke, got.high.def_destroyed) == (battle.defender.broke, battle.defender.destroyed)


def test_intel_060_unwatched_fight_forecast_spans_the_size_class() -> None:
    """INTEL-060, COMBAT-410: an enemy troop no scout or spy watches is forecast at both ends of its size class,
    untrained, at full morale; its true men, training and morale inside the class change nothing."""
    state = _two_cities()
    mine = add(state, "wei", "levy", (7, 5), men=5000, months=0)
    foe = add(state, "shu", "spearman", (8, 5), men=2400, months=0)
    a = observe(state, "wei").fight(mine.id, foe.id)
    lo, hi = rd.SIZE_CLASS_RANGE["medium"]
    assert not a.exact and (a.low.def_men, a.high.def_men) == (lo, hi)
    foe.men, foe.xp, foe.morale = 5900, 30.0, 35.0
    assert observe(state, "wei").fight(mine.id, foe.id) == a


def test_siege_180_forecast_of_a_city_as_it_shows() -> None:
    """SIEGE-180, INTEL-030, INTEL-060: a rival city without a fresh spy report is forecast from its walls as seen, the
    size class of its troops and its tier's militia; its hidden garrison, militia and grain do not move the
    forecast, and the forecast takes it only once walls and militia are beaten."""
    state = _two_cities()
    shu = next(c for c in state.cities.values() if c.owner == "shu")
    shu.walls = shu.walls_max = 40.0
    gar = add(state, "shu", "spearman", (shu.q, shu.r), men=1200, fortified=True, months=0)
    army = [add(state, "wei", "levy", (shu.q - 2, shu.r), men=9000, months=0).id,
            add(state, "wei", "levy", (shu.q - 2, shu.r + 1), men=9000, months=0).id]
    obs = observe(state, "wei")
    dfn = obs.city_defence(shu.id)
    assert not dfn.exact and dfn.walls == 40 and dfn.garrison == rd.SIZE_CLASS_RANGE["small"]
    assert dfn.capital and dfn.militia[0] >= rd.YOUNG_REALM_MILITIA
    base = obs.siege(shu.id, army, months=4)
    gar.men, shu.militia, shu.grain = 1900, 50.0, 3.0
    assert observe(state, "wei").siege(shu.id, army, months=4) == base
    # 18,000 men batter 90 a month off walls 40; the garrison (taken at 1,999) must fall before the militia
    assert base.taken_in is not None and base.taken_in >= 2
    assert base.months[0].walls == 0 and not base.months[0].taken
    assert base.months[base.taken_in - 1].taken and base.months[base.taken_in - 2].garrison == 0


def test_intel_220_spy_report_makes_the_siege_forecast_exact() -> None:
    """INTEL-220, SIEGE-120, SIEGE-180: with a spy report from this month the forecast runs on the city as it is: one
    assault's walls, garrison and militia are sieges.assault_city's own on the true board."""
    state = _two_cities()
    shu = next(c for c in state.cities.values() if c.owner == "shu")
    shu.walls = shu.walls_max = 40.0
    add(state, "shu", "spearman", (shu.q, shu.r), men=800, fortified=True, months=0)
    att = add(state, "wei", "levy", (shu.q - 1, shu.r), men=8000, months=0)
    state.kingdoms["wei"].memory.setdefault("reports", {})[str(shu.id)] = city_report(state, shu, state.month, "spy")
    obs = observe(state, "wei")
    assert obs.city_defence(shu.id).exact
    got = obs.siege(shu.id, [att.id], months=1)
    true = state.clone()
    assault_city(MonthContext(true, scratch=True), true.units[att.id], true.cities[shu.id])
    month = got.months[0]
    assert month.taken == (true.cities[shu.id].owner == "wei")
    if not month.taken:
        assert month.walls == true.cities[shu.id].walls


def test_siege_050_threat_forecast_with_a_stronger_garrison_holds_longer() -> None:
    """SIEGE-050, SIEGE-180: weighing a threat to an own city, a bigger garrison (the one it could raise) holds at least
    as long as the city as it stands."""
    state = _two_cities()
    wei = next(c for c in state.cities.values() if c.owner == "wei")
    wei.walls = wei.walls_max = 40.0
    obs = observe(state, "wei")
    threat = [Troop("levy", 9000), Troop("levy", 6000)]
    bare = obs.threat(wei.id, threat, "shu", months=3)
    held = obs.threat(wei.id, threat, "shu", months=3, garrison=Troop("spearman", 6000, fortified=True))
    assert bare.taken_in is not None
    assert held.taken_in is None or held.taken_in >= bare.taken_in


def test_diplo_020_months_to_as_if_at_war_opens_the_rivals_land() -> None:
    """DIPLO-020, DIPLO-090: at peace a rival's land is closed to a march; the same march as a declaration would open it
    (Observation.months_to at_war_with) reaches the tile beside its city."""
    state = open_world()
    add_city(state, "wei", (3, 3), capital=True)
    shu = add_city(state, "shu", (9, 3), capital=True)
    mine = add(state, "wei", "levy", (6, 3), men=3000, months=0)
    reveal(state, "wei")  # the rival's city is known, and the land beside it is in sight
    beside = [(shu.q - 1, shu.r)]
    obs = observe(state, "wei")
    assert obs.months_to(mine.id, beside) is None
    assert obs.months_to(mine.id, beside, at_war_with=["shu"]) is not None


def test_vic_130_ruin_out_of_sight_is_forecast_from_public_facts() -> None:
    """VIC-130, OPEN-70: the Ruin out of sight is taken as the rules describe it: 1,500 spearmen (a small troop)
    behind walls 50, the militia of its 10,000 people."""
    from kingdoms.setup import found_ruin

    state = open_world()
    add_city(state, "wei", (2, 2), capital=True)
    ruin = found_ruin(state, (11, 10))  # far out of Cao Wei's sight
    obs = observe(state, "wei")
    assert not obs.sight.sees(state.map, *ruin.tile)
    dfn = obs.city_defence(ruin.id)
    assert not dfn.exact and dfn.walls == rd.RUIN_WALLS and dfn.garrison == rd.SIZE_CLASS_RANGE["small"]
    assert dfn.militia == (rd.full_militia(rd.RUIN_PEOPLE, False, state.month),) * 2


def test_intel_060_city_defence_is_kept_per_observation() -> None:
    """INTEL-060, INTEL-220: an observation answers city_defence once per city (the forecasts of a month ask it again
    and again): the same answer views.forecast.city_defence gives, and a later observation of a changed board (a
    spy report, more troops) gives the new one while the first keeps the board it was made of."""
    from kingdoms.views import forecast as fc

    state = _two_cities()
    shu = next(c for c in state.cities.values() if c.owner == "shu")
    gar = add(state, "shu", "spearman", (shu.q, shu.r), men=800, fortified=True, months=0)
    add(state, "wei", "levy", (shu.q - 2, shu.r), men=1000, months=0)  # in sight of the city
    obs = observe(state, "wei")
    seen = next((c for c in obs.view.foreign_cities if c.id == shu.id), None)
    first = obs.city_defence(shu.id)
    assert first == fc.city_defence(obs.believed, "wei", obs.sight, shu.id, seen) and not first.exact
    assert obs.city_defence(shu.id) is first
    gar.men = 4000
    state.kingdoms["wei"].memory.setdefault("reports", {})[str(shu.id)] = city_report(state, shu, state.month, "spy")
    later = observe(state, "wei").city_defence(shu.id)
    assert later.exact and later.garrison == (4000, 4000) and later != first
    assert obs.city_defence(shu.id) == first


def test_siege_180_shared_placing_ground_picks_the_tiles_a_ground_per_troop_picks() -> None:
    """SIEGE-180, MOVE-110: the siege forecast places its troops with one Ground of the besieger (own units' tiles read
    from the board as they stand); each troop gets the tile a Ground of its own would give it, a troop already
    placed, an own troop standing by and a foreign troop all kept off, and a siege train beside a troop."""
    from kingdoms.engine.pathing import Ground
    from kingdoms.views import forecast as fc

    state = _two_cities()
    shu = next(c for c in state.cities.values() if c.owner == "shu")
    add(state, "wei", "levy", (shu.q - 1, shu.r), men=2000, months=0)  # own troop on one tile beside the city
    add(state, "shu", "spearman", (shu.q + 1, shu.r), men=1500, months=0)  # a foreign troop on another
    movers = [add(state, "wei", t, (3, 8), men=m, months=0)
              for t, m in (("levy", 3000), ("heavy_infantry", 2500), ("catapult", 300), ("levy", 1000))]
    shared = Ground(state, movers[0])
    taken: set = set()
    for u in movers:
        alone = fc._spot(state, u, shu.tile, 1, taken if u.type != "catapult" else set())
        assert fc._spot(state, u, shu.tile, 1, taken if u.type != "catapult" else set(), shared) == alone
        assert alone is not None and all(o.owner != "shu" for o in state.units_at(*alone))
        u.q, u.r = alone
        if u.type != "catapult":
            taken.add(alone)
    assert len({(u.q, u.r) for u in movers if u.type != "catapult"}) == 3


def test_siege_060_quiet_month_changes_the_numbers_as_a_full_one() -> None:
    """SIEGE-060, SIEGE-210: a forecast's quiet month (no notes, no texts, no capture warning) leaves every number of the
    board as the full month does: the militia's regrowth, an assault's losses, and a city's fall with its captor,
    walls and troops."""
    from kingdoms.engine.sieges import capture_city, militia_phase

    state = _two_cities()
    shu = next(c for c in state.cities.values() if c.owner == "shu")
    shu.militia = 10.0
    add(state, "wei", "levy", (shu.q - 1, shu.r), men=3000, months=0)
    boards = []
    for quiet in (False, True):
        b = state.clone()
        ctx = MonthContext(b, scratch=True, quiet=quiet)
        militia_phase(ctx)
        levy = next(u for u in b.units.values() if u.owner == "wei")
        b.cities[shu.id].walls = 30.0
        text = assault_city(ctx, levy, b.cities[shu.id])  # the fight; its own text only when not quiet
        assert text.startswith(f"#{levy.id} levy assaults") != quiet and ("still stand" in text) != quiet
        capture_city(ctx, b.cities[shu.id], "wei", levy)
        for c in b.cities.values():
            c.last = {}
        boards.append(b.to_dict())
    assert boards[0] == boards[1]
    full = state.clone()
    militia_phase(MonthContext(full, scratch=True))
    assert full.cities[shu.id].last["militia_standing"] == int(full.cities[shu.id].militia) > 10
