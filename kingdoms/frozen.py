"""`record`: a slotted dataclass that type checkers hold frozen but whose __init__ stores its fields plainly."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar, dataclass_transform, overload

_T = TypeVar("_T")


@overload
def record(cls: type[_T], /) -> type[_T]: ...


@overload
def record(*, eq: bool = True) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: type[_T] | None = None, /, *, eq: bool = True) -> type[_T] | Callable[[type[_T]], type[_T]]:
    """Make `cls` a slotted dataclass, frozen to mypy (it refuses a write) but plain at runtime.

    A frozen dataclass's __init__ sets every field through object.__setattr__, about 1.4 k instructions a field
    under callgrind, ten times a plain store; the game makes thousands of these records a month. Nothing writes a
    record once made. With eq (the default) it compares and hashes by its fields, as a frozen dataclass does;
    with eq=False by identity, as before."""

    def wrap(c: type[_T]) -> type[_T]:
        return dataclass(slots=True, eq=eq, unsafe_hash=eq)(c)

    return wrap if cls is None else wrap(cls)
