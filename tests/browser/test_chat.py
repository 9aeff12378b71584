"""A group's chat in Chromium on a real ``nimmt serve``: two members in two browsers, one writes and
the other reads it, a refused message stays in the box, a mute hides the muted person's messages
(new ones too); axe finds nothing serious. Phone sizes, in French and Brazilian Portuguese."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.server.live import LiveServer

SMALL = {"width": 360, "height": 640}
TALL = {"width": 390, "height": 844}
PHONE = {"viewport": SMALL, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


def player(server: LiveServer, name: str) -> str:
    answer = httpx.post(f"{server.url}/api/players", json={"name": name}, timeout=30)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["key"])


def member_page(browser: Browser, server: LiveServer, key: str, group: str, lang: str) -> tuple[BrowserContext, Page]:
    context = browser.new_context(**PHONE, reduced_motion="reduce")  # type: ignore[arg-type]
    context.add_init_script(f"localStorage.setItem('nimmt:player', {key!r})")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.url}/groups/{group}?lang={lang}")
    expect(page.locator("#chat")).to_be_visible()
    expect(page.locator("#chat-none")).to_be_visible()
    assert errors == []
    return context, page


def send(page: Page, text: str) -> None:
    page.fill("#chat-text", text)
    page.locator("#chat-send").click()


def overflow(page: Page) -> Any:
    return page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")


def test_two_members_chat_and_a_mute_hides_the_muted(browser: Browser, server: LiveServer, screenshots: Path) -> None:
    ana_key, bruno_key = player(server, "Ana"), player(server, "محمد")
    group = httpx.post(f"{server.url}/api/groups", json={"name": "Les vendredis"}, headers={"X-Player-Key": ana_key},
                       timeout=30).json()
    joined = httpx.post(f"{server.url}/api/invites", json={"invite": group["invite_url"].rsplit("/", 1)[1]},
                        headers={"X-Player-Key": bruno_key}, timeout=30)
    assert joined.status_code == 200, joined.text
    ana_context, ana = member_page(browser, server, ana_key, group["id"], "fr")
    bruno_context, bruno = member_page(browser, server, bruno_key, group["id"], "pt-BR")
    try:
        send(ana, "On joue vendredi à 20 h ?")
        expect(ana.locator("#chat-list .chat-item")).to_have_count(1)
        expect(ana.locator("#chat-text")).to_have_value("")
        expect(bruno.locator("#chat-list .chat-text")).to_have_text(["On joue vendredi à 20 h ?"])  # by its poll
        send(bruno, "سلام! Sim, às 20 h.")
        # The other's name is isolated (<bdi>): an Arabic name does not turn the time after it around.
        expect(ana.locator("#chat-list bdi.chat-name")).to_have_text(["Ana", "محمد"])
        # A refused message says why and stays in the box.
        too_long = "x" * 501
        send(ana, too_long)
        expect(ana.locator("#chat-error")).to_contain_text("501")
        expect(ana.locator("#chat-text")).to_have_value(too_long)
        ana.fill("#chat-text", "")
        for page, lang in ((ana, "fr"), (bruno, "pt-BR")):
            for size in (SMALL, TALL):
                page.set_viewport_size(size)  # type: ignore[arg-type]
                assert overflow(page) <= 0, (lang, size)
                page.locator("#chat").screenshot(path=str(screenshots / f"people-chat-{lang}-{size['width']}.png"))
        # Bruno mutes Ana: her message goes, and so does the next one she writes.
        bruno.locator("#chat-mute summary").click()
        bruno.locator("#chat-mute-list input[type=checkbox]").check()
        expect(bruno.locator("#chat-list .chat-text")).to_have_text(["سلام! Sim, às 20 h."])
        expect(bruno.locator("#chat-hidden")).to_contain_text("1")
        send(ana, "Tu m'entends ?")
        expect(ana.locator("#chat-list .chat-item")).to_have_count(3)
        expect(bruno.locator("#chat-hidden")).to_contain_text("2")  # polled: there, and hidden
        expect(bruno.locator("#chat-list .chat-text")).to_have_text(["سلام! Sim, às 20 h."])
        bruno.reload()  # the mute is kept in the browser
        expect(bruno.locator("#chat-hidden")).to_contain_text("2")
        expect(bruno.locator("#chat-list .chat-item")).to_have_count(1)
        bruno.locator("#chat-mute summary").click()
        violations = Axe().run(bruno).response["violations"]
        assert not [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations
                    if v["impact"] in ("serious", "critical")]
    finally:
        ana_context.close()
        bruno_context.close()


COUNT_POLLS = """window.chatPolls = 0;
const fetched = window.fetch;
window.fetch = (url, options) => {
  if (String(url).includes("/chat") && (options || {}).method === "GET") window.chatPolls += 1;
  return fetched(url, options);
};"""
SEEN = """(hidden) => {
  Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => hidden ? "hidden" : "visible" });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_the_chat_is_not_polled_while_the_page_is_hidden(browser: Browser, server: LiveServer) -> None:
    """A phone in a pocket: while the page is hidden the chat is not asked for, however long; shown
    again, it is asked for at once, then every few seconds again (the page's clock is Playwright's;
    each message is written through the API so that a poll's end shows on the page)."""
    key = player(server, "Ana")
    group = httpx.post(f"{server.url}/api/groups", json={"name": "Poche"}, headers={"X-Player-Key": key},
                       timeout=30).json()

    def write(text: str) -> None:
        answer = httpx.post(f"{server.url}/api/groups/{group['id']}/chat", json={"text": text},
                            headers={"X-Player-Key": key}, timeout=30)
        assert answer.status_code in (200, 201), answer.text

    context = browser.new_context(**PHONE, reduced_motion="reduce")  # type: ignore[arg-type]
    context.add_init_script(f"localStorage.setItem('nimmt:player', {key!r})")
    context.add_init_script(COUNT_POLLS)
    page = context.new_page()
    items = page.locator("#chat-list .chat-item")
    try:
        page.clock.install()
        page.goto(f"{server.url}/groups/{group['id']}?lang=fr")
        expect(page.locator("#chat-none")).to_be_visible()  # the first poll is over: the next is due in 4 s
        assert page.evaluate("window.chatPolls") == 1
        write("un")
        page.clock.run_for(4_500)
        expect(items).to_have_count(1)  # polled while shown
        assert page.evaluate("window.chatPolls") == 2
        page.evaluate(SEEN, True)
        page.clock.run_for(10 * 60_000)  # ten minutes in a pocket: not asked once
        assert page.evaluate("window.chatPolls") == 2
        write("deux")
        # Out of the pocket: asked at once; put back and out again while that poll is under way, not twice.
        page.evaluate(f"() => {{ const seen = {SEEN}; seen(false); seen(true); seen(false); }}")
        assert page.evaluate("window.chatPolls") == 3
        expect(items).to_have_count(2)
        write("trois")
        page.evaluate(SEEN, True)
        page.evaluate(SEEN, False)  # hidden and shown again between two polls: one poll
        assert page.evaluate("window.chatPolls") == 4
        expect(items).to_have_count(3)
        page.clock.run_for(4_500)  # and every 4 s again
        assert page.evaluate("window.chatPolls") == 5
    finally:
        context.close()
