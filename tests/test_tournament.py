"""Tournaments: the config format, a fair schedule, exactly-once state, games played by workers (AI and
external command agents), void and failed games, the table in every format, and the Ray executor."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from importlib.util import find_spec
from pathlib import Path

import pytest

from kingdoms.ai import LEVELS
from kingdoms.cli import main as cli_main
from kingdoms.game import Game
from kingdoms.scenario import load_scenario
from kingdoms.setup import build_state
from kingdoms.tournament.config import ConfigError, config_from_text, load_config
from kingdoms.tournament.metrics import intent, order_figures
from kingdoms.tournament.runner import run
from kingdoms.tournament.schedule import FILL, build_schedule, schedule_digest
from kingdoms.tournament.store import TournamentStore
from kingdoms.tournament.worker import play_job, seat_argv

pytestmark = pytest.mark.long  # whole games and processes: out of the inner loop (pyproject markers)

ROOT = Path(__file__).resolve().parent.parent
AGENT = ROOT / "examples" / "agents" / "end_turn_agent.py"


def config(body: str, tmp_path: Path | None = None, name: str = "t.toml") -> Path:
    """Write a tournament file (in tmp_path) and return its path."""
    assert tmp_path is not None
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return path


AI_ONLY = """
name = "ai_only"
seed = 4
rounds = 1
months = 6
[[entrants]]
name = "passive"
ai = "passive"
[[entrants]]
name = "standard"
ai = "standard"
anchor = 1500
[[entrants]]
name = "standard_b"
ai = "standard"
[[scenarios]]
name = "duel"
"""


# --- the config ---------------------------------------------------------------------------------------


def test_config_names_an_unknown_ai_level_and_the_levels_that_exist() -> None:
    with pytest.raises(ConfigError) as exc:
        config_from_text('[[entrants]]\nname = "x"\nai = "grandmaster"\n[[scenarios]]\nname = "duel"\n')
    text = str(exc.value)
    assert "'grandmaster'" in text
    assert all(level in text for level in LEVELS)


def test_quick_toml_seats_the_three_levels_and_fails_clearly_until_hard_exists() -> None:
    path = ROOT / "tournaments" / "quick.toml"
    if "hard" in LEVELS:
        cfg = load_config(path)
        assert sorted(e.ai for e in cfg.entrants) == ["hard", "passive", "standard"]
    else:
        with pytest.raises(ConfigError, match=r"unknown AI level 'hard'; the levels that exist are: passive, standard"):
            load_config(path)


def test_external_agents_example_loads_and_seats_two_commands() -> None:
    cfg = load_config(ROOT / "tournaments" / "external_agents.toml")
    assert [e.kind for e in cfg.entrants].count("command") == 2
    assert (cfg.base / cfg.entrants[0].command[1]).resolve() == AGENT  # type: ignore[index]


def test_config_refuses_unknown_keys_and_entrants_of_no_or_two_kinds() -> None:
    with pytest.raises(ConfigError, match="unknown key"):
        config_from_text('rounds = 1\nround = 2\n[[entrants]]\nname = "x"\nai = "passive"\n[[scenarios]]\nname = "duel"\n')
    with pytest.raises(ConfigError, match="exactly one of"):
        config_from_text('[[entrants]]\nname = "x"\n[[scenarios]]\nname = "duel"\n')
    with pytest.raises(ConfigError, match="exactly one of"):
        config_from_text('[[entrants]]\nname = "x"\nai = "passive"\nhttp = true\n[[scenarios]]\nname = "duel"\n')
    with pytest.raises(ConfigError, match="more than once"):
        config_from_text('[[entrants]]\nname = "x"\nai = "passive"\n[[entrants]]\nname = "x"\nai = "passive"\n'
                         '[[scenarios]]\nname = "duel"\n')
    with pytest.raises(ConfigError, match="no maps"):
        config_from_text('[[entrants]]\nname = "x"\nai = "passive"\n')


def test_a_command_may_be_one_string() -> None:
    cfg = config_from_text('[[entrants]]\nname = "x"\ncommand = "python agent.py --fast"\n[[scenarios]]\nname = "duel"\n')
    assert cfg.entrants[0].command == ["python", "agent.py", "--fast"]


def test_a_model_entrant_runs_the_built_in_model_seat_as_a_command() -> None:
    """`model = "PROVIDER:MODEL"` starts `kingdoms seat --url ... --model ...` (the token is in KINGDOMS_SEAT)."""
    cfg = config_from_text('[[entrants]]\nname = "claude"\nmodel = "anthropic:claude-sonnet-4-5"\n'
                           'model_args = ["--max-tokens", "800"]\nmax_concurrent = 1\n[[scenarios]]\nname = "duel"\n')
    e = cfg.entrants[0]
    assert e.kind == "model" and e.controller == "agent" and e.external
    argv = seat_argv(e.model_dump(), "http://127.0.0.1:9/mcp")
    assert argv[1:] == ["-m", "kingdoms", "seat", "--url", "http://127.0.0.1:9/mcp", "--model",
                        "anthropic:claude-sonnet-4-5", "--max-tokens", "800"]
    assert seat_argv({"command": ["{python}", "agent.py"]}, "u") == [sys.executable, "agent.py"]
    with pytest.raises(ConfigError, match="PROVIDER:MODEL"):
        config_from_text('[[entrants]]\nname = "m"\nmodel = "claude"\n[[scenarios]]\nname = "duel"\n')


# --- the schedule -------------------------------------------------------------------------------------


def test_schedule_seats_every_entrant_in_every_seat_and_shares_dice_within_a_group() -> None:
    cfg = config_from_text(AI_ONLY.replace("rounds = 1", "rounds = 2"))
    tasks = build_schedule(cfg)
    assert len(tasks) == 2 * 3 * 2  # rounds x pairs of three entrants x rotations of two seats
    seats = Counter((t.round, k, e) for t in tasks for k, e in t.seats.items())
    assert set(seats.values()) == {2}  # each entrant sits in each kingdom twice a round (once per pair it is in)
    for r in (1, 2):
        groups: dict[frozenset[str], set[int]] = {}
        for t in tasks:
            if t.round == r:
                groups.setdefault(frozenset(t.seats.values()), set()).add(t.seed)
        assert all(len(s) == 1 for s in groups.values())  # the rotations of one group share one seed
    assert {t.seed for t in tasks if t.round == 1}.isdisjoint({t.seed for t in tasks if t.round == 2})
    assert schedule_digest(build_schedule(cfg)) == schedule_digest(tasks)


def test_schedule_permute_and_random_maps_new_each_round() -> None:
    cfg = config_from_text('rounds = 2\nseating = "permute"\n' + "".join(
        f'[[entrants]]\nname = "e{i}"\nai = "passive"\n' for i in range(3)) + "[[random_maps]]\nkingdoms = 3\n")
    tasks = build_schedule(cfg)
    assert len(tasks) == 2 * 6  # every ordering of three entrants, each round on a new map
    assert len({t.source for t in tasks}) == 2
    for t in tasks:
        assert t.source.startswith("random:") and t.source.endswith(":3")
    assert Counter(e for t in tasks for e in t.seats.values()) == {"e0": 12, "e1": 12, "e2": 12}


def test_schedule_with_fewer_entrants_than_seats_needs_fill() -> None:
    body = '[[entrants]]\nname = "a"\nai = "passive"\n[[entrants]]\nname = "b"\nai = "standard"\n' \
           '[[scenarios]]\nname = "three_kingdoms"\n'
    with pytest.raises(ConfigError, match="fill"):
        build_schedule(config_from_text(body))
    tasks = build_schedule(config_from_text('fill = "ai:passive"\n' + body))
    assert len(tasks) == 3 and all(list(t.seats.values()).count(FILL) == 1 for t in tasks)
    assert {t.seats["wei"] for t in tasks} == {"a", "b", FILL}


# --- the store: exactly once --------------------------------------------------------------------------


def test_store_records_each_result_once_and_recovers_running_games(tmp_path: Path) -> None:
    cfg = config_from_text(AI_ONLY)
    tasks = build_schedule(cfg)
    store = TournamentStore(tmp_path, create=True)
    store.initialise(config_text=AI_ONLY, config_source="x", base=str(tmp_path), digest="d", name="t",
                     entrants=[{"name": "passive", "kind": "ai"}], tasks=tasks)
    store.initialise(config_text=AI_ONLY, config_source="x", base=str(tmp_path), digest="d", name="t",
                     entrants=[], tasks=tasks)  # a second initialise writes nothing
    assert store.counts()["pending"] == len(tasks) == len(store.games())
    a = store.start("g0001")
    assert a == 1 and store.start("g0001") is None
    assert store.finish("g0001", 1, "done", {"seats": []})
    assert not store.finish("g0001", 1, "done", {"seats": []})  # never twice
    assert store.start("g0002") == 1
    assert store.recover() == ["g0002"]
    assert store.start("g0002") == 2
    assert not store.finish("g0002", 1, "done", {})  # a stale worker's attempt is not recorded
    assert store.finish("g0002", 2, "failed", {"failures": []}, "boom")
    assert store.retry_failed() == ["g0002"] and store.start("g0002") == 3
    assert [t["status"] for t in store.transitions("g0001")] == ["running", "done"]
    store.close()


# --- per-seat figures ---------------------------------------------------------------------------------


def test_first_try_valid_counts_a_refused_order_fixed_later_as_not_first_try(tmp_path: Path) -> None:
    """Orders refused at issue time (TURN-050) and resent for the same unit and verb in the same month."""
    state = build_state(load_scenario("duel"), 3)
    game, _ = Game.create(tmp_path / "g.sqlite", state, scenario="duel", controllers={"wei": "agent", "shu": "agent"})
    city = next(c.id for c in game.state().cities.values() if c.owner == "wei")
    game.issue("wei", f"set_focus city={city} focus=food")  # right first time
    game.issue("wei", f"set_production city={city} queue=nonsense")  # refused
    game.issue("wei", f"set_production city={city} queue=palisade")  # the fix: a retry, not a first try
    game.issue("wei", "move unit=999 to=1,1")  # refused, never fixed
    figs = order_figures(game.store.all_orders("wei"))
    assert figs == {"orders": 4, "refused": 2, "first_tries": 3, "first_try_ok": 1, "fixed": 1,
                    "refused_by_code": {"unknown_item": 1, "unknown_unit": 1}}
    game.close()


def test_intent_of_unparsable_and_json_orders() -> None:
    assert intent("set_production city=4 queue=nonsense", "") == ("set_production", "4")
    assert intent("mvoe unit=12 to=3,4", "") == ("mvoe", "12")
    assert intent("x", json.dumps({"action": "move", "unit_id": 7, "q": 1, "r": 2})) == ("move", "7")


# --- playing games --------------------------------------------------------------------------------------


def _job(tmp_path: Path, body: str, index: int = 0, months: int | None = None) -> dict:
    cfg = config_from_text(body, base=tmp_path)
    task = build_schedule(cfg)[index]
    if months is not None:
        task = type(task)(**{**task.to_dict(), "months": months})
    from kingdoms.tournament.runner import entrant_dicts

    return {"task": task.to_dict(), "out": str(tmp_path), "base": str(tmp_path), "deadline_s": cfg.deadline_s,
            "void_share": cfg.void_share, "fill": cfg.fill, "entrants": {e["name"]: e for e in entrant_dicts(cfg)},
            "attempt": 1}


def test_an_interrupted_game_resumes_from_its_game_file(tmp_path: Path) -> None:
    first = play_job(_job(tmp_path, AI_ONLY, months=3))
    assert first["status"] == "done", first["error"]
    assert first["result"]["months_played"] == 3 and not first["result"]["resumed"]
    again = play_job(_job(tmp_path, AI_ONLY, months=5))
    assert again["status"] == "done" and again["result"]["resumed"]
    assert again["result"]["months_played"] == 5
    game = Game.open(tmp_path / "games" / "g0001.sqlite")
    assert game.replay().first_mismatch is None  # one game, continued, not restarted
    game.close()


def test_ai_tournament_runs_rates_and_writes_every_table_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                                ) -> None:
    path = config(AI_ONLY, tmp_path)
    out = tmp_path / "out"
    assert cli_main(["tournament", "run", str(path), "--out", str(out), "--jobs", "2", "--quiet"]) == 0
    store = TournamentStore(out)
    games = store.games()
    assert len(games) == 6 and {g["status"] for g in games} == {"done"}
    assert sorted(g["seq"] for g in games) == list(range(1, 7))
    for g in games:
        assert [t["status"] for t in store.transitions(g["id"])] == ["running", "done"]
        assert Path(g["result"]["file"]).exists() and g["result"]["capped"]
    store.close()
    capsys.readouterr()
    assert cli_main(["tournament", "table", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {r["entrant"]: r for r in data["entrants"]}
    assert set(rows) == {"passive", "standard", "standard_b"}
    assert rows["standard"]["rating"] == 1500 and rows["standard"]["anchored"]
    for r in rows.values():
        assert r["games"] == 4 and r["wins"] + r["draws"] + r["losses"] == 4
        assert r["rating_low"] <= r["rating"] <= r["rating_high"]
        assert r["orders"] > 0 and r["first_try_valid"] is not None and r["seconds_per_month"] is not None
        assert r["auto_ended"] == 0 and r["void_games"] == 0
    csv_lines = (out / "table.csv").read_text().splitlines()
    assert csv_lines[0].startswith("entrant,kind,games,wins") and len(csv_lines) == 4
    page = (out / "table.html").read_text()
    assert "<svg" in page and "<circle" in page and page.count("<tr>") == 4
    assert "src=" not in page and "href=" not in page and "<link" not in page  # no external assets
    assert cli_main(["tournament", "status", str(out), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["counts"]["done"] == 6 and status["total"] == 6
    # running it again plays nothing and counts nothing twice
    again = run(path, out=out, quiet=True)
    assert sum(r["games"] for r in again["entrants"]) == 12


def test_another_config_may_not_reuse_a_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(config(AI_ONLY.replace("months = 6", "months = 2"), tmp_path), out=out, quiet=True, max_games=0)
    from kingdoms.tournament.runner import RunnerError

    with pytest.raises(RunnerError, match="another tournament"):
        run(config(AI_ONLY.replace("seed = 4", "seed = 5"), tmp_path, "u.toml"), out=out, quiet=True)


def test_killed_runner_restarts_without_replaying_or_double_counting(tmp_path: Path) -> None:
    """SIGKILL the runner once a game is recorded; the rerun finishes the rest, each game recorded once."""
    body = AI_ONLY.replace("months = 6", "months = 30").replace('[[entrants]]\nname = "standard_b"\nai = "standard"\n', "")
    path = config(body, tmp_path)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "kingdoms.cli", "tournament", "run", str(path), "--out", str(out),
                             "--jobs", "1", "--quiet"], cwd=ROOT, start_new_session=True)
    try:
        deadline = time.time() + 60
        done = 0
        while time.time() < deadline and done < 1:
            time.sleep(0.05)
            if (out / "tournament.sqlite").exists():
                with _Store(out) as store, contextlib.suppress(sqlite3.OperationalError):  # not yet written
                    done = store.counts()["done"]
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=10)
    with _Store(out) as store:
        before = {g["id"]: g for g in store.games()}
    assert len(before) == 2
    assert [g["status"] for g in before.values()].count("done") == 1
    run(path, out=out, quiet=True)
    with _Store(out) as store:
        games = store.games()
        assert {g["status"] for g in games} == {"done"}
        for g in games:
            finals = [t for t in store.transitions(g["id"]) if t["status"] == "done"]
            assert len(finals) == 1  # counted once
            if before[g["id"]]["status"] == "done":
                assert g["attempt"] == 1 and g["seq"] == before[g["id"]]["seq"] == 1  # not replayed
            else:
                assert g["seq"] == 2
        assert sum(1 for g in games if g["result"]["resumed"]) <= 1


class _Store:
    """A TournamentStore as a context manager (tests only)."""

    def __init__(self, folder: Path) -> None:
        self.store = TournamentStore(folder)

    def __enter__(self) -> TournamentStore:
        return self.store

    def __exit__(self, *exc: object) -> None:
        self.store.close()


# --- external agents ----------------------------------------------------------------------------------


EXTERNAL = f"""
name = "external"
seed = 2
months = 3
deadline_s = 30
[[entrants]]
name = "agent_http"
command = ["{{python}}", "{AGENT}"]
[[entrants]]
name = "agent_stdio"
command = ["{{python}}", "{AGENT}", "--stdio"]
[[scenarios]]
name = "duel"
"""


def test_two_external_command_agents_play_through_mcp(tmp_path: Path) -> None:
    """Each agent gets KINGDOMS_URL/KINGDOMS_TOKEN (HTTP) or KINGDOMS_MCP_CONFIG (stdio) and plays its months."""
    outcome = play_job(_job(tmp_path, EXTERNAL))
    assert outcome["status"] == "done", outcome["error"]
    result = outcome["result"]
    assert result["months_played"] == 3 and result["capped"]
    assert {s["entrant"] for s in result["seats"]} == {"agent_http", "agent_stdio"}
    for seat in result["seats"]:
        f = seat["figures"]
        assert f["months"] == 3 and f["auto_ended"] == 0 and f["calls"] >= 4
        assert f["orders"] > 0 and f["refused"] == 0 and f["first_try_ok"] == f["first_tries"] == f["orders"]
        assert f["reply_chars"] > 3 * 500 and f["tokens"] == pytest.approx(f["reply_chars"] / 4, rel=0.05)
        assert seat["failure"] is None
    mcp = json.loads((tmp_path / "games" / "g0001.wei.mcp.json").read_text())
    server = mcp["mcpServers"]["kingdoms"]
    assert server["args"][-2] == "serve" and server["args"][-1].endswith("g0001.sqlite")
    assert server["env"]["KINGDOMS_SEAT"]
    assert os.stat(tmp_path / "games" / "g0001.wei.mcp.json").st_mode & 0o077 == 0  # holds a token


CRASH = """
name = "crash"
months = 3
[[entrants]]
name = "crasher"
command = ["{python}", "-c", "import sys; sys.exit(1)"]
[[entrants]]
name = "passive"
ai = "passive"
[[scenarios]]
name = "duel"
"""


def test_a_crashed_seat_fails_the_game_and_is_reported_not_rated(tmp_path: Path) -> None:
    """A seat process that exits while the game is on for its kingdom fails the game (`crashed`)."""
    data = run(config(CRASH, tmp_path), out=tmp_path / "out", jobs=2, quiet=True)
    assert data["games"]["failed"] == 2 and data["games"]["done"] == 0
    rows = {r["entrant"]: r for r in data["entrants"]}
    assert rows["crasher"]["crashed"] == 2 and rows["crasher"]["provider_failed"] == 0
    assert rows["passive"]["crashed"] == 0 and rows["passive"]["games"] == 0
    assert all(r["games"] == 0 and r["rating"] is None for r in rows.values())
    assert len(data["notes"]) == 2 and all("crashed in month 1 (exit code 1" in n["why"] for n in data["notes"])
    assert cli_main(["tournament", "run", str(tmp_path / "out"), "--quiet"]) == 0  # failed games stay failed
    store = TournamentStore(tmp_path / "out")
    assert store.counts()["failed"] == 2
    store.close()


def test_a_seat_exiting_with_the_provider_code_is_a_provider_failure(tmp_path: Path) -> None:
    result = play_job(_job(tmp_path, CRASH.replace("sys.exit(1)", "sys.exit(4)")))
    assert result["status"] == "failed"
    assert [f["kind"] for f in result["result"]["failures"]] == ["provider_failed"]


VOID = """
name = "void"
months = 3
deadline_s = 0.4
[[entrants]]
name = "absent"
http = true
[[entrants]]
name = "passive"
ai = "passive"
[[scenarios]]
name = "duel"
"""


def test_an_http_seat_that_never_plays_is_auto_ended_and_voids_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The http entrant's URL and token are written (to a private file, never to the terminal); no one connects,
    the deadline ends its months (OPEN-78)."""
    result = play_job(_job(tmp_path, VOID))
    assert result["status"] == "void", result["error"]
    seat = next(s for s in result["result"]["seats"] if s["entrant"] == "absent")
    assert seat["figures"]["auto_ended"] == seat["figures"]["months"] == 3
    assert "auto-ended in 3 of its 3 months" in result["result"]["void_reasons"][0]
    connect = json.loads((tmp_path / "games" / "g0001.connect.json").read_text())
    (entry,) = connect.values()
    assert entry["entrant"] == "absent" and entry["url"].startswith("http://127.0.0.1:") and entry["token"]
    told = capsys.readouterr().err
    assert "g0001.connect.json" in told and entry["token"] not in told
    assert (tmp_path / "games" / "g0001.connect.json").stat().st_mode & 0o077 == 0


