"""The NumPy path: every hand of a batch advances together, one card position at a time.

Used when Numba is missing (or when asked for). Each step places, in every hand at once, the
i-th lowest card of the turn: find its row (the highest last card below it), take the row when
the card is its sixth or is below every row, and update three (B, 4) arrays: last card, count and
bullheads of each row. A card 0 means "no card" and changes nothing.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from nimmt.core import BULLHEADS, ROW_LIMIT

from ._kernels import RowPolicy

Ints = npt.NDArray[np.int64]
BULL = np.array(BULLHEADS, dtype=np.int64)
DECK = np.arange(1, 105, dtype=np.int64)


def deal(players: int, count: int, rng: np.random.Generator) -> tuple[Ints, Ints]:
    """Random deals: rows (count, 4) and orders (count, players, 10), orders being random orders."""
    dealt = 4 + 10 * players
    # argsort of random keys: a uniform permutation of each row; only the first `dealt` are used.
    cards = np.argsort(rng.random((count, 104)), axis=1)[:, :dealt] + 1
    rows = cards[:, :4]
    orders = cards[:, 4:].reshape(count, 10, players).transpose(0, 2, 1)
    return np.ascontiguousarray(rows), np.ascontiguousarray(orders)


def play(
    ends: Ints,
    counts: Ints,
    heads: Ints,
    orders: Ints,
    row_policy: int,
    choices: Ints | None,
    rng: np.random.Generator,
) -> Ints:
    """Play ``orders`` (B, players, turns) from the row state (each (B, 4), changed in place).

    Returns the bullheads each player takes, (B, players). ``row_policy`` is RowPolicy.GIVEN (the k-th
    low card of hand b takes row ``choices[b, k]``), RANDOM or FEWEST.
    """
    count, players, turns = orders.shape
    penalties = np.zeros((count, players), dtype=np.int64)
    every = np.arange(count)
    event = np.zeros(count, dtype=np.int64)
    for t in range(turns):
        cards = orders[:, :, t]
        by_card = np.argsort(cards, axis=1, kind="stable")
        for i in range(players):
            player = by_card[:, i]
            card = cards[every, player]
            active = card > 0
            below = ends < card[:, None]
            row = np.where(below, ends, 0).argmax(axis=1)
            low = active & ~below.any(axis=1)
            if low.any():
                if row_policy == RowPolicy.GIVEN:
                    assert choices is not None
                    chosen = choices[every, np.minimum(event, choices.shape[1] - 1)]
                elif row_policy == RowPolicy.RANDOM:
                    chosen = rng.integers(0, 4, size=count)
                else:
                    chosen = heads.argmin(axis=1)  # the first row on a tie
                row = np.where(low, chosen, row)
                event += low
            row_count = counts[every, row]
            row_heads = heads[every, row]
            take = active & (low | (row_count == ROW_LIMIT))
            penalties[every, player] += np.where(take, row_heads, 0)
            bull = BULL[card]
            counts[every, row] = np.where(active, np.where(take, 1, row_count + 1), row_count)
            heads[every, row] = np.where(active, np.where(take, bull, row_heads + bull), row_heads)
            ends[every, row] = np.where(active, card, ends[every, row])
    return penalties


def play_rows(rows: Ints, orders: Ints, row_policy: int, choices: Ints | None, rng: np.random.Generator) -> Ints:
    """:func:`play` from four starting cards per hand."""
    ends = rows.astype(np.int64)
    counts = np.ones_like(ends)
    heads = BULL[ends]
    return play(ends, counts, heads, orders.astype(np.int64), row_policy, choices, rng)
