"""A clock that runs out for a person who is at the table, on phones (360x640), one person reading
French and the other Brazilian Portuguese, on a real ``nimmt serve``: at a row choice, nothing is
chosen for her; both screens say her time is up; the table waits until the other person hands her
seat to a bot; her screen then says what the bot played, and she takes her seat back."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import WAIT_MS, choose_row, decision, play_card, skip_reveal
from tests.server.live import LiveServer

PHONE: dict[str, Any] = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True}
CLOCK = 20  # seconds a decision: time enough for a loaded machine to play each card


def _to_row_choice(amelie: Page, bruno: Page) -> None:
    """Amélie plays her lowest cards and Bruno his highest, until one of hers falls below every row."""
    deadline = time.monotonic() + 4 * WAIT_MS / 1000
    while True:
        assert time.monotonic() < deadline, "no row choice came"
        hers, his = decision(amelie), decision(bruno)
        assert not hers["over"], "the game ended before a row choice of Amélie's"
        if hers["rows"]:
            return
        if hers["cards"]:
            play_card(amelie, hers["cards"][0])
        elif his["rows"]:
            choose_row(bruno, his["rows"][0], his)
        elif his["cards"]:
            play_card(bruno, his["cards"][-1])
        else:
            skip_reveal(amelie)
            skip_reveal(bruno)
            amelie.wait_for_timeout(100)


def test_a_present_persons_clock_runs_out_at_a_row_choice_and_waits_for_a_hand_over(
        browser: Browser, server: LiveServer, screenshots: Path) -> None:
    with httpx.Client(timeout=30) as http:
        made = http.post(f"{server.url}/api/tables", json={
            "name": "Amélie", "seats": 2, "language": "fr", "options": {"clock": CLOCK, "rounds": 3}}).json()
        table = made["table_id"]
        joined = http.post(f"{server.url}/api/tables/{table}/join", json={"name": "Bruno"}).json()
    contexts = [browser.new_context(**PHONE, locale="fr-FR", reduced_motion="reduce"),
                browser.new_context(**PHONE, locale="pt-BR", reduced_motion="reduce")]
    try:
        amelie, bruno = contexts[0].new_page(), contexts[1].new_page()
        amelie.goto(f"{server.url}/t/{table}?lang=fr#seat={made['token']}")
        bruno.goto(f"{server.url}/t/{table}?lang=pt-BR#seat={joined['token']}")
        amelie.locator("#start:not([disabled])").click()
        _to_row_choice(amelie, bruno)
        asked = decision(amelie)
        # Her clock runs out at the row choice: both screens say so, in their own language.
        expect(amelie.locator("#absent")).to_contain_text("Votre temps est écoulé. La partie vous attend",
                                                          timeout=(CLOCK + 30) * 1000)
        expect(bruno.locator("#absent")).to_contain_text("O tempo de Amélie acabou.")
        hand_over = bruno.get_by_role("button", name="Deixar um bot jogar por Amélie")
        expect(hand_over).to_have_text("Passar a um bot")
        expect(hand_over).to_be_in_viewport()
        amelie.screenshot(path=str(screenshots / "table-clock-out-fr-360x640.png"))
        bruno.screenshot(path=str(screenshots / "table-clock-out-other-pt-BR-360x640.png"))
        # Nothing is chosen for her, however long it takes: her rows still wait for her.
        amelie.wait_for_timeout(3000)
        still = decision(amelie)
        assert still["version"] == asked["version"] and still["rows"] == asked["rows"], (asked, still)
        assert amelie.locator("#seat-back").count() == 0
        # Bruno hands her seat over (one tap, then the confirmation): the bot takes a row for her.
        bruno.once("dialog", lambda dialog: dialog.accept())
        hand_over.click()
        expect(amelie.locator("#absent")).to_contain_text(
            re.compile(r"Le robot a joué : .*a pris la Rangée \d \(\d+ têtes? de bœuf\)"))
        expect(amelie.locator("#seat-back")).to_have_text("Reprendre ma place")
        expect(amelie.locator("#hand-help")).to_have_text(
            re.compile(r"^(Un robot joue pour vous\.|Le robot qui joue pour vous a choisi le \d+ ce tour-ci\.)$"))
        amelie.screenshot(path=str(screenshots / "table-clock-bot-played-fr-360x640.png"))
        # She takes her seat back: the note of what the bot played stays until she closes it.
        amelie.locator("#seat-back").click()
        expect(amelie.locator("#seat-back")).to_have_count(0)
        note = amelie.locator("#absent li", has_text="Le robot a joué :")
        expect(note).to_be_visible()
        note.get_by_role("button", name="OK").click()
        expect(note).to_have_count(0)
    finally:
        for context in contexts:
            context.close()


def test_a_persons_second_phone_takes_their_seat_in_a_game_in_progress(
        browser: Browser, server: LiveServer, screenshots: Path) -> None:
    """The same player key on a second phone (linked by a one-time code, say): the table's link opens
    on her own seat, her cards under her fingers, not a spectator's view."""
    with httpx.Client(timeout=30) as http:
        key = http.post(f"{server.url}/api/players", json={"name": "Amélie"}).json()["key"]
        made = http.post(f"{server.url}/api/tables", headers={"X-Player-Key": key}, json={
            "name": "Amélie", "seats": 3, "bots": ["random", "random"], "start": True, "language": "fr"}).json()
    context = browser.new_context(**PHONE, locale="fr-FR", reduced_motion="reduce")
    try:
        context.add_init_script(f"localStorage.setItem('nimmt:player', {key!r})")
        phone = context.new_page()
        phone.goto(f"{server.url}/t/{made['table_id']}?lang=fr")
        expect(phone.locator("#hand button.card:not([disabled])").first).to_be_visible()
        expect(phone.locator('#strip [data-seat="0"]')).to_have_class(re.compile(r"\bme\b"))
        phone.screenshot(path=str(screenshots / "table-second-phone-fr-360x640.png"))
        play_card(phone, decision(phone)["cards"][0])
    finally:
        context.close()
