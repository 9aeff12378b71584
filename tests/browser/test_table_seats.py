"""Issue 18 in a real Chromium on a real ``nimmt serve``. On a small phone in Brazilian Portuguese, in one
page: the host seats a bot in the lobby and takes it off again, Start fills the free seats with bots of
the chosen level (named in the table's language), a card taken back before the reveal goes back to the
hand and another is played, and the take-back is gone once the cards are turned over. In French at
390×844: the host asks for a rematch at the end, the other person's standings say so and who starts
it, and they join the ask."""

from __future__ import annotations

import contextlib
import json
import threading
from typing import Any

import httpx
from playwright.sync_api import Browser, Page, expect
from websockets.sync.client import connect

from tests.browser.helpers import WAIT_MS, act, next_decision, play_card
from tests.server.live import LiveServer

SMALL_PHONE: dict[str, Any] = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True,
                               "device_scale_factor": 2}
# Nothing wider than the screen, and no text cut in the hand's line.
_FITS = """() => document.scrollingElement.scrollWidth <= window.innerWidth
  && [...document.querySelectorAll('#hand-help, #lobby-seats .seat-name, #start-fill, #add-bot')]
      .every((node) => node.offsetParent === null || (node.scrollWidth <= node.clientWidth + 1
        && node.scrollHeight <= node.clientHeight + 1))"""


def _bruno_plays(server: LiveServer, table_id: str, token: str) -> None:
    """Bruno, on another device, plays his lowest card (the turn is then revealed)."""
    with connect(server.url.replace("http", "ws", 1) + f"/ws/{table_id}", open_timeout=WAIT_MS / 1000) as socket:
        socket.send(json.dumps({"type": "hello", "token": token}))
        while True:
            message = json.loads(socket.recv(timeout=WAIT_MS / 1000))
            cards = [answer["card"] for answer in message.get("legal") or [] if "card" in answer]
            if message["type"] == "state" and cards:
                socket.send(json.dumps({"type": "play", "card": min(cards), "version": message["version"]}))
            elif message["type"] == "ack":
                return
            elif message["type"] == "error":
                raise AssertionError(f"Bruno's card was refused: {message}")


def _fits(page: Page) -> None:
    page.wait_for_function(_FITS, timeout=WAIT_MS)


