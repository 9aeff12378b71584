"""Server-side rendering of the page shells, wholly in one language.

Each page is an HTML file of ``nimmt/web/pages`` with ``{{t:key}}`` markers for the texts of
``locales/<lang>/web.json``; the browser code gets the same catalog (and nothing in another
language) for the texts it shows later. The language comes from ``?lang=``, then the
``nimmt_lang`` cookie, then the browser's Accept-Language.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from importlib import resources
from typing import Any

from markdown_it import MarkdownIt

from nimmt.i18n import LANGUAGE_NAMES, LANGUAGES, UnknownLanguage, catalog, check_language, negotiate, text

from .static import versioned

LANG_COOKIE = "nimmt_lang"
_MARKER = re.compile(r"\{\{(t|raw):([a-z0-9_.]+)\}\}")


def choose_language(query: str | None, cookie: str | None, accept: str | None) -> tuple[str, bool]:
    """The page's language, and whether it was asked for explicitly (then it goes in a cookie)."""
    for value, explicit in ((query, True), (cookie, False)):
        if value:
            try:
                return check_language(value), explicit
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
    return negotiate(preferences), False


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


_RAW = {"language_options": _language_options, "rules": _rules, "path": _path}
