"""The table on a phone and a desk: every card of the hand and every row on the first screen
during a card decision, a reveal that plays before the next decision opens (or is skipped),
nothing moving with reduced motion, the standings after the last card, the end explained."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.helpers import WAIT_MS, act, advice_messages, decision, next_decision, skip_reveal, still
from tests.server.live import LiveServer

SIZES = {
    "phone-small": (360, 640),
    "phone": (390, 844),
    "phone-landscape": (844, 390),
    "desk": (1280, 800),
}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "nimmt.sqlite3", bot_delay=0, seed=4) as live:
        yield live


def _context(browser: Browser, size: str, **options: Any) -> BrowserContext:
    width, height = SIZES[size]
    phone = size.startswith("phone")
    return browser.new_context(viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone,
                               **options)


def _play_now(server: LiveServer, page: Page, seats: int, *, rounds: int | None = 1, language: str = "en",
              bot: str = "heuristic") -> str:
    """Ana and ``seats - 1`` bots, started at once; the page opens on Ana's first decision."""
    options = {"rounds": rounds} if rounds else {}
    created = httpx.post(f"{server.url}/api/tables", json={
        "name": "Ana", "seats": seats, "bots": [bot] * (seats - 1), "options": options, "start": True,
        "language": language}).json()
    page.goto(f"{server.url}/t/{created['table_id']}?lang={language}#seat={created['token']}")
    expect(page.locator("#hand button.card:not([disabled])").first).to_be_visible()
    return str(created["table_id"])


# Every box that must be on the first screen, in page coordinates (as if scrolled to the top).
_BOXES = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return { top: r.top + window.scrollY, bottom: r.bottom + window.scrollY, left: r.left, right: r.right,
             width: r.width }; };
  return {
    width: window.innerWidth, height: window.innerHeight,
    scrollWidth: document.documentElement.scrollWidth,
    hand: [...document.querySelectorAll('#hand button.card')].map(box),
    rows: [...document.querySelectorAll('#rows > li')].map((row) => ({
      row: box(row), summary: box(row.querySelector('.row-summary')),
      cards: [...row.querySelectorAll('.row-cards .card')].map(box) })),
    chips: [...document.querySelectorAll('#strip .chip')].map(box),
    numbers: [...document.querySelectorAll('#hand button.card .num')]
      .map((n) => parseFloat(getComputedStyle(n).fontSize)),
  };
}"""


def _on_first_screen(page: Page, what: str) -> dict[str, Any]:
    seen: dict[str, Any] = page.evaluate(_BOXES)
    width, height = seen["width"], seen["height"]

    def inside(box: dict[str, float], name: str) -> None:
        assert box["top"] >= -0.5 and box["bottom"] <= height + 0.5, f"{what}: {name} is off the first screen {box}"
        assert box["left"] >= -0.5 and box["right"] <= width + 0.5, f"{what}: {name} is off the side {box}"

    assert seen["scrollWidth"] <= width, f"{what}: the page scrolls sideways"
    assert seen["hand"], f"{what}: no hand"
    for index, box in enumerate(seen["hand"]):
        inside(box, f"card {index} of the hand")
    assert len(seen["rows"]) == 4
    for index, row in enumerate(seen["rows"]):
        inside(row["row"], f"row {index + 1}")
        inside(row["summary"], f"row {index + 1}'s bullheads")
        tops = {round(card["top"]) for card in row["cards"]}
        assert len(tops) == 1, f"{what}: row {index + 1} does not stand on one line"
        for card in row["cards"]:
            inside(card, f"a card of row {index + 1}")
    for index, chip in enumerate(seen["chips"]):
        inside(chip, f"player {index + 1} in the strip")
    # Legible: a card's number is at least 15 px high on every screen.
    assert min(seen["numbers"]) >= 15, f"{what}: the cards' numbers are too small {min(seen['numbers'])}"
    return seen


# The phone sizes are looked at on one page, turned and resized at each decision as a phone is (one
# game checks the three); the desk has its own page, without touch.
_KINDS = {"phone": [size for size in SIZES if size.startswith("phone")], "desk": ["desk"]}

_TWO_FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


@pytest.mark.parametrize("kind", list(_KINDS))
@pytest.mark.parametrize("seats", [4, 10])
def test_a_card_decision_fits_the_first_screen(browser: Browser, server: LiveServer, kind: str, seats: int,
                                               screenshots: Path) -> None:
    """At each decision of a whole round, until a row holds five cards: the hand, the rows (five cards
    on one line) and every player's total and choice lie on the first screen, with no scrolling."""
    sizes = _KINDS[kind]
    # Without motion each turn shows at once: this test looks at decisions, not at the reveal (a
    # 10-seat game with the reveal skipped by taps took 67 s here, 4 s without motion).
    context = _context(browser, sizes[0], reduced_motion="reduce")
    try:
        page = context.new_page()
        _play_now(server, page, seats)

        def look(what: str) -> bool:
            """Checks the decision at every size of this kind; whether a row holds five cards."""
            full = False
            for size in sizes:
                width, height = SIZES[size]
                page.set_viewport_size({"width": width, "height": height})
                page.evaluate(_TWO_FRAMES)  # the layout follows the new size (the felt is fitted on resize)
                boxes = _on_first_screen(page, f"{what} at {size}")
                full = full or any(len(row["cards"]) == 5 for row in boxes["rows"])
                if full and seats == 4:
                    page.screenshot(path=str(screenshots / f"table-{size}.png"))
            width, height = SIZES[sizes[0]]
            page.set_viewport_size({"width": width, "height": height})
            return full

        look("the first decision")
        full_row = False
        while not (seen := next_decision(page))["over"]:
            if seen["cards"] and look(f"a decision with {len(seen['cards'])} cards in hand"):
                full_row = True
                break
            act(page, seen)
        assert full_row, "no row ever held five cards: the test showed nothing about full rows"
    finally:
        context.close()


