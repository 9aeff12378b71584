"""The kernels that play any policy: :func:`play_hand` (one hand from any position, every seat by
its own policies), the game loops over it, and the rollouts of the search bots.

Orders are ``(players, turns)`` arrays of cards, ``orders[p, t]`` being the card player ``p`` plays
in turn ``t``; a 0 means "no card" (a player whose card of the first turn was already placed when a
rollout starts). What the kernels take comes in named structures: :class:`Policies` (how each
seat plays), :class:`Room` (scratch space), :class:`Tally` (what whole games give) and
:class:`Start` (where rollouts start). The parts live in :mod:`._base` (shared), :mod:`._choices`
(the policies' choices) and :mod:`._plain` (random play's hot loop); this module gathers them.
A plain table, where every seat plays its cards in the order given (a random order is random play),
is played through the hot loop :func:`play_plain` (by :func:`hands`, :func:`rollouts` and the loops
of :mod:`._plain`), any other through :func:`play_hand`: the same hands, card for card.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ._base import (
    _GOLDEN,
    _MIX1,
    _MIX2,
    _S27,
    _S30,
    _S31,
    BULL,
    CHANCES,
    HAVE_NUMBA,
    HEURISTIC_FEW,
    HEURISTIC_LOOK,
    HEURISTIC_ROOM,
    MC_CARD,
    MC_COST,
    PREFIX,
    CardPolicy,
    Room,
    RowPolicy,
    Tally,
    _jit,
    _jit_inline,
    bare,
    bare_room,
    below,
    deal_hand,
    fewest,
    lay,
    place_fewest,
    room,
    tally,
    target,
    unseen_prefix,
    whole_games,
)
from ._choices import (
    NET_CARD_FEATURES,
    NET_TAKE_ROW,
    beginner_card,
    heuristic_card,
    heuristic_pick,
    heuristic_row,
    mc_card,
    mc_pick,
    net_card,
    net_choice,
    net_draw,
    net_draws,
)
from ._plain import deal_many, plain_dealt, plain_games, plain_hands, play_plain

__all__ = [
    "HAVE_NUMBA", "HEURISTIC_FEW", "HEURISTIC_LOOK", "HEURISTIC_ROOM", "MC_CARD", "MC_COST", "NET_CARD_FEATURES",
    "NET_TAKE_ROW", "PREFIX", "CardPolicy", "Policies", "Room", "RowPolicy", "Start", "Tally", "below",
    "deal_hand", "deal_many", "fewest", "games", "hands", "heuristic_card", "heuristic_row", "lay", "mc_card",
    "net_choice", "net_draw", "net_draws", "place_fewest", "plain_games", "plain_hands", "plain_rows", "play_hand",
    "play_plain", "policies",
    "rollouts", "room", "sample_state", "tally", "target", "unseen_prefix",
]


class Policies(NamedTuple):
    """How each seat plays, as the kernels take it (:func:`policies` makes one with the right types)."""

    cards: npt.NDArray[np.int64]  # the CardPolicy of each seat
    rows: npt.NDArray[np.int64]  # the RowPolicy of each seat
    tie: float  # HEURISTIC_TIE, for the seats that play like it
    later: float  # HEURISTIC_LATER, for the seats that take rows like it
    net: npt.NDArray[np.float32]  # the learned network's weights (Net.flat) for NET seats, else 2 zeros
    chances: npt.NDArray[np.float64]  # the heuristic's chances once computed: _base.CHANCES, shared


def policies(cards: Any, rows: Any, tie: float = 0.0, later: float = 0.0, net: Any = None) -> Policies:
    """:class:`Policies` with the types the kernels are compiled for (other types would compile again)."""
    return Policies(
        np.ascontiguousarray(cards, np.int64), np.ascontiguousarray(rows, np.int64), float(tie), float(later),
        np.zeros(2, np.float32) if net is None else np.ascontiguousarray(net, np.float32), CHANCES,
    )


@_jit_inline
def plain_rows(seats):  # type: ignore[no-untyped-def]
    """The row policy of a plain table, where every seat plays its cards in the order given and takes
    rows alike (given, at random or by the fewest bullheads): random play's hot loop plays it
    (:func:`play_plain`); -1 for any other table (:func:`play_hand`)."""
    rows = seats.rows
    first = rows[0]
    if first == RowPolicy.HEURISTIC:
        return -1
    for p in range(rows.shape[0]):
        if seats.cards[p] != CardPolicy.ORDER or rows[p] != first:
            return -1
    return first


@_jit_inline
def _uses(cards, rows):  # type: ignore[no-untyped-def]
    """(looking, choosing, marking): some card policy of ``cards`` looks at the table, some chooses at
    all, and the public cards are wanted (by a policy that looks, or by the heuristic's row choice)."""
    looking = False
    choosing = False
    marking = False
    for p in range(cards.shape[0]):
        cp = cards[p]
        if (cp == CardPolicy.HEURISTIC or cp == CardPolicy.SNUG or cp == CardPolicy.MC or cp == CardPolicy.NET
                or cp == CardPolicy.NET_DRAWN):
            looking = True
        if cp != CardPolicy.ORDER:
            choosing = True
        if rows[p] == RowPolicy.HEURISTIC:
            marking = True
    return looking, choosing, looking or marking


@_jit_inline
def _move_picks(orders, t, picks):  # type: ignore[no-untyped-def]
    """Move each player's chosen card (``picks[p]``, a place in ``orders[p, t:]``; -1: none) to turn t."""
    for p in range(orders.shape[0]):
        if picks[p] > 0:
            i = t + picks[p]
            c = orders[p, i]
            orders[p, i] = orders[p, t]
            orders[p, t] = c


@_jit_inline
def _reveal(orders, t, keys, public, marking):  # type: ignore[no-untyped-def]
    """Turn ``t``'s cards as ``keys`` (card * 16 + player), lowest first, and public when ``marking``;
    returns how many there are (a player may have none)."""
    n = 0
    for p in range(orders.shape[0]):
        c = orders[p, t]
        if c > 0:
            key = c * 16 + p
            i = n
            while i > 0 and keys[i - 1] > key:
                keys[i] = keys[i - 1]
                i -= 1
            keys[i] = key
            n += 1
            if marking:
                public[c] = True
    return n


@_jit
def _heuristic_low(ends, counts, heads, keys, i, n, hand, cnt, hb, opponents, later, work, room, chances):  # type: ignore[no-untyped-def]
    """The row the heuristic takes for the low card ``keys[i]``, the turn's cards after it still to be
    placed and ``hand`` its player's later cards (a call of its own: the heuristic's helpers are
    inlined once, here, not once more into every routine that places a turn). ``room``: the
    :class:`Room`'s ``still``."""
    for j in range(i + 1, n):
        room[j - i - 1] = keys[j] >> 4
    return heuristic_row(ends, counts, heads, keys[i] >> 4, room[: n - i - 1], hand, cnt, hb, opponents, later, work,
                         chances)


@_jit_inline
def _place_turn(ends, counts, heads, public, orders, t, keys, n, choices, event, rows, later, penalties, cnt, hb,  # type: ignore[no-untyped-def]
                work, still, chances, state):
    """Place turn ``t``'s ``n`` revealed cards (``keys``), lowest first, adding the bullheads each
    player takes to ``penalties``; a card below every row takes the row its player's row policy
    (``rows[p]``) picks: ``choices[event]`` for the event-th such card of the hand when given, or the
    heuristic's (``later``: its weight, ``cnt``/``hb``/``work``: its room). Returns (state, event)."""
    counted = False  # unseen_prefix holds this turn's cards
    for i in range(n):
        card = keys[i] >> 4
        p = keys[i] & 15
        r = target(ends, card)
        low = r < 0
        if low:
            rp = rows[p]
            if rp == RowPolicy.GIVEN:
                r = choices[event]
            elif rp == RowPolicy.RANDOM:
                state, r = below(state, 4)
            elif rp == RowPolicy.FEWEST:
                r = fewest(heads)
            else:
                if not counted:
                    unseen_prefix(public, cnt, hb)
                    counted = True
                r = _heuristic_low(ends, counts, heads, keys, i, n, orders[p, t + 1 :], cnt, hb, orders.shape[0] - 1,
                                   later, work, still, chances)
            event += 1
        penalties[p] += lay(ends, counts, heads, r, card, low, BULL)
    return state, event


@_jit
def play_hand(ends, counts, heads, public, orders, fixed, choices, seats, penalties, room, state):  # type: ignore[no-untyped-def]
    """Play ``orders`` (players, turns) from the rows ``ends``/``counts``/``heads`` (changed in place)
    and add each player's bullheads to ``penalties``. Returns the random state.

    ``seats``: each player's card and row policy (:class:`Policies`; seats may differ).
    ``fixed[p]``: player p's card of the first turn is given whatever its card policy (a rollout's
    candidate card, or cards already revealed). ``public`` (105 flags) marks the cards everybody has
    seen; it is kept up to date only when a policy looks at the table. ``choices`` holds the rows of
    the low cards, in order, for RowPolicy.GIVEN. ``room``: :func:`room` for these players and turns.

    The card policies are dispatched here, not in a helper: Numba inlines the heuristic's and the
    network's helpers into the routine that calls them, and once more into each routine that inlines
    that one (a compile twice as long).
    """
    players = orders.shape[0]
    # Every array bare (no reference counts: the caller holds them while this runs), every field read once.
    ends, counts, heads, public, orders = bare(ends), bare(counts), bare(heads), bare(public), bare(orders)
    fixed, choices, penalties = bare(fixed), bare(choices), bare(penalties)
    keys, picks, cnt, hb, work, costs = bare(room.keys), bare(room.picks), bare(room.cnt), bare(room.hb), \
        bare(room.work), bare(room.costs)
    targets, feats, x, h1, h2 = bare(room.targets), bare(room.feats), bare(room.x), bare(room.h1), bare(room.h2)
    still = bare(room.still)
    cards, rows, tie, later, net = bare(seats.cards), bare(seats.rows), seats.tie, seats.later, bare(seats.net)
    chances = bare(seats.chances)
    looking, choosing, marking = _uses(cards, rows)
    opponents = players - 1
    event = 0
    for t in range(orders.shape[1]):
        if choosing:  # everybody chooses from the same rows
            if looking:
                unseen_prefix(public, cnt, hb)
            for p in range(players):
                picks[p] = -1
                if (t > 0 or not fixed[p]) and orders[p, t] > 0:
                    cp = cards[p]
                    if cp == CardPolicy.HEURISTIC:
                        picks[p] = heuristic_card(ends, counts, heads, orders[p, t:], cnt, hb, opponents, tie, work,
                                                  costs, chances)
                    elif cp == CardPolicy.BEGINNER:
                        picks[p] = beginner_card(ends, counts, orders[p, t:])
                    elif cp == CardPolicy.SNUG:
                        picks[p] = heuristic_pick(ends, counts, heads, orders[p, t:], cnt, hb, opponents, tie, work,
                                                  costs, False, True, chances)
                    elif cp == CardPolicy.MC:
                        state, picks[p] = mc_pick(ends, counts, heads, orders[p, t:], cnt, hb, opponents, work,
                                                  costs, state, chances)
                    elif cp == CardPolicy.NET:
                        picks[p] = net_card(ends, counts, heads, orders[p, t:], cnt, hb, opponents, tie, work, costs,
                                            targets, net, feats, x, h1, h2, chances)
                    elif cp == CardPolicy.NET_DRAWN:
                        state, picks[p] = net_draw(ends, counts, heads, orders[p, t:], cnt, hb, opponents, tie, work,
                                                   costs, targets, net, feats, x, h1, h2, chances, state)
            _move_picks(orders, t, picks)
        n = _reveal(orders, t, keys, public, marking)
        state, event = _place_turn(ends, counts, heads, public, orders, t, keys, n, choices, event, rows, later,
                                   penalties, cnt, hb, work, still, chances, state)
    return state


@_jit_inline
def _play_dealt(deck, ends, counts, heads, owner, players, turns, seats, choices, penalties, room, state):  # type: ignore[no-untyped-def]
    """Play the hand dealt at the front of ``deck`` (the 4 rows, then player p's card of turn t at
    4 + t * players + p) from fresh rows ``ends``/``counts``/``heads`` (``room``'s) with
    :func:`play_hand`; the arguments of :func:`plain_dealt` (``owner`` not used). Returns the random
    state."""
    public, orders = room.public, room.orders
    public[:] = False
    for r in range(4):
        c = deck[r]
        ends[r] = c
        counts[r] = 1
        heads[r] = BULL[c]
        public[c] = True
    orders[:, :] = deck[4 : 4 + turns * players].reshape((turns, players)).T  # play_hand moves chosen cards
    return play_hand(ends, counts, heads, public, orders, room.fixed, choices, seats, penalties, room, state)


@_jit
def hands(rows, orders, choices, seats, seed, penalties):  # type: ignore[no-untyped-def]
    """Play one hand per deal, seat by seat as ``seats`` says (:class:`Policies`): rows (B, 4), orders
    (B, players, turns), choices (B, events) for RowPolicy.GIVEN (else (B, 1)); penalties (B, players)
    receives the bullheads. A plain table (:func:`plain_rows`) plays through random play's hot loop.
    Returns the random state."""
    count, players, turns = orders.shape
    scratch = room(players, turns, seats.net)
    deck, ends, counts, heads, owner = scratch.deck, scratch.ends, scratch.counts, scratch.heads, scratch.owner
    plain = plain_rows(seats)
    state = np.uint64(seed)
    for b in range(count):
        for r in range(4):
            deck[r] = rows[b, r]
        for p in range(players):
            for t in range(turns):
                deck[4 + t * players + p] = orders[b, p, t]
        if plain >= 0:
            state = plain_dealt(deck, ends, counts, heads, owner, players, turns, plain, choices[b], penalties[b],
                                scratch, state)
        else:
            state = _play_dealt(deck, ends, counts, heads, owner, players, turns, seats, choices[b], penalties[b],
                                scratch, state)
    return state


@_jit
def games(players, count, end_above, rounds, seats, seed, tally):  # type: ignore[no-untyped-def]
    """Play ``count`` whole games, each seat by its policies in ``seats`` (:class:`Policies`), as
    ``nimmt simulate`` plays them: rounds until a total is above ``end_above`` (or exactly ``rounds``
    rounds when rounds > 0), into the :class:`Tally`. Hands are games of one round. A table of random
    play is faster through :func:`plain_games` (the same games, card for card: the same loop,
    :func:`whole_games`, compiled for the hot loop)."""
    return whole_games(_play_dealt, seats, room(players, 10, seats.net), players, count, end_above, rounds, seed,
                       tally)


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


@_jit_inline
def sample_state(seed, s):  # type: ignore[no-untyped-def]
    """The random state of sample ``s`` of ``seed``: SplitMix64's mix of the two."""
    z = seed + np.uint64(s + 1) * _GOLDEN
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@_jit_inline
def _span(start):  # type: ignore[no-untyped-def]
    """(turns, need): the turns a rollout from ``start`` plays, and how many unseen cards it deals."""
    first, fixed, mine, sizes, me = start.first, start.fixed, start.mine, start.sizes, start.me
    turns = mine.shape[0] if first[0, me] > 0 else mine.shape[0] + 1
    need = 0
    for p in range(first.shape[1]):
        if p != me:
            span = sizes[p] + 1 if fixed[p] else sizes[p]
            if span > turns:
                turns = span
            need += sizes[p]
    return turns, need


@_jit_inline
def _deal_sample(cards, own, need, sizes, fixed, me, now_mine, orders, state):  # type: ignore[no-untyped-def]
    """Deal one sample into ``orders`` (players, turns): ``need`` of the unseen ``cards`` to the other
    players (``sizes[p]`` each, from the next turn on where ``fixed[p]``), the viewer's ``own`` cards
    shuffled (from the next turn on unless ``now_mine``). Returns the random state."""
    state = deal_hand(cards, need, state)
    state = deal_hand(own, own.shape[0], state)
    orders[:, :] = 0
    at = 0
    for p in range(orders.shape[0]):
        if p == me:
            offset = 0 if now_mine else 1
            for t in range(own.shape[0]):
                orders[p, offset + t] = own[t]
        else:
            offset = 1 if fixed[p] else 0
            for t in range(sizes[p]):
                orders[p, offset + t] = cards[at]
                at += 1
    return state


@_jit_inline
def _set_candidate(start, k, now_mine, orders, work, ends, counts, heads, penalties):  # type: ignore[no-untyped-def]
    """Candidate ``k`` of ``start`` on the sample dealt in ``orders``: its cards of this turn in
    ``work`` (the viewer's candidate card moved to the first turn), its rows, no penalties yet."""
    first, fixed, me = start.first, start.fixed, start.me
    work[:, :] = orders
    for p in range(orders.shape[0]):
        if fixed[p] and p != me:
            work[p, 0] = first[k, p]
    if now_mine:
        for t in range(orders.shape[1]):
            if work[me, t] == first[k, me]:
                work[me, t] = work[me, 0]
                work[me, 0] = first[k, me]
                break
    for r in range(4):
        ends[r] = start.ends[k, r]
        counts[r] = start.counts[k, r]
        heads[r] = start.heads[k, r]
    penalties[:] = 0


@_jit
def _rollouts(start, seats, first_sample, samples, seed, common, each, orders, scratch, cards, own):  # type: ignore[no-untyped-def]
    """:func:`rollouts`, its room made: ``orders`` (players, turns), ``scratch`` (:func:`room`), and
    ``cards``/``own`` copies of the pool and of the viewer's cards. Every array bare: the caller holds
    them while this runs."""
    start = Start(bare(start.ends), bare(start.counts), bare(start.heads), bare(start.public), bare(start.first),
                  bare(start.fixed), bare(start.mine), bare(start.pool), bare(start.sizes), start.me)
    seats = Policies(bare(seats.cards), bare(seats.rows), seats.tie, seats.later, bare(seats.net), bare(seats.chances))
    scratch = bare_room(scratch)
    each, orders, cards, own = bare(each), bare(orders), bare(cards), bare(own)
    pool, mine, sizes, fixed, me, public0 = start.pool, start.mine, start.sizes, start.fixed, start.me, start.public
    work, choices, penalties, owner = scratch.orders, scratch.choices, scratch.penalties, scratch.owner
    ends, counts, heads, public = scratch.ends, scratch.counts, scratch.heads, scratch.public
    candidates = start.first.shape[0]
    players = orders.shape[0]
    now_mine = start.first[0, me] > 0
    need = _span(start)[1]
    plain = plain_rows(seats)
    state = np.uint64(seed)
    for s in range(samples):
        if common:  # the same deal for sample s whatever came before it
            cards[:] = pool
            own[:] = mine
            state = sample_state(seed, first_sample + s)
        state = _deal_sample(cards, own, need, sizes, fixed, me, now_mine, orders, state)
        dealt = state
        for k in range(candidates):
            _set_candidate(start, k, now_mine, orders, work, ends, counts, heads, penalties)
            if common:
                state = dealt
            if plain >= 0:
                state = play_plain(ends, counts, heads, work, choices, plain, penalties, owner, state)
            else:
                public[:] = public0
                state = play_hand(ends, counts, heads, public, work, fixed, choices, seats, penalties, scratch, state)
            for p in range(players):
                each[k, s, p] = penalties[p]
    return state


@_jit
def rollouts(start, seats, first_sample, samples, seed, common, each):  # type: ignore[no-untyped-def]
    """Complete the round ``samples`` times from each starting point of ``start`` (:class:`Start`),
    player ``p`` playing by its policies in ``seats`` (:class:`Policies`): ``each[k, s, p]`` gets the
    bullheads player ``p`` takes from this point to the end of the round in sample ``s`` of candidate
    ``k``. Each sample deals the unseen ``pool`` and shuffles the viewer's cards; the same deal serves
    every candidate (common random numbers). The one rollout kernel: the search bots', the seated
    ones (:mod:`nimmt.batch.seated`) and the review's (:mod:`nimmt.batch._review`).

    Without ``common``, one random state runs from sample to sample and from candidate to candidate,
    from ``seed`` (returned at the end). With ``common`` (the review), sample s (numbered from
    ``first_sample``) draws from a state of its own (:func:`sample_state` of ``seed`` and s), and every
    candidate plays from the same state after the deal: the same deal and the same draws of every noisy
    policy for every candidate, whichever other candidates or samples are played beside it.
    """
    players = start.first.shape[1]
    turns = _span(start)[0]
    return _rollouts(start, seats, first_sample, samples, seed, common, each, np.zeros((players, turns), np.int64),
                     room(players, turns, seats.net), start.pool.copy(), start.mine.copy())
