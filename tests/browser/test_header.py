"""The site's header on a phone is compact and whole: the name and the language on one line, the
links on two, the theme last (some 145 px high, down from some 190), so the page under it (the
home page's Play now below the games in progress) starts higher; every link and control is there,
whole, each link a 24 px target, nothing wider than the phone. On the home page, the lobby and a
table's page, in pt-BR and fr."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Browser

from tests.browser.test_playing import PHONES
from tests.server.live import LiveServer

TALLEST = 150  # px: the header upright on a phone (it was some 190 before)

_MEASURE = """() => {
  const header = document.querySelector('header.top');
  const box = (el) => el.getBoundingClientRect();
  const shown = [...header.querySelectorAll('a, select, button')];
  const named = (list) => list.map((el) => el.id || el.textContent);
  return {
    height: box(header).height,
    hidden: named(shown.filter((el) => box(el).width === 0 || getComputedStyle(el).visibility === 'hidden')),
    outside: named(shown.filter((el) => box(el).right > innerWidth + 0.5 || box(el).left < -0.5)),
    cut: named(shown.filter((el) => el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'A')),
    links: [...header.querySelectorAll('nav a')].map((el) => box(el).height),
    firstLine: Math.abs(box(header.querySelector('.brand')).bottom
      - box(document.getElementById('lang-select')).bottom) < 30,
    sideways: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  };
}"""


@pytest.mark.parametrize("size", list(PHONES))
@pytest.mark.parametrize("lang", ["pt-BR", "fr"])
def test_the_header_is_compact_and_whole_on_a_phone(browser: Browser, server: LiveServer, lang: str,
                                                    size: str) -> None:
    table = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 3, "bots": ["random"]},
                       timeout=30).json()
    context = browser.new_context(**PHONES[size])
    try:
        page = context.new_page()
        for path in ("/", "/lobby", f"/t/{table['table_id']}"):
            page.goto(f"{server.url}{path}?lang={lang}")
            page.locator("#theme-control:not([hidden])").wait_for()
            measured = page.evaluate(_MEASURE)
            where = f"{lang} {size} {path}: {measured}"
            assert measured["height"] <= TALLEST, where
            assert measured["hidden"] == [] and measured["outside"] == [] and measured["cut"] == [], where
            assert len(measured["links"]) == 7 and min(measured["links"]) >= 24, where
            assert measured["firstLine"] and measured["sideways"] <= 0, where
    finally:
        context.close()
