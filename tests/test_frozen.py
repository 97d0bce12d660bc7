"""kingdoms.frozen.record: a record compares, hashes, copies and pickles as the frozen dataclass it replaces."""

from __future__ import annotations

import copy
import dataclasses
import pickle

from kingdoms.frozen import record


@record
class Pair:
    """A record compared by its fields."""

    a: int
    b: tuple[int, ...] = ()


@record(eq=False)
class Box:
    """A record compared by identity."""

    a: int


@dataclasses.dataclass(frozen=True, slots=True)
class FrozenPair:
    """The frozen dataclass Pair stands for."""

    a: int
    b: tuple[int, ...] = ()


def test_record_hashes_and_compares_by_fields_like_frozen() -> None:
    """Same hash as the frozen dataclass of the same fields (set and dict orders stay as they were)."""
    p, f = Pair(3, (1, 2)), FrozenPair(3, (1, 2))
    assert hash(p) == hash(f) == hash((3, (1, 2)))
    assert p == Pair(3, (1, 2)) and p != Pair(3, (1,))
    assert Pair.__slots__ == ("a", "b")


def test_record_eq_false_is_identity() -> None:
    """eq=False keeps object identity for == and hash, as a frozen eq=False dataclass."""
    x, y = Box(1), Box(1)
    assert x != y and x == x and hash(x) == object.__hash__(x)


def test_record_copies_pickles_and_replaces() -> None:
    """pickle (tournament workers), deepcopy and dataclasses.replace give an equal record."""
    p = Pair(3, (1, 2))
    assert pickle.loads(pickle.dumps(p)) == p
    assert copy.deepcopy(p) == p
    assert dataclasses.replace(p, a=4) == Pair(4, (1, 2))
    b = pickle.loads(pickle.dumps(Box(5)))
    assert isinstance(b, Box) and b.a == 5
