"""Strict, friendly tool arguments for any MCPServer: unknown names refused, wrong types explained in one line.

The SDK builds each tool's input schema from its signature and validates a call with pydantic, which ignores
argument names it does not know and answers a wrong type with a pydantic dump. StrictMCPServer checks every
call against the tool's own schema first, before anything runs: an unknown name is refused with the closest
valid one, a missing or mistyped argument gets one line with the expected type and an example, and the
listed schemas say so (`additionalProperties: false`). Unambiguous spellings are taken as meant (`"5"` for a
whole number, `"true"` for true). No pydantic text ever reaches a client. Tools added later with
`@server.tool` get the same treatment with no code of their own.
"""

from __future__ import annotations

import copy
import difflib
import json
import re
from collections.abc import Mapping
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, InputRequiredResult, TextContent
from mcp_types import Tool as MCPTool
from pydantic import ValidationError

NOT_RUN = "The call was not run: fix it and send it again."
_INT = re.compile(r"^[+-]?\d+$")

Schema = dict[str, Any]


class StrictMCPServer(MCPServer):
    """An MCPServer whose tools take only the arguments they declare, with plain one-line refusals."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.middleware.append(_arguments_are_an_object)

    async def list_tools(self) -> list[MCPTool]:
        """The tools, each schema closed to unknown arguments."""
        return [t.model_copy(update={"input_schema": strict_schema(t.input_schema)})
                for t in await super().list_tools()]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None
                        ) -> CallToolResult | InputRequiredResult:
        """Check the arguments against the tool's schema, then run it; every refusal is one plain ToolError."""
        tool = self._tool_manager.get_tool(name)  # listed or not; not list_tools(): it builds every Tool model
        if tool is None:
            listed = sorted(t.name for t in await self.list_tools())
            hint = closest(name, listed)
            raise ToolError(f"unknown tool `{key_label(name)}`" + (f": did you mean `{hint}`?" if hint else ".")
                            + f" The tools are: {', '.join(listed)}.")
        schema = tool.parameters
        args, problems = check_arguments(name, schema, arguments)
        if problems:
            raise ToolError(" ".join(problems) + " " + NOT_RUN)
        try:
            return await super().call_tool(name, args, context)
        except UnexpectedToolError:
            raise
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):  # a constraint this checker does not know
                raise ToolError(validation_line(name, schema, exc.__cause__) + " " + NOT_RUN) from None
            text = str(exc)
            prefix = f"Error executing tool {name}: "
            if text.startswith(prefix):
                raise ToolError(text[len(prefix):]) from exc.__cause__
            raise


async def _arguments_are_an_object(ctx: Any, call_next: Any) -> Any:
    """A tools/call whose `arguments` is not an object gets a tool error saying so (not 'Invalid params')."""
    params = ctx.params
    if ctx.method == "tools/call" and isinstance(params, Mapping):
        given = params.get("arguments")
        if given is not None and not isinstance(given, Mapping):
            text = (f"the arguments must be one JSON object of name: value pairs (e.g. {{\"city_id\": 1}}), got "
                    f"{got(given)}. {NOT_RUN}")
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
    return await call_next(ctx)


# --- schemas ------------------------------------------------------------------------------------------------


def strict_schema(schema: Schema) -> Schema:
    """A copy of a tool's input schema that forbids unknown arguments."""
    out = copy.deepcopy(schema)
    out.setdefault("type", "object")
    out.setdefault("properties", {})
    out["additionalProperties"] = False
    return out


def closest(word: str, names: list[str]) -> str | None:
    """The valid name a misspelt one most likely meant (case and separators ignored first)."""
    def flat(s: str) -> str:
        return re.sub(r"[^a-z0-9]", "", s.lower())

    for n in names:
        if flat(n) == flat(word):
            return n
    for n in names:  # a plural or singular of a valid name
        if flat(n).rstrip("s") == flat(word).rstrip("s"):
            return n
    hits = difflib.get_close_matches(word.lower(), names, n=1, cutoff=0.6)
    return hits[0] if hits else None


