"""The policies: written once (the kernels of ``nimmt/batch/_choices.py``), run three ways, held to
what can be computed by hand.

The three ways: the compiled entries (Numba) and the plain-Python twin on lists that the bots use
before the kernels are prepared and without Numba (:mod:`nimmt.batch.decide`), held together here
on positions reached by play at 2 to 10 players; and the whole-table kernels (compiled, or plain
Python on NumPy arrays in the NumPy engine), whose whole hands of heuristic and beginner seats are
held against the bots playing through the step engine in ``tests/batch/test_exact.py`` and
``tests/batch/test_without_numba.py``, the network's seats in ``tests/batch/test_net_kernel.py``.

What the policies compute is held to positions worked out by hand and to properties that follow
from the rules (a card with no unseen card to fear costs exactly what the rules make it take).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.batch import HAVE_NUMBA, decide
from nimmt.bots.heuristic import HeuristicBot
from nimmt.bots.learned import CARD_FEATURES, LearnedBot, card_features
from nimmt.core import ROW_LIMIT, ChooseRow, Phase, PlayCard, View, apply, deal_cards, new_game, row_bullheads, view
from nimmt.core import target_row as core_target_row


def played_view(seed: int, players: int, turns: int, row_choice: bool) -> View:
    """A view after ``turns`` turns of random cards and rows from ``seed`` (fewer when the round ends
    first): player 0's, about to play a card, or (``row_choice``) that of the first player who must
    choose a row after that (in a new deal when this one has none)."""
    rng = random.Random(seed)
    while True:
        state = apply(new_game(players), deal_cards(players, rng)).state
        played = 0
        while state.phase is not Phase.DEAL and state.phase is not Phase.OVER:
            if state.phase is Phase.CHOOSE_ROW:
                if row_choice and played > turns:
                    return view(state, state.waiting_for[0])
                state = apply(state, ChooseRow(state.waiting_for[0], rng.randrange(4))).state
                continue
            if not row_choice and (played == turns or len(state.hands[0]) == 1):
                return view(state, 0)
            for player in range(players):
                state = apply(state, PlayCard(player, rng.choice(state.hands[player]))).state
            played += 1
        turns = 0


def still_to_place(seen: View) -> list[int]:
    return [c for c, _ in seen.revealed[seen.resolved + 1 :]]


WAYS = [False, True] if HAVE_NUMBA else [False]  # plain Python on lists; compiled


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 10), turns=st.integers(0, 9))
def test_every_way_of_running_the_card_policies_decides_alike(seed: int, players: int, turns: int) -> None:
    seen = played_view(seed, players, turns, row_choice=False)
    rows, hand, unseen = seen.rows, seen.hand, seen.unseen_cards()
    answers = [
        (decide.heuristic_card(rows, hand, unseen, players, compiled=way),
         decide.heuristic_card(rows, hand, unseen, players, look=False, snug=True, compiled=way),
         decide.card_costs(rows, hand, unseen, players, compiled=way),
         decide.net_features(rows, hand, unseen, players, compiled=way).tolist())
        for way in WAYS
    ]
    assert all(answer == answers[0] for answer in answers)
    assert answers[0][0] == HeuristicBot().choose_card(seen)
    # The hand's order and the unseen cards' order change nothing.
    shuffled = random.Random(seed).sample(hand, len(hand))
    assert decide.heuristic_card(rows, shuffled, sorted(unseen, reverse=True), players) == answers[0][0]


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 10), turns=st.integers(0, 9))
def test_every_way_of_running_the_row_policy_decides_alike(seed: int, players: int, turns: int) -> None:
    seen = played_view(seed, players, turns, row_choice=True)
    assert seen.row_choice_card is not None
    rows = [decide.heuristic_row(seen.rows, seen.row_choice_card, still_to_place(seen), seen.hand,
                                 seen.unseen_cards(), players, compiled=way) for way in WAYS]
    assert rows == [rows[0]] * len(WAYS) and rows[0] == HeuristicBot().choose_row(seen)


def expected_cost_without_unseen_cards(rows: tuple[tuple[int, ...], ...], card: int) -> float:
    """What the rules make ``card`` take when nothing can land before it: the cheapest row when it is
    below every row, the row when it is its sixth card, else nothing."""
    row = core_target_row(rows, card)
    if row is None:
        return float(min(row_bullheads(r) for r in rows))
    return float(row_bullheads(rows[row])) if len(rows[row]) >= ROW_LIMIT else 0.0


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 10), turns=st.integers(0, 9))
def test_costs_follow_the_rules_when_no_unseen_card_can_come_first(seed: int, players: int, turns: int) -> None:
    seen = played_view(seed, players, turns, row_choice=False)
    costs = decide.card_costs(seen.rows, seen.hand, (), players)
    assert costs == {c: expected_cost_without_unseen_cards(seen.rows, c) for c in seen.hand}
    # With the unseen cards, a risk is never below zero, and a card below every row never costs more
    # than the cheapest row (another player's lower card may take a row first and leave it a place).
    risky = decide.card_costs(seen.rows, seen.hand, seen.unseen_cards(), players)
    cheapest = min(row_bullheads(r) for r in seen.rows)
    for card, cost in risky.items():
        assert cost >= 0.0
        if core_target_row(seen.rows, card) is None:
            assert cost <= cheapest


def test_costs_worked_out_by_hand() -> None:
    # The sixth card of a row of five: 40 (3 bullheads), 41, 42, 43 (1 each), 44 (5).
    rows = ((10,), (20,), (30,), (40, 41, 42, 43, 44))
    assert decide.card_costs(rows, (45, 11), (), 4) == {11: 0.0, 45: 3 + 1 + 1 + 1 + 5}
    # A row of four (20: 3 bullheads, 26, 27, 28: 1 each) and two of the four unseen cards (31, 32:
    # 1 bullhead each) in the gap below 35: the one opponent's card lands there first with chance
    # 1/2, and then 35 is the sixth card and takes the row and that card.
    race = ((10,), (20, 26, 27, 28), (40,), (50,))
    assert decide.card_costs(race, (35,), (31, 32, 60, 70), 2) == {35: 0.5 * (6 + 1)}
    # Below every row: the cheapest row (3 bullheads), unless one of three opponents plays the one
    # lower unseen card (1 of 4) first: 3 * (3/4) ** 3.
    low = ((20,), (30,), (40,), (50,))
    assert decide.card_costs(low, (5,), (1, 60, 70, 80), 4) == {5: 3 * 0.75**3}


def test_the_row_choice_worked_out_by_hand() -> None:
    rows = ((50,), (60, 61, 62, 63, 64), (80,), (90,))
    # Nothing left in hand: the first cheapest row now (50, 80 and 90 hold 3 bullheads; 50 is first).
    assert decide.heuristic_row(rows, 5, (), (), (), 4) == 0
    # The next cards 65, 66, 67 would all be sixth cards on the full row: taking it (7 bullheads) now
    # costs less than 3 now and about 7 for each of them later.
    assert decide.heuristic_row(rows, 5, (), (65, 66, 67), (), 4) == 1
    # A card still to come this turn changes the rows the hand meets: 65 of an opponent lands first
    # on the full row (its sixth card) and empties it, so the hand is safe whatever this card takes.
    assert decide.heuristic_row(rows, 5, (65,), (66, 67), (), 4) == 0


def test_the_networks_numbers_worked_out_by_hand() -> None:
    rows = ((10,), (20,), (30,), (40, 41, 42, 43, 44))
    feats = card_features(rows, (45, 11), (), 4)
    eleven, forty_five = feats.tolist()
    assert eleven[:4] == pytest.approx([11 / 104, 5 / 7, 0.0, 0.0])  # card, bullheads, not low, costs nothing
    assert forty_five[:4] == pytest.approx([45 / 104, 2 / 7, 0.0, 11 / 10])  # the sixth card: 11 bullheads
    assert forty_five[6:8] == pytest.approx([5 / 5, 11 / 20])  # its row: five cards, 11 bullheads
    assert eleven[4:6] == pytest.approx([11 / 10, 11 / 20])  # then 45, still the sixth card, costs 11
    assert forty_five[4:6] == [0.0, 0.0]  # 45 takes the row first: 11 is safe after it
    assert eleven[17] == 1.0 and forty_five[17] == 0.0  # the cheapest card now
    assert eleven[14] == 0.0 and forty_five[14] == 1.0  # rank in the hand
    assert eleven[21] == 1.0 and forty_five[21] == 0.0  # the card the heuristic plays
    table = [4 / 10, 2 / 10, 0.0, 10 / 104, 1 / 5, 3 / 20, 20 / 104, 1 / 5, 3 / 20, 30 / 104, 1 / 5, 3 / 20,
             44 / 104, 5 / 5, 11 / 20, 3 / 20, 11 / 2 / 10, 0.0, 0.0]
    assert eleven[CARD_FEATURES:] == forty_five[CARD_FEATURES:] == pytest.approx(table)


@pytest.mark.parametrize("players", [2, 4, 10])
def test_the_learned_bot_plays_the_card_its_policy_likes_best(players: int) -> None:
    seen = played_view(players, players, 2, row_choice=False)
    bot = LearnedBot(random.Random(0))
    _, logits = bot.net.forward(card_features(seen.rows, seen.hand, seen.unseen_cards(), players))
    assert bot.choose_card(seen) == sorted(seen.hand)[int(np.argmax(logits))]
