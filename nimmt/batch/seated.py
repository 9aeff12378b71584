"""Rollouts that keep what **each** player takes, for a search that plays for the game's end.

:func:`nimmt.batch.rollout_card_penalties` gives what the viewer takes and, in ``rest``, what the
others take together; near the end of a game what counts is who has the lowest total, so each
player's bullheads are needed apart. :func:`card_seat_penalties` and :func:`row_seat_penalties` give
them, ``(candidates, samples, players)``, from exactly the same rollouts (the same deals, the same
policies, :func:`nimmt.batch._kernels.play_hand`), so ``out[:, :, me]`` is what
``rollout_card_penalties`` would give with the same seed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from nimmt.core import BULLHEADS, View

from . import _kernels as K
from ._base import _jit, deal_hand, room
from ._kernels import Policies, plain_rows, play_hand
from ._plain import play_plain
from .engine import BatchError, _seed, run_kernel
from .rollout import Source, _public, _row_state, _rows_for, _seats, generator

Ints = npt.NDArray[np.int64]


@_jit
def seat_rollouts(start, seats, samples, seed, out):  # type: ignore[no-untyped-def]
    """:func:`nimmt.batch._kernels.rollouts`, keeping each player's bullheads: ``out[k, s, p]`` is what
    player ``p`` takes from this point to the end of the round in sample ``s`` of candidate ``k``."""
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
    scratch = room(players, turns, seats.net)
    work, choices, penalties, owner = scratch.orders, scratch.choices, scratch.penalties, scratch.owner
    ends, counts, heads, public = scratch.ends, scratch.counts, scratch.heads, scratch.public
    plain = plain_rows(seats)
    cards = pool.copy()
    own = mine.copy()
    need = 0
    for p in range(players):
        if p != me:
            need += sizes[p]
    state = np.uint64(seed)
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
            penalties[:] = 0
            if plain >= 0:
                state = play_plain(ends, counts, heads, work, choices, plain, penalties, owner, state)
            else:
                public[:] = public0
                state = play_hand(ends, counts, heads, public, work, fixed, choices, seats, penalties, scratch, state)
            for p in range(players):
                out[k, s, p] = penalties[p]
    return state


def _run(view: View, ends0: Ints, counts0: Ints, heads0: Ints, first: Ints, fixed: npt.NDArray[np.bool_],
         samples: int, rng: np.random.Generator, policy: str | Policies) -> Ints:
    assert view.player is not None
    me = view.player
    seats = _seats(policy, view.players)
    if isinstance(samples, bool) or not isinstance(samples, int | np.integer) or samples < 1:
        raise BatchError(f"samples must be a whole number from 1 up, not {samples!r}")
    pool = np.array(view.unseen_cards(), np.int64)
    sizes = np.array([0 if p == me else size for p, size in enumerate(view.hand_sizes)], np.int64)
    if sizes.sum() > pool.size:
        raise BatchError(f"this view is impossible: {sizes.sum()} unseen cards are needed, {pool.size} exist")
    start = K.Start(ends0, counts0, heads0, _public(view), first, fixed, np.array(view.hand, np.int64), pool, sizes,
                    me)
    out = np.zeros((first.shape[0], samples, view.players), np.int64)
    run_kernel(seat_rollouts, start, seats, samples, _seed(rng), out)
    return out


def card_seat_penalties(view: View, cards: Sequence[int], samples: int, rng: Source,
                        policy: str | Policies = "heuristic") -> Ints:
    """(len(cards), samples, players): what each player takes from now to the end of the round when
    the viewer plays each of ``cards`` now (see :func:`nimmt.batch.rollout_card_penalties`)."""
    if view.player is None or not view.must_play_card:
        raise BatchError("rollouts of a card need the view of a player who must play a card now")
    me = view.player
    chosen = tuple(cards)
    missing = [c for c in chosen if c not in view.hand]
    if missing or not chosen:
        raise BatchError(f"cards to try must be in the hand {tuple(view.hand)}, not {missing or 'none'}")
    ends, counts, heads = _row_state(view.rows)
    k = len(chosen)
    first = np.zeros((k, view.players), np.int64)
    first[:, me] = chosen
    fixed = np.zeros(view.players, np.bool_)
    fixed[me] = True
    return _run(view, _rows_for(ends, k), _rows_for(counts, k), _rows_for(heads, k), first, fixed, samples,
                generator(rng), policy)


def row_seat_penalties(view: View, samples: int, rng: Source, policy: str | Policies = "heuristic") -> Ints:
    """(4, samples, players): what each player takes from now to the end of the round, the taken
    row's bullheads counted for the viewer, when its low card takes row 0, 1, 2 or 3 (see
    :func:`nimmt.batch.rollout_row_penalties`)."""
    if view.player is None or not view.must_choose_row or view.row_choice_card is None:
        raise BatchError("rollouts of a row need the view of a player who must choose a row now")
    card = view.row_choice_card
    ends, counts, heads = _row_state(view.rows)
    now = heads.copy()
    ends0, counts0, heads0 = _rows_for(ends, 4), _rows_for(counts, 4), _rows_for(heads, 4)
    for row in range(4):
        ends0[row, row] = card
        counts0[row, row] = 1
        heads0[row, row] = BULLHEADS[card]
    first = np.zeros((4, view.players), np.int64)
    for c, p in view.revealed[view.resolved + 1 :]:
        first[:, p] = c
    fixed = np.ones(view.players, np.bool_)
    out = _run(view, ends0, counts0, heads0, first, fixed, samples, generator(rng), policy)
    out[:, :, view.player] += now[:, None]
    return out


__all__ = ["card_seat_penalties", "row_seat_penalties", "seat_rollouts"]
