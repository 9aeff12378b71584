"""The guided first round and the puzzle of the day, in Chromium on phones.

One guided round, played from start to end by two newcomers at once (pt-BR at 360x640, fr at
390x844) and a bot: each person's hints are checked against what really happened at the table (the
game's replay says where every card went), the hints never cover what they talk about, each person
makes every choice themself, and the guide is remembered as done. The home page's button starts a
guided round (you and three bots); its tips can be stopped for good.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from typing import Any

import httpx
from playwright.sync_api import Browser, Page, expect

from nimmt.i18n import catalog
from nimmt.puzzles import of_day
from tests.browser.helpers import WAIT_MS, Decision, act, decision, skip_reveal, still
from tests.server.live import LiveServer

PHONE: dict[str, Any] = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True,
                         "device_scale_factor": 2}
TALL_PHONE: dict[str, Any] = {**PHONE, "viewport": {"width": 390, "height": 844}}

_BOX = "(id) => { const r = document.getElementById(id).getBoundingClientRect(); return [r.top, r.bottom]; }"
_GUIDE = """() => { const g = document.getElementById('guide');
  return g && !g.hidden ? {hint: g.dataset.hint, text: g.innerText} : null; }"""


def _fits(page: Page) -> None:
    size = page.viewport_size
    assert size is not None
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    box = page.locator("#guide").bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], box
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], box


def _apart(page: Page, other: str) -> None:
    """The hint lies clear of ``other`` (what it talks about, or what the person must tap next)."""
    top, bottom = page.evaluate(_BOX, "guide")
    other_top, other_bottom = page.evaluate(_BOX, other)
    assert bottom <= other_top or top >= other_bottom, \
        f"the hint covers #{other}: {top, bottom} against {other_top, other_bottom}"


# What a shown hint about a row covers of that row and of the status line telling what happened there
# (nothing, ever).
_ROWS_COVERED = """() => { const g = document.getElementById('guide');
  if (!g || g.hidden || !g.dataset.rows) return [];
  const box = g.getBoundingClientRect();
  return [...g.dataset.rows.split(' ').map((row) => `#rows [data-row="${row}"]`), '#status'].filter((selector) => {
    const r = document.querySelector(selector).getBoundingClientRect();
    return !(box.bottom <= r.top || box.top >= r.bottom); }); }"""


def _puzzle(page: Page, language: str) -> None:
    """The puzzle of the day: the position, a choice, then every option's cost."""
    puzzle = of_day(datetime.now(UTC).date())
    texts = catalog(language, "learn")
    expect(page.locator("#daily-rows > li")).to_have_count(4)
    options = sorted(option for option, _, _ in puzzle.options)
    buttons = page.locator("#daily-options button")
    assert [int(b) for b in buttons.evaluate_all("(bs) => bs.map((b) => b.dataset.option)")] == options
    worst = max(puzzle.options, key=lambda o: o[1])[0]
    page.locator(f'#daily-options button[data-option="{worst}"]').click()
    expect(page.locator("#daily-answer")).to_be_visible()
    assert puzzle.best != worst
    row_name = catalog(language, "web")["row_name"]
    best = row_name.format(row=puzzle.best + 1) if puzzle.kind == "row" else str(puzzle.best)
    expect(page.locator("#daily-verdict")).to_contain_text(best)
    # Under a row question, the hand (the cards still to play); under a card question, the hand is the choice.
    expect(page.locator("#daily-hand")).to_be_visible(visible=puzzle.kind == "row")
    rows = page.locator("#daily-table tbody tr")
    by_cost = [str(o) for o, _, _ in sorted(puzzle.options, key=lambda o: o[1])]
    assert rows.evaluate_all("(rs) => rs.map((r) => r.dataset.option)") == by_cost
    expect(rows.first).to_have_class("best")
    expect(page.locator("#daily-table tr.chosen")).to_contain_text(texts["daily_yours"])
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def _poll(pages: list[Page]) -> list[tuple[Page, Decision]]:
    """Wait until one of the pages has a decision for its person (or all games are over)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        seen = [(page, decision(page)) for page in pages]
        asked = [(page, d) for page, d in seen if d["rows"] or d["cards"]]
        if asked or all(d["over"] for _, d in seen):
            return asked
        for page, _ in seen:
            skip_reveal(page)
        pages[0].wait_for_timeout(50)  # polling, bounded by the deadline
    raise AssertionError("nobody was asked anything")


def _check_hints(page: Page, seat: int, replay: dict[str, Any], rows_taken: list[int], language: str) -> None:
    """The hints this person saw are exactly the rules their game showed, at their seat."""
    texts = catalog(language, "learn")
    expect(page.locator("#guide")).to_have_attribute("data-hint", re.compile(r"\bend\b"))
    _fits(page)
    placements = [p for turn in replay["turns"] for p in turn["placements"]]
    sixth = any(p["took"] and not p["chosen"] for p in placements)
    low_other = any(p["chosen"] and p["player"] != seat for p in placements)
    mine = [p["row"] for p in placements if p["chosen"] and p["player"] == seat]
    assert mine == rows_taken  # every row this person took, they chose themself
    hints = set((page.locator("#guide").get_attribute("data-seen") or "").split())
    happened = {"start": True, "end": True, "placed": any(p["player"] == seat and not p["took"] for p in placements),
                "sixth": sixth, "low": low_other, "row": bool(mine), "heads": any(p["took"] for p in placements)}
    assert hints == {kind for kind, it in happened.items() if it}, (language, hints, placements)
    end = page.locator('#guide-text p[data-kind="end"]')
    expected = [texts["guide_end"]] + [texts["guide_missed_sixth"]] * (not sixth) \
        + [texts["guide_missed_low"]] * (not (low_other or mine))
    assert end.all_inner_texts() == expected
    page.locator("#guide-ok").click()
    expect(page.locator("#guide")).to_be_hidden()
    assert page.evaluate("localStorage.getItem('nimmt:guide-done')") == "1"


def _open_guided(page: Page, server: LiveServer, seat: dict[str, Any], language: str) -> None:
    page.goto(f"{server.url}/?lang={language}")
    page.evaluate("([id, token, seat]) => { localStorage.setItem(`nimmt:seat:${id}`, token);"
                  " localStorage.setItem(`nimmt:guide:${id}`, String(seat));"
                  " localStorage.setItem('nimmt:speed', 'fast'); }",
                  [seat["table_id"], seat["token"], seat["seat"]])
    page.goto(f"{server.url}/t/{seat['table_id']}")


def test_the_puzzle_of_the_day_and_the_guided_round_from_the_home_page(browser: Browser, server: LiveServer) -> None:
    context = browser.new_context(**PHONE, locale="pt-BR")
    try:
        page = context.new_page()
        page.goto(f"{server.url}/?lang=pt-BR")
        texts = catalog("pt-BR", "learn")
        expect(page.locator("#guide-note")).to_have_text(texts["guide_help"])
        _puzzle(page, "pt-BR")
        page.locator("#create-name").fill("Ana")
        page.locator("#guide-button").click()
        page.wait_for_url(f"{server.url}/t/**")
        expect(page.locator("#strip > li")).to_have_count(4)  # the person and three bots
        expect(page.locator("#guide")).to_have_attribute("data-hint", "start")
        expect(page.locator("#guide-text")).to_have_text(texts["guide_start"])
        _fits(page)
        _apart(page, "hand")
        # No more tips: not here, not after a reload, not at the next table.
        page.locator("#guide-stop").click()
        expect(page.locator("#guide")).to_be_hidden()
        page.reload()
        expect(page.locator("#hand button.card").first).to_be_visible()
        assert page.locator("#guide").count() == 0
        page.goto(f"{server.url}/")
        expect(page.locator("#guide-note")).to_have_text(texts["guide_done_note"])
    finally:
        context.close()


def test_a_guided_round_from_start_to_end_in_two_languages(browser: Browser, server: LiveServer) -> None:
    """Two newcomers (pt-BR on a 360 px phone, fr on a 390 px one) and a bot, one guided round."""
    created = httpx.post(f"{server.url}/api/tables", timeout=30, json={
        "name": "Ana", "seats": 3, "bots": ["beginner"], "language": "pt-BR", "options": {"rounds": 1, "coach": False},
    }).json()
    joined = httpx.post(f"{server.url}/api/tables/{created['table_id']}/join", json={"name": "Léa"}, timeout=30).json()
    people = [(created, "pt-BR", PHONE), (joined, "fr", TALL_PHONE)]
    # Reduced motion (a person's setting the table honours): the turns come without their animation,
    # which takes the game from some 40 s to 10 here; the tips wait for a reveal either way.
    contexts = [browser.new_context(**device, locale=language, reduced_motion="reduce")
                for _, language, device in people]
    try:
        pages = [context.new_page() for context in contexts]
        for page, (seat, language, _) in zip(pages, people, strict=True):
            _open_guided(page, server, seat, language)
        pages[0].locator("#start").click()
        for page, (_, language, _) in zip(pages, people, strict=True):
            expect(page.locator("#guide")).to_have_attribute("data-hint", "start")
            expect(page.locator("#guide-text")).to_have_text(catalog(language, "learn")["guide_start"])
            _fits(page)
            _apart(page, "hand")
        rows_taken: dict[Page, list[int]] = {page: [] for page in pages}
        while asked := _poll(pages):
            for page, seen in asked:
                if seen["rows"] and not rows_taken[page]:
                    # The table waits for this person's row, a first time: the tip says so (each rule
                    # once), with every row in sight.
                    expect(page.locator("#guide")).to_have_attribute("data-hint", re.compile(r"\brow\b"))
                    _fits(page)
                    _apart(page, "rows")
                if seen["rows"]:
                    rows_taken[page].append(seen["rows"][0])
                # A hint about a row (a card placed, a sixth card, a low card) leaves that row in sight.
                assert page.evaluate(_ROWS_COVERED) == [], page.evaluate(_GUIDE)
                act(page, seen)
        replay = httpx.get(f"{server.url}/api/tables/{created['table_id']}/games/1/replay", timeout=30).json()
        for page, (seat, language, _) in zip(pages, people, strict=True):
            still(page)
            _check_hints(page, seat["seat"], replay, rows_taken[page], language)
    finally:
        for context in contexts:
            context.close()
