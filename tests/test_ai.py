"""Scripted AI rulers (issue "AI rulers"): legal orders, fog of war, determinism, a short game, the note.

The games here are short slices of the default scenario played through the game service, the way
`kingdoms play` runs them. The whole-game strength figures (scripts/ai_strength.py) are an opt-in slow test.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from kingdoms import ruledata as rd
from kingdoms.ai import DEFAULT_LEVEL, LEVELS, decide_orders, level_of
from kingdoms.ai.common import Decision
from kingdoms.engine.sight import sight_of
from kingdoms.engine.visibility import can_see_unit
from kingdoms.game import Game
from kingdoms.setup import build_state, resolve_scenario
from kingdoms.state import GameState, QueueEntry
from kingdoms.views import observe

SEED = 11
ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Played:
    """A game slice: the game, every verdict given to each seat, and the order texts accepted."""

    game: Game
    refused: list[tuple[int, str, str, str]] = field(default_factory=list)
    accepted: Counter = field(default_factory=Counter)
    states: dict[int, GameState] = field(default_factory=dict)


def play(path: Path, levels: list[str], months: int, seed: int = SEED, keep: tuple[int, ...] = ()) -> Played:
    """Play `months` months of the default scenario with AI seats at `levels` (rotating over the kingdoms)."""
    state = build_state(resolve_scenario(None), seed)
    controllers = {k: f"ai:{levels[n % len(levels)]}" for n, k in enumerate(state.kingdoms)}
    game, _ = Game.create(path, state, scenario="three_kingdoms", controllers=controllers)
    out = Played(game)
    issue = game.issue

    def watched(kingdom: str, orders: Any, **kw: Any) -> Any:
        verdicts = issue(kingdom, orders, **kw)
        for v in verdicts:
            if v.ok:
                out.accepted[(kingdom, v.text.split()[0])] += 1
            else:
                out.refused.append((game.month, kingdom, v.text, v.message))
        return verdicts

    game.issue = watched  # type: ignore[method-assign]
    for _ in range(months):
        if game.month in keep:
            out.states[game.month] = game.state().clone()
        if game.finished:
            break
        game.play_ai_seats()
    return out


@pytest.fixture(scope="module")
def standard_game(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """Three standard rulers, 36 months."""
    return play(tmp_path_factory.mktemp("std") / "g.sqlite", ["standard"], 36, keep=(12, 24, 30))


@pytest.fixture(scope="module")
def passive_game(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """Three passive rulers, 40 months."""
    return play(tmp_path_factory.mktemp("pas") / "g.sqlite", ["passive"], 40, keep=(20,))


@pytest.fixture(scope="module")
def hard_game(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """A hard ruler (Cao Wei, the first seat) against a standard and a passive one, 50 months."""
    return play(tmp_path_factory.mktemp("hard") / "g.sqlite", ["hard", "standard", "passive"], 50, keep=(20, 40))


@pytest.fixture(scope="module")
def mixed_game(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """One standard ruler (Eastern Wu, the third seat) against two passive ones, 45 months."""
    return play(tmp_path_factory.mktemp("mix") / "g.sqlite", ["passive", "passive", "standard"], 45)


# --- seats and levels ---------------------------------------------------------------------------------------------


def test_levels_and_controllers() -> None:
    """`ai` means the standard ruler; `ai:passive`, `ai:standard` and `ai:hard` name the levels; anything else is
    refused."""
    assert set(LEVELS) >= {"passive", "standard", "hard"}
    assert level_of("ai:hard") == "hard"
    assert DEFAULT_LEVEL == "standard"
    assert level_of("ai") == "standard"
    assert level_of("ai:passive") == "passive"
    with pytest.raises(ValueError, match="unknown AI level"):
        level_of("ai:grandmaster")


def test_kingdoms_play_seats_standard_everywhere() -> None:
    """`kingdoms play` seats ai:standard for every kingdom; `--seat KINGDOM=ai:passive` overrides one."""
    from kingdoms.cli import _controllers, _has_standard

    assert _has_standard()
    seats = _controllers(["shu=ai:passive"], ["wei", "shu", "wu"], "ai:standard")
    assert seats == {"wei": "ai:standard", "shu": "ai:passive", "wu": "ai:standard"}


# --- legal orders --------------------------------------------------------------------------------------------------


def test_passive_orders_are_never_refused(passive_game: Played) -> None:
    """The passive ruler's orders all pass the issue-time checks over 40 months (TURN-050)."""
    assert passive_game.refused == []
    assert passive_game.accepted, "the passive rulers gave no orders at all"


