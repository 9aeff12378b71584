"""A batch engine for 6 nimmt!: many hands or games at once, for search bots, learning and tests.

Everything here follows :mod:`nimmt.core` exactly (``tests/batch`` replays thousands of deals
through both and compares every penalty; ``benchmarks/check_batch_exact.py`` does it for 100,000).
Two paths run the same API: compiled kernels when Numba is installed (``pip install 'nimmt[sim]'``),
vectorised NumPy otherwise. ``engine="numpy"`` (or ``NIMMT_BATCH_ENGINE=numpy``) forces NumPy.

Policies
--------
* cards: ``"order"`` (each player plays its cards in the order given; a random order is random
  play) or ``"heuristic"`` (the choice of :class:`nimmt.bots.heuristic.HeuristicBot`);
* rows, for a card below every row: ``"given"`` (row choices supplied per low card, in order),
  ``"random"``, ``"fewest"`` (fewest bullheads, the first row on a tie) or ``"heuristic"``;
* whole tables (``play_hands``, ``play_games``, rollouts): ``"random"``, ``"fewest"`` (random cards,
  fewest-bullheads rows) or ``"heuristic"`` (every seat plays like the heuristic bot);
* seat by seat (``seat_games``, what ``nimmt simulate`` uses): each seat plays exactly like the bot
  it is named after, ``"random"``, ``"beginner"`` or ``"heuristic"`` (:data:`SEAT_POLICIES`);
* in rollouts, any card and row policy for each seat (:class:`CardPolicy`, :class:`RowPolicy`, put
  together by :func:`seat_policies`): also the styles the ``expert`` models other players with and
  the learned network (``CardPolicy.NET``).

Hands and games
---------------
>>> import numpy as np
>>> from nimmt.batch import deal, play, play_games, play_hands
>>> rng = np.random.default_rng(7)
>>> rows, orders = deal(4, 1000, rng)            # (1000, 4) and (1000, 4, 10)
>>> penalties = play(rows, orders, row_policy="fewest")
>>> penalties.shape
(1000, 4)
>>> stats = play_hands(4, 100_000, rng)           # played in chunks; never held at once
>>> stats.hands, stats.totals.shape
(100000, (4,))
>>> games = play_games(4, 1000, rng)
>>> games.games, bool(games.rounds >= 1000)
(1000, True)

Rollouts (for search bots)
--------------------------
From a player's :class:`nimmt.core.View`, the unseen cards are dealt at random to the other
players (each gets as many as it holds), and the current round is played to its end,
``n_samples`` times; the same deals serve every candidate (common random numbers).

* ``rollout_card_values(view, cards=None, n_samples=256, rng=None, policy="random")`` ->
  ``{card: mean bullheads}`` the viewer takes from now to the end of the round if it plays
  ``card`` now (its later cards and every other player follow ``policy``). Needs
  ``view.must_play_card``. ``rollout_card_penalties`` gives the (cards, samples) array.
* ``rollout_row_values(view, n_samples=256, rng=None, policy="random")`` -> ``{row: mean
  bullheads}`` when the viewer's low card takes that row (the row's own bullheads included).
  Needs ``view.must_choose_row``. ``rollout_row_penalties`` gives the (4, samples) array.

``policy`` is a table policy by name or per-seat :class:`Policies`; the ``*_penalties`` functions
also give, in ``rest``, what the other players take together.

Lower is better. ``rng`` is a :class:`numpy.random.Generator`, a :class:`random.Random` (one draw
from it seeds a generator), a seed, or None; the same seed gives the same numbers on the same
engine. A bad view, card, policy or sample count raises :class:`BatchError` with a clear message.

One decision
------------
:mod:`nimmt.batch.decide` makes one policy's decision from what one player sees (rows, hand, unseen
cards): the ``heuristic`` bot's card and row, the styles' cards and costs, the learned network's
features. The bots of :mod:`nimmt.bots` are thin adapters over it; the heuristic's weights are
:data:`HEURISTIC_TIE`, :data:`HEURISTIC_LATER`, :data:`HEURISTIC_LOOK` and :data:`HEURISTIC_FEW`.

``warm_up()`` compiles (or loads from Numba's cache) the rollout kernels once per process: a server's
bot workers call it when they start, so that no player waits for the first compile.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import decide
    from ._base import HEURISTIC_FEW, HEURISTIC_LATER, HEURISTIC_LOOK, HEURISTIC_TIE
    from ._kernels import HAVE_NUMBA, MC_CARD, MC_COST, CardPolicy, Policies, RowPolicy
    from ._review import review_penalties
    from .engine import (
        CARD_POLICIES,
        DEFAULT_CHUNK,
        ENGINE_VARIABLE,
        POLICIES,
        ROW_POLICIES,
        SEAT_POLICIES,
        BatchError,
        GameStats,
        HandStats,
        SeatGames,
        check_deals,
        deal,
        engine_name,
        play,
        play_games,
        play_hands,
        seat_games,
        seat_hands,
        seat_policies,
    )
    from .rollout import (
        rollout_card_penalties,
        rollout_card_values,
        rollout_row_penalties,
        rollout_row_values,
        warm_up,
    )

# Where each public name lives. They are loaded when first asked for: the kernels' modules load Numba
# (about a second), which nimmt.batch.decide's plain Python, a bot's door, does without.
_HOMES: dict[str, str] = {
    **dict.fromkeys(("HEURISTIC_FEW", "HEURISTIC_LATER", "HEURISTIC_LOOK", "HEURISTIC_TIE"), "._base"),
    **dict.fromkeys(("HAVE_NUMBA", "MC_CARD", "MC_COST", "CardPolicy", "Policies", "RowPolicy"), "._kernels"),
    **dict.fromkeys((
        "CARD_POLICIES", "DEFAULT_CHUNK", "ENGINE_VARIABLE", "POLICIES", "ROW_POLICIES", "SEAT_POLICIES",
        "BatchError", "GameStats", "HandStats", "SeatGames", "check_deals", "deal", "engine_name", "play",
        "play_games", "play_hands", "seat_games", "seat_hands", "seat_policies"), ".engine"),
    **dict.fromkeys((
        "rollout_card_penalties", "rollout_card_values", "rollout_row_penalties", "rollout_row_values",
        "warm_up"), ".rollout"),
    "review_penalties": "._review",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    try:
        value = (getattr(importlib.import_module(home, __name__), name) if home
                 else importlib.import_module(f".{name}", __name__))  # a submodule, e.g. decide
    except ModuleNotFoundError as missing:
        if home or missing.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


__all__ = [
    "CARD_POLICIES",
    "DEFAULT_CHUNK",
    "ENGINE_VARIABLE",
    "HAVE_NUMBA",
    "HEURISTIC_FEW",
    "HEURISTIC_LATER",
    "HEURISTIC_LOOK",
    "HEURISTIC_TIE",
    "MC_CARD",
    "MC_COST",
    "POLICIES",
    "ROW_POLICIES",
    "SEAT_POLICIES",
    "BatchError",
    "CardPolicy",
    "GameStats",
    "HandStats",
    "Policies",
    "RowPolicy",
    "SeatGames",
    "check_deals",
    "deal",
    "decide",
    "engine_name",
    "play",
    "play_games",
    "play_hands",
    "review_penalties",
    "rollout_card_penalties",
    "rollout_card_values",
    "rollout_row_penalties",
    "rollout_row_values",
    "seat_games",
    "seat_hands",
    "seat_policies",
    "warm_up",
]
