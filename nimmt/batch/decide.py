"""One decision of a policy from what one player sees: the doors of the ``heuristic`` and ``learned``
bots and of the styles the ``expert`` models other players with (:mod:`nimmt.bots`).

The policies are written once, as kernels (:mod:`nimmt.batch._choices`): the whole-table kernels
play them for every seat, and these functions pack one player's rows, hand and unseen cards into
what the kernels take and call them for one decision. So a bot chooses exactly what its seat in a
rollout or a simulation chooses.

Each function runs the kernels in one of two ways, with the same result to the last bit:

* ``compiled=True``: their compiled entries (Numba), which ``nimmt prepare`` compiles ahead of
  time (a caller asks for them only once they are prepared: a compile takes minutes);
* ``compiled=False`` (and always without Numba): the same functions as plain Python on lists,
  with the kernels' NumPy tables as Python sequences (NumPy's scalars are slow outside compiled code).

>>> rows = ((10,), (20,), (30,), (40, 41, 42, 43, 44))
>>> card_costs(rows, (45, 11), (), 4)  # 45 is the sixth card of the last row: 3 + 1 + 1 + 1 + 5 bullheads
{11: 0.0, 45: 11.0}
>>> heuristic_card(rows, (45, 11), (), 4), heuristic_row(rows, 5, (), (45, 11), (), 4)
(11, 0)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from types import FunctionType
from typing import Any

import numpy as np
import numpy.typing as npt

from nimmt.core import BULLHEADS

from . import _choices as C
from ._base import HAVE_NUMBA, HEURISTIC_FEW, HEURISTIC_LATER, HEURISTIC_ROOM, HEURISTIC_TIE

Floats = npt.NDArray[np.float32]

# The kernels' NumPy tables, as plain Python indexes them quickly: bullheads by card, comb(n, k).
_PLAIN_TABLES: dict[str, object] = {
    "BULL": BULLHEADS,
    "COMB": {(n, k): float(math.comb(n, k)) for n in range(11) for k in range(11)},
}


def _plain(fn: Any, made: dict[int, dict[str, Any]]) -> Any:
    """``fn`` as plain Python: its Python function (Numba keeps it as ``py_func``) bound to a copy of
    its module's names in which every kernel it may call is plain too and the tables are Python
    sequences. ``made``: the copies made so far, by module."""
    py = getattr(fn, "py_func", fn)
    if not isinstance(py, FunctionType) or not py.__module__.startswith("nimmt.batch"):
        return py
    names = made.get(id(py.__globals__))
    if names is None:
        names = made[id(py.__globals__)] = dict(py.__globals__)
        for name, value in py.__globals__.items():
            if name in _PLAIN_TABLES:
                names[name] = _PLAIN_TABLES[name]
            elif hasattr(value, "py_func") or isinstance(value, FunctionType):
                names[name] = _plain(value, made)
    return FunctionType(py.__code__, names, py.__name__, py.__defaults__, py.__closure__)


@functools.cache
def _plain_kernels() -> dict[str, Callable[..., Any]]:
    made: dict[int, dict[str, Any]] = {}
    names = ("decide_card", "decide_row", "hand_costs", "hand_features", "at_least", "unseen_prefix")
    return {name: _plain(getattr(C, name), made) for name in names}


def _kernel(name: str, compiled: bool) -> Callable[..., Any]:
    if compiled and HAVE_NUMBA:
        kernel: Callable[..., Any] = getattr(C, name)
        return kernel
    return _plain_kernels()[name]


def _pack(rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int], compiled: bool) -> list[Any]:
    """Ends, lengths and bullheads of the rows, the hand (sorted), the prefix counts of the cards this
    player has not seen (theirs included, as the kernels count) and the room the kernels work in:
    lists, or int64 arrays for the compiled entries."""
    public = [True] * 105
    for c in (*unseen, *hand):
        public[c] = False
    cnt, hb = [0] * 106, [0] * 106
    _plain_kernels()["unseen_prefix"](public, cnt, hb)
    packed = [
        [r[-1] for r in rows], [len(r) for r in rows], [sum(BULLHEADS[c] for c in r) for r in rows], sorted(hand),
        cnt, hb, [0] * (2 * len(hand) + HEURISTIC_ROOM),
    ]
    return [np.array(x, np.int64) for x in packed] if compiled and HAVE_NUMBA else packed


def _room(n: int, compiled: bool) -> tuple[Any, Any]:
    """Room for ``n`` costs (floats) and ``n`` rows (ints), as the kernels run."""
    if compiled and HAVE_NUMBA:
        return np.zeros(n), np.zeros(n, np.int64)
    return [0.0] * n, [0] * n


def heuristic_card(rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int], players: int,
                   look: bool | None = None, snug: bool | None = None, compiled: bool = False) -> int:
    """The card the ``heuristic`` bot plays from ``hand`` on ``rows`` (``unseen``: the cards this
    player has not seen) at a table of ``players``. ``look`` (weigh the rest of the hand on the rows
    a card leaves) and ``snug`` (near ties to the snuggest fit) default to the bot's: both at tables
    of at most ``HEURISTIC_FEW`` players; the ``snug`` style is ``look=False, snug=True``."""
    few = players <= HEURISTIC_FEW
    ends, counts, heads, cards, cnt, hb, work = _pack(rows, hand, unseen, compiled)
    costs, _ = _room(len(hand), compiled)
    index = _kernel("decide_card", compiled)(
        ends, counts, heads, cards, cnt, hb, players - 1, HEURISTIC_TIE, few if look is None else look,
        few if snug is None else snug, work, costs)
    return int(cards[index])


def card_costs(rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int], players: int,
               compiled: bool = False) -> dict[int, float]:
    """card -> the bullheads the heuristic expects it to take if played now (no look ahead), for each
    card of ``hand``."""
    ends, counts, heads, cards, cnt, hb, work = _pack(rows, hand, unseen, compiled)
    costs, _ = _room(len(hand), compiled)
    _kernel("hand_costs", compiled)(ends, counts, heads, cards, cnt, hb, players - 1, work, costs)
    return {int(c): float(cost) for c, cost in zip(cards, costs, strict=True)}


def heuristic_row(rows: Sequence[Sequence[int]], card: int, still: Sequence[int], hand: Sequence[int],
                  unseen: Sequence[int], players: int, compiled: bool = False) -> int:
    """The row the ``heuristic`` bot takes when its ``card`` is below every row: the bullheads now,
    plus ``HEURISTIC_LATER`` times the mean cost of its ``hand`` on the rows left once the cards
    ``still`` to be placed this turn are (an opponent's low card taking the cheapest row)."""
    ends, counts, heads, cards, cnt, hb, work = _pack(rows, hand, unseen, compiled)
    waiting = np.array(still, np.int64) if compiled and HAVE_NUMBA else list(still)
    row: int = _kernel("decide_row", compiled)(
        ends, counts, heads, card, waiting, cards, cnt, hb, players - 1, HEURISTIC_LATER, work)
    return int(row)


def net_features(rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int], players: int,
                 compiled: bool = False) -> Floats:
    """(len(hand), NET_FEATURES) float32: the numbers the learned network sees for each card of
    ``hand`` (sorted) and of the table (:mod:`nimmt.bots.learned` tells what they are)."""
    ends, counts, heads, cards, cnt, hb, work = _pack(rows, hand, unseen, compiled)
    n = len(hand)
    feats = np.zeros((n, C.NET_FEATURES), np.float32)
    costs, targets = _room(n, compiled)
    _kernel("hand_features", compiled)(ends, counts, heads, cards, cnt, hb, players - 1, HEURISTIC_TIE, work, costs,
                                       targets, feats)
    return feats


def at_least(n: int, p: float, k: int) -> float:
    """P(X >= k) for X ~ Binomial(n, p), as the learned network's features count it (the ``field:risk``
    bot asks it too).

    >>> at_least(3, 0.5, 2), at_least(3, 0.5, 0), at_least(3, 0.5, 4)
    (0.5, 1.0, 0.0)
    """
    return float(_plain_kernels()["at_least"](n, p, k))


NET_CARD_FEATURES: int = C.NET_CARD_FEATURES
NET_TABLE_FEATURES: int = C.NET_TABLE_FEATURES
NET_FEATURES: int = C.NET_FEATURES
NET_TAKE_ROW: float = C.NET_TAKE_ROW

__all__ = [
    "NET_CARD_FEATURES", "NET_FEATURES", "NET_TABLE_FEATURES", "NET_TAKE_ROW",
    "at_least", "card_costs", "heuristic_card",
    "heuristic_row", "net_features",
]
