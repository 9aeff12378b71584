"""A group's league on the big screen of the room (/groups/<id>/screen), on a 1920×1080 television
read from a sofa some three metres away: every figure and name large, the whole league and its
chart on the one screen with nothing to scroll, in French and Brazilian Portuguese."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect

from nimmt.scoresheet import ScoreSheet
from tests.server.live import LiveServer

NAMES = ["Ana", "Bruno", "Carla", "Dora", "Élodie", "Francisco", "Guilherme"]
# On a 1920×1080 screen seen from a sofa, text under about 32 px (a capital some 23 px tall) is hard
# to read: every name and figure is at least that.
SOFA_PX = 32


def _player(server: LiveServer, name: str) -> tuple[str, str]:
    made = httpx.post(f"{server.url}/api/players", json={"name": name}, timeout=10).json()
    return made["key"], made["player"]["id"]


@pytest.mark.parametrize("lang", ["fr", "pt-BR"])
def test_the_league_is_readable_from_a_sofa(browser: Browser, server: LiveServer, screenshots: Path,
                                            lang: str) -> None:
    people = [_player(server, name) for name in NAMES]
    host = people[0][0]
    group = httpx.post(f"{server.url}/api/groups", json={"name": "Les vendredis"}, timeout=10,
                       headers={"X-Player-Key": host}).json()
    invite = group["invite_url"].rsplit("/", 1)[1]
    for key, _ in people[1:]:
        httpx.post(f"{server.url}/api/invites", json={"invite": invite}, headers={"X-Player-Key": key}, timeout=10)
    for evening in range(4):  # four games of five, each evening another five at the table
        seated = [(evening + seat) % len(NAMES) for seat in range(5)]
        sheet = ScoreSheet(tuple(NAMES[i] for i in seated))
        for turn in range(3):
            sheet = sheet.add_round([(7 * i + 11 * turn + 5 * evening) % 29 for i in range(5)])
        sheet = sheet.add_round([70, 3, 12, 20, 9])
        answer = httpx.post(f"{server.url}/api/groups/{group['id']}/sheets", timeout=10, headers={"X-Player-Key": host},
                            json={"sheet": sheet.to_json(), "players": [people[i][1] for i in seated]})
        assert answer.status_code == 201, answer.text
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = context.new_page()
        page.goto(f"{server.url}/groups/{group['id']}/screen?lang={lang}")
        expect(page.locator("#league-table tbody tr")).to_have_count(len(NAMES))
        expect(page.locator("#form-chart")).to_be_visible()
        page.wait_for_function("() => document.getElementById('form-chart').complete")
        page.screenshot(path=str(screenshots / f"people-screen-1920-{lang}.png"))
        # The chart's figures are written as the language writes numbers: "6,5", not "6.5".
        svg = httpx.get(f"{server.url}/api/groups/{group['id']}/form.svg?lang={lang}", timeout=10).text
        assert re.search(r">\d+,\d</text>", svg) and not re.search(r">\d+\.\d</text>", svg)
        sizes = page.locator("#league-table tbody th, #league-table tbody td").evaluate_all(
            "cells => cells.map((cell) => parseFloat(getComputedStyle(cell).fontSize))")
        assert min(sizes) >= SOFA_PX, sizes
        heads = page.locator("#league-table thead th").evaluate_all(
            "cells => cells.map((cell) => parseFloat(getComputedStyle(cell).fontSize))")
        assert min(heads) >= SOFA_PX * 0.6, heads
        # The whole league and its chart on the screen: nothing to scroll, down or sideways.
        assert page.evaluate("() => document.documentElement.scrollHeight <= window.innerHeight + 1")
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        assert page.locator("#league-table").evaluate(  # every column in sight, none scrolled away
            "table => table.parentElement.scrollWidth <= table.parentElement.clientWidth")
        for selector in ("#league-table", "#form-chart"):
            box = page.locator(selector).bounding_box()
            assert box is not None and box["y"] + box["height"] <= 1080 and box["x"] + box["width"] <= 1920, selector
        chart = page.locator("#form-chart").bounding_box()
        assert chart is not None and chart["width"] >= 560, chart  # its lines and legend big enough too
    finally:
        context.close()