# A look at the page at every frame: is the reveal playing, is a decision open, are the standings
# shown, what does the news line say, and how many animations run.
_WATCH = """
window.frames_seen = [];
const look = () => {
  const stage = document.getElementById('stage');
  if (stage) window.frames_seen.push({
    t: performance.now(),
    stage: !stage.hidden,
    open: document.querySelectorAll('#hand button.card:not([disabled])').length,
    rows: document.querySelectorAll('#rows button.row-button:not([disabled])').length,
    over: !document.getElementById('over').hidden,
    news: document.getElementById('news').textContent,
    animations: document.getAnimations().length,
    pending: document.querySelectorAll('#reveal .pending').length,
    moving: document.getAnimations().filter((a) => a.playState === 'running').length,
  });
  requestAnimationFrame(look);
};
requestAnimationFrame(look);
"""


def _speed(page: Page, speed: str) -> None:
    page.add_init_script(f"localStorage.setItem('nimmt:speed', '{speed}');")


def test_the_reveal_plays_before_the_next_decision_and_the_standings_after_it(
        browser: Browser, server: LiveServer) -> None:
    context = _context(browser, "phone")
    try:
        page = context.new_page()
        _speed(page, "fast")
        page.add_init_script(_WATCH)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        _play_now(server, page, 4)
        reveals = 0
        while not (seen := next_decision(page, skip=False))["over"]:
            if act(page, seen) == "card":
                reveals += 1
        expect(page.locator("#over")).to_be_visible()
        frames: list[dict[str, Any]] = page.evaluate("() => window.frames_seen")
        assert not errors, errors
        # Never a decision open while the reveal plays; the reveal was shown at every turn.
        assert not [f for f in frames if f["stage"] and f["open"]], "a card could be played during the reveal"
        shown = sum(1 for a, b in itertools.pairwise(frames) if not a["stage"] and b["stage"])
        assert shown >= reveals - 1 >= 9, (shown, reveals)
        assert any(f["moving"] for f in frames if f["stage"]), "nothing moved during the reveals"
        # The standings come after the last card is placed: once shown, no reveal plays any more.
        first_over = next(i for i, f in enumerate(frames) if f["over"])
        assert not any(f["stage"] for f in frames[first_over:])
        assert frames[first_over]["pending"] == 0
        assert any(f["stage"] for f in frames[:first_over])
        # The last screen explains the end and shows each player's totals round by round.
        expect(page.locator("#end-reason")).to_have_text("Round 1 of 1 played: the game is over.")
        expect(page.locator("#winners")).to_contain_text(re.compile("wins|Shared win"))
        expect(page.locator("#chart svg polyline")).to_have_count(4)
        # Every row taken was shown to the table as news while it happened.
        log = page.locator("#reveal").inner_text()
        for taken in re.findall(r"takes row (\d)", log):
            assert any(f"row {taken}" in f["news"] for f in frames), f"row {taken} taken without a word"
    finally:
        context.close()


