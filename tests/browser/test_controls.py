"""The table's buttons stay put while the table changes: a press on a row or on "Let a bot play for
…" still counts when an update about someone else (a card played, a person leaving or coming
back) arrives between press and release (the hand's cards: test_play.py); and once a card is sent,
the hand stays disabled until the table answers it, whatever else arrives meanwhile."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page, WebSocketRoute, expect

from tests.browser.helpers import WAIT_MS, choose_host_bot, decision, next_decision, play_card
from tests.server.live import LiveServer

# The first deal of this seed gives Ana (seat 0 of two) a card below every row.
SEED = 1

_ROW_ENDS = """() => [...document.querySelectorAll('#rows li')].map(
  (row) => Number([...row.querySelectorAll('.row-cards .num')].pop().textContent))"""


@pytest.fixture
def seeded_server(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "nimmt.sqlite3", bot_delay=0, seed=SEED) as live:
        yield live


def _table(server: LiveServer, *names: str) -> tuple[str, list[str]]:
    """A table of people only, one round: its id and each person's seat token, creator first."""
    created = httpx.post(f"{server.url}/api/tables",
                         json={"name": names[0], "seats": len(names), "options": {"rounds": 1}}).json()
    tokens = [created["token"]]
    for name in names[1:]:
        tokens.append(httpx.post(f"{server.url}/api/tables/{created['table_id']}/join", json={"name": name})
                      .json()["token"])
    return str(created["table_id"]), tokens


def _press(page: Page, button: Locator) -> dict[str, float]:
    """Hold the mouse down on the middle of ``button``; returns where it is."""
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    return dict(box)


def test_a_row_click_is_not_lost_when_someone_comes_back(
        browser: Browser, seeded_server: LiveServer) -> None:
    """Ana presses a row; Bruno's page opens again before she lets go: she takes that row."""
    server = seeded_server
    table_id, (ana_token, bruno_token) = _table(server, "Ana", "Bruno")
    url = f"{server.url}/t/{table_id}?lang=en"
    context_a, context_b = browser.new_context(), browser.new_context()
    try:
        ana, bruno = context_a.new_page(), context_b.new_page()
        ana.goto(f"{url}#seat={ana_token}")
        bruno.goto(f"{url}#seat={bruno_token}")
        ana.locator("#start:not([disabled])").click()
        card = min(next_decision(ana)["cards"])
        ends = ana.evaluate(_ROW_ENDS)
        assert card < min(ends), f"seed {SEED} no longer deals Ana a card below every row {ends}: pick another"
        play_card(ana, card)
        play_card(bruno, max(next_decision(bruno)["cards"]))  # above Ana's: she is the one who chooses
        seen = next_decision(ana)
        assert seen["rows"] == [0, 1, 2, 3], seen
        # The row choice takes the keyboard to its first row; each row says what taking it costs.
        expect(ana.locator("#rows button.row-button").first).to_be_focused()
        row = ana.get_by_role("button", name=re.compile(r"^Take row 3 \(\d+ bullheads?\)$"))
        expect(row).to_have_attribute("data-row", "2")

        # An update does not pull the focus back to the rows from wherever Ana took it.
        ana.locator("#scores-details summary").focus()
        bruno.close()
        expect(ana.locator("#players .away")).to_have_count(1)  # Bruno away, shown
        expect(ana.locator("#scores-details summary")).to_be_focused()

        box = _press(ana, row)
        bruno = context_b.new_page()
        bruno.goto(url)  # the same seat: its token is kept in the browser
        expect(ana.locator("#players .away")).to_have_count(0)  # and back, shown
        assert decision(ana) == seen  # still the same row choice, still nothing chosen
        assert row.bounding_box() == box, "the row moved under the pointer"
        ana.mouse.up()

        expect(ana.locator("#reveal")).to_contain_text(
            re.compile(rf"Ana \(you\): {card} is lower than every row, takes row 3 \(\d+ bullheads?\)"))
        expect(ana.locator("#error")).to_be_empty()
        expect(ana.locator("#rows button.row-button")).to_have_count(0)
    finally:
        context_a.close()
        context_b.close()


