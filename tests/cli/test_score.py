"""The score sheet for real-deck tables: logic and the real ``nimmt score`` process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nimmt.core import Rules
from nimmt.scoresheet import ScoreSheet, ScoreSheetError


def nimmt(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nimmt", *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def test_exactly_the_threshold_plays_on_and_above_it_ends() -> None:
    sheet = ScoreSheet(("Ana", "Bruno", "Carla")).add_round([66, 10, 20])
    assert not sheet.is_over and sheet.winners == ()
    sheet = sheet.add_round([0, 0, 47])
    assert sheet.is_over
    assert sheet.totals == (66, 10, 67)
    assert sheet.winners == (1,)


def test_shared_win_and_countdown() -> None:
    sheet = ScoreSheet(("Ana", "Bruno", "Carla"), Rules(end_above=20)).add_round([5, 5, 21])
    assert sheet.winners == (0, 1)
    assert sheet.countdown == (15, 15, -1)


def test_fixed_rounds_ignore_the_threshold() -> None:
    sheet = ScoreSheet(("Ana", "Bruno"), Rules(rounds=2)).add_round([100, 0])
    assert not sheet.is_over
    assert sheet.add_round([0, 1]).winners == (1,)


@pytest.mark.parametrize(
    "penalties, message",
    [([1], "one penalty per player"), ([1, -1], "whole number"), ([1, "2"], "whole number"),
     ([1, True], "whole number"), ([100, 100], "171")],
)
def test_wrong_rounds_are_refused_and_change_nothing(penalties: list[object], message: str) -> None:
    sheet = ScoreSheet(("Ana", "Bruno")).add_round([3, 4])
    with pytest.raises(ScoreSheetError, match=message):
        sheet.add_round(penalties)
    assert sheet.rounds == ((3, 4),)


def test_no_round_after_the_end_and_undo() -> None:
    sheet = ScoreSheet(("Ana", "Bruno")).add_round([67, 0])
    with pytest.raises(ScoreSheetError, match="over"):
        sheet.add_round([0, 0])
    assert sheet.undo().rounds == ()
    with pytest.raises(ScoreSheetError, match="no round"):
        sheet.undo().undo()


def test_json_round_trip_checks_again() -> None:
    sheet = ScoreSheet(("Ana", "Bruno"), Rules(end_above=30)).add_round([3, 4])
    assert ScoreSheet.from_json(sheet.to_json()) == sheet
    data = sheet.to_json()
    data["rounds"].append([1])
    with pytest.raises(ScoreSheetError, match="round 2"):
        ScoreSheet.from_json(data)


def test_terminal_sheet_plays_to_the_end_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "sheet.json"
    first = nimmt("score", "Ana", "Bruno", "--file", str(path), "--lang", "en", stdin="30 36\nnonsense\nq\n")
    assert first.returncode == 0, first.stderr
    assert "Type 2 whole numbers" in first.stdout
    assert json.loads(path.read_text())["rounds"] == [[30, 36]]
    second = nimmt("score", "--file", str(path), "--lang", "pt-BR", stdin="0 30\n1 2 3\nu\n0 31\n")
    assert second.returncode == 0, second.stderr
    assert "Essa rodada não foi registrada" in second.stdout
    saved = json.loads(path.read_text())
    assert saved["rounds"] == [[30, 36], [0, 31]]  # the undone round is gone; 67 ends the game
    assert saved["finished"] is True and saved["winners"] == [0]
    assert "Bruno tem 67, acima de 66: o jogo termina." in second.stdout
    assert "Vencedor: Ana, com 30 cabeças de boi." in second.stdout


def test_terminal_sheet_bad_options_are_clear() -> None:
    result = nimmt("score", "Ana")
    assert result.returncode == 2
    assert "2 to 10 players" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_sheet_file_that_cannot_be_written_is_said_before_any_round(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "sheet.json"
    result = nimmt("score", "Ana", "Bruno", "--file", str(path), "--lang", "en", stdin="3 4\nq\n")
    assert result.returncode == 2
    assert f"cannot write to {path}" in result.stderr and "no such file or folder" in result.stderr
    assert "saved" not in result.stdout and "Round 1" not in result.stdout
    assert "Traceback" not in result.stderr
    assert not path.parent.exists()


def test_a_sheet_file_lost_mid_game_loses_no_round(tmp_path: Path) -> None:
    """The folder goes away after the first round: the next round is kept, the person is told, and
    at the end the whole sheet is printed and the exit status says it was not saved."""
    folder = tmp_path / "sheets"
    folder.mkdir()
    path = folder / "sheet.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "nimmt", "score", "Ana", "Bruno", "--file", str(path), "--lang", "en"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("3 4\n")
    process.stdin.flush()
    for _ in range(200):  # bounded: the prompt of round 2 comes within a few lines
        if "Round 2" in process.stdout.readline():
            break
    assert json.loads(path.read_text())["rounds"] == [[3, 4]]
    path.unlink()
    folder.rmdir()
    out, err = process.communicate("5 6\nq\n", timeout=60)
    assert process.returncode == 1, err
    assert "cannot be written" in out and "Traceback" not in err
    last = json.loads(out.strip().splitlines()[-1])
    assert last["rounds"] == [[3, 4], [5, 6]]


def test_names_and_bounds_are_checked() -> None:
    for players, key in ((("Ana\x1b[31m", "Bruno"), "name_control"), (("Ana\u202e", "Bruno"), "name_direction"),
                         (("A" * 25, "Bruno"), "name_long"), (("\u200b", "Bruno"), "name_empty")):
        with pytest.raises(ScoreSheetError) as caught:
            ScoreSheet(players)
        assert caught.value.key == key
    with pytest.raises(ScoreSheetError, match="from 0 to 1000"):
        ScoreSheet(("Ana", "Bruno"), Rules(end_above=2**70))
    with pytest.raises(ScoreSheetError, match="from 1 to 30"):
        ScoreSheet(("Ana", "Bruno"), Rules(rounds=31))
    assert ScoreSheet(("  Ana\u00a0\u00a0Maria ", "Bruno")).players == ("Ana Maria", "Bruno")
    result = nimmt("score", "Ana", "Bruno\u202e", "--lang", "de")
    assert result.returncode == 2 and "Schreibrichtung" in result.stderr
    result = nimmt("score", "Ana", "Bruno", "--end-above", str(2**70), "--lang", "en")
    assert result.returncode == 2 and "from 0 to 1000" in result.stderr
