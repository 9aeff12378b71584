"""One's own standing (issue 26, item 6): My games shows the rating overall and in each group, in
words, its history as a chart, the person's figures, the games they left and the score sheets to
confirm; /ratings is in the menu, marks the person's own row and names each bot level in the page's
language. Phones at 360x640 and 390x844, in pt-BR and fr; screenshots looked at by hand."""

from __future__ import annotations

import asyncio
import random
import re
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, expect

from nimmt.people.model import FinishedGame, SeatResult
from nimmt.people.store import SqlPeopleStore
from nimmt.server.store import Database
from tests.browser.test_people import PHONE, TALL_PHONE, key_of, new_person, overflow
from tests.server.live import LiveServer

T0 = datetime(2026, 11, 6, 20, tzinfo=UTC)
WORDS: dict[str, dict[str, Any]] = {
    "pt-BR": {"heading": "Minha pontuação", "start": re.compile(r"Todo mundo começa com 1\D?000"),
              "left": "Você saiu antes do fim",
              "bots": "Heurístico (robô)", "you": "(você)", "ask": "Esta planilha de pontos cita você."},
    "fr": {"heading": "Ma cote", "start": re.compile(r"Tout le monde commence à 1\D?000"),
           "left": "Partie quittée avant la fin",
           "bots": "Heuristique (robot)", "you": "(vous)", "ask": "Cette feuille de marque vous nomme."},
}


def seat(number: int, player: str | None, name: str, bot: str | None, total: int, *, left: bool = False,
         confirmed: bool = True) -> SeatResult:
    return SeatResult(number, player, name, bot, total, left, confirmed)


async def history(db: Path, ana: str, bruno: str, group: str, prefix: str) -> None:
    """Ana's past: twelve games at tables against bots over three weeks (one she left, one bots
    finished after both people left), and three score sheets in her group, one of them Bruno's to
    confirm... and one that names Ana, saved by Bruno, waiting for her word."""
    database = Database.sqlite(db)
    people = SqlPeopleStore(database)
    rng = random.Random(26)
    try:
        for number in range(12):
            when = T0 + timedelta(days=2 * number, minutes=number)
            totals = [rng.choice([8, 15, 22, 30, 41]) for _ in range(3)]
            left = number == 7
            seats = (seat(0, ana, "Ana", None, totals[0], left=left), seat(1, None, "Robô 2", "heuristic", totals[1]),
                     seat(2, None, "Robô 3", "beginner", totals[2]))
            rated, ending = True, "played"
            if number == 10:  # Ana and Bruno both left: bots finished it, rated for nobody
                seats = (seat(0, ana, "Ana", None, totals[0], left=True), seat(1, bruno, "Bruno", None, totals[1],
                                                                               left=True),
                         seat(2, None, "Robô 3", "expert", totals[2]))
                rated, ending = False, "bots"
            elif left:
                ending = "played"
            await people.record_game(FinishedGame(f"{prefix}t{number:02d}", "table", when, 66, seats, ((*totals,),),
                                                  f"{prefix}tab{number}", 1, group if number % 3 == 0 else None, ending,
                                                  rated))
        for number in range(3):
            when = T0 + timedelta(days=2 * number + 1)
            totals = [rng.choice([20, 35, 50, 70]) for _ in range(2)]
            mine = number < 2
            await people.record_game(FinishedGame(
                f"{prefix}s{number}", "sheet", when, 66, (seat(0, ana, "Ana", None, totals[0], confirmed=mine),
                                                  seat(1, bruno, "Bruno", None, totals[1])),
                ((*totals,),), group_id=group, saved_by=ana if mine else bruno))
    finally:
        await people.close()
        await database.close()


