"""The home page in a real browser: play now against bots in one click (the name remembered), on a
desktop and on a small phone where name, play now and create fit the first screen; the invite link's
QR code as Chromium draws it reads as the invite link."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from nimmt.i18n import LANGUAGES, catalog
from tests.qr import decode_qr
from tests.server.live import LiveServer

SMALL_PHONE: dict[str, Any] = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True,
                               "device_scale_factor": 2}
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}}


def _on_first_screen(page: Page, locator: Locator) -> None:
    expect(locator).to_be_visible()
    box = locator.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    assert box["x"] >= 0 and box["y"] >= 0, box
    assert box["x"] + box["width"] <= size["width"] and box["y"] + box["height"] <= size["height"], \
        f"{locator} lies outside the first screen: {box} in {size}"


@pytest.mark.parametrize("device", [SMALL_PHONE, DESKTOP], ids=["phone-360x640", "desktop"])
def test_play_now_in_one_click(browser: Browser, server: LiveServer, device: dict[str, Any]) -> None:
    context = browser.new_context(**device)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{server.url}/?lang=en")
        name = page.get_by_label("Your name")
        play = page.get_by_role("button", name="Play now", exact=True)
        create = page.get_by_role("button", name="Create the table")
        # On a phone the table's options are folded: name, play now and create all fit the first screen.
        for locator in (name, play, create if device is SMALL_PHONE else page.locator("#create-heading")):
            _on_first_screen(page, locator)
        expect(name).to_have_value("")
        # The first time, the name must be given: a clear error, the field focused, nothing created.
        play.click()
        expect(page.locator("#play-error")).to_have_text("Type your name first.")
        expect(name).to_be_focused()
        assert page.url.endswith("/?lang=en")
        name.fill("Ana")
        expect(page.locator("#play-error")).to_be_empty()
        page.get_by_label("Bots' strength").select_option("beginner")
        play.click()
        page.wait_for_url(re.compile(r"/t/[\w-]+$"))
        # The table has started: Ana's first card decision is on the page, the three bots at the table.
        expect(page.locator("#hand button.card:not([disabled])")).to_have_count(10)
        table_id = page.url.rsplit("/", 1)[1]
        info = httpx.get(f"{server.url}/api/tables/{table_id}").json()
        assert info["status"] == "playing" and info["language"] == "en"
        assert info["seats"][0]["name"] == "Ana"
        assert [s["bot"] for s in info["seats"]] == [None, "beginner", "beginner", "beginner"]
        # Next time the name and the strength are remembered: one click.
        page.goto(f"{server.url}/?lang=en")
        expect(name).to_have_value("Ana")
        expect(page.get_by_label("Bots' strength")).to_have_value("beginner")
        _on_first_screen(page, play)
        play.click()
        page.wait_for_url(re.compile(r"/t/[\w-]+$"))
        assert page.url.rsplit("/", 1)[1] != table_id
        expect(page.locator("#hand button.card:not([disabled])")).to_have_count(10)
        assert errors == []
    finally:
        context.close()


def test_create_keeps_its_options_folded_on_a_phone(browser: Browser, server: LiveServer) -> None:
    context = browser.new_context(**SMALL_PHONE)
    try:
        page = context.new_page()
        page.goto(f"{server.url}/?lang=de")
        options = page.locator("#create-options")
        expect(options).not_to_have_attribute("open", "")
        expect(page.locator("#create-rounds")).to_be_hidden()
        page.get_by_role("button", name="Tisch erstellen").click()
        expect(page.locator("#create-error")).to_have_text("Gib zuerst deinen Namen ein.")
        expect(page.get_by_label("Dein Name")).to_be_focused()
        page.get_by_label("Dein Name").fill("Bruno")
        options.locator("summary").click()
        page.locator("#create-rounds").fill("1")
        page.get_by_role("button", name="Tisch erstellen").click()
        page.wait_for_url(re.compile(r"/t/[\w-]+$"))
        info = httpx.get(f"{server.url}/api/tables/{page.url.rsplit('/', 1)[1]}").json()
        assert info["status"] == "lobby" and info["options"]["rounds"] == 1 and info["language"] == "de"
    finally:
        context.close()


def test_the_invite_qr_code_drawn_by_chromium_reads_as_the_invite_link(browser: Browser, server: LiveServer) -> None:
    created = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 3, "language": "pt-BR"}).json()
    context = browser.new_context(viewport={"width": 600, "height": 600})
    try:
        page = context.new_page()
        response = page.goto(f"{server.url}/api/tables/{created['table_id']}/invite.svg")
        assert response is not None and response.status == 200
        assert response.headers["content-type"].startswith("image/svg+xml")
        shot = page.locator("svg").screenshot()
        assert decode_qr(shot) == [created["invite_url"]]
        assert created["invite_url"] == f"{server.url}/t/{created['table_id']}"  # no language: the reader's own
    finally:
        context.close()


def test_name_play_now_and_create_fit_a_small_phone_in_every_language(browser: Browser, server: LiveServer) -> None:
    context = browser.new_context(**SMALL_PHONE)
    try:
        page = context.new_page()
        for language in LANGUAGES:
            page.goto(f"{server.url}/?lang={language}")
            web = catalog(language, "web")
            for locator in (page.get_by_label(web["your_name"], exact=True),
                            page.get_by_role("button", name=web["play_now_button"], exact=True),
                            page.get_by_role("button", name=web["create_button"], exact=True)):
                _on_first_screen(page, locator)
            assert page.evaluate("() => document.documentElement.scrollWidth") <= 360, language
    finally:
        context.close()
