"""GameState.stored_form: the hash and the stored JSON made in one go are exactly `hash_of_data(to_dict())` and
JSON that loads back to `to_dict()` (keys in order), including after the tile owners change (the owner JSON
kept per map is reused only while the array is unchanged)."""

from __future__ import annotations

import json
import math
import zlib
from pathlib import Path

import pytest

from kingdoms import state as state_module
from kingdoms.engine.month import resolve_month
from kingdoms.game import Game
from kingdoms.state import _STORE_ADAPTER, GameState, hash_of_data
from kingdoms.storage import _pack, _unpack

from .conftest import tiny_state


def _same_as_to_dict(state: GameState) -> None:
    """stored_form agrees with to_dict + hash_of_data, and its JSON loads to to_dict in content and key order."""
    data = state.to_dict()
    digest, body = state.stored_form()
    assert digest == hash_of_data(data) == state.state_hash()
    # json.dumps compares key order too, and NaN as text (NaN != NaN as a float)
    assert json.dumps(json.loads(body)) == json.dumps(data)
    assert json.dumps(_unpack(_pack(body))) == json.dumps(_unpack(_pack(data)))


def test_stored_form_is_to_dict_and_its_hash_with_awkward_values() -> None:
    """Non-ASCII text, a huge seed, tiny and huge floats, NaN in a float field, an infinity inside a ledger,
    unsorted nested keys: the same hash and the same loaded structure as the plain to_dict path."""
    state = tiny_state()
    state.seed = 2**70 + 3
    city = next(iter(state.cities.values()))
    city.name = "Zhé\u2028\"quoted\"\\"
    city.grain = float("nan")
    city.store = 1e-7
    city.happiness = 1.5e17
    city.last = {"z": 1, "a": [0.1 + 0.2, 5e-324, math.inf], "m": {"10": 1, "2": {"y": None, "b": True}}}
    state.kingdoms["wei"].memory = {"reports": {"10": {"a": 1}, "2": {"b": 2}}, "explored": "ff"}
    _same_as_to_dict(state)


def test_owner_json_follows_the_owner_array() -> None:
    """The owner text kept per map is used only for the very array it was made from: changing a tile's owner,
    or hashing another state of the same map with other owners, gives what the uncached path gives."""
    state = tiny_state()
    other = state.clone()
    _same_as_to_dict(state)
    free = int((state.owner == -1).nonzero()[0][0])
    state.owner[free] = next(iter(state.cities))
    _same_as_to_dict(state)
    assert state.stored_form()[0] != other.stored_form()[0]
    _same_as_to_dict(other)
    _same_as_to_dict(state)
    state.owner = state.owner.astype("int64")  # another dtype of the same values: the same JSON and hash
    _same_as_to_dict(state)


def test_resolved_months_are_stored_as_they_are_in_memory(tmp_game_path: Path) -> None:
    """A game's stored months (the JSON stored_form made) load to the states the game holds in memory."""
    game, _ = Game.create(tmp_game_path, tiny_state(), scenario="tiny", controllers={"wei": "ai", "shu": "ai"})
    for _ in range(3):
        game.play_ai_seats()
    for month in game.store.month_hashes():
        blob, digest = game.store.db.execute("SELECT state, hash FROM months WHERE month = ?", [month]).fetchone()
        state = game.state(month)
        assert json.dumps(json.loads(zlib.decompress(blob))) == json.dumps(state.to_dict())
        assert digest == state.state_hash()
    assert resolve_month(game.state(), {}).state.stored_form()[0] == resolve_month(game.state(), {}).state.state_hash()
    game.close()


def _plain_form(state: GameState) -> tuple[str, bytes]:
    """stored_form the plain way: to_dict's data, json's sort_keys text for the hash, pydantic's JSON of the data."""
    data = state.to_dict()
    owner = data.pop("owner")
    body = _STORE_ADAPTER.dump_json(data)
    return hash_of_data({**data, "owner": owner}), body[:-1] + b',"owner":' + json.dumps(owner, separators=(",", ":")).encode() + b"}"


