"""Acting at a web table the way a person does, and knowing for sure when the table took it.

Other actors change the page at any moment (the bots' cards, other people, arrivals), so a test
never acts on what it read a while ago, and never takes "the version moved" as proof that its own
action went through: after each card or row it waits for the page to show that very action (or
the table's refusal of it).
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any, Literal, TypedDict

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

# Generous for a loaded 2-core machine: each wait below ends as soon as its state is reached.
WAIT_MS = 30_000


def advice_messages(page: Page, way: Literal["framesent", "framereceived"]) -> list[dict[str, Any]]:
    """Every advice message on the page's WebSocket, in order: the questions it sends the coach
    (``framesent``) or the answers it receives (``framereceived``)."""
    messages: list[dict[str, Any]] = []

    def keep(payload: str | bytes) -> None:
        message = json.loads(payload)
        if message.get("type") == "advice":
            messages.append(message)

    page.on("websocket", lambda socket: socket.on(way, keep))
    return messages


class Decision(TypedDict):
    version: int  # of the state the page shows
    rows: list[int]  # rows this person may take now (a row choice), else []
    cards: list[int]  # cards this person may play now, lowest first, else []
    over: bool


# Read in one go, so the version, the rows and the cards are those of one and the same state.
_DECISION = """() => ({
  version: Number(document.body.dataset.version || 0),
  rows: [...document.querySelectorAll('#rows button.row-button:not([disabled])')].map((b) => Number(b.dataset.row)),
  cards: [...document.querySelectorAll('#hand button.card:not([disabled])')].map((b) => Number(b.dataset.card)),
  over: !document.getElementById('over').hidden,
})"""

_HAS_DECISION = """() => !document.getElementById('over').hidden
  || !!document.querySelector('#rows button.row-button:not([disabled]), #hand button.card:not([disabled])')"""

# A decision, or a reveal that can be skipped (a person taps it to play on at once).
_DECISION_OR_REVEAL = """() => !document.getElementById('over').hidden
  || !!document.querySelector('#rows button.row-button:not([disabled]), #hand button.card:not([disabled])')
  || !document.getElementById('stage').hidden && !document.getElementById('skip').hidden"""

# The card is shown as this person's choice, or it has left the hand (the turn was revealed).
_CARD_TAKEN = """(card) => {
  const button = document.querySelector(`#hand button.card[data-card="${card}"]`);
  return !button || button.getAttribute('aria-pressed') === 'true' || !!document.getElementById('error').textContent;
}"""

# While a row choice is shown, the table waits for this person alone: a later version is theirs.
_ROW_TAKEN = """(version) => Number(document.body.dataset.version) > version
  || !!document.getElementById('error').textContent"""


# The reveal is placed card by card, each text fading in: until it is still, colours are in between.
# A reveal stands still only while it waits for a row choice (its skip button is hidden then).
_STILL = """() => !document.querySelector('#reveal .pending') && document.getAnimations().length === 0
  && (!document.getElementById('stage') || document.getElementById('stage').hidden
      || document.getElementById('skip').hidden)"""


def still(page: Page) -> None:
    """Wait until the page has stopped moving (no card left to place, no fade running)."""
    page.wait_for_function(_STILL, timeout=WAIT_MS)


def decision(page: Page) -> Decision:
    seen: Decision = page.evaluate(_DECISION)
    return seen


def next_decision(page: Page, timeout: float = WAIT_MS, *, skip: bool = True) -> Decision:
    """Wait until the table asks something of this person (or the game is over). A reveal playing
    meanwhile is skipped as a person in a hurry would, with a tap (``skip=False``: watched whole)."""
    deadline = time.monotonic() + timeout / 1000
    while True:
        left = max(1.0, (deadline - time.monotonic()) * 1000)
        page.wait_for_function(_DECISION_OR_REVEAL if skip else _HAS_DECISION, timeout=left)
        if page.evaluate(_HAS_DECISION):
            return decision(page)
        skip_reveal(page)
        page.wait_for_timeout(20)


def skip_reveal(page: Page) -> None:
    """Tap the reveal away if one is playing (as a person in a hurry does)."""
    skip_button = page.locator("#skip")
    if skip_button.is_visible():
        # The reveal may end by itself between the look and the tap.
        with contextlib.suppress(PlaywrightError):
            skip_button.click(timeout=2000)


def choose_host_bot(page: Page, bot: str) -> None:
    """Choose, in the table's menu, the bot that takes an absent player's seat."""
    page.locator("#menu summary").click()
    page.select_option("#host-bot", bot)
    page.locator("#menu summary").click()


def open_options(page: Page) -> None:
    """The home page's table options (folded on a phone)."""
    page.evaluate("() => { const d = document.getElementById('create-options'); if (d) d.open = true; }")


def play_card(page: Page, card: int, *, keyboard: bool = False) -> None:
    """Play ``card`` by keyboard alone (focus it, Enter) or by clicking it, and wait until the page
    shows it chosen; fail if the table refused it."""
    button = page.locator(f'#hand button.card[data-card="{card}"]')
    if keyboard:
        button.focus()
        page.keyboard.press("Enter")
    else:
        button.click()
    page.wait_for_function(_CARD_TAKEN, arg=card, timeout=WAIT_MS)
    _accepted(page, f"card {card}")


def choose_row(page: Page, row: int, seen: Decision) -> None:
    """Take ``row`` by clicking it, on the row choice ``seen`` shows, and wait until the table has."""
    assert row in seen["rows"], f"no row choice on the page: {seen}"
    page.locator(f'#rows button.row-button[data-row="{row}"]').click()
    page.wait_for_function(_ROW_TAKEN, arg=seen["version"], timeout=WAIT_MS)
    _accepted(page, f"row {row}")


def act(page: Page, seen: Decision | None = None, *, keyboard: bool = False) -> str | None:
    """Do what the table asks of this person now, if anything: take the first row, or play the
    lowest card (the likeliest to fall below every row). Returns "row", "card" or None."""
    seen = seen if seen is not None else decision(page)
    if seen["rows"]:
        choose_row(page, seen["rows"][0], seen)
        return "row"
    if seen["cards"]:
        play_card(page, seen["cards"][0], keyboard=keyboard)
        return "card"
    return None


def _accepted(page: Page, what: str) -> None:
    shown = page.locator("#error").text_content()
    assert not shown, f"the table refused {what}: {shown}"


# Each element that carries `hidden` (or sits inside one) yet has a box on the screen.
_SHOWN_HIDDEN = """() => [...document.querySelectorAll('[hidden]')]
  .filter((node) => getComputedStyle(node).display !== 'none' || node.getClientRects().length > 0)
  .map((node) => node.id ? `#${node.id}` : `${node.tagName.toLowerCase()}.${node.className}`)"""


def shown_hidden(page: Page) -> list[str]:
    """The elements of the page that are ``hidden`` yet shown (none, ever: tests/browser/test_hidden.py)."""
    found: list[str] = page.evaluate(_SHOWN_HIDDEN)
    return found
