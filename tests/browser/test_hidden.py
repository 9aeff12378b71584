"""What a page hides stays hidden: on every page, for every role (a group's host and a member, a
table's host, a person seated, a guest with no player, a spectator), no element with the ``hidden``
attribute takes any room on the screen. A stylesheet that gives an element a display of its own
(``.actions { display: flex }``) once showed every member the host's buttons."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.helpers import shown_hidden
from tests.server.live import LiveServer

STYLES = Path(__file__).resolve().parents[2] / "nimmt" / "web" / "static"

PHONES = {"pt-BR": {"width": 360, "height": 640}, "fr": {"width": 390, "height": 844}}

def _player(server: LiveServer, name: str) -> str:
    answer = httpx.post(f"{server.url}/api/players", json={"name": name}, timeout=10)
    assert answer.status_code == 201, answer.text
    key: str = answer.json()["key"]
    return key


def _context(browser: Browser, key: str | None, lang: str) -> BrowserContext:
    context = browser.new_context(viewport=PHONES[lang], is_mobile=True, has_touch=True)
    if key is not None:
        context.add_init_script(f"localStorage.setItem('nimmt:player', {key!r})")
    return context


@dataclass
class Roles:
    pages: dict[str, Page]  # host, member, guest, spectator
    keys: dict[str, str]  # the players' keys (the host's and the member's)
    group: str
    invite: str
    lang: str


@pytest.fixture(params=["pt-BR", "fr"])
def roles(browser: Browser, server: LiveServer, request: pytest.FixtureRequest) -> Iterator[Roles]:
    """A group of two (its host Ana, the member Bruno), a guest with no player, and a spectator."""
    keys = {"host": _player(server, "Ana"), "member": _player(server, "Bruno")}
    group = httpx.post(f"{server.url}/api/groups", json={"name": "Les vendredis"}, timeout=10,
                       headers={"X-Player-Key": keys["host"]}).json()
    invite = group["invite_url"].rsplit("/", 1)[1]
    joined = httpx.post(f"{server.url}/api/invites", json={"invite": invite}, timeout=10,
                        headers={"X-Player-Key": keys["member"]})
    assert joined.status_code == 200, joined.text
    lang = request.param  # pt-BR on a 360×640 phone, fr on a 390×844 one
    contexts = {"host": _context(browser, keys["host"], lang), "member": _context(browser, keys["member"], lang),
                "guest": _context(browser, None, lang), "spectator": _context(browser, None, lang)}
    try:
        yield Roles({role: context.new_page() for role, context in contexts.items()}, keys, group["id"], invite, lang)
    finally:
        for context in contexts.values():
            context.close()


def _settled(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("networkidle")


def test_no_hidden_element_is_shown_on_any_page_for_any_role(server: LiveServer, roles: Roles) -> None:
    pages, group, lang = roles.pages, roles.group, roles.lang
    # A table of the group: Ana creates it (its host), Bruno joins it.
    table = httpx.post(f"{server.url}/api/tables", timeout=10, headers={"X-Player-Key": roles.keys["host"]},
                       json={"name": "Ana", "seats": 3, "bots": [], "options": {"rounds": 1}, "group": group}).json()
    seat = httpx.post(f"{server.url}/api/tables/{table['table_id']}/join", json={"name": "Bruno"}, timeout=10,
                      headers={"X-Player-Key": roles.keys["member"]}).json()
    tokens = {"host": table["token"], "member": seat["token"]}
    problems: list[str] = []

    def check(role: str, where: str) -> None:
        found = shown_hidden(pages[role])
        if found:
            problems.append(f"{role} on {where}: {found}")

    paths = ["/", "/lobby", "/rules", "/score", "/replay", "/me", "/ratings", f"/join/{roles.invite}",
             f"/groups/{group}/screen"]
    for role, page in pages.items():
        for path in paths:
            _settled(page, f"{server.url}{path}?lang={lang}")
            check(role, path)
    for role in ("host", "member"):
        _settled(pages[role], f"{server.url}/groups/{group}?lang={lang}")
        expect(pages[role].locator("#members-list li")).to_have_count(2)
        check(role, "the group's page")
    # The host's buttons (close the invite, a new link) are the host's alone.
    expect(pages["host"].locator("#host-actions")).to_be_visible()
    for button in ("#host-actions", "#invite-toggle", "#invite-renew"):
        expect(pages["member"].locator(button)).to_be_hidden()
    # The table before its start: its host, a person seated, a guest who opened its link, a spectator.
    table_url = f"{server.url}/t/{table['table_id']}?lang={lang}"
    for role in ("host", "member"):
        _settled(pages[role], f"{table_url}#seat={tokens[role]}")
        expect(pages[role].locator("#lobby-seats li")).to_have_count(3)
    _settled(pages["guest"], table_url)
    _settled(pages["spectator"], f"{server.url}/watch/{table['table_id']}?lang={lang}")
    expect(pages["spectator"].locator("#lobby-seats li")).to_have_count(3)
    for role in pages:
        check(role, "the table's lobby")
    expect(pages["member"].locator("#start-box")).to_be_hidden()
    # The guest takes the third seat, the host starts: the game, for everyone.
    pages["guest"].fill("#join-name", "Carla")
    pages["guest"].locator("#join-form button[type=submit]").click()
    expect(pages["host"].locator("#start")).to_be_enabled()
    pages["host"].locator("#start").click()
    for role in ("host", "member", "guest"):
        expect(pages[role].locator("#hand button.card")).to_have_count(10)
    expect(pages["spectator"].locator("#rows li")).to_have_count(4)
    for role in pages:
        check(role, "the table in play")
    assert not problems, "\n".join(problems)


def test_one_rule_for_hidden_in_every_stylesheet() -> None:
    """``[hidden]`` is display: none in app.css, which every page loads, and no other rule speaks of it
    (a rule of its own for one element is how the host's buttons once showed to everyone)."""
    rules = {sheet.name: [line.strip() for line in sheet.read_text(encoding="utf-8").splitlines()
                          if "[hidden]" in line and not line.lstrip().startswith(("/*", "("))]
             for sheet in sorted(STYLES.glob("*.css"))}
    assert rules.pop("app.css") == ["[hidden] { display: none !important; }"]
    assert all(not found for found in rules.values()), rules
