"""``nimmt play``, ``score``, ``replay`` and ``bot-check`` say everything in the page's language, the reason
of an error included, and explain why a game goes on or ended.

Real errors are made (a bad round typed into the score sheet, the broken records of
``tests/data/records/broken``, a bot program that crashes) and each page is checked for English leftovers:
words of the English catalogs that the page's own catalogs do not use. Data (file names, player names,
JSON keys and values quoted from a record) is taken out first.
"""

from __future__ import annotations

import ast
import json
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nimmt.cli._ending import EndTeller
from nimmt.cli.main import app
from nimmt.cli.replay import explain
from nimmt.cli.score import explain as explain_sheet
from nimmt.core import Rules
from nimmt.core.ending import ending
from nimmt.i18n import LANGUAGES, catalog, translator
from nimmt.records import WHY, RecordError, load, replay
from nimmt.scoresheet import ScoreSheet, ScoreSheetError

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "tests" / "data" / "records" / "broken"
BOTS = ROOT / "tests" / "protocol" / "bots"
OTHERS = [language for language in LANGUAGES if language != "en"]
NO_LOCALE = {"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8", "COLUMNS": "250"}
_WORD = re.compile(r"[^\W\d_]+")
# Quoted data: JSON keys and values of a record, a program's answers, in any language's quotes.
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|“[^”]*”|«[^»]*»|„[^“]*“|\{[^{}]*\}|\[[^\[\]]*\]")


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def literal(message: str) -> str:
    return " ".join(text for text, _, _, _ in string.Formatter().parse(message))


def placeholders(message: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(message) if name}


def leftovers(page: str, language: str, domains: tuple[str, ...], data: tuple[str, ...] = ()) -> set[str]:
    """English words on ``page`` that none of ``language``'s catalogs uses."""
    for value in data:
        page = page.replace(value, " ")
    page = _QUOTED.sub(" ", page.replace("\u00a0", " "))
    page = re.sub(r"\b(true|false|null)\b", " ", page)  # a value of a record, quoted as JSON
    english = words(" ".join(literal(m) for d in domains for m in catalog("en", d).values()))
    own = words(" ".join(m for d in (*domains, "common") for m in catalog(language, d).values()))
    return words(page) & (english - own)


def nimmt(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nimmt", *args], input=stdin, capture_output=True, text=True,
                          timeout=120, env={"PATH": "/usr/bin:/bin", **NO_LOCALE})


# -- the end explained -----------------------------------------------------------------------------

def why(totals: tuple[int, ...], played: int, rules: Rules | None = None, language: str = "en",
        you: int | None = None, countdown: bool = False) -> str:
    rules = rules or Rules()
    teller = EndTeller(("Ana", "Bruno", "Carla Maria"), rules, language, countdown=countdown, you=you)
    return teller.why(ending(rules, totals, played)).replace("\u00a0", " ")


def test_each_reason_is_told_in_english() -> None:
    assert why((71, 40, 12), 5) == "Ana has 71, above 66: the game is over."
    assert why((71, 40, 80), 5) == "Carla Maria (80) and Ana (71) are above 66: the game is over."
    assert why((66, 40, 12), 3) == "Ana has exactly 66, which is not above it: the game goes on."
    assert why((66, 40, 66), 3) == "Ana and Carla Maria have exactly 66, which is not above it: the game goes on."
    assert why((12, 40, 3), 2) == "Nobody is above 66; Bruno has the most, 40: the game goes on."
    assert why((40, 40, 3), 2) == "Nobody is above 66; Ana and Bruno have the most, 40 each: the game goes on."
    assert why((90, 2, 3), 3, Rules(rounds=5)) == "Round 3 of 5 played: the game goes on."
    assert why((90, 2, 3), 5, Rules(rounds=5)) == "All 5 rounds are played: the game is over."
    assert why((66, 40, 12), 3, you=0) == "You have exactly 66, which is not above it: the game goes on."
    assert why((70, 40, 12), 3, countdown=True) == "Ana (-4 left) has 70, above 66: the game is over."


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_reason_is_told_in_every_language(language: str) -> None:
    cases = [((71, 40, 12), 5, Rules()), ((71, 40, 80), 5, Rules()), ((66, 40, 12), 3, Rules()),
             ((66, 40, 66), 3, Rules()), ((12, 40, 3), 2, Rules()), ((40, 40, 3), 2, Rules()),
             ((90, 2, 3), 3, Rules(rounds=5)), ((90, 2, 3), 5, Rules(rounds=5))]
    told = set()
    for totals, played, rules in cases:
        for you in (None, 0, 1):
            for countdown in (False, True):
                line = why(totals, played, rules, language, you=you, countdown=countdown)
                assert "{" not in line and "}" not in line, line
                told.add(line)
                assert leftovers(line, language, ("common",), ("Ana", "Bruno", "Carla Maria")) == set(), line
    assert len(told) >= 10  # the cases read differently
    teller = EndTeller(("Ana", "Bruno"), Rules(), language)
    assert "Ana" in teller.winners((3, 9)) and "Bruno" not in teller.winners((3, 9))
    shared = teller.winners((9, 9))
    assert "Ana" in shared and "Bruno" in shared