def test_passive_never_attacks_and_builds_up(passive_game: Played) -> None:
    """Passive rulers never attack or declare war, and wall, farm and garrison their capitals."""
    verbs = {verb for (_, verb) in passive_game.accepted}
    assert not verbs & {"attack", "declare_war", "pillage", "found_city"}
    state = passive_game.game.state()
    assert state.wars == []
    for kid in state.kingdoms:
        capital = state.cities[state.kingdoms[kid].capital_id]
        assert "palisade" in capital.buildings and "barracks" in capital.buildings
        assert any(imp.kind == "farm" for imp in capital.improvements)
        spears = sum(u.men for u in state.units.values() if u.owner == kid and u.type == "spearman")
        assert spears >= 1000, f"{kid} keeps no spearman garrison"
        # an empty queue is sensible only while its production still buys grain for an unfilled granary
        cap = 600 if any(imp.kind == "granary" for imp in capital.improvements) else 300
        assert capital.queue or capital.grain < cap - 1, f"{kid} wastes its capital's production"


@pytest.mark.long
def test_standard_orders_are_never_refused(standard_game: Played, mixed_game: Played) -> None:
    """OPEN-86, TURN-050: the scripted rulers play through the same orders and checks as any seat: the standard
    ruler's orders all pass the issue-time checks (three standard rulers, and one against two passive ones)."""
    assert standard_game.refused == []
    assert mixed_game.refused == []


@pytest.mark.long
def test_hard_orders_are_never_refused(hard_game: Played) -> None:
    """TURN-050: the hard ruler checks its orders on its believed board before giving them, so none is refused."""
    assert hard_game.refused == []
    assert hard_game.accepted[("wei", "set_production")] > 0


def test_hard_orders_are_order_models_written_by_the_syntax(hard_game: Played) -> None:
    """The hard ruler's orders are order models written by orders.syntax.format_order: every line parses back
    to a model that writes the very same line."""
    from kingdoms.orders.syntax import ParsedOrder, format_order, parse_orders

    lines = []
    for state in hard_game.states.values():
        lines += [ln for ln in decide_orders(observe(state, "wei"), "ai:hard").orders.splitlines() if ln.strip()]
    assert lines, "the hard ruler gave no orders"
    for line in lines:
        (parsed,) = parse_orders(line)
        assert isinstance(parsed, ParsedOrder) and format_order(parsed.order) == line


def test_every_ruler_gives_the_models_its_text_reads_as(hard_game: Played) -> None:
    """TURN-050: a Decision's order models (which the game service queues as they are) parse, position for
    position, to what its text parses to: the same order, the same echoed text, for every level."""
    from kingdoms.orders.syntax import parse_orders

    given = 0
    for state in hard_game.states.values():
        obs = observe(state, "wei")
        for level in LEVELS:
            decision = decide_orders(obs, f"ai:{level}")
            assert parse_orders(list(decision.parsed)) == parse_orders(decision.orders), (level, state.month)
            given += len(decision.parsed)
    assert given > 0, "no ruler gave an order"


# --- a short game ----------------------------------------------------------------------------------------------------


def test_hard_takes_the_field_scouts_spies_and_feeds_its_march(hard_game: Played) -> None:
    """Against a standard and a passive ruler the hard ruler raises an army and marches it out (moves, follows),
    sends a scout and a spy (station_spy), ships grain after its army, and has taken a capture by month 50 (the
    Ruin is a month's march from nobody: it races for it)."""
    acc = hard_game.accepted
    assert acc[("wei", "move")] > 0 and acc[("wei", "station_spy")] > 0
    assert acc[("wei", "ship_grain")] > 0 and acc[("wei", "attack")] > 0
    state = hard_game.game.state()
    from kingdoms.engine.victory import captures

    assert captures(state).get("wei", 0) >= 1 or state.finished


