"""Texts with a count have exactly the plural forms Babel's rules (CLDR) give their language for the
counts a game shows: ``key.one`` and ``key.other`` in our six languages. The page picks the form with
Intl.PluralRules, which the browser tests check against Babel (tests/browser/test_table_finish.py)."""

from __future__ import annotations

import pytest
from babel import Locale

from nimmt.i18n import LANGUAGES, catalog, domains

COUNTS = range(0, 1000)  # every count a game can show: bullheads, players, seconds


def forms_of(language: str) -> set[str]:
    rule = Locale.parse(language.replace("-", "_")).plural_form
    return {rule(n) for n in COUNTS}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", domains())
def test_plural_texts_have_the_forms_of_their_language(domain: str, language: str) -> None:
    messages = catalog(language, domain)
    groups: dict[str, set[str]] = {}
    for key in messages:
        base, _, form = key.rpartition(".")
        if base and form in {"zero", "one", "two", "few", "many", "other"}:
            groups.setdefault(base, set()).add(form)
    assert all(forms == forms_of(language) for forms in groups.values()), groups
    for base in groups:
        assert all("{count}" in messages[f"{base}.{form}"] for form in groups[base]), base


def test_the_web_texts_have_plurals() -> None:
    assert {"bullheads.one", "bullheads.other"} <= set(catalog("fr", "web"))
    assert catalog("fr", "web")["bullheads.one"] == "{count} tête de bœuf"
    assert forms_of("fr") == {"one", "other"} and Locale.parse("fr").plural_form(0) == "one"
