"""The kernels that play any policy: :func:`play_hand` (one hand from any position, every seat by
its own policies), the game loops over it, and the rollouts of the search bots.

Orders are ``(players, turns)`` arrays of cards, ``orders[p, t]`` being the card player ``p`` plays
in turn ``t``; a 0 means "no card" (a player whose card of the first turn was already placed when a
rollout starts). What the kernels take comes in named structures: :class:`Policies` (how each
seat plays), :class:`Room` (scratch space), :class:`Tally` (what whole games give) and
:class:`Start` (where rollouts start). The parts live in :mod:`._base` (shared), :mod:`._choices`
(the policies' choices) and :mod:`._plain` (random play's hot loops); this module gathers them.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ._base import (
    BULL,
    HAVE_NUMBA,
    HEURISTIC_FEW,
    HEURISTIC_LOOK,
    HEURISTIC_ROOM,
    MC_CARD,
    MC_COST,
    CardPolicy,
    RowPolicy,
    Tally,
    _add_round,
    _jit,
    below,
    deal_hand,
    fewest,
    lay,
    place_fewest,
    tally,
    target,
    unseen_prefix,
)
from ._choices import (
    NET_CARD_FEATURES,
    NET_TAKE_ROW,
    beginner_card,
    heuristic_card,
    heuristic_pick,
    heuristic_row,
    mc_card,
    net_card,
    net_choice,
)
from ._plain import deal_many, plain_games, plain_hands, plain_many, play_plain

__all__ = [
    "HAVE_NUMBA", "HEURISTIC_FEW", "HEURISTIC_LOOK", "HEURISTIC_ROOM", "MC_CARD", "MC_COST", "NET_CARD_FEATURES",
    "NET_TAKE_ROW", "PREFIX", "CardPolicy", "Policies", "Room", "RowPolicy", "Start", "Tally", "below",
    "deal_hand", "deal_many", "fewest", "heuristic_card", "heuristic_row", "lay", "mc_card", "net_choice",
    "place_fewest", "plain_games", "plain_hands", "plain_many", "play_hand", "play_plain", "policies",
    "policy_games", "policy_many", "rollouts", "room", "tally", "target", "unseen_prefix",
]


class Policies(NamedTuple):
    """How each seat plays, as the kernels take it (:func:`policies` makes one with the right types)."""

    cards: npt.NDArray[np.int64]  # the CardPolicy of each seat
    rows: npt.NDArray[np.int64]  # the RowPolicy of each seat
    tie: float  # HeuristicBot.TIE, for the seats that play like it
    later: float  # HeuristicBot.LATER, for the seats that take rows like it
    net: npt.NDArray[np.float32]  # the learned network's weights (Net.flat) for NET seats, else 2 zeros


def policies(cards: Any, rows: Any, tie: float = 0.0, later: float = 0.0, net: Any = None) -> Policies:
    """:class:`Policies` with the types the kernels are compiled for (other types would compile again)."""
    return Policies(
        np.ascontiguousarray(cards, np.int64), np.ascontiguousarray(rows, np.int64), float(tie), float(later),
        np.zeros(2, np.float32) if net is None else np.ascontiguousarray(net, np.float32),
    )


PREFIX = 106  # unseen_prefix's counts: one per card 0-104, and one past the last


class Room(NamedTuple):
    """The scratch space of the kernels, made once per kernel call by :func:`room`: the rows and the
    public cards of the hand in play, and what :func:`play_hand` works in."""

    ends: npt.NDArray[np.int64]  # the rows' last cards (4)
    counts: npt.NDArray[np.int64]  # their lengths (4)
    heads: npt.NDArray[np.int64]  # their bullheads (4)
    public: npt.NDArray[np.bool_]  # the cards everybody has seen (105)
    fixed: npt.NDArray[np.bool_]  # no player's first card is fixed (players, all False)

    keys: npt.NDArray[np.int64]  # this turn's cards, card * 16 + player, lowest first (players)
    picks: npt.NDArray[np.int64]  # each player's chosen card, as an index into its remaining cards (players)
    cnt: npt.NDArray[np.int64]  # unseen_prefix's counts (PREFIX)
    hb: npt.NDArray[np.int64]  # and bullheads (PREFIX)
    work: npt.NDArray[np.int64]  # the heuristic's room (2 * turns + HEURISTIC_ROOM)
    costs: npt.NDArray[np.float64]  # a cost (or logit) per card of a hand (turns)
    targets: npt.NDArray[np.int64]  # a row per card of a hand (turns)
    feats: npt.NDArray[np.float32]  # the network's features, (turns, features)
    x: npt.NDArray[np.float32]  # the same, standardised
    h1: npt.NDArray[np.float32]  # its hidden layers, (turns, hidden units)
    h2: npt.NDArray[np.float32]


@_jit
def room(players, turns, net):  # type: ignore[no-untyped-def]
    """A :class:`Room` for hands of ``players`` and up to ``turns`` turns (``net``: as in :class:`Policies`)."""
    features = max(1, int(net[0]))
    hidden = max(1, int(net[1]))
    return Room(
        np.empty(4, np.int64), np.empty(4, np.int64), np.empty(4, np.int64), np.zeros(105, np.bool_),
        np.zeros(players, np.bool_), np.empty(players, np.int64), np.empty(players, np.int64),
        np.empty(PREFIX, np.int64), np.empty(PREFIX, np.int64), np.empty(2 * turns + HEURISTIC_ROOM, np.int64),
        np.empty(turns), np.empty(turns, np.int64), np.empty((turns, features), np.float32),
        np.empty((turns, features), np.float32), np.empty((turns, hidden), np.float32),
        np.empty((turns, hidden), np.float32),
    )


@_jit
def play_hand(ends, counts, heads, public, orders, fixed, choices, seats, penalties, room, state):  # type: ignore[no-untyped-def]
    """Play ``orders`` (players, turns) from the rows ``ends``/``counts``/``heads`` (changed in place)
    and add each player's bullheads to ``penalties``. Returns the random state.

    ``seats``: each player's card and row policy (:class:`Policies`; seats may differ).
    ``fixed[p]``: player p's card of the first turn is given whatever its card policy (a rollout's
    candidate card, or cards already revealed). ``public`` (105 flags) marks the cards everybody has
    seen; it is kept up to date only when a policy looks at the table. ``choices`` holds the rows of
    the low cards, in order, for RowPolicy.GIVEN. ``room``: :func:`room` for these players and turns.
    """
    players = orders.shape[0]
    turns = orders.shape[1]
    keys = room.keys
    picks = room.picks
    cnt = room.cnt
    hb = room.hb
    work = room.work
    costs = room.costs
    looking = False  # some card policy looks at the table
    choosing = False  # some card policy chooses at all
    for p in range(players):
        cp = seats.cards[p]
        if cp == CardPolicy.HEURISTIC or cp == CardPolicy.SNUG or cp == CardPolicy.MC or cp == CardPolicy.NET:
            looking = True
        if cp != CardPolicy.ORDER:
            choosing = True
    heuristic = looking
    for p in range(players):
        if seats.rows[p] == RowPolicy.HEURISTIC:
            heuristic = True
    opponents = players - 1
    event = 0
    for t in range(turns):
        if choosing:
            if looking:
                unseen_prefix(public, cnt, hb)
            for p in range(players):
                picks[p] = -1
                if (t > 0 or not fixed[p]) and orders[p, t] > 0:
                    cp = seats.cards[p]
                    if cp == CardPolicy.HEURISTIC:
                        picks[p] = heuristic_card(ends, counts, heads, orders[p, t:], cnt, hb, opponents, seats.tie,
                                                  work, costs)
                    elif cp == CardPolicy.BEGINNER:
                        picks[p] = beginner_card(ends, counts, orders[p, t:])
                    elif cp == CardPolicy.SNUG:
                        picks[p] = heuristic_pick(ends, counts, heads, orders[p, t:], cnt, hb, opponents, seats.tie,
                                                  work, costs, False, True)
                    elif cp == CardPolicy.MC:
                        state, picks[p] = mc_card(ends, counts, heads, orders[p, t:], cnt, hb, opponents, work,
                                                  costs, state)
                    elif cp == CardPolicy.NET:
                        picks[p] = net_card(ends, counts, heads, orders[p, t:], cnt, hb, opponents, seats.tie, work,
                                            costs, room.targets, seats.net, room.feats, room.x, room.h1, room.h2)
            # Everybody chooses from the same rows, then the chosen cards move to turn t.
            for p in range(players):
                if picks[p] > 0:
                    i = t + picks[p]
                    c = orders[p, i]
                    orders[p, i] = orders[p, t]
                    orders[p, t] = c
        n = 0
        for p in range(players):
            c = orders[p, t]
            if c > 0:
                key = c * 16 + p
                i = n
                while i > 0 and keys[i - 1] > key:
                    keys[i] = keys[i - 1]
                    i -= 1
                keys[i] = key
                n += 1
                if heuristic:
                    public[c] = True
        fresh = False
        for i in range(n):
            key = keys[i]
            card = key >> 4
            p = key & 15
            r = target(ends, card)
            low = r < 0
            if low:
                rp = seats.rows[p]
                if rp == RowPolicy.GIVEN:
                    r = choices[event]
                elif rp == RowPolicy.RANDOM:
                    state, r = below(state, 4)
                elif rp == RowPolicy.FEWEST:
                    r = fewest(heads)
                else:
                    if not fresh:
                        unseen_prefix(public, cnt, hb)
                        fresh = True
                    still = np.empty(n - i - 1, np.int64)
                    for j in range(i + 1, n):
                        still[j - i - 1] = keys[j] >> 4
                    r = heuristic_row(ends, counts, heads, card, still, orders[p, t + 1 :], cnt, hb, opponents,
                                      seats.later, work)
                event += 1
            penalties[p] += lay(ends, counts, heads, r, card, low, BULL)
    return state


@_jit
def _play_policy(deck, players, seats, choices, penalties, room, state):  # type: ignore[no-untyped-def]
    """Play the hand dealt at the front of ``deck`` with :func:`play_hand`, in ``room``'s rows."""
    ends, counts, heads, public = room.ends, room.counts, room.heads, room.public
    dealt = 4 + 10 * players
    public[:] = False
    for r in range(4):
        c = deck[r]
        ends[r] = c
        counts[r] = 1
        heads[r] = BULL[c]
        public[c] = True
    orders = deck[4:dealt].reshape((10, players)).T.copy()
    return play_hand(ends, counts, heads, public, orders, room.fixed, choices, seats, penalties, room, state)


