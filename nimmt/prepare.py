"""Preparing the bots: the compiled kernels of :mod:`nimmt.batch`, compiled once and kept.

The strong bots (``expert``), the coach and ``nimmt simulate`` run compiled kernels (Numba, the
``sim`` extra). Numba compiles a kernel the first time it is called and keeps the machine code in
its cache (``cache=True``), so only the first run on a machine pays: minutes of CPU, more on a
busy machine. :func:`prepare` pays it ahead of time, by making one of each decision that the bots,
the coach and ``simulate`` make (so that every kernel is compiled with exactly the argument types
those calls give it); ``make setup`` runs it (``nimmt prepare``), ``nimmt play`` and ``simulate``
run it first when they need it, the server runs it in a background process on a first run, and
its bot workers run it when they start (then it only loads the cache).

Processes that prepare at the same time take turns, and a stamp says the cache was filled: both
live in :mod:`nimmt.batch.cache`, which the bots ask whether to run compiled without importing this
module (it imports them).

Without Numba there is nothing to compile: :func:`prepare` returns at once.

``python -m nimmt.prepare`` prepares, quietly (what the server runs in the background on a first run).
"""

from __future__ import annotations

import contextlib
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nimmt.core import Deal, GameState, PlayCard, apply, new_game, view

if TYPE_CHECKING:
    from nimmt.batch.cache import compiled_engine, is_prepared

# What the cache looks like lives in nimmt.batch.cache, below the bots that ask it; the terminal and
# the server still find the two questions here, beside prepare. They are loaded when first asked for
# (__getattr__), so that importing this module for COMPILED_BOTS (simulate of random seats) loads no
# nimmt.batch.
__all__ = ["COMPILED_BOTS", "Prepared", "compiled_engine", "is_prepared", "prepare"]

# The bots that need compiled kernels. ``heuristic`` and ``learned`` run theirs compiled once prepared
# (their one-decision entries are among the decisions below) and as plain Python until then.
COMPILED_BOTS = frozenset({"expert"})


@dataclass(frozen=True, slots=True)
class Prepared:
    """What :func:`prepare` did: ``compiled`` (some kernel was not in the cache yet), and how long it
    took in seconds, ``wall`` and ``cpu`` (this process's), and ``waited`` for another process."""

    compiled: bool
    wall: float
    cpu: float
    waited: float = 0.0


def _states() -> tuple[GameState, GameState]:
    """A 3-player state where seat 0 plays a card, and one where its card waits for a row choice."""
    hands = ((1, *range(11, 20)), tuple(range(21, 31)), tuple(range(41, 51)))
    start = apply(new_game(3), Deal((5, 6, 7, 8), hands)).state
    state = start
    for seat, card in ((0, 1), (1, 21), (2, 41)):
        state = apply(state, PlayCard(seat, card)).state
    return start, state


def _decisions() -> list[Callable[[], object]]:
    """One of each call that runs a compiled kernel: the expert's card and row (its rollouts with one style
    per seat, as once it has seen how the others play, and the table-wide ones), its rollouts that keep
    each player's share (near the game's end), the review's, the coach's cards and
    rows, ``simulate``'s seats, and the heuristic's and the learned network's one decisions."""
    import numpy as np

    from nimmt.batch import decide, review_penalties, seat_games
    from nimmt.batch.seated import card_seat_penalties, row_seat_penalties
    from nimmt.bots import make_bot
    from nimmt.bots.styles import policies_of, seat_card_penalties, seat_row_penalties, seats_of
    from nimmt.coach import advise_cards, advise_rows

    cards, rows = view(_states()[0], 0), view(_states()[1], 0)
    unseen, still = cards.unseen_cards(), [c for c, _ in rows.revealed[rows.resolved + 1 :]]
    expert = make_bot("expert", random.Random(0))
    expert.time_budget = 0.01  # type: ignore[attr-defined]
    styles = seats_of(("heuristic", "snug", "mc"))
    rng = np.random.default_rng(0)
    return [
        lambda: expert.act(cards),
        lambda: expert.act(rows),
        lambda: seat_card_penalties(cards, cards.hand[:2], 2, rng, styles, np.zeros((2, 2), np.int64)),
        lambda: seat_row_penalties(rows, 2, rng, styles, np.zeros((4, 2), np.int64)),
        # The expert's rollouts near the game's end (nimmt.bots.ending): each player's share kept apart.
        lambda: card_seat_penalties(cards, cards.hand[:2], 2, rng, policies_of(styles, None)),
        lambda: row_seat_penalties(rows, 2, rng, policies_of(styles, None)),
        # The review's rollouts (nimmt.review): the same deal and draws for every option of a sample.
        lambda: review_penalties(cards, "card", cards.hand[:2], 0, 2, 0, policies_of(styles, None)),
        lambda: review_penalties(rows, "row", [0, 1], 0, 2, 0, policies_of(styles, None)),
        lambda: advise_cards(cards, samples=8, rng=random.Random(0)),
        lambda: advise_rows(rows, samples=8, rng=random.Random(0)),
        lambda: seat_games(("heuristic", "beginner", "random"), 2, 1),
        lambda: seat_games(("random", "random", "random"), 2, 1),
        # The one-decision entries of the heuristic, the styles and the learned network (nimmt.batch.decide).
        lambda: decide.heuristic_card(cards.rows, cards.hand, unseen, 3, compiled=True),
        lambda: decide.card_costs(cards.rows, cards.hand, unseen, 3, compiled=True),
        lambda: decide.heuristic_row(rows.rows, rows.row_choice_card or 1, still, rows.hand, rows.unseen_cards(), 3,
                                     compiled=True),
        lambda: decide.net_features(cards.rows, cards.hand, unseen, 3, compiled=True),
    ]


def __getattr__(name: str) -> Any:
    if name in ("compiled_engine", "is_prepared"):
        from nimmt.batch import cache

        return getattr(cache, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def prepare() -> Prepared:
    """Compile every kernel the bots, the coach and ``simulate`` use, or load them from the cache."""
    from nimmt.batch.cache import compiled_engine, mark_prepared, taking_turns

    if not compiled_engine():
        return Prepared(False, 0.0, 0.0)
    from numba.core.event import install_recorder  # type: ignore[import-untyped,import-not-found,unused-ignore]

    wall, cpu = time.perf_counter(), time.process_time()
    with taking_turns() as waited, install_recorder("numba:compile") as compiles:  # compiles only, not loads
        for decide in _decisions():
            decide()
        mark_prepared()
    return Prepared(bool(compiles.buffer), time.perf_counter() - wall, time.process_time() - cpu, waited)


def main(argv: list[str]) -> None:
    """``python -m nimmt.prepare [--nice N]``: prepare quietly, at a lower priority if asked."""
    if argv[:1] == ["--nice"] and len(argv) == 2:
        with contextlib.suppress(OSError, AttributeError):
            os.nice(int(argv[1]))
    prepare()


if __name__ == "__main__":
    main(sys.argv[1:])
