"""Whole games at tables of random seats only, with NumPy alone: what ``nimmt simulate`` plays when
every seat is ``random``.

Why here and not in :mod:`nimmt.batch`: importing that package loads Numba (a third of a second),
and its first call of a cached kernel costs as much again, while 50,000 random games take a few
tenths of a second. This path imports NumPy only; its games are random play exactly as
``RandomBot`` plays (each turn a uniformly random card of the hand, a uniformly random row for a
card below every row), so it gives the statistics of the batch engine and of the step engine
(``tests/cli/test_simulate_random.py`` compares them), drawing its chance its own way.

How a round is played, every hand of the batch at once:

* **The deal.** Each hand sorts the deck by 25 random bits per card (the card in the low 7 bits of
  the key); the first 4 cards start the rows, the next ``10 * players`` are the hands, card ``t`` of
  a player being the one it plays in turn ``t`` (a uniformly random order: random play). A hand
  whose keys tie among the dealt cards is dealt again, so every deal is exactly uniform.
* **The rows** of a hand are one 64-bit number: four 16-bit lanes in the order of their last cards
  (lowest first), each lane ``end | bullheads << 7 | count << 12``. Placing a card keeps that order:
  it lands on the row with the highest end below it, so it stays below the next row's end, and a
  card below every row starts the lowest row. So the row a card joins is the number of row ends
  below it, minus one, found for all hands in a few operations (a subtraction per lane and a
  population count); the card takes the row when its count is 5.
* **A card below every row** (rarer) takes a uniformly random row, which becomes the lowest: the
  lanes below it move up by one.
* **Penalties** of a round add up in one 64-bit number per hand, 8 bits per seat (a seat takes at
  most the deck's 171 bullheads in a round), two numbers at 9 and 10 players.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from nimmt.core import BULLHEADS

U64 = np.uint64
Words = npt.NDArray[np.uint64]

LANES = U64(0x0001_0001_0001_0001)  # a card in every lane
HIGH = U64(0x8000_8000_8000_8000)  # the top bit of every lane
ENDS = U64(0x007F_007F_007F_007F)  # the last card of every row
FULL = U64(5 << 12)  # a lane at or above this holds five cards
CARD_BITS = U64(127)
HEADS = U64(31)
DECKS = 64  # decks side by side in one row of DECK: one operation puts every card in its key
DECK = np.tile(np.arange(1, 105, dtype=np.uint32), DECKS)
# The lane of a row that a card starts: the card, its bullheads, one card.
START = np.array([0] + [card | BULLHEADS[card] << 7 | 1 << 12 for card in range(1, 105)], dtype=np.uint64)


@dataclass(frozen=True)
class RandomGames:
    """Whole games, one entry per game: final ``totals`` (games, players), ``played`` rounds (games)
    and ``squares`` (games, players), each seat's penalties of every round squared and summed."""

    totals: npt.NDArray[np.int64]
    played: npt.NDArray[np.int64]
    squares: npt.NDArray[np.int64]


