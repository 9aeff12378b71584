"""The review in the browser: the replay page's accuracy table, its chart of each player's loss, a
tap on the chart to a turn's decisions and their options; the table's last screen, each player's
accuracy and costliest decision one tap from the replay. On phones (360×640, 390×844) and a desk (1280×800),
in English, Brazilian Portuguese and French."""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from babel import Locale
from playwright.sync_api import Browser, Page, expect
from websockets.sync.client import connect

from nimmt.i18n import catalog
from tests.browser.helpers import shown_hidden
from tests.server.helpers import legal_cards, legal_rows
from tests.server.live import LiveServer

WAIT = 240.0
# One worker plays and reviews the module's game once (--dist loadgroup), not each worker its own.
pytestmark = pytest.mark.xdist_group("review_pages")
GOLDEN = Path(__file__).resolve().parents[1] / "data" / "records" / "golden"


def _until(socket: Any, kind: str) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(socket.recv(timeout=30))
        if message["type"] == kind or (kind == "answer" and message["type"] in ("ack", "error")):
            return message


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server of this module's own: the session's shared one may be busy finishing the bots' games of
    tables that earlier tests left (their people gone, bots play on), and this game's bots would
    wait behind them in the pool."""
    with LiveServer(tmp_path_factory.mktemp("review") / "nimmt.sqlite3", bot_delay=0, seed=4) as live:
        yield live


@pytest.fixture(scope="module")
def game(server: LiveServer) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """A table of Ana and two bots whose one-round game is over and reviewed: (table, Ana's token, review)."""
    created = httpx.post(f"{server.url}/api/tables", json={
        "name": "Ana", "seats": 3, "bots": ["random", "heuristic"], "options": {"rounds": 1}}).json()
    table_id, token = created["table_id"], created["token"]
    rng = random.Random(5)
    with connect(f"{server.ws_url}/ws/{table_id}", open_timeout=30) as socket:
        socket.send(json.dumps({"type": "hello", "token": token}))
        state = _until(socket, "state")
        socket.send(json.dumps({"type": "start"}))
        _until(socket, "answer")
        deadline = time.monotonic() + WAIT
        while state["table"]["status"] != "over":
            assert time.monotonic() < deadline, "the game never ended"
            socket.send(json.dumps({"type": "ping"}))
            while (message := json.loads(socket.recv(timeout=30)))["type"] != "pong":
                if message["type"] == "state":
                    state = message
            if legal_rows(state):
                move = {"type": "choose_row", "row": rng.choice(legal_rows(state)), "version": state["version"]}
            elif legal_cards(state):
                move = {"type": "play", "card": rng.choice(legal_cards(state)), "version": state["version"]}
            else:
                time.sleep(0.2)  # the bots' turn: a ping every 0.2 s, well inside the messages' limit
                continue
            socket.send(json.dumps(move))
            _until(socket, "answer")
    deadline = time.monotonic() + WAIT
    while (response := httpx.get(f"{server.url}/api/tables/{table_id}/games/1/review")).status_code != 200:
        assert response.status_code == 202 and time.monotonic() < deadline, response.text
        time.sleep(0.5)
    yield table_id, token, response.json()["review"]


def _whole(value: float) -> str:
    """A number as the page writes it with no decimals (Intl.NumberFormat rounds halves away from
    zero: 62.5 is 63, where Python's round gives 62)."""
    return str(math.floor(value + 0.5))


def _score(lang: str, value: float, margin: float | None) -> str:
    """An accuracy as the page writes it: a score out of 100, and how sure one game's figure is, in words."""
    score: str = catalog(lang, "web")["review_accuracy_score"].format(accuracy=_whole(value))
    return score if margin is None else f"{score}, {_margin(lang, margin)}"


def _margin(lang: str, margin: float) -> str:
    """How sure an accuracy is, as the page writes it ("margem de 22")."""
    text: str = catalog(lang, "web")["review_margin"].format(error=_whole(margin))
    return text


def _counted(lang: str, key: str, count: int) -> str:
    """A count with its own words, in the plural form Babel gives the language."""
    form = Locale.parse(lang.replace("-", "_")).plural_form(count)
    return catalog(lang, "web")[f"{key}.{form}"].format(count=count)


def _heads(lang: str, amount: str) -> str:
    """Bullheads with one decimal ("1.0"), agreed with the number as written (CLDR's rules by Babel)."""
    form = Locale.parse(lang.replace("-", "_")).plural_form(Decimal(amount))
    shown = amount.replace(".", "." if lang == "en" else ",")
    return catalog(lang, "web")[f"bullheads.{form}"].format(count=shown)


def _words_a_newcomer_reads(page: Page, lang: str, review: dict[str, Any]) -> None:
    """Each player's marks counted in words, no bare "±" anywhere, numbers and plurals of the language."""
    marks = page.locator("#review-table .marks").all_inner_texts()
    for shown, player in zip(marks, review["players"], strict=True):
        for kind in ("inaccuracy", "mistake", "blunder"):
            assert _counted(lang, f"review_count_{kind}", player["marks"][kind]) in shown, shown
    assert "±" not in page.locator("#review").inner_text()
    amounts = page.evaluate("() => import('/static/js/review.js').then((review) => "
                            "['1.0', '18.0', '0.5'].map((x) => review.headsAmount(Number(x))))")
    assert amounts == [_heads(lang, x) for x in ("1.0", "18.0", "0.5")], amounts


def _no_sideways_scroll(page: Page, within: str | None = None) -> None:
    """Nothing wider than the screen: the whole page, or everything in ``within``."""
    if within is None:
        assert page.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        return
    wide = page.evaluate("""(selector) => [document.querySelector(selector),
        ...document.querySelectorAll(selector + ' *')]
        .filter((node) => node.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).length""",
                         within)
    assert wide == 0


@pytest.mark.parametrize(("width", "height", "lang"),
                         [(360, 640, "pt-BR"), (360, 640, "fr"), (390, 844, "pt-PT"), (1280, 800, "en")])
def test_the_replay_page_shows_the_review_and_a_tap_opens_a_turn(
    browser: Browser, server: LiveServer, game: tuple[str, str, dict[str, Any]], screenshots: Path,
    width: int, height: int, lang: str,
) -> None:
    table_id, _token, review = game
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=width < 600)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    try:
        page.goto(f"{server.url}/replay/{table_id}/1?lang={lang}")
        expect(page.locator("#review-table li")).to_have_count(3)
        chart = page.locator("#review-chart svg")
        expect(chart).to_be_visible()
        assert page.locator("#review-chart polyline").count() == 3
        accuracies = page.locator("#review-table .accuracy").all_inner_texts()
        assert accuracies == [_score(lang, p["accuracy"], None) for p in review["players"]]
        margins = page.locator("#review-table .accuracy-box .margin").all_inner_texts()  # how sure, under each
        assert margins == [_margin(lang, p["accuracy_margin"]) for p in review["players"]]
        expect(page.locator("#review")).to_contain_text(catalog(lang, "web")["review_accuracy_means"])
        _words_a_newcomer_reads(page, lang, review)
        assert shown_hidden(page) == []
        _no_sideways_scroll(page)
        page.screenshot(path=str(screenshots / f"review-{width}-{lang}.png"), full_page=True)
        # A tap at about the seventh turn of ten: the replay shows that turn, with each player's decision.
        chart.scroll_into_view_if_needed()
        box = chart.bounding_box()
        assert box is not None
        # The chart's turns lie between x = 30 and 290 of its 360 units: the seventh at 30 + 7 * 26.
        where = {"x": box["width"] * (30 + 6.6 * 26) / 360, "y": box["height"] / 2}
        if width < 600:
            chart.tap(position=where)
        else:
            chart.click(position=where)
        expect(page.locator("#replay-turn")).to_contain_text("(7 ")
        decisions = [d for d in review["decisions"] if d["round"] == 1 and d["turn"] == 7]
        expect(page.locator("#review-turn-list details")).to_have_count(len(decisions))
        first = page.locator("#review-turn-list details").first
        if first.get_attribute("open") is None:
            first.locator("summary").click()
        expect(first.locator(".review-options li")).to_have_count(len(decisions[0]["options"]))
        expect(first.locator(".review-options li.chosen")).to_have_count(1)
        # Each option's value with its unit, its margin in words on a line of its own.
        unit = catalog(lang, "web")["bullheads.other"].replace("{count}", "").strip()
        for value in first.locator(".review-options .value").all_inner_texts():
            assert unit.split()[0] in value and "±" not in value, value
        expect(first.locator(".review-options .margin").first).to_be_visible()
        _no_sideways_scroll(page)
        page.screenshot(path=str(screenshots / f"review-turn-{width}-{lang}.png"), full_page=True)
        # The costliest decision of a player, from the accuracy table: its turn, its options open.
        worst = review["players"][0]["costliest"]
        page.locator("#review-table li").first.locator("a").click()
        decision = review["decisions"][worst]
        expect(page.locator("#replay-turn")).to_contain_text(f"({decision['turn']} ")
        expect(page.locator(f"#decision-{worst}")).to_have_attribute("open", "")
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.parametrize(("width", "height", "lang"), [(360, 640, "fr"), (390, 844, "pt-PT"), (1280, 800, "pt-BR")])
def test_the_last_screen_shows_each_accuracy_and_the_costliest_decision(
    browser: Browser, server: LiveServer, game: tuple[str, str, dict[str, Any]], screenshots: Path,
    width: int, height: int, lang: str,
) -> None:
    table_id, token, review = game
    context = browser.new_context(viewport={"width": width, "height": height})
    context.add_init_script(f"localStorage.setItem('nimmt:seat:{table_id}', {json.dumps(token)})")
    page = context.new_page()
    try:
        page.goto(f"{server.url}/t/{table_id}?lang={lang}")
        expect(page.locator("#over")).to_be_visible()
        items = page.locator("#review-summary-list li")
        expect(items).to_have_count(3)
        for item, player in zip(items.all(), review["players"], strict=True):
            expect(item).to_contain_text(_score(lang, player["accuracy"], player["accuracy_margin"]))
        expect(page.locator("#review-summary-status")).to_have_text(catalog(lang, "web")["review_accuracy_means"])
        assert shown_hidden(page) == []  # the last screen, for a person seated
        _no_sideways_scroll(page, "#review-summary")  # (the felt's rows of the last screen are the table's own)
        page.locator("#review-summary").screenshot(path=str(screenshots / f"review-last-{width}-{lang}.png"))
        worst = review["players"][0]["costliest"]
        items.first.locator("a").click()
        page.wait_for_url(f"**/replay/{table_id}/1#decision-{worst}")
        expect(page.locator(f"#decision-{worst}")).to_have_attribute("open", "")
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["pt-BR", "fr"])
def test_on_a_busy_server_the_last_screen_says_how_long_the_review_will_take(
    browser: Browser, server: LiveServer, game: tuple[str, str, dict[str, Any]], screenshots: Path, lang: str,
) -> None:
    """The server says the review is 40 s away (twice): the last screen says so in seconds, asks again,
    and shows the review when it comes."""
    table_id, token, review = game
    context = browser.new_context(viewport={"width": 360, "height": 640}, has_touch=True)
    context.add_init_script(f"localStorage.setItem('nimmt:seat:{table_id}', {json.dumps(token)})")
    page = context.new_page()
    asked: list[str] = []

    def busy(route: Any) -> None:
        asked.append(route.request.url)
        if len(asked) <= 2:
            route.fulfill(status=202, content_type="application/json",
                          body=json.dumps({"status": "pending", "seconds": 40}))
        else:
            route.continue_()

    page.route(f"**/api/tables/{table_id}/games/1/review", busy)
    try:
        page.goto(f"{server.url}/t/{table_id}?lang={lang}")
        status = page.locator("#review-summary-status")
        said = catalog(lang, "web")["review_pending_seconds.other"].replace("{count}", "40")
        expect(status).to_have_text(said)
        _no_sideways_scroll(page, "#review-summary")
        page.locator("#review-summary").screenshot(path=str(screenshots / f"review-pending-360-{lang}.png"))
        expect(page.locator("#review-summary-list li")).to_have_count(len(review["players"]), timeout=60_000)
        assert len(asked) == 3
    finally:
        context.close()


