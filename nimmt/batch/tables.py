"""Kernels of many tables played turn by turn, one seat waiting for outside actions: the engine under
:class:`nimmt.envs.NimmtVectorEnv` (public: the environments build on it).

Each table ``i`` keeps its state in rows of arrays (made by :class:`nimmt.envs.NimmtVectorEnv`):
the rows (``row_cards`` (4, 5), ``row_len``, ``row_end``, ``row_heads``), the hands (``hands`` (players,
10), sorted, 0 = a card played), ``gone`` (the cards taken this round), ``public`` (the cards every
player has seen this round: the rows' first cards and every revealed card), ``penalties`` of the round,
``totals`` before the round, rounds played, the turn, the phase and this turn's revealed cards
(``keys``: card * 16 + player, lowest first, and how many are ``resolved``). The seat ``seat``
acts from outside; every other seat plays by its card and row policies, exactly as in
:func:`nimmt.batch._kernels.play_hand`, and every card is placed by :func:`nimmt.core.fast.lay`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ._base import BULL, CardPolicy, RowPolicy, _jit, _jit_inline, below, fewest, lay, room, target, unseen_prefix
from ._choices import beginner_card, heuristic_card, heuristic_row

CARDS = 0  # the seat must play a card
ROW = 1  # the seat must choose a row for its card
OVER = 2  # the game is over
DEAL = 3  # a round ended and the next one must be dealt (the seat acts once it is)

ROW_ACTION = 104  # actions 0-103 play cards 1-104; 104-107 take rows 0-3
DECK_BULLHEADS = 171
MAX_PLAYERS = 10

Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]


class Tables(NamedTuple):
    """The state of many tables, one entry (row) of each array per table: see the module's docstring."""

    row_cards: Ints  # (tables, 4, 5)
    row_len: Ints  # (tables, 4)
    row_end: Ints  # (tables, 4)
    row_heads: Ints  # (tables, 4)
    hands: Ints  # (tables, players, 10)
    gone: Flags  # (tables, 105)
    public: Flags  # (tables, 105)
    penalties: Ints  # (tables, players): this round
    totals: Ints  # (tables, players): before this round
    played: Ints  # (tables,): rounds
    turn: Ints  # (tables,)
    phase: Ints  # (tables,): CARDS, ROW, OVER or DEAL
    keys: Ints  # (tables, players): this turn's cards, card * 16 + player, lowest first
    resolved: Ints  # (tables,)
    states: npt.NDArray[np.uint64]  # (tables,): each table's random source


def new_tables(count: int, players: int) -> Tables:
    """``count`` tables of ``players``, every game over (deal each with :func:`start_round`)."""
    n, p = count, players
    return Tables(
        np.zeros((n, 4, 5), np.int64), np.zeros((n, 4), np.int64), np.zeros((n, 4), np.int64),
        np.zeros((n, 4), np.int64), np.zeros((n, p, 10), np.int64), np.zeros((n, 105), np.bool_),
        np.zeros((n, 105), np.bool_), np.zeros((n, p), np.int64), np.zeros((n, p), np.int64), np.zeros(n, np.int64),
        np.zeros(n, np.int64), np.full(n, OVER, np.int64), np.zeros((n, p), np.int64), np.zeros(n, np.int64),
        np.zeros(n, np.uint64),
    )


class Steps(NamedTuple):
    """What a step gives at each table: the seat's reward, whether its action was refused, whether
    the game ended."""

    rewards: npt.NDArray[np.float64]
    illegal: Flags
    terminated: Flags


@_jit
def _lay(i, p, r, card, low, t):  # type: ignore[no-untyped-def]
    """:func:`nimmt.core.fast.lay` on table i (``card`` goes on row ``r``; ``low``: its player chose
    it), keeping the rows' cards (the observation shows them) and the cards gone. Returns the
    bullheads player ``p`` took."""
    row_cards, gone = t.row_cards, t.gone
    length = t.row_len[i, r]
    heads = lay(t.row_end[i], t.row_len[i], t.row_heads[i], r, card, low, BULL)
    if heads:  # the row was taken (every card has at least one bullhead)
        for k in range(length):
            gone[i, row_cards[i, r, k]] = True
        t.penalties[i, p] += heads
        row_cards[i, r, 0] = card
    else:
        row_cards[i, r, length] = card
    return heads