def test_hard_note_says_something_new_each_month(hard_game: Played) -> None:
    """The hard ruler's chronicle note names what changed: no sentence is written twenty months running, and most
    months' notes differ from the month before."""
    notes = [n["text"].split(": ", 1)[-1] for n in hard_game.game.store.notes("wei", "note")]  # without "M12: "
    assert len(notes) >= 40
    run = longest = 1
    for a, b in zip(notes, notes[1:], strict=False):
        run = run + 1 if a == b else 1
        longest = max(longest, run)
    assert longest < 20
    changed = sum(1 for a, b in zip(notes, notes[1:], strict=False) if a != b)
    assert changed >= 0.8 * (len(notes) - 1)



def test_standard_founds_a_city_raises_an_army_and_scouts(mixed_game: Played) -> None:
    """OPEN-86: against passive rulers the standard ruler (a simple heuristic) founds a city, raises a mixed army
    beyond its starting levies, walls its cities and builds a barracks, explores with a scout and writes a
    chronicle note each month."""
    game = mixed_game.game
    state = game.state()
    wu = "wu"
    cities = [c for c in state.cities.values() if c.founder == wu and not c.is_ruin]
    assert len(cities) >= 2, "no city founded"
    troops = [u for u in state.units.values() if u.owner == wu and u.spec.fighting]
    men = sum(u.men for u in troops)
    assert men >= 6000 or any(c.owner == wu and c.is_ruin for c in state.cities.values())
    assert {u.type for u in troops} - {"levy"}, "the army is still only levies"
    assert mixed_game.accepted[(wu, "move")] > 0
    assert mixed_game.accepted[(wu, "set_production")] > 0
    built = {b for c in state.cities.values() if c.owner == wu for b in c.buildings}
    assert {"palisade", "barracks"} <= built
    notes = [n for n in game.store.notes(wu, "note")]
    assert len(notes) >= 40 and all(n["text"] for n in notes)
    months = {n["month"] for n in notes}
    assert months >= set(range(1, 41))


def test_note_is_returned_with_the_orders(standard_game: Played) -> None:
    """decide_orders returns a Decision: orders in the short syntax and a one-line note for the chronicle."""
    game = standard_game.game
    decision = decide_orders(game.observation("wei"), "ai:standard")
    assert isinstance(decision, Decision)
    assert decision.note and "\n" not in decision.note
    for line in decision.orders.splitlines():
        assert line.split()[0] in {"move", "attack", "hold", "merge", "split", "set_production", "set_focus",
                                   "ship_grain", "found_city", "declare_war", "build", "disband", "assign_general"}


# --- determinism -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["standard", "passive", "hard"])
def test_same_view_same_orders(standard_game: Played, level: str) -> None:
    """Deciding twice on the same observation, or on one of a copy of the state, gives the very same orders and note."""
    for month, state in standard_game.states.items():
        for kid in state.kingdoms:
            obs = observe(state, kid)
            a = LEVELS[level](obs)
            again = LEVELS[level](obs)
            b = LEVELS[level](observe(state.clone(), kid))
            c = LEVELS[level](observe(GameState.from_dict(state.to_dict(), state.map), kid))
            assert a == again == b == c, f"{level} {kid} month {month}"


def test_reopened_game_decides_alike(standard_game: Played) -> None:
    """A game file opened afresh (another process would do the same) yields the same decisions."""
    game = standard_game.game
    again = Game.open(game.store.path)
    try:
        for kid in game.state().kingdoms:
            assert (decide_orders(game.observation(kid), "ai:standard")
                    == decide_orders(again.observation(kid), "ai:standard"))
    finally:
        again.close()


# --- fog of war ------------------------------------------------------------------------------------------------------


