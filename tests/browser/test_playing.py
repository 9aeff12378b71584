"""Several games at once (issue 30, item 2) in a real browser: the home page lists a person's games in
progress, the one awaiting their move first with the time left on its clock; a second device of the
same person (linked by a code, no seat token of its own) finds them there and opens its seat. The
list is looked at on phones (360x640 and 390x844, in pt-BR and fr): "Play now" whole on the first
screen and the games just under it (three of them pushed it below the first screen at 360x640), the
game awaiting the person whole on it too; nothing cut, nothing scrolling sideways, nothing moving
when the server's answer comes (the last one is drawn at once); the screenshots are kept
(docs/screenshots with NIMMT_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Route, expect
from websockets.sync.client import connect

from nimmt.i18n import catalog
from tests.server.live import LiveServer

KEY = "X-Player-Key"
DAY = 86400
PHONES: dict[str, dict[str, Any]] = {
    "360x640": {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True,
                "device_scale_factor": 2},
    "390x844": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
                "device_scale_factor": 3},
}


def _post(server: LiveServer, path: str, body: dict[str, Any] | None = None, key: str | None = None) -> Any:
    answer = httpx.post(f"{server.url}{path}", json=body, headers={KEY: key} if key else {}, timeout=30)
    assert answer.status_code in (200, 201), answer.text
    return answer.json()


def _player(server: LiveServer, name: str) -> str:
    return str(_post(server, "/api/players", {"name": name})["key"])


def _state(socket: Any, done: Any) -> dict[str, Any]:
    """The next state message that satisfies ``done`` (acks and other news skipped)."""
    for _ in range(500):
        message = json.loads(socket.recv(timeout=30))
        if message.get("type") == "state" and done(message):
            return message
    raise AssertionError("no such state")


def _ws(server: LiveServer, table_id: str) -> Any:
    return connect(server.url.replace("http://", "ws://") + f"/ws/{table_id}", open_timeout=30)


def _hand(message: dict[str, Any]) -> list[int]:
    return list((message.get("view") or {}).get("hand") or [])


def three_games(server: LiveServer) -> tuple[str, dict[str, str]]:
    """Ana's three games in progress: her friends' group table awaiting her card (a day a move), a
    table with Dora awaiting Dora's card, and a table waiting for players. Her key, and the ids."""
    ana, bruno, cleo, dora = (_player(server, name) for name in ("Ana", "Bruno", "Cleo", "Dora"))
    group = _post(server, "/api/groups", {"name": "Sexta à noite"}, ana)["id"]
    friday = _post(server, "/api/tables", {"name": "Ana", "seats": 4, "bots": ["heuristic"], "group": group,
                                           "options": {"clock": DAY}}, ana)
    for name, key in (("Bruno", bruno), ("Cleo", cleo)):
        _post(server, f"/api/tables/{friday['table_id']}/join", {"name": name}, key)
    duel = _post(server, "/api/tables", {"name": "Ana", "seats": 2, "options": {"clock": DAY}}, ana)
    dora_seat = _post(server, f"/api/tables/{duel['table_id']}/join", {"name": "Dora"}, dora)
    waiting = _post(server, "/api/tables", {"name": "Ana", "seats": 4, "options": {"clock": DAY}}, ana)
    _post(server, f"/api/tables/{waiting['table_id']}/join", {"name": "Bruno"}, bruno)
    with _ws(server, friday["table_id"]) as socket:
        socket.send(json.dumps({"type": "hello", "token": friday["token"]}))
        _state(socket, lambda m: True)
        socket.send(json.dumps({"type": "start"}))
        _state(socket, lambda m: bool(_hand(m)))
    with _ws(server, duel["table_id"]) as socket, _ws(server, duel["table_id"]) as other:
        socket.send(json.dumps({"type": "hello", "token": duel["token"]}))
        other.send(json.dumps({"type": "hello", "token": dora_seat["token"]}))
        _state(socket, lambda m: True)
        socket.send(json.dumps({"type": "start"}))
        state = _state(socket, lambda m: bool(_hand(m)))
        socket.send(json.dumps({"type": "play", "card": _hand(state)[0], "version": state["version"]}))
        _state(socket, lambda m: (m.get("view") or {}).get("my_card") is not None)
    return ana, {"friday": friday["table_id"], "duel": duel["table_id"], "waiting": waiting["table_id"]}


@pytest.fixture(scope="module")
def games(server: LiveServer) -> tuple[str, dict[str, str]]:
    return three_games(server)


def _with_key(browser: Browser, key: str, device: dict[str, Any]) -> Any:
    context = browser.new_context(**device)
    context.add_init_script(f"localStorage.setItem('nimmt:player', {json.dumps(key)})")
    return context


_FITS = """(list) => {
  const root = document.documentElement;
  const outside = [...document.querySelectorAll('body *')].filter((node) => {
    if (node.closest('.skip, .visually-hidden')) return false;  // off screen on purpose, until focused
    const box = node.getBoundingClientRect();
    return box.width > 0 && (box.right > innerWidth + 0.5 || box.left < -0.5);
  }).map((node) => node.id || node.className || node.tagName);
  const cut = [...list.querySelectorAll('*')].filter((node) => node.scrollWidth > node.clientWidth + 1
    && getComputedStyle(node).overflowX !== 'visible').map((node) => node.className || node.tagName);
  return {sideways: root.scrollWidth - root.clientWidth, outside, cut};
}"""


