"""A real Chromium (Debian's package) driven by Playwright, against a real ``nimmt serve``."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, expect, sync_playwright

from tests.browser.helpers import WAIT_MS
from tests.server.live import LiveServer

CHROMIUM = os.environ.get("NIMMT_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

# A loaded 2-core machine may take seconds for what takes milliseconds alone (the coach's first
# question, a whole turn of bots): every expectation waits for its state up to this long.
expect.set_options(timeout=WAIT_MS)


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the tests keep their screenshots: docs/screenshots with NIMMT_UPDATE_SCREENSHOTS=1."""
    if os.environ.get("NIMMT_UPDATE_SCREENSHOTS") == "1":
        return DOCS_SCREENSHOTS
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.fail(f"the browser tests need Chromium at {CHROMIUM}: install Debian's chromium package "
                    "(bash scripts/system-deps.sh does it)", pytrace=False)
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    yield launched
    launched.close()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # Every page of a worker's browser tests comes from one address, as a whole school behind one
    # router would: the per-address rates (tables, joins, sockets, messages a minute) and what one
    # address may make (players, groups, codes: tests/server/test_quotas.py) are lifted, so
    # a fast machine running many tests a minute is not refused (tests/server/test_limits.py has them).
    unlimited = ("--limit-tables", "0", "--limit-joins", "0", "--limit-sockets", "0", "--limit-messages", "0",
                 "--no-people-quotas")
    with LiveServer(tmp_path_factory.mktemp("web") / "nimmt.sqlite3", bot_delay=0, seed=4, args=unlimited) as live:
        yield live
