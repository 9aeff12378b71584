"""Random play's hot loop: each player plays its cards in a given order (a random order is random
play), low cards take rows given, at random or by the fewest bullheads, and the rows are packed
into four 64-bit numbers (see :func:`play_plain`); the game loops of :mod:`._kernels` play such
tables with it. Measured to matter: ``docs/speed.md``; held to the core by ``tests/conformance``.

Whole games of random play (:func:`plain_games`) go through the one game loop
(:func:`._base.whole_games`) with this module's hand player, :func:`plain_dealt`, passed as an
argument: Numba compiles the loop once for each hand player, so no hand chooses at run time (one
loop choosing the hot loop or ``play_hand`` for each hand was 10 to 25 % slower, docs/speed.md).
Random hands keep their own loop (:func:`plain_hands`: random deals, counted by penalty).
"""

from __future__ import annotations

import numpy as np

from nimmt.core import ROW_LIMIT

from ._base import BULL, NO_NET, _jit, _jit_inline, below, deal_hand, room, trailing_zeros, whole_games


@_jit_inline
def _packed_rows(ends, counts, heads):  # type: ignore[no-untyped-def]
    """The four rows, each one number ``end << 16 | row << 12 | bullheads << 4 | count``, sorted by
    their last card (a sorting network for four)."""
    w0 = (ends[0] << 16) | (heads[0] << 4) | counts[0]
    w1 = (ends[1] << 16) | (1 << 12) | (heads[1] << 4) | counts[1]
    w2 = (ends[2] << 16) | (2 << 12) | (heads[2] << 4) | counts[2]
    w3 = (ends[3] << 16) | (3 << 12) | (heads[3] << 4) | counts[3]
    lo = min(w0, w1)
    w1 = max(w0, w1)
    w0 = lo
    lo = min(w2, w3)
    w3 = max(w2, w3)
    w2 = lo
    lo = min(w0, w2)
    w2 = max(w0, w2)
    w0 = lo
    lo = min(w1, w3)
    w3 = max(w1, w3)
    w1 = lo
    return w0, min(w1, w2), max(w1, w2), w3


@_jit_inline
def _unpack_row(v, ends, counts, heads):  # type: ignore[no-untyped-def]
    r = (v >> 12) & 3
    ends[r] = v >> 16
    heads[r] = (v >> 4) & 255
    counts[r] = v & 15


@_jit_inline
def _turn_bits(orders, t, owner):  # type: ignore[no-untyped-def]
    """Turn ``t``'s cards as the bits of two words (cards 1-63 and 64-127; no card, 0, sets none);
    ``owner[c]``: who played c."""
    one = np.uint64(1)
    low_bits = np.uint64(0)
    high_bits = np.uint64(0)
    for p in range(orders.shape[0]):
        c = np.int64(orders[p, t])
        owner[c] = p
        bit = one << np.uint64(c & 63)
        if c >= 64:
            high_bits |= bit
        else:
            low_bits |= bit
    return low_bits & ~one, high_bits


@_jit_inline
def _add_packed(v0, v1, v2, v3, key, slot, b):  # type: ignore[no-untyped-def]
    """Lay the card ``key`` (card << 16), ``b`` bullheads, on the row of place ``slot`` (1-4, the
    rows ending below it), without a branch; (bullheads taken, the rows)."""
    m0 = -np.int64(slot == 1)
    m1 = -np.int64(slot == 2)
    m2 = -np.int64(slot == 3)
    m3 = -np.int64(slot == 4)
    w = (v0 & m0) | (v1 & m1) | (v2 & m2) | (v3 & m3)
    count = w & 15
    h = (w >> 4) & 255
    full = -np.int64(count == ROW_LIMIT)  # all ones when this card is the sixth
    new = key | (w & 0x3000) | (((h & ~full) + b) << 4) | ((count + 1) & ~full) | (1 & full)
    return (h & full, (new & m0) | (v0 & ~m0), (new & m1) | (v1 & ~m1), (new & m2) | (v2 & ~m2),
            (new & m3) | (v3 & ~m3))


@_jit_inline
def _low_row(v0, v1, v2, v3, row_policy, choices, event, state):  # type: ignore[no-untyped-def]
    """(state, the row a card below every row takes): given, random, or the fewest bullheads (the
    lowest row number on a tie)."""
    if row_policy == 0:
        return state, np.int64(choices[event])
    if row_policy == 1:
        return below(state, 4)
    f0 = (v0 & 0xFF0) | ((v0 >> 12) & 3)
    f1 = (v1 & 0xFF0) | ((v1 >> 12) & 3)
    f2 = (v2 & 0xFF0) | ((v2 >> 12) & 3)
    f3 = (v3 & 0xFF0) | ((v3 >> 12) & 3)
    return state, min(min(f0, f1), min(f2, f3)) & 3


@_jit_inline
def _take_packed(v0, v1, v2, v3, key, r, b):  # type: ignore[no-untyped-def]
    """A low card ``key`` takes row number ``r``, which starts again in front of the others;
    (bullheads taken, the rows)."""
    new = key | (r << 12) | (b << 4) | 1
    if ((v0 >> 12) & 3) == r:
        return (v0 >> 4) & 255, new, v1, v2, v3
    if ((v1 >> 12) & 3) == r:
        return (v1 >> 4) & 255, new, v0, v2, v3
    if ((v2 >> 12) & 3) == r:
        return (v2 >> 4) & 255, new, v0, v1, v3
    return (v3 >> 4) & 255, new, v0, v1, v2


