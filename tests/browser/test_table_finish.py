"""The finished table at 360×640 in every language (two whole games of three languages each):
nothing moves under the finger (a second tap after a skip plays nothing), the status speaks of the
turn the table shows at every frame, the last turn and the standings keep the same frame, no page
scrolls sideways and no text is cut (home with its options open, lobby, table, end, watch), and
what happened stays on the first screen after a skip and a reload."""

from __future__ import annotations

import contextlib
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from babel import Locale
from playwright.sync_api import Browser, Page, expect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from nimmt.i18n import LANGUAGES
from tests.browser.helpers import WAIT_MS, act, decision, next_decision
from tests.server.live import LiveServer

PHONE: dict[str, Any] = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True}
LONG_NAME = "Maria Eduarda Figueiredo"  # 24 characters, the most a name may have


@pytest.fixture(scope="module")
def table_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with LiveServer(tmp_path_factory.mktemp("finish") / "nimmt.sqlite3", bot_delay=0.05, seed=11) as live:
        yield live


# Text cut anywhere on the page: an element that clips its text (overflow other than visible, or a
# line clamp) and whose text is larger than its box; and the page wider than the screen. The
# players' names in the chips and under the revealed cards are shortened by design: the full name
# is one tap away (checked below), so they are left out.
_CUT = """() => {
  const cut = [];
  for (const node of document.querySelectorAll('main *, header *')) {
    if (!node.getClientRects().length
        || node.closest('.chip .who, .stage-cards .who, .visually-hidden, svg, option')) continue;
    const rect = node.getBoundingClientRect();
    if (rect.width <= 1 || rect.height <= 1) continue;  // hidden for the eyes, kept for screen readers
    if (![...node.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim())) continue;
    const style = getComputedStyle(node);
    if (style.visibility === 'hidden') continue;
    if (node.tagName === 'SELECT' || node.tagName === 'INPUT') continue;
    const clips = style.overflowX !== 'visible' || style.overflowY !== 'visible' || style.webkitLineClamp !== 'none'
      || style.textOverflow === 'ellipsis';
    if (clips && (node.scrollWidth > node.clientWidth + 1 || node.scrollHeight > node.clientHeight + 1)) {
      cut.push(`${node.id || node.className || node.tagName}: ${node.textContent.trim().slice(0, 80)}`);
    }
  }
  // A select shows its chosen option in its own box: that text must fit it (the arrow aside).
  const ruler = document.createElement('span');
  ruler.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap';
  document.body.append(ruler);
  for (const select of document.querySelectorAll('main select, header select')) {
    if (!select.getClientRects().length || select.selectedIndex < 0) continue;
    ruler.style.font = getComputedStyle(select).font;
    ruler.textContent = select.options[select.selectedIndex].text;
    if (ruler.getBoundingClientRect().width > select.clientWidth - 18) {
      cut.push(`select ${select.id}: ${ruler.textContent}`);
    }
  }
  ruler.remove();
  const width = document.documentElement.scrollWidth;
  const wide = width > window.innerWidth ? [`page ${width} px wide`] : [];
  return [...wide, ...cut];
}"""

# Every frame of the table: the turn the status names and the turn the stage reveals, the frame's
# boxes in page coordinates (the status line, the players, the felt), whether the site's header
# shows, the page's width, and any text cut in the table's own lines.
_FRAMES = """
window.frames_seen = [];
const pageBox = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
  return [Math.round(r.left), Math.round(r.top + window.scrollY), Math.round(r.width), Math.round(r.height)]; };
const clipped = (el) => el && el.getClientRects().length && !el.hidden
  && (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1);
const look = () => {
  const stage = document.getElementById('stage');
  const status = document.getElementById('status');
  if (stage && document.body.dataset.screen) window.frames_seen.push({
    screen: document.body.dataset.screen,
    stage: stage.hidden ? null : `${stage.dataset.round}/${stage.dataset.turn}`,
    status: `${status.dataset.round}/${status.dataset.turn}`,
    bar: pageBox(document.querySelector('.bar')),
    strip: pageBox(document.getElementById('strip')),
    felt: pageBox(document.getElementById('felt')),
    header: document.querySelector('header.top').getClientRects().length > 0,
    wide: document.documentElement.scrollWidth > window.innerWidth,
    cut: ['#status', '#news', '#hand-help', '#stage-note', '#skip', '#chip-info']
      .filter((s) => clipped(document.querySelector(s)))
      .map((s) => `${s}: ${document.querySelector(s).textContent}`),
  });
  requestAnimationFrame(look);
};
requestAnimationFrame(look);
"""


