"""The coach's numbers on positions small enough to be worked out by hand."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from nimmt.bots.expert import ExpertBot
from nimmt.coach import CoachError, advise_cards, advise_rows
from nimmt.core import DECK, Deal, Phase, View, apply, new_game, view


def position(
    rows: tuple[tuple[int, ...], ...],
    hand: tuple[int, ...],
    unseen: tuple[int, ...],
    hand_sizes: tuple[int, ...],
    **changes: object,
) -> View:
    """A view of player 0 with these rows and hand, where exactly ``unseen`` is not yet seen."""
    state = apply(new_game(len(hand_sizes)), Deal((1, 2, 3, 4), tuple(
        tuple(range(11 + 10 * p, 21 + 10 * p)) for p in range(len(hand_sizes))
    ))).state
    seen_elsewhere = set(DECK) - set(unseen) - set(hand) - {c for row in rows for c in row}
    base = view(state, 0)
    return replace(
        base, rows=rows, hand=hand, hand_sizes=hand_sizes, played=(tuple(sorted(seen_elsewhere)),), **changes
    )


def by_card(view: View) -> dict[int, tuple[float, float, bool]]:
    return {a.card: (a.take_chance, a.turn_bullheads, a.exact) for a in advise_cards(view, samples=30)}


def test_a_certain_sixth_card_takes_its_row_for_sure() -> None:
    # Row 0 holds 10 11 12 13 14 (3+5+1+1+5 = 11 bullheads). Nothing lies between 14 and 15, and a
    # low card from the others would take the cheapest row (row 1), not row 0.
    rows = ((10, 11, 12, 13, 14), (50,), (60,), (70,))
    v = position(rows, (15, 90), unseen=(5, 6, 7, 80, 81, 82, 95, 96), hand_sizes=(2, 2, 2, 2))
    chance, heads, exact = by_card(v)[15]
    assert exact and chance == pytest.approx(1.0) and heads == pytest.approx(11.0)


def test_a_card_below_every_row_takes_the_cheapest_row_when_nobody_can_go_lower() -> None:
    rows = ((21,), (33,), (40,), (50, 55))  # 1, 5, 3 and 9 bullheads
    v = position(rows, (5, 99), unseen=(60, 61, 62, 70), hand_sizes=(2, 2))
    assert by_card(v)[5] == (1.0, 1.0, True)


def test_a_safe_card_with_no_unseen_card_in_its_gap() -> None:
    rows = ((30, 31, 32, 36), (50,), (60,), (70,))
    v = position(rows, (37, 99), unseen=(5, 6, 7, 40, 80, 81, 90), hand_sizes=(2, 2, 2))
    # 37 is the fifth card of row 0 whatever the others play: nothing unseen lies between 36 and 37,
    # and a low card takes row 1 (3 bullheads, the first of the cheapest rows), not row 0 (7).
    assert by_card(v)[37] == (0.0, 0.0, True)


def test_a_gap_card_fills_the_row_with_a_chance_worked_out_by_hand() -> None:
    # Row 0: 10 11 12 13 (3+5+1+1 = 10 bullheads). The one opponent plays one of 4 unseen cards at
    # random: 14 (1 bullhead) or 15 (2) fill row 0, and 16 comes sixth. Chance 2/4, and the
    # bullheads are (10 + 1) / 4 + (10 + 2) / 4 = 5.75.
    rows = ((10, 11, 12, 13), (50,), (60,), (70,))
    v = position(rows, (16, 99), unseen=(14, 15, 80, 90), hand_sizes=(2, 2))
    chance, heads, exact = by_card(v)[16]
    assert exact
    assert chance == pytest.approx(0.5)
    assert heads == pytest.approx(5.75)


def test_a_low_card_is_saved_when_a_lower_card_starts_a_row_first() -> None:
    # The opponent plays 3 or 90. With 3 it takes a row first and 5 lands on it: nothing to take.
    # With 90 the 5 is below every row and takes the cheapest (3 bullheads). Chance 1/2, 1.5 heads.
    rows = ((20,), (30,), (40,), (50,))
    v = position(rows, (5, 99), unseen=(3, 90), hand_sizes=(2, 2))
    chance, heads, exact = by_card(v)[5]
    assert exact and chance == pytest.approx(0.5) and heads == pytest.approx(1.5)


def test_large_positions_are_sampled_and_say_so() -> None:
    rng = random.Random(5)
    rows = ((10, 11, 12, 13), (50,), (60,), (70,))
    unseen = tuple(c for c in range(14, 49))
    v = position(rows, (49, 99), unseen=unseen, hand_sizes=(2, 2, 2, 2, 2))
    advice = {a.card: a for a in advise_cards(v, samples=2000, rng=rng, exact_limit=10)}
    assert not advice[49].exact
    # Every unseen card lies between 13 and 49, so the four others all play onto row 0 first: the
    # first makes it five cards, the second takes it, the next two follow, and 49 comes fourth.
    # It never takes a row, and every sample must say so.
    assert advice[49].take_chance == 0.0


def row_choice_position() -> View:
    """Player 0's 5 is below every row; the opponent's 90 is still to place. Each then holds one
    card: 35 for player 0 and, as the only unseen card, 36 for the opponent."""
    rows = ((10,), (30, 31, 32, 33, 34), (60,), (80,))
    base = position(rows, (35,), unseen=(36,), hand_sizes=(1, 1))
    return replace(
        base,
        phase=Phase.CHOOSE_ROW,
        revealed=((5, 0), (90, 1)),
        resolved=0,
        waiting_for=(0,),
        row_choice_card=5,
        played=((*base.played[0], 5, 90),),
    )


def test_row_advice_counts_now_and_later() -> None:
    # Taking row 1 (11 bullheads) is dearer now, but every other choice leaves 30..34 full and the
    # 35 still in hand becomes its sixth card next turn (11 more).
    advice = advise_rows(row_choice_position(), samples=5)
    assert [a.now for a in advice] == [3, 11, 3, 3]
    assert [a.later for a in advice] == [11.0, 0.0, 11.0, 11.0]
    assert [a.total for a in advice] == [14.0, 11.0, 14.0, 14.0]


def test_the_expert_chooses_its_row_by_the_future_too() -> None:
    bot = ExpertBot(random.Random(1), time_budget=0.5, samples=5)
    assert bot.choose_row(row_choice_position()) == 1


def test_the_coach_refuses_questions_that_make_no_sense() -> None:
    with pytest.raises(CoachError):
        advise_rows(position(((10,), (20,), (30,), (40,)), (50,), unseen=(60,), hand_sizes=(1, 1)))
    with pytest.raises(CoachError):
        advise_cards(row_choice_position())
    spectator = replace(position(((10,), (20,), (30,), (40,)), (50,), unseen=(60,), hand_sizes=(1, 1)), player=None)
    with pytest.raises(CoachError):
        advise_cards(spectator)


def test_advice_still_comes_after_the_player_has_chosen() -> None:
    from nimmt.core import PlayCard

    state = apply(new_game(3), Deal((10, 20, 30, 40), (
        tuple(range(41, 51)), tuple(range(51, 61)), tuple(range(61, 71))))).state
    state = apply(state, PlayCard(0, 41)).state
    seen = view(state, 0)
    assert seen.my_card == 41 and not seen.must_play_card
    advice = advise_cards(seen, samples=10, rng=random.Random(2))
    assert [a.card for a in advice] == list(range(41, 51))
    assert all(a.round_bullheads >= 0 for a in advice)