def test_lobby_bots_start_filling_and_a_card_taken_back(browser: Browser, server: LiveServer) -> None:
    made = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 4, "language": "pt-BR",
                                                        "options": {"rounds": 1}}).json()
    table_id = made["table_id"]
    bruno = httpx.post(f"{server.url}/api/tables/{table_id}/join", json={"name": "Bruno"}).json()
    context = browser.new_context(**SMALL_PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{server.url}/t/{table_id}?lang=pt-BR#seat={made['token']}")
        seats = page.locator("#lobby-seats li")
        expect(seats).to_have_count(4)
        expect(page.locator("#start")).to_be_hidden()  # two seats are free: Start fills them, or wait
        expect(page.locator("#start-fill")).to_be_visible()
        page.locator("#lobby-bot").select_option("expert")
        page.locator("#add-bot").click()
        expect(seats.nth(2)).to_contain_text("Robô 3")
        _fits(page)
        seats.nth(2).locator(".remove-bot").click()
        expect(seats.nth(2).locator(".remove-bot")).to_have_count(0)
        expect(seats.nth(2)).not_to_contain_text("Robô")
        page.locator("#lobby-bot").select_option("random")
        page.locator("#start-fill").click()
        expect(page.locator("body")).to_have_attribute("data-status", "playing")
        info = httpx.get(f"{server.url}/api/tables/{table_id}").json()
        assert [(s["name"], s["bot"]) for s in info["seats"]][2:] == [("Robô 3", "random"), ("Robô 4", "random")]
        # Ana's card, face down while Bruno still chooses: she takes it back and plays another.
        seen = next_decision(page)
        first, second = seen["cards"][0], seen["cards"][-1]
        play_card(page, first)
        expect(page.locator("#take-back")).to_be_visible()
        _fits(page)
        page.locator("#take-back").click()
        expect(page.locator("#take-back")).to_be_hidden()
        expect(page.locator(f'#hand button.card[data-card="{first}"]')).to_be_enabled()
        expect(page.locator('#hand button.card[aria-pressed="true"]')).to_have_count(0)
        play_card(page, second)
        expect(page.locator("#take-back")).to_be_visible()
        _bruno_plays(server, table_id, bruno["token"])
        expect(page.locator("#take-back")).to_be_hidden()  # the cards are turned over: too late
        record = httpx.get(f"{server.url}/api/tables/{table_id}").json()
        assert record["version"] > info["version"]
        assert errors == []
    finally:
        context.close()


class _Host(threading.Thread):
    """Ana on another device: starts the table, plays her lowest card (or the first row) at each of her
    decisions, and asks for a rematch once the game is over."""

    def __init__(self, server: LiveServer, table_id: str, token: str) -> None:
        super().__init__(daemon=True)
        self.opened = contextlib.ExitStack()  # websockets wants its connection used as a context manager
        self.socket = self.opened.enter_context(
            connect(server.url.replace("http", "ws", 1) + f"/ws/{table_id}", open_timeout=WAIT_MS / 1000))
        self.socket.send(json.dumps({"type": "hello", "token": token}))
        self.failure: str | None = None

    def run(self) -> None:
        acted, started = 0, False
        try:
            while True:
                message = json.loads(self.socket.recv(timeout=2 * WAIT_MS / 1000))
                if message["type"] == "error" and message["code"] not in ("already_chosen", "stale"):
                    self.failure = str(message)
                if message["type"] != "state":
                    continue
                table, legal = message["table"], message.get("legal") or []
                if table["status"] == "lobby" and all(seat["taken"] for seat in table["seats"]) and not started:
                    started = True
                    self.socket.send(json.dumps({"type": "start"}))
                elif table["status"] == "over":
                    self.socket.send(json.dumps({"type": "ask_rematch"}))
                    return
                elif legal and message["version"] > acted:
                    acted = message["version"]
                    answer = min(legal, key=lambda a: a.get("card", a.get("row", 0)))
                    self.socket.send(json.dumps({**answer, "type": "play" if "card" in answer else "choose_row",
                                                 "version": message["version"]}))
        except Exception as error:  # the test reads it: a thread's exception would be lost
            self.failure = repr(error)

    def close(self) -> None:
        self.opened.close()


def test_the_rematch_asked_for_is_shown_to_the_others_who_can_join_it(browser: Browser, server: LiveServer) -> None:
    made = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 2, "language": "fr",
                                                        "options": {"rounds": 1}}).json()
    table_id = made["table_id"]
    bruno = httpx.post(f"{server.url}/api/tables/{table_id}/join", json={"name": "Bruno"}).json()
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    host = _Host(server, table_id, made["token"])
    try:
        page.add_init_script("localStorage.setItem('nimmt:speed', 'fast');")
        page.goto(f"{server.url}/t/{table_id}?lang=fr#seat={bruno['token']}")
        host.start()
        while not (seen := next_decision(page))["over"]:
            act(page, seen)
        note = page.locator("#rematch-note")
        expect(note).to_have_text("Ana veut une revanche. Ana peut la lancer.")
        expect(page.locator("#rematch")).to_be_hidden()  # only the host starts it
        page.locator("#ask-rematch").click()
        expect(note).to_have_text("Ana et Bruno (vous) veulent une revanche. Ana peut la lancer.")
        expect(page.locator("#ask-rematch")).to_be_hidden()
        _fits(page)
        assert host.failure is None, host.failure
        assert errors == []
    finally:
        host.close()
        context.close()
