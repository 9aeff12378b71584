"""``nimmt bot-check`` run as users run it: a real ``nimmt`` process checking real bot programs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"
NODE = shutil.which("node") or "/usr/bin/node"


def nimmt(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nimmt", *args], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def test_bot_check_passes_the_node_example() -> None:
    result = nimmt("bot-check", "--players", "3", "--seat", "1", "--seed", "4", "--json", "--",
                   NODE, "examples/node-bot/bot.js")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] and report["name"] == "node-example" and report["seat"] == 1
    (game,) = report["games"]
    assert game["rounds"] == 1 and game["cards"] == 10
    assert len(game["totals"]) == 3


def test_bot_check_reports_a_failing_bot_without_a_traceback() -> None:
    result = nimmt("bot-check", "--seat", "2", "--seed", "1", "--", sys.executable,
                   str(BOTS / "crash.py"), "later")
    assert result.returncode == 1
    assert "FAILED: bot" in result.stderr and "at seat 2 exited with code 1" in result.stderr
    assert "while choosing a card in round 1" in result.stderr
    assert "something broke at decision 3" in result.stderr  # the bot's own last words, from its stderr
    assert 'File "' + str(ROOT / "nimmt") not in result.stderr  # no traceback from nimmt itself


def test_bot_check_json_names_the_reason_of_a_failure() -> None:
    result = nimmt("bot-check", "--seat", "2", "--seed", "1", "--json", "--", sys.executable,
                   str(BOTS / "crash.py"), "later")
    assert result.returncode == 1
    failure = json.loads(result.stdout)["failure"]
    assert failure["kind"] == "crashed" and failure["reason"] == "exit_code"
    assert failure["facts"] == {"code": "1"} and failure["exit_code"] == 1
    assert "exited with code 1" in failure["message"]


def test_bot_check_refuses_bad_options() -> None:
    from typer.testing import CliRunner

    from nimmt.cli.main import app

    runner = CliRunner()
    cases = [
        (["--players", "3", "--seat", "3"], "the seat must be 0 to 2"),
        (["--opponents", "nobody"], "unknown bot 'nobody'"),
        (["--opponents", "random,random"], "2 opponents listed for 3 other seats"),
        (["--players", "11"], "2 to 10 players"),
        (["--timeout", "0"], "above 0 seconds"),
    ]
    for options, words in cases:
        result = runner.invoke(app, ["bot-check", *options, "--", NODE, "examples/node-bot/bot.js"])
        assert result.exit_code == 2, (options, result.output)
        flat = " ".join(re.sub("[│╭╮╰╯─]", " ", result.output).split())  # rich draws a box around errors
        assert words in flat
