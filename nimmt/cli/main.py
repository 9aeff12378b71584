"""Entry point of the ``nimmt`` command: finds the command modules of this package and runs Typer.

A command line that names a command loads that command's module only (``nimmt simulate`` does not
import the server, the tournament or the terminal game, which take a good part of a second to
load). Anything else (a mistyped command, ``nimmt --version``) loads none of them: Typer sees
every command by the name and summary of :data:`~nimmt.cli._help.COMMANDS`. (``nimmt`` and
``nimmt --help`` do not even load Typer: :mod:`nimmt.cli.entry`.) ``app`` (every command, really
loaded) is built when it is first asked for.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperOption

import nimmt.cli
from nimmt.core.errors import NimmtError

from ._coercion import install
from ._help import ABOUT, COMMANDS

install()  # plain option values coerced without pydantic (a fifth of a command's start-up)


def _flag_type(self: TyperOption, ctx: Any) -> str | None:
    """The value an option's help shows after its name: none for an on/off flag, which takes no value
    (Typer 0.29 shows ``<bool>`` there)."""
    return None if self.is_flag else _option_type(self, ctx)


_option_type = TyperOption.display_type_rich
TyperOption.display_type_rich = _flag_type  # type: ignore[method-assign]


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
        if module.name not in {"main", "__main__", "entry"} and not module.name.startswith("_")
    ]


def _new_app() -> typer.Typer:
    app = typer.Typer(
        name="nimmt",
        help=ABOUT,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    app.callback()(_nimmt)
    return app


def make_app(modules: Sequence[str] | None = None) -> typer.Typer:
    """The ``nimmt`` command with the commands of ``modules`` (default: every command module)."""
    app = _new_app()
    for name in command_modules() if modules is None else modules:
        loaded = importlib.import_module(f"nimmt.cli.{name}")
        register = getattr(loaded, "register", None)
        if register is not None:
            register(app)
    return app


def _not_loaded() -> None:
    """Never run: :func:`main` loads a command's own module before running it."""
    raise NimmtError("a command of the help list was run without its module")  # pragma: no cover


def help_app() -> typer.Typer:
    """The ``nimmt`` command as its help sees it: every command's name and summary, no module loaded."""
    app = _new_app()
    for name, command in COMMANDS.items():
        app.command(name, help=command.summary)(_not_loaded)
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
    command = COMMANDS.get(words[0]) if words else None
    if "--help" in words:
        from . import _rich_help

        _rich_help.load()
    app = make_app([command.module]) if command is not None else help_app()
    app(args=None if argv is None else words)