# --- the built-in model seat -----------------------------------------------------------------------------


SDKS = find_spec("openai") is not None


def _model_body(stub_url: str, prices: Path) -> str:
    return f"""
name = "models"
months = 2
deadline_s = 60
[[entrants]]
name = "stub_model"
model = "openai:stub-model"
model_args = ["--base-url", "{stub_url}/v1", "--price-file", "{prices}"]
env = {{OPENAI_API_KEY = "test-key"}}
max_concurrent = 2
[[entrants]]
name = "passive"
ai = "passive"
[[scenarios]]
name = "duel"
"""


def test_the_provider_exit_code_is_the_model_seats() -> None:
    from kingdoms.modelseat.seat import EXIT_PROVIDER
    from kingdoms.tournament.worker import EXIT_PROVIDER_FAILED

    assert EXIT_PROVIDER_FAILED == EXIT_PROVIDER


@pytest.mark.skipif(not SDKS, reason="the provider SDKs are not installed: pip install -e '.[test,models]'")
def test_a_model_entrant_plays_and_its_calls_and_cost_are_counted(tmp_path: Path) -> None:
    """`model = "openai:..."` runs `python -m kingdoms seat --url ...` against a local stub of the provider."""
    from .model_stub import Stub, serve_stub
    from .test_modelseat import price_file

    with serve_stub(Stub()) as stub:
        outcome = play_job(_job(tmp_path, _model_body(stub.url, price_file(tmp_path))))
    assert outcome["status"] == "done", outcome["error"]
    f = next(s for s in outcome["result"]["seats"] if s["entrant"] == "stub_model")["figures"]
    assert f["months"] == 2 and f["auto_ended"] == 0 and f["outages"] == 0 and f["provider_failures"] == 0
    assert f["model_calls"] >= 4 and f["cost_usd"] > 0
    assert f["refused"] >= 2 and f["first_try_ok"] < f["first_tries"]  # the stub's ruler errs once a month


