"""Bots: programs that play a seat from its view only.

Add a bot by subclassing :class:`Bot` and listing it in ``_BOT_CLASSES``.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .base import Bot, BotError
from .beginner import BeginnerBot
from .expert import ExpertBot
from .field import FIELD, make_field_bot
from .field import PREFIX as FIELD_PREFIX
from .heuristic import HeuristicBot
from .learned import LearnedBot
from .montecarlo import MonteCarloBot
from .random_bot import RandomBot

_BOT_CLASSES: tuple[type[Bot], ...] = (RandomBot, BeginnerBot, HeuristicBot, MonteCarloBot, ExpertBot, LearnedBot)
BOTS: dict[str, type[Bot]] = {cls.name: cls for cls in _BOT_CLASSES}


class UnknownBot(BotError):
    """No bot has this name."""


# Bots that live in the layers above, by the prefix of their name: ``nimmt.protocol`` adds ``"cmd:"``
# (another program) when it is imported. This package never imports those layers itself.
EXTERNAL_BOTS: dict[str, Callable[[str, random.Random | None], Bot]] = {}


def register_external(prefix: str, make: Callable[[str, random.Random | None], Bot]) -> None:
    """Let :func:`make_bot` make bots named ``prefix + <rest>``: ``make(rest, rng)``."""
    EXTERNAL_BOTS[prefix] = make


register_external(FIELD_PREFIX, make_field_bot)  # make_bot("field:lowest"): the field of styles (nimmt.bots.field)


def make_bot(name: str, rng: random.Random | None = None) -> Bot:
    """A new bot by its name (see :data:`BOTS`), or ``"cmd:<command line>"`` for another program
    (once :mod:`nimmt.protocol` is imported)."""
    for prefix, make in EXTERNAL_BOTS.items():
        if name.startswith(prefix):
            return make(name[len(prefix) :].strip(), rng)
    if name.startswith("cmd:"):
        raise UnknownBot(f"bot {name!r} is a program: import nimmt.protocol to play bot programs")
    try:
        cls = BOTS[name]
    except KeyError:
        known = ", ".join(sorted(BOTS))
        raise UnknownBot(f"unknown bot {name!r}: the bots are {known}") from None
    return cls(rng)


__all__ = [
    "BOTS", "EXTERNAL_BOTS", "FIELD", "Bot", "BotError", "RandomBot", "UnknownBot", "make_bot", "register_external",
]