@pytest.mark.parametrize("lang", ["pt-BR", "fr"])
def test_my_rating_and_the_ratings_page(browser: Browser, server: LiveServer, screenshots: Path, lang: str) -> None:
    words = WORDS[lang]
    # Their phones speak the language (a link never changes a person's language: the menu keeps it).
    small, tall = browser.new_context(**PHONE, locale=lang), browser.new_context(**TALL_PHONE, locale=lang)
    try:
        ana = new_person(small, server, "Ana", lang)
        key = {"X-Player-Key": key_of(ana)}
        me = httpx.get(f"{server.url}/api/me", headers=key).json()["player"]["id"]
        group = httpx.post(f"{server.url}/api/groups", json={"name": "Les vendredis"}, headers=key).json()
        bruno = httpx.post(f"{server.url}/api/players", json={"name": "Bruno"}).json()
        httpx.post(f"{server.url}/api/invites", json={"invite": group["invite_url"].rsplit("/", 1)[1]},
                   headers={"X-Player-Key": bruno["key"]})
        httpx.patch(f"{server.url}/api/me", json={"public": True}, headers={"X-Player-Key": bruno["key"]})
        with ThreadPoolExecutor(1) as writer:  # Playwright's loop runs in this thread: the store writes in another
            writer.submit(asyncio.run, history(Path(server.db), me, bruno["player"]["id"], group["id"], lang)).result()
        # My games: the rating in words, its chart, the figures, the game left and the sheet to confirm.
        ana.goto(f"{server.url}/me?lang={lang}")
        standing = ana.locator("#standing")
        expect(standing.locator("h2")).to_have_text(words["heading"])
        expect(ana.locator("#standing-lead")).to_contain_text(words["start"])
        expect(standing.locator(".standing-item")).to_have_count(2)  # overall, and in the group
        expect(ana.locator("#standing-chart")).to_be_visible()
        expect(ana.locator("#standing-pending")).to_be_visible()
        expect(ana.locator("#games-list")).to_contain_text(words["left"])
        expect(ana.locator(".sheet-word")).to_contain_text(words["ask"])
        answer = httpx.get(f"{server.url}/api/me/standing", headers=key).json()
        overall = answer["standings"][0]
        assert overall["rated_games"] == 11 and overall["games"] == 11 and overall["left"] == 1
        assert len(overall["history"]) == 11 and answer["pending_sheets"] == 1
        assert answer["standings"][1]["games"] == 6  # four table games and two sheets in the group
        assert overflow(ana) <= 0
        standing.screenshot(path=str(screenshots / f"people-standing-{lang}-360.png"))
        ana.locator(".game-item", has=ana.locator(".sheet-word")).screenshot(
            path=str(screenshots / f"people-sheet-word-{lang}-360.png"))
        ana.locator(".game-item", has_text=words["left"]).first.screenshot(
            path=str(screenshots / f"people-game-left-{lang}-360.png"))
        # The ratings page, from the menu: her row marked (only she sees it: not public), bots by level.
        ana.locator("nav a[href='/ratings']").click()
        expect(ana.locator("#ratings-table tbody tr.me")).to_contain_text(words["you"])
        expect(ana.locator("#ratings-table")).to_contain_text(words["bots"])
        expect(ana.locator("#ratings-table")).not_to_contain_text("heuristic")
        expect(ana.locator("#ratings-only-you")).to_be_visible()
        expect(ana.locator("#ratings-table tbody tr", has_text="Bruno")).to_have_count(0)  # one game: left, unrated
        assert overflow(ana) <= 0
        ana.screenshot(path=str(screenshots / f"people-ratings-{lang}-360.png"), full_page=True)
        # The same on a taller phone.
        page = tall.new_page()
        page.goto(f"{server.url}/me?lang={lang}")
        page.evaluate("key => localStorage.setItem('nimmt:player', key)", key["X-Player-Key"])
        page.goto(f"{server.url}/me?lang={lang}")
        expect(page.locator("#standing-chart")).to_be_visible()
        assert overflow(page) <= 0
        page.locator("#standing").screenshot(path=str(screenshots / f"people-standing-{lang}-390.png"))
        page.goto(f"{server.url}/ratings?lang={lang}")
        expect(page.locator("#ratings-table tbody tr.me")).to_have_count(1)
        assert overflow(page) <= 0
        page.screenshot(path=str(screenshots / f"people-ratings-{lang}-390.png"), full_page=True)
    finally:
        small.close()
        tall.close()
