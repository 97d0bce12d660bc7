"""Watching and retelling a game (issue 20): the replay page's data, its fog, the chronicle, key moments, fork,
scenario check and the live /watch page over HTTP. The browser tests are in test_viewer_browser.py."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from starlette.testclient import TestClient

from kingdoms.cli import main
from kingdoms.fork import fork_game
from kingdoms.game import Game, GameError
from kingdoms.setup import build_state, resolve_scenario
from kingdoms.viewer import SpectatorRefused, build_record, write_chronicle, write_view
from kingdoms.viewer.chronicle import write_history
from kingdoms.viewer.frames import IN_SIGHT, REMEMBERED, UNEXPLORED, frame_of_observation
from kingdoms.viewer.moments import key_moments
from kingdoms.viewer.page import page_data, render_page
from kingdoms.viewer.source import RecordBuilder
from kingdoms.viewer.watch import COOKIE, build_watch_app
from kingdoms.viewer.words import about, count, listing, number, rounded
from kingdoms.views.observation import observe, observe_all

from .test_leaks import ROOT, boundary_breaches
from .viewer_helpers import CANARY_ID, CANARY_MEN, canary_game, wei_never_sees

# =============================================================================================================
# Fixtures: a short finished duel with a canary, and a whole duel between standard rulers
# =============================================================================================================


@pytest.fixture(scope="module")
def canary(tmp_path_factory: pytest.TempPathFactory) -> Game:
    """Eight months of a passive duel with a Shu Han canary troop Cao Wei never sees (asserted)."""
    game = canary_game(tmp_path_factory.mktemp("canary") / "c.sqlite")
    assert game.finished and wei_never_sees(game)
    return game


@pytest.fixture(scope="module")
def duel(tmp_path_factory: pytest.TempPathFactory) -> Game:
    """A whole duel between standard rulers (seed 1: Cao Wei takes the Ruin in month 21 and wins on the lead)."""
    path = tmp_path_factory.mktemp("duel") / "d.sqlite"
    state = build_state(resolve_scenario("duel"), 1)
    game, _ = Game.create(path, state, scenario="duel", controllers={"wei": "ai:standard", "shu": "ai:standard"})
    while not game.finished:
        game.play_ai_seats()
    return game


# =============================================================================================================
# Fog: everything a kingdom's page holds comes from its observations
# =============================================================================================================


def test_viewer_modules_read_only_records() -> None:
    """INTEL-010: under kingdoms/viewer only the record source (and the /watch server, which serves what the
    source builds) import the game, its states or its storage; the page, chronicle and moments read Records."""
    allowed = {"source.py", "watch.py"}
    checked, breaches = 0, {}
    for path in sorted((ROOT / "kingdoms" / "viewer").glob("*.py")):
        if path.name in allowed:
            continue
        checked += 1
        got = boundary_breaches(path.read_text(encoding="utf-8"))
        if got:
            breaches[path.name] = got
    assert checked >= 6 and breaches == {}


def test_intel_010_a_kingdom_page_holds_nothing_of_a_hidden_rival_troop(canary: Game, tmp_path: Path) -> None:
    """INTEL-010: Cao Wei never sees the canary troop of Shu Han, so neither its id nor its men are anywhere in the
    bytes of Cao Wei's page or chronicle, while the spectator's page of the same game holds both."""
    mine = write_view(canary, tmp_path / "wei.html", "wei")
    spectator = write_view(canary, tmp_path / "all.html")
    wei_bytes, all_bytes = mine.path.read_bytes(), spectator.path.read_bytes()
    assert str(CANARY_ID).encode() not in wei_bytes and f",{CANARY_MEN},".encode() not in wei_bytes
    assert str(CANARY_ID).encode() in all_bytes and f",{CANARY_MEN},".encode() in all_bytes
    chron = write_chronicle(canary, tmp_path / "wei.md", "wei").path.read_text()
    assert str(CANARY_ID) not in chron


def test_intel_010_a_kingdom_page_does_not_change_with_what_it_cannot_see(canary: Game, tmp_path: Path) -> None:
    """INTEL-010: the same game with the hidden canary under another id on another tile gives Cao Wei a page and a
    chronicle identical to the byte (canary twins), and Shu Han, who sees its own troop, a different one."""
    twin = canary_game(tmp_path / "twin.sqlite", canary_id=CANARY_ID + 1, pick=1)
    assert wei_never_sees(twin, CANARY_ID + 1)
    a = write_view(canary, tmp_path / "a.html", "wei").path.read_bytes()
    b = write_view(twin, tmp_path / "b.html", "wei").path.read_bytes()
    assert a == b
    assert write_history(build_record(canary, "wei")).to_markdown() == write_history(build_record(twin, "wei")).to_markdown()
    assert write_view(canary, tmp_path / "c.html", "shu").path.read_bytes() != \
        write_view(twin, tmp_path / "d.html", "shu").path.read_bytes()


def test_a_kingdom_frame_is_its_observation(canary: Game) -> None:
    """Each frame of a kingdom is its observation of that month: own units in full, foreign ones as the view shows
    them, fog from what it explored and sees, its own land known and land out of sight unknown."""
    record = build_record(canary, "wei")
    sides = [s.id for s in record.sides]
    for key in (1, 4, 9):
        state = canary.state(key)
        obs = observe(state, "wei")
        frame = frame_of_observation(obs, key, sides)
        kept = next(f for f in record.frames if f.key == key)
        assert [u.id for u in kept.units] == [u.id for u in frame.units] and np.array_equal(kept.fog, frame.fog)
        ids = {u.id for u in obs.view.units} | {u.id for u in obs.view.foreign_units}
        assert {u.id for u in frame.units} == ids
        assert np.array_equal(frame.fog == IN_SIGHT, obs.sight.visible)
        assert np.array_equal(frame.fog >= REMEMBERED, obs.explored)
        own = obs.land.own_city >= 0
        assert (frame.land[own] == sides.index("wei")).all()
        assert (frame.land[~obs.sight.visible & ~own] == -2).all()
        assert (frame.fog == UNEXPLORED).any()  # a kingdom has not explored the whole map in nine months


def test_the_spectator_sees_a_game_whole_only_once_it_is_over(tmp_path: Path) -> None:
    """The spectator's view of a running game is refused (observe_all, the record, `kingdoms view` without a
    kingdom); a kingdom's view of it is given; `live` is the /watch spectator's leave."""
    game = canary_game(tmp_path / "run.sqlite", played=3)
    assert not game.finished
    with pytest.raises(ValueError, match="still running"):
        observe_all(game.state())
    with pytest.raises(SpectatorRefused):
        build_record(game, None)
    assert build_record(game, None, live=True).live
    with pytest.raises(SystemExit, match="--kingdom"):
        main(["view", str(tmp_path / "run.sqlite"), "--out", str(tmp_path / "x.html")])
    assert main(["view", str(tmp_path / "run.sqlite"), "--kingdom", "Cao Cao", "--out", str(tmp_path / "y.html")]) == 0
    assert (tmp_path / "y.html").exists() and not (tmp_path / "x.html").exists()


# =============================================================================================================
# The page
# =============================================================================================================


def _decode(series: list[list[int]], size: int) -> list[np.ndarray]:
    """The page script's decoding of a land or fog series, in Python."""
    first = np.zeros(size, dtype=int)
    pos = 0
    for value, run in zip(series[0][0::2], series[0][1::2], strict=True):
        first[pos:pos + run] = value
        pos += run
    out = [first]
    for delta in series[1:]:
        cur = out[-1].copy()
        cur[delta[0::2]] = delta[1::2]
        out.append(cur)
    return out