# Where the skip button stands at each frame it shows (page coordinates): it must not move under a finger.
_SKIP_BOXES = """
window.skip_boxes = [];
const lookAtSkip = () => {
  const skip = document.getElementById('skip');
  if (skip && !skip.hidden) {
    const r = skip.getBoundingClientRect();
    window.skip_boxes.push([Math.round(r.left), Math.round(r.top + window.scrollY), Math.round(r.width)]);
  }
  requestAnimationFrame(lookAtSkip);
};
requestAnimationFrame(lookAtSkip);
"""


def _double_tap(context: BrowserContext, page: Page, x: float, y: float, gap: float = 0.15) -> None:
    """Two taps ``gap`` seconds apart, as the finger made them. Each touch carries the time it began
    (a phone's touch events do), so a busy machine that delivers the second one late still shows
    the page a double tap, not a second tap made after the next decision settled."""
    cdp = context.new_cdp_session(page)
    try:
        began = time.time()
        for when in (began, began + gap):
            time.sleep(max(0.0, when - time.time()))
            cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}],
                                                  "timestamp": when})
            cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": [], "timestamp": when + 0.03})
    finally:
        cdp.detach()


def test_a_tap_on_the_reveal_its_button_or_a_key_skips_it(browser: Browser, server: LiveServer) -> None:
    context = _context(browser, "phone")
    try:
        page = context.new_page()
        _speed(page, "slow")
        page.add_init_script(_SKIP_BOXES)
        asked = advice_messages(page, "framesent")
        _play_now(server, page, 4, rounds=None)
        ways = ["button", "tap", "key"]
        while ways:
            seen = next_decision(page, skip=False)
            while not seen["cards"]:
                act(page, seen)
                seen = next_decision(page, skip=False)
            act(page, seen)
            # The reveal plays (after Ana's row choice, if her card was below every row).
            page.wait_for_function("""() => !document.getElementById('skip').hidden
              || document.querySelector('#rows button.row-button:not([disabled])')""", timeout=WAIT_MS)
            if decision(page)["rows"]:
                act(page)
            skip = page.locator("#skip")
            try:
                expect(skip).to_be_visible(timeout=3000)
            except AssertionError:
                continue  # this reveal ended with the row choice: the next turn will show one
            assert decision(page)["cards"] == [], "the hand is open while the reveal plays"
            how = ways[0]
            started = time.monotonic()
            if how == "button":
                box = skip.bounding_box()
                assert box is not None
                # A double tap: the second lands where Skip was, on whatever the hand's line shows now.
                _double_tap(context, page, box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            elif how == "tap":
                page.locator("#stage").click(position={"x": 10, "y": 10})
            else:
                page.keyboard.press("Escape")
            # The reveal ends, or stops for a row choice (a skip never passes one): then another turn.
            page.wait_for_function("""() => document.getElementById('stage').hidden
              || document.getElementById('skip').hidden""", timeout=WAIT_MS)
            assert not asked, "a tap meant for Skip asked the coach"
            if not page.locator("#stage").is_hidden():
                continue
            # At the slow speed a reveal of four cards takes seven seconds; one skip ends it at once.
            assert time.monotonic() - started < 2.5, how
            ways.pop(0)
            expect(page.locator("#hand button.card:not([disabled])").first).to_be_visible()
            assert page.locator("#advice").is_hidden(), "a tap meant for Skip asked the coach"
        boxes = {tuple(box) for box in page.evaluate("() => window.skip_boxes")}
        assert len(boxes) == 1, f"the skip button moved: {sorted(boxes)}"
    finally:
        context.close()


def test_reduced_motion_moves_nothing_and_tells_the_same_facts(browser: Browser, server: LiveServer) -> None:
    context = _context(browser, "phone", reduced_motion="reduce")
    try:
        page = context.new_page()
        page.add_init_script(_WATCH)
        _play_now(server, page, 4)
        for _ in range(4):
            act(page, next_decision(page, skip=False))
        still(page)
        frames: list[dict[str, Any]] = page.evaluate("() => window.frames_seen")
        assert frames
        assert not any(f["stage"] for f in frames), "a reveal played with reduced motion"
        assert not any(f["moving"] for f in frames), "something moved with reduced motion"
        # The facts are written instead: the last turn's cards and where each went, shown open.
        expect(page.locator("#reveal-details")).to_have_attribute("open", "")
        expect(page.locator("#reveal .reveal-item")).to_have_count(4)
        expect(page.locator("#reveal .reveal-item").first).to_contain_text(
            re.compile(r"goes on row \d|takes|is lower than every row"))
    finally:
        context.close()


def test_the_tab_title_says_when_the_table_waits_for_you(browser: Browser, server: LiveServer) -> None:
    created = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 2, "options": {"rounds": 1}}).json()
    table_id = created["table_id"]
    joined = httpx.post(f"{server.url}/api/tables/{table_id}/join", json={"name": "Bruno"}).json()
    contexts = [_context(browser, "desk"), _context(browser, "phone")]
    try:
        ana, bruno = (context.new_page() for context in contexts)
        ana.goto(f"{server.url}/t/{table_id}?lang=en#seat={created['token']}")
        bruno.goto(f"{server.url}/t/{table_id}?lang=en#seat={joined['token']}")
        ana.locator("#start:not([disabled])").click()
        expect(ana).to_have_title(re.compile(r"^● Your turn · "))
        # Ana turns the sound on in the table's menu (it plays once, so she hears it); Bruno leaves it off.
        ana.locator("#menu summary").click()
        ana.locator("#sound").check()
        ana.locator("#menu summary").click()
        beeps = "() => Number(document.body.dataset.beeps || 0)"
        assert ana.evaluate(beeps) == 1
        act(ana, next_decision(ana))
        expect(ana).not_to_have_title(re.compile("Your turn"))  # the table waits for Bruno now
        expect(bruno).to_have_title(re.compile(r"^● Your turn · "))
        act(bruno, next_decision(bruno))
        while not decision(ana)["cards"]:  # Ana's next card, after a row choice if one is asked
            for page in (ana, bruno):
                if decision(page)["rows"]:
                    act(page)
            ana.wait_for_timeout(50)
        expect(ana).to_have_title(re.compile(r"^● Your turn · "))
        # A decision that opened while Ana waited sounded once for her, never for Bruno.
        ana.wait_for_function(f"() => ({beeps})() >= 2")
        assert bruno.evaluate(beeps) == 0
    finally:
        for context in contexts:
            context.close()


