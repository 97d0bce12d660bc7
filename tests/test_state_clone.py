"""GameState.clone: a deep copy written out field by field (it replaced copy.deepcopy for speed).

The state used here is generated from the dataclasses' own fields (dataclasses.fields and their type hints):
every field of every dataclass gets a value unlike its default, containers hold nested containers. So a field
added to a dataclass and not copied by clone() makes these tests fail: the clone would show the default, or
share a container with the original.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import itertools
import types
import typing
from typing import Any

import numpy as np
import pytest

import kingdoms.state as state_module
from kingdoms.engine.month import resolve_month
from kingdoms.gamemap import GameMap
from kingdoms.state import GameState
from tests.conftest import TINY_ROWS, tiny_state

_ATOMS = (str, int, float, bool, type(None), np.integer, np.floating, np.bool_)
_NEXT = itertools.count(3)


def _nested_json() -> Any:
    n = next(_NEXT)
    return {"n": n, "name": f"v{n}", "flag": True, "none": None, "list": [n, [n + 1, {"deep": [n + 2]}]],
            "dict": {"inner": {"x": n + 0.5, "l": [1, 2]}, "tags": ["a", "b"]}}


def _value(tp: Any, game_map: GameMap, name: str) -> Any:
    """A value of type `tp`, with nested mutable containers wherever the type allows them."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return _nested_json()
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        assert len(args) == 1, f"{name}: teach the clone test about {tp}"
        return _value(args[0], game_map, name)
    if tp is bool:
        return True
    if tp is int:
        return next(_NEXT)
    if tp is float:
        return next(_NEXT) + 0.25
    if tp is str:
        return f"{name}-{next(_NEXT)}"
    if tp is np.ndarray:
        return np.arange(game_map.size, dtype=np.int32) % 7 - 1
    if tp is GameMap:
        return game_map
    if dataclasses.is_dataclass(tp):
        return _make(tp, game_map)
    if origin is tuple:
        return tuple(_value(a, game_map, name) for a in typing.get_args(tp))
    if origin is list:
        (item,) = typing.get_args(tp)
        return [_value(item, game_map, name) for _ in range(2)]
    if origin is dict:
        key, item = typing.get_args(tp)
        if item is Any:
            return _nested_json()
        return {_value(key, game_map, name): _value(item, game_map, name) for _ in range(2)}
    raise AssertionError(f"{name}: teach the clone test to make a {tp}")


def _make(cls: type, game_map: GameMap) -> Any:
    """An instance of dataclass `cls` with every field set, and set unlike its default."""
    hints = typing.get_type_hints(cls, vars(state_module))
    values = {}
    for f in dataclasses.fields(cls):
        value = _value(hints[f.name], game_map, f"{cls.__name__}.{f.name}")
        if f.default is not dataclasses.MISSING and f.name != "map":
            assert not _same(value, f.default), f"{cls.__name__}.{f.name}: made its default"
        values[f.name] = value
    return cls(**values)


def full_state() -> GameState:
    return _make(GameState, GameMap.from_rows(TINY_ROWS))


def played_state() -> GameState:
    """The tiny two-kingdom world after a few months: real ledgers, memories and queues."""
    state = tiny_state()
    for _ in range(3):
        state = resolve_month(state, {}).state
    return state


# --- walking a state -------------------------------------------------------------------------------------------


def _children(obj: Any) -> list[tuple[str, Any]]:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [(f.name, getattr(obj, f.name)) for f in dataclasses.fields(obj) if not isinstance(obj, GameMap)]
    if isinstance(obj, dict):
        return [(repr(k), v) for k, v in obj.items()]
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [(str(k), v) for k, v in enumerate(obj)]
    return []


def _walk(obj: Any, path: str = "state"):
    """Every object reachable from `obj` (the shared map not entered), with its path."""
    yield path, obj
    if isinstance(obj, GameMap):
        return
    for key, child in _children(obj):
        yield from _walk(child, f"{path}.{key}")


def _is_mutable(obj: Any) -> bool:
    if isinstance(obj, (*_ATOMS, GameMap)):
        return False
    if isinstance(obj, (tuple, frozenset)):
        return False  # their items are walked on their own
    return True