def deal(players: int, hands: int, rng: np.random.Generator) -> npt.NDArray[np.uint16]:
    """``hands`` uniformly random deals, (hands, 4 + 10 * players): four row cards, then turn by turn
    each player's card (``[:, 4 + players * t + p]``: player p's card of turn t)."""
    dealt = 4 + 10 * players
    seen = min(dealt + 1, 104)  # the dealt cards and the next one: a tie among these matters
    out = np.empty((hands, dealt), np.uint16)
    todo = np.arange(hands)
    while todo.size:
        count = -(-todo.size // DECKS)  # keys for a multiple of DECKS hands: the card goes in whole rows
        keys = rng.bit_generator.random_raw((count * DECKS, 52)).view(np.uint32)  # 104 random words a hand
        keys &= np.uint32(0xFFFF_FF80)
        keys.reshape(count, -1)[:] |= DECK
        keys = keys[: todo.size]
        keys.sort(axis=1)
        out[todo] = keys[:, :dealt]  # the cards (the low 7 bits) below
        # Two equal random parts among the dealt cards (about 1 hand in 30,000 at 4 players) would
        # put the lower card first: such hands are dealt again. Keys closer than 128 are the
        # candidates (found on the flattened keys: a pair across two hands is only a candidate).
        first = np.ascontiguousarray(keys[:, :seen]).reshape(-1)
        near = np.flatnonzero(np.bincount(np.flatnonzero(first[1:] - first[:-1] < 128) // seen))
        parts = keys[near, :seen] >> np.uint32(7)
        todo = todo[near[(parts[:, 1:] == parts[:, :-1]).any(axis=1)]]
    out &= np.uint16(127)
    return out


def play_round(players: int, hands: int, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """Deal and play one round at ``hands`` tables of random seats: each seat's bullheads, (players, hands)."""

    def random_rows(low: npt.NDArray[np.intp]) -> Words:
        return rng.integers(0, 4, low.size, dtype=np.uint64)

    return play_deals(players, deal(players, hands, rng), random_rows)


def play_deals(players: int, dealt: npt.NDArray[np.uint16], rows_for: Callable[[npt.NDArray[np.intp]], Words]
               ) -> npt.NDArray[np.int64]:
    """Play the deals ``dealt`` (as :func:`deal` gives them): each seat's bullheads, (players, hands).

    ``rows_for(hands)`` says which row each of these hands' card below every row takes, by its
    place among the rows in the order of their last cards (0: the row with the lowest end).
    """
    hands = dealt.shape[0]
    first = np.take(START, np.sort(dealt[:, :4], axis=1))  # the four rows' lanes, lowest end first
    rows: Words = first[:, 0] | first[:, 1] << U64(16) | first[:, 2] << U64(32) | first[:, 3] << U64(48)
    # Each turn's cards, lowest first: the key turn | card | seat, sorted; then one card per row.
    turn = np.repeat(np.arange(10, dtype=np.uint16) << np.uint16(11), players)
    seat = np.tile(np.arange(players, dtype=np.uint16), 10)
    order = (dealt[:, 4:] << np.uint16(4)) | turn | seat
    order.sort(axis=1)
    order = np.ascontiguousarray(order.T)  # (10 * players, hands)
    taken = [np.zeros(hands, np.uint64) for _ in range((players + 7) // 8)]
    for keys in order:
        cards = (keys >> np.uint16(4)) & np.uint16(127)
        where = ((keys & np.uint16(15)) << np.uint16(3)).astype(np.uint64)  # the seat's 8 bits
        below = (cards.astype(np.uint64) * LANES | HIGH) - (rows & ENDS)
        below &= HIGH
        count = np.bitwise_count(below).astype(np.uint64)  # row ends below the card, 0 to 4
        # The row it joins: lane count - 1. Below every row the shift is past 64 bits: every
        # shifted value is 0 and nothing changes here.
        shift = (count << U64(4)) - U64(16)
        lane = (rows >> shift) & U64(0x7FFF)
        take = lane * (lane >= FULL)  # the whole lane when the card is the sixth, else 0
        start = np.take(START, cards)
        rows += (start - (take | (lane & CARD_BITS))) << shift
        penalty = (take >> U64(7)) & HEADS
        low = np.flatnonzero(count == 0)
        if low.size:  # the row chosen goes to the player, and the card starts the lowest row
            chosen = rows_for(low) << U64(4)
            old = rows[low]
            penalty[low] = (old >> (chosen + U64(7))) & HEADS
            below_it = (U64(1) << (chosen + U64(16))) - U64(1)  # the lanes up to the row taken (all: 0 - 1)
            rows[low] = (old & ~below_it) | ((old << U64(16)) & below_it) | start[low]
        taken[0] += penalty << where  # a shift of 64 or more (seats 8 and 9) gives 0
        if players > 8:
            taken[1] += penalty << (where - U64(64))
    out = np.empty((players, hands), np.int64)
    for p in range(players):
        out[p] = (taken[p // 8] >> U64(8 * (p % 8))) & U64(255)
    return out


def random_games(players: int, games: int, seed: int, end_above: int = 66, rounds: int = 0) -> RandomGames:
    """Play ``games`` whole games at tables of ``players`` random seats, from the 64-bit ``seed``:
    rounds until a total is above ``end_above``, or exactly ``rounds`` rounds when that is above 0."""
    rng = np.random.Generator(np.random.SFC64(seed))  # the fastest of NumPy's generators
    totals = np.zeros((players, games), np.int64)
    squares = np.zeros((players, games), np.int64)
    played = np.zeros(games, np.int64)
    going = np.arange(games)
    while going.size:
        penalties = play_round(players, going.size, rng)
        totals[:, going] += penalties
        squares[:, going] += penalties * penalties
        played[going] += 1
        over = played[going] >= rounds if rounds > 0 else totals[:, going].max(axis=0) > end_above
        going = going[~over]
    return RandomGames(np.ascontiguousarray(totals.T), played, np.ascontiguousarray(squares.T))