def test_page_data_land_and_fog_decode_to_the_frames(canary: Game) -> None:
    """The run-length first frame and per-month changes decode to every frame's land and fog exactly."""
    record = build_record(canary, "wei")
    data = page_data([record])
    view = data["views"][0]
    size = data["map"]["w"] * data["map"]["h"]
    land = _decode(view["land"], size)
    fog = _decode(view["fog"], size)
    assert len(land) == len(record.frames) == len(data["frames"])
    for n, frame in enumerate(record.frames):
        assert np.array_equal(land[n], frame.land) and np.array_equal(fog[n], frame.fog)


def test_the_page_is_one_self_contained_file(canary: Game) -> None:
    """One HTML file: data, script and styles inline, nothing fetched (no src/href to a network address, a CSP
    that forbids it), every view listed, the map's terrain once."""
    text = render_page([build_record(canary, None), build_record(canary, "wei"), build_record(canary, "shu")])
    assert "default-src 'none'" in text and 'id="kv-data"' in text
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", text)
    assert "url(http" not in text and "@import" not in text and "<script src" not in text
    assert text.count('"id":"spectator"') == 1 and '"id":"wei"' in text and '"id":"shu"' in text
    assert "</script>" not in text.split('id="kv-data"', 1)[1].split("</script>", 1)[0]