def _same(a: Any, b: Any) -> bool:
    """Deep equality that also compares numpy arrays (values and dtype) and dataclass types."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))
    if isinstance(a, GameMap):
        return a is b
    if dataclasses.is_dataclass(a):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _mutate(obj: Any) -> None:
    """Change a mutable object in place."""
    if isinstance(obj, np.ndarray):
        obj += 1
    elif isinstance(obj, list):
        obj.append("mutated")
    elif isinstance(obj, dict):
        obj["mutated"] = ["x"]
    elif isinstance(obj, set):
        obj.add("mutated")
    elif dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if isinstance(value, bool):
                setattr(obj, f.name, not value)
            elif isinstance(value, (int, float)):
                setattr(obj, f.name, value + 1)
            elif isinstance(value, str):
                setattr(obj, f.name, value + "!")
    else:
        raise AssertionError(f"cannot mutate {type(obj)}")


# --- the tests ---------------------------------------------------------------------------------------------------


def test_the_generated_state_reaches_every_dataclass_of_the_model() -> None:
    reached = {type(obj) for _, obj in _walk(full_state()) if dataclasses.is_dataclass(obj)}
    model = {cls for _, cls in inspect.getmembers(state_module, inspect.isclass)
             if dataclasses.is_dataclass(cls) and cls.__module__ == state_module.__name__}
    assert model <= reached, f"not in the generated state: {model - reached}"


@pytest.mark.parametrize("make", [full_state, played_state, tiny_state])
def test_clone_equals_the_original_field_by_field(make) -> None:
    state = make()
    twin = state.clone()
    assert twin is not state and twin.map is state.map
    for (path, a), (_, b) in zip(_walk(state), _walk(twin), strict=True):
        if dataclasses.is_dataclass(a) and not isinstance(a, GameMap):
            assert type(a) is type(b), path
            for f in dataclasses.fields(a):
                assert _same(getattr(a, f.name), getattr(b, f.name)), f"{path}.{f.name} not copied"
    assert _same(state, twin)


@pytest.mark.parametrize("make", [full_state, played_state])
def test_clone_to_dict_and_hash_equal_the_originals(make) -> None:
    state = make()
    twin = state.clone()
    assert twin.to_dict() == state.to_dict()
    assert twin.state_hash() == state.state_hash()


@pytest.mark.parametrize("make", [full_state, played_state])
def test_clone_shares_no_mutable_object(make) -> None:
    state = make()
    twin = state.clone()
    originals = {id(obj): path for path, obj in _walk(state) if _is_mutable(obj)}
    shared = [(path, originals[id(obj)]) for path, obj in _walk(twin) if _is_mutable(obj) and id(obj) in originals]
    assert not shared, f"the clone shares these with the original: {shared[:5]}"


@pytest.mark.parametrize("make", [full_state, played_state])
def test_mutating_anything_in_the_clone_leaves_the_original(make) -> None:
    state = make()
    before = copy.deepcopy(state, memo={id(state.map): state.map})
    text = state.canonical_json()
    twin = state.clone()
    targets = [obj for _, obj in _walk(twin) if _is_mutable(obj)]
    assert len(targets) > 20
    for obj in targets:
        _mutate(obj)
    for f in dataclasses.fields(GameState):
        if f.name != "map":
            setattr(twin, f.name, None)
    assert _same(state, before)
    assert state.canonical_json() == text


def test_each_field_mutated_alone_leaves_the_original() -> None:
    """Field by field, for every dataclass instance of the clone: replace scalars, grow containers."""
    state = full_state()
    text = state.canonical_json()
    twin = state.clone()
    for path, obj in list(_walk(twin)):
        if not dataclasses.is_dataclass(obj) or isinstance(obj, GameMap):
            continue
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if _is_mutable(value):
                for _, inner in list(_walk(value)):
                    if _is_mutable(inner) and not dataclasses.is_dataclass(inner):
                        _mutate(inner)
            assert state.canonical_json() == text, f"{path}.{f.name} of the clone is shared with the original"


def test_clone_copies_every_field_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """No field of the generated state falls back on copy.deepcopy (the slow path for unknown values)."""

    def refuse(value: Any, memo: Any = None) -> Any:
        raise AssertionError(f"clone fell back on copy.deepcopy for a {type(value).__name__}")

    state = full_state()
    monkeypatch.setattr(state_module, "copy", types.SimpleNamespace(deepcopy=refuse))
    state.clone()


def test_json_values_of_other_types_are_still_copied() -> None:
    state = tiny_state()
    unit = next(iter(state.units.values()))
    unit.standing = {"action": "move", "to": (np.int64(3), np.int64(4)), "seen": {1, 2}, "odd": bytearray(b"x")}
    twin = state.clone()
    copied = twin.units[unit.id].standing
    assert copied == unit.standing and copied["odd"] is not unit.standing["odd"]
    copied["seen"].add(3)
    copied["odd"].append(1)
    assert unit.standing["seen"] == {1, 2} and unit.standing["odd"] == bytearray(b"x")


def test_extra_attributes_are_deep_copied() -> None:
    state = tiny_state()
    state.scratch_note = {"a": [1]}  # type: ignore[attr-defined]
    twin = state.clone()
    twin.scratch_note["a"].append(2)  # type: ignore[attr-defined]
    assert state.scratch_note == {"a": [1]}  # type: ignore[attr-defined]


@pytest.mark.parametrize("make", [played_state, tiny_state])
def test_clone_of_some_units_and_cities_keeps_those_in_order_and_copies_them(make) -> None:
    """clone(units=, cities=) (a believed board leaving out what its kingdom cannot know): only the ids given, in
    the original's order, each copied as a full clone copies it; everything else as in a full clone."""
    state = make()
    units, cities = list(state.units)[::2], list(state.cities)[1::2]
    part = state.clone(units=set(units), cities=set(cities))
    full = state.clone()
    assert list(part.units) == units and list(part.cities) == cities
    for uid in units:
        assert _same(part.units[uid], full.units[uid]) and part.units[uid] is not state.units[uid]
    for cid in cities:
        assert _same(part.cities[cid], full.cities[cid]) and part.cities[cid] is not state.cities[cid]
    part.units, part.cities = full.units, full.cities
    assert _same(part, full)
