"""The replay page and the live /watch page in a real headless Chromium (Debian's package, driven by Playwright):
it loads with no console errors, the slider and the keys change the month shown, a kingdom's view hides a rival
troop the spectator's shows, the map is drawn (not blank), and /watch logs in and follows the game.

Skipped, saying why, when no Chromium or no Playwright is installed (`apt-get install -y chromium`, and the
test extra's `playwright`; the browser is never downloaded by Playwright)."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kingdoms.game import Game
from kingdoms.viewer import write_view

from .viewer_helpers import CANARY_ID, canary_game, canary_tile, wei_never_sees

CHROMIUM = os.environ.get("KINGDOMS_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

try:
    from playwright.sync_api import Browser, Page, sync_playwright
    from playwright.sync_api import Error as PlaywrightError
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.long,
    pytest.mark.skipif(sync_playwright is None, reason="Playwright for Python is not installed (pip install "
                       "playwright; the browser comes from Debian: apt-get install -y chromium)"),
    pytest.mark.skipif(CHROMIUM is None, reason="no Chromium found (apt-get install -y chromium, or set "
                       "KINGDOMS_CHROMIUM to its path)"),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[Game, Path]:
    """A finished canary duel and its page with every view."""
    tmp = tmp_path_factory.mktemp("browser")
    game = canary_game(tmp / "c.sqlite")
    assert wei_never_sees(game)
    return game, write_view(game, tmp / "c.html").path


def _wait(page: Page, js: str, timeout: float = 10.0) -> None:
    """Wait until `js` (an expression) is true in the page. Polled from here: the page's CSP forbids the string
    evaluation Playwright's own in-page polling uses."""
    deadline = time.time() + timeout
    while True:
        try:
            if page.evaluate(js):
                return
        except PlaywrightError as exc:  # the page is navigating (the login page moves on to /watch)
            if "context was destroyed" not in str(exc) and "navigat" not in str(exc):
                raise
        if time.time() > deadline:
            raise AssertionError(f"still false after {timeout} s: {js}")
        page.wait_for_timeout(100)