# =============================================================================================================
# The chronicle and the key moments
# =============================================================================================================


def test_the_chronicle_is_a_history_told_in_words(duel: Game) -> None:
    """Chapters by era in order, the siege of the Ruin told by place and general with its size and outcome, the
    lead and the end in sentences, a closing table of every kingdom; no unit ids, no coordinates."""
    history = write_history(build_record(duel, None))
    text = history.to_markdown()
    titles = [c.title for c in history.chapters]
    assert titles[0] == "The land and its kingdoms" and titles[-1] == "The reckoning"
    assert [t.split(". ", 1)[1].split(" (")[0] for t in titles[1:-1]] == [
        "The founding", "The race for the Ruin", "The long peace", "The endgame"]
    assert re.search(r"Cao Wei laid siege to the Ruins of Chang'an, held by the bandits\. With an army of "
                     r"(?:some|nearly) [a-z -]+ thousand[a-z -]* levies and spearmen under General Xiahou Dun", text)
    assert "in month 21 the Ruins of Chang'an fell" in text
    assert "In month 56 Cao Wei won the game by holding the lead on captures for thirty-six months." in text
    assert "| Shu Han | Liu Bei | loss | 2 |" in text and "| Cao Wei | Cao Cao | win | 1 | 1 |" in text
    prose = "\n".join(line for line in text.splitlines() if not line.startswith("|"))
    assert not re.search(r"#\d", prose) and not re.search(r"\(-?\d+, ?-?\d+\)", prose)
    assert history.words() > 500


def test_the_chronicle_quotes_a_repeated_note_once(duel: Game) -> None:
    """A ruler's note written month after month is quoted once; a note saying something new is quoted."""
    notes = duel.store.notes("wei")
    repeated = "We hold the Ruin and the lead with 1 capture and stand guard."
    assert sum(repeated in n["text"] for n in notes) > 10
    text = write_history(build_record(duel, None)).to_markdown()
    assert text.count(repeated.rstrip(".")) == 1


def test_the_chronicle_quotes_each_clause_of_a_many_clause_note_once(tmp_path: Path) -> None:
    """A note made of '; '-joined clauses (the hard ruler's) repeats clause by clause: a clause already quoted is
    left out, the new ones are quoted; the note's "M12:" month stamp is not repeated in the quote."""
    game, _ = Game.create(tmp_path / "n.sqlite", build_state(resolve_scenario("duel"), 2), scenario="duel",
                          controllers={"wei": "ai:passive", "shu": "agent"})
    for m in range(1, 9):
        game.play_ai_seats()
        game.store.add_note(m, "shu", "note", f"M{m}: Guan Yu's {1000 + m * 10:,} men stand guard at Chengdu; "
                            + ("the granary is full" if m < 8 else "we march on the Ruin"), 0.0)
        game.end_month("shu", month=m)
    text = write_history(build_record(game, "shu")).to_markdown()
    assert text.count("men stand guard at Chengdu") == 1 and text.count("the granary is full") == 1
    assert "we march on the Ruin" in text and "M5:" not in text


