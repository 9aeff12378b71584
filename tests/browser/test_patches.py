"""The web client's side of patches (docs/protocol.md, *Patches*): its merge agrees with the server's,
and a table page asks for patches, applies them, and shows what a whole state shows."""

from __future__ import annotations

import json
from typing import Any

import httpx
from playwright.sync_api import Browser, Page, WebSocket, expect

from nimmt.core import BULLHEADS
from nimmt.server.patch import state_patch
from tests.browser.helpers import act, decision, next_decision
from tests.server.live import LiveServer
from tests.server.test_patches import CASES

# A JavaScript number is a number: 1 and 1.0 are one value there, so that case is the server's alone.
_CASES = [(old, new) for old, new in CASES if "1.0" not in json.dumps([old, new])]

_MERGE = """async (cases) => {
  const { mergePatch } = await import('/static/js/patch.js');
  return cases.map(([old, patch]) => {
    const before = JSON.stringify(old);
    const merged = mergePatch(old, patch);
    return { merged, untouched: JSON.stringify(old) === before };
  });
}"""


def test_the_pages_merge_turns_each_old_state_into_the_new_one(browser: Browser, server: LiveServer) -> None:
    page = browser.new_page()
    try:
        page.goto(f"{server.url}/?lang=en")
        results = page.evaluate(_MERGE, [[old, state_patch(old, new)] for old, new in _CASES])
        for (_old, new), result in zip(_CASES, results, strict=True):
            assert json.dumps(result["merged"], sort_keys=True) == json.dumps(new, sort_keys=True)
            assert result["untouched"]
    finally:
        page.close()


# Each card on the table and in the hand, with the bullheads its face shows (drawn from the state's).
_HEADS = r"""() => [...document.querySelectorAll('#hand .card[data-card], #rows .card[data-card]')].map(
  (card) => [Number(card.dataset.card), Number((card.className.match(/heads-bg-(\d+)/) || [])[1])])"""


def _shows_printed_bullheads(page: Page) -> None:
    """Every card shows its printed bullheads: the server sent them once, with the first state."""
    shown = page.evaluate(_HEADS)
    assert shown and all(heads == BULLHEADS[card] for card, heads in shown), shown


def test_a_table_page_plays_on_patches_and_shows_what_a_whole_state_shows(browser: Browser,
                                                                            server: LiveServer) -> None:
    created = httpx.post(f"{server.url}/api/tables", json={
        "name": "Ana", "seats": 3, "bots": ["random", "random"], "options": {"rounds": 1}, "start": True}).json()
    page = browser.new_page()
    sent: list[dict[str, Any]] = []
    kinds: list[str] = []

    def watch(socket: WebSocket) -> None:
        socket.on("framesent", lambda payload: sent.append(json.loads(payload)))
        socket.on("framereceived", lambda payload: kinds.append(json.loads(payload)["type"]))

    page.on("websocket", watch)
    try:
        page.goto(f"{server.url}/t/{created['table_id']}?lang=en#seat={created['token']}")
        for _ in range(4):  # four cards or rows, each taken (act waits for the page to show it)
            next_decision(page)
            assert act(page) in ("card", "row")
        next_decision(page)
        assert sent[0]["type"] == "hello" and sent[0]["patches"] is True
        assert kinds[0] == "state" and kinds.count("patch") >= 4 and kinds.count("state") == 1
        _shows_printed_bullheads(page)
        shown = {k: v for k, v in decision(page).items() if k != "version"}  # a bot may choose meanwhile
        hand = page.locator("#hand button.card").evaluate_all("els => els.map(e => Number(e.dataset.card))")
        rows = page.locator("#rows").inner_text()
        # Reloaded, the page starts again from a whole state: it shows the same table.
        page.reload()
        expect(page.locator("#hand button.card")).to_have_count(len(hand))
        # (its hand takes presses once it has been on screen a moment: next_decision waits for that)
        assert {k: v for k, v in next_decision(page).items() if k != "version"} == shown
        assert page.locator("#hand button.card").evaluate_all("els => els.map(e => Number(e.dataset.card))") == hand
        assert page.locator("#rows").inner_text() == rows
        assert kinds.count("state") == 2
        _shows_printed_bullheads(page)
    finally:
        page.close()