@_jit
def _resolve(i, seat, seats, t, cnt, hb, work):  # type: ignore[no-untyped-def]
    """Place table i's revealed cards from ``resolved[i]`` until the seat must choose a row or the turn
    ends; returns the bullheads the seat took."""
    row_len, row_end, row_heads, hands, public = t.row_len, t.row_end, t.row_heads, t.hands, t.public
    keys, resolved, phase, states = t.keys, t.resolved, t.phase, t.states
    players = keys.shape[1]
    taken = 0
    fresh = False
    for index in range(resolved[i], players):
        key = keys[i, index]
        card = key >> 4
        p = key & 15
        r = target(row_end[i], card)
        if r >= 0:
            heads = _lay(i, p, r, card, False, t)
            if p == seat:
                taken += heads
            continue
        if p == seat:
            resolved[i] = index
            phase[i] = ROW
            return taken
        rp = seats.rows[p]
        if rp == RowPolicy.RANDOM:
            state, r = below(states[i], 4)
            states[i] = state
        elif rp == RowPolicy.FEWEST:
            r = fewest(row_heads[i])
        else:
            if not fresh:
                unseen_prefix(public[i], cnt, hb)
                fresh = True
            still = np.empty(players - index - 1, np.int64)
            for j in range(index + 1, players):
                still[j - index - 1] = keys[i, j] >> 4
            r = heuristic_row(row_end[i], row_len[i], row_heads[i], card, still, hands[i, p], cnt, hb, players - 1,
                              seats.later, work, seats.chances)
        _lay(i, p, r, card, True, t)
    resolved[i] = players
    phase[i] = CARDS
    return taken


# The helpers of step_tables take the arrays of Tables, read once in step_tables: a field read for
# each table costs two atomic reference counts.


@_jit_inline
def _random_card(hands, states, i, p):  # type: ignore[no-untyped-def]
    """The place in ``hands[i, p]`` of a uniformly random card player p of table i still holds (from
    the table's random source ``states[i]``)."""
    held = 0
    for k in range(10):
        if hands[i, p, k] > 0:
            held += 1
    state, pick = below(states[i], held)
    states[i] = state
    for k in range(10):
        if hands[i, p, k] > 0:
            if pick == 0:
                return k
            pick -= 1
    return -1


@_jit_inline
def _seat_card(hands, i, seat, action):  # type: ignore[no-untyped-def]
    """The place in ``hands[i, seat]`` of the card ``action`` plays; -1 when the seat holds no such card."""
    for k in range(10):
        c = hands[i, seat, k]
        if c > 0 and c == action + 1:
            return k
    return -1


@_jit_inline
def _reveal(hands, public, keys, i, picks):  # type: ignore[no-untyped-def]
    """Take table i's chosen cards (``picks[p]``: a place in p's hand) out of the hands and reveal
    them: ``keys[i]`` lowest first."""
    for p in range(picks.shape[0]):
        c = hands[i, p, picks[p]]
        hands[i, p, picks[p]] = 0
        public[i, c] = True
        key = c * 16 + p
        j = p  # the cards of seats 0..p-1 are in order already
        while j > 0 and keys[i, j - 1] > key:
            keys[i, j] = keys[i, j - 1]
            j -= 1
        keys[i, j] = key


@_jit_inline
def _row_of(states, i, action):  # type: ignore[no-untyped-def]
    """(row, refused): the row of a row ``action``, or a random row when it is not one."""
    r = action - ROW_ACTION
    if 0 <= r <= 3:
        return r, False
    state, r = below(states[i], 4)
    states[i] = state
    return r, True


@_jit_inline
def _end_turn(turn, played, totals, penalties, phase, i, end_above, rounds):  # type: ignore[no-untyped-def]
    """Table i's turn is over: after the tenth the round ends (phase DEAL) or the game (phase OVER:
    returns True)."""
    turn[i] += 1
    if turn[i] < 10:
        return False
    played[i] += 1
    top = 0
    for p in range(totals.shape[1]):
        totals[i, p] += penalties[i, p]
        top = max(top, totals[i, p])
    over = played[i] >= rounds if rounds > 0 else top > end_above
    phase[i] = OVER if over else DEAL
    return over


