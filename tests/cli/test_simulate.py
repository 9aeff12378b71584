"""``nimmt simulate`` as a real process: the JSON summary, --jobs, --records and bad options."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nimmt.cli.main import app
from nimmt.cli.simulate import (
    BATCH_BOTS,
    batch_engine_plays,
    play_one,
    simulate,
    simulate_batch,
    summarize,
    summarize_tally,
)
from nimmt.core import Rules
from nimmt.i18n import translator
from nimmt.records import load, score


def nimmt(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nimmt", *args], capture_output=True, text=True, timeout=120)


def run_json(*args: str) -> dict[str, Any]:
    done = nimmt("simulate", "--json", *args)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1  # exactly one JSON object, no progress bar or table
    data: dict[str, Any] = json.loads(lines[0])
    return data


def test_json_summary_has_one_entry_per_seat_and_win_shares_add_up_to_one() -> None:
    data = run_json("--games", "30", "--players", "3", "--bots", "heuristic,random,random", "--seed", "4")
    for key in ("games", "players", "bots", "mean_penalty_per_round", "win_share", "games_per_second"):
        assert key in data
    assert data["games"] == 30 and data["players"] == 3
    assert data["bots"] == ["heuristic", "random", "random"]
    assert len(data["mean_penalty_per_round"]) == len(data["win_share"]) == 3
    assert math.isclose(sum(data["win_share"]), 1.0, abs_tol=1e-5)
    assert data["games_per_second"] > 0
    for mean, (low, high) in zip(data["mean_penalty_per_round"], data["mean_penalty_per_round_ci95"], strict=True):
        assert low < mean < high
    # Win shares: Wilson's interval, within 0-1 and never of zero width (not even at 0% or 100%).
    for share, (low, high) in zip(data["win_share"], data["win_share_ci95"], strict=True):
        assert 0 <= low <= share <= high <= 1 and high - low > 0.1
    # A game ends only after a round with a total above 66, so somebody's game total is above 66.
    assert max(data["mean_penalty_per_game"]) > 66 / 3


def test_one_name_fills_every_seat() -> None:
    data = run_json("--games", "3", "--players", "5", "--bots", "random", "--seed", "1", "--rounds", "1")
    assert data["bots"] == ["random"] * 5
    assert data["rounds"] == 3


def _without_speed(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "games_per_second"}


def test_results_do_not_depend_on_the_number_of_processes() -> None:
    args = ("--games", "24", "--players", "4", "--seed", "99", "--end-above", "30")
    one = run_json(*args, "--bots", "heuristic,random,random,heuristic", "--jobs", "1")
    two = run_json(*args, "--bots", "heuristic,random,random,heuristic", "--jobs", "2")
    assert _without_speed(one) == _without_speed(two)
    other = run_json("--games", "24", "--bots", "heuristic,random,random,heuristic", "--seed", "100",
                     "--end-above", "30")
    assert _without_speed(other) != _without_speed(one)


def test_records_replay_and_score_the_same(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    data = run_json("--games", "6", "--players", "3", "--bots", "heuristic", "--seed", "8", "--records", str(folder))
    files = sorted(folder.glob("*.json"))
    assert len(files) == 6
    rules = Rules()
    for index, path in enumerate(files):
        result = score(load(path))
        assert result.finished
        again = play_one(8, index, ["heuristic"] * 3, rules, None)
        assert result.totals == again.totals and result.rounds == again.rounds
        assert result.winners == again.winners
    totals = [score(load(p)).totals for p in files]
    per_game = [sum(t[s] for t in totals) / 6 for s in range(3)]
    assert [round(x, 6) for x in per_game] == data["mean_penalty_per_game"]


def test_summary_splits_a_shared_win() -> None:
    results, seconds = simulate(40, ["random"] * 2, 3, Rules(end_above=0))
    summary = summarize(results, ["random"] * 2, seconds, 3, Rules(end_above=0))
    shared = [g for g in results if len(g.winners) == 2]
    alone = [sum(1 for g in results if g.winners == (s,)) for s in range(2)]
    for seat in range(2):
        assert math.isclose(summary["win_share"][seat], (alone[seat] + len(shared) / 2) / 40, abs_tol=1e-6)


def test_table_output() -> None:
    done = nimmt("simulate", "--games", "4", "--bots", "heuristic,random,random,random", "--seed", "2")
    assert done.returncode == 0, done.stderr
    assert "heuristic" in done.stdout and "win share" in done.stdout and "games per second" in done.stdout
    assert done.stderr == ""  # no progress bar when stderr is not a terminal


@pytest.mark.parametrize(
    ("args", "words"),
    [(["--bots", "nobody"], "unknown bot 'nobody'"), (["--players", "11"], "2 to 10 players"),
     (["--games", "0"], "--games"), (["--games", "many"], "--games"), (["--jobs", "0"], "--jobs"),
     (["--end-above", "-1"], "--end-above"), (["--rounds", "0"], "--rounds"),
     (["--bots", "random,heuristic"], "2 bots listed for 4 seats"), (["--bots", "random,,random"], "empty")],
)
def test_bad_options_exit_2_with_a_clear_message(args: list[str], words: str) -> None:
    done = CliRunner().invoke(app, ["simulate", *args])
    assert done.exit_code == 2
    assert words in " ".join(done.output.replace("│", " ").split())
    assert done.exception is None or isinstance(done.exception, SystemExit)


def test_a_bad_option_in_the_real_process() -> None:
    done = nimmt("simulate", "--bots", "nobody")
    assert done.returncode == 2
    assert "unknown bot 'nobody'" in done.stderr
    assert "Traceback" not in done.stderr


def test_records_folder_that_is_a_file(tmp_path: Path) -> None:
    target = tmp_path / "file.json"
    target.write_text("{}")
    done = nimmt("simulate", "--games", "1", "--records", str(target))
    assert done.returncode == 2
    assert "is a file, not a folder" in " ".join(done.stderr.replace("│", " ").split())


def test_ctrl_c_stops_every_process_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    process = subprocess.Popen(
        [sys.executable, "-m", "nimmt", "simulate", "--games", "100000", "--jobs", "2", "--seed", "1",
         "--records", str(folder), "--lang", "de"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    # Wait until both workers play (each has saved a game of its first batch of 500), not for a time:
    # a Ctrl-C before then would reach a process that is still starting.
    deadline = time.monotonic() + 120
    while not ((folder / "game-000001.json").exists() and (folder / "game-000501.json").exists()):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the workers did not start playing"
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole process group
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert translator("de", "sim")("sim_stopped") in err
    assert "Traceback" not in err + out


NODE_BOT = Path(__file__).resolve().parents[2] / "examples" / "node-bot" / "bot.js"


def test_a_bot_program_can_take_a_seat() -> None:
    data = run_json("--games", "2", "--players", "3", "--bots", f"cmd:node {NODE_BOT},random,heuristic",
                    "--seed", "5", "--jobs", "2")
    assert data["bots"][1:] == ["random", "heuristic"]
    assert math.isclose(sum(data["win_share"]), 1.0, abs_tol=1e-5)


def test_a_bot_program_that_fails_stops_the_run_with_a_message() -> None:
    done = nimmt("simulate", "--games", "2", "--bots", "cmd:/nonexistent/bot-program,random,random,random")
    assert done.returncode == 1
    assert "could not be started" in done.stderr
    assert "Traceback" not in done.stderr


# -- the batch engine and the step engine give the same statistics ----------------------------------

@pytest.mark.parametrize(
    ("bots", "seeds"),
    [(["random"] * 4, (1, 2, 3)), (["heuristic", "random", "random"], (4, 5)),
     (["beginner", "heuristic", "random", "beginner", "random"], (6,))],
)
def test_batch_and_step_engines_agree_within_their_confidence_bounds(bots: list[str], seeds: tuple[int, ...]) -> None:
    """Same bots, several seeds: each seat's mean penalty per round and per game, and its share of
    wins, from the two engines differ by less than 4.5 standard errors of the difference (the runs
    are seeded, so the test is repeatable; the margin keeps it so when the chance drawn changes)."""
    pytest.importorskip("numba")
    rules = Rules()
    for seed in seeds:
        assert batch_engine_plays(bots)
        results, _ = simulate(250, bots, seed, rules)
        step = summarize(results, bots, 1.0, seed, rules)
        tally, _ = simulate_batch(4000, bots, seed, rules)
        batch = summarize_tally(tally, bots, 1.0, seed, rules)
        assert batch["games"] == 4000 and batch["rounds"] > 4000
        for mean, ci in (("mean_penalty_per_round", "mean_penalty_per_round_ci95"),
                         ("mean_penalty_per_game", "mean_penalty_per_game_ci95")):
            for seat in range(len(bots)):
                error = math.hypot(*((s[ci][seat][1] - s[ci][seat][0]) / 2 / 1.96 for s in (step, batch)))
                assert abs(step[mean][seat] - batch[mean][seat]) < 4.5 * error, (seed, mean, seat, step, batch)
        for seat in range(len(bots)):
            p, q = step["win_share"][seat], batch["win_share"][seat]
            error = math.sqrt(max(p * (1 - p), 0.01) / 250 + max(q * (1 - q), 0.01) / 4000)
            assert abs(p - q) < 4.5 * error, (seed, seat, step, batch)


def test_batch_engine_results_do_not_depend_on_jobs_and_differ_by_seed() -> None:
    pytest.importorskip("numba")
    rules = Rules(end_above=40)
    one, _ = simulate_batch(5000, ["heuristic", "random"], 7, rules, jobs=1)
    two, _ = simulate_batch(5000, ["heuristic", "random"], 7, rules, jobs=2)
    other, _ = simulate_batch(5000, ["heuristic", "random"], 8, rules, jobs=1)
    assert one == two != other
    assert one.games == 5000 and sum(one.wins) == 5000


def test_which_engine_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    from nimmt.batch import SEAT_POLICIES

    assert SEAT_POLICIES.keys() == BATCH_BOTS
    pytest.importorskip("numba")
    assert batch_engine_plays(["random", "beginner", "heuristic"])
    assert not batch_engine_plays(["random", "expert"])
    assert not batch_engine_plays(["random", "montecarlo"])
    assert not batch_engine_plays(["random", "cmd:node bot.js"])
    assert not batch_engine_plays(["random", "random"], Path("games"))
    monkeypatch.setenv("NIMMT_BATCH_ENGINE", "numpy")  # the NumPy path has no per-seat policies
    assert not batch_engine_plays(["random", "random"])


def test_exact_rounds_through_the_batch_engine() -> None:
    data = run_json("--games", "500", "--players", "3", "--bots", "beginner", "--rounds", "2", "--seed", "3")
    assert data["rounds"] == 1000 and data["rules"] == {"end_above": 66, "rounds": 2}
    assert math.isclose(sum(data["win_share"]), 1.0, abs_tol=1e-5)