# --- checking a call ------------------------------------------------------------------------------------------


def check_arguments(tool: str, schema: Schema, arguments: dict[str, Any] | None) -> tuple[dict[str, Any], list[str]]:
    """The arguments with unambiguous spellings made exact, and one line per problem (none when all is well)."""
    props: dict[str, Schema] = schema.get("properties") or {}
    required = [r for r in schema.get("required") or [] if r in props]
    args = dict(arguments or {})
    problems: list[str] = []
    takes = ", ".join(props) if props else "no arguments"
    for key in args:
        if key not in props:
            hint = closest(key, list(props))
            if hint:
                problems.append(f"unknown argument `{key_label(key)}`: did you mean `{hint}`? ({tool} takes "
                                f"{takes}.)")
            else:
                problems.append(f"unknown argument `{key_label(key)}`: {tool} takes {takes}.")
    for key in required:
        if key not in args:
            problems.append(f"missing argument `{key}`: {tool} needs it, {describe(props[key])}, e.g. "
                            f"{example_pair(key, props[key])}.")
    out: dict[str, Any] = {}
    for key, value in args.items():
        if key not in props:
            continue
        fixed, error = check_value(props[key], value)
        if error is not None:
            problems.append(f"argument `{key}` {error}, e.g. {example_pair(key, props[key])}.")
        else:
            out[key] = fixed
    return out, problems


def key_label(key: str) -> str:
    """An argument name as a reply shows it: on one line and at most 40 characters."""
    shown = json.dumps(key[:40], ensure_ascii=False)[1:-1]
    return shown + ("..." if len(key) > 40 else "")


def check_value(schema: Schema, value: Any) -> tuple[Any, str | None]:
    """(the value, None) when it fits the schema, possibly respelt; else (value, 'must be ..., got ...')."""
    options = _options(schema)
    first_error: str | None = None
    for option in options:
        fixed, error = _check_one(option, value)
        if error is None:
            return fixed, None
        if len(options) == 1 or _kind_matches(option, value):
            first_error = first_error or error
    if first_error is None:
        first_error = f"must be {describe(schema)}, got {got(value)}"
    return value, first_error


def _options(schema: Schema) -> list[Schema]:
    if "anyOf" in schema or "oneOf" in schema:
        opts = schema.get("anyOf") or schema.get("oneOf") or []
        merged = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
        return [{**merged, **o} for o in opts]
    return [schema]


def _kind_matches(schema: Schema, value: Any) -> bool:
    """Whether the value is of the option's JSON type (so its finer error, e.g. a range, is the one to tell)."""
    t = schema.get("type")
    return ((t == "array" and isinstance(value, list)) or (t == "object" and isinstance(value, dict))
            or (t in ("integer", "number") and _is_number(value)) or (t == "string" and isinstance(value, str)))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_one(schema: Schema, value: Any) -> tuple[Any, str | None]:
    t = schema.get("type")
    if "enum" in schema and value not in schema["enum"]:
        return value, f"must be one of {', '.join(json.dumps(v) for v in schema['enum'])}, got {got(value)}"
    if t is None:
        return value, None
    if t == "null":
        return (None, None) if value is None else (value, f"must be null, got {got(value)}")
    if t == "boolean":
        if isinstance(value, bool):
            return value, None
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true", None
        return value, f"must be true or false, got {got(value)}"
    if t in ("integer", "number"):
        number: Any = value
        if isinstance(value, str) and _INT.match(value.strip()):
            number = int(value.strip())
        if not _is_number(number):
            return value, f"must be {describe(schema)}, got {got(value)}"
        if t == "integer":
            if isinstance(number, float) and not number.is_integer():
                return value, f"must be {describe(schema)}, got {got(value)}"
            number = int(number)
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and number < low) or (high is not None and number > high):
            return value, f"must be {describe(schema)}, got {got(value)}"
        return number, None
    if t == "string":
        if not isinstance(value, str):
            return value, f"must be {describe(schema)}, got {got(value)}"
        low, high = schema.get("minLength"), schema.get("maxLength")
        if (low is not None and len(value) < low) or (high is not None and len(value) > high):
            return value, f"must be {describe(schema)}, got {len(value):,} characters"
        return value, None
    if t == "array":
        if isinstance(value, str) and value.strip().startswith("["):  # a list sent as JSON text, as the SDK allows
            try:
                value = json.loads(value)
            except ValueError:
                return value, f"must be {describe(schema)}, got {got(value)} that is not valid JSON"
        if not isinstance(value, list):
            return value, f"must be {describe(schema)}, got {got(value)}"
        item_schema = schema.get("items") or {}
        items = []
        for i, item in enumerate(value, 1):
            fixed, error = check_value(item_schema, item)
            if error is not None:
                return value, f"item {i} {error}"
            items.append(fixed)
        return items, None
    if t == "object":
        if isinstance(value, dict):
            return value, None
        return value, f"must be {describe(schema)}, got {got(value)}"
    return value, None


