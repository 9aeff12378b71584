"""People who come back, in Chromium on a real ``nimmt serve``: a person plays two games on two days
and finds both under My games; a second device joins by a QR code and by a passkey (Chromium's
virtual authenticator); a group's league on its page equals the table worked out by hand; export
and delete. Phone sizes, in French and Brazilian Portuguese."""

from __future__ import annotations

import base64
import json
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from nimmt.scoresheet import ScoreSheet
from tests.browser.helpers import act, next_decision, open_options
from tests.qr import decode_qr
from tests.server.live import LiveServer

PHONE = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
TALL_PHONE = {**PHONE, "viewport": {"width": 390, "height": 844}}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "nimmt.sqlite3", bot_delay=0, seed=7) as live:
        # WebAuthn takes a host name, not an address: the pages are opened at localhost.
        live.url = live.url.replace("127.0.0.1", "localhost")
        yield live


def overflow(page: Page) -> int:
    width: int = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    return width


def new_person(context: BrowserContext, server: LiveServer, name: str, lang: str) -> Page:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.url}/me?lang={lang}")
    page.fill("#start-name", name)
    page.locator("#start-form button[type=submit]").click()
    expect(page.locator("#games")).to_be_visible()
    expect(page.locator("#name-input")).to_have_value(name)
    assert errors == []
    return page


def key_of(page: Page) -> str:
    key: str = page.evaluate("() => localStorage.getItem('nimmt:player')")
    assert key.startswith("nk1_")
    return key


def play_to_the_end(page: Page) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        seen = next_decision(page)
        if seen["over"]:
            return
        act(page, seen)
    raise AssertionError("the game did not end")


def test_two_games_on_two_days_are_under_my_games(browser: Browser, server: LiveServer, screenshots: Path) -> None:
    # Ana's browser speaks French: a link's ?lang= is for its own page, her language is her browser's.
    context = browser.new_context(**TALL_PHONE, reduced_motion="reduce", locale="fr")
    try:
        ana = new_person(context, server, "Ana", "fr")
        ana.goto(f"{server.url}/?lang=fr")
        ana.fill("#create-name", "Ana")
        open_options(ana)
        ana.fill("#create-seats", "2")
        ana.fill("#create-bots", "1")
        ana.select_option("#bot-0", "random")
        ana.fill("#create-rounds", "1")
        ana.locator("#create button[type=submit]").click()
        ana.wait_for_url(re.compile(r"/t/[\w-]+$"))
        table_id = ana.url.rsplit("/", 1)[1]
        ana.locator("#start").click()
        play_to_the_end(ana)
        expect(ana.locator("#my-games")).to_be_visible()  # the last screen links to My games
        # The first game ended yesterday: its end time is written back a day, as a clock moved. The game
        # was kept before the last screen's news went out: its row is there now.
        with sqlite3.connect(server.db) as db:
            changed = db.execute("UPDATE people_games SET finished_at = datetime(finished_at, '-1 day') "
                                 "WHERE table_id = ? AND game = 1", (table_id,)).rowcount
        assert changed == 1
        ana.locator("#rematch").click()
        # The first game's last screen stays until the new game's state comes: wait for it, or the
        # loop below would take that screen for the second game's end.
        expect(ana.locator("body")).not_to_have_attribute("data-status", "over", timeout=30_000)
        play_to_the_end(ana)
        ana.locator("#my-games").click()
        ana.wait_for_url(re.compile(r"/me$"))
        items = ana.locator("#games-list .game-item")
        expect(items).to_have_count(2)
        days = items.locator("time").evaluate_all("els => els.map(e => e.getAttribute('datetime').slice(0, 10))")
        assert len(set(days)) == 2 and days == sorted(days, reverse=True)  # two days, newest first
        expect(items.first).to_contain_text("Avec")
        expect(items.first).to_contain_text("(bot)")
        expect(items.first.locator("a", has_text="Revoir")).to_have_attribute("href", re.compile(
            rf"/replay/{table_id}/2$"))
        record = httpx.get(items.nth(1).locator("a[download]").get_attribute("href") or "", timeout=10).json()
        assert record["format"] == "nimmt/1" and record["players"][0] == "Ana"
        assert overflow(ana) <= 0
        ana.screenshot(path=str(screenshots / "people-my-games-fr.png"), full_page=True)
        for lang, size in (("pt-BR", PHONE["viewport"]), ("fr", PHONE["viewport"])):
            ana.set_viewport_size(size)
            ana.goto(f"{server.url}/me?lang={lang}")
            expect(ana.locator("#games-list .game-item")).to_have_count(2)
            assert overflow(ana) <= 0, lang
            ana.screenshot(path=str(screenshots / f"people-me-{lang}-360.png"))
    finally:
        context.close()


