"""The table page's edges on phones, in a real Chromium on the session's ``nimmt serve``: a table
that starts by itself counts down in the lobby (from the server's seconds, in digits that keep
their place, saying who may start sooner), and the rows' labels stand on one line over their
bullheads at 360 px in the longer languages, at the table and in the home page's daily puzzle."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.browser.test_table_finish import _cut
from tests.server.live import LiveServer

SCREENS = ((360, 640), (390, 844), (844, 390))
PHONE: dict[str, Any] = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True,
                         "device_scale_factor": 2}
WAIT = 180  # seconds before the table starts by itself: long after the test (a loaded machine is slow)
# "Começa em 2:58", "Début dans 2:58": minutes and seconds.
TIME = re.compile(r"(\d+):(\d\d)")

_BOXES = """() => ['#start-in', '#start-note', '#start-fill', '#lobby-bot', '#lobby-seats'].map((s) => {
  const r = document.querySelector(s).getBoundingClientRect();
  return [s, Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)];
})"""


def _seconds(page: Page) -> int:
    found = TIME.search(page.locator("#start-in").inner_text())
    assert found, page.locator("#start-in").inner_text()
    return int(found[1]) * 60 + int(found[2])


def _counts_down_in_place(page: Page) -> None:
    """The countdown ticks, and nothing in the lobby moves when it does."""
    shown = page.locator("#start-in").inner_text()
    before = page.evaluate(_BOXES)
    expect(page.locator("#start-in")).not_to_have_text(shown)
    assert page.evaluate(_BOXES) == before
    assert page.locator("#start-in").evaluate("(e) => getComputedStyle(e).fontVariantNumeric") == "tabular-nums"


def _start_on_first_screen(page: Page, where: str, problems: list[str]) -> None:
    """The host's Start and its bot level lie on the first screen, unscrolled."""
    page.evaluate("window.scrollTo(0, 0)")
    height = page.viewport_size["height"] if page.viewport_size else 0
    for part in ("#start-fill", "#lobby-bot"):
        box = page.locator(part).bounding_box()
        if box is None or box["y"] < 0 or box["y"] + box["height"] > height:
            problems.append(f"{where}: {part} is off the first screen ({box})")


def _waits_for_a_player(server: LiveServer, page: Page) -> None:
    """A spectator of a table nobody seated is at: it says it waits for a player, before its time
    and after it (never "Starting…" forever)."""
    made = httpx.post(f"{server.url}/api/tables", json={"name": "Davi", "seats": 4, "language": "pt-BR",
                                                        "options": {"start_after": 5}}).json()
    page.goto(f"{server.url}/t/{made['table_id']}?lang=pt-BR")
    expect(page.locator("#start-note")).to_have_text(re.compile("Só começa quando um jogador estiver aqui"))
    expect(page.locator("#start-in")).to_have_text("Aguardando um jogador presente", timeout=30_000)


