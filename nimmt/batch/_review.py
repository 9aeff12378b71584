"""The review's rollouts (:mod:`nimmt.review`): :func:`nimmt.batch._kernels.rollouts` with fully common
random numbers. Sample ``s`` draws from a state of its own (``seed`` and ``s``), and every candidate of
that sample plays from the same state after the deal: the same deal and the same draws of every
noisy style (``mc``, ``random``) for every option, so the paired differences between options lose
the noise of those draws, and a sample's numbers do not depend on which other candidates were played.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from nimmt.core import BULLHEADS, View

from ._base import _jit, deal_hand, room
from ._kernels import Policies, Start, plain_rows, play_hand, play_plain
from .engine import run_kernel

Ints = npt.NDArray[np.int64]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)


@_jit
def sample_state(seed, s):  # type: ignore[no-untyped-def]
    """The random state of sample ``s`` of ``seed``: SplitMix64's mix of the two."""
    z = seed + np.uint64(s + 1) * _GOLDEN
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@_jit
def review_rollouts(start, seats, first_sample, samples, seed, out):  # type: ignore[no-untyped-def]
    """As :func:`nimmt.batch._kernels.rollouts` (``start``: a :class:`~nimmt.batch._kernels.Start`), for
    samples ``first_sample`` to ``first_sample + samples - 1``, each from its own state
    (:func:`sample_state`); ``out[k, s]``: the bullheads ``me`` takes in the s-th of them with candidate k."""
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
    need = 0
    for p in range(players):
        if p != me:
            need += sizes[p]
    for s in range(samples):
        cards = pool.copy()  # the same deal for sample s whatever came before it
        own = mine.copy()
        state = sample_state(seed, first_sample + s)
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
                play_plain(ends, counts, heads, work, choices, plain, penalties, owner, state)
            else:
                public[:] = public0
                play_hand(ends, counts, heads, public, work, fixed, choices, seats, penalties, scratch, state)
            out[k, s] = penalties[me]


def review_penalties(view: View, kind: str, labels: Sequence[int], first_sample: int, samples: int, seed: int,
              seats: Policies) -> Ints:
    """(len(labels), samples): the bullheads ``view.player`` takes to the end of the round with each of
    ``labels`` (cards of the hand; rows for ``kind`` "row": each row's own bullheads included), in
    samples ``first_sample`` on of ``seed`` (:func:`review_rollouts`), each seat playing by ``seats``."""
    from .rollout import _public, _row_state, _rows_for

    assert view.player is not None
    me = view.player
    ends, counts, heads = _row_state(view.rows)
    k = len(labels)
    first = np.zeros((k, view.players), np.int64)
    now = np.zeros(k, np.int64)
    if kind == "card":
        ends0, counts0, heads0 = _rows_for(ends, k), _rows_for(counts, k), _rows_for(heads, k)
        first[:, me] = labels
        fixed = np.zeros(view.players, np.bool_)
        fixed[me] = True
    else:
        card = view.row_choice_card
        assert card is not None
        ends0, counts0, heads0 = _rows_for(ends, k), _rows_for(counts, k), _rows_for(heads, k)
        for i, row in enumerate(labels):
            ends0[i, row] = card
            counts0[i, row] = 1
            heads0[i, row] = BULLHEADS[card]
            now[i] = heads[row]
        for c, p in view.revealed[view.resolved + 1 :]:
            first[:, p] = c
        fixed = np.ones(view.players, np.bool_)
    pool = np.array(view.unseen_cards(), np.int64)
    sizes = np.array([0 if p == me else size for p, size in enumerate(view.hand_sizes)], np.int64)
    mine = np.array(view.hand, np.int64)
    out = np.zeros((k, samples), np.int64)
    start = Start(ends0, counts0, heads0, _public(view), first, fixed, mine, pool, sizes, me)
    run_kernel(review_rollouts, start, seats, first_sample, samples, np.uint64(seed), out)
    return out + now[:, None]
