"""The coach at the web table: ask, read the numbers, then play as usual; a table can turn it off."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]
from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import act, decision, next_decision, open_options
from tests.server.live import LiveServer

SEED = 6


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[LiveServer]:
    # A server of its own, with a seed whose first deal puts one of Ana's lowest cards below every row.
    with LiveServer(tmp_path / "nimmt.sqlite3", bot_delay=0, seed=SEED) as live:
        yield live


def _create(page: Page, server: LiveServer, *, coach: bool) -> None:
    page.goto(f"{server.url}/?lang=en")
    page.fill("#create-name", "Ana")
    open_options(page)
    page.fill("#create-seats", "3")
    page.fill("#create-bots", "2")
    page.fill("#create-rounds", "1")
    coach_box = page.get_by_label("Players may ask the coach for advice")
    expect(coach_box).to_be_checked()  # on unless the table turns it off
    if not coach:
        coach_box.uncheck()
    page.get_by_role("button", name="Create the table").click()
    page.wait_for_url(re.compile(r"/t/[\w-]+$"))
    page.locator("#start").click()
    expect(page.locator("#hand button.card:not([disabled])")).to_have_count(10)


def _version(page: Page) -> int:
    return int(page.evaluate("() => Number(document.body.dataset.version)"))


def _keep_advice(page: Page) -> list[dict[str, Any]]:
    """Every advice message the page receives from the server, in order."""
    answers: list[dict[str, Any]] = []

    def keep(payload: str | bytes) -> None:
        message = json.loads(payload)
        if message.get("type") == "advice":
            answers.append(message)

    page.on("websocket", lambda socket: socket.on("framereceived", keep))
    return answers


def _net_cells(page: Page) -> list[list[str]]:
    """The texts of the network's column, row by row (a card's cell holds two numbers)."""
    cells: list[list[str]] = page.locator("#advice-table tbody td.net").evaluate_all(
        "tds => tds.map((td) => td.children.length ? [...td.children].map((s) => s.textContent) : [td.textContent])")
    return cells


def test_ask_the_coach_then_play(browser: Browser, own_server: LiveServer, screenshots: Path) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 1000})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        answers = _keep_advice(page)
        _create(page, own_server, coach=True)
        expect(page.locator("#coach-option")).to_have_text(re.compile("The coach is on at this table"))
        hand = page.locator("#hand button.card").evaluate_all("els => els.map(e => Number(e.dataset.card))")
        # The two bots choose just after the start; only then does the table stand still until Ana acts.
        expect(page.locator("#players tbody td", has_text="has chosen")).to_have_count(2)
        version = _version(page)

        # Asked by keyboard alone: the numbers for each card of the hand, in a table.
        ask = page.get_by_role("button", name="Advice on your cards")
        ask.focus()
        page.keyboard.press("Enter")
        table = page.locator("#advice-table")
        expect(table.locator("caption")).to_have_text("The coach: what each card is expected to cost")
        expect(table.locator("tbody tr")).to_have_count(10)
        assert table.locator("tbody tr").evaluate_all("rs => rs.map(r => Number(r.dataset.card))") == hand
        first = table.locator("tbody tr").first
        expect(first.locator("th")).to_have_text(re.compile(rf"^{hand[0]}\D"))  # the card, then its bullheads
        expect(first.locator("td").nth(1)).to_have_text(re.compile(r"^≈?\d+(\.\d)?%$"))
        expect(first.locator("td").nth(2)).to_have_text(re.compile(r"^≈?\d+\.\d\d$"))
        expect(first.locator("td").nth(3)).to_have_text(re.compile(r"^\d+\.\d ± \d+\.\d$"))
        # Beside them, the neural network's second opinion, under its own heading: the bullheads it
        # expects to the end of the round over its chance that the card is the best, as the server sent them.
        expect(table.locator("thead th").nth(5)).to_have_text(
            re.compile(r"^Neural network bullheads chance it is the best$"))
        (answer,) = answers
        assert answer["kind"] == "cards" and [c["card"] for c in answer["cards"]] == hand
        shown = _net_cells(page)
        assert len(shown) == len(hand)
        for (heads, chance), sent in zip(shown, answer["cards"], strict=True):
            assert re.fullmatch(r"\d+\.\d", heads) and re.fullmatch(r"\d+%", chance), (heads, chance)
            assert float(heads) == pytest.approx(max(0.0, sent["net_bullheads"]), abs=0.051)
            assert int(chance[:-1]) == pytest.approx(100 * sent["net_chance"], abs=0.51)
        assert sum(int(chance[:-1]) for _, chance in shown) == pytest.approx(100, abs=len(hand) / 2)
        expect(page.locator("#advice-note")).to_contain_text("Neural network: the second opinion")
        # Asking chose nothing and changed nothing at the table.
        assert _version(page) == version
        expect(page.locator('#hand button[aria-pressed="true"]')).to_have_count(0)
        expect(page.locator("#hand button.card:not([disabled])")).to_have_count(10)
        page.screenshot(path=str(screenshots / "coach.png"), full_page=True)
        serious = [v["id"] for v in Axe().run(page).response["violations"] if v["impact"] in ("serious", "critical")]
        assert serious == [], serious

        # Then play as usual: the advice goes with the decision it was about. Play the lowest
        # cards until one is below every row, ask about the rows, and choose one.
        asked_rows = False
        deadline = time.monotonic() + 240
        while not (seen := next_decision(page))["over"]:
            assert time.monotonic() < deadline, "the game did not end"
            if seen["rows"] and not asked_rows:
                # The table waits for Ana alone now: nothing moves until she chooses.
                page.get_by_role("button", name="Advice on the rows").click()
                expect(table.locator("caption")).to_contain_text("what taking each row for your card")
                expect(table.locator("tbody tr")).to_have_count(4)
                expect(table.locator("tbody tr").first.locator("td").first).to_have_text(
                    re.compile(r"^\d+ bullheads?$"))
                expect(table.locator("thead th").nth(4)).to_have_text("Neural network: now + later")
                rows_answer = answers[-1]
                assert rows_answer["kind"] == "rows"
                assert [float(cell) for (cell,) in _net_cells(page)] == pytest.approx(
                    [max(r["now"], r["net_total"]) for r in rows_answer["rows"]], abs=0.051)
                assert decision(page) == seen  # asking chose nothing and changed nothing
                asked_rows = True
            act(page, seen)  # the first row, or the lowest card; waits until the table has taken it
            expect(page.locator("#advice")).to_be_hidden()
        expect(page.locator("#over")).to_be_visible()
        assert asked_rows, "Ana never had to choose a row"
        expect(page.get_by_role("button", name=re.compile("^Advice"))).to_have_count(0)
        assert not errors, errors
    finally:
        context.close()


def test_a_table_without_the_coach_shows_no_advice_button(browser: Browser, server: LiveServer) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        _create(page, server, coach=False)
        expect(page.locator("#coach-option")).to_have_text("The coach is turned off at this table.")
        expect(page.get_by_role("button", name=re.compile("^Advice"))).to_have_count(0)
        expect(page.locator("#advice-cards")).to_be_hidden()
    finally:
        context.close()


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_networks_numbers_fit_a_small_phone(browser: Browser, server: LiveServer, language: str) -> None:
    # German has the longest heading words (Wahrscheinlichkeit): they may break, the numbers may not leave the screen.
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        created = httpx.post(f"{server.url}/api/tables", json={
            "name": "Ana", "seats": 4, "bots": ["heuristic"] * 3, "options": {"rounds": 1}, "start": True,
            "language": language}).json()
        page.goto(f"{server.url}/t/{created['table_id']}?lang={language}#seat={created['token']}")
        expect(page.locator("#hand button.card:not([disabled])")).to_have_count(10)
        page.locator("#advice-cards").click()
        expect(page.locator("#advice-table tbody td.net")).to_have_count(10)
        box = page.locator("#advice-table").evaluate(
            "t => ({ scroll: t.parentElement.scrollWidth, room: t.parentElement.clientWidth })")
        assert box["scroll"] <= box["room"] + 1, box  # nothing to scroll sideways to
        for cell in page.locator("#advice-table tbody tr").first.locator("th, td").all():
            edge = cell.bounding_box()
            assert edge is not None and edge["x"] >= 0 and edge["x"] + edge["width"] <= 360, edge
        numbers = page.locator("#advice-table tbody td.net span").evaluate_all(
            "spans => spans.map((s) => { const r = s.getBoundingClientRect(); return [r.width, s.scrollWidth]; })")
        assert all(width + 1 >= scroll for width, scroll in numbers), numbers  # each number whole in its cell
    finally:
        context.close()
