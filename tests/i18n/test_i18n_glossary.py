"""Each language keeps to its words: the words that docs/glossary.md's "The words in each language"
lists as *not* for a language appear in none of its texts (catalogs and rules), as whole words in
any case. Placeholders (``{bot}``) and options (``--bots``) are not words of the text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nimmt.i18n import LANGUAGES
from tests.i18n.test_i18n_terms import texts

GLOSSARY = Path(__file__).resolve().parents[2] / "docs" / "glossary.md"
SECTION = "## The words in each language"


def forbidden_words() -> dict[str, list[str]]:
    """language -> the words its glossary table lists in the *not* column."""
    text = GLOSSARY.read_text(encoding="utf-8")
    assert SECTION in text, f"{GLOSSARY} has no section {SECTION!r}"
    words: dict[str, list[str]] = {}
    language = ""
    for line in text.split(SECTION, 1)[1].splitlines():
        if line.startswith("## "):
            break
        if line.startswith("### "):
            language = line[4:].strip()
            words[language] = []
        elif line.startswith("|") and language and not line.startswith("|---"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if len(cells) == 3 and cells[0] != "thing":
                words[language] += [word.strip() for word in cells[2].split(",") if word.strip()]
    return words


def found(word: str, text: str) -> list[str]:
    """The places where ``word`` stands as a whole word in ``text`` (placeholders removed)."""
    bare = re.sub(r"\{[^{}]*\}", " ", text)
    pattern = re.compile(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", re.IGNORECASE)
    return [bare[max(0, m.start() - 30): m.end() + 30] for m in pattern.finditer(bare)]


def test_the_glossary_has_every_language() -> None:
    words = forbidden_words()
    assert set(words) == set(LANGUAGES)
    for language in ("pt-BR", "pt-PT", "fr", "de", "es"):
        assert words[language], f"{language}: the glossary lists no word to keep out"


def test_a_word_is_found_whole_and_placeholders_are_not_words() -> None:
    assert found("bot", "Um bot joga.") and found("bot", "BOT!")
    assert not found("bot", "o robô {bot} com --bots, {name} (robô)") and not found("bot", "robots, bote")


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_word_the_glossary_keeps_out(language: str) -> None:
    keep_out = forbidden_words()[language]
    problems = [f"{where}: {word!r} in …{place}…" for where, text in sorted(texts(language).items())
                for word in keep_out for place in found(word, text)]
    assert not problems, f"{language}: words its glossary keeps out:\n" + "\n".join(problems)
