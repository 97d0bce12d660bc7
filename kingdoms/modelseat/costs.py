"""Prices and costs for model seats: the price table (prices.toml, overridable), the cost of one call, and the
one-line usage summary `kingdoms info` prints. No provider SDK is needed here."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PRICES_PATH = Path(__file__).with_name("prices.toml")

#: What may follow a priced name and still take its price: a dated snapshot or a "latest" alias.
_SNAPSHOT = re.compile(r"^[-@](\d{4}-?\d{2}-?\d{2}|\d{4}|latest)$")


class PriceError(Exception):
    """A price file that cannot be read or has a malformed entry; the message names the file and the entry."""


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million tokens."""

    input: float
    cached_input: float
    cache_write: float
    output: float


@dataclass(frozen=True, slots=True)
class Usage:
    """What one model call used, as the provider reported it. `input_tokens` counts only the input billed at the
    full rate (cache reads and writes are counted apart), whatever the provider's own convention."""

    input_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True, slots=True)
class PriceTable:
    """Prices by "PROVIDER:MODEL", with the date they were checked."""

    models: dict[str, Price]
    date: str
    sources: tuple[str, ...]

    def price_of(self, spec: str) -> Price | None:
        """The price of PROVIDER:MODEL: its own entry, else that of the undated name of a dated snapshot."""
        if spec in self.models:
            return self.models[spec]
        best: str | None = None
        for key in self.models:
            if spec.startswith(key) and _SNAPSHOT.match(spec[len(key):]) and (best is None or len(key) > len(best)):
                best = key
        return self.models[best] if best else None

    def cost(self, spec: str, usage: Usage) -> float | None:
        """The call's cost in US dollars, or None when the model has no price."""
        p = self.price_of(spec)
        if p is None:
            return None
        return (usage.input_tokens * p.input + usage.cached_input_tokens * p.cached_input
                + usage.cache_write_tokens * p.cache_write + usage.output_tokens * p.output) / 1_000_000


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise PriceError(f"cannot read the price file {path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise PriceError(f"the price file {path} is not valid TOML: {exc}") from exc


def _entries(path: Path, data: dict[str, Any]) -> dict[str, Price]:
    out: dict[str, Price] = {}
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise PriceError(f"{path}: [models] must be a table of \"PROVIDER:MODEL\" entries")
    for key, entry in models.items():
        if ":" not in key or not isinstance(entry, dict):
            raise PriceError(f"{path}: models.{key!r} must be a \"PROVIDER:MODEL\" table with input, output prices")
        try:
            inp = float(entry["input"])
            out[key] = Price(input=inp, cached_input=float(entry.get("cached_input", inp)),
                             cache_write=float(entry.get("cache_write", inp)), output=float(entry["output"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise PriceError(f"{path}: models.{key!r} needs numbers for input and output (and optionally "
                             f"cached_input, cache_write), dollars per million tokens ({exc!r})") from exc
        if min(out[key].input, out[key].cached_input, out[key].cache_write, out[key].output) < 0:
            raise PriceError(f"{path}: models.{key!r} has a negative price")
    return out


def load_prices(extra: str | Path | None = None) -> PriceTable:
    """The repository's table, with the entries of `extra` (a --price-file) replacing or adding to it."""
    base = _read(PRICES_PATH)
    models = _entries(PRICES_PATH, base)
    date = str(base.get("date", "?"))
    sources = [str(PRICES_PATH)]
    if extra is not None:
        path = Path(extra)
        data = _read(path)
        models.update(_entries(path, data))
        date = str(data.get("date", date))
        sources.append(str(path))
    return PriceTable(models=models, date=date, sources=tuple(sources))


def usage_line(t: dict[str, Any]) -> str:
    """One line of a seat's usage totals (from GameStore.usage_totals), for `kingdoms info`."""
    models = ", ".join(t.get("models") or []) or "model"
    cost = f"${t['cost_usd']:.4f}"
    if t.get("unpriced_calls"):
        cost += f" (+{t['unpriced_calls']} unpriced calls)"
    parts = [f"{models}: {_count(t['calls'], 'call')}", f"{t['input_tokens']:,} in + {t['cached_input_tokens']:,} cached + "
             f"{t['cache_write_tokens']:,} cache-write / {t['output_tokens']:,} out tokens", cost,
             f"{t['latency_s']:.1f} s"]
    if t.get("retries"):
        parts.append(_count(t["retries"], "retried failure"))
    parts.append(_count(t.get("outages", 0), "outage"))
    if t.get("harness_ended"):
        parts.append(_count(t["harness_ended"], "month") + " ended by the harness")
    if t.get("budget_reached"):
        parts.append("budget reached")
    return "; ".join(parts)


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"