def test_between_rounds_a_line_says_why_the_game_goes_on(browser: Browser, server: LiveServer) -> None:
    context = _context(browser, "phone")
    try:
        page = context.new_page()
        _play_now(server, page, 3, rounds=2)
        deadline = time.monotonic() + WAIT_MS / 1000 * 4
        while True:
            assert time.monotonic() < deadline, "the first round did not end"
            seen = next_decision(page)
            if page.locator("#status .where").inner_text().startswith("Round 2"):
                break
            act(page, seen)
        # The whole sentence about the round came over the hand between the rounds; once it is
        # skipped, the news line keeps why the game goes on.
        expect(page.locator("#news")).to_contain_text("Round 1 of 2 played: the game goes on.")
        skip_reveal(page)
    finally:
        context.close()


def test_watchers_see_the_reveal_too(browser: Browser, server: LiveServer) -> None:
    """The read-only page for a big screen plays each turn's reveal where a hand would be."""
    contexts = [_context(browser, "phone"), _context(browser, "desk")]
    try:
        ana, screen = (context.new_page() for context in contexts)
        table_id = _play_now(server, ana, 3)
        screen.goto(f"{server.url}/watch/{table_id}?lang=en")
        expect(screen.locator("#rows > li")).to_have_count(4)
        expect(screen.locator("#hand")).to_be_hidden()
        act(ana, next_decision(ana))
        # The three cards of the turn, face up, with their players' names, until placed.
        screen.wait_for_function("() => document.querySelectorAll('#stage:not([hidden]) #stage-cards li').length === 3",
                                 timeout=WAIT_MS)
        expect(screen.locator("#stage-cards")).to_contain_text("Ana")
        expect(screen.locator("#stage")).to_be_hidden()  # and the reveal ends by itself
    finally:
        for context in contexts:
            context.close()


def test_the_coach_comes_up_over_the_rows_and_leaves_the_hand_free(browser: Browser, server: LiveServer) -> None:
    context = _context(browser, "phone-small")
    try:
        page = context.new_page()
        _play_now(server, page, 4)
        page.get_by_role("button", name="Advice on your cards").click()
        expect(page.locator("#advice-table tbody tr")).to_have_count(10)
        advice = page.locator("#advice").bounding_box()
        assert advice is not None and advice["y"] >= 0 and advice["y"] + advice["height"] <= 640
        for box in page.locator("#hand button.card").evaluate_all(
                "els => els.map((e) => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; })"):
            assert box[0] >= advice["y"] + advice["height"] or box[1] <= advice["y"], "the advice hides the hand"
        # Close: the advice goes, and the keyboard is back on the button that asked for it.
        page.get_by_role("button", name="Close").click()
        expect(page.locator("#advice")).to_be_hidden()
        expect(page.get_by_role("button", name="Advice on your cards")).to_be_focused()
    finally:
        context.close()
