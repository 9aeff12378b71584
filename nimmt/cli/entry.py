"""The ``nimmt`` command's entry point: a Ctrl-C while the program is still loading ends it quietly.

``nimmt`` and ``nimmt --help`` are answered here from the list of commands alone (:mod:`nimmt.cli._help`),
without loading Typer, rich or any command: the help costs little more than Python's own start.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType

HELP: tuple[list[str], ...] = ([], ["--help"])


def _leave_quietly(_number: int, _frame: FrameType | None) -> None:
    # Loading Typer, rich and the commands takes a moment; a Ctrl-C then is no error worth a traceback.
    sys.exit(130)


def main() -> None:
    signal.signal(signal.SIGINT, _leave_quietly)
    if sys.argv[1:] in HELP:
        from nimmt.cli._help import write_help

        write_help(sys.stdout)
        return
    from nimmt.cli.main import main as run

    signal.signal(signal.SIGINT, signal.default_int_handler)  # each command handles its own Ctrl-C
    run()