@pytest.mark.parametrize("size", list(PHONES))
@pytest.mark.parametrize("lang", ["pt-BR", "fr"])
def test_the_home_page_lists_three_games_in_progress_on_a_phone(browser: Browser, server: LiveServer,
                                                               games: tuple[str, dict[str, str]], lang: str,
                                                               size: str, screenshots: Path) -> None:
    key, ids = games
    texts = catalog(lang, "web")
    context = _with_key(browser, key, PHONES[size])
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{server.url}/?lang={lang}")
        items = page.locator("#playing-list > li")
        expect(items).to_have_count(3)
        expect(page.locator("#playing-heading")).to_have_text(texts["playing_heading"])
        # The table awaiting Ana's card first, with its group's name and the day on its clock.
        assert items.evaluate_all("(nodes) => nodes.map((n) => n.dataset.table)") == [
            ids["friday"], ids["duel"], ids["waiting"]]
        first = items.nth(0)
        expect(first.locator(".playing-title")).to_have_text("Sexta à noite")
        expect(first.locator(".playing-badge")).to_have_text(texts["playing_your_move"])
        expect(first).to_contain_text(texts["playing_choose_card"])
        expect(first.locator(".playing-clock")).to_contain_text(" 23 ")
        expect(items.nth(1)).to_contain_text(texts["playing_waiting"].replace("{names}", "Dora"))
        expect(items.nth(1).locator(".playing-badge")).to_have_count(0)
        expect(items.nth(2)).to_contain_text(texts["playing_lobby"].replace("{taken}", "2").replace("{seats}", "4"))
        assert first.locator("a").get_attribute("href") == f"/t/{ids['friday']}"
        # Play now is whole on the first screen, the games just under it: the one awaiting Ana whole
        # there too (all three on the taller phone); nothing is wider than the phone.
        size_now = page.viewport_size
        assert size_now is not None

        def whole(box: Any) -> bool:
            return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size_now["height"]

        button = page.locator("#play-now-button")
        assert whole(button.bounding_box()), button.bounding_box()
        assert page.evaluate("() => document.getElementById('play-now').compareDocumentPosition("
                             "document.getElementById('playing')) & Node.DOCUMENT_POSITION_FOLLOWING")
        for index in range(3 if size == "390x844" else 1):
            assert whole(items.nth(index).bounding_box()), (index, items.nth(index).bounding_box())
        # Opened again, the page draws the last answer at once: when the server's comes, nothing moves.
        held: list[Route] = []
        page.route("**/api/me/tables", lambda route: held.append(route))
        page.reload()
        expect(items).to_have_count(3)  # before the server answered
        assert len(held) == 1
        where = "() => ['play-now-button', 'playing', 'create'].map((id) => document.getElementById(id)" \
                ".getBoundingClientRect().top)"
        before = page.evaluate(where)
        with page.expect_response("**/api/me/tables"):
            held[0].continue_()
        expect(items.first.locator(".playing-title")).to_have_text("Sexta à noite")
        assert page.evaluate(where) == before
        page.unroute_all()
        measured = page.evaluate(_FITS, page.locator("#playing-list").element_handle())
        assert measured["sideways"] <= 0 and measured["outside"] == [] and measured["cut"] == [], measured
        page.screenshot(path=str(screenshots / f"home-games-{lang}-{size}.png"))
        if size == "360x640":  # the list passes an accessibility scan (contrast of the badge and the clock too)
            violations = Axe().run(page, context="#playing").response["violations"]
            assert violations == [], [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations]
        assert errors == []
    finally:
        context.close()


def test_a_second_device_finds_the_games_and_takes_its_seat(browser: Browser, server: LiveServer,
                                                            games: tuple[str, dict[str, str]]) -> None:
    key, ids = games
    code = _post(server, "/api/me/link", None, key)["code"]
    linked = _post(server, "/api/link", {"code": code})
    assert linked["key"] != key  # the same person, a key of this device's own
    context = _with_key(browser, linked["key"], PHONES["390x844"])
    try:
        page = context.new_page()
        page.goto(f"{server.url}/?lang=en")
        texts = catalog("en", "web")
        mine = page.locator("#playing-list > li").first
        expect(mine).to_contain_text(texts["playing_your_move"])
        mine.locator("a").click()
        page.wait_for_url(f"**/t/{ids['friday']}")
        # No seat token on this device: the table gives it Ana's seat, her cards to choose from.
        expect(page.locator("#hand button.card:not([disabled])")).to_have_count(10)
        assert page.evaluate(f"() => localStorage.getItem('nimmt:seat:{ids['friday']}')") is not None
        # And My games lists them too.
        page.goto(f"{server.url}/me?lang=en")
        expect(page.locator("#playing-list > li")).to_have_count(3)
        expect(page.locator("#playing")).to_be_visible()
    finally:
        context.close()