def test_a_second_device_by_qr_code_and_a_stale_code(browser: Browser, server: LiveServer) -> None:
    desk = browser.new_context(viewport={"width": 1000, "height": 800})
    phone = browser.new_context(**PHONE)
    try:
        ana = new_person(desk, server, "Ana", "pt-BR")
        ana.locator("#link-make").click()
        qr = ana.locator("#link-qr")
        expect(qr).to_be_visible()
        [link] = decode_qr(qr.screenshot())
        assert re.fullmatch(rf"{re.escape(server.url)}/link/[2-9A-Z]{{10}}", link), link
        second = phone.new_page()
        second.goto(f"{link}?lang=pt-BR")
        expect(second.locator("#code-input")).to_have_value(link.rsplit("/", 1)[1])
        second.locator("#code-form button[type=submit]").click()
        expect(second.locator("#name-input")).to_have_value("Ana")
        assert key_of(second) != key_of(ana)
        # The same code on a third device: already used, said clearly, and nothing changes there.
        third = browser.new_context(**PHONE)
        try:
            late = third.new_page()
            late.goto(f"{link}?lang=pt-BR")
            late.locator("#code-form button[type=submit]").click()
            expect(late.locator("#me-error")).to_have_text(re.compile("já foi usado"))
            expect(late.locator("#start")).to_be_visible()
        finally:
            third.close()
        # Ana signs the phone out from her desk: the phone is nobody again, and says so.
        ana.reload()
        ana.locator("#devices-list li", has_text="código").get_by_role("button").click()
        expect(ana.locator("#devices-list li")).to_have_count(1)
        second.reload()
        expect(second.locator("#start")).to_be_visible()
    finally:
        desk.close()
        phone.close()