@_jit
def policy_many(rows, orders, choices, seats, seed, penalties):  # type: ignore[no-untyped-def]
    """:func:`plain_many` for any policies, seat by seat (:class:`Policies`); orders (B, players, 10)."""
    count = rows.shape[0]
    players = orders.shape[1]
    deck = np.empty(4 + 10 * players, np.int64)
    scratch = room(players, 10, seats.net)
    state = np.uint64(seed)
    for b in range(count):
        for r in range(4):
            deck[r] = rows[b, r]
        for p in range(players):
            for t in range(10):
                deck[4 + t * players + p] = orders[b, p, t]
        state = _play_policy(deck, players, seats, choices[b], penalties[b], scratch, state)
    return state


@_jit
def policy_games(players, count, end_above, rounds, seats, seed, tally):  # type: ignore[no-untyped-def]
    """:func:`plain_games` where each seat has its own policies (:class:`Policies`), as ``nimmt
    simulate`` plays them. Random hands are policy_games with rounds=1."""
    deck = np.arange(1, 105).astype(np.int64)
    scratch = room(players, 10, seats.net)
    choices = np.zeros(1, np.int64)
    penalties = np.zeros(players, np.int64)
    dealt = 4 + 10 * players
    state = np.uint64(seed)
    for g in range(count):
        done = 0
        while True:
            state = deal_hand(deck, dealt, state)
            penalties[:] = 0
            state = _play_policy(deck, players, seats, choices, penalties, scratch, state)
            done += 1
            if _add_round(tally, g, penalties, done, end_above, rounds):
                break
        tally.played[g] = done
    return state


