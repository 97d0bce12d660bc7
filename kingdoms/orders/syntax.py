"""Order language: short-syntax text / JSON orders -> typed models, and models -> canonical text.

Rules: TOOLS-140..390, OPEN-80 (queue items), OPEN-81 (JSON schema). No game state here; parse_orders never raises.

Accepted forms (beyond the documented ``action key=value ...``, one order per ";" or line):
- verbs and keys in any case; ``set-production`` / ``setProduction`` / ``set production`` for ``set_production``;
  short keys (unit, units, city, target, general) or long names (unit_id, ...); ``key = value`` and ``key:value``;
- ids as ``12`` or ``#12``; ``hold unit=1,2`` as well as ``units=1,2``;
- tiles as ``3,4``, ``3, 4``, ``(3, 4)``, ``[3,4]``, ``q=3 r=4``; JSON ``{"q":3,"r":4}``; coordinates may be negative;
- men/dan as ``3000``, ``3,000``, ``3_000``, ``3k``, ``2.5k`` (thousands separators only for men and dan, never tiles);
- flags bare (``hold``) or ``hold=true|false|yes|no|1|0``;
- values in double or single quotes; any value as JSON (or a Python literal such as ``{'item': 'spearman'}``);
- queue items ``spearman:3000`` (also ``spearman=3000``, ``spearman:3,000``), ``farm@3,4`` / ``farm@(3,4)``, plurals
  (``spearmen``), ``heavy infantry``; JSON objects ``{item, men}`` / ``{item, q, r}`` / ``{item, tile}``;
  ``queue=`` or ``queue=[]`` clears the queue;
- ``declare_war to=Cao Wei`` and ``declare_war Cao Wei`` (the rest of the line is the name);
- list markers (``1.``, ``-``), surrounding backticks, code fences and ``#`` / ``//`` comment lines are ignored;
  a trailing "," (or "." after a number) is dropped;
- a text that is a JSON array (or object) of orders; JSON objects may use ``"verb"`` for ``"action"``.
A blank call (``""``, ``[]``) gives an empty list; a call that is not text or a list gives one malformed_call error
at position 0.
"""

from __future__ import annotations

import ast
import difflib
import functools
import json
import re
from typing import Any, Final

from pydantic import ValidationError

from kingdoms.frozen import record

from .models import (
    BUILD_WHAT,
    BUILDINGS,
    CIVILIANS,
    FOCUSES,
    IMPROVEMENTS,
    MAX_DAN,
    MAX_MEN,
    ORDER_MODELS,
    QUEUE_ITEMS,
    SABOTAGE_TARGETS,
    TROOPS,
    VERBS,
    Attack,
    DeclareWar,
    Order,
    QueueItem,
    SetProduction,
    ShipGrain,
    Split,
    men_range,
)

__all__ = [
    "ECHO_CHARS",
    "ERROR_CODES",
    "MAX_KEYS",
    "MAX_ORDERS",
    "MAX_UNIT_IDS",
    "OrderError",
    "OrderSyntaxError",
    "ParseResult",
    "ParsedOrder",
    "echo_text",
    "format_order",
    "format_orders",
    "format_queue_item",
    "parse_order",
    "parse_orders",
    "syntax_help",
]

#: Every OrderError.code this module produces.
ERROR_CODES: Final[tuple[str, ...]] = (
    "unknown_verb",
    "unknown_key",
    "missing_key",
    "bad_value",
    "bad_tile",
    "bad_json",
    "unknown_item",
    "bad_men",
    "empty",
    "malformed_call",
)


@record
class ParsedOrder:
    """One successfully parsed order with its 1-based position in the call and its source text."""

    position: int
    text: str
    order: Order


@record
class OrderError:
    """One order that could not be read: a stable code plus one sentence telling an LLM how to fix it."""

    position: int
    text: str
    code: str
    message: str

    def __str__(self) -> str:
        """Render as the line a player reads in an issue_orders reply."""
        where = f"order {self.position}" if self.position else "orders"
        return f"{where} ({self.text}): {self.message}" if self.text else f"{where}: {self.message}"


ParseResult = ParsedOrder | OrderError


class OrderSyntaxError(ValueError):
    """Raised by parse_order (the single-order helper) with the OrderError that describes the problem."""

    def __init__(self, error: OrderError) -> None:
        super().__init__(error.message)
        self.error = error


