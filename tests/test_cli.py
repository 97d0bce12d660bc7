"""The `kingdoms` command: new, info, replay --verify, play."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kingdoms.cli import main
from kingdoms.game import Game


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_new_json_prints_game_and_seats_with_tokens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.sqlite"
    code, text = run_cli(capsys, "new", "--scenario", "duel", "--seat", "shu=ai:passive", "--out", str(out),
                         "--seed", "5", "--json")
    data = json.loads(text)
    assert code == 0 and data["game"] == str(out)
    seats = {s["kingdom"]: s for s in data["seats"]}
    assert set(seats) == {"wei", "shu"}
    assert seats["wei"]["controller"] == "agent" and seats["shu"]["controller"] == "ai:passive"
    assert {"kingdom", "ruler", "controller", "token"} <= set(seats["wei"])
    game = Game.open(out)
    assert game.kingdom_for_token(seats["wei"]["token"]) == "wei"
    assert game.store.ended(1) == {"shu": "ai"}  # the AI seat ends its month at once
    game.close()


def test_new_refuses_bad_seats_and_scenarios(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no kingdom 'qin'"):
        main(["new", "--scenario", "duel", "--seat", "qin=agent", "--out", str(tmp_path / "a.sqlite")])
    with pytest.raises(SystemExit, match="unknown AI level"):
        main(["new", "--scenario", "duel", "--seat", "wei=ai:genius", "--out", str(tmp_path / "b.sqlite")])
    bad = tmp_path / "bad.toml"
    bad.write_text("[map]\nrows = ['GGX']\n")
    with pytest.raises(SystemExit, match="bad.toml"):
        main(["new", "--scenario", str(bad), "--out", str(tmp_path / "c.sqlite")])
    assert not (tmp_path / "c.sqlite").exists()


def test_info_and_replay_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.sqlite"
    code, _ = run_cli(capsys, "play", "--scenario", "duel", "--seed", "3", "--months", "6", "--quiet", "--out",
                      str(out))
    assert code == 0
    code, text = run_cli(capsys, "info", str(out), "--json")
    info = json.loads(text)
    assert code == 0 and info["month"] == 7 and not info["finished"]
    assert {s["kingdom"] for s in info["seats"]} == {"wei", "shu"}
    code, text = run_cli(capsys, "replay", str(out), "--verify")
    assert code == 0 and "6 months" in text
    game = Game.open(out)
    with game.store.write() as db:
        db.execute("UPDATE months SET hash = 'tampered' WHERE month = 4")
    game.close()
    code, text = run_cli(capsys, "replay", str(out), "--verify")
    assert code == 1 and "month 4" in text


def test_play_prints_the_table_and_writes_the_chronicle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "p.sqlite"
    code, text = run_cli(capsys, "play", "--random", "4", "--kingdoms", "2", "--seed", "9", "--months", "5",
                         "--quiet", "--out", str(out))
    assert code == 0
    assert "captures" in text and "people" in text
    assert f"game file: {out}" in text
    chronicle = out.with_suffix(".chronicle.md")
    assert f"chronicle: {chronicle}" in text and chronicle.read_text().startswith("# The chronicle of")


def test_play_json_prints_the_final_table_as_one_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`kingdoms play --json` prints one JSON object: the end (reason, month) and per kingdom its controller,
    result, place, captures, cities, people, troops and men — a hard ruler seated with --seat among them."""
    out = tmp_path / "j.sqlite"
    code, text = run_cli(capsys, "play", "--scenario", "duel", "--seed", "3", "--months", "4", "--seat",
                         "wei=ai:hard", "--json", "--out", str(out))
    assert code == 0
    data = json.loads(text)
    assert data["month"] == 5 and data["finished"] is False and data["end_reason"] is None
    rows = {k["id"]: k for k in data["kingdoms"]}
    assert rows["wei"]["controller"] == "ai:hard" and rows["shu"]["controller"] == "ai:standard"
    for row in rows.values():
        assert set(row) >= {"controller", "result", "place", "captures", "cities", "people", "troops", "men"}
        assert row["result"] is None and row["cities"] >= 1 and row["people"] > 0
    assert data["game_file"] == str(out) and Path(data["chronicle"]).exists()


def test_console_script_runs(tmp_path: Path) -> None:
    """The installed `kingdoms` entry point answers --help (what the README's first command relies on)."""
    exe = Path(sys.executable).with_name("kingdoms")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "kingdoms.cli"]
    proc = subprocess.run([*cmd, "--help"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert proc.returncode == 0 and "play" in proc.stdout


def _tamper(path: Path, month: int, change: Any) -> None:
    """Change a stored month's state with `change(state dict)` and store a hash that matches the change."""
    from kingdoms.state import GameState
    from kingdoms.storage import _pack, _unpack

    game = Game.open(path)
    blob = game.store.db.execute("SELECT state FROM months WHERE month = ?", [month]).fetchone()[0]
    data = _unpack(blob)
    change(data)
    new_hash = GameState.from_dict(data, game.map).state_hash()
    with game.store.write() as db:
        db.execute("UPDATE months SET state = ?, hash = ? WHERE month = ?", [_pack(data), new_hash, month])
    game.close()


def _first_unit(data: dict) -> str:
    return next(k for k, u in data["units"].items() if u["owner"] == "wei")


def test_replay_verify_rebuilds_month_one_and_names_what_differs(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """replay --verify rebuilds month 1 from the scenario and seed in the file (not from its stored state); a
    mismatch names the first month and the units and fields that differ; --json gives the same as data."""
    out = tmp_path / "g.sqlite"
    assert run_cli(capsys, "play", "--scenario", "duel", "--seed", "3", "--months", "6", "--quiet",
                   "--out", str(out))[0] == 0
    code, text = run_cli(capsys, "replay", str(out), "--json")
    report = json.loads(text)
    assert code == 0 and report["ok"] and report["first_mismatch"] is None and report["months"] == 6
    assert report["rebuilt_first_month"] and len(report["hashes"]) == 7
    game = Game.open(out)
    assert report["hashes"] == [h for _, h in sorted(game.store.month_hashes().items())]
    game.close()

    uid = ""

    def fewer_men(data: dict) -> None:
        nonlocal uid
        uid = _first_unit(data)
        data["units"][uid]["men"] -= 100

    _tamper(out, 4, fewer_men)  # a self-consistent stored month 4 that its orders did not produce
    code, text = run_cli(capsys, "replay", str(out), "--verify")
    assert code == 1 and "month 4 differs" in text and f"unit #{uid}: men" in text
    code, text = run_cli(capsys, "replay", str(out), "--json")
    report = json.loads(text)
    assert code == 1 and not report["ok"] and report["first_mismatch"] == 4 and report["months"] == 3
    assert any(line.startswith(f"unit #{uid}: men") for line in report["differences"])

    _tamper(out, 1, fewer_men)  # month 1 changed with its hash: only the rebuild from the scenario can tell
    code, text = run_cli(capsys, "replay", str(out), "--json")
    report = json.loads(text)
    assert code == 1 and report["first_mismatch"] == 1 and report["months"] == 0
    assert any(line.startswith(f"unit #{uid}: men") for line in report["differences"])
