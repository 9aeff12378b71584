"""The batch kernels' ``play_hand``, held against the rules core from any moment of a round (where
rollouts start), and ``heuristic_row``'s play-out of the turn against the heuristic bot (here, and
in ``test_exact.py``). Whole hands, the NumPy path and the pure-Python engines are in
``tests/conformance``; the vector environment's tables against the AEC environment
(``tests/envs/test_vector_env.py``)."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.batch import HAVE_NUMBA, HEURISTIC_LATER
from nimmt.batch import _kernels as K
from nimmt.batch.engine import run_kernel
from nimmt.bots.heuristic import HeuristicBot
from nimmt.core import Phase, PlayCard, View, apply, deal_cards, new_game, view
from tests.conformance.kit import Turn, summary, turns

ENGINES = ["numpy", *(["numba"] if HAVE_NUMBA else [])]


@settings(max_examples=300, deadline=None)
@given(turns)
def test_play_hand_places_like_the_core_from_any_moment(turn: Turn) -> None:
    ends, counts, heads = (np.array(x, np.int64) for x in summary(turn.rows))
    players = turn.players
    orders = np.array([[c] for c in turn.cards], np.int64)
    choices = np.array([*turn.choices, 0], np.int64)
    penalties = np.zeros(players, np.int64)
    policies = np.zeros(players, np.int64)  # cards in the given order, rows as given
    run_kernel(K.play_hand, ends, counts, heads, orders, np.zeros(players, np.bool_), np.zeros(105, np.bool_),
               choices, policies, policies, 0.0, 0.0, penalties, np.empty(212 + 2 * players, np.int64),
               np.uint64(1), np.zeros(2, np.float32))
    assert [ends.tolist(), counts.tolist(), heads.tolist()] == list(summary(turn.rows_after))
    assert penalties.tolist() == turn.taken


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
def test_heuristic_row_plays_the_turn_out_like_the_bot(seed: int, players: int) -> None:
    """The kernel's row choice (which plays the rest of the turn out inline) is the bot's, whose
    play-out is held against the core in tests/bots/test_placement_copies.py."""
    seen = row_choice_view(seed, players)
    if seen is None:
        return
    assert seen.row_choice_card is not None
    ends, counts, heads = (np.array(x, np.int64) for x in summary(seen.rows))
    hand = np.array(seen.hand, np.int64)
    public = np.ones(105, np.bool_)
    public[list(seen.unseen_cards())] = False
    public[list(seen.hand)] = False
    cnt, hb = np.empty(106, np.int64), np.empty(106, np.int64)
    run_kernel(K.unseen_prefix, public, cnt, hb)
    still = np.array([c for c, _ in seen.revealed[seen.resolved + 1 :]], np.int64)
    work = np.empty(2 * len(hand) + 19, np.int64)
    row = run_kernel(K.heuristic_row, ends, counts, heads, seen.row_choice_card, still, hand, cnt, hb, players - 1,
                     HEURISTIC_LATER, work)
    assert row == HeuristicBot().choose_row(seen)
