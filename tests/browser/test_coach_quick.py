"""The coach on a server whose bots are not ready yet (an empty kernel cache): a quick estimate at
once, which the page says is one, whole on a small phone (issue 18, item 6; issue 22, item 3)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect

from nimmt import i18n
from tests.server.live import LiveServer


@pytest.fixture
def cold_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveServer]:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "empty-kernel-cache"))
    with LiveServer(tmp_path / "nimmt.sqlite3", bot_delay=0) as live:
        yield live


@pytest.mark.parametrize("language", ["fr", "pt-BR"])
def test_a_quick_estimate_says_so(browser: Browser, cold_server: LiveServer, screenshots: Path, language: str) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        created = httpx.post(f"{cold_server.url}/api/tables", timeout=60, json={
            "name": "Ana", "seats": 3, "bots": ["expert", "heuristic"], "options": {"rounds": 1}, "start": True,
            "language": language}).json()
        page.goto(f"{cold_server.url}/t/{created['table_id']}?lang={language}#seat={created['token']}")
        expect(page.locator("#hand button.card:not([disabled])")).to_have_count(10)
        page.locator("#advice-cards").click()
        expect(page.locator("#advice-table tbody tr")).to_have_count(10)
        quick = i18n.translator(language, "web")("advice_quick", samples=50)
        expect(page.locator("#advice-note")).to_contain_text(quick)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 360  # no sideways scroll
        page.locator("#advice-note").scroll_into_view_if_needed()
        page.screenshot(path=str(screenshots / f"coach-quick-{language}.png"))
    finally:
        context.close()
