"""Bots: programs that play a seat from its view only.

Add a bot by subclassing :class:`Bot` and listing it in ``_BOT_CLASSES``.
"""

from __future__ import annotations

import random

from .base import Bot
from .beginner import BeginnerBot
from .expert import ExpertBot
from .heuristic import HeuristicBot
from .montecarlo import MonteCarloBot
from .random_bot import RandomBot

_BOT_CLASSES: tuple[type[Bot], ...] = (RandomBot, BeginnerBot, HeuristicBot, MonteCarloBot, ExpertBot)
BOTS: dict[str, type[Bot]] = {cls.name: cls for cls in _BOT_CLASSES}


class UnknownBot(ValueError):
    pass


def make_bot(name: str, rng: random.Random | None = None) -> Bot:
    """A new bot by its name (see :data:`BOTS`), or ``"cmd:<command line>"`` for another program."""
    if name.startswith("cmd:"):
        from nimmt.protocol import ProcessBot  # late: nimmt.protocol builds on this package

        return ProcessBot(name[len("cmd:") :].strip(), rng)
    try:
        cls = BOTS[name]
    except KeyError:
        known = ", ".join(sorted(BOTS))
        raise UnknownBot(f"unknown bot {name!r}: the bots are {known}") from None
    return cls(rng)


__all__ = ["BOTS", "Bot", "RandomBot", "UnknownBot", "make_bot"]
