"""The long texts (the rules page and its FAQ): same structure, same figures, one language each."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from nimmt.core.cards import BULLHEADS, DECK, DECK_BULLHEADS, MAX_PLAYERS, MIN_PLAYERS
from nimmt.i18n import DEFAULT_LANGUAGE, LANGUAGES, text, texts

from .langcheck import VARIANT_WORDS, problems, variant_words

TEXTS = texts()
_NUMBER = re.compile(r"\d+")


def blocks(page: str) -> list[tuple[str, str]]:
    """(kind, content) for each block: h1/h2/h3 headings, "-" and "1." list items, paragraphs."""
    result: list[tuple[str, str]] = []
    for line in page.splitlines():
        heading = re.match(r"(#+)\s+(.*)", line)
        item = re.match(r"\s*(-|\d+\.)\s+(.*)", line)
        if heading:
            result.append((f"h{len(heading.group(1))}", heading.group(2)))
        elif item and not line.startswith(" "):
            result.append(("li" if item.group(1) == "-" else "ol", item.group(2)))
        elif not line.strip():
            result.append(("", ""))
        elif result and result[-1][0] in {"p", "li", "ol"}:
            kind, content = result[-1]
            result[-1] = (kind, f"{content} {line.strip()}")
        else:
            result.append(("p", line.strip()))
    return [block for block in result if block[0]]


def numbers(content: str) -> set[str]:
    return set(_NUMBER.findall(content))


def sections(page: str) -> dict[str, list[tuple[str, str]]]:
    """Blocks under each level-2 heading, keyed by the heading's position (h2 #0, #1...)."""
    result: dict[str, list[tuple[str, str]]] = {}
    current = "top"
    for kind, content in blocks(page):
        if kind == "h2":
            current = f"h2 #{len(result)}"
            result[current] = []
        elif current != "top":
            result[current].append((kind, content))
    return result


@pytest.mark.parametrize("name", TEXTS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_page_has_the_structure_of_the_english_page(name: str, language: str) -> None:
    mine = [kind for kind, _ in blocks(text(language, name))]
    english = [kind for kind, _ in blocks(text(DEFAULT_LANGUAGE, name))]
    assert mine == english


@pytest.mark.parametrize("name", TEXTS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_page_is_wholly_in_its_language(name: str, language: str) -> None:
    assert problems(text(language, name), language) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_rules_give_the_same_figures_in_the_same_places(language: str) -> None:
    mine = [numbers(content) for _, content in blocks(text(language, "rules"))]
    english = [numbers(content) for _, content in blocks(text(DEFAULT_LANGUAGE, "rules"))]
    assert mine == english


@pytest.mark.parametrize("language", LANGUAGES)
def test_rules_state_the_figures_of_the_game(language: str) -> None:
    page = text(language, "rules")
    found = set(_NUMBER.findall(page))
    # bullhead rule, deck, players, threshold, deal
    assert {"55", "7", "11", "5", "10", "3", "2", "1", "171", "104", "66", "67", "4"} <= found
    assert {str(MIN_PLAYERS), str(MAX_PLAYERS), str(len(DECK)), str(DECK_BULLHEADS)} <= found


@pytest.mark.parametrize("language", LANGUAGES)
def test_rules_count_the_bullheads_as_the_core_does(language: str) -> None:
    # The page adds the deck up as "7 + 8 × 5 + 10 × 3 + 9 × 2 + 76 × 1": check it against the core.
    cards_per_value = Counter(BULLHEADS[card] for card in DECK)
    terms = [
        str(value) if count == 1 else f"{count} × {value}"
        for value, count in sorted(cards_per_value.items(), reverse=True)
    ]
    terms[-1] = f"{cards_per_value[1]} × 1"
    assert " + ".join(terms) in text(language, "rules")
    assert sum(value * count for value, count in cards_per_value.items()) == 171


@pytest.mark.parametrize("language", LANGUAGES)
def test_rules_list_each_bullhead_class_with_its_value(language: str) -> None:
    cards = sections(text(language, "rules"))["h2 #0"]
    items = [content for kind, content in cards if kind == "li"]
    assert len(items) == 5
    for item in items[:4]:
        listed = [int(n) for n in _NUMBER.findall(item)]
        value = listed[-1]
        examples = listed[1:-1] or listed[:1]  # "55: 7" has no list of examples
        assert all(BULLHEADS[card] == value for card in examples), (item, value)
    assert _NUMBER.findall(items[4]) == ["1"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_rules_end_with_the_five_questions(language: str) -> None:
    faq = list(sections(text(language, "rules")).values())[-1]
    questions = [content for kind, content in faq if kind == "h3"]
    assert len(questions) == 5
    assert all(question.rstrip().endswith("?") for question in questions)
    answers = [content for kind, content in faq if kind == "p"]
    assert "66" in answers[1] and "67" in answers[1]
    assert "10" in questions[3] and "104" in answers[3]


@pytest.mark.parametrize("language", ["pt-PT", "pt-BR"])
def test_portuguese_pages_use_their_own_variant(language: str) -> None:
    page = text(language, "rules")
    assert len(variant_words(page, language)) >= 5, variant_words(page, language)
    other = "pt-BR" if language == "pt-PT" else "pt-PT"
    assert not set(VARIANT_WORDS[other]) & variant_words(page, language)
    # Read as the other variant, the page fails: the check tells the two apart.
    assert problems(page, other)
