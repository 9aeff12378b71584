"""One word for one thing: in each language, bullheads, a row, a round and a turn are always called the
same, in every catalog (``locales/<language>/*.json``) and in the rules (``rules.md``).

Each language has a canonical term for each thing (the one its ``common`` catalog names it by) and
the synonyms that have crept in before; none of those may appear anywhere. A synonym is written as a
pattern, so that a word with another meaning ("vez" in "de uma vez", a text's "line") is not caught.
"""

from __future__ import annotations

import re
from importlib import resources

import pytest

from nimmt.i18n import LANGUAGES, catalog

# A turn is a "jogada" in both Portuguese variants; "vez" stays for "your go" ("a tua vez") and "again".
PT_TURN_SYNONYMS = (r"\bturnos?\b", r"\bvez(?:es)? \{turns?\}", r"\{turns\} vezes\b", r"\b[nd]?esta vez\b",
                    r"\bvez (?:anterior|seguinte|completa)\b", r"\b(?:primeira|última) vez$")

# language -> thing -> (the canonical term, as common.json names it; synonyms that must not appear)
TERMS: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {
    "en": {
        "bullheads": ("bullheads", (r"\bbull[ -]heads?\b", r"\b(?:cattle|ox|cow) heads?\b")),
        "row": ("row", (r"\b(?:piles?|stacks?)\b",)),
        "round": ("round", (r"\bdeals? \{round\}",)),
        "turn": ("turn", (r"\btricks?\b",)),
    },
    "pt-PT": {
        "bullheads": ("cabeças de boi", (r"\bcabeças? de touro\b", r"\bcabeças? de vaca\b")),
        "row": ("fila", (r"\bfileiras?\b",)),
        "round": ("ronda", (r"\brodadas?\b",)),
        "turn": ("jogada", (PT_TURN_SYNONYMS)),
    },
    "pt-BR": {
        "bullheads": ("cabeças de boi", (r"\bcabeças? de touro\b", r"\bcabeças? de vaca\b")),
        "row": ("fileira", (r"\bfilas?\b",)),
        "round": ("rodada", (r"\brondas?\b",)),
        "turn": ("jogada", (PT_TURN_SYNONYMS)),
    },
    "fr": {
        "bullheads": ("têtes de bœuf", (r"\btêtes? de (?:taureau|vache)\b", r"\btêtes? de boeuf\b")),
        "row": ("rangée", (r"\brangs? \{row\}", r"\blignes? \{row\}")),
        "round": ("manche", (r"\brondes?\b", r"\bdonnes? \{round\}")),
        "turn": ("tour", (r"\bplis?\b",)),
    },
    "de": {
        "bullheads": ("hornochsen", (r"\bochsenköpfe?n?\b", r"\bstierköpfe?n?\b", r"\bhornochsenköpfe?n?\b")),
        "row": ("reihe", (r"\bzeilen? \{row\}",)),
        "round": ("runde", (r"\bdurchgang\b", r"\bdurchgänge\b")),
        "turn": ("zug", (r"\bspielzüge?n?\b",)),
    },
    "es": {
        "bullheads": ("cabezas de toro", (r"\bcabezas? de (?:buey|vaca)\b",)),
        "row": ("fila", (r"\bhileras?\b", r"\blíneas? \{row\}")),
        "round": ("ronda", (r"\bmanos? \{round\}",)),
        "turn": ("turno", (r"\bjugadas? \{turns?\}",)),
    },
}


def texts(language: str) -> dict[str, str]:
    """Every text of a language: ``<domain>.json:<key>`` and ``rules.md`` -> its words."""
    folder = resources.files("nimmt.i18n") / "locales" / language
    found: dict[str, str] = {}
    for item in folder.iterdir():
        if item.name.endswith(".json"):
            for key, message in catalog(language, item.name[: -len(".json")]).items():
                found[f"{item.name}:{key}"] = message
        elif item.name.endswith(".md"):
            found[item.name] = item.read_text(encoding="utf-8")
    return found


def test_every_language_has_its_terms() -> None:
    assert set(TERMS) == set(LANGUAGES)
    for language, things in TERMS.items():
        assert set(things) == {"bullheads", "row", "round", "turn"}, language


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_common_catalog_names_each_thing_by_its_canonical_term(language: str) -> None:
    common = catalog(language, "common")
    for thing, (term, _) in TERMS[language].items():
        assert common[thing].lower() == term, (language, thing, common[thing])


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_synonym_of_a_canonical_term_appears_anywhere(language: str) -> None:
    found = []
    for where, text in texts(language).items():
        for thing, (_, synonyms) in TERMS[language].items():
            for pattern in synonyms:
                for match in re.finditer(pattern, text, flags=re.IGNORECASE):
                    found.append(f"{where}: {match.group(0)!r} (say {TERMS[language][thing][0]!r})")
    assert found == [], "\n".join(found)


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_canonical_term_is_really_used(language: str) -> None:
    everything = "\n".join(texts(language).values()).lower()
    for thing, (term, _) in TERMS[language].items():
        assert everything.count(term) >= 5, (language, thing, term)


def test_a_synonym_is_caught() -> None:
    synonyms = TERMS["pt-BR"]["bullheads"][1]
    assert any(re.search(p, "Você pega 3 cabeças de touro.", re.IGNORECASE) for p in synonyms)
    assert not any(re.search(p, "Você pega 3 cabeças de boi.", re.IGNORECASE) for p in synonyms)