def test_the_chronicle_is_deterministic_and_a_kingdom_tells_only_what_it_knew(duel: Game) -> None:
    """The same file gives the same chronicle. Shu Han's tells its own notes and the public news (Cao Wei took the
    Ruin) but not Cao Wei's private founding of Anyi, nor Cao Cao's notes, nor Cao Wei's own figures."""
    a = write_history(build_record(duel, None)).to_markdown()
    assert a == write_history(build_record(duel, None)).to_markdown()
    assert "Cao Wei founded its first new city, Anyi" in a and "Cao Cao's note" in a
    shu = write_history(build_record(duel, "shu")).to_markdown()
    assert "as Shu Han knew it" in shu and "Cao Wei took the Ruins of Chang'an from the bandits" in shu
    assert "founded its first new city, Anyi" not in shu
    assert "Cao Cao wrote" not in shu and "Cao Cao's note" not in shu and "Cao Cao and" not in shu
    assert "| Cao Wei | Cao Cao | win | 1 | 1 | ? | ? | ? |" in shu


def test_key_moments_of_the_duel(duel: Game) -> None:
    """The key moments: first cities, the Ruin taken, the lead, the end, each in the month it happened."""
    got = [(m.month, m.kind, m.text) for m in key_moments(build_record(duel, None))]
    kinds = [k for _, k, _ in got]
    assert (21, "ruin", "Cao Wei takes the Ruin, Ruins of Chang'an, from the bandits") in got
    assert (21, "lead", "Cao Wei takes the lead on captures") in got
    assert got[-1] == (56, "end", "Cao Wei wins the game after holding the lead on captures for 36 months")
    assert kinds.count("found") == 2 and [m for m, _, _ in got] == sorted(m for m, _, _ in got)


def test_numbers_in_words() -> None:
    """The chronicle's numbers: words, rounded to two figures with 'some' or 'nearly', and lists."""
    assert [number(n) for n in (0, 7, 21, 100, 115, 5700, 64000, 1_000_001)] == [
        "zero", "seven", "twenty-one", "one hundred", "one hundred and fifteen", "five thousand seven hundred",
        "sixty-four thousand", "one million one"]
    assert rounded(5726) == 5700 and rounded(389) == 390 and rounded(64_112) == 64_000
    assert about(5726) == "some five thousand seven hundred" and about(389) == "nearly three hundred and ninety"
    assert about(4000) == "four thousand" and about(42) == "forty-two"
    assert count(1, "city") == "one city" and count(3, "city") == "three cities" and count(0, "troop") == "no troops"
    assert listing(["A"]) == "A" and listing(["A", "B", "C"]) == "A, B and C"
    assert listing(["A, x", "B"]) == "A, x; and B"


# =============================================================================================================
# Fork and scenario check
# =============================================================================================================


def test_fork_keeps_the_months_up_to_n_and_opens_month_n_with_new_seats(duel: Game, tmp_path: Path) -> None:
    """The fork holds months 1..N with the original's hashes, their orders, events and notes, month N open with
    nothing queued and the new seats, new tokens and a spectator token; replay --verify passes on it."""
    out = tmp_path / "f.sqlite"
    forked = fork_game(duel, 10, out, {"wei": "ai:passive", "shu": "agent"})
    game = forked.game
    original = duel.store.month_hashes()
    hashes = game.store.month_hashes()
    assert sorted(hashes) == list(range(1, 11)) and all(hashes[m] == original[m] for m in hashes)
    assert game.month == 10 and not game.queued("wei") and game.store.ended(10) == {}
    assert {s["kingdom"]: s["controller"] for s in game.seats()} == {"wei": "ai:passive", "shu": "agent"}
    assert game.kingdom_for_token(forked.tokens["shu"]) == "shu" and game.is_spectator(forked.spectator)
    assert len(game.store.accepted_orders(9)) == len(duel.store.accepted_orders(9)) > 0
    assert [e["text"] for e in game.store.events(9)] == [e["text"] for e in duel.store.events(9)]
    assert len(game.store.notes()) == len([n for n in duel.store.notes() if n["month"] < 10])
    game.play_ai_seats()
    game.end_month("shu")
    game.close()
    assert main(["replay", str(out), "--verify"]) == 0


