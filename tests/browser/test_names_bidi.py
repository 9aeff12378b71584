"""Names that could turn a line backwards, on every page in Chromium: a right-to-left override
(U+202E) in a name, and a name written right to left followed by a number. Whatever the name, the
text after it on its line is drawn after it and reads left to right (UAX #9: every name isolated).

The pages get such names the ways they can: the replay page from a record file, the score sheet
from what the browser kept, the table and the watch page from the server's messages (a name stored
before the server refused direction controls: the messages are changed on their way in)."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, WebSocketRoute, expect

from nimmt.bots import make_bot
from nimmt.core import Rules
from nimmt.match import play_game
from tests.server.live import LiveServer

RLO = "\u202e"
ARABIC = "محمد"

# Where the text ``after`` (following ``before`` in the same text node) is drawn: the right edge of
# ``before``'s letters, and the left edge of each letter of ``after`` (spaces left out).
_PLACES = """([selector, before, after]) => {
  for (const owner of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(owner, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      const start = node.textContent.indexOf(before);
      const at = node.textContent.indexOf(after, start + before.length);
      if (start < 0 || at < 0) continue;
      const box = (i) => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1);
        return r.getBoundingClientRect(); };
      const right = Math.max(...[...before].map((_, i) => box(start + i).right));
      const lefts = [...after].map((ch, i) => [ch, box(at + i).left]).filter(([ch]) => ch !== " ").map(([, x]) => x);
      return { right, lefts, text: node.textContent };
    }
  }
  return null;
}"""


def reads_on(page: Page, selector: str, before: str, after: str) -> None:
    """``after`` is drawn right of ``before`` and reads left to right."""
    places: dict[str, Any] | None = page.evaluate(_PLACES, [selector, before, after])
    assert places is not None, f"no text with {before!r} then {after!r} in {selector}"
    lefts = places["lefts"]
    assert lefts[0] >= places["right"] - 0.5, f"{after!r} is drawn before {before!r}: {places}"
    assert lefts == sorted(lefts), f"{after!r} reads backwards: {places}"


def no_override_drawn(page: Page) -> None:
    text = page.evaluate("() => document.body.innerText")
    assert RLO not in text


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    opened = browser.new_context(viewport={"width": 1100, "height": 850})
    yield opened
    opened.close()


def test_replay_page(context: BrowserContext, server: LiveServer) -> None:
    bots = [make_bot("random", random.Random(seed)) for seed in range(3)]
    record = play_game(bots, random.Random(9), Rules(rounds=1)).to_json()
    record["players"] = [f"{RLO}Ana", f"{ARABIC} 2", "Bruno"]
    page = context.new_page()
    page.goto(f"{server.url}/replay?lang=en")
    page.locator("#replay-file").set_input_files(files=[{
        "name": "game.json", "mimeType": "application/json",
        "buffer": json.dumps(record, ensure_ascii=False).encode("utf-8")}])
    page.locator("#replay-upload button[type=submit]").click()
    expect(page.locator("#replay-cards li")).to_have_count(3)
    for name in ("Ana", ARABIC):
        # "Ana: 34 goes on row 2" (or "... is the sixth card of row 2, takes ..."): the card's number
        # and the words come after the name, in order.
        reads_on(page, "#replay-cards li", name, ": ")
        reads_on(page, "#replay-cards li", name, "row")
    no_override_drawn(page)


def test_score_page(context: BrowserContext, server: LiveServer) -> None:
    page = context.new_page()
    refused = httpx.post(f"{server.url}/api/scoresheet", json={"players": [f"{RLO}Ana", "Bruno"]})
    assert refused.status_code == 422  # new names cannot hold one: a sheet kept from before can
    sheet = httpx.post(f"{server.url}/api/scoresheet", json={"players": ["Ana", "Bruno"]}).json()
    sheet = httpx.post(f"{server.url}/api/scoresheet/round", json={"sheet": sheet, "penalties": [2, 70]}).json()
    assert sheet["finished"] and sheet["winners"] == [0]
    for name in (f"{RLO}Ana", f"{ARABIC} 2"):
        kept = {**sheet, "players": [name, "Bruno"]}
        page.goto(f"{server.url}/score?lang=en")
        page.evaluate("(sheet) => localStorage.setItem('nimmt:scoresheet', sheet)", json.dumps(kept))
        page.reload()
        expect(page.locator("#sheet-status")).to_contain_text("wins!")
        shown = name.replace(RLO, "")
        reads_on(page, "#sheet-status", shown, "wins! (2 bullheads)")
        no_override_drawn(page)


def _names_changed(names: dict[str, str]) -> Any:
    """A WebSocket route that changes names in what the server sends (as if they had been stored so)."""
    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            if isinstance(message, str):
                for old, new in names.items():
                    message = message.replace(json.dumps(old), json.dumps(new))
            ws.send(message)

        server.on_message(from_server)
    return route


def test_table_and_watch_pages(context: BrowserContext, server: LiveServer) -> None:
    created = httpx.post(f"{server.url}/api/tables", json={
        "name": "Ana", "seats": 3, "options": {"rounds": 1}}).json()
    table_id, token = created["table_id"], created["token"]
    joined = httpx.post(f"{server.url}/api/tables/{table_id}/join", json={"name": "Bruno"})
    assert joined.status_code == 201, joined.text
    stored = httpx.post(f"{server.url}/api/tables/{table_id}/join", json={"name": f"Carla{RLO}"})
    assert stored.status_code in (201, 422)  # the server may refuse it now; the route below brings it anyway
    renamed = {"Ana": f"{RLO}Ana", "Bruno": f"{ARABIC} 2"}
    page = context.new_page()
    page.route_web_socket(re.compile(r".*/ws/.*"), _names_changed(renamed))
    page.goto(f"{server.url}/t/{table_id}?lang=en#seat={token}")
    expect(page.locator("#lobby-seats")).to_contain_text("(you)")
    reads_on(page, "#lobby-seats", "Ana", "(you)")
    no_override_drawn(page)
    watch = context.new_page()
    watch.route_web_socket(re.compile(r".*/ws/.*"), _names_changed(renamed))
    watch.goto(f"{server.url}/watch/{table_id}?lang=en")
    expect(watch.locator("#lobby-seats, #players").first).to_contain_text(ARABIC)
    no_override_drawn(watch)
    page.close()  # Ana leaves: the watchers are told, in a line that names her
    expect(watch.locator("body")).to_contain_text("Ana")
    no_override_drawn(watch)
    assert watch.evaluate(f"() => document.body.innerText.includes('\\u2068{ARABIC} 2\\u2069')")
