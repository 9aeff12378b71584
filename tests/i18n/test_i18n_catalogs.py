"""Every message domain is complete, consistent and really translated in every language.

Domains are discovered with :func:`nimmt.i18n.domains`, so catalogs added later are checked too.
"""

from __future__ import annotations

import json
import string
from importlib import resources

import pytest

from nimmt.i18n import DEFAULT_LANGUAGE, LANGUAGES, catalog, domains

from .langcheck import problems, words

DOMAINS = domains()
OTHER_LANGUAGES = [language for language in LANGUAGES if language != DEFAULT_LANGUAGE]

# Words a translation may share with English: names, and words the language itself writes the
# same way ("Total" in French, "No" in Spanish). Numbers and {placeholders} never count.
SAME_AS_ENGLISH: dict[str, frozenset[str]] = {
    "*": frozenset({"nimmt", "ok", "bot", "bots", "monte", "carlo"}),
    "fr": frozenset({"total", "expert"}),
    "de": frozenset(),
    "es": frozenset({"total", "no"}),
    "pt-PT": frozenset({"total"}),
    "pt-BR": frozenset({"total"}),
}


def locale_folder(language: str) -> resources.abc.Traversable:
    return resources.files("nimmt.i18n") / "locales" / language


def placeholders(message: str) -> set[str]:
    """The ``{names}`` of a message (a ValueError if its braces are broken)."""
    return {name for _, name, _, _ in string.Formatter().parse(message) if name is not None}


def english_copies(messages: dict[str, str], english: dict[str, str], language: str) -> list[str]:
    """Keys whose text is the English text, unless that text only holds words allowed to match."""
    allowed = SAME_AS_ENGLISH["*"] | SAME_AS_ENGLISH.get(language, frozenset())
    copies = []
    for key, message in messages.items():
        if message == english.get(key):
            bare = string.Formatter().parse(message)
            literal = " ".join(text for text, _, _, _ in bare)
            if not set(words(literal)) <= allowed:
                copies.append(key)
    return copies


def test_there_are_domains_and_common_words() -> None:
    assert "common" in DOMAINS


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_has_the_same_files(language: str) -> None:
    def names(lang: str) -> set[str]:
        return {p.name for p in locale_folder(lang).iterdir() if p.name.endswith((".json", ".md"))}

    assert names(language) == names(DEFAULT_LANGUAGE)


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_catalog_is_a_flat_object_of_texts_without_duplicate_keys(domain: str, language: str) -> None:
    def no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
        keys = [key for key, _ in pairs]
        duplicated = sorted({key for key in keys if keys.count(key) > 1})
        assert not duplicated, f"{language}/{domain}.json repeats {duplicated}"
        return dict(pairs)

    raw = (locale_folder(language) / f"{domain}.json").read_text(encoding="utf-8")
    data = json.loads(raw, object_pairs_hook=no_duplicates)
    assert isinstance(data, dict)
    for key, message in data.items():
        assert isinstance(message, str), f"{language}/{domain}.json: {key} is not a text"
        assert message.strip(), f"{language}/{domain}.json: {key} is empty"


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", OTHER_LANGUAGES)
def test_same_keys_and_placeholders_as_english(domain: str, language: str) -> None:
    english = catalog(DEFAULT_LANGUAGE, domain)
    messages = catalog(language, domain)
    assert sorted(set(english) - set(messages)) == [], f"missing in {language}/{domain}.json"
    assert sorted(set(messages) - set(english)) == [], f"not in en/{domain}.json"
    wrong = {
        key: (sorted(placeholders(messages[key])), sorted(placeholders(english[key])))
        for key in english
        if placeholders(messages[key]) != placeholders(english[key])
    }
    assert wrong == {}, f"{language}/{domain}.json: placeholders differ from English"


@pytest.mark.parametrize("domain", DOMAINS)
def test_english_placeholders_are_well_formed(domain: str) -> None:
    for key, message in catalog(DEFAULT_LANGUAGE, domain).items():
        names = placeholders(message)  # raises on a lone brace
        assert all(name.isidentifier() for name in names), f"{domain}.{key}: {sorted(names)}"
        message.format(**dict.fromkeys(names, "x"))


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", OTHER_LANGUAGES)
def test_catalog_is_translated_not_copied(domain: str, language: str) -> None:
    english = catalog(DEFAULT_LANGUAGE, domain)
    assert english_copies(catalog(language, domain), english, language) == []


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_catalog_is_wholly_in_its_language(domain: str, language: str) -> None:
    messages = catalog(language, domain)
    found = [f"{key}: {problem}" for key, message in messages.items() for problem in problems(message, language)]
    found += problems("\n\n".join(messages.values()), language, min_share=0.6)
    assert found == []


def test_copy_check_catches_an_untranslated_message() -> None:
    english = {"row": "Row {number}", "ok": "OK", "total": "Total", "tie": "Tie"}
    french = {"row": "Row {number}", "ok": "OK", "total": "Total", "tie": "Égalité"}
    assert english_copies(french, english, "fr") == ["row"]
    assert english_copies({**french, "total": "Total"}, english, "de") == ["row", "total"]
