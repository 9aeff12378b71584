"""``nimmt tournament --save FILE``: every finished game kept, a stopped run goes on where it
stopped and ends with the same results as one uninterrupted run; a kill stops a run as Ctrl-C does;
plain progress in a log."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from nimmt.cli.main import app

BOTS = "heuristic,random,random,random"
# Rich would draw a live bar if told the output is a terminal; these runs write to a pipe.
ENV: dict[str, str | None] = {"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "TTY_INTERACTIVE": None}


def run(*args: str) -> Any:
    return CliRunner(env=ENV).invoke(app, ["tournament", "--bots", BOTS, "--seed", "7", *args])


def without_timings(data: dict[str, Any]) -> dict[str, Any]:
    data = {k: v for k, v in data.items() if k not in ("seconds", "run_seconds", "save")}
    for group in ("entries", "by_bot"):
        data[group] = [{k: v for k, v in s.items() if k != "timing"} for s in data[group]]
    return data


def flat(text: str) -> str:
    """A message as one line: rich wraps a long one (a long temporary path) inside a box."""
    return " ".join(text.translate(str.maketrans("", "", "│╭╮╰╯─")).split())


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_run_stopped_part_way_goes_on_to_the_results_of_one_uninterrupted_run(tmp_path: Path) -> None:
    save = tmp_path / "games.jsonl"
    whole = run("--games", "8", "--json")
    assert whole.exit_code == 0, whole.output
    first = run("--games", "4", "--json", "--save", str(save))  # deal set 0 is the same whatever --games says
    assert first.exit_code == 0, first.output
    assert len(lines(save)) == 1 + 4
    rest = run("--games", "8", "--json", "--save", str(save))
    assert rest.exit_code == 0, rest.output
    assert "4 games already in" in rest.stderr
    saved = lines(save)
    assert saved[0]["format"] == "nimmt-tournament/1" and saved[0]["bots"] == BOTS.split(",")
    assert sorted((g["deal_set"], g["rotation"]) for g in saved[1:]) == [(d, r) for d in range(2) for r in range(4)]
    assert without_timings(json.loads(rest.stdout)) == without_timings(json.loads(whole.stdout))
    assert json.loads(rest.stdout)["games"] == 8
    # Run once more: nothing left to play, the same results again.
    again = run("--games", "8", "--json", "--save", str(save))
    assert again.exit_code == 0 and len(lines(save)) == 1 + 8
    assert without_timings(json.loads(again.stdout)) == without_timings(json.loads(whole.stdout))


def test_a_last_line_cut_short_is_dropped_with_a_warning_and_its_game_played_again(tmp_path: Path) -> None:
    save = tmp_path / "games.jsonl"
    assert run("--games", "4", "--json", "--save", str(save)).exit_code == 0
    text = save.read_bytes()
    save.write_bytes(text[:-40])  # the process killed while writing the fourth game
    result = run("--games", "4", "--json", "--save", str(save))
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert "line 5 of" in result.stderr and "cut short" in result.stderr
    assert "3 games already in" in result.stderr
    assert json.loads(result.stdout)["games"] == 4
    saved = lines(save)  # every line whole again
    assert sorted((g["deal_set"], g["rotation"]) for g in saved[1:]) == [(0, r) for r in range(4)]


def test_a_file_of_other_settings_or_no_save_file_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    save = tmp_path / "games.jsonl"
    assert run("--games", "4", "--save", str(save)).exit_code == 0
    before = save.read_bytes()
    for other in (["--seed", "8"], ["--rounds", "3"], ["--time-budget", "0.5"]):
        result = run("--games", "4", "--save", str(save), *other)
        assert result.exit_code == 2 and "holds games of another tournament" in flat(result.output), other
        assert "Traceback" not in flat(result.output)
    players = CliRunner(env=ENV).invoke(app, ["tournament", "--bots", "heuristic,random", "--seed", "7",
                                              "--save", str(save)])
    assert players.exit_code == 2 and "holds games of another tournament" in flat(players.output)
    assert save.read_bytes() == before
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\nabout bots\n")
    result = run("--games", "4", "--save", str(notes))
    assert result.exit_code == 2 and "is not JSON" in flat(result.output)
    assert notes.read_text() == "my notes\nabout bots\n"
    folder = run("--games", "4", "--save", str(tmp_path))
    assert folder.exit_code == 2 and "cannot read" in flat(folder.output)


def stopped(args: list[str], ready: Callable[[], bool], sent: signal.Signals) -> tuple[int, str, str]:
    """``nimmt tournament ARGS`` in a process of its own, sent ``sent`` as soon as ``ready()`` (within
    120 s): its exit status, standard output and standard error."""
    nimmt = Path(sys.executable).with_name("nimmt")
    env = {k: v for k, v in os.environ.items() if k not in ENV}
    process = subprocess.Popen([str(nimmt), "tournament", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)
    try:
        deadline = time.monotonic() + 120
        while not ready():
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.05)
        process.send_signal(sent)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    return process.returncode, out, err


def test_a_stopped_process_keeps_every_finished_game_and_the_next_run_goes_on(tmp_path: Path) -> None:
    save = tmp_path / "games.jsonl"
    code, out, err = stopped(
        ["--bots", BOTS, "--seed", "3", "--games", "100000", "--save", str(save), "--json"],
        lambda: save.exists() and save.read_text().count("\n") >= 4,  # the header and 3 games
        signal.SIGINT,
    )
    assert code == 130, err
    assert "Traceback" not in err
    saved = lines(save)  # every line whole
    kept = len(saved) - 1
    assert kept >= 3 and f"stopped: {kept} finished games are kept in" in err
    # The summary of a stopped run counts its complete deal sets only (none yet: nothing printed).
    complete = kept // 4 if sorted((g["deal_set"], g["rotation"]) for g in saved[1:]) == [
        (d, r) for d in range(kept // 4) for r in range(4)] + [(kept // 4, r) for r in range(kept % 4)] else None
    assert complete is not None
    if complete == 0:
        assert out == ""
    else:
        told = json.loads(out)
        assert told["games"] == 4 * complete and told["games_left_out"] == kept % 4
    # Going on needs only the file: the seed comes from it. The signal lands after any number of games
    # (a slow machine plays more before it), so the next run asks for the deal sets they began, whole:
    # it plays only the missing rotations and its summary counts every game in the file.
    total = 4 * max(1, -(-kept // 4))
    result = CliRunner(env=ENV).invoke(app, ["tournament", "--bots", BOTS, "--games", str(total), "--save",
                                             str(save), "--json"])
    assert result.exit_code == 0, result.output
    assert f"{kept} games already in" in result.stderr
    data = json.loads(result.stdout)
    assert sorted((g["deal_set"], g["rotation"]) for g in lines(save)[1:]) == [
        (d, r) for d in range(total // 4) for r in range(4)]
    assert data["seed"] == 3 and data["games"] == total and data["games_left_out"] == 0


def test_a_kill_stops_a_run_as_ctrl_c_does_and_says_what_is_lost(tmp_path: Path) -> None:
    # SIGTERM (kill, a service manager) stops the run with status 130 and one line, no traceback;
    # without --save, the games played are lost and the line says so.
    recorder = Path(__file__).resolve().parents[1] / "protocol" / "bots" / "recorder.py"
    code, out, err = stopped(
        ["--bots", f"cmd:{sys.executable} {recorder} {tmp_path},random", "--games", "100000", "--seed", "2",
         "--lang", "en"],
        lambda: any("act" in log.read_text() for log in tmp_path.glob("*.log")),  # a game is being played
        signal.SIGTERM,
    )
    assert code == 130, err
    assert out == "" and "Traceback" not in err
    assert "stopped: nothing is kept (with --save FILE, every finished game would be)" in flat(err)


def test_progress_is_plain_lines_on_a_stderr_that_is_not_a_terminal_and_stdout_stays_json() -> None:
    result = CliRunner(env=ENV).invoke(app, ["tournament", "--bots", "heuristic,random", "--games", "20",
                                             "--seed", "1", "--json", "--lang", "de"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["games"] == 20
    shown = result.stderr.splitlines()
    # A line at each tenth (and, on a stalled machine, once a minute between them), in German.
    assert set(shown) >= {f"{done}/20 Spiele" for done in range(2, 21, 2)}
    assert all(line.endswith("/20 Spiele") for line in shown) and shown[-1] == "20/20 Spiele"


def test_a_tournament_against_a_field_goes_on_from_its_save_file(tmp_path: Path) -> None:
    save = tmp_path / "field.jsonl"
    args = ["tournament", "--bots", "heuristic", "--field", "--field-bots", "field:lowest,field:gap,field:safe",
            "--players", "3", "--seed", "4", "--json"]
    whole = CliRunner(env=ENV).invoke(app, [*args, "--games", "6"])
    assert whole.exit_code == 0, whole.output
    first = CliRunner(env=ENV).invoke(app, [*args, "--games", "3", "--save", str(save)])
    assert first.exit_code == 0, first.output
    header = lines(save)[0]
    assert header["field"] == ["field:lowest", "field:gap", "field:safe"] and header["players"] == 3
    assert header["budget_clock"] == "cpu"
    rest = CliRunner(env=ENV).invoke(app, [*args, "--games", "6", "--save", str(save)])
    assert rest.exit_code == 0, rest.output
    assert without_timings(json.loads(rest.stdout)) == without_timings(json.loads(whole.stdout))
    other = CliRunner(env=ENV).invoke(app, [*args[:5], "field:lowest,field:gap", *args[6:], "--save", str(save)])
    assert other.exit_code == 2 and "holds games of another tournament" in flat(other.output)


def test_what_a_stopped_run_says_it_kept_is_counted_in_the_file(tmp_path: Path) -> None:
    # A Ctrl-C delivered to another thread can land between a game's line and its count: the
    # count a stopped run gives comes from the file, not from what this process counted.
    from nimmt.tournament.save import SaveFile

    save = tmp_path / "games.jsonl"
    assert run("--games", "4", "--json", "--save", str(save)).exit_code == 0
    opened = SaveFile.open(save, _settings(save))
    assert opened.kept() == len(opened.done) == 4
    written = lines(save)[1:]
    opened.done.pop((written[-1]["deal_set"], written[-1]["rotation"]))  # the line is there, its count is not
    assert opened.kept() == 4
    opened.close()


def _settings(save: Path) -> Any:
    """The settings a save file's header holds."""
    from nimmt.tournament.save import Settings

    header = lines(save)[0]
    return Settings(bots=tuple(header["bots"]), seed=header["seed"], rounds=header["rounds"],
                    time_budget=header["time_budget"], budget_clock=header["budget_clock"])