def authenticator(page: Page) -> tuple[Any, str]:
    """A virtual platform authenticator (Chromium's, through CDP) for this page's browser context."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    made = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
        "isUserVerified": True, "automaticPresenceSimulation": True}})
    return cdp, made["authenticatorId"]


def test_a_second_device_by_passkey(browser: Browser, server: LiveServer) -> None:
    desk = browser.new_context(viewport={"width": 1000, "height": 800})
    phone = browser.new_context(**PHONE)
    try:
        ana = new_person(desk, server, "Ana", "en")
        desk_cdp, desk_authenticator = authenticator(ana)
        ana.locator("#passkey-add").click()
        expect(ana.locator("#me-status")).to_have_text("Passkey added.")
        expect(ana.locator("#passkey-count")).to_have_text("Passkeys: 1")
        [credential] = desk_cdp.send("WebAuthn.getCredentials", {"authenticatorId": desk_authenticator})["credentials"]
        assert credential["isResidentCredential"]
        # The passkey syncs to Ana's phone (as a platform's keychain would): the same credential there.
        second = phone.new_page()
        second.goto(f"{server.url}/me?lang=en")
        phone_cdp, phone_authenticator = authenticator(second)
        phone_cdp.send("WebAuthn.addCredential", {"authenticatorId": phone_authenticator, "credential": credential})
        second.locator("#passkey-sign-in").click()
        expect(second.locator("#name-input")).to_have_value("Ana")
        devices = second.locator("#devices-list li")
        expect(devices).to_have_count(2)
        expect(devices.nth(1)).to_contain_text("Signed in with a passkey")
        # Ana removes the passkey on its own from her desk: the phone it signed in keeps its key.
        ana.reload()
        expect(ana.locator("#passkeys-list li")).to_have_count(1)
        ana.locator("#passkeys-list li").get_by_role("button", name="Remove").click()
        expect(ana.locator("#me-status")).to_have_text("Passkey removed: it no longer signs anybody in.")
        expect(ana.locator("#passkey-count")).to_have_text("Passkeys: 0")
        expect(ana.locator("#passkeys-list li")).to_have_count(0)
        expect(ana.locator("#devices-list li")).to_have_count(2)
        second.reload()
        expect(second.locator("#name-input")).to_have_value("Ana")
        # Passkeys nimmt does not know (the removed one, another site's): refused, the page stays nobody's.
        stranger = browser.new_context(**PHONE)
        try:
            other = stranger.new_page()
            other.goto(f"{server.url}/me?lang=en")
            other_cdp, other_authenticator = authenticator(other)
            forged = {**credential, "credentialId": base64.b64encode(b"not a known passkey").decode()}
            for passkey in (credential, forged):
                other_cdp.send("WebAuthn.clearCredentials", {"authenticatorId": other_authenticator})
                other_cdp.send("WebAuthn.addCredential", {"authenticatorId": other_authenticator,
                                                          "credential": passkey})
                other.locator("#passkey-sign-in").click()
                expect(other.locator("#me-error")).to_have_text("The passkey was not accepted.")
                expect(other.locator("#start")).to_be_visible()
                other.evaluate("() => { document.getElementById('me-error').textContent = ''; }")
        finally:
            stranger.close()
    finally:
        desk.close()
        phone.close()


def sheet(players: list[str], rounds: list[list[int]]) -> dict[str, Any]:
    made = ScoreSheet(tuple(players))
    for penalties in rounds:
        made = made.add_round(penalties)
    return made.to_json()


def test_a_groups_league_page_is_the_table_worked_out_by_hand(browser: Browser, server: LiveServer,
                                                              screenshots: Path) -> None:
    contexts = [browser.new_context(**PHONE) for _ in range(3)]
    try:
        ana, bruno, carla = (new_person(context, server, name, "fr")
                             for context, name in zip(contexts, ["Ana", "Bruno", "Carla"], strict=True))
        ana.fill("#group-name", "Les vendredis")
        ana.locator("#group-form button[type=submit]").click()
        ana.wait_for_url(re.compile(r"/groups/g_[\w-]+$"))
        group_id = ana.url.rsplit("/", 1)[1]
        [invite] = decode_qr(ana.locator("#invite-qr").screenshot())
        for person in (bruno, carla):
            person.goto(f"{invite}?lang=fr")
            # The link names its group before anybody joins.
            expect(person.locator("#invite-note")).to_have_text("Vous êtes invité à rejoindre le groupe Les vendredis.")
            expect(person.locator("#join-button")).to_have_text("Rejoindre Les vendredis")
            person.locator("#join-button").click()
            person.wait_for_url(re.compile(rf"/groups/{group_id}$"))
        ids = {name: page.evaluate("() => fetch('/api/me', {headers: {'X-Player-Key': "
                                   "localStorage.getItem('nimmt:player')}}).then(r => r.json())")["player"]["id"]
               for name, page in (("Ana", ana), ("Bruno", bruno), ("Carla", carla))}
        games = [
            (sheet(["Ana", "Bruno", "Carla"], [[10, 20, 5], [30, 50, 10]]), ["Ana", "Bruno", "Carla"]),
            (sheet(["Ana", "Bruno"], [[40, 40], [30, 30]]), ["Ana", "Bruno"]),
            (sheet(["Carla", "Ana", "Bruno"], [[0, 67, 3]]), ["Carla", "Ana", "Bruno"]),
        ]
        for played, seated in games:
            answer = httpx.post(f"{server.url}/api/groups/{group_id}/sheets", timeout=10,
                                headers={"X-Player-Key": key_of(ana)},
                                json={"sheet": played, "players": [ids[name] for name in seated]})
            assert answer.status_code == 201, answer.text
        # Ana saved them: Bruno and Carla each say the sheets that name them were them (they count then).
        for page in (bruno, carla):
            key = {"X-Player-Key": key_of(page)}
            for game in httpx.get(f"{server.url}/api/me/games", headers=key, timeout=10).json()["games"]:
                assert not game["confirmed"]
                assert httpx.post(f"{server.url}/api/me/games/{game['id']}/seat", json={"mine": True}, headers=key,
                                  timeout=10).status_code == 204
        # By hand: Carla 2 games, 2 wins, 15 bullheads in 3 rounds (5,00), best 0, worst 10, none past 66;
        # Bruno 3 games, half a win, 143 in 5 rounds (28,60), best 3, worst 50, 2 past 66; Ana 3, half a
        # win, 177 in 5 rounds (35,40), best 10, worst 67, 2 past 66. Wins first, then fewer per round.
        by_hand = [["Carla", "2", "2", "5,00", "0", "10", "0"],
                   ["Bruno", "3", "0,50", "28,60", "3", "50", "2"],
                   ["Ana", "3", "0,50", "35,40", "10", "67", "2"]]
        for page in (carla, ana):
            page.goto(f"{server.url}/groups/{group_id}?lang=fr")
            rows = page.locator("#league-table tbody tr")
            expect(rows).to_have_count(3)
            shown = rows.evaluate_all("rows => rows.map(r => [...r.children].slice(0, 7).map(c => c.textContent"
                                      ".replace(/\\u202f|\\u00a0/g, ' ')))")
            assert shown == by_hand, shown
            expect(page.locator("#form-chart")).to_be_visible()
            assert overflow(page) <= 0
            # Nothing of the league is cut or scrolled away inside its panel either.
            assert page.locator("#league-table").evaluate(
                "t => t.parentElement.scrollWidth - t.parentElement.clientWidth") <= 0
        ana.screenshot(path=str(screenshots / "people-group-fr-360.png"), full_page=True)
        # The host closes the invite: the same link no longer lets anybody in.
        ana.locator("#invite-toggle").click()
        expect(ana.locator("#invite-closed")).to_be_visible()
        late = browser.new_context(**PHONE)
        try:
            dora = new_person(late, server, "Dora", "fr")
            dora.goto(f"{invite}?lang=fr")
            expect(dora.locator("#invite-note")).to_have_text(re.compile("fermé l'invitation"))
            expect(dora.locator("#join-button")).to_be_hidden()
            assert overflow(dora) <= 0
            dora.screenshot(path=str(screenshots / "people-invite-closed-fr-360.png"))
        finally:
            late.close()
        # The big screen reads the league by the group's link alone.
        screen = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        screen.goto(f"{server.url}/groups/{group_id}/screen?lang=pt-BR")
        expect(screen.locator("#league-table tbody tr")).to_have_count(3)
        expect(screen.locator("#group-name")).to_have_text("Les vendredis")
        screen.screenshot(path=str(screenshots / "people-screen-pt-BR.png"))
        screen.context.close()
        # Carla shows her profile. The ratings page marks her own row: score sheets count in their group
        # alone, so she is at 1000 with no game at nimmt's tables; the six bots are named by level.
        carla.goto(f"{server.url}/me?lang=de")
        carla.locator("#public-input").check()
        expect(carla.locator("#me-status")).to_have_text("Gespeichert.")
        carla.goto(f"{server.url}/ratings?lang=de")
        rows = carla.locator("#ratings-table tbody tr")
        expect(rows.filter(has_text="Carla")).to_have_count(1)
        expect(rows.filter(has_text="(Bot)")).to_have_count(6)
        expect(rows.filter(has_text="Heuristik (Bot)")).to_have_count(1)
        expect(rows.filter(has_text="Ana")).to_have_count(0)  # not public
        expect(rows.filter(has_text="Carla")).to_have_class("me")
        expect(rows.filter(has_text="Carla").locator("td").nth(0)).to_contain_text("1.000")
        expect(rows.filter(has_text="Carla").locator("td").nth(1)).to_have_text("0")
        assert overflow(carla) <= 0
    finally:
        for context in contexts:
            context.close()


@pytest.fixture
def duo(browser: Browser, server: LiveServer) -> Iterator[tuple[Page, Page, str]]:
    """Ana and Bruno on two phones (French), in Ana's group "Duo", joined by its invite link."""
    contexts = [browser.new_context(**PHONE) for _ in range(2)]
    try:
        ana, bruno = new_person(contexts[0], server, "Ana", "fr"), new_person(contexts[1], server, "Bruno", "fr")
        ana.fill("#group-name", "Duo")
        ana.locator("#group-form button[type=submit]").click()
        ana.wait_for_url(re.compile(r"/groups/g_[\w-]+$"))
        group_id = ana.url.rsplit("/", 1)[1]
        expect(ana.locator("#invite-link")).to_have_attribute("href", re.compile(r"/join/"))  # the page has its group
        bruno.goto(f"{ana.locator('#invite-link').get_attribute('href')}?lang=fr")
        bruno.locator("#join-button").click()
        bruno.wait_for_url(re.compile(rf"/groups/{group_id}$"))
        yield ana, bruno, group_id
    finally:
        for context in contexts:
            context.close()