def _hide_and_change(state: GameState, kingdom: str) -> GameState:
    """A copy of `state` where everything `kingdom` cannot see of its rivals is different: the men, rations,
    morale and training of their troops out of its sight, and every foreign city's grain, store, queue,
    happiness, focus and militia."""
    other = state.clone()
    sight = sight_of(other, kingdom)
    changed = 0
    for unit in other.units.values():
        if unit.owner == kingdom or can_see_unit(other, kingdom, unit, sight):
            continue
        if other.city_at(unit.q, unit.r) is not None and sight.sees(other.map, unit.q, unit.r):
            continue  # inside a city in sight: its size class shows
        if unit.spec.fighting:
            unit.men = max(100, min(rd.MAX_TROOP_MEN, unit.men * 3 + 777))
        unit.rations = 0.5
        unit.morale = 31.0
        unit.xp = 19.0
        changed += 1
    for city in other.cities.values():
        if city.owner == kingdom:
            continue
        city.grain = 3.0
        city.store = 55.0
        city.happiness = 41.0
        city.focus = "production" if city.focus != "production" else "food"
        city.militia = 7.0
        if city.owner in other.kingdoms:
            city.queue = [QueueEntry("levy", men=9000), QueueEntry("colonists")]
        changed += 1
    for kid, kd in other.kingdoms.items():
        if kid != kingdom:
            kd.memory = {}
    assert changed
    return other


@pytest.mark.parametrize("level", ["standard", "passive", "hard"])
def test_orders_ignore_what_the_kingdom_cannot_see(standard_game: Played, level: str) -> None:
    """INTEL: an AI builds its picture from its kingdom's Observation only. Changing every hidden detail of its rivals
    (troops out of sight, cities' granaries, stores, queues, militia, their map memory) changes nothing in
    its orders."""
    for month, state in standard_game.states.items():
        for kid in state.kingdoms:
            before = LEVELS[level](observe(state, kid))
            after = LEVELS[level](observe(_hide_and_change(state, kid), kid))
            assert before == after, f"{level} ruler of {kid} in month {month} read hidden state"


# --- strength (opt-in) -----------------------------------------------------------------------------------------------


def _strength_script():  # -> the scripts/ai_strength.py module
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import ai_strength
    finally:
        sys.path.pop(0)
    return ai_strength


@pytest.mark.slow
def test_strength_targets() -> None:
    """scripts/ai_strength.py over 20 seeded games: standard beats passive in 80%+, and games between standard
    rulers end with a winner in half or more."""
    assert _strength_script().main(["--games", "20", "--check", "--quiet"]) == 0


@pytest.mark.slow
def test_hard_strength_and_speed_targets() -> None:
    """scripts/ai_strength.py over 30 seeded games a table, seats rotated: hard beats two standard rulers in 75%+
    and two passive ones in 95%+ (most wins before month 100); games of three hard rulers end with a winner in
    60%+; a hard decision takes under 30 ms CPU at the 95th percentile, a three-hard game under 20 s CPU; no
    order refused."""
    assert _strength_script().main(["--tables", "hard-std,hard-passive,hard-hard", "--games", "30", "--check",
                                    "--quiet"]) == 0


def test_hard_analysis_keeps_each_field_for_the_decision() -> None:
    """ai:hard's Analysis.field_from answers a tile once per decision: the same field common.distance_field gives
    over the picture's troop costs, and a later month's analysis works it out again from its own picture."""
    from kingdoms.ai.common import distance_field
    from kingdoms.ai.hard.analysis import analyse

    state = build_state(resolve_scenario(None), SEED)
    kingdom = next(iter(state.kingdoms))
    an = analyse(observe(state, kingdom))
    home = (an.capital.q, an.capital.r)
    got = an.field_from(home)
    assert an.field_from(home) is got and an._fields[home] is got
    assert (got == distance_field(an.mi, [an.idx(home)], an.pic.troop_costs())).all()
    later = analyse(observe(state, kingdom))
    assert home not in later._fields
    assert (later.field_from(home) == got).all()


