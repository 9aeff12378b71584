"""``field:dmc``, the determinized Monte-Carlo search of the field: hand-worked positions, a choice
from the view alone, its options, and no better than even against a copy of itself."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.bots import make_bot
from nimmt.bots.determinized import DeterminizedBot
from nimmt.core import DECK, Deal, Phase, Rules, View, apply, new_game, view
from nimmt.match import play_game
from nimmt.tournament import Seat, tournament


def position(rows: tuple[tuple[int, ...], ...], hand: tuple[int, ...], unseen: tuple[int, ...],
             hand_sizes: tuple[int, ...]) -> View:
    """A view of player 0 with these rows and hand, where exactly ``unseen`` is not yet seen."""
    state = apply(new_game(len(hand_sizes)), Deal((1, 2, 3, 4), tuple(
        tuple(range(11 + 10 * p, 21 + 10 * p)) for p in range(len(hand_sizes))))).state
    seen_elsewhere = set(DECK) - set(unseen) - set(hand) - {c for row in rows for c in row}
    return replace(view(state, 0), rows=rows, hand=hand, hand_sizes=hand_sizes,
                   played=(tuple(sorted(seen_elsewhere)),))


ROWS = ((10,), (30, 31, 32, 33, 34), (60,), (80,))  # row 1 holds 11 bullheads (33 has 5, 30 has 3)


def test_a_hand_worked_card_choice() -> None:
    # Player 0 holds 35 and 61; the only unseen cards are 36 and 37, so the opponent holds both.
    # 35 now is the sixth card of row 1 whatever the opponent does (its cards are above 35): 11.
    # 61 now lands on 60; the opponent's 36 or 37 is then the sixth card of row 1 (it takes the 11)
    # and starts it again; next turn 35 lands on 10 and the opponent's other card on its own: 0.
    seen = position(ROWS, (35, 61), unseen=(36, 37), hand_sizes=(2, 2))
    bot = DeterminizedBot(random.Random(1), samples=64)
    values = {v.option: v for v in bot.values(seen, "card")}
    assert (values[35].mean, values[35].stderr, values[61].mean, values[61].stderr) == (11.0, 0.0, 0.0, 0.0)
    assert values[35].samples == 64
    assert bot.choose_card(seen) == 61


def test_a_hand_worked_row_choice() -> None:
    # Player 0's 5 is below every row and the opponent's 90 waits to be placed; then player 0 holds
    # 35 and the opponent 36, the only unseen card. Row 1 costs 11 now and nothing later; any other
    # row costs 3 now and leaves row 1 full for the 35: 11 more.
    base = position(ROWS, (35,), unseen=(36,), hand_sizes=(1, 1))
    seen = replace(base, phase=Phase.CHOOSE_ROW, revealed=((5, 0), (90, 1)), resolved=0, waiting_for=(0,),
                   row_choice_card=5, played=((*base.played[0], 5, 90),))
    bot = DeterminizedBot(random.Random(2), samples=40)
    assert [v.mean for v in bot.values(seen, "row")] == [14.0, 11.0, 14.0, 14.0]
    assert bot.choose_row(seen) == 1


def test_a_certain_sixth_card_is_not_played_at_four_players() -> None:
    # 35 is the sixth card of row 1 for sure (nothing unseen lies between 34 and 35): every deal says so.
    unseen = tuple(c for c in range(36, 105) if c not in (60, 80, 61, 62, 63))
    seen = position(ROWS, (35, 61, 62, 63), unseen=unseen, hand_sizes=(4, 4, 4, 4))
    bot = DeterminizedBot(random.Random(3), samples=96)
    values = {v.option: v.mean for v in bot.values(seen, "card")}
    assert values[35] >= 11.0
    assert bot.choose_card(seen) != 35


@settings(max_examples=12, deadline=None)
@given(players=st.integers(2, 10), cards=st.permutations(range(1, 105)), seed=st.integers(0, 2**32),
       other=st.data())
def test_it_chooses_from_its_view_alone(players: int, cards: list[int], seed: int, other: st.DataObject) -> None:
    """Two tables that differ only in what seat 0 cannot see give it the same choice, a legal one."""
    def deal_of(order: list[int]) -> Deal:
        return Deal(tuple(order[:4]), tuple(tuple(sorted(order[4 + 10 * p: 14 + 10 * p])) for p in range(players)))

    shuffled = other.draw(st.permutations(cards[14:]))
    seen = view(apply(new_game(players), deal_of(cards)).state, 0)
    twin = view(apply(new_game(players), deal_of(cards[:14] + list(shuffled))).state, 0)
    assert seen == twin
    card = DeterminizedBot(random.Random(seed), samples=8).choose_card(seen)
    assert card in seen.hand
    assert DeterminizedBot(random.Random(seed), samples=8).choose_card(twin) == card


def test_it_plays_whole_games_within_a_small_budget_and_is_seated_by_name() -> None:
    bot = make_bot("field:dmc", random.Random(4))
    assert isinstance(bot, DeterminizedBot) and (bot.time_budget, bot.clock) == (1.0, "cpu")
    bot.time_budget = 0.01
    others = [make_bot("field:risk", random.Random(5)) for _ in range(3)]
    record = play_game([bot, *others], random.Random(6), Rules(rounds=1))
    assert len(record.rounds) == 1
    with pytest.raises(ValueError, match="budget clock"):
        DeterminizedBot(clock="sundial")
    with pytest.raises(ValueError, match="time budget"):
        DeterminizedBot(time_budget=0)
    with pytest.raises(ValueError, match="samples"):
        DeterminizedBot(samples=0)


def test_no_better_than_even_against_a_copy_of_itself_with_another_seed() -> None:
    # Two copies of the same search (each seat has its own seed), a small fixed number of deals a
    # decision, over 20 deal sets of one round heads-up: the lead of one over the other is no more
    # than the luck of play, its 95% interval holding 0.
    one = Seat(name="dmc-a", bot="field:dmc", options=(("samples", 12),), named=True)
    two = Seat(name="dmc-b", bot="field:dmc", options=(("samples", 12),), named=True)
    summary = tournament([one, two], games=40, seed=9, rounds=1)
    assert summary.deal_sets == 20 and not summary.incomplete
    lead = summary.lead
    assert lead is not None and lead.low is not None and lead.high is not None
    assert lead.low <= 0.0 <= lead.high, lead
    assert abs(lead.mean) < 2.0
