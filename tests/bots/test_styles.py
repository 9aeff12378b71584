"""Styles of play: the expert's per-player model, and rollouts in which each seat keeps its style."""

from __future__ import annotations

import random

import numpy as np
import pytest

from nimmt.batch import rollout_card_penalties, rollout_row_penalties
from nimmt.bots import Bot, make_bot
from nimmt.bots.beginner import BeginnerBot
from nimmt.bots.opponents import OpponentModel
from nimmt.bots.styles import STYLES, seat_card_penalties, seat_row_penalties, seats_of, style_choice
from nimmt.core import DECK, Deal, PlayCard, Rules, View, apply, new_game, view
from nimmt.match import play_game


def start_view(seed: int, players: int) -> View:
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    hands = tuple(tuple(sorted(deck[4 + 10 * p : 14 + 10 * p])) for p in range(players))
    return view(apply(new_game(players), Deal(tuple(deck[:4]), hands)).state, 0)


@pytest.mark.parametrize("players", [2, 4])
def test_seats_all_in_the_heuristic_style_roll_out_like_a_heuristic_table(players: int) -> None:
    v = start_view(players, players)
    table = rollout_card_penalties(v, None, 40, np.random.default_rng(1), "heuristic")
    seats = seat_card_penalties(v, list(v.hand), 40, np.random.default_rng(1), seats_of(["heuristic"] * players))
    np.testing.assert_array_equal(seats, table)


def test_row_rollouts_by_seat_match_the_table_ones_too() -> None:
    # Every row ends above 89: the lowest card of the turn (player 0's 5) must take a row.
    hands = (tuple(range(1, 11)), tuple(range(11, 21)), tuple(range(21, 31)))
    state = apply(new_game(3), Deal((90, 91, 92, 93), hands)).state
    for p, card in enumerate((5, 15, 25)):
        state = apply(state, PlayCard(p, card)).state
    v = view(state, 0)
    assert v.must_choose_row
    table = rollout_row_penalties(v, 30, np.random.default_rng(2), "heuristic")
    seats = seat_row_penalties(v, 30, np.random.default_rng(2), seats_of(["heuristic"] * 3))
    np.testing.assert_array_equal(seats, table)


def test_each_style_chooses_its_own_card() -> None:
    rows = ((10,), (20,), (30,), (40, 41, 42, 43, 44))
    hand = (5, 21, 33, 45)  # 45 is a sixth card, 5 is below every row
    assert style_choice("heuristic", rows, hand, (), 4) == 33  # safe cards: the highest
    assert style_choice("snug", rows, hand, (), 4) == 21  # safe cards: the snuggest fit
    assert style_choice("random", rows, hand, (), 4) is None


def posterior_after_a_game(opponent: str, seed: int) -> dict[str, float]:
    """The model's mean posterior over the three opponents after two rounds against them."""
    model = OpponentModel(random.Random(3))

    class Watcher(BeginnerBot):
        def choose_card(self, view: View) -> int:
            model.observe(view)
            return super().choose_card(view)

    bots: list[Bot] = [Watcher(random.Random(0))] + [make_bot(opponent, random.Random(i)) for i in (1, 2, 3)]
    play_game(bots, random.Random(seed), Rules(rounds=2))
    return {s: sum(model.posterior(p)[s] for p in (1, 2, 3)) / 3 for s in STYLES}


@pytest.mark.parametrize(
    ("opponent", "style"),
    [("field:risk", "snug"), ("field:safe", "snug"), ("heuristic", "heuristic")],
)
def test_the_model_tells_the_styles_of_the_field_apart(opponent: str, style: str) -> None:
    post = posterior_after_a_game(opponent, 8)
    assert max(post, key=post.__getitem__) == style, post


def test_a_player_not_seen_yet_has_the_prior() -> None:
    model = OpponentModel(random.Random(1))
    assert model.posterior(2) == pytest.approx(OpponentModel.PRIOR)
    assert model.heuristic_share == 0.5
