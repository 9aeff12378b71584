"""nimmt.core.fast gives exactly the penalties of the step engine."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.core import DECK, DECK_BULLHEADS, HAND_SIZE, Deal, PlayCard, apply, new_game
from nimmt.core.fast import fewest_bullheads, play_round, random_rounds
from tests.core.core_kit import RowChooser, play_turn
from tests.core.core_kit import play_round as step_round


def most_bullheads(player: int, card: int, ends: Sequence[int], heads: Sequence[int]) -> int:
    return max(range(4), key=lambda r: (heads[r], r))


def mixed(player: int, card: int, ends: Sequence[int], heads: Sequence[int]) -> int:
    # Depends on everything the chooser is given, so any difference in what it sees shows.
    return (player * 7 + card + sum(ends) + 3 * sum(heads)) % 4


def highest_end(player: int, card: int, ends: Sequence[int], heads: Sequence[int]) -> int:
    return max(range(4), key=ends.__getitem__)


CHOOSERS: dict[str, RowChooser] = {
    "fewest": fewest_bullheads,
    "most": most_bullheads,
    "mixed": mixed,
    "highest end": highest_end,
}


def random_deal(players: int, rng: random.Random) -> tuple[Deal, list[list[int]]]:
    cards = rng.sample(DECK, players * HAND_SIZE + 4)
    orders = [cards[p * HAND_SIZE : (p + 1) * HAND_SIZE] for p in range(players)]
    return Deal(tuple(cards[-4:]), tuple(tuple(o) for o in orders)), orders


@settings(max_examples=250, deadline=None)
@given(st.integers(2, 10), st.integers(0, 2**32 - 1), st.sampled_from(sorted(CHOOSERS)))
def test_play_round_matches_the_step_engine(players: int, seed: int, chooser_name: str) -> None:
    chooser = CHOOSERS[chooser_name]
    deal, orders = random_deal(players, random.Random(seed))
    seen_fast: list[tuple[int, int, tuple[int, ...], tuple[int, ...]]] = []
    seen_step: list[tuple[int, int, tuple[int, ...], tuple[int, ...]]] = []

    def spy(log: list[tuple[int, int, tuple[int, ...], tuple[int, ...]]]) -> RowChooser:
        def choose(player: int, card: int, ends: Sequence[int], heads: Sequence[int]) -> int:
            log.append((player, card, tuple(ends), tuple(heads)))
            return chooser(player, card, ends, heads)

        return choose

    fast = play_round(deal.rows, orders, spy(seen_fast))
    state = step_round(new_game(players), deal, orders, spy(seen_step))
    assert fast == list(state.penalties)
    # Same choices asked of the same players, seeing the same rows.
    assert seen_fast == seen_step


def test_play_round_on_many_deals() -> None:
    rng = random.Random(2026)
    for game in range(300):
        players = 2 + game % 9
        deal, orders = random_deal(players, rng)
        chooser = CHOOSERS[sorted(CHOOSERS)[game % len(CHOOSERS)]]
        state = step_round(new_game(players), deal, orders, chooser)
        assert play_round(deal.rows, orders, chooser) == list(state.penalties), game


def test_play_round_with_fewer_turns() -> None:
    # The doctest's two-turn round, played through the step engine up to the same point.
    deal = Deal((10, 20, 30, 40), ((1, 11, *range(41, 49)), (21, 22, *range(51, 59))))
    state = apply(new_game(2), deal).state
    state = play_turn(state, (1, 21), fewest_bullheads)
    state = play_turn(state, (11, 22), fewest_bullheads)
    assert play_round((10, 20, 30, 40), ((1, 11), (21, 22))) == list(state.penalties) == [3, 0]


def step_random_rounds(players: int, count: int, rng: random.Random) -> list[int]:
    """random_rounds through the step engine, drawing from ``rng`` in the same order."""
    totals = [0] * players
    for _ in range(count):
        cards = rng.sample(DECK, players * HAND_SIZE + 4)
        orders = [cards[p * HAND_SIZE : (p + 1) * HAND_SIZE] for p in range(players)]
        deal = Deal(tuple(cards[-4:]), tuple(tuple(o) for o in orders))
        state = apply(new_game(players), deal).state
        for t in range(HAND_SIZE):
            for p in range(players):
                state = apply(state, PlayCard(p, orders[p][t])).state
            state = play_turn(state, (), lambda p, c, e, h: int(rng.random() * 4))
        for p in range(players):
            totals[p] += state.penalties[p]
    return totals


@pytest.mark.parametrize("players", range(2, 11))
def test_random_rounds_matches_the_step_engine(players: int) -> None:
    for seed in range(8):
        fast = random_rounds(players, 5, random.Random(seed))
        assert fast == step_random_rounds(players, 5, random.Random(seed)), seed


@pytest.mark.parametrize("players", [2, 5, 10])
def test_random_rounds_are_plausible(players: int) -> None:
    rng = random.Random(players)
    for _ in range(50):
        penalties = random_rounds(players, 1, rng)
        assert len(penalties) == players
        assert all(p >= 0 for p in penalties)
        # 10 * players + 4 cards never fit in four rows of five, and the rows keep some bullheads.
        assert 0 < sum(penalties) < DECK_BULLHEADS
    many = random_rounds(players, 200, rng)
    assert all(total > 0 for total in many)
