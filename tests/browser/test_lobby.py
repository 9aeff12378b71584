"""The lobby for strangers in a real Chromium on a real ``nimmt serve``: quick match from two
browsers lands both at one table; a table with a short clock hands a slow person's decision to a
bot at zero and gives the seat back after it; a reaction shows on the other browser (and not once
muted); the lobby page on a small phone in Brazilian Portuguese and in French."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.helpers import WAIT_MS, next_decision, play_card
from tests.browser.test_table_finish import _cut
from tests.server.live import LiveServer

SMALL_PHONE: dict[str, Any] = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True,
                               "device_scale_factor": 2}
CLOCK = 5  # seconds: the shortest clock a table may have
PHONE_SCREENS = ((360, 640), (390, 844), (844, 390))


@pytest.fixture
def lobby_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own: the lobby lists every open public table, and other tests make some."""
    with LiveServer(tmp_path / "nimmt.sqlite3", bot_delay=0, seed=5) as live:
        yield live


def _page(browser: Browser, **device: Any) -> tuple[BrowserContext, Page, list[str]]:
    context = browser.new_context(**device)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return context, page, errors


def _quick(page: Page, server: LiveServer, name: str, lang: str = "en") -> str:
    page.goto(f"{server.url}/lobby?lang={lang}")
    page.locator("#lobby-name").fill(name)
    page.locator("#quick-button").click()
    page.wait_for_url(re.compile(r"/t/[\w-]+$"))
    return page.url.rsplit("/", 1)[1]


def test_quick_match_from_two_browsers_lands_both_at_one_table(browser: Browser, lobby_server: LiveServer) -> None:
    (first, ana, errors_a), (second, bruno, errors_b) = _page(browser, **SMALL_PHONE), _page(browser)
    try:
        table = _quick(ana, lobby_server, "Ana")
        expect(ana.locator("#lobby-seats li")).to_have_count(4)
        # Ana's table is listed, live, on a lobby page opened before Bruno comes.
        bruno.goto(f"{lobby_server.url}/lobby?lang=en")
        expect(bruno.locator(f'#open-tables li[data-table="{table}"]')).to_be_visible()
        expect(bruno.locator("#open-tables li .seats")).to_have_text("Seats taken: 1 of 4")
        assert _quick(bruno, lobby_server, "Bruno") == table
        expect(ana.locator("#lobby-seats li").nth(1)).to_have_text("Bruno")
        expect(bruno.locator("#lobby-seats li").nth(0)).to_have_text("Ana")
        assert errors_a == errors_b == []
    finally:
        first.close()
        second.close()


def _timed_table(server: LiveServer) -> tuple[str, str, str]:
    """A table of Ana and Bruno with a 5-second clock, one round: its id and both seat tokens."""
    with httpx.Client(base_url=server.url, timeout=30) as http:
        made = http.post("/api/tables", json={"name": "Ana", "seats": 2, "language": "en",
                                              "options": {"clock": CLOCK, "rounds": 1}}).json()
        bruno = http.post(f"/api/tables/{made['table_id']}/join", json={"name": "Bruno"}).json()
    return made["table_id"], made["token"], bruno["token"]


def _seated(browser: Browser, server: LiveServer, table: str, token: str) -> tuple[BrowserContext, Page, list[str]]:
    context, page, errors = _page(browser, **SMALL_PHONE)
    page.goto(f"{server.url}/t/{table}?lang=en#seat={token}")
    return context, page, errors


def test_a_short_clock_at_zero_plays_nothing_for_a_present_person_who_then_plays_his_own_card(
        browser: Browser, lobby_server: LiveServer) -> None:
    table, ana_token, bruno_token = _timed_table(lobby_server)
    (first, ana, errors_a), (second, bruno, errors_b) = (_seated(browser, lobby_server, table, ana_token),
                                                         _seated(browser, lobby_server, table, bruno_token))
    try:
        ana.locator("#start").click()
        seen = next_decision(ana)
        next_decision(bruno)
        # Both clocks are shown; Ana plays, Bruno waits and watches his clock run down.
        expect(bruno.locator("#clock")).to_be_visible()
        expect(bruno.locator("#clock")).to_have_class(re.compile(r"\bmine\b"))
        assert re.fullmatch(r"[1-5] s", bruno.locator("#clock").inner_text())
        play_card(ana, seen["cards"][0])
        expect(ana.locator("#clock")).to_contain_text("s")  # now Bruno's clock, seen from Ana's side
        # At zero nothing is played for him (he is here): both screens say his time is up, no bot's
        # chip is on his seat, and his cards are still his to play.
        expect(ana.locator("#absent")).to_contain_text("Bruno's time is up.", timeout=WAIT_MS)
        expect(bruno.locator("#absent")).to_contain_text("Your time is up. The game waits for you")
        expect(ana.get_by_role("button", name="Let a bot play for Bruno")).to_be_visible()  # Ana may hand his seat over
        mine = next_decision(bruno)
        assert mine["cards"], mine
        expect(bruno.locator('#strip li[data-seat="1"] .tag')).to_have_count(0)
        play_card(bruno, mine["cards"][0])
        # His own card went in: the turn moves on, and the note of his time is gone.
        expect(ana.locator("#absent")).not_to_contain_text("Bruno's time is up.", timeout=WAIT_MS)
        assert errors_a == errors_b == []
    finally:
        first.close()
        second.close()


