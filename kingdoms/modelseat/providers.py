"""Model providers behind one small interface: the MCP tools in the provider's format, a conversation, one
request, and the reply as text, tool calls and usage.

`anthropic` uses the official `anthropic` SDK (Messages API with tool use), `openai` and `openai-compatible`
the official `openai` SDK (Chat Completions with tool calls; the latter at --base-url, for vLLM, Ollama,
llama.cpp and the like). The SDKs are imported only when a provider is made, so the rest of Kingdoms works
without the `models` extra. Their own retries are off (max_retries=0): neither knows the month's deadline
(and the anthropic SDK sleeps as long as any Retry-After says), so the seat runs its own deadline-aware loop on
the errors classified here.
"""

from __future__ import annotations

import copy
import email.utils
import json
import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kingdoms.modelseat.costs import Usage

if TYPE_CHECKING:  # the SDKs are an optional extra (kingdoms[models]), imported when a provider is made
    from anthropic.types import ToolParam
    from openai.types.chat import ChatCompletionFunctionToolParam

PROVIDERS = ("anthropic", "openai", "openai-compatible")
INSTALL_HINT = "pip install 'kingdoms[models]'  (or: pip install -e '.[models]' in a checkout)"


class ProviderSetupError(Exception):
    """The provider cannot be used at all: its SDK is missing, no API key, an unknown provider name."""


class ProviderUsageError(ProviderSetupError):
    """The command line names no usable provider: a malformed PROVIDER:MODEL, openai-compatible without a URL."""


