"""Every pure-Python copy of card placement, held against the rules core on reachable turns
(Hypothesis draws the deal, how far the round is and how low cards take rows)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.bots.heuristic import play_out
from nimmt.bots.rollout import place, table_of
from nimmt.core import DECK, HAND_SIZE, Deal, apply, new_game
from nimmt.core.fast import play_turns, random_rounds
from tests.conformance.kit import Turn, fewest_turns, summary, turns
from tests.core.core_kit import play_turn


def given_rows(turn: Turn):  # type: ignore[no-untyped-def]
    rows = iter(turn.choices)

    def choose(player: int, card: int, ends: Sequence[int], heads: Sequence[int]) -> int:
        return next(rows)

    return choose


@settings(max_examples=300, deadline=None)
@given(turns)
def test_rollout_place_places_like_the_core(turn: Turn) -> None:
    table = table_of(turn.rows)
    penalties = [0] * turn.players
    low = iter(turn.choices)
    for card, player in sorted((c, p) for p, c in enumerate(turn.cards)):
        below_every_row = card < min(table[0])
        place(table, card, player, penalties, row_if_low=next(low) if below_every_row else None)
    assert list(table) == list(summary(turn.rows_after))
    assert penalties == turn.taken


@settings(max_examples=300, deadline=None)
@given(fewest_turns)
def test_rollout_place_takes_the_fewest_bullheads_by_default(turn: Turn) -> None:
    table = table_of(turn.rows)
    penalties = [0] * turn.players
    for card, player in sorted((c, p) for p, c in enumerate(turn.cards)):
        place(table, card, player, penalties)
    assert list(table) == list(summary(turn.rows_after))
    assert penalties == turn.taken


@settings(max_examples=300, deadline=None)
@given(turns)
def test_fast_play_turns_places_like_the_core(turn: Turn) -> None:
    ends, counts, heads = summary(turn.rows)
    penalties = [0] * turn.players
    play_turns(ends, counts, heads, [[c] for c in turn.cards], penalties, given_rows(turn))
    assert [ends, counts, heads] == list(summary(turn.rows_after))
    assert penalties == turn.taken


@settings(max_examples=300, deadline=None)
@given(fewest_turns)
def test_heuristic_play_out_places_like_the_core(turn: Turn) -> None:
    """play_out assumes that a low card takes the cheapest row."""
    assert play_out(turn.rows, sorted(turn.cards)) == turn.rows_after


@settings(max_examples=300, deadline=None)
@given(fewest_turns)
def test_fast_play_turns_decides_low_cards_like_the_core(turn: Turn) -> None:
    ends, counts, heads = summary(turn.rows)
    penalties = [0] * turn.players
    play_turns(ends, counts, heads, [[c] for c in turn.cards], penalties)  # its inline fewest-bullheads rule
    assert [ends, counts, heads] == list(summary(turn.rows_after))
    assert penalties == turn.taken


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 10), rounds=st.integers(1, 3))
def test_fast_random_rounds_plays_like_the_core(seed: int, players: int, rounds: int) -> None:
    """random_rounds draws its deals and its random rows from ``rng``; the core, given the same
    draws in the same order, takes the same bullheads."""
    totals = random_rounds(players, rounds, random.Random(seed))
    rng = random.Random(seed)
    expected = [0] * players
    for _ in range(rounds):
        cards = rng.sample(DECK, players * HAND_SIZE + 4)
        hands = tuple(tuple(cards[p * HAND_SIZE : (p + 1) * HAND_SIZE]) for p in range(players))
        state = apply(new_game(players), Deal(rows=tuple(cards[-4:]), hands=hands)).state
        for t in range(HAND_SIZE):
            state = play_turn(state, [hand[t] for hand in hands], lambda *_: int(rng.random() * 4))
        expected = [e + p for e, p in zip(expected, state.penalties, strict=True)]
    assert totals == expected