@pytest.mark.skipif(not SDKS, reason="the provider SDKs are not installed: pip install -e '.[test,models]'")
def test_a_model_seat_whose_key_is_refused_is_a_provider_failure(tmp_path: Path) -> None:
    from .model_stub import Stub, serve_stub
    from .test_modelseat import price_file

    with serve_stub(Stub(faults={1: 401})) as stub:
        outcome = play_job(_job(tmp_path, _model_body(stub.url, price_file(tmp_path))))
    assert outcome["status"] == "failed"
    (failure,) = outcome["result"]["failures"]
    assert failure["kind"] == "provider_failed" and failure["entrant"] == "stub_model"
    assert next(s for s in outcome["result"]["seats"] if s["entrant"] == "stub_model")["figures"]["provider_failures"]


# --- Ray ----------------------------------------------------------------------------------------------


def test_the_same_tournament_runs_on_a_local_ray_instance(tmp_path: Path) -> None:
    """Each game a Ray task; an entrant's max_concurrent is a Ray resource on the instance the runner starts."""
    pytest.importorskip("ray", reason="Ray is the optional 'cluster' extra: pip install -e '.[cluster]'")
    from kingdoms.tournament.executors import RayExecutor

    body = AI_ONLY.replace('name = "standard_b"\nai = "standard"', 'name = "standard_b"\nai = "standard"\n'
                           "max_concurrent = 1").replace("months = 6", "months = 3")
    ex = RayExecutor(None, 2, {"standard_b": 1})
    assert ex.cluster.get("kingdoms_standard_b") == 1 and ex.capacity == 2
    data = run(config(body, tmp_path), out=tmp_path / "out", executor=ex, quiet=True)
    assert data["games"]["done"] == 6
    assert {r["entrant"]: r["games"] for r in data["entrants"]} == {"passive": 4, "standard": 4, "standard_b": 4}
    with _Store(tmp_path / "out") as store:
        spans = sorted((g["started_at"], g["finished_at"]) for g in store.games()
                       if "standard_b" in g["seats"].values())
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))  # never two at once