class TransientError(Exception):
    """A failure worth retrying: rate limit, server error or overload, timeout, connection refused."""

    def __init__(self, message: str, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class RequestError(Exception):
    """The provider refused this request (400, 413, 422...): retrying the same request will not help."""


class FatalError(Exception):
    """The provider will refuse every request: bad key, no permission, no credit, unknown model."""


@dataclass(slots=True)
class ToolSpec:
    """One MCP tool as listed by the server."""

    name: str
    description: str
    schema: dict[str, Any]


@dataclass(slots=True)
class ToolCall:
    """One tool call in a model's reply; `error` says why its arguments could not be read."""

    id: str
    name: str
    arguments: dict[str, Any]
    error: str | None = None


@dataclass(slots=True)
class Reply:
    """A model's answer to one request."""

    text: str
    calls: list[ToolCall]
    usage: Usage
    stop_reason: str
    message: Any = None  # the assistant turn in the provider's own format, appended to the conversation


@dataclass(slots=True)
class Conversation:
    """A system prompt and the turns so far, in the provider's format."""

    system: str
    messages: list[Any] = field(default_factory=list)


def _retry_after(headers: Any) -> float | None:
    """Seconds a provider asked us to wait (retry-after-ms, or retry-after in seconds or as an HTTP date)."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


def _classify(sdk: Any, exc: Exception) -> Exception:
    """Turn an SDK exception into TransientError, RequestError or FatalError (either SDK: same shapes)."""
    if isinstance(exc, sdk.APIStatusError):
        status = int(exc.status_code)
        text = f"HTTP {status}: {str(exc)[:300]}"
        if status in (408, 409, 425, 429) or status >= 500:
            return TransientError(text, status, _retry_after(getattr(exc.response, "headers", None)))
        if status in (401, 402, 403, 404):
            return FatalError(text)
        return RequestError(text)
    if isinstance(exc, sdk.APIConnectionError):  # includes timeouts
        return TransientError(f"{type(exc).__name__}: {str(exc)[:300]}")
    if isinstance(exc, sdk.APIError):
        return RequestError(f"{type(exc).__name__}: {str(exc)[:300]}")
    return exc


class Provider:
    """The interface every provider adapter implements."""

    provider = ""

    def __init__(self, model: str, *, max_output_tokens: int) -> None:
        self.model = model
        self.max_output_tokens = max_output_tokens
        self.tools: list[ToolSpec] = []

    @property
    def spec(self) -> str:
        return f"{self.provider}:{self.model}"

    def set_tools(self, tools: list[ToolSpec]) -> None:
        self.tools = list(tools)

    def start(self, system: str, user: str) -> Conversation:
        convo = Conversation(system)
        self.add_user(convo, user)
        return convo

    def add_user(self, convo: Conversation, text: str) -> None:
        raise NotImplementedError

    def add_reply(self, convo: Conversation, reply: Reply) -> None:
        convo.messages.append(reply.message)

    def add_results(self, convo: Conversation, results: list[tuple[ToolCall, str, bool]]) -> None:
        raise NotImplementedError

    async def send(self, convo: Conversation, *, timeout: float) -> Reply:
        raise NotImplementedError

    async def close(self) -> None:
        return None


# --- Anthropic ----------------------------------------------------------------------------------------------


class AnthropicProvider(Provider):
    """Claude through the Messages API. The system prompt and tools are marked for prompt caching, and so are
    the latest turns, so the growing conversation of a month is read from the cache on each call."""

    provider = "anthropic"

    def __init__(self, model: str, *, base_url: str | None, max_output_tokens: int) -> None:
        super().__init__(model, max_output_tokens=max_output_tokens)
        try:
            import anthropic
        except ImportError as exc:
            raise ProviderSetupError(f"the anthropic provider needs the anthropic SDK: {INSTALL_HINT}") from exc
        if not (os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN")):
            raise ProviderSetupError("set ANTHROPIC_API_KEY to your Anthropic API key")
        self.sdk = anthropic
        kwargs: dict[str, Any] = {"max_retries": 0}
        if base_url:
            kwargs["base_url"] = base_url
        self.client = anthropic.AsyncAnthropic(**kwargs)

    def _tools(self) -> list[ToolParam]:
        tools: list[ToolParam] = [{"name": t.name, "description": t.description,
                  "input_schema": t.schema or {"type": "object", "properties": {}}} for t in self.tools]
        if tools:
            tools[-1] = {**tools[-1], "cache_control": {"type": "ephemeral"}}
        return tools

    def add_user(self, convo: Conversation, text: str) -> None:
        convo.messages.append({"role": "user", "content": [{"type": "text", "text": text}]})

    def add_results(self, convo: Conversation, results: list[tuple[ToolCall, str, bool]]) -> None:
        blocks = [{"type": "tool_result", "tool_use_id": call.id, "content": text or "(empty)", "is_error": err}
                  for call, text, err in results]
        convo.messages.append({"role": "user", "content": blocks})

    def _marked(self, convo: Conversation) -> list[Any]:
        """The messages with a cache mark on the last block of each of the last two user turns (the earlier
        one is read from the cache, the latest written), leaving the stored conversation unmarked."""
        messages = copy.copy(convo.messages)
        marked = 0
        for i in range(len(messages) - 1, -1, -1):
            msg = messages[i]
            if msg["role"] != "user" or not msg["content"]:
                continue
            content = list(msg["content"])
            content[-1] = {**content[-1], "cache_control": {"type": "ephemeral"}}
            messages[i] = {**msg, "content": content}
            marked += 1
            if marked == 2:
                break
        return messages

    async def send(self, convo: Conversation, *, timeout: float) -> Reply:
        try:
            resp = await self.client.messages.create(
                model=self.model, max_tokens=self.max_output_tokens, tools=self._tools(),
                system=[{"type": "text", "text": convo.system, "cache_control": {"type": "ephemeral"}}],
                messages=self._marked(convo), timeout=timeout)
        except self.sdk.AnthropicError as exc:
            raise _classify(self.sdk, exc) from exc
        texts: list[str] = []
        calls: list[ToolCall] = []
        content: list[dict[str, Any]] = []
        for block in resp.content or []:
            if block.type == "text":
                texts.append(block.text)
                content.append({"type": "text", "text": block.text})
            elif block.type == "tool_use":
                args = block.input if isinstance(block.input, dict) else {}
                error = None if isinstance(block.input, dict) else "the tool input was not a JSON object"
                calls.append(ToolCall(block.id, block.name, args, error))
                content.append({"type": "tool_use", "id": block.id, "name": block.name, "input": block.input})
            else:  # thinking and other blocks go back as they came
                content.append(block.model_dump(exclude_none=True))
        u = resp.usage
        usage = Usage(input_tokens=int(getattr(u, "input_tokens", 0) or 0),
                      cached_input_tokens=int(getattr(u, "cache_read_input_tokens", 0) or 0),
                      cache_write_tokens=int(getattr(u, "cache_creation_input_tokens", 0) or 0),
                      output_tokens=int(getattr(u, "output_tokens", 0) or 0))
        return Reply("\n".join(texts), calls, usage, str(resp.stop_reason or ""),
                     {"role": "assistant", "content": content or [{"type": "text", "text": "(no reply)"}]})

    async def close(self) -> None:
        await self.client.close()


# --- OpenAI and OpenAI-compatible ---------------------------------------------------------------------------


class OpenAIProvider(Provider):
    """Chat Completions with function tools: OpenAI itself, or any server that speaks the same API."""

    provider = "openai"

    def __init__(self, model: str, *, base_url: str | None, max_output_tokens: int, compatible: bool = False) -> None:
        super().__init__(model, max_output_tokens=max_output_tokens)
        if compatible:
            self.provider = "openai-compatible"
        try:
            import openai
        except ImportError as exc:
            raise ProviderSetupError(f"the {self.provider} provider needs the openai SDK: {INSTALL_HINT}") from exc
        key = os.environ.get("OPENAI_API_KEY")
        if compatible:
            if not base_url:
                raise ProviderUsageError("openai-compatible needs --base-url, the server's API root "
                                         "(e.g. http://localhost:8000/v1 for vLLM, http://localhost:11434/v1 "
                                         "for Ollama)")
            key = key or "none"  # local servers mostly ignore the key, the SDK wants one
        elif not key:
            raise ProviderSetupError("set OPENAI_API_KEY to your OpenAI API key")
        self.sdk = openai
        self.compatible = compatible
        kwargs: dict[str, Any] = {"api_key": key, "max_retries": 0}
        if base_url:
            kwargs["base_url"] = base_url
        self.client = openai.AsyncOpenAI(**kwargs)

    def _tools(self) -> list[ChatCompletionFunctionToolParam]:
        return [{"type": "function", "function": {
            "name": t.name, "description": t.description,
            "parameters": t.schema or {"type": "object", "properties": {}}}} for t in self.tools]

    def start(self, system: str, user: str) -> Conversation:
        convo = Conversation(system, [{"role": "system", "content": system}])
        self.add_user(convo, user)
        return convo

    def add_user(self, convo: Conversation, text: str) -> None:
        convo.messages.append({"role": "user", "content": text})

    def add_results(self, convo: Conversation, results: list[tuple[ToolCall, str, bool]]) -> None:
        for call, text, err in results:
            body = text or "(empty)"
            convo.messages.append({"role": "tool", "tool_call_id": call.id,
                                   "content": f"ERROR: {body}" if err else body})

    async def send(self, convo: Conversation, *, timeout: float) -> Reply:
        # OpenAI's newer models take only max_completion_tokens; most compatible servers know max_tokens.
        limit, omit = self.max_output_tokens, self.sdk.omit  # an omitted argument is left out of the request
        try:
            resp = await self.client.chat.completions.create(
                model=self.model, messages=convo.messages, tools=self._tools(), timeout=timeout,
                max_tokens=limit if self.compatible else omit, max_completion_tokens=omit if self.compatible else limit)
        except self.sdk.OpenAIError as exc:
            raise _classify(self.sdk, exc) from exc
        choice = resp.choices[0] if resp.choices else None
        msg = choice.message if choice else None
        text = (msg.content or "") if msg else ""
        calls: list[ToolCall] = []
        wire_calls: list[dict[str, Any]] = []
        for tc in (msg.tool_calls or []) if msg else []:
            fn = getattr(tc, "function", None)
            if fn is None:
                continue
            raw = fn.arguments or ""
            args: dict[str, Any] = {}
            error = None
            try:
                parsed = json.loads(raw) if raw.strip() else {}
                if isinstance(parsed, dict):
                    args = parsed
                else:
                    error = "the arguments must be a JSON object"
            except json.JSONDecodeError as exc:
                error = f"the arguments are not valid JSON ({exc.msg} at character {exc.pos})"
            calls.append(ToolCall(tc.id, fn.name, args, error))
            wire_calls.append({"id": tc.id, "type": "function", "function": {"name": fn.name, "arguments": raw}})
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if wire_calls:
            message["tool_calls"] = wire_calls
        else:
            message["content"] = text or "(no reply)"
        u = resp.usage
        prompt = int(getattr(u, "prompt_tokens", 0) or 0) if u else 0
        details = getattr(u, "prompt_tokens_details", None) if u else None
        cached = int(getattr(details, "cached_tokens", 0) or 0) if details else 0
        usage = Usage(input_tokens=max(0, prompt - cached), cached_input_tokens=cached,
                      output_tokens=int(getattr(u, "completion_tokens", 0) or 0) if u else 0)
        return Reply(text, calls, usage, str(choice.finish_reason if choice else ""), message)

    async def close(self) -> None:
        await self.client.close()


def make_provider(spec: str, *, base_url: str | None = None, max_output_tokens: int = 4096) -> Provider:
    """A provider from PROVIDER:MODEL (the model name may itself hold colons, e.g. an Ollama tag)."""
    provider, sep, model = spec.partition(":")
    if not sep or not model or provider not in PROVIDERS:
        raise ProviderUsageError(f"--model {spec!r}: write PROVIDER:MODEL with PROVIDER one of {', '.join(PROVIDERS)} "
                                 "(e.g. anthropic:claude-sonnet-4-5, openai:gpt-4.1, openai-compatible:llama3.1:8b)")
    if provider == "anthropic":
        return AnthropicProvider(model, base_url=base_url, max_output_tokens=max_output_tokens)
    return OpenAIProvider(model, base_url=base_url, max_output_tokens=max_output_tokens,
                          compatible=provider == "openai-compatible")