def test_the_score_sheet_says_why_the_game_goes_on_and_why_it_ended() -> None:
    done = nimmt("score", "Ana", "Bruno", "Carla", "--lang", "en", stdin="66 10 20\n0 0 30\n1 2 3\n")
    out = done.stdout.replace("\u00a0", " ")
    assert done.returncode == 0, done.stderr
    assert "Ana has exactly 66, which is not above it: the game goes on." in out
    assert "Ana has 67, above 66: the game is over." in out
    assert "Winner: Bruno, with 12 bullheads." in out
    assert "Totals round by round" in out and re.search(r"Carla\s*│\s*20\s*│\s*50\s*│\s*53", out)


def test_the_countdown_sheet_reads_the_same_way() -> None:
    done = nimmt("score", "Ana", "Bruno", "--countdown", "--end-above", "20", "--lang", "en", stdin="20 5\n1 4\n")
    out = done.stdout.replace("\u00a0", " ")
    assert "Ana (0 left) has exactly 20, which is not above it: the game goes on." in out
    assert "Ana (-1 left) has 21, above 20: the game is over." in out
    assert "Points left round by round" in " ".join(out.split()) and re.search(r"Ana\s*│\s*0\s*│\s*-1", out)


def test_fixed_rounds_and_a_shared_win_in_the_score_sheet() -> None:
    done = nimmt("score", "Ana", "Bruno", "--rounds", "2", "--lang", "fr", stdin="80 3\n0 77\n")
    out = done.stdout.replace("\u00a0", " ")
    assert "Manche 1 sur 2 jouée : la partie continue." in out
    assert "Les 2 manches sont jouées : la partie est finie." in out
    assert "Victoire partagée : Ana et Bruno, avec 80 têtes de bœuf chacun." in out


# -- errors in the page's language ---------------------------------------------------------------

