"""Tournaments with program bots (nimmt-bot/1): seated like built-in bots, told ``bye`` after every
game, short labels, bots files, their own decision times; crashing, slow and lying programs stop the
tournament with a clear message."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nimmt.cli.main import app
from nimmt.tournament import (
    GameFailed,
    Seat,
    SeatError,
    parse_seats,
    read_bots_file,
    tournament,
)
from nimmt.tournament.seats import entry_labels, split_list

BOTS = Path(__file__).resolve().parents[1] / "protocol" / "bots"
RECORDER = BOTS / "recorder.py"
ENV: dict[str, str | None] = {"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "TTY_INTERACTIVE": None,
                              "COLUMNS": "300"}


def recorder(folder: Path, *options: str) -> str:
    return f"cmd:{sys.executable} {RECORDER} {folder} {' '.join(options)}".rstrip()


def logs(folder: Path) -> list[list[str]]:
    return [path.read_text().splitlines() for path in sorted(folder.glob("*.log"))]


def flat(text: str) -> str:
    return " ".join(text.translate(str.maketrans("", "", "│╭╮╰╯─")).split())


def test_programs_take_seats_and_each_is_told_bye_after_every_game(tmp_path: Path) -> None:
    bot = recorder(tmp_path)
    summary = tournament([bot, bot, "heuristic"], games=3, seed=5, rounds=1)
    assert summary.games == 3
    # Two program seats in each of 3 games: six processes, each told hello, asked, then bye.
    seen = logs(tmp_path)
    assert len(seen) == 6
    for lines in seen:
        assert lines[1] == "hello" and lines[-1] == "bye"
        assert set(lines[2:-1]) == {"act"} and len(lines[2:-1]) >= 10
    assert [s.label for s in summary.entries] == ["recorder.py#1", "recorder.py#2", "heuristic"]
    assert [(s.label, s.seats) for s in summary.by_bot] == [("recorder.py", 2), ("heuristic", 1)]


def test_a_programs_decision_times_leave_out_its_start_and_count_its_own_cpu(tmp_path: Path) -> None:
    # A start of 2 s: counted in, some decision would take at least that long; a decision of 0.02 s
    # stays far under it even on a busy machine (0.5 s against a 0.6 s start failed at a load of 27).
    slow_start = recorder(tmp_path, "--start-delay", "2.0", "--burn", "0.02")
    summary = tournament([slow_start, "beginner"], games=2, seed=1, rounds=1)
    timing = summary.entries[0].timing
    assert timing.decisions >= 20
    assert timing.max < 2.0  # the 2 s start is not a decision
    assert timing.p50 >= 0.02
    # The program's CPU time, not nimmt's thread's (which only waits for the answer).
    assert 0.015 <= timing.cpu_p50 < 0.5


def test_the_command_seats_programs_with_copies_and_labels(tmp_path: Path) -> None:
    bot = recorder(tmp_path)
    result = CliRunner(env=ENV).invoke(app, ["tournament", "--bots", f"2*{bot},random", "--games", "3",
                                             "--rounds", "1", "--seed", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["labels"] == ["recorder.py#1", "recorder.py#2", "random"]
    assert data["players"] == 3 and data["budget_clock"] == "cpu"
    first = data["entries"][0]
    assert first["penalty_per_game"]["mean"] == pytest.approx(first["penalty_per_round"]["mean"])  # one round
    assert data["lead"]["mean"] is not None
    assert len(logs(tmp_path)) == 6 and all(lines[-1] == "bye" for lines in logs(tmp_path))
    table = CliRunner(env=ENV).invoke(app, ["tournament", "--bots", f"{bot},random", "--games", "2",
                                            "--rounds", "1", "--seed", "2"])
    assert table.exit_code == 0, table.output
    assert "recorder.py" in table.stdout and "penalty/game" in table.stdout and str(RECORDER) not in table.stdout


def test_a_crashing_program_stops_the_tournament_with_its_last_words(tmp_path: Path) -> None:
    crash = f"cmd:{sys.executable} {BOTS / 'crash.py'} later"
    with pytest.raises(GameFailed) as failed:
        tournament([crash, "random"], games=2, seed=1, jobs=2)  # the failure crosses the process pool
    assert failed.value.failure is not None and failed.value.failure["reason"] == "exit_code"
    assert "something broke at decision 3" in str(failed.value)
    save = tmp_path / "games.jsonl"
    result = CliRunner(env=ENV).invoke(app, ["tournament", "--bots", f"random,{crash}", "--games", "2",
                                             "--seed", "1", "--save", str(save), "--lang", "fr"])
    assert result.exit_code == 1 and "nimmt/tournament" not in result.output  # only the program's own traceback
    told = flat(result.stderr)
    assert "le tournoi s'est arrêté à la série 0, rotation 0" in told and "crash.py" in told
    assert "something broke at decision 3" in told and "0 parties terminées" in told


def test_a_slow_program_times_out_under_its_bots_file_limit(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(
        "[[bot]]\n"
        'name = "sleepy"\n'
        f"command = [{json.dumps(sys.executable)}, {json.dumps(str(BOTS / 'hang.py'))}]\n"
        'args = ["act"]\n'
        "timeout = 0.3\n"
    )
    result = CliRunner(env=ENV).invoke(app, ["tournament", "--bots-file", str(tmp_path / "bots.toml"),
                                             "--bots", "sleepy,beginner", "--games", "2", "--seed", "1"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    told = flat(result.stderr)
    assert "bot 'sleepy' at seat 0" in told and "0.3 s" in told and "thinking forever" in told


def test_a_lying_program_is_stopped_and_never_replaced_by_a_move() -> None:
    liar = f"cmd:{sys.executable} {BOTS / 'liar.py'} not_held"
    with pytest.raises(GameFailed) as failed:
        tournament(["heuristic", liar], games=2, seed=3)
    assert failed.value.failure is not None and failed.value.failure["kind"] == "illegal_action"
    assert "seat 1" in str(failed.value)


def test_a_missing_program_is_told_without_a_traceback() -> None:
    result = CliRunner(env=ENV).invoke(app, ["tournament", "--bots", "random,cmd:/no/such/bot --fast",
                                             "--games", "2", "--lang", "de"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "das Turnier wurde bei Satz 0, Rotation 0 abgebrochen" in flat(result.stderr)
    assert "bot" in flat(result.stderr)


def test_a_bots_file_passes_commas_spaces_and_quotes_as_they_are(tmp_path: Path) -> None:
    folder = tmp_path / "my bots, v2"
    folder.mkdir()
    script = folder / "recorder.py"
    shutil.copy(RECORDER, script)
    out = tmp_path / "logs"
    out.mkdir()
    tricky = ["--tag", "a,b c", "it's \"quoted\"", "", "*"]
    (tmp_path / "bots.toml").write_text(
        "[[bot]]\n"
        'name = "rec"\n'
        f"command = [{json.dumps(sys.executable)}, {json.dumps(str(script))}]\n"
        f"args = {json.dumps([str(out), '--name', 'R, 1', *tricky])}\n"
        "copies = 2\n"
        "timeout = 3\n"
        "\n"
        "[[bot]]\n"
        'name = "quick"\n'
        'bot = "expert"\n'
        "options = { time_budget = 0.01, clock = \"cpu\" }\n"
    )
    named, seats = read_bots_file(tmp_path / "bots.toml")
    assert [s.name for s in seats] == ["rec", "rec", "quick"]
    assert named["rec"].command[-len(tricky):] == tuple(tricky) and named["rec"].timeout == 3.0
    assert entry_labels(seats) == ["rec#1", "rec#2", "quick"]
    result = CliRunner(env=ENV).invoke(app, ["tournament", "--bots-file", str(tmp_path / "bots.toml"),
                                             "--games", "3", "--rounds", "1", "--seed", "4", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["labels"] == ["rec#1", "rec#2", "quick"]
    for lines in logs(out):
        assert json.loads(lines[0]) == [str(out), "--name", "R, 1", *tricky]  # every argument as written
        assert lines[-1] == "bye"
    # The same bots from a JSON file, named in --bots with copies.
    (tmp_path / "bots.json").write_text(json.dumps({"bots": [
        {"name": "rec", "command": [sys.executable, str(script)], "args": [str(out), *tricky]},
    ]}))
    named, _ = read_bots_file(tmp_path / "bots.json")
    assert [s.name for s in parse_seats("2*rec,random", named)] == ["rec", "rec", "random"]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[[bot]]\nname = 'x'\n", "give a program"),
        ("[[bot]]\nname = 'x'\ncommand = ['a']\ncolour = 'red'\n", "unknown key 'colour'"),
        ("[[bot]]\nname = 'x'\nbot = 'expert'\noptions = { speed = 3 }\n", "no option 'speed'"),
        ("[[bot]]\nname = 'x'\ncommand = []\n", "the command is empty"),
        ("[[bot]]\nname = 'a,b'\ncommand = ['a']\n", "needs a name"),
        ("[[bot]]\nname = 'x'\ncommand = ['a']\ntimeout = -1\n", "above 0"),
        ("[[bot]]\nname = 'x'\ncommand = ['a']\n[[bot]]\nname = 'x'\ncommand = ['b']\n", "two bots are named"),
        ("this is = = not toml", "not valid TOML"),
        ("title = 'no bots'\n", "no bots"),
    ],
)
def test_a_bad_bots_file_is_refused_with_a_clear_message(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "bots.toml"
    path.write_text(text)
    with pytest.raises(SeatError) as refused:
        read_bots_file(path)
    assert needle in str(refused.value)
    result = CliRunner(env=ENV).invoke(app, ["tournament", "--bots-file", str(path), "--games", "2",
                                             "--lang", "es"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "no se puede usar el archivo de bots" in flat(result.output) and needle in flat(result.output)


def test_a_missing_bots_file_or_name_is_told_in_the_language(tmp_path: Path) -> None:
    runner = CliRunner(env=ENV)
    missing = runner.invoke(app, ["tournament", "--bots-file", str(tmp_path / "none.toml"), "--lang", "pt-BR"])
    assert missing.exit_code == 2 and "não foi possível ler o arquivo de robôs" in flat(missing.output)
    nothing = runner.invoke(app, ["tournament", "--games", "2"])
    assert nothing.exit_code == 2 and "--bots-file" in flat(nothing.output)
    copies = runner.invoke(app, ["tournament", "--bots", "11*random"])
    assert copies.exit_code == 2 and "1 to 10 seats" in flat(copies.output)
    unknown = runner.invoke(app, ["tournament", "--bots", "random,3*nobody"])
    assert unknown.exit_code == 2 and "unknown bot 'nobody'" in flat(unknown.output)


def test_bot_lists_read_copies_and_commas_inside_quotes() -> None:
    assert split_list('a, cmd:prog --x "1,2" \'3,4\', b') == ["a", "cmd:prog --x \"1,2\" '3,4'", "b"]
    seats = parse_seats('2*cmd:python3 -u my_bot.py --tag "x,y", field:risk')
    assert [s.name for s in seats] == ["my_bot.py", "my_bot.py", "field:risk"]
    assert seats[0].command == ("python3", "-u", "my_bot.py", "--tag", "x,y")
    assert seats[0].key == seats[1].key == "cmd:python3 -u my_bot.py --tag x,y"
    assert entry_labels(["cmd:node a/bot.js", "cmd:node b/bot.js", "cmd:node a/bot.js"]) == [
        "node a/bot.js#1", "node b/bot.js", "node a/bot.js#2"]
    assert Seat(name="heuristic", bot="heuristic").key == "heuristic"
