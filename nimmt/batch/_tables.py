"""Kernels of many tables played turn by turn, one seat waiting for outside actions: the engine under
:class:`nimmt.envs.NimmtVectorEnv`.

Each table ``i`` keeps its state in rows of arrays (made by :class:`nimmt.envs.NimmtVectorEnv`):
the rows (``row_cards`` (4, 5), ``row_len``, ``row_end``, ``row_heads``), the hands (``hands`` (players,
10), sorted, 0 = a card played), ``gone`` (the cards taken this round), ``public`` (the cards every
player has seen this round: the rows' first cards and every revealed card), ``penalties`` of the round,
``totals`` before the round, rounds played, the turn, the phase and this turn's revealed cards
(``keys``: card * 16 + player, lowest first, and how many are ``resolved``). The seat ``seat``
acts from outside; every other seat plays by its card and row policies, exactly as in
:func:`nimmt.batch._kernels.play_hand`.
"""

from __future__ import annotations

import numpy as np

from ._kernels import BULL, _jit, beginner_card, below, fewest, heuristic_card, heuristic_row, target, unseen_prefix

CARDS = 0  # the seat must play a card
ROW = 1  # the seat must choose a row for its card
OVER = 2  # the game is over
DEAL = 3  # a round ended and the next one must be dealt (the seat acts once it is)

ROW_ACTION = 104  # actions 0-103 play cards 1-104; 104-107 take rows 0-3
DECK_BULLHEADS = 171
MAX_PLAYERS = 10


@_jit
def _take(i, p, r, card, row_cards, row_len, row_end, row_heads, gone, penalties):  # type: ignore[no-untyped-def]
    """Player ``p`` takes row ``r`` of table ``i``; ``card`` starts it again. Returns the bullheads."""
    heads = row_heads[i, r]
    for k in range(row_len[i, r]):
        gone[i, row_cards[i, r, k]] = True
    penalties[i, p] += heads
    row_cards[i, r, 0] = card
    row_len[i, r] = 1
    row_end[i, r] = card
    row_heads[i, r] = BULL[card]
    return heads


@_jit
def _resolve(i, seat, players, row_pols, later_weight, row_cards, row_len, row_end, row_heads, hands, gone,  # type: ignore[no-untyped-def]
             public, penalties, keys, resolved, phase, states, cnt, hb, work):
    """Place table i's revealed cards from ``resolved[i]`` until the seat must choose a row or the turn
    ends; returns the bullheads the seat took."""
    taken = 0
    fresh = False
    for index in range(resolved[i], players):
        key = keys[i, index]
        card = key >> 4
        p = key & 15
        r = target(row_end[i], card)
        if r >= 0:
            if row_len[i, r] == 5:
                heads = _take(i, p, r, card, row_cards, row_len, row_end, row_heads, gone, penalties)
                if p == seat:
                    taken += heads
            else:
                row_cards[i, r, row_len[i, r]] = card
                row_len[i, r] += 1
                row_end[i, r] = card
                row_heads[i, r] += BULL[card]
            continue
        if p == seat:
            resolved[i] = index
            phase[i] = ROW
            return taken
        rp = row_pols[p]
        if rp == 1:
            state, r = below(states[i], 4)
            states[i] = state
        elif rp == 2:
            r = fewest(row_heads[i])
        else:
            if not fresh:
                unseen_prefix(public[i], cnt, hb)
                fresh = True
            still = np.empty(players - index - 1, np.int64)
            for j in range(index + 1, players):
                still[j - index - 1] = keys[i, j] >> 4
            r = heuristic_row(row_end[i], row_len[i], row_heads[i], card, still, hands[i, p], cnt, hb, players - 1,
                              later_weight, work)
        _take(i, p, r, card, row_cards, row_len, row_end, row_heads, gone, penalties)
    resolved[i] = players
    phase[i] = CARDS
    return taken