class Start(NamedTuple):
    """Where :func:`rollouts` start, for each of ``candidates`` starting points k: the rows
    ``ends[k]``/``counts[k]``/``heads[k]`` (candidates, 4) with the cards ``first[k]`` (candidates,
    players; 0 = none) given for the current turn where ``fixed[p]``. ``mine``: the cards player
    ``me`` holds; when ``first[k, me] > 0`` that card is one of them and is played now, else ``mine``
    are the cards for the later turns. ``pool``: the cards ``me`` has not seen, ``sizes[p]`` of them
    dealt to each other player (from the current turn on when its card is not fixed, from the next
    turn on when it is). ``public`` (105 flags): the cards everybody has seen."""

    ends: npt.NDArray[np.int64]
    counts: npt.NDArray[np.int64]
    heads: npt.NDArray[np.int64]
    public: npt.NDArray[np.bool_]
    first: npt.NDArray[np.int64]
    fixed: npt.NDArray[np.bool_]
    mine: npt.NDArray[np.int64]
    pool: npt.NDArray[np.int64]
    sizes: npt.NDArray[np.int64]
    me: int


@_jit
def rollouts(start, seats, samples, seed, out, rest):  # type: ignore[no-untyped-def]
    """Complete the round ``samples`` times from each starting point of ``start`` (:class:`Start`),
    player ``p`` playing by its policies in ``seats`` (:class:`Policies`). Each sample shuffles the
    viewer's cards and deals the unseen ``pool``; the same deal serves every candidate (common random
    numbers). ``out[k, s]``: the bullheads ``me`` takes from this point to the end of the round in
    sample ``s`` of candidate ``k``; ``rest[k, s]``: what all the other players take together (the
    same shape as ``out``; any other shape, e.g. (0, 0): not wanted).
    """
    ends0, counts0, heads0, public0 = start.ends, start.counts, start.heads, start.public
    first, fixed, mine, pool, sizes, me = start.first, start.fixed, start.mine, start.pool, start.sizes, start.me
    candidates = first.shape[0]
    players = first.shape[1]
    now_mine = first[0, me] > 0
    turns = mine.shape[0] if now_mine else mine.shape[0] + 1
    for p in range(players):
        if p != me:
            span = sizes[p] + 1 if fixed[p] else sizes[p]
            if span > turns:
                turns = span
    orders = np.zeros((players, turns), np.int64)
    work = np.empty((players, turns), np.int64)
    choices = np.zeros(1, np.int64)
    penalties = np.zeros(players, np.int64)
    scratch = room(players, turns, seats.net)
    ends, counts, heads, public = scratch.ends, scratch.counts, scratch.heads, scratch.public
    cards = pool.copy()
    own = mine.copy()
    need = 0
    for p in range(players):
        if p != me:
            need += sizes[p]
    state = np.uint64(seed)
    keep_rest = rest.shape[0] == out.shape[0] and rest.shape[1] == out.shape[1]
    for s in range(samples):
        state = deal_hand(cards, need, state)
        state = deal_hand(own, own.shape[0], state)
        orders[:, :] = 0
        at = 0
        for p in range(players):
            if p == me:
                offset = 0 if now_mine else 1
                for t in range(own.shape[0]):
                    orders[p, offset + t] = own[t]
            else:
                offset = 1 if fixed[p] else 0
                for t in range(sizes[p]):
                    orders[p, offset + t] = cards[at]
                    at += 1
        for k in range(candidates):
            work[:, :] = orders
            for p in range(players):
                if fixed[p] and p != me:
                    work[p, 0] = first[k, p]
            if now_mine:
                for t in range(turns):
                    if work[me, t] == first[k, me]:
                        work[me, t] = work[me, 0]
                        work[me, 0] = first[k, me]
                        break
            for r in range(4):
                ends[r] = ends0[k, r]
                counts[r] = counts0[k, r]
                heads[r] = heads0[k, r]
            public[:] = public0
            penalties[:] = 0
            state = play_hand(ends, counts, heads, public, work, fixed, choices, seats, penalties, scratch, state)
            out[k, s] = penalties[me]
            if keep_rest:
                rest[k, s] = penalties.sum() - penalties[me]
    return state
