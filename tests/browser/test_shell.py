"""The app shell around every page: the theme (system, light, dark) and its control, the web app
manifest and its icons, and a header that fits a phone."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

from nimmt.i18n import LANGUAGES, catalog
from tests.server.live import LiveServer

PAGES = ("/", "/rules", "/score", "/replay")
THEME_COLOUR = """() => [...document.querySelectorAll('meta[name="theme-color"]')].map((m) => m.content)"""
# What the page's colours resolve to: the background and text of the page and of the header.
COLOURS = """() => {
  const body = getComputedStyle(document.body), top = getComputedStyle(document.querySelector('header.top'));
  return [body.backgroundColor, body.color, top.backgroundColor];
}"""


@pytest.fixture
def dark_system(browser: Browser) -> Iterator[BrowserContext]:
    """A browser whose system setting is dark."""
    opened = browser.new_context(viewport={"width": 1100, "height": 850}, color_scheme="dark")
    yield opened
    opened.close()


def _theme(page: Page) -> str | None:
    value: str | None = page.evaluate("() => document.documentElement.getAttribute('data-theme')")
    return value


def test_theme_control_sets_the_theme_and_keeps_it(browser: Browser, server: LiveServer) -> None:
    context = browser.new_context(color_scheme="light")
    # Whether the theme was already set when the page's body began: nothing was drawn before it.
    context.add_init_script("""(() => {
      new MutationObserver((changes, observer) => {
        if (!document.body) return;
        window.themeAtFirstPaint = document.documentElement.getAttribute('data-theme');
        observer.disconnect();
      }).observe(document, {childList: true, subtree: true});
    })()""")
    page = context.new_page()
    page.goto(f"{server.url}/?lang=en")
    control = page.get_by_label(catalog("en", "web")["theme"])
    expect(control).to_be_visible()
    expect(control).to_have_value("system")
    assert _theme(page) is None  # as the system says
    system_light = page.evaluate(COLOURS)

    control.select_option("dark")
    assert _theme(page) == "dark"
    dark = page.evaluate(COLOURS)
    assert dark != system_light, "choosing dark changes nothing on the page"
    # The browser's bar follows the choice whatever the system says.
    dark_bar = page.evaluate(THEME_COLOUR)
    assert len(set(dark_bar)) == 1

    page.reload()
    assert _theme(page) == "dark"
    assert page.evaluate("() => window.themeAtFirstPaint") == "dark"
    expect(control).to_have_value("dark")
    assert page.evaluate(COLOURS) == dark
    page.goto(f"{server.url}/rules?lang=en")  # every page of the site
    assert page.evaluate("() => window.themeAtFirstPaint") == "dark"
    expect(control).to_have_value("dark")

    control.select_option("light")
    page.reload()
    assert _theme(page) == "light"
    assert page.evaluate("() => window.themeAtFirstPaint") == "light"
    assert page.evaluate(COLOURS) == system_light
    assert len(set(page.evaluate(THEME_COLOUR))) == 1
    assert page.evaluate(THEME_COLOUR) != dark_bar

    control.select_option("system")
    page.reload()
    assert _theme(page) is None
    assert page.evaluate("() => localStorage.getItem('nimmt_theme')") is None
    assert page.evaluate(COLOURS) == system_light
    assert len(set(page.evaluate(THEME_COLOUR))) == 2  # one for each system setting again
    context.close()


def test_theme_script_blocks_in_head_and_the_page_works_without_storage(browser: Browser, server: LiveServer) -> None:
    context = browser.new_context(color_scheme="dark")
    page = context.new_page()
    page.goto(f"{server.url}/")
    script = page.locator('head script[src^="/static/"][src$="/theme.js"]')
    expect(script).to_have_count(1)
    assert script.evaluate("(s) => !s.async && !s.defer && !s.type") is True
    # Storage that throws (a browser that refuses it): the page follows the system, the control works.
    page.add_init_script("""Object.defineProperty(window, 'localStorage', {get() { throw new Error('denied'); }})""")
    page.reload()
    assert _theme(page) is None
    control = page.locator("#theme-select")
    control.select_option("light")
    assert _theme(page) == "light"
    context.close()


def _scan(page: Page, where: str) -> list[str]:
    result = Axe().run(page)
    return [
        f"{where}: {violation['id']} ({violation['impact']}) {[node['target'] for node in violation['nodes']][:3]}"
        for violation in result.response["violations"]
    ]


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_pages_pass_an_accessibility_scan_in_each_theme(dark_system: BrowserContext, server: LiveServer,
                                                        theme: str) -> None:
    page = dark_system.new_page()
    page.goto(f"{server.url}/?lang=en")
    if theme == "light":  # chosen against the system's dark
        page.locator("#theme-select").select_option("light")
    problems: list[str] = []
    for path in PAGES:
        page.goto(f"{server.url}{path}?lang=en")
        page.wait_for_load_state("networkidle")
        assert _theme(page) == (None if theme == "dark" else "light")
        expect(page.locator("#theme-select")).to_have_value("system" if theme == "dark" else theme)
        problems += _scan(page, f"{path} ({theme})")
    assert not problems, "\n".join(problems)


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_chromium_reads_the_manifest_and_its_icons_load(browser: Browser, server: LiveServer) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{server.url}/")
    href = page.locator('link[rel="manifest"]').get_attribute("href")
    assert href is not None
    served = httpx.get(f"{server.url}{href}")
    assert served.status_code == 200
    assert served.headers["content-type"].split(";")[0] == "application/manifest+json"

    cdp = context.new_cdp_session(page)
    found: dict[str, Any] = cdp.send("Page.getAppManifest")
    assert found["url"] == f"{server.url}{href}"
    assert found["errors"] == [], found["errors"]
    data = served.json()
    assert data["name"] == "6 nimmt!" and data["short_name"] == "nimmt"
    assert data["start_url"] == "/" and data["display"] == "standalone"
    assert data["theme_color"].startswith("#") and data["background_color"].startswith("#")
    # Chromium's own reading of it: what it would install.
    read = found["manifest"]
    assert read["name"] == "6 nimmt!" and read["display"] == "kStandalone"
    assert read["startUrl"] == read["scope"] == read["id"] == f"{server.url}/"
    assert {icon["sizes"] for icon in read["icons"]} >= {"192x192", "512x512"}
    # The one thing that keeps it from installing here is the test's private (incognito) profile.
    errors = {error["errorId"] for error in cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]}
    assert errors <= {"in-incognito"}, errors

    sizes = set()
    for icon in data["icons"]:
        answer = page.request.get(f"{server.url}{icon['src']}")
        assert answer.status == 200, icon
        assert answer.headers["content-type"].split(";")[0] == icon["type"], icon
        if icon["type"] == "image/png":
            width, height = _png_size(answer.body())
            assert icon["sizes"] == f"{width}x{height}", icon
            sizes.add(width)
        else:
            assert answer.text().lstrip().startswith("<svg")
    assert {192, 512} <= sizes
    # A maskable icon of its own (the card drawn smaller, inside the safe zone), at both sizes.
    maskable = {icon["sizes"] for icon in data["icons"] if icon["purpose"] == "maskable"}
    assert maskable == {"192x192", "512x512"}
    assert all("maskable" in icon["src"] for icon in data["icons"] if icon["purpose"] == "maskable")

    # The page's own icons (tab, home screen of a phone) load, each at its size.
    for link in page.locator('link[rel="icon"], link[rel="apple-touch-icon"]').all():
        src = link.get_attribute("href")
        assert src is not None and src.startswith("/static/"), src
        answer = page.request.get(f"{server.url}{src}")
        assert answer.status == 200, src
        if src.endswith(".png"):
            width, height = _png_size(answer.body())
            assert width == height
            expected = link.get_attribute("sizes") or ("180x180" if "apple" in src else None)
            assert expected == f"{width}x{height}", src
    assert page.evaluate("() => document.querySelector('link[rel=icon]').href") != "data:,"
    context.close()


_OVERFLOW = """() => {
  const header = document.querySelector('header.top');
  const outside = [...header.querySelectorAll('*')].filter((el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && (box.right > window.innerWidth + 0.5 || box.left < -0.5);
  }).map((el) => el.id || el.className || el.tagName);
  return {outside, header: header.scrollWidth - header.clientWidth};
}"""


def test_header_fits_a_small_phone(browser: Browser, server: LiveServer) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True)
    page = context.new_page()
    created = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 2, "bots": ["random"]}).json()
    visits = [(lang, "/") for lang in LANGUAGES]
    visits += [(lang, path) for lang in ("de", "pt-PT") for path in (*PAGES[1:], f"/t/{created['table_id']}")]
    for lang, path in visits:
        page.goto(f"{server.url}{path}?lang={lang}")
        expect(page.locator("#theme-control")).to_be_visible()
        measured = page.evaluate(_OVERFLOW)
        assert measured["outside"] == [], f"{lang} {path}: {measured}"
        assert measured["header"] <= 0, f"{lang} {path}: {measured}"
    context.close()



# iOS reads no manifest icon: its home screen takes the apple-touch-icon (180x180, opaque: iOS draws
# a transparent one on black) and the title; a page added to it opens standalone (iOS 16.4+ reads the
# manifest's display too, which Web Push on iOS needs).
IOS_TAGS = """() => Object.fromEntries(['apple-mobile-web-app-capable', 'mobile-web-app-capable',
  'apple-mobile-web-app-title', 'apple-mobile-web-app-status-bar-style'].map(
  (name) => [name, document.querySelector(`meta[name="${name}"]`)?.content ?? null]))"""


def test_every_page_links_the_manifest_in_its_language_and_the_ios_tags(browser: Browser, server: LiveServer) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    created = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 2, "bots": ["random"]}).json()
    for path in (*PAGES, "/me", "/lobby", "/ratings", f"/t/{created['table_id']}", f"/watch/{created['table_id']}"):
        page.goto(f"{server.url}{path}{'&' if '?' in path else '?'}lang=fr")
        assert page.locator('link[rel="manifest"]').get_attribute("href") == "/manifest.webmanifest?lang=fr", path
        assert page.evaluate(IOS_TAGS) == {"apple-mobile-web-app-capable": "yes", "mobile-web-app-capable": "yes",
                                           "apple-mobile-web-app-title": "nimmt",
                                           "apple-mobile-web-app-status-bar-style": "default"}, path
        touch = page.locator('link[rel="apple-touch-icon"]')
        assert touch.get_attribute("sizes") == "180x180" and (touch.get_attribute("href") or "").endswith(
            "/icons/apple-touch-icon.png"), path
    icon = httpx.get(f"{server.url}/static/icons/apple-touch-icon.png").content
    assert _png_size(icon) == (180, 180) and icon[25] == 2, "the touch icon is opaque RGB"
    for lang in ("fr", "pt-BR"):
        served = httpx.get(f"{server.url}/manifest.webmanifest?lang={lang}")
        assert served.status_code == 200
        assert served.headers["content-type"].split(";")[0] == "application/manifest+json"
        data = served.json()
        texts = {**catalog(lang, "web"), **catalog(lang, "lobby")}
        assert data["lang"] == lang and data["description"] == texts["app_description"]
        assert [shortcut["name"] for shortcut in data["shortcuts"]] == [texts["nav_me"], texts["nav_lobby"]]
        # One app whatever the language: the same id, start and scope, which hold every table's page.
        assert (data["id"], data["start_url"], data["scope"], data["display"]) == ("/", "/", "/", "standalone")
    cdp = context.new_cdp_session(page)
    found: dict[str, Any] = cdp.send("Page.getAppManifest")
    assert found["errors"] == [], found["errors"]
    assert found["manifest"]["scope"] == f"{server.url}/"  # a notice's /t/{id} opens inside the app
    errors = {error["errorId"] for error in cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]}
    assert errors <= {"in-incognito"}, errors
    context.close()
