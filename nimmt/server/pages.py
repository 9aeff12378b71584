"""Server-side rendering of the page shells, wholly in one language.

Each page is an HTML file of ``nimmt/web/pages`` with ``{{t:key}}`` markers for the texts of
``locales/<lang>/web.json``; the browser code gets the same catalog (and nothing in another
language) for the texts it shows later. Each person's language is their own: the one they chose
in the menu (the ``nimmt_language`` cookie, kept with their player too), else a link's ``?lang=`` for
that one page (never kept), else their browser's Accept-Language (docs/people.md, "Language").
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from importlib import resources
from typing import Any, Literal

from markdown_it import MarkdownIt

from nimmt.i18n import LANGUAGE_NAMES, LANGUAGES, UnknownLanguage, catalog, check_language, negotiate, text

from .addresses import is_loopback
from .static import versioned

LANG_COOKIE = "nimmt_language"
# Before issue 26 a link's ?lang= was kept in this cookie too: it may hold a language nobody chose,
# so it is read no more, and removed where it is seen.
OLD_LANG_COOKIE = "nimmt_lang"
_MARKER = re.compile(r"\{\{(t|raw):([a-z0-9_.]+)\}\}")


LanguageSource = Literal["chosen", "link", "browser"]


def choose_language(query: str | None, cookie: str | None, accept: str | None) -> tuple[str, LanguageSource]:
    """The page's language and where it comes from: the person's own choice (the cookie the menu
    sets), a link's ``?lang=`` (this page only: nothing keeps it), else the browser's languages."""
    for value, source in ((cookie, "chosen"), (query, "link")):
        if value:
            try:
                return check_language(value), source  # type: ignore[return-value]
            except UnknownLanguage:
                pass
    preferences = [part.strip() for part in (accept or "").split(",") if part.strip()]
    # Accept-Language weights: keep the order of q values, best first.
    def weight(item: str) -> float:
        for param in item.split(";")[1:]:
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    return float(value)
                except ValueError:
                    return 0.0
        return 1.0
    preferences.sort(key=weight, reverse=True)
    return negotiate(preferences), "browser"


def chosen_language(cookie: str | None) -> str | None:
    """The language a person chose in the menu (their cookie), if it is one nimmt speaks."""
    try:
        return check_language(cookie) if cookie else None
    except UnknownLanguage:
        return None


def site_base(request: Any) -> str:
    """The address links and QR codes are made of (no trailing slash): the configured public address
    (``nimmt serve --public-url``), else, for a page opened at a loopback address of a server that
    listens on the network, this machine's network address, else the address the request came to."""
    state = request.app.state
    configured: str | None = getattr(state, "public_url", None)
    if configured:
        return configured
    network: str | None = getattr(state, "network_url", None)
    if network and is_loopback(request.base_url.hostname):
        return network
    return str(request.base_url).rstrip("/")


@cache
def _template(name: str) -> str:
    return (resources.files("nimmt.web") / "pages" / f"{name}.html").read_text(encoding="utf-8")


@cache
def rules_html(language: str) -> str:
    rendered: str = MarkdownIt("commonmark").render(text(language, "rules"))
    return rendered


def render(name: str, language: str, path: str, data: dict[str, Any] | None = None,
           domains: tuple[str, ...] = ()) -> str:
    """The page ``name`` in ``language``; ``data`` is handed to the page's script as JSON. The
    page's texts are ``web``'s and those of ``domains`` (a feature's own catalog, as people.json)."""
    messages = {**catalog(language, "web"), **catalog(language, "lobby")}  # lobby: public tables, clock, reactions
    for domain in domains:
        messages = {**messages, **catalog(language, domain)}

    def fill(match: re.Match[str]) -> str:
        kind, key = match.groups()
        if kind == "raw":
            return _RAW[key](language, path)
        return html.escape(messages[key])

    body = versioned(_MARKER.sub(fill, _template(name)))
    layout = versioned(_MARKER.sub(fill, _template("layout")))
    page_data = json.dumps({"lang": language, "page": name, **(data or {})}).replace("<", "\\u003c")
    i18n = json.dumps(messages, ensure_ascii=False).replace("<", "\\u003c")
    return (
        layout.replace("%LANG%", language)
        .replace("%TITLE%", html.escape(messages[f"title_{name}"]))
        .replace("%BODY%", body)
        .replace("%PAGE%", name)
        .replace("%I18N%", i18n)
        .replace("%DATA%", page_data)
    )


def _language_options(language: str, path: str) -> str:
    return "".join(
        f'<option value="{code}" lang="{code}"{" selected" if code == language else ""}>'
        f"{html.escape(LANGUAGE_NAMES[code])}</option>"
        for code in LANGUAGES
    )


def _rules(language: str, path: str) -> str:
    return rules_html(language)


def _path(language: str, path: str) -> str:
    return html.escape(path)


def _back(language: str, path: str) -> str:
    """Where the language menu goes back to: this page, without a ``lang`` of a link."""
    return html.escape(re.sub(r"(?<=[?&])lang=[^&]*&?", "", path).rstrip("?&"))


_RAW = {"language_options": _language_options, "rules": _rules, "path": _path, "back": _back}