def test_fork_with_a_new_seed_rolls_from_month_n_with_it(duel: Game, tmp_path: Path) -> None:
    """With --seed the fork's month N keeps the original's state and hash; its resolution and every later month
    use the new seed; replay --verify reproduces them."""
    forked = fork_game(duel, 12, tmp_path / "s.sqlite", {"wei": "ai:standard", "shu": "ai:standard"}, seed=4242)
    game = forked.game
    assert game.state(12).seed == duel.state(12).seed and game.store.month_hashes()[12] == duel.store.month_hashes()[12]
    assert game.rolled(game.state(12)).seed == 4242 and game.rolled(game.state(11)).seed == duel.state(11).seed
    for _ in range(3):
        game.play_ai_seats()
    assert game.state().month == 15 and game.state().seed == 4242
    game.close()
    assert main(["replay", str(tmp_path / "s.sqlite"), "--verify"]) == 0


def test_fork_refuses_what_it_cannot_make(duel: Game, tmp_path: Path) -> None:
    """A month the game does not hold, a finished month and an existing file are refused with a reason."""
    last = max(duel.store.month_hashes())
    with pytest.raises(GameError, match="is not in"):
        fork_game(duel, last + 5, tmp_path / "a.sqlite", {})
    with pytest.raises(GameError, match="already over"):
        fork_game(duel, last, tmp_path / "b.sqlite", {})
    (tmp_path / "c.sqlite").write_text("x")
    with pytest.raises(GameError, match="already exists"):
        fork_game(duel, 3, tmp_path / "c.sqlite", {})


