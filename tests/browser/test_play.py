"""Two people, each in their own browser, play a whole game with two bots to its standings."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from tests.server.live import LiveServer

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


def _play_one(page: Page, *, keyboard: bool) -> str | None:
    """Do what the table asks of this person, if anything: returns "row" or "card".

    Cards are played by keyboard alone (Tab to the card, Enter) or by clicking; rows by clicking.
    """
    rows = page.locator("#rows button.row-button")
    version = int(page.evaluate("() => document.body.dataset.version || 0"))
    moved = f"() => Number(document.body.dataset.version) > {version}"
    if rows.count():
        rows.nth(0).click()  # a row is chosen by clicking it
        page.wait_for_function(moved, timeout=5000)
        return "row"
    cards = page.locator("#hand button.card:not([disabled])")
    if cards.count():
        target = cards.nth(0)  # the lowest card: it is the likeliest to fall below every row
        if keyboard:
            target.focus()
            page.keyboard.press("Enter")
        else:
            target.click()
        page.wait_for_function(moved, timeout=5000)
        return "card"
    return None


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
    """Serious or critical accessibility violations that axe-core finds on the page as it is."""
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
        ana.fill("#create-seats", "4")
        ana.fill("#create-bots", "2")
        ana.select_option("#bot-0", "random")
        ana.select_option("#bot-1", "beginner")
        ana.fill("#create-rounds", "1")
        ana.get_by_role("button", name="Create the table").click()
        ana.wait_for_url(re.compile(r"/t/[\w-]+$"))
        expect(ana.locator("#lobby")).to_be_visible()
        expect(ana.locator("#invite-link")).to_have_value(re.compile(r"/t/[\w-]+\?lang=en$"))
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

        did: list[str] = []
        scanned_row_choice = False
        refused: list[str] = []
        refreshed = False
        shot = False
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline:
            if ana.locator("#over").is_visible() and bruno.locator("#over").is_visible():
                break
            turn = len([d for d in did if d == "card"]) // 2
            if turn >= 4 and not refreshed and bruno.locator("#hand button.card:not([disabled])").count():
                # Bruno reloads the page mid-round, while the table waits for him: same seat, same
                # hand, same game.
                cards = "els => els.map(e => e.dataset.card)"
                hand = bruno.locator("#hand button.card").evaluate_all(cards)
                bruno.reload()
                expect(bruno.locator("#hand button.card:not([disabled])")).to_have_count(len(hand))
                assert bruno.locator("#hand button.card").evaluate_all(cards) == hand
                refreshed = True
            for page, keyboard in ((ana, True), (bruno, False)):
                if not scanned_row_choice and page.locator("#rows button.row-button").count():
                    assert _serious(page) == [], "a row choice is not accessible"
                    scanned_row_choice = True
                done = _play_one(page, keyboard=keyboard)
                if done:
                    did.append(done)
                    shown = page.locator("#error").text_content()
                    if shown:
                        refused.append(shown)
            # Bruno asked for reduced motion: his reveal is shown whole, never card by card.
            assert bruno.locator("#reveal .pending").count() == 0
            turn = len([d for d in did if d == "card"]) // 2
            if turn == 6 and not shot and ana.locator("#reveal-box").is_visible():
                # Ana's cards are placed one by one: wait until the last one is on the table.
                ana.wait_for_function("() => !document.querySelector('#reveal .pending')", timeout=10000)
                ana.wait_for_timeout(400)  # and its fade-in is over
                ana.screenshot(path=str(screenshots / "game.png"), full_page=True)
                shot = True
            ana.wait_for_timeout(40)
        expect(ana.locator("#over")).to_be_visible()
        expect(bruno.locator("#over")).to_be_visible()
        assert refreshed and shot
        assert "row" in did, "nobody chose a row by clicking it"
        assert not refused, refused  # every card and row chosen was accepted

        # Final standings: the winners named, everyone listed, lowest total first.
        expect(ana.locator("#winners")).to_contain_text(re.compile("wins|Shared win"))
        expect(ana.locator("#standings li")).to_have_count(4)
        expect(ana.locator("#rematch")).to_be_visible()
        expect(bruno.locator("#rematch")).to_be_hidden()
        # Revealed cards were announced to screen readers, and the end of the round.
        heard: list[str] = ana.evaluate("() => window.heard")
        assert any(text.startswith("Cards revealed: ") for text in heard), heard
        expect(ana.locator("#announce")).to_contain_text("Round 1 is over.")
        ana.screenshot(path=str(screenshots / "standings.png"), full_page=True)
        assert _serious(ana) == [] and _serious(bruno) == []
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
        ana.fill("#create-seats", "3")
        ana.fill("#create-bots", "1")
        ana.fill("#create-rounds", "1")
        ana.get_by_role("button", name="Create the table").click()
        ana.wait_for_url(re.compile(r"/t/[\w-]+$"))
        # The link is filled in once the table's first state has come over the WebSocket.
        expect(ana.locator("#invite-link")).to_have_value(re.compile(r"/t/[\w-]+\?lang=en$"))
        bruno.goto(ana.input_value("#invite-link"))
        bruno.fill("#join-name", "Bruno")
        bruno.get_by_role("button", name="Sit down").click()
        ana.locator("#start:not([disabled])").click()
        expect(bruno.locator("#hand button.card:not([disabled])")).to_have_count(10)
        bruno.close()  # Bruno leaves: his seat stays his, and the game waits for him
        expect(ana.locator("#players")).to_contain_text("Bruno — away")
        _play_one(ana, keyboard=False)
        expect(ana.locator("#status")).to_contain_text("Waiting for Bruno.")
        ana.select_option("#host-bot", "random")
        ana.once("dialog", lambda dialog: dialog.accept())
        ana.get_by_role("button", name="Let a bot play for Bruno").click()
        expect(ana.locator("#players")).to_contain_text("Bruno (bot)")
        deadline = time.monotonic() + 60
        while not ana.locator("#over").is_visible() and time.monotonic() < deadline:
            if not _play_one(ana, keyboard=False):
                ana.wait_for_timeout(40)
        expect(ana.locator("#over")).to_be_visible()
        expect(ana.locator("#standings li")).to_have_count(3)
    finally:
        context_a.close()
        context_b.close()