def _cut(page: Page, where: str, problems: list[str]) -> None:
    """Adds to ``problems`` what is cut on the page (all of a game's are reported at once)."""
    found: list[str] = page.evaluate(_CUT)
    problems.extend(f"{where}: {text}" for text in found if f"{where}: {text}" not in problems)


def _home_with_options(page: Page, url: str, language: str, problems: list[str]) -> None:
    page.goto(f"{url}/?lang={language}")
    page.locator("#create-options summary").click()
    page.locator("#create-bots").fill("3")
    page.locator("#create-bots").dispatch_event("input")
    expect(page.locator("#bot-choices select")).to_have_count(3)
    _cut(page, f"home ({language})", problems)


def _double_tap_after_a_skip(page: Page) -> None:
    """A tap on the reveal where a card of the hand will be, and a second one there 150 ms later:
    the reveal is skipped, and no card is played."""
    hand = page.locator("#hand").bounding_box()
    assert hand is not None
    x, y = hand["x"] + hand["width"] / 2, hand["y"] + hand["height"] / 4
    page.wait_for_function("() => !document.getElementById('stage').hidden", timeout=WAIT_MS)
    if decision(page)["rows"]:
        return  # this turn waits for Ana's row first: no reveal to skip under her finger
    page.touchscreen.tap(x, y)
    page.wait_for_timeout(150)
    page.touchscreen.tap(x, y)
    page.wait_for_timeout(500)
    assert page.locator("#hand button.card[aria-pressed=true]").count() == 0, "a tap meant for the reveal played a card"
    assert not page.locator("#error").text_content()


def _what_happened_on_first_screen(page: Page, players: int) -> None:
    """The chips show each player's card of the last turn, as the written-out turn lists them."""
    page.wait_for_function(f"() => document.querySelectorAll('#strip .played').length === {players}", timeout=WAIT_MS)
    chips = sorted(page.locator("#strip .played").evaluate_all("els => els.map((e) => Number(e.dataset.card))"))
    listed = sorted(page.locator("#reveal .reveal-item .card").evaluate_all(
        "els => els.map((e) => Number(e.dataset.card))"))
    assert chips == listed
    for box in page.locator("#strip .played").evaluate_all(
            "els => els.map((e) => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; })"):
        assert box[0] >= 0 and box[1] <= 640


# Two whole games cover the six languages: each is played in three of them in turn (the page is
# opened again in the next language at turns 4 and 7), and its standings and watch page are then
# looked at in all three. The first players' languages lead, one game each.
GAMES = [("pt-BR", "de", "en"), ("fr", "es", "pt-PT")]
assert sorted(code for game in GAMES for code in game) == sorted(LANGUAGES)
_SWITCH_AT = {3: 1, 6: 2}  # after Ana's third card, the second language; after her sixth, the third


def _check_frames(frames: list[dict[str, Any]], where: str) -> None:
    """One page's frames, from its load to the next: the status speaks of the turn the table shows at
    every frame of a reveal; the status line and the players never move, the site's header never
    comes back, the page never scrolls sideways."""
    assert frames, where
    wrong = [f for f in frames if f["stage"] and f["stage"] != f["status"]]
    assert not wrong, (where, wrong[:3])
    assert {tuple(f["bar"]) for f in frames} == {tuple(frames[0]["bar"])}, where
    assert {tuple(f["strip"][:3]) for f in frames} == {tuple(frames[0]["strip"][:3])}, where
    assert {tuple(f["felt"][:3]) for f in frames} == {tuple(frames[0]["felt"][:3])}, where
    assert not any(f["header"] for f in frames), where
    assert not any(f["wide"] for f in frames), where


