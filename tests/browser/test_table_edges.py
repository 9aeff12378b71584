"""The table page's edges on phones, in a real Chromium on the session's ``nimmt serve``: the rows'
labels stand on one line over their bullheads at 360 px in the longer languages."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Browser, expect

from tests.server.live import LiveServer

PHONE: dict[str, Any] = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True,
                         "device_scale_factor": 2}
# Each row's label: its name on one line, its bullheads under it (two lines), and the row no wider
# than its box.
_ROW_LABELS = """() => [...document.querySelectorAll('#rows .row')].map((row) => {
  const title = row.querySelector('.row-title');
  const lines = (el) => Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight));
  return { title: title.textContent, titleLines: lines(title), headsLines: lines(row.querySelector('.row-heads .n')),
           wide: row.scrollWidth > row.clientWidth + 1 };
})"""


def test_the_rows_labels_take_two_lines_at_most_on_a_small_phone(browser: Browser, server: LiveServer) -> None:
    made = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 3, "bots": ["random"] * 2,
                                                        "options": {"rounds": 1}, "start": True}).json()
    context = browser.new_context(**PHONE, reduced_motion="reduce")
    page = context.new_page()
    try:
        for language in ("pt-BR", "pt-PT", "fr", "de", "es"):
            page.goto(f"{server.url}/t/{made['table_id']}?lang={language}#seat={made['token']}")
            expect(page.locator("html")).to_have_attribute("lang", language)
            expect(page.locator("#rows .row")).to_have_count(4)
            labels = page.evaluate(_ROW_LABELS)
            assert all(label["titleLines"] == 1 and label["headsLines"] == 1 and not label["wide"]
                       for label in labels), (language, labels)
    finally:
        context.close()
