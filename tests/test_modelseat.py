"""`kingdoms seat`: a model seat plays through the MCP tools with the real provider SDKs pointed at a local stub
(tests/model_stub.py), its usage and cost stored in the game file; prices, the harness tool and failures.

The SDK tests skip when the `models` extra is missing: pip install -e '.[test,models]'.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import anyio
import pytest

from kingdoms.cli import main as cli_main
from kingdoms.game import Game
from kingdoms.modelseat.costs import Usage, load_prices, usage_line
from kingdoms.modelseat.seat import (
    EXIT_BUDGET,
    EXIT_GAME_OVER,
    EXIT_MONTHS,
    EXIT_PROVIDER,
    SeatConfig,
    SeatError,
    memory_from_digest,
    play,
)

from .model_stub import Stub, serve_stub
from .test_server import ROOT, call, duel, new_game, seat

pytestmark = [pytest.mark.anyio, pytest.mark.long]

SDKS = find_spec("anthropic") is not None and find_spec("openai") is not None
needs_sdks = pytest.mark.skipif(not SDKS, reason="the provider SDKs are not installed: pip install -e '.[test,models]'")

PRICES = """
date = "2026-12-01"
[models."anthropic:stub-model"]
input = 3.0
cached_input = 0.3
cache_write = 3.75
output = 15.0
[models."openai:stub-model"]
input = 2.0
cached_input = 0.5
output = 8.0
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def price_file(tmp_path: Path) -> Path:
    path = tmp_path / "prices.toml"
    path.write_text(PRICES)
    return path


def cost(spec: str, u: dict[str, int]) -> float:
    # the OpenAI wire format has no cache writes: the stub's are not reported there
    p = {"anthropic:stub-model": (3.0, 0.3, 3.75, 15.0), "openai:stub-model": (2.0, 0.5, 0.0, 8.0)}[spec]
    return (u["input"] * p[0] + u["cached"] * p[1] + u["cache_write"] * p[2] + u["output"] * p[3]) / 1e6


def config(path: Path, token: str, stub: Stub, model: str, prices: Path, **kw: Any) -> SeatConfig:
    base = stub.url if model.startswith("anthropic") else stub.url + "/v1"
    return SeatConfig(model=model, token=token, game=str(path), base_url=base, price_file=str(prices),
                      backoff_s=0.05, backoff_max_s=0.3, **kw)


# --- prices, history, the harness tool (no SDK needed) ----------------------------------------------------


def test_price_table_snapshots_overrides_and_cost(tmp_path: Path) -> None:
    """A dated snapshot takes its undated name's price; a --price-file adds and replaces; no price, no cost."""
    table = load_prices()
    assert table.price_of("anthropic:claude-sonnet-4-5-20250929") == table.price_of("anthropic:claude-sonnet-4-5")
    assert table.price_of("openai:gpt-4o-2024-08-06") == table.price_of("openai:gpt-4o")
    assert table.price_of("openai:gpt-4o-mini").input < table.price_of("openai:gpt-4o").input
    assert table.price_of("openai:gpt-4o-turbo-preview") is None  # not a snapshot of gpt-4o
    assert table.cost("openai-compatible:llama3.1:8b", Usage(1000, 0, 0, 10)) is None
    mine = load_prices(price_file(tmp_path))
    u = Usage(input_tokens=2_000_000, cached_input_tokens=1_000_000, cache_write_tokens=0, output_tokens=100_000)
    assert mine.cost("anthropic:stub-model", u) == pytest.approx(6.0 + 0.3 + 1.5)
    assert mine.price_of("openai:gpt-4.1") is not None  # the repository's entries stay
    assert mine.date == "2026-12-01"


def test_goal_and_notes_come_from_the_history_digest() -> None:
    """Each month the seat takes the goal and last notes from get_history's digest head, not from local state."""
    digest = "\n".join([
        "HISTORY of Cao Wei: month 3 of 160 is open. A digest, newest month first.",
        "GOAL (set M1): Hold Xuchang by M60.", "LAST NOTES: M2: Second. | M1: First.",
        "STANDING ORDERS: none.", "--- month by month ---", "M2: 1 order given; you ended it.",
        "  note: LAST NOTES: not a head line",
    ])
    assert memory_from_digest(digest) == ["GOAL (set M1): Hold Xuchang by M60.", "LAST NOTES: M2: Second. | M1: First."]
    assert memory_from_digest("HISTORY of Cao Wei: ...\nGOAL: none set.\n--- month by month ---") == []