class _Fail(Exception):
    """Internal: one order failed with (code, message)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _TooMany(Exception):
    """Internal: the call holds more than _MAX_ORDERS orders."""


class _Quoted(str):
    """A value the player wrote in quotes: always text, never a tile or JSON."""

    __slots__ = ()


#: keys whose plain value may run over spaces up to the next key (lists: "queue=walls, heavy infantry:600")
_GREEDY_KEYS: Final = frozenset({"queue", "units", "unit_ids"})
MAX_ORDERS: Final = 200  # orders per call (rules.md "Limits"); the rest of a longer call is refused unread
MAX_UNIT_IDS: Final = 200  # unit ids in one order (hold units=...)
ECHO_CHARS: Final = 200  # a refused order's text is echoed cut to about this many characters
MAX_KEYS: Final = 30  # keys in one JSON order object (the longest order has a handful)
_MAX_ORDERS: Final = MAX_ORDERS
_MAX_ORDER_CHARS: Final = 2000  # one order's text; keeps every regex linear-time on hostile input
_BARE: Final = object()  # marker: a key written without a value (a flag, TOOLS-190)

# --- vocabulary -------------------------------------------------------------------------------------

_VERB_LIST: Final = ", ".join(VERBS)


@functools.lru_cache(maxsize=4096)
def _norm(word: str) -> str:
    """Lower-case a verb/key/item word and unify separators to "_"."""
    return word.strip().lower().replace("-", "_").replace(" ", "_")


_VERB_LOOKUP: Final[dict[str, str]] = {}
for _v in VERBS:
    _VERB_LOOKUP[_v] = _v
    _VERB_LOOKUP[_v.replace("_", "")] = _v

#: field -> kind of value
_KIND: Final[dict[str, str]] = {
    "unit_id": "id",
    "city_id": "id",
    "target_id": "id",
    "general_id": "id",
    "unit_ids": "ids",
    "to": "tile",
    "men": "men",
    "dan": "dan",
    "what": "what",
    "queue": "queue",
    "focus": "focus",
    "target": "sabotage_target",
    "hold": "flag",
    "pursue": "flag",
    "surprise": "flag",
}

#: field -> how the short syntax writes it (for messages)
_DESC: Final[dict[str, str]] = {
    "unit_id": "unit=ID (a troop or unit number)",
    "unit_ids": "unit=ID or units=ID,ID",
    "city_id": "city=ID (a city number)",
    "target_id": "target=ID (the other troop's number)",
    "general_id": "general=ID (a general's number)",
    "to": "to=q,r (a tile)",
    "men": "men=N (how many men split off)",
    "dan": f"dan=N (1 to {MAX_DAN} dan of grain)",
    "what": "what=camp",
    "queue": "queue=ITEM,ITEM,... (e.g. queue=barracks,spearman:2000,farm@3,4; queue=[] clears it)",
    "focus": "focus=food|balanced|production",
    "target": "target=granary|panic",
}


class _VerbSpec:
    """Precomputed per-verb tables: key aliases, field kinds, required fields and short names."""

    __slots__ = ("verb", "model", "aliases", "fields", "required", "short", "keys_text")

    def __init__(self, verb: str) -> None:
        model = ORDER_MODELS[verb]
        self.verb = verb
        self.model = model
        self.fields: dict[str, str] = {}
        for name in model.model_fields:
            if name != "action":
                self.fields[name] = "name" if (verb == "declare_war" and name == "to") else _KIND[name]
        self.required = model.required_fields()
        self.short: dict[str, str] = {}
        aliases: dict[str, str] = {}
        for key, field in model.KEYS.items():
            aliases[key] = field
            self.short.setdefault(field, key)
        for field in self.fields:
            aliases.setdefault(field, field)
        if verb == "hold":
            aliases["unit_id"] = "unit_ids"
        if self.fields.get("to") == "tile":
            aliases["q"] = "q"
            aliases["r"] = "r"
            aliases["tile"] = "to"
        if verb == "declare_war":
            aliases["ruler"] = "to"
            aliases["kingdom"] = "to"
        for key in list(aliases):
            aliases.setdefault(key.replace("_", ""), aliases[key])
        self.aliases = aliases
        self.keys_text = ", ".join(model.KEYS)

    def desc(self, field: str) -> str:
        """How to write this field, for 'needs ...' messages."""
        if self.verb == "declare_war":
            return "to=<ruler or kingdom name>"
        if field == "target_id" and self.verb == "follow":
            return "target=ID (the unit to follow)"
        return _DESC.get(field, f"{field}=...")


_SPECS: Final[dict[str, _VerbSpec]] = {v: _VerbSpec(v) for v in VERBS}
_ALL_KEYS: Final[frozenset[str]] = frozenset(k for s in _SPECS.values() for k in s.aliases)
_FLAG_WORDS: Final[frozenset[str]] = frozenset(Attack.FLAGS)

_ITEM_ALIASES: Final[dict[str, str]] = {
    "spearmen": "spearman",
    "spears": "spearman",
    "archers": "archer",
    "levies": "levy",
    "levys": "levy",
    "catapults": "catapult",
    "cavalries": "cavalry",
    "heavyinfantry": "heavy_infantry",
    "heavy_infantries": "heavy_infantry",
    "colonist": "colonists",
    "scouts": "scout",
    "spies": "spy",
    "farms": "farm",
    "granaries": "granary",
    "workshops": "workshop",
    "wall": "walls",
    "palisades": "palisade",
    "forges": "forge",
    "stables": "stable",
    "barrack": "barracks",
}
_ITEM_LOOKUP: Final[dict[str, str]] = {**{i: i for i in QUEUE_ITEMS}, **_ITEM_ALIASES}
_ITEM_HINTS: Final[dict[str, str]] = {
    "wagon": "wagons are not queued; ship_grain city=ID dan=N to=q,r sends one",
    "wagons": "wagons are not queued; ship_grain city=ID dan=N to=q,r sends one",
    "camp": "camps are not queued; a troop pitches one with build unit=ID what=camp",
}
_QUEUE_HELP: Final = (
    f"buildings {', '.join(BUILDINGS)}; improvements {', '.join(IMPROVEMENTS)} (optionally farm@q,r); "
    f"troops with men {', '.join(t + ':N' for t in TROOPS)}; {', '.join(CIVILIANS)}"
)

# --- regexes (precompiled) ------------------------------------------------------------------------------

_SPLIT_FAST: Final = re.compile(r"[;\r\n]")
_SPLIT_EVENTS: Final = re.compile(
    r"""(?:(?<=[\s=\[,:({])|^)(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|[\[\]{}()]|[;\r\n]""", re.S
)
_LIST_MARKER: Final = re.compile(r"^(?:[-*•>]+|\d{1,3}[.)])\s+")
_VERB_RE: Final = re.compile(r"([A-Za-z_][\w\-]*)[ \t]*:?\s*")
_KEY_RE: Final = re.compile(r"([A-Za-z_][\w\-]*)\s*([=:])?\s*")
_TOKEN_RE: Final = re.compile(r"\S+")
_WS_RE: Final = re.compile(r"\s*")


def _past_space(s: str, p: int) -> int:
    """The first position at or after `p` that is not white space (len(s) when none is)."""
    m = _WS_RE.match(s, p)
    return m.end() if m else p
_DQ_RE: Final = re.compile(r'"((?:[^"\\]|\\.)*)"', re.S)
_SQ_RE: Final = re.compile(r"'((?:[^'\\]|\\.)*)'", re.S)
_PLAIN_RE: Final = re.compile(r"[^\s\[{(\"']+|[\"']")
_FAST_PAIR: Final = r"([A-Za-z_]\w*)(?:=([-#\w:@.]+(?:,[-#\w:@.]+)*))?"
_FAST_PAIR_RE: Final = re.compile(_FAST_PAIR)
_FAST_REST_RE: Final = re.compile(rf"\s*(?:{_FAST_PAIR}(?:\s+|$))*")
_NEXT_KEY_RE: Final = re.compile(r"([A-Za-z_][\w\-]*)\s*([=:])?")
_ID_RE: Final = re.compile(r"#?\s*(\d{1,19})")
_TILE_RE: Final = re.compile(r"[(\[{]?\s*(-?\d{1,7})(?:\s*,\s*|\s+)(-?\d{1,7})\s*[)\]}]?")
_COORD_RE: Final = re.compile(r"-?\d{1,7}")
_NUM_RE: Final = re.compile(r"(\d{1,3}(?:[,_ ]\d{3})+|\d{1,9})|(\d{1,6})(?:\.(\d{1,3}))?\s*[kK]")
_QITEM_RE: Final = re.compile(
    # possessive quantifiers (Python 3.11+) keep this linear on long runs of spaces
    r"[\s,]*+(?P<name>[A-Za-z][A-Za-z_\-]*+(?: ++[A-Za-z_\-]++)*+)\s*+"
    r"(?:(?:[:=]\s*+)?(?P<men>\d{1,3}(?:,\d{3})++(?=\s*(?:,|$))|\d{1,9}(?:_\d{3})*|\d{1,6}(?:\.\d{1,3})?\s*[kK])"
    r"|@\s*+[(\[]?\s*+(?P<q>-?\d{1,7})(?:\s*,\s*|\s+)(?P<r>-?\d{1,7})\s*+[)\]]?)?"
    r"\s*(?:,|$)"
)
_DECLARE_TO_RE: Final = re.compile(r"(?:to|ruler|kingdom)\s*[=:]\s*(.*)", re.I | re.S)
_DECLARE_ON_RE: Final = re.compile(r"(?:on|against)\s+", re.I)
_TRUE: Final = frozenset({"true", "yes", "y", "1", "on"})
_FALSE: Final = frozenset({"false", "no", "n", "0", "off"})


# --- small helpers --------------------------------------------------------------------------------------


def _show(value: Any, limit: int = 40) -> str:
    """Short printable form of a value for messages."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except Exception:  # noqa: BLE001 - anything odd still gets shown
            text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def echo_text(text: str) -> str:
    """A refused order's text as echoed back: cut to about ECHO_CHARS characters, saying how long it was."""
    if len(text) <= ECHO_CHARS:
        return text
    return f"{text[:ECHO_CHARS]}... [{len(text):,} characters, cut]"


def _closest(word: str, options: list[str] | tuple[str, ...]) -> str | None:
    """The closest spelling among options (difflib, else a unique prefix such as "prod"), or None."""
    word = word[:60]  # a runaway word is no spelling of anything; keeps difflib's cost bounded
    best = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if best:
        return best[0]
    starts = [o for o in options if len(word) >= 2 and o.startswith(word)]
    return starts[0] if len(starts) == 1 else None


def _suggest(word: str, options: list[str] | tuple[str, ...]) -> str:
    """' did you mean "x"?' for the closest option, or ''."""
    best = _closest(word, options)
    return f' did you mean "{best}"?' if best else ""


def _dump(obj: Any) -> str:
    """Compact JSON text of a JSON order (for ParsedOrder.text)."""
    try:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)
    except Exception:  # noqa: BLE001 - circular or exotic objects
        try:
            return repr(obj)[:200]
        except Exception:  # noqa: BLE001
            return "<unprintable>"


def _load_json(text: str) -> tuple[bool, Any]:
    """Decode JSON, falling back to a Python literal (single quotes); (ok, value)."""
    try:
        return True, json.loads(text)
    except Exception:  # noqa: BLE001 - includes RecursionError on absurd nesting
        pass
    if "'" in text and len(text) < 20_000:
        try:
            return True, ast.literal_eval(text)
        except Exception:  # noqa: BLE001
            pass
    return False, None


def _unquote_dq(body: str) -> str:
    """Content of a double-quoted value with JSON escapes resolved (raw content if they are broken)."""
    if "\\" not in body:
        return body
    try:
        value = json.loads(f'"{body}"')
    except Exception:  # noqa: BLE001
        return body.replace('\\"', '"').replace("\\\\", "\\")
    return value if isinstance(value, str) else body


# --- splitting text into orders -------------------------------------------------------------------------


def _split_text(text: str) -> list[str]:
    """Cut text at ";" and line breaks that are not inside quotes or brackets (TOOLS-160)."""
    if '"' not in text and "'" not in text and "[" not in text and "{" not in text and "(" not in text:
        return _SPLIT_FAST.split(text)
    pieces: list[str] = []
    depth = 0
    start = 0
    for m in _SPLIT_EVENTS.finditer(text):
        ch = m.group()
        if len(ch) > 1 or ch in "\"'":
            continue
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth = max(0, depth - 1)
        elif depth == 0:
            pieces.append(text[start : m.start()])
            start = m.end()
    if depth:
        return _SPLIT_FAST.split(text)  # unbalanced brackets: do not swallow the following orders
    pieces.append(text[start:])
    return pieces


def _clean_piece(piece: str) -> str:
    """Strip list markers, backticks and a stray trailing comma; '' for blank or comment lines."""
    s = piece.strip()
    if not s:
        return ""
    if s[0] == "`" or s[-1] == "`":
        s = s.strip("`").strip()
        if s.startswith(("json", "text")) and " " not in s:
            return ""
    if not s or s[0] == "#" or s.startswith("//"):
        return ""
    m = _LIST_MARKER.match(s)
    if m:
        s = s[m.end() :].strip()
    while s and s[-1] == ",":
        s = s[:-1].rstrip()
    if len(s) > 1 and s[-1] == "." and s[-2].isdigit():
        s = s[:-1]
    return s


# --- reading key=value pairs ----------------------------------------------------------------------------


def _read_balanced(s: str, p: int) -> int:
    """End index of the bracketed group starting at s[p] (string-aware); len(s) if unbalanced."""
    depth = 0
    n = len(s)
    i = p
    while i < n:
        c = s[i]
        if c == '"' or (c == "'" and depth):
            m = (_DQ_RE if c == '"' else _SQ_RE).match(s, i)
            if m:
                i = m.end()
                continue
        elif c in "[{(":
            depth += 1
        elif c in "]})":
            depth -= 1
            if depth <= 0:
                return i + 1
        i += 1
    return n


def _starts_key(s: str, p: int, greedy: bool) -> bool:
    """True if s[p:] begins a new key=value pair or a bare flag word (so a continued value must stop);
    in a queue list "archer=2000" is an item, not a key."""
    m = _NEXT_KEY_RE.match(s, p)
    if not m:
        return False
    word = _norm(m.group(1))
    if greedy and word in _ITEM_LOOKUP and word not in _ALL_KEYS:
        return False
    if m.group(2) == "=" or (m.group(2) == ":" and word in _ALL_KEYS):
        return True
    end = m.end()
    return word in _FLAG_WORDS and (end == len(s) or s[end].isspace() or s[end] in ",;")


def _read_value(s: str, p: int, greedy: bool = False) -> tuple[Any, int]:
    """Read one value at s[p] (TOOLS-200): quoted text, JSON/brackets, or a plain run continued over ", " (greedy: over
    any space up to the next key, for queue lists such as "barracks, heavy infantry:2000")."""
    n = len(s)
    if p >= n:
        return "", p
    c = s[p]
    if c in "\"'":
        m = (_DQ_RE if c == '"' else _SQ_RE).match(s, p)
        if m:
            body = m.group(1)
            return _Quoted(_unquote_dq(body) if c == '"' else body.replace("\\'", "'")), m.end()
    start = p
    while True:
        while p < n and not s[p].isspace():
            if s[p] in "[{(":
                p = _read_balanced(s, p)
            else:
                m = _PLAIN_RE.match(s, p)
                p = m.end() if m else p + 1
        # a value such as "3, 4" or "barracks, spearman:2000" continues after a comma
        q = _past_space(s, p)
        if q >= n:
            break
        if greedy or s[p - 1] == "," or s[q] == ",":
            r = q + 1 if s[q] == "," else q
            r = _past_space(s, r)
            if r < n and not _starts_key(s, r, greedy):
                p = r
                continue
        break
    raw = s[start:p].rstrip().rstrip(",").rstrip()
    if raw and raw[0] in "[{":
        ok, value = _load_json(raw)
        if not ok:
            raise _Fail(
                "bad_json", f"{raw[:40]!r} is not valid JSON; write a list like [1,2] or plain text like 1,2"
            )
        return value, p
    return raw, p


def _scan_pairs(verb: str, s: str) -> list[tuple[str, Any]]:
    """Split the text after the verb into (key, value) pairs; a bare word gets the _BARE marker."""
    if _FAST_REST_RE.fullmatch(s):  # common well-formed case: key=plainvalue and bare flags only
        return [(k, v if v else _BARE) for k, v in _FAST_PAIR_RE.findall(s)]
    pairs: list[tuple[str, Any]] = []
    n = len(s)
    p = _past_space(s, 0)
    while p < n:
        if s[p] in ",;":
            p = _past_space(s, p + 1)
            continue
        m = _KEY_RE.match(s, p)
        if not m:
            tok = _TOKEN_RE.match(s, p)
            word = tok.group() if tok else s[p:]
            spec = _SPECS[verb]
            raise _Fail(
                "bad_value",
                f'"{word}" has no key; write key=value pairs: {spec.model.USAGE}, e.g. {spec.model.EXAMPLE}',
            )
        key = m.group(1)
        if m.group(2):
            nk = _norm(key)
            greedy = nk in _GREEDY_KEYS or (verb == "hold" and nk in ("unit", "unit_id"))
            value, p = _read_value(s, m.end(), greedy)
            pairs.append((key, value))
        else:
            pairs.append((key, _BARE))
            p = m.end()
        p = _past_space(s, p)
    return pairs


# --- coercing values ------------------------------------------------------------------------------------


def _as_int(value: Any) -> int | None:
    """An integer from an int or integral float (never bool); None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _as_id(value: Any, key: str, spec: _VerbSpec) -> int:
    """An id: 12, "12" or "#12"."""
    n = _as_int(value)
    if n is None and isinstance(value, str):
        m = _ID_RE.fullmatch(value.strip())
        if m:
            n = int(m.group(1))
    if n is None or not 0 <= n < 2**63:
        raise _Fail(
            "bad_value",
            f"{key}={_show(value)} is not an id; {key} takes a whole number, e.g. {spec.model.EXAMPLE}",
        )
    return n


def _as_ids(values: list[Any], key: str, spec: _VerbSpec) -> list[int]:
    """One or more ids from lists, "1,2,3" text or single ids; repeats are dropped; at most MAX_UNIT_IDS.

    Linear in the input: repeats are found with a set, and reading stops at the first id beyond the limit.
    """
    out: list[int] = []
    seen: set[int] = set()
    for value in values:
        if isinstance(value, list | tuple):
            items: list[Any] = list(value)
        elif isinstance(value, str):
            items = [t for t in re.split(r"[\s,;]+", value.strip().strip("[]()")) if t]
        else:
            items = [value]
        for item in items:
            n = _as_id(item, key, spec)
            if n not in seen:
                if len(out) >= MAX_UNIT_IDS:
                    raise _Fail(
                        "bad_value",
                        f"{spec.verb} names more than {MAX_UNIT_IDS} units; one order takes at most {MAX_UNIT_IDS} "
                        f"unit ids: split them over several {spec.verb} orders",
                    )
                seen.add(n)
                out.append(n)
    if not out:
        raise _Fail("bad_value", f"{spec.verb} needs at least one unit, e.g. hold unit=5 or hold units=3,4")
    return out


def _coord(value: Any) -> int | None:
    """One tile coordinate (int, integral float or numeric text) within bounds; None if not."""
    n = _as_int(value)
    if n is None and isinstance(value, str) and _COORD_RE.fullmatch(value.strip()):
        n = int(value)
    if n is None or not -1_000_000 <= n <= 1_000_000:
        return None
    return n


def _tile_fail(value: Any, spec: _VerbSpec, key: str = "to") -> _Fail:
    """The bad_tile error for a value that is not q,r."""
    hint = ""
    if isinstance(value, str) and re.search(r"[A-Za-z]{2}", value):
        hint = " (tiles are numbers, not names)"
    return _Fail(
        "bad_tile",
        f"{key}={_show(value)} is not a tile{hint}; {spec.verb} needs to=q,r (a tile), e.g. {spec.model.EXAMPLE}",
    )


def _as_tile(value: Any, spec: _VerbSpec) -> tuple[int, int]:
    """A tile from "q,r", "(q, r)", [q, r] or {"q":..,"r":..} (TOOLS-180)."""
    q = r = None
    if isinstance(value, str):
        m = _TILE_RE.fullmatch(value.strip())
        if m:
            q, r = int(m.group(1)), int(m.group(2))
            if not (-1_000_000 <= q <= 1_000_000 and -1_000_000 <= r <= 1_000_000):
                q = None
    elif isinstance(value, list | tuple) and len(value) == 2:
        q, r = _coord(value[0]), _coord(value[1])
    elif isinstance(value, dict) and set(value) == {"q", "r"}:
        q, r = _coord(value["q"]), _coord(value["r"])
    if q is None or r is None:
        raise _tile_fail(value, spec)
    return q, r


def _as_count(value: Any) -> int | None:
    """A men/dan count: 3000, "3,000", "3_000", "3k", "2.5k"; None if unreadable."""
    n = _as_int(value)
    if n is not None:
        return n
    if isinstance(value, str):
        m = _NUM_RE.fullmatch(value.strip())
        if m:
            if m.group(1):
                return int(re.sub(r"[,_ ]", "", m.group(1)))
            return int(m.group(2)) * 1000 + int((m.group(3) or "0").ljust(3, "0"))
    return None


def _as_men(value: Any, spec: _VerbSpec) -> int:
    """split's men=N (1..20,000)."""
    n = _as_count(value)
    if n is None or not 1 <= n <= MAX_MEN:
        raise _Fail(
            "bad_men",
            f"men={_show(value)} is not a size from 1 to {MAX_MEN:,}; e.g. {Split.EXAMPLE} "
            "(both parts must keep the troop type's minimum)",
        )
    return n


def _as_dan(value: Any, spec: _VerbSpec) -> int:
    """ship_grain's dan=N (1..60)."""
    n = _as_count(value)
    if n is None or not 1 <= n <= MAX_DAN:
        raise _Fail(
            "bad_value",
            f"dan={_show(value)} is not 1 to {MAX_DAN} (a wagon carries up to {MAX_DAN}); e.g. {ShipGrain.EXAMPLE}",
        )
    return n


def _as_choice(value: Any, key: str, choices: tuple[str, ...], spec: _VerbSpec) -> str:
    """One word out of a fixed list, case-insensitive, with a spelling suggestion on failure."""
    word = value.strip().lower() if isinstance(value, str) else None
    if word in choices:
        return word
    hint = _suggest(word, choices) if word else ""
    raise _Fail(
        "bad_value",
        f"{key}={_show(value)} is not valid;{hint} {key} is one of {'|'.join(choices)}, e.g. {spec.model.EXAMPLE}",
    )


def _as_flag(value: Any, key: str, spec: _VerbSpec) -> bool:
    """A flag: bare, true/false, yes/no, 1/0."""
    if value is _BARE or value is True:
        return True
    if value is False:
        return False
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    raise _Fail(
        "bad_value",
        f"{key}={_show(value)} is not true or false; write the flag alone, e.g. {spec.model.EXAMPLE}",
    )


def _as_name(value: Any, spec: _VerbSpec) -> str:
    """declare_war's ruler or kingdom name (TOOLS-180: an unquoted q,r is a tile, not a name)."""
    if isinstance(value, str):
        name = value.strip()
        if name and (isinstance(value, _Quoted) or not _TILE_RE.fullmatch(name)):
            if len(name) > 200:
                raise _Fail(
                    "bad_value",
                    "that name is too long; give the ruler's or kingdom's name, e.g. " + DeclareWar.EXAMPLE,
                )
            return name
    raise _Fail(
        "bad_value",
        f"to={_show(value)} is not a name; declare_war needs to=<ruler or kingdom name>, e.g. {DeclareWar.EXAMPLE}",
    )


# --- set_production queue (TOOLS-320, OPEN-80) ---------------------------------------------------------


def _queue_item(name: str, men: Any, tile: tuple[int, int] | None) -> QueueItem:
    """Check one queue entry and build it (errors: unknown_item, bad_men, bad_tile)."""
    raw = name.strip()
    key = _norm(raw)
    item = _ITEM_LOOKUP.get(key) or _ITEM_LOOKUP.get(key.replace("_", ""))
    if item is None:
        if key in _ITEM_HINTS:
            raise _Fail("unknown_item", f'"{raw}" cannot be queued: {_ITEM_HINTS[key]}')
        best = _closest(key, list(_ITEM_LOOKUP))
        hint = f' did you mean "{_ITEM_LOOKUP[best]}"?' if best else ""
        raise _Fail("unknown_item", f'unknown queue item "{raw}";{hint} items: {_QUEUE_HELP}')
    count: int | None = None
    if men is not None:
        count = _as_count(men)
        if count is None:
            raise _Fail("bad_men", f'"{_show(men)}" is not a number of men; write {item}:3000')
    if item in TROOPS:
        lo, hi = men_range(item)
        example = f"{item}:{max(lo, 2000)}"
        if count is None:
            raise _Fail("bad_men", f"{item} needs a size, e.g. {example} ({lo:,} to {hi:,} men)")
        if not lo <= count <= hi:
            raise _Fail(
                "bad_men",
                f"{item}:{count} is out of range; a {item} troop is {lo:,} to {hi:,} men, e.g. {example}",
            )
    elif count is not None:
        raise _Fail("bad_men", f"{item} takes no number of men; write just {item}")
    if tile is not None and item not in IMPROVEMENTS:
        raise _Fail("bad_tile", f"only {', '.join(IMPROVEMENTS)} take a tile (farm@3,4); write just {item}")
    return QueueItem.model_construct(item=item, men=count, tile=tile)


def _queue_from_text(text: str) -> list[QueueItem]:
    """Items from "barracks,spearman:2000,farm@3,4": item@q,r takes the two numbers after "@" (OPEN-80)."""
    out: list[QueueItem] = []
    s = text.strip()
    if len(s) > _MAX_ORDER_CHARS:
        raise _Fail("bad_value", f"the queue is over {_MAX_ORDER_CHARS} characters; list fewer items")
    if s and s[0] in "[(" and s[-1] in "])":
        s = s[1:-1]
    n = len(s)
    p = 0
    while p < n:
        if s[p:].strip(" \t\r\n,") == "":
            break
        m = _QITEM_RE.match(s, p)
        if not m or m.end() == p:
            rest = s[p:].strip(" ,")
            raise _Fail(
                "bad_value",
                f'cannot read the queue at "{_show(rest)}"; write items separated by commas, '
                "e.g. queue=barracks,spearman:2000,palisade,farm@3,4",
            )
        tile = None
        if m.group("q") is not None:
            q, r = _coord(m.group("q")), _coord(m.group("r"))
            if q is None or r is None:
                raise _Fail(
                    "bad_tile",
                    f"{m.group().strip(' ,')} has a tile out of range; write farm@q,r, e.g. farm@3,4",
                )
            tile = (q, r)
        out.append(_queue_item(m.group("name"), m.group("men"), tile))
        p = m.end()
    return out


_ITEM_KEYS: Final[dict[str, str]] = {
    "item": "item",
    "name": "item",
    "type": "item",
    "men": "men",
    "count": "men",
    "size": "men",
    "q": "q",
    "r": "r",
    "tile": "tile",
    "to": "tile",
    "at": "tile",
}


def _queue_from_dict(obj: dict[Any, Any], spec: _VerbSpec) -> QueueItem:
    """One item from {item, men} / {item, q, r} / {item, tile} (OPEN-81)."""
    got: dict[str, Any] = {}
    for k, v in obj.items():
        field = _ITEM_KEYS.get(_norm(k)) if isinstance(k, str) else None
        if field is None:
            hint = _suggest(_norm(k), list(_ITEM_KEYS)) if isinstance(k, str) else ""
            raise _Fail(
                "unknown_key",
                f'a queue item has no key "{_show(k)}";{hint} write {{"item": "spearman", "men": 3000}} '
                'or {"item": "farm", "q": 3, "r": 4}',
            )
        if v is not None:
            got[field] = v
    name = got.get("item")
    if not isinstance(name, str):
        raise _Fail("missing_key", 'a queue item needs "item", e.g. {"item": "spearman", "men": 3000}')
    tile = None
    if "tile" in got:
        tile = _as_tile(got["tile"], spec)
    elif "q" in got or "r" in got:
        q, r = _coord(got.get("q")), _coord(got.get("r"))
        if q is None or r is None:
            raise _Fail(
                "bad_tile",
                f'{name} needs both "q" and "r" as numbers, e.g. {{"item": "farm", "q": 3, "r": 4}}',
            )
        tile = (q, r)
    return _queue_item(name, got.get("men"), tile)


def _as_queue(value: Any, spec: _VerbSpec) -> list[QueueItem]:
    """A whole queue from text, a JSON list of strings/objects, or one object; empty clears it."""
    if isinstance(value, str):
        s = value.strip()
        if s and s[0] in "[{" and not isinstance(value, _Quoted):
            ok, decoded = _load_json(s)
            if ok and not isinstance(decoded, str):
                return _as_queue(decoded, spec)
        return _queue_from_text(s) if s else []
    if isinstance(value, dict):
        return [_queue_from_dict(value, spec)]
    if isinstance(value, list | tuple):
        out: list[QueueItem] = []
        for element in value:
            if isinstance(element, str):
                out.extend(_queue_from_text(element))
            elif isinstance(element, dict):
                out.append(_queue_from_dict(element, spec))
            else:
                raise _Fail(
                    "bad_value",
                    f"queue item {_show(element)} is not a name or object; e.g. "
                    'queue=["barracks", "spearman:2000", {"item": "farm", "q": 3, "r": 4}]',
                )
        return out
    raise _Fail("bad_value", f"queue={_show(value)} is not a list of items; e.g. {SetProduction.EXAMPLE}")


# --- building one order -----------------------------------------------------------------------------


def _lookup_verb(word: str) -> str | None:
    """Canonical verb for a spelling variant, or None."""
    w = _norm(word)
    return _VERB_LOOKUP.get(w) or _VERB_LOOKUP.get(w.replace("_", ""))


def _unknown_verb(word: str) -> _Fail:
    """The unknown_verb error with the closest verb."""
    w = _norm(word)
    best = _closest(w, VERBS) or _closest(w.replace("_", ""), list(_VERB_LOOKUP))
    hint = f' did you mean "{_VERB_LOOKUP[best]}"?' if best else ""
    return _Fail("unknown_verb", f'unknown verb "{_show(word)}";{hint} verbs: {_VERB_LIST}')


def _unknown_key(spec: _VerbSpec, key: Any, nk: str) -> _Fail:
    """The unknown_key error: a likely missing ";" before another verb, or the closest key."""
    verb, shown = spec.verb, _show(key)
    other = _lookup_verb(nk)
    if other:
        return _Fail(
            "unknown_key",
            f'{verb} has no key "{shown}"; if it starts another order, put ";" before it, '
            f"e.g. {spec.model.EXAMPLE}; {ORDER_MODELS[other].EXAMPLE}",
        )
    best = _closest(nk, list(spec.aliases))
    hint = f' did you mean "{spec.short.get(spec.aliases[best], best)}"?' if best else ""
    return _Fail(
        "unknown_key",
        f'{verb} has no key "{shown}";{hint} {verb} takes {spec.keys_text or "no keys"}: {spec.model.USAGE}',
    )


def _build(spec: _VerbSpec, pairs: list[tuple[Any, Any]]) -> Order:
    """Map keys to fields, coerce every value and construct the model (TOOLS-170, TOOLS-210)."""
    verb = spec.verb
    raw: dict[str, tuple[str, Any]] = {}
    unit_list: list[Any] = []
    for key, value in pairs:
        field = spec.aliases.get(key)
        if field is None:
            nk = _norm(key) if isinstance(key, str) else ""
            field = spec.aliases.get(nk) or spec.aliases.get(nk.replace("_", ""))
            if field is None:
                raise _unknown_key(spec, key, nk)
        if value is None:
            continue  # JSON null = not given
        if field == "unit_ids":
            if value is _BARE:
                raise _Fail("bad_value", f"{key} needs a value, e.g. {spec.model.EXAMPLE}")
            unit_list.append(value)
            continue
        if field in raw:
            raise _Fail("bad_value", f"{key} is given twice; give it once, e.g. {spec.model.EXAMPLE}")
        raw[field] = (key, value)
    if unit_list:
        raw["unit_ids"] = ("units", unit_list)
    if "q" in raw or "r" in raw:
        if "to" in raw:
            raise _Fail(
                "bad_tile", f"give the tile once, either to=q,r or q and r; e.g. {spec.model.EXAMPLE}"
            )
        if "q" not in raw or "r" not in raw:
            raise _Fail(
                "bad_tile", f"a tile needs both q and r; {spec.verb} needs to=q,r, e.g. {spec.model.EXAMPLE}"
            )
        qv, rv = raw.pop("q")[1], raw.pop("r")[1]
        raw["to"] = ("to", [qv, rv])
    for field in spec.required:
        if field not in raw:
            raise _Fail("missing_key", f"{verb} needs {spec.desc(field)}, e.g. {spec.model.EXAMPLE}")
    fields: dict[str, Any] = {}
    for field, (_key, value) in raw.items():
        kind = spec.fields[field]
        shown_key = spec.short.get(field, field)
        if value is _BARE and kind != "flag":
            raise _Fail(
                "bad_value", f"{shown_key} needs a value: {spec.desc(field)}, e.g. {spec.model.EXAMPLE}"
            )
        if kind == "id":
            fields[field] = _as_id(value, shown_key, spec)
        elif kind == "ids":
            fields[field] = _as_ids(value, shown_key, spec)
        elif kind == "tile":
            fields[field] = _as_tile(value, spec)
        elif kind == "flag":
            fields[field] = _as_flag(value, shown_key, spec)
        elif kind == "men":
            fields[field] = _as_men(value, spec)
        elif kind == "dan":
            fields[field] = _as_dan(value, spec)
        elif kind == "queue":
            fields[field] = _as_queue(value, spec)
        elif kind == "focus":
            fields[field] = _as_choice(value, "focus", FOCUSES, spec)
        elif kind == "what":
            fields[field] = _as_choice(value, "what", BUILD_WHAT, spec)
        elif kind == "sabotage_target":
            fields[field] = _as_choice(value, "target", SABOTAGE_TARGETS, spec)
        else:  # name
            fields[field] = _as_name(value, spec)
    try:
        return spec.model(**fields)  # type: ignore[return-value]
    except ValidationError as exc:  # a safety net: our checks should have caught everything
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        raise _Fail(
            "bad_value", f"{where}: {first.get('msg', 'invalid')}; e.g. {spec.model.EXAMPLE}"
        ) from None


def _parse_dict(obj: dict[Any, Any]) -> Order:
    """One JSON order object with "action" and long field names (OPEN-81, TOOLS-390)."""
    if not obj:
        raise _Fail(
            "empty", 'this order is an empty object; e.g. {"action": "move", "unit_id": 12, "q": 5, "r": 7}'
        )
    action: Any = None
    pairs: list[tuple[Any, Any]] = []
    for k, v in obj.items():
        nk = _norm(k) if isinstance(k, str) else None
        if nk in ("action", "verb") and action is None:
            action = v
        else:
            pairs.append((k, v))
    if action is None:
        raise _Fail(
            "missing_key",
            'each JSON order needs "action" (the verb), e.g. {"action": "move", "unit_id": 12, "q": 5, "r": 7}',
        )
    if not isinstance(action, str):
        raise _Fail("unknown_verb", f'"action" must be a verb name, not {_show(action)}; verbs: {_VERB_LIST}')
    verb = _lookup_verb(action)
    if verb is None:
        raise _unknown_verb(action)
    return _build(_SPECS[verb], pairs)


def _parse_text(s: str) -> Order:
    """One short-syntax order: `action key=value ...` (TOOLS-160)."""
    if len(s) > _MAX_ORDER_CHARS:
        raise _Fail(
            "bad_value", f"this order is over {_MAX_ORDER_CHARS} characters; give one order per line or ';'"
        )
    if s[0] == "{":
        ok, obj = _load_json(s)
        if not ok or not isinstance(obj, dict):
            raise _Fail(
                "bad_json",
                'this order is not valid JSON; e.g. {"action": "move", "unit_id": 12, "q": 5, "r": 7}',
            )
        return _parse_dict(obj)
    m = _VERB_RE.match(s)
    if not m:
        raise _Fail(
            "unknown_verb", f"an order starts with a verb, e.g. move unit=12 to=5,7; verbs: {_VERB_LIST}"
        )
    word = m.group(1)
    rest = s[m.end() :]
    verb = _lookup_verb(word)
    if verb is None:
        m2 = _VERB_RE.match(rest)  # "set production city=1 ..."
        verb = _lookup_verb(word + "_" + m2.group(1)) if m2 else None
        if verb is not None and m2 is not None:
            rest = rest[m2.end() :]
        elif rest.startswith("="):
            raise _Fail(
                "unknown_verb",
                f'an order starts with a verb, e.g. move unit=12 to=5,7; "{word}" is not one; verbs: {_VERB_LIST}',
            )
        else:
            raise _unknown_verb(word)
    spec = _SPECS[verb]
    if verb == "declare_war":
        name = rest.strip()
        if name and name[0] not in "\"'[{":
            dm = _DECLARE_TO_RE.fullmatch(name)
            if dm and dm.group(1).strip() and dm.group(1).strip()[0] not in "\"'[{":
                return _build(spec, [("to", dm.group(1).strip())])
            if "=" not in name:
                return _build(spec, [("to", _DECLARE_ON_RE.sub("", name, count=1))])
    return _build(spec, _scan_pairs(verb, rest))


# --- public API ---------------------------------------------------------------------------------------


def _one(item: Any, position: int, out: list[ParseResult]) -> None:
    """Parse one JSON order object into out (an object with more than MAX_KEYS keys is refused unread)."""
    if len(item) > MAX_KEYS:
        head = _dump(dict(list(item.items())[:6]))
        out.append(OrderError(position, echo_text(head[:-1] + ", ...}"), "bad_value",
                              f"this order object has {len(item):,} keys; an order takes at most {MAX_KEYS} (its "
                              'action and a few fields), e.g. {"action": "move", "unit_id": 12, "q": 5, "r": 7}'))
        return
    text = _dump(item)
    try:
        out.append(ParsedOrder(position, text, _parse_dict(item)))
    except _Fail as f:
        out.append(OrderError(position, echo_text(text), f.code, f.message))
    except Exception as exc:  # noqa: BLE001 - parse_orders never raises
        out.append(
            OrderError(position, echo_text(text), "bad_value", f"could not read this order ({type(exc).__name__})")
        )


def _text_orders(text: str, out: list[ParseResult], depth: int) -> None:
    """Parse a short-syntax text (or a JSON array/object given as text) into out."""
    stripped = text.strip()
    if stripped and stripped[0] in "[{" and depth < 2:
        ok, decoded = _load_json(stripped)
        if ok and isinstance(decoded, list):
            _items(decoded, out, depth + 1)
            return
        if ok and isinstance(decoded, dict):
            _one(decoded, len(out) + 1, out)
            return
        if stripped[0] == "[":
            out.append(
                OrderError(
                    len(out) + 1,
                    _show(stripped, 80),
                    "bad_json",
                    "the orders look like a JSON array but are not valid JSON; send e.g. "
                    '[{"action": "move", "unit_id": 12, "q": 5, "r": 7}] or text like move unit=12 to=5,7',
                )
            )
            return
    for piece in _split_text(text):
        s = _clean_piece(piece)
        if not s:
            continue
        if len(out) >= _MAX_ORDERS:
            raise _TooMany
        position = len(out) + 1
        try:
            out.append(ParsedOrder(position, s, _parse_text(s)))
        except _Fail as f:
            out.append(OrderError(position, echo_text(s), f.code, f.message))
        except Exception as exc:  # noqa: BLE001 - parse_orders never raises
            out.append(
                OrderError(position, echo_text(s), "bad_value", f"could not read this order ({type(exc).__name__})")
            )


#: The order model classes: an orders array may hold them as they are (_items).
_MODEL_TYPES: Final = frozenset(ORDER_MODELS.values())


def _items(items: list[Any] | tuple[Any, ...], out: list[ParseResult], depth: int) -> None:
    """Parse the elements of an orders array: objects and short-syntax strings, mixed (TOOLS-140, TOOLS-390), and
    order models (a scripted ruler's: already valid, their text the one format_order writes)."""
    for item in items:
        if len(out) >= _MAX_ORDERS:
            raise _TooMany
        if isinstance(item, str):
            _text_orders(item, out, depth)
        elif isinstance(item, dict):
            _one(item, len(out) + 1, out)
        elif type(item) in _MODEL_TYPES:
            out.append(ParsedOrder(len(out) + 1, format_order(item), item))
        else:
            out.append(
                OrderError(
                    len(out) + 1,
                    _dump(item)[:80],
                    "bad_json",
                    "each order must be an object with an action or a text order; e.g. "
                    '{"action": "move", "unit_id": 12, "q": 5, "r": 7} or "move unit=12 to=5,7"',
                )
            )


def parse_orders(orders: str | list[str | dict[str, Any]] | Any) -> list[ParseResult]:
    """Parse an issue_orders `orders` argument (text, or a list of objects/strings/order models) in order; never
    raises.

    Positions are 1-based over all orders in the call; a call that is neither text nor a list yields one
    malformed_call error at position 0; blank text or [] yields [].
    """
    out: list[ParseResult] = []
    try:
        if isinstance(orders, str):
            _text_orders(orders, out, 0)
        elif isinstance(orders, list | tuple):
            _items(orders, out, 0)
        else:
            out.append(
                OrderError(
                    0,
                    _dump(orders)[:80],
                    "malformed_call",
                    "orders must be text like move unit=12 to=5,7; attack unit=3 to=6,7 or a JSON array of orders "
                    'like [{"action": "move", "unit_id": 12, "q": 5, "r": 7}]',
                )
            )
    except _TooMany:
        out.append(
            OrderError(
                len(out) + 1,
                "",
                "malformed_call",
                f"too many orders in one call: a call takes at most {MAX_ORDERS} orders, so orders after the "
                f"{MAX_ORDERS}th were not read (not queued); send them in another call",
            )
        )
    except Exception as exc:  # noqa: BLE001 - last-resort guard: never raise to the tool layer
        out.append(
            OrderError(
                len(out) + 1, "", "malformed_call", f"could not read the orders ({type(exc).__name__})"
            )
        )
    return out


def parse_order(order: str | dict[str, Any]) -> Order:
    """Parse exactly one order (text or JSON object); raises OrderSyntaxError. Handy for tests and scripts."""
    results = parse_orders([order])
    if len(results) != 1:
        text = order if isinstance(order, str) else _dump(order)
        code = "empty" if not results else "bad_value"
        raise OrderSyntaxError(OrderError(1, text, code, f"expected exactly one order, got {len(results)}"))
    result = results[0]
    if isinstance(result, OrderError):
        raise OrderSyntaxError(result)
    return result.order


def format_queue_item(item: QueueItem) -> str:
    """Canonical text of a queue item: spearman:3000, farm@3,4 or barracks (OPEN-80)."""
    if item.men is not None:
        return f"{item.item}:{item.men}"
    if item.tile is not None:
        return f"{item.item}@{item.tile[0]},{item.tile[1]}"
    return item.item


_SAFE_NAME: Final = re.compile(r"[^\W\d]\w*")


def format_order(order: Order) -> str:
    """Canonical short syntax for an order; parse_orders(format_order(o)) gives back an equal order."""
    a = order.action
    d = order.__dict__
    if a == "hold":
        ids = d["unit_ids"]
        return f"hold unit={ids[0]}" if len(ids) == 1 else "hold units=" + ",".join(map(str, ids))
    if a == "declare_war":
        name = d["to"]
        shown = name if _SAFE_NAME.fullmatch(name) else json.dumps(name, ensure_ascii=False)
        return f"declare_war to={shown}"
    if a == "set_production":
        queue = ",".join(format_queue_item(i) for i in d["queue"])
        return f"set_production city={d['city_id']} queue={queue or '[]'}"
    parts: list[str] = [a]
    for short, field in type(order).KEYS.items():
        if field not in d:
            continue
        value = d[field]
        if field in ("hold", "pursue", "surprise"):
            if value:
                parts.append(short)
        elif field == "to":
            parts.append(f"to={value[0]},{value[1]}")
        else:
            parts.append(f"{short}={value}")
    return " ".join(parts)


def format_orders(orders: list[Order]) -> str:
    """Several orders as one "; "-separated text."""
    return "; ".join(format_order(o) for o in orders)


def syntax_help() -> str:
    """One usage line per verb, built from the models (for help text and error replies)."""
    return "\n".join(m.USAGE for m in ORDER_MODELS.values())
