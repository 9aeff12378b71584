"""Every engine of a policy chooses what its bot chooses.

The bots of :mod:`nimmt.bots` are the reference of their policies; the batch kernels play them
compiled, or as plain Python without Numba. Whole hands with heuristic and beginner seats are held
against the bots playing through the step engine in ``tests/batch/test_exact.py``; the learned
network in ``tests/batch/test_net_kernel.py``; the styles of the expert's model in
``tests/bots/test_styles.py``. Here: the heuristic's row choice from any position where a card
waits for a row, on both kernel engines.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.batch import HEURISTIC_LATER
from nimmt.batch import _kernels as K
from nimmt.batch.engine import run_kernel
from nimmt.bots.heuristic import HeuristicBot
from nimmt.core import Phase, PlayCard, View, apply, deal_cards, new_game, view
from tests.conformance.kit import summary


def row_choice_view(seed: int, players: int) -> View | None:
    """The view of the first player who must choose a row in a game of random cards from ``seed``."""
    rng = random.Random(seed)
    state = apply(new_game(players), deal_cards(players, rng)).state
    while state.phase is Phase.CHOOSE_CARDS:
        for player in range(players):
            state = apply(state, PlayCard(player, rng.choice(state.hands[player]))).state
        if state.phase is Phase.CHOOSE_ROW:
            return view(state, state.waiting_for[0])
    return None


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 10))
def test_the_kernels_heuristic_row_is_the_bots(seed: int, players: int) -> None:
    """The kernel's row choice (which plays the rest of the turn out) is the bot's."""
    seen = row_choice_view(seed, players)
    if seen is None:
        return
    assert seen.row_choice_card is not None
    hand = np.array(seen.hand, np.int64)
    public = np.ones(105, np.bool_)
    public[list(seen.unseen_cards())] = False
    public[list(seen.hand)] = False
    still = np.array([c for c, _ in seen.revealed[seen.resolved + 1 :]], np.int64)
    expected = HeuristicBot().choose_row(seen)
    for fn in {K.heuristic_row, getattr(K.heuristic_row, "py_func", K.heuristic_row)}:
        ends, counts, heads = (np.array(x, np.int64) for x in summary(seen.rows))
        cnt, hb = np.empty(K.PREFIX, np.int64), np.empty(K.PREFIX, np.int64)
        run_kernel(K.unseen_prefix, public, cnt, hb)
        work = np.empty(2 * len(hand) + K.HEURISTIC_ROOM, np.int64)
        row = run_kernel(fn, ends, counts, heads, seen.row_choice_card, still, hand, cnt, hb, players - 1,
                         HEURISTIC_LATER, work)
        assert row == expected
