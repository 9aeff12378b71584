"""The ``nimmt`` command's entry point: a Ctrl-C while the program is still loading ends it quietly."""

from __future__ import annotations

import signal
import sys
from types import FrameType


def _leave_quietly(_number: int, _frame: FrameType | None) -> None:
    # Loading Typer, rich and the commands takes a moment; a Ctrl-C then is no error worth a traceback.
    sys.exit(130)


def main() -> None:
    signal.signal(signal.SIGINT, _leave_quietly)
    from nimmt.cli.main import main as run

    signal.signal(signal.SIGINT, signal.default_int_handler)  # each command handles its own Ctrl-C
    run()
