"""A small language check: is a text wholly in the language it claims to be in?

Each language family (en, fr, de, es, pt) has a set of frequent words that no other family uses
(words shared between families, such as "de", "que", "a", "en", are dropped). A text passes when:

- its own family has clearly most of those words overall;
- no sentence is carried by another family's words (a paragraph pasted from another page);
- for Portuguese, no word typical of the other variant appears (pt-PT "ronda", "fila", "ecrã",
  "tu"; pt-BR "rodada", "fileira", "tela", "você").

>>> problems("The row is full, so you take it.", "en")
[]
>>> problems("La carte va dans la rangée. The row is full, so you take it and its cards.", "fr")
["a sentence in en in a fr text: 'The row is full, so you take it and its cards.'"]
>>> problems("Escolhe a fileira que queres.", "pt-PT")
["a pt-BR word in a pt-PT text: 'fileira'"]
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable


def _wordset(spaced: str) -> frozenset[str]:
    return frozenset(spaced.split())


FAMILY: dict[str, str] = {"en": "en", "fr": "fr", "de": "de", "es": "es", "pt-PT": "pt", "pt-BR": "pt"}

_CANDIDATES: dict[str, frozenset[str]] = {
    "en": _wordset(
        "the of and to is are it its that this with for from be been not or by at when which who what"
        " each every than then there their they them you your has have any all only one if into after"
        " before can does would should same other must his how these those some more just while until"
        " because instead card cards row rows bullhead bullheads player game"
    ),
    "fr": _wordset(
        "et est sont des une dans pour avec sur au aux ce cette ces qui qu l d il ils elle elles leur"
        " leurs sa ses ne pas plus tout tous toute toutes chaque quand être vous votre vos nous aussi où"
        " même peut doit avant après donc alors rien jamais lui cela ça celle celui déjà encore chez sans"
        " comme dont très autre autres puis parmi fait quel quelle règle règles têtes bœuf paquet rangée"
        " rangées joueur joueurs manche manches"
    ),
    "de": _wordset(
        "der das und ist nicht ein eine einen einem einer mit von zu den dem auf für sich sie im wird werden"
        " wenn dann oder aber auch noch nur alle jede jeder jedes jeden bei nach aus kein keine keiner dass"
        " wer wie vom zum zur dein deine deinen ihr ihre ihren seine seiner seinen diese dieser dieses hat"
        " haben kann darf muss immer nie andere anderen viel schon weil welche welcher ich sind habe karte"
        " karten reihe reihen spieler runde runden hornochsen zug spiel"
    ),
    "es": _wordset(
        "el los las del y una con su sus al lo más pero cuando hay está están esta este ese esa eso muy"
        " puede pueden tiene tienen hasta también ningún ninguna nadie siempre cuál qué quién después"
        " mismo misma otra otro otras otros tus sí ya cualquier cualquiera sea sean debe ella ellos jugador"
        " jugadores juego cabezas toro baraja reglas entera"
    ),
    "pt": _wordset(
        "não são é uma com em pelo pela pelos pelas seu sua seus suas na nas ao aos já até também quando"
        " depois ele ela eles elas isso isto essa esse essas esses mesmo muito nenhum nenhuma ninguém"
        " sempre outra outro outras outros os num numa então qual quem só ainda sem dele dela deles delas"
        " nesse nessa nesta neste uns umas qualquer jogador jogadores jogo baixa baixo cabeças boi baralho"
        " acontece exatamente regras destas desta deste vitória"
    ),
}

# Words several families write the same way; listed so that a slip in the sets above cannot
# count them for one family.
_SHARED = _wordset(
    "a o as e de da do das dos en la le les un se si que no nos por para como cada todos todas entre"
    " on son y in an so es du was will also her die man um mais ou à sobre partida carta cartas fila"
    " ronda turno porque tu te me mi for plus des está has esta este"
)


def _exclusive(candidates: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    result: dict[str, frozenset[str]] = {}
    for family, words in candidates.items():
        others: set[str] = set()
        for other, other_words in candidates.items():
            if other != family:
                others |= other_words
        result[family] = frozenset(words - others - _SHARED)
    return result


STOP_WORDS: dict[str, frozenset[str]] = _exclusive(_CANDIDATES)

# Words that belong to one Portuguese variant only, in the project's texts.
VARIANT_WORDS: dict[str, frozenset[str]] = {
    "pt-PT": _wordset(
        "ronda rondas fila filas baralhar baralha baralham baralhe baralhadas baralhado ecrã ecrãs equipa"
        " equipas tu teu tua teus tuas contigo utilizador utilizadores ficheiro ficheiros registo registos"
        " podes tens queres estás escolhes jogas apanhaste apanhas facto contacto"
    ),
    "pt-BR": _wordset(
        "rodada rodadas fileira fileiras embaralhar embaralhe embaralha embaralham embaralhadas embaralhado"
        " tela telas time times você vocês usuário usuários arquivo arquivos registro registros cadastro"
        " ônibus fato contato"
    ),
}

_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")
_MARKUP = re.compile(r"[*`#>|]|^\s*(?:[-+]|\d+\.)\s+", re.MULTILINE)


def words(text: str) -> list[str]:
    """Lower-case words; French elisions split off ("l'écart" -> "l", "écart"), hyphens kept ("dá-te")."""
    return _WORD.findall(text.lower().replace("’", "'"))


# Pronouns hooked on a verb by a hyphen ("descrevê-las", "dá-te") say nothing about the family.
_CLITICS = _wordset("o a os as lo la los las le les te se me nos lhe lhes")


def family_counts(tokens: Iterable[str]) -> Counter[str]:
    """How many words of each family's set the tokens hold ("sont-elles" counts "sont" and "elles")."""
    counts: Counter[str] = Counter()
    for token in tokens:
        parts = [token] if "-" not in token else [p for p in token.split("-") if p not in _CLITICS]
        for part in parts:
            for family, stop_words in STOP_WORDS.items():
                if part in stop_words:
                    counts[family] += 1
    return counts


