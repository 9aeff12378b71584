"""The batch engine against the rules core: the same deals, orders and row choices, every penalty."""

from __future__ import annotations

import numpy as np
import pytest

from nimmt.batch import (
    HAVE_NUMBA,
    SEAT_POLICIES,
    BatchError,
    deal,
    play,
    seat_games,
    seat_hands,
)
from nimmt.bots import BOTS
from nimmt.core.fast import play_round
from tests.batch.oracle import core_bot_penalties, core_heuristic_penalties, core_penalties

ENGINES = ["numpy", *(["numba"] if HAVE_NUMBA else [])]
PLAYERS = range(2, 11)


@pytest.fixture(scope="module")
def deals() -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """About 3,000 deals over 2..10 players, with row choices, and the core's penalties for them."""
    rng = np.random.default_rng(2026)
    out = {}
    for players in PLAYERS:
        rows, orders = deal(players, 340, rng, engine="numpy")
        choices = rng.integers(0, 4, size=(340, players * 10))
        fewest = core_penalties(rows[:100], orders[:100])
        out[players] = (rows, orders, choices, core_penalties(rows, orders, choices), fewest)
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_given_row_choices_agree_with_the_core_on_every_penalty(engine: str, deals: dict) -> None:  # type: ignore[type-arg]
    checked = 0
    for players, (rows, orders, choices, expected, _) in deals.items():
        got = play(rows, orders, row_policy="given", choices=choices, engine=engine)
        wrong = np.flatnonzero((got != expected).any(axis=1))
        assert wrong.size == 0, f"{players} players, hand {wrong[:5]}: {got[wrong[0]]} != {expected[wrong[0]]}"
        checked += len(rows)
    assert checked == 340 * 9


@pytest.mark.parametrize("engine", ENGINES)
def test_fewest_bullheads_rows_agree_with_the_core(engine: str, deals: dict) -> None:  # type: ignore[type-arg]
    for _players, (rows, orders, _, _, expected) in deals.items():
        np.testing.assert_array_equal(play(rows[:100], orders[:100], row_policy="fewest", engine=engine), expected)


def test_the_deals_take_row_choices_and_sixth_cards() -> None:
    """The sample is not trivial: low cards with each row chosen, and sixth cards, do happen."""
    rng = np.random.default_rng(1)
    rows, orders = deal(4, 200, rng, engine="numpy")
    choices = rng.integers(0, 4, size=(200, 40))
    a = play(rows, orders, row_policy="given", choices=choices, engine="numpy")
    b = play(rows, orders, row_policy="given", choices=(choices + 1) % 4, engine="numpy")
    assert (a != b).any(), "row choices must change penalties"
    assert (play(rows, orders, row_policy="fewest", engine="numpy") > 0).any()


def test_the_fast_core_path_agrees_too() -> None:
    rng = np.random.default_rng(3)
    for players in (2, 5, 10):
        rows, orders = deal(players, 100, rng)
        got = play(rows, orders, row_policy="fewest")
        for b in range(100):
            expected = play_round(tuple(int(c) for c in rows[b]), [tuple(int(c) for c in o) for o in orders[b]])
            assert list(got[b]) == expected


def test_partial_rounds_fewer_turns() -> None:
    rng = np.random.default_rng(4)
    rows, orders = deal(3, 50, rng)
    short = orders[:, :, :6]
    choices = rng.integers(0, 4, size=(50, 18))
    expected = core_penalties(rows, orders, choices, turns=6)
    for engine in ENGINES:
        np.testing.assert_array_equal(play(rows, short, row_policy="given", choices=choices, engine=engine), expected)


@pytest.mark.parametrize("players", [2, 3, 4, 10])
def test_heuristic_policy_plays_exactly_like_the_heuristic_bot(players: int) -> None:
    """Every seat a HeuristicBot through the step engine vs the batch heuristic policy."""
    rng = np.random.default_rng(players)
    rows, orders = deal(players, 40, rng)
    expected = core_heuristic_penalties(rows, orders)
    got = play(rows, orders, row_policy="heuristic", card_policy="heuristic")
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    "seats",
    [("beginner",) * 4, ("beginner", "heuristic"), ("heuristic", "beginner", "heuristic"),
     ("heuristic", "beginner", "beginner", "heuristic", "beginner"),
     ("beginner",) * 10],
)
def test_seat_policies_play_exactly_like_their_bots(seats: tuple[str, ...]) -> None:
    """Seats of different bots at one table (beginner, heuristic), each through the step engine
    deciding from its own view, against the batch engine's per-seat policies."""
    rng = np.random.default_rng(len(seats))
    rows, orders = deal(len(seats), 40, rng)
    expected = core_bot_penalties(rows, orders, seats)
    np.testing.assert_array_equal(seat_hands(rows, orders, seats), expected)


def test_every_seat_policy_is_named_after_a_bot() -> None:
    assert SEAT_POLICIES.keys() <= BOTS.keys()


def test_seat_policies_refuse_bad_input() -> None:
    rng = np.random.default_rng(1)
    rows, orders = deal(3, 2, rng)
    with pytest.raises(BatchError, match="no batch policy plays like 'expert'"):
        seat_hands(rows, orders, ("expert", "random", "random"))
    with pytest.raises(BatchError, match="2 seats named for deals of 3 players"):
        seat_hands(rows, orders, ("random", "random"))
    if HAVE_NUMBA:
        with pytest.raises(BatchError, match="number of games"):
            seat_games(("random", "random"), -1, 0)
        with pytest.raises(BatchError, match="2 to 10 players"):
            seat_games(("random",), 1, 0)