@pytest.mark.parametrize("language", LANGUAGES)
def test_a_refused_round_is_told_wholly_in_the_language(language: str) -> None:
    _ = translator(language, "score")
    done = nimmt("score", "Ana", "Bruno", "--lang", language, stdin="200 1\n100 100\n1 2 3\n")
    out = done.stdout.replace("\u00a0", " ")
    assert _("wrong", error=_("err_penalty_range", player="Ana", most=171, value="200")) in out
    assert _("wrong", error=_("err_penalty_sum", sum=200, deck=171)) in out
    assert _("wrong", error=_("err_penalty_count", players=2, count=3)) in out
    assert leftovers(out, language, ("score",), ("Ana", "Bruno", "--file")) == set()


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_broken_sheet_file_is_refused_in_the_language(language: str, tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.json"
    sheet.write_text(json.dumps({"format": "nimmt-scores/1", "players": ["Ana", "Bruno"],
                                 "rounds": [[1, 2], [3, 500]]}))
    done = nimmt("score", "--file", str(sheet), "--lang", language)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    _ = translator(language, "score")
    why = _("err_in_round", round=2, error=_("err_penalty_range", player="Bruno", most=171, value="500"))
    assert _("err_unreadable", file=str(sheet), reason=why) in done.stderr
    assert leftovers(done.stderr, language, ("score",), (str(sheet), "Ana", "Bruno", "nimmt score")) == set()


BROKEN_FILES = sorted(path for path in BROKEN.glob("*.json") if path.name != "index.json")


@pytest.mark.parametrize("language", OTHERS)
def test_every_broken_record_is_told_wholly_in_the_language(language: str) -> None:
    done = nimmt("replay", "--lang", language, *map(str, BROKEN_FILES))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(BROKEN_FILES) + 1  # one line a file, and the summary
    _ = translator(language, "replay")
    for path, line in zip(BROKEN_FILES, lines, strict=False):
        with pytest.raises(RecordError) as caught:
            replay(load(path))
        assert line == _("invalid", file=str(path), error=explain(caught.value, _, translator(language, "sim")))
        names = tuple(f"Bot {n}" for n in range(1, 11))
        assert leftovers(line, language, ("replay",), (str(path), *names)) == set(), line
    assert lines[-1] == _("summary", files=len(BROKEN_FILES), valid=0, invalid=len(BROKEN_FILES))


def test_record_errors_keep_their_english_text() -> None:
    with pytest.raises(RecordError) as caught:
        replay(load(BROKEN / "card_not_in_hand.json"))
    error = caught.value
    assert str(error) == "round 1, turn 1, player 1 (Bot 2): card 7 cannot be played: player 1 does not hold card 7"
    assert error.key == "card_not_in_hand" and error.values["card"] == "7"
    assert explain(error, translator("en", "replay"), translator("en", "sim")).replace("\u00a0", " ") == str(error)


@pytest.mark.parametrize("language", OTHERS)
def test_a_failing_bot_program_is_told_wholly_in_the_language(language: str) -> None:
    crash = [sys.executable, str(BOTS / "crash.py"), "later"]
    done = CliRunner().invoke(app, ["bot-check", "--seed", "1", "--lang", language, "--timeout", "30",
                                    "--start-timeout", "60", "--", *crash], env=NO_LOCALE)
    assert done.exit_code == 1
    page = done.stderr.split("\n  ")[0]  # the program's own error output follows, as it wrote it
    assert translator(language, "sim")("fail_exit_code", code=1) in page
    assert leftovers(page, language, ("sim",), (" ".join(crash), str(BOTS))) == set(), page
    played = CliRunner().invoke(app, ["play", "--seed", "1", "--lang", language, "--bots",
                                      "cmd:/nonexistent/bot-program"], input="", env=NO_LOCALE)
    assert played.exit_code == 1
    told = played.stdout.replace("\u00a0", " ")
    assert translator(language, "sim")("os_no_such_file") in told
    assert leftovers(told, language, ("play", "sim"), ("/nonexistent/bot-program",)) == set(), told


# -- every key has its message, with the same values, in every language --------------------------

def _calls(path: Path, name: str) -> list[ast.Call]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_record_reason_has_a_message_in_every_language(language: str) -> None:
    messages = catalog(language, "replay")
    english = catalog("en", "replay")
    for key, text in WHY.items():
        told = messages[f"rec_{key}"]
        assert placeholders(told) == placeholders(english[f"rec_{key}"]), (language, key)
        # a translation may leave out only the English words of another error (a JSON parser's, the core's)
        assert placeholders(told) <= placeholders(text), (language, key)
        assert placeholders(text) - placeholders(told) <= {"error", "detail"}, (language, key)
    # every key raised in records.py is one of WHY's
    raised = set()
    for call in _calls(ROOT / "nimmt" / "records.py", "RecordError") + _calls(ROOT / "nimmt" / "records.py", "Words"):
        first = call.args[0]
        if isinstance(first, ast.Constant):
            raised.add(first.value)
    assert raised - set(WHY) == set() and len(raised) > 40


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_score_sheet_complaint_has_a_message_with_its_values(language: str) -> None:
    messages = catalog(language, "score")
    calls = _calls(ROOT / "nimmt" / "scoresheet.py", "ScoreSheetError")
    assert len(calls) >= 15
    for call in calls:
        key = call.args[1]
        assert isinstance(key, ast.Constant), ast.dump(call)
        given = {keyword.arg for keyword in call.keywords}
        assert placeholders(messages[f"err_{key.value}"]) == given, (language, key.value)


def test_a_score_sheet_complaint_keeps_its_english_text() -> None:
    with pytest.raises(ScoreSheetError) as caught:
        ScoreSheet(("Ana", "Bruno")).add_round([200, 1])
    assert str(caught.value) == "Ana's penalty must be a whole number from 0 to 171, not 200"
    assert explain_sheet(caught.value, translator("de", "score")) == (
        "die Strafe von Ana muss eine ganze Zahl von 0 bis 171 sein, nicht 200")
