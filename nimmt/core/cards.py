"""Cards of the classic edition and their bullheads."""

from __future__ import annotations

from collections.abc import Iterable

from .errors import UnknownCard

LOWEST_CARD = 1
HIGHEST_CARD = 104
DECK: tuple[int, ...] = tuple(range(LOWEST_CARD, HIGHEST_CARD + 1))
ROW_COUNT = 4
ROW_LIMIT = 5  # the sixth card takes the row
HAND_SIZE = 10
TURNS_PER_ROUND = HAND_SIZE
MIN_PLAYERS = 2
MAX_PLAYERS = 10


def is_int(value: object) -> bool:
    """A whole number (``True`` and ``False`` are not): what every check of a card, row or count asks.

    >>> is_int(3), is_int(True), is_int(3.0)
    (True, False, False)
    """
    return isinstance(value, int) and not isinstance(value, bool)


def bullheads(card: int) -> int:
    """Penalty points printed on a card.

    >>> [bullheads(c) for c in (1, 5, 10, 11, 55, 100, 104)]
    [1, 2, 3, 5, 7, 3, 1]
    """
    if not LOWEST_CARD <= card <= HIGHEST_CARD:
        raise UnknownCard(f"there is no card {card}: cards run from 1 to 104")
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


# Index by card number; index 0 is unused so that BULLHEADS[card] needs no offset.
BULLHEADS: tuple[int, ...] = (0, *(bullheads(c) for c in DECK))
DECK_BULLHEADS = sum(BULLHEADS)  # 171


def row_bullheads(cards: Iterable[int]) -> int:
    """Bullheads of a row or a pile of cards.

    >>> row_bullheads((55, 60, 61))
    11
    """
    return sum(BULLHEADS[c] for c in cards)