def test_export_then_delete(server: LiveServer, duo: tuple[Page, Page, str]) -> None:
    ana, bruno, group_id = duo
    ids = [httpx.get(f"{server.url}/api/me", headers={"X-Player-Key": key_of(page)}).json()["player"]["id"]
           for page in (ana, bruno)]
    answer = httpx.post(f"{server.url}/api/groups/{group_id}/sheets", headers={"X-Player-Key": key_of(ana)},
                        json={"sheet": sheet(["Ana", "Bruno"], [[10, 60], [10, 20]]), "players": ids})
    assert answer.status_code == 201
    ana.goto(f"{server.url}/me?lang=fr")
    with ana.expect_download() as download:
        ana.locator("#data-export").click()
    data = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert data["player"]["name"] == "Ana" and len(data["games"]) == 1 and data["groups"][0]["name"] == "Duo"
    ana.once("dialog", lambda dialog: dialog.accept())
    ana.locator("#data-delete").click()
    expect(ana.locator("#me-status")).to_have_text("Votre joueur est supprimé.")
    expect(ana.locator("#start")).to_be_visible()
    bruno.goto(f"{server.url}/me?lang=fr")
    expect(bruno.locator("#games-list .game-item")).to_contain_text("Avec un ancien joueur")


def test_a_real_deck_game_is_saved_into_a_group(server: LiveServer, screenshots: Path,
                                                duo: tuple[Page, Page, str]) -> None:
    ana, bruno, group_id = duo
    ana.goto(f"{server.url}/score?lang=fr")
    ana.evaluate("() => localStorage.removeItem('nimmt:scoresheet')")
    ana.reload()
    ana.fill("#sheet-players", "Ana\nBruno\nCarla")
    ana.locator("#sheet-new button[type=submit]").click()
    for played, penalties in enumerate(([30, 40, 5], [10, 27, 1])):  # 40, 67, 6: over, Carla (no player) wins
        for seat, value in enumerate(penalties):
            ana.fill(f"#penalty-{seat}", str(value))
        ana.locator("#sheet-add").click()
        expect(ana.locator("#sheet-table tbody tr").nth(played).locator("td").first).to_have_text(str(penalties[0]))
    expect(ana.locator("#sheet-group")).to_be_visible()
    # Ana and Bruno are matched with the members of their names, Carla is somebody else.
    expect(ana.locator("#sheet-seat-0 option:checked")).to_have_text("Ana")
    expect(ana.locator("#sheet-seat-1 option:checked")).to_have_text("Bruno")
    expect(ana.locator("#sheet-seat-2 option:checked")).to_have_text("Quelqu'un d'autre")
    assert overflow(ana) <= 0
    ana.screenshot(path=str(screenshots / "people-sheet-fr-360.png"), full_page=True)
    ana.locator("#sheet-group-save").click()
    expect(ana.locator("#sheet-group-status")).to_have_text("Enregistrée dans le classement de Duo.")
    league = httpx.get(f"{server.url}/api/groups/{group_id}/league", timeout=10).json()
    assert league["games"] == 1
    # It counts for Ana, who saved it; Bruno is asked on his games whether it was him.
    assert {row["name"]: row["games"] for row in league["rows"]} == {"Ana": 1, "Bruno": 0}
    bruno.goto(f"{server.url}/me?lang=fr")
    expect(bruno.locator("#standing-pending")).to_be_visible()
    word = bruno.locator(".game-item .sheet-word")
    expect(word).to_contain_text("Cette feuille de marque vous nomme.")
    word.get_by_role("button", name="Oui, c'était moi").click()
    expect(bruno.locator("#me-status")).to_have_text("Comptée dans vos chiffres.")
    expect(bruno.locator(".sheet-word")).to_have_count(0)
    expect(bruno.locator("#standing-pending")).to_be_hidden()
    league = httpx.get(f"{server.url}/api/groups/{group_id}/league", timeout=10).json()
    assert {row["name"]: (row["games"], row["wins"], row["past_66"]) for row in league["rows"]} == {
        "Ana": (1, 0.0, 0), "Bruno": (1, 0.0, 1)}
