"""Two people, each in their own browser, play a whole game with two bots to its standings."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import (
    act,
    choose_host_bot,
    decision,
    next_decision,
    open_options,
    play_card,
    skip_reveal,
    still,
)
from tests.server.live import LiveServer

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


# What a screen reader would hear: every text the live region is given.
_LISTEN = """
window.heard = [];
document.addEventListener("DOMContentLoaded", () => {
  const region = document.getElementById("announce");
  new MutationObserver(() => { if (region.textContent) window.heard.push(region.textContent); })
    .observe(region, { childList: true, characterData: true, subtree: true });
});
"""


def _serious(page: Page) -> list[str]:
    """Serious or critical accessibility violations that axe-core finds on the page, once it is still
    (a text fading in has, for a moment, too little contrast)."""
    still(page)
    result = Axe().run(page)
    return [f"{v['id']}: {[n['target'] for n in v['nodes']][:3]}" for v in result.response["violations"]
            if v["impact"] in ("serious", "critical")]


def _overflow(page: Page) -> int:
    width: int = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    return width


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    # A server of its own, with a seed whose deals make one of the two people take a row.
    with LiveServer(tmp_path / "nimmt.sqlite3", bot_delay=0, seed=4) as live:
        yield live


def test_two_people_play_a_whole_game(browser: Browser, server: LiveServer, screenshots: Path) -> None:
    desk = browser.new_context(viewport={"width": 1200, "height": 900})
    phone = browser.new_context(**PHONE, reduced_motion="reduce")
    try:
        ana, bruno = desk.new_page(), phone.new_page()
        ana.add_init_script(_LISTEN)
        errors: list[str] = []
        for page in (ana, bruno):
            page.on("pageerror", lambda error: errors.append(str(error)))
        ana.goto(f"{server.url}/?lang=en")
        ana.fill("#create-name", "Ana")
        open_options(ana)
        ana.fill("#create-seats", "4")
        ana.fill("#create-bots", "2")
        ana.select_option("#bot-0", "random")
        ana.select_option("#bot-1", "beginner")
        ana.fill("#create-rounds", "1")
        ana.get_by_role("button", name="Create the table").click()
        ana.wait_for_url(re.compile(r"/t/[\w-]+$"))
        expect(ana.locator("#lobby")).to_be_visible()
        expect(ana.locator("#invite-link")).to_have_value(re.compile(r"/t/[\w-]+$"))
        invite = ana.input_value("#invite-link")
        expect(ana.locator("#start")).to_be_disabled()

        bruno.goto(invite)
        bruno.fill("#join-name", "Bruno")
        bruno.get_by_role("button", name="Sit down").click()
        expect(bruno.locator("#lobby-seats")).to_contain_text("Bruno (you)")
        expect(ana.locator("#start")).to_be_enabled()
        ana.locator("#start").click()
        expect(ana.locator("#hand button.card")).to_have_count(10)
        expect(bruno.locator("#hand button.card")).to_have_count(10)
        assert _overflow(bruno) <= 0, "the phone view scrolls sideways"
        bruno.screenshot(path=str(screenshots / "phone.png"))

        # Each person does what the table asks of them, one after the other, until both see the
        # standings. Every card and row is checked to be taken (a refusal fails the test at once);
        # what a page shows is read in one go, and only acted on if it asks something of this person.
        # Cards are played by keyboard alone for Ana (focus, Enter) and by clicking for Bruno.
        did: list[str] = []
        scanned_row_choice = False
        refreshed = False
        shot = False
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            if decision(ana)["over"] and decision(bruno)["over"]:
                break
            for page, keyboard in ((ana, True), (bruno, False)):
                seen = decision(page)
                if seen["rows"] and not scanned_row_choice:
                    # The table waits for this person's row choice: nothing moves until they choose.
                    assert _serious(page) == [], "a row choice is not accessible"
                    scanned_row_choice = True
                if page is bruno and seen["cards"] and not refreshed and did.count("card") // 2 >= 4:
                    # Bruno reloads the page mid-round, while the table waits for his card: same
                    # seat, same hand, same game.
                    cards = "els => els.map(e => e.dataset.card)"
                    hand = bruno.locator("#hand button.card").evaluate_all(cards)
                    bruno.reload()
                    expect(bruno.locator("#hand button.card:not([disabled])")).to_have_count(len(hand))
                    assert bruno.locator("#hand button.card").evaluate_all(cards) == hand
                    refreshed = True
                    seen = decision(bruno)
                if page is ana and not seen["cards"] and not seen["rows"] and not shot:
                    skip_reveal(page)  # Ana taps the reveal away, until the screenshot (which shows one whole)
                done = act(page, seen, keyboard=keyboard)
                if done:
                    did.append(done)
            # Bruno asked for reduced motion: his reveal is shown whole, never card by card.
            assert bruno.locator("#reveal .pending").count() == 0
            if did.count("card") // 2 == 6 and not shot:
                # Ana's cards are placed one by one: wait until the last one is on the table.
                expect(ana.locator("#reveal-details")).to_be_visible()
                still(ana)
                ana.screenshot(path=str(screenshots / "game.png"), full_page=True)
                shot = True
            ana.wait_for_timeout(40)  # neither page had anything to do: look again shortly
        expect(ana.locator("#over")).to_be_visible()
        expect(bruno.locator("#over")).to_be_visible()
        assert refreshed and shot
        assert "row" in did, "nobody chose a row by clicking it"

        # Final standings: the winners named, everyone listed, lowest total first.
        expect(ana.locator("#winners")).to_contain_text(re.compile("wins|Shared win"))
        expect(ana.locator("#standings li")).to_have_count(4)
        expect(ana.locator("#rematch")).to_be_visible()
        expect(bruno.locator("#rematch")).to_be_hidden()
        # Revealed cards were announced to screen readers, and the end of the round.
        heard: list[str] = ana.evaluate("() => window.heard")
        assert any(text.startswith("Cards revealed: ") for text in heard), heard
        expect(ana.locator("#announce")).to_contain_text("Round 1 is over: ")
        expect(ana.locator("#announce")).to_contain_text("Round 1 of 1 played: the game is over.")
        ana.screenshot(path=str(screenshots / "standings.png"), full_page=True)
        assert _serious(ana) + _serious(bruno) == []
        assert scanned_row_choice
        assert not errors, errors

        # The finished game: download its record, and watch it again turn by turn.
        with ana.expect_download() as download:
            ana.locator("#download").click()
        assert download.value.suggested_filename.endswith("-1.json")
        ana.locator("#replay-link").click()
        expect(ana.locator("#replay-turn")).to_contain_text("Round 1, turn 1 (1 of 10)")
        ana.get_by_role("button", name="Next turn").click()
        expect(ana.locator("#replay-turn")).to_contain_text("turn 2")
        ana.keyboard.press("ArrowRight")
        expect(ana.locator("#replay-turn")).to_contain_text("turn 3")
    finally:
        desk.close()
        phone.close()


def test_the_creator_hands_an_absent_seat_to_a_bot(browser: Browser, server: LiveServer) -> None:
    context_a, context_b = browser.new_context(), browser.new_context()
    try:
        ana, bruno = context_a.new_page(), context_b.new_page()
        ana.goto(f"{server.url}/?lang=en")
        ana.fill("#create-name", "Ana")
        open_options(ana)
        ana.fill("#create-seats", "3")
        ana.fill("#create-bots", "1")
        ana.fill("#create-rounds", "1")
        ana.select_option("#create-absent", "ask")  # the others decide (the default hands it over by itself)
        ana.get_by_role("button", name="Create the table").click()
        ana.wait_for_url(re.compile(r"/t/[\w-]+$"))
        # The link is filled in once the table's first state has come over the WebSocket.
        expect(ana.locator("#invite-link")).to_have_value(re.compile(r"/t/[\w-]+$"))
        bruno.goto(ana.input_value("#invite-link"))
        bruno.fill("#join-name", "Bruno")
        bruno.get_by_role("button", name="Sit down").click()
        ana.locator("#start:not([disabled])").click()
        expect(bruno.locator("#hand button.card:not([disabled])")).to_have_count(10)
        bruno.close()  # Bruno leaves: his seat stays his, and the game waits for him
        expect(ana.locator("#players")).to_contain_text("Bruno — away")
        assert act(ana, next_decision(ana)) == "card"
        expect(ana.locator("#status")).to_contain_text("Waiting for Bruno.")
        choose_host_bot(ana, "random")
        ana.once("dialog", lambda dialog: dialog.accept())
        ana.get_by_role("button", name="Let a bot play for Bruno").click()
        expect(ana.locator("#players")).to_contain_text("Bruno (bot)")
        # Ana is the only person left: every change now waits for her, or is the bots' reply.
        deadline = time.monotonic() + 240
        while not (seen := next_decision(ana))["over"]:
            assert time.monotonic() < deadline, "the game did not end"
            act(ana, seen)
        expect(ana.locator("#over")).to_be_visible()
        expect(ana.locator("#standings li")).to_have_count(3)
    finally:
        context_a.close()
        context_b.close()


def test_a_click_is_not_lost_when_the_table_changes_under_it(browser: Browser, server: LiveServer) -> None:
    """Ana presses a card; Bruno's card arrives before she lets go: her click still plays it."""
    created = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 2, "options": {"rounds": 1}})
    table = created.json()
    joined = httpx.post(f"{server.url}/api/tables/{table['table_id']}/join", json={"name": "Bruno"}).json()
    context_a, context_b = browser.new_context(), browser.new_context()
    try:
        ana, bruno = context_a.new_page(), context_b.new_page()
        ana.goto(f"{server.url}/t/{table['table_id']}?lang=en#seat={table['token']}")
        bruno.goto(f"{server.url}/t/{table['table_id']}?lang=en#seat={joined['token']}")
        ana.locator("#start:not([disabled])").click()
        card = next_decision(ana)["cards"][0]
        bruno_card = next_decision(bruno)["cards"][0]
        button = ana.locator(f'#hand button.card[data-card="{card}"]')
        button.scroll_into_view_if_needed()
        box = button.bounding_box()
        assert box is not None
        ana.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        ana.mouse.down()
        before = decision(ana)["version"]
        play_card(bruno, bruno_card)
        ana.wait_for_function(f"() => Number(document.body.dataset.version) > {before}")  # Bruno's card, shown
        ana.mouse.up()
        # Both cards chosen: the turn is revealed, and Ana's card has left her hand.
        expect(ana.locator(f'#hand button.card[data-card="{card}"]')).to_have_count(0)
        expect(ana.locator("#error")).to_be_empty()
    finally:
        context_a.close()
        context_b.close()
