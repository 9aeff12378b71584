"""Random play's hot loops: each player plays its cards in a given order (a random order is random
play), low cards take rows given, at random or by the fewest bullheads, and the rows are packed
into four 64-bit numbers (see :func:`play_plain`). Measured to matter: ``docs/speed.md``; held
to the core by ``tests/conformance``.
"""

from __future__ import annotations

import numpy as np

from ._base import BULL, _add_round, _jit, below, deal_hand, trailing_zeros


@_jit
def play_plain(rows, turns, choices, row_policy, penalties, owner, state):  # type: ignore[no-untyped-def]
    """The hot loop of random play: each player plays the given cards; a low card's row comes from
    ``choices`` (ROW_GIVEN), the random source (ROW_RANDOM) or the fewest bullheads (ROW_FEWEST).

    ``rows``: the 4 starting cards; ``turns`` (turns, players): the cards of each turn. Adds each
    player's bullheads to ``penalties`` and returns the random state; ``owner`` is scratch (105).

    Each row is one number, ``end << 16 | row << 12 | bullheads << 4 | count``, and the four are
    kept sorted by their last card in ``v0 < v1 < v2 < v3``: the row a card goes to is then the
    count of rows below it, and placing a card there keeps the order (only a low card, which
    starts its row again below all others, moves a row to the front). Everything stays in
    registers and the common case has no branch to mispredict. Each turn's cards are put in
    order by setting their bits in two 64-bit words and reading them back lowest first.
    """
    turn_count = turns.shape[0]
    players = turns.shape[1]
    a0 = np.int64(rows[0])
    a1 = np.int64(rows[1])
    a2 = np.int64(rows[2])
    a3 = np.int64(rows[3])
    w0 = (a0 << 16) | (BULL[a0] << 4) | 1
    w1 = (a1 << 16) | (1 << 12) | (BULL[a1] << 4) | 1
    w2 = (a2 << 16) | (2 << 12) | (BULL[a2] << 4) | 1
    w3 = (a3 << 16) | (3 << 12) | (BULL[a3] << 4) | 1
    # A sorting network for four.
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
    v0 = w0
    v1 = min(w1, w2)
    v2 = max(w1, w2)
    v3 = w3
    event = 0
    one = np.uint64(1)
    zero = np.uint64(0)
    for t in range(turn_count):
        cards = turns[t]
        low_bits = zero
        high_bits = zero
        for p in range(players):
            c = np.int64(cards[p])
            owner[c] = p
            bit = one << np.uint64(c & 63)
            if c >= 64:
                high_bits |= bit
            else:
                low_bits |= bit
        for word in range(2):
            bits = low_bits if word == 0 else high_bits
            base = 0 if word == 0 else 64
            while bits != zero:
                card = base + np.int64(trailing_zeros(bits))
                bits &= bits - one
                p = owner[card]
                key = card << 16
                slot = int(v0 < key) + int(v1 < key) + int(v2 < key) + int(v3 < key)
                b = BULL[card]
                if slot > 0:
                    m0 = -np.int64(slot == 1)
                    m1 = -np.int64(slot == 2)
                    m2 = -np.int64(slot == 3)
                    m3 = -np.int64(slot == 4)
                    w = (v0 & m0) | (v1 & m1) | (v2 & m2) | (v3 & m3)
                    count = w & 15
                    h = (w >> 4) & 255
                    full = -np.int64(count == 5)  # all ones when this card is the sixth
                    penalties[p] += h & full
                    new = key | (w & 0x3000) | (((h & ~full) + b) << 4) | ((count + 1) & ~full) | (1 & full)
                    v0 = (new & m0) | (v0 & ~m0)
                    v1 = (new & m1) | (v1 & ~m1)
                    v2 = (new & m2) | (v2 & ~m2)
                    v3 = (new & m3) | (v3 & ~m3)
                    continue
                if row_policy == 0:
                    r = np.int64(choices[event])
                elif row_policy == 1:
                    state, r = below(state, 4)
                else:  # fewest bullheads, the lowest row number on a tie
                    f0 = (v0 & 0xFF0) | ((v0 >> 12) & 3)
                    f1 = (v1 & 0xFF0) | ((v1 >> 12) & 3)
                    f2 = (v2 & 0xFF0) | ((v2 >> 12) & 3)
                    f3 = (v3 & 0xFF0) | ((v3 >> 12) & 3)
                    r = min(min(f0, f1), min(f2, f3)) & 3
                event += 1
                new = key | (r << 12) | (b << 4) | 1
                if ((v0 >> 12) & 3) == r:
                    penalties[p] += (v0 >> 4) & 255
                    v0 = new
                elif ((v1 >> 12) & 3) == r:
                    penalties[p] += (v1 >> 4) & 255
                    v1 = v0
                    v0 = new
                elif ((v2 >> 12) & 3) == r:
                    penalties[p] += (v2 >> 4) & 255
                    v2 = v1
                    v1 = v0
                    v0 = new
                else:
                    penalties[p] += (v3 >> 4) & 255
                    v3 = v2
                    v2 = v1
                    v1 = v0
                    v0 = new
    return state