@_jit
def play_plain(ends, counts, heads, orders, choices, row_policy, penalties, owner, state):  # type: ignore[no-untyped-def]
    """The hot loop of random play, :func:`nimmt.batch._kernels.play_hand` for a table where every
    player plays ``orders`` (players, turns; 0: no card) as given and a low card's row comes from
    ``choices`` (RowPolicy.GIVEN), the random source (RANDOM) or the fewest bullheads (FEWEST), from
    the rows ``ends``/``counts``/``heads`` (changed in place). Adds each player's bullheads to
    ``penalties`` and returns the random state; ``owner`` is scratch (105).

    Each row is one number, ``end << 16 | row << 12 | bullheads << 4 | count``, and the four are
    kept sorted by their last card in ``v0 < v1 < v2 < v3``: the row a card goes to is then the
    count of rows below it, and placing a card there keeps the order (only a low card, which
    starts its row again below all others, moves a row to the front). Everything stays in
    registers and the common case has no branch to mispredict. Each turn's cards are put in
    order by setting their bits in two 64-bit words and reading them back lowest first.
    """
    v0, v1, v2, v3 = _packed_rows(ends, counts, heads)
    event = 0
    one = np.uint64(1)
    zero = np.uint64(0)
    for t in range(orders.shape[1]):
        low_bits, high_bits = _turn_bits(orders, t, owner)
        for word in range(2):
            bits = low_bits if word == 0 else high_bits
            base = 0 if word == 0 else 64
            while bits != zero:
                card = base + np.int64(trailing_zeros(bits))
                bits &= bits - one
                key = card << 16
                slot = int(v0 < key) + int(v1 < key) + int(v2 < key) + int(v3 < key)
                if slot > 0:
                    taken, v0, v1, v2, v3 = _add_packed(v0, v1, v2, v3, key, slot, BULL[card])
                else:
                    state, r = _low_row(v0, v1, v2, v3, row_policy, choices, event, state)
                    event += 1
                    taken, v0, v1, v2, v3 = _take_packed(v0, v1, v2, v3, key, r, BULL[card])
                penalties[owner[card]] += taken
    _unpack_row(v0, ends, counts, heads)
    _unpack_row(v1, ends, counts, heads)
    _unpack_row(v2, ends, counts, heads)
    _unpack_row(v3, ends, counts, heads)
    return state


@_jit_inline
def plain_dealt(deck, ends, counts, heads, owner, players, turns, row_policy, choices, penalties, scratch, state):  # type: ignore[no-untyped-def]
    """Play the hand dealt at the front of ``deck`` (the 4 rows, then player p's card of turn t at
    4 + t * players + p) from fresh rows ``ends``/``counts``/``heads`` with :func:`play_plain`. The
    arrays come apart, not as the :class:`Room` they belong to: a field read in a loop costs two
    atomic reference counts a hand. ``scratch`` (the :class:`Room`) is not used: the hand players of
    :func:`whole_games` take the same arguments."""
    for r in range(4):
        c = deck[r]
        ends[r] = c
        counts[r] = 1
        heads[r] = BULL[c]
    dealt = deck[4 : 4 + turns * players].reshape((turns, players)).T
    return play_plain(ends, counts, heads, dealt, choices, row_policy, penalties, owner, state)


@_jit
def plain_hands(players, count, row_policy, seed, totals, spread):  # type: ignore[no-untyped-def]
    """Deal and play ``count`` hands of random play; add each player's penalty to ``totals`` and
    count the hands by each player's penalty in ``spread`` (players, 172). Holds one hand at a time."""
    scratch = room(players, 10, NO_NET)
    deck, ends, counts, heads, owner = scratch.deck, scratch.ends, scratch.counts, scratch.heads, scratch.owner
    penalties, choices = scratch.penalties, scratch.choices
    state = np.uint64(seed)
    for _ in range(count):
        state = deal_hand(deck, 4 + 10 * players, state)
        penalties[:] = 0
        state = plain_dealt(deck, ends, counts, heads, owner, players, 10, row_policy, choices, penalties, scratch,
                            state)
        for p in range(players):
            totals[p] += penalties[p]
            spread[p, penalties[p]] += 1
    return state


@_jit
def plain_games(players, count, end_above, rounds, row_policy, seed, tally):  # type: ignore[no-untyped-def]
    """:func:`nimmt.batch._kernels.games` for a table of random cards, every seat taking rows by
    ``row_policy`` (not the heuristic): the same loop (:func:`whole_games`), each hand played by the
    hot loop :func:`play_plain` only, which compiles fast."""
    return whole_games(plain_dealt, row_policy, room(players, 10, NO_NET), players, count, end_above, rounds, seed,
                       tally)


@_jit
def deal_many(players, count, seed, rows, orders):  # type: ignore[no-untyped-def]
    """Deal ``count`` random hands into rows (count, 4) and orders (count, players, 10), exactly as
    the batch loops deal them (player p's card of turn t is deck[4 + t * players + p])."""
    deck = np.arange(1, 105).astype(np.int64)
    state = np.uint64(seed)
    for b in range(count):
        state = deal_hand(deck, 4 + 10 * players, state)
        for r in range(4):
            rows[b, r] = deck[r]
        for p in range(players):
            for t in range(10):
                orders[b, p, t] = deck[4 + t * players + p]
    return state