def test_a_reaction_shows_on_the_other_browser_unless_muted(browser: Browser, lobby_server: LiveServer) -> None:
    with httpx.Client(base_url=lobby_server.url, timeout=30) as http:
        made = http.post("/api/tables", json={"name": "Ana", "seats": 2, "language": "en",
                                              "options": {"rounds": 1}}).json()
        bruno_token = http.post(f"/api/tables/{made['table_id']}/join", json={"name": "Bruno"}).json()["token"]
    table = made["table_id"]
    (first, ana, errors_a), (second, bruno, errors_b) = (_seated(browser, lobby_server, table, made["token"]),
                                                         _seated(browser, lobby_server, table, bruno_token))
    try:
        ana.locator("#start").click()
        next_decision(ana)
        next_decision(bruno)
        ana.locator("#react-menu summary").click()
        ana.get_by_role("button", name="Laughing").click()
        bubble = bruno.locator('.reaction-bubble[data-seat="0"][data-reaction="laugh"]')
        expect(bubble).to_have_count(1)
        chip, shown = bruno.locator('#strip li[data-seat="0"]').bounding_box(), bubble.bounding_box()
        assert chip and shown and chip["x"] <= shown["x"] + shown["width"] / 2 <= chip["x"] + chip["width"]
        expect(bubble).to_have_count(0, timeout=WAIT_MS)  # it goes after a moment
        # Bruno mutes Ana: her next reaction does not show on his screen (and is remembered).
        bruno.locator("#react-menu summary").click()
        bruno.get_by_label("Mute Ana").check()
        bruno.locator("#status").click()
        ana.locator("#react-menu summary").click()
        ana.get_by_role("button", name="Applause").click()
        expect(ana.locator('.reaction-bubble[data-reaction="clap"]')).to_have_count(1)  # her own screen shows it
        bruno.wait_for_timeout(1500)
        expect(bruno.locator(".reaction-bubble")).to_have_count(0)
        bruno.reload()
        next_decision(bruno)
        bruno.locator("#react-menu summary").click()
        expect(bruno.get_by_label("Mute Ana")).to_be_checked()
        assert errors_a == errors_b == []
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("lang", ["pt-BR", "fr"])
def test_the_lobby_on_a_small_phone(browser: Browser, lobby_server: LiveServer, screenshots: Path, lang: str) -> None:
    with httpx.Client(base_url=lobby_server.url, timeout=30) as http:
        for language, clock in ((lang, 20), (lang, 86400), ("de", 60)):
            http.post("/api/tables", json={"name": "Ana", "seats": 5, "language": language,
                                           "options": {"public": True, "clock": clock}})
    context, page, errors = _page(browser, **SMALL_PHONE)
    try:
        page.goto(f"{lobby_server.url}/lobby?lang={lang}")
        # Only the turn-based table is listed (nobody sits at the others yet): in this language.
        expect(page.locator("#open-tables li")).to_have_count(1)
        page.locator("#open-language").select_option("")
        expect(page.locator("#open-tables li")).to_have_count(1)  # the German one is not turn-based either
        page.locator("#open-language").select_option(lang)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"sideways scroll: {width}px"
        for locator in (page.locator("#lobby-name"), page.locator("#quick-button"), page.locator("#open-tables li")):
            box = locator.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, box
        page.screenshot(path=str(screenshots / f"lobby-phone-{lang}.png"), full_page=True)
        # No text cut, the header's language included, on the phones' three screens (pt-PT with pt-BR).
        problems: list[str] = []
        for shown in (lang, "pt-PT") if lang == "pt-BR" else (lang,):
            page.goto(f"{lobby_server.url}/lobby?lang={shown}")
            expect(page.locator("#open-status")).not_to_be_empty()
            for width, height in PHONE_SCREENS:
                page.set_viewport_size({"width": width, "height": height})
                _cut(page, f"lobby {shown} {width}x{height}", problems)
        assert problems == []
        assert errors == []
    finally:
        context.close()
