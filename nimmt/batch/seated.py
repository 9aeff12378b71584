"""Rollouts that keep what **each** player takes, for a search that plays for the game's end.

:func:`nimmt.batch.rollout_card_penalties` gives what the viewer takes and, in ``rest``, what the
others take together; near the end of a game what counts is who has the lowest total, so each
player's bullheads are needed apart. :func:`card_seat_penalties` and :func:`row_seat_penalties` give
them, ``(candidates, samples, players)``, from exactly the same rollouts (the same deals, the same
policies, :func:`nimmt.batch._kernels.rollouts`, which keeps each player's share), so ``out[:, :, me]`` is what
``rollout_card_penalties`` would give with the same seed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from nimmt.core import BULLHEADS, View

from . import _kernels as K
from ._kernels import Policies
from .engine import BatchError, _seed, run_kernel
from .rollout import Source, _public, _row_state, _rows_for, _seats, generator

Ints = npt.NDArray[np.int64]


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
    run_kernel(K.rollouts, start, seats, 0, samples, _seed(rng), False, out)
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


__all__ = ["card_seat_penalties", "row_seat_penalties"]