def _open(browser: Browser, url: str) -> tuple[Page, list[str]]:
    """A page at `url` with its console errors and uncaught exceptions collected."""
    page = browser.new_page(viewport={"width": 1360, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.goto(url)
    _wait(page, "window.KV !== undefined")
    return page, errors


def test_the_page_loads_without_errors_and_draws_the_map(browser: Browser, replay: tuple[Game, Path],
                                                         tmp_path: Path) -> None:
    """No console error or exception; the map canvas holds many colours and the screenshot is not blank."""
    _, html = replay
    page, errors = _open(browser, html.as_uri())
    assert page.evaluate("KV.views()") == ["spectator", "wei", "shu"] and page.evaluate("KV.frames()") == 9
    colours = page.evaluate("""() => { const c = document.getElementById('kv-map');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; const seen = new Set();
        for (let i = 0; i < d.length; i += 4 * 97) seen.add(d[i] + ',' + d[i+1] + ',' + d[i+2]); return seen.size; }""")
    assert colours > 30
    shot = tmp_path / "replay.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 40_000  # a blank page of this size compresses to a few kilobytes
    assert "Tile" in page.inner_text("#kv-tabs") and page.inner_text("#kv-month") == "Month 1 (the start)"
    assert errors == []
    page.close()


def test_the_slider_keys_and_play_change_the_month_shown(browser: Browser, replay: tuple[Game, Path]) -> None:
    """The slider (dragged by its arrow keys), the arrow keys on the page and play step the month shown, and the
    month's panel follows."""
    _, html = replay
    page, errors = _open(browser, html.as_uri())
    page.locator("#kv-slider").press("ArrowRight")
    page.locator("#kv-slider").press("ArrowRight")
    assert page.evaluate("KV.frame()") == 2 and page.inner_text("#kv-month") == "Month 2"
    assert page.inner_text("#kv-tab-month h3") == "Month 2"
    page.locator("#kv-title").click()
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("KV.frame()") == 1 and page.inner_text("#kv-month") == "Month 1"
    page.keyboard.press("End")
    assert page.inner_text("#kv-month") == "Month 8 (the end)"
    page.keyboard.press("Home")
    page.click("#kv-play")
    _wait(page, "KV.frame() >= 2", 5)
    page.click("#kv-play")
    stopped = page.evaluate("KV.frame()")
    page.wait_for_timeout(700)
    assert page.evaluate("KV.frame()") == stopped
    assert errors == []
    page.close()


def _hover(page: Page, q: int, r: int) -> str:
    point: dict[str, Any] = page.evaluate(f"KV.tilePoint({q}, {r})")
    box = page.locator("#kv-map").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + point["x"], box["y"] + point["y"])
    page.wait_for_timeout(50)
    return page.inner_text("#kv-tip")


def test_a_kingdom_view_hides_a_rival_troop_the_spectator_view_shows(browser: Browser,
                                                                     replay: tuple[Game, Path]) -> None:
    """INTEL-010: hovering the canary's tile shows Shu Han's troop in the spectator's view and in Shu Han's, and
    nothing of it in Cao Wei's (chosen in the page's own view selector)."""
    game, html = replay
    q, r = canary_tile(game)
    page, errors = _open(browser, html.as_uri())
    page.keyboard.press("End")
    assert CANARY_ID in page.evaluate(f"KV.unitsAt({q}, {r})")
    assert f"#{CANARY_ID}" in _hover(page, q, r)
    page.select_option("#kv-view", label="Cao Wei (Cao Cao)")
    assert page.evaluate("KV.view()") == "wei"
    assert page.evaluate(f"KV.unitsAt({q}, {r})") == []
    tip = _hover(page, q - 1 if q > 0 else q + 1, r) + _hover(page, q, r)
    assert f"#{CANARY_ID}" not in tip and "Unexplored" in tip
    page.select_option("#kv-view", label="Shu Han (Liu Bei)")
    assert f"#{CANARY_ID}" in _hover(page, q, r)
    assert errors == []
    page.close()


# --- the live page ----------------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[Game, str]]:
    """A running canary duel (Cao Wei an agent seat) served by the /watch app on a free port."""
    import uvicorn

    from kingdoms.viewer.watch import build_watch_app

    game = canary_game(tmp_path / "live.sqlite", played=3, wei="agent", months=20)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(build_watch_app(game.store.path), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 10
    while not server.started and time.time() < deadline:
        time.sleep(0.05)
    assert server.started
    yield game, f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def test_watch_logs_in_by_form_and_follows_the_game(browser: Browser, live: tuple[Game, str]) -> None:
    """/watch asks for a token; the form's seat token opens that seat's live view (an HttpOnly cookie holds the
    session, not the token), and a month resolved in the game shows up without reloading."""
    game, base = live
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "/watch")
    page.fill("input[name=token]", game.tokens["wei"])  # type: ignore[attr-defined]
    page.click("button[type=submit]")
    _wait(page, "window.KV !== undefined")
    assert page.evaluate("KV.views()") == ["wei"] and page.evaluate("KV.frames()") == 4
    assert page.url == base + "/watch" and page.is_visible("#kv-live")
    cookies = context.cookies()
    assert [c["httpOnly"] for c in cookies] == [True] and game.tokens["wei"] not in str(cookies)  # type: ignore[attr-defined]
    game.end_month("wei")
    game.play_ai_seats()
    _wait(page, "KV.frames() === 5", 15)
    assert page.inner_text("#kv-month") == "Month 4"
    assert errors == []
    context.close()


def test_watch_takes_a_token_from_the_url_fragment(browser: Browser, live: tuple[Game, str]) -> None:
    """A link /watch#token=... logs in without the token reaching the server's URL: the page clears the
    fragment and shows the spectator's view of the months that are over."""
    game, base = live
    context = browser.new_context()
    page = context.new_page()
    asked: list[str] = []
    page.on("request", lambda req: asked.append(req.url))
    page.goto(base + "/watch#token=" + game.spectator)  # type: ignore[attr-defined]
    _wait(page, "window.KV !== undefined")
    assert page.evaluate("KV.views()") == ["spectator"] and page.evaluate("location.hash") == ""
    assert all(game.spectator not in url for url in asked)  # type: ignore[attr-defined]
    context.close()