@pytest.mark.parametrize("languages", GAMES, ids=["-".join(game) for game in GAMES])
def test_a_whole_game_at_360_px(browser: Browser, table_server: LiveServer, languages: tuple[str, ...]) -> None:
    server = table_server
    context = browser.new_context(**PHONE)
    errors: list[str] = []
    problems: list[str] = []  # text cut, sideways scroll
    other: _Player | None = None
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        for language in languages:
            _home_with_options(page, server.url, language, problems)
            # Plural forms: the browser picks them as Babel's rules do for this language.
            forms: list[str] = page.evaluate(
                f"() => [...Array(201).keys()].map((n) => new Intl.PluralRules('{language}').select(n))")
            babel = Locale.parse(language.replace("-", "_")).plural_form
            assert forms == [babel(n) for n in range(201)], language

        language = languages[0]
        created = httpx.post(f"{server.url}/api/tables", json={
            "name": LONG_NAME, "seats": 4, "bots": ["heuristic", "heuristic"], "options": {"rounds": 1},
            "language": language}).json()
        table_id, token = created["table_id"], created["token"]
        page.add_init_script("localStorage.setItem('nimmt:speed', 'fast');")
        for shown in (*languages[1:], language):  # the lobby in each, the table's own language last
            page.goto(f"{server.url}/t/{table_id}?lang={shown}#seat={token}")
            expect(page.locator("#lobby-seats li")).to_have_count(4)
            _cut(page, f"lobby ({shown})", problems)
        joined = httpx.post(f"{server.url}/api/tables/{table_id}/join", json={"name": "Bartholomew Jones"}).json()
        watch = context.new_page()
        watch.goto(f"{server.url}/watch/{table_id}?lang={language}")
        page.locator("#start:not([disabled])").click()
        page.add_init_script(_FRAMES)
        page.reload()
        # The second person plays over the WebSocket protocol: the lowest card each turn.
        other = _Player(server, table_id, joined["token"])
        other.start()
        expect(page.locator("#hand button.card:not([disabled])").first).to_be_visible()
        _cut(page, f"the first decision ({language})", problems)
        segments: list[tuple[str, list[dict[str, Any]]]] = []  # each page load's frames
        turn = 0
        reloaded = False
        while True:
            seen = next_decision(page, skip=turn != 9)
            if seen["over"]:
                break
            if seen["rows"] and not reloaded:
                # A reload at a row choice: the turn's face-up cards are on the first screen.
                reloaded = True
                segments.append((f"before the reload ({language})", page.evaluate("() => window.frames_seen")))
                page.reload()
                page.wait_for_function(
                    "() => document.querySelectorAll('#rows button.row-button:not([disabled])').length",
                    timeout=WAIT_MS)
                _what_happened_on_first_screen(page, 4)
                seen = decision(page)
            _cut(page, f"a decision in turn {turn + 1} ({language})", problems)
            if act(page, seen) == "card":
                turn += 1
                if turn == 2:
                    _double_tap_after_a_skip(page)
                    if not decision(page)["rows"]:
                        _what_happened_on_first_screen(page, 4)
                if turn in _SWITCH_AT:
                    segments.append((f"turns in {language}", page.evaluate("() => window.frames_seen")))
                    language = languages[_SWITCH_AT[turn]]
                    page.goto(f"{server.url}/t/{table_id}?lang={language}#seat={token}")
                    watch.goto(f"{server.url}/watch/{table_id}?lang={language}")
            _cut(watch, f"the watch page ({language})", problems)
        expect(page.locator("#over")).to_be_visible()
        _cut(page, f"the standings ({language})", problems)
        _cut(watch, f"the watch page at the end ({language})", problems)
        # A tap on a player says their full name.
        page.locator("#strip .chip-face").first.click()
        expect(page.locator("#chip-info")).to_contain_text(LONG_NAME)
        frames: list[dict[str, Any]] = page.evaluate("() => window.frames_seen")
        segments.append((f"the last turns in {language}", frames))
        assert any(f["stage"] == "1/10" for f in frames), "the last turn's reveal was not seen"
        assert frames[-1]["screen"] == "over"
        # The standings and the watch page at the end, in the game's other languages.
        for shown in languages[:-1]:
            page.goto(f"{server.url}/t/{table_id}?lang={shown}#seat={token}")
            expect(page.locator("#over")).to_be_visible()
            _cut(page, f"the standings ({shown})", problems)
            watch.goto(f"{server.url}/watch/{table_id}?lang={shown}")
            expect(watch.locator("#over")).to_be_visible()
            _cut(watch, f"the watch page at the end ({shown})", problems)
        assert not errors, errors
        problems.extend(sorted({cut for _, seen_frames in segments for f in seen_frames for cut in f["cut"]}))
        assert not problems, "\n".join(problems)
        for where, seen_frames in segments:
            _check_frames(seen_frames, where)
    finally:
        context.close()
        if other is not None:
            other.close()


