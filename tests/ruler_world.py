"""A hand-built month-5 world for the issue 16 agent tests: a spy inside a rival city, a blockade, troops fed by
land, a camp and rations, a troop far off to chase, and a restless city (tests/test_ruler_needs.py)."""

from __future__ import annotations

from kingdoms.engine.land import found_city
from kingdoms.state import Camp, GameState, StationedSpy

from .builders import add, world


def ruler_world() -> GameState:
    """Wei (Xuchang (3,3), capital) and Shu (Chengdu (22,3), capital; Jiangling (14,9), small) at war in month 5.

    Wei: levy 3,000 in Xuchang; spearman 2,000 on Jiangling's land beside it (blockading: no garrison, militia
    600); a spy stationed in Jiangling since M3; levy 1,000 on Xuchang's land (3,4); archer 1,000 beside a
    stocked camp (9,3); levy 1,000 at (1,13) far from Shu's levy 1,000 at (13,13), which a scout at (11,12)
    watches. Shu: levy 3,000 in Chengdu.
    """
    state = world(width=30, height=16)
    xuchang = found_city(state, "wei", 3, 3, 40_000, 300, capital=True, name="Xuchang", founder="wei")
    found_city(state, "shu", 22, 3, 15_000, 150, capital=True, name="Chengdu", founder="shu")
    jiangling = found_city(state, "shu", 14, 9, 6_000, 100, name="Jiangling", founder="shu")
    for city in state.cities.values():
        city.militia = float(min(1_000, city.people // 10)) if not city.is_capital else 3_000.0
    state.kingdoms["wei"].capital_id = xuchang.id
    state.kingdoms["shu"].capital_id = next(c.id for c in state.cities.values() if c.name == "Chengdu")
    add(state, "wei", "levy", (3, 3), 3_000)
    add(state, "wei", "spearman", (15, 9), 2_000)  # on Jiangling's land, beside it
    add(state, "wei", "levy", (3, 4), 1_000)
    add(state, "wei", "archer", (9, 4), 1_000)
    camp_id = state.new_id()
    state.camps[camp_id] = Camp(camp_id, "wei", 9, 3, grain=40.0)
    add(state, "wei", "levy", (1, 13), 1_000)
    add(state, "wei", "scout", (11, 12))
    add(state, "shu", "levy", (13, 13), 1_000, fortified=True)
    add(state, "shu", "levy", (22, 3), 3_000)
    state.spies.append(StationedSpy("wei", jiangling.id, 3))
    return state
