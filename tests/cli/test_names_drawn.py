"""Names in the terminal: drawn isolated, so a right-to-left name or a direction control in a name
never turns the rest of a line around (UAX #9), and never let through as controls."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from nimmt.bots import make_bot
from nimmt.core import Rules
from nimmt.match import play_game
from nimmt.names import FSI, PDI

OVERRIDES = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067"


def nimmt(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nimmt", *args], input=stdin, capture_output=True, text=True,
                          timeout=120)


def test_a_replayed_record_draws_its_names_safely(tmp_path: Path) -> None:
    """A record from anywhere may hold any name: its overrides and controls are never printed, and a
    right-to-left name is isolated wherever it appears."""
    bots = [make_bot("random", random.Random(seed)) for seed in range(3)]
    record = play_game(bots, random.Random(5), Rules(rounds=1)).to_json()
    record["players"] = ["\u202eAna Maria", "محمد 2", "Bruno\x1b[2J"]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    result = nimmt("replay", str(path), "--lang", "en")
    assert result.returncode == 0, result.stderr
    assert not set(OVERRIDES) & set(result.stdout) and "\x1b" not in result.stdout
    assert f"{FSI}محمد\u00a02{PDI}" in result.stdout
    assert result.stdout.count(FSI) == result.stdout.count(PDI) > 0
    assert "محمد" not in result.stdout.replace(f"{FSI}محمد\u00a02{PDI}", "")  # always inside its isolate
    assert "Ana\u00a0Maria" in result.stdout


def test_the_score_sheet_isolates_right_to_left_names() -> None:
    result = nimmt("score", "דוד", "Ana", "--lang", "en", stdin="3 4\nq\n")
    assert result.returncode == 0, result.stderr
    assert f"{FSI}דוד{PDI}" in result.stdout
    assert "דוד" not in result.stdout.replace(f"{FSI}דוד{PDI}", "")
    refused = nimmt("play", "--players", "2", "--bots", "random", "--name", "Ana\u202e", "--lang", "en")
    assert refused.returncode == 2 and "direction" in refused.stderr and "Traceback" not in refused.stderr
