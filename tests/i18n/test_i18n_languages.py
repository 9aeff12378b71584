"""Language codes, aliases and the user's locale."""

from __future__ import annotations

import pytest

from nimmt.i18n import LANGUAGES, UnknownLanguage, check_language, from_environment, text, texts


@pytest.mark.parametrize(
    ("typed", "language"),
    [("pt", "pt-PT"), ("PT", "pt-PT"), ("pt_br", "pt-BR"), ("PT-br", "pt-BR"), ("pt_PT", "pt-PT"), ("EN", "en"),
     ("De", "de"), ("es", "es"), ("fr", "fr")],
)
def test_codes_are_read_in_any_case_and_with_underscores(typed: str, language: str) -> None:
    assert check_language(typed) == language


@pytest.mark.parametrize("typed", ["xx", "", "pt-AO", "english", "en-US-x"])
def test_unknown_codes_name_the_choices(typed: str) -> None:
    with pytest.raises(UnknownLanguage) as raised:
        check_language(typed)
    assert all(language in str(raised.value) for language in LANGUAGES)


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "pt_BR.UTF-8"}, "pt-BR"),
        ({"LANG": "pt_PT.UTF-8"}, "pt-PT"),
        ({"LANG": "de_AT.UTF-8"}, "de"),
        ({"LANGUAGE": "fr:en", "LANG": "de_DE.UTF-8"}, "fr"),
        ({"LC_ALL": "es_ES.UTF-8", "LANG": "en_GB.UTF-8"}, "es"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "ja_JP.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_language_from_the_locale(environ: dict[str, str], language: str) -> None:
    assert from_environment(environ) == language


def test_rules_page_is_listed_and_read_through_any_spelling() -> None:
    assert "rules" in texts()
    assert text("pt", "rules") == text("pt-PT", "rules") != text("pt-BR", "rules")