async def test_report_usage_is_unlisted_seat_bound_and_totalled(tmp_path: Path) -> None:
    """TOOLS-010: the ruler's tool list stays the eleven tools; report_usage is callable by name, stores rows for
    the calling seat only (not in its history), answers its status, and `kingdoms info` shows the totals."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "agent"})
    async with seat(path, tokens["wei"]) as c:
        assert "report_usage" not in {t.name for t in (await c.list_tools()).tools}
        err, text = await call(c, "report_usage", {"kind": "call", "model": "anthropic:x", "input_tokens": 1200,
                                                   "cached_input_tokens": 300, "output_tokens": 80,
                                                   "latency_s": 1.5, "cost_usd": 0.0049})
        assert not err, text
        got = json.loads(text)
        assert got["seat"] == "wei" and got["status"]["month"] == 1 and got["status"]["open_for_you"]
        assert got["totals"]["calls"] == 1 and got["totals"]["cost_usd"] == pytest.approx(0.0049)
        err, text = await call(c, "report_usage", {"kind": "outage", "note": "down"})
        assert json.loads(text)["totals"]["outages"] == 1
        err, text = await call(c, "report_usage", {"kind": "bogus"})
        assert err and "not one of" in text
        err, text = await call(c, "report_usage", {"kind": "call", "month": 9})
        assert err and "outside" in text
    async with seat(path, "not-a-token") as c:
        err, text = await call(c, "report_usage", {"kind": "status"})
        assert err and "No seat" in text
    game = Game.open(path)
    assert [r["kind"] for r in game.store.usage("wei")] == ["call", "outage"] and game.store.usage("shu") == []
    assert not any("report_usage" in h["text"] for h in game.store.history("wei"))
    info = game.info()
    game.close()
    wei = next(s for s in info["seats"] if s["kingdom"] == "wei")
    assert wei["usage"]["input_tokens"] == 1200 and wei["usage"]["outages"] == 1
    assert "1 call;" in usage_line(wei["usage"]) and "$0.0049" in usage_line(wei["usage"])


def test_missing_sdk_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the extra, the seat names the install line instead of failing on an import."""
    from kingdoms.modelseat.providers import ProviderSetupError, make_provider

    monkeypatch.setitem(sys.modules, "anthropic", None)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    with pytest.raises(ProviderSetupError, match=r"kingdoms\[models\]"):
        make_provider("anthropic:claude-sonnet-4-5")
    with pytest.raises(ProviderSetupError, match="PROVIDER:MODEL"):
        make_provider("gemini:pro")


# --- the SDKs against the stub ------------------------------------------------------------------------------


@needs_sdks
async def test_provider_errors_are_classified(monkeypatch: pytest.MonkeyPatch) -> None:
    """429 and 5xx are transient (with the provider's Retry-After), a refused key is fatal, for both SDKs."""
    from kingdoms.modelseat.providers import FatalError, TransientError, make_provider

    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with serve_stub(Stub(faults={1: 429, 2: 500, 3: 401, 4: 429, 5: 502, 6: 401})) as stub:
        for spec, base in (("anthropic:stub-model", stub.url), ("openai:stub-model", stub.url + "/v1")):
            p = make_provider(spec, base_url=base)
            convo = p.start("system", "Month 1.")
            with pytest.raises(TransientError) as rate:
                await p.send(convo, timeout=5)
            assert rate.value.status == 429 and rate.value.retry_after == pytest.approx(0.02)
            with pytest.raises(TransientError):
                await p.send(convo, timeout=5)
            with pytest.raises(FatalError, match="401"):
                await p.send(convo, timeout=5)
            await p.close()


