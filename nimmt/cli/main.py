"""Entry point of the ``nimmt`` command: finds the command modules of this package and runs Typer.

A command line that names a command loads that command's module only (``nimmt simulate`` does not
import the server, the tournament or the terminal game, which take a good part of a second to
load); anything else (``nimmt``, ``nimmt --help``, a mistyped command) loads them all, so that
the help lists every command. ``app`` (every command) is built when it is first asked for.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Sequence

import typer

import nimmt.cli

# The commands each module adds (tests/cli/test_cli_main.py holds this table to what they add).
COMMANDS: dict[str, str] = {
    "bench": "bench",
    "bot-check": "bot",
    "play": "play",
    "puzzle": "puzzle",
    "replay": "replay",
    "rules": "rules",
    "score": "score",
    "serve": "serve",
    "simulate": "simulate",
    "tournament": "tournament",
}


def _print_version(value: bool) -> None:
    if value:
        from nimmt import __version__

        typer.echo(f"nimmt {__version__}")
        raise typer.Exit()


def _nimmt(
    version: bool = typer.Option(
        False, "--version", help="Print the version and stop.", is_eager=True, callback=_print_version
    ),
) -> None:
    """6 nimmt! (classic edition) for 2 to 10 players."""


def command_modules() -> list[str]:
    """Every module of this package that may add commands, by name."""
    return [
        module.name
        for module in sorted(pkgutil.iter_modules(nimmt.cli.__path__), key=lambda m: m.name)
        if module.name not in {"main", "__main__"} and not module.name.startswith("_")
    ]


def make_app(modules: Sequence[str] | None = None) -> typer.Typer:
    """The ``nimmt`` command with the commands of ``modules`` (default: every command module)."""
    app = typer.Typer(
        name="nimmt",
        help="6 nimmt! (classic edition) for 2 to 10 players: play, simulate, replay, read the rules.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    app.callback()(_nimmt)
    for name in command_modules() if modules is None else modules:
        loaded = importlib.import_module(f"nimmt.cli.{name}")
        register = getattr(loaded, "register", None)
        if register is not None:
            register(app)
    return app


_app: typer.Typer | None = None


def __getattr__(name: str) -> typer.Typer:
    """``app``, every command registered, built once on first use."""
    global _app
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _app is None:
        _app = make_app()
    return _app


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command line ``argv`` (default: the process's own)."""
    words = list(sys.argv[1:] if argv is None else argv)
    module = COMMANDS.get(words[0]) if words else None
    app = make_app([module]) if module is not None else __getattr__("app")
    app(args=None if argv is None else words)