@_jit
def step_tables(actions, seat, players, card_pols, row_pols, tie, later_weight, end_above, rounds,  # type: ignore[no-untyped-def]
                row_cards, row_len, row_end, row_heads, hands, gone, public, penalties, totals, played,
                turn, phase, keys, resolved, states, rewards, illegal, terminated):
    """One action of the seat at every table whose phase is CARDS or ROW (the others are left alone).

    An action the seat may not take is replaced by a random legal one and flagged in ``illegal``.
    ``rewards[i]``: minus the bullheads the seat took until it must act again (or the game ends).
    A table whose round ends gets phase DEAL (the caller deals it, then :func:`start_round`); a
    table whose game ends gets phase OVER and ``terminated``.
    """
    count = actions.shape[0]
    cnt = np.empty(106, np.int64)
    hb = np.empty(106, np.int64)
    work = np.empty(39, np.int64)
    costs = np.empty(10)
    picks = np.empty(players, np.int64)
    card_heuristic = False
    for p in range(players):
        if p != seat and card_pols[p] == 1:
            card_heuristic = True
    for i in range(count):
        rewards[i] = 0.0
        illegal[i] = False
        terminated[i] = False
        if phase[i] != CARDS and phase[i] != ROW:
            continue
        action = actions[i]
        taken = 0
        if phase[i] == CARDS:
            mine = -1
            held = 0
            for k in range(10):
                c = hands[i, seat, k]
                if c > 0:
                    held += 1
                    if c == action + 1:
                        mine = k
            if mine < 0:  # not a card of the hand: a random one of them instead
                illegal[i] = True
                state, pick = below(states[i], held)
                states[i] = state
                for k in range(10):
                    if hands[i, seat, k] > 0:
                        if pick == 0:
                            mine = k
                            break
                        pick -= 1
            if card_heuristic:
                unseen_prefix(public[i], cnt, hb)
            for p in range(players):
                if p == seat:
                    picks[p] = mine
                    continue
                cp = card_pols[p]
                if cp == 1:
                    picks[p] = heuristic_card(row_end[i], row_len[i], row_heads[i], hands[i, p], cnt, hb,
                                              players - 1, tie, work, costs)
                elif cp == 2:
                    picks[p] = beginner_card(row_end[i], row_len[i], hands[i, p])
                else:
                    held = 0
                    for k in range(10):
                        if hands[i, p, k] > 0:
                            held += 1
                    state, pick = below(states[i], held)
                    states[i] = state
                    for k in range(10):
                        if hands[i, p, k] > 0:
                            if pick == 0:
                                picks[p] = k
                                break
                            pick -= 1
            # Reveal: take the cards out of the hands, order them lowest first.
            for p in range(players):
                c = hands[i, p, picks[p]]
                hands[i, p, picks[p]] = 0
                public[i, c] = True
                key = c * 16 + p
                j = p  # the cards of seats 0..p-1 are in order already
                while j > 0 and keys[i, j - 1] > key:
                    keys[i, j] = keys[i, j - 1]
                    j -= 1
                keys[i, j] = key
            resolved[i] = 0
        else:
            r = action - ROW_ACTION
            if r < 0 or r > 3:
                illegal[i] = True
                state, r = below(states[i], 4)
                states[i] = state
            card = keys[i, resolved[i]] >> 4
            taken += _take(i, seat, r, card, row_cards, row_len, row_end, row_heads, gone, penalties)
            resolved[i] += 1
        taken += _resolve(i, seat, players, row_pols, later_weight, row_cards, row_len, row_end, row_heads, hands,
                          gone, public, penalties, keys, resolved, phase, states, cnt, hb, work)
        rewards[i] = -float(taken)
        if phase[i] == CARDS:
            turn[i] += 1
            if turn[i] == 10:
                played[i] += 1
                top = 0
                for p in range(players):
                    totals[i, p] += penalties[i, p]
                    top = max(top, totals[i, p])
                over = played[i] >= rounds if rounds > 0 else top > end_above
                if over:
                    phase[i] = OVER
                    terminated[i] = True
                else:
                    phase[i] = DEAL


@_jit
def start_round(i, rows, hands_dealt, row_cards, row_len, row_end, row_heads, hands, gone, public, penalties,  # type: ignore[no-untyped-def]
                turn, phase, resolved):
    """Deal table i a new round: ``rows`` (4) and ``hands_dealt`` (players, 10, sorted)."""
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
def encode(seat, players, row_cards, row_len, row_end, row_heads, hands, gone, penalties, totals, turn, phase,  # type: ignore[no-untyped-def]
           keys, resolved, observation, mask):
    """Write each table's observation of ``seat`` (as :func:`nimmt.envs.encode_view` builds it from the
    seat's view) and its action mask."""
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
