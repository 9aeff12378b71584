"""Tables of random seats played by NumPy alone (``nimmt.cli._random_tables``), what ``nimmt simulate``
uses when every seat is random: its placement held against the rules core, its deals, its
statistics against the step engine's, and the command's choice of engine."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.cli import _random_few as F
from nimmt.cli import _random_tables as R
from nimmt.cli import simulate as simulate_module
from nimmt.cli.simulate import (
    RANDOM_CHUNK,
    RANDOM_TABLES_UP_TO,
    batch_engine_plays,
    random_tables_play,
    simulate,
    simulate_random,
    summarize,
    summarize_tally,
)
from nimmt.core import ChooseRow, Deal, Phase, PlayCard, Rules, apply, new_game


def core_round(players: int, dealt: npt.NDArray[np.uint16], places: list[int]) -> list[int]:
    """One deal of :func:`R.deal`'s layout played by the core: the k-th card below every row takes
    the row at place ``places[k]`` in the order of the rows' last cards."""
    hands = tuple(tuple(int(dealt[4 + players * t + p]) for t in range(10)) for p in range(players))
    state = apply(new_game(players), Deal(rows=tuple(int(c) for c in dealt[:4]), hands=hands)).state
    event = 0
    for t in range(10):
        for p in range(players):
            state = apply(state, PlayCard(p, hands[p][t])).state
            while state.phase is Phase.CHOOSE_ROW:
                by_end = sorted(range(4), key=lambda i: state.rows[i][-1])
                state = apply(state, ChooseRow(state.waiting_for[0], by_end[places[event]])).state
                event += 1
    return list(state.history[-1])


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 10))
def test_placement_is_the_cores(seed: int, players: int) -> None:
    """Every penalty of whole rounds, the rows a low card takes given, equals the core's."""
    rng = np.random.default_rng(seed)
    dealt = R.deal(players, 12, rng)
    places = rng.integers(0, 4, size=(12, 10 * players))
    used = np.zeros(12, np.int64)

    def rows_for(low: npt.NDArray[np.intp]) -> npt.NDArray[np.uint64]:
        chosen = places[low, used[low]]
        used[low] += 1
        return chosen.astype(np.uint64)

    got = R.play_deals(players, dealt, rows_for)
    for hand in range(12):
        assert got[:, hand].tolist() == core_round(players, dealt[hand], places[hand].tolist())


def test_deals_are_whole_decks_dealt_at_random() -> None:
    dealt = R.deal(4, 20_000, np.random.default_rng(3)).astype(np.int64)
    assert dealt.shape == (20_000, 44) and dealt.min() == 1 and dealt.max() == 104
    assert (np.sort(dealt, axis=1)[:, 1:] != np.sort(dealt, axis=1)[:, :-1]).all()  # no card twice
    # Every card as likely in every place: 20,000 draws per place over 104 cards, chi-square
    # with 103 degrees of freedom (mean 103, sd 14.4) for the first row card and player 1's first.
    for place in (0, 4):
        counts = np.bincount(dealt[:, place], minlength=105)[1:]
        expected = 20_000 / 104
        assert ((counts - expected) ** 2 / expected).sum() < 103 + 5 * 14.4


class TiedFirst:
    """A bit generator whose first draw ties every key: those hands must be dealt again."""

    def __init__(self) -> None:
        self.calls = 0
        self.real = np.random.SFC64(5)

    def random_raw(self, shape: tuple[int, int]) -> npt.NDArray[np.uint64]:
        self.calls += 1
        raw = self.real.random_raw(shape)
        if self.calls == 1:
            raw[1] = 0  # hand 1: all 104 keys have the same random part
        return np.asarray(raw, np.uint64)


def test_a_deal_with_tied_keys_is_dealt_again() -> None:
    bits = TiedFirst()
    generator: Any = type("Rng", (), {"bit_generator": bits})()
    dealt = R.deal(4, 3, generator)
    assert bits.calls == 2  # hand 1 once more
    assert dealt[1].tolist() != list(range(1, 45))  # not the cards in order, as the ties would give
    assert len(set(dealt[1].tolist())) == 44


@pytest.mark.parametrize(("players", "seeds"), [(4, (1, 2)), (2, (3,)), (10, (4,))])
def test_statistics_agree_with_the_step_engine(players: int, seeds: tuple[int, ...]) -> None:
    """As tests/cli/test_simulate.py does for the compiled engine: each seat's mean penalty per round
    and per game, and its share of wins, within 4.5 standard errors of the step engine's."""
    rules = Rules()
    bots = ["random"] * players
    for seed in seeds:
        results, _ = simulate(250, bots, seed, rules)
        step = summarize(results, bots, 1.0, seed, rules)
        tally, _ = simulate_random(6000, bots, seed, rules)
        fast = summarize_tally(tally, bots, 1.0, seed, rules)
        assert fast["games"] == 6000 and fast["rounds"] > 6000
        for mean, ci in (("mean_penalty_per_round", "mean_penalty_per_round_ci95"),
                         ("mean_penalty_per_game", "mean_penalty_per_game_ci95")):
            for seat in range(players):
                error = math.hypot(*((s[ci][seat][1] - s[ci][seat][0]) / 2 / 1.96 for s in (step, fast)))
                assert abs(step[mean][seat] - fast[mean][seat]) < 4.5 * error, (seed, mean, seat, step, fast)
        for seat in range(players):
            p, q = step["win_share"][seat], fast["win_share"][seat]
            error = math.sqrt(max(p * (1 - p), 0.01) / 250 + max(q * (1 - q), 0.01) / 6000)
            assert abs(p - q) < 4.5 * error, (seed, seat, step, fast)


