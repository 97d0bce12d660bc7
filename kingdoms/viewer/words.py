"""Numbers and lists in words for the chronicle: "three cities", "nearly six thousand men", "A, B and C"."""

from __future__ import annotations

import math

_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_ORDINALS = ("zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
             "eleventh", "twelfth")


def number(n: int) -> str:
    """A whole number in words (British style): 21 -> twenty-one, 5700 -> five thousand seven hundred."""
    if n < 0:
        return "minus " + number(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + (f"-{_ONES[ones]}" if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{_ONES[hundreds]} hundred" + (f" and {number(rest)}" if rest else "")
    if n < 1_000_000:
        thousands, rest = divmod(n, 1000)
        tail = ""
        if rest:
            tail = f" and {number(rest)}" if rest < 100 else f" {number(rest)}"
        return f"{number(thousands)} thousand{tail}"
    millions, rest = divmod(n, 1_000_000)
    return f"{number(millions)} million" + (f" {number(rest)}" if rest else "")


def ordinal(n: int) -> str:
    """first, second, ... twelfth, then 13th."""
    return _ORDINALS[n] if 0 <= n < len(_ORDINALS) else f"{n}th"


def count(n: int, singular: str, plural: str | None = None) -> str:
    """'one city', 'three cities', 'no cities'."""
    many = plural or (singular[:-1] + "ies" if singular.endswith("y") and singular[-2:-1] not in "aeiou"
                      else singular + "s")
    if n == 0:
        return f"no {many}"
    return f"{number(n)} {singular if n == 1 else many}"


def rounded(n: int) -> int:
    """n to two significant figures (to the nearest ten below a thousand, the nearest hundred below ten thousand)."""
    if n < 100:
        return n
    step = 10 ** (int(math.log10(n)) - 1)
    return int(round(n / step) * step)


def about(n: int) -> str:
    """A large number as a reader follows it: exact below a hundred, else rounded with 'some' or 'nearly'."""
    n = int(n)
    if n < 100:
        return number(n)
    r = rounded(n)
    if r == n:
        return number(n)
    return ("nearly " if r > n else "some ") + number(r)


def men(n: int) -> str:
    """'some two thousand men', 'one man'."""
    n = int(n)
    if n == 1:
        return "one man"
    return f"{about(n)} men"


def listing(items: list[str], conj: str = "and") -> str:
    """'A', 'A and B', 'A, B and C' (with semicolons, 'A; B; and C', when an item holds a comma)."""
    items = [i for i in items if i]
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    if any("," in i for i in items):
        return "; ".join(items[:-1]) + f"; {conj} " + items[-1]
    return ", ".join(items[:-1]) + f" {conj} " + items[-1]


def span(start: int, end: int) -> str:
    """'month 12' or 'months 12 to 19'."""
    return f"month {start}" if start == end else f"months {start} to {end}"


def capital(text: str) -> str:
    """The text with its first letter upper case."""
    return text[:1].upper() + text[1:] if text else text