def test_a_hand_to_bot_click_is_not_lost_when_the_table_changes(browser: Browser, server: LiveServer) -> None:
    """Ana presses "Let a bot play for Bruno"; Carla plays a card and leaves before Ana lets go:
    Bruno's seat goes to a bot, and Carla's seat is offered too."""
    table_id, tokens = _table(server, "Ana", "Bruno", "Carla")
    url = f"{server.url}/t/{table_id}?lang=en"
    contexts = [browser.new_context(viewport={"width": 1200, "height": 900}) for _ in tokens]
    try:
        ana, bruno, carla = (context.new_page() for context in contexts)
        for page, token in zip((ana, bruno, carla), tokens, strict=True):
            page.goto(f"{url}#seat={token}")
        ana.locator("#start:not([disabled])").click()
        carla_card = next_decision(carla)["cards"][0]
        next_decision(bruno)
        bruno.close()
        hand_over = ana.get_by_role("button", name="Let a bot play for Bruno")
        expect(hand_over).to_be_visible()
        choose_host_bot(ana, "random")

        box = _press(ana, hand_over)
        before = decision(ana)["version"]
        play_card(carla, carla_card)
        ana.wait_for_function(f"() => Number(document.body.dataset.version) > {before}")  # Carla's card, shown
        carla.close()
        expect(ana.get_by_role("button", name="Let a bot play for Carla")).to_be_visible()  # Carla away, shown
        assert hand_over.bounding_box() == box, "the button moved under the pointer"
        ana.once("dialog", lambda dialog: dialog.accept())
        ana.mouse.up()

        expect(ana.locator("#players")).to_contain_text("Bruno (bot)")
        expect(ana.locator("#absent button")).to_have_count(1)
        expect(ana.get_by_role("button", name="Let a bot play for Carla")).to_be_visible()
        expect(ana.locator("#error")).to_be_empty()
    finally:
        for context in contexts:
            context.close()


class Wire:
    """Stands between a page and the server on the page's WebSocket: passes every message on,
    keeps a copy of each, and holds back what the page sends while ``hold`` is set, so that an
    update about someone else surely reaches the page before the server has seen its action."""

    def __init__(self, page: Page) -> None:
        self.hold = False
        self.held: list[str] = []
        self.sent: list[dict[str, object]] = []  # by the page, on every connection
        self.received: list[dict[str, object]] = []  # by the page, on every connection
        self.connections = 0
        self.page_side: WebSocketRoute | None = None
        self.server_side: WebSocketRoute | None = None
        page.route_web_socket(re.compile(r"/ws/"), self._connect)

    def _connect(self, page_side: WebSocketRoute) -> None:
        server_side = page_side.connect_to_server()
        self.page_side, self.server_side = page_side, server_side
        self.connections += 1

        def to_server(message: str | bytes) -> None:
            self.sent.append(json.loads(message))
            if self.hold:
                self.held.append(str(message))
            else:
                server_side.send(message)

        def to_page(message: str | bytes) -> None:
            self.received.append(json.loads(message))
            page_side.send(message)

        page_side.on_message(to_server)
        server_side.on_message(to_page)

    def plays(self) -> list[dict[str, object]]:
        return [m for m in self.sent if m["type"] == "play"]

    def release(self, change: dict[str, object] | None = None) -> None:
        """Send on what was held back (each message first updated with ``change``)."""
        assert self.server_side is not None
        self.hold = False
        held, self.held = self.held, []
        for message in held:
            self.server_side.send(json.dumps({**json.loads(message), **(change or {})}))

    def drop(self) -> None:
        """The connection fails: what was held back never reaches the server."""
        assert self.page_side is not None and self.server_side is not None
        self.hold = False
        self.held = []
        self.server_side.close()
        self.page_side.close(code=1011, reason="dropped")

    def settle(self, page: Page) -> None:
        """Wait until the server has answered everything sent before now: a ping's pong comes after
        the answers and the updates due before it."""
        assert self.server_side is not None
        count = sum(m["type"] == "pong" for m in self.received)
        self.server_side.send(json.dumps({"type": "ping"}))
        deadline = time.monotonic() + WAIT_MS / 1000
        while sum(m["type"] == "pong" for m in self.received) == count:
            assert time.monotonic() < deadline, "no pong from the server"
            page.wait_for_timeout(20)  # lets Playwright deliver the pong to the handler above


