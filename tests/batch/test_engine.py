"""Deals, whole hands and whole games of the batch engine, both paths, and its error messages."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from nimmt.batch import (
    HAVE_NUMBA,
    HEURISTIC_LATER,
    HEURISTIC_TIE,
    BatchError,
    deal,
    engine_name,
    play,
    play_games,
    play_hands,
)
from nimmt.batch import _kernels as K
from nimmt.core import Rules
from nimmt.core.fast import random_rounds

ENGINES = ["numpy", *(["numba"] if HAVE_NUMBA else [])]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("players", [2, 7, 10])
def test_deals_are_valid_and_every_card_is_equally_likely_everywhere(engine: str, players: int) -> None:
    rows, orders = deal(players, 20_000, np.random.default_rng(players), engine=engine)
    cards = np.concatenate([rows, orders.reshape(20_000, -1)], axis=1)
    assert cards.min() >= 1 and cards.max() <= 104
    assert (np.sort(cards, axis=1)[:, 1:] != np.sort(cards, axis=1)[:, :-1]).all(), "a card dealt twice"
    # Row 0's first card and player 0's first card: each of 104 cards about 20000/104 = 192 times.
    for column in (rows[:, 0], orders[:, 0, 0], orders[:, -1, 9]):
        seen = np.bincount(column, minlength=105)[1:]
        chi2 = (((seen - 20_000 / 104) ** 2) / (20_000 / 104)).sum()
        assert chi2 < 170, f"chi-square {chi2:.0f} with 103 degrees of freedom"


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    """Mean penalty per seat of 40,000 hands of random play by the core's fast path, 4 players."""
    return np.array(random_rounds(4, 40_000, random.Random(9))) / 40_000


@pytest.mark.parametrize("engine", ENGINES)
def test_random_hands_match_the_cores_random_play_on_average(engine: str, reference: np.ndarray) -> None:
    """Random play by the core's fast path and by the batch engine: the same mean penalty."""
    players, hands = 4, 40_000
    stats = play_hands(players, hands, np.random.default_rng(9), chunk=7_000, engine=engine)
    assert stats.hands == hands
    assert stats.spread.sum() == hands * players
    assert (stats.spread * np.arange(172)).sum() == stats.totals.sum()
    # A hand's penalty has a standard deviation near 9: 3 standard errors of the difference is ~0.3.
    assert abs(stats.mean.mean() - reference.mean()) < 0.3, (stats.mean, reference)


@pytest.mark.parametrize("engine", ENGINES)
def test_chunks_do_not_change_the_count(engine: str) -> None:
    stats = play_hands(3, 1000, np.random.default_rng(1), chunk=333, engine=engine)
    assert stats.hands == 1000 and stats.spread[0].sum() == 1000


@pytest.mark.parametrize("engine", ENGINES)
def test_games_end_only_above_the_threshold(engine: str) -> None:
    if engine == "numba":
        tally = K.tally(3000, 4)
        K.plain_games(4, 3000, 66, 0, int(K.RowPolicy.RANDOM), np.uint64(5), tally)
        totals, played = tally.totals, tally.played
    else:
        from nimmt.batch.engine import _numpy_games

        totals = np.zeros((3000, 4), np.int64)
        played = np.zeros(3000, np.int64)
        _numpy_games(4, 66, 0, K.RowPolicy.RANDOM, np.random.default_rng(5), totals, played)
    assert (totals.max(axis=1) > 66).all()
    assert (played >= 1).all()
    # A total of exactly 66 never ends a game: some games must have gone on past one.
    stats = play_games(4, 3000, np.random.default_rng(6), engine=engine)
    assert stats.games == 3000 and abs(stats.wins.sum() - 3000) < 1e-6
    assert 3 < stats.rounds / stats.games < 8


@pytest.mark.parametrize("engine", ENGINES)
def test_a_fixed_number_of_rounds(engine: str) -> None:
    stats = play_games(5, 500, np.random.default_rng(2), rules=Rules(rounds=2), engine=engine)
    assert stats.rounds == 1000


def test_heuristic_tables_lose_fewer_bullheads_than_random_ones() -> None:
    rng = np.random.default_rng(3)
    random_mean = play_hands(4, 2000, rng, policy="random").mean.mean()
    heuristic_mean = play_hands(4, 2000, rng, policy="heuristic").mean.mean()
    fewest_mean = play_hands(4, 2000, rng, policy="fewest").mean.mean()
    assert heuristic_mean < fewest_mean < random_mean


def test_the_engine_can_be_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NIMMT_BATCH_ENGINE", "numpy")
    assert engine_name() == "numpy"
    monkeypatch.setenv("NIMMT_BATCH_ENGINE", "numba")
    if HAVE_NUMBA:
        assert engine_name() == "numba"
    with pytest.raises(BatchError, match="unknown engine"):
        engine_name("gpu")


