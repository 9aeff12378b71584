"""Tournaments: duplicate deal schedule, the same results for any number of jobs, JSON, plot."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from nimmt.cli.main import app
from nimmt.intervals import wilson
from nimmt.tournament import play_match, run_local, schedule, summarize, tournament
from nimmt.tournament.stats import interval, share_interval


def test_every_deal_set_is_played_with_every_rotation() -> None:
    bots = ("a", "b", "c", "d")
    specs = schedule(bots, deal_sets=3, seed=5)
    assert len(specs) == 12
    for deal_set in range(3):
        games = [s for s in specs if s.deal_set == deal_set]
        assert sorted(s.rotation for s in games) == [0, 1, 2, 3]
        assert len({s.deal_seed for s in games}) == 1  # the same deals in every rotation
        # every entry sits in every seat exactly once over the rotations of a deal set
        assert Counter((s.entries[seat], seat) for s in games for seat in range(4)) == Counter(
            {(e, seat): 1 for e in range(4) for seat in range(4)}
        )
        for s in games:
            assert s.seats == tuple(bots[e] for e in s.entries)
    assert len({s.deal_seed for s in specs}) == 3


def test_rotations_replay_the_same_deals() -> None:
    # Four copies of one deterministic bot: every rotation of a deal set is the very same game.
    specs = schedule(("beginner",) * 4, deal_sets=1, seed=9)
    results = [play_match(s) for s in specs]
    assert all(r.rounds == results[0].rounds for r in results)
    assert all(r.totals == results[0].totals for r in results)


def test_a_duplicate_tournament_cancels_the_luck_of_identical_bots() -> None:
    summary = tournament(["beginner", "beginner", "beginner"], games=6, seed=2)
    diffs = [s.difference_to_first for s in summary.entries[1:]]
    assert all(d is not None and d.mean == 0 and d.half_width == 0 for d in diffs)


def test_same_seed_same_results_with_one_or_two_jobs() -> None:
    bots = ("random", "beginner", "heuristic", "random")
    specs = schedule(bots, deal_sets=2, seed=17)
    one = run_local(specs, jobs=1)
    two = run_local(specs, jobs=2)
    assert [r.to_json() for r in one] == [r.to_json() for r in two]
    assert summarize(bots, one).to_json()["by_bot"][0]["penalty_per_round"] == summarize(
        bots, two
    ).to_json()["by_bot"][0]["penalty_per_round"]


def test_win_shares_add_up_and_intervals_are_sane() -> None:
    summary = tournament(["heuristic", "random", "random"], games=9, seed=4)
    assert summary.games == 9 and summary.deal_sets == 3
    assert abs(sum(s.win_share.mean for s in summary.entries) - 1.0) < 1e-9
    # by bot, a win share is per seat: the two random seats' share is half their pooled share
    assert [s.seats for s in summary.by_bot] == [1, 2]
    assert abs(sum(s.win_share.mean * s.seats for s in summary.by_bot) - 1.0) < 1e-9
    pooled = summary.entries[1].win_share.mean + summary.entries[2].win_share.mean
    assert abs(summary.by_bot[1].win_share.mean - pooled / 2) < 1e-9
    for s in summary.entries:
        i = s.penalty_per_round
        assert i.half_width is not None and i.low is not None and i.low <= i.mean <= (i.high or 0)
        assert s.rating_mu is not None and s.rating_sigma is not None
    assert [s.label for s in summary.by_bot] == ["heuristic", "random"]
    assert interval([2.0]).half_width is None


def test_the_command_writes_json_and_a_png(tmp_path: Path) -> None:
    chart = tmp_path / "chart.png"
    result = CliRunner().invoke(
        app,
        ["tournament", "--bots", "heuristic,random,beginner", "--games", "3", "--seed", "1",
         "--json", "--plot", str(chart), "--jobs", "1"],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["games"] == 3 and data["deal_sets"] == 1 and data["players"] == 3 and data["seed"] == 1
    assert data["bots"] == ["heuristic", "random", "beginner"]
    entry = data["entries"][0]
    assert set(entry) >= {"label", "bot", "games", "rounds", "penalty_per_round", "win_share",
                          "difference_to_first", "timing", "rating_mu", "rating_sigma", "rating_ordinal"}
    assert set(entry["penalty_per_round"]) == {"mean", "ci95", "low", "high", "n"}
    assert set(entry["timing"]) == {"decisions", "p50", "p95", "max", "cpu_p50", "cpu_p95", "cpu_max"}
    assert entry["timing"]["decisions"] > 0
    assert chart.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_the_command_prints_a_table() -> None:
    result = CliRunner().invoke(app, ["tournament", "--bots", "beginner", "--players", "2", "--games", "2",
                                      "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "beginner#1" in result.stdout and "penalty/round" in result.stdout


def test_bad_input_gets_a_clear_message() -> None:
    runner = CliRunner()
    unknown = runner.invoke(app, ["tournament", "--bots", "random,nobody", "--games", "2"])
    assert unknown.exit_code == 2 and "unknown bot 'nobody'" in unknown.output
    assert "Traceback" not in unknown.output
    few = runner.invoke(app, ["tournament", "--bots", "random", "--games", "0"])
    assert few.exit_code == 2 and "at least one game" in few.output
    budget = runner.invoke(app, ["tournament", "--bots", "random", "--time-budget", "-1"])
    assert budget.exit_code == 2 and "time budget" in budget.output
    clock = runner.invoke(app, ["tournament", "--bots", "random", "--budget-clock", "sundial"])
    assert clock.exit_code == 2 and "wall or cpu" in clock.output
    plot = runner.invoke(app, ["tournament", "--bots", "random", "--plot", "/no/such/folder/x.png"])
    assert plot.exit_code == 2 and "does not exist" in plot.output
    ray = runner.invoke(app, ["tournament", "--bots", "random", "--games", "2", "--ray", "127.0.0.1:1"])
    assert ray.exit_code == 2 and "cannot reach a Ray cluster" in ray.output


def test_a_win_share_of_all_or_nothing_still_gets_an_interval_of_some_width() -> None:
    # heuristic beats random in every game of these 6 (checked: seed 1); a finite sample is not certainty.
    summary = tournament(["heuristic", "random"], games=6, seed=1)
    best, worst = summary.entries
    assert best.win_share.mean == 1.0 and worst.win_share.mean == 0.0
    assert best.win_share.high == 1.0 and best.win_share.low is not None and 0.5 < best.win_share.low < 0.7
    assert worst.win_share.low == 0.0 and worst.win_share.high is not None and 0.3 < worst.win_share.high < 0.5
    for s in summary.entries:
        data = s.to_json()["win_share"]
        assert isinstance(data, dict) and set(data) == {"mean", "ci95", "low", "high", "n"}
        assert data["ci95"] is not None and data["ci95"] > 0
        assert 0.0 <= data["low"] <= data["mean"] <= data["high"] <= 1.0


def test_a_win_share_takes_the_wider_of_wilson_and_the_interval_over_deal_sets() -> None:
    # Deal sets that disagree (won all, lost all): the games of a deal set are not independent,
    # so the spread between deal sets wins over Wilson's interval on 40 games (about 0.35-0.65).
    spread = share_interval([0.0, 1.0, 0.0, 1.0], wins=20, games=40)
    assert (spread.mean, spread.low, spread.high) == (0.5, 0.0, 1.0)
    # Deal sets that agree: Student's t says zero width, Wilson does not.
    agree = share_interval([0.5, 0.5, 0.5, 0.5], wins=20, games=40)
    low, high = wilson(20, 40)
    assert agree.low == low and agree.high == high and 0.3 < low < 0.4 and 0.6 < high < 0.7