_HAND_OPEN = "#hand button.card:not([disabled])"


def _three(browser: Browser, server: LiveServer) -> tuple[list[Page], Wire, list[object]]:
    table_id, tokens = _table(server, "Ana", "Bruno", "Carla")
    url = f"{server.url}/t/{table_id}?lang=en"
    contexts = [browser.new_context() for _ in tokens]
    pages = [context.new_page() for context in contexts]
    wire = Wire(pages[0])
    for page, token in zip(pages, tokens, strict=True):
        page.goto(f"{url}#seat={token}")
    pages[0].locator("#start:not([disabled])").click()
    return pages, wire, list(contexts)


def test_a_second_press_is_not_sent_while_the_card_is_on_its_way(browser: Browser, server: LiveServer) -> None:
    """Ana plays a card; Bruno's card reaches her page before the table has seen hers: her hand
    stays disabled (and busy), so a second quick press sends nothing, and no error is shown."""
    (ana, bruno, _carla), wire, contexts = _three(browser, server)
    try:
        first, second = next_decision(ana)["cards"][:2]
        bruno_card = next_decision(bruno)["cards"][0]
        before = decision(ana)["version"]
        wire.hold = True
        ana.locator(f'#hand button.card[data-card="{first}"]').click()
        expect(ana.locator(_HAND_OPEN)).to_have_count(0)
        play_card(bruno, bruno_card)
        ana.wait_for_function(f"() => Number(document.body.dataset.version) > {before}")  # Bruno's card, shown
        assert wire.held, "Ana's card was not held back: the test shows nothing"
        assert decision(ana)["cards"] == [], "the hand was offered again while Ana's card was on its way"
        expect(ana.locator("#hand")).to_have_attribute("aria-busy", "true")
        box = ana.locator(f'#hand button.card[data-card="{second}"]').bounding_box()
        assert box is not None
        ana.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)  # the quick second press

        wire.release()
        expect(ana.locator(f'#hand button.card[data-card="{first}"]')).to_have_attribute("aria-pressed", "true")
        wire.settle(ana)
        assert [m["card"] for m in wire.plays()] == [first]
        assert not [m for m in wire.received if m["type"] == "error"]
        expect(ana.locator("#error")).to_be_empty()
        expect(ana.locator("#hand")).not_to_have_attribute("aria-busy", "true")
        expect(ana.locator(_HAND_OPEN)).to_have_count(0)  # her card is chosen: nothing more to play
    finally:
        for context in contexts:
            context.close()  # type: ignore[attr-defined]


def test_the_hand_opens_again_after_a_refusal_or_a_dropped_connection(
        browser: Browser, server: LiveServer) -> None:
    """A card whose connection drops before it reaches the table, then a card the table refuses:
    each time the hand is offered again, and Ana's next press plays her card."""
    (ana, _bruno, _carla), wire, contexts = _three(browser, server)
    try:
        card = next_decision(ana)["cards"][0]
        wire.hold = True
        ana.locator(f'#hand button.card[data-card="{card}"]').click()
        expect(ana.locator(_HAND_OPEN)).to_have_count(0)
        wire.drop()
        # The page connects again and the server's view decides: no card was taken, so the hand is open.
        expect(ana.locator(_HAND_OPEN).first).to_be_visible()
        assert wire.connections == 2
        expect(ana.locator("#hand")).not_to_have_attribute("aria-busy", "true")

        wire.hold = True
        ana.locator(f'#hand button.card[data-card="{card}"]').click()
        expect(ana.locator(_HAND_OPEN)).to_have_count(0)
        wire.release({"version": 10**6})  # a version the table has not reached: refused
        expect(ana.locator("#error")).not_to_be_empty()
        expect(ana.locator(f'#hand button.card[data-card="{card}"]')).to_be_enabled()

        ana.locator(f'#hand button.card[data-card="{card}"]').click()
        expect(ana.locator(f'#hand button.card[data-card="{card}"]')).to_have_attribute("aria-pressed", "true")
        expect(ana.locator("#error")).to_be_empty()  # taken: the refusal's message goes
        assert [m["card"] for m in wire.plays()] == [card, card, card]
    finally:
        for context in contexts:
            context.close()  # type: ignore[attr-defined]
