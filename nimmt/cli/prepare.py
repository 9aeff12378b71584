"""``nimmt prepare``: compile the bots' kernels once (what ``make setup`` runs), and what the terminal
commands say while a first run prepares them (:func:`prepare_bots`). See :mod:`nimmt.prepare`."""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from typing import Annotated, TextIO

import typer

from nimmt import i18n
from nimmt.prepare import COMPILED_BOTS, compiled_engine

DOMAIN = "prepare"
SLOW_AFTER = 2.0  # seconds: a load from the cache takes less; past this, say what is going on


def needs_preparing(bots: Sequence[str], coach: bool = False) -> bool:
    """Whether these bots (or the coach) run compiled kernels that may need preparing first."""
    return coach or any(name in COMPILED_BOTS for name in bots)


def prepare_bots(language: str, out: TextIO | None = None) -> None:
    """Prepare the bots before a game or a simulation, saying so when it takes a while: at once when the
    cache is known not to be filled (a first run), or on a terminal after :data:`SLOW_AFTER` seconds."""
    from nimmt.prepare import is_prepared, prepare

    if not compiled_engine():
        return
    _ = i18n.translator(language, DOMAIN)
    stream = out or sys.stderr
    said = threading.Event()

    def say(key: str) -> None:
        if not said.is_set():
            said.set()
            print(_(key), file=stream, flush=True)

    if not is_prepared():
        say("first_run")
    timer = threading.Timer(SLOW_AFTER, say, ("slow",))
    timer.daemon = True
    if stream.isatty():  # a slow load is worth a word on a terminal only; a first run's compile always is
        timer.start()
    try:
        done = prepare()
    finally:
        timer.cancel()
    if said.is_set():
        print(_("ready", seconds=f"{done.wall:.0f}"), file=stream, flush=True)


def prepare_command(
    quiet: Annotated[bool, typer.Option("--quiet", help="Print nothing; the exit status says it worked.")] = False,
    lang: Annotated[
        str | None, typer.Option("--lang", help="Language: en, pt-PT, pt-BR, fr, de, es (default: your locale).")
    ] = None,
) -> None:
    """Prepare the bots once (compile their fast paths), so that no game waits for it later.

    The strong bots, the coach and simulate run compiled code (with the sim extra); a machine's first
    run compiles it and keeps it. make setup runs this; run again, it costs about a second. Without
    the sim extra there is nothing to prepare.
    """
    from nimmt.prepare import is_prepared, prepare

    from ._common import choose_language

    _ = i18n.translator(choose_language(lang, "prepare"), DOMAIN)
    if not compiled_engine():
        if not quiet:
            typer.echo(_("nothing"))
        return
    if not quiet:
        typer.echo(_("slow" if is_prepared() else "first_run"), err=True)
    done = prepare()
    if not quiet:
        how = _("compiled" if done.compiled else "loaded")
        typer.echo(_("done", how=how, seconds=f"{done.wall:.1f}", cpu=f"{done.cpu:.1f}"))


def register(app: typer.Typer) -> None:
    app.command("prepare")(prepare_command)
