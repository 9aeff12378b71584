"""The table's buttons stay put while the table changes: a press on a row or on "Let a bot play for
…" still counts when an update about someone else (a card played, a person leaving or coming
back) arrives between press and release. (The hand's cards: test_play.py.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.browser.helpers import decision, next_decision, play_card
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
        ana.locator("#watch-link").focus()
        bruno.close()
        expect(ana.locator("#players .away")).to_have_count(1)  # Bruno away, shown
        expect(ana.locator("#watch-link")).to_be_focused()

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
        ana.select_option("#host-bot", "random")

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
