"""One suite for card placement, run against every engine that places cards.

The rules core (:func:`nimmt.core.apply`) is the reference: Hypothesis draws reachable turns played
by it (``kit.turns``: any deal, any moment of a round, low cards taking random rows or the fewest
bullheads), and each engine plays the same turn from the same rows and must leave the same rows and
the same penalties. Every engine goes through the one compact placement of
:mod:`nimmt.core.fast` (``target`` and ``lay``), compiled by the batch kernels or as plain Python,
except the core itself, the NumPy path (arrays of hands) and ``play_plain`` (random play's
bit-packed hot loop, kept for its speed: ``docs/speed.md``); all are here, and the kernels once
more with Numba hidden, all of them plain Python.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Callable, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.batch import HAVE_NUMBA, deal, play
from nimmt.batch import _kernels as K
from nimmt.batch import _numpy as N
from nimmt.batch.engine import run_kernel
from nimmt.bots.heuristic import play_out
from nimmt.bots.rollout import place, table_of
from nimmt.core import DECK, HAND_SIZE, Deal, apply, new_game
from nimmt.core.fast import play_turns, random_rounds
from tests.batch.oracle import core_penalties
from tests.conformance.kit import Turn, fewest_turns, summary, turns
from tests.core.core_kit import play_turn

Summary = tuple[list[int], list[int], list[int]]
# An engine plays one turn: (the turn, the row each low card takes in order or None for the fewest
# bullheads) -> (last card, length and bullheads of each row after it, what each player took).
Engine = Callable[[Turn, Sequence[int] | None], tuple[Summary, list[int]]]


def core_fast(turn: Turn, low: Sequence[int] | None) -> tuple[Summary, list[int]]:
    ends, counts, heads = summary(turn.rows)
    penalties = [0] * turn.players
    rows = iter(low or ())
    chooser = None if low is None else (lambda *_: next(rows))
    play_turns(ends, counts, heads, [[c] for c in turn.cards], penalties, chooser)
    return (ends, counts, heads), penalties


def bots_place(turn: Turn, low: Sequence[int] | None) -> tuple[Summary, list[int]]:
    table = table_of(turn.rows)
    penalties = [0] * turn.players
    rows = iter(low or ())
    for card, player in sorted((c, p) for p, c in enumerate(turn.cards)):
        below_every_row = card < min(table[0])
        place(table, card, player, penalties, row_if_low=next(rows) if low is not None and below_every_row else None)
    return (table[0], table[1], table[2]), penalties


def kernel(compiled: bool) -> Engine:
    """``play_hand`` from any moment of a round: compiled by Numba, or its Python source as it is."""
    play_hand = K.play_hand if compiled else getattr(K.play_hand, "py_func", K.play_hand)

    def run(turn: Turn, low: Sequence[int] | None) -> tuple[Summary, list[int]]:
        ends, counts, heads = (np.array(x, np.int64) for x in summary(turn.rows))
        players = turn.players
        row_policy = K.RowPolicy.FEWEST if low is None else K.RowPolicy.GIVEN
        seats = K.policies(np.zeros(players), np.full(players, row_policy))  # cards in the order given
        penalties = np.zeros(players, np.int64)
        run_kernel(play_hand, ends, counts, heads, np.zeros(105, np.bool_), np.array([[c] for c in turn.cards]),
                   np.zeros(players, np.bool_), np.array([*(low or ()), 0], np.int64), seats, penalties,
                   K.room(players, 1, seats.net), np.uint64(1))
        return (ends.tolist(), counts.tolist(), heads.tolist()), penalties.tolist()

    return run


def numpy_path(turn: Turn, low: Sequence[int] | None) -> tuple[Summary, list[int]]:
    ends, counts, heads = (np.array([x], np.int64) for x in summary(turn.rows))
    orders = np.array([[[c] for c in turn.cards]], np.int64)
    choices = np.array([[*(low or ()), 0]], np.int64)
    policy = K.RowPolicy.FEWEST if low is None else K.RowPolicy.GIVEN
    penalties = N.play(ends, counts, heads, orders, policy, choices, np.random.default_rng(0))
    return (ends[0].tolist(), counts[0].tolist(), heads[0].tolist()), penalties[0].tolist()


ENGINES: dict[str, Engine] = {
    "core.fast": core_fast,
    "bots.rollout": bots_place,
    "kernels as Python": kernel(compiled=False),
    "numpy": numpy_path,
    **({"kernels compiled": kernel(compiled=True)} if HAVE_NUMBA else {}),
}


@pytest.mark.parametrize("name", ENGINES)
@settings(max_examples=200, deadline=None)
@given(turn=turns)
def test_every_engine_places_like_the_core(name: str, turn: Turn) -> None:
    after, taken = ENGINES[name](turn, turn.choices)
    assert list(after) == list(summary(turn.rows_after))
    assert taken == turn.taken


@pytest.mark.parametrize("name", ENGINES)
@settings(max_examples=100, deadline=None)
@given(turn=fewest_turns)
def test_every_engine_gives_a_low_card_the_fewest_bullheads_by_itself(name: str, turn: Turn) -> None:
    """What the engines decide alone (an opponent's low card in the heuristic's eyes, the rollouts'
    default row): the row with the fewest bullheads, the first on a tie."""
    after, taken = ENGINES[name](turn, None)
    assert list(after) == list(summary(turn.rows_after))
    assert taken == turn.taken


@settings(max_examples=200, deadline=None)
@given(turn=fewest_turns)
def test_the_heuristics_play_out_places_like_the_core(turn: Turn) -> None:
    """The heuristic bot's play-out keeps whole rows (its estimates read them): on the core's
    ``target_row``, a low card taking the cheapest row."""
    assert play_out(turn.rows, sorted(turn.cards)) == turn.rows_after


@settings(max_examples=200, deadline=None)
@given(turn=fewest_turns)
def test_the_kernels_place_fewest_places_like_the_core(turn: Turn) -> None:
    """``place_fewest``, the kernels' play-out of a turn for the heuristic (compiled and as Python)."""
    for fn in {K.place_fewest, getattr(K.place_fewest, "py_func", K.place_fewest)}:
        ends, counts, heads = (np.array(x, np.int64) for x in summary(turn.rows))
        taken = [0] * turn.players
        for card, player in sorted((c, p) for p, c in enumerate(turn.cards)):
            taken[player] += int(run_kernel(fn, ends, counts, heads, card))
        assert [ends.tolist(), counts.tolist(), heads.tolist()] == list(summary(turn.rows_after))
        assert taken == turn.taken


