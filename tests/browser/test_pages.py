"""Every page in a real browser: an accessibility scan, each language with no untranslated text,
and the score sheet for tables with real cards."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

from nimmt.i18n import LANGUAGES, catalog
from tests.server.live import LiveServer


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    opened = browser.new_context(viewport={"width": 1100, "height": 850})
    yield opened
    opened.close()


def _table_in_game(server: LiveServer, page: Page, language: str) -> str:
    """A table with one person and two bots, started: returns its id."""
    created = httpx.post(f"{server.url}/api/tables", json={
        "name": "Ana", "seats": 3, "bots": ["random", "random"], "options": {"rounds": 1}}).json()
    page.goto(f"{server.url}/t/{created['table_id']}?lang={language}#seat={created['token']}")
    page.locator("#start").click()
    expect(page.locator("#hand button.card:not([disabled])")).to_have_count(10)
    # The bots choose just after the start: once they have, the table stands still until Ana acts,
    # so nothing is redrawn while the page is checked.
    chosen = re.compile(rf"^{re.escape(catalog(language, 'web')['player_chosen'])}$")
    expect(page.locator("#players tbody td", has_text=chosen)).to_have_count(2)
    # The coach's table of numbers is on the page too, so its texts are checked with the rest.
    page.locator("#advice-cards").click()
    expect(page.locator("#advice-table tbody tr")).to_have_count(10)
    return str(created["table_id"])


def _pages(server: LiveServer, page: Page, language: str) -> Iterator[str]:
    for path in ("/", "/rules", "/score", "/replay"):
        page.goto(f"{server.url}{path}?lang={language}")
        page.wait_for_load_state("networkidle")
        yield path
    table_id = _table_in_game(server, page, language)
    yield "table"
    page.goto(f"{server.url}/watch/{table_id}?lang={language}")
    expect(page.locator("#rows li")).to_have_count(4)
    # Ana's page was left just now: wait until the watchers are told, the table's last change.
    expect(page.locator("#players .away")).to_have_count(1)
    yield "watch"


def test_accessibility_scan_finds_no_serious_violation(context: BrowserContext, server: LiveServer) -> None:
    axe = Axe()
    page = context.new_page()
    problems: list[str] = []
    for where in _pages(server, page, "en"):
        result = axe.run(page)
        for violation in result.response["violations"]:
            if violation["impact"] in ("serious", "critical"):
                targets = [node["target"] for node in violation["nodes"]][:3]
                problems.append(f"{where}: {violation['id']} ({violation['impact']}) {targets}")
    # A row choice (the rows become buttons) is scanned where one comes up in a real game:
    # test_play.py::test_two_people_play_a_whole_game.
    assert not problems, "\n".join(problems)


_VISIBLE_TEXT = """() => {
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const owner = node.parentElement;
    if (!owner || owner.closest("script, [hidden], option, input") || !node.textContent.trim()) continue;
    texts.push(node.textContent.trim());
  }
  for (const el of document.querySelectorAll("[aria-label], [title], [placeholder]")) {
    for (const name of ["aria-label", "title", "placeholder"]) {
      const value = el.getAttribute(name);
      if (value && value.trim() && value !== "—") texts.push(value.trim());
    }
  }
  texts.push(document.title);
  return texts;
}"""


def _english_only(language: str) -> list[re.Pattern[str]]:
    """Patterns of English texts that the other language does not share."""
    english, own = catalog("en", "web"), set(catalog(language, "web").values())
    patterns = []
    for text in english.values():
        if text in own:
            continue
        literal = re.sub(r"\{\w+\}", "", text)
        if len(literal.strip()) < 12:
            if "{" not in text and len(text) >= 3:
                patterns.append(re.compile(rf"^{re.escape(text)}$"))
            continue
        parts = [re.escape(part) for part in re.split(r"\{\w+\}", text)]
        patterns.append(re.compile(".+?".join(parts)))
    return patterns


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_each_language_renders_with_no_untranslated_text(
    context: BrowserContext, server: LiveServer, language: str
) -> None:
    page = context.new_page()
    english = _english_only(language)
    keys = re.compile(r"^(error|title|status|score|replay)_[a-z_]+$")
    for where in _pages(server, page, language):
        assert page.evaluate("() => document.documentElement.lang") == language
        texts: list[str] = page.evaluate(_VISIBLE_TEXT)
        for text in texts:
            assert not keys.match(text), f"{language} {where}: a message key shows: {text!r}"
            assert "{" not in text, f"{language} {where}: a placeholder shows: {text!r}"
            for pattern in english:
                assert not pattern.search(text), f"{language} {where}: English text {text!r}"


def test_the_language_can_be_changed_and_is_remembered(context: BrowserContext, server: LiveServer) -> None:
    page = context.new_page()
    page.goto(f"{server.url}/")
    page.select_option("#lang-select", "pt-PT")
    page.locator("form.lang button").click()
    expect(page.locator("html")).to_have_attribute("lang", "pt-PT")
    page.goto(f"{server.url}/score")
    expect(page.locator("h1")).to_have_text(catalog("pt-PT", "web")["score_heading"])


def test_score_sheet_for_real_cards(context: BrowserContext, server: LiveServer) -> None:
    page = context.new_page()
    page.goto(f"{server.url}/score?lang=en")
    page.fill("#sheet-players", "Ana\nBruno\nCarla")
    page.get_by_role("button", name="Start the sheet").click()

    rounds = page.locator("#sheet-table tbody tr:not(.total):not(.entry)")

    def round_of(*penalties: int) -> None:
        before = rounds.count()
        for index, value in enumerate(penalties):
            page.fill(f"#penalty-{index}", str(value))
        page.get_by_role("button", name="Add the round").click()
        if sum(penalties) <= 171:
            expect(rounds).to_have_count(before + 1)

    round_of(30, 36, 10)
    round_of(0, 30, 10)
    expect(page.locator("#sheet-status")).to_have_text("Type the penalties of round 3.")  # 66 plays on
    round_of(100, 80, 0)
    expect(page.locator("#sheet-error")).to_contain_text("180")  # more than the deck holds
    page.get_by_role("button", name="Undo the last round").click()
    expect(page.locator("#sheet-status")).to_have_text("Type the penalties of round 2.")
    round_of(0, 30, 10)
    round_of(10, 1, 10)
    expect(page.locator("#sheet-status")).to_contain_text("Carla wins!")
    saved = json.loads(page.evaluate("() => localStorage.getItem('nimmt:scoresheet')"))
    assert saved["totals"] == [40, 67, 30] and saved["finished"] is True
    page.reload()  # the sheet survives a reload
    expect(page.locator("#sheet-status")).to_contain_text("Carla wins!")