@needs_sdks
async def test_anthropic_seat_plays_a_game_over_stdio_with_cost_recorded(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The seat starts `kingdoms serve` over stdio and plays a three-month game against an AI seat: an unknown
    tool goes back once with the error, a refused order is corrected, each month ends with end_turn; a 429 and a
    500 are retried. Stopped after two months and restarted, it takes its goal and notes from the game; at the
    end it files its final report. Every call's tokens and cost are stored as the stub reported them."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    path = tmp_path / "g.sqlite"
    state = duel()
    state.last_month = 3
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"}, deadline_s=120, state=state)
    with serve_stub(Stub(faults={2: 429, 3: 500})) as stub:
        cfg = config(path, tokens["wei"], stub, "anthropic:stub-model", price_file(tmp_path), months=2)
        with anyio.fail_after(90):
            assert await play(cfg) == EXIT_MONTHS
            cfg.months = None
            assert await play(cfg) == EXIT_GAME_OVER
    assert not [r for r in stub.results_seen if r.startswith("SCRIPT FAILURE")], stub.results_seen
    assert any("Unknown tool 'get_weather'" in r for r in stub.results_seen)
    assert stub.systems[0].startswith("# You are the ruler of a kingdom")  # prompts/system.md: no MCP prompt yet
    assert "GOAL (set M1): Hold Xuchang by M60" in stub.firsts[2]  # the restarted session, month 3
    assert "LAST NOTES: M2: Month 2:" in stub.firsts[2] and "| M1: Month 1:" in stub.firsts[2]
    assert stub.firsts[3].startswith("The game is over")
    game = Game.open(path)
    assert game.finished
    rows = game.store.usage("wei")
    calls = [r for r in rows if r["kind"] == "call"]
    assert [r["kind"] for r in rows].count("retry") == 2 and [r["kind"] for r in rows].count("session") == 2
    assert len(calls) == len(stub.served) == 3 + 2 + 2 + 1
    for r, u in zip(calls, stub.served, strict=True):
        assert (r["input_tokens"], r["cached_input_tokens"], r["cache_write_tokens"], r["output_tokens"]) == \
            (u["input"], u["cached"], u["cache_write"], u["output"])
        assert r["cost_usd"] == pytest.approx(cost("anthropic:stub-model", u)) and r["latency_s"] >= 0
        assert r["model"] == "anthropic:stub-model"
    assert calls[1]["retries"] == 2 and [r["month"] for r in calls][:7] == [1, 1, 1, 2, 2, 3, 3]
    orders = game.store.all_orders("wei")
    assert sum(1 for o in orders if o["code"] == "unknown_unit") == 3
    assert sum(1 for o in orders if o["accepted"] and o["raw"].startswith("hold")) == 3
    assert [n["text"][:8] for n in game.store.notes("wei", "note")] == ["Month 1:", "Month 2:", "Month 3:"]
    assert len(game.store.notes("wei", "final")) == 1
    totals = game.info()["seats"][0]["usage"]
    game.close()
    assert totals["calls"] == 8 and totals["outages"] == 0 and totals["retries"] == 2
    assert totals["cost_usd"] == pytest.approx(sum(cost("anthropic:stub-model", u) for u in stub.served), abs=1e-6)


async def test_the_ruler_prompt_comes_from_the_server_when_it_offers_one(tmp_path: Path) -> None:
    """A server with an MCP prompt named "ruler" gives the seat its system prompt (ours serves prompts/system.md
    so); without one, the seat reads prompts/system.md itself."""
    from mcp import Client

    from kingdoms.modelseat.seat import SYSTEM_PROMPT_PATH, GameLink
    from kingdoms.server import build_server

    path = tmp_path / "g.sqlite"
    tokens = new_game(path)
    server = build_server(path, token=tokens["wei"])
    async with Client(server) as c:
        text, source = await GameLink(c).system_prompt()
        assert source == "the server's 'ruler' prompt"
        assert text == SYSTEM_PROMPT_PATH.read_text(encoding="utf-8").strip()
        server.remove_prompt("ruler")
        text, source = await GameLink(c).system_prompt()
        assert source.endswith("system.md") and text.startswith("# You are the ruler")

        @server.prompt(name="ruler", description="The ruler's system prompt.")
        def ruler() -> str:
            return "Rule well."

        text, source = await GameLink(c).system_prompt()
        assert (text, source) == ("Rule well.", "the server's 'ruler' prompt")
        assert "report_usage" not in {t.name for t in await GameLink(c).tools()}
    server.session.close()  # type: ignore[attr-defined]


@needs_sdks
async def test_outage_past_the_deadline_is_recorded_and_the_game_goes_on(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A provider down for longer than the month's deadline: retried with backoff, then an outage for that seat
    and month (not a model that played badly); the month ends with what was queued and the game moves on."""
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"}, deadline_s=3)
    with serve_stub(Stub(down=True)) as stub:
        cfg = config(path, tokens["wei"], stub, "openai:stub-model", price_file(tmp_path), months=1)
        started = time.monotonic()
        with anyio.fail_after(60):
            code = await play(cfg)
    assert code == EXIT_MONTHS and time.monotonic() - started >= 2.0
    game = Game.open(path)
    kinds = [r["kind"] for r in game.store.usage("wei")]
    outage = [r for r in game.store.usage("wei") if r["kind"] == "outage"]
    assert kinds.count("retry") >= 3 and "call" not in kinds
    assert len(outage) == 1 and outage[0]["month"] == 1 and "503" in outage[0]["note"]
    assert game.month == 2 and game.info()["seats"][0]["usage"]["outages"] == 1
    game.close()


@needs_sdks
async def test_a_refused_key_stops_the_seat_as_provider_failed(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A 401 is not retried: the seat records provider_failed and exits with its own code."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "bad-key")
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"})
    with serve_stub(Stub(faults={1: 401})) as stub:
        cfg = config(path, tokens["wei"], stub, "anthropic:stub-model", price_file(tmp_path), months=2)
        with anyio.fail_after(60), pytest.raises(SeatError) as failed:
            await play(cfg)
    assert failed.value.code == EXIT_PROVIDER
    game = Game.open(path)
    assert [r["kind"] for r in game.store.usage("wei")] == ["session", "provider_failed"]
    game.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@needs_sdks
def test_openai_seat_over_http_as_a_tournament_entrant_stops_at_its_budget(tmp_path: Path) -> None:
    """`python -m kingdoms seat --url ... --model openai:...` with the token in KINGDOMS_SEAT, as a tournament runs
    it: arguments that are not JSON go back once, a refusal is corrected; the budget is reached in month 2, so
    month 3 ends with standing orders and no model call, and the exit code says "budget reached"."""
    path = tmp_path / "g.sqlite"
    tokens = new_game(path, {"wei": "agent", "shu": "ai:passive"}, deadline_s=120)
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([sys.executable, "-m", "kingdoms", "serve", str(path), "--http", "--port", str(port)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                assert time.time() < deadline and server.poll() is None, "the HTTP server did not start"
                time.sleep(0.1)
        stub_prices = price_file(tmp_path)
        with serve_stub(Stub()) as stub:
            # month 1 costs three calls; the fourth (month 2's first) crosses the budget
            first_four = sum(cost("openai:stub-model", stub.usage(n)) for n in range(1, 5))
            budget = first_four - 1e-7
            seat_env = {**env, "KINGDOMS_SEAT": tokens["wei"], "OPENAI_API_KEY": "test-key"}
            run = subprocess.run(
                [sys.executable, "-m", "kingdoms", "seat", "--url", f"http://127.0.0.1:{port}/mcp",
                 "--model", "openai:stub-model", "--base-url", stub.url + "/v1", "--months", "3",
                 "--budget-usd", f"{budget:.9f}", "--price-file", str(stub_prices)],
                env=seat_env, capture_output=True, text=True, timeout=120)
        assert run.returncode == EXIT_BUDGET, run.stderr[-3000:]
        assert tokens["wei"] not in run.stderr
        assert any("not valid JSON" in r for r in stub.results_seen)
        assert not [r for r in stub.results_seen if r.startswith("SCRIPT FAILURE")]
    finally:
        server.terminate()
        server.wait(timeout=20)
    game = Game.open(path)
    rows = game.store.usage("wei")
    calls = [r for r in rows if r["kind"] == "call"]
    assert [r["month"] for r in calls] == [1, 1, 1, 2] and len(stub.served) == 4
    assert calls[3]["input_tokens"] == stub.usage(4)["input"] and calls[3]["cached_input_tokens"] == stub.usage(4)["cached"]
    assert [r["month"] for r in rows if r["kind"] == "budget"] == [2]
    assert [(r["month"], r["note"]) for r in rows if r["kind"] == "month_ended"] == [(2, "budget")]
    assert game.month == 4 and game.store.ended(3)["wei"] == "ended"
    game.close()
    out = subprocess.run([sys.executable, "-m", "kingdoms", "info", str(path)], env=env, capture_output=True,
                         text=True, timeout=60)
    assert "openai:stub-model: 4 calls" in out.stdout and "budget reached" in out.stdout, out.stdout


def test_seat_command_needs_a_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """No --token and no KINGDOMS_SEAT: a usage error naming both, before anything starts."""
    monkeypatch.delenv("KINGDOMS_SEAT", raising=False)
    path = tmp_path / "g.sqlite"
    new_game(path)
    assert cli_main(["seat", str(path), "--model", "anthropic:claude-sonnet-4-5"]) == 2
    assert "KINGDOMS_SEAT" in capsys.readouterr().err


def test_the_model_seat_sees_the_game_only_through_mcp() -> None:
    """Fog: no module of kingdoms/modelseat imports the true state, the game, storage, the session or the server,
    so everything a model is shown comes through the MCP tools, as for any external agent."""
    from .test_leaks import boundary_breaches

    sources = sorted((ROOT / "kingdoms" / "modelseat").glob("*.py"))
    assert len(sources) >= 4
    for path in sources:
        assert boundary_breaches(path.read_text(encoding="utf-8")) == [], path.name
