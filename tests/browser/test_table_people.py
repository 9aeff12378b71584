"""Nobody stuck, easy to join, readable in light and dark: the host's buttons pass on when the creator
leaves, anyone seated hands an absent person's seat to a bot after the grace, the person gets it back
at their next decision, the lobby's QR code is the invite link, and axe finds nothing on the table's
screens in either colour scheme."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import act, decision, next_decision, still
from tests.qr import decode_qr
from tests.server.live import LiveServer

GRACE = 3  # seconds an absent person is waited for before anyone may hand their seat to a bot


@pytest.fixture
def graced(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "nimmt.sqlite3", bot_delay=0, seed=4, away_grace=GRACE) as live:
        yield live


def _people(server: LiveServer, seats: int, bots: list[str], *names: str) -> tuple[str, list[str]]:
    created = httpx.post(f"{server.url}/api/tables", json={
        "name": names[0], "seats": seats, "bots": bots, "options": {"rounds": 1}}).json()
    tokens = [created["token"]]
    for name in names[1:]:
        tokens.append(httpx.post(f"{server.url}/api/tables/{created['table_id']}/join", json={"name": name})
                      .json()["token"])
    return str(created["table_id"]), tokens


def test_nobody_is_stuck(browser: Browser, graced: LiveServer) -> None:
    """Ana creates the table and leaves before the start: Bruno gets the start button. Bruno waits for
    Ana for the grace, then lets a bot play for her; when Ana comes back, her seat is hers again at
    her next decision."""
    server = graced
    table_id, (ana_token, bruno_token) = _people(server, 3, ["random"], "Ana", "Bruno")
    url = f"{server.url}/t/{table_id}?lang=en"
    phone = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
    ana_context, bruno_context = browser.new_context(**phone), browser.new_context(**phone)
    try:
        ana, bruno = ana_context.new_page(), bruno_context.new_page()
        ana.goto(f"{url}#seat={ana_token}")
        bruno.goto(f"{url}#seat={bruno_token}")
        expect(ana.locator("#start")).to_be_enabled()
        expect(bruno.locator("#start-box")).to_be_hidden()
        ana.close()
        # The creator left: the host's button passes to the next person present.
        expect(bruno.locator("#start")).to_be_enabled()
        bruno.locator("#start").click()
        act(bruno, next_decision(bruno))
        expect(bruno.locator("#status")).to_contain_text("Waiting for Ana.")
        # Ana is away: first a countdown, then anyone seated may let a bot play for her.
        expect(bruno.locator("#absent")).to_contain_text(re.compile(r"Ana is away\. In \d+ s"))
        hand_over = bruno.get_by_role("button", name="Let a bot play for Ana")
        expect(hand_over).to_be_visible(timeout=(GRACE + 20) * 1000)
        bruno.once("dialog", lambda dialog: dialog.accept())
        hand_over.click()
        expect(bruno.locator("#players")).to_contain_text("Ana (bot)")
        # The bot plays Ana's seat: Bruno is asked again.
        act(bruno, next_decision(bruno))

        # Ana comes back on her phone: at her next decision her seat is hers, and she plays.
        ana = ana_context.new_page()
        ana.goto(url)  # her seat's token is kept in her browser
        deadline = time.monotonic() + 60
        while not (seen := decision(ana))["cards"] and not seen["rows"]:
            assert time.monotonic() < deadline, "Ana never got her seat back"
            if decision(bruno)["cards"] or decision(bruno)["rows"]:
                act(bruno)
            ana.wait_for_timeout(50)
        expect(bruno.locator("#players")).not_to_contain_text("Ana (bot)")
        assert act(ana, next_decision(ana)) in ("card", "row")
        expect(ana.locator("#error")).to_be_empty()
    finally:
        ana_context.close()
        bruno_context.close()


def test_the_lobby_qr_code_is_the_invite_link(browser: Browser, server: LiveServer, screenshots: Path) -> None:
    table_id, (token,) = _people(server, 3, ["random"], "Ana")
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, device_scale_factor=2)
    try:
        page = context.new_page()
        page.goto(f"{server.url}/t/{table_id}?lang=pt-BR#seat={token}")
        invite = page.locator("#invite-link")
        # The link carries no language: whoever opens it reads the table in their own.
        expect(invite).to_have_value(re.compile(rf"/t/{table_id}$"))
        qr = page.locator("#invite-qr")
        expect(qr).to_be_visible()
        page.wait_for_function("() => document.getElementById('invite-qr').complete"
                               " && document.getElementById('invite-qr').naturalWidth > 0")
        assert decode_qr(qr.screenshot()) == [invite.input_value()]
        page.screenshot(path=str(screenshots / "lobby-phone.png"), full_page=True)
    finally:
        context.close()


def _violations(page: Page) -> list[str]:
    still(page)
    result = Axe().run(page)
    return [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
            for v in result.response["violations"]]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_table_screens_pass_an_axe_scan(browser: Browser, server: LiveServer, scheme: Literal["light", "dark"],
                                            screenshots: Path) -> None:
    """The lobby, a card decision, a row choice and the standings, in the scheme the system asks for."""
    # Without motion (axe looks at what stands still; the whole game took 67 s with every reveal).
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, color_scheme=scheme,
                                  reduced_motion="reduce")
    try:
        page = context.new_page()
        table_id, (token,) = _people(server, 4, ["heuristic", "heuristic"], "Ana")
        page.goto(f"{server.url}/t/{table_id}?lang=en#seat={token}")
        expect(page.locator("#invite-qr")).to_be_visible()
        problems = {"lobby": _violations(page)}
        httpx.post(f"{server.url}/api/tables/{table_id}/join", json={"name": "Bruno"})
        page.locator("#start:not([disabled])").click()
        seen = next_decision(page)
        problems["card decision"] = _violations(page)
        if scheme == "dark":
            page.screenshot(path=str(screenshots / "table-phone-dark.png"))
        bruno_waits = True
        while not seen["over"]:
            if seen["rows"] and "row choice" not in problems:
                problems["row choice"] = _violations(page)
            act(page, seen)
            if bruno_waits:
                # Bruno never opened the table: a bot takes his seat (the server's grace is 0 here).
                page.locator("#menu summary").click()
                page.select_option("#host-bot", "random")
                page.locator("#menu summary").click()
                page.once("dialog", lambda dialog: dialog.accept())
                page.get_by_role("button", name="Let a bot play for Bruno").click()
                bruno_waits = False
            seen = next_decision(page)
        expect(page.locator("#chart svg")).to_be_visible()
        problems["standings"] = _violations(page)
        assert {name: found for name, found in problems.items() if found} == {}
    finally:
        context.close()
