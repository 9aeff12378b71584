"""``nimmt play`` as a real process, driven line by line through standard input.

The script of a game is found by playing the same game in-process: the same derived random
sources for the deals and the bots (``nimmt.cli._common``), and a scripted human that plays its
lowest card and takes the row with the fewest bullheads. The process must then reach exactly the
totals, winners and record that the in-process game reached.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nimmt import i18n
from nimmt.bots import Bot
from nimmt.cli._common import deal_rng, make_bots
from nimmt.cli.main import app
from nimmt.core import Rules, View
from nimmt.match import play_game
from nimmt.records import GameRecord, load, score

ENV = {**os.environ, "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"}


class ScriptedHuman(Bot):
    """Plays like a simple person would, and writes down what it typed."""

    name = "scripted"
    description = "lowest card; the row with the fewest bullheads"

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.row_choices = 0

    def choose_card(self, view: View) -> int:
        card = min(view.hand)
        self.lines.append(str(card))
        return card

    def choose_row(self, view: View) -> int:
        heads = view.row_bullheads()
        row = min(range(4), key=heads.__getitem__)
        self.lines.append(str(row + 1))
        self.row_choices += 1
        return row


def expected_game(seed: int, players: int, bots: str, rules: Rules) -> tuple[GameRecord, ScriptedHuman]:
    human = ScriptedHuman()
    seated = make_bots([bots] * (players - 1), seed, 0, first_seat=1)
    record = play_game([human, *seated], deal_rng(seed, 0), rules)
    return record, human


def nimmt(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nimmt", *args], input=stdin, capture_output=True, text=True, timeout=120, env=ENV
    )


def test_a_scripted_game_is_played_to_the_final_standings(tmp_path: Path) -> None:
    record, human = expected_game(11, 4, "heuristic", Rules())
    expected = score(record)
    assert expected.finished and len(expected.rounds) >= 2
    path = tmp_path / "game.json"
    done = nimmt("play", "--seed", "11", "--lang", "en", "--name", "[/Ana]", "--record", str(path),
                 stdin="\n".join(human.lines) + "\n")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    out = done.stdout.replace("\u00a0", " ")  # names are glued with non-breaking spaces
    assert "Final standings" in out
    assert "Bot 3 (heuristic) has chosen a card." in out
    assert "Cards (bullheads)" in out and "Your hand:" in out
    for number in range(1, len(expected.rounds) + 1):
        assert f"End of round {number}" in out
    names = ["[/Ana]", "Bot 1 (heuristic)", "Bot 2 (heuristic)", "Bot 3 (heuristic)"]
    low = min(expected.totals)
    if expected.winners == (0,):
        assert f"You win, with {low} bullheads." in out
    elif len(expected.winners) == 1:
        assert f"Winner: {names[expected.winners[0]]}, with {low} bullheads." in out
    else:
        assert "Shared win: " in out and f"with {low} bullheads each." in out
    # Each round but the last says why the game goes on; the last says why it is over.
    assert out.count(": the game goes on.") == len(expected.rounds) - 1
    assert out.count(": the game is over.") == 1 and "above 66: the game is over." in out
    assert "Totals round by round" in out
    # The record written turn by turn is the game that was played.
    saved = load(path)
    assert saved.players == tuple(names)
    assert saved.rounds == record.rounds
    assert score(saved) == expected
    # Every revealed card was told as it was resolved: one line per card placed.
    placed = sum(out.count(f" on row {r}.") + out.count(f" now starts row {r}.") for r in range(1, 5))
    assert "Ana] lays" not in out and "Ana] takes" not in out and "Ana] chooses" not in out
    assert "You lay " in out  # the player is told in the second person
    assert placed == 4 * 10 * len(expected.rounds)


def find_forced_row_seed(players: int) -> tuple[int, GameRecord, ScriptedHuman]:
    for seed in range(200):
        record, human = expected_game(seed, players, "random", Rules(rounds=1))
        if human.row_choices:
            return seed, record, human
    raise AssertionError("no deal in 200 puts the lowest card below every row")


def test_wrong_input_is_asked_again_and_a_low_card_makes_the_player_choose(tmp_path: Path) -> None:
    seed, record, human = find_forced_row_seed(3)
    lines = list(human.lines)
    # Wrong answers before the first card and before the first row choice.
    lines[0:0] = ["abc", "", "999", "0"]
    first_row = next(i for i, line in enumerate(human.lines) if i > 0 and _is_row_answer(record, human, i))
    at = first_row + 4
    lines[at:at] = ["x", "0", "5"]
    path = tmp_path / "low.json"
    done = nimmt("play", "--seed", str(seed), "--players", "3", "--bots", "random", "--rounds", "1",
                 "--lang", "en", "--record", str(path), stdin="\n".join(lines) + "\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert '"abc" is not a card number' in out
    assert "You do not hold card 999" in out
    assert "You do not hold card 0" in out
    assert "is lower than the last card of every row. Choose a row" in out
    assert "You choose row " in out
    assert '"x" is not a row' in out and '"0" is not a row' in out and '"5" is not a row' in out
    assert "Final standings" in out
    assert score(load(path)) == score(record)


def _is_row_answer(record: GameRecord, human: ScriptedHuman, index: int) -> bool:
    """Whether line ``index`` of the script answers a row prompt (the record tells which turns had one)."""
    answers: list[str] = []
    for round_record in record.rounds:
        for turn in round_record.turns:
            answers.append("card")
            if turn.row_for(0) is not None:
                answers.append("row")
    return answers[index] == "row"


def test_end_of_input_leaves_cleanly_and_keeps_the_turns_played(tmp_path: Path) -> None:
    record, human = expected_game(5, 4, "heuristic", Rules())
    path = tmp_path / "cut.json"
    done = nimmt("play", "--seed", "5", "--lang", "en", "--record", str(path), stdin="\n".join(human.lines[:3]) + "\n")
    assert done.returncode == 0
    assert "No more input: you have left the game." in done.stdout
    assert "Traceback" not in done.stderr + done.stdout
    saved = load(path)
    assert len(saved.rounds[0].turns) == 3
    assert saved.rounds[0].turns == record.rounds[0].turns[:3]
    assert not score(saved).finished


def test_ctrl_c_leaves_with_status_130(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "nimmt", "play", "--seed", "1", "--lang", "en"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
    )
    assert process.stdout is not None
    seen = ""
    deadline = time.monotonic() + 60
    while "Which card do you play?" not in seen and time.monotonic() < deadline:
        char = process.stdout.read(1)
        if not char:
            break
        seen += char
    assert "Which card do you play?" in seen
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Interrupted: you have left the game." in out
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("language", "words"),
    [("de", "Welche Karte spielst du?"), ("pt-BR", "Qual carta você joga?"), ("pt-PT", "Que carta jogas?"),
     ("fr", "Quelle carte jouez-vous ?"), ("es", "¿Qué carta juegas?")],
)
def test_the_game_speaks_the_chosen_language(language: str, words: str) -> None:
    done = nimmt("play", "--seed", "2", "--lang", language, stdin="")
    assert done.returncode == 0
    assert words in done.stdout
    assert i18n.translator(language, "play")("bye_eof") in done.stdout


def test_the_language_comes_from_the_locale() -> None:
    env = {**ENV, "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "fr_FR.UTF-8"}
    done = subprocess.run([sys.executable, "-m", "nimmt", "play", "--seed", "2"], input="", capture_output=True,
                          text=True, timeout=60, env=env)
    assert "Quelle carte jouez-vous ?" in done.stdout


def test_every_language_has_every_play_message_with_the_same_placeholders() -> None:
    import string

    def fields(text: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    english = i18n.catalog("en", "play")
    for language in i18n.LANGUAGES:
        messages = json.loads(json.dumps(i18n.catalog(language, "play")))
        assert messages.keys() == english.keys(), language
        for key, text in messages.items():
            assert fields(text) <= fields(english[key]), (language, key)
            if language != "en" and key not in {"col_total", "bot_name"}:
                assert text != english[key], (language, key)


@pytest.mark.parametrize(
    ("args", "words"),
    [(["--players", "11"], "2 to 10 players"), (["--players", "1"], "2 to 10 players"),
     (["--bots", "nobody"], "unknown bot 'nobody'"), (["--bots", "random,random"], "2 bots listed for 3 seats"),
     (["--lang", "xx"], "Unknown language “xx”"), (["--rounds", "0"], "--rounds"), (["--seed", "abc"], "--seed")],
)
def test_bad_options_are_refused_with_status_2(args: list[str], words: str) -> None:
    done = CliRunner().invoke(app, ["play", *args], input="")
    assert done.exit_code == 2
    assert words in " ".join(done.output.replace("│", " ").split())
    assert done.exception is None or isinstance(done.exception, SystemExit)


def test_a_bad_option_in_the_real_process() -> None:
    done = nimmt("play", "--players", "11", stdin="")
    assert done.returncode == 2
    assert "2 to 10 players" in done.stderr
    assert "Traceback" not in done.stderr


def test_end_above_sets_the_end_of_the_game() -> None:
    record, human = expected_game(3, 2, "random", Rules(end_above=10))
    expected = score(record)
    done = nimmt("play", "--seed", "3", "--players", "2", "--bots", "random", "--end-above", "10", "--lang", "en",
                 stdin="\n".join(human.lines) + "\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("End of round") == len(expected.rounds)
    assert max(expected.totals) > 10 and all(max(t) <= 10 for t in _running_totals(expected.rounds)[:-1])
    out = done.stdout.replace("\u00a0", " ")
    low = min(expected.totals)
    assert f"You win, with {low} bullheads." in out or f", with {low} bullheads" in out
    assert "above 10: the game is over." in out


def _running_totals(rounds: tuple[tuple[int, ...], ...]) -> list[tuple[int, ...]]:
    totals: list[tuple[int, ...]] = []
    current = (0,) * len(rounds[0])
    for penalties in rounds:
        current = tuple(a + b for a, b in zip(current, penalties, strict=True))
        totals.append(current)
    return totals


def test_a_record_file_that_cannot_be_written_is_refused(tmp_path: Path) -> None:
    done = CliRunner().invoke(app, ["play", "--record", str(tmp_path / "missing" / "game.json")], input="")
    assert done.exit_code == 2
    assert "cannot write" in " ".join(done.output.replace("│", " ").split())


def test_a_bot_program_that_cannot_start_ends_the_game_with_a_message(tmp_path: Path) -> None:
    done = nimmt("play", "--seed", "1", "--lang", "en", "--bots", "cmd:/nonexistent/bot-program", stdin="")
    assert done.returncode == 1
    assert "A bot program failed and the game cannot go on" in done.stdout
    assert "Traceback" not in done.stderr
