"""The coach at the web table: ask, read the numbers, then play as usual; a table can turn it off."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]
from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import act, advice_messages, decision, next_decision, open_options
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


def _shown(page: Page) -> list[dict[str, str]]:
    """Each line of the advice as shown: the text of each cell's number (its short label aside), by the
    cell's class; a network's cell for a card gives its two numbers as net_bullheads and net_chance."""
    shown: list[dict[str, str]] = page.locator("#advice-table tbody tr").evaluate_all("""trs => trs.map((tr) => {
      const line = {};
      for (const td of tr.querySelectorAll("td")) {
        const kind = td.className.split(" ")[0];
        const value = td.querySelector(".value") || td.querySelector(".full");
        line[kind] = value.textContent;
        for (const part of td.querySelectorAll(".net-bullheads, .net-chance")) line[part.className] = part.textContent;
      }
      return line;
    })""")
    return shown


def _number(text: str) -> float:
    return float(text.removeprefix("≈").removesuffix("%"))


def _check_cards(shown: list[dict[str, str]], answer: dict[str, Any]) -> None:
    """Every number of every card, as the server's advice message has it (English formats)."""
    assert len(shown) == len(answer["cards"])
    for line, sent in zip(shown, answer["cards"], strict=True):
        where = "below every row" if sent["row"] is None else f"Row {sent['row'] + 1}"
        assert line["where"] == where, (line, sent)
        sampled = "" if sent["exact"] else "≈"
        assert re.fullmatch(rf"{sampled}\d+\.\d%", line["take"]), line
        assert re.fullmatch(rf"{sampled}\d+\.\d\d", line["turn"]), line
        assert _number(line["take"]) == pytest.approx(100 * sent["take_chance"], abs=0.051)
        assert _number(line["turn"]) == pytest.approx(sent["turn_bullheads"], abs=0.0051)
        mean, stderr = line["round"].split(" ± ")
        assert float(mean) == pytest.approx(sent["round_bullheads"], abs=0.051)
        assert float(stderr) == pytest.approx(sent["round_stderr"], abs=0.051)
        heads, chance = line["net-bullheads"], line["net-chance"]
        assert re.fullmatch(r"\d+\.\d", heads) and re.fullmatch(r"\d+%", chance), (heads, chance)
        assert float(heads) == pytest.approx(max(0.0, sent["net_bullheads"]), abs=0.051)
        assert int(chance[:-1]) == pytest.approx(100 * sent["net_chance"], abs=0.51)
    assert sum(int(line["net-chance"][:-1]) for line in shown) == pytest.approx(100, abs=len(shown) / 2)


def test_ask_the_coach_then_play(browser: Browser, own_server: LiveServer, screenshots: Path) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 1000})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        answers = advice_messages(page, "framereceived")
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
        # Every number, as the server sent it; beside the simulated ones, the neural network's second
        # opinion: the bullheads it expects to the end of the round, then its chance that the card is the best.
        (answer,) = answers
        assert answer["kind"] == "cards" and [c["card"] for c in answer["cards"]] == hand
        _check_cards(_shown(page), answer)
        # The full headings are there for a screen reader; the panel (narrow here) shows each number's
        # short label, and a legend says what each label means.
        expect(table.locator("thead th .full")).to_have_text(["Card", "Goes to", "Chance of taking a row this turn",
            "Bullheads this turn", "Bullheads to the end of the round",
            "Neural network: bullheads to the end of the round · chance it is the best"])
        expect(first.locator("td.round .short")).to_have_text("Round")
        expect(first.locator("td.net .short")).to_have_text("Network")
        expect(first.locator("td.net .net-best")).to_have_text("best")
        terms = ["Takes", "Now", "Round", "Network"]
        if any(c["row"] is None for c in answer["cards"]):
            terms.insert(0, "Below")
        expect(page.locator("#advice-legend dt")).to_have_text(terms)
        expect(page.locator("#advice-legend dd").last).to_contain_text("A second opinion, from a neural network")
        expect(page.locator("#advice-note")).to_contain_text("Neural network: a small network")
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
                # Short headings on this narrow panel, the full ones for a screen reader.
                expect(table.locator("thead th .short")).to_have_text(["Row", "Now", "Later", "Total", "Network"])
                expect(table.locator("thead th.net .full")).to_have_text("Neural network: now + later")
                rows_answer = answers[-1]
                assert rows_answer["kind"] == "rows"
                shown = _shown(page)
                assert len(shown) == len(rows_answer["rows"])
                for line, sent in zip(shown, rows_answer["rows"], strict=True):
                    assert int(line["now"]) == sent["now"], (line, sent)
                    mean, stderr = line["later"].split(" ± ")
                    assert float(mean) == pytest.approx(sent["later"], abs=0.051)
                    assert float(stderr) == pytest.approx(sent["later_stderr"], abs=0.051)
                    assert float(line["total"]) == pytest.approx(sent["total"], abs=0.051)
                    assert float(line["net"]) == pytest.approx(max(sent["now"], sent["net_total"]), abs=0.051)
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


