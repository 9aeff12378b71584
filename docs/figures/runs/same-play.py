"""Does the default ``expert`` still play as the carried runs' code did? (docs/ladder.md, "At the default
budget against ``field:dmc``".)

Plays two seeded 4-player games of the default expert at a fixed 32 samples a decision (no clock, so
every choice is reproducible) against ``field:mc50``, ``field:risk`` and ``heuristic`` (its model of
the others at work), and prints a digest of the two records. The same digest as the carried runs'
code (``68192d2``: ``052f042753ef2b25``) means the same play: the save files go on. ``--heads-up``
plays two heads-up games against ``field:mc50`` instead (``7a49bedb237f6862`` at ``68192d2``'s play),
for a change that alters the default's play at some table sizes only.

    PYTHONPATH=. .venv/bin/python docs/figures/runs/same-play.py
    PYTHONPATH=. .venv/bin/python docs/figures/runs/same-play.py --heads-up   # the same, heads-up against field:mc50
"""

from __future__ import annotations

import hashlib
import random
import sys

from nimmt.bots import make_bot
from nimmt.bots.expert import ExpertBot
from nimmt.match import play_game


def digest(others: list[str]) -> str:
    records = []
    for g in range(2):
        bots = [ExpertBot(random.Random(g), samples=32, time_budget=100, clock="cpu")]
        bots += [make_bot(name, random.Random(g * 10 + i)) for i, name in enumerate(others)]
        records.append(repr(play_game(bots, random.Random(500 + g))))
    return hashlib.sha256("".join(records).encode()).hexdigest()[:16]


def main() -> None:
    if "--heads-up" in sys.argv:
        print(digest(["field:mc50"]))
    else:
        print(digest(["field:mc50", "field:risk", "heuristic"]))


if __name__ == "__main__":
    main()