@_jit
def step_tables(actions, seat, seats, end_above, rounds, t, out):  # type: ignore[no-untyped-def]
    """One action of the seat at every table of ``t`` (:class:`Tables`) whose phase is CARDS or ROW
    (the others are left alone); every other seat plays by its policies in ``seats``
    (:class:`nimmt.batch.Policies`). What each table gives goes to ``out`` (:class:`Steps`).

    An action the seat may not take is replaced by a random legal one and flagged in ``illegal``.
    ``rewards[i]``: minus the bullheads the seat took until it must act again (or the game ends).
    A table whose round ends gets phase DEAL (the caller deals it, then :func:`start_round`); a
    table whose game ends gets phase OVER and ``terminated``.
    """
    hands, public, penalties, totals, played = t.hands, t.public, t.penalties, t.totals, t.played
    turn, phase, keys, resolved, states = t.turn, t.phase, t.keys, t.resolved, t.states
    row_end, row_len, row_heads = t.row_end, t.row_len, t.row_heads
    rewards, illegal, terminated = out.rewards, out.illegal, out.terminated
    cards, tie = seats.cards, seats.tie
    players = keys.shape[1]
    scratch = room(players, 10, seats.net)
    picks, cnt, hb, work, costs = scratch.picks, scratch.cnt, scratch.hb, scratch.work, scratch.costs
    looking = False
    for p in range(players):
        if p != seat and cards[p] == CardPolicy.HEURISTIC:
            looking = True
    for i in range(actions.shape[0]):
        rewards[i] = 0.0
        illegal[i] = False
        terminated[i] = False
        taken = 0
        if phase[i] == CARDS:
            mine = _seat_card(hands, i, seat, actions[i])
            illegal[i] = mine < 0
            if mine < 0:  # not a card of the hand: a random one of them instead
                mine = _random_card(hands, states, i, seat)
            if looking:
                unseen_prefix(public[i], cnt, hb)
            for p in range(players):  # the card policies dispatched here, as in play_hand
                if p == seat:
                    picks[p] = mine
                elif cards[p] == CardPolicy.HEURISTIC:
                    picks[p] = heuristic_card(row_end[i], row_len[i], row_heads[i], hands[i, p], cnt, hb,
                                              players - 1, tie, work, costs, seats.chances)
                elif cards[p] == CardPolicy.BEGINNER:
                    picks[p] = beginner_card(row_end[i], row_len[i], hands[i, p])
                else:
                    picks[p] = _random_card(hands, states, i, p)
            _reveal(hands, public, keys, i, picks)
            resolved[i] = 0
        elif phase[i] == ROW:
            r, illegal[i] = _row_of(states, i, actions[i])
            taken += _lay(i, seat, r, keys[i, resolved[i]] >> 4, True, t)
            resolved[i] += 1
        else:
            continue
        taken += _resolve(i, seat, seats, t, cnt, hb, work)
        rewards[i] = -float(taken)
        if phase[i] == CARDS:
            terminated[i] = _end_turn(turn, played, totals, penalties, phase, i, end_above, rounds)


@_jit
def start_round(i, rows, hands_dealt, t):  # type: ignore[no-untyped-def]
    """Deal table i of ``t`` a new round: ``rows`` (4) and ``hands_dealt`` (players, 10, sorted)."""
    row_cards, row_len, row_end, row_heads = t.row_cards, t.row_len, t.row_end, t.row_heads
    hands, gone = t.hands, t.gone
    public, penalties, turn, phase, resolved = t.public, t.penalties, t.turn, t.phase, t.resolved
    gone[i, :] = False
    public[i, :] = False
    penalties[i, :] = 0
    for r in range(4):
        c = rows[r]
        row_cards[i, r, 0] = c
        row_len[i, r] = 1
        row_end[i, r] = c
        row_heads[i, r] = BULL[c]
        public[i, c] = True
    hands[i, :, :] = hands_dealt
    turn[i] = 0
    phase[i] = CARDS
    resolved[i] = 0


@_jit
def encode(seat, t, observation, mask):  # type: ignore[no-untyped-def]
    """Write each table's observation of ``seat`` (as :func:`nimmt.envs.encode_view` builds it from the
    seat's view) and its action mask."""
    row_cards, row_len, row_end, row_heads = t.row_cards, t.row_len, t.row_end, t.row_heads
    hands, gone = t.hands, t.gone
    penalties, totals, turn, phase, keys, resolved = t.penalties, t.totals, t.turn, t.phase, t.keys, t.resolved
    players = keys.shape[1]
    count = observation.shape[0]
    for i in range(count):
        obs = observation[i]
        obs[:] = 0.0
        mask[i, :] = 0
        ph = phase[i]
        for k in range(10):
            c = hands[i, seat, k]
            if c > 0:
                obs[c - 1] = 1.0
                if ph == CARDS:
                    mask[i, c - 1] = 1
        for r in range(4):
            for k in range(row_len[i, r]):
                obs[104 + r * 104 + row_cards[i, r, k] - 1] = 1.0
        for c in range(1, 105):
            if gone[i, c]:
                obs[520 + c - 1] = 1.0
        if ph == ROW:
            for j in range(players):
                obs[624 + (keys[i, j] >> 4) - 1] = 1.0
            obs[832 + (keys[i, resolved[i]] >> 4) - 1] = 1.0
            for r in range(4):
                mask[i, ROW_ACTION + r] = 1
        for r in range(4):
            obs[936 + r] = row_end[i, r] / 104
            obs[940 + r] = row_len[i, r] / 5
            obs[944 + r] = row_heads[i, r] / 35
        obs[948] = 1.0 if ph == CARDS else 0.0
        obs[949] = 1.0 if ph == ROW else 0.0
        obs[950] = (10 if ph == OVER else turn[i]) / 10
        obs[951] = players / MAX_PLAYERS
        for k in range(players):
            p = (seat + k) % players
            obs[952 + k] = 1.0
            if ph == ROW or (ph == CARDS and p < seat):
                obs[962 + k] = 1.0
            obs[972 + k] = penalties[i, p] / DECK_BULLHEADS
            obs[982 + k] = totals[i, p] / 100