# --- words ---------------------------------------------------------------------------------------------------


def describe(schema: Schema) -> str:
    """What a schema wants, in words: 'a whole number from 1 to 200', 'true or false', 'a text or a list ...'."""
    options = _options(schema)
    if len(options) > 1:
        real = [o for o in options if o.get("type") != "null"]
        words = " or ".join(describe(o) for o in real)
        return words + (" (or null / left out)" if len(real) < len(options) else "")
    t = schema.get("type")
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    if t == "boolean":
        return "true or false"
    if t in ("integer", "number"):
        word = "a whole number" if t == "integer" else "a number"
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            return f"{word} from {low} to {high}"
        if low is not None:
            return f"{word} of at least {low}"
        if high is not None:
            return f"{word} of at most {high}"
        return word
    if t == "string":
        low, high = schema.get("minLength"), schema.get("maxLength")
        if high is not None:
            return f"a text of {low or 0} to {high:,} characters" if low else f"a text of at most {high:,} characters"
        return f"a text of at least {low:,} characters" if low else "a text"
    if t == "array":
        items = schema.get("items")
        return f"a list of {_plural(describe(items))}" if items else "a list"
    if t == "object":
        return "an object"
    if t == "null":
        return "null"
    return "a value"


def _plural(words: str) -> str:
    return re.sub(r"\ban? (\w+)", lambda m: m.group(1) + ("" if m.group(1).endswith("s") else "s"), words)


def got(value: Any) -> str:
    """The value a call gave, in words and cut short: 'the text "maybe"', 'the number 2.5', 'a list'."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the text {json.dumps(shown, ensure_ascii=False)}"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def example_value(schema: Schema) -> Any:
    """An example for an argument: the schema's own (`examples`), else one that fits its type and range."""
    if schema.get("examples"):
        return schema["examples"][0]
    if "enum" in schema:
        return schema["enum"][0]
    real = [o for o in _options(schema) if o.get("type") != "null"]
    s = real[0] if real else schema
    t = s.get("type")
    if t == "boolean":
        return True
    if t in ("integer", "number"):
        low, high = s.get("minimum"), s.get("maximum")
        return low if low is not None else (high if high is not None and high < 1 else 1)
    if t == "array":
        return [example_value(s.get("items") or {"type": "string"})]
    if t == "object":
        return {}
    return "..."


def example_pair(key: str, schema: Schema) -> str:
    return f"`\"{key}\": {json.dumps(example_value(schema), ensure_ascii=False)}`"


def validation_line(tool: str, schema: Schema, exc: ValidationError) -> str:
    """A pydantic refusal the checker let through, told as one line per argument with no pydantic text."""
    props: dict[str, Schema] = schema.get("properties") or {}
    keys = []
    for err in exc.errors():
        loc = err.get("loc") or ()
        key = str(loc[0]) if loc else ""
        if key not in keys:
            keys.append(key)
    lines = [f"argument `{k}` must be {describe(props[k])}, e.g. {example_pair(k, props[k])}." for k in keys
             if k in props]
    return " ".join(lines) or f"the arguments of {tool} do not fit its schema."
