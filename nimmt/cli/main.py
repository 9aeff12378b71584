"""Entry point of the ``nimmt`` command: finds the command modules of this package and runs Typer."""

from __future__ import annotations

import importlib
import pkgutil

import typer

import nimmt.cli

app = typer.Typer(
    name="nimmt",
    help="6 nimmt! (classic edition) for 2 to 10 players: play, simulate, replay, read the rules.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        from nimmt import __version__

        typer.echo(f"nimmt {__version__}")
        raise typer.Exit()


@app.callback()
def _nimmt(
    version: bool = typer.Option(
        False, "--version", help="Print the version and stop.", is_eager=True, callback=_print_version
    ),
) -> None:
    """6 nimmt! (classic edition) for 2 to 10 players."""


def _register_commands() -> None:
    for module in sorted(pkgutil.iter_modules(nimmt.cli.__path__), key=lambda m: m.name):
        if module.name in {"main", "__main__"} or module.name.startswith("_"):
            continue
        loaded = importlib.import_module(f"nimmt.cli.{module.name}")
        register = getattr(loaded, "register", None)
        if register is not None:
            register(app)


_register_commands()


def main() -> None:
    app()