# Every number and label of the card advice, with its box; the rows wholly inside the panel's view.
_LAYOUT = """() => {
  const box = document.getElementById("advice");
  const room = box.getBoundingClientRect();
  const shown = [...box.querySelectorAll("tbody :is(th, td, span), caption, #advice-legend *")]
    .filter((e) => getComputedStyle(e).display !== "none" && e.getBoundingClientRect().width > 1)
    .map((e) => { const r = e.getBoundingClientRect();
      return { text: e.textContent, left: r.left, right: r.right, scroll: e.scrollWidth,
               width: e.clientWidth || r.width,
               wrap: getComputedStyle(e).overflowWrap + " " + getComputedStyle(e).wordBreak }; });
  const whole = [...box.querySelectorAll("tbody tr")].filter((tr) => { const r = tr.getBoundingClientRect();
    return r.top >= room.top && r.bottom <= room.bottom; }).length;
  return { shown, whole, left: room.left, right: room.right, scroll: box.scrollWidth, client: box.clientWidth };
}"""


@pytest.mark.parametrize("language", ["de", "pt-PT", "fr"])
def test_the_card_advice_reads_on_a_small_phone(browser: Browser, server: LiveServer, language: str) -> None:
    # The longest languages on a 360x640 phone: every number whole and on the screen, no word broken
    # mid-word, and several cards' advice in view at once.
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        answers = advice_messages(page, "framereceived")
        created = httpx.post(f"{server.url}/api/tables", json={
            "name": "Ana", "seats": 4, "bots": ["heuristic"] * 3, "options": {"rounds": 1}, "start": True,
            "language": language}).json()
        page.goto(f"{server.url}/t/{created['table_id']}?lang={language}#seat={created['token']}")
        expect(page.locator("#hand button.card:not([disabled])")).to_have_count(10)
        page.locator("#advice-cards").click()
        expect(page.locator("#advice-table tbody td.net")).to_have_count(10)
        (answer,) = answers
        shown = _shown(page)
        assert [len(line) for line in shown] == [7] * 10, shown  # where, four numbers, the network's two
        assert [float(line["net-bullheads"].replace(",", ".")) for line in shown] == pytest.approx(
            [max(0.0, c["net_bullheads"]) for c in answer["cards"]], abs=0.051)
        layout = page.evaluate(_LAYOUT)
        assert layout["scroll"] <= layout["client"] + 1, layout  # nothing to scroll sideways to
        for item in layout["shown"]:
            assert layout["left"] - 1 <= item["left"] and item["right"] <= layout["right"] + 1, item
            assert item["scroll"] <= item["width"] + 1, item  # whole in its box
            assert item["wrap"] == "normal normal", item  # a line may break between words only
        assert layout["whole"] >= 4, layout  # several cards' advice at once
    finally:
        context.close()
