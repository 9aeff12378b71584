"""The language check itself catches a paragraph pasted from another language."""

from __future__ import annotations

import re

import pytest

from nimmt.i18n import LANGUAGES, text

from .langcheck import FAMILY, STOP_WORDS, problems, words

PAIRS = [(a, b) for a in LANGUAGES for b in LANGUAGES if FAMILY[a] != FAMILY[b]]


def paragraphs(page: str, least_words: int = 5) -> list[str]:
    return [p for p in re.split(r"\n\s*\n", page) if len(words(p)) >= least_words]


def test_stop_word_sets_do_not_overlap() -> None:
    families = list(STOP_WORDS)
    for i, first in enumerate(families):
        for second in families[i + 1 :]:
            assert not STOP_WORDS[first] & STOP_WORDS[second], (first, second)


@pytest.mark.parametrize(("host", "guest"), PAIRS)
def test_every_pasted_paragraph_is_caught(host: str, guest: str) -> None:
    page = text(host, "rules")
    missed = [p for p in paragraphs(text(guest, "rules")) if not problems(f"{page}\n\n{p}\n", host)]
    assert missed == []


@pytest.mark.parametrize(("host", "guest"), [("pt-PT", "pt-BR"), ("pt-BR", "pt-PT")])
def test_a_paragraph_of_the_other_portuguese_is_caught_by_its_words(host: str, guest: str) -> None:
    low_card = paragraphs(text(guest, "rules"))[12]  # the row choice for a too-low card
    assert problems(f"{text(host, 'rules')}\n\n{low_card}\n", host)


def test_a_single_mixed_sentence_is_caught() -> None:
    page = text("pt-PT", "rules")
    mixed = page.replace("Os totais só mudam", "Les totaux ne changent qu'à la fin. Os totais só mudam")
    assert problems(page, "pt-PT") == []
    assert problems(mixed, "pt-PT")
