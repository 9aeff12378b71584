"""The ``nimmt`` command's list of commands, and its top-level help written without loading Typer.

``nimmt`` and ``nimmt --help`` only list the commands: that needs their names and summaries, not
Typer, rich or any command's module (which together take some ten times as long as Python itself
to load). :data:`COMMANDS` holds each command's module and summary; ``tests/cli/test_cli_main.py``
holds it to what the modules really add.
"""

from __future__ import annotations

import shutil
import textwrap
from typing import NamedTuple, TextIO

ABOUT = "6 nimmt! (classic edition) for 2 to 10 players: play, simulate, replay, read the rules."


class Command(NamedTuple):
    module: str  # the module of nimmt.cli that adds it
    summary: str  # the first paragraph of its help, as the module writes it


COMMANDS: dict[str, Command] = {
    "bench": Command("bench", "Hands and games per second of random play, one core: the rules core (step engine and "
                              "fast\npath) and the batch engine (NumPy and Numba), side by side in one run."),
    "bot-check": Command("bot", "Play a short game with another program in one seat, and report any protocol "
                                "error clearly."),
    "play": Command("play", "Play 6 nimmt! against bots in the terminal."),
    "prepare": Command("prepare", "Prepare the bots once (compile their fast paths), so that no game waits for it "
                                  "later."),
    "puzzle": Command("puzzle", "The puzzle of the day: which card (or row) now? Answered with the review's numbers."),
    "replay": Command("replay", "Check and score game records; tell each valid game turn by turn."),
    "rules": Command("rules", "Print the rules of the classic edition and a short FAQ."),
    "score": Command("score", "Keep the score sheet of a game played with a real deck: type each round's penalties."),
    "serve": Command("serve", "Start the web table: create a table in the browser and share the invite link."),
    "simulate": Command("simulate", "Play bots against bots and show each seat's mean penalty and share of wins."),
    "tournament": Command("tournament", "Play bots against each other over duplicate deals and report penalties, "
                                        "wins and ratings."),
}

OPTIONS = {"--version": "Print the version and stop.", "--help": "Show this message and exit."}


def _entries(title: str, entries: dict[str, str], width: int) -> list[str]:
    """A titled list of names and their texts, each text wrapped beside its name."""
    column = max(map(len, entries)) + 4
    lines = [f"{title}:"]
    for name, text in entries.items():
        wrapped = textwrap.wrap(" ".join(text.split()), max(20, width - column)) or [""]
        lines.append(f"  {name:<{column - 2}}{wrapped[0]}")
        lines.extend(" " * column + line for line in wrapped[1:])
    return lines


def write_help(out: TextIO) -> None:
    """``nimmt --help``: the usage, the options and every command with its summary."""
    width = min(100, shutil.get_terminal_size().columns)
    lines = ["Usage: nimmt [OPTIONS] COMMAND [ARGS]...", ""]
    lines += ["  " + line for line in textwrap.wrap(ABOUT, width - 2)]
    lines += ["", *_entries("Options", OPTIONS, width), ""]
    lines += _entries("Commands", {name: command.summary for name, command in COMMANDS.items()}, width)
    lines += ["", "Run 'nimmt COMMAND --help' for a command's own options."]
    out.write("\n".join(lines) + "\n")
