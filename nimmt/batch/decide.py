"""One decision of a policy from what one player sees: the doors of the ``beginner``, ``heuristic`` and
``learned`` bots and of the styles the ``expert`` models other players with (:mod:`nimmt.bots`).

The policies are written once, as kernels (:mod:`nimmt.batch._choices`): the whole-table kernels
play them for every seat, and these functions pack one player's rows, hand and unseen cards into
what the kernels take and call them for one decision. So a bot chooses exactly what its seat in a
rollout or a simulation chooses.

Each function runs the kernels in one of two ways, with the same result to the last bit:

* ``compiled=True``: their compiled entries (Numba), which ``nimmt prepare`` compiles ahead of
  time (a caller asks for them only once they are prepared: a compile takes minutes);
* ``compiled=False`` (and always without Numba): the same source files loaded again as plain Python
  (a twin: Numba is not even imported, which takes about a second), run on lists, with the kernels'
  NumPy tables as Python sequences (NumPy's scalars are slow outside compiled code).

>>> rows = ((10,), (20,), (30,), (40, 41, 42, 43, 44))
>>> card_costs(rows, (45, 11), (), 4)  # 45 is the sixth card of the last row: 3 + 1 + 1 + 1 + 5 bullheads
{11: 0.0, 45: 11.0}
>>> heuristic_card(rows, (45, 11), (), 4), heuristic_row(rows, 5, (), (45, 11), (), 4)
(11, 0)
"""

from __future__ import annotations

import builtins
import functools
import importlib
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from nimmt.core import BULLHEADS, row_bullheads

Floats = npt.NDArray[np.float32]

# The kernels' NumPy tables, as plain Python indexes them quickly: bullheads by card, comb(n, k).
_PLAIN_TABLES: dict[str, object] = {
    "BULL": BULLHEADS,
    "COMB": {(n, k): float(math.comb(n, k)) for n in range(11) for k in range(11)},
}
_KERNEL_FILES = ("_base", "_choices")  # what the policies' kernels are made of (and nimmt.core.fast)


def _plain_module(name: str, made: dict[str, ModuleType]) -> ModuleType:
    """The kernels' module ``name`` (a file of this folder) loaded again as plain Python: its ``import
    numba`` fails, so its kernels stay Python functions (and Numba, about a second to import, is not
    loaded), it imports the plain twins of the other kernel files, and its tables are Python ones."""
    path = Path(__file__).with_name(f"{name}.py")
    module = ModuleType(f"{__package__}.{name}")
    module.__file__ = str(path)
    module.__package__ = __package__

    def load(what: str, names: Any = None, local: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if level == 1 and what in _KERNEL_FILES:
            return made[what] if what in made else _plain_module(what, made)
        if what == "numba" or what.startswith("numba."):
            raise ImportError(f"{what}: not for the plain Python twin")
        return builtins.__import__(what, names, local, fromlist, level)

    module.__dict__["__builtins__"] = {**vars(builtins), "__import__": load}
    made[name] = module
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
    module.__dict__.update(_PLAIN_TABLES)
    return module


@functools.cache
def _plain_modules() -> dict[str, ModuleType]:
    """The policies' kernel files as plain Python (made once)."""
    made: dict[str, ModuleType] = {}
    for name in _KERNEL_FILES:
        if name not in made:
            _plain_module(name, made)
    return made


def _plain() -> ModuleType:
    return _plain_modules()["_choices"]


@functools.cache
def _kernel(name: str, compiled: bool) -> Callable[..., Any]:
    """The kernel ``name``: compiled (Numba) when asked for and installed, else its plain twin."""
    if _arrays(compiled):
        kernel: Callable[..., Any] = getattr(importlib.import_module("._choices", __package__), name)
        return kernel
    plain: Callable[..., Any] = getattr(_plain(), name)
    return plain


@functools.cache
def _arrays(compiled: bool) -> bool:
    """Whether the kernels take NumPy arrays (compiled) or lists (plain)."""
    return compiled and importlib.import_module("._base", __package__).HAVE_NUMBA is True


@functools.lru_cache(maxsize=64)
def _prefix(hidden: frozenset[int], compiled: bool) -> tuple[Any, Any]:
    """:func:`unseen_prefix`'s counts and bullheads for the cards ``hidden`` from a player (the ones
    not seen and their own), as the kernels take them (which only read them): kept, since one view
    asks for them many times (the expert's opponent model: once per style and sampled hand, all with
    the same cards hidden)."""
    public = [True] * 105
    for c in hidden:
        public[c] = False
    cnt, hb = [0] * 106, [0] * 106
    _plain().unseen_prefix(public, cnt, hb)
    if _arrays(compiled):
        return np.array(cnt, np.int64), np.array(hb, np.int64)
    return cnt, hb


HEURISTIC_ROOM: int = _plain_modules()["_base"].HEURISTIC_ROOM
HEURISTIC_FEW: int = _plain_modules()["_base"].HEURISTIC_FEW
HEURISTIC_TIE: float = _plain_modules()["_base"].HEURISTIC_TIE
HEURISTIC_LATER: float = _plain_modules()["_base"].HEURISTIC_LATER
NET_CARD_FEATURES: int = _plain().NET_CARD_FEATURES  # the learned network's encoding: the card's numbers first
NET_TABLE_FEATURES: int = _plain().NET_TABLE_FEATURES
NET_FEATURES: int = _plain().NET_FEATURES
NET_TAKE_ROW: float = _plain().NET_TAKE_ROW


def _pack(rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int], compiled: bool) -> list[Any]:
    """Ends, lengths and bullheads of the rows, the hand (sorted), the prefix counts of the cards this
    player has not seen (theirs included, as the kernels count) and the room the kernels work in:
    lists, or int64 arrays for the compiled entries."""
    cnt, hb = _prefix(frozenset((*unseen, *hand)), compiled)
    packed = [
        [r[-1] for r in rows], [len(r) for r in rows], [row_bullheads(r) for r in rows], sorted(hand),
        [0] * (2 * len(hand) + HEURISTIC_ROOM),
    ]
    made: list[Any] = [np.array(x, np.int64) for x in packed] if _arrays(compiled) else list(packed)
    return [*made[:4], cnt, hb, made[4]]


