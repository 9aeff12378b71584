"""Two members named alike are told apart wherever names are shown: "Ana" and "Аna" (a Cyrillic A)
get their numbers, in the order they joined, on the group's members, league, chat and big screen,
and at a table (in seat order), on phones in Brazilian Portuguese and French; an "ANA" who wrote in
the chat and left is told apart from them too."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect

from nimmt.scoresheet import ScoreSheet
from tests.server.live import LiveServer

CYRILLIC_ANA = "\u0410na"


def _player(server: LiveServer, name: str) -> tuple[str, str]:
    made = httpx.post(f"{server.url}/api/players", json={"name": name}, timeout=10).json()
    return made["key"], made["player"]["id"]


def _post(server: LiveServer, path: str, key: str, body: object) -> dict[str, object]:
    answer = httpx.post(f"{server.url}{path}", json=body, headers={"X-Player-Key": key}, timeout=10)
    assert answer.status_code < 300, answer.text
    found: dict[str, object] = answer.json()
    return found


@pytest.mark.parametrize(("lang", "size"), [("pt-BR", (360, 640)), ("fr", (390, 844))])
def test_two_members_named_alike_are_told_apart(browser: Browser, server: LiveServer, screenshots: Path,
                                                lang: str, size: tuple[int, int]) -> None:
    (ana, ana_id), (other, other_id), (bruno, bruno_id) = (_player(server, name) for name in
                                                           ("Ana", CYRILLIC_ANA, "Bruno"))
    group = _post(server, "/api/groups", ana, {"name": "Les vendredis"})
    invite = str(group["invite_url"]).rsplit("/", 1)[1]
    for key in (other, bruno):
        _post(server, "/api/invites", key, {"invite": invite})
    sheet = ScoreSheet(("Ana", CYRILLIC_ANA, "Bruno")).add_round([10, 70, 5]).to_json()
    saved = _post(server, f"/api/groups/{group['id']}/sheets", ana,
                  {"sheet": sheet, "players": [ana_id, other_id, bruno_id]})
    # A sheet counts for a member named on it once they confirm it: both others do, so the form
    # chart has a line for each of the two Anas.
    for key in (other, bruno):
        word = httpx.post(f"{server.url}/api/me/games/{saved['id']}/seat", json={"mine": True},
                          headers={"X-Player-Key": key}, timeout=10)
        assert word.status_code == 204, word.text
    _post(server, f"/api/groups/{group['id']}/chat", ana, {"text": "Bonsoir !"})
    _post(server, f"/api/groups/{group['id']}/chat", other, {"text": "Je suis Ana aussi"})
    # A third "ANA" writes, then leaves the group: her message still shows, told apart from the others.
    former, _ = _player(server, "ANA")
    _post(server, "/api/invites", former, {"invite": invite})
    _post(server, f"/api/groups/{group['id']}/chat", former, {"text": "Au revoir"})
    left = httpx.post(f"{server.url}/api/groups/{group['id']}/leave", headers={"X-Player-Key": former}, timeout=10)
    assert left.status_code == 204, left.text
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, is_mobile=True, has_touch=True)
    context.add_init_script(f"localStorage.setItem('nimmt:player', {bruno!r})")
    try:
        page = context.new_page()
        page.goto(f"{server.url}/groups/{group['id']}?lang={lang}")
        members = page.locator("#members-list li")
        expect(members).to_have_count(3)
        expect(members.nth(0)).to_contain_text("Ana (1)")
        expect(members.nth(1)).to_contain_text(f"{CYRILLIC_ANA} (2)")
        expect(members.nth(2)).to_have_text("Bruno")
        expect(page.locator("#members-alike")).to_be_visible()
        league = page.locator("#league-table tbody th")
        expect(league).to_have_count(3)
        expect(page.locator(f'#league-table tr[data-player="{ana_id}"] th')).to_have_text("Ana (1)")
        expect(page.locator(f'#league-table tr[data-player="{other_id}"] th')).to_have_text(f"{CYRILLIC_ANA} (2)")
        expect(page.locator(f'#league-table tr[data-player="{bruno_id}"] th')).to_have_text("Bruno")
        chat = page.locator("#chat-list .chat-meta")
        expect(chat).to_have_count(3)
        expect(chat.nth(0)).to_contain_text("Ana (1)")
        expect(chat.nth(1)).to_contain_text(f"{CYRILLIC_ANA} (2)")
        expect(chat.nth(2)).to_contain_text("ANA (3)")
        assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
        page.locator("#members").scroll_into_view_if_needed()
        page.screenshot(path=str(screenshots / f"names-alike-group-{lang}-{size[0]}.png"), full_page=True)
        # The big screen reads the same numbers.
        page.goto(f"{server.url}/groups/{group['id']}/screen?lang={lang}")
        expect(page.locator(f'#league-table tr[data-player="{other_id}"] th')).to_have_text(f"{CYRILLIC_ANA} (2)")
        svg = httpx.get(f"{server.url}/api/groups/{group['id']}/form.svg?lang={lang}", timeout=10).text
        assert "Ana (1)" in svg and f"{CYRILLIC_ANA} (2)" in svg
        # At a table, in seat order: the lobby's seats, then the players' chips in the game.
        table = _post(server, "/api/tables", other, {"name": CYRILLIC_ANA, "seats": 3, "bots": ["random"],
                                                     "options": {"rounds": 1}})
        seat = _post(server, f"/api/tables/{table['table_id']}/join", ana, {"name": "ana"})
        page.goto(f"{server.url}/t/{table['table_id']}?lang={lang}#seat={table['token']}")
        seats = page.locator("#lobby-seats li")
        expect(seats.nth(0)).to_contain_text(f"{CYRILLIC_ANA} (1)")
        expect(seats.nth(1)).to_contain_text("ana (2)")
        page.locator("#start").click()
        chips = page.locator("#strip .chip .who")
        expect(chips).to_have_count(3)
        expect(chips.nth(0)).to_have_text(f"{CYRILLIC_ANA} (1)")
        expect(chips.nth(1)).to_have_text("ana (2)")
        # The number is never cut off: the chip shows the whole name and its number.
        assert chips.nth(1).evaluate("node => node.scrollWidth <= node.clientWidth")
        page.screenshot(path=str(screenshots / f"names-alike-table-{lang}-{size[0]}.png"))
        assert re.fullmatch(r"\w+", str(seat["token"]).replace("-", "").replace("_", ""))
    finally:
        context.close()