class _Player(threading.Thread):
    """A second person at the table, over the WebSocket protocol: plays their lowest card and takes
    the first row whenever the table asks them, until the game is over."""

    def __init__(self, server: LiveServer, table_id: str, token: str) -> None:
        super().__init__(daemon=True)
        self.opened = contextlib.ExitStack()  # websockets wants its connection used as a context manager
        self.socket = self.opened.enter_context(connect(f"{server.ws_url}/ws/{table_id}"))
        self.socket.send(json.dumps({"type": "hello", "token": token}))
        self.refs = 0

    def run(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            for raw in self.socket:
                message = json.loads(raw)
                if message.get("type") != "state" or not message.get("view"):
                    continue
                if message["table"]["status"] == "over":
                    return
                legal = message.get("legal") or []
                if not legal or message["view"].get("my_card") is not None:
                    continue
                self.refs += 1
                answer = min(legal, key=lambda a: a.get("card", a.get("row", 0)))
                action = {"type": "play", "card": answer["card"]} if "card" in answer else {
                    "type": "choose_row", "row": answer["row"]}
                self.socket.send(json.dumps({**action, "version": message["version"], "ref": str(self.refs)}))

    def close(self) -> None:
        self.opened.close()


@pytest.fixture
def graced(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "nimmt.sqlite3", bot_delay=0, seed=5, away_grace=2) as live:
        yield live


def test_the_absent_rule_hands_the_seat_over_by_itself(browser: Browser, graced: LiveServer) -> None:
    """A table made with "a bot plays for them after a short wait": Bruno leaves, Ana's page counts down
    what will happen, then the bot plays for him with nobody asking; back, Bruno is told so."""
    server = graced
    contexts = [browser.new_context(**PHONE), browser.new_context(**PHONE)]
    try:
        ana = contexts[0].new_page()
        ana.goto(f"{server.url}/?lang=en")
        ana.locator("#create-name").fill("Ana")
        ana.locator("#create-options summary").click()
        ana.locator("#create-seats").fill("3")
        ana.locator("#create-bots").fill("1")
        ana.locator("#create-bots").dispatch_event("input")
        ana.locator("#create-rounds").fill("1")
        expect(ana.locator("#create-absent")).to_have_value("bot")  # nobody waits: the default
        ana.get_by_role("button", name="Create the table").click()
        ana.wait_for_url(re.compile(r"/t/[\w-]+$"))
        table_id = ana.url.rsplit("/", 1)[1]
        bruno = contexts[1].new_page()
        bruno.goto(f"{server.url}/t/{table_id}?lang=en")
        bruno.locator("#join-name").fill("Bruno")
        bruno.get_by_role("button", name="Sit down").click()
        ana.locator("#start:not([disabled])").click()
        expect(bruno.locator("#hand button.card:not([disabled])").first).to_be_visible()
        bruno.close()
        expect(ana.locator("#absent")).to_contain_text("Bruno is away. In ")
        expect(ana.locator("#absent")).to_contain_text("a bot plays for them until they return")
        # With nobody asking, the bot takes the seat, and the game goes on: Ana plays turn after turn.
        expect(ana.locator('#strip [data-seat="1"] .tag')).to_have_text("bot")
        for _ in range(2):
            act(ana, next_decision(ana))
        # Bruno comes back while the table waits for Ana: the bot has chosen his card this turn, and
        # he is told so (not "You chose"); the seat is his again at his next decision.
        next_decision(ana)
        bruno = contexts[1].new_page()
        bruno.goto(f"{server.url}/t/{table_id}?lang=en")
        expect(bruno.locator("#hand-help")).to_contain_text(
            re.compile(r"The bot playing for you chose \d+ this turn\."))
        # His screen lists what the bot played while he was away, with the button to take his seat back.
        expect(bruno.locator("#absent")).to_contain_text(re.compile(r"The bot played: \d+"))
        act(ana, next_decision(ana))
        expect(bruno.locator("#hand button.card:not([disabled])").first).to_be_visible()
    finally:
        for context in contexts:
            context.close()
