"""Redraw docs/screenshots/table-*: the table's lobby (a bot seated by the host), a card face down
that may still be taken back, and the standings, at 360×640, 390×844 and 844×390, in Brazilian
Portuguese and French, on a real ``nimmt serve`` in Chromium.

    PYTHONPATH=. .venv/bin/python scripts/table_screenshots.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import httpx
from playwright.sync_api import Page, expect, sync_playwright

from tests.browser.conftest import ARGS, CHROMIUM
from tests.browser.helpers import act, next_decision, play_card, still
from tests.server.live import LiveServer


def top(page: Page) -> Page:
    """The page at its top (a click may have scrolled it), as a person sees it first."""
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_function("window.scrollY === 0")
    return page


SIZES = {"360x640": (360, 640), "390x844": (390, 844), "844x390": (844, 390)}
LANGUAGES = ("pt-BR", "fr")


def shoot(page: Page, server: LiveServer, language: str, size: str, out: Path, lobby_only: bool = False) -> None:
    made = httpx.post(f"{server.url}/api/tables", json={"name": "Maria Eduarda", "seats": 4, "language": language,
                                                        "options": {"rounds": 1}}).json()
    page.goto(f"{server.url}/t/{made['table_id']}?lang={language}#seat={made['token']}")
    page.locator("#lobby-bot").select_option("heuristic")
    page.locator("#add-bot").click()
    expect(page.locator("#lobby-seats .remove-bot")).to_have_count(1)
    top(page).screenshot(path=str(out / f"table-lobby-{language}-{size}.png"))
    if lobby_only:
        return
    page.locator("#start-fill").click()
    seen = next_decision(page)
    play_card(page, seen["cards"][0])  # the bots think a while: the card stays face down meanwhile
    expect(page.locator("#take-back")).to_be_visible()
    top(page).screenshot(path=str(out / f"table-take-back-{language}-{size}.png"))
    while not (seen := next_decision(page))["over"]:
        act(page, seen)
    still(page)
    top(page).screenshot(path=str(out / f"table-standings-{language}-{size}.png"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    parser.add_argument("--lobby-only", action="store_true", help="redraw the lobby's screenshots alone")
    arguments = parser.parse_args()
    out = arguments.out
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder, \
            LiveServer(Path(folder) / "nimmt.sqlite3", bot_delay=1.0, seed=7) as server, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for language in LANGUAGES:
            for size, (width, height) in SIZES.items():
                context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=True,
                                              has_touch=True, locale=language)
                shoot(context.new_page(), server, language, size, out, arguments.lobby_only)
                context.close()
                print(f"{language} {size}: done", flush=True)
        browser.close()


if __name__ == "__main__":
    main()
