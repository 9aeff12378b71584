"""Helpers shared by ``nimmt play`` and ``nimmt simulate``: bot lists, seeds, table options."""

from __future__ import annotations

import random
import secrets

import typer

from nimmt.bots import BOTS, Bot, make_bot
from nimmt.core import MAX_PLAYERS, MIN_PLAYERS, Rules, RulesError

EXTERNAL = "cmd:"  # ``cmd:<command line>``: another program speaking nimmt-bot/1 (see docs/protocol-bots.md)


def parse_bots(spec: str, seats: int, option: str = "--bots") -> list[str]:
    """Bot names for ``seats`` seats from ``"a,b,c"`` (seat order); a single name fills every seat.

    A name may also be ``cmd:<command line>`` (a program; its command line cannot hold a comma).

    >>> parse_bots("heuristic", 3)
    ['heuristic', 'heuristic', 'heuristic']
    >>> parse_bots("random, heuristic", 2)
    ['random', 'heuristic']
    """
    names = [part.strip() for part in spec.split(",")]
    if any(not name for name in names):
        raise typer.BadParameter(f"{spec!r} has an empty bot name", param_hint=option)
    if any(name.startswith(EXTERNAL) and not name[len(EXTERNAL):].strip() for name in names):
        raise typer.BadParameter("'cmd:' must be followed by the bot program's command line", param_hint=option)
    unknown = [name for name in names if name not in BOTS and not name.startswith(EXTERNAL)]
    if unknown:
        known = ", ".join(sorted(BOTS))
        raise typer.BadParameter(f"unknown bot {unknown[0]!r}: the bots are {known}", param_hint=option)
    if len(names) == 1:
        return names * seats
    if len(names) != seats:
        raise typer.BadParameter(
            f"{len(names)} bots listed for {seats} seats: give one name for every seat, "
            "or a single name for all of them",
            param_hint=option,
        )
    return names


def check_players(players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise typer.BadParameter(f"a table has 2 to 10 players, not {players}", param_hint="--players")


def make_rules(end_above: int, rounds: int | None) -> Rules:
    try:
        return Rules(end_above=end_above, rounds=rounds)
    except RulesError as error:
        raise typer.BadParameter(str(error)) from None


def fresh_seed() -> int:
    """A base seed when the user gives none (printed, so that the run can be repeated)."""
    return secrets.randbelow(2**32)


# A game's chance is derived from the base seed and the game's index only, so a game plays the same
# whichever process runs it and in whatever order. String seeds are hashed with SHA-512 by
# ``random.Random``, which does not depend on PYTHONHASHSEED.
def deal_rng(seed: int, game: int) -> random.Random:
    return random.Random(f"nimmt:{seed}:{game}:deal")


def bot_rng(seed: int, game: int, seat: int) -> random.Random:
    return random.Random(f"nimmt:{seed}:{game}:seat:{seat}")


def make_bots(names: list[str], seed: int, game: int, first_seat: int = 0) -> list[Bot]:
    """Bots for consecutive seats from ``first_seat``, each with its own derived random source."""
    try:
        return [make_bot(name, bot_rng(seed, game, first_seat + i)) for i, name in enumerate(names)]
    except ValueError as error:  # a command line that cannot be read
        raise typer.BadParameter(str(error), param_hint="--bots") from None


def label(name: str) -> str:
    """A short name for a seat's bot: ``cmd`` for a program, else the bot's own name."""
    return "cmd" if name.startswith(EXTERNAL) else name


def close_bots(bots: list[Bot]) -> None:
    """Stop the programs behind external bots (built-in bots have nothing to close)."""
    for bot in bots:
        close = getattr(bot, "close", None)
        if callable(close):
            close()