def test_a_table_that_starts_by_itself_counts_down_in_its_lobby(
        browser: Browser, server: LiveServer, screenshots: Path) -> None:
    made = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 4, "language": "pt-BR",
                                                        "options": {"rounds": 1, "start_after": WAIT}}).json()
    table_id = made["table_id"]
    bruno = httpx.post(f"{server.url}/api/tables/{table_id}/join", json={"name": "Bruno"}).json()
    context = browser.new_context(**PHONE, reduced_motion="reduce")
    ana, other = context.new_page(), browser.new_page(viewport={"width": 390, "height": 844})
    errors: list[str] = []
    ana.on("pageerror", lambda error: errors.append(str(error)))
    try:
        ana.goto(f"{server.url}/t/{table_id}?lang=pt-BR#seat={made['token']}")
        expect(ana.locator("#start-in")).to_have_text(re.compile(r"^Começa em \d:\d\d$"))
        expect(ana.locator("#start-note")).to_have_text(re.compile("Você pode começar antes"))
        # What the page shows comes from the server's seconds (give or take the way here, loaded or not).
        said = httpx.get(f"{server.url}/api/tables/{table_id}").json()["start_left"]
        assert said - 3 <= _seconds(ana) <= said + 3
        _counts_down_in_place(ana)
        # Bruno, who is not the host, reads who may start sooner (in French here).
        other.goto(f"{server.url}/t/{table_id}?lang=fr#seat={bruno['token']}")
        expect(other.locator("#start-in")).to_have_text(re.compile(r"^Début dans \d:\d\d$"))
        expect(other.locator("#start-note")).to_have_text(re.compile("Ana peut lancer la partie avant"))
        expect(other.locator("#start-box")).to_be_hidden()
        # A table nobody seated is at does not start: its spectator reads that it waits for a player.
        _waits_for_a_player(server, other)
        problems: list[str] = []
        for language in ("pt-BR", "pt-PT", "fr"):
            ana.goto(f"{server.url}/t/{table_id}?lang={language}#seat={made['token']}")
            expect(ana.locator("#start-in")).to_have_text(TIME)
            for width, height in SCREENS:
                ana.set_viewport_size({"width": width, "height": height})
                _cut(ana, f"countdown {language} {width}x{height}", problems)
                _start_on_first_screen(ana, f"{language} {width}x{height}", problems)
                if language != "pt-PT":
                    ana.screenshot(path=str(screenshots / f"table-countdown-{language}-{width}x{height}.png"))
        assert problems == []
        _counts_down_in_place(ana)
        # Somebody joins: the host's Start stays where it was.
        before = ana.evaluate(_BOXES)
        httpx.post(f"{server.url}/api/tables/{table_id}/join", json={"name": "Cleo"}).raise_for_status()
        expect(ana.locator("#lobby-status")).to_have_text(re.compile(r"\b1\b"))
        assert ana.evaluate(_BOXES)[:4] == before[:4]
        # The host starts sooner: the countdown goes with the lobby.
        ana.locator("#start-fill").click()
        expect(ana.locator("body")).to_have_attribute("data-status", "playing")
        expect(ana.locator("#start-countdown")).to_be_hidden()
        assert errors == []
    finally:
        other.close()
        context.close()


# Each row's label: its name on one line, its bullheads under it (two lines), and the row's last
# card inside it.
_ROW_LABELS = """(rows) => [...document.querySelectorAll(`${rows} .row`)].map((row) => {
  const title = row.querySelector('.row-title');
  const lines = (el) => Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight));
  const last = row.querySelector('.row-cards').lastElementChild.getBoundingClientRect();
  return { title: title.textContent, titleLines: lines(title), headsLines: lines(row.querySelector('.row-heads .n')),
           wide: last.right > row.getBoundingClientRect().right + .5 };
})"""


def _labels_fit(page: Page, rows: str, language: str) -> None:
    labels = page.evaluate(_ROW_LABELS, rows)
    assert all(label["titleLines"] == 1 and label["headsLines"] == 1 and not label["wide"]
               for label in labels), (language, rows, labels)


def test_the_rows_labels_take_two_lines_at_most_on_a_small_phone(browser: Browser, server: LiveServer) -> None:
    made = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 3, "bots": ["random"] * 2,
                                                        "options": {"rounds": 1}, "start": True}).json()
    context = browser.new_context(**PHONE, reduced_motion="reduce")
    page = context.new_page()
    try:
        for language in ("pt-BR", "pt-PT", "fr", "de", "es"):
            page.goto(f"{server.url}/t/{made['table_id']}?lang={language}#seat={made['token']}")
            expect(page.locator("html")).to_have_attribute("lang", language)
            expect(page.locator("#rows .row")).to_have_count(4)
            _labels_fit(page, "#rows", language)
            # The rows away from the table too: the daily puzzle's on the home page.
            page.goto(f"{server.url}/?lang={language}")
            expect(page.locator("#daily-rows .row")).to_have_count(4)
            _labels_fit(page, "#daily-rows", language)
    finally:
        context.close()
