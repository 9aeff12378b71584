"""``nimmt bench``: hands and games per second of the rules core and of the batch engine."""

from __future__ import annotations

import json
import os
from typing import Annotated

import typer


def _players(spec: str) -> list[int]:
    try:
        players = [int(part) for part in spec.split(",") if part.strip()]
    except ValueError:
        raise typer.BadParameter(
            f"{spec!r} is not a list of table sizes such as 2,4,10", param_hint="--players"
        ) from None
    bad = [n for n in players if not 2 <= n <= 10]
    if not players or bad:
        raise typer.BadParameter(f"a table has 2 to 10 players, not {bad or spec!r}", param_hint="--players")
    return players


def bench(
    players: Annotated[str, typer.Option(help="Table sizes to measure, comma-separated.")] = "2,4,10",
    hands: Annotated[
        int, typer.Option(min=1, help="Hands per timed run of the compiled engine (the others play fewer).")
    ] = 1_000_000,
    repeats: Annotated[int, typer.Option(min=1, help="Timed runs per figure; the median is shown.")] = 5,
    engines: Annotated[str, typer.Option(help="Engines: core, fast, numpy, numba.")] = "core,fast,numpy,numba",
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Hands and games per second of random play, one core: the rules core (step engine and fast
    path) and the batch engine (NumPy and Numba), side by side in one run."""
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # one core: the kernels are single-threaded anyway
    try:
        import numpy  # noqa: F401
    except ImportError:
        typer.echo("nimmt bench needs NumPy, one of nimmt's dependencies: pip install numpy", err=True)
        raise typer.Exit(2) from None
    from nimmt.batch import bench as measure

    chosen = [e.strip() for e in engines.split(",") if e.strip()]
    unknown = [e for e in chosen if e not in measure.ENGINES]
    if unknown or not chosen:
        raise typer.BadParameter(
            f"unknown engine {unknown[0] if unknown else engines!r}: choose from {', '.join(measure.ENGINES)}",
            param_hint="--engines",
        )
    result = measure.run(_players(players), hands, repeats, chosen)
    typer.echo(json.dumps(result, indent=2) if as_json else measure.table(result))


def register(app: typer.Typer) -> None:
    app.command("bench")(bench)