def test_fast_canonical_json_is_the_plain_text_or_steps_aside(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hash text pydantic writes from the dataclasses (sorted keys) is byte for byte json.dumps(sort_keys): with
    unsorted nested keys, tuples and lists of dicts in free JSON, ints in float fields and ordinary floats it is
    used; a float below 1e-4, non-ASCII or DEL text, or an int dict key makes it step aside for the plain text.
    The stored JSON, written straight from the dataclasses, is the data's JSON byte for byte in every case."""
    plain_calls: list[int] = []
    plain = state_module._canonical_text

    def counted(data: dict, owner: str) -> str:
        plain_calls.append(1)
        return plain(data, owner)

    monkeypatch.setattr(state_module, "_canonical_text", counted)
    state = tiny_state()
    city = next(iter(state.cities.values()))
    unit = next(iter(state.units.values()))
    city.last = {"z": [{"b": 1, "a": (2, {"y": 0.5, "x": [3, {"q": None, "p": 1e300}]})}], "a": 123.25, "m": {}}
    city.grain = 7  # an int in a float field
    city.happiness = -0.0
    unit.standing = {"to": (3, 4), "action": "move", "via": [[1, 2], [3, 4]]}
    unit.standing_meta = {"kind": "city", "to": [1, 2], "name": "Xu"}
    state.kingdoms["wei"].memory = {"units": {"10": {"z": 1, "a": 2}, "9": {"b": 1.5e16}}, "cities": {}}
    state.lead = {"months": 2, "kingdom": "wei"}
    _same_as_to_dict(state)
    assert state.stored_form() == _plain_form(state)
    assert plain_calls == []  # the fast text was used
    for awkward in (lambda: setattr(city, "store", 5e-5), lambda: setattr(city, "store", 1e-9),
                    lambda: setattr(city, "name", "Zh\u00e9"), lambda: setattr(city, "name", "a\x7fb"),
                    lambda: city.last.update({"ids": {7: "seven"}})):
        before = len(plain_calls)
        awkward()
        _same_as_to_dict(state)
        assert state.stored_form() == _plain_form(state)
        assert len(plain_calls) > before  # it stepped aside


def test_sorted_json_sorts_every_dict_it_walks_into_and_refuses_a_key_that_is_no_string() -> None:
    """_sorted_json (the hash text's free JSON): keys sorted at every depth, inside lists and tuples of dicts too,
    as json.dumps(sort_keys) writes them; lists of plain values and empty dicts kept as they are; a key that is not
    a string at any depth makes it step aside (_NotPlain), however deep."""
    plain = [1, "a", None]
    data = {"b": {"z": 1, "y": [{"d": 1, "c": (2, {"f": 0, "e": 1})}]}, "a": plain, "c": {}, "10": 1.5, "9": True}
    out = state_module._sorted_json(data)
    assert json.dumps(out) == json.dumps(data, sort_keys=True)
    assert list(out) == ["10", "9", "a", "b", "c"] and list(out["b"]) == ["y", "z"]
    assert out["a"] is plain and out["c"] == {}
    assert state_module._sorted_json({}) == {}
    for bad in ({"x": [{"k": {3: "three"}}]}, {"x": ({"ok": 1}, {None: 1})}, {2: "two"}):
        with pytest.raises(state_module._NotPlain):
            state_module._sorted_json(bad)


def test_sorted_json_kept_key_orders_are_never_those_of_other_keys() -> None:
    """_sorted_json keeps each key set's sorted order by (size, first key): a dict with the same size and first key
    but other keys, or a key that is no string, is sorted (or refused) as if nothing were kept, and so is every dict
    after the kept orders are emptied at their bound."""
    dicts = [{"b": 1, "a": 2}, {"b": 3, "c": 4}, {"b": 5, "a": 6}, {"b": {"z": 1, "y": 2}, "a": [{"d": 0, "c": 1}]},
             {"b": 7, "0": 8}]
    for _ in range(2):
        for data in dicts:
            assert json.dumps(state_module._sorted_json(data)) == json.dumps(data, sort_keys=True)
    with pytest.raises(state_module._NotPlain):
        state_module._sorted_json({"b": 1, 2: 3})  # a kept order for (2, "b") exists: the int key is still refused
    for i in range(state_module._SORTED_KEY_SETS + 5):  # past the bound: emptied, then kept again
        data = {f"k{i}": 1, "a": 2}
        assert list(state_module._sorted_json(data)) == ["a", f"k{i}"]
    assert len(state_module._SORTED_KEYS) <= state_module._SORTED_KEY_SETS
    assert json.dumps(state_module._sorted_json(dicts[1])) == json.dumps(dicts[1], sort_keys=True)
