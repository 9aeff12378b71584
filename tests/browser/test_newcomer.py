"""The everyday path, as a new person takes it on a phone (issue 26, items 1 to 3): a newcomer
presses Play now, plays one whole game against bots and finds it under My games with no other
step; a French guest opens the invite link of a Brazilian table, plays, and every page they open
afterwards is French (the table too); on an address where passkeys cannot work the page says why
and offers the one-time code. Browsers whose language is pt-BR or fr, at 360x640 and 390x844."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from nimmt.i18n import catalog
from tests.browser.helpers import act, next_decision
from tests.server.live import LiveServer

SMALL = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
TALL = {**SMALL, "viewport": {"width": 390, "height": 844}}
CASES = [("pt-BR", SMALL), ("fr", TALL)]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with LiveServer(tmp_path_factory.mktemp("newcomer") / "nimmt.sqlite3", bot_delay=0, seed=26) as server:
        yield server


def phone(browser: Browser, language: str, size: dict[str, Any]) -> BrowserContext:
    """A phone whose browser speaks ``language`` (its Accept-Language and navigator.languages)."""
    return browser.new_context(**size, locale=language)


def lang_of(page: Page) -> str:
    shown: str = page.evaluate("() => document.documentElement.lang")
    return shown


def play_to_the_end(page: Page, seconds: float = 600) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        seen = next_decision(page)
        if seen["over"]:
            return
        act(page, seen)
    raise AssertionError("the game did not end")


def overflow(page: Page) -> int:
    width: int = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    return width


@pytest.mark.parametrize(("language", "size"), CASES, ids=["pt-BR-360x640", "fr-390x844"])
def test_a_newcomer_plays_from_play_now_and_finds_the_game_in_my_games(
        browser: Browser, live: LiveServer, screenshots: Path, language: str, size: dict[str, Any]) -> None:
    texts = {**catalog(language, "web"), **catalog(language, "people")}
    context = phone(browser, language, size)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{live.url}/")
        assert lang_of(page) == language  # the browser's language, no link needed
        assert page.evaluate("() => localStorage.getItem('nimmt:player')") is None
        page.fill("#create-name", "Joana")
        page.select_option("#play-strength", "random")
        page.locator("#play-now-button").click()
        page.wait_for_url(re.compile(r"/t/[\w-]+$"))
        # The first step gave this browser a player, named as typed.
        key = page.evaluate("() => localStorage.getItem('nimmt:player')")
        assert key and key.startswith("nk1_")
        me = httpx.get(f"{live.url}/api/me", headers={"X-Player-Key": key}).json()
        assert me["player"]["name"] == "Joana" and me["player"]["language"] is None
        play_to_the_end(page)
        # The last screen says the game is kept, with the way there.
        kept = page.locator("#my-games")
        expect(kept).to_be_visible()
        expect(kept).to_have_text(texts["ended_my_games"])
        assert lang_of(page) == language and overflow(page) <= 0
        width = size["viewport"]["width"]
        page.screenshot(path=str(screenshots / f"newcomer-standings-{language}-{width}.png"))
        kept.click()
        page.wait_for_url(re.compile(r"/me$"))
        expect(page.locator("#games-list li")).to_have_count(1)
        expect(page.locator("#games-list li .game-links a").first).to_have_text(texts["game_replay"])
        expect(page.locator("#start")).to_be_hidden()  # no "remember me" step was ever needed
        expect(page.locator("#name-input")).to_have_value("Joana")
        assert lang_of(page) == language and overflow(page) <= 0
        page.screenshot(path=str(screenshots / f"newcomer-my-games-{language}-{width}.png"), full_page=True)
        assert errors == []
    finally:
        context.close()


class Host(threading.Thread):
    """The table's host on another device, over the WebSocket protocol: starts the game, then plays
    the lowest card and takes the first row whenever asked, until the game is over."""

    def __init__(self, server: LiveServer, table_id: str, token: str) -> None:
        super().__init__(daemon=True)
        self.opened = contextlib.ExitStack()
        self.socket = self.opened.enter_context(connect(f"{server.ws_url}/ws/{table_id}"))
        self.socket.send(json.dumps({"type": "hello", "token": token}))
        self.refs = 0
        self.started = False

    def run(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            for raw in self.socket:
                message = json.loads(raw)
                if message.get("type") != "state":
                    continue
                table = message["table"]
                if table["status"] == "over":
                    return
                if table["status"] == "lobby":
                    if all(seat["taken"] for seat in table["seats"]) and not self.started:
                        self.started = True
                        self.socket.send(json.dumps({"type": "start"}))
                    continue
                legal = message.get("legal") or []
                if not legal or (message.get("view") or {}).get("my_card") is not None:
                    continue
                self.refs += 1
                answer = min(legal, key=lambda a: a.get("card", a.get("row", 0)))
                action = {"type": "play", "card": answer["card"]} if "card" in answer else {
                    "type": "choose_row", "row": answer["row"]}
                self.socket.send(json.dumps({**action, "version": message["version"], "ref": str(self.refs)}))

    def close(self) -> None:
        self.opened.close()


@pytest.mark.parametrize("size", [SMALL, TALL], ids=["360x640", "390x844"])
def test_a_french_guest_at_a_brazilian_table_reads_everything_in_french(
        browser: Browser, live: LiveServer, screenshots: Path, size: dict[str, Any]) -> None:
    fr = {**catalog("fr", "web"), **catalog("fr", "table"), **catalog("fr", "people")}
    created = httpx.post(f"{live.url}/api/tables", json={
        "name": "Bruna", "seats": 3, "bots": ["random"], "options": {"rounds": 1}, "language": "pt-BR"}).json()
    table_id = created["table_id"]
    assert "lang=" not in created["invite_url"]
    host = Host(live, table_id, created["token"])
    host.start()
    context = phone(browser, "fr", size)
    errors: list[str] = []
    width = size["viewport"]["width"]
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.add_init_script("localStorage.setItem('nimmt:speed', 'fast');")
        # An older invite link that still names the table's language: that page alone is Portuguese.
        page.goto(f"{created['invite_url']}?lang=pt-BR")
        assert lang_of(page) == "pt-BR"
        page.goto(created["invite_url"])
        assert lang_of(page) == "fr"  # the table's page in the guest's own language
        expect(page.locator("#join-form button[type=submit]")).to_be_visible()
        page.fill("#join-name", "Léa")
        page.locator("#join-form button[type=submit]").click()
        # Léa's first step gave her a player: the game will be hers.
        expect(page.locator("#join")).to_be_hidden()
        key = page.evaluate("() => localStorage.getItem('nimmt:player')")
        assert key and key.startswith("nk1_")
        page.screenshot(path=str(screenshots / f"newcomer-guest-table-fr-{width}.png"))
        play_to_the_end(page, 300)
        expect(page.locator("#over")).to_be_visible()
        assert lang_of(page) == "fr"
        expect(page.locator("#over-heading")).to_have_text(fr["standings_heading"])
        page.screenshot(path=str(screenshots / f"newcomer-guest-standings-fr-{width}.png"))
        # Every page she opens afterwards, by the site's own links, is French.
        page.locator("#my-games").click()
        page.wait_for_url(re.compile(r"/me$"))
        assert lang_of(page) == "fr"
        expect(page.locator("#games-list li")).to_have_count(1)
        page.locator("#games-list li .game-links a").first.click()
        page.wait_for_url(re.compile(r"/replay/"))
        assert lang_of(page) == "fr"
        for path in ("/", "/lobby", "/rules", "/score", "/replay", "/me", f"/t/{table_id}", f"/watch/{table_id}"):
            page.goto(f"{live.url}{path}")
            assert lang_of(page) == "fr", path
        assert all(cookie["name"] != "nimmt_language" for cookie in context.cookies())  # no link kept a language
        assert overflow(page) <= 0
        assert errors == []
    finally:
        context.close()
        host.close()


def test_passkeys_where_they_cannot_work_say_why_and_offer_the_code(browser: Browser, live: LiveServer,
                                                                   screenshots: Path) -> None:
    """The pages are opened at 127.0.0.1, an IP address: WebAuthn takes no passkey there."""
    fr = catalog("fr", "people")
    context = phone(browser, "fr", SMALL)
    try:
        page = context.new_page()
        page.goto(f"{live.url}/me")
        expect(page.locator("#passkey-sign-in")).to_be_hidden()
        why = page.locator("#passkey-why-start")
        expect(why).to_be_visible()
        expect(why).to_have_text(fr["passkey_why_ip"].replace("{host}", "127.0.0.1"))
        expect(page.locator("#code-form")).to_be_visible()  # the one-time code, right there
        page.fill("#start-name", "Léa")
        page.locator("#start-form button[type=submit]").click()
        expect(page.locator("#passkey-why")).to_be_visible()
        expect(page.locator("#passkey-add")).to_be_hidden()
        # The link for another device is made of a loopback address: the page says phones cannot open it.
        page.locator("#link-make").click()
        warning = page.locator("#link-show [data-share-warning]")
        expect(warning).to_be_visible()
        expect(warning).to_contain_text("--host 0.0.0.0")
        # So does the table's invite, in its lobby.
        created = httpx.post(f"{live.url}/api/tables", json={"name": "Léa", "seats": 4, "language": "pt-BR"}).json()
        page.goto(f"{live.url}/t/{created['table_id']}#seat={created['token']}")
        expect(page.locator("#invite-link")).to_have_value(f"{live.url}/t/{created['table_id']}")
        warning = page.locator("#invite [data-share-warning]")
        expect(warning).to_be_visible()
        expect(warning).to_contain_text(live.url)
        page.screenshot(path=str(screenshots / "newcomer-lobby-warning-fr-360.png"), full_page=True)
    finally:
        context.close()


def test_the_language_a_person_chooses_follows_them_to_their_other_devices(browser: Browser, live: LiveServer) -> None:
    first = phone(browser, "en", SMALL)
    second = phone(browser, "fr", TALL)
    third = phone(browser, "de", SMALL)
    try:
        page = first.new_page()
        page.goto(f"{live.url}/me")
        assert lang_of(page) == "en"
        page.fill("#start-name", "Ana")
        page.locator("#start-form button[type=submit]").click()
        expect(page.locator("#games")).to_be_visible()
        key = page.evaluate("() => localStorage.getItem('nimmt:player')")
        # The menu: the page turns Brazilian, and the choice is kept with Ana's player.
        page.select_option("#lang-select", "pt-BR")
        page.locator("form.lang button").click()
        expect(page.locator("html")).to_have_attribute("lang", "pt-BR")
        assert httpx.get(f"{live.url}/api/me", headers={"X-Player-Key": key}).json()["player"]["language"] == "pt-BR"
        # A French phone joins Ana's player by a one-time code: from then on it reads Portuguese.
        code = httpx.post(f"{live.url}/api/me/link", headers={"X-Player-Key": key}).json()["code"]
        other = second.new_page()
        other.goto(f"{live.url}/link/{code}")
        assert lang_of(other) == "fr"  # before it is Ana's
        other.locator("#code-form button[type=submit]").click()
        expect(other.locator("#games")).to_be_visible()
        other.goto(f"{live.url}/")
        assert lang_of(other) == "pt-BR"
        # A device that held Ana's key before she chose (no choice of its own) follows at its next visit.
        third.add_init_script(f"localStorage.setItem('nimmt:player', {json.dumps(key)});")
        late = third.new_page()
        late.goto(f"{live.url}/rules")
        expect(late.locator("html")).to_have_attribute("lang", "pt-BR")
        late.goto(f"{live.url}/score")
        assert lang_of(late) == "pt-BR"
    finally:
        for context in (first, second, third):
            context.close()