def test_standard_site_search_pruned_by_ceilings_picks_as_a_full_search(standard_game: Played) -> None:
    """CITY-450: the standard ruler's site search, skipping the tiles whose ceiling (economy.site_ceilings) cannot beat
    the best site it holds, picks the very site a search reading every candidate's report picks, for a new colony
    and for each colonist afield, every month of a game; and it reads fewer reports."""
    import numpy as np

    from kingdoms.ai.common import picture_for
    from kingdoms.ai.standard import Ruler

    game = standard_game.game
    made = {"pruned": 0, "full": 0}
    searches = 0
    for month in game.store.month_hashes():
        state = game.state(month)
        for kid in state.kingdoms:
            picks = {}
            for how in ("pruned", "full"):
                obs = observe(state, kid)
                if how == "full":  # no ceiling ever stops the search
                    def unbounded(at: Any) -> Any:
                        return np.full(len(at), np.inf), np.full(len(at), np.inf)

                    obs.site_ceilings = unbounded  # type: ignore[method-assign]
                report = obs.site_report_at

                def counted(i: int, how: str = how, report: Any = report) -> Any:
                    made[how] += 1
                    return report(i)

                obs.site_report_at = counted  # type: ignore[method-assign]
                ruler = Ruler(picture_for(obs))
                if not ruler.p.cities:
                    continue
                ruler.analyse()
                picks[how] = [ruler.best_site(None)] + [ruler.best_site(u) for u in ruler.colonists]
            assert picks["pruned"] == picks["full"], (month, kid)
            searches += len(picks.get("full", ()))
    assert searches > 60
    assert made["pruned"] * 10 < made["full"], made


def test_site_report_at_reads_one_tile_as_the_whole_map_tables_have_it(standard_game: Played) -> None:
    """CITY-450: Observation.site_report_at asks of one tile whether a city may stand there and what its report's memo
    key is, as the whole-map answers have them (_site_open, and the signature table: terrain and river of the tile
    and its neighbours, 255 off the map, its water class), on every tile at the start and in months with land held,
    foreign cities known and the Ruin in view; and it gives the report whether or not the table was built."""
    import numpy as np

    from kingdoms.views.observation import _site_signature_at

    states = [build_state(resolve_scenario(None), SEED), *standard_game.states.values()]
    opened = 0
    for state in states:
        for kid in state.kingdoms:
            obs, fresh = observe(state, kid), observe(state, kid)
            known = obs.believed.map
            code = np.append(known.terrain.astype(np.int16) * 2 + known.river.astype(np.int16), 255)
            table = np.concatenate([code[:-1, None], code[np.where(known.nbr >= 0, known.nbr, known.size)],
                                    known.water_class.astype(np.int16)[:, None]], axis=1).astype(np.uint8)
            whole = obs._site_open
            for i in range(obs.map.size):
                assert fresh._site_open_at(i) == bool(whole[i]), (state.month, kid, i)
                assert _site_signature_at(known, i) == table[i].tobytes(), (state.month, kid, i)
                if i % 5 == 0:
                    assert fresh.site_report_at(i) == obs.site_report_at(i), (state.month, kid, i)
            assert "_site_open" not in fresh.__dict__
            opened += int(whole.sum())
    assert opened > 100


def test_standard_queue_prerequisites_go_first_and_doubles_once() -> None:
    """BUILD-010: the standard ruler's queue puts a troop's prerequisite building before it (pulled forward from
    later in the list), drops a troop whose prerequisite it neither has nor plans, and keeps one of equal items
    (the same item, men and tile) while items that differ in men or tile all stay."""
    from types import SimpleNamespace

    from kingdoms.ai.standard import Ruler
    from kingdoms.orders.models import QueueItem, men_range

    needs = {name: spec.requires for name, spec in rd.UNITS.items() if spec.requires}
    troop, building = next(iter(needs.items()))
    lo = men_range(troop)[0]
    city = SimpleNamespace(buildings=[], improvements=[], queue=[])
    items = [QueueItem(item="farm"), QueueItem(item=troop, men=lo), QueueItem(item="farm"),
             QueueItem(item="farm", tile=(3, 4)), QueueItem(item=troop, men=lo), QueueItem(item=building),
             QueueItem(item=troop, men=lo + 1000)]
    got = Ruler.order_prereqs(None, city, items)  # type: ignore[arg-type]
    assert [(x.item, x.men, x.tile) for x in got] == [
        ("farm", None, None), (building, None, None), (troop, lo, None), ("farm", None, (3, 4)),
        (troop, lo + 1000, None)]
    assert Ruler.order_prereqs(None, city, [QueueItem(item=troop, men=lo)]) == []  # type: ignore[arg-type]