def test_a_fork_that_fails_midway_leaves_no_file_behind(duel: Game, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fork whose copying fails removes its half-made file, and no SQLite -wal/-shm side file stays either."""
    import kingdoms.fork as fork

    def broken(*_args: object) -> None:
        raise GameError("disk gave out")

    monkeypatch.setattr(fork, "_copy_history", broken)
    with pytest.raises(GameError, match="disk gave out"):
        fork_game(duel, 6, tmp_path / "half.sqlite", {})
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("half")) == []


def test_fork_cli_changes_the_named_seats_only(duel: Game, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`kingdoms fork GAME --month N --out NEW --seat K=CTRL` keeps the other seats' rulers and prints tokens."""
    out = tmp_path / "cli.sqlite"
    assert main(["fork", str(duel.store.path), "--month", "5", "--out", str(out), "--seat", "shu=agent"]) == 0
    text = capsys.readouterr().out
    assert "at month 5" in text and "spectator token" in text
    game = Game.open(out)
    assert {s["kingdom"]: s["controller"] for s in game.seats()} == {"wei": "ai:standard", "shu": "agent"}
    assert game.store.ended(5) == {"wei": "ai"}  # the AI seat has played its month already
    game.close()


def test_scenario_check_validates_and_writes_a_preview(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`kingdoms scenario check` passes a good scenario and writes its month-1 map as a page; a bad one fails with
    the scenario loader's precise error and writes nothing."""
    out = tmp_path / "duel.html"
    assert main(["scenario", "check", str(ROOT / "scenarios" / "duel.toml"), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "scenario ok: duel" in said and "2 kingdoms" in said and f"preview: {out}" in said
    page = out.read_text()
    assert '"frames":[[1,1,0,0]]' in page and "Chengdu" in page and "Xuchang" in page
    bad = tmp_path / "bad.toml"
    bad.write_text("[map]\nrows = ['GGX']\n")
    assert main(["scenario", "check", str(bad), "--out", str(tmp_path / "bad.html")]) == 1
    err = capsys.readouterr().err
    assert "bad.toml" in err and not (tmp_path / "bad.html").exists()


# =============================================================================================================
# The live /watch page over HTTP
# =============================================================================================================


@pytest.fixture
def running(tmp_path: Path) -> Game:
    """A running canary duel (Cao Wei an agent seat), three months in."""
    game = canary_game(tmp_path / "live.sqlite", played=3, wei="agent", months=20)
    assert game.month == 4
    return game


def test_watch_no_token_no_page(running: Game) -> None:
    """Without a session or token /watch is a login form with no game data, /watch/data is 401, and a wrong
    token or a form posted from another site is refused."""
    client = TestClient(build_watch_app(running.store.path))
    page = client.get("/watch")
    assert page.status_code == 401 and 'name="token"' in page.text
    assert "Chengdu" not in page.text and "kv-data" not in page.text
    assert client.get("/watch/data").status_code == 401
    assert client.post("/watch/login", data={"token": "nope"}).status_code == 401
    assert client.post("/watch/login", data={"token": running.spectator},  # type: ignore[attr-defined]
                       headers={"Origin": "http://evil.example"}).status_code == 403
    assert client.get("/watch", headers={"Authorization": "Bearer nope"}).status_code == 401


def test_watch_a_seat_sees_its_own_view_the_spectator_everything(running: Game) -> None:
    """A seat token (posted by the form) gives an HttpOnly, SameSite=Strict session cookie for /watch and that
    seat's view only; the spectator token gives every side; /watch/data follows the game as months resolve."""
    client = TestClient(build_watch_app(running.store.path))
    resp = client.post("/watch/login", data={"token": running.tokens["wei"]},  # type: ignore[attr-defined]
                       follow_redirects=False)
    assert resp.status_code == 303 and resp.headers["location"] == "/watch"
    cookie = resp.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert "Path=/watch" in cookie and running.tokens["wei"] not in cookie  # type: ignore[attr-defined]
    page = client.get("/watch")
    assert page.status_code == 200 and '"id":"wei"' in page.text and '"id":"spectator"' not in page.text
    assert str(CANARY_ID) not in page.text and '"live":true' in page.text
    data = client.get("/watch/data?have=0").json()
    assert [v["id"] for v in data["views"]] == ["wei"] and len(data["frames"]) == 4
    assert client.get("/watch/data?have=4").status_code == 204
    running.end_month("wei")
    running.play_ai_seats()
    data = client.get("/watch/data?have=4").json()
    assert len(data["frames"]) == 5
    running.store.add_note(running.month, "wei", "note", "Qxopenplan: we march on Chengdu.", 0.0)
    spectator = TestClient(build_watch_app(running.store.path))
    bearer = {"Authorization": f"Bearer {running.spectator}"}  # type: ignore[attr-defined]
    got = spectator.get("/watch/data?have=0", headers=bearer).json()
    assert [v["id"] for v in got["views"]] == ["spectator"] and str(CANARY_ID) in str(got["views"][0]["fr"])
    assert "Qxopenplan" not in str(got)  # a note of the month still open is not the spectator's yet
    running.end_month("wei")
    running.play_ai_seats()
    assert "Qxopenplan" in spectator.get("/watch/data?have=0", headers=bearer).text
    assert "Qxopenplan" in client.get("/watch/data?have=0").text
    client.post("/watch/logout")
    assert client.get("/watch").status_code == 401


def test_record_builder_adds_only_new_months(running: Game) -> None:
    """The live page's builder keeps its frames and makes only the months resolved since."""
    builder = RecordBuilder(running, "wei", live=True)
    first = builder.record()
    kept = first.frames[0]
    running.end_month("wei")
    running.play_ai_seats()
    second = builder.record()
    assert len(second.frames) == len(first.frames) + 1 and second.frames[0] is kept
