"""Languages of nimmt: en, pt-PT, pt-BR, fr, de, es. Each page is wholly in one language.

Messages live in ``locales/<language>/<domain>.json`` (one flat object of key -> text with
``{name}`` placeholders); every language has every key of every domain (a test checks it).
Longer texts, such as the rules, live beside them as ``<name>.md``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from functools import cache
from importlib import resources

from babel import Locale, UnknownLocaleError, negotiate_locale

from nimmt.core.errors import NimmtError

LANGUAGES: tuple[str, ...] = ("en", "pt-PT", "pt-BR", "fr", "de", "es")
DEFAULT_LANGUAGE = "en"
LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "pt-PT": "Português (Portugal)",
    "pt-BR": "Português (Brasil)",
    "fr": "Français",
    "de": "Deutsch",
    "es": "Español",
}


class UnknownLanguage(NimmtError, ValueError):
    """A language nimmt does not speak."""


# Bare codes that stand for one of our variants ("pt" alone is European Portuguese).
ALIASES: dict[str, str] = {"pt": "pt-PT"}


def check_language(code: str) -> str:
    """The canonical spelling of a supported language code, or :class:`UnknownLanguage`.

    Case and ``_``/``-`` do not matter; a bare ``pt`` means European Portuguese.

    >>> check_language("pt_br"), check_language("PT"), check_language(" DE ")
    ('pt-BR', 'pt-PT', 'de')
    """
    wanted = code.strip().replace("_", "-").lower()
    wanted = ALIASES.get(wanted, wanted)
    for language in LANGUAGES:
        if language.lower() == wanted.lower():
            return language
    raise UnknownLanguage(f"unknown language {code!r}: choose one of {', '.join(LANGUAGES)}")


def negotiate(preferred: Iterable[str]) -> str:
    """The best supported language for a list of preferences (browser or locale), best first.

    A bare ``pt`` means European Portuguese.

    >>> negotiate(["pt-BR", "en"]), negotiate(["pt"]), negotiate(["fr-CA"]), negotiate(["ja"])
    ('pt-BR', 'pt-PT', 'fr', 'en')
    """
    available = [lang.replace("-", "_") for lang in LANGUAGES] + ["pt"]
    for item in preferred:
        code = item.split(";")[0].strip().replace("-", "_")
        if not code or code == "*":
            continue
        try:
            locale = Locale.parse(code)
        except (ValueError, UnknownLocaleError):
            continue
        candidates = [str(locale)]
        if locale.territory:
            candidates.append(f"{locale.language}_{locale.territory}")
        candidates.append(locale.language)
        found = negotiate_locale(candidates, available, sep="_")
        if found:
            return "pt-PT" if found == "pt" else found.replace("_", "-")
    return DEFAULT_LANGUAGE


def from_environment(environ: dict[str, str] | None = None) -> str:
    """The language of the user's locale (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), else English."""
    env = os.environ if environ is None else environ
    preferences: list[str] = []
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value and value not in ("C", "POSIX") and not value.startswith("C."):
            preferences.extend(part.split(".")[0] for part in value.split(":") if part)
    return negotiate(preferences)


@cache
def catalog(language: str, domain: str) -> dict[str, str]:
    """All messages of one domain in one language."""
    language = check_language(language)
    path = resources.files("nimmt.i18n") / "locales" / language / f"{domain}.json"
    data: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return data


@cache
def text(language: str, name: str) -> str:
    """A long text (``locales/<language>/<name>.md``), such as ``text("fr", "rules")``."""
    language = check_language(language)
    path = resources.files("nimmt.i18n") / "locales" / language / f"{name}.md"
    return path.read_text(encoding="utf-8")


def translator(language: str, domain: str) -> Callable[..., str]:
    """``_ = translator("fr", "cli"); _("hand", count=3)``: a message with its placeholders filled."""
    messages = catalog(language, domain)

    def translate(key: str, /, **values: object) -> str:
        return messages[key].format(**values) if values else messages[key]

    return translate


def _names(suffix: str) -> list[str]:
    folder = resources.files("nimmt.i18n") / "locales" / DEFAULT_LANGUAGE
    return sorted(p.name[: -len(suffix)] for p in folder.iterdir() if p.name.endswith(suffix))


def domains() -> list[str]:
    """The message domains (``<domain>.json``), as the English folder holds them."""
    return _names(".json")


def texts() -> list[str]:
    """The long texts (``<name>.md``), as the English folder holds them."""
    return _names(".md")
