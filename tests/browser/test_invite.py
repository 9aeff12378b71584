"""A group's path on phones, in Brazilian Portuguese and French, on a real ``nimmt serve``: the
invitation's Join is on the first screen for a person with a player and for one without; a table
made for the group names the group before it is created; a phone that already has a player is
linked by the one-time link after saying what happens to its player (docs/people.md)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.server.live import LiveServer

SIZES = {"360": {"width": 360, "height": 640}, "390": {"width": 390, "height": 844}}


def phone(browser: Browser, size: str, key: str | None = None) -> BrowserContext:
    context = browser.new_context(viewport=SIZES[size], is_mobile=True, has_touch=True, device_scale_factor=2)
    if key is not None:
        context.add_init_script(
            f"if (!localStorage.getItem('nimmt:player')) localStorage.setItem('nimmt:player', {key!r})")
    return context


def player(server: LiveServer, name: str) -> str:
    answer = httpx.post(f"{server.url}/api/players", json={"name": name}, timeout=10)
    assert answer.status_code == 201, answer.text
    key: str = answer.json()["key"]
    return key


def api(server: LiveServer, method: str, path: str, key: str, **body: object) -> dict[str, object]:
    answer = httpx.request(method, f"{server.url}{path}", json=body or None, headers={"X-Player-Key": key},
                           timeout=10)
    assert answer.status_code < 300, answer.text
    found: dict[str, object] = answer.json()
    return found


def on_first_screen(page: Page, selector: str) -> None:
    """Visible without scrolling: the whole element inside the window as the page opens."""
    expect(page.locator(selector)).to_be_visible()
    box = page.locator(selector).bounding_box()
    assert box is not None
    height = page.viewport_size["height"] if page.viewport_size else 0
    assert page.evaluate("() => window.scrollY") == 0
    assert box["y"] >= 0 and box["y"] + box["height"] <= height, (selector, box, height)


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0


@pytest.fixture
def group(server: LiveServer) -> Iterator[tuple[str, str, str]]:
    """Ana's group "Les vendredis" (3 members): her key, the group's id and its invite link."""
    ana = player(server, "Ana")
    made = api(server, "POST", "/api/groups", ana, name="Les vendredis")
    link = str(made["invite_url"])
    for name in ("Bruno", "Carla"):
        api(server, "POST", "/api/invites", player(server, name), invite=link.rsplit("/", 1)[1])
    yield ana, str(made["id"]), link


JOIN = {"pt-BR": "Entrar em Les vendredis", "fr": "Rejoindre Les vendredis"}


@pytest.mark.parametrize(("lang", "size"), [("pt-BR", "360"), ("fr", "360"), ("pt-BR", "390"), ("fr", "390")])
def test_join_is_on_the_first_screen_with_a_player_and_without(browser: Browser, server: LiveServer,
                                                               group: tuple[str, str, str], screenshots: Path,
                                                               lang: str, size: str) -> None:
    _, group_id, link = group
    dora = player(server, "Dora")
    for key in (dora, None):  # a person who already has a player, then a newcomer
        context = phone(browser, size, key)
        try:
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
            page.goto(f"{link}?lang={lang}")
            expect(page.locator("#join-button")).to_have_text(JOIN[lang])
            on_first_screen(page, "#join-button")
            expect(page.locator("#invite-size")).to_contain_text("3" if key else "4")  # Dora joined first
            if key is None:
                on_first_screen(page, "#join-name")
                page.screenshot(path=str(screenshots / f"invite-newcomer-{lang}-{size}.png"))
                page.fill("#join-name", "Eva")
            else:
                expect(page.locator("#join-as")).to_contain_text("Dora")
                expect(page.locator("#join-name")).to_be_hidden()
                page.screenshot(path=str(screenshots / f"invite-player-{lang}-{size}.png"))
            no_sideways_scroll(page)
            page.locator("#join-button").click()
            page.wait_for_url(re.compile(rf"/groups/{group_id}$"))
            expect(page.locator("#members-list li")).to_have_count(4 if key else 5)
            me = page.evaluate("() => fetch('/api/me', {headers: {'X-Player-Key': "
                               "localStorage.getItem('nimmt:player')}}).then(r => r.json())")
            assert me["player"]["name"] == ("Dora" if key else "Eva")
            assert errors == []
        finally:
            context.close()


def test_a_table_for_the_group_names_it_before_it_is_made(browser: Browser, server: LiveServer,
                                                          group: tuple[str, str, str]) -> None:
    ana, group_id, _ = group
    context = phone(browser, "360", ana)
    try:
        page = context.new_page()
        page.goto(f"{server.url}/groups/{group_id}?lang=fr")
        page.locator("#table-link").click()
        page.wait_for_url(re.compile(r"/\?group="))
        expect(page.locator("#group-table-note")).to_have_text(re.compile(
            "Une table pour le groupe Les vendredis : ses parties comptent dans le classement du groupe."))
        on_first_screen(page, "#group-table-note")
        no_sideways_scroll(page)
        url = page.url
    finally:
        context.close()
    # The same link, for a person who is not in the group: said before anything is made.
    stranger = phone(browser, "360", player(server, "Zoé"))
    try:
        page = stranger.new_page()
        page.goto(url)
        expect(page.locator("#group-table-note")).to_have_text(re.compile("pas partie"))
    finally:
        stranger.close()


def test_a_phone_with_a_player_is_linked_after_saying_what_moves(
        browser: Browser, server: LiveServer, group: tuple[str, str, str], screenshots: Path) -> None:
    ana, group_id, _ = group
    phone_key = player(server, "Ana (téléphone)")
    club = api(server, "POST", "/api/groups", phone_key, name="Le club")
    code = str(api(server, "POST", "/api/me/link", ana)["code"])
    context = phone(browser, "360", phone_key)
    try:
        page = context.new_page()
        page.goto(f"{server.url}/link/{code}?lang=fr")
        expect(page.locator("#link-merge")).to_be_visible()
        expect(page.locator("#link-merge-text")).to_contain_text("Ana (téléphone)")
        expect(page.locator("#link-merge-text")).to_contain_text(
            "0 partie terminée, 1 groupe, messages et appareils passent à Ana")
        expect(page.locator("#link-merge-yes")).to_have_text("Relier et tout passer à Ana")
        no_sideways_scroll(page)
        page.screenshot(path=str(screenshots / "people-link-merge-fr-360.png"))
        # Not now: nothing changes, the code stays unused.
        page.locator("#link-merge-no").click()
        expect(page.locator("#me-status")).to_have_text(re.compile("Rien n'a changé"))
        expect(page.locator("#name-input")).to_have_value("Ana (téléphone)")
        # Typed in by hand this time, then agreed.
        page.fill("#merge-code-input", code.lower())
        page.locator("#merge-code-form button[type=submit]").click()
        page.locator("#link-merge-yes").click()
        expect(page.locator("#me-status")).to_have_text(re.compile("joue maintenant en tant que Ana"))
        expect(page.locator("#name-input")).to_have_value("Ana")
        expect(page.locator("#groups-list li")).to_have_count(2)
        mine = api(server, "GET", "/api/me", ana)
        assert {g["id"] for g in mine["groups"]} == {group_id, club["id"]}  # type: ignore[union-attr]
        assert len(mine["devices"]) == 2  # type: ignore[arg-type]
    finally:
        context.close()