WHOLE_HANDS = ["numpy", *(["numba"] if HAVE_NUMBA else [])]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 10), turns_played=st.integers(1, 10),
       engine=st.sampled_from(WHOLE_HANDS))
def test_whole_hands_with_given_rows_place_like_the_core(seed: int, players: int, turns_played: int,
                                                         engine: str) -> None:
    """Whole hands from their deals: the NumPy path, and the compiled ``play_plain`` (the bit-packed
    hot loop of random play, which starts from four fresh rows)."""
    rng = np.random.default_rng(seed)
    rows, orders = deal(players, 8, rng)
    choices = rng.integers(0, 4, size=(8, players * turns_played))
    expected = core_penalties(rows, orders, choices, turns=turns_played)
    got = play(rows, orders[:, :, :turns_played], row_policy="given", choices=choices, engine=engine)
    np.testing.assert_array_equal(got, expected)


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


def test_the_suite_holds_with_the_kernels_as_plain_python() -> None:
    """With Numba installed, ``py_func`` runs only a kernel's own body as Python (what it calls is
    compiled): the suite again in an interpreter where ``import numba`` fails, every kernel Python."""
    script = (
        "import sys; sys.modules['numba'] = None\n"
        "import pytest\n"
        "sys.exit(pytest.main(['-q', '-x', '-p', 'no:cacheprovider', '-W', 'ignore::RuntimeWarning', "
        f"{__file__!r}, '-k', 'not plain_python']))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert " passed" in done.stdout and "failed" not in done.stdout