def sentences(text: str) -> list[str]:
    """Sentences of a Markdown text or message: blocks joined, marks dropped, split at . ! ? ; :"""
    result: list[str] = []
    for block in re.split(r"\n\s*\n|\n(?=\s*(?:[-+]|\d+\.|#+)\s)", text):
        flat = " ".join(_MARKUP.sub(" ", block).split())
        result.extend(part for part in _SENTENCE_END.split(flat) if part)
    return result


def problems(text: str, language: str, *, min_share: float = 0.8) -> list[str]:
    """Everything that shows ``text`` is not wholly in ``language`` (empty: it is)."""
    own = FAMILY[language]
    text = _PLACEHOLDER.sub(" ", text)  # "{player}" is a name filled in later, not a word
    found: list[str] = []
    for sentence in sentences(text):
        tokens = words(sentence)
        counts = family_counts(tokens)
        for family, count in counts.items():
            # Carried by another family's words, or a short phrase with only foreign ones.
            if family != own and (
                (count >= 2 and (count > counts[own] or count >= 3)) or (counts[own] == 0 and len(tokens) >= 4)
            ):
                found.append(f"a sentence in {family} in a {language} text: {sentence!r}")
                break
    total = family_counts(words(text))
    hits = sum(total.values())
    if hits >= 20 and total[own] < min_share * hits:
        found.append(f"only {total[own]} of {hits} common words are {own}: {dict(total)}")
    for variant, typical in VARIANT_WORDS.items():
        if FAMILY[variant] == own and variant != language:
            seen = sorted(set(words(text)) & typical)
            found.extend(f"a {variant} word in a {language} text: {word!r}" for word in seen)
    return found


def variant_words(text: str, language: str) -> set[str]:
    """The words of ``text`` typical of ``language`` itself (for the Portuguese variants)."""
    return set(words(text)) & VARIANT_WORDS.get(language, frozenset())
