"""The review's rollouts (:mod:`nimmt.review`): :func:`nimmt.batch._kernels.rollouts` with fully common
random numbers (``common``). Sample ``s`` draws from a state of its own (``seed`` and ``s``), and every candidate of
that sample plays from the same state after the deal: the same deal and the same draws of every
noisy style (``mc``, ``random``) for every option, so the paired differences between options lose
the noise of those draws, and a sample's numbers do not depend on which other candidates were played.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from nimmt.core import BULLHEADS, View

from ._kernels import Policies, Start, rollouts
from .engine import run_kernel

Ints = npt.NDArray[np.int64]


def review_penalties(view: View, kind: str, labels: Sequence[int], first_sample: int, samples: int, seed: int,
              seats: Policies) -> Ints:
    """(len(labels), samples): the bullheads ``view.player`` takes to the end of the round with each of
    ``labels`` (cards of the hand; rows for ``kind`` "row": each row's own bullheads included), in
    samples ``first_sample`` on of ``seed`` (:func:`nimmt.batch._kernels.rollouts`, ``common``), each seat
    playing by ``seats``."""
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
    each = np.zeros((k, samples, view.players), np.int64)
    start = Start(ends0, counts0, heads0, _public(view), first, fixed, mine, pool, sizes, me)
    run_kernel(rollouts, start, seats, first_sample, samples, np.uint64(seed), True, each)
    return each[:, :, me] + now[:, None]