@_jit
def plain_many(rows, orders, choices, row_policy, seed, penalties):  # type: ignore[no-untyped-def]
    """Play hands from their deals, each player's cards in the given order: rows (B, 4), orders
    (B, players, turns), choices (B, events); penalties (B, players) receives the bullheads."""
    count = rows.shape[0]
    players = orders.shape[1]
    turn_count = orders.shape[2]
    turns = np.empty((turn_count, players), np.int64)
    owner = np.empty(105, np.int64)
    state = np.uint64(seed)
    for b in range(count):
        for p in range(players):
            for t in range(turn_count):
                turns[t, p] = orders[b, p, t]
        state = play_plain(rows[b], turns, choices[b], row_policy, penalties[b], owner, state)
    return state


@_jit
def deal_many(players, count, seed, rows, orders):  # type: ignore[no-untyped-def]
    """Deal ``count`` random hands into rows (count, 4) and orders (count, players, 10), exactly as
    the batch loops deal them (player p's card of turn t is deck[4 + t * players + p])."""
    deck = np.arange(1, 105).astype(np.int64)
    dealt = 4 + 10 * players
    state = np.uint64(seed)
    for b in range(count):
        state = deal_hand(deck, dealt, state)
        for r in range(4):
            rows[b, r] = deck[r]
        for p in range(players):
            for t in range(10):
                orders[b, p, t] = deck[4 + t * players + p]
    return state


@_jit
def plain_hands(players, count, row_policy, seed, totals, spread):  # type: ignore[no-untyped-def]
    """Deal and play ``count`` hands of random play; add each player's penalty to ``totals`` and
    count the hands by each player's penalty in ``spread`` (players, 172). Holds one hand at a time."""
    deck = np.arange(1, 105).astype(np.int64)
    dealt = 4 + 10 * players
    owner = np.empty(105, np.int64)
    choices = np.zeros(1, np.int64)
    penalties = np.zeros(players, np.int64)
    state = np.uint64(seed)
    for _ in range(count):
        state = deal_hand(deck, dealt, state)
        penalties[:] = 0
        state = play_plain(deck[0:4], deck[4:dealt].reshape((10, players)), choices, row_policy, penalties,
                           owner, state)
        for p in range(players):
            totals[p] += penalties[p]
            spread[p, penalties[p]] += 1
    return state


@_jit
def plain_games(players, count, end_above, rounds, row_policy, seed, tally):  # type: ignore[no-untyped-def]
    """Play ``count`` whole games of random cards, every seat taking rows by ``row_policy``: rounds
    until a total is above ``end_above`` (or exactly ``rounds`` rounds when rounds > 0), into the
    :class:`Tally`. The hot loop :func:`play_plain` only, which compiles fast."""
    deck = np.arange(1, 105).astype(np.int64)
    dealt = 4 + 10 * players
    owner = np.empty(105, np.int64)
    choices = np.zeros(1, np.int64)
    penalties = np.zeros(players, np.int64)
    state = np.uint64(seed)
    for g in range(count):
        done = 0
        while True:
            state = deal_hand(deck, dealt, state)
            penalties[:] = 0
            state = play_plain(deck[0:4], deck[4:dealt].reshape((10, players)), choices, row_policy, penalties,
                               owner, state)
            done += 1
            if _add_round(tally, g, penalties, done, end_above, rounds):
                break
        tally.played[g] = done
    return state