def _room(n: int, compiled: bool) -> tuple[Any, Any]:
    """Room for ``n`` costs (floats) and ``n`` rows (ints), as the kernels run."""
    if _arrays(compiled):
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
    waiting = np.array(still, np.int64) if _arrays(compiled) else list(still)
    row: int = _kernel("decide_row", compiled)(
        ends, counts, heads, card, waiting, cards, cnt, hb, players - 1, HEURISTIC_LATER, work)
    return int(row)


def beginner_card(rows: Sequence[Sequence[int]], hand: Sequence[int]) -> int:
    """The card the ``beginner`` bot plays from ``hand`` on ``rows``: the one closest above a row's
    last card that would not be that row's sixth card (the lower card on a tie), else its lowest
    card. Always the plain kernel: a few comparisons, quicker than packing arrays for a compiled one.

    >>> beginner_card(((10,), (20,), (30,), (40, 41, 42, 43, 44)), (45, 33, 12))
    12
    >>> beginner_card(((10,), (20,), (30,), (40, 41, 42, 43, 44)), (45, 5))
    5
    """
    cards = sorted(hand)
    index: int = _plain().beginner_card([r[-1] for r in rows], [len(r) for r in rows], cards)
    return cards[index]


def beginner_row(rows: Sequence[Sequence[int]]) -> int:
    """The row the ``beginner`` bot takes (and the kernels' ``fewest`` row policy): the one with the
    fewest bullheads, the first one on a tie.

    >>> beginner_row(((55,), (10,), (11,), (3,)))
    3
    """
    row: int = _plain_modules()["_base"].fewest([row_bullheads(r) for r in rows])
    return row


def net_features(rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int], players: int,
                 compiled: bool = False) -> Floats:
    """(len(hand), NET_FEATURES) float32: the numbers the learned network sees for each card of
    ``hand`` (sorted) and of the table (:mod:`nimmt.bots.learned` tells what they are)."""
    ends, counts, heads, cards, cnt, hb, work = _pack(rows, hand, unseen, compiled)
    n = len(hand)
    feats = np.zeros((n, NET_FEATURES), np.float32)
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
    return float(_plain().at_least(n, p, k))


__all__ = [
    "NET_CARD_FEATURES", "NET_FEATURES", "NET_TABLE_FEATURES", "NET_TAKE_ROW",
    "at_least", "beginner_card", "beginner_row", "card_costs", "heuristic_card",
    "heuristic_row", "net_features",
]
