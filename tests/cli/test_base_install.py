"""``pip install nimmt`` with no extras plays (issue 21, item 6).

A fresh virtual environment gets the project's wheel and its base dependencies only (no Numba, no
server, no tournament): there a person plays a round in the terminal against every bot, asks the
coach, and ``simulate`` plays with the NumPy tables and the step engine.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from nimmt.bots import BOTS

ROOT = Path(__file__).resolve().parents[2]


def _run(command: list[str], cwd: Path, timeout: float = 240,
         stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "NUMBA", "NIMMT"))}
    env.update(COLUMNS="100", PYTHONIOENCODING="utf-8", LANG="C.UTF-8")
    return subprocess.run(command, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with nimmt installed without extras; its ``bin`` folder."""
    where = tmp_path_factory.mktemp("base")
    # setuptools builds in the tree's build/ folder: two test workers building at once break each other's.
    lock = Path(tempfile.gettempdir()) / f"nimmt-wheel-{hashlib.sha256(str(ROOT).encode()).hexdigest()[:16]}.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        built = _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(where / "wheels"),
                      str(ROOT)], where)
    assert built.returncode == 0, built.stderr
    (wheel,) = (where / "wheels").glob("nimmt-*.whl")
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(where / "venv")], where)
    assert made.returncode == 0, made.stderr
    # The shared pip installs into the new environment (quicker than giving it a pip of its own).
    python = where / "venv" / "bin" / "python"
    installed = _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-compile",
                      str(wheel)], where)
    assert installed.returncode == 0, installed.stderr
    return where / "venv" / "bin"


def test_the_base_install_has_no_extra(base: Path) -> None:
    for extra in ("numba", "fastapi", "pettingzoo", "openskill"):
        done = _run([str(base / "python"), "-c", f"import {extra}"], base)
        assert done.returncode != 0 and "ModuleNotFoundError" in done.stderr, extra
    done = _run([str(base / "nimmt"), "prepare"], base)
    assert done.returncode == 0 and "Nothing to prepare" in done.stdout
    # NumPy alone is no compiled engine: the search bots and the coach roll out in Python.
    done = _run([str(base / "python"), "-c", "from nimmt.bots.search import batch_available; print(batch_available())"],
                base)
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr


def test_a_round_against_every_bot_with_the_coach(base: Path, tmp_path: Path) -> None:
    bots = sorted(BOTS)
    # Every answer from 1 to 104, again and again: a card prompt takes the first one in the hand,
    # a row prompt the first one from 1 to 4; a "?" first asks the coach.
    answers = "?\n" + "".join(f"{n}\n" for n in range(1, 105)) * 12
    done = _run([str(base / "nimmt"), "play", "--players", str(len(bots) + 1), "--bots", ",".join(bots),
                 "--rounds", "1", "--seed", "5", "--pace", "0", "--lang", "en", "--record", "game.json"],
                tmp_path, stdin=answers)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert "Traceback" not in done.stderr
    assert "Coach" in done.stdout or "coach" in done.stdout
    replayed = _run([str(base / "nimmt"), "replay", "game.json", "--json"], tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    summary = json.loads(replayed.stdout.splitlines()[0])
    assert summary["finished"] and len(summary["rounds"]) == 1 and len(summary["totals"]) == len(bots) + 1


@pytest.mark.parametrize("bots", ["random", "heuristic,beginner,random,heuristic"])
def test_simulate(base: Path, tmp_path: Path, bots: str) -> None:
    done = _run([str(base / "nimmt"), "simulate", "--games", "100", "--players", "4", "--bots", bots, "--seed", "3",
                 "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["games"] == 100 and len(summary["win_share"]) == 4
    assert sum(summary["win_share"]) == pytest.approx(1, abs=1e-6)
