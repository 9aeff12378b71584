"""Puzzles: positions where one choice is clearly best, with the review's numbers; ``nimmt puzzle``."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from datetime import date, timedelta

import pytest

from nimmt.bots import make_bot
from nimmt.core import HAND_SIZE, Rules
from nimmt.i18n import translator
from nimmt.match import play_game
from nimmt.puzzles import MARGIN, Puzzle, PuzzleError, bank, of_day, puzzles_of
from nimmt.review import review


def _check(puzzle: Puzzle) -> None:
    options = [option for option, _, _ in puzzle.options]
    if puzzle.kind == "card":
        assert sorted(options) == sorted(puzzle.hand)
        assert len(puzzle.hand) == HAND_SIZE - puzzle.turn + 1
    else:
        assert options == [0, 1, 2, 3] and puzzle.card is not None
    ranked = sorted(puzzle.options, key=lambda item: item[1])
    assert ranked[0][0] == puzzle.best
    assert ranked[1][1] - ranked[0][1] >= MARGIN - 0.02  # clearly best (stored to 2 decimals)
    cards = [c for row in puzzle.rows for c in row] + list(puzzle.hand) + list(puzzle.public)
    assert len(cards) == len(set(cards))
    assert puzzle.answer(puzzle.best) == (True, 0.0)
    other = ranked[1][0]
    right, lost = puzzle.answer(other)
    assert not right and lost >= MARGIN - 0.02
    with pytest.raises(PuzzleError):
        puzzle.answer(105)


def test_puzzles_of_a_reviewed_game_are_clear_and_well_formed() -> None:
    bots = [make_bot(name, random.Random(i)) for i, name in enumerate(("random", "beginner", "random", "heuristic"))]
    record = play_game(bots, random.Random(11), Rules(rounds=2))
    found = puzzles_of(record, review(record, samples=256))
    assert found, "two rounds of random players hold clear choices"
    for puzzle in found:
        _check(puzzle)
        assert Puzzle.from_json(json.loads(json.dumps(puzzle.to_json()))).to_json() == puzzle.to_json()
    assert all(p.best in [o for o, _, _ in p.options] for p in found)


def test_the_shipped_bank_holds_sound_puzzles_one_a_day() -> None:
    puzzles = bank()
    assert len(puzzles) >= 30
    for puzzle in puzzles:
        _check(puzzle)
    day = date(2026, 12, 1)
    assert of_day(day) == of_day(day)
    assert len({of_day(day + timedelta(days=i)) for i in range(30)}) == 30
    with pytest.raises(PuzzleError):
        Puzzle.from_json({"players": 4})


def nimmt(*args: str, given: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nimmt", *args], input=given, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("language", ["en", "fr", "pt-BR"])
def test_nimmt_puzzle_asks_and_answers_with_the_numbers(language: str) -> None:
    day = "2026-12-01"
    puzzle = of_day(date.fromisoformat(day))
    shift = 1 if puzzle.kind == "row" else 0
    _ = translator(language, "puzzle")
    done = nimmt("puzzle", "--day", day, "--lang", language, "--answer", str(puzzle.best + shift))
    assert done.returncode == 0, done.stderr
    assert _("hand", cards=" ".join(map(str, puzzle.hand)) or "–") in done.stdout
    assert _("right", best=puzzle.best + shift, expected="", error="").split(" ")[0] in done.stdout
    worse = sorted(puzzle.options, key=lambda item: item[1])[-1][0] + shift
    done = nimmt("puzzle", "--day", day, "--lang", language, given=f"999\n{worse}\n")
    assert done.returncode == 0, done.stderr
    assert _("not_an_option", answer=999, options="").split(":")[0] in done.stderr
    assert _("wrong", chosen=worse, best=puzzle.best + shift, loss="", expected="",
             best_expected="").split(":")[0] in done.stdout


def test_nimmt_puzzle_json_and_bad_input() -> None:
    done = nimmt("puzzle", "--day", "2026-12-02", "--json")
    data = json.loads(done.stdout)
    assert data["day"] == "2026-12-02" and Puzzle.from_json(data) == of_day(date(2026, 12, 2))
    assert nimmt("puzzle", "--day", "yesterday").returncode == 2
    assert nimmt("puzzle", "--day", "2026-12-01", "--answer", "105").returncode == 2


@pytest.mark.parametrize("language", ["en", "pt-PT"])
def test_nimmt_puzzle_says_so_when_the_input_ends_without_an_answer(language: str) -> None:
    # Typer's prompt ended such a run with a bare "Aborted!".
    _ = translator(language, "puzzle")
    done = nimmt("puzzle", "--day", "2026-12-01", "--lang", language, given="7777\n")
    assert done.returncode == 1
    assert _("no_answer") in done.stderr and "Aborted" not in done.stderr + done.stdout
