"""A local stand-in for the model providers: one HTTP server speaking the Anthropic Messages API (tool use) and
the OpenAI Chat Completions API (tool calls), streaming off, replaying a scripted ruler.

The scripted ruler reads the month's briefing from the conversation it is sent, makes one unusable call in the
first month (an unknown tool for Anthropic, arguments that are not JSON for OpenAI), then gives orders with one
mistake (a unit that does not exist), and after the refusal comes back it gives a correct order and ends the
month. Faults (an HTTP status for a numbered request, or every request while `down`) test the retries.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CAPITAL = re.compile(r"#(\d+) \S+ \(\d+,\d+\) \[capital\]")
LEVY = re.compile(r"#(\d+) levy ")
MONTH = re.compile(r"^Month (\d+)")


@dataclass
class Stub:
    """The script's state and what it saw: requests, the usage it reported, the tool results it read."""

    first_month: int = 1
    faults: dict[int, int] = field(default_factory=dict)  # request number (from 1) -> HTTP status
    down: bool = False
    requests: int = 0
    served: list[dict[str, int]] = field(default_factory=list)  # usage of each successful reply, in order
    results_seen: list[str] = field(default_factory=list)
    systems: list[str] = field(default_factory=list)
    firsts: list[str] = field(default_factory=list)  # the opening message of each conversation
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""

    # --- the scripted ruler (wire-neutral) ------------------------------------------------------------------

    def decide(self, first: str, turns: int, last: str, wire: str) -> list[dict[str, Any]]:
        """Tool calls for the next reply: [{"name", "args"} or {"name", "raw"} (unparseable arguments)]."""
        if turns == 0:
            self.firsts.append(first)
        if first.startswith("The game is over"):
            return [{"name": "submit_dispatch", "args": {"report": "Held the capital; the scripted ruler ends.",
                                                         "final": True}}]
        month = int(MONTH.match(first).group(1)) if MONTH.match(first) else 0
        steps = (["broken"] if month == self.first_month else []) + ["mistake", "fix"]
        step = steps[min(turns, len(steps) - 1)]
        city = CAPITAL.search(first)
        levy = LEVY.search(first)
        assert city and levy, "the briefing names the capital and the levy"
        if step == "broken":
            if wire == "anthropic":
                return [{"name": "get_weather", "args": {"where": "Xuchang"}}]
            return [{"name": "issue_orders", "raw": '{"orders": "hold unit=2", "end_turn": tru'}]
        if step == "mistake":
            return [{"name": "issue_orders", "args": {
                "orders": f"set_production city={city.group(1)} queue=palisade; move unit=999 to=1,1"}}]
        assert "REFUSED" in last, f"the refusal reached the model: {last[:300]}"
        args: dict[str, Any] = {"orders": f"hold units={levy.group(1)}", "end_turn": True,
                                "note": f"Month {month}: Xuchang builds a palisade while the levy holds."}
        if month == self.first_month:
            args["goal"] = "Hold Xuchang by M60: palisade first, then barracks and spearmen."
        return [{"name": "issue_orders", "args": args}]

    def usage(self, n: int) -> dict[str, int]:
        return {"input": 1000 + 10 * n, "cached": 400 + n, "cache_write": 50 if n == 1 else 0, "output": 30 + n}

    # --- the two wire formats -----------------------------------------------------------------------------

    def anthropic(self, body: dict[str, Any], n: int) -> dict[str, Any]:
        msgs = body["messages"]
        self.systems.append("".join(b.get("text", "") for b in body.get("system") or []))
        first = "".join(b.get("text", "") for b in msgs[0]["content"])
        last_blocks = msgs[-1]["content"] if msgs[-1]["role"] == "user" and len(msgs) > 1 else []
        last = "\n".join(str(b.get("content", b.get("text", ""))) for b in last_blocks)
        if last:
            self.results_seen.append(last)
        turns = sum(1 for m in msgs if m["role"] == "assistant")
        calls = self.decide(first, turns, last, "anthropic")
        u = self.usage(n)
        self.served.append(u)
        return {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": body["model"],
                "content": [{"type": "text", "text": "Thinking about the month."}]
                + [{"type": "tool_use", "id": f"toolu_{n}_{i}", "name": c["name"], "input": c["args"]}
                   for i, c in enumerate(calls)],
                "stop_reason": "tool_use", "stop_sequence": None,
                "usage": {"input_tokens": u["input"], "output_tokens": u["output"],
                          "cache_read_input_tokens": u["cached"], "cache_creation_input_tokens": u["cache_write"]}}

    def openai(self, body: dict[str, Any], n: int) -> dict[str, Any]:
        msgs = body["messages"]
        self.systems.append(msgs[0]["content"])
        first = msgs[1]["content"]
        tail = []
        for m in reversed(msgs):
            if m["role"] != "tool":
                break
            tail.insert(0, m["content"])
        last = "\n".join(tail)
        if last:
            self.results_seen.append(last)
        turns = sum(1 for m in msgs if m["role"] == "assistant")
        calls = self.decide(first, turns, last, "openai")
        u = self.usage(n)
        self.served.append(u)
        tool_calls = [{"id": f"call_{n}_{i}", "type": "function",
                       "function": {"name": c["name"], "arguments": c.get("raw") or json.dumps(c["args"])}}
                      for i, c in enumerate(calls)]
        return {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 1_700_000_000, "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "tool_calls",
                             "message": {"role": "assistant", "content": None, "tool_calls": tool_calls}}],
                "usage": {"prompt_tokens": u["input"] + u["cached"], "completion_tokens": u["output"],
                          "total_tokens": u["input"] + u["cached"] + u["output"],
                          "prompt_tokens_details": {"cached_tokens": u["cached"]}}}

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, str], dict[str, Any]]:
        with self.lock:
            self.requests += 1
            n = self.requests
            status = 503 if self.down else self.faults.get(n)
            if status:
                headers = {"retry-after-ms": "20"} if status == 429 else {}
                if path.endswith("/messages"):
                    kind = {429: "rate_limit_error", 401: "authentication_error"}.get(status, "api_error")
                    return status, headers, {"type": "error", "error": {"type": kind, "message": f"stub {status}"}}
                return status, headers, {"error": {"message": f"stub {status}", "type": "stub", "code": None}}
            served = len(self.served) + 1
            if path.endswith("/messages"):
                return 200, {}, self.anthropic(body, served)
            return 200, {}, self.openai(body, served)


@contextmanager
def serve_stub(stub: Stub) -> Iterator[Stub]:
    """Run the stub on a free local port for the duration; `stub.url` is its root."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server name
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
            try:
                status, headers, payload = stub.answer(self.path, body)
            except AssertionError as exc:  # a script expectation failed: make it visible as a 400
                status, headers, payload = 400, {}, {"error": {"message": f"script: {exc}", "type": "script"}}
                stub.results_seen.append(f"SCRIPT FAILURE: {exc}")
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