def test_an_uploaded_record_gets_its_review_on_a_phone(browser: Browser, server: LiveServer) -> None:
    """/replay: a record that breaks the rules is refused in words; a good one is replayed, then reviewed."""
    context = browser.new_context(viewport={"width": 360, "height": 640}, has_touch=True)
    page = context.new_page()
    try:
        page.goto(f"{server.url}/replay?lang=pt-BR")
        posted: list[str] = []  # each record is sent once: read and checked once for its turns and review
        page.on("request", lambda request: posted.append(request.url.removeprefix(server.url))
                if request.method == "POST" else None)
        record = json.loads((GOLDEN / "hand_one_round.json").read_text(encoding="utf-8"))
        broken = json.loads(json.dumps(record))
        broken["rounds"][0]["turns"][0]["cards"] = [5, 5]
        for sent in (broken, record):
            page.locator("#replay-file").set_input_files(files=[{
                "name": "game.json", "mimeType": "application/json", "buffer": json.dumps(sent).encode()}])
            page.locator("#replay-upload button[type=submit]").click()
            if sent is broken:
                expect(page.locator("#replay-error")).to_have_text(catalog("pt-BR", "web")["error_bad_record"])
        expect(page.locator("#replay-cards li")).to_have_count(2)
        # Ana and Bruno, each with an accuracy: some seconds of the workers' time, more on a loaded machine.
        expect(page.locator("#review-table li")).to_have_count(2, timeout=WAIT * 1000)
        assert page.locator("#review-chart polyline").count() == 2
        expect(page.locator("#review-status")).to_have_text("")
        assert posted == ["/api/replay/review", "/api/replay/review"]
        _no_sideways_scroll(page)
        # Over the reviews' 64 KiB (spaces in the JSON): replayed through /api/replay, the review refused in words.
        page.locator("#replay-file").set_input_files(files=[{
            "name": "long.json", "mimeType": "application/json",
            "buffer": json.dumps(record).encode() + b" " * (64 * 1024)}])
        page.locator("#replay-upload button[type=submit]").click()
        expect(page.locator("#review-status")).to_have_text(catalog("pt-BR", "web")["error_too_large"])
        expect(page.locator("#replay-cards li")).to_have_count(2)
        assert posted[2:] == ["/api/replay/review", "/api/replay"]
    finally:
        context.close()
