"""The reference the batch engine is checked against: the same deals played by :mod:`nimmt.core`.

Used by ``tests/batch`` and ``benchmarks/check_batch_exact.py`` (a test oracle: not part of the
package).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from nimmt.bots import make_bot
from nimmt.core import BULLHEADS, ChooseRow, Deal, Phase, PlayCard, apply, new_game, view

Ints = npt.NDArray[np.int64]


def core_penalties(
    rows: npt.ArrayLike, orders: npt.ArrayLike, choices: npt.ArrayLike | None = None, turns: int = 10
) -> Ints:
    """Play each deal with the step engine (:func:`nimmt.core.apply`): every player plays
    ``orders[b, p, t]`` in turn ``t`` (for the first ``turns`` turns); the k-th card below every
    row takes row ``choices[b, k]``, or the row with the fewest bullheads (the first on a tie) when
    ``choices`` is None. Returns the penalties taken, (hands, players)."""
    r = np.asarray(rows)
    o = np.asarray(orders)
    ch = None if choices is None else np.asarray(choices)
    count, players, _ = o.shape
    out = np.zeros((count, players), np.int64)
    for b in range(count):
        hands = tuple(tuple(int(c) for c in o[b, p]) for p in range(players))
        state = apply(new_game(players), Deal(rows=tuple(int(c) for c in r[b]), hands=hands)).state
        event = 0
        for t in range(turns):
            for p in range(players):
                state = apply(state, PlayCard(p, hands[p][t])).state
                while state.phase is Phase.CHOOSE_ROW:
                    if ch is None:
                        heads = [sum(BULLHEADS[c] for c in row) for row in state.rows]
                        row = heads.index(min(heads))
                    else:
                        row = int(ch[b, event])
                    event += 1
                    state = apply(state, ChooseRow(state.waiting_for[0], row)).state
        out[b] = state.penalties if turns < 10 else state.history[-1]
    return out


def core_bot_penalties(rows: npt.ArrayLike, orders: npt.ArrayLike, bots: Sequence[str]) -> Ints:
    """Each deal played through the step engine by the bots named ``bots`` (seat order; bots that
    decide without chance: ``beginner``, ``heuristic``...), each deciding from its own view.
    Returns the round penalties, (hands, players)."""
    r = np.asarray(rows)
    o = np.asarray(orders)
    count, players, _ = o.shape
    out = np.zeros((count, players), np.int64)
    seats = [make_bot(name) for name in bots]
    for b in range(count):
        hands = tuple(tuple(int(c) for c in o[b, p]) for p in range(players))
        state = apply(new_game(players), Deal(rows=tuple(int(c) for c in r[b]), hands=hands)).state
        while state.phase is not Phase.DEAL and state.phase is not Phase.OVER:
            player = state.waiting_for[0]
            state = apply(state, seats[player].act(view(state, player))).state
        out[b] = state.history[-1]
    return out


def core_heuristic_penalties(rows: npt.ArrayLike, orders: npt.ArrayLike) -> Ints:
    """Each deal played through the step engine by :class:`nimmt.bots.heuristic.HeuristicBot`
    seats, each deciding from its own view. Returns the round penalties, (hands, players)."""
    return core_bot_penalties(rows, orders, ["heuristic"] * np.asarray(orders).shape[1])
