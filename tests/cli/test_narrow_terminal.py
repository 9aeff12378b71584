"""On a narrow terminal (60 columns), ``nimmt play``, ``score`` and ``replay`` wrap their lines between
names, never inside one: "Ana Maria" is never split across two lines.

Each command runs in a real pseudo-terminal of 60 columns, as a person would see it.
"""

from __future__ import annotations

import fcntl
import os
import pty
import random
import re
import struct
import subprocess
import sys
import termios
from itertools import pairwise
from pathlib import Path

from nimmt.bots import make_bot
from nimmt.match import play_game

WIDTH = 60
ENV = {**os.environ, "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8", "COLUMNS": str(WIDTH),
       "TERM": "xterm"}
_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def on_terminal(args: list[str], stdin: str = "") -> list[str]:
    """The lines a 60-column terminal shows for ``nimmt <args>``, colours taken out."""
    main, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 40, WIDTH, 0, 0))
    process = subprocess.Popen([sys.executable, "-m", "nimmt", *args], stdin=subprocess.PIPE, stdout=terminal,
                               stderr=terminal, env=ENV)
    os.close(terminal)
    assert process.stdin is not None
    process.stdin.write(stdin.encode())
    process.stdin.close()
    shown = b""
    while True:  # read until the process has closed the terminal (it has exited)
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: no writer left
            break
        if not chunk:
            break
        shown += chunk
    os.close(main)
    process.wait(timeout=120)
    text = _ESCAPE.sub("", shown.decode(errors="replace")).replace("\r", "")
    return [line.replace("\u00a0", " ") for line in text.split("\n")]


def split_names(lines: list[str], names: list[str]) -> list[str]:
    """The places where a line ends inside a name that the next line finishes."""
    found = []
    for name in names:
        words = name.split(" ")
        for cut in range(1, len(words)):
            head, tail = " ".join(words[:cut]), " ".join(words[cut:])
            for line, following in pairwise(lines):
                if line.rstrip().endswith(head) and following.lstrip(" │").startswith(tail):
                    found.append(f"{line!r} / {following!r}")
    return found


def test_the_terminal_game_wraps_between_names() -> None:
    names = ["Ana Maria Silva", "Bot 1 (heuristic)", "Bot 2 (heuristic)", "Bot 3 (heuristic)"]
    answers = "\n".join(str(card) for _ in range(8) for card in range(1, 105)) + "\n"
    lines = on_terminal(["play", "--seed", "5", "--players", "4", "--lang", "en", "--name", names[0], "--no-coach",
                         "--end-above", "20"], answers)
    text = "\n".join(lines)
    assert "Final standings" in text and "Totals:" in text
    assert max(len(line) for line in lines) <= WIDTH
    assert any(len(line) > WIDTH - 15 for line in lines if "Totals" in line or "heuristic" in line)  # it did wrap
    assert split_names(lines, names) == []


def test_the_score_sheet_and_replay_wrap_between_names(tmp_path: Path) -> None:
    names = ["Ana Maria Silva", "Bruno Costa Pereira", "Carla Sofia Santos"]
    lines = on_terminal(["score", *names, "--lang", "pt-BR"], "200 1 1\n66 10 20\n0 0 47\n")
    text = "\n".join(lines)
    assert "acima de 66" in text and "exatamente 66" in " ".join(text.split())
    assert max(len(line) for line in lines) <= WIDTH
    assert split_names(lines, names) == []
    path = tmp_path / "game.json"
    bots = [make_bot("random", random.Random(seat)) for seat in range(3)]
    play_game(bots, random.Random(2), names=names).save(path)
    lines = on_terminal(["replay", "--lang", "fr", str(path)])
    assert any("la partie est finie" in line for line in lines)
    assert max(len(line) for line in lines if str(path) not in line) <= WIDTH
    assert split_names(lines, names) == []