def test_results_do_not_depend_on_jobs_and_exact_rounds_are_kept() -> None:
    rules = Rules(rounds=3)
    games = 2 * RANDOM_CHUNK + 5  # three chunks
    one, _ = simulate_random(games, ["random"] * 3, 9, rules, jobs=1)
    two, _ = simulate_random(games, ["random"] * 3, 9, rules, jobs=2)
    other, _ = simulate_random(games, ["random"] * 3, 10, rules, jobs=1)
    assert one == two != other
    assert one.rounds == 3 * games and sum(one.wins) == games


def test_which_engine_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    assert random_tables_play(["random"] * 4)
    assert not random_tables_play(["random", "beginner"])
    assert not random_tables_play(["random", "random"], Path("games"))  # records: the step engine
    monkeypatch.setenv("NIMMT_BATCH_ENGINE", "numpy")
    assert random_tables_play(["random"] * 4)
    monkeypatch.setenv("NIMMT_BATCH_ENGINE", "numba")  # the compiled kernels, to compare
    assert not random_tables_play(["random"] * 4)
    monkeypatch.delenv("NIMMT_BATCH_ENGINE")
    assert random_tables_play(["random"] * 4, games=RANDOM_TABLES_UP_TO)
    pytest.importorskip("numba")
    assert batch_engine_plays(["random"] * 4)
    assert not random_tables_play(["random"] * 4, games=RANDOM_TABLES_UP_TO + 1)  # the kernels, sooner


def test_simulate_of_random_seats_loads_neither_numba_nor_other_commands() -> None:
    script = (
        "import sys\n"
        "from nimmt.cli.main import main\n"
        "try:\n"
        "    main(['simulate', '--games', '300', '--bots', 'random', '--seed', '1', '--json'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('numba', 'nimmt.cli', 'nimmt.server', "
        "'nimmt.batch')))))\n"
    )
    done = subprocess.run([sys.executable, "-c", "import json\n" + script], capture_output=True, text=True,
                          timeout=120, check=True)
    summary, loaded = (json.loads(line) for line in done.stdout.strip().splitlines())
    assert summary["games"] == 300 and summary["bots"] == ["random"] * 4
    assert loaded == ["nimmt.cli", "nimmt.cli._coercion", "nimmt.cli._common", "nimmt.cli._help",
                      "nimmt.cli._random_few", "nimmt.cli._random_tables", "nimmt.cli.main", "nimmt.cli.simulate"]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), players=st.integers(2, 10), games=st.integers(1, 2 * F.DECKS + 3),
       end_above=st.sampled_from([66, 0, 20, 150]), rounds=st.sampled_from([0, 0, 1, 4]))
def test_a_few_games_in_plain_python_are_numpys_games(seed: int, players: int, games: int, end_above: int,
                                                      rounds: int) -> None:
    """``_random_few`` draws NumPy's chance (SeedSequence, SFC64, raw words, ``integers(0, 4)``) and
    plays every hand as ``_random_tables`` does: the same totals, rounds and squares, game by game."""
    numpy_games = R.random_games(players, games, seed, end_above, rounds)
    few = F.random_games(players, games, seed, end_above, rounds)
    assert few.totals == numpy_games.totals.tolist()
    assert few.played == numpy_games.played.tolist()
    assert few.squares == numpy_games.squares.tolist()


def test_a_few_games_tie_and_tally_as_numpys(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of at most FEW games (NumPy unloaded) tallies what NumPy's tables tally, wins shared by
    ties included, and a deal with tied keys is dealt again as NumPy deals it again."""
    rules = Rules(rounds=1)  # one round: ties for the fewest bullheads are frequent
    for players, seed in ((2, 5), (4, 6), (10, 7)):
        few, _ = simulate_random(F.FEW, ["random"] * players, seed, rules)
        monkeypatch.setattr(simulate_module, "FEW", 0)
        numpy_tally, _ = simulate_random(F.FEW, ["random"] * players, seed, rules)
        monkeypatch.undo()
        assert few == numpy_tally
        games = F.random_games(players, F.FEW, simulate_module.chunk_seed(seed, 0), rounds=1).totals
        assert any(totals.count(min(totals)) > 1 for totals in games)  # wins shared
    generator = F.SFC64(3)
    words = generator.raw
    calls = []

    def tied(count: int) -> list[int]:
        raw = words(count)
        calls.append(count)
        if len(calls) == 1:
            raw[52:104] = [0] * 52  # hand 1: all 104 keys have the same random part
        return raw

    generator.raw = tied  # type: ignore[method-assign]
    dealt = F.deal(4, 3, generator)
    assert len(calls) == 2 and len(set(dealt[1])) == 44 and dealt[1] != list(range(1, 45))


def test_random_seats_in_a_real_process_give_the_summary() -> None:
    done = subprocess.run([sys.executable, "-m", "nimmt", "simulate", "--games", "2000", "--players", "5",
                           "--bots", "random,random,random,random,random", "--seed", "4", "--json"],
                          capture_output=True, text=True, timeout=120, check=True)
    data = json.loads(done.stdout)
    assert data["games"] == 2000 and data["players"] == 5 and data["rounds"] > 2000
    assert math.isclose(sum(data["win_share"]), 1.0, abs_tol=1e-5)
    assert all(12 < m < 16 for m in data["mean_penalty_per_round"])  # about 14 at 5 players