@pytest.mark.parametrize(
    ("rows", "orders", "kwargs", "message"),
    [
        (np.zeros((2, 3)), np.zeros((2, 2, 10)), {}, "rows must have shape"),
        (np.ones((2, 4), int), np.ones((3, 2, 10), int), {}, "orders must have shape"),
        ([[1, 2, 3, 4]], [[[5] * 10, [6] * 10]], {}, "deals a card twice"),
        ([[1, 2, 3, 105]], [[list(range(5, 15)), list(range(15, 25))]], {}, "from 1 to 104"),
        ([[1, 2, 3, 4]], [[list(range(5, 15)), list(range(15, 25))]], {"row_policy": "given"}, "needs choices"),
        ([[1, 2, 3, 4]], [[list(range(5, 15)), list(range(15, 25))]], {"row_policy": "cheapest"}, "unknown policy"),
        ([[1, 2, 3, 4]], [[list(range(5, 15))]], {}, "2 to 10 players"),
        ([[1, 2, 3, 4]], [[list(range(5, 15)), list(range(15, 25))]],
         {"row_policy": "given", "choices": [[4] * 20]}, "row from 0 to 3"),
    ],
)
def test_bad_input_gets_a_clear_message(rows: object, orders: object, kwargs: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(BatchError, match=message):
        play(rows, orders, **kwargs)  # type: ignore[arg-type]


def test_bad_table_sizes_and_policies() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(BatchError, match="2 to 10 players"):
        play_hands(11, 10, rng)
    with pytest.raises(BatchError, match="unknown policy"):
        play_games(4, 10, rng, policy="clever")
    with pytest.raises(BatchError, match="chunk size"):
        play_hands(4, 10, rng, chunk=0)


def test_the_fused_loops_play_the_deals_that_deal_many_deals() -> None:
    """plain_hands / plain_games / games deal and play in one loop; with fewest-bullheads rows (no
    random draw while playing) they must give the penalties of dealing with deal_many from the same
    seed and playing those deals, which the exactness tests check against the core; ``games`` plays
    a table of random cards card for card as random play's hot loop does."""
    if not HAVE_NUMBA:
        pytest.skip("the fused loops are the compiled path")  # pragma: no cover
    for players in (2, 6, 10):
        rows = np.zeros((500, 4), np.int16)
        orders = np.zeros((500, players, 10), np.int16)
        K.deal_many(players, 500, np.uint64(99), rows, orders)
        expected = play(rows, orders, row_policy="fewest")
        totals = np.zeros(players, np.int64)
        spread = np.zeros((players, 172), np.int64)
        K.plain_hands(players, 500, int(K.RowPolicy.FEWEST), np.uint64(99), totals, spread)
        np.testing.assert_array_equal(totals, expected.sum(axis=0))
        games = K.tally(500, players)
        K.plain_games(players, 500, 0, 1, int(K.RowPolicy.FEWEST), np.uint64(99), games)
        np.testing.assert_array_equal(games.totals, expected)
        for cards in (K.CardPolicy.ORDER, K.CardPolicy.BEGINNER):  # random cards, and one beginner seat
            seats = K.policies([cards] + [K.CardPolicy.ORDER] * (players - 1), np.full(players, K.RowPolicy.FEWEST))
            if cards == K.CardPolicy.BEGINNER:  # the same deals through play_hand
                expected = np.zeros((500, players), np.int64)
                K.hands(rows.astype(np.int64), orders.astype(np.int64), np.zeros((500, 1), np.int64), seats,
                        np.uint64(0), expected)
            games = K.tally(500, players)
            K.games(players, 500, 0, 1, seats, np.uint64(99), games)
            np.testing.assert_array_equal(games.totals, expected)
            np.testing.assert_array_equal(games.squares, expected**2)
            assert (games.played == 1).all()
        heuristic = play(rows[:50], orders[:50], row_policy="heuristic", card_policy="heuristic")
        games = K.tally(50, players)
        seats = K.policies(np.full(players, K.CardPolicy.HEURISTIC), np.full(players, K.RowPolicy.HEURISTIC),
                           HEURISTIC_TIE, HEURISTIC_LATER)
        K.games(players, 50, 0, 1, seats, np.uint64(99), games)
        np.testing.assert_array_equal(games.totals, heuristic)


def test_a_cached_kernel_holds_only_for_the_kernel_sources_as_they_are(tmp_path: Path) -> None:
    """The kernels inline code from several files (nimmt.core.fast's placement among them): their
    cached machine code is keyed on all of those files, not only on each kernel's own."""
    from nimmt.batch import _base

    if not HAVE_NUMBA:
        pytest.skip("the cache is Numba's")  # pragma: no cover
    for kernel in (K.play_hand, K.play_plain, K.rollouts, K.target):
        locator = kernel._cache._impl.locator
        assert locator.get_source_stamp() == _base.kernels_digest()
    assert str(Path(_base.fast.__file__).resolve()) in _base.KERNEL_SOURCES
    elsewhere = tmp_path / "other.py"
    elsewhere.write_text("def f():\n    return 1\n", encoding="utf-8")
    assert type(K.play_hand._cache._impl.locator).from_function(lambda: 1, str(elsewhere)) is None


def test_the_kernels_cache_goes_where_numba_cache_dir_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``NUMBA_CACHE_DIR`` (what the server's first-run tests start from) still picks the folder, with
    the stamp over every kernel source."""
    if not HAVE_NUMBA:
        pytest.skip("the cache is Numba's")  # pragma: no cover
    from numba.core import caching, config

    from nimmt.batch import _base

    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path))
    kernel = K.play_hand.py_func
    found = [c.from_function(kernel, kernel.__code__.co_filename) for c in caching.CacheImpl._locator_classes]
    locator = next(one for one in found if one is not None)
    assert locator.get_cache_path().startswith(str(tmp_path))
    assert locator.get_source_stamp() == _base.kernels_digest()
